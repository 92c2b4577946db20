// Keep what the reader typed: every input, textarea and select with an id is saved to
// localStorage as it changes and put back on the next visit (before any widget first reads it).
// Checkboxes keep `checked`. Nothing is sent anywhere. Storage that is full or disabled (private
// windows) is ignored: the page works the same, it only forgets on reload.
const PREFIX = "decodelab.input.";
const VERSION_KEY = "decodelab.input.version";
const VERSION = "1"; // bump when widget ids change meaning

function storage() {
  try {
    const s = window.localStorage;
    if (s.getItem(VERSION_KEY) !== VERSION) {
      for (const k of Object.keys(s)) if (k.startsWith(PREFIX)) s.removeItem(k);
      s.setItem(VERSION_KEY, VERSION);
    }
    return s;
  } catch {
    return null;
  }
}

function save(s, node) {
  try {
    s.setItem(PREFIX + node.id, node.type === "checkbox" ? String(node.checked) : node.value);
  } catch { /* full or disabled: forget quietly */ }
}

export function persistInputs(root = document) {
  const s = storage();
  if (!s) return;
  for (const node of root.querySelectorAll("input[id], textarea[id], select[id]")) {
    if (node.dataset.persist === "no" || node.dataset.persisted) continue;
    node.dataset.persisted = "1"; // once per input, however many times a root is passed
    const v = s.getItem(PREFIX + node.id);
    if (v != null) {
      if (node.type === "checkbox") node.checked = v === "true";
      else node.value = v;
      // a range slider shows a number box beside it: keep the two in step without firing an update
      const twin = document.getElementById(node.id.endsWith("-num") ? node.id.slice(0, -4) : node.id + "-num");
      if (twin && twin.type !== "checkbox") twin.value = node.value;
    }
    const store = () => save(s, node);
    node.addEventListener("input", store);
    node.addEventListener("change", store);
  }
}

// Save a value the page set itself (a re-rolled seed), as if the reader had typed it.
export function remember(node) {
  const s = storage();
  if (s && node.id) save(s, node);
}
