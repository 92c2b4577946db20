// Chapter 3's widgets announce their results (a measurement arrived, an input moved) as one
// event on document; ch3-live.js fills the prose from them. A module of its own, so that widgets
// and the filler import it without importing each other.
export const EVENT = "ch3";

export function announce(detail) {
  document.dispatchEvent(new CustomEvent(EVENT, { detail }));
}
