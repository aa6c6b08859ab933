"""MedNLI (Romanov and Shivade, 2018), PhysioNet v1.0.0: ``mli_{train,dev,test}_v1.jsonl``.

One JSON object a line with ``sentence1`` (premise), ``sentence2`` (hypothesis), ``gold_label``
and ``pairID`` (plus parses, ignored). CLUE evaluates the test split; exemplars come from the
train (or dev) file, one label after another (entailment, neutral, contradiction, ...).
"""

from __future__ import annotations

from pathlib import Path

from clineval.benchmarks.base.exemplars import rank, split_with_exemplars
from clineval.io import DataError, Record, read_jsonl

LABELS = ("entailment", "neutral", "contradiction")
TASK = "mednli"
WHERE = "PhysioNet 'MedNLI' v1.0.0 (credentialed): https://physionet.org/content/mednli/1.0.0/"


def read_mednli(path: Path, split: str) -> list[Record]:
    """One example per line; ids ``mednli-<split>-<line>``."""
    examples = []
    pairs: dict[str, int] = {}
    for line, raw in enumerate(read_jsonl(path, ("sentence1", "sentence2", "gold_label")), 1):
        label = str(raw["gold_label"]).strip().lower()
        if label not in LABELS:
            raise DataError(path, line, "gold_label",
                            f"expected one of {', '.join(LABELS)}, got {raw['gold_label']!r}")
        for field in ("sentence1", "sentence2"):
            if not isinstance(raw[field], str) or not raw[field].strip():
                raise DataError(path, line, field,
                                f"expected a non-empty string, got {raw[field]!r}")
        pair = raw.get("pairID")
        if pair is not None:
            if pair in pairs:
                raise DataError(path, line, "pairID", f"duplicate {pair!r}, also on line "
                                f"{pairs[pair]}: expected each pair once")
            pairs[pair] = line
        examples.append({
            "id": f"mednli-{split}-{line}",
            "dataset": "mednli",
            "fields": {"premise": raw["sentence1"].strip(), "hypothesis": raw["sentence2"].strip()},
            "reference": label,
            "choices": list(LABELS),
            "meta": {"source": path.name, "line": line, "pair_id": raw.get("pairID")},
        })
    if not examples:
        raise DataError(path, None, None, "no examples")
    return examples


def _by_label(pool: list[Record], k: int, seed: int) -> list[Record]:
    """``k`` exemplars cycling through the labels, each label's records in seeded rank order."""
    queues = {
        label: sorted(
            (r for r in pool if r["reference"] == label), key=lambda r: rank(r["id"], seed)
        )
        for label in LABELS
    }
    chosen: list[Record] = []
    while len(chosen) < k and any(queues.values()):
        for label in LABELS:
            if queues[label] and len(chosen) < k:
                chosen.append(queues[label].pop(0))
    return chosen


def load_mednli(
    test: Path | str | None,
    train: Path | str | None = None,
    *,
    n_exemplars: int = 3,
    seed: int = 0,
) -> tuple[list[Record], list[Record]]:
    """Test examples and ``n_exemplars`` exemplars from ``train`` (held out of test when None)."""

    def from_train(path: Path, k: int, seed: int) -> list[Record]:
        return _by_label(read_mednli(path, "dev" if "dev" in path.name else "train"), k, seed)

    return split_with_exemplars(
        TASK, WHERE,
        (test, "the MedNLI test split mli_test_v1.jsonl"),
        (train, "the MedNLI train or dev split (exemplars)"),
        lambda path: read_mednli(path, "test"), from_train, n_exemplars, seed,
    )
