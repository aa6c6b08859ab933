"""The released MedCalc-Bench outputs (``$CLINEVAL_DATA_DIR/released/medcalc-bench/``) rescored
in process by the workflow's own steps: the plan of a grid with the file as a recorded model,
the data step, the requests, the recorded backend, the scoring step and the table step."""

from __future__ import annotations

import csv
import json
import os
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from clineval.benchmarks import get_benchmark
from clineval.inference.factory import make_backend
from clineval.workflow.plan.build import build_plan
from clineval.workflow.steps.entry import scored_cell, table_texts, with_prompts

CONF = Path(__file__).resolve().parents[1] / "conf"
#: The model's key in the grids below.
MODEL = "released"


def data_dir() -> Path:
    """``$CLINEVAL_DATA_DIR`` (the test skips, saying why, without it)."""
    root = os.environ.get("CLINEVAL_DATA_DIR")
    if not root:
        pytest.skip("set CLINEVAL_DATA_DIR to the shared data (released/medcalc-bench/ and "
                    "medcalc-bench-v1.0/) to rescore the released MedCalc-Bench outputs")
    return Path(root)


def shared(relative: str) -> Path:
    """A file of the shared data (the test skips, naming it, when it is absent)."""
    path = data_dir() / relative
    if not path.is_file():
        pytest.skip(f"CLINEVAL_DATA_DIR is set but {path} does not exist")
    return path


def released(name: str) -> Path:
    return shared(f"released/medcalc-bench/{name}")


def file_rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def rows_of(csv_path: Path, numbers: Collection[int], out: Path) -> Path:
    """The test set's rows of these ``Row Number``s, as the official CSV."""
    with csv_path.open(newline="", encoding="utf-8") as source:
        reader = csv.DictReader(source)
        kept = [row for row in reader if int(row["Row Number"]) in numbers]
        fields = reader.fieldnames
    assert fields is not None and len(kept) == len(numbers)
    with out.open("w", newline="", encoding="utf-8") as target:
        writer = csv.DictWriter(target, fieldnames=fields)
        writer.writeheader()
        writer.writerows(kept)
    return out


@dataclass
class Rescored:
    """What the workflow's steps made of a released file."""

    generations: list[dict[str, Any]]
    rows: list[dict[str, Any]]
    summary: dict[str, Any]
    table: str  # the table's Markdown
    records: list[dict[str, Any]]  # the table's numbers (its CSV, read back)

    def verdicts(self, extraction: str = "official") -> dict[str, tuple[str, str]]:
        """Example id -> (the file's Result, clineval's verdict)."""
        ours = {r["id"]: "Correct" if r[extraction]["correct"] else "Incorrect"
                for r in self.rows}
        return {g["id"]: (g["recorded_verdict"], ours[g["id"]]) for g in self.generations}

    def disagreements(self, extraction: str = "official") -> list[str]:
        return [key for key, (theirs, ours) in self.verdicts(extraction).items()
                if theirs != ours]

    def cell(self, category: str, extraction: str = "official") -> tuple[int, int]:
        """The table's (correct, n) of a category (``overall``: the Avg. column)."""
        found = [r for r in self.records if (r["category"], r["extraction"]) ==
                 (category, extraction)]
        assert len(found) == 1, (category, extraction)
        return int(found[0]["correct"]), int(found[0]["n"])


def rescore(tmp_path: Path, file: Path, mode: str, *, rows: Collection[int] | None = None,
            display: str = "Released", exemplars: bool = False) -> Rescored:
    """Rescore ``file`` (layout ``medcalc_official``) in ``mode`` on the v1.0 test set, or on
    its rows of these ``Row Number``s; ``exemplars``: the official one-shot exemplars."""
    test_csv = shared("medcalc-bench-v1.0/test_data.csv")
    if rows is not None:
        test_csv = rows_of(test_csv, rows, tmp_path / "test_data.csv")
    overrides = [
        "grid=medcalc_paper", f"grid.select.models=[{MODEL}]", f"grid.select.modes=[{mode}]",
        "grid.select.tables=[medcalc_table2]", f"tasks.medcalc.data.path={test_csv}",
        f"+model@models.{MODEL}=recorded", f"models.{MODEL}.recorded.path={file}",
        f"models.{MODEL}.recorded.layout=medcalc_official",
        f"models.{MODEL}.display_name={display}",
    ]
    if exemplars:
        official = shared("medcalc-bench-v1.0/one_shot_finalized_explanation.json")
        overrides += ["tasks.medcalc.exemplars.source=official",
                      f"tasks.medcalc.exemplars.official_path={official}"]
    plan = build_plan(CONF, overrides, results=tmp_path / "results", data_root=tmp_path / "data")
    (cell,) = plan.cells
    ids = {key: entry["identity"] for key, entry in plan.identities.items()}
    data = ids["data/medcalc"]
    bench = get_benchmark(data["benchmark"])
    sources = {role: Path(entry["path"]) for role, entry in data["sources"].items()}
    examples, shown = bench.derive({"data": data["data"], "exemplars": data["exemplars"],
                                    "version": data["version"]}, sources)
    asked = ids[f"{cell.path}/requests"]
    requests = bench.build_requests(asked["task"], asked["mode"], asked["templates"], examples,
                                    shown, asked.get("prompt_kind", "chat"))
    backend = make_backend(ids[f"{cell.path}/generation"]["model"], None)
    generations = [{"id": r["id"], **g.as_dict()}
                   for r, g in zip(requests, backend.generate(requests), strict=True)]
    scoring = f"{cell.path}/scoring"
    scored, document = scored_cell(plan.identities[scoring]["sha"], ids[scoring], examples,
                                   with_prompts(generations, requests, file), file, {})
    texts = table_texts(ids["tables/medcalc_table2"], [document], {cell.path: scored})
    records = list(csv.DictReader(texts["csv"].splitlines()))
    return Rescored(generations, scored, document["summary"], texts["md"], records)
