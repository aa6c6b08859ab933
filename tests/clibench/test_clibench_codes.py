"""CliBench codes (issue 26): explicit codes checked against the supplied ontology, codes in
either case, titles that several codes share, coarse codes, "Final answer:" only where the
prompt asks for it, and the title embeddings cached with the same bytes as fresh ones."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from clineval.benchmarks.clibench import pools, scoring
from clineval.benchmarks.clibench.benchmark import BENCHMARK
from clineval.cli import main
from clineval.metrics import embedding
from clineval.metrics.code_mapping import Candidates, Mapper
from clineval.metrics.ontologies import atc, icd10cm, systems

ATC_TITLES = {"A01AD05": "acetylsalicylic acid", "B01AC06": "acetylsalicylic acid",
              "A10BA02": "metformin", "B03BA01": "cyanocobalamin", "B01AC04": "clopidogrel",
              "B01A": "Antithrombotic agents", "B01": "Antithrombotic agents group",
              "B": "Blood", "A": "Alimentary tract", "A10": "Drugs used in diabetes"}
TREE = ("PATH_TO_ROOT,SEQUENCE,IMMEDIATE_PARENT,CODE,CODE_TEXT\n,1,,LP1,root\n"
        "LP1,1,LP1,LP2,Laboratory\nLP1.LP2,1,LP2,LP3,Chemistry\n"
        "LP1.LP2.LP3,1,LP3,2345-7,Glucose\nLP1.LP2.LP3,2,LP3,2160-0,Creatinine\n")


def atc_file(tmp_path: Path) -> Path:
    path = tmp_path / "atc.csv"
    path.write_text("atc,name\n" + "".join(f"{c},{t}\n" for c, t in ATC_TITLES.items()))
    return path


def cli(capsys, tmp_path: Path, task: str, gold: list[str], output: str, *extra: str) -> dict:
    g, p = tmp_path / "gold.jsonl", tmp_path / "pred.jsonl"
    g.write_text(json.dumps({"id": "x", "codes": gold}) + "\n")
    p.write_text(json.dumps({"id": "x", "output": output}) + "\n")
    assert main(["score", "clibench", "--task", task, "--gold", str(g), "--predictions", str(p),
                 "--json", *extra]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.fixture(autouse=True)
def _own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("CLINEVAL_EMBEDDING_CACHE", str(tmp_path / "embeddings"))
    pools.candidates.cache_clear()


# 1. explicit codes against the ontology


def test_well_shaped_atc_strings_the_titles_do_not_hold_are_no_codes(capsys, tmp_path):
    out = cli(capsys, tmp_path, "prescriptions", ["A10BA02"],
              "B12\nA10BA99\nmetformin A10BA02", "--titles", str(atc_file(tmp_path)))
    assert out["rows"][0]["codes"][-1] == "A10BA02"
    assert "B12" not in out["rows"][0]["codes"] and "A10BA99" not in out["rows"][0]["codes"]


def test_an_unknown_code_stays_in_the_text_for_the_matchers():
    known = Candidates.from_titles(ATC_TITLES, known=frozenset(ATC_TITLES))
    item = Mapper(systems.ATC, known, threshold=2.0).map("A10BA99 metformin")[0]
    assert (item.codes, item.how, item.invalid) == ((), "none", ("A10BA99",))
    # without the unknown code the words are an exact title
    assert Mapper(systems.ATC, known).map("metformin (A10BA99)")[0].how != "code"


def test_pcs_and_loinc_codes_are_checked_against_their_files(tmp_path):
    pcs = Candidates.from_titles({"0DJ08ZZ": "Inspection of upper intestinal tract"},
                                 known=frozenset({"0DJ08ZZ"}))
    items = Mapper(systems.ICD10PCS, pcs, threshold=2.0).map("0ZZZ9ZZ\n0DJ08ZZ")
    assert [(i.codes, i.invalid) for i in items] == [((), ("0ZZZ9ZZ",)), (("0DJ08ZZ",), ())]
    tree = tmp_path / "tree.csv"
    tree.write_text(TREE)
    labs = pools.candidates("labs", (("loinc_hierarchy", tree),), embedding.BUNDLED)
    # 3-4 has a right check digit but is no LOINC term of the hierarchy
    items = Mapper(systems.LOINC, labs, threshold=2.0).map("3-4\n2160-0")
    assert [i.codes for i in items] == [(), ("2160-0",)]


def test_compat_parsing_still_reads_dotted_codes_only():
    mapper = Mapper(systems.ICD10CM, None, parsing="code")
    assert mapper.map("1. I50.23 heart failure\n2. i10")[0].codes == ("I50.23",)
    assert mapper.map("1. I50.23 heart failure\n2. i10")[1].codes == ()


# 2. a title that several codes share


def test_shared_titles_form_one_candidate_with_every_code():
    bank = Candidates.from_titles(ATC_TITLES)
    index = bank.exact("Acetylsalicylic acid")
    assert bank.codes[index] == ("A01AD05", "B01AC06")
    assert bank.titles.count("acetylsalicylic acid") == 1


def test_a_shared_name_counts_as_the_code_the_gold_has(capsys, tmp_path):
    titles = str(atc_file(tmp_path))
    cardio = cli(capsys, tmp_path, "prescriptions", ["B01AC06"], "acetylsalicylic acid",
                 "--titles", titles)
    assert cardio["rows"][0]["codes"] == ["B01AC06"]
    assert [lv["f1"] for lv in cardio["levels"]] == [1.0, 1.0, 1.0, 1.0]
    # nearest at most levels: clopidogrel's B01AC shares every level but the substance
    near = cli(capsys, tmp_path, "prescriptions", ["B01AC04"], "acetylsalicylic acid",
               "--titles", titles)
    assert near["rows"][0]["codes"] == ["B01AC06"]
    # no gold code agrees: the first in code order
    other = cli(capsys, tmp_path, "prescriptions", ["A10BA02"], "acetylsalicylic acid",
                "--titles", titles)
    assert other["rows"][0]["codes"] == ["A01AD05"]


# 3. coarse codes, either case, "Final answer:"


def test_coarse_codes_count_only_at_the_levels_they_reach():
    assert icd10cm.at("I50", "category") == {"I50"}
    assert icd10cm.at("I50", "subcategory") == set() and icd10cm.at("I50", "code") == set()
    assert icd10cm.at("I50.2", "subcategory") == {"I50.2"}
    assert icd10cm.at("I50.2", "code") == set()
    assert icd10cm.at("I10", "subcategory") == {"I10"} == icd10cm.at("I10", "code")
    assert icd10cm.at("I50", "code", coarse="self") == {"I50"}
    l4 = dict(atc.levels(atc.PAPER_LENGTHS))["L4"]
    assert l4("B01A") == set()
    assert dict(atc.levels(atc.PAPER_LENGTHS, "self"))["L4"]("B01A") == {"B01A"}


def test_a_coarse_prediction_is_no_miss_at_finer_levels():
    scorer = scoring.Scorer("diagnoses", scoring.settings(None), {})
    rows, _ = scorer.score(["a"], [["I50.23"]], ["- I50"])
    assert rows[0]["counts"] == [[1, 1, 1], [1, 1, 1], [1, 1, 1], [0, 0, 1], [0, 0, 1]]
    compat = scoring.Scorer("diagnoses", scoring.settings({"coarse": "self"}), {})
    rows, _ = compat.score(["a"], [["I50.23"]], ["- I50"])
    assert rows[0]["counts"][3:] == [[0, 1, 1], [0, 1, 1]]


def test_lower_case_codes_are_codes():
    assert Mapper(systems.ICD10CM, None).map("- i10\n- e11.9")[0].codes == ("I10",)
    assert Mapper(systems.ICD10CM, None).map("- i10\n- e11.9")[1].codes == ("E11.9",)
    assert Mapper(systems.ATC, None).map("aspirin b01ac06")[0].codes == ("B01AC06",)


def test_final_answer_lines_are_read_only_where_the_prompt_asks_for_one():
    answer = "- I10\n- E11.9\nFinal answer:\n- I10"
    direct = scoring.Scorer("diagnoses", scoring.settings(None), {})
    assert direct.score(["a"], [["I10"]], [answer])[0][0]["codes"] == ["I10", "E11.9"]
    cot = scoring.Scorer("diagnoses", scoring.settings(None), {}, reasoning=True)
    assert cot.score(["a"], [["I10"]], [answer])[0][0]["codes"] == ["I10"]
    example = {"id": "a", "task": "diagnoses", "gold": ["I10"], "groups": {}}
    for mode, codes in (({"reasoning": False, "exemplars": 0}, ["I10", "E11.9"]),
                        ({"reasoning": True, "exemplars": 0}, ["I10"]),
                        ({"reasoning": True, "exemplars": 1}, ["I10", "E11.9"])):
        task = {"scoring": {}, "inputs": {}, "mode": mode}
        rows, summary = BENCHMARK.score(task, [example], [{"id": "a", "output": answer}])
        assert rows[0]["codes"] == codes
        assert summary["final_answer"] is (codes == ["I10"])


# 4. cached title embeddings


def test_cached_vectors_are_the_bytes_of_fresh_ones(tmp_path, monkeypatch):
    texts = ["Essential (primary) hypertension", "Type 2 diabetes mellitus", "Cough"]
    fresh = embedding.embed(texts)
    first, key = embedding.embed_cached(texts)
    assert (tmp_path / "embeddings" / f"{key}.npy").is_file()
    monkeypatch.setattr(embedding, "embed", lambda *a, **k: pytest.fail("encoded again"))
    again, same = embedding.embed_cached(texts)
    assert same == key
    assert fresh.tobytes() == first.tobytes() == again.tobytes()
    assert embedding.cache_key(texts[:2], embedding.BUNDLED) != key


def test_a_damaged_cache_file_is_computed_again(tmp_path):
    texts = ["Cough", "Fever"]
    vectors, key = embedding.embed_cached(texts)
    (tmp_path / "embeddings" / f"{key}.npy").write_bytes(b"not numpy")
    again, _ = embedding.embed_cached(texts)
    assert again.tobytes() == vectors.tobytes()
    assert np.load(tmp_path / "embeddings" / f"{key}.npy").tobytes() == vectors.tobytes()


def test_scores_from_cached_titles_equal_fresh_scores(tmp_path, monkeypatch):
    files = {"atc_titles": atc_file(tmp_path)}
    outputs = ["blood thinner\naspirin", "diabetes tablets", "vitamin b12 injections"]
    gold = [["B01AC06"], ["A10BA02"], ["B03BA01"]]

    def run() -> tuple[str, int]:
        pools.candidates.cache_clear()
        encoded = []
        real = embedding.embed
        monkeypatch.setattr(embedding, "embed",
                            lambda texts, *a, **k: encoded.append(len(texts)) or real(texts))
        rows, summary = scoring.Scorer("prescriptions", scoring.settings(None), files).score(
            ["a", "b", "c"], gold, outputs)
        monkeypatch.setattr(embedding, "embed", real)
        return json.dumps([rows, summary], sort_keys=True), sum(encoded)

    cold, cold_count = run()
    warm, warm_count = run()
    assert cold == warm
    assert json.loads(cold)[1]["title_embeddings"] is not None
    # the warm run encodes the answers' items only, not the titles
    assert warm_count == 4 and cold_count == 4 + len(set(ATC_TITLES.values()))


def test_the_mode_is_part_of_clibench_scoring_identities_only(tmp_path):
    from clineval.workflow.plan.build import build_plan

    plan = build_plan(Path(__file__).resolve().parents[2] / "conf", [],
                      results=tmp_path / "results", data_root=tmp_path / "data")
    scoring_ids = {k: v["identity"] for k, v in plan.identities.items()
                   if k.endswith("/scoring")}
    clibench = {k: v for k, v in scoring_ids.items() if v["benchmark"] == "clibench"}
    assert clibench and all(v["mode"] == plan.cfg["modes"][k.split("/")[2]]
                            for k, v in clibench.items())
    assert not any("mode" in v for v in scoring_ids.values() if v["benchmark"] != "clibench")


def test_compat_parsing_removes_unknown_dotted_codes_from_the_text_as_the_public_scorer():
    bank = Candidates.from_titles({"I10": "Essential (primary) hypertension"})
    item = Mapper(systems.ICD10CM, bank, parsing="code").map("1. I99.999 Essential (primary) "
                                                             "hypertension\n2. I10")[0]
    assert (item.codes, item.how, item.invalid) == (("I10",), "title", ("I99.999",))
    paper = Mapper(systems.ICD10CM, bank, threshold=2.0).map("I99.999 Essential (primary) "
                                                             "hypertension")[0]
    assert paper.how == "none" and paper.invalid == ("I99.999",)


def test_answers_mapped_together_equal_each_mapped_alone():
    bank = Candidates.from_titles(ATC_TITLES, known=frozenset(ATC_TITLES))
    answers = ["blood thinner\nA10BA02", "vitamin b12 shots\nblood thinner", "", "metformin"]
    together = Mapper(systems.ATC, bank).map_all(answers)
    assert together == [Mapper(systems.ATC, bank).map(answer) for answer in answers]
    assert [i.how for i in together[1]] == ["embedding", "embedding"]
