"""CliBench data: synthetic MIMIC-IV -> cases; leakage, first batch, sampling, truncation."""

from __future__ import annotations

import gzip
import random
from pathlib import Path

import pandas as pd
import pytest
import yaml

from clineval.benchmarks.clibench import cases, prompts, sampling
from clineval.errors import DataError
from clineval.mimic import sections
from clineval.mimic.first_batch import first_batch
from clineval.mimic.synthetic_mimic4 import NOT_IN_FY2021, Layout, write_mimic4

TEMPLATES = yaml.safe_load(Path("conf/templates/clibench.yaml").read_text())
ZERO_SHOT = {"reasoning": False, "exemplars": 0}
ONE_SHOT = {"reasoning": True, "exemplars": 1}
SAMPLE = {"k": 3, "min_per_stratum": 1, "seed": 0}


@pytest.fixture(scope="module")
def layout(tmp_path_factory) -> Layout:
    root = tmp_path_factory.mktemp("mimic4")
    layout = Layout(root)
    write_mimic4(layout, 40, seed=0)
    return layout


def sources(layout: Layout) -> cases.Sources:
    files = {t: layout.table(t) for t in (
        "patients", "admissions", "diagnoses_icd", "procedures_icd", "labevents",
        "prescriptions", "services", "transfers", "discharge", "radiology", "d_icd_diagnoses",
        "d_icd_procedures", "d_labitems")}
    files.update(loinc_hierarchy=layout.loinc_hierarchy, lab_loinc_map=layout.lab_loinc_map,
                 ndc_atc=layout.ndc_atc, atc_titles=layout.atc_titles)
    return cases.Sources(files)


def table(layout: Layout, name: str) -> pd.DataFrame:
    return pd.read_csv(layout.table(name), dtype=str, keep_default_na=False)


def discharge_diagnosis(text: str) -> str:
    return next(body for name, body in sections.split_sections(text)
                if name == "discharge diagnosis")


def test_the_same_seed_writes_the_same_bytes_at_any_time(layout, tmp_path, monkeypatch):
    """The demo's sources are hashed into its records: a gzip header must not carry the time."""
    import time

    monkeypatch.setattr(time, "time", lambda: 2_000_000_000.0)  # gzip's default header stamp
    again = Layout(tmp_path)
    write_mimic4(again, 40, seed=0)
    written = sorted(p.relative_to(layout.root) for p in layout.root.rglob("*") if p.is_file())
    assert any(p.suffix == ".gz" for p in written)
    for name in written:
        assert (again.root / name).read_bytes() == (layout.root / name).read_bytes(), name


def test_no_discharge_diagnosis_text_reaches_a_prompt(layout):
    examples, exemplars, _ = cases.derive("diagnoses", {"sample": SAMPLE}, sources(layout), 1)
    notes = table(layout, "discharge").set_index("hadm_id")["text"]
    requests = prompts.build_requests(ONE_SHOT, TEMPLATES, examples, exemplars, 1)
    assert examples and exemplars
    for example, request in zip(examples, requests, strict=True):
        text = "\n".join(m["content"] for m in request["messages"])
        section = discharge_diagnosis(notes[str(example["hadm_id"])])
        primary = section.split("PRIMARY:")[1].split("SECONDARY:")[0].strip()
        assert "SECONDARY:" in section and "\n\n" in section  # a multi-paragraph section
        assert primary not in text
        assert "SECONDARY:" not in text and "Discharge Diagnosis" not in text
        assert "Discharge Medications" not in text and "Brief Hospital Course" not in text
        assert "DISCHARGE PHYSICAL EXAM" not in text


def test_the_public_codes_paragraph_cleaning_leaks(layout):
    examples, _, _ = cases.derive("diagnoses", {"sample": SAMPLE, "record": "paragraphs"},
                                  sources(layout), 0)
    assert any("SECONDARY:" in e["segments"]["record"] for e in examples)


def test_diagnosis_targets_drop_icd9_and_unknown_codes(layout):
    codes = table(layout, "diagnoses_icd")
    icd9 = set(codes.loc[codes["icd_version"] == "9", "hadm_id"].astype(int))
    invalid = set(codes.loc[codes["icd_code"] == NOT_IN_FY2021, "hadm_id"].astype(int))
    assert icd9 and invalid
    admissions = cases._admissions(sources(layout))
    gold, _ = cases.targets("diagnoses", cases.data_settings({}), sources(layout), admissions,
                            set(admissions.index))
    assert not (set(gold) & (icd9 | invalid))
    assert any("I10" in g for g in gold.values()) or any("S72.001A" in g for g in gold.values())
    assert all("." in c or len(c) == 3 for g in gold.values() for c in g)


def test_first_batch_rules(layout):
    admissions = cases._admissions(sources(layout))
    labs = table(layout, "labevents")
    paper = first_batch(layout.table("labevents"), "labevents", "charttime", "itemid",
                        admissions["admit"], "paper")
    code = first_batch(layout.table("labevents"), "labevents", "charttime", "itemid",
                       admissions["admit"], "code")
    hadm = int(admissions.index[0])
    rows = labs[labs["hadm_id"] == str(hadm)].copy()
    rows["time"] = pd.to_datetime(rows["charttime"])
    admit = admissions.at[hadm, "admit"]
    first = rows[rows["time"] >= admit]["time"].min()
    assert set(paper[hadm]) == set(rows.loc[rows["time"] == first, "itemid"])
    pre = set(rows.loc[rows["time"] < admit, "itemid"])
    late = set(rows.loc[rows["time"] > admit + pd.Timedelta(hours=24), "itemid"])
    assert pre and pre <= set(code[hadm])
    assert late - set(code[hadm]) - pre - set(paper[hadm])  # +30 h and +3 d rows left out


def test_sampling_is_seeded_and_order_free():
    branch = list(range(100, 160))
    label_of = {h: {f"c{h % 5}"} for h in branch}
    services = {h: [f"s{h % 3}"] for h in branch}
    units = {h: [f"u{h % 4}"] for h in branch}
    sample = {"k": 2, "min_per_stratum": 4, "seed": 7}
    first = sampling.select(branch, label_of, services, units, sample, "diagnoses")
    shuffled = branch[:]
    random.Random(1).shuffle(shuffled)
    assert sampling.select(shuffled, label_of, services, units, sample, "diagnoses") == first
    assert sampling.select(branch, label_of, services, units, {**sample, "seed": 8},
                           "diagnoses") != first
    assert all(sum(f"s{i}" in services[h] for h in first) >= 4 for i in range(3))


def test_exemplars_are_patient_disjoint_from_examples(layout):
    examples, exemplars, facts = cases.derive("prescriptions", {"sample": SAMPLE},
                                              sources(layout), 3)
    assert {e["subject_id"] for e in examples}.isdisjoint({x["subject_id"] for x in exemplars})
    assert facts["training_pool"] >= len(exemplars) == 3
    assert all(e["frequency_baseline"] for e in examples)


def test_history_is_the_previous_admissions_diagnoses(layout):
    examples, _, _ = cases.derive("diagnoses", {"sample": {**SAMPLE, "k": 40}},
                                  sources(layout), 0)
    with_history = [e for e in examples if e["history"]]
    assert with_history
    prompt = prompts.render(with_history[0], ZERO_SHOT, TEMPLATES, [])
    assert "[DIAGNOSES AT THE PREVIOUS ADMISSION]" in prompt[1]["content"]


def test_proportional_truncation_cuts_every_segment_by_the_same_share():
    example = {"segments": {"record": "r" * 1000, "radiology": "x" * 400, "labs": "l" * 200}}
    full = prompts.joined(example)
    cut = prompts.shortened(example, full[: len(full) // 2])
    ratio = cut["cut_ratio"]
    assert ratio == pytest.approx(0.5, abs=0.01)
    assert [len(cut["segments"][s]) for s in prompts.SEGMENTS] == [
        int(1000 * ratio), int(400 * ratio), int(200 * ratio)]


def test_reader_errors_name_file_row_and_column(layout, tmp_path):
    bad = tmp_path / "labevents.csv.gz"
    with gzip.open(layout.table("labevents"), "rt") as handle:
        lines = handle.read().splitlines()
    fields = lines[3].split(",")
    fields[2] = "x12"
    lines[3] = ",".join(fields)
    with gzip.open(bad, "wt") as handle:
        handle.write("\n".join(lines) + "\n")
    admissions = cases._admissions(sources(layout))
    with pytest.raises(DataError, match=r"labevents.csv.gz, row 4, field 'hadm_id'"):
        first_batch(bad, "labevents", "charttime", "itemid", admissions["admit"])
