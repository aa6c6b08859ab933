"""MedCalc-Bench calculators: published/hand-computed values, unit conversion, monotonicity,
answer formats, and agreement with the v1.0 test set (when CLINEVAL_DATA_DIR is set)."""

from __future__ import annotations

import math
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from clineval.benchmarks.medcalc.calculators import (
    CALCULATORS,
    MissingEntity,
    UnknownCalculator,
    compute_row,
    get,
)
from clineval.benchmarks.medcalc.calculators import units as u


def answer(calculator_id: int, entities: dict) -> str:
    return compute_row(calculator_id, entities).answer


def value(calculator_id: int, entities: dict) -> float:
    result = compute_row(calculator_id, entities).value
    assert isinstance(result, int | float)
    return float(result)


# --- known values ----------------------------------------------------------------------


@pytest.mark.parametrize(("entities", "expected"), [
    ({"weight": [70, "kg"], "height": [1.75, "m"]}, "22.857"),
    ({"weight": [70000, "g"], "height": [175, "cm"]}, "22.857"),
    ({"weight": [154, "lbs"], "height": [69, "in"]}, "22.742"),  # 69.853 kg, 1.7526 m
    ({"weight": [10.2, "kg"], "height": [83.8, "cm"]}, "14.525"),
])
def test_bmi(entities, expected):
    assert answer(6, entities) == expected


@pytest.mark.parametrize(("systolic", "diastolic", "expected"), [
    (120, 80, "93.333"), (90, 60, "70"), (140, 80, "100"),
])
def test_mean_arterial_pressure(systolic, diastolic, expected):
    entities = {"Systolic Blood Pressure": [systolic, "mm hg"],
                "Diastolic Blood Pressure": [diastolic, "mmHg"]}
    assert answer(5, entities) == expected


def test_anion_gap_ignores_potassium_and_mixes_mmol_and_meq():
    entities = {"Sodium": [140, "mEq/L"], "Chloride": [104, "mmol/L"],
                "Bicarbonate": [24, "mEq/L"], "Potassium": [4.5, "mEq/L"]}
    assert answer(39, entities) == "12"


@pytest.mark.parametrize(("entities", "expected"), [
    ({"Sodium": [140, "mEq/L"], "Blood Urea Nitrogen (BUN)": [14, "mg/dL"],
      "Glucose": [90, "mg/dL"]}, 290.0),
    # 5 mmol/L glucose = 90.08 mg/dL; 5 mmol/L BUN = 14.007 mg/dL
    ({"Sodium": [140, "mmol/L"], "Blood Urea Nitrogen (BUN)": [5, "mmol/L"],
      "Glucose": [5, "mmol/L"]}, 280 + 14.007 / 2.8 + 90.08 / 18),
])
def test_serum_osmolality(entities, expected):
    assert value(30, entities) == pytest.approx(expected)


@pytest.mark.parametrize(("entities", "expected"), [
    ({"Calcium": [8.0, "mg/dL"], "Albumin": [2.0, "g/dL"]}, "9.6"),
    ({"Calcium": [8.0, "mg/dL"], "Albumin": [20, "g/L"]}, "9.6"),
    ({"Calcium": [10.6, "mg/dL"], "Albumin": [4.0, "g/dL"]}, "10.6"),
    ({"Calcium": [11.1, "mg/dL"], "Albumin": [4.2, "g/dL"]}, "10.94"),  # above normal: lowers
    ({"Calcium": [2.0, "mmol/L"], "Albumin": [3.0, "g/dL"]}, "8.816"),  # 2 mmol/L = 8.0156
])
def test_corrected_calcium(entities, expected):
    assert answer(7, entities) == expected


@pytest.mark.parametrize(("sex", "height", "expected"), [
    ("Male", [70, "in"], "73"),  # 50 + 2.3 * 10
    ("Female", [64, "in"], "54.7"),  # 45.5 + 2.3 * 4
    ("Male", [5, "ft"], "50"),
    ("Female", [152.4, "cm"], "45.5"),
    ("Male", [1.85, "m"], "79.52"),
])
def test_ideal_body_weight_devine(sex, height, expected):
    assert answer(10, {"sex": sex, "height": height}) == expected


@pytest.mark.parametrize(("rate", "qt", "expected"), [
    (60, [400, "msec"], 400.0),
    (100, [360, "ms"], 360 / math.sqrt(0.6)),
    (131, [0.33, "s"], 330 / math.sqrt(60 / 131)),
])
def test_qtc_bazett(rate, qt, expected):
    entities = {"Heart Rate or Pulse": [rate, "beats per minute"], "QT interval": qt}
    assert value(11, entities) == pytest.approx(expected)


def test_cha2ds2_vasc_points():
    everything = {"sex": "Female", "age": [80, "years"], "Congestive Heart Faliure": True,
                  "Hypertension history": True, "Stroke": True,
                  "Transient Ischemic Attacks History": True, "Thromboembolism history": True,
                  "Vascular disease history": True, "Diabetes history": True}
    assert answer(4, everything) == "9"  # stroke/TIA/TE count 2 once
    assert answer(4, {"sex": "Male", "age": [30, "years"]}) == "0"  # unmentioned: absent
    assert answer(4, {"sex": "Male", "age": [70, "years"], "Hypertension history": True}) == "2"
    assert answer(4, {"sex": "Female", "age": [75, "years"]}) == "3"
    assert answer(4, {"sex": "Male", "age": [64, "years"], "Congestive Heart Failure": True}) == "1"


@pytest.mark.parametrize(("eye", "verbal", "motor", "expected"), [
    ("eyes open spontaneously", "oriented", "obeys commands", 15),
    ("no eye opening", "no verbal response", "no motor response", 3),
    ("eye opening to pain", "inappropriate words", "withdrawal from pain", 2 + 3 + 4),
    ("eye opening to verbal command", "confused", "localizes pain", 3 + 4 + 5),
    ("eye opening to pain", "incomprehensible sounds", "flexion to pain", 2 + 2 + 3),
    ("no eye opening", "no verbal response", "extension to pain", 1 + 1 + 2),
    ("not testable", "confused", "obeys commands", 4 + 4 + 6),  # NT: best response
])
def test_glasgow_coma_score_sums_components(eye, verbal, motor, expected):
    entities = {"Best eye response": eye, "Best verbal response": verbal,
                "Best motor response": motor}
    result = compute_row(21, entities)
    assert result.value == expected
    assert 3 <= result.value <= 15


def test_glasgow_coma_score_rejects_unknown_response():
    with pytest.raises(ValueError, match="Best motor response"):
        compute_row(21, {"Best eye response": "no eye opening",
                         "Best verbal response": "oriented", "Best motor response": "dancing"})


def _curb(**changes):
    entities = {"age": [50, "years"], "Systolic Blood Pressure": [120, "mm hg"],
                "Diastolic Blood Pressure": [80, "mm hg"],
                "Blood Urea Nitrogen (BUN)": [15, "mg/dL"],
                "respiratory rate": [18, "breaths per minute"]}
    entities.update(changes)
    return answer(45, entities)


def test_curb65_criteria():
    assert _curb() == "0"
    assert _curb(Confusion=False) == "0"
    assert _curb(Confusion=True) == "1"
    assert _curb(**{"Blood Urea Nitrogen (BUN)": [20, "mg/dL"]}) == "1"
    assert _curb(**{"Blood Urea Nitrogen (BUN)": [7.5, "mmol/L"]}) == "1"  # 21.0 mg/dL
    assert _curb(**{"Blood Urea Nitrogen (BUN)": [19, "mg/dL"]}) == "0"
    assert _curb(**{"respiratory rate": [30, "breaths per minute"]}) == "1"
    assert _curb(**{"Diastolic Blood Pressure": [60, "mm hg"]}) == "1"
    assert _curb(**{"Systolic Blood Pressure": [89, "mm hg"]}) == "1"
    assert _curb(age=[65, "years"]) == "1"
    assert _curb(Confusion=True, age=[80, "years"], **{
        "Blood Urea Nitrogen (BUN)": [30, "mg/dL"], "respiratory rate": [32, "breaths per minute"],
        "Systolic Blood Pressure": [85, "mm hg"]}) == "5"


def _sirs(**changes):
    entities = {"Temperature": [37.0, "degrees celsius"],
                "Heart Rate or Pulse": [80, "beats per minute"],
                "respiratory rate": [16, "breaths per minute"],
                "White blood cell count": [8000, "µL"]}
    entities.update(changes)
    return answer(51, entities)


def test_sirs_criteria():
    assert _sirs() == "0"
    assert _sirs(Temperature=[38.5, "degrees celsius"]) == "1"
    assert _sirs(Temperature=[35.5, "°C"]) == "1"
    assert _sirs(Temperature=[100.4, "degrees fahrenheit"]) == "0"  # exactly 38 °C: not > 38
    assert _sirs(Temperature=[101.0, "degrees fahreinheit"]) == "1"
    assert _sirs(**{"Heart Rate or Pulse": [91, "bpm"]}) == "1"
    assert _sirs(**{"respiratory rate": [21, "breaths per minute"]}) == "1"
    assert _sirs(**{"PaCO₂": [30, "mm hg"]}) == "1"
    assert _sirs(**{"White blood cell count": [12000, "µL"]}) == "0"
    assert _sirs(**{"White blood cell count": [12.5, "10^9/L"]}) == "1"
    assert _sirs(**{"White blood cell count": [3900, "m^3"]}) == "1"
    assert _sirs(Temperature=[39, "°C"], **{
        "Heart Rate or Pulse": [120, "bpm"], "respiratory rate": [28, "breaths per minute"],
        "White blood cell count": [2000, "mm^3"]}) == "4"


@pytest.mark.parametrize(("cycle", "expected"), [
    (28, "10/07/2020"), (30, "10/09/2020"), (25, "10/04/2020"),
])
def test_due_date_naegele_with_cycle_adjustment(cycle, expected):
    entities = {"Last menstrual date": "01/01/2020", "cycle length": cycle}
    assert answer(13, entities) == expected


def test_conception_two_weeks_after_lmp():
    assert answer(68, {"Last menstrual date": "12/25/2019", "cycle length": 30}) == "01/08/2020"


@pytest.mark.parametrize(("lmp", "today", "expected"), [
    ("03/23/2020", "03/29/2020", "('0 weeks', '6 days')"),
    ("01/01/2020", "01/08/2020", "('1 weeks', '0 days')"),
    ("02/14/2024", "05/23/2024", "('14 weeks', '1 days')"),  # across 29 February
])
def test_gestational_age(lmp, today, expected):
    result = compute_row(69, {"Last menstrual date": lmp, "Current Date": today})
    assert result.answer == expected
    assert result.answer == str(tuple(f"{n} {w}" for n, w in zip(result.value, ("weeks", "days"),
                                                               strict=True)))


def test_gestational_age_rejects_date_before_lmp():
    with pytest.raises(ValueError, match="precedes"):
        compute_row(69, {"Last menstrual date": "03/23/2020", "Current Date": "03/01/2020"})


# --- registry, entities, formats -------------------------------------------------------

IMPLEMENTED = (4, 5, 6, 7, 10, 11, 13, 21, 30, 39, 45, 51, 68, 69)


def test_registry():
    assert set(IMPLEMENTED) <= set(CALCULATORS)
    assert {c.output_type for c in CALCULATORS.values()} == {
        "decimal", "integer", "date", "weeks_days"}
    assert get(6).name == "Body Mass Index (BMI)"
    assert get(999) is None
    with pytest.raises(UnknownCalculator):
        compute_row(999, {})
    assert issubclass(UnknownCalculator, KeyError)
    assert all(c.question.strip() and c.id == i for i, c in CALCULATORS.items())


def test_missing_numeric_entity_is_named():
    with pytest.raises(MissingEntity, match="'height'") as caught:
        compute_row(6, {"weight": [70, "kg"]})
    assert isinstance(caught.value, KeyError)
    assert caught.value.entity == "height"


def test_unknown_unit_names_entity_and_unit():
    with pytest.raises(ValueError, match=r"'stone'.*'weight'"):
        compute_row(6, {"weight": [11, "stone"], "height": [1.75, "m"]})


EXAMPLES = {
    4: {"sex": "Female", "age": [70, "years"]},
    5: {"Systolic Blood Pressure": [121, "mm hg"], "Diastolic Blood Pressure": [79, "mm hg"]},
    6: {"weight": [71.3, "kg"], "height": [169, "cm"]},
    7: {"Calcium": [8.3, "mg/dL"], "Albumin": [2.9, "g/dL"]},
    10: {"sex": "Female", "height": [163, "cm"]},
    11: {"Heart Rate or Pulse": [77, "bpm"], "QT interval": [391, "msec"]},
    13: {"Last menstrual date": "02/29/2016", "cycle length": 26},
    21: {"Best eye response": "eye opening to pain", "Best verbal response": "confused",
         "Best motor response": "localizes pain"},
    30: {"Sodium": [137, "mEq/L"], "Blood Urea Nitrogen (BUN)": [23, "mg/dL"],
         "Glucose": [7.1, "mmol/L"]},
    39: {"Sodium": [137.5, "mEq/L"], "Chloride": [99, "mEq/L"], "Bicarbonate": [21.3, "mEq/L"]},
    45: {"age": [71, "years"], "Systolic Blood Pressure": [101, "mm hg"],
         "Diastolic Blood Pressure": [58, "mm hg"], "Blood Urea Nitrogen (BUN)": [8, "mmol/L"],
         "respiratory rate": [24, "breaths per minute"], "Confusion": True},
    51: {"Temperature": [38.4, "degrees celsius"], "Heart Rate or Pulse": [104, "bpm"],
         "respiratory rate": [19, "breaths per minute"], "White blood cell count": [9.1, "10^9/L"]},
    68: {"Last menstrual date": "12/20/2021", "cycle length": 31},
    69: {"Last menstrual date": "05/11/2010", "Current Date": "01/04/2011"},
}
FORMATS = {
    "decimal": r"-?\d+(\.\d{1,3})?",
    "integer": r"-?\d+",
    "date": r"(0[1-9]|1[0-2])/(0[1-9]|[12]\d|3[01])/\d{4}",
    "weeks_days": r"\('\d+ weeks', '[0-6] days'\)",
}


@pytest.mark.parametrize("calculator_id", IMPLEMENTED)
def test_answer_format_and_explanation(calculator_id):
    calculator = CALCULATORS[calculator_id]
    result = compute_row(calculator_id, EXAMPLES[calculator_id])
    assert re.fullmatch(FORMATS[calculator.output_type], result.answer), result.answer
    if calculator.output_type == "decimal":
        assert float(result.answer) == round(result.value, 3)
        assert not result.answer.endswith(".0")
    elif calculator.output_type == "integer":
        assert result.answer == str(result.value)
    elif calculator.output_type == "date":
        assert result.answer == result.value
    assert len(result.explanation.splitlines()) >= 3
    if calculator.output_type == "weeks_days":
        weeks, days = result.value
        assert f"{weeks} weeks and {days} days" in result.explanation
    else:
        assert result.answer in result.explanation


# --- units -----------------------------------------------------------------------------

LINEAR = (
    (u.MASS, ("kg", "g", "lb", "oz")),
    (u.LENGTH, ("m", "cm", "mm", "in", "ft")),
    (u.AGE, ("years", "months", "weeks", "days")),
    (u.CREATININE, ("mg/dL", "µmol/L")),
    (u.GLUCOSE, ("mg/dL", "mmol/L")),
    (u.BUN, ("mg/dL", "mmol/L")),
    (u.ALBUMIN, ("g/dL", "g/L")),
    (u.CALCIUM, ("mg/dL", "mmol/L")),
    (u.MONOVALENT_ION, ("mmol/L", "mEq/L")),
)
PAIRS = [(q, a, b) for q, names in LINEAR for a in names for b in names]


@given(st.sampled_from(PAIRS), st.floats(min_value=1e-3, max_value=1e6))
def test_linear_units_round_trip(pair, x):
    quantity, a, b = pair
    assert quantity.convert(quantity.convert(x, a, b), b, a) == pytest.approx(x, rel=1e-12)


@given(st.sampled_from(["°C", "°F", "K", "degrees celsius", "degrees fahreinheit"]),
       st.sampled_from(["°C", "°F", "K"]), st.floats(min_value=-50, max_value=200))
def test_temperature_round_trip(a, b, x):
    there = u.TEMPERATURE.convert(x, a, b)
    assert u.TEMPERATURE.convert(there, b, a) == pytest.approx(x, abs=1e-9)


def test_unit_reference_values():
    assert u.MASS.convert(1, "lb", "kg") == pytest.approx(0.45359237)
    assert u.MASS.convert(16, "oz", "lb") == pytest.approx(1)
    assert u.LENGTH.convert(1, "ft", "in") == pytest.approx(12)
    assert u.LENGTH.convert(1, "in", "cm") == pytest.approx(2.54)
    assert u.TEMPERATURE.convert(98.6, "°F", "°C") == pytest.approx(37)
    assert u.TEMPERATURE.convert(0, "°C", "K") == pytest.approx(273.15)
    assert u.CREATININE.convert(1, "mg/dL", "µmol/L") == pytest.approx(88.4, abs=0.05)
    assert u.GLUCOSE.convert(1, "mmol/L", "mg/dL") == pytest.approx(18.016)
    assert u.BUN.convert(1, "mmol/L", "mg/dL") == pytest.approx(2.8014)
    assert u.CALCIUM.convert(2.5, "mmol/L", "mg/dL") == pytest.approx(10.02, abs=0.01)
    assert u.ALBUMIN.convert(35, "g/L", "g/dL") == pytest.approx(3.5)
    assert u.MONOVALENT_ION.convert(140, "mEq/L", "mmol/L") == 140
    assert u.AGE.convert(18, "months", "years") == pytest.approx(1.5)
    assert u.AGE.convert(365.25, "days", "years") == pytest.approx(1)
    assert u.normalize_unit(" μmol/L ") == "µmol/l"


def test_unknown_unit_error():
    with pytest.raises(ValueError, match=r"unknown unit 'furlong' for 'height' \(length\)"):
        u.LENGTH.convert(1, "furlong", "m", entity="height")
    with pytest.raises(ValueError, match=r"'rankine' for 'Temperature'"):
        u.TEMPERATURE.convert(1, "rankine", "°C", entity="Temperature")


# --- monotonicity ----------------------------------------------------------------------

positive = st.floats(min_value=1, max_value=300)
step = st.floats(min_value=0.01, max_value=50)


@given(positive, st.floats(min_value=0.5, max_value=2.5), step)
def test_bmi_increases_with_weight_and_decreases_with_height(kg, m, extra):
    base = value(6, {"weight": [kg, "kg"], "height": [m, "m"]})
    assert value(6, {"weight": [kg + extra, "kg"], "height": [m, "m"]}) > base
    assert value(6, {"weight": [kg, "kg"], "height": [m + extra / 50, "m"]}) < base


@given(positive, positive, step)
def test_map_increases_with_each_pressure(systolic, diastolic, extra):
    def bp(s, d):
        return value(5, {"Systolic Blood Pressure": [s, "mm hg"],
                         "Diastolic Blood Pressure": [d, "mm hg"]})
    assert bp(systolic, diastolic + extra) > bp(systolic, diastolic)
    assert bp(systolic + extra, diastolic) > bp(systolic, diastolic)


@given(positive, positive, positive, step)
def test_anion_gap_falls_with_chloride_and_bicarbonate(na, cl, hco3, extra):
    def gap(c, h):
        return value(39, {"Sodium": [na, "mEq/L"], "Chloride": [c, "mEq/L"],
                          "Bicarbonate": [h, "mmol/L"]})
    assert gap(cl + extra, hco3) < gap(cl, hco3)
    assert gap(cl, hco3 + extra) < gap(cl, hco3)


@given(positive, positive, positive, step)
def test_osmolality_rises_with_each_solute(na, bun, glucose, extra):
    def osm(n, b, g):
        return value(30, {"Sodium": [n, "mmol/L"], "Blood Urea Nitrogen (BUN)": [b, "mg/dL"],
                          "Glucose": [g, "mg/dL"]})
    base = osm(na, bun, glucose)
    assert osm(na + extra, bun, glucose) > base
    assert osm(na, bun + extra, glucose) > base
    assert osm(na, bun, glucose + extra) > base


@given(st.floats(min_value=1, max_value=20), st.floats(min_value=0.5, max_value=6), step)
def test_corrected_calcium_falls_as_albumin_rises(ca, albumin, extra):
    def corrected(a):
        return value(7, {"Calcium": [ca, "mg/dL"], "Albumin": [a, "g/dL"]})
    assert corrected(albumin + extra) < corrected(albumin)


@given(st.sampled_from(["Male", "Female"]), st.floats(min_value=100, max_value=220), step)
def test_ideal_body_weight_rises_with_height(sex, cm, extra):
    def ibw(h):
        return value(10, {"sex": sex, "height": [h, "cm"]})
    assert ibw(cm + extra) > ibw(cm)


@given(st.floats(min_value=30, max_value=200), st.floats(min_value=200, max_value=600), step)
def test_qtc_rises_with_qt_and_heart_rate(rate, qt, extra):
    def qtc(r, q):
        return value(11, {"Heart Rate or Pulse": [r, "bpm"], "QT interval": [q, "msec"]})
    assert qtc(rate, qt + extra) > qtc(rate, qt)
    assert qtc(rate + extra, qt) > qtc(rate, qt)
