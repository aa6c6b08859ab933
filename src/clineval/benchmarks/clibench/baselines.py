"""CliBench baselines: ``oracle`` answers the gold codes (100 % at every level); ``frequency``
answers the training pool's most frequent codes of the task, as many as its mean target count
(a real lower bound: the same answer for every admission)."""

from __future__ import annotations

from collections.abc import Callable

from clineval.errors import ConfigError
from clineval.io import Record

BASELINES = ("oracle", "frequency")


def get(name: str) -> Callable[[Record], str]:
    if name == "oracle":
        return lambda example: "\n".join(example["gold"])
    if name == "frequency":
        return lambda example: "\n".join(example["frequency_baseline"])
    raise ConfigError(f"CliBench has no baseline {name!r}; baselines: {', '.join(BASELINES)}")
