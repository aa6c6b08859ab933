"""MedEval's settings: what its tasks (``conf/task/medeval_*.yaml``, ``conf/task/medeval/``) and
its tables read, with their types, ranges and choices (docs/medeval.md describes each).

A task's ``data`` keys depend on its ``data.task``: a sentence task reads a sentences file, a
report task reports (a CSV, Open-i, MIMIC-CXR) and code sets.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from clineval.benchmarks.base.settings import MISSING, OFFICIAL, Exemplars, setting
from clineval.benchmarks.base.sources import SOURCE_KINDS
from clineval.benchmarks.medeval.examples import SENTENCE_TASKS, TASKS
from clineval.benchmarks.medeval.extract import MODES, SPANS
from clineval.benchmarks.medeval.formats import CHEST, CODE_VALUES, MISC

#: The ΔAcc judges of the rewriting task: scikit-learn classifiers, or a model.
CLASSIFIER_KINDS = ("sklearn", "model")
#: A model judge's decoding: the paper's (Table 8), or the model config's own.
DECODINGS = ("paper", "model")
#: An off-format answer: a wrong prediction, or left out of the accuracy.
UNQUALIFIED = ("wrong", "exclude")
#: BLEU over the corpus (sacrebleu's corpus BLEU-4) or the mean sentence BLEU.
BLEU_LEVELS = ("corpus", "sentence")
#: The domain groups of the tables' columns.
GROUPS = (CHEST, MISC)


@dataclass
class Data:
    """The ``data`` keys of every MedEval task."""

    task: str = setting(MISSING, choices=TASKS, noun="MedEval tasks")
    source: str = setting("demo", choices=SOURCE_KINDS, noun="sources")
    seed: int = 0
    split: list[float] | None = setting(None, ge=0)  # train : validation : test weights
    chest_domains: list[str] | None = None
    domains: list[str] | None = None
    limit: int | None = setting(None, ge=1)


@dataclass
class SentenceData(Data):
    sentences: str | None = setting(None, used_when=OFFICIAL)


@dataclass
class CodeSet:
    codes: list[str] = MISSING
    unlisted: str = setting(MISSING, choices=CODE_VALUES, noun="code values")


@dataclass
class ReportData(Data):
    reports: str | None = setting(None, used_when=OFFICIAL)
    openi: str | None = setting(None, used_when=OFFICIAL)
    mimic_cxr: str | None = setting(None, used_when=OFFICIAL)
    mimic_cxr_root: str | None = setting(None, used_when=OFFICIAL)
    mimic_cxr_split: str | None = setting(None, used_when=OFFICIAL)
    chexpert: str | None = setting(None, used_when=OFFICIAL)
    chexpert_uncertain: str = setting("unknown", choices=CODE_VALUES, noun="code values")
    chexpert_blank: str = setting("unknown", choices=CODE_VALUES, noun="code values")
    code_sets: dict[str, CodeSet] | None = None


@dataclass
class MedEvalExemplars(Exemplars):
    draws: int = setting(1, ge=1)  # the paper's best of 5 draws, chosen on validation
    seed: int | None = None


@dataclass
class Rouge:
    use_stemmer: bool = False


@dataclass
class Bleu:
    level: str = setting("corpus", choices=BLEU_LEVELS, noun="levels")
    lowercase: bool = False
    tokenize: str = "13a"  # a sacrebleu tokenizer


@dataclass
class Classifiers:
    """The ΔAcc judges of the rewriting task."""

    kind: str = setting("sklearn", choices=CLASSIFIER_KINDS, noun="kinds")
    C: float = setting(1.0, gt=0)
    data: Any = None  # the sentences they train on: the task's data settings
    model: dict[str, Any] | None = None  # kind model: the judge (checked as a model config)
    decoding: str = setting("paper", choices=DECODINGS, noun="decodings")
    templates: str | None = None


@dataclass
class Scoring:
    extraction: str = setting("lenient", choices=MODES, noun="extraction modes")
    answer_span: str = setting("slot", choices=SPANS, noun="answer spans")
    unqualified: str = setting("wrong", choices=UNQUALIFIED)
    rouge: Rouge | None = None
    bleu: Bleu | None = None
    classifiers: Classifiers | None = None


@dataclass
class Task:
    data: Data = MISSING
    exemplars: MedEvalExemplars | None = None
    scoring: Scoring | None = None


@dataclass
class SentenceTask(Task):
    data: SentenceData = MISSING


@dataclass
class ReportTask(Task):
    data: ReportData = MISSING


def task_schema(task: Mapping[str, Any]) -> type:
    """The schema of a task by its ``data.task`` (an unknown one: the common keys, whose check
    names the tasks)."""
    data = task.get("data")
    kind = data.get("task") if isinstance(data, Mapping) else None
    if kind not in TASKS:
        return Task
    return SentenceTask if kind in SENTENCE_TASKS else ReportTask


@dataclass
class Table:
    groups: list[str] | None = setting(None, choices=GROUPS, noun="domain groups")


@dataclass
class Table2(Table):
    """``medeval_table2``: sentence NLU accuracy per domain group."""

    qualified_rate: bool = True
    f1: bool = False


@dataclass
class Table4:
    """``medeval_table4``: code prediction per domain."""

    domains: list[str] | None = None  # domains of the code sets
    qualified_rate: bool = True


@dataclass
class Table6(Table):
    """``medeval_table6``: per model group."""

    model_groups: dict[str, list[str]] | None = None  # label -> models; null: each model


@dataclass
class Table7(Table):
    """``medeval_table7``: per model family and mode, NLU accuracy and NLG BLEU-4."""

    code_domains: list[str] | None = None
    summarization_groups: list[str] | None = setting(None, choices=GROUPS, noun="domain groups")
    families: dict[str, list[str]] | None = None  # label -> models; null: each model


TASK = task_schema
TABLES = {"medeval_table2": Table2, "medeval_table3": Table, "medeval_table4": Table4,
          "medeval_table5": Table, "medeval_table6": Table6, "medeval_table7": Table7}
