// An editable Python cell, run by the same Pyodide interpreter that drives the model.
import { call } from "../engine.js";
import { el, serial, fieldError } from "../ui.js";

const STARTER = `# A made-up distribution over 8 words, and what the sampler's filters do to it.
import math, random
words = ["the", "a", "dog", "cat", "ran", "sat", "happy", "moon"]
logits = [3.0, 2.6, 1.9, 1.7, 0.8, 0.5, -0.5, -2.0]

def draw(temperature, top_k=0, rng=random.Random(0)):
    z = [l / temperature for l in logits]
    m = max(z)
    w = [math.exp(v - m) for v in z]
    order = sorted(range(len(w)), key=lambda i: -w[i])
    if top_k:
        for i in order[top_k:]:
            w[i] = 0.0
    return rng.choices(range(len(w)), weights=w)[0]

for t, k in [(0.5, 0), (1.0, 0), (2.0, 0), (1.0, 3)]:
    counts = [0] * len(words)
    for _ in range(10_000):
        counts[draw(t, k)] += 1
    print(f"T={t} top_k={k}:", " ".join(f"{w}:{c}" for w, c in zip(words, counts)))
`;

export function mountPythonCell(root) {
  const code = el("textarea", { id: "pc-code", rows: 16, cols: 80, spellcheck: "false", class: "code", "aria-label": "Python code" });
  code.value = STARTER;
  const run = el("button", { id: "pc-run", text: "Run" });
  const out = el("pre", { class: "cell-out", id: "pc-out", role: "status" });
  root.append(el("h3", { text: "Try it in Python" }), code,
    el("div", { class: "controls" }, run, el("span", { class: "hint", text: "An endless loop is fine: after two seconds a Stop button appears." })), out);
  const once = serial([run], out, { code });
  run.onclick = () => once(async () => {
    fieldError(code, "");
    out.textContent = "running…";
    out.classList.remove("error");
    try {
      const r = await call("run_cell", { code: code.value });
      out.textContent = r.output || "(no output)";
      out.classList.toggle("error", !r.ok);
      out.dataset.ms = r.ms.toFixed(1);
    } catch (e) {
      if (e.type === "Stopped") { out.textContent = "Stopped. Your code is still in the cell."; out.classList.add("error"); return; }
      throw e;
    }
  });
}
