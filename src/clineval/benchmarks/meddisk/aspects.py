"""The aspect registry: which knowledge aspects exist, their type and their zh/en wording.

It comes from the task's ``data.aspects`` (``conf/task/meddisk/aspects.yaml``: the 18 aspects of
the paper's Table 1), a mapping ``key -> {order, abbr, type, zh: {label, verb}, en: {label,
verb}}``, sorted by ``order`` (then key: identities store mappings with sorted keys). A user
may change a type or add an aspect there.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from clineval.errors import ConfigError

TYPES = ("enumerated", "declarative", "numeric")
LANGS = ("zh", "en")


@dataclass(frozen=True)
class Aspect:
    key: str
    abbr: str
    type: str
    labels: dict[str, str]
    verbs: dict[str, str]
    #: A numeric aspect's allowed values (``values`` in the registry; None: any integer).
    allowed: tuple[int, ...] | None = None

    def label(self, lang: str) -> str:
        return self.labels[lang]

    def verb(self, lang: str) -> str:
        return self.verbs[lang]


def _rank(item: tuple[str, Any]) -> tuple[float, str]:
    """An aspect's place: by its ``order`` (null: after every ordered one), then its key."""
    key, entry = item
    order = entry.get("order") if isinstance(entry, dict) else None
    return (1e9 if order is None else float(order), key)


def registry(data: dict[str, Any], where: str = "data.aspects") -> dict[str, Aspect]:
    """The aspects of a task's ``data.aspects``, in order; a bad entry is a ConfigError."""
    spec = data.get("aspects")
    if not isinstance(spec, dict) or not spec:
        raise ConfigError(f"{where} must map aspect keys to their definitions")
    aspects = {}
    ranked = sorted(spec.items(), key=_rank)
    for key, entry in ranked:
        here = f"{where}.{key}"
        if not isinstance(entry, dict):
            raise ConfigError(f"{here} must be a mapping (abbr, type, zh, en)")
        if entry.get("type") not in TYPES:
            raise ConfigError(f"{here}.type={entry.get('type')!r}; types: {', '.join(TYPES)}")
        labels, verbs = {}, {}
        for lang in LANGS:
            wording = entry.get(lang) or {}
            if wording:
                if not wording.get("label") or wording.get("verb") is None:
                    raise ConfigError(f"{here}.{lang} needs `label` and `verb`")
                labels[lang], verbs[lang] = str(wording["label"]), str(wording["verb"])
        if not labels:
            raise ConfigError(f"{here} needs wording for zh or en")
        allowed = entry.get("values")
        if allowed is not None and (entry["type"] != "numeric" or not all(
                isinstance(v, int) and not isinstance(v, bool) for v in allowed)):
            raise ConfigError(f"{here}.values: a list of integers, for a numeric aspect only")
        aspects[key] = Aspect(key, str(entry.get("abbr") or key), entry["type"], labels, verbs,
                              None if allowed is None else tuple(allowed))
    return aspects


def selected(data: dict[str, Any], lang: str) -> dict[str, Aspect]:
    """The aspects a task evaluates (``data.select_aspects``, null: all), with ``lang`` wording."""
    aspects = registry(data)
    chosen = data.get("select_aspects")
    if chosen is not None:
        unknown = sorted(set(chosen) - set(aspects))
        if unknown:
            raise ConfigError(
                f"data.select_aspects: unknown aspect(s) {unknown}; known: {', '.join(aspects)}"
            )
        aspects = {k: a for k, a in aspects.items() if k in chosen}
    missing = [k for k, a in aspects.items() if lang not in a.labels]
    if missing:
        raise ConfigError(f"aspect(s) {missing} have no {lang} label and verb in data.aspects")
    return aspects
