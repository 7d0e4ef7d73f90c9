"""Tests for Telegram exports: one chat's or every chat's `result.json`, read and built."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import yaml

from kgvault.check import check_vault
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
    assert [p.message for p in read[1]] == ["chat /chats/list/1 has no `messages` list; skipped"]


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
