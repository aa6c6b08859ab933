"""MedCalc-Bench on the workflow: sources, derived examples, requests, scores, Table 2."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

from clineval.benchmarks.base.headline import LeaderboardColumn, Metric
from clineval.benchmarks.base.reading import Reading
from clineval.benchmarks.base.sources import demo_or_official, require
from clineval.benchmarks.base.standard import StandardBenchmark
from clineval.benchmarks.medcalc import baselines, labels, prompts, scoring, synthetic, tables
from clineval.benchmarks.medcalc.calculators import CALCULATORS, Conventions
from clineval.benchmarks.medcalc.extract import EXTRACTIONS
from clineval.benchmarks.medcalc.loader import exemplar_records, read_exemplar_json, read_test_csv
from clineval.benchmarks.medcalc.reading import READ
from clineval.benchmarks.medcalc.reading import reading as row_reading
from clineval.errors import ConfigError
from clineval.io import Record
from clineval.metrics import aggregate
from clineval.tables.format import sample_sizes
from clineval.tables.render import Table

BENCHMARK_NAME = "MedCalc-Bench"


def conventions(task: Record) -> Conventions:
    """The task's calculator conventions (``scoring.conventions`` + ``convention_overrides``)."""
    settings = task.get("scoring") or {}
    try:
        return Conventions.from_settings(settings.get("conventions"),
                                         settings.get("convention_overrides"))
    except ValueError as err:
        raise ConfigError(f"tasks.<medcalc>.scoring: {err}") from err


def _labels_note(task: Record, cells: list[Record]) -> str:
    """Which labels the table's scores used (``scoring.labels``), and how many rows."""
    settings = BENCHMARK.settings(task).scoring
    source = settings.labels
    if source == "dataset":
        return "Labels: the dataset's Ground Truth Answer, Lower Limit and Upper Limit."
    if source == "file":
        kept = ("dropped" if settings.missing_labels == "drop"
                else "kept with the dataset label")
        parts = sorted({
            f"{c['summary']['n']} rows scored ({c['summary']['labels']['not_applicable']} N/A, "
            f"{c['summary']['labels']['missing']} row(s) not in the file {kept})"
            for c in cells
        })
        name = Path(str(settings.label_file)).name
        return (f"Labels: from the label file {name} ({cells[0]['summary']['labels']['layout']} "
                f"layout), {'; '.join(parts)}; N/A rows count as correct only when the answer "
                "abstains.")
    rejected = sorted({c["summary"]["labels"]["dataset_label_rejected"] for c in cells})
    return (
        "Labels: recomputed by the project's calculators from each row's Relevant Entities "
        f"with the {conventions(task).describe()} conventions (limits 0.95x-1.05x for "
        f"decimals); the dataset's label rejects the recomputed answer in "
        f"{', '.join(map(str, rejected))} row(s) (docs/medcalc-errata.md)."
    )


def _replace_leaked(
    exemplars: list[Record], seed: int, notes: dict[str, list[str]]
) -> list[Record]:
    """Swap exemplars whose note is also a test note for the project's own (``replaced`` = old id).

    The official v1.0 exemplar file shares its note with a test row for calculators 2, 11, 23,
    36, 44, 56, 57, 65 and 66; a one-shot prompt would then show the answer to that row.
    """
    leaked = [e["calculator_id"] for e in exemplars if e["same_note_as"]]
    if not leaked:
        return exemplars
    raw = synthetic.generate_exemplars(leaked, seed)
    own = {
        record["calculator_id"]: record
        for record in exemplar_records({str(k): v for k, v in raw.items()}, "project", "<project>")
    }
    replaced = []
    for exemplar in exemplars:
        if exemplar["same_note_as"]:
            new = own[exemplar["calculator_id"]]
            exemplar = {
                **new, "same_note_as": notes.get(new["note"], []), "replaced": exemplar["id"]
            }
        replaced.append(exemplar)
    return replaced


class MedCalcBenchmark(StandardBenchmark):
    name = "medcalc"
    # The versions, with what changed and why: docs/medcalc.md, "Versions".
    data_version = "1"
    scoring_version = "7"
    baselines = ("oracle", "constant")
    answered_reading = "official"
    truncatable = ("note",)
    #: Per extraction setting, the overall accuracy (its aggregate: scoring.py, per setting).
    metrics = tuple(Metric(f"accuracy.{setting}", f"Accuracy ({setting} extraction)",
                           outcome=f"{setting}.correct") for setting in EXTRACTIONS)
    leaderboard = LeaderboardColumn("MedCalc-Bench (accuracy %, zero-shot)", "zero_shot",
                                    "accuracy.official", scale=100,
                                    about="MedCalc-Bench accuracy")

    def source_files(self, task: Record, data_root: Path, task_name: str) -> dict[str, Path]:
        data, exemplars = task["data"], task.get("exemplars") or {}
        sources = demo_or_official(
            task, task_name, data_root, {"csv": "test_data.csv"},
            lambda: {"csv": require(
                data.get("path"), task_name, "MedCalc-Bench's test_data.csv",
                "github.com/ncbi-nlp/MedCalc-Bench (dataset/; or set CLINEVAL_MEDCALC_CSV)",
                f"tasks.{task_name}.data.path", BENCHMARK_NAME)},
        )
        if exemplars.get("source") == "official":
            sources["exemplars"] = require(
                exemplars.get("official_path"), task_name,
                "the official one-shot exemplars one_shot_finalized_explanation.json",
                "MedCalc-Bench's evaluation/ folder (or set CLINEVAL_MEDCALC_EXEMPLARS)",
                f"tasks.{task_name}.exemplars.official_path", BENCHMARK_NAME)
        return sources

    def write_demo(self, task: Record, sources: dict[str, Path]) -> None:
        demo = task["data"]["demo"]
        rows = synthetic.generate_rows(
            demo.get("calculators"), int(demo["per_calculator"]), int(demo["seed"])
        )
        synthetic.write_csv(rows, sources["csv"])

    def derive(self, task: Record, sources: dict[str, Path]) -> tuple[list[Record], list[Record]]:
        typed = self.settings(task)
        examples = read_test_csv(sources["csv"], typed.data.version)
        settings = typed.exemplars
        if settings.source == "official":
            exemplars = read_exemplar_json(sources["exemplars"])
        else:
            ids = sorted({e["calculator_id"] for e in examples} & set(CALCULATORS))
            raw = synthetic.generate_exemplars(ids, settings.seed)
            exemplars = exemplar_records(
                {str(k): v for k, v in raw.items()}, "project", "<project>"
            )
        notes: dict[str, list[str]] = {}
        for example in examples:
            notes.setdefault(example["note"], []).append(example["id"])
        for exemplar in exemplars:
            exemplar["same_note_as"] = notes.get(exemplar["note"], [])
        if settings.replace_leaked:
            exemplars = _replace_leaked(exemplars, settings.seed, notes)
        return examples, exemplars

    def build_requests(
        self,
        task: Record,
        mode: Record,
        templates: Record,
        examples: list[Record],
        exemplars: list[Record],
        prompt_kind: str = "chat",
    ) -> list[Record]:
        return prompts.build_requests(task, mode, templates, examples, exemplars)

    def restated_texts(self, example: Record) -> list[str]:
        """The question: an answer that restates it before its value copies nothing."""
        return [str(example["question"])] if example.get("question") else []

    def baseline(self, name: str, task: Record, examples: list[Record]) -> Callable[[Record], str]:
        return baselines.get(name, (task.get("scoring") or {}).get("baselines") or {})

    def scoring_inputs(self, task: Record, task_name: str, data_root: Path
                       ) -> dict[str, Path]:
        """The label file, when the task scores against one (``scoring.labels: file``)."""
        settings = task.get("scoring") or {}
        if settings.get("labels") == "file" and settings.get("label_file"):
            return {"labels": Path(settings["label_file"])}
        return {}

    def score(
        self, task: Record, examples: list[Record], generations: list[Record]
    ) -> tuple[list[Record], Record]:
        settings = scoring.check_extractions(task["scoring"]["extractions"])
        source = labels.check_label_source(self.settings(task).scoring.labels)
        outputs = {g["id"]: g["output"] for g in generations}
        file_stats: Record = {}
        if source == "file":
            examples, file_stats = self._file_labels(task, examples)
        rules = conventions(task)
        rows = [
            scoring.score_row(labels.relabel(e, source, rules), outputs[e["id"]], settings)
            for e in examples
        ]
        summary = scoring.summarize(rows, settings)
        summary["labels"] = {
            "source": source,
            "conventions": rules.describe(),
            "recomputed": sum(r["label_source"] == "recomputed" for r in rows),
            "dataset_label_rejected": sum(not r["dataset_label_agrees"] for r in rows),
            **file_stats,
        }
        return rows, summary

    @staticmethod
    def _file_labels(task: Record, examples: list[Record]) -> tuple[list[Record], Record]:
        """The examples with the label file's labels, and what the join found."""
        settings = BENCHMARK.settings(task).scoring
        path = settings.label_file
        if not path:
            raise ConfigError(
                "tasks.<medcalc>.scoring.labels=file needs scoring.label_file: a label CSV in "
                "the v1.x layout or the corrected-labels layout (or set CLINEVAL_MEDCALC_LABELS)"
            )
        joined, stats = labels.apply_label_file(examples, Path(path), settings.missing_labels)
        return joined, {"file": str(path), **stats}

    def headline(self, summary: Record) -> dict[str, float | None]:
        """Overall accuracy (a fraction) per extraction setting."""
        return {
            f"accuracy.{setting}": part["overall"]["accuracy"]
            for setting, part in sorted(summary.items())
            if isinstance(part, dict) and "overall" in part
        }

    def headline_source(self, key: str, summary: Record) -> Record:
        """``accuracy.<setting>``: that reading's right examples of the cell's n."""
        setting = key.removeprefix("accuracy.")
        overall = (summary.get(setting) or {}).get("overall") or {}
        if not key.startswith("accuracy.") or "n" not in overall:
            return {}
        return {"view": setting, "n": overall["n"], "right": overall["correct"]}

    def reading(self, row: Record, example: Record) -> Reading:
        return row_reading(row, example)

    def answered(self, row: Record) -> bool | None:
        """The official extraction (the paper's reading, :attr:`answered_reading`) read an
        answer: a value, or an abstention (the explorer's verdict is then right or wrong)."""
        return row["official"]["status"] in READ

    def summarize_rows(self, task: Record, rows: list[Record]) -> Record:
        return scoring.summarize(rows, scoring.check_extractions(task["scoring"]["extractions"]))

    def headline_aggregates(self, task: Record, rows: list[Record]) -> aggregate.Headline:
        return scoring.headline_aggregates(
            scoring.check_extractions(task["scoring"]["extractions"]))

    def outcomes(self, task: Record, rows: list[Record]) -> dict[str, dict[str, int]]:
        """Correct (1) or not (0) per example, for each extraction setting's accuracy."""
        return {f"accuracy.{setting}": {r["id"]: int(r[setting]["correct"]) for r in rows}
                for setting in scoring.check_extractions(task["scoring"]["extractions"])}

    def table(self, spec: Record, cells: list[Record], tasks: dict[str, Record]) -> Table:
        if len(tasks) != 1:
            raise ConfigError(f"a MedCalc-Bench table shows one task, not {', '.join(tasks)}")
        task = next(iter(tasks.values()))
        rows = sample_sizes(((c["display_name"], c["mode"], c["summary"]["n"]) for c in cells),
                            "rows", "mode")
        data_note = (
            f"Data: synthetic demo in the official CSV format (rows scored: {rows}), not the "
            "paper's test set."
            if task["data"]["source"] == "demo"
            else f"Data: MedCalc-Bench v{task['data'].get('version', task['version'])} "
            f"official-format file (rows scored: {rows})."
        )
        return tables.build_table(
            {
                **spec,
                "context_notes": [
                    data_note,
                    _labels_note(task, cells),
                    "Calculator conventions (oracle baseline, recomputed labels): "
                    f"{conventions(task).describe()}.",
                ],
            },
            cells,
        )

    def add_score_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.description = "Score MedCalc-Bench outputs (JSONL rows: row_number, output)."
        parser.add_argument("--data", type=Path, required=True,
                            help="official-format test_data.csv")
        parser.add_argument("--predictions", type=Path, required=True)
        parser.add_argument("--extraction", choices=("official", "robust"), action="append",
                            help="extraction setting(s); default both")
        parser.add_argument("--labels", type=Path,
                            help="score against this label CSV (v1.x or corrected layout) "
                            "instead; rows it lacks are not scored")
        parser.add_argument("--version", default="1.0",
                            help="the data's layout: 1.0 (default), 1.1, 1.2 or verified")
        parser.add_argument("--json", action="store_true", help="one JSON object on stdout")

    def score_external(self, args: argparse.Namespace) -> int:
        from clineval.benchmarks.medcalc.external import score_external

        return score_external(args.data, args.predictions,
                              tuple(args.extraction or ("official", "robust")), args.json,
                              args.labels, args.version)


BENCHMARK = MedCalcBenchmark()
