// One pass of a model, as two bars: the time to read every weight once (bytes / bandwidth) and
// the time for the arithmetic (positions x weights multiply-adds / rate). The pass takes the
// longer of the two (the roofline's idealisation: reading and arithmetic overlap fully). Pure
// JavaScript over cited figures (hardware.js) and, once the roofline has measured it, this machine.
import { el, fmt, sliderRow } from "../ui.js";
import { H100_SXM, BIG_MODEL, FLOP_PER_MAC } from "../hardware.js";
import { EVENT } from "../ch3-events.js";

const fmtTime = (s) => (s >= 1e-3 ? `${fmt(s * 1e3, 2)} ms` : `${fmt(s * 1e6, 1)} µs`);

export function mountPassBudget(root) {
  // machine: [label, bytes/s, multiply-adds/s]; this computer's two appear when measured
  const machines = { h100: ["NVIDIA H100 SXM (datasheet)", H100_SXM.bytes_per_s, H100_SXM.flops / FLOP_PER_MAC] };
  const params = sliderRow({ id: "pb-logp", label: "parameters (log₁₀ billions)", min: -3, max: 2, step: 0.05,
    value: Number(Math.log10(BIG_MODEL.params / 1e9).toFixed(4)), onChange: () => draw() });
  const positions = sliderRow({ id: "pb-n", label: "positions in the pass", min: 1, max: 512, step: 1, value: 5, onChange: () => draw() });
  const bytes = el("select", { id: "pb-bytes", "aria-label": "bytes per weight", style: { maxWidth: "100%" } },
    el("option", { value: "2", text: "16-bit weights (2 bytes)" }), el("option", { value: "1", text: "8-bit weights (1 byte)" }));
  const machine = el("select", { id: "pb-machine", "aria-label": "machine", style: { maxWidth: "100%" } },
    el("option", { value: "h100", text: machines.h100[0] }),
    el("option", { value: "cache", text: "this computer, weights in cache (measuring…)", disabled: true }),
    el("option", { value: "dram", text: "this computer, main memory (measuring…)", disabled: true }));
  bytes.onchange = machine.onchange = () => draw();
  const bars = el("div", { class: "pb-bars" });
  const out = el("div", { class: "readout", id: "pb-out" });
  root.append(el("div", { class: "slider-grid" }, params.row, positions.row),
    el("div", { class: "controls" }, bytes, machine), bars, out);

  function bar(label, t, tmax, color) {
    const w = tmax > 0 ? Math.max(0.5, 100 * t / tmax) : 0;
    return el("div", { class: "bar-row" }, el("span", { class: "bar-label", text: label }),
      el("span", { class: "bar-track" }, el("span", { class: "bar-fill", style: { width: `${w}%`, background: color } })),
      el("span", { class: "bar-value", text: fmtTime(t) }));
  }
  function draw() {
    const P = 1e9 * 10 ** Number(params.num.value), n = Math.max(1, Math.round(Number(positions.num.value)));
    const [, bw, rate] = machines[machine.value];
    // our kernel's measured rate is for 8-bit weights, so this computer's options use 1 byte a weight
    const b = machine.value === "h100" ? Number(bytes.value) : 1;
    if (!Number.isFinite(P) || !Number.isFinite(n)) return;
    const read = P * b / bw, math = n * P / rate, math1 = P / rate;
    const pass = Math.max(read, math), pass1 = Math.max(read, math1);
    bars.replaceChildren(bar("reading the weights", read, pass, "#2f6fb3"), bar(`arithmetic, ${n} position${n > 1 ? "s" : ""}`, math, pass, "#c0622a"));
    out.textContent = `${fmt(P / 1e9, 2)} billion weights, ${b} byte${b > 1 ? "s" : ""} each. The pass takes ${fmtTime(pass)}: ` +
      (read >= math ? "reading the weights sets its length (memory-bound). " : "the arithmetic sets its length (arithmetic-bound). ") +
      `${n} positions cost ${fmt(pass / pass1, 2)} times one position.`;
    out.dataset.ratio = (pass / pass1).toFixed(3);
  }
  document.addEventListener(EVENT, (e) => {
    if (e.detail.kind !== "roofline") return;
    const r = e.detail.result, rate = r.macs.gmacs * 1e9;
    machines.cache = ["this computer, weights in cache", r.cache.gbps * 1e9, rate];
    machines.dram = ["this computer, main memory", r.dram.gbps * 1e9, rate];
    for (const o of machine.options) if (machines[o.value]) { o.disabled = false; o.textContent = machines[o.value][0] + (o.value === "h100" ? "" : " (measured)"); }
    draw();
  });
  draw();
  return {};
}
