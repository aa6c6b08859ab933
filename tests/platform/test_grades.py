"""Graders in the loop (docs/report.md): the grades file reader, Cohen's κ, stale grades and
the agreement report, on small cells of the project's synthetic MedCalc-Bench rows."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from explorer_cells import medcalc_cell

from clineval.io import DataError, read_jsonl
from clineval.metrics.agreement import cohen_kappa
from clineval.report import agreement
from clineval.report.grades import output_sha256, read_all, read_grades

GRADE = {"model": "a", "task": "medcalc", "mode": "all", "id": "zero_shot-x",
         "output_sha256": "0" * 64, "scoring": "1" * 64, "reading": "official",
         "grader": "ann", "agree": True, "verdict": "right", "note": ""}


def write(path: Path, *lines: dict | str) -> Path:
    path.write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines),
                    encoding="utf-8")
    return path


def test_cohen_kappa_matches_a_hand_computed_case() -> None:
    # 10 items: both right 4, both wrong 3, a right b wrong 2, a wrong b right 1:
    # p_o = 7/10; a says right 6/10, b 5/10: p_e = .6 * .5 + .4 * .5 = .5; κ = .2 / .5 = .4
    a = ["right"] * 4 + ["wrong"] * 3 + ["right"] * 2 + ["wrong"]
    b = ["right"] * 4 + ["wrong"] * 3 + ["wrong"] * 2 + ["right"]
    assert cohen_kappa(a, b) == pytest.approx(0.4)
    assert cohen_kappa(a, a) == pytest.approx(1.0)
    # opposite on every item, each rater using both labels equally: κ = -1
    assert cohen_kappa(["x", "y"], ["y", "x"]) == pytest.approx(-1.0)
    assert cohen_kappa(["x", "x"], ["x", "x"]) is None  # one label only: p_e = 1
    assert cohen_kappa([], []) is None
    with pytest.raises(ValueError, match="one label per item"):
        cohen_kappa(["x"], [])


def test_the_reader_keeps_each_graders_last_grade(tmp_path: Path) -> None:
    first = write(tmp_path / "one.jsonl", GRADE, "", GRADE | {"id": "cot-y"})
    second = write(tmp_path / "two.jsonl", GRADE | {"verdict": "wrong", "agree": False,
                                                     "note": "reads 12"},
                   GRADE | {"grader": "bo"})
    grades = read_grades(first)
    assert [(g.id, g.line, g.cell) for g in grades] == [
        ("zero_shot-x", 1, "a/medcalc/all"), ("cot-y", 3, "a/medcalc/all")]
    kept = read_all([first, second])
    assert [(g.grader, g.id, g.verdict, g.note) for g in kept] == [
        ("ann", "zero_shot-x", "wrong", "reads 12"), ("ann", "cot-y", "right", ""),
        ("bo", "zero_shot-x", "right", "")]


@pytest.mark.parametrize(("line", "field", "says"), [
    (GRADE | {"verdict": "maybe"}, "verdict", "expected one of right, wrong, unanswered, scored"),
    ({k: v for k, v in GRADE.items() if k != "output_sha256"}, "output_sha256", "missing"),
    (GRADE | {"grader": ""}, "grader", "expected a non-empty string"),
    (GRADE | {"agree": "yes"}, "agree", "expected true or false"),
    (GRADE | {"note": 3}, "note", "expected a string"),
    (GRADE | {"read": {"a": 1}}, "read", "expected a string, a number, a list of them or null"),
    (GRADE | {"read": [1, None]}, "read", "expected a string, a number, a list of them or null"),
    (GRADE | {"read": True}, "read", "expected a string, a number, a list of them or null"),
    (GRADE | {"context": [1]}, "context", "expected an object"),
    ('{"model": "a", "task": ', "task", "not JSON"),
    ("[1, 2]", None, "expected a JSON object"),
])
def test_a_bad_line_is_one_error_naming_file_line_and_field(tmp_path: Path, line, field,
                                                            says: str) -> None:
    path = write(tmp_path / "g.jsonl", GRADE, line)
    with pytest.raises(DataError) as err:
        read_grades(path)
    assert (err.value.path, err.value.row, err.value.field) == (path, 2, field)
    assert says in str(err.value) and str(path) in str(err.value)


def test_read_and_context_are_kept_as_given(tmp_path: Path) -> None:
    path = write(tmp_path / "g.jsonl", GRADE, GRADE | {"id": "b", "read": [1.5, "x", [2]],
                                                       "context": {"items": [{"codes": []}]}},
                 GRADE | {"id": "c", "read": "12/03/2020"})
    assert [(g.read, g.context) for g in read_grades(path)] == [
        (None, None), ([1.5, "x", [2]], {"items": [{"codes": []}]}), ("12/03/2020", None)]


def test_a_missing_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="grades file not found"):
        read_grades(tmp_path / "none.jsonl")


@pytest.fixture(scope="module")
def cell(tmp_path_factory) -> tuple[agreement.CellNow, list[dict]]:
    """Model a's cell of 15 examples (5 per mode): right, right, wrong, no answer, cut."""
    root = tmp_path_factory.mktemp("cell")
    job = medcalc_cell(root, "a", root / "examples.jsonl", n=5)
    now = agreement.cell_now(agreement.CellFiles(job.cell, job.identity, job.files.examples,
                                                 job.files.generations, job.files.rows))
    return now, read_jsonl(job.files.generations)


def grade_of(now: agreement.CellNow, generation: dict, **fields) -> dict:
    scorer = now.verdict(generation["id"], "official")
    return {"model": "a", "task": "medcalc", "mode": "all", "id": generation["id"],
            "output_sha256": output_sha256(generation["output"]), "scoring": now.scoring,
            "reading": "official", "grader": "ann", "agree": True, "verdict": scorer,
            "note": ""} | fields


def test_the_cell_now_holds_the_scorers_verdicts(cell) -> None:
    now, generations = cell
    assert now.benchmark == "medcalc" and len(now.verdicts) == 15
    assert [now.verdict(g["id"], "official") for g in generations[:5]] == [
        "right", "right", "wrong", "unanswered", "unanswered"]
    # a reading the example has none of: the first reading's verdict, as the explorer shows
    assert now.verdict(generations[2]["id"], "nonesuch") == "wrong"


def test_stale_grades_are_listed_and_never_counted(cell, tmp_path: Path) -> None:
    now, generations = cell
    g = generations
    path = write(tmp_path / "g.jsonl",
                 grade_of(now, g[0]),
                 grade_of(now, g[1], output_sha256="f" * 64),
                 grade_of(now, g[2], scoring="e" * 64),
                 grade_of(now, g[3], id="no-such"),
                 grade_of(now, g[4], model="z"))
    found = agreement.compare(read_all([path]), {now.cell: now})
    assert [c.grade.id for c in found.counted] == [g[0]["id"]]
    reasons = [why for _, why in found.stale]
    assert reasons[0] == "the output changed since it was graded"
    assert reasons[1].startswith("scoring identity changed (eeeeeeeeeeee graded")
    assert reasons[2] == "example no-such is not among the cell's scored examples"
    assert reasons[3] == "cell z/medcalc/all is not among the results"
    text = agreement.markdown(found, "results/report/examples")
    assert "1 grades counted, 4 stale (not counted)." in text
    assert f"- {path}:2 (a/medcalc/all {g[1]['id']}, ann): the output changed" in text
    assert "| MedCalc-Bench | 1 | 1 | 100.0 |" in text


def test_the_report_counts_agreement_lists_disagreements_and_kappa(cell, tmp_path: Path
                                                                     ) -> None:
    now, generations = cell
    ann = [grade_of(now, g) for g in generations[:4]]
    ann[2] |= {"verdict": "right", "agree": False, "note": "12 is right for this note"}
    # bo grades the same four: agrees with ann on the first three, not on the fourth
    bo = [line | {"grader": "bo"} for line in ann[:3]]
    bo.append(ann[3] | {"grader": "bo", "verdict": "wrong", "agree": False})
    path = write(tmp_path / "g.jsonl", *ann, *bo)
    found = agreement.compare(read_all([path]), {now.cell: now})
    assert len(found.counted) == 8 and not found.stale
    assert agreement.shares(found.counted, "cell") == [agreement.Share("a/medcalc/all", 5, 8)]
    (pair,) = agreement.kappas(found.counted)
    # labels ann: right right right unanswered, bo: right right right wrong:
    # p_o = 3/4, p_e = (3/4 * 3/4) = 9/16, κ = (12/16 - 9/16) / (7/16) = 3/7
    assert (pair.a, pair.b, pair.n, pair.same) == ("ann", "bo", 4, 3)
    assert pair.kappa == pytest.approx(3 / 7)
    text = agreement.markdown(found, "results/report/examples")
    assert "| a/medcalc/all | 8 | 5 | 62.5 |" in text
    assert "| ann · bo | 4 | 3 | 0.429 |" in text
    third = generations[2]["id"]
    assert (f"- [a/medcalc/all {third}](results/report/examples/a/medcalc/all.html#example-"
            f"{third}), reading official: scorer wrong, ann right: 12 is right for this note"
            in text)
    assert "### Disagreements (3)" in text
    html = "\n".join(agreement.html(found, "examples"))
    assert f'href="examples/a/medcalc/all.html#example-{third}"' in html
    assert "<td>ann · bo</td><td>4</td><td>3</td><td>0.429</td>" in html


def test_report_grades_enter_the_report_identity_job_and_page(tmp_path: Path) -> None:
    from clineval.errors import ConfigError
    from clineval.provenance.hashing import sha256_file
    from clineval.report.page import render_page
    from clineval.workflow.plan import manifests
    from clineval.workflow.plan.build import build_plan

    conf = Path(__file__).resolve().parents[2] / "conf"
    grades = write(tmp_path / "g.jsonl", GRADE)
    where = {"results": tmp_path / "results", "data_root": tmp_path / "data"}
    plan = build_plan(conf, [f"+report.grades=['{grades}']"], **where)
    ident = plan.identities["report/index"]["identity"]
    assert ident["grades"] == [{"path": str(grades), "sha256": sha256_file(grades)}]
    job = manifests.report(plan)
    assert job["grades"] == [str(grades)]
    assert [c["cell"] for c in job["graded"]] == [c.path for c in plan.example_cells()]
    plain = build_plan(conf, [], **where)
    assert "grades" not in plain.identities["report/index"]["identity"]
    assert manifests.report(plain)["graded"] == []
    with pytest.raises(ConfigError, match=r"report\.grades\[0\]: .*none\.jsonl does not exist"):
        build_plan(conf, [f"+report.grades=['{tmp_path / 'none.jsonl'}']"], **where)
    page = render_page({"grid": "g", "smoke_models": [], "figures": {}, "tables": []}, {}, [],
                       {"version": "0", "commit": None, "identity": "0" * 64}, None,
                       ["<p>1 grades counted</p>"])
    assert '<a href="#agreement">Agreement with graders</a>' in page
    assert ('<section id="agreement">\n<h2>Agreement with graders</h2>\n<p>1 grades counted</p>'
            in page)
