"""Write a hand-graded set's outputs from finished runs (tests/fixtures/README.md).

    python tests/graded_build.py SET --run LABEL RESULTS DATA [--run ...] [--model M]
    python tests/graded_build.py clibench_graded --remap

``SET`` is a folder of ``tests/fixtures`` (``clibench_graded``, ``clue_graded``,
``mcqa_graded``, ``medcalc_graded``, ``meddisk_graded``, ``medeval_graded``). ``RESULTS`` and
``DATA`` are a run's results and data folders (``<workdir>/results`` and ``<workdir>/data``, or
a grid's ``results/grids/<grid>@<tag>`` and ``data/grids/<grid>@<tag>``); ``LABEL`` names the
run in each output's key. Every generation of the model in the set's cells gives one line of
``outputs.jsonl``: the raw output and what the set's test needs to read it without the run
(never a public data set's text: overlaps, values or masks stand for it). The outputs of runs
not named stay as they are. Grades are never written: the command lists the outputs that have
no grade in ``grades.jsonl`` or whose grade is stale (its ``output_sha256`` is not the
output's), and the set's test fails until each is graded.
"""

from __future__ import annotations

import argparse
import json
import re
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from graded import FIXTURES, mask

from clineval.io import read_json, read_jsonl, write_jsonl
from clineval.report.grades import output_sha256, read_grades

Record = dict[str, Any]


@dataclass(frozen=True)
class Cell:
    """One cell of a run: its label, task, mode, folders and the files every set reads."""

    label: str
    task: str
    mode: str
    results: Path
    data: Path
    model: str
    examples: dict[str, Record]
    requests: dict[str, Record]

    @property
    def budget(self) -> int:
        """The run's ``max_tokens`` for the cell."""
        meta = read_json(self.results / "generations" / self.model / self.task
                         / f"{self.mode}.meta.json")
        return int(meta["config"]["generation"]["model"]["sampling"]["max_tokens"])


# --- word runs shared with the prompt (CLUE, MCQA) -------------------------------------------

def part_runs(output: str, part: list[str]) -> list[str]:
    """The word runs of ``part``'s texts made of the copy-length word sequences that
    ``output`` also holds (each run its words joined by single spaces), in order, once each."""
    from clineval.metrics import copying

    tokens = copying.words(output)
    n = copying.run_length(tokens)
    held = {tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1)}
    runs: list[str] = []
    for text in part:
        ws = copying.words(text)
        covered = [False] * len(ws)
        for i in range(len(ws) - n + 1):
            if tuple(ws[i:i + n]) in held:
                covered[i:i + n] = [True] * n
        _append_runs(runs, ws, covered)
    return runs


def _append_runs(runs: list[str], words: list[str], covered: list[bool]) -> None:
    """Each maximal run of covered words, joined by single spaces, once."""
    start = None
    for i, on in enumerate([*covered, False]):
        if on and start is None:
            start = i
        elif not on and start is not None:
            run = " ".join(words[start:i])
            if run not in runs:
                runs.append(run)
            start = None


def overlap(benchmark: Any, output: str, messages: list[dict[str, str]], example: Record
            ) -> dict[str, list[str]]:
    """Per kind of prompt text (as ``find_copy`` splits it), the runs the output shares."""
    from clineval.metrics import copying

    prompt = copying.Prompt.of(messages)
    inputs = benchmark.prompt_inputs(example, prompt.user)
    parts = {"exemplar": [*prompt.exemplar_answers, *prompt.exemplar_inputs],
             "input": list(inputs) if inputs else [prompt.user],
             "instruction": [prompt.system, prompt.user]}
    return {kind: part_runs(output, texts) for kind, texts in parts.items()}


def clue_row(cell: Cell, generation: Record) -> Record:
    """A CLUE output: the example's identifiers, the overlaps, and on the demo's synthetic
    data the reference, LongHealth's options and MeDiSumCode's exemplar answers."""
    from clineval.benchmarks.clue.benchmark import BENCHMARK
    from clineval.benchmarks.clue.extract import exemplar_codes, format_examples

    example = cell.examples[generation["id"]]
    messages = cell.requests[generation["id"]]["messages"]
    demo = (cell.data / "demo" / cell.task).is_dir()  # the task's synthetic demo files
    record: Record = {
        "key": f"{cell.label}:{cell.task}/{cell.mode}/{example['id']}",
        "task": cell.task, "mode": cell.mode, "dataset": example["dataset"],
        "source": "demo" if demo else "public",
        "finish_reason": generation.get("finish_reason"), "output": generation["output"],
        "overlap": overlap(BENCHMARK, generation["output"], messages, example),
    }
    if demo:
        record["reference"] = example["reference"]
    if example["dataset"].startswith("longhealth_"):
        record["choices"] = example["choices"]
        record["options"] = example["fields"]["options"]
        record["shown"] = [[s.kind, s.letter, s.text] for s in format_examples(messages)]
    if demo and example["dataset"] == "medisumcode":
        record["exemplar_answers"] = [text for text, _ in exemplar_codes(messages)]
    return record


def mcqa_row(cell: Cell, generation: Record) -> Record:
    """An MCQA output: the question, its options and answer (demo text), the overlaps."""
    from clineval.benchmarks.mcqa.benchmark import BENCHMARK

    example = cell.examples[generation["id"]]
    messages = cell.requests[generation["id"]]["messages"]
    return {"key": f"{cell.label}:{cell.mode}/{example['id']}", "mode": cell.mode,
            "question": example["question"], "options": example["options"],
            "answer": example["answer"], "finish_reason": generation.get("finish_reason"),
            "output": generation["output"],
            "overlap": overlap(BENCHMARK, generation["output"], messages, example)}


# --- MedCalc-Bench: what the copy rules need of the note ---------------------------------------

_WORD = re.compile(r"\d+(?:\.\d+)?|[^\W\d_]+")  # a word or a number, as docs/medcalc.md counts


def _words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


def note_overlap(output: str, note: str) -> list[str]:
    """The note's maximal word runs made of ``COPY_RUN``-word sequences that the output
    holds, in the raw output or in its located answer text (JSON strings decoded)."""
    from clineval.benchmarks.medcalc.extract_robust import COPY_RUN, answer_text

    texts = [output] + [t for t in (answer_text(output)[0],) if t]
    held = {tuple(ws[i:i + COPY_RUN]) for ws in map(_words, texts)
            for i in range(len(ws) - COPY_RUN + 1)}
    words = _words(note)
    covered = [False] * len(words)
    for i in range(len(words) - COPY_RUN + 1):
        if tuple(words[i:i + COPY_RUN]) in held:
            covered[i:i + COPY_RUN] = [True] * COPY_RUN
    runs: list[str] = []
    _append_runs(runs, words, covered)
    return runs


def note_values_held(output: str, note: str) -> list[str]:
    """The note's values that the output (or its located answer text) states with the same
    unit or label beside them, each as the output writes it, lower case, spaces single."""
    from clineval.benchmarks.medcalc.extract_robust import answer_text, note_values

    texts = [output] + [t for t in (answer_text(output)[0],) if t]
    found: list[str] = []
    for text in texts:
        for start, end in note_values(text, note):
            value = " ".join(text[start:end].lower().split())
            if value not in found:
                found.append(value)
    return found


def medcalc_row(cell: Cell, generation: Record) -> Record:
    """A MedCalc-Bench output: the row's identifiers, output type and the note's overlaps."""
    from clineval.benchmarks.medcalc.extract import output_type_for

    example = cell.examples[generation["id"]]
    return {"batch": cell.label, "row_number": example["row_number"],
            "calculator_id": example["calculator_id"], "note_id": example["note_id"],
            "output_type": output_type_for(example["calculator_id"], example["output_type"]),
            "finish_reason": generation["finish_reason"], "output": generation["output"],
            "note_overlap": note_overlap(generation["output"], example["note"]),
            "note_values": note_values_held(generation["output"], example["note"])}


MEDDISK_FIELDS = ("id", "lang", "disease", "aspect", "type", "label", "verb", "reference")


def meddisk_row(cell: Cell, generation: Record) -> Record:
    """A MedDisK output: the example's fields, the prompt's final user message (the demo KB)."""
    example = cell.examples[generation["id"]]
    meta = cell.results / "generations" / cell.model / cell.task / f"{cell.mode}.meta.json"
    limit = (json.loads(meta.read_text(encoding="utf-8")).get("sampling", {}).get("max_tokens")
             if meta.is_file() else None)
    return {"key": f"{cell.label}:{cell.task}:{cell.mode}:{generation['id']}",
            "source": cell.label, "task": cell.task, "mode": cell.mode, "max_tokens": limit,
            **{field: example[field] for field in MEDDISK_FIELDS},
            "prompt": cell.requests[generation["id"]]["messages"][-1]["content"],
            "finish_reason": generation["finish_reason"], "output": generation["output"]}


def medeval_row(cell: Cell, generation: Record) -> Record:
    """A MedEval output: the example and the exemplars shown (demo text), or for Open-i the
    ids and the output with the reports' text masked (:func:`graded.mask`)."""
    from clineval.benchmarks.medeval import readings

    example, request = cell.examples[generation["id"]], cell.requests[generation["id"]]
    kind = example["task"]
    openi = example["id"].startswith("openi-")
    record: Record = {
        "key": f"{cell.label}/{cell.task}/{cell.mode}/{example['id']}", "task": kind,
        "mode": cell.mode, "id": example["id"], "domain": example["domain"],
        "data": "openi" if openi else "demo", "max_tokens": cell.budget,
        "finish_reason": generation["finish_reason"],
    }
    if openi:
        pool = {e["id"]: e for e in read_jsonl(cell.data / "derived" / cell.task
                                               / "exemplars.jsonl")}
        shown = [pool[i] for i in request["exemplar_ids"]]
        sources = {"f": example["fields"]["report"], "i": example["reference"]}
        for k, exemplar in enumerate(shown):
            sources |= {f"e{k}f": exemplar["fields"]["report"], f"e{k}i": exemplar["reference"]}
        return record | {"exemplar_ids": request["exemplar_ids"],
                          "output": mask(generation["output"], sources)}
    prompt = readings.shown_prompt(request["messages"], kind)
    assert prompt is not None
    return record | {
        "input": example["fields"].get("sentence") or example["fields"]["report"],
        "exemplars": [list(pair) for pair in zip(prompt.exemplar_inputs,
                                                 prompt.exemplar_answers, strict=True)],
        **({"codes": list(example["reference"])} if kind == "codes" else {}),
        "output": generation["output"]}


# --- CliBench: each answer item's mapping inputs ---------------------------------------------

class CliBenchItems:
    """Maps answer items with the demo dictionaries written once into a temporary folder."""

    def __init__(self, demo: Path) -> None:
        self.demo = demo

    def items(self, kind: str, output: str, mode: str) -> list[Record]:
        """The items of ``output`` as the scorer splits them, each with its literal mapping
        and, where the careful reading writes its abbreviations out, that text's mapping."""
        from clineval.benchmarks.clibench import kinds, pools, scoring
        from clineval.metrics.code_mapping import Item, Mapper

        def mapping(item: Item) -> Record:
            return {"nearest": list(item.codes), "how": item.how, "similarity": item.similarity}

        settings = scoring.settings({})
        files = scoring.scoring_files(kind, {"source": "demo"}, self.demo)
        scorer = scoring.Scorer(kind, settings, files)
        match = Mapper(kinds.system(kind, settings),
                       pools.candidates(kind, tuple(sorted(files.items())), settings["encoder"],
                                        False), None, "paper")
        items = match.map(scoring.answer_text(output, mode == "cot"))
        read = scorer.read_as(match, [items])
        return [{"text": i.text, **mapping(i)} | ({"read_as": {"text": read[i.text].text,
                                                                **mapping(read[i.text])}}
                                                  if i.text in read else {})
                for i in items]

    def row(self, cell: Cell, generation: Record) -> Record:
        """A CliBench output: the case as the prompt kept it, the messages and the items."""
        from clineval.benchmarks.clibench import decisions

        example = cell.examples[generation["id"]]
        messages = cell.requests[generation["id"]]["messages"]
        kind = cell.task.removeprefix("clibench_")
        user = messages[-1]["content"]
        kept = {"id": example["id"], "task": example["task"], "gold": example["gold"],
                "profile": example["profile"], "history": example["history"],
                "segments": {name: decisions._kept_prefix(text, user) if text else ""
                             for name, text in example["segments"].items()}}
        return {"key": f"{cell.label}/{kind}/{cell.mode}/{generation['id']}",
                "setting": cell.label, "task": kind, "mode": cell.mode,
                "max_tokens": cell.budget, "finish_reason": generation.get("finish_reason"),
                "output": generation["output"], "example": kept, "messages": messages,
                "items": self.items(kind, generation["output"], cell.mode)}


# --- the sets ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Spec:
    """A set: its cells (a glob of task folders), the output field a grade's ``id`` names,
    the run label an output came from, and how a generation becomes an output line."""

    tasks: str
    key: str
    label: Callable[[Record], str]
    row: Callable[[Cell, Record], Record] | None  # None: CliBench (needs the dictionaries)


SETS: dict[str, Spec] = {
    "clibench_graded": Spec("clibench_*", "key", lambda r: r["setting"], None),
    "clue_graded": Spec("clue_*", "key", lambda r: r["key"].split(":", 1)[0], clue_row),
    "mcqa_graded": Spec("mcqa", "key", lambda r: r["key"].split(":", 1)[0], mcqa_row),
    "medcalc_graded": Spec("medcalc", "row_number", lambda r: r["batch"], medcalc_row),
    "meddisk_graded": Spec("meddisk_*", "key", lambda r: r["source"], meddisk_row),
    "medeval_graded": Spec("medeval_*", "key", lambda r: r["key"].split("/", 1)[0],
                           medeval_row),
}


def run_rows(spec: Spec, row: Callable[[Cell, Record], Record], label: str, results: Path,
             data: Path, model: str) -> list[Record]:
    """Every generation of ``model`` in the run's cells of the set, as output lines."""
    out = []
    for path in sorted((results / "generations" / model).glob(f"{spec.tasks}/*.jsonl")):
        task, mode = path.parent.name, path.stem
        cell = Cell(label, task, mode, results, data, model,
                    {e["id"]: e for e in read_jsonl(data / "derived" / task / "examples.jsonl")},
                    {r["id"]: r for r in read_jsonl(results / "requests" / model / task
                                                    / f"{mode}.jsonl")})
        out += [row(cell, generation) for generation in read_jsonl(path)]
    return out


def ungraded(folder: Path, rows: list[Record], key: str) -> list[str]:
    """The outputs with no grade, or a stale one, in ``folder/grades.jsonl``."""
    path = folder / "grades.jsonl"
    hashes = {g.id: g.output_sha256 for g in read_grades(path)} if path.exists() else {}
    return [str(r[key]) for r in rows if hashes.get(str(r[key])) != output_sha256(r["output"])]


def build(name: str, runs: list[tuple[str, Path, Path]], model: str, remap: bool = False,
          root: Path = FIXTURES) -> list[str]:
    """Write ``<root>/<name>/outputs.jsonl``; list and return the outputs still to grade."""
    spec = SETS[name]
    path = root / name / "outputs.jsonl"
    labels = {label for label, _, _ in runs}
    rows = [r for r in (read_jsonl(path) if path.exists() else []) if spec.label(r) not in labels]
    with tempfile.TemporaryDirectory() as folder:
        row = spec.row
        if row is None:
            from clineval.mimic.synthetic_mimic4 import Layout, write_mimic4

            write_mimic4(Layout(Path(folder)), 4, 0)
            clibench = CliBenchItems(Path(folder))
            row = clibench.row
            if remap:
                rows = [r | {"items": clibench.items(r["task"], r["output"], r["mode"])}
                        for r in rows]
        seen = {(r.get("task"), r["mode"], r.get("id"), r["output"]) for r in rows}
        for label, results, data in runs:
            for new in run_rows(spec, row, label, results, data, model):
                # the same output of the same prompt in another run (a cached prompt) is one
                # line (MedEval's runs share prompts)
                same = (new.get("task"), new["mode"], new.get("id"), new["output"])
                if name == "medeval_graded" and same in seen:
                    continue
                seen.add(same)
                rows.append(new)
    rows.sort(key=lambda r: r[spec.key])
    write_jsonl(path, rows)
    missing = ungraded(path.parent, rows, spec.key)
    print(f"{path}: {len(rows)} outputs, {len(missing)} without a current grade")
    for key in missing:
        print(key)
    return missing


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("set", choices=sorted(SETS))
    parser.add_argument("--run", nargs=3, action="append", default=[],
                        metavar=("LABEL", "RESULTS", "DATA"))
    parser.add_argument("--model", default="smollm2_135m")
    parser.add_argument("--remap", action="store_true",
                        help="CliBench: map the stored outputs' items again (no run folder)")
    args = parser.parse_args()
    if not args.run and not args.remap:
        parser.error("give --run LABEL RESULTS DATA (or, for clibench_graded, --remap)")
    if args.remap and args.set != "clibench_graded":
        parser.error("--remap is for clibench_graded")
    build(args.set, [(label, Path(r), Path(d)) for label, r, d in args.run], args.model,
          args.remap)


if __name__ == "__main__":
    main()
