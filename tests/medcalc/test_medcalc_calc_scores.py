"""Point scores: Wells' PE (8) and DVT (16), PERC (48), RCRI (17), HEART (18), Centor/McIsaac
(20), FeverPAIN (33), HAS-BLED (25), Glasgow-Blatchford (27).

Known values are hand-computed from the published point tables (MDCalc and the original
papers cited in each calculator module); the properties check bounds and monotonicity."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from clineval.benchmarks.medcalc.calculators import MissingEntity, compute_row
from clineval.benchmarks.medcalc.calculators import units as u


def score(calculator_id: int, entities: dict) -> float:
    result = compute_row(calculator_id, entities).value
    assert isinstance(result, int | float)
    return result


def rate(bpm: float) -> list:
    return [bpm, "beats per minute"]


# --- entity sets: the numeric baseline and every flag (positive when True) -----------------

WELLS_PE_FLAGS = (
    "Previously Documented Pulmonary Embolism", "Immobilization for at least 3 days",
    "Malignancy with treatment within 6 months or palliative",
    "Pulmonary Embolism is #1 diagnosis OR equally likely", "Surgery in the previous 4 weeks",
    "Previously documented Deep Vein Thrombosis", "Hemoptysis",
    "Clinical signs and symptoms of Deep Vein Thrombosis",
)
WELLS_DVT_FLAGS = (
    "Active cancer", "Bedridden recently >3 days or major surgery within 12 weeks",
    "Major surgery within 12 weeks",
    "Paralysis, paresis, or recent plaster immobilization of the lower extremity",
    "Previously documented Deep Vein Thrombosis",
    "Calf swelling >3 centimeters compared to the other leg",
    "Collateral (nonvaricose) superficial veins present", "Entire Leg Swollen",
    "Localized tenderness along the deep venous system",
    "Pitting edema, confined to symptomatic leg",
)
DVT_ALTERNATIVE = "Alternative diagnosis to Deep Vein Thrombosis as likely or more likely"
PERC_FLAGS = (
    "Unilateral Leg Swelling", "Hormone use", "Recent surgery or trauma",
    "Previously Documented Pulmonary Embolism", "Hemoptysis",
    "Previously documented Deep Vein Thrombosis",
)
RCRI_FLAGS = (
    "History of cerebrovascular disease", "Pre-operative treatment with insulin",
    "Congestive Heart Failure criteria for the Cardiac Risk Index rule",
    "History of ischemic heart disease", "Elevated-risk surgery",
    "Cerebrovascular disease history",
)
HEART_FLAGS = (
    "Hypertension history", "Transient Ischemic Attacks History",
    "Diabetes mellitus criteria for CCI rule",
    "parent or sibling with Cardiovascular disease before age 65", "atherosclerotic disease",
    "hypercholesterolemia", "obesity", "smoking",
)
CENTOR_FLAGS = ("Cough Absent", "Tender/swollen anterior cervical lymph nodes",
                "Exudate or swelling on tonsils")
FEVERPAIN_FLAGS = ("Symptom onset ≤3 days", "Purulent tonsils", "Fever in past 24 hours",
                   "Severe tonsil inflammation", "Absence of cough or coryza")
HAS_BLED_FLAGS = (
    "Stroke", "Hypertension history", "Medication usage predisposing to bleeding",
    "Liver disease criteria for the HAS-BLED rule", "Labile international normalized ratio",
    "Renal disease criteria for the HAS-BLED rule",
    "Prior major bleeding or predisposition to bleeding",
)
GBS_FLAGS = ("Hepatic disease history", "Recent syncope", "Cardiac failure present",
             "Melena present")

BASE = {
    8: {"Heart Rate or Pulse": rate(80)},
    16: {},
    48: {"age": [30, "years"], "Heart Rate or Pulse": rate(80),
         "O₂ saturation percentage": [98, "%"]},
    17: {"Pre-operative creatinine": [1.0, "mg/dL"]},
    18: {"age": [40, "years"]},
    20: {"age": [30, "years"], "Temperature": [37.0, "degrees celsius"]},
    33: {},
    25: {"age": [50, "years"], "Number of Alcoholic Drinks Per Week": 0},
    27: {"sex": "Male", "Blood Urea Nitrogen (BUN)": [10, "mg/dL"], "Hemoglobin": [15, "g/dL"],
         "Systolic Blood Pressure": [130, "mm Hg"], "Heart Rate or Pulse": rate(70)},
}
FLAGS = {8: WELLS_PE_FLAGS, 16: WELLS_DVT_FLAGS, 48: PERC_FLAGS, 17: RCRI_FLAGS,
         18: HEART_FLAGS, 20: CENTOR_FLAGS, 33: FEVERPAIN_FLAGS, 25: HAS_BLED_FLAGS,
         27: GBS_FLAGS}
RANGES = {8: (0, 12.5), 16: (-2, 9), 48: (0, 8), 17: (0, 6), 18: (0, 10), 20: (-1, 5),
          33: (0, 5), 25: (0, 9), 27: (0, 23)}


# --- Wells' criteria for PE ---------------------------------------------------------------


def test_wells_pe_weights():
    # Wells et al. 2000: signs of DVT 3, PE most likely 3, HR > 100 1.5, immobilization or
    # surgery 1.5, previous PE/DVT 1.5, hemoptysis 1, malignancy 1.
    assert score(8, BASE[8]) == 0
    assert score(8, {"Heart Rate or Pulse": rate(101)}) == 1.5
    assert score(8, {"Heart Rate or Pulse": rate(100)}) == 0  # "> 100", not ≥
    assert score(8, {**BASE[8], "Clinical signs and symptoms of Deep Vein Thrombosis": True,
                     "Hemoptysis": True}) == 4
    both = {**BASE[8], "Immobilization for at least 3 days": True,
            "Surgery in the previous 4 weeks": True}
    assert score(8, both) == 1.5  # one criterion, counted once
    prior = {**BASE[8], "Previously Documented Pulmonary Embolism": True,
             "Previously documented Deep Vein Thrombosis": True}
    assert score(8, prior) == 1.5
    everything = {"Heart Rate or Pulse": rate(120), **dict.fromkeys(WELLS_PE_FLAGS, True)}
    assert compute_row(8, everything).answer == "12.5"


def test_wells_pe_needs_heart_rate():
    with pytest.raises(MissingEntity):
        compute_row(8, {"Hemoptysis": True})


# --- Wells' criteria for DVT --------------------------------------------------------------


def test_wells_dvt_points():
    # Wells et al. 2003: nine features 1 point each, alternative diagnosis −2 (range −2..9).
    assert score(16, {}) == 0
    assert score(16, {DVT_ALTERNATIVE: True}) == -2
    assert score(16, dict.fromkeys(WELLS_DVT_FLAGS, True)) == 9
    assert score(16, {**dict.fromkeys(WELLS_DVT_FLAGS, True), DVT_ALTERNATIVE: True}) == 7
    # bedridden and major surgery are one criterion under two keys
    assert score(16, {"Major surgery within 12 weeks": True}) == 1
    assert score(16, {"Bedridden recently >3 days or major surgery within 12 weeks": True,
                      "Major surgery within 12 weeks": True, "Active cancer": True}) == 2
    explanation = compute_row(16, {"Entire Leg Swollen": True, DVT_ALTERNATIVE: True}).explanation
    assert "−2 (1 − 2 = -1)" in explanation


# --- PERC ------------------------------------------------------------------------------------


def test_perc_thresholds():
    # Kline et al. 2004: age ≥ 50, HR ≥ 100, SaO₂ < 95% each count as a criterion met.
    assert score(48, BASE[48]) == 0
    assert score(48, {**BASE[48], "age": [50, "years"]}) == 1
    assert score(48, {**BASE[48], "Heart Rate or Pulse": rate(100)}) == 1
    assert score(48, {**BASE[48], "O₂ saturation percentage": [95, "%"]}) == 0
    assert score(48, {**BASE[48], "O₂ saturation percentage": [94, "percent"]}) == 1
    prior = {**BASE[48], "Previously Documented Pulmonary Embolism": True,
             "Previously documented Deep Vein Thrombosis": True}
    assert score(48, prior) == 1  # one criterion
    worst = {"age": [70, "years"], "Heart Rate or Pulse": rate(120),
             "O₂ saturation percentage": [90, "%"], **dict.fromkeys(PERC_FLAGS, True)}
    assert score(48, worst) == 8


def test_perc_rejects_unknown_saturation_unit():
    with pytest.raises(ValueError, match="O₂ saturation percentage"):
        compute_row(48, {**BASE[48], "O₂ saturation percentage": [0.98, "mg"]})


# --- RCRI ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("creatinine", "expected"), [
    ([2.0, "mg/dL"], 0), ([2.1, "mg/dL"], 1),
    ([150, "µmol/L"], 0),  # 1.70 mg/dL
    ([190, "µmol/L"], 1),  # 2.15 mg/dL
])
def test_rcri_creatinine_over_2_mg_dl(creatinine, expected):
    # Lee et al. 1999: creatinine > 2 mg/dL (177 µmol/L) scores one point.
    assert score(17, {"Pre-operative creatinine": creatinine}) == expected


def test_rcri_points():
    assert score(17, {**BASE[17], **dict.fromkeys(RCRI_FLAGS, True),
                      "Pre-operative creatinine": [3.0, "mg/dL"]}) == 6
    # either cerebrovascular key counts, once
    assert score(17, {**BASE[17], "History of cerebrovascular disease": True,
                      "Cerebrovascular disease history": False}) == 1
    assert score(17, {**BASE[17], "Cerebrovascular disease history": True}) == 1
    with pytest.raises(MissingEntity):
        compute_row(17, {"Elevated-risk surgery": True})


# --- HEART -----------------------------------------------------------------------------------


def test_heart_worst_and_categories():
    # Six et al. 2008: each of History, ECG, Age, Risk factors, Troponin scores 0–2.
    worst = {"age": [70, "years"], "Suspicion History": "Highly suspicious",
             "Electrocardiogram Test": "Significant ST deviation",
             "atherosclerotic disease": True,
             "Initial troponin": "greater than three times normal limit"}
    assert score(18, worst) == 10
    middle = {"age": [50, "years"], "Suspicion History": "Moderately suspicious",
              "Electrocardiogram Test": "Non-specific repolarization disturbance",
              "smoking": True,
              "Initial troponin": "between the normal limit or up to three times the normal limit"}
    assert score(18, middle) == 5
    assert score(18, {"age": [44, "years"]}) == 0  # unmentioned categories score 0


@pytest.mark.parametrize(("flags", "expected"), [
    ((), 0), (("smoking",), 1), (("smoking", "obesity"), 1),
    (("smoking", "obesity", "hypercholesterolemia"), 2),
    (("atherosclerotic disease",), 2), (("Transient Ischemic Attacks History",), 2),
])
def test_heart_risk_factor_points(flags, expected):
    assert score(18, {"age": [30, "years"], **dict.fromkeys(flags, True)}) == expected


def test_heart_rejects_unknown_ecg_category():
    with pytest.raises(ValueError, match="Electrocardiogram Test"):
        compute_row(18, {"age": [50, "years"], "Electrocardiogram Test": "Abnormal"})


# --- Centor (McIsaac) and FeverPAIN ----------------------------------------------------------


@pytest.mark.parametrize(("age", "expected"), [
    ([10, "years"], 1), ([14, "years"], 1), ([15, "years"], 0), ([44, "years"], 0),
    ([45, "years"], -1), ([96, "months"], 1), ([3, "years"], 1),
    ([14, "months"], 0),  # below the score's 3-year lower bound: no age band applies
])
def test_centor_age_adjustment(age, expected):
    # McIsaac et al. 1998 / MDCalc: age 3–14 adds 1, 15–44 adds 0, ≥ 45 subtracts 1.
    assert score(20, {**BASE[20], "age": age}) == expected


@pytest.mark.parametrize(("temperature", "points"), [
    ([38.0, "degrees celsius"], 0), ([38.1, "degrees celsius"], 1),
    ([100.4, "degrees fahreinheit"], 0),  # exactly 38 °C
    ([100.6, "degrees fahrenheit"], 1),
])
def test_centor_temperature_over_38(temperature, points):
    assert score(20, {**BASE[20], "Temperature": temperature}) == points


def test_centor_maximum_and_explanation():
    entities = {"age": [8, "years"], "Temperature": [39.0, "degrees celsius"],
                **dict.fromkeys(CENTOR_FLAGS, True)}
    assert score(20, entities) == 5
    explanation = compute_row(20, {**BASE[20], "age": [60, "years"]}).explanation
    assert "−1 (0 − 1 = -1)" in explanation


def test_feverpain_counts_flags_and_ignores_other_keys():
    # Little et al. 2013: Fever, Purulence, Attend rapidly, Inflamed tonsils, No cough/coryza.
    assert score(33, dict.fromkeys(FEVERPAIN_FLAGS, True)) == 5
    assert score(33, {}) == 0
    pecarn = {"Altered mental status for PECARN head injury criteria": True,
              "Purulent tonsils": True}
    assert score(33, pecarn) == 1


# --- HAS-BLED and Glasgow-Blatchford ---------------------------------------------------------


def test_has_bled_thresholds():
    # Pisters et al. 2010: elderly > 65 and alcohol ≥ 8 drinks/week are one point each.
    assert score(25, BASE[25]) == 0
    assert score(25, {**BASE[25], "age": [65, "years"]}) == 0
    assert score(25, {**BASE[25], "age": [66, "years"]}) == 1
    assert score(25, {**BASE[25], "Number of Alcoholic Drinks Per Week": 7}) == 0
    assert score(25, {**BASE[25], "Number of Alcoholic Drinks Per Week": 8}) == 1
    assert score(25, {"age": [50, "years"]}) == 0  # no drink count: criterion not met
    everything = {"age": [80, "years"], "Number of Alcoholic Drinks Per Week": 12,
                  **dict.fromkeys(HAS_BLED_FLAGS, True)}
    assert score(25, everything) == 9
    with pytest.raises(MissingEntity):
        compute_row(25, {"Stroke": True})


@pytest.mark.parametrize(("sex", "hemoglobin", "points"), [
    # Blatchford et al. 2000: men 12.0–12.9 → 1, 10.0–11.9 → 3, < 10 → 6;
    # women 10.0–11.9 → 1, < 10 → 6.
    ("Male", 13.0, 0), ("Male", 12.9, 1), ("Male", 12.0, 1), ("Male", 11.9, 3),
    ("Male", 9.9, 6), ("Female", 12.0, 0), ("Female", 11.9, 1), ("Female", 10.0, 1),
    ("Female", 9.9, 6),
])
def test_glasgow_blatchford_hemoglobin(sex, hemoglobin, points):
    entities = {**BASE[27], "sex": sex, "Hemoglobin": [hemoglobin, "g/dL"]}
    assert score(27, entities) == points


@pytest.mark.parametrize(("bun", "points"), [
    ([18.1, "mg/dL"], 0), ([18.2, "mg/dL"], 2), ([22.4, "mg/dL"], 3), ([28, "mg/dL"], 4),
    ([70, "mg/dL"], 6),
    ([6.4, "mmol/L"], 0), ([6.5, "mmol/L"], 2), ([8.0, "mmol/L"], 3), ([10, "mmol/L"], 4),
    ([25, "mmol/L"], 6),  # Blatchford's urea bands 6.5/8/10/25 mmol/L
])
def test_glasgow_blatchford_bun_bands(bun, points):
    assert score(27, {**BASE[27], "Blood Urea Nitrogen (BUN)": bun}) == points


@pytest.mark.parametrize(("systolic", "points"), [(110, 0), (109, 1), (100, 1), (99, 2),
                                                  (90, 2), (89, 3)])
def test_glasgow_blatchford_systolic_bands(systolic, points):
    assert score(27, {**BASE[27], "Systolic Blood Pressure": [systolic, "mm Hg"]}) == points


def test_glasgow_blatchford_worked_example_and_maximum():
    # Woman, Hb 13 g/dL (0), BUN 34 mg/dL (4), SBP 90 (2), HR 80 (0), melena (1),
    # cardiac failure (2) = 9.
    example = {"sex": "Female", "Hemoglobin": [13.0, "g/dL"],
               "Blood Urea Nitrogen (BUN)": [34.0, "mg/dL"],
               "Systolic Blood Pressure": [90.0, "mm Hg"], "Heart Rate or Pulse": rate(80),
               "Melena present": True, "Cardiac failure present": True}
    assert score(27, example) == 9
    assert score(27, {**example, "Hemoglobin": [130, "g/L"]}) == 9  # same in g/L
    worst = {"sex": "Male", "Hemoglobin": [8, "g/dL"], "Blood Urea Nitrogen (BUN)": [30, "mmol/L"],
             "Systolic Blood Pressure": [80, "mm Hg"], "Heart Rate or Pulse": rate(120),
             **dict.fromkeys(GBS_FLAGS, True)}
    assert score(27, worst) == 23
    with pytest.raises(MissingEntity):
        compute_row(27, {k: v for k, v in example.items() if k != "Hemoglobin"})


# --- units -----------------------------------------------------------------------------------


@given(st.floats(min_value=1, max_value=25, allow_nan=False))
def test_hemoglobin_unit_round_trip(g_dl):
    for unit in ("g/L", "mmol/L", "mg/dL"):
        there = u.HEMOGLOBIN.convert(g_dl, "g/dL", unit)
        assert u.HEMOGLOBIN.convert(there, unit, "g/dL") == pytest.approx(g_dl)


def test_hemoglobin_units():
    assert u.HEMOGLOBIN.convert(12, "g/dL", "g/L") == pytest.approx(120)
    assert u.HEMOGLOBIN.convert(7.45, "mmol/L", "g/dL") == pytest.approx(12.005, abs=1e-3)


# --- properties: bounds, missing flags absent, positive findings never lower a score ------------

ALL_IDS = sorted(BASE)


@pytest.mark.parametrize("calculator_id", ALL_IDS)
def test_missing_flags_count_as_absent(calculator_id):
    absent = {**BASE[calculator_id], **dict.fromkeys(FLAGS[calculator_id], False)}
    assert score(calculator_id, BASE[calculator_id]) == score(calculator_id, absent)


@given(st.sampled_from(ALL_IDS), st.data())
def test_adding_a_positive_finding_never_lowers_the_score(calculator_id, data):
    flags = FLAGS[calculator_id]
    chosen = data.draw(st.lists(st.sampled_from(flags), unique=True))
    extra = data.draw(st.sampled_from(flags))
    before = {**BASE[calculator_id], **dict.fromkeys(chosen, True)}
    after = {**before, extra: True}
    low, high = RANGES[calculator_id]
    assert low <= score(calculator_id, before) <= score(calculator_id, after) <= high


@given(st.integers(min_value=0, max_value=110), st.integers(min_value=30, max_value=200),
       st.integers(min_value=70, max_value=100))
def test_perc_is_monotone_in_age_and_rate_and_bounded(age, bpm, saturation):
    entities = {"age": [age, "years"], "Heart Rate or Pulse": rate(bpm),
                "O₂ saturation percentage": [saturation, "%"]}
    older = {**entities, "age": [age + 10, "years"]}
    assert 0 <= score(48, entities) <= score(48, older) <= 3


@given(st.sampled_from(("Male", "Female")), st.floats(min_value=3, max_value=20),
       st.floats(min_value=0, max_value=3), st.floats(min_value=1, max_value=150))
def test_glasgow_blatchford_lower_hemoglobin_higher_bun_never_lower_score(
    sex, hemoglobin, drop, bun
):
    entities = {**BASE[27], "sex": sex, "Hemoglobin": [hemoglobin, "g/dL"],
                "Blood Urea Nitrogen (BUN)": [bun, "mg/dL"]}
    worse = {**entities, "Hemoglobin": [hemoglobin - drop, "g/dL"],
             "Blood Urea Nitrogen (BUN)": [bun * 1.2, "mg/dL"]}
    assert 0 <= score(27, entities) <= score(27, worse) <= 23
