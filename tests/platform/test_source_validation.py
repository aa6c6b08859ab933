"""Every benchmark's source files are validated when they are read (issue 25).

For each of the five benchmarks, the project's synthetic sources in the official format (the
credentialed formats too) are written, one file is broken in one way (a wrong or missing
column, a wrong type, a value out of range, an empty required field, a truncated last row, a
duplicate id) and the benchmark's ``derive`` must stop with a ``DataError`` whose message names
the file, the row or line, the field and what was expected.
"""

from __future__ import annotations

import copy
import csv
import gzip
import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from clineval.benchmarks import get_benchmark
from clineval.errors import DataError

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def tasks() -> dict:
    from clineval.workflow.plan.build import build_plan

    return build_plan(REPO / "conf", []).cfg["tasks"]


def _open(path: Path, mode: str):
    if path.suffix == ".gz":
        return gzip.open(path, mode + "t", encoding="utf-8", newline="")
    return path.open(mode, encoding="utf-8", newline="")


def edit_csv(change: Callable[[list[list[str]]], None]) -> Callable[[Path], None]:
    def edit(path: Path) -> None:
        with _open(path, "r") as handle:
            rows = list(csv.reader(handle))
        change(rows)
        with _open(path, "w") as handle:
            csv.writer(handle).writerows(rows)

    return edit


def set_cell(column: str, value: str, row: int = 1,
             where: Callable[[dict[str, str]], bool] | None = None) -> Callable[[Path], None]:
    """Set ``column`` of the ``row``-th record (or the first record ``where`` holds)."""
    def change(rows: list[list[str]]) -> None:
        header = rows[0]
        index = row if where is None else next(
            i for i, r in enumerate(rows[1:], 1) if where(dict(zip(header, r, strict=True))))
        rows[index][header.index(column)] = value

    return edit_csv(change)


def rename_column(column: str) -> Callable[[Path], None]:
    def change(rows: list[list[str]]) -> None:
        rows[0][rows[0].index(column)] = column + "_renamed"

    return edit_csv(change)


def duplicate_id(column: str) -> Callable[[Path], None]:
    def change(rows: list[list[str]]) -> None:
        index = rows[0].index(column)
        rows[2][index] = rows[1][index]

    return edit_csv(change)


def truncate(path: Path) -> None:
    """Cut the file in the middle of its last line (a download that stopped)."""
    with _open(path, "r") as handle:
        text = handle.read().rstrip("\n")
    start = text.rfind("\n") + 1
    with _open(path, "w") as handle:
        handle.write(text[: start + max(1, (len(text) - start) // 2)])


def edit_jsonl(change: Callable[[list[dict]], None]) -> Callable[[Path], None]:
    def edit(path: Path) -> None:
        records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
                   if line.strip()]
        change(records)
        path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records),
                        encoding="utf-8")

    return edit


def _kb_disease(records: list[dict]) -> dict:
    return next(r for r in records if "aspects" in r)


def _kb_set(key: str, value: object) -> Callable[[list[dict]], None]:
    def change(records: list[dict]) -> None:
        disease = _kb_disease(records)
        if value is None:
            del disease[key]
        else:
            disease[key] = value

    return change


def _kb_aspect(aspect: str, value: object) -> Callable[[list[dict]], None]:
    def change(records: list[dict]) -> None:
        _kb_disease(records)["aspects"][aspect] = value

    return change


def _kb_duplicate(records: list[dict]) -> None:
    diseases = [r for r in records if "aspects" in r]
    diseases[1]["id"] = diseases[0]["id"]


def _mednli_duplicate(records: list[dict]) -> None:
    records[1]["pairID"] = records[0]["pairID"]


MEDCALC_DECIMAL = {"where": lambda r: r["Output Type"] == "decimal"}
# (case id, task, source role, how the file is broken, field named, words the message has)
CASES = [
    ("medcalc-column", "medcalc", "csv", rename_column("Ground Truth Answer"),
     "Ground Truth Answer", "missing column"),
    ("medcalc-type", "medcalc", "csv",
     set_cell("Ground Truth Answer", "twelve", **MEDCALC_DECIMAL), "Ground Truth Answer",
     "expected a number, got 'twelve'"),
    ("medcalc-range", "medcalc", "csv", set_cell("Calculator ID", "700"), "Calculator ID",
     "expected an integer in [2, 69]"),
    ("medcalc-limits", "medcalc", "csv", set_cell("Lower Limit", "1e9", **MEDCALC_DECIMAL),
     "Ground Truth Answer", "within [Lower Limit, Upper Limit]"),
    ("medcalc-required", "medcalc", "csv", set_cell("Patient Note", " "), "Patient Note",
     "expected a value"),
    ("medcalc-truncated", "medcalc", "csv", truncate, None, "truncated"),
    ("medcalc-duplicate", "medcalc", "csv", duplicate_id("Row Number"), "Row Number",
     "duplicate"),
    ("clue-column", "clue_problem_summary", "test", rename_column("Assessment"), "Assessment",
     "missing column"),
    ("clue-type", "clue_medisumcode", "diagnoses_icd", set_cell("seq_num", "first"), "seq_num",
     "expected an integer, got 'first'"),
    ("clue-range", "clue_medisumcode", "diagnoses_icd", set_cell("icd_version", "11"),
     "icd_version", "expected 9 or 10"),
    ("clue-choice", "clue_mednli", "test",
     edit_jsonl(lambda rs: rs[0].update(gold_label="maybe")), "gold_label", "expected one of"),
    ("clue-required", "clue_problem_summary", "test", set_cell("File ID", ""), "File ID",
     "expected a value"),
    ("clue-truncated", "clue_problem_summary", "test", truncate, None, "truncated"),
    ("clue-duplicate", "clue_mednli", "test", edit_jsonl(_mednli_duplicate), "pairID",
     "duplicate"),
    ("clibench-column", "clibench_diagnoses", "admissions", rename_column("admittime"),
     "admittime", "missing column"),
    ("clibench-type", "clibench_diagnoses", "patients", set_cell("anchor_age", "old"),
     "anchor_age", "expected an integer in [0, 91], got 'old'"),
    ("clibench-range", "clibench_diagnoses", "patients", set_cell("anchor_age", "-4"),
     "anchor_age", "expected an integer in [0"),
    ("clibench-required", "clibench_diagnoses", "admissions", set_cell("admittime", ""),
     "admittime", "expected a date and time"),
    ("clibench-truncated", "clibench_diagnoses", "diagnoses_icd", truncate, None, "truncated"),
    ("clibench-duplicate", "clibench_diagnoses", "admissions", duplicate_id("hadm_id"),
     "hadm_id", "duplicate"),
    ("meddisk-column", "meddisk_en", "kb", edit_jsonl(_kb_aspect("colour", {"en": "red"})),
     "aspects", "unknown aspect"),
    ("meddisk-type", "meddisk_en", "kb", edit_jsonl(_kb_aspect("severity_level", "high")),
     "aspects.severity_level", "expected an integer (a numeric aspect"),
    ("meddisk-range", "meddisk_en", "kb", edit_jsonl(_kb_aspect("severity_level", 9)),
     "aspects.severity_level", "allowed values"),
    ("meddisk-required", "meddisk_en", "kb", edit_jsonl(_kb_set("name", None)), "name",
     "expected"),
    ("meddisk-truncated", "meddisk_en", "kb", truncate, None, "truncated"),
    ("meddisk-duplicate", "meddisk_en", "kb", edit_jsonl(_kb_duplicate), "id",
     "is also on line 2: expected each disease id once"),
    ("medeval-column", "medeval_abnormality", "sentences", rename_column("sentence"),
     "sentence", "missing column"),
    ("medeval-type", "medeval_codes", "chexpert", set_cell("Edema", "yes"), "Edema",
     "'yes' is not 1.0, 0.0, -1.0 or empty (expected one of them)"),
    ("medeval-range", "medeval_abnormality", "sentences", set_cell("abnormal", "severe"),
     "abnormal", "'severe' is not one of abnormal, normal or empty (expected"),
    ("medeval-required", "medeval_abnormality", "sentences", set_cell("sentence", ""),
     "sentence", "empty: expected a value"),
    ("medeval-truncated", "medeval_abnormality", "sentences", truncate, None, "truncated"),
    ("medeval-duplicate", "medeval_abnormality", "sentences", duplicate_id("id"), "id",
     "appears twice: expected each id once"),
]


#: Settings a case needs: MedDisK's numeric aspects take any integer unless the registry lists
#: their values (the paper's severity scale is not known).
SETTINGS = {"meddisk-range": lambda spec: spec["data"]["aspects"]["severity_level"].update(
    values=[1, 2, 3])}


def demo_sources(tasks: dict, task: str, root: Path, case: str = ""
                 ) -> tuple[object, dict, dict[str, Path]]:
    spec = copy.deepcopy(tasks[task])
    spec["data"]["source"] = "demo"
    if case in SETTINGS:
        SETTINGS[case](spec)
    bench = get_benchmark(spec["benchmark"])
    sources = bench.source_files(spec, root, task)
    bench.write_demo(spec, sources)
    return bench, spec, sources


@pytest.mark.parametrize("task", sorted({case[1] for case in CASES}))
def test_the_synthetic_sources_pass(tasks, task, tmp_path):
    bench, spec, sources = demo_sources(tasks, task, tmp_path)
    examples, _ = bench.derive(spec, sources)
    assert examples


@pytest.mark.parametrize(("case", "task", "role", "breaks", "field", "words"), CASES,
                         ids=[case[0] for case in CASES])
def test_a_broken_source_names_file_row_field_and_expectation(tasks, tmp_path, case, task, role,
                                                              breaks, field, words):
    bench, spec, sources = demo_sources(tasks, task, tmp_path, case)
    breaks(sources[role])
    with pytest.raises(DataError) as caught:
        bench.derive(spec, sources)
    message = str(caught.value)
    assert message.startswith(str(sources[role])), message
    assert ", row " in message or ", line " in message, message
    if field is not None:
        assert f"field {field!r}" in message, message
    else:  # a cut row names the field it stops in
        assert ", field '" in message, message
    assert words in message, message
    assert "expected" in message, message


def test_medcalc_exemplar_json_names_the_entry_and_field(tmp_path):
    from clineval.benchmarks.medcalc.loader import read_exemplar_json
    from clineval.benchmarks.medcalc.synthetic import write_demo_files

    path = tmp_path / "one_shot_finalized_explanation.json"
    write_demo_files(tmp_path / "test_data.csv", path, [2, 3], 1, 0)
    assert [e["id"] for e in read_exemplar_json(path)] == ["official-2", "official-3"]
    data = json.loads(path.read_text(encoding="utf-8"))
    del data["3"]["Response"]["answer"]
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(DataError, match=r"explanation.json, field '3.Response.answer': "
                                         r"expected a value"):
        read_exemplar_json(path)
    path.write_text(json.dumps({"two": data["2"]}), encoding="utf-8")
    with pytest.raises(DataError, match=r"field 'two': expected a calculator id"):
        read_exemplar_json(path)


def test_a_cut_json_document_names_its_line_and_says_it_is_truncated(tasks, tmp_path):
    """LongHealth's benchmark_v5.json is one JSON document: a cut names the line it stops on."""
    bench, spec, sources = demo_sources(tasks, "clue_longhealth_task1", tmp_path)
    path = sources["path"]
    path.write_text(path.read_text(encoding="utf-8")[:-200], encoding="utf-8")
    with pytest.raises(DataError, match=r"benchmark_v5\.json, line \d+: invalid JSON .*expected a "
                                        r"complete JSON document .*truncated"):
        bench.derive(spec, sources)


DATA = os.environ.get("CLINEVAL_DATA_DIR")


@pytest.mark.skipif(not DATA, reason="set CLINEVAL_DATA_DIR to the directory of the real files")
def test_the_real_files_pass_their_checks():
    """The published files conform: MedCalc-Bench v1.0 (1,047 rows) and its exemplars, the
    physician-validated labels (dev half), MeQSum, the Open-i reports, mimic-code's LOINC map."""
    from clineval.benchmarks.clue.loaders_meqsum import read_meqsum
    from clineval.benchmarks.medcalc.labels import read_label_file
    from clineval.benchmarks.medcalc.loader import read_exemplar_json, read_test_csv
    from clineval.benchmarks.medeval.openi import read_openi_csv
    from clineval.metrics.ontologies.loinc import read_itemid_map

    root = Path(str(DATA))
    assert len(read_test_csv(root / "medcalc-bench-v1.0/test_data.csv")) == 1047
    assert len(read_exemplar_json(root / "medcalc-bench-v1.0/one_shot_finalized_explanation.json")
               ) == 55
    assert len(read_label_file(root / "medcalc-corrected-ye2025/dev.csv")[1]) == 457
    assert len(read_meqsum(root / "meqsum/MeQSum_ACL2019_BenAbacha_Demner-Fushman.xlsx")) == 1000
    assert len(read_openi_csv(root / "openi-iu-xray/indiana_reports.csv")) > 3000
    assert len(read_itemid_map(root / "mimic-code/d_labitems_to_loinc.csv").loinc) > 1000
