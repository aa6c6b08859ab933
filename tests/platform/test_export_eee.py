"""Results in the Every Eval Ever schema (docs/export.md): every file an export writes is valid
against the published schemas, its numbers are its tables', credentialed cells keep no text, and
an export follows only its own cells. The schemas are not in the repository: the checks read the
copy in ``$CLINEVAL_DATA_DIR/every-eval-ever/`` and skip without it.

The module's grid is MedCalc-Bench's Table 2 with the two baselines, the constant one answering
2 to every integer question (right on 3 of the demo's 55), so that intervals are not empty; its
steps run in this process from their manifests (seconds). The Snakemake target's rebuilds are
the one slow test.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
from pathlib import Path
from statistics import fmean

import pytest
from jsonschema import Draft7Validator
from workflow_run import REPO, planned_jobs, snakemake

from clineval import cli
from clineval.benchmarks import get_benchmark
from clineval.errors import ConfigError, DataError
from clineval.export import eee, eee_schema
from clineval.io import read_json, read_jsonl
from clineval.workflow.plan.build import build_plan
from clineval.workflow.plan.layout import Plan
from clineval.workflow.plan.manifests import manifests, write_manifests
from clineval.workflow.steps.export import cell_files, read_cell

OVERRIDES = ["grid.select.models=[oracle,constant]", "grid.select.tables=[medcalc_table2]",
             "tasks.medcalc.scoring.baselines.constant.integer=2"]
#: The steps of a table's chain, in the order their jobs run.
STEPS = ("derive", "requests", "generate", "score", "table", "export-eee")
UUID4 = r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"
#: The published schemas v0.3.0 in the tests' shared data (None: not there).
SHARED = (Path(os.environ["CLINEVAL_DATA_DIR"]) / "every-eval-ever"
          if os.environ.get("CLINEVAL_DATA_DIR") else None)


def _plan(work: Path, *extra: str):
    return build_plan(REPO / "conf", [*OVERRIDES, *extra], results=work / "results",
                      data_root=work / "data")


def _shared() -> Path | None:
    return SHARED if SHARED is not None and (SHARED / eee_schema.AGGREGATE).is_file() else None


@pytest.fixture
def schemas() -> Path:
    """The folder of the published schemas; the test skips without it."""
    if _shared() is None:
        pytest.skip("the Every Eval Ever 0.3.0 schemas are not here: set CLINEVAL_DATA_DIR to "
                    "the shared data (its every-eval-ever/ folder)")
    return SHARED


@pytest.fixture
def no_schemas(monkeypatch):
    """No schemas anywhere: no setting, and no every-eval-ever distribution to find."""
    monkeypatch.delenv(eee_schema.ENV, raising=False)
    monkeypatch.setattr(eee_schema, "installed", lambda: None)


@pytest.fixture(scope="module")
def finished(tmp_path_factory) -> tuple[Path, Plan]:
    """The grid's steps run from their manifests, in order (the exports last): its work
    folder and its plan."""
    work = tmp_path_factory.mktemp("export")
    plan = _plan(work)
    plan.write_identities()
    cache = work / "results" / "cache"
    write_manifests(plan, cache)
    jobs = list(manifests(plan, cache))
    for step in STEPS:
        for path, manifest in jobs:
            if manifest["step"] == step:
                assert cli.main(["step", step, "--manifest", str(path)]) == 0, path
    return work, plan


@pytest.fixture
def work(finished) -> Path:
    return finished[0]


@pytest.fixture
def plan(finished) -> Plan:
    return finished[1]


def _schema(schemas: Path, name: str) -> Draft7Validator:
    return Draft7Validator(json.loads((schemas / name).read_text(encoding="utf-8")))


def _check_pair(aggregate: Path, samples: Path, schemas: Path | None = None
                ) -> tuple[dict, list[dict]]:
    """Both files linked as the datastore checks, and valid against the published schemas in
    ``schemas`` where given."""
    document = read_json(aggregate)
    lines = samples.read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines]
    if schemas is not None:
        assert not list(_schema(schemas, eee_schema.AGGREGATE).iter_errors(document))
        instance = _schema(schemas, eee_schema.INSTANCE)
        for record in records:
            assert not list(instance.iter_errors(record)), record["sample_id"]
    detail = document["detailed_evaluation_results"]
    assert detail["checksum"] == hashlib.sha256(samples.read_bytes()).hexdigest()
    assert detail["total_rows"] == len(records) > 0
    results = {r["evaluation_result_id"] for r in document["evaluation_results"]}
    for record in records:
        assert record["evaluation_id"] == document["evaluation_id"]
        assert record["model_id"] == document["model_info"]["id"]
        assert record["evaluation_result_id"] in results
    return document, records


def _exports(plan: Plan) -> dict[str, tuple[Path, Path]]:
    return {model: tuple(plan.export_outputs(model, task))
            for model, task in plan.export_groups()}


def test_every_exported_file_is_valid_against_the_published_schemas(plan, schemas):
    exports = _exports(plan)
    assert sorted(exports) == ["constant", "oracle"]
    for aggregate, samples in exports.values():
        document, records = _check_pair(aggregate, samples, schemas)
        assert len(document["evaluation_results"]) == 3 * 2  # modes x readings
        assert len(records) == 3 * 55  # one per scored row
        assert document["source_metadata"]["source_type"] == "evaluation_run"


def test_scores_and_intervals_are_the_tables(work, plan):
    stats = read_json(work / "results/tables/medcalc_table2.stats.json")["cells"]
    metrics = read_json(work / "results/tables/medcalc_table2.metrics.json")
    spread = 0
    for aggregate, _ in _exports(plan).values():
        for result in read_json(aggregate)["evaluation_results"]:
            cell = result["score_details"]["details"]["cell"]
            metric = result["metric_config"]["metric_name"]
            table = stats[cell]["metrics"][metric]
            score = result["score_details"]
            assert score["score"] == table["value"] == metrics[cell][metric]
            interval = score["uncertainty"]["confidence_interval"]
            assert (interval["lower"], interval["upper"]) == (table["low"], table["high"])
            assert score["uncertainty"]["num_samples"] == stats[cell]["n"]
            spread += interval["upper"] > interval["lower"]
    assert spread  # the constant baseline's intervals are not a point


def test_instance_scores_average_to_their_result(work, plan):
    for aggregate, samples in _exports(plan).values():
        scores = {r["evaluation_result_id"]: r["score_details"]["score"]
                  for r in read_json(aggregate)["evaluation_results"]}
        by_result: dict[str, list[float]] = {}
        for record in read_jsonl(samples):
            by_result.setdefault(record["evaluation_result_id"], []).append(
                record["evaluation"]["score"])
            assert record["evaluation"]["is_correct"] == (record["evaluation"]["score"] == 1.0)
        assert by_result  # each row's official accuracy, the benchmark's first
        for result, values in by_result.items():
            assert fmean(values) == pytest.approx(scores[result])


def test_records_hold_the_prompt_reference_output_and_copy_flag(work, plan):
    _, samples = _exports(plan)["constant"]
    cell = work / "results/{}/constant/medcalc/cot.jsonl"
    scores = {r["id"]: r for r in read_jsonl(Path(str(cell).format("scores")))}
    outputs = {g["id"]: g["output"] for g in read_jsonl(Path(str(cell).format("generations")))}
    cot = [r for r in read_jsonl(samples) if r["evaluation_name"] == "medcalc.cot"]
    assert len(cot) == len(scores) == 55
    first = cot[0]
    assert first["input"]["reference"] == [scores[first["sample_id"]]["ground_truth"]]
    assert "Patient note" in first["input"]["raw"]
    assert first["output"]["raw"] == [outputs[first["sample_id"]]]
    assert json.loads(first["metadata"]["copied"]) == scores[first["sample_id"]]["copied"]
    verdicts = get_benchmark("medcalc").reading(scores[first["sample_id"]], {}).judgements
    assert {k: v for k, v in first["metadata"].items() if k.startswith("verdict.")} == {
        f"verdict.{j.name}": j.verdict for j in verdicts}
    assert first["metadata"]["answered_reading"] == "official"
    assert first["metadata"]["answered"] == (
        "false" if verdicts[0].verdict == "unanswered" else "true")
    assert first["metadata"]["finish_reason"] == "baseline"
    assert {a["extraction_method"] for a in first["answer_attribution"]} == {
        "medcalc official extraction", "medcalc robust extraction"}


def _cells(plan: Plan, model: str):
    key = f"export-eee/{model}/medcalc"
    sha, ident = plan.identities[key]["sha"], plan.identities[key]["identity"]
    files = cell_files(plan, model, "medcalc")
    return sha, ident, [read_cell(ident["task"], e, f)
                        for e, f in zip(ident["cells"], files, strict=True)]


def test_credentialed_cells_keep_no_text_unless_asked(work, plan):
    sha, ident, cells = _cells(plan, "constant")
    notes = [e["note"] for e in read_jsonl(work / "data/derived/medcalc/examples.jsonl")]
    credentialed = {**ident, "credentialed": True}
    document, records = eee.export(credentialed, sha, cells, "0")
    text = json.dumps([document, records])
    assert not any(note[:80] in text for note in notes)
    for record in records:
        assert record["input"] == {"raw": "", "reference": []}
        assert record["output"] == {"raw": []} and record["answer_attribution"] == []
        assert "sample_hash" not in record and record["metadata"]["texts"] == eee.WITHHELD
    assert document["source_metadata"]["additional_details"]["texts"] == eee.WITHHELD
    asked = {**credentialed, "settings": {**ident["settings"], "credentialed_text": True}}
    _, shown = eee.export(asked, sha, cells, "0")
    assert shown[0]["input"]["raw"] and shown[0]["output"]["raw"]


def test_credentialed_records_are_valid_too(plan, schemas):
    sha, ident, cells = _cells(plan, "constant")
    document, records = eee.export({**ident, "credentialed": True}, sha, cells, "0")
    eee_schema.check_aggregate(schemas, document, "aggregate")
    eee_schema.check_instances(schemas, records, "records")
    assert records and records[0]["input"] == {"raw": "", "reference": []}


def test_the_command_writes_the_datastore_layout(work, plan, tmp_path, capsys):
    """The layout, and the documents' validity where the published schemas are here."""
    out, schemas = tmp_path / "eee", _shared()
    args = ["export", "eee", *OVERRIDES, "--conf", str(REPO / "conf"), "--out", str(out),
            "--results", str(work / "results"), "--data", str(work / "data"),
            *(["--schemas", str(schemas)] if schemas else [])]
    assert cli.main(args) == 0
    assert "export.eee.organization is not set" in capsys.readouterr().err
    found = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    assert len(found) == 4
    for path in found:
        assert re.fullmatch(rf"data/medcalc/baseline/(oracle|constant)/{UUID4}(_samples)?"
                            r"\.jsonl?", path), path
    for model, (aggregate, samples) in _exports(plan).items():
        [written] = out.glob(f"data/medcalc/baseline/{model}/*[0-9a-f].json")
        document, _ = _check_pair(written, written.with_name(f"{written.stem}_samples.jsonl"),
                                  schemas)
        assert document["detailed_evaluation_results"]["file_path"] == (
            f"data/medcalc/baseline/{model}/{written.stem}_samples.jsonl")
        step = read_json(aggregate)
        assert {**document, "retrieved_timestamp": None} == {**step, "retrieved_timestamp": None}
        assert written.with_name(f"{written.stem}_samples.jsonl").read_bytes() == (
            samples.read_bytes())


def _command(work: Path, out: Path, *extra: str) -> list[str]:
    return ["export", "eee", *OVERRIDES, "--conf", str(REPO / "conf"), "--out", str(out),
            "--results", str(work / "results"), "--data", str(work / "data"), *extra]


def test_without_validate_the_command_needs_no_schemas(work, tmp_path, no_schemas, capsys):
    out = tmp_path / "eee"
    assert cli.main(_command(work, out)) == 0
    assert len(list(out.rglob("*.json"))) == 2
    assert "schemas" not in capsys.readouterr().err


def test_validate_without_schemas_says_in_one_line_how_to_get_them(work, tmp_path, no_schemas,
                                                                   capsys):
    out = tmp_path / "eee"
    assert cli.main(_command(work, out, "--validate")) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "Traceback" not in err
    assert "Every Eval Ever 0.3.0 JSON schemas" in err
    for how in ("every-eval-ever==0.3.0", "--schemas", eee_schema.ENV, "eval.schema.json"):
        assert how in err, how
    assert not out.exists()  # stopped before writing anything


def test_validate_reads_the_setting_then_an_installed_distribution(schemas, tmp_path,
                                                                   monkeypatch):
    """``CLINEVAL_EEE_SCHEMAS`` names a folder; without it, an installed every-eval-ever's
    ``every_eval_ever/schemas/`` (where its wheel holds them) is found through its metadata."""
    monkeypatch.setenv(eee_schema.ENV, str(schemas))
    assert eee_schema.required() == schemas
    monkeypatch.delenv(eee_schema.ENV)
    site = tmp_path / "site"
    packaged = site / "every_eval_ever" / "schemas"
    packaged.mkdir(parents=True)
    for name in (eee_schema.AGGREGATE, eee_schema.INSTANCE):
        shutil.copyfile(schemas / name, packaged / name)
    info = site / "every_eval_ever-0.3.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.4\nName: every-eval-ever\n"
                                   "Version: 0.3.0\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(site))
    assert eee_schema.installed() == packaged
    assert eee_schema.required() == packaged
    assert eee_schema.required(schemas) == schemas  # --schemas first


def test_the_workflow_step_validates_when_it_finds_the_schemas(work, plan, schemas, tmp_path,
                                                               monkeypatch, capsys):
    """With ``CLINEVAL_EEE_SCHEMAS`` set, the export-eee step checks its documents: a schema
    that asks for a field no export has stops it with the file and the field."""
    for name in (eee_schema.AGGREGATE, eee_schema.INSTANCE):
        shutil.copyfile(schemas / name, tmp_path / name)
    aggregate = json.loads((schemas / eee_schema.AGGREGATE).read_text(encoding="utf-8"))
    aggregate["required"] = [*aggregate["required"], "no_such_field"]
    (tmp_path / eee_schema.AGGREGATE).write_text(json.dumps(aggregate), encoding="utf-8")
    monkeypatch.setenv(eee_schema.ENV, str(tmp_path))
    [path] = [p for p, m in manifests(plan, work / "results" / "cache")
              if m["step"] == "export-eee" and "oracle" in str(p)]
    before = plan.export_outputs("oracle", "medcalc")[0].read_bytes()
    assert cli.main(["step", "export-eee", "--manifest", str(path)]) != 0
    assert "'no_such_field' is a required property" in capsys.readouterr().err
    assert plan.export_outputs("oracle", "medcalc")[0].read_bytes() == before  # nothing written


def test_a_schema_folder_of_another_version_or_without_the_files_is_refused(schemas, tmp_path):
    with pytest.raises(ConfigError, match=r"--schemas=.*: no eval\.schema\.json or "
                                          r"instance_level_eval\.schema\.json there"):
        eee_schema.required(tmp_path)
    for name in (eee_schema.AGGREGATE, eee_schema.INSTANCE):
        schema = json.loads((schemas / name).read_text(encoding="utf-8"))
        (tmp_path / name).write_text(json.dumps({**schema, "version": "0.4.0"}), "utf-8")
    with pytest.raises(ConfigError, match=r"schema version '0\.4\.0'; clineval writes version "
                                          r"0\.3\.0"):
        eee_schema.check_aggregate(eee_schema.required(tmp_path), {}, "aggregate.json")


def test_the_command_names_cells_not_scored_and_writes_the_others(work, tmp_path, capsys):
    out = tmp_path / "eee"
    args = ["export", "eee", *OVERRIDES, "models.constant.revision=2", "--conf",
            str(REPO / "conf"), "--out", str(out), "--results", str(work / "results"),
            "--data", str(work / "data")]
    assert cli.main(args) == 1
    assert "3 cell(s) not scored" in capsys.readouterr().err
    assert [p.parent.name for p in out.rglob("*.json")] == ["oracle"]


def test_the_command_refuses_a_model_the_grid_does_not_run(work, tmp_path, capsys):
    args = ["export", "eee", *OVERRIDES, "--model", "gpt9", "--conf", str(REPO / "conf"),
            "--out", str(tmp_path), "--results", str(work / "results"),
            "--data", str(work / "data")]
    assert cli.main(args) == 2
    assert "--model gpt9: no cell of the grid; its models: constant, oracle" in (
        capsys.readouterr().err)


def test_an_export_identity_follows_its_own_cells_only(work, plan):
    base = plan.identities
    other = _plan(work, "models.constant.revision=2").identities
    layout = _plan(work, "tables.medcalc_table2.decimals=3").identities
    key = "export-eee/{}/medcalc"
    assert other[key.format("oracle")]["sha"] == base[key.format("oracle")]["sha"]
    assert other[key.format("constant")]["sha"] != base[key.format("constant")]["sha"]
    assert all(layout[key.format(m)]["sha"] == base[key.format(m)]["sha"]
               for m in ("oracle", "constant"))


def test_a_record_the_schema_refuses_names_the_file_line_and_field(plan, schemas):
    _, samples = _exports(plan)["oracle"]
    good = read_jsonl(samples)[0]
    bad = {**good, "evaluation": {**good["evaluation"], "score": "high"}}
    with pytest.raises(DataError, match=r"records.jsonl, line 2, field 'evaluation.score'"):
        eee_schema.check_instances(schemas, [good, bad], "records.jsonl")


def test_the_relationship_choices_are_the_schemas(schemas):
    """The export settings' choices of ``evaluator_relationship`` are the schema's enum."""
    aggregate = json.loads((schemas / eee_schema.AGGREGATE).read_text(encoding="utf-8"))
    source = aggregate["properties"]["source_metadata"]["properties"]
    assert list(eee_schema.RELATIONSHIPS) == source["evaluator_relationship"]["enum"]
    assert aggregate["version"] == eee_schema.VERSION


@pytest.mark.slow
def test_the_export_target_rebuilds_only_when_its_cells_change(tmp_path):
    overrides = " ".join(OVERRIDES)
    for target in ("all_tables", "all_exports"):
        done = snakemake(tmp_path, target, overrides=overrides)
        assert done.returncode == 0, done.stderr[-3000:]
    assert planned_jobs(tmp_path, overrides) == {}
    assert planned_jobs(tmp_path, overrides, target="all_exports") == {}
    changed = overrides + " models.constant.revision=2"
    jobs = planned_jobs(tmp_path, changed, target="all_exports")
    assert jobs["export_eee"] == 1 and "all_exports" in jobs
    dry = snakemake(tmp_path, "all_exports", "-n", overrides=changed).stdout
    assert re.findall(r"output: results/export/eee/(\w+)/medcalc\.json", dry) == ["constant"]
