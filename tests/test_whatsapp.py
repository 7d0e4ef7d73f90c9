"""Tests for WhatsApp chat exports: telling them from notes, reading their turns, and building them."""

from __future__ import annotations

import json
from datetime import date, datetime
from pathlib import Path

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from kgvault.check import check_vault
from kgvault.conversations.whatsapp import looks_like_whatsapp, read_whatsapp

from .conftest import run_build

LRM = "\u200e"
ANDROID = (
    "12/03/2024, 09:14 - Messages and calls are end-to-end encrypted. No one outside of this chat, "
    "not even WhatsApp, can read or listen to them. Tap to learn more.\n"
    "12/03/2024, 09:14 - Mum: Morning love. Dad's knee appointment is on Thursday\n"
    "12/03/2024, 09:20 - Sam Carter: I started a new job at Monzo yesterday!\n"
    "12/03/2024, 09:21 - Mum: <Media omitted>\n"
    "14/03/2024, 18:40 - Sam Carter: The consultant called.\n"
    "He is starting physio next week\n"
    "\n"
    "14/03/2024, 18:41 - Mum: This message was deleted\n"
    "14/03/2024, 18:42 - Mum: See you Sunday <This message was edited>\n"
    "14/03/2024, 18:43 - Sam Carter added Priya\n"
    '14/03/2024, 18:44 - Mum changed the subject to "Trip: Rome"\n'
)
IOS = (
    f"{LRM}[02/04/2024, 19:30:11] Climbing crew: {LRM}Messages and calls are end-to-end encrypted.\n"
    "[02/04/2024, 19:30:45] Priya Shah: I moved to Leeds last month\n"
    f"{LRM}[02/04/2024, 19:31:20] Tom: {LRM}image omitted\n"
    f"{LRM}[02/04/2024, 19:31:40] Tom: {LRM}<attached: 00000012-PHOTO-2024-04-02-19-31-40.jpg>\n"
    f"[13/04/2024, 08:01:00] {LRM}+44 7700 900123: I joined Depot this morning\n"
)


def _said(text: str) -> list[tuple[str, str, int, int, datetime | None]]:
    conversation, problems = read_whatsapp(text, path="chat.txt")
    assert problems == []
    return [(t.speaker, t.text, t.line_start, t.line_end, t.time) for t in conversation.turns]


def test_an_android_export_gives_each_message_its_speaker_lines_and_time() -> None:
    assert _said(ANDROID) == [
        ("Mum", "Morning love. Dad's knee appointment is on Thursday", 2, 2, datetime(2024, 3, 12, 9, 14)),
        ("Sam Carter", "I started a new job at Monzo yesterday!", 3, 3, datetime(2024, 3, 12, 9, 20)),
        ("Mum", "[media]", 4, 4, datetime(2024, 3, 12, 9, 21)),
        (
            "Sam Carter",
            "The consultant called.\nHe is starting physio next week",
            5,
            6,
            datetime(2024, 3, 14, 18, 40),
        ),
        ("Mum", "[deleted]", 8, 8, datetime(2024, 3, 14, 18, 41)),
        ("Mum", "See you Sunday", 9, 9, datetime(2024, 3, 14, 18, 42)),
    ]


def test_an_ios_export_skips_its_marked_notices_and_keeps_media_as_markers() -> None:
    assert _said(IOS) == [
        ("Priya Shah", "I moved to Leeds last month", 2, 2, datetime(2024, 4, 2, 19, 30, 45)),
        ("Tom", "[image]", 3, 3, datetime(2024, 4, 2, 19, 31, 20)),
        ("Tom", "[file: 00000012-PHOTO-2024-04-02-19-31-40.jpg]", 4, 4, datetime(2024, 4, 2, 19, 31, 40)),
        ("+44 …0123", "I joined Depot this morning", 5, 5, datetime(2024, 4, 13, 8, 1)),
    ]


def test_an_american_export_reads_the_month_first_and_its_twelve_hour_clock() -> None:
    text = (
        "3/14/24, 6:02\u202fPM - Mum: How did it go?\n"
        "3/14/24, 12:05 AM - Sam: Fine, I'm home\n"
        "3/15/24, 12:30 PM - Sam: Lunch at Joe's\n"
    )
    assert [t for *_, t in _said(text)] == [
        datetime(2024, 3, 14, 18, 2),
        datetime(2024, 3, 14, 0, 5),
        datetime(2024, 3, 15, 12, 30),
    ]


def test_dates_no_day_tells_apart_are_read_in_the_order_that_runs_forward() -> None:
    text = "01/02/2024, 10:00 - Ana: First\n02/01/2024, 10:00 - Ana: Second\n"
    # As day/month, 2 January would follow 1 February: the chat is month/day.
    assert [t for *_, t in _said(text)] == [datetime(2024, 1, 2, 10, 0), datetime(2024, 2, 1, 10, 0)]


def test_a_chat_whose_dates_read_either_way_says_which_it_chose() -> None:
    text = "02/04/2024, 10:00 - Ana: First\n03/04/2024, 10:00 - Ana: Second\n"
    conversation, problems = read_whatsapp(text, path="chat.txt")
    assert [t.time for t in conversation.turns] == [datetime(2024, 4, 2, 10, 0), datetime(2024, 4, 3, 10, 0)]
    assert [(p.path, p.line) for p in problems] == [("chat.txt", 1)]
    assert "read as day/month" in problems[0].message
    american = text.replace("10:00", "10:00 AM")
    conversation, problems = read_whatsapp(american, path="chat.txt")
    assert [t.time for t in conversation.turns] == [datetime(2024, 2, 4, 10, 0), datetime(2024, 3, 4, 10, 0)]
    assert "read as month/day" in problems[0].message


def test_other_languages_dates_and_an_impossible_one() -> None:
    german = "12.03.24, 14:22 - Oma: Wir sind in Berlin angekommen\n13.03.24, 08:00 - Oma: Guten Morgen\n"
    assert [t for *_, t in _said(german)] == [datetime(2024, 3, 12, 14, 22), datetime(2024, 3, 13, 8, 0)]
    iso = "[2024-03-12 14:22:05] Li: I moved to Oslo\n[2024-03-12 14:23:00] Kai: Nice\n"
    assert [t for *_, t in _said(iso)] == [datetime(2024, 3, 12, 14, 22, 5), datetime(2024, 3, 12, 14, 23)]
    conversation, problems = read_whatsapp(
        "31/02/2024, 10:00 - Ana: Hi\n13/02/2024, 10:00 - Ana: Yo\n", path="c.txt"
    )
    assert [t.text for t in conversation.turns] == ["Yo"]
    assert [(p.line, p.message) for p in problems] == [(1, "line 1 has no valid date; skipped")]


def test_a_long_silence_starts_a_session() -> None:
    text = (
        "12/03/2024, 09:00 - Ana: One\n12/03/2024, 14:59 - Ana: Two\n"
        "12/03/2024, 21:00 - Ana: Three\n13/03/2024, 08:00 - Ana: Four\n"
    )
    conversation, _ = read_whatsapp(text, path="c.txt")
    assert [t.session for t in conversation.turns] == [0, 0, 1, 2]


def test_only_a_file_that_opens_with_messages_of_speakers_is_an_export() -> None:
    assert looks_like_whatsapp(ANDROID)
    assert looks_like_whatsapp(IOS)
    assert looks_like_whatsapp("\n\n" + ANDROID)
    assert not looks_like_whatsapp("Call log\n" + ANDROID)  # a note that quotes a chat
    assert not looks_like_whatsapp("12/03/2024, 14:22 - Called the plumber: Tuesday\nNothing else.\n")
    assert not looks_like_whatsapp("12/03/2024, 14:22 - Ana joined\n12/03/2024, 14:23 - Bo left\n")
    assert not looks_like_whatsapp("2024-03-12 notes\n- Ana: hi\n")
    assert not looks_like_whatsapp("")


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.sampled_from([*ANDROID.split("\n"), *IOS.split("\n"), "x", "", "1/1/1, 1:1 - a:"]), max_size=12
    )
)
def test_the_reader_never_raises_and_its_turns_stay_on_the_files_lines(lines: list[str]) -> None:
    text = "\n".join(lines)
    conversation, _ = read_whatsapp(text, path="c.txt")
    count = len(text.split("\n"))
    for turn in conversation.turns:
        assert 1 <= turn.line_start <= turn.line_end <= count


def _front(page: Path) -> dict[str, object]:
    return yaml.safe_load(page.read_text("utf-8").split("---\n")[1])


def test_a_whatsapp_export_builds_into_dated_episodes_of_their_speakers(tmp_path: Path) -> None:
    notes, vault = tmp_path / "notes", tmp_path / "vault"
    (notes / "WhatsApp Chat - Climbing crew").mkdir(parents=True)
    (notes / "WhatsApp Chat with Mum.txt").write_text(ANDROID, "utf-8")
    (notes / "WhatsApp Chat - Climbing crew" / "_chat.txt").write_text(IOS, "utf-8")
    before = {p: p.read_bytes() for p in notes.rglob("*.txt")}
    report = run_build(notes, vault)
    assert report["problems"] == []
    assert check_vault(vault, notes=notes) == []
    episodes = {str(_front(p)["title"]): _front(p) for p in (vault / "episodic").glob("*.md")}
    job = episodes["Sam Carter: I started a new job at Monzo on 11 March 2024!"]
    assert (job["attributed_to"], job["timestamp"]) == ("Sam Carter", date(2024, 3, 11))
    moved = next(e for title, e in episodes.items() if title.startswith("Priya Shah: I moved to Leeds"))
    assert moved["timestamp"] == date(2024, 3, 1)
    assert not any("deleted" in title or "Media" in title or "encrypted" in title for title in episodes)
    relations = [json.loads(line) for line in (vault / "relations.jsonl").read_text("utf-8").splitlines()]
    assert {(r["from"], r["relation"], r["to"], r["valid_at"]) for r in relations} >= {
        ("sam-carter", "works_for", "monzo", "2024-03-11"),
        ("priya-shah", "lives_in", "leeds", "2024-03-01"),
    }
    crew = _front(vault / "sources" / "whatsapp-chat-climbing-crew-chat-summary.md")
    assert (crew["title"], crew["source_document"]) == (
        "WhatsApp Chat - Climbing crew",
        "WhatsApp Chat - Climbing crew/_chat.txt",
    )
    mum = (vault / "sources" / "whatsapp-chat-with-mum-summary.md").read_text("utf-8")
    assert "| 1-1 | nothing: not a message (system, tool or unreadable) |" in mum
    assert "| 5-6 | Sam Carter:" in mum
    assert "| 10-11 | nothing: not a message (system, tool or unreadable) |" in mum
    assert "900123" not in "".join(p.read_text("utf-8") for p in vault.rglob("*.md"))
    assert {p: p.read_bytes() for p in notes.rglob("*.txt")} == before
