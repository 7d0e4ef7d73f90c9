"""Tests for meeting transcripts saved as captions: WebVTT (Zoom, Teams) and SubRip files."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from kgvault.check import check_vault
from kgvault.conversations.captions import looks_like_captions, read_captions

from .conftest import assert_written_nowhere, notes_with, run_build, tree_bytes, triples

ZOOM = """WEBVTT

1
00:00:00.000 --> 00:00:04.120
Jane Doe: Okay, let's get started. We decided to move

2
00:00:04.200 --> 00:00:07.000
Jane Doe: the launch to April.

3
00:00:07.500 --> 00:00:12.000
Tom Becker: I switched the staging database to Postgres 16 yesterday.

4
00:00:12.500 --> 00:00:15.000
Jane Doe: Great. Priya will own the migration &amp; the rollback plan.
"""

TEAMS = """WEBVTT

NOTE written by the meeting's recorder

a1b2c3d4-1111/12-0
00:03.260 --> 00:07.180 align:start
<v.loud Anna Kowalski>I moved to <i>Berlin</i>
last month.</v>

a1b2c3d4-1111/13-0
00:07.300 --> 00:10.000
<v Ravi Patel>We use Redis for the session cache.</v>

a1b2c3d4-1111/14-0
00:10.300 --> 00:11.000
<c.yellow>Ravi Patel:</c> Really.
"""

SUBRIP = """1
00:00:01,000 --> 00:00:03,500
MAYA: I started at Stripe on Monday.

2
00:00:04,000 --> 00:00:06,000
and it's going well.

3
00:00:06,500 --> 00:00:09,000
LEO: Note: the offsite moved to Lisbon.
"""

SUBTITLES = """1
00:00:01,000 --> 00:00:04,000
I'll be back.

2
00:00:05,000 --> 00:00:08,000
Note: Hasta la vista, baby.
"""


def _said(text: str) -> list[tuple[str, str, int, int]]:
    turns, problems = read_captions(text)
    assert problems == []
    return [(t.speaker, t.text, t.line_start, t.line_end) for t in turns]


def test_a_zoom_transcript_joins_each_speakers_cues_on_the_files_lines() -> None:
    assert _said(ZOOM) == [
        ("Jane Doe", "Okay, let's get started. We decided to move the launch to April.", 5, 9),
        ("Tom Becker", "I switched the staging database to Postgres 16 yesterday.", 13, 13),
        ("Jane Doe", "Great. Priya will own the migration & the rollback plan.", 17, 17),
    ]


def test_teams_voice_tags_name_the_speaker_and_markup_is_dropped() -> None:
    assert _said(TEAMS) == [
        ("Anna Kowalski", "I moved to Berlin last month.", 7, 8),
        ("Ravi Patel", "We use Redis for the session cache. Really.", 12, 16),
    ]


def test_subrip_cues_without_a_name_continue_the_speaker_and_a_notes_label_is_no_speaker() -> None:
    assert _said(SUBRIP) == [
        ("MAYA", "I started at Stripe on Monday. and it's going well.", 3, 7),
        ("LEO", "Note: the offsite moved to Lisbon.", 11, 11),
    ]


def test_names_zoom_shows_are_speakers_and_words_before_a_colon_are_not() -> None:
    text = """WEBVTT

1
00:00:00.000 --> 00:00:03.000
Tom Becker: Let's start, Maria is joining by phone.

2
00:00:03.500 --> 00:00:06.000
+49 30 1234567: Hi, this is Maria. I moved to Berlin last month.

3
00:00:06.500 --> 00:00:09.000
Anna Schmidt (she/her) - Acme GmbH: I started at Stripe on Monday.

4
00:00:09.500 --> 00:00:12.000
Dr. María José Pérez de la Cruz: Long story short: we ship Friday.

5
00:00:12.500 --> 00:00:14.000
April: I moved to Denver.

6
00:00:14.500 --> 00:00:16.000
jane.doe@example.com: Welcome, April.

7
00:00:16.500 --> 00:00:18.000
Note: nothing.
"""
    assert _said(text) == [
        ("Tom Becker", "Let's start, Maria is joining by phone.", 5, 5),
        ("+49 30 1234567", "Hi, this is Maria. I moved to Berlin last month.", 9, 9),
        ("Anna Schmidt (she/her) - Acme GmbH", "I started at Stripe on Monday.", 13, 13),
        ("Dr. María José Pérez de la Cruz", "Long story short: we ship Friday.", 17, 17),
        ("April", "I moved to Denver.", 21, 21),
        ("jane.doe@example.com", "Welcome, April. Note: nothing.", 25, 29),  # a note's label is no name
    ]


def test_a_line_of_a_cue_may_open_another_speakers_words() -> None:
    text = """WEBVTT

00:07.300 --> 00:09.000
- <v Anna Kowalski>Ready?</v>
- <v Ravi Patel>I started at Google on Monday.</v>

00:09.300 --> 00:11.000
>> PRIYA: Long story short: we ship Friday.
and then we rest.
TOM: ok
"""
    assert _said(text) == [
        ("Anna Kowalski", "Ready?", 4, 4),
        ("Ravi Patel", "I started at Google on Monday.", 5, 5),
        ("PRIYA", "Long story short: we ship Friday. and then we rest.", 8, 9),
        ("TOM", "ok", 10, 10),
    ]
    turns, problems = read_captions(
        "WEBVTT\n\n00:01.000 --> 00:02.000\n<v Jane>Hi! <v Ravi>Hello Jane.</v>\n"
    )
    assert [(t.speaker, t.text) for t in turns] == [("Jane", "Hi! Hello Jane.")]
    assert problems == [
        (
            4,
            "a second voice on one line (`<v Ravi>`): its words are read as the first's; put each voice on a "
            "line of its own",
        )
    ]


def test_cues_written_loosely_lose_no_words() -> None:
    no_spaces = "1\n00:00:01,000-->00:00:02,000\nAna: I moved to Paris last week.\n"
    assert _said(no_spaces) == [("Ana", "I moved to Paris last week.", 3, 3)]
    youtube = (
        "WEBVTT\n\n00:00:00.000 --> 00:00:02.330 align:start\n \nJane:<00:00:00.480><c> so</c><c> today</c>\n"
    )
    assert _said(youtube) == [("Jane", "so today", 5, 5)]  # a line of spaces ends no cue
    packed = (
        "1\n00:00:01,000 --> 00:00:02,000\nAna: I moved to Paris last week.\n"
        "2\n00:00:02,000 --> 00:00:03,000\nBen: Nice.\n"
    )
    assert _said(packed) == [("Ana", "I moved to Paris last week.", 3, 3), ("Ben", "Nice.", 6, 6)]
    assert looks_like_captions("\n" * 12 + packed)


def test_subtitles_that_name_no_speaker_give_no_turns() -> None:
    assert looks_like_captions(SUBTITLES)
    assert read_captions(SUBTITLES) == ((), [])
    assert not looks_like_captions("# Notes\n\nMet Ana at 10:00 -- then lunch.\n")


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.sampled_from([*ZOOM.split("\n"), *TEAMS.split("\n"), *SUBRIP.split("\n"), "x", ""]), max_size=14
    )
)
def test_the_reader_never_raises_and_its_turns_stay_on_the_files_lines(lines: list[str]) -> None:
    text = "\n".join(lines)
    count = len(lines) or 1
    for turn in read_captions(text)[0]:
        assert 1 <= turn.line_start <= turn.line_end <= count
        assert turn.speaker.strip() and "<" not in turn.text


def _front(page: Path) -> dict[str, object]:
    return yaml.safe_load(page.read_text("utf-8").split("---\n")[1])


def test_caption_files_build_into_dated_episodes_of_their_speakers(tmp_path: Path) -> None:
    notes, vault = notes_with(
        tmp_path,
        {
            "meetings/GMT20250312-140503_Recording.transcript.vtt": ZOOM,
            "meetings/2025-03-14 10.00.00 Design review 81234567890/closed_caption.vtt": TEAMS,
            "film/movie.srt": SUBTITLES,
        },
    )
    before = {p: p.read_bytes() for p in notes.rglob("*.*") if p.is_file()}
    report = run_build(notes, vault)
    assert check_vault(vault, notes=notes) == []
    assert [(p["path"], p["message"].split(":")[0]) for p in report["problems"]] == [  # type: ignore[index, union-attr]
        ("film/movie.srt", "captions that name no speaker (subtitles, or a recording's words)")
    ]
    episodes = {str(_front(p)["title"]): _front(p) for p in (vault / "episodic").glob("*.md")}
    decided = episodes["Jane Doe: We decided to move the launch to April."]
    assert (decided["attributed_to"], decided["timestamp"]) == ("Jane Doe", date(2025, 3, 12))
    switched = next(e for title, e in episodes.items() if title.startswith("Tom Becker: I switched"))
    assert switched["timestamp"] == date(2025, 3, 11)
    moved = next(e for title, e in episodes.items() if title.startswith("Anna Kowalski: I moved to Berlin"))
    assert moved["timestamp"] == date(2025, 2, 1)  # "last month", said on the folder's day
    relations = [json.loads(line) for line in (vault / "relations.jsonl").read_text("utf-8").splitlines()]
    assert ("anna-kowalski", "lives_in", "berlin") in {(r["from"], r["relation"], r["to"]) for r in relations}
    # A generic file name takes its meeting's name from its folder (without Zoom's time and meeting id).
    (page,) = (vault / "sources").rglob("*design-review-81234567890-closed-caption-summary.md")
    review = _front(page)
    assert (review["title"], review["reference_time"]) == ("Design review", date(2025, 3, 14))
    assert not any("be back" in title or "vista" in title for title in episodes)
    assert {p: p.read_bytes() for p in notes.rglob("*.*") if p.is_file()} == before


def test_captions_are_dated_by_their_folders_and_named_without_their_suffixes(tmp_path: Path) -> None:
    notes, vault = notes_with(
        tmp_path,
        {
            "meetings/2025/03/14/transcript.vtt": ZOOM,
            "GMT20250312-140503_Recording.cc.vtt": ZOOM,
            "empty.vtt": "WEBVTT\n",
        },
    )
    report = run_build(notes, vault)
    problems = [(p["path"], p["message"]) for p in report["problems"]]  # type: ignore[index, union-attr]
    assert problems == [("empty.vtt", "captions with no cue: nothing to read")]
    summaries = {str(s["title"]): s["reference_time"] for s in map(_front, (vault / "sources").rglob("*.md"))}
    assert summaries == {"transcript": date(2025, 3, 14), "GMT20250312-140503_Recording": date(2025, 3, 12)}


def test_captions_without_a_date_say_how_to_give_one(tmp_path: Path) -> None:
    notes, vault = notes_with(tmp_path, {"Weekly sync.vtt": ZOOM})
    report = run_build(notes, vault)
    messages = [p["message"] for p in report["problems"]]  # type: ignore[index, union-attr]
    assert len(messages) == 1 and "put the meeting's date in the file's name" in messages[0]
    assert not list((vault / "episodic").glob("*.md"))  # undated turns give no episode
    (page,) = (vault / "sources").rglob("weekly-sync-summary.md")
    summary = page.read_text("utf-8")
    assert "| 5-9 |" in summary  # yet every line is accounted for


def test_an_edited_transcript_rebuilds_as_a_clean_build_of_it_does(tmp_path: Path) -> None:
    notes, vault = notes_with(tmp_path, {"2025-03-12 Weekly sync.vtt": ZOOM})
    run_build(notes, vault)
    edited = ZOOM + "\n5\n00:00:15.500 --> 00:00:18.000\nTom Becker: I moved to Lisbon last week.\n"
    (notes / "2025-03-12 Weekly sync.vtt").write_text(edited, "utf-8")
    run_build(notes, vault)
    clean = tmp_path / "clean"
    run_build(notes, clean)
    assert tree_bytes(vault) == tree_bytes(clean)
    assert ("tom-becker", "lives_in", "lisbon") in set(triples(vault))


def test_speakers_an_app_could_not_name_are_no_one_entity_across_meetings(tmp_path: Path) -> None:
    """Every transcript's "Speaker 1" is someone else: their words stay theirs, but no page gathers them."""
    first = "WEBVTT\n\n00:01.000 --> 00:04.000\nSpeaker 1: I moved to Berlin last month.\n"
    second = "WEBVTT\n\n00:01.000 --> 00:04.000\nSpeaker 1: I moved to Madrid last month.\n"
    notes, vault = notes_with(tmp_path, {"2025-03-12 Sync.vtt": first, "2025-04-02 Sync.vtt": second})
    run_build(notes, vault)
    assert not (vault / "entities" / "speaker-1.md").exists()
    episodes = [_front(p) for p in (vault / "episodic").glob("*.md")]
    assert sorted(str(e["title"]) for e in episodes) == [
        "Speaker 1: I moved to Berlin in February 2025.",
        "Speaker 1: I moved to Madrid in March 2025.",
    ]
    assert {e["attributed_to"] for e in episodes} == {"Speaker 1"}
    assert not any(r[0] == "speaker-1" for r in triples(vault))  # Berlin and Madrid are no one's homes


def test_a_voice_shown_by_an_email_or_a_phone_number_is_written_nowhere(tmp_path: Path) -> None:
    text = (
        "WEBVTT\n\n00:01.000 --> 00:04.000\njane.doe@example.com: I moved to Berlin last month.\n\n"
        "00:05.000 --> 00:08.000\n+49 30 1234567: I started at Stripe last week.\n"
    )
    notes, vault = notes_with(tmp_path, {"2025-03-12 Sync.vtt": text})
    run_build(notes, vault)
    assert_written_nowhere(vault, ["jane.doe@example.com", "+49 30 1234567", "1234567"])
    episodes = sorted(str(_front(p)["attributed_to"]) for p in (vault / "episodic").glob("*.md"))
    assert episodes == ["+49 …4567", "j…@example.com"]
    # No entity for either voice (nor for "Speaker"-like masks): only the place one of them names.
    assert sorted(p.name for p in (vault / "entities").glob("*.md")) == ["berlin.md"]
