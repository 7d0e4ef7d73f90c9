"""Dates: parse frontmatter values and file names, find dates in text."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta, tzinfo

_ISO_PREFIX = re.compile(r"^\s*(\d{4})-(\d{2})-(\d{2})")
_FILENAME_DATE = re.compile(r"(?<!\d)(\d{4})[-_.]?(\d{2})[-_.]?(\d{2})(?!\d)")


def _make_date(year: int, month: int, day: int) -> date | None:
    """Build a date, or None when the numbers do not form one."""
    if not 1900 <= year <= 2200:
        return None
    try:
        return date(year, month, day)
    except ValueError:
        return None


def wall_clock(moment: datetime, zone: tzinfo = UTC) -> datetime | None:
    """A time as the clocks of `zone` show it, naive; a naive time is one already and stays as it is.

    Every time kgvault reads is made naive this way, in the settings' `timezone` (UTC unless set),
    so its day is the day the user lived it and the machine's own time zone never matters. None
    when the time falls past the calendar's ends there.
    """
    if moment.tzinfo is None:
        return moment
    try:
        return moment.astimezone(zone).replace(tzinfo=None)
    except OverflowError:  # 0001-01-01T00:00+05:00 is before year 1 in UTC
        return None


def epoch_wall_clock(value: int | float, zone: tzinfo = UTC) -> datetime | None:
    """Epoch seconds (or milliseconds) as the clocks of `zone` show them, naive (see `wall_clock`).

    Numbers far from today's epoch range (a bare year, a counter) are no time: None.
    """
    if 10**9 <= value < 10**10:
        seconds = float(value)
    elif 10**12 <= value < 10**13:
        seconds = value / 1000
    else:
        return None
    try:
        return datetime.fromtimestamp(seconds, zone).replace(tzinfo=None)
    except (OverflowError, OSError, ValueError):  # out of the platform's or the calendar's range
        return None


def parse_date_value(value: object, zone: tzinfo = UTC) -> date | None:
    """Read a frontmatter date value (date, datetime, epoch or ISO-like string) as a date.

    A zoned datetime or an epoch is dated in `zone` (see `wall_clock`); a naive one as it is.
    """
    if isinstance(value, datetime):
        moment = wall_clock(value, zone)
        return moment.date() if moment is not None else None
    if isinstance(value, date):
        return value
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return _number_as_date(value, zone)
    if isinstance(value, str):
        text = value.strip()
        try:
            parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
        except ValueError:
            match = _ISO_PREFIX.match(text)
            return _make_date(*map(int, match.groups())) if match else None
        return parse_date_value(parsed, zone)
    return None


def _number_as_date(value: int | float, zone: tzinfo) -> date | None:
    """Read a number as YYYYMMDD, epoch seconds or epoch milliseconds; anything else is no date.

    A bare year (`date: 2025`) or a small number is not a date: reading it as seconds after
    1970 would invent one.
    """
    if isinstance(value, int) and 10**7 <= value < 10**8:
        return _make_date(value // 10000, value // 100 % 100, value % 100)
    moment = epoch_wall_clock(value, zone)
    return _make_date(moment.year, moment.month, moment.day) if moment is not None else None


def date_in_filename(name: str) -> date | None:
    """Find a daily-note style date in a file name: `2025-03-12`, `20250312`, or written out as Roam
    and other apps name daily notes (`March 5th, 2025`, `5 Mar 2025`; an ambiguous `04/03/2025` is none)."""
    for match in _FILENAME_DATE.finditer(name):
        found = _make_date(*map(int, match.groups()))
        if found:
            return found
    written = find_dates(name, None)
    if written:
        return written[0][2]
    # "19-Mar-2025": a day, a month's name and a year joined by dashes, as some apps name a day's file.
    dashed = _DASHED_DAY.search(name)
    if dashed is not None and dashed["month"].lower() in _MONTHS:
        return _make_date(int(dashed["year"]), _MONTHS[dashed["month"].lower()], int(dashed["day"]))
    return None


_DASHED_DAY = re.compile(r"(?<![\w-])(?P<day>\d{1,2})-(?P<month>[A-Za-z]{3,9})-(?P<year>\d{4})(?![\w-])")
_FOLDER_DAY = re.compile(
    r"(?:^|/)(\d{4})/(\d{1,2})/(\d{1,2})(?=/[^/]*$|$|[ _]+(?i:mon|tue|wed|thu|fri|sat|sun)[a-z]*$)"
)
"""A day's file (or folder) in year and month folders: `2025/03/13`, `2025/03/13 Thursday`, not
`2024/10/15-minute pasta`."""


def date_in_path(rel_path: str, stem: str) -> date | None:
    """Date a note by its path: a date in its file name's `stem` (`date_in_filename`), else the year,
    month and day folders a journal keeps it in (`2025/03/13.md`, `Journal/2025/03/13 Thursday.md`)."""
    found = date_in_filename(stem)
    if found is not None or "/" not in rel_path:
        return found
    folders = _FOLDER_DAY.search(f"{rel_path.rsplit('/', 1)[0]}/{stem}")
    return _make_date(*map(int, folders.groups())) if folders else None


# -- dates inside prose -------------------------------------------------------------------------
#
# find_dates reads, in this order of precedence at one position:
#   * ISO dates: 2025-03-12, 2025/03/12 (a time may follow: 2025-03-12T10:00);
#   * day month year: 12 March 2025, 12th Mar. 2025, 1er mars 2025, 12. März 2025, 12 de marzo de 2025;
#   * month day year: March 12, 2025, Mar 12th 2025;
#   * numeric day/month/year with slashes: 25/03/2025 is read day first, 03/25/2025 month first;
#     when both numbers are 12 or less and differ (03/04/2025) the date is ambiguous and skipped,
#     because no timestamp may be invented;
#   * numeric with dots, European style, always day first: 12.03.2025;
#   * relative words resolved against the reference date: today/yesterday/tomorrow, and in French
#     aujourd'hui/hier/demain. Without a reference date they are not dates at all.
# Dates without a year ("12 March") are skipped: the year would be a guess.

_MONTHS: dict[str, int] = {}
for _number, _names in enumerate(
    (
        "january jan janvier janv januar jän enero ene",
        "february feb feb. février fevrier févr fevr februar febrero",
        "march mar mars märz maerz marzo",
        "april apr avril abril",
        "may mai mayo",
        "june jun juin juni junio",
        "july jul juillet juil juli julio",
        "august aug août aout agosto",
        "september sep sept septembre setiembre septiembre",
        "october oct octobre oktober okt octubre",
        "november nov novembre noviembre",
        "december dec décembre decembre déc dezember dez diciembre dic",
    ),
    start=1,
):
    for _name in _names.split():
        _MONTHS[_name.rstrip(".")] = _number
MONTHS = _MONTHS
"""Month names and abbreviations (English and French), lowercase, by number."""
_MONTH_ALTERNATION = "|".join(sorted(map(re.escape, _MONTHS), key=lambda name: (-len(name), name)))
_RELATIVE: dict[str, dict[str, int]] = {
    "en": {"today": 0, "yesterday": -1, "tomorrow": 1},
    "fr": {"aujourd'hui": 0, "aujourd’hui": 0, "hier": -1, "demain": 1},
}
_RELATIVE_WORDS = sorted({word for words in _RELATIVE.values() for word in words}, key=lambda w: (-len(w), w))
_RELATIVE_ALTERNATION = "|".join(map(re.escape, _RELATIVE_WORDS))
_DATE_IN_TEXT = re.compile(
    rf"""
    (?<![\w/.-])(?P<iy>\d{{4}})(?P<isep>[-/])(?P<im>\d{{1,2}})(?P=isep)(?P<id>\d{{1,2}})(?![\d/-]|\.\d)
  | (?<![\w.])(?P<dd>\d{{1,2}})(?:st|nd|rd|th|er|\.)?[ \t]+(?:de[ \t]+)?(?P<dm>{_MONTH_ALTERNATION})\.?,?
        [ \t]+(?:de[ \t]+)?(?P<dy>\d{{4}})(?![\w])
  | (?<![\w.])(?P<mm>{_MONTH_ALTERNATION})\.?[ \t]+(?P<md>\d{{1,2}})(?:st|nd|rd|th)?,?
        [ \t]+(?P<my>\d{{4}})(?![\w])
  | (?<![\w/.-])(?P<sa>\d{{1,2}})/(?P<sb>\d{{1,2}})/(?P<sy>\d{{4}})(?![\w/])
  | (?<![\w/.-])(?P<pd>\d{{1,2}})\.(?P<pm>\d{{1,2}})\.(?P<py>\d{{4}})(?![\w]|\.\d)
  | (?<![\w'’])(?P<rel>{_RELATIVE_ALTERNATION})(?![\w'’])
    """,
    re.IGNORECASE | re.VERBOSE,
)
_RELATIVE_ONLY = re.compile(rf"(?<![\w'’])(?P<rel>{_RELATIVE_ALTERNATION})(?![\w'’])", re.IGNORECASE)
_YEAR = re.compile(r"\d{4}")


def _slash_date(first: int, second: int, year: int) -> date | None:
    """Read a/b/yyyy: day first when a > 12, month first when b > 12, None when ambiguous."""
    if first > 12 or first == second:
        return _make_date(year, second, first)
    if second > 12:
        return _make_date(year, first, second)
    return None


def find_dates(
    text: str, reference: date | None, *, languages: tuple[str, ...] = ("en", "fr")
) -> list[tuple[int, int, date]]:
    """Find explicit and relative dates in prose; return non-overlapping (start, end, date) spans in order.

    Relative words of the given `languages` are resolved against `reference` (skipped without one);
    see the comment above for the formats read and how ambiguous numeric dates are refused.
    """
    relative: dict[str, int] = {}
    if reference is not None:
        lower = text.lower()
        for language in languages:
            for word, days in _RELATIVE.get(language, {}).items():
                if word in lower:
                    relative[word] = days
    # Every explicit format has a four-digit year: most text has none, so skip the big regex.
    if _YEAR.search(text):
        regex = _DATE_IN_TEXT
    elif relative:
        regex = _RELATIVE_ONLY
    else:
        return []
    found: list[tuple[int, int, date]] = []
    for match in regex.finditer(text):
        groups = match.groupdict(default="")
        value: date | None = None
        if groups.get("iy"):
            value = _make_date(int(groups["iy"]), int(groups["im"]), int(groups["id"]))
        elif groups.get("dd"):
            value = _make_date(int(groups["dy"]), _MONTHS[groups["dm"].lower()], int(groups["dd"]))
        elif groups.get("mm"):
            value = _make_date(int(groups["my"]), _MONTHS[groups["mm"].lower()], int(groups["md"]))
        elif groups.get("sa"):
            value = _slash_date(int(groups["sa"]), int(groups["sb"]), int(groups["sy"]))
        elif groups.get("pd"):
            value = _make_date(int(groups["py"]), int(groups["pm"]), int(groups["pd"]))
        elif groups.get("rel") and reference is not None:
            offset = relative.get(groups["rel"].lower())
            if offset is not None:
                try:
                    value = reference + timedelta(days=offset)
                except OverflowError:  # "yesterday" on 0001-01-01, a template's placeholder date
                    value = None
        if value is not None:
            found.append((match.start(), match.end(), value))
    return found


# -- lines that are a date ----------------------------------------------------------------------

_WEEKDAY_ALTERNATION = (
    "monday|tuesday|wednesday|thursday|friday|saturday|sunday|mon|tues|tue|wed|thurs|thur|thu|fri|sat|sun"
    "|lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche"
)
_DATE_LINE = re.compile(
    rf"[ ]{{0,3}}(?P<mark>\*\*|__|\*|_|)(?:(?:{_WEEKDAY_ALTERNATION})\.?,?[ \t]+)?"
    r"(?P<date>[^\s*_:](?:[^\n]*[^\s*_:])?)[ \t]*:?(?P=mark):?[ \t]*",
    re.IGNORECASE,
)
_SLASHED = re.compile(r"(?P<a>\d{1,2})/(?P<b>\d{1,2})/(?P<year>\d{4})")
DATE_LINE_MAX = 60
"""The longest line `date_line` reads: "**Wednesday, 24th September 2025:**" is 35 characters."""


def date_line(line: str) -> str | None:
    """Return the date a line consists of, as written, else None.

    The line is one full date with its year, as `find_dates` reads it, perhaps in bold or italics,
    after a weekday ("Friday 14 March 2025"), before a colon ("March 1, 2025:"); or an a/b/yyyy date
    whose order only the writer's other dates tell (03/04/2025: see `date_line_days`).
    """
    if len(line) > DATE_LINE_MAX:
        return None
    match = _DATE_LINE.fullmatch(line)
    if match is None:
        return None
    written = match["date"]
    found = find_dates(written, None)
    if len(found) == 1 and found[0][:2] == (0, len(written)):
        return written
    return written if _SLASHED.fullmatch(written) else None


def date_line_days(written: list[str]) -> list[date | None]:
    """Read the dates of one note's date lines (`date_line`'s values), in order.

    An ambiguous a/b/yyyy (03/04/2025) is read in the order the note's other a/b/yyyy dates show,
    day first when one has a day over 12 (13/03/2025) and none a month over 12; else it is no day.
    """
    orders: set[str] = set()
    for text in written:
        slashed = _SLASHED.fullmatch(text)
        if slashed is not None and int(slashed["a"]) != int(slashed["b"]):
            if int(slashed["a"]) > 12:
                orders.add("day first")
            elif int(slashed["b"]) > 12:
                orders.add("month first")
    days: list[date | None] = []
    for text in written:
        found = find_dates(text, None)
        slashed = _SLASHED.fullmatch(text)
        if not found and slashed is not None and len(orders) == 1:
            first, second, year = int(slashed["a"]), int(slashed["b"]), int(slashed["year"])
            day, month = (first, second) if "day first" in orders else (second, first)
            days.append(_make_date(year, month, day))
        else:
            days.append(found[0][2] if found else None)
    return days
