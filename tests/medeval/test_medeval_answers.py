"""MedEval answers on the cases of issue 26: the short override form of every `clineval score`
that takes overrides, strict label extraction, and the answer slot of rewrites and summaries
(hand-written cases and a real model's recorded outputs)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clineval.benchmarks.base.external import task_relative, task_settings
from clineval.benchmarks.medeval import scoring
from clineval.benchmarks.medeval.extract import answer_text, extract_label
from clineval.cli import main

CONF = Path(__file__).resolve().parents[2] / "conf"
REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real_outputs"
ABNORMAL = ("normal", "abnormal")


def _jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                    encoding="utf-8")
    return path


# --- the documented short override ------------------------------------------------------------


def test_short_overrides_are_the_tasks_own():
    assert task_relative(CONF, "medeval_ambiguity", [
        "scoring.extraction=strict", "+scoring.extra=1", "~data.limit", "grid=medeval_demo",
        "tasks.medeval_codes.data.limit=2", "modes=[zero_shot]", "+task@tasks.x=medcalc",
    ]) == [
        "tasks.medeval_ambiguity.scoring.extraction=strict",
        "+tasks.medeval_ambiguity.scoring.extra=1", "~tasks.medeval_ambiguity.data.limit",
        "grid=medeval_demo", "tasks.medeval_codes.data.limit=2", "modes=[zero_shot]",
        "+task@tasks.x=medcalc",
    ]


@pytest.mark.parametrize(("task", "benchmark", "override", "path", "value"), [
    ("medeval_abnormality", "medeval", "scoring.extraction=strict", ("extraction",), "strict"),
    ("clue_meqsum", "clue", "scoring.rouge.use_stemmer=true", ("rouge", "use_stemmer"), True),
    ("meddisk_en", "meddisk", "scoring.extractor=gazetteer", ("extractor",), "gazetteer"),
])
def test_every_score_command_with_overrides_takes_the_short_form(task, benchmark, override,
                                                                  path, value):
    settings = task_settings(CONF, task, benchmark, [override])["scoring"]
    for key in path:
        settings = settings[key]
    assert settings == value


def test_clineval_score_medeval_strict_by_the_short_override(tmp_path, capsys):
    data = tmp_path / "s.csv"
    data.write_text("id,domain,split,sentence,abnormal,ambiguous,rewrite\n"
                    "a,chest,,Heart is enlarged.,abnormal,,\n"
                    "b,chest,,Lungs are clear.,normal,,\n", encoding="utf-8")
    outputs = _jsonl(tmp_path / "p.jsonl", [{"id": "a", "output": "1. abnormal"},
                                            {"id": "b", "output": "Normal."}])
    argv = ["score", "medeval", "--task", "medeval_abnormality", "--data", str(data),
            "--predictions", str(outputs), "--conf", str(CONF), "--json"]
    assert main([*argv, "scoring.extraction=strict"]) == 0
    rows = {r["id"]: r for r in json.loads(capsys.readouterr().out)["rows"]}
    assert (rows["a"]["qualified"], rows["b"]["qualified"]) == (False, True)
    assert main(argv) == 0  # lenient, the default
    rows = {r["id"]: r for r in json.loads(capsys.readouterr().out)["rows"]}
    assert rows["a"]["qualified"] and rows["a"]["prediction"] == "abnormal"
    assert main([*argv, "scoring.extraction=loose"]) == 2  # still checked where it lands
    assert "scoring.extraction='loose'" in capsys.readouterr().err


# --- strict labels ----------------------------------------------------------------------------


@pytest.mark.parametrize(("output", "strict"), [
    ("1. abnormal", None), ("abnormal 2", None), ("abnormal findings", None),
    ("Abnormal.", "abnormal"), ("Label: normal", "normal"), ("**abnormal**", "abnormal"),
])
def test_strict_extraction_is_the_label_word_alone(output, strict):
    assert extract_label(output, ABNORMAL, "strict").prediction == strict
    assert extract_label(output, ABNORMAL, "lenient").qualified  # one label word: qualified


# --- the answer slot of rewrites and summaries ------------------------------------------------


@pytest.mark.parametrize(("kind", "output", "slot"), [
    ("summarization", "Report: No fracture. Summary: Normal study.", "Normal study."),
    ("summarization", "Report: Fibula fracture. Summary:", ""),
    ("summarization", "Report: A. Summary: Report: A. Report: A", ""),
    ("summarization", "Report: A. Summary: First. Summary: Second.", "First."),
    ("summarization", "Summary: Right hallux valgus.", "Right hallux valgus."),
    ("summarization", "Mild edema.\nReport: B. Summary: C.", "Mild edema."),
    ("summarization", "IMPRESSION: no acute disease. SUMMARY: stable.",
     "IMPRESSION: no acute disease. SUMMARY: stable."),
    ("rewriting", "The heart is unremarkable. Diagnostic: Normal.", "The heart is unremarkable."),
    ("rewriting", "Sentence: Lungs clear. Diagnostic: Normal. Rewrite: Lungs are normal.",
     "Lungs are normal."),
    ("rewriting", "Sentence: Lungs clear. Diagnostic: Normal.", ""),
    ("rewriting", 'Original sentence: "x"', 'Original sentence: "x"'),
])
def test_answer_slot_hand_cases(kind, output, slot):
    assert answer_text(output, kind, "slot") == slot
    assert answer_text(output, kind) == slot  # the default
    assert answer_text("Summary: " + output.strip(), kind, "whole") == output.strip()


def _recorded(name: str) -> dict:
    return json.loads((REAL / f"{name}.json").read_text(encoding="utf-8"))


def _rescored(recorded: dict, span: str) -> list[dict]:
    task = {**recorded["scoring_identity"]["task"]}
    task["scoring"] = {**task["scoring"], "answer_span": span}
    rows, _ = scoring.score(task, recorded["examples"], recorded["generations"])
    return rows


def test_real_smollm2_summaries_are_read_from_the_summary_slot():
    recorded = _recorded("medeval_summarization__zero_shot")
    rows = {r["id"]: r for r in _rescored(recorded, "slot")}
    # the echoed frame "Report: ... Summary: ..." is no longer scored as the summary
    assert rows["ankle-r04"]["prediction"] == "No fracture or dislocation."
    assert rows["ankle-r10"]["prediction"] == ""  # an echo without a summary
    assert rows["chest-r06"]["prediction"] == ""  # "Summary: Report: ..." echoes again
    assert rows["ankle-r10"]["rouge"]["rouge_1"] == 0.0
    whole = {r["id"]: r for r in _rescored(recorded, "whole")}
    assert whole["ankle-r10"]["rouge"]["rouge_1"] > 40  # the echo's overlap with the reference
    one_shot = {r["id"]: r["prediction"]
                for r in _rescored(_recorded("medeval_summarization__one_shot"), "slot")}
    assert one_shot["ankle-r10"] == "Lateral soft tissue swelling. No fracture or dislocation."


def test_real_smollm2_rewrites_lose_the_echoed_diagnostic():
    rows = _rescored(_recorded("medeval_rewriting__zero_shot"), "slot")
    assert rows[0]["prediction"] == "The heart and mediastinum are unremarkable."
    echoed = _rescored(_recorded("medeval_rewriting__one_shot"), "slot")
    assert echoed[1]["prediction"] == ""  # "Sentence: ... Diagnostic: Normal." and no rewrite


@pytest.mark.parametrize("name", ["medeval_summarization__zero_shot",
                                  "medeval_summarization__one_shot"])
def test_whole_span_scores_the_whole_output_as_before_the_slot_rule(name):
    recorded = _recorded(name)
    whole = _rescored(recorded, "whole")
    assert [r["prediction"] for r in whole] == [g["output"].strip()
                                                for g in recorded["generations"]]
    assert _rescored(recorded, "slot") == recorded["rows"]  # the default, as recorded
