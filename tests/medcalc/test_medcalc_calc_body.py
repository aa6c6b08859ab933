"""Body-family MedCalc-Bench calculators: QTc (56–59), BSA (60), target weight (61), adjusted
body weight (62), steroid conversion (24), MME (49), Framingham hard CHD (46), FIB-4 (19),
MELD Na (23) and Child-Pugh (15): hand-worked values, unit conversions, properties, samplers."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from clineval.benchmarks.medcalc.calculators import CALCULATORS, MissingEntity, compute_row
from clineval.benchmarks.medcalc.demo.body import SAMPLERS

BODY_IDS = (15, 19, 23, 24, 46, 49, 56, 57, 58, 59, 60, 61, 62)


def value(calculator_id: int, entities: dict) -> float:
    result = compute_row(calculator_id, entities).value
    assert isinstance(result, int | float)
    return float(result)


def ecg(rate: float, qt: float, unit: str = "msec") -> dict:
    return {"Heart Rate or Pulse": [rate, "beats per minute"], "QT interval": [qt, unit]}


# --- QTc ------------------------------------------------------------------------------------

# HR 80 -> RR 0.75 s, QT 400 msec, worked by hand:
# Fridericia 400 / 0.75^(1/3) = 400 / 0.90856 = 440.257; Framingham 400 + 154 × 0.25 = 438.5;
# Hodges 400 + 1.75 × 20 = 435; Rautaharju 400 × 200 / 180 = 444.444.
@pytest.mark.parametrize(("calculator_id", "expected"), [
    (56, 440.257), (57, 438.5), (58, 435.0), (59, 444.444),
])
def test_qtc_worked_values(calculator_id, expected):
    assert value(calculator_id, ecg(80, 400)) == pytest.approx(expected, abs=1e-3)
    assert value(calculator_id, ecg(80, 0.4, "s")) == pytest.approx(expected, abs=1e-3)


@pytest.mark.parametrize("calculator_id", [56, 57, 58, 59])
def test_qtc_equals_qt_at_60_bpm(calculator_id):
    assert value(calculator_id, ecg(60, 412)) == pytest.approx(412)


@pytest.mark.parametrize("calculator_id", [56, 57, 58, 59])
@given(rate=st.integers(30, 200), qt=st.integers(200, 600))
def test_qtc_rises_with_heart_rate_and_qt(calculator_id, rate, qt):
    base = value(calculator_id, ecg(rate, qt))
    assert value(calculator_id, ecg(rate + 5, qt)) > base
    assert value(calculator_id, ecg(rate, qt + 10)) > base


@pytest.mark.parametrize("calculator_id", [56, 57, 58, 59])
def test_qtc_needs_both_values_and_a_known_unit(calculator_id):
    with pytest.raises(MissingEntity):
        compute_row(calculator_id, {"QT interval": [400, "msec"]})
    with pytest.raises(ValueError, match="QT interval"):
        compute_row(calculator_id, ecg(70, 400, "beats"))


# --- anthropometry --------------------------------------------------------------------------


@pytest.mark.parametrize(("entities", "expected"), [
    ({"weight": [80, "kg"], "height": [180, "cm"]}, 2.0),  # √(180 × 80 / 3600) = √4
    ({"weight": [80000, "g"], "height": [1.8, "m"]}, 2.0),
    ({"weight": [176.37, "lbs"], "height": [70.866, "in"]}, 2.0),
    ({"weight": [77.1, "kg"], "height": [176.1, "cm"]}, 1.94199),  # √(13577.31 / 3600)
])
def test_body_surface_area(entities, expected):
    assert value(60, entities) == pytest.approx(expected, abs=1e-3)


@given(kg=st.floats(3, 250), cm=st.floats(50, 220))
def test_body_surface_area_grows_with_weight_and_height(kg, cm):
    base = value(60, {"weight": [kg, "kg"], "height": [cm, "cm"]})
    assert value(60, {"weight": [kg + 1, "kg"], "height": [cm, "cm"]}) > base
    assert value(60, {"weight": [kg, "kg"], "height": [cm + 1, "cm"]}) > base


@pytest.mark.parametrize(("entities", "expected"), [
    ({"Body Mass Index (BMI)": [25, "kg/m^2"], "height": [2, "m"]}, 100.0),
    ({"Body Mass Index (BMI)": [25, "kg/m^2"], "height": [200, "cm"]}, 100.0),
    ({"Body Mass Index (BMI)": [19.2, "kg/m^2"], "height": [196, "cm"]}, 73.75872),  # × 1.96²
    ({"Body Mass Index (BMI)": [22, "kg/m²"], "height": [70, "in"]}, 22 * 1.778**2),
])
def test_target_weight(entities, expected):
    assert value(61, entities) == pytest.approx(expected)


@given(bmi=st.floats(12, 60), cm=st.floats(50, 220))
def test_target_weight_inverts_bmi(bmi, cm):
    weight = value(61, {"Body Mass Index (BMI)": [bmi, "kg/m^2"], "height": [cm, "cm"]})
    assert value(6, {"weight": [weight, "kg"], "height": [cm, "cm"]}) == pytest.approx(bmi)


@pytest.mark.parametrize(("entities", "expected"), [
    # IBW 45.5 + 2.3 × (66.142 − 60) = 59.627; ABW 59.627 + 0.4 × (80 − 59.627) = 67.776
    ({"sex": "Female", "weight": [80, "kg"], "height": [168, "cm"]}, 67.776),
    # IBW 50 + 2.3 × 12 = 77.6; ABW 77.6 + 0.4 × 22.4 = 86.56
    ({"sex": "Male", "weight": [100, "kg"], "height": [72, "in"]}, 86.56),
    ({"sex": "Male", "weight": [220.462, "lbs"], "height": [6, "ft"]}, 86.56),
])
def test_adjusted_body_weight(entities, expected):
    assert value(62, entities) == pytest.approx(expected, abs=1e-3)


def test_adjusted_body_weight_needs_sex_and_weight():
    with pytest.raises(MissingEntity):
        compute_row(62, {"weight": [80, "kg"], "height": [168, "cm"]})
    with pytest.raises(MissingEntity):
        compute_row(62, {"sex": "Male", "height": [168, "cm"]})


# --- drugs ----------------------------------------------------------------------------------


def steroid(name: str, dose: float, target: str, unit: str = "mg") -> dict:
    return {"input steroid": [name, dose, unit], "target steroid": target}


@pytest.mark.parametrize(("entities", "expected"), [
    (steroid("PredniSONE PO", 50, "Dexamethasone PO"), 7.5),  # 50 × 0.75 / 5
    (steroid("Hydrocortisone IV", 20, "PredniSONE PO"), 5.0),
    (steroid("MethylPrednisoLONE IV", 40, "PredniSONE PO"), 50.0),
    (steroid("Dexamethasone IV", 4, "Dexamethasone PO"), 4.0),
    (steroid("Cortisone PO", 25, "Betamethasone IV"), 0.75),
    (steroid("Dexamethasone PO", 7.96, "PrednisoLONE PO"), 7.96 * 5 / 0.75),
    (steroid("Dexamethasone PO", 750, "PrednisoLONE PO", "µg"), 5.0),
    (steroid("hydrocortisone po", 100, "TRIAMCINOLONE IV"), 20.0),
])
def test_steroid_conversion(entities, expected):
    assert value(24, entities) == pytest.approx(expected)


def test_steroid_conversion_rejects_unknown_drugs_and_needs_both():
    with pytest.raises(ValueError, match="Fludrocortisone"):
        compute_row(24, steroid("Fludrocortisone PO", 1, "PredniSONE PO"))
    with pytest.raises(MissingEntity):
        compute_row(24, {"input steroid": ["PredniSONE PO", 10, "mg"]})


@given(dose=st.floats(0.1, 1000))
def test_steroid_round_trip(dose):
    there = value(24, steroid("PredniSONE PO", dose, "Dexamethasone IV"))
    assert value(24, steroid("Dexamethasone IV", there, "PredniSONE PO")) == pytest.approx(dose)


def opioid(drug: str, dose: float, per_day: int, unit: str = "mg") -> dict:
    return {f"{drug} Dose": [dose, unit], f"{drug} Dose Per Day": [per_day, "per day"]}


# CDC 2022 (Dowell et al.): 40 mg oxycodone/day = 60 MME; a 25 µg/h fentanyl patch = 60 MME.
@pytest.mark.parametrize(("entities", "expected"), [
    (opioid("OxyCODONE", 10, 4), 60.0),
    (opioid("FentANYL patch", 25, 1, "µg/hr"), 60.0),
    (opioid("FentANYL patch", 25, 1, "mcg/h"), 60.0),
    (opioid("FentANYL patch", 25, 1), 60.0),  # the dataset writes patch strengths as 'mg'
    (opioid("Methadone", 10, 2), 94.0),
    (opioid("TraMADol", 50, 4), 40.0),
    (opioid("FentaNYL buccal", 200, 2, "µg"), 52.0),
    (opioid("FentaNYL buccal", 0.2, 2), 52.0),  # 0.2 mg = 200 µg
    (opioid("HYDROmorphone", 4, 3), 60.0),
    ({**opioid("Tapentadol", 50, 1), **opioid("TraMADol", 50, 1),
      **opioid("FentaNYL buccal", 20, 2, "µg")}, 35.2),  # 20 + 10 + 5.2
    ({}, 0.0),
])
def test_morphine_milligram_equivalents(entities, expected):
    assert value(49, entities) == pytest.approx(expected)


def test_mme_needs_doses_per_day_and_a_patch_rate():
    with pytest.raises(MissingEntity):
        compute_row(49, {"Morphine Dose": [10, "mg"]})
    with pytest.raises(ValueError, match="FentANYL patch"):
        compute_row(49, opioid("FentANYL patch", 25, 1, "g"))


@given(dose=st.integers(1, 200), per_day=st.integers(1, 6))
def test_mme_adds_up(dose, per_day):
    single = value(49, opioid("Morphine", dose, per_day))
    both = value(49, {**opioid("Morphine", dose, per_day), **opioid("Codeine", dose, per_day)})
    assert single == pytest.approx(dose * per_day)
    assert both == pytest.approx(single * 1.15)


# --- Framingham -----------------------------------------------------------------------------


def framingham(**overrides) -> dict:
    entities = {"sex": "Male", "age": [54, "years"], "Systolic Blood Pressure": [139.0, "mm hg"],
                "Smoker": True, "Total cholesterol": [235.0, "mg/dL"],
                "high-density lipoprotein cholesterol": [26.0, "mg/dL"],
                "Blood pressure being treated with medicines": False}
    entities.update(overrides)
    return {k: v for k, v in entities.items() if v is not None}


def test_framingham_worked_values():
    # Men: L = 207.466 + 109.269 − 2.952 + 6.443 + 0 + 12.096 − 100.289 − 11.343 − 46.674
    # − 172.300 = 1.7155; risk = 1 − 0.9402^e^1.7155 = 29.02 %. (ATP III points: 15 -> 20 %.)
    assert value(46, framingham()) == pytest.approx(29.023, abs=1e-3)
    # Women: L = 116.369 + 131.561 − 5.594 + 12.222 − 108.582 − 146.593 = −0.616;
    # risk = 1 − 0.98767^e^−0.616 = 0.668 %. (ATP III points: 10 -> 1 %.)
    woman = framingham(sex="Female", age=[39, "years"], Smoker=False,
                       **{"Systolic Blood Pressure": [120.0, "mm Hg"],
                          "Total cholesterol": [349.4, "mg/dL"],
                          "high-density lipoprotein cholesterol": [111.0, "mg/dL"]})
    assert value(46, woman) == pytest.approx(0.668, abs=1e-3)


def test_framingham_accepts_mmol_per_litre():
    mmol = framingham(**{"Total cholesterol": [235 / 38.665, "mmol/L"],
                         "high-density lipoprotein cholesterol": [26 / 38.665, "mmol/L"]})
    assert value(46, mmol) == pytest.approx(value(46, framingham()))


def test_framingham_missing_flags_count_as_no():
    absent = framingham(Smoker=False, **{"Blood pressure being treated with medicines": False})
    missing = framingham(Smoker=None, **{"Blood pressure being treated with medicines": None})
    assert value(46, missing) == value(46, absent)
    with pytest.raises(MissingEntity):
        compute_row(46, framingham(**{"Total cholesterol": None}))


def test_framingham_caps_the_age_in_the_smoking_term():
    # past 70 (men) the smoking interaction uses ln(70): smoking still raises the risk
    old = framingham(age=[79, "years"])
    assert value(46, old) > value(46, {**old, "Smoker": False})


@given(sex=st.sampled_from(["Male", "Female"]), age=st.integers(30, 79),
       sbp=st.integers(90, 200), tc=st.integers(120, 350), hdl=st.integers(20, 100),
       smoker=st.booleans(), treated=st.booleans())
def test_framingham_bounds_and_risk_factors(sex, age, sbp, tc, hdl, smoker, treated):
    entities = framingham(sex=sex, age=[age, "years"], Smoker=smoker, **{
        "Systolic Blood Pressure": [sbp, "mm Hg"], "Total cholesterol": [tc, "mg/dL"],
        "high-density lipoprotein cholesterol": [hdl, "mg/dL"],
        "Blood pressure being treated with medicines": treated})
    risk = value(46, entities)
    assert 0 <= risk <= 100
    assert value(46, {**entities, "Smoker": True}) >= risk
    assert value(46, {**entities, "Blood pressure being treated with medicines": True}) >= risk
    assert value(46, {**entities, "Systolic Blood Pressure": [sbp + 10, "mm Hg"]}) >= risk
    hdl_up = {**entities, "high-density lipoprotein cholesterol": [hdl + 10, "mg/dL"]}
    assert value(46, hdl_up) <= risk


# --- liver ----------------------------------------------------------------------------------


def fib4(platelets: list, age: float = 50, ast: float = 40, alt: float = 25) -> dict:
    return {"age": [age, "years"], "Aspartate aminotransferase": [ast, "U/L"],
            "Alanine aminotransferase": [alt, "U/L"], "Platelet count": platelets}


@pytest.mark.parametrize("platelets", [
    [200000, "µL"], [200000, "mm^3"], [200, "10^9/L"], [2e11, "L"], [200, "K/µL"],
])
def test_fib4_units(platelets):
    # 50 × 40 / (200 × √25) = 2000 / 1000 = 2
    assert value(19, fib4(platelets)) == pytest.approx(2.0)


def test_fib4_dataset_rows():
    # (47 × 213) / (149 × √309) = 3.822 and (64 × 92) / (147 × √33) = 6.973 (rows 280, 298)
    assert value(19, fib4([149000.0, "µL"], 47, 213, 309)) == pytest.approx(3.822, abs=1e-3)
    assert value(19, fib4([147e9, "L"], 64, 92, 33)) == pytest.approx(6.973, abs=1e-3)


@given(count=st.integers(20, 600), ast=st.integers(5, 500), alt=st.integers(5, 500))
def test_fib4_falls_with_platelets_and_rises_with_ast(count, ast, alt):
    base = value(19, fib4([count, "10^9/L"], 50, ast, alt))
    assert value(19, fib4([count + 10, "10^9/L"], 50, ast, alt)) < base
    assert value(19, fib4([count, "10^9/L"], 50, ast + 10, alt)) > base


def test_fib4_rejects_an_unknown_platelet_unit():
    with pytest.raises(ValueError, match="Platelet count"):
        compute_row(19, fib4([200, "g"]))


_CVVHD = "Continuous veno-venous hemodialysis for ≥24 hours in the past week"
_DIALYSIS = "Dialysis at least twice in the past week"


def meld(cr: float, bili: float, inr: float, na: float, dialysis: bool | None = False,
         cvvhd: bool | None = False) -> dict:
    entities: dict = {"creatinine": [cr, "mg/dL"], "Bilirubin": [bili, "mg/dL"],
                      "international normalized ratio": inr, "Sodium": [na, "mEq/L"]}
    if dialysis is not None:
        entities[_DIALYSIS] = dialysis
    if cvvhd is not None:
        entities[_CVVHD] = cvvhd
    return entities


@pytest.mark.parametrize(("entities", "expected"), [
    (meld(1.0, 1.0, 1.0, 140), 6),  # 0.643 -> 0.6 -> 6, no sodium term (≤ 11)
    (meld(0.5, 0.3, 0.9, 150), 6),  # every value bounded to its floor
    (meld(2.0, 0.7, 1.59, 142), 18),  # 1.826 -> 1.8 -> 18; Na bounded to 137 (row 340)
    # 0.6633 + 0.4153 + 0.4541 + 0.643 = 2.176 -> 22; 22 + 1.32 × 7 − 0.033 × 22 × 7 = 26.16
    (meld(2.0, 3.0, 1.5, 130), 26),
    (meld(4.0, 40, 6.0, 120), 40),  # 54 + 15.84 − 21.384 = 48.5, capped at 40
])
def test_meld_na(entities, expected):
    assert value(23, entities) == expected


def test_meld_na_dialysis_sets_creatinine_to_four():
    assert value(23, meld(1.0, 2.0, 1.5, 132, dialysis=True)) == value(23, meld(4, 2, 1.5, 132))
    assert value(23, meld(1.0, 2.0, 1.5, 132, cvvhd=True)) == value(23, meld(4, 2, 1.5, 132))
    assert value(23, meld(1, 2, 1.5, 132, None, None)) == value(23, meld(1, 2, 1.5, 132))


def test_meld_na_units_and_missing_values():
    micromolar = {**meld(2.0, 3.0, 1.5, 130), "creatinine": [176.8, "µmol/L"],
                  "Bilirubin": [51.3, "µmol/L"]}
    assert value(23, micromolar) == 26
    with pytest.raises(MissingEntity):
        compute_row(23, {k: v for k, v in meld(2, 3, 1.5, 130).items() if k != "Sodium"})


@given(cr=st.floats(0.3, 12), bili=st.floats(0.1, 50), inr=st.floats(0.8, 8),
       na=st.floats(110, 160))
def test_meld_na_bounds_and_monotonic_in_creatinine(cr, bili, inr, na):
    score = value(23, meld(cr, bili, inr, na))
    assert 6 <= score <= 40 and score.is_integer()
    assert value(23, meld(cr * 1.5, bili, inr, na)) >= score


def child_pugh(bili: float = 1.0, albumin: float = 4.0, inr: float = 1.0,
               ascites: str | None = "absent", encephalopathy: str | None = "No Encephalopathy",
               bili_unit: str = "mg/dL") -> dict:
    entities: dict = {"Bilirubin": [bili, bili_unit], "Albumin": [albumin, "g/dL"],
                      "international normalized ratio": inr}
    if ascites is not None:
        entities["Ascites"] = ascites
    if encephalopathy is not None:
        entities["Encephalopathy"] = encephalopathy
    return entities


@pytest.mark.parametrize(("entities", "expected"), [
    (child_pugh(), 5),
    (child_pugh(8, 2.0, 3.0, "moderate", "Grade 3-4"), 15),
    (child_pugh(2.5, 3.0, 1.5, "slight", "No Encephalopathy"), 8),  # 2 + 2 + 1 + 2 + 1
    (child_pugh(3.0, 3.5, 2.3), 8),  # upper edges of the middle bands score 2, + 1 + 1
    (child_pugh(2.0, 2.8, 1.7), 8),  # lower edges of the middle bands score 2, + 1 + 1
    (child_pugh(3.01, 2.79, 2.31), 11),
    (child_pugh(encephalopathy="Grade 0"), 5),
    (child_pugh(51.3, bili_unit="µmol/L"), 6),  # 51.3 µmol/L = 2.999 mg/dL: 2 points
    (child_pugh(60, bili_unit="µmol/L"), 7),  # 3.508 mg/dL: 3 points
    (child_pugh(ascites=None, encephalopathy=None), 5),  # unmentioned counts as absent
])
def test_child_pugh(entities, expected):
    assert value(15, entities) == expected


def test_child_pugh_rejects_unknown_grades_and_needs_labs():
    with pytest.raises(ValueError, match="Ascites"):
        compute_row(15, child_pugh(ascites="massive"))
    with pytest.raises(MissingEntity):
        compute_row(15, {k: v for k, v in child_pugh().items() if k != "Albumin"})


_ASCITES = ["absent", "slight", "moderate"]
_ENCEPHALOPATHY = ["No Encephalopathy", "Grade 1-2", "Grade 3-4"]


@given(bili=st.floats(0.2, 20), albumin=st.floats(1.5, 5.5), inr=st.floats(0.8, 5),
       ascites=st.integers(0, 2), encephalopathy=st.integers(0, 2))
def test_child_pugh_bounds_and_worse_findings(bili, albumin, inr, ascites, encephalopathy):
    args = (bili, albumin, inr, _ASCITES[ascites], _ENCEPHALOPATHY[encephalopathy])
    score = value(15, child_pugh(*args))
    assert 5 <= score <= 15
    worse_ascites = _ASCITES[min(ascites + 1, 2)]
    assert value(15, child_pugh(bili, albumin, inr, worse_ascites, args[4])) >= score
    assert value(15, child_pugh(bili * 1.5, albumin, inr, *args[3:])) >= score
    assert value(15, child_pugh(bili, albumin * 0.8, inr, *args[3:])) >= score


# --- registry and samplers ------------------------------------------------------------------


def test_registered_with_the_dataset_names():
    names = {
        15: "Child-Pugh Score for Cirrhosis Mortality",
        19: "Fibrosis-4 (FIB-4) Index for Liver Fibrosis",
        23: "MELD Na (UNOS/OPTN)",
        24: "Steroid Conversion Calculator",
        46: "Framingham Risk Score for Hard Coronary Heart Disease",
        49: "Morphine Milligram Equivalents (MME) Calculator",
        56: "QTc Fridericia Calculator", 57: "QTc Framingham Calculator",
        58: "QTc Hodges Calculator", 59: "QTc Rautaharju Calculator",
        60: "Body Surface Area Calculator", 61: "Target weight", 62: "Adjusted Body Weight",
    }
    assert {i: CALCULATORS[i].name for i in BODY_IDS} == names
    assert CALCULATORS[15].output_type == "integer"
    assert all(CALCULATORS[i].output_type == "decimal" for i in BODY_IDS if i != 15)


def test_samplers_cover_the_family_and_are_computable():
    assert sorted(SAMPLERS) == sorted(BODY_IDS)
    for calculator_id, sampler in SAMPLERS.items():
        for seed in range(40):
            case = sampler(random.Random(f"body/{calculator_id}/{seed}"))
            result = compute_row(calculator_id, case.entities)
            assert result.answer and result.explanation
            assert 1 <= len(case.distractors) <= 3
            assert sampler(random.Random(f"body/{calculator_id}/{seed}")) == case
