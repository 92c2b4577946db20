// Small shared helpers for widgets: element building, number formatting, math, inline errors.

export function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (v !== false && v != null) e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) if (c != null) e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return e;
}

export function fmt(x, digits = 3) {
  if (x == null || !Number.isFinite(x)) return "–";
  const a = Math.abs(x);
  if (a !== 0 && (a < 1e-3 || a >= 1e6)) return x.toExponential(2);
  return x.toFixed(digits);
}

// Render KaTeX into every .math element (inline) and .math-block (display).
export function typesetAll(root) {
  const run = () => {
    if (!window.katex) return;
    for (const n of root.querySelectorAll(".math, .math-block")) {
      if (n.dataset.tex) continue;
      n.dataset.tex = n.textContent;
      window.katex.render(n.textContent, n, { displayMode: n.classList.contains("math-block"), throwOnError: false });
    }
  };
  if (window.katex) run();
  else window.addEventListener("load", run, { once: true });
}

export function tex(node, src, display = false) {
  if (window.katex) window.katex.render(src, node, { displayMode: display, throwOnError: false });
  else node.textContent = src;
}

// Show an error message right next to the control it concerns; clear it with msg = "".
export function fieldError(control, msg) {
  let box = control.parentElement.querySelector(":scope > .field-error");
  if (!box) {
    box = el("span", { class: "field-error", role: "alert" });
    control.insertAdjacentElement("afterend", box);
  }
  box.textContent = msg;
  box.hidden = !msg;
  control.classList.toggle("invalid", !!msg);
  control.setAttribute("aria-invalid", msg ? "true" : "false");
}

// Disable a button while an engine call runs; always re-enable, show failures in `status`.
export async function busy(button, status, fn) {
  button.disabled = true;
  const old = button.textContent;
  button.textContent = old + "…";
  try {
    return await fn();
  } catch (e) {
    if (status) {
      status.textContent = e.message;
      status.classList.add("error");
    }
    return undefined;
  } finally {
    button.disabled = false;
    button.textContent = old;
  }
}
