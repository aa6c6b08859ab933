"""Render MedEval examples as one user message each, following the paper's App. C structure.

The message: the task's ``instruction`` (task name, level, task content); in the exemplar mode
``examples_intro`` (``{n}``) and one ``exemplar`` line per exemplar; then ``question`` (the
"without saying anything else" request) and ``input`` (the example with an open ``Label:``,
``Rewrite:`` or ``Summary:``). Wording comes from the task's templates file
(conf/templates/medeval.yaml). Placeholders: ``{sentence}``, ``{diagnostic}``, ``{report}``,
``{answer}`` (an exemplar's gold answer), ``{n}``, ``{code_count}``, ``{code_list}``,
``{answer_format}``.

The exemplar mode shows ``exemplars.count`` exemplars (null: the paper's, as many as classes:
2 for the NLU tasks, 3 for rewriting and summarization) of the example's domain; with several
draws, draw k's are the domain pool's ``k*count .. (k+1)*count - 1``. The mode's ``reasoning``
flag is not used: the paper asks for direct answers only.
"""

from __future__ import annotations

from clineval.benchmarks.base import request_record
from clineval.benchmarks.base.exemplars import shown_exemplars
from clineval.benchmarks.base.prompts import fill
from clineval.benchmarks.medeval.codes import render_codes
from clineval.benchmarks.medeval.examples import PAPER_SHOTS
from clineval.errors import ConfigError
from clineval.io import Record

PARTS = ("instruction", "examples_intro", "exemplar", "question", "input")


def answer_text(example: Record) -> str:
    """An example's gold answer as the answer format writes it."""
    reference = example["reference"]
    return render_codes(reference) if isinstance(reference, dict) else str(reference)


def _values(example: Record) -> dict[str, str]:
    values = dict(example["fields"])
    if example["task"] == "codes":
        codes = list(example["reference"])
        values |= {"code_count": str(len(codes)), "code_list": ", ".join(codes),
                   "answer_format": render_codes({c: "<value>" for c in codes})}
    return values


def _spec(templates: Record, kind: str) -> dict[str, str]:
    spec = (templates.get("tasks") or {}).get(kind)
    if spec is None:
        raise ConfigError(f"the MedEval templates have no entry tasks.{kind}")
    missing = [p for p in PARTS if not isinstance(spec.get(p), str)]
    if missing:
        raise ConfigError(f"MedEval templates tasks.{kind}: missing text for {', '.join(missing)}")
    return spec


def render(example: Record, templates: Record, exemplars: list[Record]) -> list[dict[str, str]]:
    spec = _spec(templates, example["task"])
    values = _values(example)
    parts = [fill(spec["instruction"], values)]
    if exemplars:
        parts.append(fill(spec["examples_intro"], {**values, "n": str(len(exemplars))}))
        parts += [
            fill(spec["exemplar"], {**_values(e), "answer": answer_text(e)}) for e in exemplars
        ]
    parts += [fill(spec["question"], values), fill(spec["input"], values)]
    return [{"role": "user", "content": "\n".join(p for p in parts if p.strip())}]


def build_requests(
    task: Record, mode: Record, templates: Record, examples: list[Record],
    exemplars: list[Record],
) -> list[Record]:
    pools: dict[str, list[Record]] = {}
    for exemplar in sorted(exemplars, key=lambda e: e["meta"]["pool_index"]):
        pools.setdefault(exemplar["domain"], []).append(exemplar)
    leaked = sorted({e["id"] for e in examples} & {e["id"] for e in exemplars})
    if leaked:
        raise ValueError(f"MedEval exemplar id(s) {leaked[:5]} are also evaluated examples")
    requests = []
    for example in examples:
        count = shown_exemplars(task, mode, PAPER_SHOTS[example["task"]])
        start = count * int(example.get("draw", 0))
        chosen = pools.get(example["domain"], [])[start:start + count]
        if len(chosen) < count:
            raise ValueError(
                f"MedEval {example['task']} ({example['domain']}): {count} exemplars wanted for "
                f"draw {example.get('draw', 0)}, the train split offers {len(chosen)}"
            )
        requests.append(request_record(example["id"], render(example, templates, chosen),
                                       [e["id"] for e in chosen]))
    return requests
