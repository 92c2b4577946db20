// Quizzes: one question per `.quiz[data-quiz=ID]` placeholder in the prose, and chapter 3's box
// (#quiz) with its three. A click on an option marks it, says whether it was right, and shows the
// explanation (after any answer, right or wrong). Answers are checked here; nothing is sent.
// Every word is a keyed text (quiz-questions.js), so a language switch rewrites the quiz,
// an answer already given included.
import { el } from "../ui.js";
import { QUESTIONS, CH3, questionKey, optionKey, explanationKey } from "./quiz-questions.js";

function question(id) {
  const q = QUESTIONS[id];
  if (!q) throw new Error(`no quiz question named ${id}`);
  const verdict = el("p", { class: "quiz-verdict", id: `quiz-${id}-verdict`, role: "status", "aria-live": "polite" });
  const buttons = Array.from({ length: q.options }, (_, i) => el("button", { class: "secondary quiz-option", id: `quiz-${id}-${i}`,
    "aria-pressed": "false", t: optionKey(id, i), onclick: () => answer(i) }));
  function answer(i) {
    buttons.forEach((b, j) => {
      b.setAttribute("aria-pressed", String(j === i));
      b.classList.toggle("right", j === q.right);
      b.classList.toggle("wrong", j === i && i !== q.right);
    });
    const right = i === q.right;
    verdict.replaceChildren(el("b", { class: right ? "good" : "warn", t: right ? "quiz.right" : "quiz.wrong" }), " ",
      right ? "" : el("span", { t: "quiz.answer_is", targs: { answer: { key: optionKey(id, q.right) } } }), right ? "" : " ",
      el("span", { t: explanationKey(id) }));
    verdict.dataset.answered = right ? "right" : "wrong";
  }
  return el("div", { class: "quiz-q", "data-question": id }, el("p", { class: "quiz-question", t: questionKey(id) }),
    el("div", { class: "quiz-options", role: "group", "t-aria-label": "quiz.answers_aria" }, buttons), verdict);
}

// every placeholder under root: <div class="widget quiz" data-quiz="ch1-temp ch1-topp"></div>, a
// chapter's questions in one box at its end (the design reviews: a quiz card after each idea broke
// the reading ten times over, and made the page longer by the cards' frames)
export function mountQuizzes(root = document) {
  for (const node of root.querySelectorAll(".quiz[data-quiz]")) {
    node.replaceChildren(el("h3", { t: "quiz.check_yourself" }), ...node.dataset.quiz.split(/\s+/).filter(Boolean).map(question));
  }
}

// chapter 3's box
export function mountQuiz(root) {
  root.append(el("h3", { t: "quiz.check_yourself" }), ...CH3.map(question));
}
