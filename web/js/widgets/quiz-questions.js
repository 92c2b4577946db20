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
  "ch3-gamma": {
    question: "Acceptance α = 0.8, and a draft pass costs 0.1 of a target pass. Is drafting γ = 32 tokens per round better than γ = 6?",
    options: ["No: γ = 6 gives about twice the speed-up",
      "Yes: more guesses always mean more tokens",
      "Yes: γ = 32 yields about one token more",
      "Neither: the gain and the cost cancel out"],
    right: 0,
    explanation: "Tokens per round are (1 − α^(γ+1)) / (1 − α): 3.95 for γ = 6 and 5.00 for γ = 32. Guess i only counts if all the guesses before it survived, and 0.8^7 is already 0.21, so 26 extra guesses add about one token. Their cost does not shrink: a round costs 1 + 0.1γ target passes, 1.6 against 4.2. Speed-up is 3.95 / 1.6 ≈ 2.5 against 5.00 / 4.2 ≈ 1.2. The third option states a true fact and draws the wrong conclusion from it.",
  },
  "ch3-exact": {
    question: "Does speculative sampling change which texts the target model writes, or only how fast it writes them?",
    options: ["Only the speed: the accept-or-redraw rule gives exactly the target's distribution",
      "The text drifts towards the draft model, because its accepted guesses stay in",
      "The text is unchanged only at temperature 0; sampled text follows the draft",
      "The text changes slightly, by an amount that shrinks as acceptance α grows"],
    right: 0,
    explanation: "A drafted token x is kept with probability min(1, p(x)/q(x)). On a rejection the target draws from max(0, p − q), renormalised. The kept path gives each token min(p, q), the redraw path gives exactly p − min(p, q), and the two add up to p, whatever q is. A poor draft means more rejections, so less speed, never a different text distribution.",
  },
  "ch3-cpu": {
    question: "Why can speculation fail to pay off for a small model running on a CPU?",
    options: ["Checking γ + 1 tokens at once costs nearly as much as γ + 1 separate passes",
      "The draft model's guesses are almost always rejected by the target model",
      "The two models draw their random numbers from two different seeded streams",
      "The cache cannot keep drafted tokens until the target has accepted them"],
    right: 0,
    explanation: "Speculation gains when one target pass over several positions costs about as much as a pass over one, which holds when the time goes into loading the weights from memory, as on a GPU with a large model. A small model on a CPU spends its time on the arithmetic itself, and the arithmetic grows with the number of positions checked, so c_verify approaches γ + 1 single passes and the saving disappears. Move the verify-cost slider in the cost model up towards γ + 1 to see the speed-up fall below 1.",
  },
};

// chapter 3's quiz box (#quiz) asks these, in this order
export const CH3 = ["ch3-gamma", "ch3-exact", "ch3-cpu"];
