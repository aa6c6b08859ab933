"""CliBench's answer matcher: ``clineval score clibench --task diagnoses`` before and after the
title-embedding cache, side by side, each in a fresh process.

Writes ``--admissions`` admissions whose answers mix explicit codes with free-text diagnoses
(titles cut to their first words, so they need the embedding matcher), drawn with a fixed seed
from the ICD-10-CM candidate pool: every billable code of the tabular (``--titles 0``, the CLI's
default pool) or the first ``--titles N`` of them written as a MIMIC ``d_icd_diagnoses`` file.
Then it times, each as its own process:

- ``before``: the code under ``--before-src`` (a ``src`` folder of an earlier commit, e.g.
  ``git archive HEAD src | tar -x -C /tmp/old``), which embeds every title in every process;
- ``cold``: this tree with an empty embedding cache (computes and writes the title vectors);
- ``warm``: this tree again on the same cache (loads them);
- ``derive``: the workflow's derived artifact written from an empty cache (the
  ``derive_scoring_inputs_clibench`` job's work: ``title_embeddings.npy``), then ``stored``:
  scoring that reads it (``--title-embeddings``) with another empty cache, as a score job does.

``cold``, ``warm`` and ``stored`` must print the same bytes; ``--profile`` adds the top functions
of a cold and of a warm run by cumulative time.

    python bench/clibench_matcher.py --titles 8000 --before-src /tmp/old/src
    python bench/clibench_matcher.py                      # all of ICD-10-CM: slow when cold

Run from the repository root with the project installed.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"


def pool(count: int) -> dict[str, str]:
    """Dotted ICD-10-CM code -> title: the billable codes of the tabular (the first ``count``)."""
    from clineval.metrics.ontologies import icd10cm

    titles = icd10cm.titles()
    codes = sorted(titles)
    return {c: titles[c] for c in (codes[:count] if count else codes)}


def write_inputs(where: Path, titles: dict[str, str], admissions: int, seed: int,
                 write_dictionary: bool) -> list[str]:
    """Gold and prediction JSONL (and a ``d_icd_diagnoses`` file) under ``where``; the CLI's
    arguments for them."""
    rng = random.Random(seed)
    codes = sorted(titles)
    gold, pred = [], []
    for index in range(admissions):
        chosen = rng.sample(codes, 10)
        lines = []
        for position, code in enumerate(chosen):
            words = titles[code].split()
            if position % 3 == 0:
                lines.append(f"- {code} {titles[code]}")
            else:
                lines.append(f"- {' '.join(words[:max(2, len(words) // 2)]).lower()}")
        gold.append({"id": f"a{index}", "codes": chosen})
        pred.append({"id": f"a{index}", "output": "\n".join(lines)})
    for name, rows in (("gold.jsonl", gold), ("pred.jsonl", pred)):
        (where / name).write_text("".join(json.dumps(r) + "\n" for r in rows))
    args = ["--gold", str(where / "gold.jsonl"), "--predictions", str(where / "pred.jsonl")]
    if write_dictionary:
        path = where / "d_icd_diagnoses.csv.gz"
        with gzip.open(path, "wt", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(["icd_code", "icd_version", "long_title"])
            for code, title in titles.items():
                writer.writerow([code.replace(".", ""), 10, title])
        args += ["--titles", str(path)]
    return args


def timed(src: Path, args: list[str], cache: Path) -> tuple[float, str]:
    env = {**os.environ, "PYTHONPATH": str(src), "CLINEVAL_EMBEDDING_CACHE": str(cache),
           "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    command = [sys.executable, "-c", "import sys; from clineval.cli import main; "
               "sys.exit(main(sys.argv[1:]))", "score", "clibench", "--task", "diagnoses",
               "--json", *args]
    start = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{src}: exit {done.returncode}\n{done.stderr[-2000:]}")
    return seconds, done.stdout


def derive(titles_file: Path | None, out: Path, cache: Path) -> float:
    """Seconds to write the derived title embeddings in a fresh process (``titles_file``: the
    dictionary, else the CLI's default pool)."""
    files = {"d_icd_diagnoses": str(titles_file)} if titles_file else {}
    code = ("import sys; from pathlib import Path; "
            "from clineval.benchmarks.clibench.scoring import write_title_embeddings; "
            f"write_title_embeddings('diagnoses', 'bundled-minilm', False, "
            f"{{k: Path(v) for k, v in {files!r}.items()}}, Path(sys.argv[1]))")
    env = {**os.environ, "PYTHONPATH": str(SRC), "CLINEVAL_EMBEDDING_CACHE": str(cache),
           "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code, str(out)], env=env, check=True)
    return time.perf_counter() - start


def profile(args: list[str], cache: Path, top: int = 12) -> str:
    code = ("import cProfile, pstats, io, sys; from clineval.cli import main; "
            "p = cProfile.Profile(); p.enable(); main(sys.argv[1:]); p.disable(); "
            "s = io.StringIO(); pstats.Stats(p, stream=s).sort_stats('cumulative')"
            f".print_stats({top}); print(s.getvalue(), file=sys.stderr)")
    env = {**os.environ, "PYTHONPATH": str(SRC), "CLINEVAL_EMBEDDING_CACHE": str(cache)}
    done = subprocess.run([sys.executable, "-c", code, "score", "clibench", "--task",
                           "diagnoses", "--json", *args], env=env, capture_output=True,
                          text=True, check=True)
    return done.stderr


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--admissions", type=int, default=60)
    parser.add_argument("--titles", type=int, default=0,
                        help="candidate titles: the first N billable codes (0: all, the default "
                        "pool of the CLI)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--before-src", type=Path, help="src folder of the code to compare with")
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--out", type=Path, help="also write the results as JSON")
    args = parser.parse_args()
    titles = pool(args.titles)
    with tempfile.TemporaryDirectory() as tmp:
        where = Path(tmp)
        cli = write_inputs(where, titles, args.admissions, args.seed, args.titles > 0)
        result: dict[str, object] = {"admissions": args.admissions, "titles": len(titles)}
        if args.profile:
            for run in ("cold", "warm"):
                print(f"--- profile, {run}\n{profile(cli, where / 'profile-cache')}")
        if args.before_src:
            result["before_s"], before = timed(args.before_src, cli, where / "unused")
        result["cold_s"], cold = timed(SRC, cli, where / "cache")
        result["warm_s"], warm = timed(SRC, cli, where / "cache")
        result["cold_equals_warm"] = cold == warm
        stored_file = where / "title_embeddings.npy"
        dictionary = where / "d_icd_diagnoses.csv.gz" if args.titles > 0 else None
        result["derive_s"] = derive(dictionary, stored_file, where / "derive-cache")
        result["stored_s"], stored = timed(SRC, [*cli, "--title-embeddings", str(stored_file)],
                                           where / "stored-cache")
        result["cold_equals_stored"] = cold == stored
        if args.before_src:
            result["before_equals_after"] = before == cold
    print(f"{'run':<8} {'seconds':>9}   ({result['admissions']} admissions, "
          f"{result['titles']} candidate titles)")
    for name in ("before", "cold", "warm", "derive", "stored"):
        if f"{name}_s" in result:
            print(f"{name:<8} {result[f'{name}_s']:9.1f}")
    print(f"cold and warm print the same bytes: {result['cold_equals_warm']}")
    print(f"cold and stored print the same bytes: {result['cold_equals_stored']}")
    if "before_equals_after" in result:
        print(f"before and after print the same bytes: {result['before_equals_after']} "
              "(they differ where the scoring rules changed)")
    if args.out:
        args.out.write_text(json.dumps(result, indent=1) + "\n")
    return 0 if result["cold_equals_warm"] and result["cold_equals_stored"] else 1


if __name__ == "__main__":
    sys.exit(main())
