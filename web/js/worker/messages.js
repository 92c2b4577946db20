// What the worker tells the page, and how: its boot timeline (progress messages and the marks
// bench startup prints) and its errors as message keys. The worker has no text of its own: what
// the reader reads is err.KEY in web/i18n/LANG.txt with its arguments, rendered by the page in the
// reader's language; `message` is the same in English-like words for the console and the tests.

export const t0 = performance.now();

// ms since the worker started, at each milestone of the boot
export const marks = {};
export const mark = (name) => { marks[name] = Math.round(performance.now() - t0); };

let stage = "start"; // the boot's current step, named in a fatal message
export const currentStage = () => stage;
export function progress(next, detail = "") {
  stage = next;
  self.postMessage({ type: "progress", stage, detail, ms: performance.now() - t0 });
}

// An error the reader will read: err.KEY with arguments (an argument may be another message).
export class Msg extends Error {
  constructor(key, args = {}) {
    super(`${key} ${JSON.stringify(args)}`);
    this.key = key;
    this.args = args;
  }
}

// an error as the fields of a message to the page: {key, args} where we have one, and message
export function payload(e) {
  const message = String(e && e.message ? e.message : e);
  return e && e.key ? { key: e.key, args: e.args, message } : { message };
}

// an error as a message argument: ours as {key, args}, anything else in the browser's own words
export const reason = (e) => (e && e.key ? { key: `err.${e.key}`, args: e.args } : String((e && e.message) || e).split("\n")[0]);

// a model as the reader reads it ("the draft model", ru «черновая модель»)
export const modelName = (name) => ({ key: `model.name.${name}` });
