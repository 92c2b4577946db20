// Four temperatures continue one prompt with one shared seed, side by side, each with its surprise.
import { call } from "../engine.js";
import { el, fmt, fieldError, busy } from "../ui.js";
import { tokenSpan, showTokenPopover } from "./tokens.js";

const KEY = "decodelab.fourTemps.seed";

export function mountFourTemps(root) {
  const prompt = el("input", { type: "text", id: "ft-prompt", value: "Once upon a time, there was a girl named", size: 48, "aria-label": "prompt" });
  const temps = [0.3, 0.7, 1.0, 1.5].map((t, i) => el("input", { type: "number", id: `ft-t${i}`, value: t, step: 0.1, min: 0, max: 3, "aria-label": `temperature ${i + 1}` }));
  const saved = localStorage.getItem(KEY);
  const seed = el("input", { type: "number", id: "ft-seed", value: saved ?? 7, "aria-label": "seed" });
  const pin = el("input", { type: "checkbox", id: "ft-pin", checked: saved != null });
  const run = el("button", { id: "ft-run", text: "Continue" });
  const reroll = el("button", { class: "secondary", id: "ft-reroll", text: "Re-roll the seed" });
  const cols = el("div", { class: "columns four", id: "ft-cols" });
  const status = el("div", { class: "status" });
  root.append(el("h3", { text: "Four temperatures, one seed" }),
    el("div", { class: "controls" }, el("label", {}, "prompt ", prompt)),
    el("div", { class: "controls" }, "temperatures ", ...temps, el("label", {}, "seed ", seed),
      el("label", {}, pin, " pin this seed across reloads"), reroll, run), cols, status);

  pin.addEventListener("change", () => pin.checked ? localStorage.setItem(KEY, seed.value) : localStorage.removeItem(KEY));
  seed.addEventListener("change", () => { if (pin.checked) localStorage.setItem(KEY, seed.value); });
  reroll.onclick = () => { seed.value = Math.floor(Math.random() * 2 ** 32); if (pin.checked) localStorage.setItem(KEY, seed.value); go(); };
  run.onclick = () => go();

  function go() {
    return busy(run, status, async () => {
      const ts = temps.map((t) => Number(t.value));
      let ok = true;
      temps.forEach((t, i) => {
        const bad = t.value === "" || !Number.isFinite(ts[i]) || ts[i] < 0 || ts[i] > 3;
        fieldError(t, bad ? "0 to 3" : ""); if (bad) ok = false;
      });
      if (!ok) return;
      status.textContent = "";
      try {
        const r = await call("ch1_four", { prompt: prompt.value, temps: ts, seed: Number(seed.value), n: 40 });
        fieldError(seed, ""); fieldError(prompt, "");
        cols.replaceChildren(...r.columns.map((c, ci) => el("div", { class: "col", id: `ft-col-${ci}` },
          el("div", { class: "col-head" }, `T = ${c.temperature}`, el("span", { class: "hint", text: ` surprise ${fmt(c.surprise, 2)} nats/token` })),
          el("div", { class: "gen-text" }, el("span", { class: "prompt-text", text: prompt.value }),
            ...c.texts.map((t, i) => tokenSpan(t, c.probs[i], null, null))))));
        cols.dataset.text = JSON.stringify(r.columns.map((c) => c.texts.join("")));
      } catch (e) {
        if (e.field === "seed") fieldError(seed, e.message);
        else if (e.field === "prompt") fieldError(prompt, e.message);
        else throw e;
      }
    });
  }
  return { go };
}
