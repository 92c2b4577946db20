// Firefox for the tests, driven by puppeteer-core over WebDriver BiDi (no separate driver binary;
// Debian's firefox-esr; Puppeteer's own Firefox cannot be downloaded here). Python
// (decodelab_tools/engines.py) owns the test; this process only carries its requests to the browser:
// one JSON object a line on stdin, one answer a line on stdout, in order.
//
//   {"op": "open", "url", "width", "height"}   a new private context and page, navigated to url
//   {"op": "eval", "src", "arg"}                (src)(arg) in the page, awaited; its JSON value
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

let ctx = null, page = null, log = null;

const ops = {
  async open({ url, width = 1100, height = 900 }) {
    if (ctx) await ctx.close();
    ctx = await browser.createBrowserContext();
    page = await ctx.newPage();
    const origin = new URL(url).origin;
    log = { errors: [], offOrigin: [] };
    // page errors include what Firefox says of markup it cannot lay out (MathML)
    page.on("pageerror", (e) => log.errors.push(String(e.message || e)));
    page.on("console", (m) => m.type() === "error" && log.errors.push(m.text()));
    page.on("request", (r) => {
      const u = r.url();
      if (!u.startsWith("data:") && !u.startsWith("blob:") && new URL(u).origin !== origin) log.offOrigin.push(u);
    });
    await page.setViewport({ width, height });
    await page.goto(url);
    return true;
  },
  eval: ({ src, arg }) => page.evaluate(`(${src})(${JSON.stringify(arg ?? null)})`),
  viewport: ({ width, height }) => page.setViewport({ width, height }).then(() => true),
  log: () => log,
  async close() {
    if (ctx) await ctx.close();
    ctx = page = null;
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
