// Published figures chapter 3 quotes, each with its source. These are the only hardware numbers
// typed into the page; everything about the reader's own machine is measured (ch3_roofline).
export const H100_SXM = {
  name: "NVIDIA H100 SXM",
  bytes_per_s: 3.35e12, // HBM3 memory bandwidth
  flops: 989e12, // dense BF16 Tensor Core operations per second (1,979 T is the figure with sparsity)
  source: "NVIDIA H100 Tensor Core GPU datasheet (H100 SXM: 3.35 TB/s HBM3; BF16 Tensor Core 1,979 TFLOPS with sparsity, i.e. 989 dense)",
};

// An illustrative large model for the first section: not any real model's figures.
export const BIG_MODEL = { params: 7e9, bytes_per_weight: 2 };

// One multiply-add is two operations (a multiply and an add), the datasheets' convention.
export const FLOP_PER_MAC = 2;

// The premise in numbers, from the figures above: a pass reads every weight once and does one
// multiply-add per weight per position.
export function passBudget(m = BIG_MODEL, g = H100_SXM) {
  const bytes = m.params * m.bytes_per_weight;
  const read_s = bytes / g.bytes_per_s;
  const math1_s = FLOP_PER_MAC * m.params / g.flops;
  return {
    params_b: m.params / 1e9, weights_gb: bytes / 1e9, gpu_tbps: g.bytes_per_s / 1e12, gpu_tflops: g.flops / 1e12,
    read_ms: read_s * 1e3, math1_us: math1_s * 1e6, math5_us: 5 * math1_s * 1e6, idle: 1 - math1_s / read_s,
    max_tps: 1 / read_s, crossover_n: read_s / math1_s,
    // the ridge in multiply-adds per byte, and in operations per byte
    ridge_mac: g.flops / FLOP_PER_MAC / g.bytes_per_s, ridge_flop: g.flops / g.bytes_per_s,
  };
}
