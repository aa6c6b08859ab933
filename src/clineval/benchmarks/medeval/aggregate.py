"""Tables 6 and 7: averages of model groups and families, computed from cell values.

Table 6: per model group (e.g. adapted PLMs, prompted LLMs), the mean accuracy of every
(model, mode) cell of the group, per NLU sentence task and domain group.
Table 7: per model family and mode, the mean of the NLU accuracies (Table 2's four and
Table 4's average accuracy per domain) and of the NLG BLEU-4 scores (Table 3's two and
Table 5's); a family's "Average" is the mean of its modes, the "Average" row the mean of the
families per mode. Missing values are left out of a mean (None when nothing is left).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from statistics import fmean

from clineval.io import Record

#: (task kind, level, metric) of the values Table 7 averages.
NLU_VALUES = (("abnormality", "groups", "accuracy"), ("ambiguity", "groups", "accuracy"),
              ("codes", "domains", "avg_accuracy"))
NLG_VALUES = (("rewriting", "groups", "bleu4"), ("summarization", "groups", "bleu4"))


def mean(values: Iterable[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return fmean(present) if present else None


def cell_values(
    summaries: Mapping[str, Record], wanted: Sequence[tuple[str, str, str]],
    parts: Mapping[str, Sequence[str]],
) -> list[float | None]:
    """Values of one model and mode: for each (kind, level, metric), each part of ``parts[kind]``
    (domain groups or domains); ``summaries`` maps task kind -> the cell summary."""
    found: list[float | None] = []
    for kind, level, metric in wanted:
        summary = summaries.get(kind)
        for part in parts.get(kind, ()):
            value = None if summary is None else (
                (summary.get(level) or {}).get(part) or {}).get(metric)
            found.append(value)
    return found


def family_table(
    values: Mapping[str, Mapping[str, float | None]], modes: Sequence[str]
) -> tuple[dict[str, dict[str, float | None]], dict[str, float | None]]:
    """``values[family][mode]`` -> per family its modes and ``average``; per mode the mean over
    families (the "Average" rows)."""
    per_family = {
        family: {**{m: by_mode.get(m) for m in modes},
                 "average": mean(by_mode.get(m) for m in modes)}
        for family, by_mode in values.items()
    }
    per_mode = {m: mean(v.get(m) for v in values.values()) for m in modes}
    return per_family, per_mode
