"""The calculators' conventions: official (the MedCalc-Bench code) and clinical (physicians)."""

from __future__ import annotations

import pytest

from clineval.benchmarks.medcalc.calculators import CALCULATORS, Conventions, compute_row

CLINICAL = Conventions("clinical")


def _lmp(day: str, cycle: int) -> dict:
    return {"Last menstrual date": day, "cycle length": cycle}


def _gap(sodium: float, chloride: float, bicarbonate: float) -> dict:
    return {"Sodium": [sodium, "mEq/L"], "Chloride": [chloride, "mEq/L"],
            "Bicarbonate": [bicarbonate, "mEq/L"]}


def _opioid(drug: str, dose: float, per_day: int) -> dict:
    return {f"{drug} Dose": [dose, "mg"], f"{drug} Dose Per Day": [per_day, "per day"]}


@pytest.mark.parametrize(("lmp", "cycle", "official", "clinical"), [
    ("01/10/2024", 28, "10/16/2024", "10/17/2024"),  # +280 days in a leap year vs +9 months +7
    ("01/10/2024", 32, "10/20/2024", "10/21/2024"),  # both shift by cycle − 28
    ("05/31/2023", 28, "03/06/2024", "03/07/2024"),  # Feb 31 does not exist: Feb 29, then +7
    ("11/20/2023", 26, "08/24/2024", "08/25/2024"),
])
def test_due_date(lmp, cycle, official, clinical):
    assert compute_row(13, _lmp(lmp, cycle)).answer == official
    assert compute_row(13, _lmp(lmp, cycle), CLINICAL).answer == clinical


@pytest.mark.parametrize(("cycle", "official", "clinical"), [
    (28, "01/24/2024", "01/24/2024"), (35, "01/24/2024", "01/31/2024"),
    (21, "01/24/2024", "01/17/2024"),
])
def test_conception_date_follows_the_cycle_clinically(cycle, official, clinical):
    assert compute_row(68, _lmp("01/10/2024", cycle)).answer == official
    assert compute_row(68, _lmp("01/10/2024", cycle), CLINICAL).answer == clinical


def test_delta_gap_is_the_anion_gap_excess_minus_the_bicarbonate_deficit():
    entities = _gap(140, 100, 14)  # AG 26: ΔAG 14, ΔHCO3 10
    assert compute_row(63, entities).answer == "14"
    assert compute_row(63, entities, CLINICAL).answer == "4"
    assert compute_row(63, _gap(140, 104, 20), CLINICAL).answer == "0"  # AG 16, ΔHCO3 4


@pytest.mark.parametrize(("entities", "official", "clinical"), [
    (_opioid("HYDROmorphone", 10, 2), "100", "80"),  # 5 (2022) vs 4 (2016)
    (_opioid("TraMADol", 50, 2), "20", "10"),  # 0.2 vs 0.1
    (_opioid("Methadone", 10, 2), "94", "80"),  # 20 mg/day: 4
    (_opioid("Methadone", 15, 2), "141", "240"),  # 30 mg/day: 8
    (_opioid("Methadone", 25, 2), "235", "500"),  # 50 mg/day: 10
    (_opioid("Methadone", 35, 2), "329", "840"),  # 70 mg/day: 12
    (_opioid("Methadone", 50, 2), "470", "470"),  # 100 mg/day: beyond the 2016 table, 4.7
    ({**_opioid("OxyCODONE", 10, 3), **_opioid("Morphine", 15, 2)}, "75", "75"),
])
def test_mme_with_the_cdc_2016_table(entities, official, clinical):
    assert compute_row(49, entities).answer == official
    assert compute_row(49, entities, CLINICAL).answer == clinical


@pytest.mark.parametrize(("entities", "official", "clinical"), [
    ({"Best eye response": "no eye opening", "Best verbal response": "not testable",
      "Best motor response": "no motor response"}, "7", "3"),  # intubated: "GCS 3T"
    ({"Best eye response": "not testable", "Best verbal response": "oriented",
      "Best motor response": "obeys commands"}, "15", "12"),
    ({"Best eye response": "eye opening to pain", "Best verbal response": "confused",
      "Best motor response": "localizes pain"}, "11", "11"),  # all testable: the same
])
def test_gcs_untestable_components(entities, official, clinical):
    assert compute_row(21, entities).answer == official
    assert compute_row(21, entities, CLINICAL).answer == clinical


def test_per_calculator_overrides():
    mixed = Conventions.from_settings("clinical", {"49": "official"})
    assert mixed.of(49) == "official" and mixed.of(13) == "clinical"
    assert compute_row(49, _opioid("TraMADol", 50, 2), mixed).answer == "20"
    assert compute_row(68, _lmp("01/10/2024", 35), mixed).answer == "01/31/2024"
    assert mixed.describe() == "clinical (official for 49)"
    only = Conventions.from_settings("official", {63: "clinical"})
    assert compute_row(63, _gap(140, 100, 14), only).answer == "4"
    assert compute_row(68, _lmp("01/10/2024", 35), only).answer == "01/24/2024"


@pytest.mark.parametrize(("default", "overrides"), [
    ("physician", {}), ("official", {"13": "calendar"}), ("official", {"due": "clinical"}),
])
def test_unknown_conventions_are_refused(default, overrides):
    with pytest.raises(ValueError, match="convention"):
        Conventions.from_settings(default, overrides)


def test_conventions_differ_only_where_a_variant_exists():
    assert sorted(c.id for c in CALCULATORS.values() if c.variants) == [13, 21, 49, 63, 68]
    entities = {"weight": [70.0, "kg"], "height": [175.0, "cm"]}
    assert compute_row(6, entities, CLINICAL) == compute_row(6, entities)
