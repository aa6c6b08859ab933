"""MedEval input formats and loaders: the documented CSVs, Open-i (CSV, XML), MIMIC-CXR."""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import pytest

from clineval.benchmarks.base.sources import MissingSource
from clineval.benchmarks.medeval import formats, mimic_cxr, openi, sources, splits, synthetic
from clineval.benchmarks.medeval.benchmark import BENCHMARK
from clineval.errors import ConfigError, DataError

HEADER = "id,domain,modality,split,sentence,abnormal,ambiguous,rewrite\n"


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_sentences_round_trip_with_labels(tmp_path):
    path = _write(tmp_path / "s.csv", HEADER
                  + "a,Chest,xray,train,Lungs are unremarkable.,normal,Ambiguous,"
                  + "The lungs are normal.\n"
                  + "b,foot,,test,Fracture of the fifth metatarsal.,ABNORMAL,,\n")
    records = formats.read_sentences(path)
    assert [(r["id"], r["domain"], r["split"], r["abnormal"], r["ambiguous"]) for r in records] == [
        ("a", "chest", "train", "normal", "ambiguous"), ("b", "foot", "test", "abnormal", None)]
    assert records[0]["rewrite"] == "The lungs are normal."


def test_optional_columns_may_be_left_out(tmp_path):
    path = _write(tmp_path / "s.csv", "id,domain,sentence,ambiguous\na,chest,x,ambiguous\n")
    [record] = formats.read_sentences(path)
    assert (record["split"], record["abnormal"], record["ambiguous"]) == (None, None, "ambiguous")
    reports = _write(tmp_path / "r.csv", "id,domain,findings,impression\nr,foot,x,y\n")
    assert formats.read_reports(reports, {})[0]["codes"] is None
    missing = _write(tmp_path / "m.csv", "id,domain,abnormal\na,chest,normal\n")
    with pytest.raises(DataError, match=r"m.csv, row 1, field 'sentence': missing column"):
        formats.read_sentences(missing)


@pytest.mark.parametrize(("row", "field", "problem"), [
    ("a,chest,,train,x,maybe,,\n", "abnormal", "not one of"),
    ("a,chest,,dev,x,normal,,\n", "split", "not one of"),
    ("a,chest,,train,,normal,,\n", "sentence", "empty"),
    ("a,,,train,x,normal,,\n", "domain", "empty"),
    ("a,chest,,train,x,normal,unambiguous,rewritten\n", "rewrite", "not labelled ambiguous"),
])
def test_sentence_errors_name_file_row_and_field(tmp_path, row, field, problem):
    path = _write(tmp_path / "bad.csv", HEADER + row)
    with pytest.raises(DataError) as err:
        formats.read_sentences(path)
    message = str(err.value)
    assert "bad.csv" in message and "row 2" in message and repr(field) in message
    assert problem in message


def test_duplicate_id_and_mixed_splits_are_errors(tmp_path):
    dup = _write(tmp_path / "dup.csv", HEADER + "a,chest,,,x,normal,,\na,chest,,,y,normal,,\n")
    with pytest.raises(DataError, match=r"row 3, field 'id': 'a' appears twice"):
        formats.read_sentences(dup)
    mixed = _write(tmp_path / "mixed.csv",
                   HEADER + "a,chest,,train,x,normal,,\nb,chest,,,y,normal,,\n")
    with pytest.raises(DataError, match=r"row 3, field 'split'"):
        formats.read_sentences(mixed)


def test_report_codes_parse_with_unlisted_default_and_errors(tmp_path):
    code_sets = {"foot": {"codes": ["Fracture", "Hallux Valgus", "Gout"], "unlisted": "negative"}}
    header = "id,domain,modality,split,findings,impression,codes\n"
    good = _write(tmp_path / "r.csv", header
                  + 'r1,foot,xray,,Hallux valgus.,Bunion.,"hallux-valgus=Positive; Gout=unknown"\n'
                  + "r2,foot,xray,,No fracture.,Normal.,\n")
    records = formats.read_reports(good, code_sets)
    assert records[0]["codes"] == {"Fracture": "negative", "Hallux Valgus": "positive",
                                   "Gout": "unknown"}
    assert records[1]["codes"] is None
    for cell, problem in (("Bunion=positive", "not a code of this domain"),
                          ("Gout=maybe", "not one of"), ("Gout", "not Name=value"),
                          ("Gout=positive; gout=negative", "given twice")):
        bad = _write(tmp_path / "bad.csv", header + f'r1,foot,,,x,y,"{cell}"\n')
        with pytest.raises(DataError, match=rf"bad.csv, row 2, field 'codes': .*{problem}"):
            formats.read_reports(bad, code_sets)
    other = _write(tmp_path / "other.csv", header + 'r1,knee,,,x,y,"Gout=positive"\n')
    with pytest.raises(DataError, match="no code list is configured for domain 'knee'"):
        formats.read_reports(other, code_sets)


def test_seeded_split_is_7_1_2_per_domain_and_stable():
    records = [{"id": f"{d}{i}", "domain": d, "split": None} for d in ("chest", "foot")
               for i in range(50)]
    first = splits.assign_splits(records, seed=4)
    again = splits.assign_splits(list(reversed(records)), seed=4)
    assert {r["id"]: r["split"] for r in first} == {r["id"]: r["split"] for r in again}
    for domain in ("chest", "foot"):
        counts = Counter(r["split"] for r in first if r["domain"] == domain)
        assert counts == {"train": 35, "validation": 5, "test": 10}
    other = splits.assign_splits(records, seed=5)
    assert [r["split"] for r in other] != [r["split"] for r in first]
    given = [{**r, "split": "test"} for r in records]
    assert {r["split_source"] for r in splits.assign_splits(given, 0)} == {"file"}


def test_split_sizes_round_cumulatively():
    assert splits.split_sizes(10, (7, 1, 2)) == (7, 1, 2)
    assert splits.split_sizes(16, (7, 1, 2)) == (11, 2, 3)
    with pytest.raises(ConfigError):
        splits.split_sizes(10, (7, 1))


def test_openi_xml_and_bad_xml(tmp_path):
    path = tmp_path / "9001.xml"
    synthetic.write_openi_xml(path)
    [record] = openi.read_openi_xmls(openi.xml_files(tmp_path))
    assert record["id"] == "openi-9001" and record["domain"] == "chest"
    assert record["findings"].startswith("The heart size is normal. There is patchy opacity")
    assert record["impression"] == "Right lower lobe opacity, possibly pneumonia."
    broken = _write(tmp_path / "broken.xml", "<eCitation><uId id='CXR2'/>")
    with pytest.raises(DataError, match=r"broken.xml.*not well-formed"):
        openi.read_openi_xml(broken)
    no_sections = _write(tmp_path / "none.xml", "<eCitation><uId id='CXR3'/></eCitation>")
    with pytest.raises(DataError, match="field 'AbstractText'"):
        openi.read_openi_xml(no_sections)


def test_openi_real_csv():
    root = os.environ.get("CLINEVAL_DATA_DIR")
    if not root or not (Path(root) / "openi-iu-xray" / "indiana_reports.csv").is_file():
        pytest.skip("set CLINEVAL_DATA_DIR to the directory holding openi-iu-xray/")
    path = Path(root) / "openi-iu-xray" / "indiana_reports.csv"
    records = openi.read_openi_csv(path)
    both = [r for r in records if r["findings"] and r["impression"]]
    assert len(both) == 3331  # the data README: reports with findings and impression
    # 3,851 rows; 25 have neither findings nor impression (checked with pandas); of the 1,379
    # with MeSH "normal", 1,354 are kept
    assert len(records) == 3826
    assert sum(r["mesh_normal"] for r in records) == 1354
    assert records[0]["id"] == "openi-1"
    assert records[0]["impression"] == "Normal chest x-XXXX."
    task = {"data": {"task": "summarization", "source": "official", "seed": 0,
                     "split": [7, 1, 2], "openi": str(path)}, "exemplars": {}}
    examples, exemplars = BENCHMARK.derive(task, {"openi": path})
    # the 7:1:2 split is drawn over the 3,826 reports: 765 test reports, those with both parts
    # evaluated
    assert splits.split_sizes(3826, (7, 1, 2)) == (2678, 383, 765)
    assert 0.85 * 765 < len(examples) < 765 and len(exemplars) == 3
    assert all(e["fields"]["report"] and e["reference"] for e in examples)
    assert {e["group"] for e in examples} == {"chest"}


def _mimic(tmp_path: Path) -> tuple[Path, Path]:
    study_list = tmp_path / "cxr-study-list.csv"
    chexpert = tmp_path / "mimic-cxr-2.0.0-chexpert.csv"
    synthetic.write_mimic_cxr(study_list, chexpert, tmp_path / "mimic-cxr-2.0.0-split.csv",
                              seed=0)
    return study_list, chexpert


def test_mimic_official_split_per_study_with_seeded_fallback(tmp_path):
    study_list, _ = _mimic(tmp_path)
    split_file = tmp_path / "mimic-cxr-2.0.0-split.csv"
    header = split_file.read_text().splitlines()[0]
    assert header == "dicom_id,study_id,subject_id,split"
    official = mimic_cxr.read_split(split_file)
    assert official == {"50000000": "train", "50000001": "train", "50000002": "train",
                        "50000003": "validation", "50000004": "test"}  # validate -> validation
    records = splits.assign_splits(
        mimic_cxr.with_split(mimic_cxr.read_reports(study_list), official), seed=0)
    by_id = {r["id"]: r for r in records}
    assert by_id["mimic-s50000003"]["split"] == "validation"
    assert by_id["mimic-s50000004"]["split_source"] == "file"
    # the study without a row in the split file: the seeded 7:1:2 draw among such studies
    assert by_id["mimic-s50000005"]["split_source"] == "seeded"
    assert by_id["mimic-s50000005"]["split"] == "train"
    task = {**_task("summarization", mimic_cxr=str(study_list),
                    mimic_cxr_split=str(split_file)), "access": "credentialed"}
    files = BENCHMARK.source_files(task, tmp_path, "medeval_summarization")
    assert files["mimic_cxr_split"] == split_file
    loaded = sources.load_records("summarization", task["data"], files)
    assert {r["id"]: r["split"] for r in loaded} == {r["id"]: r["split"] for r in records}
    missing = {**task, "data": {**task["data"], "mimic_cxr_split": str(tmp_path / "no.csv")}}
    with pytest.raises(MissingSource, match=r"split CSV.*tasks.medeval_summarization.data"
                                            r".mimic_cxr_split"):
        BENCHMARK.source_files(missing, tmp_path, "medeval_summarization")


def test_mimic_split_errors_name_file_row_and_field(tmp_path):
    path = tmp_path / "mimic-cxr-2.0.0-split.csv"
    _write(path, "dicom_id,study_id,subject_id,split\n"
                 "a,50000000,10000000,train\nb,50000000,10000000,test\n")
    with pytest.raises(DataError, match=r"mimic-cxr-2.0.0-split.csv.*row 3, field 'split'.*"
                                        r"study 50000000 is 'test' here but 'train' in row 2"):
        mimic_cxr.read_split(path)
    _write(path, "dicom_id,study_id,subject_id,split\na,50000000,10000000,valid\n")
    with pytest.raises(DataError, match=r"row 2, field 'split': 'valid' is not one of"):
        mimic_cxr.read_split(path)
    _write(path, "dicom_id,study_id,subject_id,split\na,s5,10000000,train\n")
    with pytest.raises(DataError, match=r"row 2, field 'study_id'"):
        mimic_cxr.read_split(path)
    _write(path, "dicom_id,study_id,split\na,5,train\n")
    with pytest.raises(DataError, match=r"row 1, field 'subject_id'"):
        mimic_cxr.read_split(path)


def test_mimic_cxr_tree_and_chexpert(tmp_path):
    study_list, chexpert = _mimic(tmp_path)
    reports = mimic_cxr.read_reports(study_list)
    assert len(reports) == synthetic.MIMIC_STUDIES
    assert reports[0]["id"] == "mimic-s50000000" and reports[0]["findings"]
    assert (tmp_path / "files/p10/p10000000/s50000000.txt").is_file()
    labels = mimic_cxr.read_chexpert(chexpert)
    assert labels["50000000"]["Lung Lesion"] == "unknown"  # -1.0 uncertain
    assert mimic_cxr.read_chexpert(chexpert, uncertain="positive")["50000000"]["Lung Lesion"] == (
        "positive")
    coded = mimic_cxr.with_codes(reports, labels)
    assert all(set(r["codes"]) == set(mimic_cxr.CHEXPERT_CODES) for r in coded)


def test_mimic_sections():
    text = "FINAL REPORT\n EXAMINATION: CHEST\n FINDINGS:\n\n Lungs  clear.\n IMPRESSION: Normal.\n"
    assert mimic_cxr.sections(text)["FINDINGS"] == "Lungs clear."
    assert mimic_cxr.sections(text)["IMPRESSION"] == "Normal."


def test_mimic_errors_name_row_and_field(tmp_path):
    study_list, chexpert = _mimic(tmp_path)
    lines = study_list.read_text().splitlines()
    _write(study_list, "\n".join([lines[0], lines[1].replace("files/p10", "files/p11")]) + "\n")
    with pytest.raises(DataError, match=r"row 2, field 'path'"):
        mimic_cxr.read_reports(study_list)
    _write(study_list, "\n".join([lines[0], lines[1].replace("s50000000.txt", "s5000000.txt")])
           + "\n")
    with pytest.raises(DataError, match=r"row 2, field 'path'.*not files/pXX"):
        mimic_cxr.read_reports(study_list)
    rows = chexpert.read_text().splitlines()
    _write(chexpert, "\n".join([rows[0], rows[1].replace("0.0", "2.0", 1)]) + "\n")
    with pytest.raises(DataError, match=r"row 2, field '.*': '2.0' is not 1.0, 0.0, -1.0"):
        mimic_cxr.read_chexpert(chexpert)


def _task(kind: str, **data) -> dict:
    base = {"task": kind, "source": "official", "seed": 0, "split": [7, 1, 2]}
    return {"data": {**base, **data}, "exemplars": {}}


def test_missing_sources_skip_with_the_setting_named(tmp_path):
    with pytest.raises(MissingSource, match=r"tasks.medeval_ambiguity.data.sentences.*not set"):
        BENCHMARK.source_files(_task("ambiguity", sentences=None), tmp_path, "medeval_ambiguity")
    with pytest.raises(MissingSource, match=r"tasks.medeval_codes.data.reports"):
        BENCHMARK.source_files(_task("codes", reports=None), tmp_path, "medeval_codes")
    study_list, _ = _mimic(tmp_path)
    with pytest.raises(MissingSource, match=r"CheXpert.*tasks.medeval_codes.data.chexpert"):
        BENCHMARK.source_files(_task("codes", mimic_cxr=str(study_list)), tmp_path,
                               "medeval_codes")
    with pytest.raises(ConfigError, match="Open-i reports carry no code labels"):
        BENCHMARK.source_files(_task("codes", openi=str(study_list)), tmp_path, "medeval_codes")


def test_openi_folder_becomes_one_source_per_xml(tmp_path):
    folder = tmp_path / "ecgen-radiology"
    folder.mkdir()
    synthetic.write_openi_xml(folder / "1.xml")
    synthetic.write_openi_xml(folder / "2.xml")
    found = sources.source_files(_task("summarization", openi=str(folder)), tmp_path, "t")
    assert sorted(found) == ["openi:1.xml", "openi:2.xml"]
    with pytest.raises(DataError, match=r"CXR9001|openi-9001"):
        sources.load_records("summarization", _task("summarization")["data"], found)


def test_demo_derive_every_task_keeps_exemplars_out_of_evaluation(tmp_path):
    from clineval.benchmarks.medeval.examples import PAPER_SHOTS

    for kind in PAPER_SHOTS:
        data = {"task": kind, "source": "demo", "seed": 3, "split": [7, 1, 2]}
        if kind == "codes":
            data["code_sets"] = _code_sets()
        task = {"data": data, "exemplars": {}}
        files = BENCHMARK.source_files(task, tmp_path, f"medeval_{kind}")
        BENCHMARK.write_demo(task, files)
        examples, exemplars = BENCHMARK.derive(task, files)
        assert examples and exemplars, kind
        assert not {e["id"] for e in examples} & {e["id"] for e in exemplars}
        assert {e["split"] for e in examples} == {"test"}
        assert {e["split"] for e in exemplars} == {"train"}
        assert {e["domain"] for e in examples} == {"chest", "foot", "ankle"}, kind
        if kind in ("abnormality", "ambiguity"):
            chest = [e["reference"] for e in exemplars if e["domain"] == "chest"][:2]
            assert len(set(chest)) == 2  # the first two exemplars hold both classes


def _code_sets() -> dict:
    import yaml

    return yaml.safe_load(Path("conf/task/medeval/code_sets.yaml").read_text())


def test_draws_repeat_validation_and_test_with_the_next_exemplars(tmp_path):
    import yaml

    templates = yaml.safe_load(Path("conf/templates/medeval.yaml").read_text())
    task = {"data": {"task": "ambiguity", "source": "demo", "seed": 3, "split": [7, 1, 2]},
            "exemplars": {"draws": 2}}
    files = BENCHMARK.source_files(task, tmp_path, "medeval_ambiguity")
    BENCHMARK.write_demo(task, files)
    examples, exemplars = BENCHMARK.derive(task, files)
    assert {e["split"] for e in examples} == {"validation", "test"}
    assert Counter(e["draw"] for e in examples) == {0: len(examples) // 2, 1: len(examples) // 2}
    few = {"exemplars": 1, "reasoning": False}
    requests = BENCHMARK.build_requests(task, few, templates, examples, exemplars)
    by_id = {r["id"]: r for r in requests}
    example = next(e for e in examples if e["draw"] == 0 and e["domain"] == "chest")
    first = by_id[example["id"]]["exemplar_ids"]
    second = by_id[example["meta"]["source_id"] + "@d1"]["exemplar_ids"]
    assert len(first) == len(second) == 2 and not set(first) & set(second)
    zero = BENCHMARK.build_requests(task, {"exemplars": 0, "reasoning": False}, templates,
                                    examples, exemplars)
    assert all(r["exemplar_ids"] == [] for r in zero)
    message = zero[0]["messages"][0]["content"]
    assert "without saying anything else" in message and message.endswith("Label:")


def test_demo_prompts_are_unique_across_report_sources(tmp_path):
    # the generation cache is keyed by the request: two examples with one prompt would share the
    # oracle's answer, so no two synthetic reports may have the same findings
    synthetic.write_reports(tmp_path / "reports.csv", seed=0)
    synthetic.write_mimic_cxr(tmp_path / "list.csv", tmp_path / "chexpert.csv",
                              tmp_path / "split.csv", seed=0)
    findings = [r["findings"] for r in formats.read_reports(tmp_path / "reports.csv")]
    findings += [r["findings"] for r in mimic_cxr.read_reports(tmp_path / "list.csv")]
    assert len(findings) == len(set(findings)) == 3 * synthetic.REPORTS_PER_DOMAIN + 6


def test_each_source_declares_its_least_tier(tmp_path):
    """A CSV in MedEval's format holds the paper's VA data (unreleased), Open-i is public and
    MIMIC-CXR's files are credentialed, whatever the task's ``access`` says."""
    folder = tmp_path / "ecgen-radiology"
    folder.mkdir()
    found = {"sentences": tmp_path / "s.csv", "reports": tmp_path / "r.csv",
             "openi:1.xml": folder / "1.xml", "mimic_cxr": tmp_path / "m.csv",
             "chexpert": tmp_path / "c.csv", "mimic_cxr_split": tmp_path / "x.csv"}
    assert BENCHMARK.source_tiers({**_task("codes"), "access": "public"}, found) == {
        "sentences": "unreleased", "reports": "unreleased", "openi:1.xml": "public",
        "mimic_cxr": "credentialed", "chexpert": "credentialed",
        "mimic_cxr_split": "credentialed"}
