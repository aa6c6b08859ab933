"""ICU and comorbidity scores: APACHE II (28), PSI (29), Charlson (32), Caprini (36), SOFA (43).

Known values are hand computations from the published point tables (Knaus 1985, Fine 1997,
Charlson 1987 with MDCalc's age points, Caprini 2005, Vincent 1996); each case lists its points.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from clineval.benchmarks.medcalc.calculators import MissingEntity, compute_row


def score(calculator_id: int, entities: dict) -> int:
    result = compute_row(calculator_id, entities)
    assert result.answer == str(result.value)
    assert isinstance(result.value, int)
    return result.value


# --- APACHE II (28) ----------------------------------------------------------------------

# Dataset row 868's entities, scored by hand: age 43 → 0, temperature 34.9 °C → 1, MAP 94.7 → 0,
# HR 120 → 2, RR 17 → 0, FiO₂ 57 % so A–a 375 → 3, pH 7.53 → 1, Na 137.49 → 0, K 5.43 → 0,
# creatinine 1.258 (ARF, 0 doubled) → 0, Hct 35 → 0, WBC 9.1 → 0, GCS 12 → 3: total 10.
APACHE = {
    "Heart Rate or Pulse": [120.0, "beats per minute"], "Sodium": [137.49, "mmol/L"],
    "creatinine": [1.258, "mg/dL"], "FiO₂": [57.0, "%"],
    "Systolic Blood Pressure": [122.0, "mm Hg"], "age": [43.0, "years"],
    "Acute renal failure": True, "Hematocrit": [35.0, "%"], "Glasgow Coma Score": 12.0,
    "pH": 7.53, "White blood cell count": [9103.0, "µL"], "Potassium": [5.43, "mmol/L"],
    "Temperature": [34.9, "degrees celsisus"], "respiratory rate": [17.0, "breaths per minute"],
    "History of severe organ failure or immunocompromise": False, "A-a gradient": 375.0,
    "Chronic Renal Failure": False, "Diastolic Blood Pressure": [81.0, "mm Hg"],
}
NORMAL_APACHE = {  # every physiologic variable in its 0-point band
    "age": [30, "years"], "Temperature": [37.0, "degrees celsius"],
    "Systolic Blood Pressure": [120, "mm Hg"], "Diastolic Blood Pressure": [80, "mm Hg"],
    "Heart Rate or Pulse": [80, "beats per minute"], "respiratory rate": [16, "breaths per minute"],
    "FiO₂": [21, "%"], "Partial pressure of oxygen (PaO₂) for Apache II": [95, "mm Hg"],
    "pH": 7.4, "Sodium": [140, "mEq/L"], "Potassium": [4.0, "mEq/L"],
    "creatinine": [1.0, "mg/dL"], "Hematocrit": [40, "%"],
    "White blood cell count": [8000, "µL"], "Glasgow Coma Score": 15,
}


def test_apache_hand_computed_row():
    assert score(28, APACHE) == 10


def test_apache_normal_patient_scores_zero_and_unit_choices_agree():
    assert score(28, NORMAL_APACHE) == 0
    converted = {**NORMAL_APACHE, "Temperature": [98.6, "degrees fahrenheit"],
                 "creatinine": [88.4, "µmol/L"], "Sodium": [140, "mmol/L"]}
    assert score(28, converted) == 0


@pytest.mark.parametrize(("changes", "expected"), [
    ({"age": [80, "years"]}, 6),
    ({"Temperature": [104.0, "degrees fahrenheit"]}, 3),  # 40 °C
    ({"Glasgow Coma Score": 3}, 12),
    ({"Partial pressure of oxygen (PaO₂) for Apache II": [58, "mm Hg"]}, 3),
    ({"FiO₂": [60, "%"], "A-a gradient": 520}, 4),  # FiO₂ ≥ 50 %: A–a gradient, not PaO₂
    ({"creatinine": [2.5, "mg/dL"]}, 3),
    ({"creatinine": [2.5, "mg/dL"], "Acute renal failure": True}, 6),
    ({"creatinine": [221, "µmol/L"], "Acute renal failure": True}, 6),  # 2.5 mg/dL
    ({"White blood cell count": [45000, "µL"]}, 4),
    ({"Systolic Blood Pressure": [70, "mm Hg"], "Diastolic Blood Pressure": [40, "mm Hg"]}, 2),
    ({"Systolic Blood Pressure": [60, "mm Hg"], "Diastolic Blood Pressure": [30, "mm Hg"]}, 4),
])
def test_apache_single_variables(changes, expected):
    assert score(28, {**NORMAL_APACHE, **changes}) == expected


@pytest.mark.parametrize(("surgery", "expected"), [
    ({"Surgery Type": "Elective"}, 2), ({"Surgery Type": "Nonoperative "}, 5),
    ({"Surgery Type": "Emergency"}, 5), ({}, 5),  # no surgery reported: non-operative
])
def test_apache_chronic_health_points(surgery, expected):
    entities = {**NORMAL_APACHE, "History of severe organ failure or immunocompromise": True}
    assert score(28, {**entities, **surgery}) == expected
    assert score(28, {**NORMAL_APACHE, **surgery}) == 0  # without the history: none


def test_apache_missing_values():
    entities = dict(NORMAL_APACHE)
    del entities["FiO₂"]  # unreported FiO₂: room air, PaO₂ scored
    assert score(28, entities) == 0
    with pytest.raises(MissingEntity):
        score(28, {**NORMAL_APACHE, "FiO₂": [60, "%"]})  # needs the A–a gradient
    del entities["pH"]
    with pytest.raises(MissingEntity):
        score(28, entities)


@given(st.floats(0.3, 15.0), st.booleans(), st.integers(3, 15), st.integers(16, 100))
def test_apache_renal_failure_never_lowers_and_score_is_bounded(creatinine, acute, gcs, age):
    entities = {**APACHE, "creatinine": [creatinine, "mg/dL"], "Glasgow Coma Score": gcs,
                "age": [age, "years"], "Acute renal failure": False}
    base = score(28, entities)
    assert 0 <= base <= 71
    assert score(28, {**entities, "Acute renal failure": acute}) >= base


# --- PSI (29) ----------------------------------------------------------------------------

# A 72-year-old woman: 72 − 10 = 62, cerebrovascular disease 10, CHF 10, pH 7.2 30 = 112
# (dataset row 832, whose label agrees).
PSI = {
    "Heart Rate or Pulse": [85.0, "beats per minute"], "pH": 7.2, "Altered mental status": False,
    "Systolic Blood Pressure": [125.0, "mm Hg"], "Blood Urea Nitrogen (BUN)": [22.0, "mg/dL"],
    "Renal disease": False, "Cerebrovascular disease history": True, "Sodium": [138.0, "mEq/L"],
    "Liver disease severity": False, "Congestive Heart Faliure": True,
    "Partial pressure of oxygen (PaO₂) for Apache II": [75.0, "mm Hg"], "age": [72.0, "years"],
    "respiratory rate": [20.0, "breaths per minute"], "sex": "Female",
    "Hematocrit": [39.0, "%"], "Glucose": [122.0, "mg/dL"],
    "Temperature": [37.6, "degrees celsius"],
}


def test_psi_hand_computed():
    assert score(29, PSI) == 112
    assert score(29, {**PSI, "sex": "Male"}) == 122


@pytest.mark.parametrize(("changes", "added"), [
    ({"Nursing home resident": True}, 10),
    ({"Neoplastic disease": True}, 30),
    ({"Liver disease severity": True}, 20),
    ({"Renal disease": True}, 10),
    ({"Altered mental status": True}, 20),
    ({"Pleural effusion on x-ray": True}, 10),
    ({"respiratory rate": [30, "breaths per minute"]}, 20),
    ({"Systolic Blood Pressure": [89, "mm Hg"]}, 20),
    ({"Temperature": [104.0, "degrees fahrenheit"]}, 15),  # exactly 40 °C
    ({"Temperature": [34.9, "degrees celsius"]}, 15),
    ({"Heart Rate or Pulse": [125, "beats per minute"]}, 10),
    ({"Blood Urea Nitrogen (BUN)": [30, "mg/dL"]}, 20),
    ({"Blood Urea Nitrogen (BUN)": [10.8, "mmol/L"]}, 20),  # 30.3 mg/dL
    ({"Sodium": [129, "mmol/L"]}, 20),
    ({"Glucose": [14, "mmol/L"]}, 10),  # 252.2 mg/dL
    ({"Glucose": [13.8, "mmol/L"]}, 0),  # 248.6 mg/dL
    ({"Hematocrit": [29, "%"]}, 10),
    ({"Partial pressure of oxygen (PaO₂) for Apache II": [59, "mm Hg"]}, 10),
])
def test_psi_findings(changes, added):
    assert score(29, {**PSI, **changes}) == 112 + added


def test_psi_unreported_findings_count_as_normal_but_age_and_sex_are_required():
    assert score(29, {"age": [50, "years"], "sex": "Male"}) == 50
    with pytest.raises(MissingEntity):
        score(29, {"age": [50, "years"]})
    with pytest.raises(MissingEntity):
        score(29, {"sex": "Female"})


@given(st.sampled_from(["Nursing home resident", "Neoplastic disease", "Renal disease",
                        "Altered mental status", "Pleural effusion on x-ray"]),
       st.integers(18, 100))
def test_psi_a_present_finding_never_lowers_the_score(key, age):
    entities = {**PSI, "age": [age, "years"]}
    assert score(29, {**entities, key: True}) > score(29, {**entities, key: False})


# --- Charlson (32) -----------------------------------------------------------------------


def test_charlson_hand_computed():
    # age 72 → 3, CHF 1, metastatic solid tumor 6, diabetes with end-organ damage 2,
    # moderate to severe liver disease 3, stroke and TIA together 1: 16
    entities = {"age": [72, "years"], "Congestive Heart Faliure": True,
                "Solid tumor": "Metastatic", "Diabetes mellitus criteria for CCI rule":
                "End-organ damage", "Liver disease severity": "Moderate to Severe",
                "Cerebrovascular Accident": True, "Transient Ischemic Attacks History": True}
    assert score(32, entities) == 16


@pytest.mark.parametrize(("changes", "expected"), [
    ({}, 0),
    ({"age": [50, "years"]}, 1), ({"age": [69, "years"]}, 2), ({"age": [85, "years"]}, 4),
    ({"Liver disease severity": "Mild"}, 1), ({"Liver disease severity": "Severe"}, 3),
    ({"Diabetes mellitus criteria for CCI rule": "None or Diet-controlled"}, 0),
    ({"Diabetes mellitus criteria for CCI rule": "Uncomplicated"}, 1),
    ({"Solid tumor": "Localized"}, 2), ({"Solid tumor": True}, 2), ({"Solid tumor": False}, 0),
    ({"Moderate to severe Chronic Kidney Disease": "Severe"}, 2),
    ({"Moderate to severe Chronic Kidney Disease": True}, 2),
    ({"Hemiplegia": True}, 2), ({"Leukemia": True}, 2), ({"Lymphoma": True}, 2),
    ({"AIDS": True}, 6), ({"Transient Ischemic Attacks History": True}, 1),
])
def test_charlson_items(changes, expected):
    assert score(32, {"age": [40, "years"], **changes}) == expected


def test_charlson_rejects_unknown_grades_and_needs_age():
    with pytest.raises(ValueError, match="Liver disease severity"):
        score(32, {"age": [40, "years"], "Liver disease severity": "terminal"})
    with pytest.raises(MissingEntity):
        score(32, {"Dementia": True})


CCI_FLAGS = ["Myocardial infarction", "Congestive Heart Faliure", "Peripheral vascular disease",
             "Cerebrovascular Accident", "Transient Ischemic Attacks History", "Dementia",
             "Chronic Obstructive Pulmonary Disease", "Connective tissue disease",
             "Peptic ulcer disease", "Hemiplegia", "Moderate to severe Chronic Kidney Disease",
             "Leukemia", "Lymphoma", "AIDS", "Solid tumor"]


@given(st.sets(st.sampled_from(CCI_FLAGS)), st.sampled_from(CCI_FLAGS), st.integers(0, 110))
def test_charlson_adding_a_condition_never_lowers_and_stays_bounded(present, extra, age):
    entities = {"age": [age, "years"], **dict.fromkeys(present, True)}
    base = score(32, entities)
    assert 0 <= base <= 37
    assert score(32, {**entities, extra: True}) >= base


# --- Caprini (36) ------------------------------------------------------------------------


def test_caprini_hand_computed():
    # age 63 → 2, major surgery 2, major surgery in the last month 1, leg fracture 5, multiple
    # trauma 5, varicose veins 1, history of DVT 3, family history 3, homocysteine 3,
    # confined to bed > 72 h 2, BMI 27.1 → 1: 28 (dataset row 908's entities)
    entities = {"age": [63.0, "years"], "sex": "Female", "Surgery Type": "major",
                "Major Surgery in the last month": True,
                "Hip, pelvis, or leg fracture in the last month": True,
                "Multiple trauma in the last month": True, "Varicose veins": True,
                "Previously documented Deep Vein Thrombosis": True,
                "Family history of thrombosis": True, "Elevated serum homocysteine": True,
                "Mobility": "confined to bed >72 hours", "Stroke in the last month": False,
                "Body Mass Index (BMI)": [27.1, "kg/m^2"]}
    assert score(36, entities) == 28


@pytest.mark.parametrize(("changes", "expected"), [
    ({}, 0),
    ({"age": [41, "years"]}, 1), ({"age": [61, "years"]}, 2), ({"age": [75, "years"]}, 3),
    ({"Surgery Type": "minor"}, 1), ({"Surgery Type": "laparoscopic"}, 2),
    ({"Surgery Type": "elective major lower extremity arthroplasty"}, 5),
    ({"Mobility": "on bed rest"}, 1), ({"Mobility": "normal"}, 0),
    ({"Previously documented Deep Vein Thrombosis": True}, 3),
    ({"Previously Documented Pulmonary Embolism": True}, 3),
    ({"Previously documented Deep Vein Thrombosis": True,
      "Previously Documented Pulmonary Embolism": True}, 3),  # one 'History of DVT/PE' item
    ({"Immobilizing plaster cast in the last month": True}, 2),
    ({"Current central venous access": True}, 2),
    ({"Present or previous malignancy": True}, 2),
    ({"Acute spinal cord injury causing paralysis in the last month": True}, 5),
    ({"Heparin-induced thrombocytopenia": True}, 3),
    ({"Body Mass Index (BMI)": [25.0, "kg/m^2"]}, 0),
    ({"Body Mass Index (BMI)": [25.1, "kg/m^2"]}, 1),
    ({"sex": "Female"}, 0),
])
def test_caprini_items(changes, expected):
    assert score(36, {"age": [30, "years"], **changes}) == expected


def test_caprini_rejects_unknown_categories_and_needs_age():
    with pytest.raises(ValueError, match="Surgery Type"):
        score(36, {"age": [30, "years"], "Surgery Type": "cardiac"})
    with pytest.raises(MissingEntity):
        score(36, {"Varicose veins": True})


CAPRINI_FLAGS = ["Major Surgery in the last month", "Sepsis in the last month",
                 "Stroke in the last month", "Varicose veins", "Current swollen legs",
                 "Previously documented Deep Vein Thrombosis",
                 "Previously Documented Pulmonary Embolism", "Positive Factor V Leiden",
                 "Acute Myocardial infarction", "Chronic Obstructive Pulmonary Disease"]


@given(st.sets(st.sampled_from(CAPRINI_FLAGS)), st.sampled_from(CAPRINI_FLAGS),
       st.integers(18, 100))
def test_caprini_adding_a_risk_factor_never_lowers(present, extra, age):
    entities = {"age": [age, "years"], **dict.fromkeys(present, True)}
    assert score(36, {**entities, extra: True}) >= score(36, entities)


# --- SOFA (43) ---------------------------------------------------------------------------

# Dataset row 888's entities, scored by hand: PaO₂/FiO₂ = 76/0.6 = 126.7 on the ventilator → 3,
# hypotension without vasopressors → 1, GCS 9 → 3, bilirubin 88.41 µmol/L = 5.17 mg/dL → 2,
# platelets 140.4 → 1, creatinine 121.32 µmol/L = 1.37 mg/dL → 1: total 11.
SOFA = {
    "FiO₂": [60.0, "%"], "Continuous veno-venous hemodialysis for ≥24 hours in the past week":
    False, "On mechanical ventilation": True,
    "Partial pressure of oxygen (PaO₂) for Apache II": [76.0, "mm Hg"], "Hypotension": True,
    "Glasgow Coma Score": 9.0, "creatinine": [121.32, "µmol/L"],
    "Bilirubin": [88.41, "µmol/L"], "Platelet count": [140400.0, "µL"],
    "Continous positive airway pressure": False,
}
NORMAL_SOFA = {
    "FiO₂": [21, "%"], "Partial pressure of oxygen (PaO₂) for Apache II": [95, "mm Hg"],
    "Glasgow Coma Score": 15, "creatinine": [1.0, "mg/dL"], "Bilirubin": [0.8, "mg/dL"],
    "Platelet count": [250000, "µL"],
}


def test_sofa_hand_computed_row_and_units():
    assert score(43, SOFA) == 11
    in_mg_dl = {**SOFA, "creatinine": [1.372, "mg/dL"], "Bilirubin": [5.17, "mg/dL"]}
    assert score(43, in_mg_dl) == 11
    dialysis = {**SOFA, "Continuous veno-venous hemodialysis for ≥24 hours in the past week": True}
    assert score(43, dialysis) == 11  # not a SOFA criterion


@pytest.mark.parametrize(("changes", "expected"), [
    ({}, 0),
    ({"Partial pressure of oxygen (PaO₂) for Apache II": [70, "mm Hg"]}, 1),  # 333
    ({"FiO₂": [50, "%"], "Partial pressure of oxygen (PaO₂) for Apache II": [80, "mm Hg"]}, 2),
    ({"FiO₂": [50, "%"], "Partial pressure of oxygen (PaO₂) for Apache II": [80, "mm Hg"],
      "Continous positive airway pressure": True}, 3),  # 160 with CPAP
    ({"FiO₂": [100, "%"], "Partial pressure of oxygen (PaO₂) for Apache II": [80, "mm Hg"],
      "On mechanical ventilation": True}, 4),
    ({"Hypotension": True}, 1),
    ({"Systolic Blood Pressure": [80, "mm Hg"], "Diastolic Blood Pressure": [60, "mm Hg"]}, 1),
    ({"DOBUTamine": [3, "mcg/kg/min"]}, 2), ({"DOPamine": [5, "mcg/kg/min"]}, 2),
    ({"DOPamine": [6, "mcg/kg/min"]}, 3), ({"norEPINEPHrine": [0.1, "mc/kg/min"]}, 3),
    ({"EPINEPHrine": [0.11, "mcg/kg/min"]}, 4), ({"DOPamine": [16, "mcg/kg/min"]}, 4),
    ({"Glasgow Coma Score": 14}, 1), ({"Glasgow Coma Score": 5}, 4),
    ({"Bilirubin": [2.0, "mg/dL"]}, 2), ({"Bilirubin": [206, "µmol/L"]}, 4),  # 12.04 mg/dL
    ({"Platelet count": [19000, "µL"]}, 4), ({"Platelet count": [99000, "µL"]}, 2),
    ({"creatinine": [3.5, "mg/dL"]}, 3),
    ({"Urine Output": [450, "mL/day"]}, 3), ({"Urine Output": [150, "mL/day"]}, 4),
    ({"creatinine": [5.1, "mg/dL"], "Urine Output": [450, "mL/day"]}, 4),
])
def test_sofa_components(changes, expected):
    assert score(43, {**NORMAL_SOFA, **changes}) == expected


def test_sofa_renal_needs_creatinine_or_urine_output():
    without = {key: value for key, value in NORMAL_SOFA.items() if key != "creatinine"}
    with pytest.raises(MissingEntity):
        score(43, without)
    assert score(43, {**without, "Urine Output": [1500, "mL/day"]}) == 0
    with pytest.raises(MissingEntity):
        score(43, {key: value for key, value in NORMAL_SOFA.items() if key != "Bilirubin"})


@given(st.floats(0.0, 0.5), st.floats(0.0, 0.5), st.integers(5, 400), st.booleans())
def test_sofa_more_vasopressor_or_fewer_platelets_never_lowers(dose, extra, platelets, vent):
    entities = {**SOFA, "On mechanical ventilation": vent,
                "norEPINEPHrine": [dose, "mcg/kg/min"], "Platelet count": [platelets * 1000, "µL"]}
    base = score(43, entities)
    assert 0 <= base <= 24
    assert score(43, {**entities, "norEPINEPHrine": [dose + extra, "mcg/kg/min"]}) >= base
    fewer = {**entities, "Platelet count": [max(platelets - 50, 1) * 1000, "µL"]}
    assert score(43, fewer) >= base
