"""MedCalc-Bench's tools: ``clineval medcalc verify``, ``demo`` and ``agreement``."""

from __future__ import annotations

import argparse
from pathlib import Path

from clineval.benchmarks.base.commands import Command
from clineval.errors import ConfigError


def _verify_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data", type=Path, required=True, help="official-format test_data.csv")
    parser.add_argument("--version", default="1.0",
                        help="the data's layout: 1.0 (default), 1.1, 1.2 or verified")
    parser.add_argument("--labels", type=Path,
                        help="label CSV (v1.x or corrected layout) to check instead of the data's")
    parser.add_argument("--conventions", choices=("official", "clinical"), default="official",
                        help="the calculators' conventions (default official)")
    parser.add_argument("--convention", action="append", metavar="ID=NAME", default=[],
                        help="per-calculator override, e.g. 49=official (repeatable)")
    parser.add_argument("--calculator", type=int, action="append",
                        help="only this calculator id (repeatable)")
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout")


def _verify(args: argparse.Namespace) -> int:
    from clineval.benchmarks.medcalc.calculators import Conventions
    from clineval.benchmarks.medcalc.verify import report, verify

    try:
        overrides = dict(item.split("=", 1) for item in args.convention)
        conventions = Conventions.from_settings(args.conventions, overrides)
    except ValueError as err:
        raise ConfigError(f"--convention: {err} (expected ID=official|clinical)") from err
    report(verify(args.data, args.calculator, labels=args.labels, conventions=conventions,
                  version=args.version), args.json)
    return 0


def _demo_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", type=Path, required=True, help="CSV to write")
    parser.add_argument("--exemplars", type=Path,
                        help="also write exemplars in the official JSON")
    parser.add_argument("--per-calculator", type=int, default=20, help="rows per calculator")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--calculator", type=int, action="append",
                        help="only this calculator id (repeatable); default all 55")


def _demo(args: argparse.Namespace) -> int:
    from clineval.benchmarks.medcalc.synthetic import write_demo_files

    write_demo_files(args.out, args.exemplars, args.calculator, args.per_calculator, args.seed)
    return 0


def _agreement_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--generations", type=Path, required=True,
                        help="a recorded model's generations (results/generations/<cell>.jsonl)")
    parser.add_argument("--scores", type=Path, required=True,
                        help="the cell's score rows (results/scores/<cell>.jsonl)")
    parser.add_argument("--extraction", choices=("official", "robust"), default="official",
                        help="whose verdicts to compare (default official)")
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout")


def _agreement(args: argparse.Namespace) -> int:
    from clineval.benchmarks.medcalc.recorded import agreement, report

    report(agreement(args.generations, args.scores, args.extraction), args.json)
    return 0


COMMANDS = {
    "verify": Command("run the project's calculators on every row and compare with its label",
                      _verify_arguments, _verify),
    "demo": Command("write synthetic rows (official CSV format) and one-shot exemplars (JSON)",
                    _demo_arguments, _demo),
    "agreement": Command("compare a recorded model's own verdicts (Result) with clineval's",
                         _agreement_arguments, _agreement),
}
