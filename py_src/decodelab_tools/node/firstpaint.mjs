// The build's first paint: every pinned live number of the prose, in every language, as HTML.
//
//   node firstpaint.mjs JOB.json OUT.json
//
// JOB: {python: [argv of decodelab_tools.endpoint_server], web: "path/to/web", texts: {lang: {key: text}}}
// OUT: {numbers: {lang: {KEY: html}}, when: {"ATTR=VALUE": shown}, pinned: [KEY], measured: [KEY]}
//
// It runs the page's own live-number registry (web/js/live/registry.js): each source's run(call),
// where call() asks the page's Python endpoints, served by CPython over a pipe (endpoint_server.py:
// the shipped kernel and models), and then renders each value with the page's own formats
// (live/formats.js and i18n.js) in each language. A measured number (a widget's, in the reader's
// browser) gets the language's "measured in your browser" instead. Node, not Python, formats:
// the numbers must read exactly as the booted page writes them, and this is the page's code.
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";
import { join } from "node:path";

const [jobPath, outPath] = process.argv.slice(2);
const job = JSON.parse(readFileSync(jobPath, "utf8"));
const web = (p) => pathToFileURL(join(job.web, p)).href;
const i18n = await import(web("js/i18n.js"));
const registry = await import(web("js/live/registry.js"));
const { tokenLabel, storyBand } = await import(web("js/live/formats.js"));

// ---- the endpoints, one call at a time over the server's stdin/stdout ----------------------------
const server = spawn(job.python[0], job.python.slice(1), { stdio: ["pipe", "pipe", "inherit"] });
const answers = createInterface({ input: server.stdout });
const waiting = [];
answers.on("line", (line) => waiting.shift()(JSON.parse(line)));
server.on("exit", (code) => {
  for (const w of waiting.splice(0)) w({ ok: false, error: { message: `the endpoint server stopped (exit ${code})` } });
});
let chain = Promise.resolve();
function call(name, args = {}) {
  const asked = chain.then(() => new Promise((resolve) => {
    waiting.push(resolve);
    server.stdin.write(JSON.stringify({ name, args }) + "\n");
  }));
  chain = asked.catch(() => {});
  return asked.then((r) => {
    if (!r.ok) throw new Error(`${name}: ${r.error.message || r.error.key}`);
    return r.result;
  });
}

// ---- run every source once (its values do not depend on the language) ---------------------------
const values = {}, when = {};
try {
  for (const s of registry.SOURCES) {
    const t0 = Date.now();
    let r;
    try {
      r = await s.run(call);
    } catch (e) {
      throw new Error(`the registry's source "${s.id}" failed: ${e.message}`);
    }
    Object.assign(values, r.live);
    Object.assign(when, r.when || {});
    process.stderr.write(`  firstpaint: ${s.id} (${Object.keys(r.live).length} numbers, ${Date.now() - t0} ms)\n`);
  }
} finally {
  server.stdin.end();
}

// ---- render them in each language ---------------------------------------------------------------
const escapeHtml = (s) => String(s).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
function html(r) {
  if (r && typeof r === "object" && Array.isArray(r.tokens)) {
    return r.tokens.map((tx, i) => (i ? escapeHtml(i === r.tokens.length - 1 ? i18n.t("fmt.list_and") : i18n.t("fmt.list_comma")) : "")
      + `<code class="tok-code">${escapeHtml(tokenLabel(tx))}</code>`).join("");
  }
  if (r && typeof r === "object" && Array.isArray(r.story)) { // the opening figure's story, as live.js draws it
    return r.story.map(({ text, p }) => `<span class="${p == null ? "story-prompt" : `tok-p${storyBand(p)}`}">${escapeHtml(text)}</span>`).join("");
  }
  return escapeHtml(r);
}
const measured = Object.values(registry.MEASURED).flat();
const numbers = {};
for (const [lang, dict] of Object.entries(job.texts)) {
  i18n.useText(lang, dict);
  const out = (numbers[lang] = {});
  for (const key of measured) out[key] = escapeHtml(i18n.t("live.measured"));
  for (const [key, v] of Object.entries(values)) out[key] = html(registry.render(key, v));
}
const missing = globalThis.__i18nMissing || [];
if (missing.length) throw new Error(`text keys missing while formatting: ${missing.join(", ")}`);
writeFileSync(outPath, JSON.stringify({ numbers, when, pinned: Object.keys(values), measured }));
