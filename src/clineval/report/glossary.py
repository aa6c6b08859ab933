"""The key to the words of the report and the explorer, in plain language for a clinician.

Each group maps a value as the pages show it (a verdict, a finish reason, a rule, a reading,
an access tier, an identity, a table mark) to what it means. Both page kinds show the key from
here (:func:`key_html`); a value a scorer starts to emit needs one line in its group.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from html import escape

from clineval.benchmarks import names, title

#: What an example's verdict says about the output, under the reading shown.
VERDICTS = {
    "right": "An answer was read from the output and it matches the gold answer: full credit.",
    "wrong": "An answer was read and it earns no credit (on a graded scale: the lowest grade).",
    "unanswered": "No answer could be read: the output gives none in the requested form, gives "
                  "answers that conflict, is off format, or only repeats text of the prompt. "
                  "It earns no credit.",
    "scored": "Graded on a scale rather than right or wrong: a summary's overlap with the "
              "reference, a code list's F1, partial credit. The score says how much.",
}

#: The flags an example may carry besides its verdict.
FLAGS = {
    "cut": "The output reached the length limit (max_tokens) and was cut off: it may be "
           "unfinished.",
    "loop": "The output kept repeating itself and was stopped.",
    "copied": "Much of the output repeats text of the prompt (the case, the instruction or an "
              "example answer) instead of answering.",
}

#: Why an output ended ("finish: …" above each output).
FINISH = {
    "stop": "The model ended the output itself (or wrote a stop sequence).",
    "length": "The output reached the length limit (max_tokens) and was cut off.",
    "loop": "The output repeated itself and was stopped (the sampling.stop_loop setting).",
    "baseline": "No model wrote this: a fixed rule did (an oracle that works out the gold "
                "answer, or the same answer every time), as a reference point for the models.",
    "recorded": "The output was read from a file of recorded outputs, not generated here.",
    "not known": "The record of the output does not say why it ended (outputs read from a "
                 "file often do not). It is counted neither as cut nor as looped.",
}

#: The readings an example may be judged under (the "Reading" column and selector).
READINGS = {
    "reading": "The careful reading, the project's default: the output read as a careful "
               "grader would; text copied from the prompt earns nothing.",
    "careful": "The same careful reading as \"reading\".",
    "literal": "The paper's literal reading: the benchmark's scoring exactly as its paper "
               "describes it. Listed only where it reads this output differently from the "
               "careful reading.",
    "official": "MedCalc-Bench's official reading: the answer extracted by the benchmark's own "
                "code, quirks included.",
    "robust": "MedCalc-Bench's robust reading: the answer a careful grader accepts, also when "
              "written in another common form (\"35 weeks 4 days\", \"3/9\" for a score of 3).",
}

#: The columns and labels around each output.
COLUMNS = {
    "Gold": "The correct answer as the dataset writes it. Where the scorer compares another "
            "form, \"gold as compared\" shows that form beside it.",
    "Read": "What the scorer took as the model's answer from its output (– : nothing).",
    "Rule": "How the scorer found that answer, or why it found none (the rules below).",
    "Score": "The credit the output earns under that reading.",
}

#: Per benchmark, the rules (statuses) its scorer reports in the "Rule" column or, for
#: CliBench, in each answer item's line.
RULES: dict[str, dict[str, str]] = {
    "medcalc": {
        "ok": "An answer was found and read as a value of the kind asked (number, date, or "
              "weeks and days).",
        "abstained": "The output declines to give a value: right only where the question has "
                     "no answer (N/A).",
        "not_found": "No answer was found in the output.",
        "unparseable": "Something stands where the answer should be, but it cannot be read as "
                       "a value of the kind asked.",
        "error": "The benchmark's own code fails on this output (it counts as wrong).",
    },
    "clue": {
        "label": "The output names one label (entailment, neutral or contradiction).",
        "leading_label": "The output names several labels; the one it opens with was taken.",
        "ambiguous": "The output names several labels and opens with none: no answer.",
        "conflicting": "The answer's labels contradict each other: no answer.",
        "no_label": "No label was found.",
        "phrase": "The letter after \"The correct answer is\" was taken.",
        "bare_letter": "A letter standing alone at the start of the answer was taken.",
        "bad_letter": "The letter given is not one of the options.",
        "listed_options": "The output restates the options without choosing one.",
        "no_answer": "No answer letter was found.",
        "text_mismatch": "The option text written after the letter belongs to another option "
                         "or to none: no answer.",
        "copied_example": "The answer repeats an example answer shown in the prompt: no answer.",
        "codes": "Diagnosis codes (ICD-10) were found in the output.",
        "no_codes": "No diagnosis code was found.",
        "marked": "The text after the \"Final answer:\" marker was taken as the summary.",
        "whole_output": "There is no marker, so the whole output was taken as the summary.",
    },
    "clibench": {
        "code": "The answer item gives a code itself.",
        "title": "The item's text is a code's title.",
        "embedding": "The item was matched to the code whose title is nearest in meaning "
                     "(similarity from 0 to 1).",
        "none": "No code: the nearest title is too far in meaning (below the floor) or means "
                "the opposite of the item.",
        "no_decision": "The item is not a decision of the model (it restates the prompt), so "
                       "the careful reading gives it no code; the literal reading still does.",
        "heading": "No decision: a heading of the record or of the answer.",
        "instruction": "No decision: mostly words copied from the instruction.",
        "record": "No decision: a line or sentence of the patient's record as the prompt shows "
                  "it.",
        "allergy": "No decision: names only the substance of an allergy the answer copied from "
                   "the record.",
        "exemplar": "No decision: copied from an example answer in the prompt.",
        "fragment": "No decision: names nothing (a dash, a number, a word cut off at the "
                    "length limit).",
    },
    "meddisk": {
        "pattern": "The answer was found after the phrase the prompt asks for (\"The symptoms "
                   "of … are\").",
        "fallback": "That phrase is missing, so the whole response was taken as the answer "
                    "(the paper's rule).",
        "prompt": "Unanswered: what remains only repeats the prompt.",
        "cut": "Unanswered: the output was cut off before it gave an answer.",
        "empty": "Unanswered: nothing is left to read.",
        "list": "Unanswered: a list where one value was asked for.",
        "no number": "Unanswered: no number where a number was asked for.",
        "repetition": "Unanswered: the same words repeated instead of an answer.",
        "no entity": "Unanswered: names no disease, symptom, drug or test.",
    },
    "medeval": {
        "qualified": "The output follows the answer format the prompt asks for, so it was "
                     "scored.",
        "unqualified": "The output is no answer: it does not follow the requested format, or it "
                       "only repeats its input or an exemplar (the reason follows the colon): "
                       "unanswered.",
    },
}

#: The data-access tiers of a task's files.
TIERS = {
    "synthetic": "The project's own made-up data in the official format: anyone may see it.",
    "public": "Released data anyone may use.",
    "credentialed": "Data only for those under its data use agreement (PhysioNet's for "
                    "MIMIC): it may repeat patient text; do not share these pages.",
    "unreleased": "Data the benchmark's authors have not released.",
    "private": "The user's own unreleased data.",
}

#: The identities the pages name.
IDENTITIES = {
    "scoring identity": "A fingerprint (sha256) of everything that decided a cell's scores: "
                        "its examples, prompts, model and settings, outputs and the scoring's "
                        "version. Equal identities mean the same outputs scored the same way.",
    "table identity": "The same fingerprint for a table: every setting and file it depends on.",
    "report identity": "The same fingerprint for this report: its tables and figures.",
}

#: The marks after a model's name in tables and figures.
MARKS = {
    "†": "Smoke model: random weights, run only to test the pipeline; its numbers mean "
         "nothing.",
    "‡": "Run on a slice: a fixed subset of each task's examples, so its numbers rest on "
         "fewer examples than the other rows'.",
    "§": "Recorded outputs: read from a file, not generated by this workflow; only their "
         "scoring is clineval's.",
}


def _group(heading: str, level: int, entries: Mapping[str, str], css: str = "") -> list[str]:
    dl = f'<dl class="{css}">' if css else "<dl>"
    return [f"<h{level}>{escape(heading)}</h{level}>", dl,
            *(f"<dt>{escape(term)}</dt><dd>{escape(text)}</dd>"
              for term, text in entries.items()), "</dl>"]


def _titled(benchmarks: Iterable[str]) -> list[tuple[str, dict[str, str]]]:
    known = set(names())
    return [(title(b) if b in known else b, RULES[b]) for b in benchmarks if b in RULES]


def key_html(level: int, benchmarks: Sequence[str] | None = None,
             readings: Sequence[str] | None = None) -> str:
    """The key as HTML: a heading of ``level`` and one of ``level + 1`` per group. ``benchmarks``:
    whose rules to explain (None: every benchmark's); ``readings``: which readings (None: all)."""
    sub = level + 1
    shown = READINGS if readings is None else {r: READINGS[r] for r in readings
                                               if r in READINGS}
    lines = [f'<h{level} id="key-heading">Key: what the words mean</h{level}>']
    lines += _group("Verdicts", sub, VERDICTS)
    lines += _group("Flags", sub, FLAGS)
    lines += _group("Finish: why an output ended", sub, FINISH)
    if shown:
        lines += _group("Readings", sub, shown)
    lines += _group("Gold, read, rule and score", sub, COLUMNS)
    for name, rules in _titled(RULES if benchmarks is None else benchmarks):
        lines += _group(f"Rules of {name}", sub, rules)
    lines += _group("Marks after a model's name", sub, MARKS)
    lines += _group("Access tiers of the data", sub, TIERS)
    lines += _group("Identities", sub, IDENTITIES)
    return "\n".join(lines)


#: Where a page's rule text starts another rule: a ";" before a one-word head.
RULE_START = re.compile(r";(?=\s*[a-z_]+(?::|$))")


def covered(benchmark: str, rule: str) -> bool:
    """Whether the key explains a rule as the pages show it: each of its parts (split at
    ``;`` and at the first ``:`` of each, the detail after it aside) is a rule of the
    benchmark, or ``unanswered`` followed by one."""
    rules = RULES.get(benchmark, {})
    # a ";" inside a detail ("no answer field; official extraction raises") starts no rule:
    # a rule is one word, alone or before its ":"
    for part in filter(None, (p.strip() for p in RULE_START.split(rule))):
        head, _, rest = part.partition(":")
        if head == "unanswered":
            head = rest.strip()
        if head not in rules:
            return False
    return True
