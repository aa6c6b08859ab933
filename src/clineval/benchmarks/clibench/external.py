"""``clineval score clibench``: score answers produced anywhere against gold code sets.

GOLD rows ``{"id", "codes": [...]}`` (codes of the task's system; ICD-10-CM dotted or dotless),
PRED rows ``{"id", "output": raw text}``, one per gold id. ``--json`` prints
``{"levels": [{"name", "precision", "recall", "f1"}], "average": {...}, "rows": [{"id",
"codes"}]}`` with fractions in [0, 1] and rows in the gold file's order.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from clineval.errors import DataError
from clineval.io import Record, read_jsonl

from . import kinds
from .pools import EMBEDDINGS
from .scoring import Scorer, settings

#: The dictionary file ``--titles`` stands for, per task.
TITLE_ROLE = {"diagnoses": "d_icd_diagnoses", "procedures": "d_icd_procedures",
              "labs": "d_labitems", "prescriptions": "atc_titles"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = "Score CliBench answers against gold codes at every ontology level."
    parser.add_argument("--task", required=True, choices=kinds.KINDS)
    parser.add_argument("--gold", type=Path, required=True, help='JSONL rows {"id", "codes"}')
    parser.add_argument("--predictions", type=Path, required=True,
                        help='JSONL rows {"id", "output"}')
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout")
    parser.add_argument("--titles", type=Path, help=(
        "code titles that free-text items are matched to: MIMIC-IV d_icd_diagnoses / "
        "d_icd_procedures / d_labitems (labs, with --lab-loinc-map), or an ATC CSV (atc,name); "
        "diagnoses default to every billable code of the ICD-10-CM tabular"))
    parser.add_argument("--loinc-hierarchy", type=Path,
                        help="LOINC ComponentHierarchyBySystem.csv (labs: required)")
    parser.add_argument("--lab-loinc-map", type=Path,
                        help="itemid -> LOINC map in mimic-code's d_labitems_to_loinc.csv format")
    parser.add_argument("--threshold", type=float, default=settings(None)["threshold"],
                        help="the similarity floor: lowest cosine of an embedding match "
                        "(default: %(default)s; -1: none, the paper's nearest title always)")
    parser.add_argument("--keep-abbreviations", action="store_true",
                        help="labs: match an item as written; by default the careful reading "
                        "writes out test abbreviations first (ALP: Alkaline Phosphatase)")
    parser.add_argument("--empty", choices=("zero", "drop"), default=settings(None)["empty"],
                        help="an answer without codes: zero predictions (paper) or dropped "
                        "(public code)")
    parser.add_argument("--atc-levels", choices=("paper", "code"), default="paper")
    parser.add_argument("--loinc-leaf", choices=("term", "parent"), default="term")
    parser.add_argument("--lab-codes", choices=("loinc", "itemid"), default="loinc",
                        help="labs: LOINC numbers (paper) or MIMIC itemids read as LOINC (code)")
    parser.add_argument("--parsing", choices=("paper", "code"), default="paper",
                        help="item splitting and explicit codes: the project's (paper) or the "
                        "public scorer's (code: dotted ICD-10-CM-like codes only)")
    parser.add_argument("--coarse", choices=("reach", "self"), default=settings(None)["coarse"],
                        help="a coarse code (ATC level 3, an ICD-10-CM category with children) "
                        "at finer levels: absent (reach) or itself, a miss (self: public code)")
    parser.add_argument("--final-answer", action="store_true",
                        help="the answers come from the chain-of-thought prompt: read what "
                        "follows the last 'Final answer:' line")
    parser.add_argument("--encoder", default=settings(None)["encoder"],
                        help="sentence encoder: bundled-minilm or a local model directory")
    parser.add_argument("--title-embeddings", type=Path, help=(
        "the candidate titles' embeddings as the workflow stored them "
        "(data/derived/<task>/title_embeddings.npy, same titles and encoder): read instead of "
        "encoding the titles"))


def read_gold(path: Path, kind: str, scoring: Record) -> list[Record]:
    system = kinds.system(kind, scoring)
    rows, seen = [], set()
    for line, record in enumerate(read_jsonl(path, ("id", "codes")), start=1):
        id_ = str(record["id"])
        if id_ in seen:
            raise DataError(path, line, "id", f"{id_!r} appears twice")
        codes = record["codes"]
        if not isinstance(codes, list) or not all(isinstance(c, str) for c in codes):
            raise DataError(path, line, "codes", "expected a list of code strings")
        unknown = [c for c in codes if system.canonical(c) is None]
        if unknown:
            raise DataError(path, line, "codes",
                            f"not valid {system.name} code(s): {', '.join(unknown[:5])}")
        seen.add(id_)
        rows.append({"id": id_, "given_id": record["id"], "codes": codes})
    return rows


def read_outputs(path: Path, ids: list[str]) -> dict[str, str]:
    known, outputs = set(ids), {}
    for line, record in enumerate(read_jsonl(path, ("id", "output")), start=1):
        id_ = str(record["id"])
        if id_ not in known:
            raise DataError(path, line, "id", f"{id_!r} is not a gold id")
        if id_ in outputs:
            raise DataError(path, line, "id", f"{id_!r} appears twice")
        if not isinstance(record["output"], str):
            raise DataError(path, line, "output", "expected a string")
        outputs[id_] = record["output"]
    missing = [i for i in ids if i not in outputs]
    if missing:
        raise DataError(path, None, "id", f"no output for gold id(s) {missing[:10]}")
    return outputs


def run(args: argparse.Namespace) -> int:
    settings_given = {
        "empty": args.empty, "threshold": args.threshold, "encoder": args.encoder,
        "abbreviations": not args.keep_abbreviations,
        "atc_levels": args.atc_levels, "loinc_leaf": args.loinc_leaf, "parsing": args.parsing,
        "lab_codes": args.lab_codes, "coarse": args.coarse}
    gold = read_gold(args.gold, args.task, settings(settings_given))
    ids = [row["id"] for row in gold]
    outputs = read_outputs(args.predictions, ids)
    files = {role: path for role, path in (
        (TITLE_ROLE[args.task], args.titles), ("loinc_hierarchy", args.loinc_hierarchy),
        ("lab_loinc_map", args.lab_loinc_map), (EMBEDDINGS, args.title_embeddings))
        if path is not None}
    scorer = Scorer(args.task, settings(settings_given), files, reasoning=args.final_answer)
    rows, summary = scorer.score(ids, [row["codes"] for row in gold],
                                 [outputs[i] for i in ids])
    result = {
        "levels": [{k: level[k] for k in ("name", "precision", "recall", "f1")}
                   for level in summary["levels"]],
        "average": summary["average"],
        "rows": [{"id": given["given_id"], "codes": row["codes"]}
                 for given, row in zip(gold, rows, strict=True)],
    }
    if args.json:
        print(json.dumps(result, ensure_ascii=False))
        return 0
    for row in rows:
        print(json.dumps({"id": row["id"], "codes": row["codes"],
                          "items": row["items"]}, ensure_ascii=False))
    print(f"{'level':<16} {'P':>7} {'R':>7} {'F1':>7}")
    for level in [*result["levels"], {"name": "average", **result["average"]}]:
        print(f"{level['name']:<16} {100 * level['precision']:7.2f} "
              f"{100 * level['recall']:7.2f} {100 * level['f1']:7.2f}")
    print(f"admissions scored: {summary['n']}, dropped: {summary['n_dropped']}; "
          f"items mapped: {summary['mapping']}")
    return 0
