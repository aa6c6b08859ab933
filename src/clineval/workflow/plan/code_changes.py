"""Which code made each result, and the results whose code changed while their versions did not.

A benchmark's ``data_version`` and ``scoring_version`` are part of its artifacts' identities: a
bump re-runs them. A change of code without a bump re-runs nothing, so every step that writes
derived data, a file derived for scoring, scores, a table or a figure also records the
:class:`~clineval.provenance.code.Fingerprint` of the code that made it (:func:`code_of`):

- derived data, files derived for scoring, scores: the benchmark's package (or the modules its
  ``code_modules`` names for data or for scoring) and the SDK modules it imports (:data:`SDK`),
  transitively; scores also the check of copied prompt text every row gets
  (:mod:`clineval.metrics.copying`);
- a table: the table code (:data:`TABLE_CODE`) and the code of each benchmark whose cells it
  shows (their headline numbers, layouts and reading notes);
- a figure: the drawing code (:data:`FIGURE_CODE`).

The record is a sidecar of the identity file the step ran for, ``<identity>.code.json`` (the
fingerprint's sha), and the fingerprint's modules, once per fingerprint, in
``<results>/identity/code/<sha16>.json``. Both lie in ``results/identity/``, which DVC does not
track and the demo comparison does not compare: recording the code changes no byte of a
result, of its provenance record or of ``dvc.lock``.

At the workflow's start and in ``clineval plan``, :func:`stale` compares each recorded
fingerprint with the code now and :func:`warning` names the results and the changed modules in
one block; ``clineval audit`` notes them per table. ``grid.code_changes: rerun`` makes the
fingerprint part of the identities of scores, files derived for scoring, tables and figures
(:func:`joined`), so that a code change re-runs them; never of derived data, whose identity the
requests and generations hold: a code change would generate every answer again.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from clineval.benchmarks import get_benchmark
from clineval.errors import ConfigError
from clineval.io import write_text
from clineval.provenance.code import Fingerprint, files, fingerprint, package_modules
from clineval.provenance.hashing import canonical_json

if TYPE_CHECKING:  # steps import this module, in environments without the config's packages
    from clineval.workflow.plan.layout import Plan

log = logging.getLogger("clineval")
#: What a benchmark package may import besides itself (docs/sdk.md): the shared modules whose
#: code its fingerprint follows.
SDK = ("clineval.benchmarks.base", "clineval.io", "clineval.errors", "clineval.validate",
       "clineval.mimic", "clineval.tables", "clineval.metrics")
#: What builds every table beside its benchmarks' code.
TABLE_CODE = ("clineval.tables", "clineval.workflow.steps.statistics")
#: What draws every figure.
FIGURE_CODE = ("clineval.figures",)
#: What every score row runs beside its benchmark (``workflow.steps.mark_copies``).
SCORING_CODE = ("clineval.metrics.copying",)
#: Identity kinds whose artifacts record their code, by how people name them.
KINDS = {"data": "derived data", "scoring_input": "files derived for scoring",
         "scoring": "scores", "table": "tables", "figure": "figures"}
#: The parts of a benchmark a ``code_modules`` may narrow: what its data_version and its
#: scoring_version cover.
PARTS = ("data", "scoring")
#: The part of its benchmark's code an artifact kind runs (tables: all of it).
PART = {"data": "data", "scoring_input": "scoring", "scoring": "scoring"}
#: The kinds whose identity holds the fingerprint under ``grid.code_changes: rerun``.
RERUN_KINDS = ("scoring_input", "scoring", "table", "figure")
#: Modules and results a warning names before it counts the rest.
SHOWN = 5


def _benchmark_package(name: str) -> str:
    """The package of the benchmark's class, wherever it is installed."""
    return type(get_benchmark(name)).__module__.rpartition(".")[0]


@cache
def benchmark_code(name: str, part: str | None = None) -> Fingerprint:
    """The code of the benchmark's ``part`` (``data`` or ``scoring``: what its data_version or
    its scoring_version covers; None: all of it): the modules of its package that its
    ``code_modules`` names for the part (none named: the whole package) and the SDK modules
    they import, transitively; a package outside clineval, its own top-level package's too."""
    package = _benchmark_package(name)
    top = package.partition(".")[0]
    declared = dict(get_benchmark(name).code_modules)
    other = sorted(set(declared) - set(PARTS))
    if other:
        raise ConfigError(f"benchmark {name}: code_modules has {', '.join(other)}; its keys are "
                          f"the parts its versions cover: {', '.join(PARTS)}")
    names = tuple(declared.get(part) or ()) if part else ()
    roots = [f"{package}.{m}" for m in names] or [package]
    known = set(package_modules(package))
    unknown = [m for m, root in zip(names, roots, strict=False) if root not in known]
    if unknown:
        valid = sorted(m.removeprefix(package + ".") for m in known if m != package)
        raise ConfigError(f"benchmark {name}: code_modules.{part} names {', '.join(unknown)}, "
                          f"not a module of {package}; its modules: {', '.join(valid)}")
    return fingerprint(roots, (package if top == "clineval" else top, *SDK))


@cache
def _shared(roots: tuple[str, ...]) -> Fingerprint:
    return fingerprint(roots, (*roots, *SDK))


@cache
def _code(kind: str, benchmarks: tuple[str, ...]) -> Fingerprint:
    """The code of an artifact of ``kind`` that shows ``benchmarks``, made once per process."""
    if kind == "figure":
        return _shared(FIGURE_CODE)
    code = _shared(TABLE_CODE) if kind == "table" else Fingerprint({})
    for bench in benchmarks:
        code = code | benchmark_code(bench, PART.get(kind))
    return code | _shared(SCORING_CODE) if kind == "scoring" else code


def code_of(ident: Mapping[str, Any]) -> Fingerprint | None:
    """The fingerprint of the code that builds the artifact of identity content ``ident``;
    None for a kind that records none (requests, generations, the report, exports)."""
    kind = ident.get("kind")
    if kind not in KINDS:
        return None
    if kind == "table":
        return _code(kind, tuple(sorted({t["benchmark"] for t in ident["tasks"].values()})))
    return _code(kind, () if kind == "figure" else (ident["benchmark"],))


def mode(cfg: Mapping[str, Any]) -> str:
    """``grid.code_changes`` (its schema's default: ``warn``)."""
    return str((cfg.get("grid") or {}).get("code_changes") or "warn")


def joined(content: dict[str, Any], cfg: Mapping[str, Any]) -> dict[str, Any]:
    """An identity's content, with its code's fingerprint under ``grid.code_changes: rerun``
    for the kinds that re-run (:data:`RERUN_KINDS`); as it is otherwise, so that identities
    under the default stay what they were."""
    if mode(cfg) != "rerun" or content["kind"] not in RERUN_KINDS:
        return content
    code = code_of(content)
    assert code is not None  # every kind that re-runs records its code
    return {**content, "code": code.sha}


def key_of(ident: Mapping[str, Any]) -> str:
    """The plan's key of the artifact of identity content ``ident``."""
    match ident["kind"]:
        case "data":
            return f"data/{ident['task']}"
        case "scoring_input":
            return f"inputs/{ident['task']}/{ident['role']}"
        case "scoring":
            return f"{ident['cell']}/scoring"
        case "table":
            return f"tables/{ident['table']}"
        case "figure":
            return f"figures/{ident['figure']}"
    raise ValueError(f"no code record for identity kind {ident['kind']!r}")


def sidecar(identity_file: Path) -> Path:
    """The code record beside an identity file: ``<key>-<sha16>.code.json``."""
    return identity_file.with_suffix(".code.json")


def modules_file(identity_root: Path, sha: str) -> Path:
    """Where the modules of fingerprint ``sha`` are recorded (``identity_root``: the grid's
    ``results/identity``)."""
    return identity_root / "code" / f"{sha[:16]}.json"


def record_code(identity_file: Path, ident: Mapping[str, Any]) -> None:
    """Record the code a step ran for ``identity_file`` (content ``ident``): the sidecar, and
    the fingerprint's modules unless an earlier step recorded them."""
    code = code_of(ident)
    if code is None:
        return
    root = identity_file.parents[key_of(ident).count("/")]
    modules = modules_file(root, code.sha)
    if not modules.is_file():
        write_text(modules, canonical_json({"fingerprint": code.sha,
                                            "modules": dict(code.modules)}) + "\n")
    write_text(sidecar(identity_file), canonical_json({"code": code.sha}) + "\n")


@dataclass(frozen=True)
class Finding:
    """An artifact whose recorded code differs from the code now (``modules``: the changed
    ones; empty when the record of its modules is gone)."""

    key: str
    kind: str
    modules: tuple[str, ...]


def _read(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def recorded(plan: Plan, key: str) -> str | None:
    """The fingerprint recorded for the artifact ``key`` built for its identity now; None when
    none was (not built yet, built before fingerprints, or pulled: ``results/identity/``
    stays with the run that built it)."""
    found = _read(sidecar(plan.identity_file(key)))
    return str(found["code"]) if found and isinstance(found.get("code"), str) else None


def fingerprinted(plan: Plan) -> list[str]:
    """The plan's artifact keys whose kind records its code, in plan order."""
    return [key for key, ident in plan.identities.items() if ident["identity"]["kind"] in KINDS]


def stale(plan: Plan, keys: Iterable[str] | None = None) -> list[Finding]:
    """The artifacts (``keys``, default every one that records its code) built for their
    identity now by code that differs from the code now."""
    root = plan.results / "identity"
    modules: dict[str, Mapping[str, str] | None] = {}
    found = []
    for key in fingerprinted(plan) if keys is None else keys:
        ident = plan.identities[key]["identity"]
        code, sha = code_of(ident), recorded(plan, key)
        if code is None or sha is None or sha == code.sha:
            continue
        if sha not in modules:
            read = _read(modules_file(root, sha))
            modules[sha] = read.get("modules") if read else None
        before = modules[sha]
        changed = tuple(code.changed(before)) if isinstance(before, dict) else ()
        found.append(Finding(key, ident["kind"], changed))
    return found


def _some(names: list[str]) -> str:
    shown = ", ".join(names[:SHOWN])
    return shown + (f" and {len(names) - SHOWN} more" if len(names) > SHOWN else "")


def _name(finding: Finding) -> str:
    """The artifact as a warning names it: a cell, a task, ``<task>/<role>``, a table, a
    figure."""
    if finding.kind == "scoring":
        return finding.key.removesuffix("/scoring")
    return finding.key.partition("/")[2]


def lines(findings: Iterable[Finding]) -> list[str]:
    """One line per kind of artifact and set of changed modules: what, how many, which."""
    groups: dict[tuple[str, tuple[str, ...]], list[str]] = {}
    for finding in findings:
        groups.setdefault((finding.kind, finding.modules), []).append(_name(finding))
    return [f"{KINDS[kind]} ({len(names)}: {_some(names)}): "
            + (f"changed {_some(list(modules))}" if modules else
               "its record of the modules is gone")
            for (kind, modules), names in groups.items()]


def warning(findings: list[Finding]) -> str | None:
    """The plan's warning about ``findings``, one block; None when there are none."""
    if not findings:
        return None
    return "\n".join([
        "results whose code changed since they were built, with the same data_version and "
        "scoring_version (grid.code_changes=warn keeps them):",
        *(f"  - {line}" for line in lines(findings)),
        "  Where a change alters results, bump the benchmark's version; where it alters none, "
        "re-run them once (snakemake --forcerun); grid.code_changes=rerun re-runs scores, tables "
        "and figures on any change (docs/workflow.md, Versions and code fingerprints)."])


def warn(plan: Plan) -> None:
    """Log :func:`warning` of the plan, if any."""
    message = warning(stale(plan))
    if message:
        log.warning("%s", message)


def watched(plan: Plan) -> list[Path]:
    """The source files of the code the plan's artifacts record: under ``rerun`` their
    identities depend on them (the plan cache watches them)."""
    codes = {id(code): code for key in fingerprinted(plan)
             if (code := code_of(plan.identities[key]["identity"])) is not None}
    return sorted({path for code in codes.values() for path in files(code)})
