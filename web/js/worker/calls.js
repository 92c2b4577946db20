// The call queue: the page's {id, fn, args} messages answered one at a time, in order, by the
// Python endpoint `fn` (decodelab.api.dispatch). A call that needs the draft model loads it first
// (Python names the missing model); the reader's Python cell gets the whole standard library,
// and micropip if its code asks for it, before it runs.
import { modelName, payload, reason } from "./messages.js";
import { abs } from "./fetching.js";

// py: what startPython returned; info: the manifest; dispatch(fn, argsJSON) -> replyJSON;
// loadOnNeed(name): Promise of that model loaded (once).
export function serveCalls({ py, info, dispatch, loadOnNeed }) {
  const pyodide = py.pyodide;
  let micropipLoaded = false;
  // Every call is answered, whatever goes wrong on the way: an answer that threw would otherwise
  // leave its caller waiting for ever, and reject the queue below, so that no later call ran.
  const answer = (ev) => answerOrThrow(ev).catch((e) => {
    self.postMessage({ id: ev.data.id, ok: false, error: { type: "WorkerError", ...payload(e) } });
  });
  const answerOrThrow = async (ev) => {
    const { id, fn, args } = ev.data;
    if (fn === "run_cell" && !micropipLoaded && /micropip/.test((args && args.code) || "")) {
      micropipLoaded = true; // the reader's cell wants it: load it now, from our own origin
      try { await pyodide.loadPackage(abs(info.micropip), { messageCallback: () => {} }); } catch { /* the cell reports the ImportError */ }
    }
    const run = () => {
      try {
        return JSON.parse(dispatch(fn, JSON.stringify(args ?? {})));
      } catch (e) {
        return { ok: false, error: { type: "WorkerError", message: String(e.message || e) } };
      }
    };
    let reply = run();
    const missing = !reply.ok && reply.error.model;
    if (missing && info.models[missing]) { // a failed load answers with its first error
      try {
        await loadOnNeed(missing);
        reply = run();
      } catch (e) {
        reply = { ok: false, error: { type: "InputError", field: "model", key: "model_load_failed",
                                      args: { model: modelName(missing), why: reason(e) }, message: e.message } };
      }
    }
    self.postMessage({ id, ...reply });
  };
  // one call at a time, in order, even when one awaits (micropip): a queue, not overlapping handlers
  let chain = Promise.resolve();
  return (ev) => {
    if (ev.data.fn !== "run_cell") {
      chain = chain.then(() => answer(ev));
      return;
    }
    // the reader's code may import any module: the whole stdlib first. It downloads outside the
    // queue, so the other widgets' calls go on meanwhile; the cell joins the queue once it is in.
    py.fullStdlib().then(() => null, (e) => e).then((failed) => {
      chain = chain.then(() => (failed
        ? self.postMessage({ id: ev.data.id, ok: false, error: { type: "WorkerError", ...payload(failed) } })
        : answer(ev))).catch((e) => console.error("[decodelab] the call queue:", e)); // never a rejected queue
    });
  };
}
