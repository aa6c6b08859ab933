"""Score MedEval outputs: extraction per example, the paper's metrics per domain group and domain.

Scales as the paper's tables: accuracy, F1, qualified rate, per-code accuracy, EMR and the
rewriting scores as fractions (0-1); ROUGE and BLEU on 0-100. Settings (``task["scoring"]``):

- ``extraction``: ``lenient`` (default; App. D: exactly one label word) or ``strict`` (the
  label word and nothing else)
- ``answer_span`` (rewriting, summarization): ``slot`` (default: the answer after the prompt's
  open label, an echoed frame and a following example cut off) or ``whole`` (the output, a
  leading label dropped)
- ``unqualified``: ``wrong`` (default: an off-format answer counts as a wrong prediction) or
  ``exclude`` (left out of accuracy and F1; the qualified rate shows how many)
- ``rouge.use_stemmer`` (false); ``bleu``: ``level`` (``corpus``, or ``sentence``: the mean of
  sentence BLEU), ``lowercase`` (false), ``tokenize`` (``13a``)
- ``classifiers`` (rewriting): ``kind`` (``sklearn``: ``C`` (1.0), ``data`` (the task's data
  settings, so the judges train on the train split of the same sentences file); ``model``:
  ``model`` (a model config, ``{preset: ...}``), ``decoding`` (``paper``), ``templates``)

With several exemplar draws (``exemplars.draws``) every draw is scored on the validation split;
the draw with the best validation score (accuracy, per-code accuracy, or BLEU-4 for the
generation tasks; ties: the lower draw) is the one whose test examples give the summary, and
``selection`` records every draw's validation score and the winner.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from statistics import fmean
from typing import Any

import numpy as np

from clineval.benchmarks.base.judge import judge as judge_model
from clineval.benchmarks.medeval import classifiers, formats, synthetic
from clineval.benchmarks.medeval.codes import extract_codes
from clineval.benchmarks.medeval.examples import LABELS
from clineval.benchmarks.medeval.extract import MODES, SPANS, answer_text, extract_label
from clineval.benchmarks.medeval.splits import PAPER_RATIO, assign_splits
from clineval.errors import ConfigError
from clineval.metrics.bleu import (
    bleu_from_statistics,
    bleu_statistics_matrix,
    corpus_bleu4,
    sentence_bleu4,
)
from clineval.metrics.bootstrap import Replicates, exact_sums, present, resample_counts
from clineval.metrics.classification import (
    binary_f1,
    exact_match_rate,
    f1_of_counts,
    mean_code_accuracy,
    mean_of_codes,
    per_code_accuracy,
    percent,
)

Record = dict[str, Any]
SECTIONS = ("extraction", "answer_span", "unqualified", "rouge", "bleu", "classifiers",
            "baselines")
#: The positive class of each NLU sentence task's F1.
POSITIVE = {"abnormality": "abnormal", "ambiguity": "ambiguous"}
#: The validation score that picks the best exemplar draw.
SELECTION_METRIC = {"abnormality": "accuracy", "ambiguity": "accuracy", "codes": "avg_accuracy",
                    "rewriting": "bleu4", "summarization": "bleu4"}


def settings(task: Record) -> Record:
    scoring = dict(task.get("scoring") or {})
    unknown = sorted(set(scoring) - set(SECTIONS))
    if unknown:
        raise ConfigError(f"unknown MedEval scoring setting(s) {unknown}; known: "
                          f"{', '.join(SECTIONS)}")
    if scoring.get("extraction", "lenient") not in MODES:
        raise ConfigError(f"scoring.extraction={scoring['extraction']!r}; use {MODES}")
    if scoring.get("answer_span", "slot") not in SPANS:
        raise ConfigError(f"scoring.answer_span={scoring['answer_span']!r}; use {SPANS}")
    if scoring.get("unqualified", "wrong") not in ("wrong", "exclude"):
        raise ConfigError(f"scoring.unqualified={scoring['unqualified']!r}; use wrong or exclude")
    return scoring


def _frac(value: float | None) -> float | None:
    return None if value is None else value / 100.0


def _mean(values: Sequence[float]) -> float | None:
    return fmean(values) if values else None


# -- per-example extraction ---------------------------------------------------------------------
def _row(example: Record, output: str, scoring: Record) -> Record:
    row = {k: example[k] for k in ("id", "task", "domain", "group", "split")}
    row["draw"] = int(example.get("draw", 0))
    kind = example["task"]
    if kind in LABELS:
        found = extract_label(output, LABELS[kind], scoring.get("extraction", "lenient"))
        row |= {"prediction": found.prediction, "qualified": found.qualified,
                "reference": example["reference"],
                "correct": found.prediction == example["reference"]}
    elif kind == "codes":
        found = extract_codes(output, list(example["reference"]))
        row |= {"prediction": found.predicted, "qualified": found.qualified,
                "conflicts": list(found.conflicts), "reference": example["reference"],
                "exact_match": found.predicted == example["reference"]}
    else:
        row |= {"prediction": answer_text(output, kind, scoring.get("answer_span", "slot")),
                "reference": example["reference"]}
        if kind == "rewriting":
            row |= {"original": example["fields"]["sentence"], "labels": example["labels"]}
    return row


# -- metrics of a part (a domain or a domain group) ---------------------------------------------
def _accuracy(correct: int, n: int) -> float | None:
    """``correct`` of ``n`` as a fraction, as the mean of 0/1 outcomes in percent over 100."""
    return _frac(100.0 * (correct / n)) if n else None


def _nlu(rows: list[Record], kind: str, scoring: Record) -> Record:
    counted = rows if scoring.get("unqualified", "wrong") == "wrong" else [
        r for r in rows if r["qualified"]]
    return {
        "n": len(rows),
        "accuracy": _accuracy(sum(bool(r["correct"]) for r in counted), len(counted)),
        "f1": _frac(binary_f1([r["prediction"] for r in counted],
                              [r["reference"] for r in counted], POSITIVE[kind])),
        "qualified_rate": fmean(r["qualified"] for r in rows) if rows else None,
    }


def _codes(rows: list[Record], scoring: Record) -> Record:
    counted = rows if scoring.get("unqualified", "wrong") == "wrong" else [
        r for r in rows if r["qualified"]]
    codes = list(rows[0]["reference"]) if rows else []
    predicted = [r["prediction"] for r in counted]
    gold = [r["reference"] for r in counted]
    return {
        "n": len(rows),
        "avg_accuracy": _frac(mean_code_accuracy(predicted, gold, codes)),
        "emr": _frac(exact_match_rate(predicted, gold, codes)),
        "qualified_rate": fmean(r["qualified"] for r in rows) if rows else None,
        "per_code": {c: v / 100.0 for c, v in per_code_accuracy(predicted, gold, codes).items()},
    }


def _bleu(rows: list[Record], scoring: Record) -> float | None:
    spec = scoring.get("bleu") or {}
    options = {"lowercase": bool(spec.get("lowercase", False)),
               "tokenize": str(spec.get("tokenize", "13a"))}
    hyps, refs = [r["prediction"] for r in rows], [r["reference"] for r in rows]
    if spec.get("level", "corpus") == "sentence":
        return _mean([sentence_bleu4(h, r, **options) for h, r in zip(hyps, refs, strict=True)])
    return corpus_bleu4(hyps, refs, **options)


def _summaries(rows: list[Record], scoring: Record) -> Record:
    stem = bool((scoring.get("rouge") or {}).get("use_stemmer", False))
    for row in rows:
        if "rouge" not in row:  # scored rows carry it: tables and resamples never recompute it
            from clineval.metrics.rouge import rouge_f1  # imports nltk: slow

            row["rouge"] = rouge_f1(row["prediction"], row["reference"], use_stemmer=stem)
    part = {key: _mean([r["rouge"][key] for r in rows]) for key in ("rouge_1", "rouge_2",
                                                                     "rouge_l")}
    values = list(part.values())
    part["rouge_sum"] = None if None in values else sum(values)
    return {"n": len(rows), **part, "bleu4": _bleu(rows, scoring)}


def judge_rewrites(rows: list[Record], judges: Callable[[str], Record]) -> None:
    """Record in each row (``judged``) the group's classifiers' labels for the original
    sentence and the rewrite; rows of one domain group."""
    if not rows:
        return
    judge = judges(rows[0]["group"])
    originals = [r["original"] for r in rows]
    rewrites = [r["prediction"] for r in rows]
    for label in ("ambiguous", "abnormal"):
        clf = judge[label]
        before, after = clf.predict(originals), clf.predict(rewrites)
        for row, b, a in zip(rows, before, after, strict=True):
            row.setdefault("judged", {})[label] = {"original": b, "rewrite": a}
            # a model judge can answer off format (None): its qualified rate is reported
            row["judge_kind"] = "model" if clf.answers_off_format else "classifier"


def _rewriting(rows: list[Record], scoring: Record) -> Record:
    """BLEU-4 and the judges' accuracies before and after rewriting (rows already judged)."""
    part: Record = {"n": len(rows), "bleu4": _bleu(rows, scoring)}
    if not rows:
        return part
    for label in ("ambiguous", "abnormal"):
        gold = [r["labels"][label] for r in rows]
        before = [r["judged"][label]["original"] for r in rows]
        after = [r["judged"][label]["rewrite"] for r in rows]
        acc_before = fmean(p == g for p, g in zip(before, gold, strict=True))
        acc_after = fmean(p == g for p, g in zip(after, gold, strict=True))
        short = "am" if label == "ambiguous" else "ab"
        part |= {f"acc_{short}_original": acc_before, f"acc_{short}_rewrite": acc_after,
                 f"dacc_{short}": acc_before - acc_after}
        if rows[0].get("judge_kind") == "model":  # the share of its answers on format
            part |= {f"judge_qr_{short}_original": fmean(p is not None for p in before),
                     f"judge_qr_{short}_rewrite": fmean(p is not None for p in after)}
    return part


# -- the rewriting task's judges ----------------------------------------------------------------
def _training_sentences(data: Record) -> list[Record]:
    """The train split of the sentences the task reads (the demo's are regenerated)."""
    if data.get("source") == "demo":
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "sentences.csv"
            synthetic.write_sentences(path)
            records = formats.read_sentences(path)
    elif data.get("sentences"):
        records = formats.read_sentences(Path(data["sentences"]))
    else:
        raise ConfigError("scoring.classifiers.data names no sentences file (data.sentences)")
    split = assign_splits(records, int(data.get("seed", 0)), data.get("split") or PAPER_RATIO)
    return [r for r in split if r["split"] == "train"]


def judges_for(task: Record, scoring: Record) -> tuple[Callable[[str], Record], Record]:
    """Per domain group, the ambiguity and abnormality judges; and their description."""
    spec = classifiers.settings(scoring)
    if spec["kind"] == "model":
        return _model_judges(task, spec)
    data = spec["data"] or {}
    chest = tuple(data.get("chest_domains") or (formats.CHEST,))
    train = _training_sentences(data)
    info: Record = {"kind": spec["kind"], "C": spec["C"], "groups": {}}

    def judge(group: str) -> Record:
        mine = [r for r in train if formats.domain_group(r["domain"], chest) == group]
        fitted = {}
        for label in ("ambiguous", "abnormal"):
            labelled = [r for r in mine if r[label] is not None]
            fitted[label] = classifiers.train(
                label, group, tuple(r["sentence"] for r in labelled),
                tuple(r[label] for r in labelled), spec["C"])
        info["groups"][group] = {
            label: {"sha256": clf.fingerprint, "n_train": clf.n_train}
            for label, clf in fitted.items()
        }
        return fitted

    return judge, info


def _model_judges(task: Record, spec: Record) -> tuple[Callable[[str], Record], Record]:
    """A model judging both labels in every group, with the sentence tasks' zero-shot prompts
    (the templates file the workflow checked, ``inputs.judge_templates``, else the setting)."""
    import yaml

    path = Path((task.get("inputs") or {}).get("judge_templates") or spec["templates"])
    templates = yaml.safe_load(path.read_text(encoding="utf-8"))
    model = judge_model(task, spec["model"])
    extraction = (task.get("scoring") or {}).get("extraction", "lenient")
    fitted = {label: classifiers.PromptedJudge(label, model, templates, extraction)
              for label in classifiers.LABEL_FIELDS}
    info = {"kind": "model", "decoding": spec["decoding"], "judge": model.describe(),
            "templates": str(path)}
    return (lambda group: fitted), info


# -- the cell ------------------------------------------------------------------------------------
def _parts(rows: list[Record], kind: str, scoring: Record) -> Record:
    def metrics(part_rows: list[Record]) -> Record:
        if kind in LABELS:
            return _nlu(part_rows, kind, scoring)
        if kind == "codes":
            return _codes(part_rows, scoring)
        if kind == "summarization":
            return _summaries(part_rows, scoring)
        return _rewriting(part_rows, scoring)

    def grouped(key: str) -> Record:
        keys = sorted({r[key] for r in rows})
        return {k: metrics([r for r in rows if r[key] == k]) for k in keys}

    summary: Record = {"domains": grouped("domain")}
    if kind == "codes":
        return summary  # code lists differ by domain: no pooled group score
    if kind == "rewriting":
        summary["groups"] = grouped("group")  # judges are per group
        return summary
    return {**summary, "groups": grouped("group"), "overall": metrics(rows)}


def _selection_score(rows: list[Record], kind: str, scoring: Record) -> float | None:
    if kind in LABELS:
        return _nlu(rows, kind, scoring)["accuracy"]
    if kind == "codes":
        return _codes(rows, scoring)["avg_accuracy"]
    return _bleu(rows, scoring)


def summarize_rows(task: Record, rows: list[Record]) -> Record:
    """The summary's per-part metrics from scored rows (those marked ``evaluated``; rewriting
    rows carry their judges' labels)."""
    scoring = settings(task)
    evaluated = [r for r in rows if r["evaluated"]]
    kind = rows[0]["task"] if rows else "abnormality"
    summary: Record = {"task": kind, "n": len(evaluated), **_parts(evaluated, kind, scoring)}
    summary["scale"] = ("fractions (0-1)" if kind != "summarization" else "0-100") + (
        "; BLEU-4 0-100" if kind == "rewriting" else "")
    return summary


# -- all bootstrap resamples at once -------------------------------------------------------------
class _Drawn:
    """A cell's rows and resamples: a part's (a domain's or group's) per-resample sums of
    per-row values, as the part's rows of each resample would sum them."""

    def __init__(self, rows: list[Record], drawn: np.ndarray):
        self.rows, self.drawn = rows, drawn
        self.counts = resample_counts(drawn, len(rows))

    def count(self, mask: np.ndarray) -> list[int]:
        """Per resample: how many drawn rows ``mask`` holds."""
        return (self.counts @ mask.astype(np.int64)).tolist()

    def column(self, get: Callable[[Record], Any], within: np.ndarray | None = None
               ) -> np.ndarray:
        """``get`` of each row (of the rows ``within`` holds; False for the others)."""
        keep = [True] * len(self.rows) if within is None else within.tolist()
        return np.array([bool(k) and get(r) for r, k in zip(self.rows, keep, strict=True)])

    def bleu(self, mask: np.ndarray, scoring: Record) -> list[float | None]:
        """Per resample: the part's BLEU-4 as :func:`_bleu` computes it."""
        spec = scoring.get("bleu") or {}
        options = {"lowercase": bool(spec.get("lowercase", False)),
                   "tokenize": str(spec.get("tokenize", "13a"))}
        sizes = self.count(mask)
        if spec.get("level", "corpus") == "sentence":
            values = [sentence_bleu4(r["prediction"], r["reference"], **options)
                      for r in self.rows]
            sums = exact_sums(values, self.drawn, mask)
            return [total / size if size else None for total, size in zip(sums, sizes,
                                                                            strict=True)]
        stats = bleu_statistics_matrix([r["prediction"] for r in self.rows],
                                       [r["reference"] for r in self.rows], **options)
        summed = (self.counts @ (stats * mask[:, None])).tolist()
        return [bleu_from_statistics(total, **options) if size else None
                for total, size in zip(summed, sizes, strict=True)]

    def mean(self, values: Sequence[float], mask: np.ndarray) -> list[float | None]:
        """Per resample: the fmean of the part's drawn ``values`` (None for none)."""
        sums = exact_sums(values, self.drawn, mask)
        return [total / size if size else None
                for total, size in zip(sums, self.count(mask), strict=True)]


def _part_replicates(drawn: _Drawn, mask: np.ndarray, kind: str, scoring: Record
                     ) -> dict[str, list[Any]]:
    """A part's metrics on every resample (a resample without the part: any value)."""
    rows = drawn.rows
    sizes = drawn.count(mask)
    if kind in ("summarization", "rewriting"):
        out: dict[str, list[Any]] = {"bleu4": drawn.bleu(mask, scoring)}
        if kind == "summarization":
            for key in ("rouge_1", "rouge_2", "rouge_l"):
                out[key] = drawn.mean([r["rouge"][key] for r in rows], mask)
            out["rouge_sum"] = [None if None in values else sum(values) for values in zip(
                out["rouge_1"], out["rouge_2"], out["rouge_l"], strict=True)]
            return out
        for label in ("ambiguous", "abnormal"):
            short = "am" if label == "ambiguous" else "ab"
            right = {side: drawn.count(mask & drawn.column(
                lambda r, side=side, label=label: r["judged"][label][side]
                == r["labels"][label]))
                for side in ("original", "rewrite")}
            before = [k / m if m else None for k, m in zip(right["original"], sizes, strict=True)]
            after = [k / m if m else None for k, m in zip(right["rewrite"], sizes, strict=True)]
            out |= {f"acc_{short}_original": before, f"acc_{short}_rewrite": after,
                    f"dacc_{short}": [None if b is None or a is None else b - a
                                      for b, a in zip(before, after, strict=True)]}
            if rows and rows[0].get("judge_kind") == "model":  # its share of on-format answers
                for side in ("original", "rewrite"):
                    on = drawn.count(mask & drawn.column(
                        lambda r, side=side, label=label: r["judged"][label][side] is not None))
                    out[f"judge_qr_{short}_{side}"] = [k / m if m else None
                                                       for k, m in zip(on, sizes, strict=True)]
        return out
    qualified = drawn.column(lambda r: bool(r["qualified"]))
    counted = mask if scoring.get("unqualified", "wrong") == "wrong" else mask & qualified
    used = drawn.count(counted)
    out = {"qualified_rate": [q / m if m else None
                              for q, m in zip(drawn.count(mask & qualified), sizes, strict=True)]}
    if kind in LABELS:
        correct = drawn.count(counted & drawn.column(lambda r: bool(r["correct"])))
        positive = POSITIVE[kind]
        predicted = drawn.column(lambda r: r["prediction"] == positive)
        gold = drawn.column(lambda r: r["reference"] == positive)
        tp, fp, fn = (drawn.count(counted & p & g) for p, g in (
            (predicted, gold), (predicted, ~gold), (~predicted, gold)))
        out["accuracy"] = [_accuracy(k, c) for k, c in zip(correct, used, strict=True)]
        out["f1"] = [_frac(f1_of_counts(*t)) if c else None
                     for *t, c in zip(tp, fp, fn, used, strict=True)]
        return out
    codes = list(rows[int(np.flatnonzero(mask)[0])]["reference"])
    odd = [r["id"] for r, keep in zip(rows, mask.tolist(), strict=True)
           if keep and list(r["reference"]) != codes]
    if odd:
        raise ValueError(f"MedEval code rows {odd[:3]} list other codes than {codes} in the same "
                         "domain; a domain's rows share one code list")
    hits = {c: drawn.count(drawn.column(lambda r, c=c: r["prediction"].get(c)
                                        == r["reference"][c], counted)) for c in codes}
    exact = drawn.count(drawn.column(
        lambda r: all(r["prediction"].get(c) == r["reference"][c] for c in codes), counted))
    out["avg_accuracy"] = [_frac(mean_of_codes({c: percent(hits[c][b], n) for c in codes}))
                           if n else None for b, n in enumerate(used)]
    out["emr"] = [_frac(percent(e, n)) if n else None for e, n in zip(exact, used, strict=True)]
    return out


def headline_replicates(task: Record, rows: list[Record], drawn: np.ndarray) -> Replicates:
    """The headline (every metric of every domain group and domain) of every resample
    (``drawn``: row positions per resample), equal to ``summarize_rows`` on each resample's
    rows: counts and exact sums over the draw counts, finished with the same arithmetic."""
    scoring = settings(task)
    kind = rows[0]["task"] if rows else "abnormality"
    state = _Drawn(rows, drawn)
    evaluated = state.column(lambda r: bool(r["evaluated"]))
    levels = {"domains": "domain"} if kind == "codes" else {"groups": "group", "domains": "domain"}
    out: Replicates = {}
    for level, key in levels.items():
        keys = state.column(lambda r, key=key: r[key])
        for part in sorted({r[key] for r in rows if r["evaluated"]}):
            mask = evaluated & (keys == part)
            shown = np.array(state.count(mask)) > 0
            for metric, values in _part_replicates(state, mask, kind, scoring).items():
                out[f"{level}.{part}.{metric}"] = present(values, shown)
    return out


def score(task: Record, examples: list[Record], generations: list[Record]) -> tuple[
        list[Record], Record]:
    """Per-example rows and the cell summary (see the module docstring)."""
    scoring = settings(task)
    outputs = {g["id"]: g["output"] for g in generations}
    missing = [e["id"] for e in examples if e["id"] not in outputs]
    if missing:
        raise ValueError(f"no generation for {len(missing)} example(s), e.g. {missing[:3]}")
    kinds = {e["task"] for e in examples}
    if len(kinds) > 1:
        raise ValueError(f"a MedEval cell holds one task, these examples hold {sorted(kinds)}")
    kind = kinds.pop() if kinds else "abnormality"
    rows = [_row(e, outputs[e["id"]], scoring) for e in examples]
    judges, judge_info = judges_for(task, scoring) if kind == "rewriting" else (None, None)
    draws = sorted({r["draw"] for r in rows})
    selection = None
    chosen = 0
    if len(draws) > 1:
        per_draw = {
            d: _selection_score([r for r in rows if r["draw"] == d and r["split"] == "validation"],
                                kind, scoring)
            for d in draws
        }
        chosen = min(draws, key=lambda d: (-(per_draw[d] if per_draw[d] is not None else -1), d))
        selection = {"metric": SELECTION_METRIC[kind], "validation": per_draw, "chosen": chosen}
    for row in rows:
        row["evaluated"] = row["split"] == "test" and row["draw"] == chosen
    if judges is not None:
        for group in sorted({r["group"] for r in rows if r["evaluated"]}):
            judge_rewrites([r for r in rows if r["evaluated"] and r["group"] == group], judges)
    summary = summarize_rows(task, rows)
    if selection is not None:
        summary["selection"] = selection
    if judge_info is not None:
        summary["classifiers"] = judge_info
    return rows, summary
