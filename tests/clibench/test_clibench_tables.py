"""The CliBench tables reproduce the paper's averages from its per-level numbers."""

from __future__ import annotations

import pytest
from clibench_published import TABLE3, TABLE10, TABLE11, TABLE12, TABLE13

from clineval.benchmarks.clibench import tables

KINDS = {"diagnoses": (TABLE10, 5), "procedures": (TABLE11, 4), "labs": (TABLE12, 4),
         "prescriptions": (TABLE13, 4)}
#: Printed averages that contradict the paper's own per-level numbers (spec §7, marked "!"):
#: Table 11 LLaMA3 and LLaMA3 Instruct 8B (averages of another run), OpenBioLLM (full-code F1
#: 0.12 here, 0.29 in Table 4).
TYPOS = {("procedures", "LLaMA3"), ("procedures", "LLaMA3 Instruct 8B"),
         ("procedures", "OpenBioLLM")}
#: Off by 0.02-0.03 only: cells the research note marks uncertain or reconstructed (labs
#: Meditron L1, prescriptions LLaMA3.2 Instruct 3B) and one printed Avg R (labs GPT-3.5 turbo,
#: 56.22 for a mean of 56.20).
SLIPS = {("labs", "Meditron"), ("labs", "GPT-3.5 turbo"),
         ("prescriptions", "LLaMA3.2 Instruct 3B")}
#: Rows with illegible per-level cells (Table 13: OpenBioLLM, GPT-3.5 turbo).
ILLEGIBLE = {("prescriptions", "OpenBioLLM"), ("prescriptions", "GPT-3.5 turbo")}
#: Printed values are rounded to 2 decimals: the mean of rounded values may differ by up to
#: 0.005 from the exact mean, plus 0.005 of the average's own rounding.
TOLERANCE = 0.0101


def cell(model: str, kind: str, values: list[float], n_levels: int) -> dict:
    levels = [{"name": f"L{i}", "precision": values[3 * i] / 100,
               "recall": values[3 * i + 1] / 100, "f1": values[3 * i + 2] / 100}
              for i in range(n_levels)]
    return {"model": model, "task": kind, "mode": "zero_shot", "display_name": model,
            "size": "", "smoke": False, "summary": {"task": kind, "levels": levels, "n": 1}}


def rendered(kind: str) -> dict[str, list[str]]:
    table, n_levels = KINDS[kind]
    cells = [cell(m, kind, v, n_levels) for m, v in table.items()
             if (kind, m) not in ILLEGIBLE]
    spec = {"layout": "clibench_full", "task_kind": kind, "title": "t", "modes": ["zero_shot"]}
    built = tables.build_table(spec, cells, [])
    return {row[0]: row[1:] for row in built.blocks[0].rows}


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_full_tables_reproduce_the_published_averages(kind: str) -> None:
    table, n_levels = KINDS[kind]
    checked = 0
    for model, row in rendered(kind).items():
        printed = table[model][3 * n_levels:]
        ours = [float(v) for v in row[3 * n_levels:]]
        off = [abs(a - b) for a, b in zip(ours, printed, strict=True)]
        if (kind, model) in TYPOS:
            assert max(off) > TOLERANCE, f"{kind} {model}: listed as a typo but reproduces"
            continue
        limit = 0.035 if (kind, model) in SLIPS else TOLERANCE
        assert max(off) <= limit, f"{kind} {model}: {ours} vs printed {printed}"
        checked += 1
    assert checked >= len(table) - 3


def test_table3_gpt4o_average_f1_is_46_02() -> None:
    values = TABLE10["GPT-4o"]
    built = tables.build_table(
        {"layout": "clibench_table3", "title": "t", "modes": ["zero_shot"]},
        [cell("GPT-4o", "diagnoses", values, 5)], [])
    row = built.blocks[0].rows[0]
    assert row[1:6] == ["73.15", "55.33", "41.97", "32.09", "27.58"]
    assert row[-3:] == ["40.98", "52.51", "46.02"]  # printed Avg R 52.52: rounding (spec §7)


def test_table3_f1_columns_equal_table10_but_for_the_known_typo() -> None:
    for model, row in TABLE3.items():
        full = TABLE10[model]
        differs = [i for i in range(5) if abs(row[i] - full[3 * i + 2]) > 1e-9]
        # Table 3 prints 34.79 for LLaMA3 Instruct 8B's category-group F1; P/R and Avg F1
        # imply Table 10's 36.79.
        assert differs == ([1] if model == "LLaMA3 Instruct 8B" else []), model


def test_average_f1_is_the_mean_of_levels_not_the_harmonic_mean() -> None:
    rows = rendered("diagnoses")
    flan = [float(v) for v in rows["Flan T5 XL"][-3:]]
    assert flan[2] == pytest.approx(6.46, abs=0.01)
    harmonic = 2 * flan[0] * flan[1] / (flan[0] + flan[1])
    assert abs(harmonic - 6.46) > 0.04


def test_the_data_note_states_each_models_admissions_plainly() -> None:
    """Three models scored 6 admissions of each task, a sliced one 1: the note says both."""
    from clineval.benchmarks import get_benchmark

    kinds = ("diagnoses", "procedures", "labs", "prescriptions")
    cells = [(lambda c, n: {**c, "summary": {**c["summary"], "n": n}})(
                 cell(m, k, [50.0] * 15, 5 if k == "diagnoses" else 4), n)
             for m, n in (("SmolLM2 ‡", 1), ("Oracle", 6), ("Frequency", 6), ("Tiny †", 6))
             for k in kinds]
    tasks = {f"clibench_{k}": {"data": {"source": "demo"}, "display_name": k} for k in kinds}
    spec = {"layout": "clibench_table3", "title": "t", "caption": "c", "modes": ["zero_shot"]}
    notes = get_benchmark("clibench").table(spec, cells, tasks).notes
    data = [note for note in notes if note.startswith("Data:")]
    assert len(data) == 1 and ("(admissions scored: 1 admission per task (SmolLM2 ‡); 6 "
                               "admissions per task (Oracle, Frequency, Tiny †))") in data[0]
