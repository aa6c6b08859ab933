"""Aggregates declared once: a statistic of per-example rows that depends on them only through
per-row sums, so the same declaration gives its value on a cell's rows and its value on every
bootstrap resample at once.

An :class:`Aggregate` names the per-row terms it sums (integer vectors: counts, n-gram
statistics; floats: summed exactly, as ``math.fsum`` and ``statistics.fmean`` sum) and
finishes a value from their sums. :func:`values` sums the terms over the rows given;
:func:`replicates` sums them over each resample's draw counts
(:func:`clineval.metrics.bootstrap.resample_counts`, :func:`~clineval.metrics.bootstrap.exact_sums`)
and finishes each resample with the same code, so a replicate equals the value on the
resample's rows exactly. A :data:`Headline` maps each headline name to its aggregate and the
part of the rows it belongs to; a resample without a row of that part has no value for it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from statistics import fmean
from typing import Any

import numpy as np

from clineval.metrics.bootstrap import Replicates, exact_sums, resample_counts

Row = Mapping[str, Any]
#: A row -> whether it counts (a part's rows, a correct answer, ...).
Test = Callable[[Row], Any]


def every(row: Row) -> bool:
    """The test that holds for every row."""
    return True


@dataclass(frozen=True)
class _Ints:
    """A per-row integer vector of ``width`` entries, for the rows ``within`` holds (zeros for
    the others); its sum is a list of ints."""

    get: Callable[[Row], Sequence[int]]
    width: int
    within: Test = every

    def of(self, row: Row) -> Sequence[int]:
        if not self.within(row):
            return (0,) * self.width
        got = self.get(row)
        if len(got) != self.width:
            raise ValueError(f"row {row.get('id')!r}: {len(got)} values where the aggregate "
                             f"sums {self.width}")
        return got


@dataclass(frozen=True)
class _Flags(_Ints):
    """``(1,)`` for a row that passes ``test``, else ``(0,)``: its sum is ``[count]``."""

    test: Test = every


@dataclass(frozen=True)
class _Floats:
    """A per-row float (``None``: the row adds nothing); its sum is exact (``math.fsum``)."""

    get: Callable[[Row], float | None]


_Term = _Ints | _Floats


class Aggregate:
    """A value finished from the sums of per-row terms: a leaf declares its terms and
    finishes their sums; :class:`Combine` finishes the values of other aggregates. An
    aggregate that several others use (a part's counts, a level's sums) is summed and finished
    once per resample."""

    def terms(self) -> tuple[_Term, ...]:
        """The terms a leaf sums (the same objects on every call)."""
        return self._terms

    @cached_property
    def _terms(self) -> tuple[_Term, ...]:
        return self.declare()

    def declare(self) -> tuple[_Term, ...]:
        raise NotImplementedError

    def finish(self, sums: Sequence[Any]) -> Any:
        """The value from the sums of :meth:`terms`, in their order."""
        raise NotImplementedError


@dataclass(frozen=True)
class Count(Aggregate):
    """How many rows pass ``test``."""

    test: Test = every

    def declare(self) -> tuple[_Term, ...]:
        return (_Flags(lambda row: (int(bool(self.test(row))),), 1, test=self.test),)

    def finish(self, sums: Sequence[Any]) -> int:
        return sums[0][0]


@dataclass(frozen=True)
class Sums(Aggregate):
    """The element-wise sum of a per-row integer vector of ``width`` entries over the rows
    ``within`` holds (e.g. BLEU's n-gram statistics, or a level's true positives, predictions
    and gold codes)."""

    get: Callable[[Row], Sequence[int]]
    width: int
    within: Test = every

    def declare(self) -> tuple[_Term, ...]:
        return (_Ints(self.get, self.width, self.within),)

    def finish(self, sums: Sequence[Any]) -> list[int]:
        return list(sums[0])


@dataclass(frozen=True)
class Mean(Aggregate):
    """The mean of ``get`` over the rows ``within`` holds (``statistics.fmean``: an exact sum
    over their number); ``None`` for no rows, or when one of them has no value (``None``)."""

    get: Callable[[Row], float | None]
    within: Test = every

    def declare(self) -> tuple[_Term, ...]:
        def value(row: Row) -> float | None:
            return self.get(row) if self.within(row) else None

        def counted(row: Row) -> tuple[int, int]:
            if not self.within(row):
                return (0, 0)
            return (1, int(self.get(row) is None))

        return (_Floats(value), _Ints(counted, 2))

    def finish(self, sums: Sequence[Any]) -> float | None:
        total, (n, missing) = sums
        return None if missing or not n else total / n


@dataclass(frozen=True)
class Share(Aggregate):
    """The share of the rows ``within`` holds that pass ``test`` (the mean of 0/1 outcomes,
    as ``statistics.fmean`` gives it); ``None`` for no rows."""

    test: Test
    within: Test = every

    def declare(self) -> tuple[_Term, ...]:
        def counted(row: Row) -> tuple[int, int]:
            return (1, int(bool(self.test(row)))) if self.within(row) else (0, 0)

        return (_Ints(counted, 2),)

    def finish(self, sums: Sequence[Any]) -> float | None:
        n, k = sums[0]
        return k / n if n else None


@dataclass(frozen=True)
class Combine(Aggregate):
    """``function`` of the values of ``parts`` (a ratio, an F1, a mean over levels)."""

    function: Callable[..., Any]
    parts: tuple[Aggregate, ...] = field(default=())


def combine(function: Callable[..., Any], *parts: Aggregate) -> Combine:
    """``function(*values of parts)`` as an aggregate."""
    return Combine(function, tuple(parts))


def mean_of_present(parts: Sequence[tuple[Aggregate, Aggregate]]) -> Combine:
    """The mean (``statistics.fmean``) of the values of the parts that have rows (each
    ``(value, row count)``); ``None`` when none has."""
    def finish(*found: Any) -> float | None:
        kept = [value for value, n in zip(found[::2], found[1::2], strict=True) if n]
        return fmean(kept) if kept else None

    return combine(finish, *(a for pair in parts for a in pair))


@dataclass(frozen=True)
class Shown:
    """A headline value: its aggregate, and the part of the rows it is shown for (a resample
    without a row that passes ``part`` has no value for it)."""

    aggregate: Aggregate
    part: Test = every


#: Headline name -> its declaration.
Headline = Mapping[str, Shown]


class _Plan:
    """Aggregates in the order they are finished (each once, parts before what uses them),
    and the distinct terms their leaves sum."""

    def __init__(self, roots: Sequence[Aggregate]):
        self.terms: list[_Term] = []
        #: Per node: its function, its arguments' indices (terms for a leaf, nodes for a
        #: combination) and whether it is a leaf.
        self.nodes: list[tuple[Callable[..., Any], tuple[int, ...], bool]] = []
        self._term_at: dict[int, int] = {}
        self._node_at: dict[int, int] = {}
        self.roots = [self._visit(root) for root in roots]

    def _visit(self, aggregate: Aggregate) -> int:
        key = id(aggregate)
        if key not in self._node_at:
            if isinstance(aggregate, Combine):
                node = (aggregate.function, tuple(self._visit(p) for p in aggregate.parts),
                        False)
            else:
                node = (aggregate.finish, tuple(self._term(t) for t in aggregate.terms()), True)
            self._node_at[key] = len(self.nodes)
            self.nodes.append(node)
        return self._node_at[key]

    def _term(self, term: _Term) -> int:
        if id(term) not in self._term_at:
            self._term_at[id(term)] = len(self.terms)
            self.terms.append(term)
        return self._term_at[id(term)]

    def finish(self, sums: Sequence[Any]) -> list[Any]:
        """Every node's value from one resample's term sums (in :attr:`terms` order)."""
        found: list[Any] = []
        for function, args, leaf in self.nodes:
            found.append(function([sums[i] for i in args]) if leaf
                         else function(*[found[i] for i in args]))
        return found


def _sums(terms: Sequence[_Term], rows: Sequence[Row], drawn: np.ndarray | None
          ) -> list[list[Any]]:
    """Per resample (a row of ``drawn``; ``None``: the rows once, summed directly), each
    term's sum over its drawn rows."""
    if drawn is None:
        return [[_sum_once(t, rows) for t in terms]]
    counts = resample_counts(drawn, len(rows))
    columns: list[list[Any]] = [[] for _ in terms]
    ints = [i for i, t in enumerate(terms) if isinstance(t, _Ints)]
    if ints:
        width = sum(terms[i].width for i in ints)
        matrix = np.array([[v for i in ints for v in terms[i].of(row)] for row in rows],
                          dtype=np.int64).reshape(len(rows), width)
        int_sums = counts @ matrix
        start = 0
        for i in ints:
            end = start + terms[i].width
            columns[i] = int_sums[:, start:end].tolist()
            start = end
    for i, term in enumerate(terms):
        if isinstance(term, _Floats):
            got = [term.get(row) for row in rows]
            columns[i] = exact_sums([0.0 if v is None else float(v) for v in got], drawn,
                                    np.array([v is not None for v in got], dtype=bool))
    return [list(sums) for sums in zip(*columns, strict=True)] if columns else [
        [] for _ in range(drawn.shape[0])]


def _sum_once(term: _Term, rows: Sequence[Row]) -> Any:
    """A term's sum over ``rows`` (ints exactly; floats as ``math.fsum`` sums them)."""
    if isinstance(term, _Flags):
        return [sum(1 for row in rows if term.test(row))]
    if isinstance(term, _Ints):
        vectors = [term.of(row) for row in rows if term.within(row)]
        return [int(sum(column)) for column in zip(*vectors, strict=True)] if vectors else [
            0] * term.width
    return math.fsum(float(v) for v in map(term.get, rows) if v is not None)


def replicates(headline: Headline, rows: Sequence[Row], drawn: np.ndarray) -> Replicates:
    """Every headline value on every resample (``drawn``: a resample's row positions per row):
    the terms summed over the draw counts, finished as :func:`values` finishes them."""
    shown = {id(h.part): Count(h.part) for h in headline.values()}
    plan = _Plan([a for h in headline.values() for a in (h.aggregate, shown[id(h.part)])])
    pairs = list(zip(headline, plan.roots[::2], plan.roots[1::2], strict=True))
    out: Replicates = {name: [] for name in headline}
    for sums in _sums(plan.terms, rows, drawn):
        found = plan.finish(sums)
        for name, at, n in pairs:
            if found[n]:
                out[name].append(found[at])
    return {name: found for name, found in out.items() if found}


def values(aggregates: Mapping[str, Aggregate], rows: Sequence[Row]) -> dict[str, Any]:
    """Each aggregate's value on ``rows`` (their terms summed over the rows once)."""
    plan = _Plan(list(aggregates.values()))
    found = plan.finish(_sums(plan.terms, rows, None)[0])
    return {name: found[at] for name, at in zip(aggregates, plan.roots, strict=True)}


def value(aggregate: Aggregate, rows: Sequence[Row]) -> Any:
    """One aggregate's value on ``rows``."""
    return values({"value": aggregate}, rows)["value"]
