"""The MCQA benchmark on the workflow: only what differs from ``StandardBenchmark``."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import ClassVar

from clineval.benchmarks.base.standard import OfficialFile, StandardBenchmark
from clineval.benchmarks.mcqa import extract, formats, synthetic
from clineval.io import Record
from clineval.metrics import aggregate


class McqaBenchmark(StandardBenchmark):
    name = "mcqa"
    scoring_version = "2"  # 2: a letter whose text names another option is no answer
    demo_files: ClassVar[Mapping[str, str]] = {"questions": "questions.jsonl"}
    official_files: ClassVar[Mapping[str, OfficialFile]] = {"questions": OfficialFile(
        "path", "a question file (JSON Lines: question, options, answer letter)",
        "your copy of the benchmark (docs/extending.md describes the format)")}
    accuracies: ClassVar[Mapping[str, str]] = {"accuracy": "correct"}
    metric_labels: ClassVar[Mapping[str, str]] = {"accuracy": "Accuracy", "answered": "Answered"}

    def write_demo(self, task: Record, sources: dict[str, Path]) -> None:
        demo = task["data"].get("demo") or {}
        questions = synthetic.generate(int(demo.get("n", 16)), int(demo.get("seed", 0)))
        formats.write_questions(questions, sources["questions"])

    def read_examples(self, task: Record, sources: dict[str, Path]) -> list[Record]:
        return formats.read_questions(sources["questions"])

    def prompt_values(self, example: Record) -> dict[str, str]:
        options = "\n".join(f"{k}. {v}" for k, v in example["options"].items())
        return {"question": example["question"], "options": options}

    def answer_values(self, exemplar: Record) -> dict[str, str]:
        letter = exemplar["answer"]
        return {"answer": letter, "answer_text": exemplar["options"][letter]}

    def score_row(self, task: Record, example: Record, output: str) -> Record:
        predicted = extract.answer_letter(output, example["options"])
        return {"id": example["id"], "gold": example["answer"], "predicted": predicted,
                "answered": predicted is not None, "correct": predicted == example["answer"]}

    def headline_aggregates(self, task: Record, rows: list[Record]) -> aggregate.Headline:
        return {"accuracy": aggregate.Shown(aggregate.Mean(lambda r: float(r["correct"]))),
                "answered": aggregate.Shown(aggregate.Mean(lambda r: float(r["answered"])))}


BENCHMARK = McqaBenchmark()
