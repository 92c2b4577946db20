// The first script of the page, in <head>, classic and tiny. Two things that must not wait for
// the article or a single module to load:
// 1. the engine's worker: Python's start-up (the long pole) runs while the rest of the page
//    loads, from the first paint on; engine.js adopts this worker and replays whatever it said
//    before engine.js listened;
// 2. the reader's language: chosen here (the URL's ?lang=, then the page's own language if it is
//    a language's page (index.ru.html), then the reader's earlier choice, then the browser's
//    languages, else English) and its text fetched at once. A page in another language than the
//    one its HTML is written in is hidden (html[data-lang-pending], style.css) until
//    i18n.js has put its text in, so nobody sees English flash by; i18n.js lifts it, and so does
//    a timer here if the modules never run.
(function () {
  // What went wrong, counted from the first instant, for the test lanes of all three engines
  // (WebKitWebDriver cannot read the browser's console): Content-Security-Policy violations (there
  // should be none; counted here, before the body is parsed, so a refused attribute in the HTML
  // counts too), uncaught errors, promises rejected with no handler, and console.error, which the
  // page calls only for failures (ui.js's unexpected errors).
  var csp = (window.__cspViolations = []);
  document.addEventListener("securitypolicyviolation", function (e) { csp.push(e.violatedDirective + " " + e.blockedURI); });
  var errors = (window.__pageErrors = []);
  function count(what) {
    try {
      // the browser's note that a ResizeObserver skipped a frame is no failure of the page
      if (errors.length < 100 && !/^ResizeObserver loop/.test(what)) errors.push(String(what));
    } catch (e) { /* an argument that cannot be a string: counting must never break logging */ }
  }
  window.addEventListener("error", function (e) { count(e.message || e); });
  window.addEventListener("unhandledrejection", function (e) { count("unhandled rejection: " + e.reason); });
  var consoleError = console.error;
  console.error = function () {
    count([].map.call(arguments, function (a) { try { return String(a); } catch (e) { return "?"; } }).join(" "));
    return consoleError.apply(console, arguments);
  };

  var mainScript = document.currentScript && document.currentScript.getAttribute("data-main");
  var LANGS = ["en", "ru", "vi"]; // i18n.js's LANGS: a test checks the two lists agree
  var root = document.documentElement;
  // 3. the theme the reader chose with the masthead's switch (theme.js), set before the first
  //    paint so a dark page never flashes light; with no choice the system's (CSS light-dark()).
  try {
    var theme = localStorage.getItem("decodelab.theme");
    if (theme === "dark" || theme === "light") root.setAttribute("data-theme", theme);
  } catch (e) { /* storage blocked: the system's theme */ }
  var htmlLang = root.lang || "en"; // the language this HTML is written in (index.ru.html: ru)
  function pick() {
    var q = new URLSearchParams(location.search).get("lang");
    if (q && LANGS.indexOf(q) >= 0) return q;
    if (root.hasAttribute("data-lang-page")) return htmlLang; // a language's own page, asked for by name
    try {
      var s = localStorage.getItem("decodelab.lang");
      if (s && LANGS.indexOf(s) >= 0) return s;
    } catch (e) { /* storage blocked: fall through */ }
    var prefs = navigator.languages || [navigator.language || "en"];
    for (var i = 0; i < prefs.length; i++) {
      var base = String(prefs[i]).toLowerCase().split("-")[0];
      if (LANGS.indexOf(base) >= 0) return base;
    }
    return "en";
  }
  var lang = pick();
  root.lang = lang;
  // the text face, where an earlier visit in this language kept it in this browser's cache (faces.js
  // says why a first visit reads the system's serif)
  try {
    if ((localStorage.getItem("decodelab.faces") || "").split(" ").indexOf(lang) >= 0) root.setAttribute("data-faces", "");
  } catch (e) { /* storage blocked: the system's serif */ }
  if (lang !== htmlLang) {
    root.setAttribute("data-lang-pending", "");
    setTimeout(function () { root.removeAttribute("data-lang-pending"); }, 8000);
  }
  // The text is the page's largest file after the HTML (every entry, its formulas typeset). A page
  // already in its language paints without it, so it is asked for after the first frame and does
  // not share a phone's link with the HTML, the CSS and the first paint (Lighthouse's LCP on a
  // simulated mobile link); a page in another language waits for it, so it is asked for at once.
  // "After the first paint" is the browser's first contentful paint where it reports one: the
  // first animation frame can come before any text is drawn (the text face may hold the text back
  // for up to 100 ms: font-display optional), and the text then shared the link with it.
  function afterFirstPaint(go) {
    var done = false;
    function once() { if (!done) { done = true; go(); } }
    var paints = window.PerformanceObserver && PerformanceObserver.supportedEntryTypes || [];
    if (paints.indexOf("paint") >= 0) {
      new PerformanceObserver(function (list, obs) {
        if (list.getEntriesByName("first-contentful-paint").length) { obs.disconnect(); setTimeout(once, 0); }
      }).observe({ type: "paint", buffered: true });
    } else {
      requestAnimationFrame(function () { setTimeout(once, 0); });
    }
    // a tab in the background paints no frames: after 3 s there, after 10 s anywhere (a slow link's
    // first paint can take over 3 s, and the files asked for here must not compete with it)
    setTimeout(function () { if (document.visibilityState === "hidden") once(); }, 3000);
    setTimeout(once, 10000);
  }
  var text = new Promise(function (resolve) {
    if (lang === htmlLang) afterFirstPaint(resolve); else resolve();
  }).then(function () {
    return fetch(new URL("i18n/" + lang + ".json", document.baseURI), { cache: "no-cache" });
  }).then(function (r) {
    if (!r.ok) throw new Error("i18n/" + lang + ".json: HTTP " + r.status);
    return r.json();
  });
  text.catch(function () { /* i18n.js reports it */ });
  window.__decodelabLang = { lang: lang, text: text, htmlLang: htmlLang };

  // 4. the widgets' module (main.bundle.js), asked for once the first paint is on screen, for
  //    the same reason as the text: the page reads without it, and on a slow link it took the
  //    line from the styles and the text face (Lighthouse counts every file asked for before the
  //    largest paint). A page held back for its language loads it at once: it paints nothing
  //    until its text is in anyway. An inserted module runs as soon as it arrives, maybe before
  //    the parser is done: main.js then waits for DOMContentLoaded.
  function loadMain() {
    if (!mainScript) return;
    var s = document.createElement("script");
    s.type = "module";
    s.src = mainScript;
    s.onerror = function () { count("the page's script could not be loaded: " + s.src); }; // a script's load error reaches no window handler
    document.head.appendChild(s);
  }
  if (lang === htmlLang) afterFirstPaint(loadMain); else loadMain();

  if (!window.Worker) return; // engine.js reports it in words

  // The engine's worker, started from a blob: URL that imports js/worker.bundle.js. A worker takes
  // its Content-Security-Policy from its own response headers, which a plain static server does
  // not send, so a worker started from the file itself ran the reader's Python with no policy at
  // all; a worker started from a blob: URL inherits the page's (connect-src 'self' and the rest),
  // so no request leaves the origin from the worker either, on any server. `search` (?kernel=scalar,
  // ?snapshot=0) reaches the worker in its module's URL (worker.js reads import.meta.url). Where
  // blob: workers are refused, the file itself (the server's header, if any, then applies).
  // engine.js starts every later worker (after Stop) through this same function.
  window.__decodelabMakeWorker = function (search) {
    var url = new URL("js/worker.bundle.js", document.baseURI);
    url.search = search;
    try {
      var blobUrl = URL.createObjectURL(new Blob(["import " + JSON.stringify(url.href) + ";\n"], { type: "text/javascript" }));
      var w = new Worker(blobUrl, { type: "module" });
      setTimeout(function () { URL.revokeObjectURL(blobUrl); }, 60000); // fetched long before: only frees it
      return w;
    } catch (e) {
      return new Worker(url, { type: "module" });
    }
  };
  // Started once the first paint is on screen: the worker's files (its scripts, then Python's
  // 3.5 MB and the model's) would otherwise share a slow link with the HTML, the styles and the
  // text face the first paint waits for. engine.js starts it itself if its module runs first.
  afterFirstPaint(function () {
    if (window.__decodelabWorkerTaken) return;
    var early = [];
    var worker = window.__decodelabMakeWorker(location.search);
    worker.onmessage = function (ev) { early.push(["message", ev]); };
    worker.onerror = function (ev) { ev.preventDefault(); early.push(["error", ev]); };
    window.__decodelabWorker = { worker: worker, early: early };
    window.__decodelabWorkerAt = performance.now(); // bench startup reports it
  });
})();
