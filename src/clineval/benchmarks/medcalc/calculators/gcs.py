"""Glasgow Coma Scale (21), after Teasdale and Jennett (1974): eye 1–4, verbal 1–5, motor 1–6.

A component recorded as 'not testable' is scored as that component's best response under the
``official`` convention, the assumption the dataset's explanations state; under ``clinical`` it
scores 1, as bedside practice reports an intubated patient's verbal response (V1 with a "T"
suffix: "GCS 3T" is the lowest score of an intubated patient) or eyes swollen shut ("C").
"""

from __future__ import annotations

from clineval.benchmarks.medcalc.calculators.base import (
    CalcResult,
    Calculator,
    Entities,
    Tally,
    choice,
    register,
)

NOT_TESTABLE = "not testable"
EYE = {
    "eyes open spontaneously": 4,
    "eye opening to verbal command": 3,
    "eye opening to pain": 2,
    "no eye opening": 1,
}
VERBAL = {
    "oriented": 5,
    "confused": 4,
    "inappropriate words": 3,
    "incomprehensible sounds": 2,
    "no verbal response": 1,
}
MOTOR = {
    "obeys commands": 6,
    "localizes pain": 5,
    "withdrawal from pain": 4,
    "flexion to pain": 3,
    "extension to pain": 2,
    "no motor response": 1,
}
COMPONENTS = (
    ("Best eye response", "eye", EYE),
    ("Best verbal response", "verbal", VERBAL),
    ("Best motor response", "motor", MOTOR),
)


def _glasgow(entities: Entities, untestable_best: bool) -> CalcResult:
    tally = Tally("Glasgow Coma Score")
    for entity, label, scale in COMPONENTS:
        response = choice(entities, entity, (*scale, NOT_TESTABLE))
        if response == NOT_TESTABLE:
            pick = max if untestable_best else min
            scored = pick(scale, key=scale.__getitem__)
            tally.add(scale[scored], f"Best {label} response not testable, scored as '{scored}'")
        else:
            tally.add(scale[response], f"Best {label} response '{response}'")
    return tally.result()


def glasgow_coma_score(entities: Entities) -> CalcResult:
    """Sum of the best eye, verbal and motor responses (3–15); untestable: the best response."""
    return _glasgow(entities, untestable_best=True)


def glasgow_coma_score_bedside(entities: Entities) -> CalcResult:
    """Sum of the best eye, verbal and motor responses (3–15); untestable: 1 ("3T")."""
    return _glasgow(entities, untestable_best=False)


register(Calculator(
    id=21,
    name="Glasgow Coma Score (GCS)",
    category="severity",
    output_type="integer",
    compute=glasgow_coma_score,
    variants={"clinical": glasgow_coma_score_bedside},
    question="What is the patient's Glasgow Coma Score?",
))
