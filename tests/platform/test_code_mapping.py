"""Answers -> codes: item splitting, explicit codes, exact titles, the public scorer's parsing."""

from __future__ import annotations

from clineval.metrics.code_mapping import Candidates, Mapper, split_items, split_items_code
from clineval.metrics.ontologies import systems

TITLES = {"I10": "Essential (primary) hypertension", "E11.9": "Type 2 diabetes mellitus "
          "without complications"}


def test_items_drop_markers_headings_and_blank_lines():
    text = "Here are the diagnoses:\n\n1. Hypertension\n- Diabetes\n * Sepsis \n\n"
    assert split_items(text) == ["Hypertension", "Diabetes", "Sepsis"]


def test_paper_parsing_sees_undotted_codes_the_public_scorer_misses():
    mapper = Mapper(systems.ICD10CM, Candidates.from_titles(TITLES))
    items = mapper.map("- Hypertension (ICD-10-CM: I10)\n- Metastatic lung adenocarcinoma "
                       "(C34.90)\n- essential (PRIMARY) hypertension")
    assert [(i.codes, i.how) for i in items] == [(("I10",), "code"), (("C34.90",), "code"),
                                                 (("I10",), "title")]


def test_public_scorer_parsing():
    # opens with a list marker: the block before the first blank line, split on lines
    assert split_items_code("1. A\n2. B\n\nNote: C") == ["A", "B"]
    # a preamble: the block after the first blank line; bullets kept
    assert split_items_code("Diagnoses are\n\n- A\n- B") == ["- A", "- B"]
    assert split_items_code("1. A 2. B 3. C") == ["A", "B", "C"]
    mapper = Mapper(systems.ICD10CM, Candidates.from_titles(TITLES), parsing="code")
    items = mapper.map("1. Hypertension (I10)\n2. Type 2 diabetes mellitus without "
                       "complications\n3. Lung cancer C34.90")
    assert [i.how for i in items] == ["embedding", "title", "code"]
    assert items[2].codes == ("C34.90",)
