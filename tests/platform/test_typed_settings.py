"""Typed settings (benchmarks/base/settings.py): a benchmark reads its settings as an object its
schema builds, each default written once, in the schema; never as a mapping with the default
written again (``data.get("seed", 0)``)."""

from __future__ import annotations

import ast
import dataclasses
import importlib
import typing
from dataclasses import FrozenInstanceError
from pathlib import Path

import pytest

from clineval.benchmarks import names
from clineval.benchmarks.base.settings import read, read_own
from clineval.errors import ConfigError

REPO = Path(__file__).resolve().parents[2]
BENCHMARKS = REPO / "src" / "clineval" / "benchmarks"
TEMPLATE = REPO / "src" / "clineval" / "skeleton" / "template" / "clineval_NAME"
#: Reads of a key a schema also has, from something that is not settings: (file, key) -> why.
NOT_SETTINGS = {
    ("meddisk/tables.py", "encoder"): "a cell's summary (a record), not the task's settings",
    ("meddisk/tables.py", "extractor"): "a cell's summary (a record), not the task's settings",
    ("clibench/prompts.py", "exemplars"): "a mode's count (the grid's, required there; none "
                                          "where a task is scored without its mode)",
}


def _schemas_below(tp: typing.Any, found: dict[type, None]) -> None:
    """Every dataclass ``tp`` is or holds (in an Optional, a list or a mapping)."""
    if dataclasses.is_dataclass(tp) and isinstance(tp, type):
        if tp in found:
            return
        found[tp] = None
        for hint in typing.get_type_hints(tp).values():
            _schemas_below(hint, found)
    for arg in typing.get_args(tp):
        _schemas_below(arg, found)


def _keys(module: typing.Any) -> set[str]:
    """The keys of every schema a benchmark's settings module declares."""
    found: dict[type, None] = {}
    for value in [*vars(module).values(), *module.TABLES.values()]:
        _schemas_below(value, found)
    return {f.name for schema in found for f in dataclasses.fields(schema)}


def _template_keys() -> set[str]:
    """The skeleton's settings keys: its schema classes' annotated fields."""
    tree = ast.parse((TEMPLATE / "settings.py.tmpl").read_text(encoding="utf-8"))
    return {node.target.id for cls in ast.walk(tree) if isinstance(cls, ast.ClassDef)
            for node in cls.body
            if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)}


def _literal(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return node.value is not None
    if isinstance(node, ast.UnaryOp):
        return _literal(node.operand)
    return isinstance(node, ast.List | ast.Tuple | ast.Dict | ast.Set)


def _literal_gets(text: str, keys: set[str]) -> list[tuple[int, str]]:
    """``x.get("key", <literal>)`` calls on one of ``keys``: (line, key)."""
    return [(node.lineno, node.args[0].value) for node in ast.walk(ast.parse(text))
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr == "get" and len(node.args) == 2
            and isinstance(node.args[0], ast.Constant) and node.args[0].value in keys
            and _literal(node.args[1])]


def _sources() -> list[tuple[str, str, set[str]]]:
    """(where, text, schema keys) of every module of every benchmark package and the
    skeleton's templates."""
    found = []
    for name in names():
        folder = BENCHMARKS / name
        if not folder.is_dir():
            continue
        keys = _keys(importlib.import_module(f"clineval.benchmarks.{name}.settings"))
        found += [(str(p.relative_to(BENCHMARKS)), p.read_text(encoding="utf-8"), keys)
                  for p in sorted(folder.rglob("*.py"))]
    keys = _template_keys()
    for path in sorted(TEMPLATE.glob("*.py.tmpl")):
        text = path.read_text(encoding="utf-8")
        for placeholder, word in (("{{Name}}", "Name"), ("{{name}}", "name"),
                                  ("{{title}}", "title")):
            text = text.replace(placeholder, word)
        found.append((f"skeleton/{path.name}", text, keys))
    return found


def test_no_benchmark_writes_a_schema_default_again() -> None:
    sources = _sources()
    assert {where.split("/")[0] for where, _, _ in sources} >= {
        "clibench", "clue", "mcqa", "medcalc", "meddisk", "medeval", "skeleton"}
    found = [f"{where}:{line}: .get({key!r}, ...)" for where, text, keys in sources
             for line, key in _literal_gets(text, keys)
             if (where, key) not in NOT_SETTINGS]
    assert found == []


def test_the_scan_finds_a_default_written_again() -> None:
    text = 'def f(task):\n    demo = task["data"]["demo"]\n    return demo.get("n", 16)\n'
    assert _literal_gets(text, {"n", "seed"}) == [(3, "n")]
    assert _literal_gets('x.get("n")\nx.get("n", None)\nx.get("other", 1)\n', {"n"}) == []


@dataclasses.dataclass
class Demo:
    seed: int = 0
    n: int = dataclasses.field(default=16, metadata={"ge": 2})
    labels: list[str] = dataclasses.field(default_factory=lambda: ["a"])


@dataclasses.dataclass
class Data:
    source: str = "demo"
    demo: Demo | None = None
    path: str | None = None
    share: float = 0.5
    on: bool = False


def test_the_typed_settings_hold_the_schema_defaults() -> None:
    data = read(Data, None, "data")
    assert (data.source, data.path, data.share, data.on) == ("demo", None, 0.5, False)
    assert (data.demo.seed, data.demo.n, data.demo.labels) == (0, 16, ("a",))
    given = read(Data, {"demo": {"n": "5"}, "share": 1, "on": "yes", "path": None}, "data")
    assert given.demo.n == 5 and isinstance(given.demo.n, int) and given.demo.seed == 0
    assert given.share == 1.0 and isinstance(given.share, float) and given.on is True
    assert isinstance(given, Data) and isinstance(given.demo, Demo)


def test_the_typed_settings_are_read_only() -> None:
    data = read(Data, {"demo": {"n": 3}}, "data")
    with pytest.raises(FrozenInstanceError):
        data.demo.n = 4  # type: ignore[misc]
    with pytest.raises(FrozenInstanceError):
        del data.source
    assert Data().source == "demo"  # the schema's own instances stay as they were
    Data().source = "official"


@pytest.mark.parametrize(("section", "message"), [
    ({"demo": {"m": 3}}, "data.demo.m: unknown key; valid keys: labels, n, seed"),
    ({"demo": {"n": "many"}}, "data.demo.n='many': wrong type; expected an integer"),
    ({"demo": {"n": 1}}, "data.demo.n=1: out of range; valid values: >= 2"),
    ({"share": [1]}, "data.share=[1]: wrong type; expected a number"),
])
def test_a_setting_the_schema_refuses_is_one_config_error_naming_it(section, message) -> None:
    with pytest.raises(ConfigError) as err:
        read(Data, section, "data")
    assert str(err.value) == message


def test_a_benchmark_reads_its_own_keys_of_a_task() -> None:
    from clineval.benchmarks.mcqa.benchmark import BENCHMARK
    from clineval.benchmarks.mcqa.settings import TASK

    task = {"benchmark": "mcqa", "display_name": "MCQA", "modes": ["zero_shot"],
            "data": {"source": "demo", "demo": {"n": 5}}}
    typed = BENCHMARK.settings(task)
    assert (typed.data.demo.n, typed.data.demo.seed, typed.exemplars.seed) == (5, 0, 0)
    assert read_own(TASK, task, "task") == typed
    with pytest.raises(ConfigError, match=r"^task\.data\.demo\.n=1: out of range"):
        BENCHMARK.settings({**task, "data": {"demo": {"n": 1}}})


def test_a_steps_task_reads_the_sections_it_holds() -> None:
    from clineval.benchmarks.clibench.benchmark import BENCHMARK as CLIBENCH
    from clineval.benchmarks.medcalc.benchmark import BENCHMARK as MEDCALC

    # a scoring step's task holds no data section: a required one reads as None, one whose
    # every key has a default as those defaults
    assert CLIBENCH.settings({"scoring": {"coarse": "self"}}).data is None
    typed = MEDCALC.settings({"scoring": {"labels": "recomputed"}})
    assert (typed.data.version, typed.data.demo.per_calculator) == ("1.0", 3)
    assert (typed.scoring.labels, typed.scoring.missing_labels) == ("recomputed", "drop")
    assert typed.scoring.extractions == ("official", "robust")
    with pytest.raises(ConfigError, match=r"^task\.scoring\.labels='x': unknown value"):
        MEDCALC.settings({"scoring": {"labels": "x"}})
