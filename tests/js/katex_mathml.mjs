// Typesets formulas with the page's own KaTeX and prints their MathML (for tests/test_formulas.py).
// stdin: a JSON list of [source, display]; stdout: a JSON list of MathML strings, same order.
import katex from "katex";
import { readFileSync } from "node:fs";

const formulas = JSON.parse(readFileSync(0, "utf8"));
const out = formulas.map(([src, display]) =>
  katex.renderToString(src, { output: "mathml", displayMode: display, throwOnError: true }));
process.stdout.write(JSON.stringify(out));
