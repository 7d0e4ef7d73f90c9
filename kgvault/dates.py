"""Dates: parse frontmatter values and file names, find dates in text."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime

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


def parse_date_value(value: object) -> date | None:
    """Read a frontmatter date value (date, datetime, epoch or ISO-like string) as a date.

    Zoned datetimes are converted to UTC first, so the machine's time zone never matters.
    """
    if isinstance(value, datetime):
        if value.tzinfo is not None:
            value = value.astimezone(UTC)
        return value.date()
    if isinstance(value, date):
        return value
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float) and 0 < value < 10**11:
        return datetime.fromtimestamp(value, UTC).date()
    if isinstance(value, str):
        text = value.strip()
        try:
            parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
        except ValueError:
            match = _ISO_PREFIX.match(text)
            return _make_date(*map(int, match.groups())) if match else None
        return parse_date_value(parsed)
    return None


def date_in_filename(name: str) -> date | None:
    """Find a daily-note style date (`2025-03-12`, `20250312`) in a file name."""
    for match in _FILENAME_DATE.finditer(name):
        found = _make_date(*map(int, match.groups()))
        if found:
            return found
    return None
