"""Time expressions in prose ("last Friday", "two weeks ago", "in May"), resolved against a reference day.

Nothing is guessed: a relative expression without a reference, a bare weekday ("Friday the band
played"), a vague count ("a few days ago", "in a week or so") or a word that is usually not a month
("I may go") stays unresolved. Explicit dates with a year come from `kgvault.dates.find_dates`.
"""

from __future__ import annotations

import re
from calendar import monthrange
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from datetime import date, datetime, timedelta
from functools import lru_cache
from typing import Literal

from kgvault.dates import find_dates

Granularity = Literal["day", "days", "week", "weekend", "month", "year"]
_Span = tuple[date, date, Granularity]

_MONTH_NAMES: tuple[str, ...] = ("January", "February", "March", "April", "May", "June", "July")
_MONTH_NAMES += ("August", "September", "October", "November", "December")
_MONTHS = {name.lower(): number for number, name in enumerate(_MONTH_NAMES, start=1)}
_ABBREVIATIONS = {"jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9}
_ABBREVIATIONS |= {"oct": 10, "nov": 11, "dec": 12}
_ANY_MONTH = _MONTHS | _ABBREVIATIONS
# Ordinary English words as well as months: only a capital letter or an attached year makes them months.
_AMBIGUOUS_MONTHS = frozenset({"may", "march", "mar", "jan"})
_WEEKDAYS = {"monday": 0, "tuesday": 1, "wednesday": 2, "thursday": 3, "friday": 4, "saturday": 5}
_WEEKDAYS |= {"sunday": 6}
# Short forms, after last/this/next only; "sat", "sun" and "wed" are words too often ("this sat idle").
_WEEKDAYS |= {"mon": 0, "tue": 1, "tues": 1, "thu": 3, "thur": 3, "thurs": 3, "fri": 4}
_COUNTS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7}
_COUNTS |= {"eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12}
_FIXED_DAYS = {"today": 0, "tonight": 0, "this morning": 0, "this afternoon": 0, "this evening": 0}
_FIXED_DAYS |= {"yesterday": -1, "last night": -1, "tomorrow": 1}
_FIXED_DAYS |= {"day before yesterday": -2, "day after tomorrow": 2}
_SIGNS = {"last": -1, "this": 0, "next": 1}
_MIN_YEAR, _MAX_YEAR = 1900, 2200


def _alternation(words: Iterable[str]) -> str:
    """A regex alternation of words, longest first so "sept" wins over "sep"."""
    return "|".join(sorted(map(re.escape, words), key=lambda word: (-len(word), word)))


_FULL = _alternation(_MONTHS)
_ANY = _alternation(_ANY_MONTH)
_COUNT = r"\d{1,3}|a\s+couple(?:\s+of)?|" + _alternation(_COUNTS)
_UNIT = r"day|week|month|year"
# Each top-level alternative is one named group, so `match.lastgroup` says which one matched.
_TIME = re.compile(
    rf"""
    (?<![\w'’-])(?:
      (?P<fixed>(?:the\s+)?day\s+(?:before\s+yesterday|after\s+tomorrow)|today|tonight|yesterday|tomorrow
        |this\s+(?:morning|afternoon|evening)|(?<!the\s)last\s+night(?!\s+of\b))
    | (?P<ago>(?P<ago_n>{_COUNT})\s+(?P<ago_unit>{_UNIT})s?\s+ago)
    | (?P<ahead>in\s+(?P<ahead_n>{_COUNT})\s+(?P<ahead_unit>{_UNIT})s?(?!\s+or\b))
    | (?P<around>the\s+(?P<around_unit>weekend|week)\s+(?P<around_side>before|after)
        (?=[ \t]*(?:[.,;:!?)\n]|$)))
    | (?P<past_weekend>(?:this|the)\s+past\s+weekend)
    | (?<!the\s)(?P<named>(?P<named_rel>last|this|next)\s+(?:(?P<named_unit>weekend|week|month|year)
        |(?P<named_day>{_alternation(_WEEKDAYS)})|(?P<named_month>{_FULL})(?!\s*\d))(?!\s+of\b))
    | (?P<day_range>(?P<dr_first>\d{{1,2}})(?:st|nd|rd|th)?\s*[–-]\s*(?P<dr_last>\d{{1,2}})(?:st|nd|rd|th)?
        \s+(?:of\s+)?(?P<dr_month>{_ANY})\.?(?:,?\s+(?P<dr_year>\d{{4}})|(?!\.?,?\s*\d)))
    | (?P<month_range>(?P<mr_month>{_ANY})\.?\s+(?P<mr_first>\d{{1,2}})(?:st|nd|rd|th)?\s*[–-]\s*
        (?P<mr_last>\d{{1,2}})(?:st|nd|rd|th)?(?:,?\s+(?P<mr_year>\d{{4}})|(?!,?\s*\d)))
    | (?P<month_day>(?P<md_month>{_ANY})\.?\s+(?P<md_day>\d{{1,2}})(?:st|nd|rd|th)?
        (?:,?\s+(?P<md_year>\d{{4}})|(?!,?\s*\d)))
    | (?P<day_month>(?<![.,:/])(?P<dm_day>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<dm_month>{_ANY})\.?
        (?:,?\s+(?P<dm_year>\d{{4}})|(?!\.?,?\s*\d)))
    | (?P<month_year>(?P<my_month>{_ANY})\.?,?\s+(?P<my_year>\d{{4}}))
    | (?:in|during|since|of|early|late)\s+(?P<gated>(?P<gated_month>{_FULL})(?!\.?,?\s*\d|['’])
        |(?P<gated_year>\d{{4}}))
    )(?![\w-]|[./:]\d)
    """,
    re.IGNORECASE | re.VERBOSE,
)
# Every expression contains one of these (or a four-digit year): most sentences skip the big regex.
_TRIGGERS: tuple[str, ...] = (*_ABBREVIATIONS, "may", "day", "tomorrow", "night", "week", "month", "year")
_TRIGGERS += ("morning", "afternoon", "evening", "mon", "tue", "thu", "fri")
_FOUR_DIGITS = re.compile(r"\d{4}")


@dataclass(frozen=True, slots=True)
class When:
    """A time expression found in text, resolved to a day or a period."""

    start: int
    """Character offset of the expression in the text."""
    end: int
    """Offset just past it."""
    text: str
    """The expression as written."""
    first: date
    """First day of what it means."""
    last: date
    """Last day (== first for a single day)."""
    granularity: Granularity
    """How wide the expression is: a day, days of one month ("12–15 July"), a Monday-start week, a
    Saturday–Sunday weekend, a month, a year."""

    def phrase(self) -> str:
        """English words for the time: 'on 7 May 2023', 'in the week of 1 May 2023', 'in May 2023'."""
        if self.granularity == "year":
            return f"in {self.first.year}"
        if self.granularity == "month":
            return f"in {_MONTH_NAMES[self.first.month - 1]} {self.first.year}"
        if self.granularity == "days":
            return (
                f"on {self.first.day}–{self.last.day} {_MONTH_NAMES[self.first.month - 1]} {self.first.year}"
            )
        prefix = {"day": "on", "week": "in the week of", "weekend": "on the weekend of"}[self.granularity]
        return f"{prefix} {self.first.day} {_MONTH_NAMES[self.first.month - 1]} {self.first.year}"


def find_times(text: str, reference: date | datetime | None, language: str = "en") -> list[When]:
    """All non-overlapping time expressions in `text`, in order, resolved against `reference`.

    Nothing relative resolves without a reference; explicit dates and years always do. `language`
    "fr" reads French words ("hier soir", "lundi dernier", "il y a deux semaines", "le 12 mars").
    """
    french = language == "fr"
    lower = text.lower()
    if not french and not any(word in lower for word in _TRIGGERS) and not _FOUR_DIGITS.search(text):
        return []
    # A datetime's own wall-clock day is what "yesterday" meant to the person writing at that moment.
    today = reference.date() if isinstance(reference, datetime) else reference
    if today is not None and not _MIN_YEAR <= today.year <= _MAX_YEAR:
        today = None
    found = [When(start, end, text[start:end], day, day, "day") for start, end, day in find_dates(text, None)]
    handlers = _HANDLERS_FR if french else _HANDLERS
    for match in (_time_fr() if french else _TIME).finditer(text):
        name = match.lastgroup or ""
        span = handlers[name](match, today)
        if span is not None and span[0].year >= _MIN_YEAR and span[1].year <= _MAX_YEAR:
            start = match.start(name)
            found.append(When(start, match.end(), text[start : match.end()], *span))
    return _non_overlapping(found)


def _non_overlapping(found: list[When]) -> list[When]:
    """Keep the longest expression at each position; explicit dates (listed first) win ties."""
    kept: list[When] = []
    for when in sorted(found, key=lambda when: (when.start, when.start - when.end)):
        if not kept or when.start >= kept[-1].end:
            kept.append(when)
    return kept


# -- spans ----------------------------------------------------------------------------------------


def _day(day: date) -> _Span:
    """One day."""
    return (day, day, "day")


def _week(day: date) -> _Span:
    """The Monday-to-Sunday week containing `day`."""
    monday = day - timedelta(days=day.weekday())
    return (monday, monday + timedelta(days=6), "week")


def _weekend(day: date) -> _Span:
    """The Saturday and Sunday of the Monday-start week containing `day`."""
    saturday = day + timedelta(days=5 - day.weekday())
    return (saturday, saturday + timedelta(days=1), "weekend")


def _month(year: int, month: int) -> _Span | None:
    """A whole month, or None outside the years we accept."""
    if not _MIN_YEAR <= year <= _MAX_YEAR:
        return None
    return (date(year, month, 1), date(year, month, monthrange(year, month)[1]), "month")


def _months_from(day: date, count: int) -> _Span | None:
    """The month `count` months after the month of `day` (before it when negative)."""
    index = day.year * 12 + day.month - 1 + count
    return _month(index // 12, index % 12 + 1)


def _year(year: int) -> _Span | None:
    """A whole year, or None outside the years we accept."""
    if not _MIN_YEAR <= year <= _MAX_YEAR:
        return None
    return (date(year, 1, 1), date(year, 12, 31), "year")


def _shifted(day: date, count: int, unit: str) -> _Span | None:
    """The day, week, month or year `count` units after `day`, at that unit's granularity."""
    if unit == "day":
        return _day(day + timedelta(days=count))
    if unit == "week":
        return _week(day + timedelta(weeks=count))
    if unit == "month":
        return _months_from(day, count)
    return _year(day.year + count)


# -- reading the words ----------------------------------------------------------------------------


def _count(words: str) -> int:
    """A count written as digits or words: "3", "three", "a", "a couple of"."""
    words = " ".join(words.lower().split())
    if words.isdigit():
        return int(words)
    return 2 if words.startswith("a couple") else _COUNTS[words]


def _month_number(word: str, has_year: bool) -> int | None:
    """The month a word names; an ambiguous word ("may") counts only capitalized or with a year."""
    key = word.lower()
    if key in _AMBIGUOUS_MONTHS and not (has_year or word[0].isupper()):
        return None
    return _ANY_MONTH[key]


def _year_of_month(month: int, today: date, relation: str = "") -> int:
    """The year a month without one refers to.

    Bare ("in May"): the most recent such month, the current one included. "last May": the most
    recent one strictly before the current month. "this May": this calendar year's. "next May":
    the first one strictly after the current month.
    """
    if relation == "this":
        return today.year
    if relation == "last":
        return today.year if month < today.month else today.year - 1
    if relation == "next":
        return today.year if month > today.month else today.year + 1
    return today.year if month <= today.month else today.year - 1


def _weekday(weekday: int, today: date, relation: str) -> date:
    """last = most recent strictly before today; next = first strictly after; this = in today's week."""
    if relation == "last":
        return today - timedelta(days=(today.weekday() - weekday - 1) % 7 + 1)
    if relation == "next":
        return today + timedelta(days=(weekday - today.weekday() - 1) % 7 + 1)
    return today + timedelta(days=weekday - today.weekday())


def _calendar_day(month_word: str, day: str, year: str, today: date | None) -> _Span | None:
    """A month and day, with its year or, failing that, the year of the most recent such month."""
    month = _month_number(month_word.rstrip("."), bool(year))
    if month is None:
        return None
    if year:
        resolved_year = int(year)
    elif today is not None:
        resolved_year = _year_of_month(month, today)
    else:
        return None
    try:
        return _day(date(resolved_year, month, int(day)))
    except ValueError:  # 31 April, or 29 February in a common year: no such day, so no date.
        return None


# -- one handler per alternative of _TIME ---------------------------------------------------------


def _fixed(match: re.Match[str], today: date | None) -> _Span | None:
    """today, yesterday, tonight, last night, the day before yesterday…"""
    if today is None:
        return None
    words = " ".join(match["fixed"].lower().split()).removeprefix("the ")
    return _day(today + timedelta(days=_FIXED_DAYS[words]))


def _ago(match: re.Match[str], today: date | None) -> _Span | None:
    """N days/weeks/months/years ago."""
    if today is None:
        return None
    return _shifted(today, -_count(match["ago_n"]), match["ago_unit"].lower())


def _ahead(match: re.Match[str], today: date | None) -> _Span | None:
    """in N days/weeks/months/years; "in a day" is an idiom ("Rome wasn't built in a day"), no date."""
    unit = match["ahead_unit"].lower()
    if today is None or (unit == "day" and match["ahead_n"].lower() in ("a", "an")):
        return None
    return _shifted(today, _count(match["ahead_n"]), unit)


def _around(match: re.Match[str], today: date | None) -> _Span | None:
    """the week/weekend before/after, said of the reference itself (no event named after it)."""
    if today is None:
        return None
    shifted = today + timedelta(weeks=-1 if match["around_side"].lower() == "before" else 1)
    return _week(shifted) if match["around_unit"].lower() == "week" else _weekend(shifted)


def _past_weekend(match: re.Match[str], today: date | None) -> _Span | None:
    """this past weekend, the past weekend: the last one begun by the reference day."""
    return None if today is None else last_weekend(today)


def can_count_from(day: date) -> bool:
    """Whether relative days may be counted from `day` (a placeholder date such as 9999-12-31 has no
    week after it)."""
    return _MIN_YEAR <= day.year <= _MAX_YEAR


def last_weekend(today: date) -> _Span:
    """The weekend begun last by `today`: its own on a Saturday or Sunday, else the one before."""
    return _weekend(today if today.weekday() >= 5 else today - timedelta(weeks=1))


def _named(match: re.Match[str], today: date | None) -> _Span | None:
    """last/this/next week, weekend, month, year, weekday or month name."""
    relation = match["named_rel"].lower()
    if today is None:
        return None
    if match["named_day"]:
        return _day(_weekday(_WEEKDAYS[match["named_day"].lower()], today, relation))
    if match["named_month"]:
        month = _month_number(match["named_month"], has_year=False)
        return None if month is None else _month(_year_of_month(month, today, relation), month)
    unit, sign = match["named_unit"].lower(), _SIGNS[relation]
    # Weekends follow weeks: "last weekend" is the one of the previous Monday-start week, so on a
    # Saturday or Sunday it is the weekend before the current one, and "next weekend" is the one
    # of the following week, never the coming Saturday of the current week.
    if unit == "weekend":
        return _weekend(today + timedelta(weeks=sign))
    return _shifted(today, sign, unit)


def _month_day(match: re.Match[str], today: date | None) -> _Span | None:
    """May 7, May 7th, May 7, 2023."""
    return _calendar_day(match["md_month"], match["md_day"], match["md_year"] or "", today)


def _day_month(match: re.Match[str], today: date | None) -> _Span | None:
    """7 May, 7th of May, 7 May 2023."""
    return _calendar_day(match["dm_month"], match["dm_day"], match["dm_year"] or "", today)


def _day_range(match: re.Match[str], today: date | None) -> _Span | None:
    """12–15 July, 12-15 July 2025, 3rd-5th of May: days of one month."""
    return _calendar_days(
        match["dr_month"], match["dr_first"], match["dr_last"], match["dr_year"] or "", today
    )


def _month_range(match: re.Match[str], today: date | None) -> _Span | None:
    """July 12–15, July 12-15, 2025."""
    return _calendar_days(
        match["mr_month"], match["mr_first"], match["mr_last"], match["mr_year"] or "", today
    )


def _calendar_days(month_word: str, first: str, last: str, year: str, today: date | None) -> _Span | None:
    """The days from `first` to `last` of one month; a range that runs backwards is no range."""
    start, end = _calendar_day(month_word, first, year, today), _calendar_day(month_word, last, year, today)
    if start is None or end is None or end[0] <= start[0]:
        return None
    return (start[0], end[0], "days")


def _month_year(match: re.Match[str], today: date | None) -> _Span | None:
    """May 2023."""
    month = _month_number(match["my_month"].rstrip("."), has_year=True)
    return None if month is None else _month(int(match["my_year"]), month)


def _gated(match: re.Match[str], today: date | None) -> _Span | None:
    """in May, since March, early June, in 2022: the preposition is what makes the word a time."""
    if match["gated_year"]:
        return _year(int(match["gated_year"]))
    month = _month_number(match["gated_month"], has_year=False)
    if month is None or today is None:
        return None
    return _month(_year_of_month(month, today), month)


_HANDLERS: dict[str, Callable[[re.Match[str], date | None], _Span | None]] = {
    "fixed": _fixed,
    "ago": _ago,
    "ahead": _ahead,
    "around": _around,
    "past_weekend": _past_weekend,
    "named": _named,
    "day_range": _day_range,
    "month_range": _month_range,
    "month_day": _month_day,
    "day_month": _day_month,
    "month_year": _month_year,
    "gated": _gated,
}


# -- French ----------------------------------------------------------------------------------------

_MONTH_NAMES_FR = "janvier|février fevrier|mars|avril|mai|juin|juillet|août aout|septembre|octobre|novembre"
_MONTH_NAMES_FR += "|décembre decembre"
_MONTHS_FR = {
    name: number for number, names in enumerate(_MONTH_NAMES_FR.split("|"), start=1) for name in names.split()
}
_WEEKDAYS_FR = {"lundi": 0, "mardi": 1, "mercredi": 2, "jeudi": 3, "vendredi": 4, "samedi": 5, "dimanche": 6}
_COUNTS_FR = {"un": 1, "une": 1, "deux": 2, "trois": 3, "quatre": 4, "cinq": 5, "six": 6, "sept": 7}
_COUNTS_FR |= {"huit": 8, "neuf": 9, "dix": 10, "onze": 11, "douze": 12}
_FIXED_DAYS_FR = {"aujourd'hui": 0, "ce matin": 0, "cet après-midi": 0, "cet apres-midi": 0, "ce soir": 0}
_FIXED_DAYS_FR |= {"hier": -1, "hier soir": -1, "avant-hier": -2, "demain": 1, "après-demain": 2}
_FIXED_DAYS_FR |= {"apres-demain": 2}
_UNITS_FR = {
    "jour": "day",
    "semaine": "week",
    "mois": "month",
    "an": "year",
    "année": "year",
    "annee": "year",
}
_COUNT_FR = r"\d{1,3}|" + _alternation(_COUNTS_FR)
_UNIT_FR = r"jours?|semaines?|mois|ans?|ann[ée]es?"
_LAST_FR = r"derni[eè]re?|pass[ée]e?"
_NEXT_FR = r"prochaine?"
_TIME_FR_PATTERN = rf"""
    (?<![\w'’-])(?:
      (?P<fixed>aujourd['’]hui|apr[eè]s-demain|avant-hier|hier\s+soir|hier|demain|ce\s+matin
        |cet\s+apr[eè]s-midi|ce\s+soir)
    | (?P<ago>il\s+y\s+a\s+(?P<ago_n>{_COUNT_FR})\s+(?P<ago_unit>{_UNIT_FR}))
    | (?P<ahead>dans\s+(?P<ahead_n>{_COUNT_FR})\s+(?P<ahead_unit>{_UNIT_FR}))
    | (?P<named>(?P<named_unit>la\s+semaine|le\s+mois|l['’]ann[ée]e|l['’]an|le\s+week-?end)
        \s+(?:(?P<named_last>{_LAST_FR})|(?P<named_next>{_NEXT_FR})))
    | (?P<this>cette\s+semaine|ce\s+mois(?:-ci)?|cette\s+ann[ée]e|ce\s+week-?end)
    | (?P<weekday>(?P<wd_day>{_alternation(_WEEKDAYS_FR)})
        (?:\s+(?:(?P<wd_last>dernier)|(?P<wd_next>prochain)))?)
    | (?P<day_month>(?P<dm_day>1er|\d{{1,2}})\s+(?P<dm_month>{_alternation(_MONTHS_FR)})
        (?:\s+(?P<dm_year>\d{{4}})|(?!\s*\d)))
    | (?:en|depuis|début|debut|fin|mi-)\s*(?P<gated>(?P<gated_month>{_alternation(_MONTHS_FR)})(?!\s*\d)
        |(?P<gated_year>\d{{4}}))
    )(?![\w-])
    """
"""French times, one named group per alternative as in `_TIME`. A weekday is read only with
"dernier" or "prochain" ("lundi", "ce lundi" could be the last or the next); a vague count ("il y
a quelques jours") is none."""


@lru_cache(maxsize=1)
def _time_fr() -> re.Pattern[str]:
    """`_TIME_FR_PATTERN`, compiled when a French text is first read (English-only runs never do)."""
    return re.compile(_TIME_FR_PATTERN, re.IGNORECASE | re.VERBOSE)


def _fixed_fr(match: re.Match[str], today: date | None) -> _Span | None:
    """aujourd'hui, hier, hier soir, avant-hier, demain, après-demain, ce matin, ce soir…"""
    if today is None:
        return None
    words = " ".join(match["fixed"].lower().replace("’", "'").split())
    return _day(today + timedelta(days=_FIXED_DAYS_FR[words]))


def _count_fr(words: str) -> int:
    """A count written as digits or French words: "3", "trois", "une"."""
    words = words.lower()
    return int(words) if words.isdigit() else _COUNTS_FR[words]


def _unit_fr(word: str) -> str:
    """The English unit of a French one: "semaines" -> "week", "mois" -> "month"."""
    return _UNITS_FR[word.lower().rstrip("s") if word.lower() != "mois" else "mois"]


def _ago_fr(match: re.Match[str], today: date | None) -> _Span | None:
    """il y a N jours/semaines/mois/ans."""
    if today is None:
        return None
    return _shifted(today, -_count_fr(match["ago_n"]), _unit_fr(match["ago_unit"]))


def _ahead_fr(match: re.Match[str], today: date | None) -> _Span | None:
    """dans N jours/semaines/mois/ans; "dans un jour" is no date, as "in a day" is none."""
    unit = _unit_fr(match["ahead_unit"])
    if today is None or (unit == "day" and match["ahead_n"].lower() in ("un", "une")):
        return None
    return _shifted(today, _count_fr(match["ahead_n"]), unit)


def _named_fr(match: re.Match[str], today: date | None) -> _Span | None:
    """la semaine dernière, le mois prochain, l'année passée, le week-end dernier…"""
    if today is None:
        return None
    sign = -1 if match["named_last"] else 1
    unit = match["named_unit"].lower()
    if "week" in unit:
        return _weekend(today + timedelta(weeks=sign))
    if "semaine" in unit:
        return _week(today + timedelta(weeks=sign))
    return _shifted(today, sign, "month" if "mois" in unit else "year")


def _this_fr(match: re.Match[str], today: date | None) -> _Span | None:
    """cette semaine, ce mois-ci, cette année, ce week-end."""
    if today is None:
        return None
    words = match["this"].lower()
    if "week" in words:
        return _weekend(today)
    if "semaine" in words:
        return _week(today)
    return _shifted(today, 0, "month" if "mois" in words else "year")


def _weekday_fr(match: re.Match[str], today: date | None) -> _Span | None:
    """lundi dernier, lundi prochain; "lundi" alone could be any."""
    if today is None or not (match["wd_last"] or match["wd_next"]):
        return None
    relation = "last" if match["wd_last"] else "next"
    return _day(_weekday(_WEEKDAYS_FR[match["wd_day"].lower()], today, relation))


def _day_month_fr(match: re.Match[str], today: date | None) -> _Span | None:
    """12 mars, le 1er mai, 3 août 2023: without a year, the most recent such month's."""
    month = _MONTHS_FR[match["dm_month"].lower()]
    day = 1 if match["dm_day"].lower() == "1er" else int(match["dm_day"])
    if match["dm_year"]:
        year = int(match["dm_year"])
    elif today is not None:
        year = _year_of_month(month, today)
    else:
        return None
    try:
        return _day(date(year, month, day))
    except ValueError:
        return None


def _gated_fr(match: re.Match[str], today: date | None) -> _Span | None:
    """en mars, depuis juin, fin août, en 2022."""
    if match["gated_year"]:
        return _year(int(match["gated_year"]))
    if today is None:
        return None
    month = _MONTHS_FR[match["gated_month"].lower()]
    return _month(_year_of_month(month, today), month)


_HANDLERS_FR: dict[str, Callable[[re.Match[str], date | None], _Span | None]] = {
    "fixed": _fixed_fr,
    "ago": _ago_fr,
    "ahead": _ahead_fr,
    "named": _named_fr,
    "this": _this_fr,
    "weekday": _weekday_fr,
    "day_month": _day_month_fr,
    "gated": _gated_fr,
}


_LEADING_PREPOSITION = re.compile(
    r"(?i)\b(?:(?:in|on|during|since|of|early|late|by|until|till|from|to|at|for)\s+(?P<the>the\s+)?"
    # "saturday 6th april": a weekday before the day is its preposition too.
    r"|(?:mon|tues|wednes|thurs|fri|satur|sun)day,?\s+)$"
)
_PHRASE_PREPOSITION = re.compile(r"^(?:in|on) ")


_BOOKED_FOR = re.compile(
    r"(?i)\b(?:booked|reserved|scheduled|arranged|organi[sz]ed|planned|sorted)\b[^.;!?]{0,60}?"
    r"\bfor\s+(?:the\s+)?$"
)
_MONTH_WORD = re.compile(rf"(?i)\b{_ANY}\b")
_LONG_GONE = 31
"""Days back beyond which a day booked for, without its year, is the coming one."""


def is_booked_for(text: str, time: When) -> bool:
    """Whether a time is the day something is booked for ("booked the party for 12 April"), not when
    it happened (not "finished the timesheet for 7 March")."""
    return time.granularity in ("day", "days") and _BOOKED_FOR.search(text, 0, time.start) is not None


def booked_ahead(text: str, times: list[When], today: date) -> list[When]:
    """The times, each day something is booked for that is written without its year and long gone
    read as the coming one: "We booked the party for 12 April", said on 3 March 2025, is for
    12 April 2025, not 2024."""
    read = []
    for time in times:
        if (
            (today - time.first).days > _LONG_GONE
            and is_booked_for(text, time)
            and _MONTH_WORD.search(time.text)
            and not _FOUR_DIGITS.search(time.text)
        ):
            time = moved_to(time, _next_year(time.first))
        read.append(time)
    return read


def moved_to(time: When, day: date) -> When:
    """A time that starts on another day, as long as it was."""
    return replace(time, first=day, last=day + (time.last - time.first))


def _next_year(day: date) -> date:
    """The same day a year on (28 February for the 29th)."""
    try:
        return day.replace(year=day.year + 1)
    except ValueError:  # 29 February
        return day.replace(year=day.year + 1, day=28)


def dated_title(title: str, times: list[When]) -> str:
    """The title with each relative time replaced by the date it means ("yesterday" → "on 7 May 2023").

    A time already written with its year stays as written; a preposition in front of the time
    ("in May", "since last week") takes the place of the phrase's own.
    """
    pieces: list[str] = []
    written = 0
    for time in times:
        if _FOUR_DIGITS.search(time.text):
            continue
        before = title[written : time.start]
        phrase = time.phrase()
        leading = _LEADING_PREPOSITION.search(before)
        if leading or title[time.end : time.end + 2] in ("'s", "’s"):
            # "since last week" → "since the week of …"; "tomorrow's opening" → "5 March 2024's opening"
            phrase = _PHRASE_PREPOSITION.sub("", phrase)
            if leading and leading["the"] and phrase[:1].isdigit():
                before = before[: leading.start("the")]  # "on the 3rd" → "on 3 May 2024", not "on the 3 May"
        elif not (pieces or before.strip()):
            phrase = phrase[0].upper() + phrase[1:]  # it opens the sentence
        if time.text.endswith(".") and not title[time.end :].strip():
            phrase += "."  # "… on 12 February." read with its full stop: the sentence keeps it
        pieces.extend((before, phrase))
        written = time.end
    pieces.append(title[written:])
    return "".join(pieces)
