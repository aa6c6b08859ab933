"""The schemas of the root config (``conf/config.yaml``), a grid's own keys (``grid:``) and a
mode (``conf/mode/*.yaml``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from clineval.benchmarks.base.settings import MISSING, setting
from clineval.export.eee_schema import RELATIONSHIPS


@dataclass
class TaskSlice:
    """``grid.slices.<model>.tasks.<task>``: the model's slice of one task."""

    limit: int | None = setting(None, ge=1)
    seed: int | None = setting(None, ge=0)
    offset: int | None = setting(None, ge=0)
    ids: list[str] | None = None


@dataclass
class Slice:
    """``grid.slices.<model>``: fewer examples per cell for one model (config/slices.py)."""

    limit: int | None = setting(None, ge=1)
    seed: int | None = setting(None, ge=0)
    offset: int | None = setting(None, ge=0)
    tasks: dict[str, TaskSlice] | None = None


@dataclass
class Select:
    """``grid.select``: filters, each a list of names (null keeps all)."""

    models: list[str] | None = None
    tasks: list[str] | None = None
    modes: list[str] | None = None
    tables: list[str] | None = None
    figures: list[str] | None = None


#: ``grid.code_changes``: what a result whose code changed while its versions did not gets:
#: a warning at the start (and it is kept), or a re-run (docs/workflow.md, Versions and code
#: fingerprints).
CODE_CHANGES = ("warn", "rerun")


@dataclass
class Grid:
    name: str = MISSING
    slices: dict[str, Slice] | None = None
    select: Select | None = None
    code_changes: str = setting("warn", choices=CODE_CHANGES)


@dataclass
class Mode:
    description: str = MISSING
    reasoning: bool = MISSING
    exemplars: int = setting(MISSING, ge=0)


@dataclass
class Paths:
    results: str = "results"
    data: str = "data"


@dataclass
class Dvc:
    push_credentialed: bool = False  # dvc push also sends credentialed artifacts


#: ``report.examples.prompts``: embed each example's prompt in the explorer's pages ``always``,
#: ``never``, or ``auto``: except for tasks whose files may not be shared (credentialed,
#: unreleased or private data).
PROMPTS = ("auto", "always", "never")


@dataclass
class Examples:
    """``report.examples``: the report's per-example explorer (docs/report.md)."""

    prompts: str = setting("auto", choices=PROMPTS)


@dataclass
class Report:
    examples: Examples | None = None
    #: graders' files saved from the explorer (paths from the working directory): the report
    #: gains a section "Agreement with graders" (docs/report.md, Graders in the loop)
    grades: list[str] | None = None


@dataclass
class Eee:
    """``export.eee``: what ``clineval export eee`` writes beside the results (docs/export.md)."""

    organization: str | None = None  # source_organization_name: who ran the evaluation
    organization_url: str | None = None
    evaluator_relationship: str = setting("third_party", choices=RELATIONSHIPS)
    credentialed_text: bool = False  # true: credentialed tasks' records keep their texts


@dataclass
class Export:
    eee: Eee | None = None


@dataclass
class Root:
    """The composed config's top level; each named section has its own schema."""

    paths: Paths | None = None
    dvc: Dvc | None = None
    report: Report | None = None
    export: Export | None = None
    grid: dict[str, Any] = MISSING
    models: dict[str, Any] = MISSING
    tasks: dict[str, Any] = MISSING
    modes: dict[str, Any] = MISSING
    tables: dict[str, Any] | None = None
    figures: dict[str, Any] | None = None
