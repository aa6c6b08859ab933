"""Recorded outputs: a model whose generations are read from a file keyed by example id.

Published runs (a paper's released outputs, another harness's answers) are rescored through
the workflow: the requests are rendered as for any model, and each is answered with the file's
output for its example. Nothing is generated or sampled and no GPU is held; an answer's
``finish_reason`` is the one its row records, else ``recorded`` (not known). The file's
sha256 is part of the generation identity (:mod:`clineval.workflow.plan.identities`), so another
file re-runs the model's cells and nothing else, and the tables mark the model
(:func:`clineval.tables.format.recorded_note`).

Layouts (``recorded.layout``):

- ``jsonl``: one object per line with ``id`` (the example id, a string or an integer) and
  ``output`` (the text), and optionally ``task`` (the task the row answers: on every line or on
  none) and what the generating run recorded: ``finish_reason`` (``stop``, ``length`` or
  ``loop``), ``prompt_tokens`` and ``completion_tokens``; other keys are ignored.
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

A file answers one task: ``recorded.path`` is one file, or a file per task (``{task: path}``),
and a file whose rows name their ``task`` answers each task with its own rows. An output longer
than ``recorded.max_output_chars`` stops the plan and the job, as does a line that is not UTF-8
text. An example the cell evaluates without a row in the file stops the job; rows of examples
the cell does not evaluate are ignored and counted in the log.
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
#: The longest output a row may hold (characters), unless ``recorded.max_output_chars`` says.
MAX_OUTPUT_CHARS = 100_000
#: The finish reasons a ``jsonl`` row may record (a generating run's).
FINISH_REASONS = ("stop", "length", "loop")


@dataclass
class Recorded:
    """``recorded:`` of a recorded model (the config's schema)."""

    #: the file of outputs (required: BACKEND.required), or a file per task (``{task: path}``)
    path: str | dict[str, str] | None = None
    layout: str = field(default="jsonl", metadata={
        "choices": lambda: sorted(LAYOUTS), "noun": "recorded layouts"})
    #: the prompting mode the outputs answer: the plan refuses the model's cells in any other
    #: mode (null: not stated, every mode of the grid reads the same outputs)
    mode: str | None = None
    #: pins the file (a file per task: ``{task: sha256}``): other bytes stop the plan and the job
    sha256: str | dict[str, str] | None = None
    #: the longest output a row may hold, in characters: a longer one stops the plan
    max_output_chars: int = field(default=MAX_OUTPUT_CHARS, metadata={"ge": 1})


@dataclass(frozen=True)
class Row:
    """One example's recorded output, and where the file holds it."""

    line: int
    output: str
    verdict: str | None = None
    note: str | None = None
    task: str | None = None  # the task it answers (None: any task the file answers)
    finish: str | None = None  # the generating run's finish reason (None: not recorded)
    prompt_tokens: int | None = None
    completion_tokens: int | None = None


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
    task = _text(record, "task", path, line)
    if task == "" or (task is None and "task" in record):
        raise _error(path, line, "task", f"expected a task name, got {record['task']!r}")
    finish = _text(record, "finish_reason", path, line)
    if finish is not None and finish not in FINISH_REASONS:
        raise _error(path, line, "finish_reason", f"expected one of {', '.join(FINISH_REASONS)}"
                                                  f", got {finish!r}")
    tokens = {name: _count(record, name, path, line)
              for name in ("prompt_tokens", "completion_tokens")}
    return _example_id(record["id"], path, line, "id"), Row(line, output, task=task,
                                                            finish=finish, **tokens)


def _count(record: Mapping[str, Any], name: str, path: Path, line: int) -> int | None:
    value = record.get(name)
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
        raise _error(path, line, name, f"expected a count of tokens (0 or more), got {value!r}")
    return value


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
#: The field that holds the (longest part of the) output, by layout (for messages).
OUTPUT_FIELDS = {"jsonl": "output", "medcalc_official": "LLM Explanation"}
#: Rows by task (None: rows without a ``task`` field, which answer any task), then example id.
Rows = dict[str | None, dict[str, Row]]


def _tagging(path: Path, line: int, row: Row, first: Row | None) -> None:
    """Every row of a file names its task, or none does."""
    if first is not None and (row.task is None) != (first.task is None):
        named, unnamed = (first, row) if row.task is None else (row, first)
        raise _error(path, line, "task", f"line {named.line} names its task and line "
                                         f"{unnamed.line} does not: name the task on every "
                                         "line or on none")


def read_rows(path: Path, text: str, layout: str,
              max_output_chars: int = MAX_OUTPUT_CHARS) -> Rows:
    """The file's rows by task and example id (DataError naming the file, line and field of a
    line that is not an object of the layout, of a second row for an id (of a task), of an
    output longer than ``max_output_chars``, and of a file with no rows)."""
    read = LAYOUTS[layout]
    rows: Rows = {}
    first: Row | None = None
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
        if len(row.output) > max_output_chars:
            raise _error(path, line, OUTPUT_FIELDS[layout], f"an output of {len(row.output):,} "
                         f"characters, more than recorded.max_output_chars "
                         f"({max_output_chars:,}): raise the setting to keep it")
        _tagging(path, line, row, first)
        first = first or row
        task = rows.setdefault(row.task, {})
        if key in task:
            of = f" of task {row.task!r}" if row.task else ""
            raise _error(path, line, ID_FIELDS[layout], f"duplicate example id {key!r}{of} "
                                                        f"(first on line {task[key].line})")
        task[key] = row
    if not rows:
        raise DataError(path, None, None, "no rows: expected one JSON object per line")
    return rows


def decode(path: Path, data: bytes) -> str:
    """The file's bytes as UTF-8 text (DataError naming the line of the first byte that is
    not)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        column = err.start - data.rfind(b"\n", 0, err.start)  # in bytes, from 1
        raise _error(path, line, None, f"not UTF-8 text: byte {data[err.start]:#04x} at byte "
                                       f"{column} of the line ({err.reason})") from err


@dataclass(frozen=True)
class RecordedFile:
    """A file of outputs, read and checked: its sha256 and its rows."""

    path: Path
    layout: str
    sha256: str
    rows: Rows

    @property
    def tagged(self) -> bool:
        """Its rows name their task (each answers that task only)."""
        return None not in self.rows

    def answers(self, task: str | None) -> dict[str, Row]:
        """The rows that answer ``task``: its own where rows name their task, else all."""
        return self.rows.get(task, {}) if self.tagged else self.rows[None]


def read_file(path: Path, layout: str, pin: str | None = None,
              max_output_chars: int = MAX_OUTPUT_CHARS) -> RecordedFile:
    """The file read once and checked (DataError: missing, other bytes than ``pin``, not UTF-8,
    a bad line)."""
    try:
        data = path.read_bytes()
    except FileNotFoundError as err:
        raise DataError(path, None, None, "file not found (the model's recorded.path)") from err
    sha256 = hashlib.sha256(data).hexdigest()
    if pin and pin != sha256:
        raise DataError(path, None, None, f"sha256 {sha256}, but recorded.sha256 pins {pin}: "
                                          "the file changed")
    return RecordedFile(path, layout, sha256,
                        read_rows(path, decode(path, data), layout, max_output_chars))


def file_of(spec: Mapping[str, Any], task: str | None) -> str | None:
    """The file (as configured) that answers ``task``: ``recorded.path``, or its entry for the
    task when it is a mapping (None: the mapping has none)."""
    path = spec.get("path")
    return path.get(task) if isinstance(path, Mapping) else path


def pin_of(spec: Mapping[str, Any], task: str | None) -> str | None:
    """The sha256 that ``recorded.sha256`` pins the file of ``task`` to (None: unpinned)."""
    pin = spec.get("sha256")
    return pin.get(task) if isinstance(pin, Mapping) else pin


def max_output_chars(spec: Mapping[str, Any]) -> int:
    """``recorded.max_output_chars``, else :data:`MAX_OUTPUT_CHARS`."""
    return int(spec.get("max_output_chars") or MAX_OUTPUT_CHARS)


def _spaced(text: str) -> str:
    return " ".join(text.split())


class RecordedBackend:
    """Answers each request with the file's output for its example id (and its task, where the
    file's rows name theirs)."""

    def __init__(self, path: Path, layout: str, pin: str | None = None, task: str | None = None,
                 max_output: int = MAX_OUTPUT_CHARS):
        self.path = path
        self.layout = layout
        self.file = read_file(path, layout, pin, max_output)
        self.sha256 = self.file.sha256
        self.task = task if self.file.tagged else None
        self.rows = self.file.answers(task)

    def effective_settings(self) -> dict[str, Any]:
        return {"backend": "recorded", "path": portable(self.path), "layout": self.layout,
                "sha256": self.sha256, "rows": len(self.rows),
                **({"task": self.task} if self.task else {})}

    def with_max_tokens(self, max_tokens: int) -> RecordedBackend:
        return self  # its outputs are read, not generated

    def generate(self, requests: list[dict[str, Any]]) -> list[Generation]:
        missing = list(dict.fromkeys(r["id"] for r in requests if r["id"] not in self.rows))
        if missing:
            of = f" of task {self.task}" if self.task else ""
            raise DataError(self.path, None, ID_FIELDS[self.layout], f"no output for "
                            f"{len(missing)} example(s){of} the cell evaluates, e.g. "
                            f"{missing[:10]}")
        for request in requests:
            self._check_note(request)
        asked = {r["id"] for r in requests}
        shown = sorted({i for r in requests for i in r.get("exemplar_ids") or ()} & set(self.rows)
                       - asked)
        log.info("%s: %d row(s); %d answer the %d request(s) of the job, %d ignored (examples "
                 "that no cell of the job evaluates%s)", self.path.name, len(self.rows),
                 len(asked), len(requests), len(self.rows) - len(asked),
                 f"; {len(shown)} of them the exemplars its prompts show, never scored: "
                 f"{', '.join(shown[:10])}" if shown else "")
        return [_generation(self.rows[r["id"]]) for r in requests]

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


def _generation(row: Row) -> Generation:
    return Generation(row.output, row.finish or "recorded", row.prompt_tokens,
                      row.completion_tokens, recorded_verdict=row.verdict)


def load(inputs: Inputs) -> RecordedBackend:
    """The file of outputs of the cell's task, read and checked."""
    spec = inputs.model["recorded"]
    path = file_of(spec, inputs.task)
    if path is None:
        raise ValueError(f"the recorded model's recorded.path names no file for task "
                         f"{inputs.task!r}")
    return RecordedBackend(Path(path).expanduser(), spec.get("layout") or "jsonl",
                           pin_of(spec, inputs.task), inputs.task, max_output_chars(spec))


def batch_size(model: Mapping[str, Any], todo: int) -> int:
    """Every request in one call: reading costs nothing, and the log counts the rows left."""
    return max(todo, 1)


BACKEND = BackendSpec("recorded", load, sections={"recorded": Recorded},
                      required={"recorded": ("path",)}, recorded=True, batch_size=batch_size)
