// The first script of the page, in <head>, classic and tiny: it starts the engine's worker
// before the browser has parsed the article or fetched a single module, KaTeX or Chart.js, so
// Python's start-up (the long pole) runs while the rest of the page loads. engine.js adopts this
// worker and replays whatever it said before engine.js was there to listen.
(function () {
  if (!window.Worker) return; // engine.js reports it in words
  var url = new URL("js/worker.js", document.baseURI);
  url.search = location.search; // ?kernel=scalar, ?snapshot=0 reach the worker
  var early = [];
  var worker = new Worker(url, { type: "module" });
  worker.onmessage = function (ev) { early.push(["message", ev]); };
  worker.onerror = function (ev) { ev.preventDefault(); early.push(["error", ev]); };
  window.__decodelabWorker = { worker: worker, early: early };
  window.__decodelabWorkerAt = performance.now(); // bench startup reports it
})();
