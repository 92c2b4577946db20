// A few questions with explanations; answers are checked here, nothing is sent anywhere.
import { el } from "../ui.js";

const QUESTIONS = [
  ["With α = 0.8, is γ = 32 better than γ = 6 when drafts cost 0.1 of a target pass?",
    ["Yes: more guesses, more tokens", "No: after a few guesses the chance that all earlier ones survived is small, but each still costs a draft pass"], 1],
  ["Does speculative sampling change which texts the model writes, or only how fast?",
    ["Only how fast: the accept/residual rule reproduces the target's distribution exactly", "It makes the text more like the draft's"], 0],
  ["Why can speculation fail to pay for a small model on a CPU?",
    ["Because verifying γ+1 tokens costs almost γ+1 passes when the work is bound by arithmetic, not by loading weights", "Because the draft is always wrong"], 0],
];

export function mountQuiz(root) {
  root.append(el("h3", { text: "Check yourself" }), ...QUESTIONS.map(([q, answers, right], qi) => {
    const fb = el("div", { class: "hint", id: `quiz-fb-${qi}` });
    return el("div", { class: "quiz-q" }, el("p", { text: q }), ...answers.map((a, ai) =>
      el("button", { class: "secondary", id: `quiz-${qi}-${ai}`, text: a, onclick: () => {
        fb.textContent = ai === right ? "Right. " + answers[right] + "." : "Not quite. " + answers[right] + ".";
        fb.className = ai === right ? "good" : "warn";
      } })), fb);
  }));
}
