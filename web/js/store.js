// The one way widgets share state: named values that one widget sets and others subscribe to
// (the pattern of a Svelte store, in a few lines, no framework). Python stays the owner of what
// it owns (the model lent to the playground); the store holds its last answer, so a widget
// mounted later still sees it. The values:
//   "panel.view"    the sampler panel's view {prompt, settings, extra}, after each update
//   "lend"          ch2_lend's last answer {lent, bits, scheme}
//   "ch3.verify"    the verify-cost chart's fit {slope, ...}
//   "ch3.roofline"  the roofline's measured rates
// Widgets import this module, never each other. (The prose's numbers go through live.js.)
const values = new Map();
const listeners = new Map();

export function set(name, value) {
  values.set(name, value);
  for (const f of [...(listeners.get(name) || [])]) f(value); // a copy: a listener may unsubscribe
}

export const get = (name) => values.get(name);

// f(value) on every set from now on (and at once with the current value, unless now: false);
// once: only the first. Returns a function that unsubscribes.
export function subscribe(name, f, { now = true, once = false } = {}) {
  if (!listeners.has(name)) listeners.set(name, new Set());
  const list = listeners.get(name);
  const g = (v) => { if (once) list.delete(g); f(v); };
  list.add(g);
  if (now && values.has(name)) g(values.get(name));
  return () => list.delete(g);
}
