"""Recorded outputs: a model whose generations are read from a file keyed by example id.

Published runs (a paper's released outputs, another harness's answers) are rescored through
the workflow: the requests are rendered as for any model, and each is answered with the file's
output for its example. Nothing is generated or sampled and no GPU is held; every answer's
``finish_reason`` is ``recorded``. The file's sha256 is part of the generation identity
(:mod:`clineval.workflow.identities`), so another file re-runs the model's cells and nothing
else, and the tables mark the model (:func:`clineval.tables.format.recorded_note`).

Layouts (``recorded.layout``):

- ``jsonl``: one object per line with ``id`` (the example id, a string or an integer) and
  ``output`` (the text); other keys are ignored.
- ``medcalc_official``: the output files of the official MedCalc-Bench code
  (``evaluation/run.py``): one object per line with ``Row Number`` (the example id of clineval's
  v1.0 loader) and ``LLM Answer`` (the answer run.py extracted from the model's reply); also
  read when present: ``LLM Explanation``, ``Result`` and ``Patient Note``. The output is the
  JSON object the official prompts ask for, ``{"step_by_step_thinking": <LLM Explanation>,
  "answer": <LLM Answer>}`` (``{"answer": ...}`` without an explanation), which the official and
  the robust extractions read as the model's answer. An ``LLM Explanation`` that is itself a
  JSON object with an ``answer`` is the model's whole reply (run.py before 26 June 2024 kept the
  reply there): it is the output as written, so the extractions read the model's own answer
  field rather than run.py's reading of it. ``Result`` (``Correct``/``Incorrect``) is
  kept as each generation's ``recorded_verdict``. A ``Patient Note`` must open the note that
  the example's prompt shows: a file made from another version of the test set stops there.

An example the cell evaluates without a row in the file stops the job; rows of examples the
cell does not evaluate are ignored and counted in the log.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from clineval.errors import DataError
from clineval.inference.base import Generation
from clineval.inference.registry import BackendSpec, Inputs
from clineval.provenance.location import portable

log = logging.getLogger("clineval")
#: MedCalc-Bench's verdicts (``Result``).
VERDICTS = ("Correct", "Incorrect")
#: Characters of a row's ``Patient Note`` (spaces collapsed) that must open a note of its
#: example's prompt: the official code cut some models' notes to a number of tokens.
NOTE_CHECKED = 100


@dataclass
class Recorded:
    """``recorded:`` of a recorded model (the config's schema)."""

    path: str | None = None  # the file of outputs (required: BACKEND.required)
    layout: str = field(default="jsonl", metadata={
        "choices": lambda: sorted(LAYOUTS), "noun": "recorded layouts"})
    #: the prompting mode the outputs answer: the plan refuses the model's cells in any other
    #: mode (null: not stated, every mode of the grid reads the same outputs)
    mode: str | None = None
    sha256: str | None = None  # pins the file: other bytes stop the plan and the job


@dataclass(frozen=True)
class Row:
    """One example's recorded output, and where the file holds it."""

    line: int
    output: str
    verdict: str | None = None
    note: str | None = None


def _error(path: Path, line: int, name: str | None, problem: str) -> DataError:
    """A problem of the file's line ``line`` (a line, not the data's row: a MedCalc-Bench
    row has its own ``Row Number``)."""
    return DataError(path, None, name, problem, line=line)


def _missing(record: Mapping[str, Any], path: Path, line: int, *fields: str) -> None:
    for name in fields:
        if name not in record:
            raise _error(path, line, name, "missing: expected the field on every line")


def _text(record: Mapping[str, Any], name: str, path: Path, line: int) -> str | None:
    """A string field, None when the row has none."""
    value = record.get(name)
    if value is not None and not isinstance(value, str):
        raise _error(path, line, name, f"expected a string, got {value!r}")
    return value


def _example_id(value: Any, path: Path, line: int, name: str) -> str:
    if isinstance(value, bool) or not isinstance(value, str | int) or value == "":
        raise _error(path, line, name, f"expected the example id (a string or an integer), "
                                       f"got {value!r}")
    return str(value)


def _jsonl(record: Mapping[str, Any], path: Path, line: int) -> tuple[str, Row]:
    _missing(record, path, line, "id", "output")
    output = _text(record, "output", path, line)
    if output is None:
        raise _error(path, line, "output", "expected a string, got None")
    return _example_id(record["id"], path, line, "id"), Row(line, output)


def _medcalc_official(record: Mapping[str, Any], path: Path, line: int) -> tuple[str, Row]:
    _missing(record, path, line, "Row Number", "LLM Answer")
    number = record["Row Number"]
    if isinstance(number, str) and number.strip().isdigit():
        number = int(number)
    if isinstance(number, bool) or not isinstance(number, int) or number < 1:
        raise _error(path, line, "Row Number", f"expected a row number (1 or more), got "
                                               f"{record['Row Number']!r}")
    answer = record["LLM Answer"]
    if isinstance(answer, bool) or not isinstance(answer, str | int | float):
        raise _error(path, line, "LLM Answer", f"expected the answer (a string or a number), "
                                               f"got {answer!r}")
    verdict = _text(record, "Result", path, line)
    if verdict is not None and verdict not in VERDICTS:
        raise _error(path, line, "Result", f"expected one of {', '.join(VERDICTS)}, got "
                                           f"{verdict!r}")
    explanation = _text(record, "LLM Explanation", path, line)
    if _is_reply(explanation):
        output = explanation
    else:
        shown = {"answer": str(answer)} if explanation is None else {
            "step_by_step_thinking": explanation, "answer": str(answer)}
        output = json.dumps(shown, ensure_ascii=False)
    return str(number), Row(line, output, verdict, _text(record, "Patient Note", path, line))


def _is_reply(explanation: str | None) -> bool:
    """An ``LLM Explanation`` that is the model's whole reply: a JSON object with an answer."""
    if not explanation or not explanation.lstrip().startswith("{"):
        return False
    try:
        found = json.loads(explanation)
    except json.JSONDecodeError:
        return False
    return isinstance(found, dict) and "answer" in found


#: Each layout's reader of one line's object: the example id and the row.
LAYOUTS: dict[str, Callable[[Mapping[str, Any], Path, int], tuple[str, Row]]] = {
    "jsonl": _jsonl,
    "medcalc_official": _medcalc_official,
}
#: The field that holds the example id, by layout (for messages).
ID_FIELDS = {"jsonl": "id", "medcalc_official": "Row Number"}


def read_rows(path: Path, text: str, layout: str) -> dict[str, Row]:
    """The file's rows by example id (DataError naming the file, line and field of a line that
    is not an object of the layout, and of a second row for an id)."""
    read = LAYOUTS[layout]
    rows: dict[str, Row] = {}
    lines = text.splitlines()
    for line, content in enumerate(lines, start=1):
        if not content.strip():
            continue
        try:
            record = json.loads(content)
        except json.JSONDecodeError as err:
            cut = " (the last line is cut off: a truncated file?)" if line == len(lines) else ""
            raise _error(path, line, None, f"expected one JSON object on the line, got text "
                                           f"that is not JSON at column {err.colno} "
                                           f"({err.msg}){cut}") from err
        if not isinstance(record, dict):
            raise _error(path, line, None, f"expected a JSON object, got {content.strip()[:40]}")
        key, row = read(record, path, line)
        if key in rows:
            raise _error(path, line, ID_FIELDS[layout], f"duplicate example id {key!r} (first "
                                                        f"on line {rows[key].line})")
        rows[key] = row
    return rows


def _spaced(text: str) -> str:
    return " ".join(text.split())


class RecordedBackend:
    """Answers each request with the file's output for its example id."""

    def __init__(self, path: Path, layout: str, pin: str | None = None):
        self.path = path
        self.layout = layout
        try:
            data = path.read_bytes()
        except FileNotFoundError as err:
            raise DataError(path, None, None, "file not found (the model's recorded.path)") \
                from err
        self.sha256 = hashlib.sha256(data).hexdigest()
        if pin and pin != self.sha256:
            raise DataError(path, None, None, f"sha256 {self.sha256}, but recorded.sha256 pins "
                                              f"{pin}: the file changed")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as err:
            raise DataError(path, None, None, f"not UTF-8 text ({err})") from err
        self.rows = read_rows(path, text, layout)

    def effective_settings(self) -> dict[str, Any]:
        return {"backend": "recorded", "path": portable(self.path), "layout": self.layout,
                "sha256": self.sha256, "rows": len(self.rows)}

    def with_max_tokens(self, max_tokens: int) -> RecordedBackend:
        return self  # its outputs are read, not generated

    def generate(self, requests: list[dict[str, Any]]) -> list[Generation]:
        missing = list(dict.fromkeys(r["id"] for r in requests if r["id"] not in self.rows))
        if missing:
            raise DataError(self.path, None, ID_FIELDS[self.layout], f"no output for "
                            f"{len(missing)} example(s) the cell evaluates, e.g. {missing[:10]}")
        for request in requests:
            self._check_note(request)
        asked = {r["id"] for r in requests}
        log.info("%s: %d row(s); %d answer the %d request(s) of the job, %d ignored (examples "
                 "that no cell of the job evaluates)", self.path.name, len(self.rows),
                 len(asked), len(requests), len(self.rows) - len(asked))
        return [Generation(self.rows[r["id"]].output, "recorded",
                           recorded_verdict=self.rows[r["id"]].verdict) for r in requests]

    def _check_note(self, request: dict[str, Any]) -> None:
        """The row's patient note (where it has one) is in the example's prompt."""
        row = self.rows[request["id"]]
        if not row.note:
            return
        opening = _spaced(row.note)[:NOTE_CHECKED]
        if opening not in _spaced(" ".join(m["content"] for m in request["messages"])):
            raise _error(self.path, row.line, "Patient Note", f"not the note that the prompt "
                         f"of example {request['id']!r} shows: the file answers another version "
                         "of the data")


def load(inputs: Inputs) -> RecordedBackend:
    """The model's file of outputs, read and checked."""
    spec = inputs.model["recorded"]
    return RecordedBackend(Path(spec["path"]).expanduser(), spec.get("layout") or "jsonl",
                           spec.get("sha256"))


def batch_size(model: Mapping[str, Any], todo: int) -> int:
    """Every request in one call: reading costs nothing, and the log counts the rows left."""
    return max(todo, 1)


BACKEND = BackendSpec("recorded", load, sections={"recorded": Recorded},
                      required={"recorded": ("path",)}, recorded=True, batch_size=batch_size)
