// The questions of the page's quizzes, by id (a quiz placeholder names one: data-quiz="ch1-temp").
// Each has three or four options (kept in this order), the index of the right one, and an
// explanation shown after any answer: it teaches the idea, it does not repeat the option.
// The numbers in them are made-up examples or the chapters' own formulas, not model output.
export const QUESTIONS = {
  "ch1-temp": {
    question: "At T = 1 the model makes token A four times as likely as token B. You lower the temperature to T = 0.5. How many times as likely as B is A now?",
    options: ["2 times",
      "4 times",
      "8 times",
      "16 times"],
    right: 3,
    explanation: "Temperature divides the scores, and the softmax's shared denominator cancels in any ratio, leaving e^((z_A − z_B)/T). Halving T doubles that exponent, which squares the ratio: 4² = 16. Every ratio is the T = 1 ratio raised to the power 1/T. 8 would be right if temperature scaled probabilities in proportion; it scales scores, and probabilities are exponentials of scores. At T = 2 the same pair would be 4^(1/2) = 2 times apart.",
  },
  "ch1-topp": {
    question: "In the distribution the filter sees, the favourite holds 95% and thousands of tokens share the other 5%. With top-p = 0.9, which tokens can this step draw?",
    options: ["Just one: the favourite alone",
      "The favourite plus a few others",
      "About 90% of the vocabulary",
      "Every token with at least 0.9%"],
    right: 0,
    explanation: "Top-p keeps the shortest run of top tokens whose probabilities add up to at least p. The favourite alone already has 0.95, which reaches 0.9, so the nucleus is one token and this step is decided as greedy decoding would decide it. p is a share of probability, not of the vocabulary, and not a bar each token must clear (that is closer to min-p, whose bar is set relative to the favourite). Raise p to 0.99 and the nucleus has to collect four more points from the 5% tail, so it grows from one token to however many that takes.",
  },
  "ch1-entropy": {
    question: "At some step the panel shows an entropy of 2.08 nats, which is ln 8. What does it show as effective choices, and what does that number mean?",
    options: ["8: as uncertain as a fair eight-sided die",
      "8: exactly eight tokens have any chance",
      "2.08: about two tokens are really plausible",
      "8%: the share the favourite token holds"],
    right: 0,
    explanation: "Effective choices is e^H, and e^(ln 8) = 8. A fair die with N faces has entropy ln N, so e^H names the fair die that is exactly as uncertain as this distribution. It does not count tokens: every token in the vocabulary still has some probability, and a favourite with most of the mass plus a long thin tail can come out at the same figure as eight equal options. That is why the panel shows both the bars and e^H.",
  },
  "ch1-penalty": {
    question: "With the repetition penalty at r = 2, two recently used tokens have scores 3.0 and −1.0. What are their scores after the penalty?",
    options: ["1.5 and −2.0",
      "1.5 and −0.5",
      "6.0 and −2.0",
      "3.0 and −1.0"],
    right: 0,
    explanation: "Positive scores are divided by r and negative ones multiplied by r, so both move down: 3.0 / 2 = 1.5 and −1.0 × 2 = −2.0. Dividing −1.0 by 2 would give −0.5, a higher score, and make the token more likely, the opposite of a penalty; that is why the rule has two branches. Each recent token is penalised once, however many times it appears in the window, and the rule cannot tell a loop from a word the story needs, such as ' the' or the hero's name.",
  },
  "ch1-seed": {
    question: "You write a story with seed 42, then again with seed 42, the same prompt and the same settings, in another browser on another computer. What do you get?",
    options: ["The same story, token for token",
      "A similar story with other words",
      "A new story, since the browser differs",
      "The same first token, then a new story"],
    right: 0,
    explanation: "The seed fixes every random number the draws will use, because the generator is plain 32-bit integer arithmetic that every runtime computes alike. The model's scores are the same to the last bit in every build of our kernel, so every token's stretch of [0, 1) is the same too. Same numbers in the same stretches give the same tokens, and each token makes the next context the same as well. A chat app's 'regenerate' gives a new answer because it takes a new seed each time, not because anything else changed.",
  },
  "ch3-peak": {
    question: "In the cost model, α = 0.8 and a draft pass costs 0.1 of a target pass. Verification gets dearer: 2 target passes instead of 1. Where does the best γ go?",
    options: ["Down, so that fewer drafts are wasted per round",
      "Up: spread the dearer charge over more tokens",
      "Nowhere: the best γ depends only on α and the draft's cost",
      "To 0: no round can pay for itself any more"],
    right: 1,
    explanation: "One more draft helps while its own return, α^(γ+1) tokens for c_draft, beats the round's average, E / (γ·c_draft + c_verify). Verification is a fixed charge per round, so doubling it lowers that average, and more drafts clear the bar: in the widget the best γ moves from 6 to 8. Each round is dearer, and the best speedup falls, but the answer to a dearer fixed charge is to spread it over more tokens, as you order more at once when delivery costs more. It does not fall to 0: at the new peak the speedup is still above 1.",
  },
  "ch3-exact": {
    question: "In the worked example the draft proposes “girl” with probability 0.60 and the target gives it 0.50. Over many runs, how often does the text say “girl” at this position?",
    options: ["0.50, the target's rate",
      "0.60, since kept drafts are never redrawn",
      "0.55, because both models have a say",
      "Under 0.50, since rejected “girl” drafts never come back"],
    right: 0,
    explanation: "A drafted “girl” is kept with probability 0.50 / 0.60 = 5/6, so kept drafts give 0.60 × 5/6 = 0.50. The last option is half right: a rejected “girl” is never redrawn, because the residual max(0, p − q) gives weight only to tokens the draft underrated, and “girl” was overrated. But the trimming was sized to land exactly on the target's value: the 0.10 taken from “girl” goes to “boy” and “dog”, which the draft underrated by 0.05 each, and every token ends at its p, whatever q was.",
  },
  "ch3-cpu": {
    question: "Our draft's guesses survive about half the time. Why does speculation still lose for our pair in this page?",
    options: ["About half is too low for any γ to pay",
      "The exact rule rejects more drafts in a browser",
      "Checking γ+1 positions is far from free",
      "The draft costs as much as the target does"],
    right: 2,
    explanation: "A round yields at most γ+1 tokens, so it pays only if checking them costs well under γ+1 steps. On a large model that reads its weights from memory, checking several positions costs about one pass; our small model sits in the processor's cache, where the arithmetic sets the pace, and the verify-cost chart shows the check growing with every position, so a round's cost eats most of what its extra tokens bring. Half is not the problem: in the cost model, α = 0.5 with a flat verification still gives a speedup above 1 at a small γ. The rule is the same arithmetic everywhere, and a draft pass costs a fraction of a target step, not a whole one.",
  },
};

// chapter 3's quiz box (#quiz) asks these, in this order
export const CH3 = ["ch3-peak", "ch3-exact", "ch3-cpu"];
