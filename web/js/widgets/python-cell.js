// An editable Python cell, run by the same Pyodide interpreter that drives the model. The page has
// two: the sampler on eight made-up words, and the naive generation loop (its starter is the code
// printed in the prose, read from the page, so the two cannot differ). Each runs its starter once
// by itself when first seen; code the reader changed runs only when they press Run.
import { call } from "../engine.js";
import { el, serial, fieldError, whenSeen, setStatus } from "../ui.js";
import { t } from "../i18n.js";
import { TOY } from "../live/examples.js";
import { codeEditor } from "../code-editor.js";

// the toy's words and scores as Python writes them (declared once, in live/examples.js)
const pyList = (xs) => `[${xs.join(", ")}]`;

const STARTER = `# Eight made-up scores (logits) and what temperature, top-k and top-p do to them.
import math, random

words  = ${pyList(TOY.words.map((w) => JSON.stringify(w)))}
logits = ${pyList(TOY.logits.map((v) => v.toFixed(1)))}

def probs(T):
    z = [l / T for l in logits]
    m = max(z)                            # subtract the largest: exp() cannot overflow
    w = [math.exp(v - m) for v in z]
    total = sum(w)
    return [x / total for x in w]

def survivors(p, top_k=0, top_p=1.0):
    order = sorted(range(len(p)), key=lambda i: -p[i])
    if top_k:
        order = order[:top_k]             # top-k: keep the k most likely
    mass = sum(p[i] for i in order)       # top-p looks at what top-k left, rescaled
    kept, run = [], 0.0
    for i in order:
        kept.append(i)
        run += p[i] / mass
        if run >= top_p:                  # the token that crosses the line stays
            break
    return kept

rng = random.Random(0)
for T, k, tp in [(0.5, 0, 1.0), (1.0, 0, 1.0), (2.0, 0, 1.0), (1.0, 3, 1.0), (1.0, 0, 0.85)]:
    p = probs(T)
    kept = survivors(p, k, tp)
    kept_mass = sum(p[i] for i in kept)
    q = [p[i] / kept_mass if i in kept else 0.0 for i in range(len(p))]  # after the filters
    counts = [0] * len(words)
    for _ in range(10_000):
        counts[rng.choices(range(len(words)), weights=q)[0]] += 1
    print(f"T={T} top_k={k}: top_p={tp}, {len(kept)} of {len(words)} words survive")
    print("  probability:  ", " ".join(f"{a}={b:.3f}" for a, b in zip(words, p)))
    print("  after filters:", " ".join(f"{a}={b:.3f}" for a, b in zip(words, q)))
    print("  10,000 draws: ", " ".join(f"{a}={c}" for a, c in zip(words, counts)))
`;

// opts: id (prefix of the element ids), starter (the code it starts with), title (a text key).
// The code and what it prints are Python's own (never translated); the words around them are keys.
export function mountPythonCell(root, { id = "pc", starter = STARTER, title = "widget.title.python-cell" } = {}) {
  const code = el("textarea", { id: `${id}-code`, rows: 4, cols: 80, spellcheck: "false", class: "code",
    "t-aria-label": "w1.pc.code_aria", targs: { title: { key: title } } });
  code.value = starter; // before codeEditor(), which draws it
  const run = el("button", { id: `${id}-run`, t: "w1.pc.run" });
  const out = el("pre", { class: "cell-out", id: `${id}-out`, role: "status" });
  const restore = el("button", { class: "secondary", id: `${id}-starter`, t: "w1.pc.starter",
    onclick: () => { code.value = starter; code.dispatchEvent(new Event("input")); } });
  // one cell: the editor, its output attached below it, the buttons under both
  root.append(el("div", { class: "code-cell" }, codeEditor(code), out),
    el("div", { class: "controls" }, run, restore, el("span", { class: "hint", t: "w1.pc.hint" })));
  const once = serial([run], out, { code });
  const go = () => once(async () => {
    fieldError(code, "");
    delete out.dataset.ms; // what is shown is no finished run's output until this one ends
    setStatus(out, () => t("w1.pc.running"));
    try {
      const r = await call("run_cell", { code: code.value });
      // what the code printed, as it is; our words (no output, the cut) follow the language
      const cut = r.cut ? () => `${r.output}\n${t("w1.pc.cut", { n: r.cut })}` : r.output;
      setStatus(out, r.output ? cut : () => t("w1.pc.no_output"), !r.ok);
      out.dataset.ms = r.ms.toFixed(1);
    } catch (e) {
      if (e.type === "Stopped") { setStatus(out, () => t("w1.pc.stopped"), true); return; }
      throw e;
    }
  });
  run.onclick = go;
  // never run the reader's own code unasked (it may be the endless loop they were trying out)
  whenSeen(root, () => { if (code.value === starter && !out.dataset.ms) go(); });
}
