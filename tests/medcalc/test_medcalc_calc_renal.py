"""Renal, electrolyte and metabolic calculators (2, 3, 9, 22, 26, 31, 38, 40, 44, 63-67):
hand-computed values from the published formulas, unit conversions, monotonicity and
missing-entity handling."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from clineval.benchmarks.medcalc.calculators import MissingEntity, compute_row
from clineval.benchmarks.medcalc.calculators import units as u


def value(calculator_id: int, entities: dict) -> float:
    result = compute_row(calculator_id, entities).value
    assert isinstance(result, float)
    return result


def _cg(sex="Male", age=40, weight=(70, "kg"), height=(70, "in"), creatinine=(1.0, "mg/dL")):
    return {"sex": sex, "age": [age, "years"], "weight": list(weight), "height": list(height),
            "creatinine": list(creatinine)}


# --- 2 · Cockcroft-Gault ---------------------------------------------------------------


@pytest.mark.parametrize(("entities", "expected"), [
    # underweight (BMI 18.07): actual weight, (140 - 87) * 48 / (72 * 1.4)
    (_cg(age=87, weight=(48, "kg"), height=(163, "cm"), creatinine=(1.4, "mg/dL")), 25.238),
    # normal BMI (22.1): min(IBW 73 kg, 70 kg) = 70; (140 - 40) * 70 / 72
    (_cg(), 100 * 70 / 72),
    # normal BMI, IBW (73 kg) below actual 75 kg: IBW is used
    (_cg(weight=(75, "kg")), 100 * 73 / 72),
    # obese woman: IBW 45.5 + 2.3 * 4 = 54.7; adjusted 54.7 + 0.4 * (90 - 54.7) = 68.82
    (_cg(sex="Female", age=60, weight=(90, "kg"), height=(64, "in")), 80 * 68.82 * 0.85 / 72),
])
def test_cockcroft_gault_uses_mdcalc_weight_by_bmi(entities, expected):
    assert value(2, entities) == pytest.approx(expected, abs=1e-3)


def test_cockcroft_gault_unit_conversions_agree():
    metric = _cg(weight=(70, "kg"), height=(177.8, "cm"), creatinine=(1.2, "mg/dL"))
    imperial = _cg(weight=(70 / 0.45359237, "lbs"), height=(70, "in"),
                   creatinine=(1.2 / u.CREATININE.factor("µmol/L"), "µmol/L"))
    assert value(2, metric) == pytest.approx(value(2, imperial))


# --- 3 · CKD-EPI 2021 and 9 · MDRD -----------------------------------------------------


@pytest.mark.parametrize(("sex", "age", "creatinine", "expected"), [
    # Scr = kappa: both ratio terms are 1; 142 * 0.9938**50 * 1.012
    ("Female", 50, 0.7, 142 * 0.9938**50 * 1.012),
    # man above kappa: 142 * (1.8 / 0.9)**-1.2 * 0.9938**60
    ("Male", 60, 1.8, 142 * 2**-1.2 * 0.9938**60),
    # woman below kappa: alpha = -0.241
    ("Female", 32, 0.5, 142 * (0.5 / 0.7) ** -0.241 * 0.9938**32 * 1.012),
    # man below kappa uses kappa 0.9, not 0.7: 142 * (0.87 / 0.9)**-0.302 * 0.9938**80
    ("Male", 80, 0.87, 142 * (0.87 / 0.9) ** -0.302 * 0.9938**80),
])
def test_ckd_epi_2021(sex, age, creatinine, expected):
    entities = {"sex": sex, "age": [age, "years"], "creatinine": [creatinine, "mg/dL"]}
    assert value(3, entities) == pytest.approx(expected)
    in_umol = {**entities, "creatinine": [creatinine / u.CREATININE.factor("µmol/L"), "µmol/L"]}
    assert value(3, in_umol) == pytest.approx(expected)


def test_mdrd_sex_and_race_factors():
    base = {"age": [60, "years"], "creatinine": [2.0, "mg/dL"], "sex": "Male"}
    assert value(9, base) == pytest.approx(175 * 2**-1.154 * 60**-0.203)  # 34.252
    assert value(9, {**base, "Race": "White"}) == pytest.approx(value(9, base))
    black_woman = {**base, "sex": "Female", "Race": "Black", "creatinine": [1.0, "mg/dL"],
                   "age": [50, "years"]}
    assert value(9, black_woman) == pytest.approx(175 * 50**-0.203 * 0.742 * 1.212)  # 71.130
    assert "not stated" in compute_row(9, base).explanation  # missing race: not Black


def test_mdrd_rejects_unknown_race():
    with pytest.raises(ValueError, match="Race"):
        compute_row(9, {"age": [60, "years"], "creatinine": [2.0, "mg/dL"], "sex": "Male",
                        "Race": "Martian"})


creatinine_mg_dl = st.floats(min_value=0.2, max_value=15)
ages = st.integers(min_value=18, max_value=100)


@given(ages, creatinine_mg_dl, st.floats(min_value=0.01, max_value=5),
       st.sampled_from(["Male", "Female"]))
def test_higher_creatinine_never_raises_gfr_or_clearance(age, creatinine, rise, sex):
    for calculator_id in (2, 3, 9):
        low = _cg(sex=sex, age=age, creatinine=(creatinine, "mg/dL"))
        high = _cg(sex=sex, age=age, creatinine=(creatinine + rise, "mg/dL"))
        assert value(calculator_id, high) < value(calculator_id, low)


@given(ages, creatinine_mg_dl, st.sampled_from(["Male", "Female"]))
def test_ckd_epi_is_continuous_at_kappa(age, creatinine, sex):
    kappa = 0.7 if sex == "Female" else 0.9
    at = {"sex": sex, "age": [age, "years"], "creatinine": [kappa, "mg/dL"]}
    near = {**at, "creatinine": [kappa * (1 + 1e-9), "mg/dL"]}
    assert value(3, near) == pytest.approx(value(3, at), rel=1e-6)


# --- 40 · FENa --------------------------------------------------------------------------


def test_fena():
    # 100 * (0.6 * 32) / (129 * 60.3) = 0.2468 %
    entities = {"Urine creatinine": [60.3, "mg/dL"], "creatinine": [0.6, "mg/dL"],
                "Urine sodium": [32.0, "mEq/L"], "Sodium": [129.0, "mmol/L"]}
    assert value(40, entities) == pytest.approx(0.6 * 32 / (129 * 60.3) * 100)
    in_umol = {**entities, "creatinine": [0.6 / u.CREATININE.factor("µmol/L"), "µmol/L"]}
    assert value(40, in_umol) == pytest.approx(value(40, entities))
    with pytest.raises(MissingEntity, match="Urine sodium"):
        compute_row(40, {k: v for k, v in entities.items() if k != "Urine sodium"})


# --- 26 · sodium correction, 38 · free water deficit ------------------------------------


@pytest.mark.parametrize(("sodium", "glucose", "expected"), [
    ([141.0, "mEq/L"], [110.0, "mg/dL"], 141.24),  # 141 + 0.024 * 10
    ([130.0, "mmol/L"], [600.0, "mg/dL"], 142.0),  # 130 + 0.024 * 500
    ([130.0, "mmol/L"], [600 / 18.016, "mmol/L"], 142.0),
    ([140.0, "mEq/L"], [80.0, "mg/dL"], 139.52),  # below 100 the correction is negative
])
def test_sodium_correction_hillier(sodium, glucose, expected):
    assert value(26, {"Sodium": sodium, "Glucose": glucose}) == pytest.approx(expected)


@pytest.mark.parametrize(("sex", "age", "fraction"), [
    ("Male", [23, "years"], 0.6), ("Female", [40, "years"], 0.5),
    ("Male", [70, "years"], 0.5), ("Female", [65, "years"], 0.45),
    ("Female", [17, "months"], 0.6), ("Male", [12, "years"], 0.6),
])
def test_free_water_deficit_body_water_fraction(sex, age, fraction):
    entities = {"age": age, "weight": [70.0, "kg"], "sex": sex, "Sodium": [161.0, "mmol/L"]}
    assert value(38, entities) == pytest.approx(fraction * 70 * (161 / 140 - 1))


def test_free_water_deficit_in_pounds():
    # 142 lb = 64.41 kg; 0.6 * 64.41 * (137 / 140 - 1) = -0.828 L
    entities = {"age": [23, "years"], "weight": [142.0, "lbs"], "sex": "Male",
                "Sodium": [137.0, "mmol/L"]}
    assert value(38, entities) == pytest.approx(-0.828, abs=1e-3)


# --- 63-67 · delta gap and ratio, albumin-corrected -------------------------------------

GAP = {"Chloride": [108.0, "mEq/L"], "Bicarbonate": [4.6, "mEq/L"], "Sodium": [139.0, "mEq/L"]}


def test_delta_gap_and_ratio():
    # AG = 139 - (108 + 4.6) = 26.4; delta gap 14.4; ratio 14.4 / (24 - 4.6)
    assert value(63, GAP) == pytest.approx(14.4)
    assert value(64, GAP) == pytest.approx(14.4 / 19.4)


def test_albumin_corrected_gaps():
    # albumin 2.0 g/dL adds 2.5 * 2 = 5: corrected AG 31.4, delta gap 19.4, ratio 19.4 / 19.4
    for albumin in ([2.0, "g/dL"], [20.0, "g/L"]):
        entities = {**GAP, "Albumin": albumin}
        assert value(65, entities) == pytest.approx(31.4)
        assert value(66, entities) == pytest.approx(19.4)
        assert value(67, entities) == pytest.approx(1.0)
    high_albumin = {**GAP, "Albumin": [4.5, "g/dL"]}
    assert value(65, high_albumin) == pytest.approx(26.4 - 1.25)


def test_sodium_reported_in_mg_dl_is_converted_by_molar_mass():
    entities = {**GAP, "Sodium": [137.0, "mg/dL"]}
    sodium = 137 * 10 / 22.99
    assert value(63, entities) == pytest.approx(sodium - 112.6 - 12)
    assert "by mass" in compute_row(63, entities).explanation


def test_delta_ratio_undefined_at_normal_bicarbonate():
    with pytest.raises(ValueError, match="24"):
        compute_row(64, {**GAP, "Bicarbonate": [24.0, "mmol/L"]})


def test_missing_albumin_is_required():
    with pytest.raises(MissingEntity, match="Albumin"):
        compute_row(65, GAP)


ions = st.floats(min_value=1, max_value=200)


@given(st.floats(min_value=100, max_value=180), st.floats(min_value=70, max_value=130),
       st.floats(min_value=1, max_value=40).filter(lambda h: abs(h - 24) > 1e-3),
       st.floats(min_value=0.5, max_value=6))
def test_ratios_are_gaps_over_bicarbonate_fall(sodium, chloride, bicarbonate, albumin):
    entities = {"Sodium": [sodium, "mmol/L"], "Chloride": [chloride, "mmol/L"],
                "Bicarbonate": [bicarbonate, "mEq/L"], "Albumin": [albumin, "g/dL"]}
    fall = 24 - bicarbonate
    assert value(64, entities) == pytest.approx(value(63, entities) / fall)
    assert value(67, entities) == pytest.approx(value(66, entities) / fall)
    assert value(66, entities) - value(63, entities) == pytest.approx(2.5 * (4 - albumin))


@given(ions)
def test_sodium_units_round_trip(x):
    assert u.SODIUM.convert(u.SODIUM.convert(x, "mg/dL", "mEq/L"), "mmol/L", "mg/dL") == (
        pytest.approx(x))


# --- 22 · maintenance fluids, 31 · HOMA-IR, 44 · LDL -------------------------------------


@pytest.mark.parametrize(("weight", "expected"), [
    ([5.0, "kg"], 20.0), ([10.0, "kg"], 40.0), ([17.0, "kg"], 54.0), ([20.0, "kg"], 60.0),
    ([70.0, "kg"], 110.0), ([2180.0, "g"], 8.72), ([22.0 / 0.45359237, "lbs"], 62.0),
])
def test_maintenance_fluids_4_2_1(weight, expected):
    assert value(22, {"weight": weight}) == pytest.approx(expected)


@given(st.floats(min_value=0.5, max_value=200), st.floats(min_value=0.001, max_value=20))
def test_maintenance_fluids_rise_with_weight(kg, more):
    assert value(22, {"weight": [kg + more, "kg"]}) > value(22, {"weight": [kg, "kg"]})


def test_homa_ir():
    entities = {"Glucose": [210.0, "mg/dL"], "Insulin": [26.0, "µIU/mL"]}
    assert value(31, entities) == pytest.approx(26 * 210 / 405)  # 13.481
    # glucose in mmol/L: insulin * glucose / 22.5 (= 405 / 18)
    mmol = {"Glucose": [5.0, "mmol/L"], "Insulin": [10.0, "mIU/L"]}
    assert value(31, mmol) == pytest.approx(10 * 5 * 18.016 / 405)


def test_ldl_friedewald():
    entities = {"Total cholesterol": [182.0, "mg/dL"],
                "high-density lipoprotein cholesterol": [39.0, "mg/dL"],
                "Triglycerides": [196.0, "mg/dL"]}
    assert value(44, entities) == pytest.approx(103.8)  # 182 - 39 - 196 / 5
    # 4.75 mmol/L = 183.66, 1.03 mmol/L = 39.82 (38.665 per mmol/L); 1.09 mmol/L TG = 96.54
    mmol = {"Total cholesterol": [4.75, "mmol/L"],
            "high-density lipoprotein cholesterol": [1.03, "mmol/L"],
            "Triglycerides": [1.09, "mmol/L"]}
    assert value(44, mmol) == pytest.approx((4.75 - 1.03) * 38.665 - 1.09 * 88.57 / 5)
    with pytest.raises(ValueError, match="Triglycerides"):
        compute_row(44, {**entities, "Triglycerides": [1.0, "g"]})


def test_explanations_end_with_the_answer():
    result = compute_row(2, _cg(sex="Female", age=60, weight=(90, "kg"), height=(64, "in")))
    assert result.explanation.splitlines()[-1].endswith(f"= {result.answer} mL/min.")
    assert "adjusted body weight" in result.explanation
    assert not math.isnan(result.value)
