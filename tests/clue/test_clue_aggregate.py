"""CLUE aggregation against the paper's Table 3, plus scoring, baselines and the table layout."""

from __future__ import annotations

import pytest
from clue_records import clue_example as _ex

from clineval.benchmarks.clue import aggregate, baselines, scoring, tables
from clineval.tables.render import to_markdown


def _rows(text: str) -> list[tuple[str, float, tuple[float, ...]]]:
    """``model level-score metric...`` lines -> (model, level score, metric values)."""
    rows = []
    for line in text.strip().splitlines():
        model, score, *values = line.split()
        rows.append((model, float(score), tuple(map(float, values))))
    return rows


# Published Table 3 (Dada et al., 2024, Appendix C): model, level score, per-metric values.
# Level 1: MedNLI Acc; Problem Summary R-L, R-1, R-2, BERT F1, UMLS F1; MeQSum R-L, R-1, R-2,
# BERT F1.
LEVEL1 = _rows(
    """
baseline 25.13 33.33 6.22 8.53 1.58 61.07 8.24 14.96 18.99 7.21 58.62
llama2-7b 20.11 29.51 5.97 7.35 2.11 59.45 9.06 7.16 8.58 2.89 37.5
meditron-7b 11.46 2.39 6.49 7.87 2.59 59.57 12.52 6.17 7.47 2.53 40.53
llama2-7b-hf 36.94 41.27 17.43 22.25 6.93 66.33 21.62 36.45 39.99 18.13 75.98
Mistral-7B-v0.1 33.99 67.54 7.07 8.99 3.17 60.74 15.67 6.28 7.86 2.49 44.6
internistai/base-7b-v0.2 25.98 50.00 4.67 6.08 1.59 57.87 6.8 5 5.85 0.74 38.54
BioMistral-7B 40.79 62.32 18 21.85 8.63 66.96 20.92 24.58 27.38 12.1 67.05
BioMistral-7B-DARE 43.24 66.76 18.81 22.92 8.93 68.93 22.65 26.16 29.69 13.49 68.68
Mistral-7B-Instruct-v0.1 40.31 64.79 14.46 18.6 6.26 65.79 20.08 21.85 25.26 11.17 66.15
zephyr-7b-beta 42.69 68.45 14.81 19.91 5.98 67.39 19.2 25.66 29.81 12.33 68.85
Mistral-7B-Instruct-v0.2 46.45 69.93 19.57 25.59 8.92 69.64 22.07 33.54 37.47 16.61 73.47
Meta-Llama-3-8B-Instruct 48.37 74.08 22.7 28.52 9.87 71.45 25.32 32.2 36.49 16.37 72.74
Llama3-OpenBioLLM-8B 33.20 44.93 10.82 13.62 4.03 64.14 15.67 26.21 29.41 14.03 62.39
Llama3-Aloe-8B-Alpha 42.50 73.94 9.47 12.3 4.06 65.56 15 23.78 27.02 12.31 66.01
JSL-Med-Sft-Llama-3-8B 19.00 29.08 4.59 5.75 1.61 57.69 8.75 6.57 7.73 2.99 31.70
JSL-MedLlama-3-8B-v1.0 17.00 13.31 12.87 15.40 4.73 65.18 18.42 6.02 7.19 2.43 41.78
JSL-MedLlama-3-8B-v2.0 31.26 35.70 8.16 10.61 2.94 64.48 13.17 30.93 34.54 16.31 71.03
Phi-3-mini-128k-instruct 41.70 57.25 19.8 23.72 8.47 70.27 21.06 32.05 35.85 15.81 73.01
Mixtral-8x7B-Instruct-v0.1 47.81 76.48 17.44 23.39 7.7 68.56 19.51 32.47 36.38 16.86 72.8
llama2-70b 35.17 76.27 7.13 8.77 3.15 59.61 14.34 3.75 4.15 1.05 33.59
meditron-70b 30.58 63.52 7.22 8.91 3.21 60.08 13.91 2.95 3.24 0.76 31.27
ClinicalCamel-70B 35.71 64.65 8.62 10.83 3.71 59.94 12.34 16.96 18.8 8.49 49.3
llama2-70b-hf 42.90 61.69 14.43 19.81 6.14 65.07 21.37 34.91 38.81 18.48 74.37
Meta-Llama-3-70B-Instruct 52.36 79.37 25.43 33.16 13.01 73 29.12 36.57 40.2 19.3 75.74
Llama3-OpenBioLLM-70B 47.57 80.85 12.1 16.67 5.58 66.51 17.74 30.72 34.31 15.55 71.99
Mixtral-8x22B-Instruct-v0.1 51.88 84.93 17.97 22.6 8.17 69.29 22.31 36.15 39.94 19.45 75.02
"""
)
# Level 2: LongHealth tasks 1-3; MeDiSumQA R-L, R-1, R-2, BERT F1, UMLS F1; MeDiSumCode EM F1,
# AP F1, Valid Code.
LEVEL2 = _rows(
    """
baseline 24.86 20.00 20.00 16.66 13.11 15.76 2.82 60.22 12.74 0.88 3.44 100.00
Mistral-7B-v0.1 9.55 0.60 0.55 0.15 5.93 7.16 1.59 53.47 7.47 0.77 5.32 33.21
internistai/base-7b-v0.2 22.01 46.10 25.40 24.55 9.1 11.77 3.23 61.64 12.54 1.18 6.06 35.84
BioMistral-7B 12.23 5.20 2.55 0.90 14.65 17.81 5.46 59.01 16.88 0.65 4.57 27.88
BioMistral-7B-DARE 25.82 46.00 40.85 4.6 17.01 20.87 6.92 65.17 18.45 1.20 6.66 56.04
Mistral-7B-Instruct-v0.1 23.12 45.75 40.65 3.65 16.62 21.34 6.95 65.68 16.77 0.57 3.78 37.25
zephyr-7b-beta 28.17 42.9 30.5 26.35 13.02 17.68 4.98 64.08 13.92 2.31 12.00 71.27
Mistral-7B-Instruct-v0.2 38.94 67.2 62.4 42.45 21.8 27.47 9.19 68.43 20.3 3.08 18.23 68.76
Meta-Llama-3-8B-Instruct 40.61 68.3 66.55 56.25 22.44 28.15 9.63 68.62 22.74 3.95 17.55 61.93
Llama3-OpenBioLLM-8B 25.44 37.55 41.75 1.55 22.89 27.95 10.45 68.7 22.15 0.84 4.84 51.16
Llama3-Aloe-8B-Alpha 30.31 66.75 63.3 19.05 11.03 14.97 4.57 63.87 12.68 1.77 12.78 44.84
JSL-Med-Sft-Llama-3-8B 15.68 0.00 0.00 0.00 8.85 11.74 3.21 58.38 10.54 3.09 14.03 68.37
JSL-MedLlama-3-8B-v1.0 29.94 52.85 52.05 0.05 19.06 22.7 7.63 67.29 20.83 1.87 12.80 67.30
JSL-MedLlama-3-8B-v2.0 18.02 1.10 0.30 0.05 19.13 24.15 8.56 67.41 20.49 1.41 11.13 64.31
Phi-3-mini-128k-instruct 24.39 27.25 23.9 0.00 18.47 22.45 6.94 65.72 16.52 0.43 3.63 86.24
Mixtral-8x7B-Instruct-v0.1 42.57 76.5 73.65 24.2 20.72 26.4 8.96 67.74 20.25 10.49 28.99 82.87
Meta-Llama-3-70B-Instruct 56.00 81.65 77.90 91.70 26.2 32.5 11.93 70.24 25.78 19.65 39.2 93.94
Llama3-OpenBioLLM-70B 45.56 80.2 75.60 62.90 21.85 27.8 9.54 68.43 22.47 7.37 20.24 73.65
Mixtral-8x22B-Instruct-v0.1 51.23 79.00 73.90 86.30 21.81 27.75 9.42 68.51 22.70 15.95 35.96 79.84
"""
)
SUMMARY = ("rouge_l", "rouge_1", "rouge_2", "bertscore_f1")


def level1_metrics(v: tuple[float, ...]) -> dict[str, dict[str, float]]:
    return {
        "mednli": {"accuracy": v[0]},
        "problem_summary": dict(zip((*SUMMARY, "umls_f1"), v[1:6], strict=True)),
        "meqsum": dict(zip(SUMMARY, v[6:10], strict=True)),
    }


def level2_metrics(v: tuple[float, ...]) -> dict[str, dict[str, float]]:
    return {
        **{f"longhealth_task{i + 1}": {"accuracy": v[i]} for i in range(3)},
        "medisumqa": dict(zip((*SUMMARY, "umls_f1"), v[3:8], strict=True)),
        "medisumcode": dict(zip(("em_f1", "ap_f1", "valid_codes"), v[8:11], strict=True)),
    }


@pytest.mark.parametrize(("model", "published", "values"), LEVEL1, ids=[r[0] for r in LEVEL1])
def test_level1_reproduces_the_paper(model, published, values):
    assert round(aggregate.scores(level1_metrics(values))["level1"], 2) == published


@pytest.mark.parametrize(("model", "published", "values"), LEVEL2, ids=[r[0] for r in LEVEL2])
def test_level2_reproduces_the_paper(model, published, values):
    assert round(aggregate.scores(level2_metrics(values))["level2"], 2) == published


def test_longhealth_is_one_dataset_averaging_its_tasks():
    # Meta-Llama-3-8B-Instruct: LongHealth (68.3 + 66.55 + 56.25) / 3 = 63.7
    values = dict(LEVEL2_BY_MODEL["Meta-Llama-3-8B-Instruct"])
    result = aggregate.scores(level2_metrics(values["values"]))
    assert result["longhealth"] == pytest.approx(63.7)
    assert result["medisumcode"] == pytest.approx((3.95 + 17.55 + 61.93) / 3)
    assert result["level1"] is None  # level 1 datasets not given


def test_missing_metric_policies():
    metrics = level1_metrics(LEVEL1[11][2])  # Meta-Llama-3-8B-Instruct
    metrics["problem_summary"]["umls_f1"] = None
    dropped = aggregate.scores(metrics, missing_metric="drop")
    assert dropped["problem_summary"] == pytest.approx((22.7 + 28.52 + 9.87 + 71.45) / 4)
    failed = aggregate.scores(metrics, missing_metric="fail")
    assert failed["problem_summary"] is None and failed["level1"] is None
    assert failed["mednli"] == pytest.approx(74.08)
    with pytest.raises(ValueError, match="missing_metric='zero'"):
        aggregate.scores(metrics, missing_metric="zero")


def test_a_missing_longhealth_task_leaves_level2_open():
    metrics = level2_metrics(LEVEL2[0][2])
    del metrics["longhealth_task3"]
    result = aggregate.scores(metrics)
    assert result["longhealth"] is None and result["level2"] is None
    assert result["medisumqa"] == pytest.approx((13.11 + 15.76 + 2.82 + 60.22 + 12.74) / 5)


LEVEL2_BY_MODEL = {m: {"published": p, "values": v} for m, p, v in LEVEL2}

# --- baselines, scoring and the table on a few examples ----------------------------------------

OPTIONS = "A: Pneumonia\nB: Asthma\nC: Acute bronchitis\nD: COPD\nE: Lung cancer"
LABELS = ["entailment", "neutral", "contradiction"]


EXAMPLES = [
    _ex("mednli", 0, {"premise": "No fever.", "hypothesis": "Febrile."}, "contradiction", LABELS),
    _ex("mednli", 1, {"premise": "BP normal.", "hypothesis": "Stable."}, "entailment", LABELS),
    _ex("meqsum", 0, {"question": "can cogan syndrome cause hearing loss in my son"},
        "Can Cogan syndrome cause hearing loss?"),
    _ex("problem_summary", 0, {"subjective": "Cough.", "assessment": "Pneumonia."}, "pneumonia"),
    *(
        _ex(f"longhealth_task{t}", 0, {"documents": "[text_0] ...", "question": "Dx?",
            "options": OPTIONS}, "C", list("ABCDE"))
        for t in (1, 2, 3)
    ),
    _ex("medisumqa", 0, {"discharge_summary": "Chest pain; stress test normal.",
        "question": "Why was I admitted?"}, "You had chest pain."),
    _ex("medisumcode", 0, {"discharge_summary": "Heart failure, diabetes."}, ["I5023", "E119"]),
    _ex("medisumcode", 1, {"discharge_summary": "Hypertension."}, ["I10"]),
]


def test_baselines_are_deterministic_and_follow_the_paper():
    first = baselines.get("paper", {"seed": 3}, EXAMPLES)
    again = baselines.get("paper", {"seed": 3}, list(reversed(EXAMPLES)))
    outputs = [first(e) for e in EXAMPLES]
    assert outputs == [again(e) for e in EXAMPLES]
    assert outputs[0] in LABELS
    assert outputs[2] == EXAMPLES[2]["fields"]["question"]
    assert outputs[3] == "Cough.\n\nPneumonia."
    assert outputs[4].startswith("The correct answer is ") and outputs[4][22] in "ABCDE"
    codes = outputs[-2].removeprefix("ICD-10 codes: ").split(", ")
    assert len(codes) == 2 and set(codes) <= {"I5023", "E119", "I10"}
    fixed = baselines.get("random_codes", {"seed": 3, "random_codes": {"count": 1}}, EXAMPLES)
    assert len(fixed(EXAMPLES[-2]).split(", ")) == 1
    with pytest.raises(ValueError, match="needs the task's examples"):
        baselines.get("random_codes", {})
    with pytest.raises(KeyError, match="unknown CLUE baseline"):
        baselines.get("oracle", {})


def _summary(outputs: dict[str, str]) -> dict:
    generations = [{"id": e["id"], "output": outputs.get(e["id"], "")} for e in EXAMPLES]
    _, summary = scoring.score({"scoring": {"umls": {"enabled": False}}}, EXAMPLES, generations)
    return summary


def test_scoring_per_dataset_on_the_0_100_scale():
    summary = _summary(
        {
            "mednli-0": "Contradiction.",
            "mednli-1": "neutral",
            "meqsum-0": "Can Cogan syndrome cause hearing loss?",
            "longhealth_task1-0": "The correct answer is C: Acute bronchitis.",
            "longhealth_task2-0": "The correct answer is A: Pneumonia.",
            "longhealth_task3-0": "No idea.",
            "medisumcode-0": "ICD-10 codes: I50.23, E11.8",
            "medisumcode-1": "ICD-10 codes: I10, Q99999",
        }
    )
    data = summary["datasets"]
    assert summary["n"] == len(EXAMPLES) and summary["scale"] == "0-100"
    assert data["mednli"]["metrics"] == {"accuracy": 50.0}
    assert [data[f"longhealth_task{t}"]["metrics"]["accuracy"] for t in (1, 2, 3)] == [100, 0, 0]
    assert data["longhealth_task3"]["status_counts"] == {"no_answer": 1}
    meqsum = data["meqsum"]["metrics"]
    assert meqsum["rouge_1"] == meqsum["rouge_2"] == meqsum["rouge_l"] == 100.0
    assert meqsum["bertscore_f1"] == pytest.approx(100.0, abs=0.01)
    assert "all-MiniLM-L6-v2" in data["meqsum"]["bertscore"]["model"]
    # EM: {I5023, E118} vs {I5023, E119} -> 50; {I10, Q99999} vs {I10} -> P 1/2, R 1 -> 2/3
    # AP: {I50, E11} -> 100; {I10, Q99} vs {I10} -> 2/3. Valid: 2/2 and 1/2 (Q99999 is no code)
    code = data["medisumcode"]["metrics"]
    assert code["em_f1"] == pytest.approx((50 + 200 / 3) / 2)
    assert code["ap_f1"] == pytest.approx((100 + 200 / 3) / 2)
    assert code["valid_codes"] == pytest.approx(75.0)
    umls = data["problem_summary"]
    assert umls["metrics"]["umls_f1"] is None  # unavailable is never a silent zero
    assert umls["umls"] == {
        "available": False,
        "reason": "disabled by the setting umls.enabled",
        "spacy_model": "en_core_sci_sm",
    }
    assert "umls" not in data["meqsum"]  # MeQSum has no UMLS F1 in the paper


def test_scoring_rejects_missing_generations():
    with pytest.raises(ValueError, match="no generation for 10 example"):
        scoring.score({"scoring": {}}, EXAMPLES, [])


def _cell(model: str, task: str, summary: dict, smoke: bool = False) -> dict:
    return {
        "model": model,
        "display_name": model.title(),
        "size": "-",
        "smoke": smoke,
        "task": task,
        "mode": "one_shot",
        "summary": summary,
    }


def test_table3_layout_from_cells():
    level1 = {d: {"n": 5, "metrics": m} for d, m in level1_metrics(LEVEL1[11][2]).items()}
    level2 = {d: {"n": 5, "metrics": m} for d, m in level2_metrics(LEVEL2[8][2]).items()}
    level2["medisumqa"]["metrics"]["umls_f1"] = None
    level2["medisumqa"]["umls"] = {"available": False, "reason": "scispacy is not installed"}
    level2["medisumqa"]["bertscore"] = {"model": "MiniLM", "num_layers": 6, "rescaled": False}
    cells = [
        _cell("llama", "clue_level1", {"datasets": level1}),
        _cell("llama", "clue_level2", {"datasets": level2}),
        _cell("tiny", "clue_level1", {"datasets": {"mednli": {"n": 2, "metrics": {"accuracy": 0}}}},
              smoke=True),
    ]
    table = tables.build_table({"title": "CLUE Table 3", "modes": ["one_shot"]}, cells)
    assert table.columns[:3] == ["Model", "Level 1 Score", "MedNLI Acc"]
    assert table.columns[12] == "Level 2 Score" and table.columns[-1] == "MeDiSumCode Valid Code"
    llama, tiny = table.blocks[0].rows
    assert llama[1] == "48.37" and llama[2] == "74.08"
    assert llama[table.columns.index("MeDiSumQA UMLS F1")] == "n/a"
    # MeDiSumQA without UMLS: mean of its 4 other metrics enters level 2 (missing_metric=drop)
    qa = (22.44 + 28.15 + 9.63 + 68.62) / 4
    expected = (63.7 + qa + (3.95 + 17.55 + 61.93) / 3) / 3
    assert llama[12] == f"{expected:.2f}"
    assert tiny[0] == "Tiny †" and tiny[1] == "–" and tiny[2] == "0.00"
    notes = " ".join(table.notes)
    assert "MiniLM, layer 6, not rescaled" in notes and "Bio_ClinicalBERT" in notes
    assert "UMLS F1 unavailable (scispacy is not installed)" in notes
    assert "smoke model (Tiny)" in notes
    assert any(
        r["dataset"] == "level1" and r["value"] == f"{48.3673333:.4f}" for r in table.records
    )
    assert "| Llama | 48.37 | 74.08 |" in to_markdown(table)
    strict = tables.build_table({"title": "t", "modes": ["one_shot"]}, cells, "fail")
    assert strict.blocks[0].rows[0][12] == "–"


def test_table_rejects_a_dataset_scored_twice():
    summary = {"datasets": {"mednli": {"n": 1, "metrics": {"accuracy": 100.0}}}}
    cells = [_cell("m", "a", summary), _cell("m", "b", summary)]
    with pytest.raises(ValueError, match="scored in both task 'a' and task 'b'"):
        tables.build_table({"title": "t", "modes": ["one_shot"]}, cells)
