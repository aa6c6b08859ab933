"""CliBench through the benchmark protocol on the synthetic demo: sources, derive, requests,
baselines, declared scoring inputs, scores and tables; the real mimic-code LOINC map."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml
from omegaconf import OmegaConf

from clineval.benchmarks import get_benchmark
from clineval.benchmarks.base.sources import MissingSource
from clineval.benchmarks.clibench import kinds
from clineval.config.compose import compose_config
from clineval.metrics.ontologies import loinc
from clineval.report.examples import keys
from clineval.tables.render import link

BENCH = get_benchmark("clibench")
TEMPLATES = yaml.safe_load(Path("conf/templates/clibench.yaml").read_text())
ZERO_SHOT = {"reasoning": False, "exemplars": 0}
BENCH_KIND_TITLES = {k: kinds.kind(k).level_titles for k in kinds.KINDS}


def task_settings(kind: str) -> dict:
    cfg = compose_config(Path("conf"), ["grid=clibench_demo"])
    return OmegaConf.to_container(cfg.tasks[f"clibench_{kind}"], resolve=True)


@pytest.fixture(scope="module", params=["diagnoses", "prescriptions"])
def derived(request, tmp_path_factory):
    kind = request.param
    root = tmp_path_factory.mktemp("data")
    task = task_settings(kind)
    sources = BENCH.source_files(task, root, f"clibench_{kind}")
    BENCH.write_demo(task, sources)
    task["inputs"] = BENCH.scoring_inputs(task, f"clibench_{kind}", root)
    examples, exemplars = BENCH.derive(task, sources)
    return kind, task, examples, exemplars


def test_oracle_scores_100_and_frequency_less(derived):
    _, task, examples, _ = derived
    assert 0 < len(examples) <= 6
    scores = {}
    for name in ("oracle", "frequency"):
        answer = BENCH.baseline(name, task, examples)
        generations = [{"id": e["id"], "output": answer(e)} for e in examples]
        rows, summary = BENCH.score(task, examples, generations)
        assert [r["id"] for r in rows] == [e["id"] for e in examples]
        assert all(item["how"] == "code" for r in rows for item in r["items"])
        scores[name] = summary
    assert all(lv["f1"] == 1.0 for lv in scores["oracle"]["levels"])
    assert scores["frequency"]["average"]["f1"] < 1.0
    headline = BENCH.headline(scores["oracle"])
    assert headline["average.f1"] == 1.0


def test_requests_and_declared_scoring_inputs(derived):
    kind, task, examples, exemplars = derived
    requests = BENCH.build_requests(task, ZERO_SHOT, TEMPLATES, examples, exemplars)
    assert len(requests) == len(examples) and not requests[0]["exemplar_ids"]
    assert "[PATIENT PROFILE]" in requests[0]["messages"][1]["content"]
    one_shot = BENCH.build_requests(task, {"reasoning": True, "exemplars": 1}, TEMPLATES,
                                    examples, exemplars)
    assert one_shot[0]["exemplar_ids"] == [exemplars[0]["id"]]
    inputs = task["inputs"]
    role = "d_icd_diagnoses" if kind == "diagnoses" else "atc_titles"
    assert inputs[role].is_file() and f"demo/clibench_{kind}/" in inputs[role].as_posix()
    assert any(name.startswith("encoder:") for name in inputs)


def explorer_value(source: dict, rows: list[dict], examples: list[dict]) -> tuple[float, int]:
    """What the explorer states for a value's link (report/explorer.js, pooledText): the
    examples of its part, their true positives, predicted and gold codes summed per level of
    the judgements' measures, the metric pooled at each level and the mean over the levels;
    and the n it counts."""
    by_id = {e["id"]: e for e in examples}
    chosen = [BENCH.reading(r, by_id[r["id"]]).judgements[0].measures for r in rows
              if all(keys(r).get(k) == v for k, v in (source.get("where") or {}).items())]
    levels = source["level"].split(",")
    chosen = [m for m in chosen if all(f"tp.{lv}" in m for lv in levels)]
    values = []
    for level in levels:
        tp, predicted, gold = (sum(m[f"{what}.{level}"] for m in chosen)
                               for what in ("tp", "predicted", "gold"))
        p, r = tp / predicted if predicted else 0.0, tp / gold if gold else 0.0
        values.append({"precision": p, "recall": r,
                       "f1": 2 * p * r / (p + r) if p + r else 0.0}[source["measure"]])
    return sum(values) / len(values), len(chosen)


def test_breakdown_table_pools_rows_by_group(derived):
    kind, task, examples, _ = derived
    answer = BENCH.baseline("frequency", task, examples)
    rows, summary = BENCH.score(task, examples, [{"id": e["id"], "output": answer(e)}
                                                 for e in examples])
    cell = {"cell": "m/t/zero_shot", "model": "m", "task": "t", "mode": "zero_shot",
            "display_name": "M", "size": "", "smoke": False, "summary": summary, "rows": rows}
    spec = {"layout": "clibench_breakdown", "task_kind": kind, "group": "gender",
            "title": "t", "modes": ["zero_shot"]}
    table = BENCH.table(spec, [cell], {"t": task})
    assert table.columns[1:] == sorted({e["groups"]["gender"] for e in examples})
    assert len(table.blocks[0].rows) == 1
    # each value opens its subgroup's admissions, whose pooled counts give it
    names = [lv["name"] for lv in summary["levels"]]
    for value, text, (source,) in zip(table.columns[1:], table.blocks[0].rows[0][1:],
                                      table.blocks[0].sources[0][1:], strict=True):
        assert source["where"] == {"gender": value} and source["level"] == ",".join(names)
        computed, n = explorer_value(source, rows, examples)
        assert f"{100 * computed:.2f}" == text and n == source["n"]
        record = next(r for r in table.records if r["value_of_group"] == value)
        assert record["n"] == n


def test_each_value_links_its_level_and_the_explorer_recomputes_it(derived):
    """A level's value opens the cell's admissions at that level, an average at every level;
    the explorer's sums of the rows' counts give the value shown, and the leaderboard's link
    to a headline number carries the same."""
    kind, task, examples, _ = derived
    answer = BENCH.baseline("frequency", task, examples)
    rows, summary = BENCH.score(task, examples, [{"id": e["id"], "output": answer(e)}
                                                 for e in examples])
    cell = {"cell": "m/t/zero_shot", "model": "m", "task": "t", "mode": "zero_shot",
            "display_name": "M", "size": "", "smoke": False, "summary": summary}
    spec = {"layout": "clibench_full", "task_kind": kind, "title": "t", "modes": ["zero_shot"]}
    table = BENCH.table(spec, [cell], {"t": task})
    row, sources = table.blocks[0].rows[0], table.blocks[0].sources[0]
    names = [lv["name"] for lv in summary["levels"]]
    for header, text, (source,) in zip(table.columns[1:], row[1:], sources[1:], strict=True):
        level, _, metric = header.rpartition(" ")
        assert source["measure"] == {"P": "precision", "R": "recall", "F1": "f1"}[metric]
        assert source["level"] == (",".join(names) if level == "Avg" else
                                   names[list(BENCH_KIND_TITLES[kind]).index(level)])
        computed, n = explorer_value(source, rows, examples)
        assert f"{100 * computed:.2f}" == text, header
        assert n == source["n"] == summary["n"]
    for key, value in BENCH.headline(summary).items():
        (part,) = link(cell, **BENCH.headline_source(key, summary))  # as the leaderboard does
        assert explorer_value(part, rows, examples)[0] == pytest.approx(value), key


def test_missing_official_file_skips_with_the_setting(tmp_path):
    task = task_settings("labs")
    task["data"] = {**task["data"], "source": "official", "hosp": str(tmp_path),
                    "note": str(tmp_path)}
    with pytest.raises(MissingSource, match=r"tasks.clibench_labs.data.hosp"):
        BENCH.source_files(task, tmp_path, "clibench_labs")


@pytest.mark.skipif(not os.environ.get("CLINEVAL_DATA_DIR"),
                    reason="CLINEVAL_DATA_DIR (the shared real data) is not set")
def test_real_mimic_code_map():
    path = Path(os.environ["CLINEVAL_DATA_DIR"]) / "mimic-code" / "d_labitems_to_loinc.csv"
    mapping = loinc.read_itemid_map(path)
    assert len(mapping.loinc) == 1398
    assert [row for row, _ in mapping.skipped] == [771, 905]
    assert mapping.loinc["50912"] == "2160-0" and mapping.loinc["51222"] == "718-7"


def test_a_real_run_without_the_lab_map_says_where_to_get_it(tmp_path):
    """The itemid -> LOINC map is the user's (mimic-code's): on an official run without it the
    task is skipped with one line naming the file, where to get it and the setting."""
    from clineval.benchmarks.clibench.scoring import scoring_files
    from clineval.mimic.synthetic_mimic4 import Layout, write_mimic4

    layout = Layout(tmp_path / "mimic")
    write_mimic4(layout, 3)
    task = task_settings("labs")
    task["data"] = {**task["data"], "source": "official", "lab_loinc_map": None,
                    "hosp": str(layout.root / "hosp"), "note": str(layout.root / "note"),
                    "loinc_hierarchy": str(layout.loinc_hierarchy)}
    with pytest.raises(MissingSource) as err:
        BENCH.source_files(task, tmp_path, "clibench_labs")
    message = str(err.value)
    assert "\n" not in message
    for part in ("github.com/MIT-LCP/mimic-code", "mimic-iv/mapping/d_labitems_to_loinc.csv",
                 "'tasks.clibench_labs.data.lab_loinc_map'", "(it is not set)"):
        assert part in message, part
    official = {"source": "official", "hosp": str(layout.root / "hosp"),
                "loinc_hierarchy": str(layout.loinc_hierarchy)}
    assert "lab_loinc_map" not in scoring_files("labs", official, tmp_path)
    given = tmp_path / "mimic-code" / "d_labitems_to_loinc.csv"
    given.parent.mkdir()
    given.write_bytes(layout.lab_loinc_map.read_bytes())
    task["data"]["lab_loinc_map"] = str(given)
    assert BENCH.source_files(task, tmp_path, "clibench_labs")["lab_loinc_map"] == given
    files = scoring_files("labs", {**official, "lab_loinc_map": str(given)}, tmp_path)
    assert files["lab_loinc_map"] == given


def test_the_demo_reads_the_map_its_generator_writes(tmp_path):
    """The demo's derive and scoring read ``codes/d_labitems_to_loinc.csv`` of the synthetic
    MIMIC-IV, written from the generator's own lab items: one row per item, covering every
    item of the demo's labevents."""
    import pandas as pd

    from clineval.mimic.synthetic_mimic4_content import LABS

    task = task_settings("labs")
    sources = BENCH.source_files(task, tmp_path, "clibench_labs")
    generated = tmp_path / "demo" / "clibench_labs" / "codes" / "d_labitems_to_loinc.csv"
    assert sources["lab_loinc_map"] == generated
    assert BENCH.scoring_inputs(task, "clibench_labs", tmp_path)["lab_loinc_map"] == generated
    BENCH.write_demo(task, sources)
    mapping = loinc.read_itemid_map(generated)
    assert mapping.loinc == {str(item.itemid): item.loinc for item in LABS}
    assert mapping.skipped == ()
    labevents = pd.read_csv(sources["labevents"], dtype=str)
    assert set(labevents["itemid"]) <= set(mapping.loinc)
    examples, _ = BENCH.derive(task, sources)
    assert examples and all(e["gold"] for e in examples)
    known = set(mapping.loinc.values())
    assert all(set(e["gold"]) <= known for e in examples)
