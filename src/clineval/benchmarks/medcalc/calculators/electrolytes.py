"""Sodium, water and acid-base calculators: sodium correction for hyperglycemia (26), free water
deficit (38), delta gap (63), delta ratio (64) and their albumin-corrected forms (65, 66, 67).

Sources, as presented on MDCalc: Hillier et al., Am J Med 1999;106:399-403 (sodium falls
2.4 mEq/L per 100 mg/dL of glucose above 100); Adrogué & Madias, N Engl J Med
2000;342:1581-9 (free water deficit, total body water fractions by age and sex); Wrenn, Ann
Emerg Med 1990;19:1310-3 and Rastegar, J Am Soc Nephrol 2007;18:2429-31 (delta gap and delta
ratio, normal anion gap 12 and bicarbonate 24 mEq/L); Figge et al., Crit Care Med
1998;26:1807-10 (anion gap rises 2.5 mEq/L per 1 g/dL that albumin falls below 4 g/dL).

The delta gap has two conventions: ``official`` (MDCalc and the MedCalc-Bench code) reports the
anion-gap excess, AG − 12; ``clinical`` (Rastegar 2007) compares it with the bicarbonate deficit,
ΔAG − ΔHCO₃⁻ = (AG − 12) − (24 − HCO₃⁻), near 0 in a pure anion-gap acidosis.
"""

from __future__ import annotations

from clineval.benchmarks.medcalc.calculators.base import (
    CalcResult,
    Calculator,
    Entities,
    choice,
    decimal_result,
    fmt,
    measure,
    register,
)
from clineval.benchmarks.medcalc.calculators.chemistry import anion_gap
from clineval.benchmarks.medcalc.calculators.units import (
    AGE,
    ALBUMIN,
    GLUCOSE,
    MASS,
    MONOVALENT_ION,
    SODIUM,
)

HILLIER_FACTOR = 0.024  # mEq/L of sodium per mg/dL of glucose above 100
NORMAL_GLUCOSE_MG_DL = 100.0
IDEAL_SODIUM = 140.0
NORMAL_ANION_GAP = 12.0
NORMAL_BICARBONATE = 24.0
NORMAL_ALBUMIN_G_DL = 4.0
ALBUMIN_GAP_FACTOR = 2.5  # mEq/L of anion gap per g/dL of albumin


def sodium_correction(entities: Entities) -> CalcResult:
    """Hillier (1999): corrected Na = Na + 0.024 × (glucose − 100), glucose in mg/dL.

    MDCalc reports this alongside Katz's 0.016 factor; the dataset asks for Hillier's.
    """
    sodium = measure(entities, "Sodium", SODIUM, "mEq/L")
    glucose = measure(entities, "Glucose", GLUCOSE, "mg/dL")
    value = sodium.converted + HILLIER_FACTOR * (glucose.converted - NORMAL_GLUCOSE_MG_DL)
    return decimal_result(value, [
        "Hillier's correction adds 2.4 mEq/L of sodium for every 100 mg/dL of glucose above "
        "100 mg/dL: corrected Na = Na + 0.024 × (glucose − 100).",
        f"Sodium: {sodium.text()}.",
        f"Glucose: {glucose.text()}.",
        f"Corrected Na = {fmt(sodium.converted)} + 0.024 × ({fmt(glucose.converted)} − 100) = "
        f"{fmt(value)} mEq/L.",
    ])


def _body_water_fraction(age_years: float, sex: str) -> tuple[float, str]:
    """Total body water as a fraction of weight: child 0.6; adult 0.6 (M) / 0.5 (F) below 65;
    elderly 0.5 (M) / 0.45 (F) from 65."""
    if age_years < 18:
        return 0.6, "a child (under 18)"
    if age_years < 65:
        return (0.6, "an adult man (18-64)") if sex == "male" else (0.5, "an adult woman (18-64)")
    return (0.5, "an elderly man (65 or older)") if sex == "male" else (
        0.45, "an elderly woman (65 or older)")


def free_water_deficit(entities: Entities) -> CalcResult:
    """Free water deficit (L) = TBW fraction × weight (kg) × (Na / 140 − 1)."""
    sex = choice(entities, "sex", ("male", "female"))
    age = measure(entities, "age", AGE, "years")
    weight = measure(entities, "weight", MASS, "kg")
    sodium = measure(entities, "Sodium", SODIUM, "mEq/L")
    fraction, group = _body_water_fraction(age.converted, sex)
    value = fraction * weight.converted * (sodium.converted / IDEAL_SODIUM - 1)
    return decimal_result(value, [
        "Free water deficit = total body water × (Na / 140 − 1), where total body water is "
        "weight × a fraction set by age and sex: 0.6 for children and men under 65, 0.5 for "
        "women under 65 and men 65 or older, 0.45 for women 65 or older.",
        f"Age: {age.text()}; sex: {sex}. The patient is {group}, so the fraction is "
        f"{fmt(fraction)}.",
        f"Weight: {weight.text()}.",
        f"Sodium: {sodium.text()}.",
        f"Free water deficit = {fmt(fraction)} × {fmt(weight.converted)} × "
        f"({fmt(sodium.converted)} / 140 − 1) = {fmt(value)} L.",
    ])


def _anion_gap(entities: Entities) -> tuple[float, list[str]]:
    gap = anion_gap(entities)
    return float(gap.value), gap.explanation.splitlines()


def _albumin_corrected_gap(entities: Entities) -> tuple[float, list[str]]:
    gap, steps = _anion_gap(entities)
    albumin = measure(entities, "Albumin", ALBUMIN, "g/dL")
    value = gap + ALBUMIN_GAP_FACTOR * (NORMAL_ALBUMIN_G_DL - albumin.converted)
    return value, [
        *steps,
        "The albumin-corrected anion gap adds 2.5 mEq/L for every 1 g/dL that albumin falls "
        "below 4 g/dL: corrected AG = AG + 2.5 × (4 − albumin).",
        f"Albumin: {albumin.text()}.",
        f"Corrected AG = {fmt(gap)} + 2.5 × (4 − {fmt(albumin.converted)}) = {fmt(value)} mEq/L.",
    ]


def _delta_ratio(entities: Entities, gap: float, name: str) -> tuple[float, list[str]]:
    """(gap − 12) / (24 − bicarbonate), for the plain or albumin-corrected ``gap`` (``name``)."""
    bicarbonate = measure(entities, "Bicarbonate", MONOVALENT_ION, "mEq/L", "HCO3", "HCO₃⁻")
    fall = NORMAL_BICARBONATE - bicarbonate.converted
    if fall == 0:
        raise ValueError("the delta ratio is undefined when bicarbonate is exactly 24 mEq/L")
    value = (gap - NORMAL_ANION_GAP) / fall
    return value, [
        f"The delta ratio divides the rise in the {name} above 12 by the fall in bicarbonate "
        f"below 24: ratio = ({name} − 12) / (24 − HCO₃).",
        f"Bicarbonate: {bicarbonate.text()}.",
        f"({fmt(gap)} − 12) / (24 − {fmt(bicarbonate.converted)}) = "
        f"{fmt(gap - NORMAL_ANION_GAP)} / {fmt(fall)} = {fmt(value)}.",
    ]


def delta_gap(entities: Entities) -> CalcResult:
    """Delta gap = anion gap − 12 mEq/L."""
    gap, steps = _anion_gap(entities)
    value = gap - NORMAL_ANION_GAP
    return decimal_result(value, [
        *steps,
        f"Delta gap = anion gap − 12 = {fmt(gap)} − 12 = {fmt(value)} mEq/L.",
    ])


def delta_gap_excess(entities: Entities) -> CalcResult:
    """Clinical delta gap: ΔAG − ΔHCO₃ = (anion gap − 12) − (24 − bicarbonate)."""
    gap, steps = _anion_gap(entities)
    bicarbonate = measure(entities, "Bicarbonate", MONOVALENT_ION, "mEq/L", "HCO3", "HCO₃⁻")
    rise, fall = gap - NORMAL_ANION_GAP, NORMAL_BICARBONATE - bicarbonate.converted
    value = rise - fall
    return decimal_result(value, [
        *steps,
        "The delta gap compares the rise in the anion gap above 12 with the fall in "
        "bicarbonate below 24: delta gap = (AG − 12) − (24 − HCO₃).",
        f"Bicarbonate: {bicarbonate.text()}.",
        f"Delta gap = ({fmt(gap)} − 12) − (24 − {fmt(bicarbonate.converted)}) = {fmt(rise)} − "
        f"{fmt(fall)} = {fmt(value)} mEq/L.",
    ])


def delta_ratio(entities: Entities) -> CalcResult:
    """Delta ratio = (anion gap − 12) / (24 − bicarbonate)."""
    gap, steps = _anion_gap(entities)
    value, ratio_steps = _delta_ratio(entities, gap, "anion gap")
    return decimal_result(value, [*steps, *ratio_steps])


def albumin_corrected_anion_gap(entities: Entities) -> CalcResult:
    """Albumin-corrected anion gap = anion gap + 2.5 × (4 − albumin in g/dL)."""
    value, steps = _albumin_corrected_gap(entities)
    return decimal_result(value, steps)


def albumin_corrected_delta_gap(entities: Entities) -> CalcResult:
    """Albumin-corrected delta gap = albumin-corrected anion gap − 12."""
    gap, steps = _albumin_corrected_gap(entities)
    value = gap - NORMAL_ANION_GAP
    return decimal_result(value, [
        *steps,
        f"Albumin-corrected delta gap = corrected AG − 12 = {fmt(gap)} − 12 = {fmt(value)} mEq/L.",
    ])


def albumin_corrected_delta_ratio(entities: Entities) -> CalcResult:
    """Albumin-corrected delta ratio = (corrected anion gap − 12) / (24 − bicarbonate)."""
    gap, steps = _albumin_corrected_gap(entities)
    value, ratio_steps = _delta_ratio(entities, gap, "albumin-corrected anion gap")
    return decimal_result(value, [*steps, *ratio_steps])


register(Calculator(
    id=26,
    name="Sodium Correction for Hyperglycemia",
    category="lab",
    output_type="decimal",
    compute=sodium_correction,
    question="What is the patient's corrected sodium concentration in terms of mEq/L?",
))
register(Calculator(
    id=38,
    name="Free Water Deficit",
    category="lab",
    output_type="decimal",
    compute=free_water_deficit,
    question="What is the patient's free water deficit in terms of liters? You may take the "
    "ideal sodium concentration to be 140 mEq/L.",
))
register(Calculator(
    id=63,
    name="Delta Gap",
    category="lab",
    output_type="decimal",
    compute=delta_gap,
    variants={"clinical": delta_gap_excess},
    question="What is the patient's delta gap in mEq/L?",
))
register(Calculator(
    id=64,
    name="Delta Ratio",
    category="lab",
    output_type="decimal",
    compute=delta_ratio,
    question="What is the patient's delta ratio?",
))
register(Calculator(
    id=65,
    name="Albumin Corrected Anion Gap",
    category="lab",
    output_type="decimal",
    compute=albumin_corrected_anion_gap,
    question="What is the patient's albumin corrected anion gap in mEq/L?",
))
register(Calculator(
    id=66,
    name="Albumin Corrected Delta Gap",
    category="lab",
    output_type="decimal",
    compute=albumin_corrected_delta_gap,
    question="What is the patient's albumin corrected delta gap in mEq/L?",
))
register(Calculator(
    id=67,
    name="Albumin Corrected Delta Ratio",
    category="lab",
    output_type="decimal",
    compute=albumin_corrected_delta_ratio,
    question="What is the patient's albumin corrected delta ratio?",
))
