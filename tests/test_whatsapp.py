"""Tests for WhatsApp chat exports: telling them from notes, reading their turns, and building them."""

from __future__ import annotations

import json
from datetime import date, datetime
from pathlib import Path

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from kgvault.check import check_vault
from kgvault.conversations.whatsapp import chat_name, looks_like_whatsapp, named_like_whatsapp, read_whatsapp

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
        ("Tom", "[image]", 4, 4, datetime(2024, 4, 2, 19, 31, 40)),
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
    # A phone's clock set back a minute sends no message back in time.
    text = "01/02/2024, 10:00 - Ana: a\n01/02/2024, 09:59 - Bo: b\n02/01/2024, 10:00 - Ana: c\n"
    assert [t for *_, t in _said(text)][2] == datetime(2024, 2, 1, 10, 0)


def test_a_chat_both_orders_run_forward_in_is_read_over_the_shorter_span() -> None:
    text = "[3/1/24, 18:42:10] Jess: Hi\n[3/2/24, 09:00:00] Sam: Hey\n[3/9/24, 10:00:00] Sam: ok\n"
    conversation, problems = read_whatsapp(text, path="c.txt")
    assert [t.time.date() for t in conversation.turns if t.time] == [date(2024, 3, d) for d in (1, 2, 9)]
    assert ["month/day by the shorter span" in p.message for p in problems] == [True]


def test_most_dates_decide_the_order_and_a_copied_in_message_stays_in_its_message() -> None:
    text = (
        "3/4/24, 6:42 PM - Jess: I'm a manager at Deloitte now\n"
        "3/15/24, 9:00 AM - Sam: nice, forwarded from Mum:\n"
        "25/12/2023, 10:00 - Mum: Merry Christmas\n"
        "3/16/24, 9:00 AM - Jess: ok\n"
        "13/3/24, 9:00 AM - Jess: one written the other way\n"
    )
    conversation, problems = read_whatsapp(text, path="c.txt")
    assert [(t.speaker, t.text, t.line_start, t.line_end) for t in conversation.turns] == [
        ("Jess", "I'm a manager at Deloitte now", 1, 1),
        ("Sam", "nice, forwarded from Mum:\n25/12/2023, 10:00 - Mum: Merry Christmas", 2, 3),
        ("Jess", "ok\n13/3/24, 9:00 AM - Jess: one written the other way", 4, 5),
    ]
    assert [(p.line, p.message.split(" (")[0]) for p in problems] == [
        (3, "2 line(s) look like messages but not like this chat's own")
    ]


def test_a_chat_whose_dates_read_either_way_says_which_it_chose() -> None:
    text = "02/04/2024, 10:00 - Ana: First\n03/04/2024, 10:00 - Ana: Second\n"
    conversation, problems = read_whatsapp(text, path="chat.txt")
    assert [t.time for t in conversation.turns] == [datetime(2024, 4, 2, 10, 0), datetime(2024, 4, 3, 10, 0)]
    assert [(p.path, p.line) for p in problems] == [("chat.txt", 1)]
    assert "read as day/month by the shorter span" in problems[0].message
    # One day's messages read either way over the same span: an American clock says month/day.
    american = "02/04/2024, 10:00 AM - Ana: First\n02/04/2024, 11:00 AM - Ana: Second\n"
    conversation, problems = read_whatsapp(american, path="chat.txt")
    assert [t.time for t in conversation.turns] == [datetime(2024, 2, 4, 10, 0), datetime(2024, 2, 4, 11, 0)]
    assert "read as month/day by the clock" in problems[0].message
    conversation, problems = read_whatsapp(american.replace(" AM", ""), path="chat.txt")
    assert conversation.turns[0].time == datetime(2024, 4, 2, 10, 0)
    assert "read as day/month by the most common order" in problems[0].message


def test_other_languages_dates_and_an_impossible_one() -> None:
    german = "12.03.24, 14:22 - Oma: Wir sind in Berlin angekommen\n13.03.24, 08:00 - Oma: Guten Morgen\n"
    assert [t for *_, t in _said(german)] == [datetime(2024, 3, 12, 14, 22), datetime(2024, 3, 13, 8, 0)]
    iso = "[2024-03-12 14:22:05] Li: I moved to Oslo\n[2024-03-12 14:23:00] Kai: Nice\n"
    assert [t for *_, t in _said(iso)] == [datetime(2024, 3, 12, 14, 22, 5), datetime(2024, 3, 12, 14, 23)]
    conversation, problems = read_whatsapp(
        "31/02/2024, 10:00 - Ana: Hi\n13/02/2024, 10:00 - Ana: Yo\n", path="c.txt"
    )
    assert [t.text for t in conversation.turns] == ["Yo"]
    assert [(p.line, p.message.split(":")[0]) for p in problems] == [
        (1, "1 line(s) look like messages but not like this chat's own (copied in, or a date that cannot be)")
    ]


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
    # A list of appointments names each once: no chat, unless the file is named as an export is.
    appointments = (
        "12/03/2024, 09:15 - Dentist: check-up\n14/03/2024, 16:30 - Physio: knee\n"
        "02/04/2024, 11:00 - GP: bloods\n"
    )
    assert not looks_like_whatsapp(appointments)
    assert looks_like_whatsapp(appointments, named=True)
    assert looks_like_whatsapp("12/03/2024, 09:15 - Ana: Only me here\n", named=True)
    assert named_like_whatsapp("WhatsApp Chat with Mum") and named_like_whatsapp("_chat")
    assert not named_like_whatsapp("appointments")
    # Dentist twice: still no chat, as no line only WhatsApp writes is in it.
    assert not looks_like_whatsapp(appointments + "20/04/2024, 09:00 - Dentist: filling\n")


def test_a_diary_or_a_log_written_with_message_headers_is_no_chat() -> None:
    house = (
        "12/03/2024, 09:15 - Called the plumber about the boiler\n"
        "12/03/2024, 10:00 - Plumber: coming Thursday, quote 240 pounds\n"
        "13/03/2024, 08:00 - Boiler: still broken, cold showers\n"
        "14/03/2024, 16:30 - Plumber: fixed the boiler, paid 240 pounds\n"
    )
    work = "".join(
        f"1{d}/03/2024, 09:00 - {label}: entry {d}\n" for d, label in enumerate(["Work", "Health", "Work"])
    )
    sms = "2024-03-12 09:20:44 - Me: Yes! I moved to Leeds last week\n2024-03-12 09:21:00 - Mum: Lovely\n" * 2
    for text in (house, work, sms):
        assert not looks_like_whatsapp(text)
        media = "14/03/2024, 16:31 - Plumber: <Media omitted>\n"
        assert not looks_like_whatsapp(text + media)  # one placeholder is not enough
        assert looks_like_whatsapp(text + media * 2) is (text != sms)
        # A log's own angle brackets, nulls, attachments and end-to-end tests are not WhatsApp's.
        for line in (
            "<no changes>",
            "null",
            "receipt.pdf (file attached)",
            "end-to-end encryption tests pass",
        ):
            assert not looks_like_whatsapp(text + f"14/03/2024, 16:31 - Plumber: {line}\n" * 3)
    assert not named_like_whatsapp("whatsapp-ideas") and not named_like_whatsapp("WhatsApp notes")
    assert named_like_whatsapp("WhatsApp Chat with +44 7700 900123")
    assert (
        named_like_whatsapp("WhatsApp-chat met Oma") and chat_name("WhatsApp Chat with Mum (1)", "") == "Mum"
    )


def test_a_group_opening_with_many_notices_or_a_long_message_is_still_an_export() -> None:
    added = "".join(f"01/09/2024, 10:01 - Coach Mike added Parent {n}\n" for n in range(25))
    notice = "01/09/2024, 10:00 - Messages and calls are end-to-end encrypted. Tap to learn more.\n"
    group = (
        notice
        + '01/09/2024, 10:00 - Coach Mike created group "U10"\n'
        + added
        + (
            "01/09/2024, 10:05 - Coach Mike: Welcome!\n"
            "01/09/2024, 10:07 - Cara Diaz: My son Leo broke his arm\n"
            "01/09/2024, 10:08 - Coach Mike: Oh no\n"
        )
    )
    assert looks_like_whatsapp(group)
    rules = "01/09/2024, 10:00 - Coach Mike: Club rules:\n" + "".join(f"- rule {n}\n" for n in range(30))
    assert looks_like_whatsapp(
        notice + rules + "01/09/2024, 10:05 - Ana: <Media omitted>\n01/09/2024, 10:06 - Coach Mike: Thanks\n"
    )


def test_headers_of_more_languages_and_phones() -> None:
    finnish = "13.6.2024 klo 21.25 - Aino: Moi\n13.6.2024 klo 21.26 - Eero: Hei\n"
    assert [t for *_, t in _said(finnish)] == [datetime(2024, 6, 13, 21, 25), datetime(2024, 6, 13, 21, 26)]
    dotted = "2022/12/14, 13:34. - John Doe: Lorem.\n2022/12/14, 13:35. - Jane: Ipsum.\n"
    assert [w for w, *_ in _said(dotted)] == ["John Doe", "Jane"]
    korean = "2024. 3. 12. 오후 2:22 - 민수: 안녕\n2024. 3. 12. 오전 9:05 - 지연: 응\n"
    assert [t for *_, t in _said(korean)] == [datetime(2024, 3, 12, 14, 22), datetime(2024, 3, 12, 9, 5)]
    chinese = "2024/3/12 下午2:22 - 小明: 你好\n"
    assert [t for *_, t in _said(chinese)] == [datetime(2024, 3, 12, 14, 22)]
    unsaved = "13/03/2024, 14:22 - ~\u202fAnna Lopez: hi from an unsaved contact\n"
    assert [w for w, *_ in _said(unsaved)] == ["Anna Lopez"]


def test_placeholders_of_other_languages_become_markers() -> None:
    text = (
        "13.03.24, 20:40 - Tim: Diese Nachricht wurde gelöscht.\n"
        "13.03.24, 20:41 - Sam: Du hast diese Nachricht gelöscht.\n"
        "13.03.24, 20:42 - Lucía: Se eliminó este mensaje.\n"
        "13.03.24, 20:43 - Rafa: Você apagou esta mensagem\n"
        "13.03.24, 20:44 - Lucía: <Multimedia omitido>\n"
        "13.03.24, 20:45 - Lucía: Enhorabuena!! <Se editó este mensaje.>\n"
        "13.03.24, 20:46 - Lena: Bin 5 Min später <Diese Nachricht wurde bearbeitet.>\n"
        "13.03.24, 20:47 - John: This message was deleted.\n"
        f"13.03.24, 20:48 - Claire: {LRM}image absente\n"
        f"13.03.24, 20:49 - Claire: {LRM}Ce message a été supprimé.\n"
        f"13.03.24, 20:50 - Gaz: {LRM}Kit order form • 2 pages {LRM}document omitted\n"
        f"13.03.24, 20:51 - Gaz: {LRM}<Anhang: 00000033-Plan.pdf>\n"
        "13.03.24, 20:52 - Gaz: Names omitted\n"
    )
    assert [said for _, said, *_ in _said(text)] == [
        "[deleted]",
        "[deleted]",
        "[deleted]",
        "[deleted]",
        "[media]",
        "Enhorabuena!!",
        "Bin 5 Min später",
        "[deleted]",
        "[image]",
        "[deleted]",
        "[file: Kit order form]",
        "[file: 00000033-Plan.pdf]",
        "Names omitted",  # someone's words, not a placeholder
    ]


def test_attachments_polls_locations_and_numbers_mentioned_become_markers() -> None:
    text = (
        "13/03/24, 10:16 pm - Rahul: IMG-20240311-WA0004.jpg (file attached)\nTickets\n"
        "13/03/24, 10:17 pm - Rahul: Itinerary.pdf (file attached)\n"
        "13/03/24, 10:18 pm - Rahul: POLL:\nWhich dates?\n"
        "OPTION: 18-23 April (3 votes)\nOPTION: 2-7 May (1 vote)\n"
        "13/03/24, 10:19 pm - Neha: Villa confirmed, Anjuna\nlocation: https://maps.google.com/?q=15.5,73.7\n"
        "13/03/24, 10:20 pm - Neha: @447700900123 call me\n"
        "13/03/24, 10:21 pm - Neha: Waiting for this message. This may take a while.\n"
    )
    assert [said for _, said, *_ in _said(text)] == [
        "[image]\nTickets",
        "[file: Itinerary.pdf]",
        "[poll: Which dates?]",
        "Villa confirmed, Anjuna\n[location]",
        "@…0123 call me",
        "[not received]",
    ]


def test_notices_are_no_ones_turn_in_any_shape() -> None:
    text = (
        "12/03/2024 14:22 - Marie: Salut\n"
        "12/03/2024 14:23 - Marie a changé le nom du groupe en « Vacances : Bretagne »\n"
        "12/03/2024 14:23 - Jonas hat die Gruppe „Lauftreff: Dienstag“ erstellt.\n"
        "12/03/2024 14:24 - Jane Doe: Messages to this chat and calls are now secured with end-to-end "
        "encryption.\n"
        "12/03/2024 14:25 - Family: Dad added Priya\n"
        "12/03/2024 14:26 - Paul: Dad added Priya\n"
    )
    conversation, _ = read_whatsapp(text, path="c.txt", name="Family")
    # The group's name speaks only its notices; anyone else saying the same words says them.
    assert [(t.speaker, t.text) for t in conversation.turns] == [
        ("Marie", "Salut"),
        ("Paul", "Dad added Priya"),
    ]
    assert chat_name("WhatsApp Chat - Family", "") == "Family"
    assert chat_name("_chat", "WhatsApp Chat - Climbing crew") == "Climbing crew"
    assert chat_name("Conversa do WhatsApp com Equipe Produto", "") == "Equipe Produto"


def test_two_unsaved_contacts_ending_alike_stay_two_speakers() -> None:
    text = "13/03/2024, 14:26 - +44 7911 550123: I moved to Leeds\n12/03/2024, 14:27 - +44 7700 900123: Hi\n"
    text += "13/03/2024, 14:28 - +44 7911 550123: Bye\n"
    assert [speaker for speaker, *_ in _said(text)] == ["+44 …0123", "+44 …0123 (2)", "+44 …0123"]
    # Named with their chat: a number masked alike in another chat is another person.
    conversation, _ = read_whatsapp(text, path="c.txt", name="Book Club")
    assert [t.speaker for t in conversation.turns] == [
        "+44 …0123 (Book Club)",
        "+44 …0123 (Book Club, 2)",
        "+44 …0123 (Book Club)",
    ]


def test_a_contact_saved_with_emoji_is_named_without_them() -> None:
    text = "[03/03/2024, 21:44:10] Jess 🌸: me and mark broke up\n[03/03/2024, 21:45:02] ✨ Mia ✨: WHAT\n"
    text += "[03/03/2024, 21:46:02] 👍: ok\n"
    conversation, _ = read_whatsapp(text, path="c.txt")
    assert [t.speaker for t in conversation.turns] == ["Jess", "Mia", "👍"]  # nothing else: as it is


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


def test_a_file_named_as_an_export_whose_lines_are_not_is_read_as_a_note_and_reported(tmp_path: Path) -> None:
    notes, vault = tmp_path / "notes", tmp_path / "vault"
    notes.mkdir()
    (notes / "WhatsApp Chat with Bo.txt").write_text("13.6.2024 um 21:25 Uhr - Bo: Hallo\nMore.\n", "utf-8")
    report = run_build(notes, vault)
    assert [(p["path"], p["message"].split(";")[0]) for p in report["problems"]] == [  # type: ignore[index, union-attr]
        (
            "WhatsApp Chat with Bo.txt",
            "named like a WhatsApp export, but its lines are not WhatsApp's messages as kgvault knows them",
        )
    ]


def test_a_message_opening_with_a_right_to_left_mark_is_a_message_and_a_long_one_is_read_whole() -> None:
    text = (
        "[12/03/2024, 09:15:02] Dana: \u200fעברתי לחיפה בפברואר\n"
        "[13/03/2024, 09:16:00] Sam: \u202aHello from Leeds\u202c\n"
        f"[13/03/2024, 09:17:00] Sam: {'• a ' * 5000}image omitted <This message was edited>\n"
    )
    said = [said for _, said, *_ in _said(text)]
    assert said[:2] == ["עברתי לחיפה בפברואר", "Hello from Leeds"]
    assert said[2] == ("• a " * 5000 + "image omitted").strip()  # someone's words, not a placeholder
