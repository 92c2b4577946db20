// Page boot: start the worker, show its progress, then mount every widget.
import * as engine from "./engine.js";
import { mountKernelCheck } from "./widgets/kernel-check.js";
import { typesetAll } from "./ui.js";

const stageNames = {
  files: "Reading the build manifest",
  pyodide: "Starting Python (Pyodide)",
  package: "Installing the decodelab package",
  kernel: "Loading the WebAssembly kernel",
  model: "Loading the model",
};

function bootUi() {
  const steps = document.getElementById("boot-steps");
  const stageEl = document.getElementById("boot-stage");
  const seen = new Map();
  window.__bootStages = {};
  engine.on("progress", (m) => {
    window.__bootStages[m.stage] = m.ms / 1000;
    stageEl.textContent = (stageNames[m.stage] || m.stage) + "…";
    for (const [, li] of seen) li.classList.add("done");
    const li = document.createElement("li");
    li.textContent = `${stageNames[m.stage] || m.stage} (${(m.ms / 1000).toFixed(2)} s)`;
    steps.appendChild(li);
    seen.set(m.stage, li);
  });
  engine.on("ready", (info) => {
    window.__readyAt = performance.now();
    window.__bootStages.ready = info.ms / 1000;
    const boot = document.getElementById("boot");
    boot.classList.add("ready");
    stageEl.textContent = `Ready in ${(info.ms / 1000).toFixed(2)} s: Python ${info.python}, ` +
      `${info.simd ? "SIMD" : "scalar"} kernel.`;
    document.body.dataset.ready = "1";
    if (info.kernelNotice) {
      const n = document.getElementById("kernel-notice");
      n.textContent = info.kernelNotice;
      n.hidden = false;
    }
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

window.addEventListener("DOMContentLoaded", () => {
  bootUi();
  engine.start();
  typesetAll(document);
  mountKernelCheck(document.getElementById("kernel-check"));
});

// Tests and curious readers can reach the channel from the console.
window.decodelab = { call: engine.call, ready: engine.ready };
