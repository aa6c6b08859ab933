"""Score MedDisK responses: post-processing, BLEU-1 / ROUGE-1 / cosine, tiers, 0-10 scores.

Each example carries what scoring needs (disease name, aspect key, type, label, verb, language,
the KB value), so scoring reads only examples and generations (and the encoder's files).
Settings (``task["scoring"]``, defaults in ``conf/task/meddisk/scoring.yaml``):

- ``tokenizer``: ``{zh: char, en: word}`` for BLEU-1 and ROUGE-1 (``clineval.metrics.overlap``)
- ``encoder``: the sentence encoder of the cosine (``bundled-use-multilingual``; or
  ``bundled-minilm``, English only; or a local sentence-transformers directory such as M3E)
- ``device``: the encoder's device (null: cpu)
- ``extractor``: ``delimiter`` or ``gazetteer`` (entities known to the task's references)
- ``cut_at_newline``: keep only a response's first line (for completion prompts)
- ``none_words``: ``{zh: [...], en: [...]}`` (null: the defaults of ``extract.NONE_WORDS``)
- ``synonyms``: a JSON file ``{aspect: {variant: canonical}}`` applied to both sides (null: none)
- ``thresholds``: ``{metric: {enumerated|declarative: [low, high]}}`` (placeholders 0.3/0.8)
- ``levels``: descending score cut-offs of the levels (``[4, 3, 2]``)
- ``baselines.seed``: the swapped-disease baseline's draw
"""

from __future__ import annotations

import dataclasses
import math
from collections import Counter
from collections.abc import Mapping, Sequence
from statistics import fmean

from clineval.benchmarks.base import literal_rows
from clineval.benchmarks.base.settings import read as read_settings
from clineval.benchmarks.meddisk import aggregate, extract, synonyms
from clineval.benchmarks.meddisk.aspects import Aspect
from clineval.benchmarks.meddisk.settings import Scoring
from clineval.io import Record
from clineval.metrics import copying, overlap
from clineval.metrics.aggregate import value, values

DEFAULT_TOKENIZER = {"zh": "char", "en": "word"}
DEFAULT_ENCODER = "bundled-use-multilingual"


def settings_of(task: Record) -> Scoring:
    """The task's scoring settings, typed (settings.py, ``Scoring``)."""
    return read_settings(Scoring, task.get("scoring"), "scoring")


def example_aspect(example: Record) -> Aspect:
    """The aspect as the example records it (its wording in the example's language)."""
    lang = example["lang"]
    return Aspect(example["aspect"], example.get("abbr", example["aspect"]), example["type"],
                  {lang: example["label"]}, {lang: example["verb"]})


def _none_words(settings: Scoring, lang: str) -> list[str]:
    return list(getattr(settings.none_words, lang) or extract.NONE_WORDS[lang])


def _gazetteers(examples: Sequence[Record]) -> dict[str, list[str]]:
    """Per aspect, every entity in the task's references (the optional gazetteer extractor)."""
    known: dict[str, list[str]] = {}
    for example in examples:
        if example["type"] == "enumerated":
            items = extract.reference_answer(example["reference"], example["lang"]).items
            known.setdefault(example["aspect"], []).extend(items)
    return known


def _overlap(pred: extract.Answer, ref: extract.Answer, tokenizer: str) -> dict[str, float]:
    """BLEU-1 and ROUGE-1 F1 from the clipped unigram counts, so that a ratio on a threshold is
    exactly that ratio (12/15 is 0.8, not 0.7999999999999999): BLEU-1 = BP * m/h, ROUGE-1 F1 =
    2m/(h+r); equal to ``overlap.bleu`` and ``overlap.rouge_n`` up to float rounding."""
    hyp, gold = overlap.tokenize(pred.text, tokenizer), overlap.tokenize(ref.text, tokenizer)
    matches, h, r = overlap.ngram_counts(hyp, gold, 1)
    if matches == 0:
        return {"bleu_1": 0.0, "rouge_1": 0.0}
    penalty = 1.0 if h > r else math.exp(1 - r / h)
    return {"bleu_1": penalty * matches / h, "rouge_1": 2 * matches / (h + r)}


def similarities(
    pairs: Sequence[tuple[extract.Answer, extract.Answer, str, str]],
    settings: Scoring,
) -> list[dict[str, float]]:
    """BLEU-1, ROUGE-1 and cosine (0-1) of each ``(prediction, reference, type, lang)``.

    Unanswered (``pred.unanswered``): 0. Both NONE: 1 on every metric; exactly one NONE: 0.
    Numeric: exact match (1 or 0) on every metric. Cosine is clipped to [0, 1]; identical texts
    give 1, an empty text 0.
    """
    from clineval.metrics.embedding import cosine_pairs

    tokenizers = {lang: getattr(settings.tokenizer, lang) or tokenizer
                  for lang, tokenizer in DEFAULT_TOKENIZER.items()}
    results: list[dict[str, float]] = []
    to_embed: list[int] = []
    for i, (pred, ref, kind, lang) in enumerate(pairs):
        if pred.unanswered:
            results.append(dict.fromkeys(aggregate.METRICS, 0.0))
        elif pred.none or ref.none:
            same = float(pred.none and ref.none)
            results.append(dict.fromkeys(aggregate.METRICS, same))
        elif kind == "numeric":
            hit = float(pred.number is not None and pred.number == ref.number)
            results.append(dict.fromkeys(aggregate.METRICS, hit))
        else:
            same = float(pred.text == ref.text)  # identical texts: exactly 1, no float noise
            results.append({**_overlap(pred, ref, tokenizers[lang]), "cosine": same})
            if pred.text and ref.text and not same:
                to_embed.append(i)
    if to_embed:
        cosines = cosine_pairs([pairs[i][0].text for i in to_embed],
                               [pairs[i][1].text for i in to_embed],
                               settings.encoder or DEFAULT_ENCODER, settings.device)
        for i, value in zip(to_embed, cosines, strict=True):
            results[i]["cosine"] = min(1.0, max(0.0, value))
    return results


def grade(similarity: Mapping[str, float], kind: str, settings: Scoring) -> dict[str, int]:
    """The tier of each metric; the numeric type by exact match (BC or CW)."""
    if kind == "numeric":
        return {m: 2 if aggregate.reaches(similarity[m], 1.0) else 0 for m in aggregate.METRICS}
    thresholds = dataclasses.asdict(settings.thresholds)
    return {m: aggregate.tier(similarity[m], aggregate.thresholds_for(thresholds, m, kind))
            for m in aggregate.METRICS}


def _prompt(generation: Record, example: Record, aspect: Aspect) -> frozenset[str]:
    """The question and instruction sentences of the generation's prompt (its request's final
    user message, ``messages``); none known without them."""
    messages = generation.get("messages")
    if not messages:
        return frozenset()
    user = copying.Prompt.of(messages).user
    return extract.prompt_sentences(user, example["disease"], aspect, example["lang"])


def read(example: Record, generation: Record, settings: Scoring,
         known: Sequence[str] | None = None, literal: bool = False) -> extract.Answer:
    """The answer read from ``generation`` (its ``output``; ``finish_reason`` and ``messages``
    where known) for ``example``: the careful reading, or the paper's literal one. ``known``:
    the gazetteer's entities (None: the delimiter extractor). Synonyms are not applied."""
    aspect, lang = example_aspect(example), example["lang"]
    text, status = extract.segment(generation["output"], example["disease"], aspect, lang,
                                   completion=settings.cut_at_newline)
    words = _none_words(settings, lang)
    if literal:
        return extract.answer(text, aspect, lang, words, known, status, literal=True)
    return extract.answer(text, aspect, lang, words, known, status,
                          prompt=_prompt(generation, example, aspect),
                          cut=generation.get("finish_reason") in ("length", "loop"))


def copied(example: Record, generation: Record, settings: Scoring) -> Record | None:
    """The copy the answer segment is (:func:`clineval.metrics.copying.find_copy`), or None:
    the text after App. D's answer pattern, not the whole output (echoing the question's stem
    before the answer is the format Figure 7 shows), with the demonstration lines as the
    exemplars, the disease's name as the input and the rest of the prompt as the instruction.
    Needs the request's ``messages``."""
    aspect, lang = example_aspect(example), example["lang"]
    prompt = copying.Prompt.of(generation["messages"])
    text, _ = extract.segment(generation["output"], example["disease"], aspect, lang,
                              completion=settings.cut_at_newline)
    rest, demos = extract.split_prompt(prompt.user, example["disease"], aspect, lang)
    parts = copying.Prompt(prompt.system, "\n".join(rest), prompt.exemplar_inputs,
                           (*prompt.exemplar_answers, *demos))
    found = copying.find_copy(text, parts, [example["disease"]])
    return found.as_dict() if found else None


def score_rows(examples: Sequence[Record], generations: Mapping[str, Record], settings: Scoring,
               known: Sequence[Record] | None = None) -> list[Record]:
    """One scored row per example: the answers, similarities, tiers and points (0-10). The
    gazetteer extractor knows the references of ``known`` (default: ``examples``).
    ``generations``: by example id, each with its ``output`` and, where known, the
    ``finish_reason`` and the request's ``messages`` (the careful reading's copy rule).

    Each row is read carefully (:func:`read`; ``unanswered`` says why a row has no answer)
    and, where the paper's literal reading reads it otherwise, keeps ``literal``: its
    prediction, similarities, tiers and points under that reading."""
    gazetteers = (_gazetteers(examples if known is None else known)
                  if settings.extractor == "gazetteer" else None)
    thesaurus = synonyms.load(settings.synonyms) if settings.synonyms else {}
    pairs, statuses, literal = [], [], {}
    for example in examples:
        generation = generations[example["id"]]
        entities = gazetteers.get(example["aspect"], []) if gazetteers is not None else None
        mapping = thesaurus.get(example["aspect"], {})
        ref = synonyms.normalise(extract.reference_answer(example["reference"], example["lang"]),
                                 mapping)
        pred = synonyms.normalise(read(example, generation, settings, entities), mapping)
        paper = synonyms.normalise(read(example, generation, settings, entities, literal=True),
                                   mapping)
        if _reading(paper) != _reading(pred):
            literal[len(pairs)] = paper
        pairs.append((pred, ref, example["type"], example["lang"]))
        statuses.append(pred.status)
    order = list(literal)
    sims = similarities(pairs + [(literal[i], *pairs[i][1:]) for i in order], settings)
    literal_sims = dict(zip(order, sims[len(pairs):], strict=True))
    rows = []
    for i, (example, (pred, ref, kind, _), status) in enumerate(
        zip(examples, pairs, statuses, strict=True)
    ):
        row = {
            "id": example["id"], "disease_id": example["disease_id"],
            "aspect": example["aspect"], "type": kind, "lang": example["lang"],
            "status": status, **_fields(pred, sims[i], kind, settings),
            "unanswered": pred.unanswered,
            "reference": None if ref.none else ref.text,
        }
        generation = generations[example["id"]]
        if generation.get("messages"):
            row["copied"] = copied(example, generation, settings)
        if i in literal:
            other = _fields(literal[i], literal_sims[i], kind, settings)
            if any(other[k] != row[k] for k in other):
                row["literal"] = {**other, "unanswered": None}
        rows.append(row)
    return rows


def _reading(answer: extract.Answer) -> tuple[object, ...]:
    return (answer.none, answer.text, answer.items, answer.number, answer.unanswered)


def _fields(pred: extract.Answer, sims: dict[str, float], kind: str, settings: Scoring
            ) -> Record:
    """A row's prediction, similarities, tiers and points for the answer ``pred``."""
    tiers = grade(sims, kind, settings)
    return {"prediction": None if pred.none or pred.unanswered else pred.text,
            "similarity": sims, "tier": tiers, "points": 5.0 * fmean(tiers.values())}


def summarize(rows: Sequence[Record], settings: Scoring) -> Record:
    """Shares, score and level overall (micro over all pairs), per aspect, the macro mean
    of the per-aspect scores, and the count of unanswered rows; where some row reads otherwise
    under the paper's literal reading, the summary under that reading (``literal``)."""
    summary = _summary(rows, settings)
    paper = literal_rows(list(rows))
    if paper is not None:
        summary["literal"] = _summary(paper, settings)
    return summary


def _summary(rows: Sequence[Record], settings: Scoring) -> Record:
    from clineval.metrics.embedding import encoder_name

    levels = settings.levels or aggregate.DEFAULT_LEVELS
    parts = aggregate.aspects_of(rows)
    summary = dict(aggregate.summarize(rows, levels))
    summary.update({
        "aspects": values(parts, rows),
        "macro_score": value(aggregate.macro_score(parts), rows),
        "status_counts": dict(sorted(Counter(r["status"] for r in rows).items())),
        "unanswered": sum(1 for r in rows if r.get("unanswered")),
        "languages": sorted({r["lang"] for r in rows}),
        "encoder": encoder_name(settings.encoder or DEFAULT_ENCODER),
        "extractor": settings.extractor,
        "scale": "0-10",
    })
    return summary


def score(task: Record, examples: list[Record], generations: list[Record],
          known: Sequence[Record] | None = None) -> tuple[list[Record], Record]:
    """Per-example rows and the cell summary (see :func:`summarize`); ``known``: the examples
    whose references the gazetteer extractor knows (default: ``examples``)."""
    settings = settings_of(task)
    by_id = {g["id"]: g for g in generations}
    missing = [e["id"] for e in examples if e["id"] not in by_id]
    if missing:
        raise ValueError(f"no generation for {len(missing)} example(s), e.g. {missing[:3]}")
    rows = score_rows(examples, by_id, settings, known)
    return rows, summarize(rows, settings)
