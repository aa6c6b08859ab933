"""The MCQA benchmark on the workflow: only what differs from ``StandardBenchmark``."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import ClassVar

from clineval.benchmarks.base.headline import LeaderboardColumn, Metric
from clineval.benchmarks.base.standard import OfficialFile, StandardBenchmark
from clineval.benchmarks.mcqa import extract, formats, synthetic
from clineval.io import Record
from clineval.metrics.aggregate import Mean


class McqaBenchmark(StandardBenchmark):
    name = "mcqa"
    # The versions, with what changed and why: docs/extending.md, "Inside the repository".
    scoring_version = "3"
    demo_files: ClassVar[Mapping[str, str]] = {"questions": "questions.jsonl"}
    official_files: ClassVar[Mapping[str, OfficialFile]] = {"questions": OfficialFile(
        "path", "a question file (JSON Lines: question, options, answer letter)",
        "your copy of the benchmark (docs/extending.md describes the format)")}
    metrics = (
        Metric("accuracy", "Accuracy", Mean(lambda r: float(r["correct"])), outcome="correct"),
        Metric("answered", "Answered", Mean(lambda r: float(r["answered"]))),
    )
    leaderboard = LeaderboardColumn("Medical MCQA (accuracy %, zero-shot)", "zero_shot",
                                    "accuracy", scale=100, about="Medical MCQA accuracy")

    def write_demo(self, task: Record, sources: dict[str, Path]) -> None:
        demo = self.settings(task).data.demo
        questions = synthetic.generate(demo.n, demo.seed)
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


BENCHMARK = McqaBenchmark()
