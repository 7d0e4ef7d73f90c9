"""Tests for date lines: a diary's line that is only a date dates what follows it, as a heading would."""

from __future__ import annotations

import re
from datetime import date
from itertools import pairwise
from pathlib import Path

import pytest
import yaml

from kgvault.chunks import chunk_source
from kgvault.dates import date_line
from kgvault.records import SourceKind

from .conftest import notes_with, run_build
from .test_chunks import assert_exact_coverage, make_source

FORMS = {
    "words.md": "14 March 2025\nFixed the boiler.\n\n15 March 2025\nFlew to Lisbon.\n",
    "slashes.txt": "12/03/2025\nWent to the pub with the old uni lot.\n\n13/03/2025\nTook Mum to Dishoom.\n",
    "bold.md": "**March 1, 2025**\nWalked the dog with Sam.\n\n**March 2, 2025**\nWatched the rugby.\n",
    "colon.md": "March 1, 2025:\nPainted the fence.\n\nMarch 2, 2025:\nCleaned the garage.\n",
    "weekday.md": (
        "Friday 14 March 2025\nMet Ana for coffee.\n\n_Saturday 15 March 2025_\nTook the kids to the zoo.\n"
    ),
}
DAYS = {
    "Fixed the boiler.": date(2025, 3, 14),
    "Flew to Lisbon.": date(2025, 3, 15),
    "Went to the pub with the old uni lot.": date(2025, 3, 12),
    "Took Mum to Dishoom.": date(2025, 3, 13),
    "Walked the dog with Sam.": date(2025, 3, 1),
    "Watched the rugby.": date(2025, 3, 2),
    "Painted the fence.": date(2025, 3, 1),
    "Cleaned the garage.": date(2025, 3, 2),
    "Met Ana for coffee.": date(2025, 3, 14),
    "Took the kids to the zoo.": date(2025, 3, 15),
}


def episodes(vault: Path) -> dict[str, date]:
    """Each episodic page's title, to its timestamp."""
    found: dict[str, date] = {}
    for page in (vault / "episodic").glob("*.md"):
        meta = yaml.safe_load(page.read_text("utf-8").split("---\n")[1])
        found[meta["title"]] = meta["timestamp"]
    return found


def coverage(vault: Path, summary: str) -> list[tuple[int, int]]:
    """The line ranges a source's summary page accounts for."""
    text = (vault / "sources" / summary).read_text("utf-8")
    return [(int(a), int(b)) for a, b in re.findall(r"^\| (\d+)-(\d+) \|", text, re.MULTILINE)]


def test_each_entry_gets_the_day_of_the_date_line_above_it(tmp_path: Path) -> None:
    notes, vault = notes_with(tmp_path, FORMS)
    run_build(notes, vault)
    assert episodes(vault) == DAYS
    for name, text in FORMS.items():
        lines = text.split("\n")
        ranges = coverage(vault, f"{Path(name).stem}-summary.md")
        covered = {number for start, end in ranges for number in range(start, end + 1)}
        assert covered >= {n for n, line in enumerate(lines, start=1) if line.strip()}, name
        assert all(end < start for (_, end), (start, _) in pairwise(ranges)), name


@pytest.mark.parametrize("kind", ["markdown", "text"])
def test_date_lines_head_sections_of_their_day(kind: SourceKind) -> None:
    text = "Week in Porto.\n\n14 March 2025\nFixed the boiler.\n\nMore on it.\n\n15 March 2025\nFlew home.\n"
    source = make_source(text, kind=kind, reference_time=date(2025, 3, 10))
    chunks = chunk_source(source, max_chars=30)
    assert_exact_coverage(source, chunks)
    assert [(c.line_start, c.heading_path, c.reference_time) for c in chunks] == [
        (1, (), date(2025, 3, 10)),
        (3, ("14 March 2025",), date(2025, 3, 14)),
        (6, ("14 March 2025",), date(2025, 3, 14)),
        (8, ("15 March 2025",), date(2025, 3, 15)),
    ]


def test_a_date_line_sits_below_its_heading_and_a_heading_ends_it() -> None:
    text = (
        "# March\n\n**March 1, 2025**\nPainted the fence.\n\n### Ideas\nA shed.\n\n"
        "March 2, 2025:\nCleaned the garage.\n\n# April\nNothing yet.\n"
    )
    source = make_source(text)
    chunks = chunk_source(source)
    assert_exact_coverage(source, chunks)
    assert [(c.line_start, c.heading_path, c.reference_time) for c in chunks] == [
        (1, ("March",), None),
        (3, ("March", "March 1, 2025"), date(2025, 3, 1)),
        (6, ("March", "March 1, 2025", "Ideas"), date(2025, 3, 1)),
        (9, ("March", "March 2, 2025:"), date(2025, 3, 2)),
        (12, ("April",), None),
    ]


def test_a_slashed_date_is_read_in_the_order_the_notes_other_dates_show() -> None:
    day_first = make_source("03/04/2025\nA.\n\n13/04/2025\nB.\n", kind="text")
    assert [c.reference_time for c in chunk_source(day_first)] == [date(2025, 4, 3), date(2025, 4, 13)]
    # With nothing to tell the order, 03/04/2025 still starts an entry, of no day of its own.
    unknown = make_source("03/04/2025\nA.\n\n05/06/2025\nB.\n", kind="text", reference_time=date(2025, 1, 1))
    assert [c.reference_time for c in chunk_source(unknown)] == [date(2025, 1, 1), date(2025, 1, 1)]


@pytest.mark.parametrize(
    "line",
    [
        "14 March 2025 was a good day",
        "We flew out on 14 March 2025",
        "14 March",
        "Friday",
        "2025",
        "14 March 2025.",
        "2025-03-14T10:00",
        "    2025-03-14",
        "**14 March 2025",
        "14 March 2025 and 15 March 2025",
    ],
)
def test_a_line_with_more_or_less_than_a_full_date_is_no_date_line(line: str) -> None:
    assert date_line(line) is None
    source = make_source(f"{line}\nFixed the boiler.\n\n16 March 2025\nFlew home.\n")
    assert chunk_source(source)[0].heading_path == ()


def test_a_date_inside_a_paragraph_or_a_list_is_no_date_line() -> None:
    text = "We met on\n14 March 2025\nat the station.\n\n- 15 March 2025\n- Flew home.\n\n> 16 March 2025\n"
    source = make_source(text, reference_time=date(2025, 3, 1))
    chunks = chunk_source(source)
    assert [(c.heading_path, c.reference_time) for c in chunks] == [((), date(2025, 3, 1))]


@pytest.mark.parametrize(
    ("kind", "text"),
    [
        ("markdown", "# Meeting with Ana\nMarch 3, 2025\n\n## Attendees\nAna.\n\nMarch 5, 2025\n"),
        ("text", "Meeting with Ana\nMarch 3, 2025\n\nMarch 4, 2025\n\nMarch 5, 2025\n"),
    ],
)
def test_a_date_line_with_nothing_below_it_heads_no_day(kind: SourceKind, text: str) -> None:
    source = make_source(text, kind=kind)
    chunks = chunk_source(source)
    assert_exact_coverage(source, chunks)
    assert [c.reference_time for c in chunks] == [None] * len(chunks)
    assert len(chunks) == (2 if kind == "markdown" else 1)


def test_a_date_line_in_a_days_or_a_persons_note_or_alone_dates_nothing_after_it(tmp_path: Path) -> None:
    notes, vault = notes_with(
        tmp_path,
        {
            # A day's note names a day ahead (a flight); what follows is still of the note's day.
            "daily/2025-03-03.md": "Booked the flights!\n\n20 April 2025\nLisbon, 9am from Gatwick.\n\n"
            "Had lunch with Aisha at the ramen place.\n",
            # A person's note opens with their birthday.
            "people/Grandad.md": "---\ntags: [person]\n---\n4 June 1941\nGrandad was born in Cork.\n\n"
            "Grandad lives in Dublin.\n\n12 May 1990\nGrandad loves gardening.\n",
            # One date line alone, in a note dated otherwise: a day it names, no diary.
            "trip.md": "---\ndate: 2025-03-05\n---\nPlanned the trip.\n\n20 April 2025\n"
            "Packed the bags early.\n",
        },
    )
    run_build(notes, vault)
    days = episodes(vault)
    assert days["Had lunch with Aisha at the ramen place."] == date(2025, 3, 3)
    assert days["Packed the bags early."] == date(2025, 3, 5)
    # What holds of Grandad is no state of 1941 or 1990: facts, as without the dates.
    assert "Grandad lives in Dublin." not in days and "Grandad loves gardening." not in days
    assert {p.stem for p in (vault / "semantic").glob("*.md")} >= {
        "grandad-lives-in-dublin",
        "grandad-loves-gardening",
    }
