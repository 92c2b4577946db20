// Published figures the prose cites, in one place (typed here, never in the HTML), with where they
// come from. The arithmetic on them is in live/registry.js (llamaKeys).
export const CITED = {
  // Llama 2 7B (Touvron et al., 2023, "Llama 2: Open Foundation and Fine-Tuned Chat Models"):
  // 32 layers of width 4096, 32 heads with a key and a value each (no grouped-query attention),
  // a 4,096-token context, about 6.7 billion parameters: 13.5 GB in 16-bit floats
  llama2_7b: { layers: 32, width: 4096, context: 4096, bytesPerNumber: 2, weightsGB: 13.5 },
  // NVIDIA H100 SXM5 (NVIDIA, "H100 Tensor Core GPU" data sheet): 80 GB of HBM3
  h100: { memoryGB: 80 },
};
