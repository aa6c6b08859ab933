"""Code fingerprints (docs/workflow.md, Code fingerprints): what a result's fingerprint covers,
the plan's warning about results whose code changed while their versions did not, the
``grid.code_changes: rerun`` setting and the audit's notes."""

from __future__ import annotations

import ast
import importlib
import json
import logging
import uuid
from pathlib import Path

import pytest

import clineval
from clineval.cli import main
from clineval.errors import ConfigError
from clineval.provenance.code import Fingerprint, files, fingerprint, module_file, scan
from clineval.workflow.commands.audit import audit_table, report
from clineval.workflow.plan import code_changes
from clineval.workflow.plan.build import build_plan
from clineval.workflow.plan.code_changes import (
    Finding,
    benchmark_code,
    code_of,
    lines,
    modules_file,
    record_code,
    sidecar,
    stale,
    warning,
)
from clineval.workflow.plan.layout import Plan
from clineval.workflow.run.plan_cache import watched_files

REPO = Path(__file__).resolve().parents[2]
CONF = REPO / "conf"
SMALL = ("grid.select.models=[oracle,constant] grid.select.tasks=[medcalc] "
         "grid.select.modes=[zero_shot,cot] grid.select.tables=[medcalc_table2]")
CELL = "oracle/medcalc/cot"
SCORING = "clineval.benchmarks.medcalc.scoring"


def _write(root: Path, files_: dict[str, str]) -> None:
    for rel, text in files_.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


@pytest.fixture
def outside(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, str, Path]:
    """A research group's package on the path from a folder outside the repository: its
    benchmark package and its top-level package, whose shared modules the benchmark imports:
    (benchmark package, top-level package, folder)."""
    lab = f"lab_{uuid.uuid4().hex[:8]}"
    plug = f"{lab}.pubmedqa"
    _write(tmp_path, {
        f"{lab}/__init__.py": "",
        f"{lab}/common.py": "def double(x):\n    return 2 * x\n",
        f"{lab}/other.py": "UNUSED = 1\n",
        f"{lab}/pubmedqa/__init__.py": "",
        f"{lab}/pubmedqa/scoring.py": (f"from {lab}.common import double\n"
                                       "import numpy as np\n"
                                       "from clineval.metrics import aggregate\n"
                                       "from . import (  # the SDK and its own modules\n"
                                       "    extract,\n)\n"),
        f"{lab}/pubmedqa/extract.py": "import re\n",
        f"{lab}/pubmedqa/prompts.py": "TEMPLATE = '{question}'\n",
        f"{lab}/pubmedqa/benchmark.py": "class Bench:\n    code_modules = {}\n",
    })
    monkeypatch.syspath_prepend(str(tmp_path))
    return plug, lab, tmp_path


def test_a_package_outside_the_repository_is_fingerprinted_with_what_it_imports(outside):
    plug, lab, folder = outside
    follow = [lab, "clineval.metrics"]
    code = fingerprint([plug], follow)
    assert {plug, f"{plug}.scoring", f"{plug}.extract", f"{plug}.prompts", f"{plug}.benchmark",
            f"{lab}.common", "clineval.metrics.aggregate"} <= set(code.modules)
    assert f"{lab}.other" not in code.modules  # not imported
    assert not any(m.startswith("numpy") for m in code.modules)  # not followed
    assert not any(m.startswith("clineval.") and not m.startswith("clineval.metrics")
                   for m in code.modules)
    assert all(path.is_relative_to(folder) for path in files(code)
               if not path.is_relative_to(Path(clineval.__file__).parent))

    (folder / lab / "other.py").write_text("UNUSED = 22\n", encoding="utf-8")
    assert fingerprint([plug], follow).sha == code.sha
    (folder / lab / "common.py").write_text("def double(x):\n    return x + x\n",
                                            encoding="utf-8")
    changed = fingerprint([plug], follow)
    assert changed.sha != code.sha and changed.changed(code.modules) == [f"{lab}.common"]
    (folder / lab / "pubmedqa/prompts.py").write_text("TEMPLATE = 'Q: {question}'\n",
                                                      encoding="utf-8")
    again = fingerprint([plug], follow)
    assert again.changed(code.modules) == [f"{lab}.common", f"{plug}.prompts"]


@pytest.fixture
def plugin_benchmark(outside, monkeypatch: pytest.MonkeyPatch):
    """The outside package's benchmark as the registry would return it."""
    plug, _, _ = outside
    bench = importlib.import_module(f"{plug}.benchmark").Bench()
    monkeypatch.setattr(code_changes, "get_benchmark", lambda name: bench)
    benchmark_code.cache_clear()
    yield bench
    benchmark_code.cache_clear()


def test_a_benchmarks_code_is_its_package_or_the_modules_it_declares(outside, plugin_benchmark):
    plug, lab, _ = outside
    whole = benchmark_code("pubmedqa")
    assert {f"{plug}.prompts", f"{plug}.scoring", f"{lab}.common",
            "clineval.metrics.aggregate"} <= set(whole.modules)
    assert benchmark_code("pubmedqa", "scoring") == whole  # nothing declared: the package
    plugin_benchmark.code_modules = {"scoring": ("scoring",)}
    benchmark_code.cache_clear()
    declared = benchmark_code("pubmedqa", "scoring")
    assert {f"{plug}.scoring", f"{plug}.extract", f"{lab}.common"} <= set(declared.modules)
    assert f"{plug}.prompts" not in declared.modules
    assert benchmark_code("pubmedqa", "data") == whole  # a part not declared: the package
    plugin_benchmark.code_modules = {"scoring": ("scorng",)}
    benchmark_code.cache_clear()
    with pytest.raises(ConfigError, match=r"code_modules.scoring names scorng.*its modules: "
                                          r".*scoring"):
        benchmark_code("pubmedqa", "scoring")
    plugin_benchmark.code_modules = {"scores": ("scoring",)}
    benchmark_code.cache_clear()
    with pytest.raises(ConfigError, match=r"code_modules has scores; its keys are the parts "
                                          r"its versions cover: data, scoring"):
        benchmark_code("pubmedqa")


def test_a_builtin_benchmarks_code_stops_at_the_sdk():
    code = benchmark_code("medcalc")
    assert {SCORING, "clineval.benchmarks.medcalc.calculators", "clineval.metrics.aggregate",
            "clineval.benchmarks.base.standard", "clineval.tables.render"} <= set(code.modules)
    assert not any(m.startswith(("clineval.config", "clineval.workflow", "clineval.inference",
                                 "clineval.benchmarks.clue")) for m in code.modules)


def _ast_imports(name: str, path: Path) -> set[str]:
    """The modules an import statement of the file names, by the parser (the rule of
    :func:`clineval.provenance.code.scan`)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            found |= {f"{base}.{a.name}" if module_file(f"{base}.{a.name}") else base
                      for a in node.names}
    return found


def test_the_scan_finds_every_import_the_parser_finds():
    root = Path(clineval.__file__).parent
    missed = {}
    for path in sorted(root.rglob("*.py")):
        parts = ("clineval", *path.relative_to(root).with_suffix("").parts)
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        scanned = scan(name)
        assert scanned is not None, name
        lost = {m for m in _ast_imports(name, path) if m.startswith("clineval")} - set(
            scanned[1])
        if lost:
            missed[name] = sorted(lost)
    assert not missed


@pytest.fixture
def plan(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Plan:
    """The small MedCalc-Bench grid, planned in an empty working directory."""
    monkeypatch.chdir(tmp_path)
    return build_plan(CONF, SMALL)


def record_other_code(plan: Plan, key: str, *changed: str) -> None:
    """Record, for the artifact ``key`` built for its identity now, code in which the modules
    ``changed`` differ from the code now (what a step of an earlier checkout wrote)."""
    now = code_of(plan.identities[key]["identity"])
    assert now is not None
    before = Fingerprint({**now.modules, **dict.fromkeys(changed, "0" * 64)})
    path = modules_file(plan.results / "identity", before.sha)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"fingerprint": before.sha, "modules": dict(before.modules)}))
    sidecar(plan.identity_file(key)).parent.mkdir(parents=True, exist_ok=True)
    sidecar(plan.identity_file(key)).write_text(json.dumps({"code": before.sha}))


def record_current_code(plan: Plan) -> None:
    """What the steps write after building every artifact of the plan with the code now."""
    for key in code_changes.fingerprinted(plan):
        record_code(plan.identity_file(key), plan.identities[key]["identity"])


def test_results_of_the_code_now_give_no_warning(plan, caplog):
    record_current_code(plan)
    keys = code_changes.fingerprinted(plan)
    assert {plan.identities[k]["identity"]["kind"] for k in keys} == {
        "data", "scoring", "table", "figure"}
    assert all(code_changes.recorded(plan, k) for k in keys)
    assert stale(plan) == []
    with caplog.at_level(logging.WARNING, logger="clineval"):
        code_changes.warn(plan)
    assert not caplog.records


def test_a_score_of_other_code_with_the_same_version_warns(plan, caplog):
    record_current_code(plan)
    record_other_code(plan, f"{CELL}/scoring", SCORING)
    assert stale(plan) == [Finding(f"{CELL}/scoring", "scoring", (SCORING,))]
    with caplog.at_level(logging.WARNING, logger="clineval"):
        code_changes.warn(plan)
    [message] = [r.getMessage() for r in caplog.records]
    assert f"scores (1: {CELL}): changed {SCORING}" in message
    assert "scoring_version" in message and "grid.code_changes=rerun" in message


def test_the_warning_groups_results_by_kind_and_changed_modules(plan):
    for key in code_changes.fingerprinted(plan):
        if key.endswith("/scoring"):
            record_other_code(plan, key, SCORING, "clineval.metrics.aggregate")
    record_other_code(plan, "tables/medcalc_table2", "clineval.tables.render")
    record_other_code(plan, "data/medcalc", "clineval.benchmarks.medcalc.loader")
    text = warning(stale(plan))
    assert text is not None
    items = [line for line in text.splitlines() if line.startswith("  - ")]
    assert items == [
        "  - derived data (1: medcalc): changed clineval.benchmarks.medcalc.loader",
        "  - scores (4: oracle/medcalc/zero_shot, constant/medcalc/zero_shot, "
        "oracle/medcalc/cot, constant/medcalc/cot): changed clineval.benchmarks.medcalc.scoring, "
        "clineval.metrics.aggregate",
        "  - tables (1: medcalc_table2): changed clineval.tables.render",
    ]


def test_many_results_and_modules_are_counted_not_listed():
    findings = [Finding(f"m{i}/t/zero_shot/scoring", "scoring",
                        tuple(f"pkg.mod{j}" for j in range(7))) for i in range(12)]
    [line] = lines(findings)
    assert line == ("scores (12: m0/t/zero_shot, m1/t/zero_shot, m2/t/zero_shot, m3/t/zero_shot, "
                    "m4/t/zero_shot and 7 more): changed pkg.mod0, pkg.mod1, pkg.mod2, pkg.mod3, "
                    "pkg.mod4 and 2 more")


def test_clineval_plan_prints_the_warning(plan, caplog, capsys):
    record_other_code(plan, f"{CELL}/scoring", SCORING)
    with caplog.at_level(logging.WARNING, logger="clineval"):
        assert main(["plan", "--conf", str(CONF), *SMALL.split()]) == 0
    assert any(f"changed {SCORING}" in r.getMessage() for r in caplog.records)
    assert CELL in capsys.readouterr().out


def test_rerun_puts_the_code_into_the_identities_that_rescore(plan, monkeypatch):
    rerun = build_plan(CONF, f"{SMALL} ++grid.code_changes=rerun")
    for key, ident in plan.identities.items():
        assert "code" not in ident["identity"]
        kind = ident["identity"]["kind"]
        if kind in ("scoring", "table", "figure"):
            code = code_of(ident["identity"])
            assert code is not None
            upstream = ("tables",)  # a figure's tables' identities hold their code in turn
            assert {k: v for k, v in rerun.identities[key]["identity"].items()
                    if k not in upstream} == {k: v for k, v in ident["identity"].items()
                                              if k not in upstream} | {"code": code.sha}, key
        elif kind in ("data", "requests", "generation"):
            assert rerun.identities[key] == ident, key  # no answer is generated again
    other = Fingerprint({SCORING: "0" * 64})
    monkeypatch.setattr(code_changes, "code_of", lambda ident: other)
    changed = build_plan(CONF, f"{SMALL} ++grid.code_changes=rerun")
    key = f"{CELL}/scoring"
    assert changed.identities[key]["identity"]["code"] == other.sha
    assert changed.identities[key]["sha"] != rerun.identities[key]["sha"]


def test_the_setting_names_its_values(plan):
    with pytest.raises(ConfigError, match=r"grid.code_changes='sometimes'.*valid values: "
                                          r"rerun, warn"):
        build_plan(CONF, f"{SMALL} ++grid.code_changes=sometimes")


def test_under_rerun_the_plan_cache_watches_the_code(plan):
    scoring = str(REPO / "src/clineval/benchmarks/medcalc/scoring.py")
    assert scoring not in (watched_files(plan) or {})
    rerun = build_plan(CONF, f"{SMALL} ++grid.code_changes=rerun")
    assert scoring in (watched_files(rerun) or {})


def test_the_audit_notes_results_of_other_code(plan, capsys):
    record_current_code(plan)
    record_other_code(plan, f"{CELL}/scoring", SCORING)
    result = audit_table(plan, "medcalc_table2")
    assert result.code == [Finding(f"{CELL}/scoring", "scoring", (SCORING,))]
    report([result], as_json=False)
    assert f"code changed: scores (1: {CELL}): changed {SCORING}" in capsys.readouterr().out
    report([result], as_json=True)
    [entry] = json.loads(capsys.readouterr().out)
    assert entry["code_changed"] == [{"result": f"{CELL}/scoring", "modules": [SCORING]}]


def test_the_audit_says_how_many_results_have_no_code_record(plan):
    result = audit_table(plan, "medcalc_table2")
    assert result.code == []
    assert any(note.startswith("6 of its 6 results have no record of their code")
               for note in result.notes)
