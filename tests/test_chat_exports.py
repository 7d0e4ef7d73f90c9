"""Tests for JSON chat exports: Telegram's `result.json`, Messenger's and Instagram's `message_1.json`,
DiscordChatExporter's channels; each read, and built."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pytest
import yaml

from kgvault.check import check_vault
from kgvault.conversations.discord import read_discord
from kgvault.conversations.messenger import read_messenger, unmangled
from kgvault.conversations.slack import read_slack
from kgvault.conversations.telegram import read_telegram

from .conftest import run_build


def _message(number: int, when: str, who: str | None, text: Any = "", **more: Any) -> dict[str, Any]:
    return {"id": number, "type": "message", "date": when, "from": who, "text": text, **more}


MUM = {
    "name": "Mum",
    "type": "personal_chat",
    "id": 101,
    "messages": [
        {"id": 1, "type": "service", "date": "2024-03-12T09:00:00", "actor": "Mum", "action": "phone_call"},
        _message(2, "2024-03-12T09:14:05", "Mum", "Dad's knee appointment is on Thursday"),
        _message(
            3,
            "2024-03-12T09:20:00",
            "Sam Carter",
            ["I started a new job at ", {"type": "bold", "text": "Monzo"}, " yesterday!"],
        ),
        _message(4, "2024-03-12T09:21:00", "Mum", "Look", photo="photos/photo_1.jpg"),
        _message(
            5,
            "2024-03-20T21:05:00",
            "Sam Carter",
            "",
            file="voice_messages/audio_1.ogg",
            media_type="voice_message",
        ),
        _message(6, "2024-03-20T21:06:00", "Sam Carter", "", file="files/lease.pdf", file_name="lease.pdf"),
        _message(7, "2024-03-20T21:07:00", "Mum", "", poll={"question": "Sunday lunch?", "answers": []}),
        _message(
            8, "2024-03-20T21:08:00", "Mum", "", contact_information={"phone_number": "+44 7700 900123"}
        ),
        _message(9, "2024-03-20T21:09:00", "Mum", ""),
    ],
}
CREW = {
    "name": "Climbing crew",
    "type": "private_group",
    "id": 202,
    "messages": [
        _message(11, "2024-04-02T19:30:45", "Priya Shah", "I moved to Leeds last month"),
        _message(12, "2024-04-03T08:01:00", None, "I joined Depot this morning"),
    ],
}
EVERYTHING = {"about": "Here is the data you requested.", "chats": {"about": "…", "list": [MUM, CREW]}}


def _read(data: object) -> list[Any]:
    read = read_telegram(data, path="result.json", zone=UTC)
    assert read is not None
    conversations, problems = read
    assert problems == []
    return conversations


def test_a_chat_gives_each_message_its_speaker_time_and_pointer_and_leaves_out_service_ones() -> None:
    (chat,) = _read(MUM)
    assert chat.pointer is None and chat.title == "Mum"
    assert [(t.speaker, t.text, t.pointer, t.time) for t in chat.turns] == [
        ("Mum", "Dad's knee appointment is on Thursday", "/messages/1", datetime(2024, 3, 12, 9, 14, 5)),
        (
            "Sam Carter",
            "I started a new job at Monzo yesterday!",
            "/messages/2",
            datetime(2024, 3, 12, 9, 20),
        ),
        ("Mum", "[image]\nLook", "/messages/3", datetime(2024, 3, 12, 9, 21)),
        ("Sam Carter", "[voice message]", "/messages/4", datetime(2024, 3, 20, 21, 5)),
        ("Sam Carter", "[file: lease.pdf]", "/messages/5", datetime(2024, 3, 20, 21, 6)),
        ("Mum", "[poll: Sunday lunch?]", "/messages/6", datetime(2024, 3, 20, 21, 7)),
        ("Mum", "[contact]", "/messages/7", datetime(2024, 3, 20, 21, 8)),
    ]
    assert [t.session for t in chat.turns] == [0, 0, 0, 1, 1, 1, 1]
    lines = chat.text.split("\n")
    assert all(lines[t.line_start - 1].startswith(f"{t.speaker}: ") for t in chat.turns)


def test_an_export_of_every_chat_points_at_each_one() -> None:
    mum, crew = _read(EVERYTHING)
    assert (mum.pointer, crew.pointer) == ("/chats/list/0", "/chats/list/1")
    assert crew.turns[0].pointer == "/chats/list/1/messages/0"
    assert crew.turns[1].speaker == "Deleted Account"  # Telegram's name for one who left it
    assert _read({"left_chats": {"list": [CREW]}})[0].pointer == "/left_chats/list/0"


def test_other_json_is_no_telegram_export() -> None:
    for data in ([MUM], {"messages": "x", "name": "n"}, {"chats": {"list": [{"name": "n"}]}}, {}, "text"):
        assert read_telegram(data, path="x.json", zone=UTC) is None
    read = read_telegram({"chats": {"list": [MUM, {"name": "broken"}]}}, path="x.json", zone=UTC)
    assert read is not None
    assert [c.title for c in read[0]] == ["Mum"]
    assert [p.message for p in read[1]] == ["chat /chats/list/1 has no Telegram messages; skipped"]
    # Other tools' files with `messages` and a `name` (an app's strings, an LLM session) are no chat.
    strings = {"name": "en-GB", "messages": [{"id": "welcome", "text": "Welcome"}]}
    session = {"name": "Trip", "messages": [{"role": "user", "content": "I'm flying to Rome on 2 May"}]}
    assert read_telegram(strings, path="x.json", zone=UTC) is None
    assert read_telegram(session, path="x.json", zone=UTC) is None


def test_a_telegram_export_builds_into_dated_episodes_of_their_speakers(tmp_path: Path) -> None:
    notes, vault = tmp_path / "notes", tmp_path / "vault"
    notes.mkdir()
    (notes / "result.json").write_text(json.dumps(EVERYTHING), "utf-8")
    report = run_build(notes, vault)
    assert report["problems"] == []
    assert check_vault(vault, notes=notes) == []
    fronts = [
        yaml.safe_load(p.read_text("utf-8").split("---\n")[1]) for p in (vault / "episodic").glob("*.md")
    ]
    by_title = {f["title"]: f for f in fronts}
    job = by_title["Sam Carter: I started a new job at Monzo on 11 March 2024!"]
    assert (job["attributed_to"], job["timestamp"]) == ("Sam Carter", date(2024, 3, 11))
    relations = [json.loads(line) for line in (vault / "relations.jsonl").read_text("utf-8").splitlines()]
    assert {(r["from"], r["relation"], r["to"], r["evidence"][0]) for r in relations} >= {
        ("sam-carter", "works_for", "monzo", "result.json#/chats/list/0/messages/2"),
        ("priya-shah", "lives_in", "leeds", "result.json#/chats/list/1/messages/0"),
    }
    assert sorted(p.name for p in (vault / "sources").glob("*.md")) == [
        "result-climbing-crew-summary.md",
        "result-mum-summary.md",
    ]
    assert "900123" not in "".join(p.read_text("utf-8") for p in vault.rglob("*.md"))


def _mangled(text: str) -> str:
    """How Meta's exports write text: each UTF-8 byte as a character."""
    return text.encode("utf-8").decode("latin-1")


MESSENGER = {
    "participants": [{"name": _mangled("Zoë Martin")}, {"name": "Sam Carter"}],
    "messages": [  # newest first, as the export lists them
        {
            "sender_name": "Sam Carter",
            "timestamp_ms": 1710968760000,
            "content": "Sam Carter sent an attachment.",
            "files": [{"uri": "messages/inbox/zoe_1/files/lease.pdf"}],
        },
        {
            "sender_name": _mangled("Zoë Martin"),
            "timestamp_ms": 1710968700000,
            "call_duration": 120,
            "content": "The call ended.",
        },
        {
            "sender_name": _mangled("Zoë Martin"),
            "timestamp_ms": 1710235260000,
            "content": "Oops",
            "is_unsent": True,
        },
        {
            "sender_name": _mangled("Zoë Martin"),
            "timestamp_ms": 1710235200000,
            "photos": [{"uri": "messages/inbox/zoe_1/photos/1.jpg"}],
            "content": _mangled("Our new flat in Zürich 😍"),
        },
        {
            "sender_name": _mangled("Zoë Martin"),
            "timestamp_ms": 1710234845000,
            "content": "I started a new job at Monzo yesterday!",
        },
    ],
    "title": _mangled("Zoë Martin"),
    "thread_path": "inbox/zoe_1",
}


def test_a_messenger_chat_is_read_oldest_first_and_its_text_unmangled() -> None:
    chat = read_messenger(MESSENGER, path="message_1.json", zone=UTC)
    assert chat is not None and chat.title == "Zoë Martin"
    assert [(t.speaker, t.text, t.pointer, t.time, t.session) for t in chat.turns] == [
        (
            "Zoë Martin",
            "I started a new job at Monzo yesterday!",
            "/messages/4",
            datetime(2024, 3, 12, 9, 14, 5),
            0,
        ),
        ("Zoë Martin", "[image]\nOur new flat in Zürich 😍", "/messages/3", datetime(2024, 3, 12, 9, 20), 0),
        ("Sam Carter", "[file: lease.pdf]", "/messages/0", datetime(2024, 3, 20, 21, 6), 1),
    ]
    assert unmangled("Zoë") == "Zoë" and unmangled("plain") == "plain"  # right text stays as it is
    newer = {
        "participants": ["Zoë", "Sam"],
        "threadName": "Zoë",
        "messages": [
            {"senderName": "Zoë", "timestamp": 1710234845000, "text": "I moved to Porto", "media": []}
        ],
    }
    chat = read_messenger(newer, path="m.json", zone=UTC)
    assert chat is not None and [(t.speaker, t.text) for t in chat.turns] == [("Zoë", "I moved to Porto")]
    assert read_messenger({"participants": [], "messages": [{"from": "x"}]}, path="m.json", zone=UTC) is None


DISCORD = {
    "guild": {"id": "1", "name": "Climbing"},
    "channel": {"id": "2", "type": "GuildTextChat", "name": "general"},
    "messages": [
        {
            "id": "10",
            "type": "GuildMemberJoin",
            "timestamp": "2024-04-02T19:30:00+00:00",
            "content": "",
            "author": {"id": "7", "name": "priya", "nickname": "Priya Shah", "isBot": False},
        },
        {
            "id": "11",
            "type": "Default",
            "timestamp": "2024-04-02T19:30:45.123+02:00",
            "content": "I moved to Leeds last month",
            "author": {"id": "7", "name": "priya", "nickname": "Priya Shah", "isBot": False},
            "attachments": [],
        },
        {
            "id": "12",
            "type": "Reply",
            "timestamp": "2024-04-02T19:31:00+02:00",
            "content": "",
            "author": {"id": "8", "name": "tom", "nickname": None, "isBot": False},
            "attachments": [{"fileName": "wall.JPG"}, {"fileName": "topo.pdf"}],
            "stickers": [{"name": "wave"}],
        },
        {
            "id": "13",
            "type": "Default",
            "timestamp": "2024-04-02T19:32:00+02:00",
            "content": "Level up! GG tom",
            "author": {"id": "9", "name": "MEE6", "isBot": True},
        },
    ],
}


def test_a_discord_channel_gives_people_their_turns_and_a_bot_an_assistants() -> None:
    chat = read_discord(DISCORD, path="general.json", zone=UTC)
    assert chat is not None and chat.title == "Climbing #general"
    assert [(t.speaker, t.role, t.text, t.pointer, t.time) for t in chat.turns] == [
        (
            "Priya Shah",
            "human",
            "I moved to Leeds last month",
            "/messages/1",
            datetime(2024, 4, 2, 17, 30, 45, 123000),
        ),
        ("tom", "human", "[image]\n[file: topo.pdf]\n[sticker]", "/messages/2", datetime(2024, 4, 2, 17, 31)),
        ("MEE6", "assistant", "Level up! GG tom", "/messages/3", datetime(2024, 4, 2, 17, 32)),
    ]
    direct = {**DISCORD, "guild": {"name": "Direct Messages"}, "channel": {"name": "tom"}}
    assert read_discord(direct, path="dm.json", zone=UTC).title == "tom"  # type: ignore[union-attr]
    assert read_discord({"channel": {}, "messages": [{"content": "x"}]}, path="x.json", zone=UTC) is None
    bot_settings = {"token": "x", "channel": {"name": "welcome"}, "messages": [{"author": {"name": "Bot"}}]}
    assert read_discord(bot_settings, path="bot.json", zone=UTC) is None
    no_guild = {**DISCORD, "guild": None}
    assert read_discord(no_guild, path="bot.json", zone=UTC) is None


def test_messenger_and_discord_exports_build(tmp_path: Path) -> None:
    notes, vault = tmp_path / "notes", tmp_path / "vault"
    (notes / "inbox" / "zoe_1").mkdir(parents=True)
    (notes / "inbox" / "zoe_1" / "message_1.json").write_text(json.dumps(MESSENGER), "utf-8")
    (notes / "general.json").write_text(json.dumps(DISCORD), "utf-8")
    report = run_build(notes, vault)
    assert report["problems"] == []
    assert check_vault(vault, notes=notes) == []
    relations = [json.loads(line) for line in (vault / "relations.jsonl").read_text("utf-8").splitlines()]
    assert {(r["from"], r["relation"], r["to"], r["valid_at"], r["evidence"][0]) for r in relations} >= {
        ("zoë-martin", "works_for", "monzo", "2024-03-11", "inbox/zoe_1/message_1.json#/messages/4"),
        ("priya-shah", "lives_in", "leeds", "2024-03-01", "general.json#/messages/1"),
    }
    titles = {
        yaml.safe_load(p.read_text("utf-8").split("---\n")[1])["title"]
        for p in (vault / "sources").glob("*.md")
    }
    assert titles == {"Zoë Martin", "Climbing #general"}
    assert not any("MEE6" in p.read_text("utf-8") for p in (vault / "episodic").glob("*.md"))


PRIYA = {"real_name": "Priya Shah", "display_name": "priya"}
SLACK_DAY = [
    {
        "type": "message",
        "subtype": "channel_join",
        "user": "U2",
        "text": "<@U2> has joined the channel",
        "ts": "1710234000.000100",
    },
    {
        "type": "message",
        "user": "U2",
        "user_profile": PRIYA,
        "ts": "1710234845.000200",
        "text": (
            "I'm moving to the Payments team next month &amp; <@U3> takes over "
            "<https://wiki.example/x|the runbook>"
        ),
    },
    {
        "type": "message",
        "user": "U3",
        "user_profile": {"real_name": "", "display_name": "tom"},
        "ts": "1710234800.000100",
        "text": "Morning <!here>, standup in <#C9|eng-standup>",
        "files": [
            {"name": "plan.pdf", "mimetype": "application/pdf"},
            {"name": "x.png", "mimetype": "image/png"},
        ],
    },
    {
        "type": "message",
        "subtype": "bot_message",
        "bot_id": "B1",
        "username": "Deploy Bot",
        "ts": "1710234900.000300",
        "text": "Deployed v2.3 to production",
    },
]


def test_a_slack_day_is_read_in_the_order_sent_with_its_markup_as_shown() -> None:
    chat = read_slack(SLACK_DAY, path="slack/general/2024-03-12.json", zone=UTC)
    assert chat is not None and chat.title == "#general 2024-03-12"
    assert [(t.speaker, t.role, t.text, t.pointer, t.time) for t in chat.turns] == [
        (
            "tom",
            "human",
            "[file: plan.pdf]\n[image]\nMorning @here, standup in #eng-standup",
            "/2",
            datetime(2024, 3, 12, 9, 13, 20),
        ),
        (
            "Priya Shah",
            "human",
            "I'm moving to the Payments team next month & @tom takes over the runbook",
            "/1",
            datetime(2024, 3, 12, 9, 14, 5),
        ),
        ("Deploy Bot", "assistant", "Deployed v2.3 to production", "/3", datetime(2024, 3, 12, 9, 15)),
    ]
    assert read_slack([{"id": "U2", "name": "priya"}], path="users.json", zone=UTC) is None
    assert read_slack([], path="general/2024-03-12.json", zone=UTC) is None


def test_a_slack_export_builds_and_its_lists_of_users_and_channels_are_no_problem(tmp_path: Path) -> None:
    notes, vault = tmp_path / "notes", tmp_path / "vault"
    (notes / "slack" / "general").mkdir(parents=True)
    (notes / "slack" / "general" / "2024-03-12.json").write_text(json.dumps(SLACK_DAY), "utf-8")
    (notes / "slack" / "users.json").write_text(json.dumps([{"id": "U2", "name": "priya"}]), "utf-8")
    (notes / "slack" / "channels.json").write_text(json.dumps([{"id": "C1", "name": "general"}]), "utf-8")
    report = run_build(notes, vault)
    assert report["problems"] == []
    assert check_vault(vault, notes=notes) == []
    (summary,) = (vault / "sources").glob("*.md")
    assert yaml.safe_load(summary.read_text("utf-8").split("---\n")[1])["title"] == "#general 2024-03-12"
    titles = [
        yaml.safe_load(p.read_text("utf-8").split("---\n")[1])["title"]
        for p in (vault / "episodic").glob("*.md")
    ]
    assert any(t.startswith("Priya Shah: I'm moving to the Payments team in") for t in titles)
    assert not any("Deploy" in t for t in titles)  # a bot's words are no one's memory


def test_a_chat_export_with_bad_fields_is_a_problem_never_a_crash_and_one_saying_nothing_no_page(
    tmp_path: Path,
) -> None:
    notes, vault = tmp_path / "notes", tmp_path / "vault"
    notes.mkdir()
    discord = {
        "guild": {"name": "G"},
        "channel": {"name": "g"},
        "messages": [{"author": {"name": "Sam"}, "content": "hi", "type": ["x"], "timestamp": "2024-03-12"}],
    }
    (notes / "discord.json").write_text(json.dumps(discord), "utf-8")
    attachments = {
        "guild": {"name": "G"},
        "channel": {"name": "g"},
        "messages": [
            {
                "author": {"name": "Sam"},
                "content": "I moved to Leeds",
                "attachments": 5,
                "stickers": True,
                "timestamp": "2024-03-12T09:00:00+00:00",
            }
        ],
    }
    (notes / "attachments.json").write_text(json.dumps(attachments), "utf-8")
    files = {**MESSENGER, "messages": [{**MESSENGER["messages"][4], "files": 7}]}  # type: ignore[index, dict-item]
    (notes / "message_1.json").write_text(json.dumps(files), "utf-8")
    lone = {**MUM, "messages": [_message(2, "2024-03-12T09:14:05", "Mum", "I moved to Leeds \ud83d")]}
    (notes / "result.json").write_text(json.dumps(lone), "utf-8")
    calls = {**MUM, "messages": [MUM["messages"][0]]}  # type: ignore[index]
    (notes / "calls.json").write_text(json.dumps(calls), "utf-8")
    report = run_build(notes, vault)
    assert [(p["path"], p["message"]) for p in report["problems"]] == [  # type: ignore[index, union-attr]
        ("calls.json", "read as a chat export, but no message in it is one kgvault reads; nothing from it"),
        (
            "discord.json",
            "read as a chat export, but no message in it is one kgvault reads; nothing from it",
        ),  # its type was a list
    ]
    assert check_vault(vault, notes=notes) == []
    text = "".join(p.read_text("utf-8") for p in (vault / "episodic").glob("*.md"))
    assert "Mum: I moved to Leeds \ufffd" in text and "Sam: I moved to Leeds" in text
    assert not (vault / "sources" / "calls-summary.md").exists()


def test_messenger_messages_sent_in_one_millisecond_keep_their_order() -> None:
    older, newer = (
        {"sender_name": "Zoe", "timestamp_ms": 1710234845000, "content": "Hi!"},
        {"sender_name": "Zoe", "timestamp_ms": 1710234845000, "content": "Where do you live now?"},
    )
    chat = read_messenger({"participants": [], "messages": [newer, older]}, path="m.json", zone=UTC)
    assert chat is not None and [t.text for t in chat.turns] == ["Hi!", "Where do you live now?"]


def test_a_reader_failing_on_a_file_makes_a_problem_of_that_file_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import kgvault.conversations.discord as discord

    def broken(data: object, *, path: str, zone: object) -> None:
        raise TypeError("an unforeseen shape")

    monkeypatch.setattr(discord, "read_discord", broken)
    notes, vault = tmp_path / "notes", tmp_path / "vault"
    notes.mkdir()
    (notes / "general.json").write_text(json.dumps(DISCORD), "utf-8")
    (notes / "note.md").write_text("---\ndate: 2024-03-12\n---\nI moved to Leeds today.\n", "utf-8")
    report = run_build(notes, vault)
    assert [(p["path"], p["message"]) for p in report["problems"]] == [  # type: ignore[index, union-attr]
        (
            "general.json",
            "JSON file looks like a chat export but cannot be read "
            "(TypeError('an unforeseen shape')); skipped",
        )
    ]
    assert (vault / "sources" / "note-summary.md").is_file()


def test_deeply_nested_json_with_emoji_is_reported_never_a_crash(tmp_path: Path) -> None:
    notes, vault = tmp_path / "notes", tmp_path / "vault"
    notes.mkdir()
    value: object = "I moved to Leeds 😀"
    for _ in range(300):  # 600 levels, lists in dicts
        value = {"replies": [value]}
    (notes / "deep.json").write_text(json.dumps(value), "utf-8")  # emoji written as paired escapes
    report = run_build(notes, vault)
    assert [p["path"] for p in report["problems"]] == ["deep.json"]  # type: ignore[index, union-attr]


def test_two_deleted_telegram_accounts_stay_two_people() -> None:
    chat = {
        **CREW,
        "messages": [
            _message(11, "2024-04-02T19:30:45", None, "I moved to Leeds", from_id="user7"),
            _message(12, "2024-04-02T19:31:45", None, "I moved to York", from_id="user9"),
        ],
    }
    (read,) = _read(chat)
    assert [t.speaker for t in read.turns] == ["Deleted Account (user7)", "Deleted Account (user9)"]


def test_the_checker_counts_the_lines_of_a_json_file_whose_coverage_is_by_lines(tmp_path: Path) -> None:
    """Only a JSON file read whole as a chat is covered by pointers; a draft file's rows are lines."""
    notes, vault = tmp_path / "notes", tmp_path / "vault"
    notes.mkdir()
    draft = Path(__file__).parent / "fixtures" / "drafts" / "agent_draft.json"
    (notes / "agent_draft.json").write_bytes(draft.read_bytes())
    run_build(notes, vault)
    (summary,) = (vault / "sources").glob("*.md")
    total = len(draft.read_text("utf-8").splitlines())
    text = summary.read_text("utf-8")
    assert f"| 1-{total} |" in text
    summary.write_text(text.replace(f"| 1-{total} |", f"| 1-{total - 1} |"), "utf-8")
    messages = [p.message for p in check_vault(vault, notes=notes)]
    assert f"lines {total}-{total} of agent_draft.json are in no coverage range" in messages


def test_forwarded_words_are_their_authors_and_a_bots_an_assistants() -> None:
    saved = {
        "name": None,
        "type": "saved_messages",
        "id": 1,
        "messages": [
            _message(
                101,
                "2024-04-01T08:03:00",
                "Sam Carter",
                "I got promoted to Head of Design at Figma!",
                forwarded_from="Priya Shah",
                from_id="user1",
            ),
            _message(
                102,
                "2024-04-01T08:04:00",
                "Sam Carter",
                "",
                media_type="sticker",
                sticker_emoji="😂",
                file="(File not included.)",
            ),
        ],
    }
    bot = {
        "name": "Weather Bot",
        "type": "bot_chat",
        "id": 6000,
        "messages": [
            _message(1, "2024-04-02T08:05:00", "Sam Carter", "/forecast Oslo", from_id="user1"),
            _message(
                2, "2024-04-02T08:06:00", "Weather Bot", "I moved your forecast to Oslo.", from_id="user6000"
            ),
        ],
    }
    number = {**CREW, "messages": [_message(1, "2024-04-02T08:05:00", "+44 7700 900123", "I moved to York")]}
    (a,), (b,), (c,) = _read(saved), _read(bot), _read(number)
    assert [(t.speaker, t.text) for t in a.turns] == [
        ("Priya Shah", "I got promoted to Head of Design at Figma!"),
        ("Sam Carter", "[sticker 😂]"),
    ]
    assert [(t.speaker, t.role) for t in b.turns] == [("Sam Carter", "human"), ("Weather Bot", "assistant")]
    assert [t.speaker for t in c.turns] == ["+44 …0123 (Climbing crew)"]


def test_meta_notices_in_a_senders_name_are_no_turns() -> None:
    chat = {
        "participants": [{"name": "Jake Lee"}],
        "title": "Stag Do",
        "messages": [
            {
                "sender_name": "Jake Lee",
                "timestamp_ms": 1715342700000,
                "content": "Jake Lee changed the group photo.",
            },
            {
                "sender_name": "Jake Lee",
                "timestamp_ms": 1715342600000,
                "content": "Jake Lee named the group Stag Do.",
            },
            {"sender_name": "kai.ig", "timestamp_ms": 1715342500000, "content": "Liked a message"},
            {
                "sender_name": "Jake Lee",
                "timestamp_ms": 1715342400000,
                "content": "Reacted ❤ to your message",
            },
            {"sender_name": "Jake Lee", "timestamp_ms": 1715342300000, "content": "I named the dog Rex."},
        ],
    }
    read = read_messenger(chat, path="m.json", zone=UTC)
    assert read is not None and [t.text for t in read.turns] == ["I named the dog Rex."]


def test_a_slack_day_of_joins_only_is_quiet_and_a_direct_message_has_no_hash(tmp_path: Path) -> None:
    notes, vault = tmp_path / "notes", tmp_path / "vault"
    (notes / "general").mkdir(parents=True)
    (notes / "D0123ABCD").mkdir()
    join = {
        "type": "message",
        "subtype": "channel_join",
        "user": "U4",
        "text": "<@U4> joined",
        "ts": "1710237000.1",
    }
    (notes / "general" / "2024-03-12.json").write_text(json.dumps([join]), "utf-8")
    (notes / "D0123ABCD" / "2024-03-14.json").write_text(json.dumps(SLACK_DAY[1:2]), "utf-8")
    report = run_build(notes, vault)
    assert report["problems"] == []
    (summary,) = (vault / "sources").glob("*.md")
    assert yaml.safe_load(summary.read_text("utf-8").split("---\n")[1])["title"] == "D0123ABCD 2024-03-14"


def test_the_owner_of_a_telegram_export_of_all_chats_is_the_user_when_the_user_is_named() -> None:
    mine = {
        **MUM,
        "messages": [
            _message(
                2, "2024-03-12T09:20:00", "Sam Carter", "I started at Monzo yesterday!", from_id="user1"
            ),
            _message(
                3,
                "2024-03-12T09:21:00",
                "Sam Carter",
                "I got promoted!",
                from_id="user1",
                forwarded_from="Priya Shah",
            ),
            _message(4, "2024-03-12T09:22:00", "Mum", "Well done", from_id="user101"),
        ],
    }
    export = {"personal_information": {"user_id": 1, "first_name": "Sam"}, "chats": {"list": [mine]}}
    named = read_telegram(export, path="result.json", zone=UTC, user_name="Sam")
    unnamed = read_telegram(export, path="result.json", zone=UTC)
    assert named is not None and unnamed is not None
    assert [t.speaker for t in named[0][0].turns] == ["Sam", "Priya Shah", "Mum"]
    assert [t.speaker for t in unnamed[0][0].turns] == ["Sam Carter", "Priya Shah", "Mum"]
