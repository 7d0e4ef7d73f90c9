"""Conversations end to end: transcripts, chat exports and logs become attributed, dated episodes."""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
from datetime import date, datetime, timedelta
from pathlib import Path
from types import ModuleType

import pytest
import yaml

from kgvault.check import check_vault
from kgvault.conversations.small_talk import is_small_talk

from .conftest import (
    ROOT,
    SHARED_DATA,
    assert_written_nowhere,
    notes_with,
    relations_of,
    run_build,
    tree_bytes,
    triples,
)

LOCOMO = SHARED_DATA / "locomo-dev" / "locomo-dev.json"
_ROW = re.compile(r"^\| (?P<where>[^|]+) \| (?P<result>.+) \|$")


def _page(path: Path) -> tuple[dict[str, object], str]:
    """A page's properties and body."""
    _, front, body = path.read_text("utf-8").split("---\n", 2)
    return yaml.safe_load(front), body


def _coverage(summary: Path) -> list[tuple[str, str]]:
    """The coverage table of a summary page: (lines or pointer, result)."""
    rows = []
    for line in summary.read_text("utf-8").split("## Coverage", 1)[1].splitlines():
        match = _ROW.match(line)
        if match and match["where"] not in ("lines", "---"):
            rows.append((match["where"], match["result"]))
    return rows


def _nodes(vault: Path) -> list[dict[str, object]]:
    """Every node page's properties, with its body under `_body`."""
    found = []
    for path in sorted([*vault.glob("episodic/*.md"), *vault.glob("semantic/*.md")]):
        properties, body = _page(path)
        found.append({**properties, "_body": body})
    return found


def _sources_of(node: dict[str, object]) -> list[str]:
    """The `lines a-b` or message pointers a node's Sources section cites."""
    body = str(node["_body"]).split("## Sources", 1)[1]
    return re.findall(r"\]\], (lines \d+-\d+|message `[^`]+`)", body)


TRANSCRIPT = """\
---
title: Coffee with Caroline
date: 2023-05-08T13:56:00
participants: [Caroline, Melanie]
---
# Coffee

Caroline: Hey Mel! Good to see you! How have you been?
Melanie: Hey Caroline! I adopted a puppy named Oscar yesterday.
Caroline: I went to a LGBTQ support group last Friday and it was so powerful.
Melanie: Wow, that's cool, Caroline!
**Melanie:** I painted a sunrise two weeks ago.
It was for my kids.
Caroline: Friday the band played a song I love.
Caroline: Thanks!
"""


@pytest.fixture
def transcript_vault(tmp_path: Path) -> tuple[Path, Path]:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "coffee.md").write_text(TRANSCRIPT, "utf-8")
    vault = tmp_path / "vault"
    run_build(notes, vault)
    return notes, vault


def test_a_turn_names_the_year_of_a_day_ahead_it_means(tmp_path: Path) -> None:
    """A day booked for, or a clause's own day to come, is this year's in the title: not last year's."""
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "plans.md").write_text(
        "---\ndate: 2023-05-08\nparticipants: [Caroline, Melanie]\n---\n"
        "Melanie: We booked the party at Holly Farm for 12 June.\n"
        "Caroline: Got the keys, we move in on 1 June.\n"
        "Melanie: We went to Holly Farm on 12 April with the kids.\n"
        "Melanie: Everything is finally sorted for 12 June, so excited.\n",
        "utf-8",
    )
    vault = tmp_path / "vault"
    run_build(notes, vault)
    by_title = {str(n["title"]): n for n in _nodes(vault)}
    assert by_title["Melanie: We booked the party at Holly Farm for 12 June 2023."]["timestamp"] == date(
        2023, 5, 8
    )
    assert by_title["Caroline: Got the keys, we move in on 1 June 2023."]["timestamp"] == date(2023, 6, 1)
    went = by_title["Melanie: We went to Holly Farm on 12 April 2023 with the kids."]
    assert went["timestamp"] == date(2023, 4, 12)
    sorted_for = by_title["Melanie: Everything is finally sorted for 12 June 2023, so excited."]
    assert sorted_for["timestamp"] == date(2023, 5, 8)


def test_what_a_turn_says_beyond_the_rules_dates_a_day_booked_for_ahead(tmp_path: Path) -> None:
    """A statement only the turn reader keeps: a day booked for, long gone, is the coming one, and the
    booking happened when it was said."""
    from kgvault.chunks import chunk_sources
    from kgvault.extract.conversation import _told
    from kgvault.sources import read_sources

    (tmp_path / "plans.md").write_text(
        "---\ndate: 2023-05-08\nparticipants: [Caroline, Melanie]\n---\n"
        "Melanie: We booked the party at Holly Farm for 2 March.\n"
        "Melanie: We went to Holly Farm on 2 March.\n",
        "utf-8",
    )
    sources, _ = read_sources(tmp_path)
    (chunk,) = [c for c in chunk_sources(sources, max_chars=4000) if c.kind == "turns"]
    told = [
        (node["title"], node["timestamp"])
        for turn in chunk.turns
        for node in _told({"nodes": [], "entities": [], "relations": []}, turn, chunk, [])["nodes"]
    ]
    assert told == [
        ("We booked the party at Holly Farm for 2 March 2024.", date(2023, 5, 8)),
        ("We went to Holly Farm on 2 March 2023.", date(2023, 3, 2)),
    ]


def test_a_transcript_gives_episodes_attributed_to_their_speaker(transcript_vault: tuple[Path, Path]) -> None:
    notes, vault = transcript_vault
    assert check_vault(vault, notes=notes) == []
    nodes = {str(n["_body"]).split("\n", 1)[0]: n for n in _nodes(vault)}
    puppy = nodes["I adopted a puppy named Oscar yesterday."]
    assert puppy["attributed_to"] == "Melanie"
    assert puppy["timestamp"] == date(2023, 5, 7)
    assert puppy["title"] == "Melanie: I adopted a puppy named Oscar on 7 May 2023."
    assert "[[entities/melanie|Melanie]]" in puppy["entities"]  # type: ignore[operator]
    assert _sources_of(puppy) == ["lines 9-9"]
    group = nodes["I went to a LGBTQ support group last Friday and it was so powerful."]
    assert group["attributed_to"] == "Caroline"
    assert group["timestamp"] == date(2023, 5, 5)  # 8 May 2023 was a Monday
    assert "on 5 May 2023" in str(group["title"])
    sunrise = nodes["I painted a sunrise two weeks ago."]
    assert sunrise["attributed_to"] == "Melanie"
    assert sunrise["timestamp"] == date(2023, 4, 24)  # the Monday of the week two weeks before
    assert _sources_of(sunrise) == ["lines 12-13"]


def test_an_unresolvable_day_invents_no_date(transcript_vault: tuple[Path, Path]) -> None:
    _, vault = transcript_vault
    band = [n for n in _nodes(vault) if "band played" in str(n["_body"])]
    for node in band:
        assert node.get("timestamp") in (None, date(2023, 5, 8))  # the session's own date, never a Friday
        assert "May 2023" not in str(node["title"])


def test_small_talk_gives_nothing_and_coverage_says_so_turn_by_turn(
    transcript_vault: tuple[Path, Path],
) -> None:
    _, vault = transcript_vault
    rows = dict(_coverage(vault / "sources" / "coffee-summary.md"))
    assert rows["8-8"] == "Caroline: nothing: small talk"
    assert rows["11-11"] == "Melanie: nothing: small talk"
    assert rows["15-15"] == "Caroline: nothing: small talk"
    assert rows["9-9"].startswith("Melanie: 1 node")
    assert rows["6-6"] == "nothing: structural: heading only"  # the heading before the first turn
    titles = " ".join(str(n["title"]) for n in _nodes(vault))
    assert "Thanks" not in titles and "Good to see you" not in titles and "that's cool" not in titles


@pytest.mark.parametrize(
    ("text", "glue"),
    [
        ("Wow, that's cool, Caroline!", True),
        ("So glad to hear that!", True),
        ("I'm so glad you liked it.", True),
        ("I'm so glad you came to my wedding last Saturday.", False),
        ("Glad it finally sold — we closed on the house in Austin yesterday.", False),
        ("San Francisco.", False),  # an answer, not glue
        ("Thanks, Melanie!", True),
        # Chat reactions and wishes, and those of the other languages a WhatsApp export brings.
        ("Get well soon Dave", True),
        ("Amazing news Kai 🎉", True),
        ("Running 10 mins late sorry", True),
        ("Welcome home little one", True),
        ("Trop bien !!! 😭❤️", True),
        ("Merci à vous !", True),
        ("Félicitations à vous deux", True),
        ("Gute Besserung, Tim", True),
        ("Parabéns!! 🎉", True),
        ("Great news: I passed my exam", False),
        ("Love this job.", False),  # a liking, not glue
        ("Super sick", False),  # only a capitalised name may follow the glue
        # Or whom it is said to, however written, and a kiss.
        ("Get well soon mum x", True),
        ("Get well soon Uncle Bob xx", True),
        ("Merry Christmas lovely xx", True),
        ("Happy new year everyone!!", True),
        ("omg congrats ravi!!! 🍾", True),
        ("Well done son, very proud", True),
        ("Congrats on the new job at Stripe", False),
        ("Welcome to the world, Maya!", False),  # a birth told
        ("Danke, ich bin nach Berlin gezogen.", False),
        # The glue of a call or a meeting.
        ("Sorry, I was on mute. Good morning!", True),
        ("Yep, loud and clear.", True),
        ("Okay, let's get started.", True),
        ("Okay, I think that's everything. Thanks everyone!", True),
        ("Great work Tom.", True),
        ("Sure, one sec.", True),
        ("Sorry, I broke the vase.", False),
        ("That's it, I quit my job.", False),
        ("Okay, let's get started. First we ship the beta.", False),
    ],
)
def test_small_talk_is_glue_alone_and_never_news(text: str, glue: bool) -> None:
    assert is_small_talk(text) is glue


def test_an_assistant_is_never_anyone_s_memory(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "chat.md").write_text(
        "---\ndate: 2024-02-10\nparticipants: [Alex, Assistant]\n---\n"
        "Alex: I switched my printer to Klipper yesterday.\n"
        "Assistant: I installed Klipper on my own printer last week and it runs well.\n"
        "Assistant: Klipper is a 3D printer firmware that runs on a Raspberry Pi.\n",
        "utf-8",
    )
    vault = tmp_path / "vault"
    run_build(notes, vault)
    nodes = _nodes(vault)
    episodes = [n for n in nodes if n["memory_layer"] == "episodic"]
    assert [n["attributed_to"] for n in episodes] == ["Alex"]
    assert episodes[0]["timestamp"] == date(2024, 2, 9)
    assert not any("installed Klipper" in str(n["_body"]) for n in nodes)
    assert all("Assistant" not in str(n.get("attributed_to")) for n in nodes)


def test_a_request_to_the_listener_is_nobody_s_memory_and_every_episode_names_its_speaker(
    tmp_path: Path,
) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "chat.md").write_text(
        "---\ndate: 2024-02-10\nparticipants: [Alex, Assistant]\n---\n"
        "Alex: Translate 'I moved to Berlin yesterday' into German.\n"
        "Alex: Pretend you are my grandmother who died last year and tell me a story.\n"
        "Alex: Write a cover letter for a marketing job at Google.\n"
        "Alex: Researching adoption agencies, it has been a dream for years. Write me a plan.\n",
        "utf-8",
    )
    vault = tmp_path / "vault"
    run_build(notes, vault)
    (episode,) = [n for n in _nodes(vault) if n["memory_layer"] == "episodic"]
    # The statement the rules know no pattern for is Alex's, and Alex is an entity of it.
    assert episode["title"] == "Alex: Researching adoption agencies, it has been a dream for years."
    assert episode["entities"] == ["[[entities/alex|Alex]]"]
    assert (vault / "entities" / "alex.md").is_file()


def test_an_undated_transcript_and_a_line_by_no_participant_are_reported(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "undated.md").write_text("---\nparticipants: [Nina, Omar]\n---\nNina: I sold my car.\n")
    (notes / "party.md").write_text(
        "---\ndate: 2024-03-01\nparticipants: [Alice, Bob]\n---\n"
        "Alice: I started a new job at Acme yesterday.\nCarol: I moved to Berlin yesterday.\n"
    )
    report = run_build(notes, tmp_path / "vault")
    problems = {(p["path"], p["line"]): p["message"] for p in report["problems"]}  # type: ignore[union-attr]
    assert "no date" in problems[("undated.md", None)] and "add `date:" in problems[("undated.md", None)]
    assert problems[("party.md", 6)].startswith("“Carol:” names no participant")
    assert len(problems) == 2


# -- LoCoMo -------------------------------------------------------------------------------------


def _locomo() -> ModuleType:
    spec = importlib.util.spec_from_file_location("locomo_bench", ROOT / "bench" / "locomo.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def locomo_vault(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[tuple[str, int], str]]:
    assert LOCOMO.is_file(), f"LoCoMo dev data missing at {LOCOMO}"
    base = tmp_path_factory.mktemp("locomo")
    notes, vault = base / "notes", base / "vault"
    dia_ids = _locomo().convert(LOCOMO, notes)
    run_build(notes, vault)
    return notes, vault, dia_ids


def test_locomo_every_turn_is_accounted_for_in_coverage(
    locomo_vault: tuple[Path, Path, dict[tuple[str, int], str]],
) -> None:
    notes, vault, dia_ids = locomo_vault
    assert check_vault(vault, notes=notes) == []
    turns_by_note: dict[str, set[int]] = {}
    for note, line in dia_ids:
        turns_by_note.setdefault(note, set()).add(line)
    assert sum(map(len, turns_by_note.values())) == 788
    for note, lines in turns_by_note.items():
        summary = vault / "sources" / f"{note.removesuffix('.md').replace('/', '-')}-summary.md"
        rows = _coverage(summary)
        rows_by_line = {}
        for where, result in rows:
            first, last = map(int, where.split("-"))
            for number in range(first, last + 1):
                rows_by_line[number] = result
        text_lines = (notes / note).read_text("utf-8").split("\n")
        for line in lines:
            speaker = text_lines[line - 1].split(":", 1)[0]
            assert rows_by_line[line].startswith(f"{speaker}: "), (note, line, rows_by_line.get(line))


def test_locomo_nodes_are_attributed_to_who_said_them(
    locomo_vault: tuple[Path, Path, dict[tuple[str, int], str]],
) -> None:
    notes, vault, dia_ids = locomo_vault
    episodes = [n for n in _nodes(vault) if n["memory_layer"] == "episodic"]
    assert len(episodes) > 300
    summaries = {_page(p)[0]["id"]: _page(p)[0]["source_document"] for p in vault.glob("sources/*.md")}
    for node in episodes:
        link = re.match(r"\[\[sources/([^|]+)\|", str(node["source_input"]))
        assert link is not None
        note = str(summaries[link.group(1)])
        cited = _sources_of(node)
        assert cited
        for where in cited:  # the same words said twice in a session are one node citing both turns
            first = int(where.split()[1].split("-")[0])
            assert (note, first) in dia_ids
            said = (notes / note).read_text("utf-8").split("\n")[first - 1]
            assert said.startswith(f"{node['attributed_to']}: ")
        assert str(node["title"]).startswith(f"{node['attributed_to']}: ")


def test_locomo_relative_dates_resolve_against_the_session(
    locomo_vault: tuple[Path, Path, dict[tuple[str, int], str]],
) -> None:
    notes, vault, _ = locomo_vault
    session_dates = {}
    for path in notes.rglob("*.md"):
        properties, _ = _page(path)
        moment = properties["date"]
        assert isinstance(moment, datetime)
        session_dates[path.relative_to(notes).as_posix()] = moment.date()
    summaries = {_page(p)[0]["id"]: _page(p)[0]["source_document"] for p in vault.glob("sources/*.md")}
    yesterday = [n for n in _nodes(vault) if re.search(r"\byesterday\b", str(n["_body"]).split("\n")[0])]
    assert len(yesterday) >= 5
    for node in yesterday:
        link = re.match(r"\[\[sources/([^|]+)\|", str(node["source_input"]))
        assert link is not None
        said_on = session_dates[str(summaries[link.group(1)])]
        assert node["timestamp"] == said_on - timedelta(days=1)
        assert (said_on - timedelta(days=1)).strftime(" %B %Y") in str(node["title"])
        assert "yesterday" in str(node["_body"])  # the body keeps the words as said


def test_the_locomo_build_is_deterministic(
    locomo_vault: tuple[Path, Path, dict[tuple[str, int], str]], tmp_path: Path
) -> None:
    notes, vault, _ = locomo_vault
    again = tmp_path / "again"
    run_build(notes, again)
    for page in sorted(vault.rglob("*.md")):
        rel = page.relative_to(vault)
        assert (again / rel).read_bytes() == page.read_bytes(), rel
    assert json.loads((again / ".kgvault" / "manifest.json").read_text()) == json.loads(
        (vault / ".kgvault" / "manifest.json").read_text()
    )


# -- chat exports and logs ----------------------------------------------------------------------

FIXTURES = ROOT / "tests" / "fixtures" / "conversations"
NEVER_READ = (
    "ABANDONED-BRANCH-TEXT",
    "Biscuit",
    "Mr. Costa",
    "HIDDEN-CONTEXT-TEXT",
    "TOOL-OUTPUT-TEXT",
    "TOOL-RESULT-TEXT",
)


@pytest.fixture(scope="module")
def export_vault(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, object]]:
    base = tmp_path_factory.mktemp("exports")
    notes, vault = base / "notes", base / "vault"
    shutil.copytree(FIXTURES, notes)
    (notes / "kgvault.toml").write_text('user_name = "Alex"\n', "utf-8")
    report = run_build(notes, vault)
    return notes, vault, report


def _episode(vault: Path, words: str) -> dict[str, object]:
    (node,) = [n for n in _nodes(vault) if words in str(n["_body"])]
    return node


def test_exports_compile_into_attributed_dated_episodes(
    export_vault: tuple[Path, Path, dict[str, object]],
) -> None:
    notes, vault, report = export_vault
    assert check_vault(vault, notes=notes) == []
    assert report["problems"] == [
        {"path": "chatlog.jsonl", "line": 8, "message": report["problems"][0]["message"]}  # type: ignore[index]
    ]
    cat = _episode(vault, "adopted a cat named Miso")
    assert cat["attributed_to"] == "Alex"
    assert cat["timestamp"] == date(2025, 3, 9)  # "yesterday", said on 10 March 2025
    assert str(cat["title"]).startswith("Alex: On 9 March 2025 I adopted a cat named Miso")
    assert str(cat["_body"]).startswith("Yesterday I adopted a cat named Miso")
    (cited,) = _sources_of(cat)
    assert cited.startswith("message `/0/mapping/")
    job = _episode(vault, "started a new job at Acme Corp")
    assert job["timestamp"] == date(2025, 3, 10)  # "last week", said on Friday 21 March 2025
    marathon = _episode(vault, "Lisbon Half Marathon")
    assert marathon["attributed_to"] == "Alex"
    assert marathon["timestamp"] == date(2025, 4, 6)  # "last Sunday", said on Monday 7 April 2025
    assert _sources_of(marathon) == ["message `/0/chat_messages/2`"]
    tap = _episode(vault, "cooked shakshuka")
    assert _sources_of(tap) == ["lines 6-6"]
    assert tap["timestamp"] == date(2025, 3, 14)


def test_an_abandoned_branch_hidden_and_tool_messages_appear_nowhere(
    export_vault: tuple[Path, Path, dict[str, object]],
) -> None:
    _, vault, _ = export_vault
    for path in vault.rglob("*"):
        if path.is_file() and ".kgvault" not in path.parts:
            text = path.read_text("utf-8")
            for words in NEVER_READ:
                assert words not in text, (path, words)


def test_each_conversation_of_an_export_has_its_summary_with_pointers(
    export_vault: tuple[Path, Path, dict[str, object]],
) -> None:
    notes, vault, _ = export_vault
    data = json.loads((notes / "claude" / "conversations.json").read_text("utf-8"))
    summary = vault / "sources" / "claude-conversations-half-marathon-recap-summary.md"
    properties, _ = _page(summary)
    assert properties["source_document"] == "claude/conversations.json#/0"
    rows = _coverage(summary)
    kept = [i for i, m in enumerate(data[0]["chat_messages"]) if m.get("text") or m.get("content")]
    assert [where for where, _ in rows] == [f"/0/chat_messages/{i}" for i in kept]
    results = dict(rows)
    assert results["/0/chat_messages/0"] == "Alex: nothing: small talk"
    assert results["/0/chat_messages/1"].startswith("Claude: nothing")
    assert results["/0/chat_messages/2"].startswith("Alex: 1 node")
    assert results["/0/chat_messages/7"] == "Claude: nothing: small talk"
    assert all(r.startswith(("Alex: ", "Claude: ")) for _, r in rows)
    relations = (vault / "relations.jsonl").read_text("utf-8")
    for line in relations.splitlines():
        for evidence in json.loads(line)["evidence"]:
            assert "#L" in evidence or "#/" in evidence


def test_assistant_turns_give_no_episode(export_vault: tuple[Path, Path, dict[str, object]]) -> None:
    _, vault, _ = export_vault
    episodes = [n for n in _nodes(vault) if n["memory_layer"] == "episodic"]
    assert episodes and {n["attributed_to"] for n in episodes} == {"Alex"}
    assert not any("sleep 12 to 16 hours" in str(n["_body"]) for n in _nodes(vault))


def test_editing_one_conversation_rebuilds_to_what_a_clean_build_gives(tmp_path: Path) -> None:
    notes, vault = tmp_path / "notes", tmp_path / "vault"
    shutil.copytree(FIXTURES, notes)
    run_build(notes, vault)
    log = notes / "chatlog.jsonl"
    log.write_text(
        log.read_text("utf-8") + '{"speaker": "User", "text": "Yesterday I planted basil on the balcony.", '
        '"timestamp": "2025-03-20T08:00:00Z", "session": "s3"}\n',
        "utf-8",
    )
    export = notes / "claude" / "conversations.json"
    data = json.loads(export.read_text("utf-8"))
    data[1]["chat_messages"][0]["text"] = "On Saturday I moved into a new flat in Porto."
    data[1]["chat_messages"][0]["content"] = [{"type": "text", "text": data[1]["chat_messages"][0]["text"]}]
    export.write_text(json.dumps(data), "utf-8")
    run_build(notes, vault)
    clean = tmp_path / "clean"
    run_build(notes, clean)
    assert tree_bytes(vault) == tree_bytes(clean)
    basil = _episode(vault, "planted basil")
    assert basil["timestamp"] == date(2025, 3, 19)
    assert not any("new apartment in Porto" in str(n["_body"]) for n in _nodes(vault))


def _chatgpt_export(title: str, text: str) -> list[dict[str, object]]:
    """A one-message ChatGPT export."""
    message = {
        "author": {"role": "user"},
        "create_time": 1683540000.0,
        "content": {"content_type": "text", "parts": [text]},
    }
    return [
        {
            "title": title,
            "create_time": 1683540000.0,
            "current_node": "a",
            "mapping": {"a": {"id": "a", "parent": None, "children": [], "message": message}},
        }
    ]


def test_a_conversation_is_no_entity_s_own_note(tmp_path: Path) -> None:
    notes, vault = tmp_path / "notes", tmp_path / "vault"
    notes.mkdir()
    (notes / "a.json").write_text(
        json.dumps(_chatgpt_export("Weekend plans", "I went hiking yesterday.")), "utf-8"
    )
    (notes / "b.json").write_text(
        json.dumps(_chatgpt_export("Printer", "I fixed the printer yesterday.")), "utf-8"
    )
    graph = {
        "entities": [{"name": "Printer", "type": "device"}, {"name": "Klipper", "type": "software"}],
        "relations": [{"source": "Printer", "target": "Klipper", "type": "runs", "confidence": 0.9}],
    }
    (notes / "graph#1.json").write_text(json.dumps(graph), "utf-8")
    (notes / "C# tips.md").write_text("---\ndate: 2024-01-02\n---\nI learned LINQ today.\n", "utf-8")
    run_build(notes, vault)
    assert check_vault(vault, notes=notes) == []
    assert sorted(p.stem for p in (vault / "entities").glob("*.md")) == ["klipper", "printer", "user"]
    assert _page(vault / "entities" / "printer.md")[0]["aliases"] == []
    (line,) = (vault / "relations.jsonl").read_text("utf-8").splitlines()
    relation = json.loads(line)
    assert relation["evidence"] == ["graph#1.json#/relations/0"]
    assert relation["statement"] == "Printer runs Klipper."  # a relation stated without a sentence
    assert (vault / "sources" / "c-sharp-tips-summary.md").is_file()


def test_a_chat_log_with_no_readable_message_gives_nothing(tmp_path: Path) -> None:
    notes, vault = tmp_path / "notes", tmp_path / "vault"
    notes.mkdir()
    (notes / "log.jsonl").write_text(
        '{"role": "system", "content": "Alice works at Acme Corp."}\n'
        '{"role": "tool", "content": "Bob lives in Paris."}\n',
        "utf-8",
    )
    report = run_build(notes, vault)
    assert report["nodes"] == {"episodic": 0, "semantic": 0}
    assert _coverage(vault / "sources" / "log-summary.md") == [
        ("1-2", "nothing: not a message (system, tool or unreadable)")
    ]
    assert check_vault(vault, notes=notes) == []


def test_the_same_words_from_two_speakers_cite_each_their_own_line(tmp_path: Path) -> None:
    notes, vault = tmp_path / "notes", tmp_path / "vault"
    notes.mkdir()
    (notes / "t.md").write_text(
        "---\ndate: 2023-05-08\nparticipants: [Alice, Bob]\n---\n"
        "Alice: I adopted a cat named Miso yesterday.\n"
        "Bob: I adopted a cat named Miso yesterday.\n"
        "Alice: I'm so glad I finally quit my job at Google last week.\n",
        "utf-8",
    )
    run_build(notes, vault)
    by_speaker = {(n["attributed_to"], str(n["_body"]).split("\n")[0]): _sources_of(n) for n in _nodes(vault)}
    assert by_speaker[("Alice", "I adopted a cat named Miso yesterday.")] == ["lines 5-5"]
    assert by_speaker[("Bob", "I adopted a cat named Miso yesterday.")] == ["lines 6-6"]
    assert ("Alice", "I'm so glad I finally quit my job at Google last week.") in by_speaker
    rows = dict(_coverage(vault / "sources" / "t-summary.md"))
    assert rows["6-6"].startswith("Bob: 1 node")


def test_naming_the_user_rebuilds_chat_logs_as_a_clean_build_would(tmp_path: Path) -> None:
    notes, vault = tmp_path / "notes", tmp_path / "vault"
    notes.mkdir()
    (notes / "log.jsonl").write_text(
        '{"role": "user", "content": "I switched my Ender 3 to Klipper yesterday.", '
        '"timestamp": "2023-05-08T10:00:00Z"}\n',
        "utf-8",
    )
    run_build(notes, vault)
    (notes / "kgvault.toml").write_text('user_name = "Alex"\n', "utf-8")
    run_build(notes, vault)
    clean = tmp_path / "clean"
    run_build(notes, clean)
    assert tree_bytes(vault) == tree_bytes(clean)
    assert [n["attributed_to"] for n in _nodes(vault)] == ["Alex"]


def test_what_a_user_asks_an_assistant_to_write_is_no_relation_nor_entity(tmp_path: Path) -> None:
    notes, vault = tmp_path / "notes", tmp_path / "vault"
    notes.mkdir()
    turns = [
        ("Translate 'Tom works at Microsoft' into German.", "10:00"),
        ("Write a cover letter saying Zoe works at SAP.", "10:02"),
        ("I'm researching agencies since Kate works at Acme now. Write me a plan.", "10:04"),
    ]
    (notes / "c.jsonl").write_text(
        "".join(
            json.dumps({"role": "user", "text": text, "timestamp": f"2024-03-12T{at}:00Z"}) + "\n"
            for text, at in turns
        ),
        "utf-8",
    )
    run_build(notes, vault)
    assert triples(vault) == [("kate", "works_for", "acme")]
    assert not {"tom", "microsoft", "zoe", "sap"} & {page.stem for page in vault.glob("entities/*.md")}


def test_an_attachment_cut_short_at_a_titles_end_leaves_no_bracket(tmp_path: Path) -> None:
    notes, vault = tmp_path / "notes", tmp_path / "vault"
    notes.mkdir()
    said = (
        "Caroline: Thanks, Mel! I made this stained glass window to remind myself and others that within "
        "us all is the key to discovering our true potential and living our best life. [image: a photo "
        "of three stained glass windows in a church with a clock]\n"
    )
    (notes / "s.md").write_text(
        f"---\ndate: 2023-05-08\nparticipants: [Caroline, Melanie]\n---\n{said}", "utf-8"
    )
    run_build(notes, vault)
    titles = [str(node["title"]) for node in _nodes(vault)]
    assert titles and not any("[image" in title for title in titles), titles


def test_an_undated_chat_log_is_reported_and_its_facts_keep_their_speaker(tmp_path: Path) -> None:
    notes, vault = tmp_path / "notes", tmp_path / "vault"
    notes.mkdir()
    lines = [{"speaker": "Bob", "text": "I work at Acme Corp as an engineer."},
             {"speaker": "Dave", "text": "I live in Berlin."},
             {"speaker": "Dave", "text": "Sorry to hear that. Long time no talk."}]  # fmt: skip
    (notes / "group.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines), "utf-8")
    report = run_build(notes, vault)
    assert any("a chat log with no time" in p["message"] for p in report["problems"])  # type: ignore[index, union-attr]
    titles = sorted(str(node["title"]) for node in _nodes(vault))
    assert titles == ["Bob: I work at Acme Corp as an engineer.", "Dave: I live in Berlin."]


@pytest.mark.parametrize(
    "request_text",
    [
        "Fix the grammar: me and him went to the store yesterday.",
        "I want you to write a story where I adopted a dragon yesterday.",
        "Let's roleplay. I am a knight who slew a dragon last night.",
    ],
)
def test_more_requests_are_no_memory_of_the_one_asking(tmp_path: Path, request_text: str) -> None:
    assert _nodes(_one_line_log(tmp_path, "Alex", request_text)) == []


def test_a_secret_said_in_a_turn_is_masked_everywhere(tmp_path: Path) -> None:
    """A turn the rules find nothing in is still its speaker's episode: masked like any node."""
    notes, vault = tmp_path / "notes", tmp_path / "vault"
    notes.mkdir()
    planted = [
        "4111-1111-1111-1111",
        "Qz8Lk3Rv91x",
        "eve.hidden@example.com",
        "TurnKeyQx7Rt2LmN9pVb4Kz8WcYh3",
    ]
    (notes / "t.md").write_text(
        "---\nparticipants: [Dana, Eve]\ndate: 2025-03-15\n---\n"
        f"Eve: ok, and my card is {planted[0]}\nDana: ok, and my pw is {planted[1]}\n"
        f"Eve: ok, and my mail is {planted[2]}\nEve: ok, and my key is sk-proj-{planted[3]}\n",
        "utf-8",
    )
    (notes / "log.jsonl").write_text(
        json.dumps({"speaker": "Dana", "text": f"ok, and my mail is {planted[2]}", "timestamp": "2025-03-20"})
        + "\n",
        "utf-8",
    )
    run_build(notes, vault)
    nodes = _nodes(vault)
    assert len(nodes) == 5 and all(node["sensitivity"] == "confidential" for node in nodes)
    assert_written_nowhere(vault, planted)


@pytest.mark.parametrize(
    "said",
    [
        "Check out my painting for the art show, I finished it yesterday!",
        "Imagine my surprise when I found out Tom works at Google now!",
        "I want you to know I quit smoking two weeks ago.",
    ],
)
def test_what_only_sounds_like_a_request_is_the_speakers_news(tmp_path: Path, said: str) -> None:
    assert [str(node["attributed_to"]) for node in _nodes(_one_line_log(tmp_path, "Ann", said))] == ["Ann"]


def _one_line_log(tmp_path: Path, speaker: str, text: str) -> Path:
    """The vault of a chat log of one line, said on 1 February 2024."""
    line = {"speaker": speaker, "text": text, "timestamp": "2024-02-01T10:00:00Z"}
    notes, vault = notes_with(tmp_path, {"c.jsonl": json.dumps(line) + "\n"})
    run_build(notes, vault)
    return vault


def test_a_label_line_in_a_turn_is_no_stranger(tmp_path: Path) -> None:
    notes, vault = notes_with(
        tmp_path,
        {
            "t.md": "---\ndate: 2024-03-01\nparticipants: [Ann, Ben]\n---\n"
            "Ann: Busy week ahead for me.\nMonday: I fly to Oslo for the Atlas kickoff.\n"
        },
    )
    report = run_build(notes, vault)
    assert not [p for p in report["problems"] if "participant" in p["message"]]  # type: ignore[index, union-attr]


def test_what_a_speaker_says_of_themselves_in_the_first_person_relates_them(tmp_path: Path) -> None:
    notes, vault = notes_with(
        tmp_path,
        {
            "day1.md": "---\ndate: 2024-03-02\nparticipants: [Anna, Ben, Assistant]\n---\n"
            "Anna: I work at Google now, and I live in Munich.\n"
            "Ben: I don't work at Apple anymore.\n"
            "Ben: If I lived in Paris, I would walk more.\n"
            "Anna: I use Obsidian for my notes.\n"
            "Assistant: I use Python every day.\n",
            "day2.md": "---\ndate: 2024-05-10\nparticipants: [Anna, Ben]\n---\n"
            "Anna: I just started a new job at SAP!\n",
        },
    )
    run_build(notes, vault)
    found = {(r["from"], r["relation"], r["to"]): r for r in relations_of(vault)}
    assert sorted(found) == [
        ("anna", "lives_in", "munich"),
        ("anna", "uses", "obsidian"),
        ("anna", "works_for", "google"),
        ("anna", "works_for", "sap"),
        ("ben", "works_for", "apple"),
    ]
    # The new job ends the old one: one current employer.
    assert found[("anna", "works_for", "google")]["invalid_at"] == "2024-05-10"
    assert found[("anna", "works_for", "sap")]["valid_at"] == "2024-05-10"
    assert found[("anna", "uses", "obsidian")]["statement"] == "Anna: I use Obsidian for my notes."
    # A job said to be over ended that day; it never held from a day anyone said.
    ended = found[("ben", "works_for", "apple")]
    assert (ended["valid_at"], ended["invalid_at"]) == (None, "2024-03-02")
    assert not {"paris", "python", "i"} & {page.stem for page in vault.glob("entities/*.md")}


def test_first_person_relations_need_an_author_in_a_note(tmp_path: Path) -> None:
    notes, vault = notes_with(
        tmp_path,
        {
            "signed.md": "---\nauthor: Alex Rivera\ndate: 2024-03-02\n---\nI work at Acme Robotics.\n",
            "unsigned.md": "---\ndate: 2024-03-02\n---\nI work at Globex.\n",
            # Quoted, the "I" is someone else's; in a note about a book, the author's is not the writer's.
            "lunch.md": "---\nauthor: Dana Kim\ndate: 2024-03-05\n---\nHad lunch with Sam. He told me:\n\n"
            "> I work at Initech and I live in Austin.\n",
            "book.md": "---\nauthor: '[[Kevin Kelly]]'\ncategories: ['[[Books]]']\n---\n"
            "I live in Tokyo now, and I reread this book every year.\n",
        },
    )
    run_build(notes, vault)
    stated = [triple for triple in triples(vault) if triple[1] in ("works_for", "lives_in")]
    assert stated == [("alex-rivera", "works_for", "acme-robotics")]


def test_the_i_of_an_unsigned_note_is_the_user_name_when_set_and_only_while_it_is(tmp_path: Path) -> None:
    notes, vault = notes_with(
        tmp_path,
        {
            "2024-01-07.md": "I live in Manchester. I work at Acme Analytics.\n",
            "signed.md": "---\nauthor: Dana Kim\ndate: 2024-01-08\n---\nI work at Globex.\n",
            # A page clipped from the web: its "I" is its own author's, named or not.
            "clip.md": "---\nurl: https://example.com/post\ndate: 2024-01-09\n---\nI live in Tokyo.\n",
        },
    )
    run_build(notes, vault)
    assert triples(vault) == [("dana-kim", "works_for", "globex")]
    (notes / "kgvault.toml").write_text('user_name = "Sam Reyes"\n', "utf-8")
    run_build(notes, vault)  # the same notes and cache: only the setting changed
    assert sorted(triples(vault)) == [
        ("dana-kim", "works_for", "globex"),
        ("sam-reyes", "lives_in", "manchester"),
        ("sam-reyes", "works_for", "acme-analytics"),
    ]
    (notes / "kgvault.toml").unlink()
    run_build(notes, vault)
    assert triples(vault) == [("dana-kim", "works_for", "globex")]


def test_a_first_person_relation_is_the_speakers_only_when_they_state_it(tmp_path: Path) -> None:
    notes, vault = notes_with(
        tmp_path,
        {
            "c.md": "---\ndate: 2024-03-02\nparticipants: [Caroline, Ben, Ann, Omar]\n---\n"
            "Caroline: My brother just texted me this:\n> I live in Denver now and I work at Boeing.\n"
            "Ben: Everyone assumes I work at Amazon.\n"
            "Ben: I told my boss I work at Netflix, but that was a lie.\n"
            "Ben: In my dream last night I lived in Rome.\n"
            "Ann: I'm married to Sarah Lee. I report to Priya Shah.\n"
            "Ann: I lived in Paris for two years before that.\n"
            "Omar: Oh, and now I work at Spotify. Recently I moved to Stockholm.\n"
            "Omar: I moved to Obsidian from Notion.\n",
        },
    )
    run_build(notes, vault)
    assert sorted(triples(vault)) == [
        ("ann", "married_to", "sarah-lee"),
        ("ann", "reports_to", "priya-shah"),
        ("omar", "lives_in", "stockholm"),
        ("omar", "uses", "notion"),  # no more, from that day
        ("omar", "uses", "obsidian"),
        ("omar", "works_for", "spotify"),
    ]


def _built_talk(tmp_path: Path, participants: str, turns: str, day: str = "2024-02-14") -> Path:
    """The vault of one transcript note (`participants` as written in its frontmatter)."""
    notes, vault = notes_with(
        tmp_path, {"talk.md": f"---\ndate: {day}\nparticipants: {participants}\n---\n{turns}"}
    )
    run_build(notes, vault)
    return vault


def test_linked_participants_make_no_entity_of_the_talk_and_st_ends_no_sentence(tmp_path: Path) -> None:
    vault = _built_talk(
        tmp_path,
        "['[[Gina Lopez|Gina]]', Jon]",
        "Gina: I'm a nurse at St. Mary's Hospital. I love it.\nJon: I work at Acme Robotics.\n",
    )
    assert sorted(p.stem for p in (vault / "entities").glob("*.md")) == [
        "acme-robotics",
        "gina-lopez",
        "jon",
        "st-mary-s-hospital",  # a saint's dotted name, whole
    ]
    assert triples(vault) == [
        ("gina-lopez", "works_for", "st-mary-s-hospital"),
        ("jon", "works_for", "acme-robotics"),
    ]
    titles = sorted(str(n["title"]) for n in _nodes(vault))
    assert "Gina Lopez: I'm a nurse at St. Mary's Hospital." in titles


def test_every_statement_of_a_turn_is_kept_not_only_the_first(tmp_path: Path) -> None:
    vault = _built_talk(
        tmp_path,
        "[Jon, Gina]",
        "Jon: I even found a place with great natural light! Oh, I've been to Paris yesterday!\n"
        "Gina: Thanks! I'm excited and kinda nervous. It's a part-time position in the fashion "
        "department of an international company.\n",
    )
    bodies = [str(n["_body"]) for n in _nodes(vault)]
    assert any("been to Paris" in body for body in bodies)
    assert any("part-time position in the fashion department" in body for body in bodies)
    assert any("excited and kinda nervous" in body for body in bodies)
    assert sum("natural light" in body for body in bodies) == 1  # a statement is one node, once


def test_a_short_statement_of_what_the_speaker_is_is_kept_and_a_feeling_is_not(tmp_path: Path) -> None:
    vault = _built_talk(
        tmp_path,
        "[Ann, Bob]",
        "Ann: I'm a nurse.\nBob: I'm from Brazil.\nAnn: I'm retired.\nBob: I'm so happy.\n",
    )
    titles = sorted(str(n["title"]) for n in _nodes(vault))
    assert titles == ["Ann: I'm a nurse.", "Ann: I'm retired.", "Bob: I'm from Brazil."]


def test_a_job_the_speaker_quit_ends_on_the_day_they_say_and_leaving_a_city_ends_none(
    tmp_path: Path,
) -> None:
    notes, vault = notes_with(
        tmp_path,
        {
            "d1.md": "---\ndate: 2024-01-10\nparticipants: [Lena, Omar]\n---\n"
            "Lena: I work at Google.\nOmar: I work at Spotify.\n",
            "d2.md": "---\ndate: 2024-06-15\nparticipants: [Lena, Omar]\n---\n"
            "Lena: I quit my job at Google yesterday.\nOmar: I left Paris yesterday. I quit smoking!\n",
        },
    )
    run_build(notes, vault)
    ends = {(r["from"], r["to"]): (r["valid_at"], r["invalid_at"]) for r in relations_of(vault)}
    assert ends == {
        ("lena", "google"): ("2024-01-10", "2024-06-14"),
        ("omar", "spotify"): ("2024-01-10", None),
    }


def test_a_diary_s_everyday_wording_of_jobs_homes_and_tool_switches_relates_its_author(
    tmp_path: Path,
) -> None:
    signed = "---\nauthor: Sam\n---\n"
    notes, vault = notes_with(
        tmp_path,
        {
            "2024-02-02.md": f"{signed}I use Notion for everything. I work at Acme Analytics.\n",
            "2024-05-04.md": f"{signed}I switched from Notion to Obsidian today.\n",
            "2024-08-30.md": f"{signed}Last day at my job at Acme Analytics.\n",
            "2024-09-02.md": f"{signed}Today was my first day at the new job at Stripe.\n",
            "2024-09-10.md": f"{signed}We live in Bristol now, a little terrace in Bedminster.\n",
            "2025-04-12.md": f"{signed}Yesterday I moved to Lisbon.\n",
            "2025-05-01.md": f"{signed}Priya started a new job at Monzo.\n",
            "2025-06-02.md": f"{signed}Quit my job at Stripe today. Moved into our new flat in Porto.\n",
            "2025-06-09.md": f"{signed}Started my new job at Farfetch today.\n",
        },
    )
    run_build(notes, vault)
    found = {
        (r["from"], r["relation"], r["to"]): (r["valid_at"], r["invalid_at"]) for r in relations_of(vault)
    }
    assert found == {
        ("sam", "uses", "notion"): ("2024-02-02", "2024-05-04"),
        ("sam", "uses", "obsidian"): ("2024-05-04", None),
        ("sam", "works_for", "acme-analytics"): ("2024-02-02", "2024-08-30"),
        ("sam", "works_for", "stripe"): ("2024-09-02", "2025-06-02"),
        ("sam", "works_for", "farfetch"): ("2025-06-09", None),
        ("sam", "lives_in", "bristol"): ("2024-09-10", "2025-04-11"),
        ("sam", "lives_in", "lisbon"): ("2025-04-11", "2025-06-02"),
        ("sam", "lives_in", "porto"): ("2025-06-02", None),
        ("priya", "works_for", "monzo"): ("2025-05-01", None),
    }


def test_everyday_wording_that_names_no_job_home_or_tool_of_the_writer_relates_nobody(
    tmp_path: Path,
) -> None:
    """What a review found read as the writer's jobs, homes and tools: trips, conferences, other
    people's news, sign-ups, games, substitutions."""
    lines = [
        "My sister sold her flat and moved to Bristol.",
        "Caught up with Ben. Started at Google on Monday, loves it.",
        "Mum rang. Moved to Bournemouth last month and loving it.",
        "Started at Heathrow this morning, ended the day in Tokyo.",
        "We settled in Paris for the night.",
        "Last day at the Hilton, left the keys at the front desk.",
        "First day at PyCon, met the Stripe team.",
        "First day at work with Priya shadowing me.",
        "Last day at work with Tom before he leaves for Canada.",
        "Just joined Monzo as a data scientist!",
        "Joined Strava as a premium member today.",
        "Lily started at Oakwood Primary on Monday, she loved it.",
        "Switched from Lufthansa to KLM after the strike.",
        "Swapped Salah for Haaland in my fantasy team.",
        "Replaced Tom with Anna on the rota.",
        "Just switched from Notion to Obsidian.",
        "Never switched from Notion to Obsidian.",
        "Almost switched from Jira to Linear last year.",
        "Anna replaced Notion with Obsidian.",
        "Everyone assumes we moved to Rome.",
        "Mum rang. Started her new job at Tesco.",
        "Helped Tom move into his new flat in Leeds.",
    ]
    signed = "---\nauthor: Sam\ndate: 2024-03-02\n---\n"
    notes, vault = notes_with(tmp_path, {f"n{i:02}.md": f"{signed}{line}\n" for i, line in enumerate(lines)})
    run_build(notes, vault)
    assert triples(vault) == []


def test_a_move_to_well_known_software_is_a_tool_not_a_home(tmp_path: Path) -> None:
    signed = "---\nauthor: Sam\ndate: 2024-03-02\n---\n"
    lines = ["We moved to Slack last year.", "I moved to Obsidian from Notion."]
    notes, vault = notes_with(tmp_path, {f"n{i:02}.md": f"{signed}{line}\n" for i, line in enumerate(lines)})
    run_build(notes, vault)
    spans = {
        (r["from"], r["relation"], r["to"]): (r["valid_at"], r["invalid_at"])
        for r in map(json.loads, (vault / "relations.jsonl").read_text("utf-8").splitlines())
    }
    assert spans == {
        ("sam", "uses", "notion"): (None, "2024-03-02"),  # no more from that day
        ("sam", "uses", "obsidian"): ("2024-03-02", None),
        ("sam", "uses", "slack"): ("2023-01-01", None),
    }


def test_a_relation_in_a_past_month_or_year_starts_then_not_on_the_note_s_day(tmp_path: Path) -> None:
    notes, vault = notes_with(
        tmp_path,
        {
            "2025-03-12.md": "---\nauthor: Sam\n---\nI moved to Paris in May 2019. In 2023 I moved to Lyon.\n"
            "I quit my job at Google in 2021. I moved to Oslo in March.\n",
        },
    )
    run_build(notes, vault)
    found = {(r["to"]): (r["valid_at"], r["invalid_at"]) for r in relations_of(vault)}
    assert found == {
        "paris": ("2019-05-01", "2023-01-01"),  # what followed ends it, in the order it happened
        "lyon": ("2023-01-01", "2025-03-12"),
        "oslo": ("2025-03-12", None),  # this month is not over: the note's day holds
        "google": (None, "2021-01-01"),
    }


def test_a_day_or_month_ahead_said_without_its_year_is_the_coming_one_in_title_and_date(
    tmp_path: Path,
) -> None:
    notes, vault = tmp_path / "notes", tmp_path / "vault"
    notes.mkdir()
    (notes / "t.md").write_text(
        "---\ndate: 2024-03-12T10:00:00\nparticipants: [Sam, Mum]\n---\n"
        "Sam: I accepted an offer from Stripe. I start there on 3 June, my last day here is 31 May\n"
        "Sam: We're moving to Bristol in July.\n"
        "Sam: I went to Paris in February.\n"
        "Mum: We went to Rome on 2 March.\n"
        "Mum: I'm going to a conference this month.\n"
        "Sam: On 2 March, we got engaged.\n"
        "Sam: I will send you the photos from the wedding in February.\n"
        "Sam: I'm still sore from the marathon on 3 March.\n"
        "Sam: The photos from our trip in August are lovely.\n"
        "Sam: The car is still broken after the crash on 3 February.\n"
        "Sam: I'm flying to Tokyo in February.\n"
        "Sam: I'm off from 1 April to 14 April, flying to Japan.\n"
        "Sam: I'm starting a new role at Deliveroo on 1 September.\n"
        "Mum: We're having a baby in October.\n"
        "Mum: We're having the same weather as in February.\n"
        "Sam: And I'm getting married in June, Tom proposed!\n"
        "Sam: got the job at deloitte!! start on 1st april\n"
        "Mum: party saturday 6th april, everyone come\n"
        "Sam: I booked the tickets on 1st March\n"
        "Sam: We were flying on 2nd March but it got cancelled\n"
        "Sam: Thursday 7th March was a nightmare\n",
        "utf-8",
    )
    run_build(notes, vault)
    dated = {str(n["title"]): n["timestamp"] for n in _nodes(vault)}
    # A past verb elsewhere in the sentence leaves a start ahead ahead (the news is of the day it is
    # told); a weekday says which year.
    assert dated["Sam: got the job at deloitte!! start on 1 April 2024"] == date(2024, 3, 12)
    assert dated["Mum: party saturday 6 April 2024, everyone come"] == date(2024, 4, 6)
    # But a past event's day stays behind, and a weekday in a past sentence is no year's sign.
    assert dated["Sam: I booked the tickets on 1 March 2024"] == date(2024, 3, 1)
    assert dated["Sam: We were flying on 2 March 2024 but it got cancelled"] == date(2024, 3, 2)
    assert dated["Sam: Thursday 7 March 2024 was a nightmare"] == date(2024, 3, 7)
    # The writer's own news points ahead, whatever words lie between ("having a baby") or follow.
    assert dated["Mum: We're having a baby in October 2024."] == date(2024, 10, 1)
    assert "Sam: And I'm getting married in June 2024, Tom proposed!" in dated
    assert dated["Mum: We're having the same weather as in February 2024."] == date(2024, 2, 1)
    # The title and the day agree, and what is to happen is this year's (it said last year's).
    assert dated["Sam: I start there on 3 June 2024, my last day here is on 31 May 2024"] == date(2024, 6, 3)
    assert dated["Sam: We're moving to Bristol in July 2024."] == date(2024, 7, 1)
    # Past sentences, relative words, and what lies just behind stay behind.
    assert dated["Sam: I went to Paris in February 2024."] == date(2024, 2, 1)
    assert dated["Mum: We went to Rome on 2 March 2024."] == date(2024, 3, 2)
    assert dated["Mum: I'm going to a conference in March 2024."] == date(2024, 3, 1)
    assert dated["Sam: On 2 March 2024, we got engaged."] == date(2024, 3, 2)
    assert dated["Sam: I will send you the photos from the wedding in February 2024."] == date(2024, 2, 1)
    # It was dated a year on (2025-03-03) while its title said 2024.
    assert dated["Sam: I'm still sore from the marathon on 3 March 2024."] == date(2024, 3, 3)
    # Only a verb pointing ahead moves a time: a noun before it ("our trip in") does not.
    assert dated["Sam: The photos from our trip in August 2023 are lovely."] == date(2023, 8, 1)
    assert dated["Sam: The car is still broken after the crash on 3 February 2024."] == date(2024, 2, 3)
    assert dated["Sam: I'm flying to Tokyo in February 2025."] == date(2025, 2, 1)
    # A range's end runs on from its start, and reads "to 14 April 2024", not "to on 14 April 2023".
    assert dated["Sam: I'm off from 1 April 2024 to 14 April 2024, flying to Japan."] == date(2024, 4, 1)
    assert dated["Sam: I'm starting a new role at Deliveroo on 1 September 2024."] == date(2024, 9, 1)


def test_a_friends_mum_in_a_chat_is_theirs_and_the_users_mum_is_the_notes(tmp_path: Path) -> None:
    chat = (
        "[03/03/2024, 21:44:10] Jess: my Mum lives in Cornwall now\n"
        "[03/03/2024, 21:45:02] Alex: My mum lives in Leeds\n"
        "[03/03/2024, 21:46:30] Jess: Dad works at Tesco\n"
    )
    notes, vault = notes_with(
        tmp_path,
        {
            "WhatsApp Chat with Jess.txt": chat,
            "kgvault.toml": 'user_name = "Alex"\n',
            "2024-03-05.md": "Mum lives in Leeds.\n",
        },
    )
    run_build(notes, vault)
    assert set(triples(vault)) == {
        ("jess-s-mum", "lives_in", "cornwall"),
        ("jess-s-dad", "works_for", "tesco"),
        ("mum", "lives_in", "leeds"),
    }
    # In a family's chat (someone saved as Mum), "Dad" is the family's Dad, whoever says it.
    family = "[03/03/2024, 21:44:10] Mum: Dad works at Tesco\n[03/03/2024, 21:45:02] Alex: ok\n"
    notes, vault = notes_with(
        tmp_path / "family", {"WhatsApp Chat with Family.txt": family, "kgvault.toml": 'user_name = "Alex"\n'}
    )
    run_build(notes, vault)
    assert triples(vault) == [("dad", "works_for", "tesco")]
    # Nor is it a sister's (the user's surname), and the user's own, by first name, is the notes' Mum.
    chat = (
        "[03/03/2024, 21:44:10] Neha Sharma: Mum lives in Leeds now\n"
        "[03/03/2024, 21:45:02] Alex: Dad works at Tesco\n[03/03/2024, 21:46:02] Jo: Mum said she loved it\n"
    )
    notes, vault = notes_with(
        tmp_path / "sister",
        {"WhatsApp Chat with Neha.txt": chat, "kgvault.toml": 'user_name = "Alex Sharma"\n'},
    )
    run_build(notes, vault)
    assert set(triples(vault)) == {("mum", "lives_in", "leeds"), ("dad", "works_for", "tesco")}
    # Jo's "Mum", said with no relation, is Jo's mum's page's, not the user's Mum's.
    assert "jo-mum-said-she-loved-it" in (vault / "entities" / "jo-s-mum.md").read_text("utf-8")
    assert "jo-mum-said-she-loved-it" not in (vault / "entities" / "mum.md").read_text("utf-8")


def test_a_turn_dates_a_weekday_or_day_of_the_month_named_alone(tmp_path: Path) -> None:
    """ "We switched … on Monday" said on a Wednesday is that week's Monday, "starts on Monday" the
    coming one, as in a note; "on Mondays" is a habit and dates nothing."""
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "sync.md").write_text(
        "---\ndate: 2025-03-12\nparticipants: [Tom Becker, Jane Doe]\n---\n"
        "Tom Becker: We switched from Jenkins to GitHub Actions on Monday.\n"
        "Jane Doe: My sister starts at Google on Monday.\n"
        "Jane Doe: I met Ana on the 3rd.\n"
        "Tom Becker: I go to the gym on Mondays.\n",
        "utf-8",
    )
    vault = tmp_path / "vault"
    run_build(notes, vault)
    by_title = {str(n["title"]): n["timestamp"] for n in _nodes(vault)}
    assert by_title["Tom Becker: We switched from Jenkins to GitHub Actions on 10 March 2025."] == date(
        2025, 3, 10
    )
    assert by_title["Jane Doe: My sister starts at Google on 17 March 2025."] == date(2025, 3, 17)
    assert by_title["Jane Doe: I met Ana on 3 March 2025."] == date(2025, 3, 3)
    assert by_title["Tom Becker: I go to the gym on Mondays."] == date(2025, 3, 12)
    assert ("tom-becker", "uses", "github-actions", "2025-03-10") in {
        (r["from"], r["relation"], r["to"], r["valid_at"]) for r in relations_of(vault)
    }


def test_a_start_still_ahead_in_a_past_turn_or_sentence_is_the_coming_day(tmp_path: Path) -> None:
    """ "handed my notice in at Sky today, I start at Monzo on the 3rd", said on 28 March: 3 April."""
    notes, vault = notes_with(
        tmp_path,
        {
            "jess.md": "---\ndate: 2024-03-28\nparticipants: [Jess, Sam]\n---\n"
            "Jess: handed my notice in at Sky today 😬 I start at Monzo on the 3rd\n"
            "Sam: we booked the flights on the 3rd\n",
            "2025-03-12.md": "Signed the contract with Monzo, I start on Monday.\n\n"
            "We moved the boxes on Monday.\n",
        },
    )
    run_build(notes, vault)
    by_title = {str(n["title"]): n["timestamp"] for n in _nodes(vault)}
    assert by_title[
        "Jess: handed my notice in at Sky on 28 March 2024 😬 I start at Monzo on 3 April 2024"
    ] == (date(2024, 3, 28))
    assert by_title["Sam: we booked the flights on 3 March 2024"] == date(2024, 3, 3)
    assert by_title["Signed the contract with Monzo, I start on Monday."] == date(2025, 3, 17)
    assert by_title["We moved the boxes on Monday."] == date(2025, 3, 10)


def test_a_new_day_something_is_put_off_or_brought_forward_to_is_ahead(tmp_path: Path) -> None:
    """ "We decided to move the launch to May 6th", said on 15 April 2025: this May, not last year's."""
    notes, vault = notes_with(
        tmp_path,
        {
            "sync.md": "---\ndate: 2025-04-15\nparticipants: [Jane Doe, Tom]\n---\n"
            "Jane Doe: We decided to move the launch to May 6th because QA needs another week.\n"
            "Tom: The review was postponed until June 3.\n"
            "Jane Doe: We went to Lisbon on May 6th.\n",
        },
    )
    run_build(notes, vault)
    titles = {str(n["title"]) for n in _nodes(vault)}
    assert titles >= {
        "Jane Doe: We decided to move the launch to 6 May 2025 because QA needs another week.",
        "Tom: The review was postponed until 3 June 2025.",
        "Jane Doe: We went to Lisbon on 6 May 2024.",
    }


def test_a_turns_day_named_alone_stays_behind_after_a_participle_and_a_habit_names_none(
    tmp_path: Path,
) -> None:
    """Said on Thursday 20 March 2025: a participle is no start ahead, a rescheduled day is the nearest,
    what recurs names no one day, and a day a sentence does not tell is left as said."""
    notes, vault = notes_with(
        tmp_path,
        {
            "chat.md": "---\ndate: 2025-03-20\nparticipants: [Ana, Sam]\n---\n"
            "Ana: Flying back from Rome on Sunday was a nightmare.\n"
            "Sam: We pushed the release to March 10 and it shipped on time.\n"
            "Ana: I always call Mum on Sunday.\n"
            "Sam: I get paid on the 15th.\n"
            "Sam: Booked the flights, leaving on Friday.\n"
            "Ana: The move dragged on until Tuesday, but we're finally in.\n",
        },
    )
    run_build(notes, vault)
    by_title = {str(n["title"]): n["timestamp"] for n in _nodes(vault)}
    assert by_title["Ana: Flying back from Rome on Sunday was a nightmare."] == date(2025, 3, 20)  # not ahead
    assert "Sam: We pushed the release to 10 March 2025 and it shipped on time." in by_title  # not 2026
    assert by_title["Ana: I always call Mum on Sunday."] == date(2025, 3, 20)
    assert by_title["Sam: I get paid on the 15th."] == date(2025, 3, 20)
    assert by_title["Sam: Booked the flights, leaving on Friday."] == date(2025, 3, 20)
    assert by_title["Ana: The move dragged on until Tuesday, but we're finally in."] == date(2025, 3, 20)
