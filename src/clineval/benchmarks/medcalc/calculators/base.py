"""Calculator records, the registry, answer formatting and Relevant Entities readers.

Relevant Entities follow the dataset: numeric values are ``[value, unit]`` lists,
categorical flags are booleans, other categories are strings, dates are ``MM/DD/YYYY``.
A flag missing from the dict counts as absent (False), as in the MedCalc-Bench paper;
a missing required value raises :class:`MissingEntity`.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Literal

from clineval.benchmarks.medcalc.calculators.units import Converter, normalize_unit

OutputType = Literal["decimal", "integer", "date", "weeks_days"]
Entities = Mapping[str, object]
Compute = Callable[[Entities], "CalcResult"]
DATE_FORMAT = "%m/%d/%Y"
# ``official``: the MedCalc-Bench code's rules; ``clinical``: physician practice where it differs.
CONVENTIONS = ("official", "clinical")
# The paper's rule-based categories (§2: 19 rule-based calculators, whose answer is the sum of
# their criteria's sub-scores), so their result is a point score (Wells' PE's 1.5 included).
RULE_BASED = ("risk", "severity", "diagnosis")


@dataclass(frozen=True)
class CalcResult:
    """A calculator's answer string, its value and a step-by-step explanation."""

    answer: str
    value: float | int | str | tuple[int, int]
    explanation: str


@dataclass(frozen=True)
class Calculator:
    """One MedCalc-Bench calculator: identity, output type, question and formula."""

    id: int
    name: str
    category: str
    output_type: OutputType
    compute: Compute
    question: str
    variants: Mapping[str, Compute] = field(default_factory=dict)  # convention -> rule

    @property
    def point_score(self) -> bool:
        """Whether the result is a point score or a count of criteria (a rule-based category)."""
        return self.category in RULE_BASED

    def rule(self, convention: str) -> Compute:
        """The compute function under ``convention`` (``compute`` where it has no variant)."""
        return self.variants.get(convention, self.compute)


@dataclass(frozen=True)
class Conventions:
    """Which convention each calculator follows: ``default`` unless ``overrides`` names it."""

    default: str = "official"
    overrides: Mapping[int, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in (self.default, *self.overrides.values()):
            if name not in CONVENTIONS:
                raise ValueError(f"unknown convention {name!r}; known: {', '.join(CONVENTIONS)}")

    @classmethod
    def from_settings(cls, default: str | None, overrides: Mapping[object, str] | None
                      ) -> Conventions:
        """From config values: a default name and ``{calculator id: name}`` overrides."""
        try:
            table = {int(str(key)): str(value) for key, value in (overrides or {}).items()}
        except ValueError as err:
            raise ValueError(f"convention overrides are keyed by calculator id: {err}") from err
        return cls(str(default or "official"), table)

    def of(self, calculator_id: int) -> str:
        """The convention calculator ``calculator_id`` follows."""
        return self.overrides.get(int(calculator_id), self.default)

    def describe(self) -> str:
        """``clinical`` or ``official (clinical for 13, 49)``."""
        if not self.overrides:
            return self.default
        listed = ", ".join(f"{name} for {cid}" for cid, name in sorted(self.overrides.items()))
        return f"{self.default} ({listed})"


class UnknownCalculator(KeyError):
    """No calculator with this id is implemented."""


class MissingEntity(KeyError):
    """A required entity is absent from the Relevant Entities dict."""

    def __init__(self, entity: str) -> None:
        super().__init__(entity)
        self.entity = entity

    def __str__(self) -> str:
        return f"required entity {self.entity!r} is missing from the relevant entities"


CALCULATORS: dict[int, Calculator] = {}


def register(calculator: Calculator) -> Calculator:
    """Add ``calculator`` to :data:`CALCULATORS`; ids are unique."""
    if calculator.id in CALCULATORS:
        raise ValueError(f"calculator {calculator.id} is already registered")
    CALCULATORS[calculator.id] = calculator
    return calculator


def get(calculator_id: int) -> Calculator | None:
    """The calculator with this id, or None."""
    return CALCULATORS.get(calculator_id)


def compute_row(
    calculator_id: int, relevant_entities: Entities, conventions: Conventions | None = None
) -> CalcResult:
    """Apply calculator ``calculator_id`` to a row's Relevant Entities under ``conventions``
    (default: the official ones)."""
    calculator = get(calculator_id)
    if calculator is None:
        raise UnknownCalculator(f"calculator {calculator_id} is not implemented")
    convention = (conventions or Conventions()).of(calculator_id)
    return calculator.rule(convention)(relevant_entities)


# --- formatting -------------------------------------------------------------------------


def fmt(value: float) -> str:
    """A number rounded to 3 decimals without a trailing '.0' (the dataset's answer style)."""
    rounded = round(float(value), 3) + 0.0  # + 0.0 turns -0.0 into 0.0
    return str(int(rounded)) if rounded.is_integer() else repr(rounded)


def format_date(day: date) -> str:
    """``MM/DD/YYYY``."""
    return day.strftime(DATE_FORMAT)


def format_weeks_days(weeks: int, days: int) -> str:
    """The dataset's gestational-age answer, e.g. ``('0 weeks', '6 days')``."""
    return str((f"{weeks} weeks", f"{days} days"))


def _explain(steps: list[str]) -> str:
    return "\n".join(steps)


def decimal_result(value: float, steps: list[str]) -> CalcResult:
    """A decimal result: full-precision value, answer rounded to 3 decimals."""
    return CalcResult(fmt(value), float(value), _explain(steps))


def integer_result(value: int, steps: list[str]) -> CalcResult:
    """An integer (score) result."""
    return CalcResult(str(int(value)), int(value), _explain(steps))


def date_result(day: date, steps: list[str]) -> CalcResult:
    """A date result, answered as ``MM/DD/YYYY``."""
    return CalcResult(format_date(day), format_date(day), _explain(steps))


def weeks_days_result(weeks: int, days: int, steps: list[str]) -> CalcResult:
    """A weeks-and-days result, answered like ``('4 weeks', '3 days')``."""
    return CalcResult(format_weeks_days(weeks, days), (weeks, days), _explain(steps))


# --- entity readers ---------------------------------------------------------------------


def _find(entities: Entities, names: tuple[str, ...]) -> tuple[str, object] | None:
    """The first of ``names`` present (exact key first, then case-insensitively)."""
    for name in names:
        if name in entities:
            return name, entities[name]
    folded = {key.casefold(): key for key in entities}
    for name in names:
        key = folded.get(name.casefold())
        if key is not None:
            return key, entities[key]
    return None


@dataclass(frozen=True)
class Measurement:
    """A numeric entity as given and converted to the unit a formula needs."""

    entity: str
    value: float
    unit: str
    converted: float
    target: str

    def text(self) -> str:
        """``'154 lbs = 69.853 kg'``, or just ``'70 kg'`` when no conversion was needed."""
        given = f"{fmt(self.value)} {self.unit}"
        if normalize_unit(self.unit) == normalize_unit(self.target):
            return given
        return f"{given} = {fmt(self.converted)} {self.target}"


def optional_measure(
    entities: Entities, name: str, quantity: Converter, target: str, *aliases: str
) -> Measurement | None:
    """Entity ``name`` (or an alias) converted to ``target``, or None when absent."""
    found = _find(entities, (name, *aliases))
    if found is None:
        return None
    key, raw = found
    if not (isinstance(raw, list | tuple) and len(raw) == 2 and isinstance(raw[1], str)):
        raise ValueError(f"entity {key!r} should be [value, unit], got {raw!r}")
    value = float(raw[0])
    converted = quantity.convert(value, raw[1], target, entity=key)
    return Measurement(key, value, raw[1], converted, target)


def measure(
    entities: Entities, name: str, quantity: Converter, target: str, *aliases: str
) -> Measurement:
    """Required entity ``name`` converted to ``target``; :class:`MissingEntity` if absent."""
    found = optional_measure(entities, name, quantity, target, *aliases)
    if found is None:
        raise MissingEntity(name)
    return found


def has(entities: Entities, name: str, *aliases: str) -> bool:
    """Whether entity ``name`` (or an alias) is present at all."""
    return _find(entities, (name, *aliases)) is not None


def flag(entities: Entities, name: str, *aliases: str) -> bool:
    """A true/false attribute; absent counts as False."""
    found = _find(entities, (name, *aliases))
    if found is None:
        return False
    key, raw = found
    if isinstance(raw, bool):
        return raw
    if isinstance(raw, str) and raw.strip().lower() in {"true", "false"}:
        return raw.strip().lower() == "true"
    raise ValueError(f"entity {key!r} should be True or False, got {raw!r}")


def choice(entities: Entities, name: str, allowed: Collection[str]) -> str:
    """A required categorical value, lower-cased, that must be one of ``allowed``."""
    found = _find(entities, (name,))
    if found is None:
        raise MissingEntity(name)
    key, raw = found
    value = raw.strip().lower() if isinstance(raw, str) else raw
    if value not in allowed:
        raise ValueError(f"entity {key!r} should be one of {', '.join(allowed)}; got {raw!r}")
    return value


def number(entities: Entities, name: str, *aliases: str) -> float:
    """A required unitless number (e.g. cycle length in days)."""
    found = _find(entities, (name, *aliases))
    if found is None:
        raise MissingEntity(name)
    key, raw = found
    if isinstance(raw, list | tuple) and raw:
        raw = raw[0]
    if isinstance(raw, bool) or not isinstance(raw, int | float):
        raise ValueError(f"entity {key!r} should be a number, got {raw!r}")
    return float(raw)


def day(entities: Entities, name: str, *aliases: str) -> date:
    """A required ``MM/DD/YYYY`` date."""
    found = _find(entities, (name, *aliases))
    if found is None:
        raise MissingEntity(name)
    key, raw = found
    try:
        return datetime.strptime(str(raw).strip(), DATE_FORMAT).date()
    except ValueError as error:
        raise ValueError(f"entity {key!r} should be a MM/DD/YYYY date, got {raw!r}") from error


@dataclass
class Tally:
    """Running total of a point score that writes one explanation line per criterion."""

    title: str
    total: int = 0
    steps: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.steps.append(f"The {self.title} starts at 0 and adds points criterion by criterion.")

    def add(self, points: int, finding: str) -> None:
        """Record ``finding`` and add its ``points`` (which may be 0 or negative)."""
        before = self.total
        self.total += points
        if points > 0:
            self.steps.append(f"{finding}: +{points} ({before} + {points} = {self.total}).")
        elif points < 0:
            self.steps.append(f"{finding}: −{-points} ({before} − {-points} = {self.total}).")
        else:
            self.steps.append(f"{finding}: +0 (total stays {self.total}).")

    def flag(self, entities: Entities, label: str, points: int, name: str, *aliases: str) -> None:
        """Score a true/false criterion; an unmentioned one is assumed absent."""
        value = flag(entities, name, *aliases)
        if not has(entities, name, *aliases):
            status = "not mentioned (assumed absent)"
        else:
            status = "present" if value else "absent"
        self.add(points if value else 0, f"{label} {status}")

    def result(self) -> CalcResult:
        """The integer result with the accumulated explanation."""
        return integer_result(self.total, [*self.steps, f"The {self.title} is {self.total}."])
