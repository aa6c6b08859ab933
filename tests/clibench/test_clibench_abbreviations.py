"""The careful reading's lab abbreviations and opposites (issue 34): the table from the
candidate titles and the hand list, the written-out text matched in the careful reading only,
the setting that turns it off; a title naming the item's opposite."""

from __future__ import annotations

from pathlib import Path

import pytest

from clineval.benchmarks.clibench import abbreviations, scoring
from clineval.benchmarks.clibench.opposites import opposite
from clineval.errors import ConfigError
from clineval.metrics.code_mapping import Item

TITLES = ("Alanine Aminotransferase (ALT) for Blood (Chemistry)", "INR(PT) for Blood (Hematology)",
          "Alkaline Phosphatase [Blood]", "White Blood Cells [Blood]", "Creatine Kinase (CK)")


def test_the_table_comes_from_the_titles_and_the_hand_list_where_a_title_names_the_test():
    table = abbreviations.table(TITLES)
    assert table["ALT"] == "Alanine Aminotransferase" and table["CK"] == "Creatine Kinase"
    assert table["ALP"] == "Alkaline Phosphatase" and table["WBC"] == "White Blood Cells"
    assert "PT" not in table  # "INR(PT)": PT does not abbreviate INR
    assert "RBC" not in table and "BUN" not in table  # no title names their tests
    # an abbreviation two titles write out differently is left as written
    assert "ALT" not in abbreviations.table((*TITLES, "Alanine Transferase (ALT)"))


def test_expand_writes_out_whole_words_unless_the_test_is_named():
    table = abbreviations.table(TITLES)
    assert abbreviations.expand("Serum ALP 10.5 mg/dL", table) == (
        "Serum Alkaline Phosphatase 10.5 mg/dL")
    assert abbreviations.expand("ALPHA; SALT", table) == "ALPHA; SALT"
    assert abbreviations.expand("Alanine Aminotransferase (ALT)", table) == (
        "Alanine Aminotransferase (ALT)")


def test_the_hand_list_names_its_rows(tmp_path: Path):
    assert all(abbreviations.hand_table().values())
    bad = tmp_path / "table.csv"
    bad.write_text("# comment\nabbreviation,test,source\nALP,,LOINC 6768-6\n")
    with pytest.raises(ValueError, match="data row 1"):
        abbreviations.hand_table(bad)


def lab_scorer(given: dict) -> scoring.Scorer:
    """A lab scorer whose candidates are ``TITLES`` (no files)."""
    scorer = scoring.Scorer("labs", scoring.settings(given), {})
    scorer.__dict__["titles"] = {(str(i),): t for i, t in enumerate(TITLES)}  # cached property
    return scorer


def test_the_careful_reading_matches_the_written_out_text():
    items = [Item("ALP 1.25 mg/L", ("2951-2",), "embedding", 0.39),
             Item("Alkaline Phosphatase", ("2",), "title", 1.0)]
    scorer = lab_scorer({})
    assert scorer.expansions(items) == {"ALP 1.25 mg/L": "Alkaline Phosphatase 1.25 mg/L"}
    read = {"ALP 1.25 mg/L": Item("Alkaline Phosphatase 1.25 mg/L", ("6768-6",), "embedding",
                                  0.82)}
    found = scorer.careful(items, "x", None, read)
    assert [(i.text, i.codes, i.how) for i, _ in found] == [
        ("ALP 1.25 mg/L", ("6768-6",), "embedding"), ("Alkaline Phosphatase", ("2",), "title")]
    assert found[0][1] == {"read_as": "Alkaline Phosphatase 1.25 mg/L",
                           "literal_codes": ["2951-2"]}
    assert lab_scorer({"abbreviations": False}).expansions(items) == {}


def test_the_abbreviations_setting_is_a_boolean():
    assert scoring.settings({})["abbreviations"] is True
    with pytest.raises(ConfigError, match=r"scoring\.abbreviations"):
        scoring.settings({"abbreviations": "maybe"})


@pytest.mark.parametrize(("item", "title", "expected"), [
    ("Hypoglycemia", "Type 2 diabetes mellitus with hyperglycemia",
     ("hypoglycemia", "hyperglycemia")),
    ("Hypernatremia", "Hypo-osmolality and hyponatremia", ("hypernatremia", "hyponatremia")),
    ("Tachycardia", "Bradycardia, unspecified", ("tachycardia", "bradycardia")),
    ("Hypertension", "Essential (primary) hypertension", None),
    ("Hypothyroidism", "Hypothyroidism and hyperthyroidism", None),
    ("Hypoxia", "Acute respiratory failure with hypoxia", None),
])
def test_opposites(item, title, expected):
    assert opposite(item, title) == expected
