// Chapter 3's widgets tell each other what they measured, as one event on document: the
// verify-cost chart's slope reaches the live pair's hand-off to the cost model, the roofline's
// rates reach the pass budget. A module of its own, so that widgets import it without importing
// each other. (The prose's numbers go through live.js.)
export const EVENT = "ch3";

export function announce(detail) {
  document.dispatchEvent(new CustomEvent(EVENT, { detail }));
}
