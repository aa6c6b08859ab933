"""The project's hand-graded sets of real outputs (``tests/fixtures/*_graded``, README.md
there) and the check every benchmark's set shares (docs/scoring.md, Hand-graded checks).

Each set is a folder with ``outputs.jsonl`` (one output a line with what the prompt showed)
and ``grades.jsonl`` in the grades format ``clineval agreement`` reads
(:mod:`clineval.report.grades`): each grade's ``id`` is its output's key, ``read`` what the
grader read, ``note`` why, ``context`` the set's further fields. :func:`graded` reads both
through that reader and fails on an output with no grade, a grade with no output, or a stale
grade (its ``output_sha256`` is not its output's). The harness reads what the grader read on
at least 98 % of the outputs, and misses exactly the outputs pinned with their reason. A set
graded in batches (outputs added later, on rows no earlier batch used) reports and checks its
agreement per batch.

Public texts that must not be committed (Open-i reports) stay out of an output as masks
(:func:`mask`), which the test restores from the data (:func:`unmask`)."""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Mapping
from pathlib import Path
from typing import Any

from clineval.benchmarks import get_benchmark
from clineval.io import read_jsonl, write_json, write_jsonl
from clineval.provenance.hashing import sha256_obj
from clineval.report.agreement import Agreement, CellFiles, cell_now, compare
from clineval.report.grades import Grade, output_sha256, read_grades

FIXTURES = Path(__file__).resolve().parent / "fixtures"

MINIMUM_AGREEMENT = 0.98

#: The shortest run of characters shared with a public text that is written as a mask.
MASK_CHARS = 12
MASK = re.compile(r"⟦(f|i|e\d+f|e\d+i):(\d+):(\d+)⟧")


def mask(text: str, sources: dict[str, str]) -> str:
    """``text`` with each maximal run of at least :data:`MASK_CHARS` characters that a source
    holds written as ``⟦<source>:<start>:<end>⟧`` (the longest run first, left to right)."""
    out, i = [], 0
    while i < len(text):
        best = (0, "", 0)
        for name, source in sources.items():
            n = MASK_CHARS
            if text[i:i + n] not in source:
                continue
            while i + n < len(text) and text[i:i + n + 1] in source:
                n += 1
            if n > best[0]:
                best = (n, name, source.find(text[i:i + n]))
        if best[0]:
            out.append(f"⟦{best[1]}:{best[2]}:{best[2] + best[0]}⟧")
            i += best[0]
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def unmask(text: str, sources: dict[str, str]) -> str:
    """The text :func:`mask` wrote, with ``sources`` (KeyError when one is missing)."""
    return MASK.sub(lambda m: sources[m.group(1)][int(m.group(2)):int(m.group(3))], text)


def graded(name: str, key: str = "key", root: Path = FIXTURES) -> list[dict[str, Any]]:
    """The outputs of set ``<root>/<name>``, in file order, each with its grade's ``read`` as
    ``grade``, its ``note`` as ``reason``, its ``verdict`` and its ``context``'s fields;
    ``key``: the output field a grade's ``id`` names."""
    folder = root / name
    grades: dict[str, Grade] = {}
    for grade in read_grades(folder / "grades.jsonl"):
        assert grade.id not in grades, f"{grade.path}:{grade.line}: {grade.id} graded twice"
        grades[grade.id] = grade
    found = []
    for record in read_jsonl(folder / "outputs.jsonl"):
        grade = grades.pop(str(record[key]), None)
        assert grade is not None, f"{name}: {record[key]} has no grade"
        assert grade.output_sha256 == output_sha256(record["output"]), (
            f"{grade.path}:{grade.line}: stale grade of {grade.id} (its output changed)")
        context = grade.context or {}
        assert not set(context) & {*record, "grade", "reason", "verdict"}, (
            f"{grade.path}:{grade.line}: context names a field of the output")
        found.append({**record, **context, "grade": grade.read,
                      "reason": grade.note, "verdict": grade.verdict})
    assert not grades, f"{name}: grades of no output: {sorted(grades)}"
    return found


def scoring_identity(benchmark: str) -> tuple[str, dict[str, Any]]:
    """A set's scoring identity (the ``scoring`` of its grades) and what it hashes: its
    benchmark and that benchmark's scoring version. The sets' outputs come from several runs,
    so no run's cell identity fits them; a new scoring version changes this one, and every
    grade of the set turns stale until it is checked again (tests/fixtures/README.md)."""
    content = {"kind": "graded set", "benchmark": benchmark,
               "scoring_version": get_benchmark(benchmark).scoring_version}
    return sha256_obj(content), content


def scorer_agreement(name: str, benchmark: str, rows: Mapping[str, dict[str, Any]],
                     examples: Mapping[str, dict[str, Any]], work: Path, key: str = "key",
                     root: Path = FIXTURES) -> Agreement:
    """The scorer's agreement with set ``name``'s grades through ``clineval agreement``'s
    code (:mod:`clineval.report.agreement`): each cell the grades name (model, task, mode) is
    written below ``work`` as a run writes it, from the set's outputs (``id``: the output's
    ``key`` field), ``examples`` and the score ``rows`` the benchmark's scorer gives them now
    (by key), with the set's :func:`scoring_identity`;
    :func:`~clineval.report.agreement.cell_now` reads each back (the benchmark's reading, the
    outputs' hashes) and
    :func:`~clineval.report.agreement.compare` sets each grade against it (a grade whose
    output or scoring identity changed is stale)."""
    grades = read_grades(root / name / "grades.jsonl")
    outputs = {str(r[key]): r for r in read_jsonl(root / name / "outputs.jsonl")}
    sha, content = scoring_identity(benchmark)
    identity = work / "scoring.json"
    write_json(identity, {"sha": sha, "identity": {**content, "task": {}}})
    cells: dict[str, list[str]] = {}
    for grade in grades:
        cells.setdefault(grade.cell, []).append(grade.id)
    found = {}
    for cell, ids in cells.items():
        folder = work / cell
        files = CellFiles(cell, identity, folder / "examples.jsonl",
                          folder / "generations.jsonl", folder / "rows.jsonl")
        write_jsonl(files.examples, [{**examples[i], "id": i} for i in ids])
        write_jsonl(files.generations, [{"id": i, "output": outputs[i]["output"]} for i in ids])
        write_jsonl(files.rows, [{**rows[i], "id": i} for i in ids])
        found[cell] = cell_now(files)
    return compare(grades, found)


def assert_agrees(misses: dict[Any, Any], total: int, pinned: Collection[Any]) -> None:
    """``misses`` (key -> what was read, and the grade) are the pinned ones, and few enough."""
    assert sorted(misses) == sorted(pinned), misses
    agreement = 1 - len(misses) / total
    assert agreement >= MINIMUM_AGREEMENT, f"{agreement:.1%}: {misses}"


def assert_reads_the_grades(records: Iterable[dict[str, Any]],
                            read: Callable[[dict[str, Any]], Any],
                            pinned: Collection[Any]) -> None:
    """Each record's ``read(record)`` equals its ``grade``, but for the ``pinned`` keys."""
    records = list(records)
    misses = {r["key"]: (found, r["grade"]) for r in records
              if (found := read(r)) != r["grade"]}
    assert_agrees(misses, len(records), pinned)


def agreement_by_batch(batches: Mapping[Any, str], misses: Collection[Any]
                       ) -> dict[str, tuple[int, int]]:
    """Per batch (``batches``: key -> batch), the outputs read as graded and the outputs."""
    found: dict[str, tuple[int, int]] = {}
    for key, batch in batches.items():
        agreed, total = found.get(batch, (0, 0))
        found[batch] = (agreed + (key not in misses), total + 1)
    return dict(sorted(found.items()))


def assert_agrees_by_batch(misses: dict[Any, Any], batches: Mapping[Any, str],
                           pinned: Collection[Any], minimum: Mapping[str, float]) -> None:
    """``misses`` are the pinned ones, and each batch (``batches``: key -> batch) agrees on at
    least its ``minimum`` share (:data:`MINIMUM_AGREEMENT` for a batch not named); prints each
    batch's agreement (``pytest -s`` shows it)."""
    assert sorted(misses) == sorted(pinned), misses
    for batch, (agreed, total) in agreement_by_batch(batches, misses).items():
        share = agreed / total
        print(f"{batch}: {agreed}/{total} agree ({share:.1%})")
        assert share >= minimum.get(batch, MINIMUM_AGREEMENT), (
            f"{batch}: {agreed}/{total}: {[k for k in misses if batches[k] == batch]}")
