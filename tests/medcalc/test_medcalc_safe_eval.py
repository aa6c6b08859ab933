"""The whitelisting evaluator reproduces Python's eval on what model answers can contain."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clineval.benchmarks.medcalc.safe_eval import (
    EVAL_NAMES,
    MAX_INT_DIGITS,
    MAX_SEQ_LEN,
    NUMPY,
    ResultTooLarge,
    UnsupportedExpression,
    safe_eval,
)


@pytest.mark.parametrize(
    ("source", "value"),
    [("00", 0), ("0.5", 0.5), ("00.5", 0.5), ("1e3", 1000.0), ("-0.0", -0.0), (" \t7", 7),
     ("1e400", math.inf), ("(3, 4)", (3, 4)), ("True", True), ("2 ** -1", 0.5),
     ("25 % 2 == 1", True), ("round(2.5)", 2), ("round(25.2345, 2)", 25.23),
     ("min(3, 1.5)", 1.5), ("int('12')", 12), ("math.floor(2.7)", 2), ("np.floor(2)", 2.0),
     ("abs(-3)", 3), ("pow(2, 10)", 1024), ("1 if 0 else 2", 2), ("(1, 2)[1]", 2)],
)
def test_values(source: str, value: object) -> None:
    result = safe_eval(source, EVAL_NAMES)
    assert result == value and type(result) is type(value)


@pytest.mark.parametrize("source", ["05", "-05", "\u0663", "1 +", "\n 1", "(1"])
def test_syntax_errors_like_eval(source: str) -> None:
    with pytest.raises(SyntaxError):
        safe_eval(source, EVAL_NAMES)


@pytest.mark.parametrize(
    "source",
    ["__import__('os')", "().__class__", "(1).real", "open('x')", "max(1, 2)", "lambda: 1",
     "[x for x in (1,)]", "'%s' % 5", "f'{1}'", "math.factorial(5)", "np.mean([1, 2])",
     "np.pow(2, 3)", "x", "{1: 2}", "(*(1,),)"],
)
def test_outside_whitelist(source: str) -> None:
    with pytest.raises(UnsupportedExpression):
        safe_eval(source, EVAL_NAMES)


@pytest.mark.parametrize("source", ["10**10**10", "pow(10, 10**9)", "'a' * 10**9",
                                    "10**60000 * 10**60000"])
def test_huge_results_refused(source: str) -> None:
    with pytest.raises(ResultTooLarge):
        safe_eval(source, EVAL_NAMES)


def test_no_names_without_mapping() -> None:
    with pytest.raises(UnsupportedExpression):
        safe_eval("round(1.5)")


_ATOMS = st.one_of(
    st.integers(0, 999).map(str),
    st.floats(0, 1000, allow_nan=False).map(lambda x: f"{x:.3f}"),
    st.sampled_from(["math.pi", "math.e", "00", "0.0"]),
)


def _expr(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    binary = st.tuples(children, st.sampled_from(["+", "-", "*", "/", "//", "%", "<", "==", ">="]),
                       children).map(lambda t: f"({t[0]} {t[1]} {t[2]})")
    power = st.tuples(children, st.integers(-3, 3)).map(lambda t: f"({t[0]}) ** {t[1]}")
    call = st.tuples(st.sampled_from(["abs", "round", "int", "float", "math.sqrt", "math.floor",
                                      "math.ceil", "math.fabs", "math.exp", "-"]),
                     children).map(lambda t: f"{t[0]}({t[1]})")
    two = st.tuples(st.sampled_from(["min", "round", "pow"]), children,
                    st.integers(0, 3)).map(lambda t: f"{t[0]}({t[1]}, {t[2]})")
    return st.one_of(binary, power, call, two, children.map(lambda c: f"({c},)"))


EXPRESSIONS = st.recursive(_ATOMS, _expr, max_leaves=8)


def _outcome(fn):  # type: ignore[no-untyped-def]
    try:
        return "value", repr(fn())
    except Exception as exc:  # compare failure kinds, not messages
        return "error", type(exc).__name__


@settings(max_examples=1000, deadline=None)
@given(source=EXPRESSIONS)
def test_matches_python_eval_on_generated_arithmetic(source: str) -> None:
    # The oracle evaluates only strings produced by this test's own grammar, never model text.
    names = {"min": min, "pow": pow, "round": round, "abs": abs, "int": int, "float": float,
             "math": math}
    expected = _outcome(lambda: eval(source, {"__builtins__": None}, names))
    got = _outcome(lambda: safe_eval(source, EVAL_NAMES))
    if got == ("error", "ResultTooLarge"):  # a deliberate size limit, not a disagreement
        assert expected[0] == "error" or len(expected[1]) > min(MAX_SEQ_LEN, MAX_INT_DIGITS)
        return
    assert got == expected


# Expected strings printed by NumPy 1.26.4, the version the official requirements.txt pins.
@pytest.mark.parametrize(
    ("func", "args", "printed"),
    [
        ("sqrt", (2.0,), "1.4142135623730951"), ("sqrt", (-1.0,), "nan"), ("sqrt", (16,), "4.0"),
        ("log", (0.0,), "-inf"), ("log", (-2.0,), "nan"),
        ("log10", (1000,), "3.0"), ("log2", (8,), "3.0"), ("exp", (1,), "2.718281828459045"),
        ("exp", (1000.0,), "inf"), ("floor", (2.7,), "2.0"), ("floor", (3,), "3.0"),
        ("ceil", (2.1,), "3.0"), ("ceil", (4,), "4.0"), ("abs", (-3,), "3"),
        ("abs", (-2.5,), "2.5"), ("absolute", (-1,), "1"), ("fabs", (-3,), "3.0"),
        ("round", (2.5,), "2.0"), ("round", (2.675, 2), "2.68"), ("round", (1234.5, -1), "1230.0"),
        ("round", (7, 1), "7"), ("around", (0.125, 2), "0.12"), ("power", (2, 3), "8"),
        ("power", (2.0, 0.5), "1.4142135623730951"), ("power", (10, 20), "7766279631452241920"),
        ("trunc", (-2.7,), "-2.0"), ("exp", (0,), "1.0"), ("log", (1,), "0.0"),
    ],
)
def test_numpy_emulation_prints_like_numpy_1_26(
    func: str, args: tuple[float, ...], printed: str
) -> None:
    assert str(NUMPY.members[func](*args)) == printed


def test_numpy_negative_integer_power_raises_like_numpy() -> None:
    with pytest.raises(ValueError):
        NUMPY.members["power"](2, -1)
