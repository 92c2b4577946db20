// The real pair at the reader's temperature (issue 41, "the chapters meet"): both models sample at
// one temperature (chapter 1's sampler, no filter) and the widget reports the share of the draft's
// guesses the target kept. The card holds the table the build measured at three temperatures, and
// the reader's run is its fourth row, written as the build's rows are (the card was a slider and a
// button with nothing under them: design N11). One click, one run of ch3_alpha_at (a few seconds;
// the page's Stop bar can end it).
import { call } from "../engine.js";
import { el, readNumber, serial, setStatus, sliderRow } from "../ui.js";
import { t, onLang, fixed } from "../i18n.js";
import { render } from "../live/number-formats.js";
import { fmtPct } from "../live/formats.js";
import { SPEC_TEMPS } from "../live/examples.js";

export function mountSpecTemps(root) {
  const temp = sliderRow({ id: "st-t", label: "w3.st.t", min: 0.1, max: 2, step: 0.1, value: 0.8 });
  const run = el("button", { id: "st-run", t: "w3.st.run" });
  const out = el("div", { class: "readout", id: "st-out", "aria-live": "polite" });
  root.append(el("div", { class: "controls" }, temp.row, run), out);
  let last = null;
  const body = root.querySelector("#ch3-temps-table tbody");
  const show = () => {
    if (!last) return;
    // each cell as the build writes the rows above (the live formats of ch3.st-*0)
    const cell = (k, v) => render(`ch3.st-${k}0`, v);
    const cells = [t("w3.st.yours", { t: cell("t", last.temperature) }), cell("a", last.alpha), cell("e", last.tokens_per_round),
      cell("c", last.checks)];
    const row = body && (body.querySelector("tr.st-yours") || body.appendChild(el("tr", { class: "st-yours" })));
    if (row) row.replaceChildren(...cells.map((c) => el("td", { text: c })));
    setStatus(out, t("w3.st.result", { t: fixed(last.temperature, 1), alpha: fmtPct(last.alpha), checks: last.checks,
      e: fixed(last.tokens_per_round, 2) }));
  };
  onLang(show);
  const once = serial([run], out, { temperature: temp.num });
  run.addEventListener("click", () => once(async () => {
    const temperature = readNumber(temp.num, { label: "w3.st.t", min: 0.1, max: 2 });
    if (temperature == null) return; // the box says what is wrong
    const { temps: _temps, ...args } = SPEC_TEMPS;
    delete out.dataset.alpha; // what is shown is no finished run's until this one ends
    setStatus(out, () => t("w3.st.running"));
    const r = await call("ch3_alpha_at", { ...args, temperature });
    last = r;
    show();
    out.dataset.alpha = String(r.alpha);
    out.dataset.temperature = String(r.temperature);
  }));
  return {};
}
