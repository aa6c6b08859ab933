"""Shared builders for the MedDisK tests: the demo task settings, examples and templates."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from clineval.benchmarks.meddisk.derive import derive
from clineval.benchmarks.meddisk.synthetic import write_demo_kb

CONF = Path(__file__).parents[1] / "conf"
TEMPLATES = yaml.safe_load((CONF / "templates" / "meddisk.yaml").read_text(encoding="utf-8"))
ASPECTS = yaml.safe_load((CONF / "task" / "meddisk" / "aspects.yaml").read_text(encoding="utf-8"))
SCORING = yaml.safe_load((CONF / "task" / "meddisk" / "scoring.yaml").read_text(encoding="utf-8"))


def task(lang: str = "zh", **scoring: Any) -> dict[str, Any]:
    return {"benchmark": "meddisk", "data": {"lang": lang, "aspects": ASPECTS, "seed": 0},
            "scoring": {**SCORING, **scoring}, "exemplars": {"count": None},
            "prompt": {"kind": "instruction"}}


def demo(tmp_path: Path, lang: str = "zh") -> tuple[list[dict], list[dict], Path]:
    kb = tmp_path / "kb.jsonl"
    write_demo_kb(kb)
    examples, exemplars = derive(task(lang)["data"], kb, 5)
    return examples, exemplars, kb
