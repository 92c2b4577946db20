import { decimalText, parseDecimal } from "./i18n.js";

// Keep what the reader typed: every input, textarea and select with an id is saved as it changes
// and put back on the next load (before any widget first reads it). Checkboxes keep `checked`.
// Nothing is sent anywhere. Storage that is full or disabled (private windows) is ignored: the page
// works the same, it only forgets on reload.
//
// Two stores, because two tabs must not overwrite each other's typing: sessionStorage belongs to
// one tab and survives its reloads, so a reload puts back what was typed in that tab; localStorage
// is shared by every tab and keeps the most recent text, which a new tab starts from.
const PREFIX = "decodelab.input.";
const VERSION_KEY = "decodelab.input.version";
const VERSION = "1"; // bump when widget ids change meaning

function openStore(name) {
  try {
    const s = window[name];
    if (s.getItem(VERSION_KEY) !== VERSION) {
      for (const k of Object.keys(s)) if (k.startsWith(PREFIX)) s.removeItem(k);
      s.setItem(VERSION_KEY, VERSION);
    }
    return s;
  } catch {
    return null;
  }
}

// [this tab's store, the shared one]; either may be missing
function stores() {
  return [openStore("sessionStorage"), openStore("localStorage")].filter(Boolean);
}

function save(list, node) {
  saveValue(list, node.id, node.type === "checkbox" ? String(node.checked) : node.value);
}
function saveValue(list, key, v) {
  for (const s of list) {
    try { s.setItem(PREFIX + key, v); } catch { /* full or disabled: forget quietly */ }
  }
}

// This tab's value if it has one (a reload), else the most recent of any tab (a new tab).
function saved(list, id) {
  for (const s of list) {
    const v = s.getItem(PREFIX + id);
    if (v != null) return v;
  }
  return null;
}

export function persistInputs(root = document) {
  const list = stores();
  if (!list.length) return;
  for (const node of root.querySelectorAll("input[id], textarea[id], select[id]")) {
    if (node.dataset.persist === "no" || node.dataset.persisted) continue;
    node.dataset.persisted = "1"; // once per input, however many times a root is passed
    if (node.type === "radio") { // a segmented choice (ui.js segmented): kept once, by its group
      const key = `radio:${node.name}`, v = saved(list, key);
      if (v != null) node.checked = v === node.value;
      node.addEventListener("change", () => { if (node.checked) saveValue(list, key, node.value); });
      continue;
    }
    const v = saved(list, node.id);
    if (v != null) {
      if (node.type === "checkbox") node.checked = v === "true";
      else node.value = v;
      // for what draws the value without an update (a code editor's highlighted copy), not "input"
      node.dispatchEvent(new Event("decodelab:restored"));
      // a range slider shows a number box beside it: keep the two in step without firing an update
      const twin = document.getElementById(node.id.endsWith("-num") ? node.id.slice(0, -4) : node.id + "-num");
      if (twin && twin.type !== "checkbox") {
        const n = parseDecimal(node.value);
        if (Number.isFinite(n)) twin.value = twin.type === "range" ? String(n) : decimalText(n);
      }
    }
    const store = () => save(list, node);
    node.addEventListener("input", store);
    node.addEventListener("change", store);
  }
}

// Save a value the page set itself (a re-rolled seed), as if the reader had typed it.
export function remember(node) {
  const list = stores();
  if (list.length && node.id) save(list, node);
}
