"""MedDisK's settings: what its tasks (``conf/task/meddisk_*.yaml``, ``conf/task/meddisk/``) and
its tables read, with their types, ranges and choices (docs/meddisk.md describes each)."""

from __future__ import annotations

from dataclasses import dataclass, make_dataclass

from clineval.benchmarks.base.settings import MISSING, OFFICIAL, Exemplars, setting
from clineval.benchmarks.base.sources import SOURCE_KINDS
from clineval.benchmarks.meddisk.aggregate import METRICS as METRIC_NAMES
from clineval.benchmarks.meddisk.aspects import LANGS, TYPES
from clineval.benchmarks.meddisk.calibrate import KINDS as GRADED_TYPES
from clineval.benchmarks.meddisk.extract import EXTRACTORS
from clineval.benchmarks.meddisk.prompts import KINDS as PROMPT_KINDS
from clineval.metrics.overlap import TOKENIZERS
from clineval.metrics.significance import CORRECTIONS


@dataclass
class Wording:
    label: str = MISSING
    verb: str = MISSING


#: An aspect's definition (``data.aspects.<key>``): its wording in each language.
Aspect = make_dataclass("Aspect", [
    ("order", float | None, None),
    ("abbr", str | None, None),
    ("type", str, setting(MISSING, choices=TYPES, noun="aspect types")),
    ("values", list[int] | None, None),  # a numeric aspect's allowed values; null: any
    *((lang, Wording | None, None) for lang in LANGS),
])


@dataclass
class Data:
    source: str = setting("demo", choices=SOURCE_KINDS, noun="sources")
    kb: str | None = setting(None, used_when=OFFICIAL)  # the KB file (official)
    lang: str = setting(MISSING, choices=LANGS, noun="languages")
    select_aspects: list[str] | None = None
    seed: int = 0
    limit: int | None = setting(None, ge=1)
    aspects: dict[str, Aspect] = MISSING  # type: ignore[valid-type]


@dataclass
class Prompt:
    kind: str = setting("auto", choices=("auto", *PROMPT_KINDS), noun="prompt kinds")


#: Tier thresholds ``[low, high]`` per graded aspect type, per similarity metric.
TypeThresholds = make_dataclass("TypeThresholds", [
    (kind, list[float] | None, setting(None, ge=0, le=1)) for kind in GRADED_TYPES])
Thresholds = make_dataclass("Thresholds", [
    (metric, TypeThresholds | None, None) for metric in METRIC_NAMES])
Tokenizers = make_dataclass("Tokenizers", [
    (lang, str | None, setting(None, choices=TOKENIZERS, noun="tokenizers"))
    for lang in LANGS])
NoneWords = make_dataclass("NoneWords", [(lang, list[str] | None, None) for lang in LANGS])


@dataclass
class Baselines:
    seed: int = 0


@dataclass
class Scoring:
    tokenizer: Tokenizers | None = None  # type: ignore[valid-type]
    encoder: str | None = None  # a bundled encoder's name or a local model directory
    device: str | None = None
    extractor: str = setting("delimiter", choices=EXTRACTORS, noun="extractors")
    cut_at_newline: bool = False
    none_words: NoneWords | None = None  # type: ignore[valid-type]
    synonyms: str | None = None  # a JSON file {aspect: {variant: canonical}}
    thresholds: Thresholds | None = None  # type: ignore[valid-type]
    levels: list[float] | None = setting(None, ge=0, le=10)  # score cut-offs of levels 1-3
    baselines: Baselines | None = None


@dataclass
class Task:
    data: Data = MISSING
    prompt: Prompt | None = None
    exemplars: Exemplars | None = None
    scoring: Scoring | None = None


@dataclass
class Table4:
    """``meddisk_table4``: tier shares and scores per model (the paper's Table 4)."""

    types: dict[str, str] | None = None  # model -> its Type column (General / Medical)
    decimals: int = setting(2, ge=0)


@dataclass
class Pair:
    medical: str = MISSING
    backbone: str = MISSING


@dataclass
class Table5:
    """``meddisk_table5``: Welch's t per aspect, medical model vs its backbone (Tables 5, 13,
    14)."""

    metric: str = setting("cosine", choices=METRIC_NAMES, noun="metrics")
    pairs: list[Pair] | None = None
    correction: str = setting("none", choices=CORRECTIONS, noun="corrections")
    alpha: float = setting(0.05, gt=0, lt=1)
    order: list[str] | None = None  # aspect keys; null: Table 1's order


@dataclass
class Aspects:
    """``meddisk_aspects``: the score per aspect (Figures 9-10)."""

    order: list[str] | None = None  # aspect keys; null: Table 1's order
    decimals: int = setting(2, ge=0)


@dataclass
class Tiers:
    """``meddisk_tiers``: tier shares per metric (Figure 4)."""


TASK = Task
TABLES = {"meddisk_table4": Table4, "meddisk_table5": Table5, "meddisk_aspects": Aspects,
          "meddisk_tiers": Tiers}
