"""The demo's questions: short textbook facts asked as four-option questions, with seeded
distractors and option order. Synthetic, in the official format (``formats``)."""

from __future__ import annotations

import random

from clineval.benchmarks.mcqa.formats import LETTERS
from clineval.io import Record

#: (question, correct answer, the kind its distractors are drawn from)
FACTS = (
    ("Which electrolyte disturbance produces peaked T waves on the ECG?", "Hyperkalemia",
     "electrolyte"),
    ("Which electrolyte disturbance is a classic cause of a prolonged QT interval?",
     "Hypocalcemia", "electrolyte"),
    ("Low serum sodium with euvolemia and concentrated urine suggests which condition?",
     "SIADH", "condition"),
    ("Which hormone deficiency causes diabetes insipidus of central origin?",
     "Vasopressin", "hormone"),
    ("Which hormone do the beta cells of the pancreas secrete?", "Insulin", "hormone"),
    ("Which organism most often causes community-acquired pneumonia in adults?",
     "Streptococcus pneumoniae", "organism"),
    ("Which organism causes most urinary tract infections?", "Escherichia coli", "organism"),
    ("Which drug reverses the effect of heparin?", "Protamine sulfate", "drug"),
    ("Which drug is the antidote for a paracetamol overdose?", "Acetylcysteine", "drug"),
    ("Which drug is first-line for anaphylaxis?", "Epinephrine", "drug"),
    ("Which vitamin deficiency causes scurvy?", "Vitamin C", "vitamin"),
    ("Which vitamin deficiency causes Wernicke encephalopathy?", "Thiamine", "vitamin"),
    ("Which condition presents with a butterfly rash and positive anti-dsDNA antibodies?",
     "Systemic lupus erythematosus", "condition"),
    ("Which hormone rises first in primary hypothyroidism?", "TSH", "hormone"),
    ("Which vitamin does warfarin antagonize?", "Vitamin K", "vitamin"),
    ("Which electrolyte is lost in large amounts with severe vomiting, causing alkalosis?",
     "Chloride", "electrolyte"),
)
KINDS: dict[str, tuple[str, ...]] = {}
for _, answer, kind in FACTS:
    KINDS.setdefault(kind, ())
    KINDS[kind] += (answer,)
EXTRA = {
    "electrolyte": ("Hypernatremia", "Hypomagnesemia"),
    "condition": ("Sarcoidosis", "Addison disease"),
    "hormone": ("Glucagon", "Cortisol"),
    "organism": ("Staphylococcus aureus", "Klebsiella pneumoniae", "Candida albicans"),
    "drug": ("Naloxone", "Flumazenil"),
    "vitamin": ("Vitamin D", "Vitamin B12"),
}


def generate(n: int, seed: int, options: int = 4) -> list[Record]:
    """``n`` questions (the facts in turn, again with other options past their number)."""
    rng = random.Random(seed)
    questions = []
    for i in range(n):
        question, answer, kind = FACTS[i % len(FACTS)]
        pool = sorted(set(KINDS[kind] + EXTRA[kind]) - {answer})
        texts = [answer, *rng.sample(pool, options - 1)]
        rng.shuffle(texts)
        letters = LETTERS[:options]
        questions.append({"id": f"demo-{i:03d}", "question": question,
                          "options": dict(zip(letters, texts, strict=True)),
                          "answer": letters[texts.index(answer)]})
    return questions
