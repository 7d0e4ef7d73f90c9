"""Dates: frontmatter values, file names, and dates found in prose."""

from __future__ import annotations

from datetime import date
from itertools import pairwise

import pytest

from kgvault.dates import date_in_filename, date_in_path, find_dates, parse_date_value

REF = date(2025, 3, 12)


def found(text: str, reference: date | None = REF, **kwargs: tuple[str, ...]) -> list[tuple[str, date]]:
    """The matched text and date of every span find_dates returns."""
    return [(text[start:end], value) for start, end, value in find_dates(text, reference, **kwargs)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("On 2025-03-12 I printed", ("2025-03-12", date(2025, 3, 12))),
        ("log 2025/03/09 here", ("2025/03/09", date(2025, 3, 9))),
        ("at 2025-03-12T10:30:00 sharp", ("2025-03-12", date(2025, 3, 12))),
        ("on 12 March 2025 it broke", ("12 March 2025", date(2025, 3, 12))),
        ("on 3rd Mar. 2024 it broke", ("3rd Mar. 2024", date(2024, 3, 3))),
        ("on March 12, 2025 it broke", ("March 12, 2025", date(2025, 3, 12))),
        ("on Sept 9th 2024 it broke", ("Sept 9th 2024", date(2024, 9, 9))),
        ("le 1er mars 2025 à Lyon", ("1er mars 2025", date(2025, 3, 1))),
        ("am 12. März 2025 in Berlin", ("12. März 2025", date(2025, 3, 12))),
        ("el 12 de marzo de 2025", ("12 de marzo de 2025", date(2025, 3, 12))),
        ("paid 25/03/2025 (day first)", ("25/03/2025", date(2025, 3, 25))),
        ("paid 03/25/2025 (month first)", ("03/25/2025", date(2025, 3, 25))),
        ("paid 05/05/2025 (same either way)", ("05/05/2025", date(2025, 5, 5))),
        ("am 12.03.2025 (dots are day first)", ("12.03.2025", date(2025, 3, 12))),
    ],
)
def test_explicit_formats(text: str, expected: tuple[str, date]) -> None:
    assert found(text) == [expected]


def test_ambiguous_numeric_dates_are_refused_not_guessed() -> None:
    assert found("paid 03/04/2025 and 11/12/2024") == []


@pytest.mark.parametrize(
    "text",
    [
        "Updated to Marlin 2.1.3 and v2.1.3",
        "release 2025.1 and 1.2.3.4",
        "invalid 2025-13-40 and 2025-02-30",
        "sometime in 2025",
        "on 12 March, no year",
        "2.3 million rows, 41 minutes, 350 mm",
        "call +1 415 555 0199",
        "build 20250312 and id 12345678",
    ],
)
def test_no_dates_in_versions_numbers_or_partial_dates(text: str) -> None:
    assert found(text) == []


def test_relative_words_resolve_against_the_reference() -> None:
    assert found("Yesterday it failed, today it works, tomorrow we print.") == [
        ("Yesterday", date(2025, 3, 11)),
        ("today", date(2025, 3, 12)),
        ("tomorrow", date(2025, 3, 13)),
    ]


def test_relative_words_without_a_reference_are_not_dates() -> None:
    assert found("yesterday and today", None) == []


def test_french_relative_words_only_when_french_is_asked() -> None:
    text = "Hier soir, et demain aussi; aujourd'hui rien."
    assert found(text, languages=("en", "fr")) == [
        ("Hier", date(2025, 3, 11)),
        ("demain", date(2025, 3, 13)),
        ("aujourd'hui", date(2025, 3, 12)),
    ]
    assert found("Ich bin hier", languages=("en",)) == []


def test_relative_words_inside_other_words_are_not_dates() -> None:
    assert found("the hierarchy of todays_list", languages=("en", "fr")) == []


def test_spans_are_in_text_order_and_do_not_overlap() -> None:
    text = "From 2025-01-05 to March 9, 2025, then yesterday."
    spans = find_dates(text, REF)
    assert [value for _, _, value in spans] == [date(2025, 1, 5), date(2025, 3, 9), date(2025, 3, 11)]
    assert all(end <= next_start for (_, end, _), (next_start, _, _) in pairwise(spans))


def test_the_existing_parsers_keep_their_behaviour() -> None:
    assert parse_date_value("2025-03-12") == date(2025, 3, 12)
    assert parse_date_value("2025-03-12T23:30:00-05:00") == date(2025, 3, 13)
    assert parse_date_value("not a date") is None
    assert date_in_filename("daily/20250312 notes.md") == date(2025, 3, 12)
    assert date_in_filename("no date here.md") is None


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("March 5th, 2025", date(2025, 3, 5)),  # Roam's daily notes
        ("March 5, 2025", date(2025, 3, 5)),
        ("Wednesday, March 5, 2025", date(2025, 3, 5)),
        ("13 Mar 2025", date(2025, 3, 13)),
        ("05.03.2025", date(2025, 3, 5)),
        ("04-03-2025", None),  # the 4th of March or the 3rd of April: no guess
        ("Reading log 2025", None),
        ("Q1 2025 planning", None),
        ("19-Mar-2025", date(2025, 3, 19)),
        ("19-Foo-2025", None),
    ],
)
def test_a_daily_note_named_with_a_written_date_is_dated_by_it(name: str, expected: date | None) -> None:
    assert date_in_filename(name) == expected


@pytest.mark.parametrize(
    ("path", "stem", "expected"),
    [
        ("Journal/2025/03/13.md", "13", date(2025, 3, 13)),  # year, month and day folders
        ("2025/03/13 Thursday.md", "13 Thursday", date(2025, 3, 13)),
        ("2025/12/31/log.md", "log", date(2025, 12, 31)),  # a day's folder
        ("daily/2025-03-12.md", "2025-03-12", date(2025, 3, 12)),  # the file name first
        ("2025/03/notes.md", "notes", None),  # a month's folder: no day
        ("2025/13/01.md", "01", None),
        ("projects/2025/03/13/a/log.md", "log", None),
        ("Recipes/2024/10/15-minute pasta.md", "15-minute pasta", None),  # no day's file
    ],
)
def test_a_journal_kept_in_year_month_and_day_folders_is_dated_by_them(
    path: str, stem: str, expected: date | None
) -> None:
    assert date_in_path(path, stem) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (20250312, date(2025, 3, 12)),  # a common template format: YYYYMMDD as a number
        (1741737600, date(2025, 3, 12)),  # epoch seconds
        (1741737600000, date(2025, 3, 12)),  # epoch milliseconds
        (2025, None),  # a bare year is not a date
        (20251345, None),  # not a calendar date
        (12, None),  # nor is a small number: 1970-01-01 would be invented
    ],
)
def test_numbers_in_frontmatter_never_invent_a_date(value: int, expected: date | None) -> None:
    assert parse_date_value(value) == expected


@pytest.mark.parametrize(
    ("text", "reference"),
    [("I met Lu yesterday.", date.min), ("I meet Ken tomorrow.", date.max), ("Je l’ai vu hier.", date.min)],
)
def test_a_relative_word_beyond_the_calendar_dates_nothing(text: str, reference: date) -> None:
    # 0001-01-01 is a common placeholder date in note templates: the build must not crash on it.
    assert find_dates(text, reference) == []
