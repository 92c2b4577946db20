// Typesets formulas at build time with the page's own KaTeX (the pinned npm package), so the served
// pages carry them typeset and the page never loads KaTeX to show them (decodelab_tools/mathrender.py).
// MathML only: every browser we test lays out MathML Core, and KaTeX's HTML rendering beside it was
// half of the served page (300 of 604 KB, thousands of elements) on a phone's slow first load. The
// TeX annotation goes too: the page keeps each formula's source in its data-tex attribute.
// stdin: a JSON list of [source, display]; stdout: a JSON list of {html} or {error}, same order.
import katex from "katex";
import { readFileSync } from "node:fs";

const formulas = JSON.parse(readFileSync(0, "utf8"));
const out = formulas.map(([src, display]) => {
  try {
    const html = katex.renderToString(src, { displayMode: display, throwOnError: true, output: "mathml" });
    // the HTML parser puts <math> in MathML's namespace itself: the xmlns on each was 11 KB a page
    return { html: html.replace(/<annotation encoding="application\/x-tex">[\s\S]*?<\/annotation>/, "")
      .replace(' xmlns="http://www.w3.org/1998/Math/MathML"', "") };
  } catch (e) {
    return { error: String(e.message || e) };
  }
});
process.stdout.write(JSON.stringify(out));
