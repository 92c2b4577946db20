// The model's chapter-2 figures (ch2_facts: the config, the matrices and their scales, the
// held-out figures the export measured), asked once per engine start and shared by the widgets
// that draw from them (the quantization table, the kernel check's shape, the bit-depth baseline).
import { call, on } from "./engine.js";

let facts = null; // the answer's promise for this engine
on("ready", () => { facts = null; }); // a restarted engine may hold another model

export function whenFacts(fn) {
  if (!facts) {
    facts = call("ch2_facts");
    facts.catch((e) => { facts = null; console.warn("[decodelab] chapter 2's figures:", e.message); });
  }
  facts.then(fn, () => {});
}
