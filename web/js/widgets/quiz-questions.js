// The questions of the page's quizzes, by id (a quiz placeholder names one: data-quiz="ch1-temp").
// Only their structure lives here: each has three or four options (kept in this order) and the
// index of the right one. Their words are entries of the text files (web/i18n/LANG.txt, the
// quizzes' region): quiz.ID.q the question, quiz.ID.o0, o1, … the options, and quiz.ID.why the
// explanation shown after any answer (it teaches the idea, it does not repeat the option).
// The numbers in them are made-up examples or the chapters' own formulas, not model output.
export const QUESTIONS = {
  "ch1-temp": { options: 4, right: 3 },
  "ch1-topp": { options: 4, right: 0 },
  "ch1-entropy": { options: 4, right: 0 },
  "ch1-penalty": { options: 4, right: 0 },
  "ch1-seed": { options: 4, right: 0 },
  "ch2-passes": { options: 4, right: 1 },
  "ch2-outlier": { options: 4, right: 2 },
  "ch2-scale": { options: 4, right: 0 },
  "ch2-bits": { options: 4, right: 1 },
  "ch3-yield": { options: 4, right: 2 },
  "ch3-peak": { options: 4, right: 1 },
  "ch3-exact": { options: 4, right: 0 },
  "ch3-cpu": { options: 4, right: 2 },
};

// the text keys of one question
export const questionKey = (id) => `quiz.${id}.q`;
export const optionKey = (id, i) => `quiz.${id}.o${i}`;
export const explanationKey = (id) => `quiz.${id}.why`;

// chapter 3's quiz box (#quiz) asks these, in this order
export const CH3 = ["ch3-yield", "ch3-peak", "ch3-exact", "ch3-cpu"];
