// Firefox for the tests, driven by puppeteer-core over WebDriver BiDi (no separate driver binary;
// Debian's firefox-esr; Puppeteer's own Firefox cannot be downloaded here). Python
// (decodelab_tools/engines.py) owns the test; this process only carries its requests to the browser:
// one JSON object a line on stdin, one answer a line on stdout, in order.
//
//   {"op": "open", "url", "width", "height", "missing"}   a new private context and page, navigated
//                                               to url; requests whose URL holds one of `missing`
//                                               get a 404 page, as a server without the file sends
//   {"op": "tab", "url"}                        a second page in the same context (two tabs of one
//                                               reader), navigated to url; it becomes the current page
//   {"op": "select", "index"}                   make page `index` (0: the first) the current page
//   {"op": "reload"}                            reload the current page
//   {"op": "eval", "src", "arg"}                (src)(arg) in the current page, awaited; its JSON value
//   {"op": "viewport", "width", "height"}
//   {"op": "log"}                               {errors, offOrigin} seen since the page opened
//   {"op": "close"}                             the page's context
//
// Answers are {"ok": true, "value": ...} or {"ok": false, "error": "..."}.
import puppeteer from "puppeteer-core";
import { createInterface } from "node:readline";

const browser = await puppeteer.launch({
  browser: "firefox",
  executablePath: process.env.DECODELAB_FIREFOX || "/usr/bin/firefox-esr",
  headless: true,
  protocolTimeout: 300_000, // a test's own in-page waits time out first, with a message
});

let ctx = null, page = null, log = null, pages = [], missing = [];

// a new page of the context, watched (errors, requests off the origin) and answering for `missing`
async function watchedPage(url, width, height) {
  const p = await ctx.newPage();
  const origin = new URL(url).origin;
  // page errors include what Firefox says of markup it cannot lay out (MathML)
  p.on("pageerror", (e) => log.errors.push(String(e.message || e)));
  p.on("console", (m) => m.type() === "error" && log.errors.push(m.text()));
  if (missing.length) await p.setRequestInterception(true); // the worker's requests too
  p.on("request", (r) => {
    const u = r.url();
    if (!u.startsWith("data:") && !u.startsWith("blob:") && new URL(u).origin !== origin) log.offOrigin.push(u);
    if (!missing.length) return;
    if (missing.some((m) => u.includes(m))) r.respond({ status: 404, contentType: "text/html", body: "<!DOCTYPE html><title>404</title>not here" });
    else r.continue();
  });
  await p.setViewport({ width, height });
  await p.goto(url);
  pages.push(p);
  return p;
}

const ops = {
  async open({ url, width = 1100, height = 900, missing: gone = [] }) {
    if (ctx) await ctx.close();
    ctx = await browser.createBrowserContext();
    log = { errors: [], offOrigin: [] };
    pages = [];
    missing = gone;
    page = await watchedPage(url, width, height);
    return true;
  },
  async tab({ url, width = 1100, height = 900 }) {
    page = await watchedPage(url, width, height);
    return pages.length - 1;
  },
  select: ({ index }) => { page = pages[index]; return true; },
  reload: () => page.reload().then(() => true),
  eval: ({ src, arg }) => page.evaluate(`(${src})(${JSON.stringify(arg ?? null)})`),
  viewport: ({ width, height }) => page.setViewport({ width, height }).then(() => true),
  log: () => log,
  async close() {
    if (ctx) await ctx.close();
    ctx = page = null;
    pages = [];
    return true;
  },
};

const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  const req = JSON.parse(line);
  let answer;
  try {
    answer = { ok: true, value: (await ops[req.op](req)) ?? null };
  } catch (e) {
    answer = { ok: false, error: String(e && e.stack || e) };
  }
  process.stdout.write(JSON.stringify(answer) + "\n");
}
await browser.close();
