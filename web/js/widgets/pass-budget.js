// One pass of a model, as two bars: the time to read every weight once (bytes / bandwidth) and
// the time for the arithmetic (positions x weights multiply-adds / rate). The pass takes the
// longer of the two (the roofline's idealisation: reading and arithmetic overlap fully). Pure
// JavaScript over cited figures (hardware.js) and, once the roofline has measured it, this machine.
import { el, fmt, sliderRow, setText } from "../ui.js";
import { t, onLang, parseDecimal } from "../i18n.js";
import { H100_SXM, BIG_MODEL, FLOP_PER_MAC } from "../hardware.js";
import * as store from "../store.js";

const fmtTime = (s) => (s >= 1e-3 ? t("w3.pb.ms", { x: fmt(s * 1e3, 2) }) : t("w3.pb.us", { x: fmt(s * 1e6, 1) }));

export function mountPassBudget(root) {
  // machine: [bytes/s, multiply-adds/s]; this computer's two appear when measured
  const machines = { h100: [H100_SXM.bytes_per_s, H100_SXM.flops / FLOP_PER_MAC] };
  const params = sliderRow({ id: "pb-logp", label: "w3.pb.params", min: -3, max: 2, step: 0.05,
    value: Number(Math.log10(BIG_MODEL.params / 1e9).toFixed(4)), onChange: () => draw() });
  const positions = sliderRow({ id: "pb-n", label: "w3.pb.positions", min: 1, max: 512, step: 1, value: 5, onChange: () => draw() });
  const bytes = el("select", { id: "pb-bytes", "t-aria-label": "w3.pb.bytes_aria", style: { maxWidth: "100%" } },
    el("option", { value: "2", t: "w3.pb.bytes2" }), el("option", { value: "1", t: "w3.pb.bytes1" }));
  const machine = el("select", { id: "pb-machine", "t-aria-label": "w3.pb.machine_aria", style: { maxWidth: "100%" } },
    el("option", { value: "h100", t: "w3.pb.machine.h100" }),
    el("option", { value: "cache", t: "w3.pb.machine.cache_measuring", disabled: true }),
    el("option", { value: "dram", t: "w3.pb.machine.dram_measuring", disabled: true }));
  bytes.onchange = machine.onchange = () => draw();
  const bars = el("div", { class: "pb-bars" });
  const out = el("div", { class: "readout", id: "pb-out" });
  root.append(el("div", { class: "slider-grid" }, params.row, positions.row),
    el("div", { class: "controls" }, bytes, machine), bars, out);

  function bar(label, time, tmax, color) {
    const w = tmax > 0 ? Math.max(0.5, 100 * time / tmax) : 0;
    return el("div", { class: "bar-row" }, el("span", { class: "bar-label", text: label }),
      el("span", { class: "bar-track" }, el("span", { class: "bar-fill", style: { width: `${w}%`, background: `var(--${color})` } })),
      el("span", { class: "bar-value", text: fmtTime(time) }));
  }
  function draw() {
    const logP = parseDecimal(params.num.value), pos = parseDecimal(positions.num.value);
    if (!Number.isFinite(logP) || !Number.isFinite(pos)) return; // half-typed: the last picture stays
    const P = 1e9 * 10 ** logP, n = Math.max(1, Math.round(pos));
    const [bw, rate] = machines[machine.value];
    // our kernel's measured rate is for 8-bit weights, so this computer's options use 1 byte a weight
    const b = machine.value === "h100" ? Number(bytes.value) : 1;
    if (!Number.isFinite(P) || !Number.isFinite(n)) return;
    const read = P * b / bw, math = n * P / rate, math1 = P / rate;
    const pass = Math.max(read, math), pass1 = Math.max(read, math1);
    // the two parts of a pass in the page's colours of no meaning (ink and grey): blue and orange
    // name our machine and the large one, and either machine can be chosen here (design re-review)
    bars.replaceChildren(bar(t("w3.pb.bar_read"), read, pass, "ui"), bar(t("w3.pb.bar_math", { n }), math, pass, "neutral"));
    out.textContent = t("w3.pb.out", { p: fmt(P / 1e9, 2), b, time: fmtTime(pass) }) + " " +
      t(read >= math ? "w3.pb.memory_bound" : "w3.pb.math_bound") + " " + t("w3.pb.ratio", { n, ratio: fmt(pass / pass1, 2) });
    out.dataset.ratio = (pass / pass1).toFixed(3);
  }
  onLang(draw);
  store.subscribe("ch3.roofline", (r) => {
    const rate = r.macs.gmacs * 1e9;
    machines.cache = [r.cache.gbps * 1e9, rate];
    machines.dram = [r.dram.gbps * 1e9, rate];
    for (const o of machine.options) if (o.value !== "h100" && machines[o.value]) { o.disabled = false; setText(o, `w3.pb.machine.${o.value}_measured`); }
    draw();
  });
  draw();
  return {};
}
