// Typesets formulas at build time with the page's own KaTeX (the pinned npm package), so the served
// pages carry them typeset and the page never loads KaTeX to show them (decodelab_tools/mathrender.py).
// stdin: a JSON list of [source, display]; stdout: a JSON list of {html} or {error}, same order.
import katex from "katex";
import { readFileSync } from "node:fs";

const formulas = JSON.parse(readFileSync(0, "utf8"));
const out = formulas.map(([src, display]) => {
  try {
    return { html: katex.renderToString(src, { displayMode: display, throwOnError: true, output: "htmlAndMathml" }) };
  } catch (e) {
    return { error: String(e.message || e) };
  }
});
process.stdout.write(JSON.stringify(out));
