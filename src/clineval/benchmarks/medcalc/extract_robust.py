"""Lenient MedCalc-Bench answer extraction: what a careful human grader would accept.

Locating the answer text (first rule that applies):

1. JSON objects anywhere in the output (multi-line, inside code fences, single quotes, trailing
   commas, Python literals): the last object, by position, holding a key ``answer`` or
   ``final answer`` (any case, also nested) gives the value; numbers, strings, lists and
   ``{"weeks": .., "days": ..}`` dicts are turned into text.
2. Otherwise the last ``\\boxed{...}``, else the last ``answer: X`` / ``answer is X`` line
   (any case; also broken JSON such as ``"answer": 12 mg}``). JSON without an answer key, or a
   truncated JSON object, is "not_found"; plain text otherwise falls back to its last line when
   that line reads as a result (starts with a value, or states one after "is", "=", ":",
   also "is approximately"), and
   is "not_found" when it is prose ("no calculator for id 62").

Two JSON answer fields that give different values are no answer ("not_found"): the output
contradicts itself; the same value given twice is that value.

Parsing the answer text by output type (with the patient note, when known, every run of at
least :data:`COPY_RUN` words that the answer shares with the note is blanked first, and, in an
answer given without work (:func:`shows_work`), every value the note states with the same unit
or label beside it ("13.1 g/dL", "taken 47.069 mg", :func:`note_values`): a number the answer
copies from the note is never its value, and an answer that only restates the note is
"not_found"; so is a blood pressure, "120/80 mmHg", which no calculator gives):

* decimal / integer: text after the last top-level ``=``, ``≈`` or ``\\approx`` if any (``LDL =
  215 - 87 = 128``); a ``str(...)`` or function-call expression, or unevaluated arithmetic (units
  after its numbers allowed, parentheses balanced at the end) is evaluated safely; "3/9" is the
  score 3 for a point score. Otherwise the first number that is stated as the value (see
  :func:`_stated`): not part of a name (CHA2DS2-VASc, FIB-4, CURB-65, Wells-DVT-1, CKD-EPI 2021,
  MELD 3.0, PaO2, "10-year", "/1.73 m²"), no date, clock time or chain of dots ("1.1.1"), not
  followed by an age, duration, temperature or heart rate, not
  after the article "a", no measurement unit on a point score, and, in free text, opening the
  answer or after a result cue ("is", "=", ":", "of", ...). A signed restatement of the same
  magnitude in parentheses ("1.3 L excess (deficit = -1.3 L)") gives the sign. Thousands
  separators (``1,234.5``, ``1 512``) and Unicode minus signs are understood; "3 out of 5" gives
  3. A number followed by ``%`` keeps the number shown and is marked with a trailing ``%``.
* date: the first valid date written as M/D/YYYY, YYYY-MM-DD, "March 14, 2024" or
  "14 March 2024"; normalized to MM/DD/YYYY. Impossible dates (02/31) are unparseable.
* weeks_days: "35 weeks 4 days", "35w 4d", "('35 weeks', '4 days')", "35+4", "35 4/7", "(35, 4)",
  "[35, 4]"; a lone "N weeks" means N weeks 0 days; normalized to "(W, D)".

Correctness: decimals must lie in [lower, upper] as floats; a percentage also counts as
number/100 when the number shown is outside the interval and both limits lie in [-1, 1]
(the ground truth is then on a fraction scale). Integers must equal the ground truth after
half-up rounding. Dates must be the same day. Weeks/days must give the same total number of days.
"""

from __future__ import annotations

import ast
import itertools
import json
import math
import re
import unicodedata
import warnings
from collections.abc import Iterator
from datetime import date
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Any

from .safe_eval import EVAL_NAMES, safe_eval

__all__ = [
    "COPY_RUN",
    "FORMAT_EXAMPLE",
    "answer_text",
    "copied_spans",
    "format_examples",
    "note_values",
    "parse_value",
    "robust_check",
    "robust_extract",
    "shows_work",
    "without_blood_pressures",
    "without_copies",
]

_ANSWER_KEY = re.compile(r"(final[ _-]?)?answer", re.IGNORECASE)
_DECODER = json.JSONDecoder(strict=False)
_MAX_SCAN = 200_000  # only the tail of absurdly long outputs is searched for JSON
_SCAN_BUDGET = 2_000_000  # characters the brace matcher may visit in total

_BOXED = re.compile(r"\\boxed\{((?:[^{}]|\{[^{}]*\})*)\}")  # one level of nested braces
_KEY_VALUE = re.compile(
    r"(?<![A-Za-z])(?:final[ _-]?)?answer\b[\"'*\s]*[:=][ \t*]*([^\n]*)", re.IGNORECASE
)
_JSON_START = re.compile(r"\{\s*[\"']")
# A last line that a grader reads as a result: it starts with a value (number, date, tuple) or
# states one after "is", "=", ":" or "≈" ("CrCl is 25.1 mL/min"); other prose is no answer.
_BARE_VALUE = re.compile(
    r"^(?:[-−+(\[]|\d|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d)"
    r"|(?:\bis\b|=|:|≈)\s*(?:(?:approximately|about|around|roughly|approx\.?|~)\s*)?[-−(\[]?\d",
    re.IGNORECASE,
)
_ANSWER_IS = re.compile(r"\banswer\s+is\b[\s:*]*([^\n]*)", re.IGNORECASE)

_NAMES = re.compile(
    r"CHA2DS2[-\s]*VASc|CHADS2|HAS[-\s]?BLED|CKD[-\s]?EPI(?:\s*\(?\s*(?:19|20)\d\d\s*\)?)?"
    r"|MELD(?:[-\s]*(?:Na|3\.0))*|APACHE\s*(?:II|IV|2|4)\b|HOMA[-\s]?IR"
    r"|\b[A-Za-z]+-\d+(?:\.\d+)?\b|\b[A-Za-z]+\d+[A-Za-z\d]*"
    r"|1\.73\s*m2?\b|\b\d+-(?:years?|yr|hours?|hr|days?|weeks?|months?)\b",
    re.IGNORECASE,
)
_NUMBER = re.compile(  # a chain of dots ("1.1.1.1", "12.30.52") is no number
    r"(?<![\w./])(-?)(\d{1,3}(?:,\d{3})+(?!\d)(?:\.\d+)?(?!\.\d)|\d+(?:\.\d+)?(?![.\d]\d)|\.\d+)"
    r"(?:[eE]([-+]?\d+))?(\s*(?:%|percent\b))?",
    re.IGNORECASE,
)
_GROUP_SPACE = re.compile(r"(?<=\d)[\u2009\u202f\u00a0\u2007](?=\d{3}(?!\d))")
_SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")
_SUPERSCRIPT_POWER = re.compile(r"(?<=10)[⁻]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+")  # 10⁴ is 10^4, not 104
_DETACHED_MINUS = re.compile(r"(?:^|(?<=[=:(]))\s*-\s+(?=\.?\d)")  # "- 0.261" -> "-0.261"
_SCIENTIFIC = re.compile(r"(\d(?:\.\d+)?)\s*(?:x|×|\*|·)\s*10\s*(?:\^|\*\*)\s*[({]?([-+]?\d+)[)}]?")
# "8,96" and "0,261" are decimals ("1,512" stays a thousands separator)
_DECIMAL_COMMA = re.compile(r"(?<![\d,.])(0|\d+(?=,(?:\d{1,2}|\d{4,})(?![\d,]))),(\d+)(?![\d,])")
_BARE_NUMBER = re.compile(r"^[\s*~]*-?\d[\d,]*(?:\.\d+)?\s*(?:%|[^\W\d_][^\d=+*/^()]*)?$")
_FRACTION = re.compile(r"\\[dt]?frac\s*\{([^{}]+)\}\s*\{([^{}]+)\}")
_ARITHMETIC = re.compile(r"^[\s*]*([-+]?[\d\s.+\-*/×÷^()e]*\d[\d\s.+\-*/×÷^()e]*?)"
                         r"\s*(?:[^\W\d_][^\d=()]*)?$")
_OPERATION = re.compile(r"[*/×÷^+()]|\s-\s|\d\s*-\s*\(")
_UNITS_WORDS = ("zero one two three four five six seven eight nine ten eleven twelve thirteen "
                "fourteen fifteen sixteen seventeen eighteen nineteen")
_TENS_WORDS = "twenty thirty forty fifty sixty seventy eighty ninety"
_WORD_VALUES = {word: i for i, word in enumerate(_UNITS_WORDS.split(" "))} | {
    word: 10 * i for i, word in enumerate(_TENS_WORDS.split(" "), start=2)}
_NUMBER_WORD = re.compile(
    rf"\b(?:(?:{_TENS_WORDS.replace(' ', '|')})(?:[-\s](?:one|two|three|four|five|six|seven|"
    rf"eight|nine)\b)?|{'|'.join(sorted(_UNITS_WORDS.split(' '), key=len, reverse=True))})\b",
    re.IGNORECASE)
_CALL = re.compile(r"^\s*(?:str\(|(?:round|min|max|abs|pow|sqrt|math\.\w+|np\.\w+)\s*\()")
_CALL_NAMES = {**EVAL_NAMES, "max": max, "sqrt": math.sqrt}

_MONTHS = {
    m: i + 1
    for i, names in enumerate(
        [("jan", "january"), ("feb", "february"), ("mar", "march"), ("apr", "april"),
         ("may",), ("jun", "june"), ("jul", "july"), ("aug", "august"),
         ("sep", "sept", "september"), ("oct", "october"), ("nov", "november"),
         ("dec", "december")]
    )
    for m in names
}
_MONTH = "(" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_DATES = (
    (re.compile(r"(?<!\d)(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})(?!\d)"), "mdy"),
    (re.compile(r"(?<!\d)(\d{4})[/.-](\d{1,2})[/.-](\d{1,2})(?!\d)"), "ymd"),
    (re.compile(rf"\b{_MONTH}\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b", re.I), "mdy"),
    (re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH},?\s+(\d{{4}})\b", re.I),
     "dmy"),
    (re.compile(r"(?<![\d/.-])(\d{1,2})[/.-](\d{1,2})[/.-](\d{2})(?![\d/.-])"), "mdy"),  # 10/26/23
)
_CENTURY_PIVOT = 69  # two-digit years as strptime's %y reads them: 69-99 -> 19xx, 00-68 -> 20xx
_WEEKS = re.compile(r"(?<![\d./])(\d+)\s*(?:weeks?|wks?|w)(?![a-z])")
_SEVENTHS = re.compile(r"(?<![\d./])(\d{1,2})\s+([0-6])\s*/\s*7(?![\d.])")  # "35 4/7 weeks"
_DAYS = re.compile(r"(?<![\d.])(\d+)\s*(?:days?|d)(?![a-z])")
_PLUS = re.compile(r"(?<![\d.])(\d{1,2})\s*\+\s*([0-6])(?![\d.])")
_PAIR = re.compile(r"(?<![\d.])(\d+)\s*+(?:[\"']\s*+)?,\s*+(?:[\"']\s*+)?(\d+)(?![\d.])")

# An answer restating the note: runs of this many consecutive words (numbers included) that the
# note holds in the same order, case and punctuation aside.
COPY_RUN = 8
#: The longest period, in words, of a copied stretch repeated back to back (``_cover_repeats``).
REPEAT_PERIOD = 3 * COPY_RUN
_TOKEN = re.compile(r"\d+(?:\.\d+)?|[^\W\d_]+")
_RESTATES = "the answer restates the patient note"
_WORD = re.compile(r"[^\W\d_]{2,}")
FREE_TEXT_WORDS = 6  # an answer of more words than this is free text: its value needs a cue
# "1 512" with a plain space: a 1-3 digit group, then groups of exactly three digits
_SPACE_THOUSANDS = re.compile(r"(?<![\d.,])(?<![\d.,] )([1-9]\d{0,2})((?: \d{3})+)(?!\d|[ ,]\d)")
_SCORE_OF_MAX = re.compile(r"(?<![\d./])(\d+)\s*/\s*(\d+)(?![\d./])")  # "3/9" on a point score
# a unit written after a number inside arithmetic ("70 kg / (1.75 m)^2", "1.4 mg/dL")
_UNIT_IN_EXPRESSION = re.compile(
    r"(?<=[\d)])[ \t]*(?![xX×eE]\b)[^\W\d_]+(?:(?:\^|\*\*)?[23])?"
    r"(?:/(?:\d+(?:\.\d+)?[ \t]*)?[^\W\d_]+(?:(?:\^|\*\*)?[23])?)*")
_TIMES = re.compile(r"(?<=[\d)])\s*[xX×]\s*(?=[\d(])")
# after a number: an age, a duration, a temperature or a rate of the body (never a result)
_NOT_A_RESULT_UNIT = re.compile(
    r"^\s*(?:-\s*)?(?:years?\b|yrs?\b|y/?o\b|year-old|months?\b|mos?\b|weeks?\b|wks?\b"
    r"|days?\b|hours?\b|hrs?\b|minutes?\b|mins?\b|times?\b|°|º|degrees?\b|beats?\b"
    r"|breaths?\b|bpm\b|/\s*min\b)", re.IGNORECASE)
# after a number on a point score: any measurement unit (a score has points, not mg or %)
_MEASUREMENT_UNIT = re.compile(
    r"^\s*(?:%|percent\b|[mµμ]?(?:g|mol|eq|l|osm)\b|[mµμnd]?(?:g|mol|eq|l)\s*/|kg\b|lbs?\b"
    r"|mm\s*hg\b|mmhg\b|c?m\b|cm\b|mm\b|in(?:ch(?:es)?)?\b|i?u\b|units?\b|ms(?:ec)?\b"
    r"|seconds?\b|m[l2]\b|kpa\b)", re.IGNORECASE)
_CUE_WORDS = frozenset((
    "is", "are", "was", "were", "be", "being", "equals", "equal", "equaling", "of", "at", "to",
    "gives", "giving", "yields", "yielding", "score", "scores", "scored", "totals", "total",
    "totaling", "approximately", "approx", "about", "around", "roughly", "estimated",
    "calculated", "computed", "result", "answer", "value"))
_LAST_CUE = re.compile(r"([^\W\d_]+|[=:≈~→>])[\s*\"'(\[~.]*$")
_ARTICLE = re.compile(r"\b(?:a|an)[\s*\"']*$", re.IGNORECASE)
_OPENING = re.compile(r"^[\s*\"'(\[~≈]*(?:about|approximately|approx\.?|around)?[\s~≈]*$",
                      re.IGNORECASE)
# dates and clock times are never a calculator's value: "2019-01-01", "3/14/2024", "12:30:52"
_DATE_OR_TIME = re.compile(r"(?<![\d.])(?:\d{4}-\d{1,2}-\d{1,2}|\d{1,2}/\d{1,2}/\d{2,4}"
                           r"|\d{1,2}:\d{2}(?::\d{2})?)(?![\d/:])")
_SIGNED = re.compile(r"(?<![\w.])([-+])\s?(\d+(?:\.\d+)?)")
_PARENTHESES = re.compile(r"\(([^()]*)\)")


# ---------------------------------------------------------------- locating the answer text


def _balanced_end(text: str, start: int, budget: list[int]) -> int | None:
    """Index after the brace closing ``text[start] == "{"``, skipping quoted strings.

    ``budget[0]`` counts the characters all calls may still scan (keeps the search linear-ish).
    """
    depth, quote, i = 0, "", start
    while i < len(text) and budget[0] > 0:
        budget[0] -= 1
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return None


def _loads(blob: str) -> Any:
    """Parse a JSON-ish object leniently; None when it is not one."""
    attempts = (
        lambda s: _DECODER.decode(s),
        lambda s: _DECODER.decode(re.sub(r",\s*([}\]])", r"\1", s)),
        lambda s: ast.literal_eval(
            re.sub(r"\b(true|false|null)\b",
                   lambda m: {"true": "True", "false": "False", "null": "None"}[m.group(1)], s)
        ),
    )
    for attempt in attempts:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # literal_eval warns on odd escapes
                return attempt(blob)
        except Exception:  # any parse failure: try the next form
            continue
    return None


def _json_objects(text: str) -> Iterator[Any]:
    i, budget = 0, [_SCAN_BUDGET]
    while (start := text.find("{", i)) >= 0 and budget[0] > 0:
        end = _balanced_end(text, start, budget)
        obj = _loads(text[start:end]) if end is not None else None
        if isinstance(obj, dict):
            yield obj
            i = end  # type: ignore[assignment]
        else:
            i = start + 1


def _find_key(obj: Any, depth: int = 0) -> tuple[bool, Any]:
    if depth > 20:
        return False, None
    if isinstance(obj, dict):
        for key, value in obj.items():
            if isinstance(key, str) and _ANSWER_KEY.fullmatch(key.strip()):
                return True, value
        children = list(obj.values())
    elif isinstance(obj, (list, tuple)):
        children = list(obj)
    else:
        return False, None
    for child in children:
        found, value = _find_key(child, depth + 1)
        if found:
            return True, value
    return False, None


def _to_text(value: Any) -> str | None:
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(str(_to_text(v)) for v in value) + "]"
    if isinstance(value, dict):
        return " ".join(f"{_to_text(v)} {k}" for k, v in value.items())
    return str(value)


def _same_answer(a: str, b: str) -> bool:
    """Whether two answer texts give the same value: the same words, or the same numbers
    ("2" and "2.0")."""
    if " ".join(a.lower().split()) == " ".join(b.lower().split()):
        return True
    numbers = [[Decimal(n) for n in re.findall(r"-?\d+(?:\.\d+)?", text)] for text in (a, b)]
    return bool(numbers[0]) and numbers[0] == numbers[1]


def answer_text(output: str) -> tuple[str | None, str]:
    """The answer text a human would read; when there is none, None and the reason."""
    has_key, found, saw_json = False, None, False
    given: list[str] = []
    for obj in _json_objects(output[-_MAX_SCAN:]):
        saw_json = True
        ok, value = _find_key(obj)
        if ok:
            has_key, found = True, value
            if (text := _to_text(value)) is not None and text.strip():
                given.append(text.strip())
    if any(not _same_answer(given[0], other) for other in given[1:]):
        return None, f"two different answers: {given[0][:40]!r}, " + repr(
            next(o for o in given[1:] if not _same_answer(given[0], o))[:40])
    if has_key:
        text = _to_text(found)
        return (text, "") if text is not None else (None, "answer is null")
    if boxed := _BOXED.findall(output):
        return boxed[-1].strip(), ""
    best: re.Match[str] | None = None
    for pattern in (_KEY_VALUE, _ANSWER_IS):
        for m in pattern.finditer(output):
            if best is None or m.start() > best.start():
                best = m
    if best is not None:
        value = best.group(1).strip().rstrip("},").strip().strip("\"'*").strip()
        rest = [line.strip() for line in output[best.end():].splitlines() if line.strip()]
        if value or rest:
            return value or rest[0], ""
    if saw_json or _JSON_START.search(output):  # JSON (perhaps truncated) without an answer key
        return None, "no answer key in JSON"
    lines = [line.strip().strip("*#`>\"'").strip() for line in output.splitlines()]
    lines = [line for line in lines if line]
    if not lines:
        return None, "empty output"
    if not _BARE_VALUE.search(lines[-1]):  # prose such as "no calculator for id 62" is no answer
        return None, "no answer field, answer cue or bare value"
    return lines[-1], ""


# --------------------------------------------------------------------- parsing the value


def _normalize(text: str) -> str:
    # JSON (or a Python literal) ate the backslash of "\frac", "\times", "\approx", "\boxed"
    for eaten, latex in (("\x0c", "\\f"), ("\times", "\\times"), ("\x07", "\\a"), ("\x08", "\\b"),
                         ("\x0b", "\\v"), ("\right", "\\right")):
        text = text.replace(eaten, latex)
    text = _GROUP_SPACE.sub("", text)  # "1 512" with a thin or no-break space: one number
    text = _SUPERSCRIPT_POWER.sub(lambda m: "^" + m.group(0).translate(_SUPERSCRIPTS), text)
    text = unicodedata.normalize("NFKC", text)
    text = re.sub("[\u2212\u2012\ufe63]", "-", text)
    text = re.sub(r"(?<!\d)(?<!\d\s)[\u2013\u2014](?=\d)", "-", text)  # a dash after a digit: range
    return _DETACHED_MINUS.sub("-", text)


def _segments(text: str) -> list[str]:
    """``text`` split at its top-level ``=`` and ``≈`` signs."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += ch in "([{"
        depth -= ch in ")]}"
        if depth <= 0 and ch in "=≈":
            parts.append(text[start:i])
            start = i + 1
    return [*parts, text[start:]]


def _unwrapped(text: str) -> str:
    """``text`` without parentheses that enclose all of it ("(120/4 ≈ 30)", from a \\boxed)."""
    stripped = text.strip()
    while stripped.startswith("(") and stripped.endswith(")"):
        depth = 0
        for i, ch in enumerate(stripped):
            depth += (ch == "(") - (ch == ")")
            if depth == 0 and i < len(stripped) - 1:
                return stripped
        stripped = stripped[1:-1].strip()
    return stripped


def _equation_side(text: str) -> str:
    """The side of an equation that states the result: the last side that is one value
    ("LDL = 215 - 87 = 128", "3 = 1 + 1 + 1"), else the last side with a number."""
    sides = _segments(_unwrapped(text))
    if len(sides) == 1:
        return text
    for side in reversed(sides):
        if _BARE_NUMBER.match(side):
            return side
    return next((side for side in reversed(sides) if re.search(r"\d", side)), text)


def _latex(text: str) -> str:
    """LaTeX math as plain arithmetic: fractions, \\times, \\cdot, braces, \\approx as ≈,
    \\text{..} as its text; \\boxed dropped."""
    text = _FRACTION.sub(r"((\1)/(\2))", text)
    text = re.sub(r"\\(?:text|mathrm|mbox|operatorname)\s*\{([^{}]*)\}", r" \1 ", text)
    for old, new in (("\\boxed", ""), ("\\times", "*"), ("\\cdot", "*"), ("\\div", "/"),
                     ("\\approxeq", "≈"), ("\\approx", "≈"), ("\\simeq", "≈"), ("\\sim", "≈"),
                     ("\\left", ""), ("\\right", ""), ("\\,", ""), ("$", ""), ("{", "("),
                     ("}", ")")):
        text = text.replace(old, new)
    return text


def _balanced(expression: str) -> str:
    """``expression`` with missing closing parentheses added at the end, or surplus ones
    removed from the end (code-like answers cut short or closed once too often)."""
    surplus = expression.count(")") - expression.count("(")
    if surplus < 0:
        return expression + ")" * -surplus
    stripped = expression.rstrip()
    while surplus > 0 and stripped.endswith(")"):
        stripped, surplus = stripped[:-1].rstrip(), surplus - 1
    return stripped


def _evaluate(expression: str) -> Decimal | None:
    """A finite number from arithmetic, evaluated safely (never ``eval``), its parentheses
    balanced when they are not; else None."""
    try:
        value = safe_eval(expression, _CALL_NAMES)
    except Exception:  # not evaluable as written: try again with balanced parentheses
        try:
            value = safe_eval(_balanced(expression), _CALL_NAMES)
        except Exception:  # not evaluable: the caller reads the numbers instead
            return None
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        return Decimal(repr(value))
    return None


def _arithmetic(text: str) -> Decimal | None:
    """The value of an answer that is unevaluated arithmetic ("(140 - 87) * 48 / 72", a LaTeX
    fraction once :func:`_latex` rewrote it), units after it allowed; a bare range such as "5-7"
    is not arithmetic."""
    m = _ARITHMETIC.match(text)
    if m is None or not _OPERATION.search(m.group(1)):
        return None
    body = m.group(1).replace("×", "*").replace("÷", "/").replace("^", "**")
    return _evaluate(_SCIENTIFIC.sub(r"\1e\2", body))


def _score_of_max(m: re.Match[str]) -> str:
    score, most = int(m.group(1)), int(m.group(2))
    return f"{score} out of {most}" if score <= most else m.group(0)


def _stated(text: str, start: int, end: int, free: bool, point_score: bool) -> bool:
    """Whether the number at ``text[start:end]`` is stated as the answer's value.

    Not when an age, duration, temperature or body rate follows it ("14 year old", "3 weeks",
    "37.5°C", "76 beats"), nor any measurement unit on a point score ("27 mmol/L"), nor after
    the article "a" ("a 3 year history"). In free text (more than :data:`FREE_TEXT_WORDS`
    words) it must open the answer or follow a result cue ("is", "=", ":", "of", "score", ...).
    """
    after, before = text[end:], text[:start]
    if _NOT_A_RESULT_UNIT.match(after) or (point_score and _MEASUREMENT_UNIT.match(after)):
        return False
    if _ARTICLE.search(before):
        return False
    if not free or _OPENING.match(before):
        return True
    cue = _LAST_CUE.search(before)
    return cue is not None and (cue.group(1).lower() in _CUE_WORDS or not cue.group(1).isalpha())


def _signed_restatement(text: str, value: Decimal) -> Decimal | None:
    """The signed value of a parenthesis restating ``value``'s magnitude with a sign:
    "1.3 L excess (deficit = -1.3 L)" -> -1.3."""
    for group in _PARENTHESES.finditer(text):
        for m in _SIGNED.finditer(group.group(1)):
            signed = Decimal(m.group(1) + m.group(2))
            if abs(signed) == abs(value) and signed != value:
                return signed
    return None


def _number(text: str, free: bool = False,
            point_score: bool = False) -> tuple[Decimal, bool] | None:
    """The number ``text`` states, and whether it is a percentage (``free``: the answer is free
    text; ``point_score``: the calculator's result is a point score)."""
    text = _latex(_normalize(text))
    if point_score:
        text = _SCORE_OF_MAX.sub(_score_of_max, text)
    text = _equation_side(text)
    if _CALL.match(text):
        value = _evaluate(text.strip().replace("^", "**").removeprefix("str"))
        if value is not None:
            return value, False
    if (value := _arithmetic(text)) is not None:
        return value, False
    if re.search(r"\d\s*[^\W\d_]", text):  # units inside arithmetic ("70 kg / (1.75 m)^2")
        bare = _TIMES.sub(" * ", _UNIT_IN_EXPRESSION.sub("", text))
        if (value := _arithmetic(bare)) is not None:
            return value, False
    text = _DECIMAL_COMMA.sub(r"\1.\2", _SCIENTIFIC.sub(r"\1e\2", text))
    text = _SPACE_THOUSANDS.sub(lambda m: m.group(1) + m.group(2).replace(" ", ""),
                                _NAMES.sub(" ", _DATE_OR_TIME.sub(" ", text)))
    if not re.search(r"\d", text):
        for word in _NUMBER_WORD.finditer(text):
            if _stated(text, word.start(), word.end(), free, point_score):
                return Decimal(_word_value(word.group(0))), False
        return None
    for m in _NUMBER.finditer(text):
        if not _stated(text, m.start(), m.end(3 if m.group(3) else 2), free, point_score):
            continue
        literal = m.group(1) + m.group(2).replace(",", "")
        value = Decimal(literal + (f"e{m.group(3)}" if m.group(3) else ""))
        if (signed := _signed_restatement(text[m.end():], value)) is not None:
            return signed, False
        return value, bool(m.group(4))
    return None


def _word_value(words: str) -> int:
    """"seven" -> 7, "twenty-one" -> 21."""
    return sum(_WORD_VALUES[w] for w in re.split(r"[-\s]+", words.lower()))


def _date(text: str) -> tuple[date | None, bool]:
    """First valid date in ``text``; the flag says whether something date-like was seen."""
    text = _normalize(text)
    hits = sorted(
        ((m.start(), m, order) for pattern, order in _DATES for m in pattern.finditer(text)),
        key=lambda hit: hit[0],
    )
    for _, m, order in hits:
        a, b, c = m.groups()
        y, mo, d = {"mdy": (c, a, b), "ymd": (a, b, c), "dmy": (c, b, a)}[order]
        year = int(y) if len(y) == 4 else int(y) + (1900 if int(y) >= _CENTURY_PIVOT else 2000)
        try:
            return date(year, _MONTHS.get(mo.lower()) or int(mo), int(d)), True
        except ValueError:
            continue
    return None, bool(hits)


def _weeks_days(text: str) -> tuple[int, int] | None:
    text = _normalize(text).lower()
    if m := _SEVENTHS.search(text):
        return int(m.group(1)), int(m.group(2))
    plus = _PLUS.search(text)
    weeks = _WEEKS.search(text)
    if plus and (weeks is None or plus.start() < weeks.start()):  # "24+5 weeks"
        return int(plus.group(1)), int(plus.group(2))
    if weeks:  # days after the weeks, else before them ("1 days, 18 weeks")
        days = _DAYS.search(text, weeks.end()) or _DAYS.search(text[:weeks.start()])
        return int(weeks.group(1)), int(days.group(1)) if days else 0
    if days := _DAYS.search(text):
        return 0, int(days.group(1))
    m = _PLUS.search(text) or _PAIR.search(text)
    return (int(m.group(1)), int(m.group(2))) if m else None


def copied_spans(text: str, note: str | None) -> list[tuple[int, int]]:
    """Character spans of ``text`` that restate ``note``: runs of at least :data:`COPY_RUN`
    consecutive words (numbers included) that the note holds in the same order, compared
    without case and punctuation."""
    if not note:
        return []
    tokens = [(m.group(0).lower(), m.start(), m.end()) for m in _TOKEN.finditer(text)]
    if len(tokens) < COPY_RUN:
        return []
    words = [m.group(0).lower() for m in _TOKEN.finditer(note)]
    runs = {tuple(words[i:i + COPY_RUN]) for i in range(len(words) - COPY_RUN + 1)}
    covered = [False] * len(tokens)
    for i in range(len(tokens) - COPY_RUN + 1):
        if tuple(t[0] for t in tokens[i:i + COPY_RUN]) in runs:
            covered[i:i + COPY_RUN] = [True] * COPY_RUN
    _cover_repeats([t[0] for t in tokens], covered)
    spans: list[tuple[int, int]] = []
    for (_, start, end), copied in zip(tokens, covered, strict=True):
        if copied:
            if spans and not text[spans[-1][1]:start].strip(" \t\n,.;:'\"()-/"):
                spans[-1] = (spans[-1][0], end)
            else:
                spans.append((start, end))
    return spans


def _cover_repeats(words: list[str], covered: list[bool]) -> None:
    """Cover what repeats a covered stretch back to back: "…39 g/L. Serum albumin is 39 g/L.
    Serum albumin is 39 g/L. Serum albu" (a greedy loop over a copied sentence) restates the
    note as much as its first copy does. A repeat is a whole period of at most
    :data:`REPEAT_PERIOD` words equal to the covered words before it, or the text's cut-off end
    when it begins such a period."""
    i = 1
    while i < len(words):
        if covered[i]:
            i += 1
            continue
        for period in range(1, min(i, REPEAT_PERIOD) + 1):
            before = words[i - period:i]
            after = words[i:i + period]
            if all(covered[i - period:i]) and before[:len(after)] == after and (
                    len(after) == period or i + len(after) == len(words)):
                covered[i:i + len(after)] = [True] * len(after)
                i += len(after)
                break
        else:
            i += 1


def without_copies(text: str, note: str | None) -> str:
    """``text`` with what it copies from ``note`` blanked (same length)."""
    return _blanked(text, copied_spans(text, note))


def _blanked(text: str, spans: list[tuple[int, int]]) -> str:
    for start, end in spans:
        text = text[:start] + " " * (end - start) + text[end:]
    return text


#: A value and what may stand beside it: a number (or "120/80"), a percent sign, a word.
_VALUE_TOKEN = re.compile(r"\d+(?:\.\d+)?(?:\s*/\s*\d+(?:\.\d+)?)?|%|[^\W\d_]+")
#: Words beside a number that are no unit or label of it.
_NOT_BESIDE = _CUE_WORDS | {
    "a", "an", "the", "and", "or", "with", "in", "on", "for", "by", "from", "than", "as", "be",
    "his", "her", "its", "their", "over", "under", "after", "before", "since", "within", "up"}
#: The fewest a whole number that may be told from a chance match must reach.
_SMALLEST_VALUE = 10


def _beside(token: str) -> bool:
    """Whether ``token`` may be a value's unit or label: ``%`` or a word that is no cue."""
    return token == "%" or (token.isalpha() and token not in _NOT_BESIDE)


def note_values(text: str, note: str | None) -> list[tuple[int, int]]:
    """Character spans of ``text`` that copy a value of ``note`` with what stands beside it
    there: the number (a whole one of at least :data:`_SMALLEST_VALUE`, or a decimal) and
    its unit after it ("13.1 g/dL", "11.7%") or its label before it ("hemoglobin 13.1",
    "taken 47.069"), case aside. A bare number is not such a copy: a computed value may equal
    one of the note's (a 1:1 steroid conversion)."""
    if not note:
        return []
    tokens = [(m.group(0).lower(), m.start(), m.end()) for m in _VALUE_TOKEN.finditer(text)]
    words = [re.sub(r"\s+", "", m.group(0).lower()) for m in _VALUE_TOKEN.finditer(note)]
    pairs = set(itertools.pairwise(words))
    spans: list[tuple[int, int]] = []
    for i, (token, start, end) in enumerate(tokens):
        token = re.sub(r"\s+", "", token)
        if not token[0].isdigit() or ("." not in token and "/" not in token
                                      and int(token) < _SMALLEST_VALUE):
            continue
        after = tokens[i + 1] if i + 1 < len(tokens) else None
        before = tokens[i - 1] if i > 0 else None
        if after is not None and _beside(after[0]) and (token, after[0]) in pairs:
            spans.append((start, after[2]))
        elif before is not None and _beside(before[0]) and (before[0], token) in pairs:
            spans.append((before[1], end))
    return spans


#: A blood pressure: two numbers of two or three digits, a slash between them, "mmHg" after
#: them or "BP"/"blood pressure" before them. No calculator gives one.
_BLOOD_PRESSURE = re.compile(
    r"(?:\b(?:bp|blood\s+pressure)\b[^\d\n]{0,20})?(?<![\d/.])\d{2,3}\s*/\s*\d{2,3}(?![\d/.])"
    r"(?:\s*mm\s*hg\b)?", re.IGNORECASE)
_A_BLOOD_PRESSURE = "a blood pressure is no calculator's value"


def without_blood_pressures(text: str) -> str:
    """``text`` with every blood pressure (:data:`_BLOOD_PRESSURE`) blanked."""
    spans = [m.span() for m in _BLOOD_PRESSURE.finditer(text)
             if not m.group(0)[:1].isdigit()
             or m.group(0).lower().replace(" ", "").endswith("mmhg")]
    return _blanked(text, spans)


def parse_value(text: str, output_type: str, *, note: str | None = None,
                point_score: bool = False, values: bool = False) -> tuple[str | None, str]:
    """Normalized answer for ``output_type`` and a reason when it cannot be read; ``note``:
    the patient note, whose restatement is never the answer (``values``: nor a value it
    states with the same unit or label, :func:`note_values`); ``point_score``: the
    calculator's result is a point score."""
    own = without_copies(text, note)
    if values and (spans := note_values(own, note)):
        # the value read must not change when the note's values are blanked: else it is one
        read = parse_value(own, output_type, point_score=point_score)
        if parse_value(_blanked(own, spans), output_type, point_score=point_score)[0] != read[0]:
            return None, _RESTATES
    if re.search(r"\d", text) and not re.search(r"\d", own):
        return None, _RESTATES
    if output_type in ("decimal", "integer"):
        rest = without_blood_pressures(own)
        if re.search(r"\d", own) and not re.search(r"\d", rest):
            return None, _A_BLOOD_PRESSURE
        own = rest
    free = len(_WORD.findall(text)) > FREE_TEXT_WORDS
    text = own
    if output_type in ("decimal", "integer"):
        parsed = _number(text, free, point_score)
        if parsed is None:
            return None, "no number stated as the value" if free else "no number"
        value, percent = parsed
        if output_type == "integer":  # a score is a whole number: 3.5 stays 3.5 (and is wrong)
            try:
                whole = value == value.to_integral_value()
                return (str(int(value)) if whole else str(value.normalize())), ""
            except (InvalidOperation, OverflowError, ValueError):
                return None, "number out of range"
        return f"{value:f}{'%' if percent else ''}", ""
    if output_type == "date":
        day, seen = _date(text)
        if day is None:
            return None, "invalid date" if seen else "no date"
        return day.strftime("%m/%d/%Y"), ""
    if output_type == "weeks_days":
        pair = _weeks_days(text)
        return (f"({pair[0]}, {pair[1]})", "") if pair else (None, "no weeks/days")
    raise ValueError(f"unknown output type {output_type!r}")


#: The format examples a question gives, anywhere in it: "(i.e. (4 weeks, 3 days), (0 weeks,
#: 5 days), ...)", "(ie 08/31/2023, 07/03/2000)", "(e.g. 5.2)".
_EXAMPLES = re.compile(r"\((?:i\.?\s*e\.?|e\.?\s*g\.?|for\s+example|such\s+as)[\s,:]*"
                       r"((?:[^()]|\([^()]*\))*)\)", re.IGNORECASE)
_EXAMPLE_ITEM = re.compile(r"\([^()]*\)|[^,()]+")
FORMAT_EXAMPLE = "the answer is a format example of the question"


def _example_lists(question: str | None) -> list[str]:
    """The texts of the format example lists ``question`` gives."""
    return [m.group(1) for m in _EXAMPLES.finditer(question or "")]


def format_examples(question: str | None, output_type: str) -> list[str]:
    """The normalized values of the format examples ``question`` gives ("(i.e. (4 weeks,
    3 days), (0 weeks, 5 days))", "(ie 08/31/2023, 07/03/2000)"); none for a question
    without."""
    values = [parse_value(item, output_type)[0] for listed in _example_lists(question)
              for item in _EXAMPLE_ITEM.findall(listed) if item.strip()]
    return [v for v in values if v is not None]


def _repeats_examples(text: str, question: str | None) -> bool:
    """Whether ``text`` repeats a stretch of a format example list that runs across two of
    its items ("2023, 07/03/2000" of "(ie 08/31/2023, 07/03/2000)"): a copy, worked or not."""
    said = " ".join(text.split()).strip(" .\"'")
    for listed in _example_lists(question):
        items = [" ".join(item.split()) for item in _EXAMPLE_ITEM.findall(listed)]
        if said in " ".join(listed.split()) and not any(said in item for item in items):
            return True
    return False


def robust_extract(output: str, output_type: str, *, note: str | None = None,
                   point_score: bool = False, question: str | None = None
                   ) -> tuple[str | None, str, str]:
    """Return ``(answer, status, detail)`` for the robust setting (``note`` and
    ``point_score`` as in :func:`parse_value`; ``question``: the row's question, whose format
    examples are no answer). A value the note states with its unit or label is no answer
    unless the output shows its work (:func:`shows_work`)."""
    text, reason = answer_text(output)
    if text is None:
        return None, "not_found", reason
    worked = shows_work(output, text)
    answer, reason = parse_value(text, output_type, note=note, point_score=point_score,
                                 values=not worked)
    if answer is None:
        status = "not_found" if reason in (_RESTATES, _A_BLOOD_PRESSURE) else "unparseable"
        return None, status, f"{reason} in {text[:80]!r}"
    if _repeats_examples(text, question) or (
            answer in format_examples(question, output_type) and not worked):
        return None, "not_found", f"{FORMAT_EXAMPLE}: {text[:80]!r}"
    return answer, "ok", ""


#: Words that frame an answer without deriving it: JSON keys and answer cues.
_FRAME_WORDS = frozenset({"answer", "step", "by", "thinking", "the", "is", "final", "so",
                          "therefore", "estimated", "gestational", "age"})
#: Words besides the answer and its frame that make an output a derivation.
WORK_WORDS = 5


def shows_work(output: str, answer_text: str) -> bool:
    """Whether ``output`` derives its answer: at least :data:`WORK_WORDS` words outside the
    answer text and its frame. An answer equal to a format example is a copy only without
    work (a derivation that ends on the example's value is read as the answer it derives)."""
    rest = output.replace(answer_text, " ")
    return sum(w.lower() not in _FRAME_WORDS for w in _WORD.findall(rest)) >= WORK_WORDS


def robust_check(answer: str, ground_truth: str, output_type: str, lower: str, upper: str) -> int:
    """Correctness of a normalized robust answer; may raise on malformed ground truth."""
    if output_type == "decimal":
        percent = answer.endswith("%")
        value = float(answer.rstrip("%"))
        lo, hi = sorted((float(lower), float(upper)))
        if lo <= value <= hi:
            return 1
        fraction_scale = abs(lo) <= 1 and abs(hi) <= 1
        return int(percent and fraction_scale and lo <= value / 100 <= hi)
    if output_type == "integer":
        expected = Decimal(ground_truth.strip()).quantize(Decimal(1), rounding=ROUND_HALF_UP)
        return int(Decimal(answer) == expected)
    if output_type == "date":
        return int(answer == parse_value(ground_truth, "date")[0])
    if output_type == "weeks_days":
        expected = _weeks_days(ground_truth)
        got = _weeks_days(answer)
        if expected is None or got is None:
            return 0
        return int(got[0] * 7 + got[1] == expected[0] * 7 + expected[1])
    raise ValueError(f"unknown output type {output_type!r}")
