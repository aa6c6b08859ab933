"""Dose conversions: Steroid Conversion (24) and Morphine Milligram Equivalents (49).

Steroids: MDCalc's Steroid Conversion Calculator converts through the equivalent
anti-inflammatory (glucocorticoid) doses of the standard table (e.g. Liu D et al. Allergy
Asthma Clin Immunol 2013;9:30): betamethasone 0.75 mg, cortisone 25 mg, dexamethasone
0.75 mg, hydrocortisone 20 mg, methylprednisolone 4 mg, prednisolone 5 mg, prednisone 5 mg,
triamcinolone 4 mg; IV and PO forms of one drug are equivalent mg for mg.

Opioids: MDCalc's MME calculator multiplies each opioid's daily dose by the CDC conversion
factor (Dowell D et al. CDC Clinical Practice Guideline for Prescribing Opioids for Pain,
MMWR Recomm Rep 2022;71(3):1–95), the factors the dataset uses: codeine 0.15, fentanyl
buccal 0.13 per µg, fentanyl patch 2.4 per µg/h, hydrocodone 1, hydromorphone 5, methadone
4.7, morphine 1, oxycodone 1.5, oxymorphone 3, tapentadol 0.4, tramadol 0.2 (per mg).

The ``clinical`` convention uses the conversion table of the CDC's 2016 guideline (Dowell D,
Haegerich TM, Chou R. CDC Guideline for Prescribing Opioids for Chronic Pain, MMWR Recomm Rep
2016;65(1):1–49, and its companion sheet "Calculating Total Daily Dose of Opioids for Safer
Dosage"), which the physician-validated labels of Ye et al. 2025 follow: hydromorphone 4,
tramadol 0.1 and methadone by total daily dose (1–20 mg: 4; 21–40 mg: 8; 41–60 mg: 10;
61–80 mg: 12); the other factors are those above. The 2016 table gives no methadone factor
above 80 mg/day; there the single factor of the 2022 guideline (4.7) applies.
"""

from __future__ import annotations

from collections.abc import Callable

from clineval.benchmarks.medcalc.calculators.base import (
    CalcResult,
    Calculator,
    Entities,
    MissingEntity,
    decimal_result,
    fmt,
    number,
    register,
)
from clineval.benchmarks.medcalc.calculators.units import Quantity, normalize_unit

# Drug amounts, base unit mg.
DOSE = Quantity("drug dose", {normalize_unit(unit): factor for factor, units in (
    (1.0, ("mg", "milligram", "milligrams")),
    (1e-3, ("µg", "ug", "mcg", "microgram", "micrograms")),
    (1e3, ("g", "gram", "grams")),
) for unit in units})

# Equivalent glucocorticoid doses (mg), keyed by the dataset's names, lower-cased.
STEROID_EQUIVALENT_MG: dict[str, float] = {
    "betamethasone iv": 0.75,
    "cortisone po": 25.0,
    "dexamethasone iv": 0.75,
    "dexamethasone po": 0.75,
    "hydrocortisone iv": 20.0,
    "hydrocortisone po": 20.0,
    "methylprednisolone iv": 4.0,
    "methylprednisolone po": 4.0,
    "prednisolone po": 5.0,
    "prednisone po": 5.0,
    "triamcinolone iv": 4.0,
}


def _steroid(name: object, entity: str) -> float:
    key = " ".join(str(name).lower().split())
    if key not in STEROID_EQUIVALENT_MG:
        raise ValueError(f"unknown steroid {name!r} for {entity!r}; known: "
                         f"{', '.join(STEROID_EQUIVALENT_MG)}")
    return STEROID_EQUIVALENT_MG[key]


def steroid_conversion(entities: Entities) -> CalcResult:
    """Target dose = input dose × (target equivalent dose / input equivalent dose)."""
    given = entities.get("input steroid")
    target = entities.get("target steroid")
    if given is None:
        raise MissingEntity("input steroid")
    if target is None:
        raise MissingEntity("target steroid")
    if not (isinstance(given, list | tuple) and len(given) == 3):
        raise ValueError(f"entity 'input steroid' should be [name, dose, unit], got {given!r}")
    name, dose, unit = given
    source_mg = _steroid(name, "input steroid")
    target_mg = _steroid(target, "target steroid")
    dose_mg = DOSE.convert(float(dose), str(unit), "mg", entity="input steroid")
    value = dose_mg * target_mg / source_mg
    given_text = f"{fmt(float(dose))} {unit}"
    if DOSE.factor(str(unit)) != 1.0:
        given_text += f" = {fmt(dose_mg)} mg"
    return decimal_result(value, [
        "Glucocorticoids are converted through equivalent doses: the dose of the target steroid "
        "is the given dose × (equivalent dose of the target / equivalent dose of the given "
        "steroid).",
        f"Given: {given_text} of {name}, whose equivalent dose is {fmt(source_mg)} mg.",
        f"Target: {target}, whose equivalent dose is {fmt(target_mg)} mg.",
        f"Dose = {fmt(dose_mg)} × {fmt(target_mg)} / {fmt(source_mg)} = {fmt(value)} mg of "
        f"{target}.",
    ])


# (dataset drug name, MME per unit, the unit the factor is per)
OPIOIDS: tuple[tuple[str, float, str], ...] = (
    ("Codeine", 0.15, "mg"),
    ("FentaNYL buccal", 0.13, "µg"),
    ("FentANYL patch", 2.4, "µg/h"),
    ("HYDROcodone", 1.0, "mg"),
    ("HYDROmorphone", 5.0, "mg"),
    ("Methadone", 4.7, "mg"),
    ("Morphine", 1.0, "mg"),
    ("OxyCODONE", 1.5, "mg"),
    ("OxyMORphone", 3.0, "mg"),
    ("Tapentadol", 0.4, "mg"),
    ("TraMADol", 0.2, "mg"),
)
CDC_2016_FACTORS = {"HYDROmorphone": 4.0, "TraMADol": 0.1}
CDC_2016_METHADONE = ((20.0, 4.0), (40.0, 8.0), (60.0, 10.0), (80.0, 12.0))  # (≤ mg/day, factor)
PATCH_RATE_UNITS = {"µg/h", "µg/hr", "mcg/h", "mcg/hr", "ug/h", "ug/hr"}


def _patch_rate(raw: tuple[float, str], entity: str) -> tuple[float, str]:
    """A fentanyl patch's strength in µg/h, and how the note's value was read.

    Patches are prescribed by delivery rate. The dataset records every dose with the unit
    'mg' (its notes read e.g. '60 mg of FentANYL patch'), so a patch strength given in mg is
    read as the patch's number of µg/h, as the dataset's own explanations do.
    """
    value, unit = raw
    spelled = unit.strip().lower().replace("μ", "µ")
    if spelled in PATCH_RATE_UNITS:
        return value, f"{fmt(value)} µg/h"
    if spelled == "mg":
        return value, f"{fmt(value)} (recorded as 'mg'; read as the patch strength in µg/h)"
    raise ValueError(f"unknown unit {unit!r} for {entity!r}; a patch strength is in µg/h")


def _dose(entities: Entities, entity: str, per: str) -> tuple[float, str]:
    raw = entities[entity]
    if not (isinstance(raw, list | tuple) and len(raw) == 2 and isinstance(raw[1], str)):
        raise ValueError(f"entity {entity!r} should be [value, unit], got {raw!r}")
    value, unit = float(raw[0]), raw[1]
    if per == "µg/h":
        return _patch_rate((value, unit), entity)
    converted = DOSE.convert(value, unit, per, entity=entity)
    text = f"{fmt(value)} {unit}"
    if DOSE.factor(unit) != DOSE.factor(per):
        text += f" = {fmt(converted)} {per}"
    return converted, text


def _cdc_2016_factor(drug: str, factor: float, daily: float) -> float:
    """The CDC 2016 table's factor for ``drug`` at ``daily`` mg (or µg) a day."""
    if drug == "Methadone":
        return next((f for limit, f in CDC_2016_METHADONE if daily <= limit), factor)
    return CDC_2016_FACTORS.get(drug, factor)


def _mme(entities: Entities, table: str, pick: Callable[[str, float, float], float]
         ) -> CalcResult:
    """Daily MME = Σ dose × doses per day × factor, ``pick(drug, 2022 factor, daily dose)``."""
    steps = ["The daily morphine milligram equivalent (MME) is the sum over the opioids taken "
             f"of dose × doses per day × the conversion factor of that opioid ({table})."]
    total = 0.0
    for drug, cdc_2022, per in OPIOIDS:
        dose_key = f"{drug} Dose"
        if dose_key not in entities:
            continue
        dose, dose_text = _dose(entities, dose_key, per)
        per_day = number(entities, f"{drug} Dose Per Day")
        factor = pick(drug, cdc_2022, dose * per_day)
        daily = dose * per_day * factor
        steps.append(f"{drug}: {dose_text} × {fmt(per_day)} per day × {fmt(factor)} MME per "
                     f"{per} = {fmt(daily)} MME/day; running total {fmt(total)} + "
                     f"{fmt(daily)} = {fmt(total + daily)} MME/day.")
        total += daily
    if len(steps) == 1:
        steps.append("No opioid dose is listed.")
    steps.append(f"The patient's daily MME is {fmt(total)} MME/day.")
    return decimal_result(total, steps)


def morphine_milligram_equivalents(entities: Entities) -> CalcResult:
    """Daily MME with the CDC 2022 factors (the dataset's)."""
    return _mme(entities, "CDC 2022 table", lambda drug, factor, daily: factor)


def morphine_milligram_equivalents_2016(entities: Entities) -> CalcResult:
    """Daily MME with the CDC 2016 factors (methadone by total daily dose)."""
    return _mme(entities, "CDC 2016 table", _cdc_2016_factor)


register(Calculator(
    id=24,
    name="Steroid Conversion Calculator",
    category="dosage",
    output_type="decimal",
    compute=steroid_conversion,
    question="Based on the patient's dose of Dexamethasone PO, what is the equivalent dosage in "
    "mg of PrednisoLONE PO? ",
))
register(Calculator(
    id=49,
    name="Morphine Milligram Equivalents (MME) Calculator",
    category="dosage",
    output_type="decimal",
    compute=morphine_milligram_equivalents,
    variants={"clinical": morphine_milligram_equivalents_2016},
    question="Based on the number of doses per day and the quantity of different doses, what is "
    "the patient's daily Morphine Miligram Equivalents (MME)?",
))
