"""MedEval answers on the cases of issue 26: the short override form of every `clineval score`
that takes overrides, strict label extraction, and the answer slot of rewrites and summaries
(hand-written cases and a real model's recorded outputs)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clineval.benchmarks.base.external import task_relative, task_settings
from clineval.benchmarks.medeval import readings, scoring
from clineval.benchmarks.medeval.codes import extract_codes
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
    # a stray input label that opens the slot is dropped; whether what follows repeats the
    # report is the copy rules' decision
    ("summarization", "Report: A. Summary: Report: A. Report: A", "A."),
    ("summarization", "Report: A. Summary: Report: Report: Report:", ""),
    ("summarization", "Report: A. Summary: No acute disease.\n\nThis report is a summary.",
     "No acute disease."),
    ("summarization", "Report: A. Summary: First. Summary: Second.", "First."),
    ("summarization", "Summary: Right hallux valgus.", "Right hallux valgus."),
    ("summarization", "Mild edema.\nReport: B. Summary: C.", "Mild edema."),
    ("summarization", "IMPRESSION: no acute disease. SUMMARY: stable.",
     "IMPRESSION: no acute disease. SUMMARY: stable."),
    ("rewriting", "The heart is unremarkable. Diagnostic: Normal.", "The heart is unremarkable."),
    ("rewriting", "Sentence: Lungs clear. Diagnostic: Normal. Rewrite: Lungs are normal.",
     "Lungs are normal."),
    # a restated frame without a Rewrite: slot: the sentence it restates (an echo here, so
    # unqualified by the copy rules: test_a_rewrite_that_repeats_or_copies_is_unqualified)
    ("rewriting", "Sentence: Lungs clear. Diagnostic: Normal.", "Lungs clear."),
    ("rewriting", 'The radiologist wrote: "Spur at the calcaneus no acute findings Diagnostic: '
     'Abnormal."', "Spur at the calcaneus no acute findings"),
    ("rewriting", 'Original sentence: "x"', "x"),  # the model's own frame, no Rewrite: slot
    ("rewriting", 'Original sentence: "Lungs clear."\n\nRewritten sentence: "Lungs are normal."'
     '\n\nThe original sentence was:', "Lungs are normal."),
    ("rewriting", '"The lungs are normal."', "The lungs are normal."),
    ("rewriting", "Rewrite: Lungs are normal.\nThis removes the jargon.", "Lungs are normal."),
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
    # the echo's overlap with the reference: the paper's literal reading credits it, not this
    assert whole["ankle-r10"]["literal"]["rouge"]["rouge_1"] > 40
    assert whole["ankle-r10"]["rouge"]["rouge_1"] == 0.0
    assert whole["ankle-r10"]["unqualified"] == "echo"
    one_shot = {r["id"]: r["prediction"]
                for r in _rescored(_recorded("medeval_summarization__one_shot"), "slot")}
    assert one_shot["ankle-r10"] == "Lateral soft tissue swelling. No fracture or dislocation."


def test_real_smollm2_rewrites_lose_the_echoed_diagnostic():
    rows = _rescored(_recorded("medeval_rewriting__zero_shot"), "slot")
    # the slot holds the sentence repeated: unqualified, its literal reading scores it
    assert rows[0]["literal"]["prediction"] == "The heart and mediastinum are unremarkable."
    assert (rows[0]["prediction"], rows[0]["unqualified"]) == ("", "echo")
    echoed = _rescored(_recorded("medeval_rewriting__one_shot"), "slot")
    # "Sentence: The lungs are unremarkable. Diagnostic: Normal.": the sentence restated
    assert (echoed[1]["prediction"], echoed[1]["unqualified"]) == ("", "echo")
    assert echoed[1]["literal"]["prediction"] == "The lungs are unremarkable."


@pytest.mark.parametrize("name", ["medeval_summarization__zero_shot",
                                  "medeval_summarization__one_shot"])
def test_whole_span_scores_the_whole_output_as_before_the_slot_rule(name):
    recorded = _recorded(name)
    whole = _rescored(recorded, "whole")
    assert [(r.get("literal") or r)["prediction"] for r in whole] == [
        g["output"].strip() for g in recorded["generations"]]
    assert _rescored(recorded, "slot") == recorded["rows"]  # the default, as recorded


# --- copied text earns nothing (issue 34) -----------------------------------------------------

REWRITE_EXEMPLARS = readings.Shown(
    ("Pes planus may be positional.", "Healing fracture otherwise unremarkable foot"),
    ("The arch is flattened (pes planus), possibly because of positioning.",
     "There is a healing fracture; the rest of the foot is normal."))
FOOT = "Bones of the right foot are unremarkable for age."


@pytest.mark.parametrize(("output", "sentence", "why", "text"), [
    # the demo's four rewrites (issue 34): the input repeated, framed, or an exemplar's rewrite
    ("The heart and mediastinum are unremarkable.", "The heart and mediastinum are "
     "unremarkable.", "echo", ""),
    ("The heart and mediastinum are unremarkable. Diagnostic: Normal.",
     "The heart and mediastinum are unremarkable.", "echo", ""),
    ('Original sentence: "The bones of the right foot are unremarkable for age."\n\nRewritten '
     'sentence: "The bones of the right foot are unremarkable for age."\n\nThe original '
     "sentence was:", FOOT, "echo", ""),
    ("The arch is flattened (pes planus), possibly because of positioning.", FOOT, "exemplar",
     ""),
    ("You are a helpful AI named SmolLM, trained by Hugging Face", FOOT, "irrelevant", ""),
    ("Sentence: Lungs are unremarkable. Diagnostic: Normal.", "Lungs are unremarkable.", "echo",
     ""),
    ('The radiologist wrote: "Spur at the calcaneus no acute findings Diagnostic: Abnormal."',
     "Spur at the calcaneus no acute findings", "echo", ""),
    ("Sentence: Pes planus may be positional.", FOOT, "exemplar", ""),
    ("Sentence: The calcaneus is not acute; the ankle is normal.", "Spur at the calcaneus no "
     "acute findings", None, "The calcaneus is not acute; the ankle is normal."),
    # another sentence's frame: its rewrite shares nothing with this sentence
    ("Sentence: Stable opacity. Diagnostic: Abnormal. Rewrite: There is a stable opacity.",
     FOOT, "irrelevant", ""),
    ("Sentence: Pes planus may be positional. Diagnostic: Abnormal. Rewrite: The arch is "
     "flattened, possibly because of positioning.", FOOT, "exemplar frame", ""),
    # rewrites
    ("The bones of the right foot are normal for age.", FOOT, None,
     "The bones of the right foot are normal for age."),
    ('Rewritten sentence: "The lungs are normal."', "Lungs are unremarkable.", None,
     "The lungs are normal."),
    ("Mild degenerative change. No fracture seen.", "Mild degenerative change no fracture seen",
     None, "Mild degenerative change. No fracture seen."),  # a sentence break is a rewrite
])
def test_a_rewrite_that_repeats_or_copies_is_unqualified(output, sentence, why, text):
    read = readings.read_rewrite(output, sentence, REWRITE_EXEMPLARS)
    assert (read.why, read.text) == (why, text)
    if why in ("echo", "exemplar"):
        assert read.literal  # the paper's literal reading scores the copy as written


def test_an_exemplars_rewrite_counts_when_the_exemplar_is_the_same_sentence():
    same = readings.Shown((FOOT,), ("The bones of the right foot are normal for age.",))
    assert readings.read_rewrite("The bones of the right foot are normal for age.", FOOT,
                                 same).qualified


@pytest.mark.parametrize(("output", "label"), [
    ("The heart size is normal.", None),  # the sentence repeated: App. D's unqualified example
    ("Sentence: The heart size is normal.", None),
    ("Sentence: The heart size is normal. Label: normal", "normal"),
    ("The heart size is normal. Label: abnormal.", "abnormal"),
    ("The heart size is normal. Normal.", "normal"),
    ("The sentence is normal.", "normal"),
    ("Sentence: Moderate cardiomegaly is present. Label: abnormal.", None),  # an exemplar's line
    ("Moderate cardiomegaly is present.", None),
    ("Normal\nSentence: Moderate cardiomegaly is present. Label: abnormal.", "normal"),
    ("You are a helpful AI named SmolLM, trained by Hugging Face", None),
])
def test_a_label_is_read_from_what_the_output_adds_to_its_sentence(output, label):
    shown = readings.Shown(("Moderate cardiomegaly is present.", "No pneumothorax is seen."),
                           ("abnormal.", "normal."))
    text = readings.label_text(output, "abnormality", "The heart size is normal.", shown)
    assert extract_label(text.text, ABNORMAL).prediction == label


CODES = ["Arthritis", "Fracture"]


@pytest.mark.parametrize(("output", "codes"), [
    ("Report: Osteoarthritis of the tibiotalar joint. Codes: Arthritis: positive; "
     "Fracture: negative", {"Arthritis": "positive", "Fracture": "negative"}),
    # an exemplar's report and codes replayed
    ("Report: Nondisplaced fracture of the distal fibula. Codes: Arthritis: negative; "
     "Fracture: positive", {"Arthritis": None, "Fracture": None}),
    ("Arthritis: positive; Fracture: negative\nReport: Nondisplaced fracture of the distal "
     "fibula. Codes: Arthritis: negative; Fracture: positive",
     {"Arthritis": "positive", "Fracture": "negative"}),
])
def test_codes_are_read_from_the_frame_of_the_report_itself(output, codes):
    shown = readings.Shown(("Nondisplaced fracture of the distal fibula.",),
                           ("Arthritis: negative; Fracture: positive",))
    text = readings.label_text(output, "codes", "Osteoarthritis of the tibiotalar joint.", shown)
    assert extract_codes(text.text, CODES).predicted == codes


REPORT = ("The heart is normal in size. The mediastinum is unremarkable. The lungs are clear. "
          "There is no pleural effusion or pneumothorax.")


@pytest.mark.parametrize(("output", "why", "text"), [
    (REPORT, "echo", ""),
    ("Report: " + REPORT + " Summary: " + REPORT, "echo", ""),
    ("Summary: The lungs are clear.", None, "The lungs are clear."),  # extractive: a summary
    ("Report: " + REPORT + " Summary: No acute disease.", None, "No acute disease."),
    ("Report: Large right pleural effusion with compressive atelectasis of the right lower "
     "lobe. Summary: Large right effusion.", "exemplar frame", ""),
    ("Large right pleural effusion with compressive atelectasis of the right lower lobe.",
     "exemplar", ""),
    ("Large right effusion.", None, "Large right effusion."),  # an exemplar's summary: scored
])
def test_a_summary_that_repeats_a_report_is_unqualified(output, why, text):
    shown = readings.Shown(("Large right pleural effusion with compressive atelectasis of the "
                            "right lower lobe.",), ("Large right effusion.",))
    read = readings.read_summary(output, REPORT, shown)
    assert (read.why, read.text) == (why, text)


@pytest.mark.parametrize(("shown", "why", "text"), [
    # without the prompt, a frame around another report may be a replayed exemplar: another
    # example answered (the recorded demo's chest-r06 one-shot replays its exemplar 1 so)
    (None, "other frame", ""),
    # with the prompt, a restatement that is no exemplar's is a garbled one: its slot is read
    # (Open-i's openi-1838 one-shot in tests/fixtures/medeval_graded)
    (readings.Shown(("Large right pleural effusion with compressive atelectasis of the right "
                     "lower lobe.",), ("Large right effusion.",)), None, "No acute disease."),
])
def test_a_frame_around_another_report_is_read_by_what_the_prompt_tells(shown, why, text):
    output = ("Report: The cardiomediastinum is normal in size. No airspace disease. "
              "Summary: No acute disease.")
    read = readings.read_summary(output, REPORT, shown)
    assert (read.why, read.text) == (why, text)
    codes = readings.label_text("Report: Nondisplaced fracture of the distal fibula. Codes: "
                                "Arthritis: negative", "codes",
                                "Osteoarthritis of the tibiotalar joint.", None)
    assert (codes.text, codes.why) == ("", "other frame")
