// Offline after the first visit: registers the service worker (../sw.js says what it does) once
// the load is over (main.js afterLoad: 2 s after the first distribution, in an idle moment), so it
// never competes with the first load, and hands it
// this build's id and file list. ?sw=0 turns it off: the worker is unregistered and its caches deleted.
// The outcome is on <html data-offline>: "off", "unsupported", "filling", "ready" or "failed"
// (tests and the README read it; the page shows nothing, as the page works the same either way).
const PREFIX = "decodelab-";

function mark(state) { document.documentElement.dataset.offline = state; }

export async function turnOff() {
  mark("off");
  if (!("serviceWorker" in navigator)) return;
  for (const r of await navigator.serviceWorker.getRegistrations()) await r.unregister();
  if (self.caches) for (const name of await caches.keys()) if (name.startsWith(PREFIX)) await caches.delete(name);
}

export async function enableOffline() {
  if (new URL(location.href).searchParams.get("sw") === "0") return turnOff();
  if (!("serviceWorker" in navigator) || !self.caches) return mark("unsupported");
  try {
    mark("filling");
    const info = await (await fetch(new URL("build-info.json", document.baseURI), { cache: "no-cache" })).json();
    const { build, files } = info.offline;
    await navigator.serviceWorker.register(new URL("sw.js", document.baseURI), { scope: "./" });
    const worker = (await navigator.serviceWorker.ready).active; // the first visit's, once it has activated
    const done = new Promise((ok) => {
      const onMessage = (ev) => {
        if (ev.data && ev.data.type === "filled") { navigator.serviceWorker.removeEventListener("message", onMessage); ok(ev.data); }
      };
      navigator.serviceWorker.addEventListener("message", onMessage);
    });
    worker.postMessage({ type: "fill", build, files });
    const r = await done;
    mark(r.failed ? "failed" : "ready");
    document.documentElement.dataset.offlineBuild = build;
  } catch {
    mark("failed"); // the page works as before; only the reload without a server does not
  }
}
