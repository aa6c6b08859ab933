"""The prompts of a benchmark with every default (:class:`.standard.StandardBenchmark`): a
system message, the exemplars as user/assistant turns, the example as the user message, from
the task's templates (``system``, ``user``, ``answer`` and ``answer_format``, by style:
``direct`` or ``reasoning``); for a model without a chat template (prompt kind ``completion``)
the same texts as one prompt to continue; context truncation over the example's
``truncatable`` fields."""

from __future__ import annotations

from clineval.benchmarks.base import request_record
from clineval.benchmarks.base.exemplars import shown_exemplars
from clineval.benchmarks.base.prompts import fill
from clineval.io import Record
from clineval.metrics import copying

#: The two answer styles of a task's templates: a mode with ``reasoning`` asks for ``reasoning``.
STYLES = ("direct", "reasoning")


class StandardPrompts:
    """The prompt members of :class:`.standard.StandardBenchmark`, with their defaults."""

    title: str
    #: Exemplars an exemplar mode shows when the task does not say (``exemplars.count``).
    paper_exemplars = 1
    #: The example fields context truncation may shorten (the long inputs).
    truncatable: tuple[str, ...] = ()

    def style(self, mode: Record) -> str:
        """The templates' answer style of ``mode``: ``reasoning`` or ``direct``."""
        return "reasoning" if mode["reasoning"] else "direct"

    def templates_for(self, templates: Record, example: Record) -> Record:
        """The templates ``example`` is rendered with (one set for every example)."""
        return templates

    def prompt_values(self, example: Record) -> dict[str, str]:
        """The values a template's ``{name}`` placeholders take from an example."""
        return {name: str(value) for name, value in example.items() if isinstance(value, str)}

    def answer_values(self, exemplar: Record) -> dict[str, str]:
        """The values the ``answer`` template (an exemplar's assistant turn) takes."""
        return self.prompt_values(exemplar)

    def exemplars_for(self, task: Record, mode: Record, example: Record,
                      exemplars: list[Record]) -> list[Record]:
        """The exemplars ``example``'s request shows: the first of the pool."""
        count = shown_exemplars(task, mode, self.paper_exemplars)
        if len(exemplars) < count:
            raise ValueError(f"{self.title}: {count} exemplar(s) requested, {len(exemplars)} "
                             "available (tasks.<task>.exemplars.count)")
        return exemplars[:count]

    def render(self, templates: Record, style: str, example: Record,
               exemplars: list[Record]) -> list[dict[str, str]]:
        """System message, exemplar turns (user, assistant), the example's user message."""
        answer_format = templates["answer_format"][style]
        messages = [{"role": "system",
                     "content": fill(templates["system"], {"answer_format": answer_format})}]
        for exemplar in exemplars:
            turn = {**self.prompt_values(exemplar), "answer_format": answer_format}
            messages.append({"role": "user", "content": fill(templates["user"], turn)})
            messages.append({"role": "assistant",
                             "content": fill(templates["answer"], self.answer_values(exemplar))})
        user = {**self.prompt_values(example), "answer_format": answer_format}
        messages.append({"role": "user", "content": fill(templates["user"], user)})
        return messages

    def build_requests(self, task: Record, mode: Record, templates: Record,
                       examples: list[Record], exemplars: list[Record],
                       prompt_kind: str = "chat") -> list[Record]:
        """One request per example (:meth:`render`); for prompt kind ``completion`` the
        messages' texts joined by blank lines, as one prompt to continue."""
        leaked = sorted({e["id"] for e in examples} & {e["id"] for e in exemplars})
        if leaked:
            raise ValueError(f"{self.title} exemplar id(s) {leaked[:5]} are also evaluated "
                             "examples")
        style, completion = self.style(mode), prompt_kind == "completion"
        requests = []
        for example in examples:
            chosen = self.exemplars_for(task, mode, example, exemplars)
            messages = self.render(self.templates_for(templates, example), style, example,
                                   chosen)
            if completion:
                messages = [{"role": "user",
                             "content": "\n\n".join(m["content"] for m in messages)}]
            requests.append(request_record(example["id"], messages, [e["id"] for e in chosen],
                                           completion=completion))
        return requests

    def input_fields(self, example: Record) -> dict[str, str]:
        return {name: example[name] for name in self.truncatable}

    def with_fields(self, example: Record, fields: dict[str, str]) -> Record:
        return {**example, **fields}

    def prompt_inputs(self, example: Record, user: str) -> list[str]:
        """The example's own texts as the final user message ``user`` shows them (what is not
        the instruction): by default its fields' strings found there
        (:func:`clineval.metrics.copying.shown_inputs`)."""
        return copying.shown_inputs(example, user)

    def restated_texts(self, example: Record) -> list[str]:
        """None by default: every word an output shares with the prompt may be a copy."""
        return []
