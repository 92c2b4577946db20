// The worker's requests stay on the page's origin, whatever the reader's Python asks for.
//
// What guarantees it is the Content-Security-Policy: the page's (connect-src 'self', script-src
// 'self' …), which this worker inherits because boot.js starts it from a blob: URL, and the same
// policy as a header where the server sends one (`build.py serve`). A request the policy refuses
// fails with the browser's bare "Failed to fetch", or silently (an XMLHttpRequest's send, a
// WebSocket). This guard runs before anything else in the worker and refuses those requests
// first, in words: a reader who tries `js.fetch("https://…")` or `js.XMLHttpRequest` in the Python
// cell reads why nothing was sent. It is the readable half only: code that slips past it (a
// dynamic import through eval, say) still meets the policy.
const origin = new URL(import.meta.url).origin;

function offOrigin(url) {
  try {
    const u = new URL(String(url), import.meta.url);
    return u.origin !== origin && u.protocol !== "blob:" && u.protocol !== "data:";
  } catch {
    return false; // not a URL: the API's own error says so
  }
}

const refusal = (url) => new TypeError(`This page makes no request outside its own site: ${String(url).slice(0, 200)} was not requested.`);

const realFetch = self.fetch.bind(self);
self.fetch = (input, init) => {
  const url = input instanceof Request ? input.url : input;
  return offOrigin(url) ? Promise.reject(refusal(url)) : realFetch(input, init);
};

if (self.XMLHttpRequest) {
  const open = XMLHttpRequest.prototype.open;
  XMLHttpRequest.prototype.open = function (method, url, ...rest) {
    if (offOrigin(url)) throw refusal(url);
    return open.call(this, method, url, ...rest);
  };
}

for (const name of ["WebSocket", "EventSource"]) {
  const Real = self[name];
  if (!Real) continue;
  self[name] = class extends Real {
    constructor(url, ...rest) {
      if (offOrigin(url)) throw refusal(url);
      super(url, ...rest);
    }
  };
}

if (typeof self.importScripts === "function") { // classic workers only; this one is a module
  const importScripts = self.importScripts.bind(self);
  self.importScripts = (...urls) => {
    const bad = urls.find(offOrigin);
    if (bad) throw refusal(bad);
    return importScripts(...urls);
  };
}
