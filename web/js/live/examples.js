// The reference examples: the inputs every worked number in the prose is computed from, and where
// each widget starts. The prose's numbers stay on these (the build renders them into the HTML);
// a widget is the reader's playground and changes only its own readout. Only the sampler panel
// can lend its numbers to the prose, when the reader asks (its "follow my panel" box).
// DOM-free: the build reads this module in Node (decodelab_tools/node/firstpaint.mjs).

import { SPEC } from "../generated/spec.js";

// the sampler panel: the first of Python's openings (ch1.OPENINGS, ping), at these settings
// (the page's default settings: each sampler rule declares its own default, py_src/decodelab/sampler.py;
// penalty_window is not a panel setting)
const { penalty_window: _window, ...defaults } = SPEC.defaults;
export const PANEL = { opening: 0, settings: defaults, seed: 1234 };

// chapter 1's widgets
export const FOUR_TEMPS = { prompt: "Once upon a time, there was a girl named", temps: [0.3, 0.7, 1.0, 1.5], seed: 7, n: 40 };
// the first opening runs to the end of its story; the second loops at once
export const LOOPS = { openings: ["Once upon a time, there was a little girl named Lily.", "The sun was hot."],
  n: 80, penalty: 1 };
export const END_RUN = { prompt: "Once upon a time, there was a little fox.", seed: 11, n: 400, stop_at_end: true };
export const SLIDE_RUN = { prompt: END_RUN.prompt, seed: END_RUN.seed, n: 700, stop_at_end: false };

// the toy sampler: eight made-up words with fixed scores, in rank order (the picture's widget and
// the Python cell behind it both start from these), the picture's first settings, its seed and
// how many draws it starts with
export const TOY = { words: ["the", "a", "dog", "cat", "ran", "sat", "happy", "moon"],
  logits: [3.0, 2.6, 1.9, 1.7, 0.8, 0.5, -0.5, -2.0], settings: { temperature: 1, top_k: 0, top_p: 1 }, seed: 1, n: 20 };

// chapter 2's widgets
export const KV_RACE = { prompt: "Once upon a time, there was a big brown dog named", n: 30 };
// the planted outlier's size is a slider over its power of ten
export const OUTLIERS = { rows: 64, cols: 256, outlier_log10: 1.5 };

// the speed race: timed tokens, and untimed ones before them (ch2_speed's defaults)
export const SPEED = { n: 96, warmup: 32 };

// chapter 3: the real pair's acceptance rate with both models sampling at each temperature (the
// table beside the exact rule; the widget under it measures the reader's own temperature)
export const SPEC_TEMPS = { prompt: "Once upon a time, there was a little", gamma: 4, temps: [0.5, 1.0, 1.5], n: 150, seed: 3 };

// chapter 3's widgets. Illustrative settings, no real models behind them; the first entry names
// the preset's button (w3.cm.preset.NAME).
export const COST_MODEL = { gamma: 4, alpha: 0.8, c_draft: 0.1, c_verify: 1.0 };
export const COST_PRESETS = [
  ["balanced", 0.8, 4, 0.10, 1.0],
  ["free", 0.8, 8, 0.005, 1.0],
  ["expensive", 0.8, 4, 1.0, 1.0],
  ["poor", 0.35, 3, 0.10, 1.0],
  ["excellent", 0.95, 10, 0.05, 1.0],
  ["costly_verify", 0.8, 4, 0.10, 2.0],
  ["cheap_verify", 0.7, 6, 0.08, 0.6],
];
export const ROUNDS = { flags: "111111001110101111", gamma: 4, c_draft: 0.1, c_verify: 1.0 };
// the sampling rule's worked pair (the prose walks through it by name): a draft a little too sure
// of the obvious word. α = Σ min(p, q) = 0.9; only "girl" is overrated, "cat" is matched exactly.
export const SAMPLING_PAIR = { labels: ["girl", "boy", "dog", "cat"], p: [0.5, 0.3, 0.15, 0.05], q: [0.6, 0.25, 0.1, 0.05] };

// the diagrams (web/js/diagrams/): what each draws before the reader changes anything
export const FIGURES = {
  kv: { prompt: KV_RACE.prompt },            // the KV cache's rows are this opening's tokens
  int8: { row: 0, prompt: "Once" },  // layer 1's query/key/value matrix, its first row, times the input for "Once"
  spec: { prompt: "Once upon a time, there was a little", gamma: 4, seed: 3, rounds: 3 },
  story: { prompt: "Once upon a time", seed: 1, n: 80, tokens_per_s: 6, temperature: SPEC.defaults.temperature },
};
