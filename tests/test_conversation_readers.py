"""Tests for the conversation readers: ChatGPT and Claude exports, and JSON Lines chat logs."""

from __future__ import annotations

import copy
import hashlib
import json
import time
from collections.abc import Iterator
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kgvault.conversations import Conversation
from kgvault.conversations.chat_log import read_chat_log, wall_time
from kgvault.conversations.chatgpt import read_chatgpt
from kgvault.conversations.claude import read_claude
from kgvault.conversations.transcript import participants, read_turns
from kgvault.records import Problem

FIXTURES = Path(__file__).parent / "fixtures" / "conversations"
CHATGPT = FIXTURES / "chatgpt" / "conversations.json"
CLAUDE = FIXTURES / "claude" / "conversations.json"
CHAT_LOG = FIXTURES / "chatlog.jsonl"
USER = "Sam"


def load(path: Path) -> Any:
    """Parse a JSON fixture."""
    return json.loads(path.read_text(encoding="utf-8"))


def resolve(document: Any, pointer: str) -> Any:
    """Follow an RFC 6901 JSON pointer into a parsed document."""
    assert pointer.startswith("/")
    for token in pointer[1:].split("/"):
        token = token.replace("~1", "/").replace("~0", "~")
        document = document[int(token)] if isinstance(document, list) else document[token]
    return document


def read_chatgpt_fixture() -> tuple[list[Conversation], list[Problem]]:
    """Read the ChatGPT fixture export."""
    read = read_chatgpt(load(CHATGPT), path="chatgpt/conversations.json", user_name=USER)
    assert read is not None
    return read


def read_claude_fixture() -> tuple[list[Conversation], list[Problem]]:
    """Read the Claude fixture export."""
    read = read_claude(load(CLAUDE), path="claude/conversations.json", user_name=USER)
    assert read is not None
    return read


def read_chat_log_fixture() -> tuple[Conversation, list[Problem]]:
    """Read the JSON Lines fixture."""
    return read_chat_log(CHAT_LOG.read_text(encoding="utf-8"), path="chatlog.jsonl", user_name=USER)


def all_text(conversations: list[Conversation]) -> str:
    """Every rendering and turn text of some conversations, for phrases that must never appear."""
    return "\n".join([c.text for c in conversations] + [t.text for c in conversations for t in c.turns])


def chatgpt_export(*messages: dict[str, Any], node_ids: list[str] | None = None) -> list[dict[str, Any]]:
    """A one-conversation ChatGPT export whose messages form a single branch under a root node."""
    ids = node_ids or [f"node-{number}" for number in range(len(messages))]
    mapping: dict[str, Any] = {"root": {"id": "root", "message": None, "parent": None, "children": []}}
    parent = "root"
    for node_id, message in zip(ids, messages, strict=True):
        mapping[parent]["children"].append(node_id)
        mapping[node_id] = {"id": node_id, "message": message, "parent": parent, "children": []}
        parent = node_id
    return [{"title": "t", "create_time": 1741600000.0, "mapping": mapping, "current_node": parent}]


def chatgpt_message(role: str, *parts: Any, **extra: Any) -> dict[str, Any]:
    """A ChatGPT message with the given parts."""
    content = {"content_type": "multimodal_text" if any(isinstance(p, dict) for p in parts) else "text"}
    return {
        "author": {"role": role, "name": None, "metadata": {}},
        "create_time": 1741600100.5,
        "content": {**content, "parts": list(parts)},
        "metadata": extra.pop("metadata", {}),
        "recipient": "all",
        **extra,
    }


@pytest.fixture
def other_time_zone(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Run in a time zone far from UTC, so any use of local time shows."""
    if not hasattr(time, "tzset"):
        pytest.skip("time.tzset is not available on this platform")
    monkeypatch.setenv("TZ", "Pacific/Kiritimati")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


# --- ChatGPT ---------------------------------------------------------------------------------


def test_chatgpt_reads_every_conversation_without_problems() -> None:
    conversations, problems = read_chatgpt_fixture()
    assert problems == []
    assert [(c.pointer, c.title) for c in conversations] == [
        ("/0", "New cat Miso"),
        ("/1", "Klipper and a new job"),
    ]


def test_chatgpt_follows_only_the_current_branch() -> None:
    conversations, _ = read_chatgpt_fixture()
    text = all_text(conversations)
    assert "ABANDONED-BRANCH-TEXT" not in text
    assert "Biscuit" not in text
    assert conversations[0].turns[0].text.startswith("Yesterday I adopted a cat named Miso")


def test_chatgpt_skips_system_tool_hidden_messages_and_tool_calls() -> None:
    conversations, _ = read_chatgpt_fixture()
    text = all_text(conversations)
    assert "HIDDEN-CONTEXT-TEXT" not in text
    assert "TOOL-OUTPUT-TEXT" not in text
    assert 'search("Klipper' not in text
    assert [len(c.turns) for c in conversations] == [6, 8]


def test_chatgpt_skips_a_hidden_text_message() -> None:
    export = chatgpt_export(
        chatgpt_message("user", "SECRET-HIDDEN", metadata={"is_visually_hidden_from_conversation": True}),
        chatgpt_message("user", "I planted tomatoes yesterday."),
    )
    read = read_chatgpt(export, user_name=USER)
    assert read is not None
    assert [t.text for t in read[0][0].turns] == ["I planted tomatoes yesterday."]


def test_chatgpt_skips_messages_without_text() -> None:
    export = chatgpt_export(
        chatgpt_message("user", ""),
        chatgpt_message("assistant", "   "),
        {**chatgpt_message("assistant"), "content": {"content_type": "thoughts", "thoughts": []}},
        chatgpt_message("user", "Hello there"),
    )
    read = read_chatgpt(export, user_name=USER)
    assert read is not None
    assert [t.text for t in read[0][0].turns] == ["Hello there"]


def test_chatgpt_marks_images() -> None:
    conversations, _ = read_chatgpt_fixture()
    photo = conversations[0].turns[2]
    assert photo.text == (
        "[image: miso-first-night.jpg]\nThis is Miso on her first night at home. "
        "This morning I bought her a scratching post at PetSmart."
    )
    bare = {"content_type": "image_asset_pointer", "asset_pointer": "file-service://file-x", "metadata": {}}
    captioned = {**bare, "metadata": {"caption": "a  grey\ncat"}}
    export = chatgpt_export(chatgpt_message("user", bare, "look"), chatgpt_message("user", captioned))
    read = read_chatgpt(export, user_name=USER)
    assert read is not None
    assert [t.text for t in read[0][0].turns] == ["[image]\nlook", "[image: a grey cat]"]


def test_chatgpt_reads_voice_transcriptions_and_marks_files() -> None:
    voice = {"content_type": "audio_transcription", "text": "I walked to work today.", "direction": "in"}
    audio = {"content_type": "audio_asset_pointer", "asset_pointer": "sediment://file_a1"}
    upload = {"id": "file-r2", "name": "lease.pdf", "mime_type": "application/pdf"}
    export = chatgpt_export(
        chatgpt_message("user", voice, audio),
        chatgpt_message("user", "Here is my lease.", metadata={"attachments": [upload]}),
    )
    read = read_chatgpt(export, user_name=USER)
    assert read is not None
    assert [t.text for t in read[0][0].turns] == [
        "I walked to work today.",
        "Here is my lease.\n[file: lease.pdf]",
    ]


def test_chatgpt_speakers_and_roles() -> None:
    conversations, _ = read_chatgpt_fixture()
    for conversation in conversations:
        for turn in conversation.turns:
            assert (turn.speaker, turn.role) in {(USER, "human"), ("ChatGPT", "assistant")}
    assert [t.role for t in conversations[1].turns][:2] == ["human", "assistant"]


def test_chatgpt_pointers_resolve_to_the_messages() -> None:
    data = load(CHATGPT)
    conversations, _ = read_chatgpt_fixture()
    for conversation in conversations:
        assert conversation.pointer is not None
        assert resolve(data, conversation.pointer)["title"] == conversation.title
        for turn in conversation.turns:
            assert turn.pointer is not None and turn.pointer.startswith(f"{conversation.pointer}/mapping/")
            message = resolve(data, turn.pointer)["message"]
            assert message["author"]["role"] == ("user" if turn.role == "human" else "assistant")
            texts = [part for part in message["content"]["parts"] if isinstance(part, str)]
            assert texts and all(part.strip() in turn.text for part in texts)


def test_chatgpt_pointers_escape_slashes_and_tildes() -> None:
    export = chatgpt_export(chatgpt_message("user", "odd ids"), node_ids=["a/b~c"])
    read = read_chatgpt(export, user_name=USER)
    assert read is not None
    turn = read[0][0].turns[0]
    assert turn.pointer == "/0/mapping/a~1b~0c"
    assert resolve(export, turn.pointer)["message"]["content"]["parts"] == ["odd ids"]


def test_chatgpt_times_are_naive_utc() -> None:
    conversations, _ = read_chatgpt_fixture()
    assert conversations[0].started == datetime(2025, 3, 10, 18, 30, 5, 123000)
    assert conversations[0].turns[0].time == datetime(2025, 3, 10, 18, 31, 2)
    assert all(t.time is not None and t.time.tzinfo is None for c in conversations for t in c.turns)


def test_chatgpt_digest_is_each_conversations_own() -> None:
    data = load(CHATGPT)
    conversations, _ = read_chatgpt_fixture()
    for conversation, item in zip(conversations, data, strict=True):
        canonical = json.dumps(item, sort_keys=True, ensure_ascii=False).encode("utf-8")
        assert conversation.sha256 == hashlib.sha256(canonical).hexdigest()
    data[1]["title"] = "Renamed"
    read = read_chatgpt(data, user_name=USER)
    assert read is not None
    assert read[0][0].sha256 == conversations[0].sha256
    assert read[0][1].sha256 != conversations[1].sha256


def test_chatgpt_reports_malformed_conversations_and_reads_the_rest() -> None:
    data = load(CHATGPT)
    no_current = {**copy.deepcopy(data[1]), "current_node": "nowhere"}
    broken_parent = copy.deepcopy(data[1])
    broken_parent["mapping"]["aaa60e4c-1d48-4f93-b50b-0a3c8f6e4b12"]["parent"] = "lost"
    cyclic = copy.deepcopy(data[1])
    cyclic["mapping"]["client-created-root"]["parent"] = "7d5f2a01-6c9d-4e48-8a05-5f8b3e1d9aa1"
    export = [data[0], 5, {"title": "no mapping"}, no_current, broken_parent, cyclic]
    read = read_chatgpt(export, path="x.json", user_name=USER)
    assert read is not None
    conversations, problems = read
    assert [c.pointer for c in conversations] == ["/0", "/4", "/5"]
    assert all(p.path == "x.json" for p in problems)
    messages = [p.message for p in problems]
    assert messages[0].startswith("conversation /1 ") and "skipped" in messages[0]
    assert messages[1].startswith("conversation /2 ")
    assert messages[2].startswith("conversation /3 ") and "current_node" in messages[2]
    assert messages[3].startswith("conversation /4") and "'lost'" in messages[3]
    assert messages[4].startswith("conversation /5")
    # A broken walk keeps the part of the branch it could read.
    assert conversations[1].turns[0].text == "hi"
    assert len(conversations[2].turns) == 8


@pytest.mark.parametrize(
    "data",
    [{"a": 1}, [1, 2], [], "conversations", None, [{"title": "no mapping"}], {"mapping": {}}],
)
def test_chatgpt_declines_other_json(data: object) -> None:
    assert read_chatgpt(data, user_name=USER) is None


def test_chatgpt_declines_a_claude_export() -> None:
    assert read_chatgpt(load(CLAUDE), user_name=USER) is None


def test_chatgpt_is_deterministic_whatever_the_mapping_order() -> None:
    first = read_chatgpt_fixture()
    assert read_chatgpt_fixture() == first
    data = load(CHATGPT)
    for item in data:
        item["mapping"] = dict(reversed(list(item["mapping"].items())))
        for node in item["mapping"].values():
            node["children"].reverse()
    again = read_chatgpt(data, path="chatgpt/conversations.json", user_name=USER)
    assert again is not None
    # Reordered children are different JSON, so only the digests may differ.
    assert [replace(c, sha256="") for c in again[0]] == [replace(c, sha256="") for c in first[0]]


# --- Claude ----------------------------------------------------------------------------------


def test_claude_reads_every_conversation() -> None:
    conversations, problems = read_claude_fixture()
    assert problems == []
    assert [(c.pointer, c.title) for c in conversations] == [
        ("/0", "Half marathon recap"),
        ("/1", "Moving to Porto"),
        ("/2", "Piranesi"),
    ]


def test_claude_reads_text_blocks_and_skips_tools() -> None:
    conversations, _ = read_claude_fixture()
    reply = conversations[0].turns[3]
    assert reply.text.startswith("Congratulations, that is a great time! Let me look up the course.\n")
    assert "Recovery usually takes about a week" in reply.text
    text = all_text(conversations)
    assert "TOOL-RESULT-TEXT" not in text
    assert "not supported on your current device" not in text


def test_claude_marks_files_and_images_without_their_contents() -> None:
    conversations, _ = read_claude_fixture()
    turns = conversations[0].turns
    assert turns[2].text.startswith("[image: lisbon-finish-line.jpg]\nLast Sunday I ran")
    assert turns[4].text.startswith("[file: porto-marathon-plan.csv]\nTwo weeks ago I bought")
    assert "long_run_km" not in all_text(conversations)


def test_claude_follows_only_the_current_branch() -> None:
    conversations, _ = read_claude_fixture()
    assert "ABANDONED-BRANCH-TEXT" not in all_text(conversations)
    assert "Mr. Costa" not in all_text(conversations)
    moving = conversations[1]
    assert [t.pointer for t in moving.turns] == [f"/1/chat_messages/{n}" for n in (0, 1, 4, 5)]


def test_claude_honours_a_current_leaf() -> None:
    data = load(CLAUDE)
    data[1]["current_leaf_message_uuid"] = data[1]["chat_messages"][3]["uuid"]
    read = read_claude(data, user_name=USER)
    assert read is not None
    assert [t.pointer for t in read[0][1].turns] == [f"/1/chat_messages/{n}" for n in (0, 1, 2, 3)]


def test_claude_reads_an_old_export_with_text_only() -> None:
    conversations, _ = read_claude_fixture()
    assert [t.text for t in conversations[2].turns][:1] == [
        "I finished reading Piranesi by Susanna Clarke last night. My book club discusses it on Thursday."
    ]


def test_claude_speakers_roles_and_pointers() -> None:
    data = load(CLAUDE)
    conversations, _ = read_claude_fixture()
    for conversation in conversations:
        assert conversation.pointer is not None
        assert resolve(data, conversation.pointer)["name"].strip() == conversation.title
        for turn in conversation.turns:
            assert (turn.speaker, turn.role) in {(USER, "human"), ("Claude", "assistant")}
            assert turn.pointer is not None
            message = resolve(data, turn.pointer)
            assert message["sender"] == turn.role
            assert message["text"].split("\n")[0] in turn.text


def test_claude_times_are_naive_utc() -> None:
    conversations, _ = read_claude_fixture()
    assert conversations[0].started == datetime(2025, 4, 7, 6, 45, 12, 345678)
    assert conversations[0].turns[0].time == datetime(2025, 4, 7, 6, 45, 13, 101211)


def test_claude_reports_unknown_senders_and_bad_conversations() -> None:
    data = load(CLAUDE)
    data[2]["chat_messages"][2]["sender"] = "narrator"
    read = read_claude([*data, "junk"], path="c.json", user_name=USER)
    assert read is not None
    conversations, problems = read
    assert len(conversations) == 3
    assert [p.message for p in problems] == [
        "message /2/chat_messages/2 has no known `sender`; skipped",
        "conversation /3 has no `chat_messages` list; skipped",
    ]
    assert "ok thanks" not in conversations[2].text


@pytest.mark.parametrize("data", [{"a": 1}, [1, 2], [], [{"name": "x"}], {"chat_messages": []}])
def test_claude_declines_other_json(data: object) -> None:
    assert read_claude(data, user_name=USER) is None


def test_claude_declines_a_chatgpt_export() -> None:
    assert read_claude(load(CHATGPT), user_name=USER) is None


def test_claude_is_deterministic() -> None:
    assert read_claude_fixture() == read_claude_fixture()


# --- the rendering of exports ----------------------------------------------------------------


@pytest.mark.parametrize("reader", [read_chatgpt_fixture, read_claude_fixture])
def test_line_ranges_match_the_rendering(reader: Any) -> None:
    conversations, _ = reader()
    for conversation in conversations:
        lines = conversation.text.split("\n")
        previous_end = -1
        for turn in conversation.turns:
            block = lines[turn.line_start - 1 : turn.line_end]
            assert block[0].startswith(f"{turn.speaker}: ")
            assert "\n".join(block) == f"{turn.speaker}: {turn.text}"
            # One blank line between turns, none before the first.
            assert turn.line_start == previous_end + 2
            if turn.line_start > 1:
                assert lines[turn.line_start - 2] == ""
            previous_end = turn.line_end
        assert conversation.text.endswith("\n")


def test_multi_line_messages_take_their_lines() -> None:
    conversations, _ = read_chatgpt_fixture()
    advice = conversations[0].turns[1]
    assert advice.text.count("\n") == 6
    assert (advice.line_start, advice.line_end) == (4, 10)


def test_times_ignore_the_local_time_zone(other_time_zone: None) -> None:
    chatgpt, _ = read_chatgpt_fixture()
    claude, _ = read_claude_fixture()
    log, _ = read_chat_log_fixture()
    assert chatgpt[0].started == datetime(2025, 3, 10, 18, 30, 5, 123000)
    assert chatgpt[1].turns[0].time == datetime(2025, 3, 21, 9, 12, 3)
    assert claude[1].turns[0].time == datetime(2025, 4, 14, 19, 2, 11, 412)
    assert [t.time for t in log.turns][4:6] == [datetime(2025, 3, 14, 18, 30), datetime(2025, 3, 14, 18, 31)]


# --- JSON Lines chat logs --------------------------------------------------------------------


def test_chat_log_turns_lines_and_speakers() -> None:
    conversation, _ = read_chat_log_fixture()
    assert conversation.pointer is None
    assert conversation.title == ""
    assert conversation.text == CHAT_LOG.read_text(encoding="utf-8")
    assert [t.line_start for t in conversation.turns] == [2, 3, 4, 5, 6, 7, 9, 10, 11, 12]
    assert all(t.line_start == t.line_end for t in conversation.turns)
    assert [t.speaker for t in conversation.turns[:2]] == [USER, "Assistant"]
    assert [t.role for t in conversation.turns[:2]] == ["human", "assistant"]
    assert "You are a friendly assistant." not in [t.text for t in conversation.turns]
    assert conversation.turns[-2].text == "Thanks!"
    lines = conversation.text.split("\n")
    for turn in conversation.turns:
        assert turn.text in json.loads(lines[turn.line_start - 1]).values()


def test_chat_log_sessions_split_on_gaps_and_session_changes() -> None:
    conversation, _ = read_chat_log_fixture()
    assert [t.session for t in conversation.turns] == [0, 0, 0, 0, 1, 1, 2, 2, 2, 2]


def test_chat_log_times_are_naive_utc() -> None:
    conversation, _ = read_chat_log_fixture()
    assert conversation.started == datetime(2025, 3, 14, 8, 0, 5)
    assert conversation.turns[4].time == datetime(2025, 3, 14, 18, 30)
    assert conversation.turns[5].time == datetime(2025, 3, 14, 18, 31)


def test_chat_log_reports_bad_lines_with_their_numbers() -> None:
    _, problems = read_chat_log_fixture()
    assert [(p.path, p.line) for p in problems] == [("chatlog.jsonl", 8)]
    assert "not valid JSON" in problems[0].message


def test_chat_log_problems_and_odd_lines() -> None:
    lines = [
        '{"speaker": "Ana", "text": "I moved to Lyon last year."}',
        "",
        '{"speaker": "Claude", "text": "Lyon is known for its food."}',
        '{"role": "user", "speaker": "Ben", "content": [{"type": "text", "text": "Me too."}]}',
        "[1, 2]",
        '{"role": "narrator", "text": "x"}',
        '{"text": "nobody"}',
        '{"role": "user", "text": "  "}',
        '{"role": "tool", "text": "tool output"}',
        '{"role": "user", "text": "when?", "timestamp": "last week"}',
    ]
    conversation, problems = read_chat_log("\n".join(lines), path="log.jsonl", user_name=USER)
    assert [(t.speaker, t.role, t.line_start) for t in conversation.turns] == [
        ("Ana", "human", 1),
        ("Claude", "assistant", 3),
        ("Ben", "human", 4),
        (USER, "human", 10),
    ]
    assert conversation.turns[2].text == "Me too."
    assert conversation.turns[3].time is None
    assert [p.line for p in problems] == [5, 6, 7, 8, 10]
    assert all(p.message.startswith(f"line {p.line} ") for p in problems)


def test_chat_log_session_edges() -> None:
    lines = [
        '{"role": "user", "text": "a", "session": 1, "timestamp": "2025-01-01T00:00:00Z"}',
        '{"role": "user", "text": "b", "timestamp": "2025-01-01T06:00:00Z"}',
        '{"role": "user", "text": "c", "session": 1, "timestamp": "2025-01-01T12:00:01Z"}',
        '{"role": "user", "text": "d"}',
        '{"role": "user", "text": "e", "session": 2}',
    ]
    conversation, problems = read_chat_log("\n".join(lines), path="log.jsonl", user_name=USER)
    assert problems == []
    # Exactly six hours is no gap; a line without a session stays in the current one.
    assert [t.session for t in conversation.turns] == [0, 0, 1, 1, 2]


def test_chat_log_is_deterministic() -> None:
    assert read_chat_log_fixture() == read_chat_log_fixture()


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2025-03-14T19:30:00+01:00", datetime(2025, 3, 14, 18, 30)),
        ("2025-03-14T18:30:00Z", datetime(2025, 3, 14, 18, 30)),
        ("2025-03-14 18:30", datetime(2025, 3, 14, 18, 30)),
        (1741977000, datetime(2025, 3, 14, 18, 30)),
        (1741977000000, datetime(2025, 3, 14, 18, 30)),
        ("1741977000", datetime(2025, 3, 14, 18, 30)),
        (2025, None),
        (True, None),
        ("soon", None),
        ("", None),
        (None, None),
    ],
)
def test_wall_time_in_utc(value: object, expected: datetime | None) -> None:
    assert wall_time(value) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2025-03-14T19:30:00+01:00", datetime(2025, 3, 14, 11, 30)),
        (1741977000, datetime(2025, 3, 14, 11, 30)),  # epoch seconds are UTC, shown on the zone's clocks
        ("2025-03-14 18:30", datetime(2025, 3, 14, 18, 30)),  # naive: the wall clock already
    ],
)
def test_wall_time_in_a_time_zone(value: object, expected: datetime) -> None:
    assert wall_time(value, ZoneInfo("America/Los_Angeles")) == expected


# --- damaged input ---------------------------------------------------------------------------

ANY_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=6),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=6), children, max_size=3)
    ),
    max_leaves=8,
)


def json_paths(document: Any, prefix: tuple[str | int, ...] = ()) -> Iterator[tuple[str | int, ...]]:
    """Every path to a value inside a parsed document, the document itself first."""
    yield prefix
    items = (
        document.items()
        if isinstance(document, dict)
        else enumerate(document)
        if isinstance(document, list)
        else ()
    )
    for key, value in items:
        yield from json_paths(value, (*prefix, key))


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_readers_never_raise_on_damaged_exports(data: st.DataObject) -> None:
    for fixture in (CHATGPT, CLAUDE):
        document = load(fixture)
        *parents, last = data.draw(st.sampled_from(list(json_paths(document))[1:]))
        holder = document
        for key in parents:
            holder = holder[key]
        holder[last] = data.draw(ANY_JSON)
        for reader in (read_chatgpt, read_claude):
            read = reader(document, path="x.json", user_name=USER)
            assert read is None or all(isinstance(c, Conversation) for c in read[0])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(ANY_JSON.map(json.dumps), st.text(max_size=20)), max_size=6))
def test_chat_log_never_raises(lines: list[str]) -> None:
    conversation, problems = read_chat_log("\n".join(lines), path="log.jsonl", user_name=USER)
    assert all(1 <= turn.line_start <= len(lines) for turn in conversation.turns)
    assert all(problem.line is not None for problem in problems)


# -- transcripts ---------------------------------------------------------------------------------


def test_transcript_participants_read_links_aliases_and_a_comma_separated_string() -> None:
    linked = participants({"participants": ["[[Caroline Jones|Caro]]", "[[Melanie]]", "Melanie"]})
    assert linked == {"Caroline Jones": "Caroline Jones", "Caro": "Caroline Jones", "Melanie": "Melanie"}
    assert participants({"participants": "Dana, Eve"}) == {"Dana": "Dana", "Eve": "Eve"}
    assert participants({"participants": 3}) == {} and participants({}) == {}


def test_transcript_turns_by_alias_after_a_time_cue_and_strangers_reported() -> None:
    text = (
        "---\nparticipants: x\n---\n"
        "[00:01:12] Caro: I visited the Louvre yesterday.\n"
        "(14:03) **Melanie:** I baked bread.\n"
        "Carol: I moved to Berlin yesterday.\n"
        "Note: the recording stopped here.\n"
        "Caroline Jones: I bought a bike.\n"
        "> Melanie: I went to Iceland last year.\n"
        "- Caro: I adopted a puppy.\n"
        "Note: the puppy is called Miso.\n"
    )
    names = {"Caroline Jones": "Caroline Jones", "Caro": "Caroline Jones", "Melanie": "Melanie"}
    turns, strangers = read_turns(text, 4, names, None)
    assert [(t.speaker, t.text, t.line_start, t.line_end) for t in turns] == [
        ("Caroline Jones", "I visited the Louvre yesterday.", 4, 4),
        ("Melanie", "I baked bread.", 5, 5),
        # Carol's line, and the note after it, are no one's: not Melanie's words.
        ("Caroline Jones", "I bought a bike.", 8, 8),
        ("Melanie", "I went to Iceland last year.", 9, 9),  # a quote or list marker is read through
        ("Caroline Jones", "I adopted a puppy.\nNote: the puppy is called Miso.", 10, 11),
    ]
    assert strangers == [(6, "Carol")]  # "Note:" introduces notes, not a speaker


def test_transcript_turns_with_the_recordings_time_after_the_name() -> None:
    """Otter's and Fireflies' exports write the time after the speaker: `Jordan Blake (00:01:20): …`."""
    text = (
        "---\nparticipants: x\n---\n"
        "Jordan Blake (00:01:20): I'm leaving Globex in December.\n"
        "**Sam** [00:01:02]: I'll send you the checklist today.\n"
        "Carol (00:02:00): I moved to Berlin.\n"
    )
    turns, strangers = read_turns(text, 4, {"Jordan Blake": "Jordan Blake", "Sam": "Sam"}, None)
    assert [(t.speaker, t.text, t.line_start) for t in turns] == [
        ("Jordan Blake", "I'm leaving Globex in December.", 4),
        ("Sam", "I'll send you the checklist today.", 5),
    ]
    assert strangers == [(6, "Carol")]
