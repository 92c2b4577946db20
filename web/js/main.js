// Page boot: start the worker, show its progress, then mount every widget; fill live numbers in the prose.
import * as engine from "./engine.js";
import { typesetAll } from "./ui.js";
import { mountKernelCheck } from "./widgets/kernel-check.js";
import { mountSamplerPanel } from "./widgets/sampler-panel.js";
import { mountFourTemps } from "./widgets/four-temps.js";
import { mountGreedyLoops } from "./widgets/greedy-loops.js";
import { mountEndAndSlide } from "./widgets/end-and-slide.js";
import { mountPythonCell } from "./widgets/python-cell.js";
import { mountKvRace } from "./widgets/kv-race.js";
import { mountOutliers } from "./widgets/outliers.js";
import { mountBitDepth } from "./widgets/bit-depth.js";
import { mountCostModel } from "./widgets/cost-model.js";
import { mountRounds } from "./widgets/rounds.js";
import { mountSamplingRule } from "./widgets/sampling-rule.js";
import { mountLiveSpec } from "./widgets/live-spec.js";
import { mountQuiz } from "./widgets/quiz.js";
import { mountSpeed } from "./widgets/speed.js";

const stageNames = {
  files: "Reading the build manifest",
  pyodide: "Starting Python (Pyodide)",
  package: "Installing the decodelab package",
  kernel: "Loading the WebAssembly kernel",
  model: "Loading the models",
};

function bootUi() {
  const steps = document.getElementById("boot-steps");
  const stageEl = document.getElementById("boot-stage");
  window.__bootStages = {};
  engine.on("progress", (m) => {
    window.__bootStages[m.stage] = m.ms / 1000;
    stageEl.textContent = (stageNames[m.stage] || m.stage) + "…";
    for (const li of steps.children) li.classList.add("done");
    steps.append(Object.assign(document.createElement("li"), { textContent: `${stageNames[m.stage] || m.stage} (${(m.ms / 1000).toFixed(2)} s)` }));
  });
  engine.on("ready", (info) => {
    window.__readyAt = performance.now();
    window.__bootStages.ready = info.ms / 1000;
    document.getElementById("boot").classList.add("ready");
    stageEl.textContent = `Ready in ${(info.ms / 1000).toFixed(2)} s: Python ${info.python}, ${["scalar", "SIMD", "relaxed-SIMD"][info.simd_level] || "scalar"} kernel.`;
    if (info.kernelNotice) {
      const n = document.getElementById("kernel-notice");
      n.textContent = info.kernelNotice;
      n.hidden = false;
    }
    fillLive(info);
    document.body.dataset.ready = "1";
  });
  engine.on("fatal", (m) => {
    document.getElementById("boot").classList.add("failed");
    stageEl.textContent = "The engine could not start.";
    const e = document.getElementById("boot-error");
    e.textContent = `Failed while ${(stageNames[m.stage] || m.stage).toLowerCase()}: ${m.message}`;
    e.hidden = false;
    document.body.dataset.ready = "failed";
  });
}

// Numbers in the prose come from the loaded model, never from the HTML.
function fillLive(info) {
  const m = info.models && info.models.main;
  if (!m) return;
  const params = m.vocab * m.d_model + m.context * m.d_model + m.n_layers * 12 * m.d_model * m.d_model;
  const values = { vocab: m.vocab.toLocaleString(), layers: m.n_layers, context: m.context, params: (params / 1e6).toFixed(1) + " million" };
  for (const n of document.querySelectorAll("[data-live]")) n.textContent = values[n.dataset.live] ?? n.textContent;
}

window.addEventListener("DOMContentLoaded", () => {
  bootUi();
  engine.start();
  typesetAll(document);
  const mounts = [["sampler-panel", mountSamplerPanel], ["four-temps", mountFourTemps], ["greedy-loops", mountGreedyLoops],
    ["end-slide", mountEndAndSlide], ["python-cell", mountPythonCell], ["kv-race", mountKvRace], ["outliers", mountOutliers],
    ["bit-depth", mountBitDepth], ["kernel-check", mountKernelCheck], ["speed", mountSpeed], ["cost-model", mountCostModel], ["rounds", mountRounds],
    ["sampling-rule", mountSamplingRule], ["live-spec", mountLiveSpec], ["quiz", mountQuiz]];
  const live = [];
  for (const [id, mount] of mounts) {
    const node = document.getElementById(id);
    if (node) live.push(mount(node));
  }
  // widgets that show something at once fill in when the engine is ready
  engine.ready().then(() => { for (const w of live) if (w && w.update) w.update(); }).catch(() => {});
});

window.decodelab = { call: engine.call, ready: engine.ready };
