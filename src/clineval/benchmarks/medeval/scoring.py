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
from collections.abc import Callable
from pathlib import Path
from typing import Any

from clineval.benchmarks.base import literal_rows
from clineval.benchmarks.base.judge import judge as judge_model
from clineval.benchmarks.base.settings import read, read_own
from clineval.benchmarks.medeval import classifiers, formats, readings, synthetic
from clineval.benchmarks.medeval.codes import extract_codes
from clineval.benchmarks.medeval.examples import LABELS
from clineval.benchmarks.medeval.extract import Label, answer_text, extract_label
from clineval.benchmarks.medeval.settings import Scoring, SentenceData
from clineval.benchmarks.medeval.splits import PAPER_RATIO, assign_splits
from clineval.errors import ConfigError
from clineval.io import Record
from clineval.metrics.aggregate import (
    Aggregate,
    Count,
    Headline,
    Mean,
    Share,
    Shown,
    Sums,
    Test,
    combine,
    every,
    value,
    values,
)
from clineval.metrics.bleu import (
    BLEU_STATISTICS,
    bleu_from_statistics,
    bleu_statistics,
    sentence_bleu4,
)
from clineval.metrics.classification import f1_of_counts, mean_of_codes, percent

#: The positive class of each NLU sentence task's F1.
POSITIVE = {"abnormality": "abnormal", "ambiguity": "ambiguous"}
#: The validation score that picks the best exemplar draw.
#: Summary entries of a part that are not headline numbers.
HEADLESS = ("n", "per_code")
SELECTION_METRIC = {"abnormality": "accuracy", "ambiguity": "accuracy", "codes": "avg_accuracy",
                    "rewriting": "bleu4", "summarization": "bleu4"}


def settings(task: Record) -> Scoring:
    """The task's scoring settings, typed (settings.py, ``Scoring``)."""
    return read(Scoring, task.get("scoring"), "scoring")


def _frac(value: float | None) -> float | None:
    return None if value is None else value / 100.0


# -- per-example extraction ---------------------------------------------------------------------
def _input(example: Record) -> str:
    """The example's own text as the prompt shows it: its sentence or report."""
    fields = example["fields"]
    return str(fields.get("sentence") or fields.get("report") or "")


def _row(example: Record, generation: Record, scoring: Scoring) -> Record:
    """The example's row (:func:`read_row`), the exemplars read from the generation's prompt
    (its ``messages``, when given)."""
    messages = generation.get("messages")
    shown = readings.shown_prompt(messages, example["task"])
    return read_row(example, generation["output"], scoring, shown, messages)


def read_row(example: Record, output: str, scoring: Scoring,
             shown: readings.Shown | None = None, messages: list[Record] | None = None
             ) -> Record:
    """The example's row before its metrics: the careful reading of ``output``
    (:mod:`readings`; ``shown``: the exemplars the prompt showed) in its fields; where the
    paper's literal reading gives other fields, those in ``literal``; ``qualified``, and why
    not (``unqualified``); ``copied`` where the prompt is known (``messages``) or a copy
    decided the reading."""
    row = {k: example[k] for k in ("id", "task", "domain", "group", "split")}
    row["draw"] = int(example.get("draw", 0))
    kind, own = example["task"], _input(example)
    decided: str | None = None
    if kind in LABELS:
        mode = scoring.extraction
        text = readings.label_text(output, kind, own, shown)
        found = extract_label(text.text, LABELS[kind], mode)
        why = text.why
        if found.qualified and any(
                other.qualified and other.prediction != found.prediction
                for other in (extract_label(more, LABELS[kind], mode) for more in text.more)):
            found, why = Label(None, False), "contradictory labels"
        row |= {"prediction": found.prediction, "qualified": found.qualified,
                "reference": example["reference"],
                "correct": found.prediction == example["reference"]}
        literal = extract_label(output, LABELS[kind], mode)
        if (literal.prediction, literal.qualified) != (found.prediction, found.qualified):
            row["literal"] = {"prediction": literal.prediction, "qualified": literal.qualified,
                              "correct": literal.prediction == example["reference"]}
        decided = text.copy if not found.qualified else None
    elif kind == "codes":
        text = readings.label_text(output, kind, own, shown)
        found = extract_codes("\n".join((text.text, *text.more)), list(example["reference"]))
        row |= {"prediction": found.predicted, "qualified": found.qualified,
                "conflicts": list(found.conflicts), "reference": example["reference"],
                "exact_match": found.predicted == example["reference"]}
        literal = extract_codes(output, list(example["reference"]))
        if literal.predicted != found.predicted or literal.qualified != found.qualified:
            row["literal"] = {"prediction": literal.predicted, "qualified": literal.qualified,
                              "conflicts": list(literal.conflicts),
                              "exact_match": literal.predicted == example["reference"]}
        decided = text.copy if not found.qualified else None
        why = text.why
    else:
        span = scoring.answer_span
        slot = answer_text(output, kind, span)
        read = (readings.read_rewrite if kind == "rewriting" else readings.read_summary)(
            output, own, shown, slot)
        row |= {"prediction": read.text, "qualified": read.qualified,
                "reference": example["reference"]}
        if read.literal != read.text:
            row["literal"] = {"prediction": read.literal}
        if kind == "rewriting":
            row |= {"original": example["fields"]["sentence"], "labels": example["labels"]}
        decided, why = read.copy, read.why
    if why is not None and not row["qualified"]:
        row["unqualified"] = why
    if messages is not None or decided is not None:
        row["copied"] = readings.copied(output, own, shown, messages, decided)
    return row


# -- metrics of a part (a domain, a domain group, or all evaluated rows), declared once ------
def _accuracy(correct: int, n: int) -> float | None:
    """``correct`` of ``n`` as a fraction, as the mean of 0/1 outcomes in percent over 100."""
    return _frac(100.0 * (correct / n)) if n else None


def _counted(scoring: Scoring, within: Test) -> Test:
    """The rows of a part that accuracy and F1 count (off-format ones left out under
    ``unqualified: exclude``)."""
    if scoring.unqualified == "wrong":
        return within
    return lambda row: within(row) and row["qualified"]


def _nlu(kind: str, scoring: Scoring, within: Test) -> dict[str, Aggregate]:
    counted, positive = _counted(scoring, within), POSITIVE[kind]

    def confusion(row: Record) -> tuple[int, int, int]:
        p, g = row["prediction"] == positive, row["reference"] == positive
        return (int(p and g), int(p and not g), int(not p and g))

    used = Count(counted)
    return {
        "accuracy": combine(_accuracy, Count(lambda row: counted(row) and row["correct"]), used),
        "f1": combine(lambda found, n: _frac(f1_of_counts(*found)) if n else None,
                      Sums(confusion, 3, counted), used),
        "qualified_rate": Share(lambda row: row["qualified"], within),
    }


def _codes(rows: list[Record], scoring: Scoring, within: Test) -> dict[str, Aggregate]:
    """Per-code accuracy (its mean: ``avg_accuracy``) and EMR over the part's code list (the
    codes of its first row; every row of the part lists the same)."""
    mine = [row for row in rows if within(row)]
    codes = list(mine[0]["reference"]) if mine else []
    odd = [row["id"] for row in mine if list(row["reference"]) != codes]
    if odd:
        raise ValueError(f"MedEval code rows {odd[:3]} list other codes than {codes} in the same "
                         "domain; a domain's rows share one code list")
    counted = _counted(scoring, within)

    def hits(row: Record) -> tuple[int, ...]:
        return tuple(int(row["prediction"].get(c) == row["reference"][c]) for c in codes)

    used = Count(counted)
    per_code = combine(lambda found, n: {c: percent(k, n) for c, k in zip(codes, found,
                                                                          strict=True)}
                       if n else {}, Sums(hits, len(codes), counted), used)
    exact = Count(lambda row: counted(row) and all(
        row["prediction"].get(c) == row["reference"][c] for c in codes))
    return {
        "avg_accuracy": combine(lambda found: _frac(mean_of_codes(found)), per_code),
        "emr": combine(lambda e, n: _frac(percent(e, n)) if n else None, exact, used),
        "qualified_rate": Share(lambda row: row["qualified"], within),
        "per_code": combine(lambda found: {c: v / 100.0 for c, v in found.items()}, per_code),
    }


def _bleu(scoring: Scoring, within: Test) -> Aggregate:
    """BLEU-4 of the part: corpus BLEU from its pairs' summed statistics, or the mean of
    their sentence BLEU (``bleu.level: sentence``)."""
    spec = scoring.bleu
    options = {"lowercase": spec.lowercase, "tokenize": spec.tokenize}
    if spec.level == "sentence":
        return Mean(lambda row: sentence_bleu4(row["prediction"], row["reference"], **options),
                    within)
    statistics = Sums(lambda row: bleu_statistics(row["prediction"], row["reference"], **options),
                      BLEU_STATISTICS, within)
    return combine(lambda found, n: bleu_from_statistics(found, **options) if n else None,
                   statistics, Count(within))


def _summaries(scoring: Scoring, within: Test) -> dict[str, Aggregate]:
    rouge = {key: Mean(lambda row, key=key: row["rouge"][key], within)
             for key in ("rouge_1", "rouge_2", "rouge_l")}
    return {**rouge, "rouge_sum": combine(lambda *found: None if None in found else sum(found),
                                          *rouge.values()),
            "bleu4": _bleu(scoring, within)}


def with_rouge(rows: list[Record], scoring: Scoring) -> None:
    """Record each summary row's ROUGE (``rouge``) where it has none yet, and that of its
    prediction under the paper's literal reading (in ``literal``): scored rows carry it, so
    tables and resamples never recompute it."""
    stem = scoring.rouge.use_stemmer
    for row in rows:
        for fields in (row, row.get("literal")):
            if fields and "prediction" in fields and "rouge" not in fields:
                from clineval.metrics.rouge import rouge_f1  # imports nltk: slow

                fields["rouge"] = rouge_f1(fields["prediction"], row["reference"],
                                           use_stemmer=stem)


#: What an unqualified rewrite (App. D) counts as, per judge: the original's verdict for
#: ambiguity (nothing disambiguated: it adds 0 to ΔAcc_am) and no verdict, wrong, for
#: abnormality (no diagnosis kept: it counts as distorted in ΔAcc_ab) (docs/medeval.md,
#: "Copied text and readings").
UNQUALIFIED_VERDICTS = {"ambiguous": "original", "abnormal": None}


def judge_rewrites(rows: list[Record], judges: Callable[[str], Record]) -> None:
    """Record in each row (``judged``) the group's classifiers' labels for the original
    sentence and the rewrite; rows of one domain group. An unqualified rewrite is not judged:
    it counts as :data:`UNQUALIFIED_VERDICTS`. A row with another prediction under the paper's
    literal reading gets that prediction's verdicts too (``literal.judged``)."""
    if not rows:
        return
    judge = judges(rows[0]["group"])
    originals = [r["original"] for r in rows]
    judged = [r for r in rows if r.get("qualified", True)]
    literal = [r for r in rows if "prediction" in (r.get("literal") or {})]
    for label in ("ambiguous", "abnormal"):
        clf = judge[label]
        before = clf.predict(originals)
        after = dict(zip([r["id"] for r in judged], clf.predict([r["prediction"] for r in judged]),
                         strict=True))
        literally = dict(zip([r["id"] for r in literal],
                             clf.predict([r["literal"]["prediction"] for r in literal]),
                             strict=True))
        for row, b in zip(rows, before, strict=True):
            rewrite = after.get(row["id"], UNQUALIFIED_VERDICTS[label])
            if row["id"] not in after and rewrite == "original":
                rewrite = b
            row.setdefault("judged", {})[label] = {"original": b, "rewrite": rewrite}
            if row["id"] in literally:
                row["literal"].setdefault("judged", {})[label] = {
                    "original": b, "rewrite": literally[row["id"]]}
            # a model judge can answer off format (None): its qualified rate is reported
            row["judge_kind"] = "model" if clf.answers_off_format else "classifier"


def _rewriting(rows: list[Record], scoring: Scoring, within: Test) -> dict[str, Aggregate]:
    """BLEU-4 and the judges' accuracies before and after rewriting (rows already judged)."""
    mine = next((row for row in rows if within(row)), None)
    part: dict[str, Aggregate] = {"bleu4": _bleu(scoring, within)}
    if mine is None:
        return part
    for label in ("ambiguous", "abnormal"):
        def right(side: str, label: str = label) -> Share:
            return Share(lambda row: row["judged"][label][side] == row["labels"][label],
                         within)

        before, after = right("original"), right("rewrite")
        short = "am" if label == "ambiguous" else "ab"
        part |= {f"acc_{short}_original": before, f"acc_{short}_rewrite": after,
                 f"dacc_{short}": combine(
                     lambda b, a: None if b is None or a is None else b - a, before, after)}
        if mine.get("judge_kind") == "model":  # the share of its answers on format
            part |= {f"judge_qr_{short}_{side}": Share(
                lambda row, side=side, label=label: row["judged"][label][side] is not None,
                within if side == "original"
                else lambda row: within(row) and row.get("qualified", True))
                for side in ("original", "rewrite")}
    return part


# -- the rewriting task's judges ----------------------------------------------------------------
def _training_sentences(data: Record) -> list[Record]:
    """The train split of the sentences the task reads (the demo's are regenerated)."""
    typed = read_own(SentenceData, data, "scoring.classifiers.data")
    if typed.source == "demo":
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "sentences.csv"
            synthetic.write_sentences(path)
            records = formats.read_sentences(path)
    elif typed.sentences:
        records = formats.read_sentences(Path(typed.sentences))
    else:
        raise ConfigError("scoring.classifiers.data names no sentences file (data.sentences)")
    split = assign_splits(records, typed.seed, data.get("split") or PAPER_RATIO)
    return [r for r in split if r["split"] == "train"]


def judges_for(task: Record) -> tuple[Callable[[str], Record], Record]:
    """Per domain group, the ambiguity and abnormality judges; and their description."""
    spec = classifiers.settings(task.get("scoring"))
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
    extraction = settings(task).extraction
    fitted = {label: classifiers.PromptedJudge(label, model, templates, extraction)
              for label in classifiers.LABEL_FIELDS}
    info = {"kind": "model", "decoding": spec["decoding"], "judge": model.describe(),
            "templates": str(path)}
    return (lambda group: fitted), info


# -- the cell ------------------------------------------------------------------------------------
def part_aggregates(rows: list[Record], kind: str, scoring: Scoring, within: Test = every
                    ) -> dict[str, Aggregate]:
    """A part's metrics (its rows: those of ``rows`` that ``within`` holds), in the
    summary's order, ``n`` first."""
    if kind in LABELS:
        metrics = _nlu(kind, scoring, within)
    elif kind == "codes":
        metrics = _codes(rows, scoring, within)
    elif kind == "summarization":
        metrics = _summaries(scoring, within)
    else:
        metrics = _rewriting(rows, scoring, within)
    return {"n": Count(within), **metrics}


def _parts(rows: list[Record], kind: str, scoring: Scoring) -> dict[str, dict[str, Any]]:
    """Per level (``domains``, ``groups``, ``overall``) each part's test and metrics, from the
    evaluated ``rows``; codes differ by domain (no pooled group score) and rewriting's judges
    are per group (no overall)."""
    levels = {"domains": "domain"} if kind == "codes" else {"domains": "domain",
                                                            "groups": "group"}
    found: dict[str, dict[str, Any]] = {}
    for level, key in levels.items():
        found[level] = {}
        for part in sorted({row[key] for row in rows}):
            def within(row: Record, key: str = key, part: str = part) -> bool:
                return row["evaluated"] and row[key] == part

            found[level][part] = (within, part_aggregates(rows, kind, scoring, within))
    if kind not in ("codes", "rewriting"):
        def evaluated(row: Record) -> bool:
            return row["evaluated"]

        found["overall"] = (evaluated, part_aggregates(rows, kind, scoring, evaluated))
    return found


def _selection_score(rows: list[Record], kind: str, scoring: Scoring) -> float | None:
    return value(part_aggregates(rows, kind, scoring)[SELECTION_METRIC[kind]], rows)


def _evaluated(task: Record, rows: list[Record]) -> tuple[str, Record, list[Record]]:
    """The cell's task kind, its checked scoring settings and its evaluated rows (summary
    rows with their ROUGE)."""
    scoring = settings(task)
    kind = rows[0]["task"] if rows else "abnormality"
    evaluated = [r for r in rows if r["evaluated"]]
    if kind == "summarization":
        with_rouge(evaluated, scoring)
    return kind, scoring, evaluated


def summarize_rows(task: Record, rows: list[Record]) -> Record:
    """The summary's per-part metrics from scored rows (those marked ``evaluated``; rewriting
    rows carry their judges' labels); where a row reads otherwise under the paper's literal
    reading, that reading's summary too (``literal``: docs/scoring.md, Two readings)."""
    summary = _summary(task, rows)  # gives summary rows their literal prediction's ROUGE too
    literal = literal_rows(rows)
    if literal is not None:
        summary["literal"] = _summary(task, literal)
    return summary


def _summary(task: Record, rows: list[Record]) -> Record:
    kind, scoring, evaluated = _evaluated(task, rows)
    summary: Record = {"task": kind, "n": len(evaluated)}
    for level, parts in _parts(evaluated, kind, scoring).items():
        if level == "overall":
            summary[level] = values(parts[1], evaluated)
        else:
            summary[level] = {part: values(metrics, evaluated)
                              for part, (_, metrics) in parts.items()}
    summary["scale"] = ("fractions (0-1)" if kind != "summarization" else "0-100") + (
        "; BLEU-4 0-100" if kind == "rewriting" else "")
    return summary


def headline_aggregates(task: Record, rows: list[Record]) -> Headline:
    """Every metric of every domain group and domain (``<level>.<part>.<metric>``; per-code
    accuracies and ``n`` left out), each shown for the resamples with a row of its part."""
    kind, scoring, evaluated = _evaluated(task, rows)
    return {f"{level}.{part}.{metric}": Shown(aggregate, within)
            for level, parts in _parts(evaluated, kind, scoring).items() if level != "overall"
            for part, (within, metrics) in parts.items()
            for metric, aggregate in metrics.items() if metric not in HEADLESS}


def score(task: Record, examples: list[Record], generations: list[Record]) -> tuple[
        list[Record], Record]:
    """Per-example rows and the cell summary (see the module docstring)."""
    scoring = settings(task)
    outputs = {g["id"]: g for g in generations}
    missing = [e["id"] for e in examples if e["id"] not in outputs]
    if missing:
        raise ValueError(f"no generation for {len(missing)} example(s), e.g. {missing[:3]}")
    kinds = {e["task"] for e in examples}
    if len(kinds) > 1:
        raise ValueError(f"a MedEval cell holds one task, these examples hold {sorted(kinds)}")
    kind = kinds.pop() if kinds else "abnormality"
    rows = [_row(e, outputs[e["id"]], scoring) for e in examples]
    judges, judge_info = judges_for(task) if kind == "rewriting" else (None, None)
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
