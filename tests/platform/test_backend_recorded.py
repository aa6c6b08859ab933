"""The recorded backend: generations read from a file of outputs keyed by example id, its two
layouts, its errors, its identity and its mark in the tables (docs/backends.md, Recorded
outputs)."""

from __future__ import annotations

import json
import logging
import shutil
from pathlib import Path

import pytest
import yaml
from workflow_run import planned_jobs, snakemake

from clineval.benchmarks.base import external
from clineval.benchmarks.medcalc.synthetic import generate_rows
from clineval.config.compose import ConfigError
from clineval.config.validate import validate_model
from clineval.errors import DataError, a_or_an
from clineval.figures import style
from clineval.inference.recorded_backend import RecordedBackend, load
from clineval.inference.registry import Inputs
from clineval.io import read_jsonl, write_json, write_jsonl
from clineval.provenance.hashing import sha256_file, sha256_obj
from clineval.tables.format import recorded_note
from clineval.workflow.plan import recorded_files
from clineval.workflow.plan.build import build_plan
from clineval.workflow.steps.generation import CellJob, generate_cells

CONF = Path(__file__).resolve().parents[2] / "conf"
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "recorded"
GENERIC = FIXTURES / "outputs.jsonl"
OFFICIAL = FIXTURES / "medcalc_official.jsonl"
#: The demo rows the fixtures answer: Row Number 1-6.
DEMO = ["tasks.medcalc.data.demo.calculators=[2,3]", "tasks.medcalc.data.demo.per_calculator=3"]


def recorded(path: Path, layout: str = "jsonl", *more: str) -> list[str]:
    return ["+model@models.rec=recorded", f"models.rec.recorded.path={path}",
            f"models.rec.recorded.layout={layout}", "models.rec.display_name=Released", *more]


def plan(tmp_path: Path, *overrides: str, models: str = "[rec]"):
    return build_plan(CONF, [f"grid.select.models={models}", "grid.select.tasks=[medcalc]",
                             "grid.select.modes=[zero_shot]", "grid.select.tables=[medcalc_table2]",
                             *DEMO, *overrides],
                      results=tmp_path / "results", data_root=tmp_path / "data")


def request(example: str, note: str = "") -> dict:
    return {"id": example, "messages": [{"role": "user", "content": f"Note: {note}\nTask: ..."}]}


def demo_notes() -> dict[str, str]:
    return {r["Row Number"]: r["Patient Note"] for r in generate_rows([2, 3], 3, 0)}


def test_the_fixture_notes_are_the_demo_rows():
    notes = demo_notes()
    for line in OFFICIAL.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if "Patient Note" in row and str(row["Row Number"]) in notes:
            assert row["Patient Note"] == notes[str(row["Row Number"])], row["Row Number"]


def test_a_jsonl_file_answers_each_request_by_its_example_id(caplog):
    backend = RecordedBackend(GENERIC, "jsonl")
    with caplog.at_level(logging.INFO, logger="clineval"):
        found = backend.generate([request("2"), request("4"), request("1")])
    assert [g.output for g in found] == ["The creatinine clearance is 39.9 mL/min.",
                                         '{"answer": "31.0"}', '{"answer": "133.5"}']
    assert {g.finish_reason for g in found} == {"recorded"}
    assert all(g.recorded_verdict is None and g.prompt_tokens is None for g in found)
    assert "outputs.jsonl: 7 row(s); 3 answer the 3 request(s) of the job, 4 ignored" \
        in caplog.text
    settings = backend.effective_settings()
    assert settings == {"backend": "recorded", "path": str(GENERIC), "layout": "jsonl",
                        "sha256": sha256_file(GENERIC), "rows": 7}


def test_the_official_layout_renders_the_answer_as_the_official_json():
    notes = demo_notes()
    backend = RecordedBackend(OFFICIAL, "medcalc_official")
    first, fourth, sixth = backend.generate([request(n, notes[n]) for n in ("1", "4", "6")])
    assert json.loads(first.output) == {
        "step_by_step_thinking": "Cockcroft-Gault with the adjusted body weight (the patient is "
                                 "obese): CrCl = ((140 - 69) * adjusted weight) / (72 * 0.59), "
                                 'which I "round" to 133.5 mL/min.',
        "answer": "133.5"}
    assert fourth.output == '{"answer": "23.3"}'  # no LLM Explanation: the answer alone
    assert json.loads(sixth.output) == {"step_by_step_thinking": "N/A", "answer": "N/A"}
    assert (first.recorded_verdict, fourth.recorded_verdict, sixth.recorded_verdict) == (
        "Correct", "Correct", "Incorrect")
    assert first.as_dict()["recorded_verdict"] == "Correct"


def test_an_explanation_that_is_the_whole_reply_is_the_output(tmp_path):
    """run.py of mid-June 2024 kept the model's reply in LLM Explanation: a JSON object with an
    answer is read as the output itself; any other explanation is the thinking."""
    reply = '{"step_by_step_thinking": "CrCl = 112 ml/min/1.73m²", "answer": "112 ml/min"}'
    others = ["{not json", '{"step_by_step_thinking": "no answer key"}', '["answer", 3]', ""]
    lines = [json.dumps({"Row Number": n, "LLM Answer": "1.73", "LLM Explanation": text})
             for n, text in enumerate([reply, *others], start=1)]
    found = RecordedBackend(write(tmp_path, *lines), "medcalc_official").generate(
        [request(str(n)) for n in range(1, 6)])
    assert found[0].output == reply
    assert [json.loads(g.output) for g in found[1:]] == [
        {"step_by_step_thinking": text, "answer": "1.73"} for text in others]


def test_a_row_of_another_note_stops_the_job():
    backend = RecordedBackend(OFFICIAL, "medcalc_official")
    with pytest.raises(DataError, match=r"medcalc_official\.jsonl, line 2, field 'Patient "
                                        r"Note': not the note that the prompt of example '2' "
                                        r"shows: the file answers another version"):
        backend.generate([request("2", "A 30-year-old woman presents with fever.")])


def write(tmp_path: Path, *lines: str) -> Path:
    path = tmp_path / "outputs.jsonl"
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return path


@pytest.mark.parametrize(("layout", "lines", "message"), [
    ("jsonl", ['{"id": "1", "output": "a"}', '{"id": "1", "output": "b"}'],
     r"line 2, field 'id': duplicate example id '1' \(first on line 1\)"),
    ("jsonl", ['{"id": "1", "output": "a"}', '{"id": "2", "output": "b'],
     r"line 2: expected one JSON object on the line, got text that is not JSON at column \d+ "
     r".*\(the last line is cut off: a truncated file\?\)"),
    ("jsonl", ['["1", "a"]'], r"line 1: expected a JSON object"),
    ("jsonl", ['{"id": "1"}'], r"line 1, field 'output': missing"),
    ("jsonl", ['{"id": "1", "output": 3}'], r"line 1, field 'output': expected a string"),
    ("jsonl", ['{"id": 1.5, "output": "a"}'], r"line 1, field 'id': expected the example id"),
    ("medcalc_official", ['{"Row Number": 1, "LLM Answer": "3", "Result": "Correct"}',
                          '{"Row Number": "1", "LLM Answer": "4", "Result": "Incorrect"}'],
     r"line 2, field 'Row Number': duplicate example id '1'"),
    ("medcalc_official", ['{"Row Number": 0, "LLM Answer": "3"}'],
     r"line 1, field 'Row Number': expected a row number \(1 or more\), got 0"),
    ("medcalc_official", ['{"Row Number": 1}'], r"line 1, field 'LLM Answer': missing"),
    ("medcalc_official", ['{"Row Number": 1, "LLM Answer": "3", "Result": "correct"}'],
     r"line 1, field 'Result': expected one of Correct, Incorrect, got 'correct'"),
    ("medcalc_official", ['{"Row Number": 1, "LLM Answer": null}'],
     r"line 1, field 'LLM Answer': expected the answer"),
])
def test_a_malformed_file_names_the_file_line_and_field(tmp_path, layout, lines, message):
    path = write(tmp_path, *lines)
    with pytest.raises(DataError, match=rf"^{path}, {message}"):
        RecordedBackend(path, layout)


def test_an_example_without_a_row_stops_the_job(tmp_path):
    backend = RecordedBackend(GENERIC, "jsonl")
    with pytest.raises(DataError, match=rf"^{GENERIC}, field 'id': no output for 2 example\(s\) "
                                        r"the cell evaluates, e.g. \['7', '8'\]"):
        backend.generate([request("1"), request("7"), request("8"), request("7")])


def test_a_pinned_hash_refuses_other_bytes(tmp_path):
    path = write(tmp_path, '{"id": "1", "output": "a"}')
    RecordedBackend(path, "jsonl", sha256_file(path))
    with pytest.raises(DataError, match=r"but recorded\.sha256 pins 0+: the file changed"):
        RecordedBackend(path, "jsonl", "0" * 64)


def preset(**changes) -> dict:
    """conf/model/recorded.yaml with ``changes`` (``recorded`` merged into its section)."""
    model = yaml.safe_load((CONF / "model" / "recorded.yaml").read_text(encoding="utf-8"))
    return {**model, **changes, "recorded": {**model["recorded"], **changes.get("recorded", {})}}


@pytest.mark.parametrize(("changes", "message"), [
    ({}, r"models\.rec\.recorded: required key 'path' is missing or null"),
    ({"recorded": {"path": "x.jsonl", "layout": "csv"}},
     r"models\.rec\.recorded\.layout='csv': unknown value.*valid recorded layouts: jsonl, "
     r"medcalc_official"),
    ({"recorded": {"path": "x.jsonl"}, "sampling": {"temperature": 0, "max_tokens": 8, "seed": 0}},
     r"^models\.rec\.sampling: does not apply to a recorded model: it generates nothing"),
    ({"recorded": {"path": "x.jsonl"}, "sampling": {"stop_loop": 48}},
     r"^models\.rec\.sampling: does not apply to a recorded model: it generates nothing"),
    ({"recorded": {"path": "x.jsonl"}, "context": {"max_model_len": 512}},
     r"^models\.rec\.context: does not apply to a recorded model"),
    ({"recorded": {"path": "x.jsonl", "max_output_chars": 0}},
     r"models\.rec\.recorded\.max_output_chars=0: out of range"),
    ({"recorded": {"path": "x.jsonl"}, "path": "/models/x"},
     r"models\.rec: key\(s\) path do not apply to a recorded model"),
    ({"backend": "baseline", "baseline": "constant"},
     r"models\.rec\.recorded: unknown key"),
])
def test_the_config_of_a_recorded_model_is_checked(changes, message):
    with pytest.raises(ConfigError, match=message):
        validate_model("rec", preset(**changes))


def test_a_missing_file_stops_the_plan(tmp_path):
    with pytest.raises(ConfigError, match=r"models\.rec\.recorded\.path: .*nowhere\.jsonl does "
                                          r"not exist"):
        plan(tmp_path, *recorded(tmp_path / "nowhere.jsonl"))


def test_the_recorded_mode_refuses_other_modes(tmp_path):
    with pytest.raises(ConfigError, match=r"models\.rec\.recorded\.mode='cot': its outputs "
                                          r"answer the cot prompts, but the grid also runs it "
                                          r"in zero_shot; select that mode"):
        plan(tmp_path, *recorded(GENERIC, "jsonl", "models.rec.recorded.mode=cot"))


def test_the_file_hash_is_the_identity_and_changes_nothing_else(tmp_path):
    file = tmp_path / "outputs.jsonl"
    shutil.copy(GENERIC, file)
    models = "[constant,rec]"
    before = plan(tmp_path, *recorded(file), models=models)
    file.write_text(file.read_text(encoding="utf-8").replace("133.5", "120.25"), encoding="utf-8")
    after = plan(tmp_path, *recorded(file), models=models)
    changed = {key for key, ident in before.identities.items()
               if after.identities[key]["sha"] != ident["sha"]}
    assert changed == {"rec/medcalc/zero_shot/generation", "rec/medcalc/zero_shot/scoring",
                       "tables/medcalc_table2", "figures/medcalc_bars", "figures/medcalc_modes",
                       "report/index", "export-eee/rec/medcalc"}
    generation = after.identities["rec/medcalc/zero_shot/generation"]["identity"]
    assert generation["recorded"] == {"file": "outputs.jsonl", "sha256": sha256_file(file)}
    assert "recorded" not in after.identities["constant/medcalc/zero_shot/generation"]["identity"]
    assert after.identities["rec/medcalc/zero_shot/requests"]["identity"]["model_limits"] is None
    shown = after.identities["tables/medcalc_table2"]["identity"]["models"]
    assert shown["rec"]["recorded"] == generation["recorded"]
    assert "recorded" not in shown["constant"]
    drawn = after.identities["figures/medcalc_bars"]["identity"]["models"]
    assert drawn["rec"]["recorded"] == generation["recorded"] and "recorded" not in drawn[
        "constant"]
    assert after.identities["report/index"]["identity"]["recorded_models"] == ["rec"]
    with pytest.raises(ConfigError, match=r"models\.rec\.recorded\.sha256: .* has sha256 "):
        plan(tmp_path, *recorded(file), "models.rec.recorded.sha256=" + "0" * 64, models=models)


def test_figures_mark_recorded_outputs_as_the_tables_do():
    shown = {"a": {"display_name": "A", "smoke": False},
             "r": {"display_name": "R", "smoke": False,
                   "recorded": {"file": "out.jsonl", "sha256": "ab" * 32}},
             "s": {"display_name": "S", "smoke": True}}
    assert [style.model_label(m, shown) for m in ("a", "r", "s")] == ["A", "R §", "S †"]
    assert style.model_notes(["a", "r", "s"], shown) == [
        "† smoke model (S †): tests the pipeline only; its numbers carry no meaning.",
        "§ recorded outputs (R §: out.jsonl): read from that file, not generated by this "
        "workflow."]
    assert style.model_notes(["a"], shown) == []


def test_tables_mark_recorded_outputs_with_their_file_and_hash():
    note = recorded_note([("GPT-4o mini", "outputs.jsonl", "9ad1566e5397a018feb5")])
    assert note == ("§ recorded outputs (GPT-4o mini: outputs.jsonl, sha256 9ad1566e5397…): "
                    "read from that file (the recorded backend), not generated by this workflow; "
                    "only their scoring is clineval's.")


@pytest.mark.slow
def test_a_recorded_model_runs_through_the_workflow_marked_in_its_table(tmp_path):
    """The generic file scored by the workflow beside the constant baseline: the table marks it
    and names its file and hash; another file re-runs its cell and nothing else."""
    file = tmp_path / "outputs.jsonl"
    shutil.copy(GENERIC, file)
    grid = " ".join(["grid.select.models=[constant,rec] grid.select.tasks=[medcalc]",
                     "grid.select.modes=[zero_shot] grid.select.tables=[medcalc_table2]", *DEMO,
                     *recorded(file, "jsonl", "models.rec.recorded.mode=zero_shot")])
    work = tmp_path / "work"
    done = snakemake(work, "all_tables", overrides=grid)
    assert done.returncode == 0, done.stderr[-3000:]
    results = work / "results"
    generations = [json.loads(line) for line in (results / "generations/rec/medcalc/zero_shot"
                                                 ".jsonl").read_text().splitlines()]
    assert [g["id"] for g in generations] == ["1", "2", "3", "4", "5", "6"]
    assert {g["finish_reason"] for g in generations} == {"recorded"}
    meta = json.loads((results / "generations/rec/medcalc/zero_shot.meta.json").read_text())
    assert meta["inputs"]["recorded"] == {"path": str(file), "sha256": sha256_file(file)}
    assert meta["effective_settings"]["rows"] == 7 and meta["sampling"] is None
    summary = json.loads((results / "scores/rec/medcalc/zero_shot.json").read_text())["summary"]
    # official: rows 1, 3, 5 (plain prose and "31.0" miss); robust also reads row 2's prose
    assert (summary["official"]["overall"]["correct"], summary["robust"]["overall"]["correct"]) \
        == (3, 4)
    table = (results / "tables/medcalc_table2.md").read_text(encoding="utf-8")
    assert "| Released § | n/a | official |" in table
    assert "| Constant answer | n/a | official |" in table  # a generated row: no mark
    assert (f"§ recorded outputs (Released: outputs.jsonl, sha256 {sha256_file(file)[:12]}…): "
            "read from that file") in table
    drawn = (results / "figures/medcalc_bars.svg").read_text(encoding="utf-8")
    assert "§ recorded outputs (Released §: outputs.jsonl): read from that file" in drawn
    report = (results / "report/index.html").read_text(encoding="utf-8")
    assert "Recorded outputs (rec) were read from files" in report
    assert planned_jobs(work, grid) == {}
    file.write_text(file.read_text(encoding="utf-8").replace("16.2", "99.75"), encoding="utf-8")
    assert planned_jobs(work, grid) == {"generate_rec": 1, "score_medcalc": 1, "table": 1,
                                        "figure": 2, "report": 1, "examples": 1,
                                        "all_tables": 1}


def test_sampling_on_a_baseline_model_says_that_it_does_not_apply():
    model = yaml.safe_load((CONF / "model" / "constant.yaml").read_text(encoding="utf-8"))
    with pytest.raises(ConfigError, match=r"^models\.base\.sampling: does not apply to a baseline "
                                          r"model: it generates nothing[^\n]*$"):
        validate_model("base", {**model, "sampling": {"stop_loop": 48}})


def test_backend_names_take_their_article():
    assert [a_or_an(n) for n in ("openai", "vllm", "recorded", "")] == [
        "an openai", "a vllm", "a recorded", "a "]


@pytest.mark.parametrize(("lines", "message"), [
    ([b'{"id": "1", "output": "a"}', b'{"id": "2", "output": "caf\xe9"}'],
     r"line 2: not UTF-8 text: byte 0xe9 at byte 27 of the line \(invalid continuation byte\)$"),
    ([b'{"id": "1", "output": "a", "task": "t"}', b'{"id": "2", "output": "b"}'],
     r"line 2, field 'task': line 1 names its task and line 2 does not"),
    ([b'{"id": "1", "output": "a", "task": 3}'], r"line 1, field 'task': expected a string"),
    ([b'{"id": "1", "output": "a", "task": "t"}', b'{"id": 1, "output": "b", "task": "t"}'],
     r"line 2, field 'id': duplicate example id '1' of task 't' \(first on line 1\)"),
    ([b"", b"  "], r"no rows: expected one JSON object per line"),
    ([b'{"id": "1", "output": "a", "finish_reason": "eos"}'],
     r"line 1, field 'finish_reason': expected one of stop, length, loop, got 'eos'"),
    ([b'{"id": "1", "output": "a", "completion_tokens": -1}'],
     r"line 1, field 'completion_tokens': expected a count of tokens \(0 or more\), got -1"),
    ([b'{"id": "1", "output": "a", "prompt_tokens": true}'],
     r"line 1, field 'prompt_tokens': expected a count of tokens \(0 or more\), got True"),
])
def test_bytes_tasks_and_empty_files_name_the_line_and_field(tmp_path, lines, message):
    path = tmp_path / "outputs.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    with pytest.raises(DataError, match=rf"^{path}[,:] {message}"):
        RecordedBackend(path, "jsonl")


def test_what_the_generating_run_recorded_is_kept_and_the_rest_is_not_known(tmp_path):
    path = write(tmp_path, json.dumps({"id": "1", "output": "a", "finish_reason": "length",
                                       "prompt_tokens": 900, "completion_tokens": 128}),
                 '{"id": "2", "output": "b"}')
    first, second = RecordedBackend(path, "jsonl").generate([request("1"), request("2")])
    assert (first.finish_reason, first.prompt_tokens, first.completion_tokens) == (
        "length", 900, 128)
    assert (second.finish_reason, second.prompt_tokens, second.completion_tokens) == (
        "recorded", None, None)


def test_an_output_longer_than_the_limit_is_refused_with_its_line(tmp_path):
    path = write(tmp_path, '{"id": "1", "output": "a"}',
                 json.dumps({"id": "2", "output": "x" * 11}))
    assert RecordedBackend(path, "jsonl", max_output=11).rows["2"].output == "x" * 11
    with pytest.raises(DataError, match=rf"^{path}, line 2, field 'output': an output of 11 "
                                        r"characters, more than recorded\.max_output_chars "
                                        r"\(10\): raise the setting to keep it$"):
        RecordedBackend(path, "jsonl", max_output=10)


def test_rows_that_name_their_task_answer_that_task_only(tmp_path):
    path = write(tmp_path, '{"id": "1", "output": "a1", "task": "a"}',
                 '{"id": "1", "output": "b1", "task": "b"}', '{"id": "2", "output": "b2", '
                 '"task": "b"}')
    a, b = (load(Inputs({"recorded": {"path": str(path)}}, task=t)) for t in ("a", "b"))
    assert [g.output for g in a.generate([request("1")])] == ["a1"]
    assert [g.output for g in b.generate([request("2"), request("1")])] == ["b2", "b1"]
    assert (a.effective_settings()["rows"], a.effective_settings()["task"]) == (1, "a")
    with pytest.raises(DataError, match=r"no output for 1 example\(s\) of task a the cell "
                                        r"evaluates, e\.g\. \['2'\]"):
        a.generate([request("2")])


def test_a_file_per_task_is_read_for_its_task(tmp_path):
    first = write(tmp_path, '{"id": "1", "output": "from a"}')
    second = tmp_path / "b.jsonl"
    second.write_text('{"id": "1", "output": "from b"}\n', encoding="utf-8")
    spec = {"recorded": {"path": {"a": str(first), "b": str(second)}}}
    assert load(Inputs(spec, task="b")).generate([request("1")])[0].output == "from b"
    assert load(Inputs(spec, task="a")).generate([request("1")])[0].output == "from a"


def test_rows_of_exemplars_are_named_in_the_log(caplog):
    backend = RecordedBackend(GENERIC, "jsonl")
    with caplog.at_level(logging.INFO, logger="clineval"):
        backend.generate([{**request("1"), "exemplar_ids": ["99"]}])
    assert "6 ignored (examples that no cell of the job evaluates; 1 of them the exemplars its " \
           "prompts show, never scored: 99)" in caplog.text


def medeval_plan(tmp_path: Path, *overrides: str):
    """The recorded model ``rec`` on MedEval's two sentence tasks (zero-shot, Table 2)."""
    return build_plan(CONF, ["grid=medeval_demo", "+model@models.rec=recorded",
                             "models.rec.display_name=Released", "grid.select.models=[rec]",
                             "grid.select.modes=[zero_shot]",
                             "grid.select.tables=[medeval_table2]", *overrides],
                      results=tmp_path / "results", data_root=tmp_path / "data")


def both(tmp_path: Path, tagged: bool) -> Path:
    rows = [{"id": i, "output": "normal", **({"task": t} if tagged else {})}
            for t in ("medeval_abnormality", "medeval_ambiguity") for i in ("s1", "s2")]
    path = tmp_path / ("tagged.jsonl" if tagged else "shared.jsonl")
    path.write_text("".join(json.dumps(r) + "\n" for r in (rows if tagged else rows[:2])),
                    encoding="utf-8")
    return path


def test_one_file_for_two_tasks_is_refused_unless_it_says_which_rows_answer_which(tmp_path):
    shared = both(tmp_path, tagged=False)
    with pytest.raises(ConfigError, match=rf"^models\.rec\.recorded\.path: {shared} would answer "
                                          r"tasks medeval_abnormality and medeval_ambiguity, "
                                          r"whose example ids may overlap, by example id alone: "
                                          r"give a file per task [^\n]*$"):
        medeval_plan(tmp_path, f"models.rec.recorded.path={shared}")
    tagged = both(tmp_path, tagged=True)
    found = medeval_plan(tmp_path, f"models.rec.recorded.path={tagged}")
    generation = found.identities["rec/medeval_ambiguity/zero_shot/generation"]["identity"]
    assert generation["recorded"] == {"file": "tagged.jsonl", "sha256": sha256_file(tagged)}
    other = tmp_path / "other.jsonl"
    shutil.copy(shared, other)
    mapping = f"models.rec.recorded.path={{medeval_abnormality:'{shared}'," \
              f"medeval_ambiguity:'{other}'}}"
    before = medeval_plan(tmp_path, mapping)
    ambiguity = before.identities["rec/medeval_ambiguity/zero_shot/generation"]["identity"]
    assert ambiguity["recorded"]["file"] == "other.jsonl"
    assert ambiguity["model"]["recorded"]["path"] == str(other)
    assert before.identities["tables/medeval_table2"]["identity"]["models"]["rec"][
        "recorded"] == [{"file": "shared.jsonl", "sha256": sha256_file(shared)},
                        {"file": "other.jsonl", "sha256": sha256_file(other)}]
    other.write_text('{"id": "s9", "output": "normal"}\n', encoding="utf-8")
    after = medeval_plan(tmp_path, mapping)
    changed = {k for k, v in before.identities.items() if after.identities[k]["sha"] != v["sha"]}
    assert "rec/medeval_ambiguity/zero_shot/generation" in changed
    assert "rec/medeval_abnormality/zero_shot/generation" not in changed


@pytest.mark.parametrize(("setting", "message"), [
    ("{medeval_abnormality:'FILE'}", r"^models\.rec\.recorded\.path: no file for task "
                                     r"medeval_ambiguity \(the model runs it; the mapping names "
                                     r"medeval_abnormality\)"),
    ("{medeval_abnormality:'FILE',medeval_ambiguity:'FILE',nowhere:'FILE'}",
     r"^models\.rec\.recorded\.path\.nowhere: no task 'nowhere' in the config"),
])
def test_a_file_per_task_names_each_planned_task(tmp_path, setting, message):
    shared = both(tmp_path, tagged=False)
    with pytest.raises(ConfigError, match=message):
        medeval_plan(tmp_path, "models.rec.recorded.path=" + setting.replace("FILE", str(shared)))


def test_a_tagged_file_without_rows_for_a_planned_task_stops_the_plan(tmp_path):
    path = write(tmp_path, '{"id": "s1", "output": "normal", "task": "medeval_abnormality"}')
    with pytest.raises(ConfigError, match=rf"^models\.rec\.recorded\.path: {path} has no row for "
                                          r"task medeval_ambiguity \(its rows name "
                                          r"medeval_abnormality\)$"):
        medeval_plan(tmp_path, f"models.rec.recorded.path={path}")


@pytest.mark.parametrize(("content", "more", "message"), [
    (b'{"id": "1", "output": "a"}\n{"id": "1", "output": "b"}\n', (),
     r"line 2, field 'id': duplicate example id '1' \(first on line 1\)"),
    (b'{"id": "1", "output": ["a"]}\n', (), r"line 1, field 'output': expected a string"),
    (b'{"output": "a"}\n', (), r"line 1, field 'id': missing"),
    (b'{"id": "1", "output": "a"}\n{"id": "2", "output": "\xff"}\n', (),
     r"line 2: not UTF-8 text"),
    ('{"id": "1", "output": "%s"}\n' % ("x" * 100_001), (),
     r"line 1, field 'output': an output of 100,001 characters, more than "
     r"recorded\.max_output_chars \(100,000\)"),
    (b'{"id": "1", "output": "abcdef"}\n', ("+models.rec.recorded.max_output_chars=5",),
     r"line 1, field 'output': an output of 6 characters, more than recorded\.max_output_chars "
     r"\(5\)"),
])
def test_the_plan_checks_the_file_and_names_its_line_and_field(tmp_path, content, more, message):
    path = tmp_path / "outputs.jsonl"
    if isinstance(content, str):
        path.write_text(content, encoding="utf-8")
    else:
        path.write_bytes(content)
    with pytest.raises(ConfigError, match=rf"^models\.rec\.recorded\.path: {path}, {message}"):
        plan(tmp_path, *recorded(path), *more)


def test_a_file_that_passed_is_not_read_again_while_its_bytes_are_the_same(tmp_path, monkeypatch):
    file = tmp_path / "outputs.jsonl"
    shutil.copy(GENERIC, file)
    plan(tmp_path, *recorded(file))
    memo = json.loads((tmp_path / "results" / "identity" / "recorded-checks.json").read_text())
    assert list(memo.values()) == [None]
    monkeypatch.setattr(recorded_files, "read_file", lambda *a, **k: pytest.fail("read again"))
    plan(tmp_path, *recorded(file))


def test_an_exemplar_id_among_predictions_is_named_as_the_exemplar(tmp_path):
    examples = [{"id": "1"}, {"id": "2"}]
    predictions = tmp_path / "p.jsonl"
    predictions.write_text('{"id": "107", "output": "3"}\n', encoding="utf-8")
    exemplars = {"107": "an exemplar of task medcalc (its one_shot mode; exemplars.jsonl)"}
    with pytest.raises(DataError, match=r"p\.jsonl, row 1, field 'id': '107' is not an example "
                                        r"id: it is the id of an exemplar of task medcalc \(its "
                                        r"one_shot mode; exemplars\.jsonl\), which its prompts "
                                        r"show and nothing scores; drop the row$"):
        external.read_predictions(predictions, examples, exemplars)
    assert external.exemplar_modes(CONF, {"modes": ["zero_shot", "cot", "one_shot"]}) == [
        "one_shot"]


def test_one_job_answers_each_task_of_the_model_from_its_own_rows(tmp_path):
    """Two cells of one recorded model in one generation job: each reads its task's rows."""
    path = write(tmp_path, '{"id": "1", "output": "a1", "task": "a"}',
                 '{"id": "1", "output": "b1", "task": "b"}')
    model = {"id": "r", "revision": "1", "backend": "recorded", "recorded": {"path": str(path)}}
    requests = tmp_path / "requests.jsonl"
    write_jsonl(requests, [{**request("1"), "request_sha": "same prompt"}])
    jobs = []
    for task in ("a", "b"):
        content = {"cell": f"rec/{task}/zero_shot", "benchmark": "medcalc", "model": model,
                   "model_name": "rec", "credentialed": False, "requests": task}
        ident = tmp_path / f"{task}.identity.json"
        write_json(ident, {"sha": sha256_obj(content), "identity": content})
        where = tmp_path / task
        jobs.append(CellJob(ident, requests, where / "gen.jsonl", where / "gen.meta.json",
                            where / "cache.jsonl"))
    generate_cells(jobs, None)
    assert [read_jsonl(j.out)[0]["output"] for j in jobs] == ["a1", "b1"]
    metas = [json.loads(j.meta.read_text()) for j in jobs]
    assert [(m["effective_settings"]["task"], m["engine_loads"]) for m in metas] == [
        ("a", 1), ("b", 1)]
