"""Pregnancy dating from the last menstrual period (LMP): due date (13), date of
conception (68) and gestational age (69).

Two conventions. ``official`` (the MedCalc-Bench code): due date = LMP + 280 days + (cycle − 28)
days; conception = LMP + 14 days whatever the cycle. ``clinical`` (obstetric practice: ACOG
Committee Opinion 700, Methods for Estimating the Due Date, 2017; Williams Obstetrics, 26th
ed.): Naegele's rule by the calendar, LMP + 1 year − 3 months + 7 days, shifted by (cycle − 28)
days; ovulation, hence conception, falls 14 days before the next period: LMP + (cycle − 14).
"""

from __future__ import annotations

import calendar
from datetime import date, timedelta

from clineval.benchmarks.medcalc.calculators.base import (
    CalcResult,
    Calculator,
    Entities,
    date_result,
    day,
    format_date,
    number,
    register,
    weeks_days_result,
)

LMP = "Last menstrual date"
CYCLE = "cycle length"
STANDARD_CYCLE_DAYS = 28


def due_date(entities: Entities) -> CalcResult:
    """Naegele's rule adjusted for cycle length: LMP + 280 days + (cycle − 28) days."""
    lmp = day(entities, LMP)
    cycle = int(number(entities, CYCLE))
    naegele = lmp + timedelta(days=280)
    shift = cycle - STANDARD_CYCLE_DAYS
    due = naegele + timedelta(days=shift)
    direction = "later" if shift > 0 else "earlier"
    adjustment = (
        "the cycle is the standard 28 days, so no adjustment is needed"
        if shift == 0
        else f"a {cycle}-day cycle is {abs(shift)} days {'longer' if shift > 0 else 'shorter'} "
        f"than 28, so the due date moves {abs(shift)} days {direction}"
    )
    return date_result(due, [
        "Naegele's rule: the estimated due date is 280 days (40 weeks) after the first day of "
        "the last menstrual period, shifted by the cycle length minus 28 days.",
        f"Last menstrual period: {format_date(lmp)}; LMP + 280 days = {format_date(naegele)}.",
        f"Cycle length: {cycle} days; {adjustment}.",
        f"Estimated due date: {format_date(due)}.",
    ])


def _nine_months_later(lmp: date) -> date:
    """The same day nine calendar months later (+1 year − 3 months), clamped to the month's end."""
    year, month = (lmp.year, lmp.month + 9) if lmp.month <= 3 else (lmp.year + 1, lmp.month - 3)
    return date(year, month, min(lmp.day, calendar.monthrange(year, month)[1]))


def due_date_calendar(entities: Entities) -> CalcResult:
    """Naegele's rule by the calendar: LMP + 1 year − 3 months + 7 days, + (cycle − 28) days."""
    lmp = day(entities, LMP)
    cycle = int(number(entities, CYCLE))
    naegele = _nine_months_later(lmp) + timedelta(days=7)
    shift = cycle - STANDARD_CYCLE_DAYS
    due = naegele + timedelta(days=shift)
    return date_result(due, [
        "Naegele's rule by the calendar: add one year, subtract three months and add seven "
        "days to the first day of the last menstrual period; then shift by the cycle length "
        "minus 28 days.",
        f"Last menstrual period: {format_date(lmp)}; + 1 year − 3 months + 7 days = "
        f"{format_date(naegele)}.",
        f"Cycle length: {cycle} days; shift {shift:+d} days.",
        f"Estimated due date: {format_date(due)}.",
    ])


def conception_date(entities: Entities) -> CalcResult:
    """Conception estimated 2 weeks after the LMP (the dataset's convention; the cycle length
    is recorded in the rows but not used)."""
    lmp = day(entities, LMP)
    conception = lmp + timedelta(days=14)
    return date_result(conception, [
        "Conception is estimated to occur two weeks (14 days) after the first day of the last "
        "menstrual period.",
        f"Last menstrual period: {format_date(lmp)}.",
        f"Estimated date of conception: {format_date(lmp)} + 14 days = {format_date(conception)}.",
    ])


def conception_date_by_cycle(entities: Entities) -> CalcResult:
    """Ovulation (conception) 14 days before the next period: LMP + (cycle − 14) days."""
    lmp = day(entities, LMP)
    cycle = int(number(entities, CYCLE))
    conception = lmp + timedelta(days=cycle - 14)
    return date_result(conception, [
        "Ovulation, and so conception, is estimated 14 days before the next period: the last "
        "menstrual period plus (cycle length − 14) days.",
        f"Last menstrual period: {format_date(lmp)}; cycle length: {cycle} days.",
        f"Estimated date of conception: {format_date(lmp)} + {cycle - 14} days = "
        f"{format_date(conception)}.",
    ])


def gestational_age(entities: Entities) -> CalcResult:
    """Gestational age = today − LMP, in completed weeks and days."""
    lmp = day(entities, LMP)
    today = day(entities, "Current Date")
    elapsed = (today - lmp).days
    if elapsed < 0:
        raise ValueError(f"current date {format_date(today)} precedes the LMP {format_date(lmp)}")
    weeks, days = divmod(elapsed, 7)
    return weeks_days_result(weeks, days, [
        "Gestational age is the time elapsed since the first day of the last menstrual period, "
        "in completed weeks and remaining days.",
        f"Last menstrual period: {format_date(lmp)}; today: {format_date(today)}.",
        f"Elapsed: {elapsed} days = {weeks} weeks and {days} days.",
    ])


register(Calculator(
    id=13,
    name="Estimated Due Date",
    category="date",
    output_type="date",
    compute=due_date,
    variants={"clinical": due_date_calendar},
    question="Using Naegele's Rule for estimated due date based on the last menstrual period and "
    "cycle length, what is the the patient's estimated due date? Your response should be in the "
    "format of M/D/Y (ie 08/31/2023, 07/03/2000) with just the date and not other text. ",
))
register(Calculator(
    id=68,
    name="Estimated of Conception",  # sic: the dataset's name
    category="date",
    output_type="date",
    compute=conception_date,
    variants={"clinical": conception_date_by_cycle},
    question="Based on the patient's last menstrual period and cycle length, what is the the "
    "patient's estimated date of conception? Your answer should be in the format of M/D/Y (ie "
    "08/31/2023, 07/03/2000) with just the date and not other text. ",
))
register(Calculator(
    id=69,
    name="Estimated Gestational Age",
    category="date",
    output_type="weeks_days",
    compute=gestational_age,
    question="Based on the patient's last menstrual period, what is the patient's estimated "
    "gestational age? Your answer should be a tuple, specifying the number of weeks and days "
    "(i.e. (4 weeks, 3 days), (0 weeks, 5 days), (1 week, 5 days), (8 weeks, 0 days)).",
))
