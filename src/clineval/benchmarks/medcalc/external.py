"""``clineval score medcalc``: score MedCalc-Bench outputs produced outside the workflow."""

from __future__ import annotations

import json
from pathlib import Path

from clineval.benchmarks.medcalc.labels import apply_label_file
from clineval.benchmarks.medcalc.loader import read_test_csv
from clineval.benchmarks.medcalc.scoring import check_extractions, score_row, summarize
from clineval.io import DataError, read_jsonl


def score_external(
    data: Path,
    predictions: Path,
    extractions: tuple[str, ...],
    as_json: bool,
    labels: Path | None = None,
    version: str = "1.0",
) -> int:
    """Score JSONL ``{row_number, output}`` against the CSV (or against the label file
    ``labels``, joined on row ids); print per-row verdicts + summary."""
    settings = check_extractions(extractions)
    rows_of_data = read_test_csv(data, version)
    if labels is not None:
        rows_of_data, _ = apply_label_file(rows_of_data, labels, missing="drop")
    examples = {e["row_number"]: e for e in rows_of_data}
    rows = []
    for line, record in enumerate(read_jsonl(predictions, ("row_number", "output")), start=1):
        number, output = record["row_number"], record["output"]
        if not isinstance(number, int) or number not in examples:
            raise DataError(predictions, line, "row_number",
                            f"{number!r} is not a (labelled) row of {data}")
        if not isinstance(output, str):
            raise DataError(predictions, line, "output", "expected a string")
        rows.append(score_row(examples[number], output, settings))
    summary = summarize(rows, settings)
    if as_json:
        first = settings[0]
        print(
            json.dumps(
                {
                    "extraction": first if len(settings) == 1 else list(settings),
                    "rows": [
                        {
                            "row_number": r["row_number"],
                            "extracted": r[first]["extracted"],
                            "correct": r[first]["correct"],
                            "status": r[first]["status"],
                            **({s: r[s] for s in settings} if len(settings) > 1 else {}),
                        }
                        for r in rows
                    ],
                    "summary": summary,
                },
                ensure_ascii=False,
            )
        )
        return 0
    header = "row  calc  " + "  ".join(f"{s:>10} extracted  ok" for s in settings)
    print(header)
    for r in rows:
        cols = "  ".join(f"{r[s]['extracted']!s:>20}  {r[s]['correct']}" for s in settings)
        print(f"{r['row_number']:>4}  {r['calculator_id']:>4}  {cols}")
    for s in settings:
        overall = summary[s]["overall"]
        print(
            f"{s}: {overall['correct']}/{overall['n']} correct "
            f"({100 * overall['accuracy']:.2f}% ± {100 * overall['se']:.2f})"
        )
    return 0
