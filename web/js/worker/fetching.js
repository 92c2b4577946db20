// Downloads from our own origin, each with a deadline: a stalled server is a message naming the
// file, never a spinner. Nothing here reaches the network beyond the page's origin.
import { Msg, reason } from "./messages.js";

export const FETCH_TIMEOUT_MS = 30000;

// the site's root (the worker's module is js/worker.bundle.js; its location may be a blob: URL,
// boot.js says why), and a path under it as a full URL
const siteRoot = new URL("../", import.meta.url);
export const abs = (path) => new URL(path, siteRoot).href;

// why a download failed, as a message argument (the deadline by its own words)
export const fetchWhy = (e) => (e.name === "AbortError" ? { key: "err.fetch_timeout", args: { s: FETCH_TIMEOUT_MS / 1000 } } : reason(e));

// A response for `url` within the deadline; `body(res)` reads it while the deadline still holds.
// what: the file's kind, a key under file.* (file.manifest, file.model.main …)
export async function fetchWithDeadline(url, what, body) {
  const name = decodeURIComponent(new URL(url).pathname.split("/").pop());
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(), FETCH_TIMEOUT_MS);
  try {
    const res = await fetch(url, { signal: ctl.signal });
    if (!res.ok) throw new Msg("http", { status: res.status });
    return await body(res);
  } catch (e) {
    throw what ? new Msg("fetch_failed", { what: { key: `file.${what}` }, name, why: fetchWhy(e) })
      : new Msg("file_problem", { name, why: fetchWhy(e) });
  } finally {
    clearTimeout(timer);
  }
}

export const fetchBytes = (url, what) => fetchWithDeadline(url, what, async (res) => new Uint8Array(await res.arrayBuffer()));
// the same for a file we ship gzip-compressed: its bytes inflated (or as they came, if the server decoded them)
export const fetchInflated = (url, what) => fetchWithDeadline(url, what,
  async (res) => new Uint8Array(await new Response(await inflatedBody(res)).arrayBuffer()));

// A body we ship gzip-compressed (the file's .gz), as a stream of its bytes. Its first chunk says
// what came: gzip's magic (1f 8b) is inflated here, by the browser's own DecompressionStream, as
// it downloads; a server that already decoded it (it sent Content-Encoding) hands over the plain
// bytes, which pass as they are: never decompressed twice. gzip's CRC is checked by the stream.
export async function inflatedBody(res) {
  const [peek, body] = res.body.tee();
  const peeker = peek.getReader();
  const first = (await peeker.read()).value || new Uint8Array(0);
  peeker.cancel(); // one look is enough: a tee branch left unread would buffer the whole file
  return first[0] === 0x1f && first[1] === 0x8b ? body.pipeThrough(new DecompressionStream("gzip")) : body;
}

// A step that must end within `ms` (what: a key under boot.stage.*).
export function withTimeout(promise, ms, what) {
  let timer;
  return Promise.race([promise, new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Msg("step_timeout", { what: { key: `boot.stage.${what}` }, s: ms / 1000 })), ms);
  })]).finally(() => clearTimeout(timer));
}

// build-info.json: what this build holds (kernels, models, the snapshot), never from a cache
export async function readManifest() {
  try {
    return JSON.parse(new TextDecoder().decode(await fetchBytes(abs("build-info.json?t=" + Date.now()), "manifest")));
  } catch (e) {
    throw e instanceof SyntaxError ? new Msg("manifest_damaged") : e;
  }
}
