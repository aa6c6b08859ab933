"""The sixth benchmark, Medical MCQA: built from the base class's defaults (docs/extending.md).

Its reader, answer extraction, prompts, scoring and table, and the whole workflow building its
table from the package and two config files alone."""

from __future__ import annotations

import json
import subprocess

import pytest
import yaml
from workflow_run import REPO

from clineval.benchmarks import BENCHMARKS, get_benchmark, title
from clineval.benchmarks.base import replicates_by_rows
from clineval.benchmarks.mcqa import synthetic
from clineval.benchmarks.mcqa.extract import answer_letter
from clineval.benchmarks.mcqa.formats import read_questions, write_questions
from clineval.errors import DataError
from clineval.metrics.bootstrap import BootstrapSettings, resamples
from clineval.tables.render import to_markdown

BENCH = get_benchmark("mcqa")
TASK = yaml.safe_load((REPO / "conf/task/mcqa.yaml").read_text(encoding="utf-8"))
TASK["data"]["path"] = None
MODES = {m: yaml.safe_load((REPO / f"conf/mode/{m}.yaml").read_text(encoding="utf-8"))
         for m in ("zero_shot", "cot", "one_shot")}
OPTIONS = {"A": "Insulin", "B": "Glucagon", "C": "Cortisol", "D": "Thyroxine"}


def _write(tmp_path, lines):
    path = tmp_path / "questions.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def _derived(tmp_path, n=6):
    sources = {"questions": tmp_path / "questions.jsonl"}
    BENCH.write_demo({**TASK, "data": {**TASK["data"], "demo": {"seed": 0, "n": n}}}, sources)
    return BENCH.derive(TASK, sources)


def test_the_registry_finds_the_package_and_its_title():
    assert "mcqa" in BENCHMARKS
    assert title("mcqa") == BENCH.title == "Medical MCQA"


@pytest.mark.parametrize(("line", "field", "problem"), [
    ({"question": "Q?", "options": {"A": "x"}, "answer": "A"}, "options", "at least two"),
    ({"question": "Q?", "options": {"A": "x", "b": "y"}, "answer": "A"}, "options",
     "capital letter"),
    ({"question": "", "options": OPTIONS, "answer": "A"}, "question", "non-empty"),
    ({"question": "Q?", "options": OPTIONS, "answer": "E"}, "answer", "not one of"),
    ({"question": "Q?", "options": OPTIONS}, "answer", "missing"),
])
def test_a_bad_question_names_the_file_row_and_field(tmp_path, line, field, problem):
    path = _write(tmp_path, [{"question": "Fine?", "options": OPTIONS, "answer": "A"}, line])
    with pytest.raises(DataError, match=problem) as err:
        read_questions(path)
    assert (err.value.path, err.value.row, err.value.field) == (path, 2, field)


def test_questions_read_back_as_written_and_options_may_be_a_list(tmp_path):
    questions = synthetic.generate(20, 3)
    write_questions(questions, tmp_path / "q.jsonl")
    assert read_questions(tmp_path / "q.jsonl") == questions
    assert all(q["options"][q["answer"]] in dict.fromkeys(a for _, a, _ in synthetic.FACTS)
               for q in questions)
    listed = _write(tmp_path, [{"question": "Q?", "options": ["x", "y", "z"], "answer": "C"}])
    assert read_questions(listed) == [{"id": "q1", "question": "Q?", "answer": "C",
                                       "options": {"A": "x", "B": "y", "C": "z"}}]


@pytest.mark.parametrize(("output", "letter"), [
    ("B", "B"), ("(C)", "C"), ("D.", "D"),
    ("Answer: A", "A"), ("the answer is (B).", "B"), ('{"answer": "C"}', "C"),
    ("Let me think. Answer: A\nOn reflection, Answer: D", "D"),
    ("B. Glucagon raises glucose.", "B"),
    ("It must be cortisol, the stress hormone.", "C"),
    ("Answer: E", None), ("Insulin or glucagon", None), ("I am not sure.", None),
    # a letter whose text names another option contradicts itself (SmolLM2, one-shot)
    ("Answer: C. Insulin", None), ("C. Insulin", None), ("Answer: C. Cortisol", "C"),
    ("Answer: A. The beta cells make it.", "A"),
    ("A. Insulin\n\nThe correct answer is D. Thyroxine.", "D"),
    # two lines that give different letters (two answers, or the options listed): no answer
    ("B. Glucagon\nC. Cortisol", None), ("A. Insulin\nB. Glucagon\nC. Cortisol", None),
    ("B. Glucagon\nB. Glucagon raises glucose.", "B"),  # the same letter twice
])
def test_the_answer_letter_is_read_in_the_documented_order(output, letter):
    assert answer_letter(output, OPTIONS) == letter


def test_prompts_follow_the_mode_and_hold_out_the_exemplar(tmp_path):
    examples, exemplars = _derived(tmp_path)
    assert len(examples) == 5 and len(exemplars) == 1
    assert not {e["id"] for e in examples} & {e["id"] for e in exemplars}
    templates = TASK["templates"]
    zero = BENCH.build_requests(TASK, MODES["zero_shot"], templates, examples, exemplars)
    cot = BENCH.build_requests(TASK, MODES["cot"], templates, examples, exemplars)
    one = BENCH.build_requests(TASK, MODES["one_shot"], templates, examples, exemplars)
    assert [m["role"] for m in zero[0]["messages"]] == ["system", "user"]
    assert "step by step" in cot[0]["messages"][0]["content"]
    assert "step by step" not in zero[0]["messages"][0]["content"]
    first = examples[0]
    assert f"A. {first['options']['A']}" in zero[0]["messages"][1]["content"]
    assert [m["role"] for m in one[0]["messages"]] == ["system", "user", "assistant", "user"]
    assert one[0]["messages"][2]["content"] == f"Answer: {exemplars[0]['answer']}"
    assert one[0]["exemplar_ids"] == [exemplars[0]["id"]]
    completion = BENCH.build_requests(TASK, MODES["one_shot"], templates, examples, exemplars,
                                      "completion")
    assert completion[0]["completion"] is True and len(completion[0]["messages"]) == 1
    assert completion[0]["messages"][0]["content"] == "\n\n".join(
        m["content"] for m in one[0]["messages"])
    more = {**TASK, "exemplars": {"count": 2, "seed": 0}}
    with pytest.raises(ValueError, match="2 exemplar"):
        BENCH.build_requests(more, MODES["one_shot"], templates, examples, exemplars)


def test_scores_summary_outcomes_and_replicates_come_from_one_declaration(tmp_path):
    examples, _ = _derived(tmp_path)
    outputs = [f"Answer: {e['answer']}" for e in examples[:3]] + ["no idea", "Answer: Z"]
    generations = [{"id": e["id"], "output": o} for e, o in zip(examples, outputs, strict=True)]
    rows, summary = BENCH.score(TASK, examples, generations)
    assert summary == {"n": 5, "metrics": {"accuracy": 0.6, "answered": 0.6}}
    assert BENCH.headline(summary) == {"accuracy": 0.6, "answered": 0.6}
    assert [BENCH.answered(r) for r in rows] == [True, True, True, False, False]
    assert BENCH.outcomes(TASK, rows) == {"accuracy": {e["id"]: int(i < 3)
                                                       for i, e in enumerate(examples)}}
    drawn = resamples(len(rows), BootstrapSettings(50, 0))
    assert BENCH.headline_replicates(TASK, rows, drawn) == replicates_by_rows(
        BENCH, TASK, rows, drawn)
    with pytest.raises(ValueError, match="no output"):
        BENCH.score(TASK, examples, generations[:-1])


def test_the_default_table_shows_each_model_by_mode(tmp_path):
    examples, _ = _derived(tmp_path)
    spec = yaml.safe_load((REPO / "conf/table/mcqa_by_mode.yaml").read_text(encoding="utf-8"))
    cells = []
    for mode, right in (("zero_shot", 2), ("one_shot", 4)):
        generations = [{"id": e["id"], "output": e["answer"] if i < right else "?"}
                       for i, e in enumerate(examples)]
        summary = BENCH.score(TASK, examples, generations)[1]
        cells.append({"model": "m", "mode": mode, "summary": summary, "display_name": "M",
                      "size": "1B", "smoke": False})
    text = to_markdown(BENCH.table(spec, cells, {"mcqa": TASK}))
    assert "| M | 1B | 40.00 | 40.00 | – | – | 80.00 | 80.00 |" in text
    assert "| Zero-shot |  | Zero-shot CoT |  | One-shot CoT |  |" in text
    assert "synthetic demo" in text


def test_the_benchmark_is_its_package_and_two_config_files():
    """No code or config outside them names it (documentation may)."""
    tracked = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True,
                             check=True).stdout.split()
    own = ("src/clineval/benchmarks/mcqa/", "conf/task/mcqa.yaml", "conf/table/mcqa_by_mode.yaml",
           "tests/")
    naming = [path for path in tracked if not path.startswith(own) and not path.endswith(".md")
              and (REPO / path).is_file()
              and "mcqa" in (REPO / path).read_text(encoding="utf-8", errors="ignore")]
    assert naming == []
