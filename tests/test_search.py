"""Search and lookups over a built vault's index: ranking, citations, tags, entities, upkeep."""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from kgvault.cli import main
from kgvault.records import Node
from kgvault.search import (
    INDEX_FILE,
    Hit,
    NoIndexError,
    get_entity,
    get_node,
    nodes_by_tag,
    search,
    tag_tree,
)
from kgvault.search.index import _current_successors
from kgvault.search.query import _successors_first
from kgvault.search.schema import index_is_current

from .conftest import ROOT, SAMPLE, run_build

Built = tuple[Path, dict[str, object]]
LISTED = ["id", "path", "title", "memory_layer", "type", "timestamp"]
HEAVY = ("pydantic", "jinja2", "markdown_it", "yaml", "rapidfuzz", "litellm", "frontmatter", "kgvault.build")
SUPERSEDED = "the-ender-3-runs-marlin-2-1-2"
SUCCESSOR = "switched-the-ender-3-from-marlin-to-klipper"
GARDEN = """\
---
title: garden chat
date: 2024-06-10T10:00:00
participants:
- Ana
- Ben
---
Ana: I planted tomatoes in the garden yesterday.
Ben: I planted tomatoes in the garden last week too.
Ana: What are you reading these days?
Ben: I am reading a long novel about the sea.
Ana: The garden app token is sk-test-51HfakeKEYabcdefghijklmnop1234 so keep it to yourself.
Ben: Sure, I keep the garden app token to myself.
"""
SECRET = "sk-test-51HfakeKEYabcdefghijklmnop1234"
DAYS = {
    # The June note is the longer one, so BM25 alone prefers the July one.
    "daily/2024-06-20.md": "Repaired the bike chain and oiled the gears after the long muddy ride.\n",
    "daily/2024-07-25.md": "Repaired the bike chain.\n",
    "daily/2024-07-26.md": "Watered the plants on the balcony.\n",
    "daily/2024-07-10.md": "Lent the ladder to [[Robert Lindqvist]] for the weekend.\n",
    "people/Robert Lindqvist.md": "---\naliases: [Bobby]\n---\nRobert Lindqvist is my neighbour.\n",
}


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A vault of a transcript (Ana and Ben) and three daily notes, the latest on 2024-07-26."""
    root = tmp_path_factory.mktemp("small")
    notes = root / "notes"
    (notes / "chats").mkdir(parents=True)
    (notes / "chats" / "garden.md").write_text(GARDEN, "utf-8")
    for path, text in DAYS.items():
        (notes / path).parent.mkdir(parents=True, exist_ok=True)
        (notes / path).write_text(text, "utf-8")
    run_build(notes, root / "vault")
    return root / "vault"


@pytest.fixture(scope="module")
def conversations(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A vault of the ChatGPT and Claude exports and the JSON Lines chat log."""
    vault = tmp_path_factory.mktemp("conversations") / "vault"
    run_build(ROOT / "tests" / "fixtures" / "conversations", vault)
    return vault


def ids(hits: list[Hit]) -> list[str]:
    return [hit.id for hit in hits]


def frontmatter(page: Path) -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(page.read_text("utf-8").split("---\n")[1])
    return data


# -- ranking --------------------------------------------------------------------------------------


def test_a_stemmed_word_finds_the_node(sample_vault_built: Built) -> None:
    vault, _ = sample_vault_built
    # "switching" and "firmwares" meet "Switched" and "firmware" only through the Porter stemmer.
    assert SUCCESSOR in ids(search(vault, "switching firmwares", k=5))


def test_an_alias_finds_the_entitys_nodes(small: Path) -> None:
    # "Bobby" is written in no note's text: only as the alias of Robert Lindqvist.
    hit = search(small, "bobby ladder", k=1)[0]
    assert hit.title == "Lent the ladder to Robert Lindqvist for the weekend."
    node = get_node(small, hit.id)
    assert node is not None and {"id": "robert-lindqvist", "title": "Robert Lindqvist"} in node["entities"]


def test_a_persons_name_favours_what_they_said(small: Path) -> None:
    ben = search(small, "Ben tomatoes", k=3)
    ana = search(small, "Ana tomatoes", k=3)
    assert ben[0].id.startswith("ben-i-planted-tomatoes")
    assert ana[0].id.startswith("ana-i-planted-tomatoes")
    assert get_node(small, ben[0].id)["attributed_to"] == "Ben"  # type: ignore[index]


def test_time_words_favour_nodes_of_that_time(small: Path) -> None:
    # The vault's present is its latest date, 2024-07-26: "last month" is June 2024.
    assert search(small, "bike chain last month", k=1)[0].timestamp == "2024-06-20"
    assert search(small, "bike chain this month", k=1)[0].timestamp == "2024-07-25"
    assert search(small, "bike chain in June 2024", k=1)[0].timestamp == "2024-06-20"
    assert search(small, "bike chain", k=1)[0].timestamp == "2024-07-25"  # no time word: BM25 decides
    assert search(small, "bike chain le mois dernier", k=1)[0].timestamp == "2024-06-20"  # in French


def test_a_range_of_days_favours_nodes_inside_it(small: Path) -> None:
    # "20-22 June 2024" holds the June repair (20 June), not the July one BM25 alone prefers.
    assert search(small, "bike chain 20-22 June 2024", k=1)[0].timestamp == "2024-06-20"
    assert search(small, "bike chain June 19–21, 2024", k=1)[0].timestamp == "2024-06-20"


def test_a_resolved_date_is_found_by_its_words(small: Path) -> None:
    # Ana said "yesterday" on 10 June 2024: the node is dated, and found, as 9 June 2024.
    hit = search(small, "tomatoes 9 June 2024", k=1)[0]
    assert hit.id.startswith("ana-") and hit.timestamp == "2024-06-09"


def test_context_finds_an_answer_by_its_question_but_never_cites_it(small: Path) -> None:
    # "these days" is only in Ana's question; Ben's answer is found by it and cites its own line.
    hit = search(small, "reading these days", k=1)[0]
    assert hit.id.startswith("ben-i-am-reading")
    assert [(s.line_start, s.line_end) for s in hit.sources] == [(11, 11)]


def test_a_superseded_node_ranks_below_its_successor(sample_vault_built: Built) -> None:
    vault, _ = sample_vault_built
    assert get_node(vault, SUPERSEDED)["superseded_by"] == [SUCCESSOR]  # type: ignore[index]
    found = ids(search(vault, "Ender 3 runs Marlin 2.1.2", k=10))
    assert SUPERSEDED in found and SUCCESSOR in found
    assert found.index(SUCCESSOR) < found.index(SUPERSEDED)
    # No word of "runs 2.1.2" is in the successor: it is brought in, just above the node it replaces.
    found = ids(search(vault, "runs 2.1.2", k=10))
    assert found.index(SUCCESSOR) < found.index(SUPERSEDED)


def test_hits_cite_the_lines_they_come_from(sample_vault_built: Built) -> None:
    vault, _ = sample_vault_built
    hits = search(vault, "heating failed error", k=3)
    assert hits
    for hit in hits:
        for source in hit.sources:
            assert source.pointer is None and source.line_start is not None and source.line_end is not None
            lines = (SAMPLE / source.path).read_text("utf-8").splitlines()
            cited = "\n".join(lines[source.line_start - 1 : source.line_end]).casefold()
            assert any(word in cited for word in ("heat", "fail", "error")), (hit.id, source)
    first = hits[0].sources[0]
    assert first.line_start is not None and first.line_end is not None
    lines = (SAMPLE / first.path).read_text("utf-8").splitlines()[first.line_start - 1 : first.line_end]
    assert "heating failed" in "\n".join(lines).casefold()


def test_hits_from_an_export_cite_the_message_pointer(conversations: Path) -> None:
    hit = search(conversations, "Piranesi book club", k=1)[0]
    (source,) = hit.sources
    assert source.path == "claude/conversations.json"
    assert source.line_start is None and source.line_end is None
    assert source.pointer is not None
    message: Any = json.loads((ROOT / "tests/fixtures/conversations" / source.path).read_text("utf-8"))
    for part in source.pointer.strip("/").split("/"):
        message = message[int(part)] if isinstance(message, list) else message[part]
    assert "Piranesi" in json.dumps(message)


def test_json_shape_is_exact(sample_vault_built: Built) -> None:
    vault, _ = sample_vault_built
    result = CliRunner().invoke(main, ["search", "Klipper", "--vault", str(vault), "-k", "3", "--json"])
    assert result.exit_code == 0, result.output
    hits = json.loads(result.stdout)
    assert hits == [hit.to_json() for hit in search(vault, "Klipper", k=3)]
    assert len(hits) == 3
    for hit in hits:
        assert list(hit) == [*LISTED, "score", "sources", "superseded_by", "conflicts_with"]
        assert (vault / hit["path"]).is_file() and hit["path"] == f"{hit['memory_layer']}/{hit['id']}.md"
        assert isinstance(hit["score"], float) and hit["score"] == round(hit["score"], 4)
        assert re.fullmatch(r"\d{4}-\d\d-\d\d", hit["timestamp"])
        for source in hit["sources"]:
            assert list(source) == ["path", "line_start", "line_end", "pointer"]
            assert (SAMPLE / source["path"]).is_file()
    assert [h["score"] for h in hits] == sorted((h["score"] for h in hits), reverse=True)


def test_a_query_of_stopwords_only_or_no_words(sample_vault_built: Built) -> None:
    vault, _ = sample_vault_built
    assert search(vault, "?!", k=5) == []
    assert search(vault, "Klipper", k=0) == []


def test_a_search_for_an_old_state_brings_in_what_holds_now() -> None:
    def node(node_id: str, *after: str) -> Node:
        return Node(node_id, "episodic", "state", node_id, "", (), "private", "low", "stated", None, (), (),
                    superseded_by=after)  # fmt: skip

    nodes = [node("a", "b"), node("b", "c"), node("c"), node("d", "e"), node("e", "d"), node("f", "g", "h")]
    nodes += [node("g"), node("h", "i"), node("i")]
    assert _current_successors(nodes) == {
        "a": ("c",),
        "b": ("c",),
        "d": (),  # a cycle ends nowhere
        "e": (),
        "f": ("g", "i"),
        "h": ("i",),
    }
    # Successors are ordered before the nodes they replace, whatever the order of the keys.
    order = _successors_first({"a": ["b", "c"], "b": ["c"], "d": ["e"], "e": ["d"]})
    assert order.index("b") < order.index("a") and sorted(order) == ["a", "b", "d", "e"]


# -- tags, nodes, entities ------------------------------------------------------------------------


def test_tag_tree_counts_equal_the_ontology_page(sample_vault_built: Built) -> None:
    vault, _ = sample_vault_built
    page = (vault / "ontology.md").read_text("utf-8")
    section = page.split("## Tag tree\n", 1)[1].split("\n## ", 1)[0]
    listed = [(tag, int(n)) for tag, n in re.findall(r"^\s*- `([^`]+)` \((\d+)\)$", section, re.MULTILINE)]
    assert listed and tag_tree(vault) == listed


def test_nodes_by_tag_include_nested_tags_in_time_order(sample_vault_built: Built) -> None:
    vault, _ = sample_vault_built
    found = nodes_by_tag(vault, "#3d_printing/firmware")
    expected = set()
    for folder in ("episodic", "semantic"):
        for page in (vault / folder).glob("*.md"):
            tags = frontmatter(page)["tags"]
            if any(t == "3d_printing/firmware" or t.startswith("3d_printing/firmware/") for t in tags):
                expected.add(page.stem)
    assert {node["id"] for node in found} == expected
    assert any(t.startswith("3d_printing/firmware/") for node in found for t in node["tags"])
    assert [(n["timestamp"], n["id"]) for n in found] == sorted((n["timestamp"], n["id"]) for n in found)
    assert list(found[0]) == [*LISTED, "tags", "attributed_to"]
    assert nodes_by_tag(vault, "3d_print") == []  # a tag is whole words, not a prefix


def test_get_entity_by_alias_has_relations_both_ways(sample_vault_built: Built) -> None:
    vault, _ = sample_vault_built
    entity = get_entity(vault, "atlas")  # an alias, in another case
    assert entity is not None and entity["id"] == "project-atlas" and "Atlas" in entity["aliases"]
    assert get_entity(vault, "project-atlas") == entity == get_entity(vault, "PROJECT ATLAS")
    relations = [(r["from"], r["relation"], r["to"]) for r in entity["relations"]]
    assert ("dana-kim", "leads", "project-atlas") in relations
    assert ("project-atlas", "uses", "dagster") in relations
    # When each held: an agent must not say the Ender 3 runs Marlin still.
    ender = get_entity(vault, "Ender 3")
    assert ender is not None
    runs = {r["to"]: (r["valid_at"], r["invalid_at"]) for r in ender["relations"] if r["relation"] == "runs"}
    assert runs == {"marlin": ("2025-01-14", "2025-03-22"), "klipper": ("2025-03-22", None)}
    assert entity["nodes"] and all(set(node) == {"id", "title", "timestamp"} for node in entity["nodes"])
    assert get_entity(vault, "no such thing") is None


def test_get_node_has_everything(sample_vault_built: Built) -> None:
    vault, _ = sample_vault_built
    node = get_node(vault, SUPERSEDED)
    assert node is not None
    page = frontmatter(vault / node["path"])
    assert node["title"] == page["title"] and node["tags"] == page["tags"]
    assert node["timestamp"] == str(page["timestamp"])
    assert {"id": "marlin", "title": "Marlin"} in node["entities"]
    assert node["superseded_by"] == [SUCCESSOR] and node["conflicts_with"] == []
    assert node["body"] and node["sources"][0]["path"] == "daily/2025-01-14.md"
    assert get_node(vault, "no-such-node") is None


def test_the_index_holds_no_secret(small: Path) -> None:
    # Ben's turn is indexed with Ana's as its context: both are masked as pass 1 masks them.
    hit = search(small, "keep the garden app token", k=1)[0]
    assert hit.id.startswith("ben-sure")
    assert SECRET.encode() not in (small / INDEX_FILE).read_bytes()
    assert b"51HfakeKEY" not in (small / INDEX_FILE).read_bytes()


# -- upkeep ---------------------------------------------------------------------------------------


def _stats(vault: Path) -> tuple[dict[str, Any], dict[str, int]]:
    with sqlite3.connect(vault / INDEX_FILE) as db:
        (update,) = db.execute("SELECT value FROM meta WHERE key = 'last_update'").fetchone()
        rowids = dict(db.execute("SELECT id, rowid FROM nodes").fetchall())
    return json.loads(update), rowids


def test_the_index_follows_an_edit_and_touches_only_changed_rows(sample_copy: Path, tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    run_build(sample_copy, vault)
    old = "the-klipper-firmware-config-needed-about-twenty-edits"
    assert old in ids(search(vault, "twenty edits", k=3))
    first, rowids = _stats(vault)
    assert first["nodes"]["added"] == len(rowids) and first["nodes"]["unchanged"] == 0

    note = sample_copy / "daily" / "2025-05-02.md"
    note.write_text(note.read_text("utf-8").replace("twenty edits", "thirty zqfix edits"), "utf-8")
    run_build(sample_copy, vault)

    assert old not in ids(search(vault, "twenty edits", k=10))
    (hit,) = search(vault, "zqfix", k=1)
    assert hit.title == "The Klipper firmware config needed about thirty zqfix edits."
    second, after = _stats(vault)
    nodes = second["nodes"]
    assert 1 <= nodes["added"] + nodes["changed"] <= 5 and nodes["removed"] + nodes["changed"] >= 1
    assert nodes["unchanged"] >= len(rowids) - 5
    kept = [node_id for node_id in rowids if node_id in after and after[node_id] == rowids[node_id]]
    assert len(kept) == nodes["unchanged"]  # an unchanged row keeps its rowid: it was not rewritten
    assert second["entities"]["added"] + second["entities"]["changed"] <= 1


def test_an_unreadable_index_is_rebuilt(sample_copy: Path, tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    run_build(sample_copy, vault)
    assert index_is_current(vault)
    (vault / INDEX_FILE).write_bytes(b"not a database")
    assert not index_is_current(vault)
    with pytest.raises(NoIndexError, match="has a damaged search index"):
        search(vault, "Klipper")
    run_build(sample_copy, vault, "--force")
    assert index_is_current(vault) and search(vault, "Klipper", k=1)
    assert search(vault, "x " * 5000 + "Klipper", k=1)  # a pasted page is still a query


def test_a_vault_without_index_says_to_build(tmp_path: Path) -> None:
    for call in (
        lambda: search(tmp_path, "x"),
        lambda: tag_tree(tmp_path),
        lambda: nodes_by_tag(tmp_path, "x"),
        lambda: get_node(tmp_path, "x"),
        lambda: get_entity(tmp_path, "x"),
    ):
        with pytest.raises(NoIndexError, match=r"kgvault build NOTES -o VAULT"):
            call()
    assert not (tmp_path / INDEX_FILE).exists()  # reading never creates one


def test_the_query_path_imports_nothing_heavy(sample_vault_built: Built) -> None:
    vault, _ = sample_vault_built
    code = (
        "import sys\nfrom pathlib import Path\nfrom kgvault import search as s\n"
        f"vault = Path({str(vault)!r})\n"
        "assert s.search(vault, 'what did Dana decide in March 2025 about Atlas')\n"
        "s.tag_tree(vault); s.nodes_by_tag(vault, '3d_printing')\n"
        "s.get_node(vault, 'x'); s.get_entity(vault, 'Atlas')\n"
        f"print([m for m in {HEAVY!r} if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]"


def test_nodes_written_in_batches_index_the_same_rows(
    sample_vault_built: Built, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A build writes the index's node rows in batches; batch edges must not shift a rowid or lose a row."""
    from kgvault.search import index

    monkeypatch.setattr(index, "_BATCH", 7)
    vault = tmp_path / "vault"
    run_build(SAMPLE, vault)

    def rows(folder: Path) -> list[tuple[Any, ...]]:
        with sqlite3.connect(folder / ".kgvault/state/search.sqlite") as db:
            nodes = db.execute("SELECT rowid, * FROM nodes ORDER BY rowid").fetchall()
            texts = db.execute("SELECT rowid, * FROM node_text ORDER BY rowid").fetchall()
            links = db.execute("SELECT * FROM node_entities ORDER BY 1, 2").fetchall()
            tags = db.execute("SELECT * FROM node_tags ORDER BY 1, 2").fetchall()
        return [*nodes, *texts, *links, *tags]

    batched, whole = rows(vault), rows(sample_vault_built[0])
    assert len(batched) > 3 * 7
    assert batched == whole


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--node", ""], "no node ''"),
        (["--entity", "Nobody Here"], "`kgvault search 'Nobody Here' --vault"),  # a command that runs
        (["--entity", ""], "--entity needs a name"),
        (["--tag", "no_such_tag"], "no node is tagged 'no_such_tag'"),
    ],
)
def test_get_says_what_it_did_not_find(sample_vault_built: Built, args: list[str], message: str) -> None:
    vault, _ = sample_vault_built
    result = CliRunner().invoke(main, ["get", *args, "--vault", str(vault)])
    assert result.exit_code != 0
    assert message in result.output


def test_get_prints_a_whole_entity_or_node_without_json(sample_vault_built: Built) -> None:
    vault, _ = sample_vault_built
    entity = CliRunner().invoke(main, ["get", "--entity", "Klipper", "--vault", str(vault)])
    assert entity.exit_code == 0, entity.output
    lines = entity.output.splitlines()
    assert lines[0] == "Klipper  (klipper)" and "entity_type: software" in lines
    assert "  - voron-2-4 runs klipper" in lines
    assert any(
        line.startswith("  - 2025-") and "(switched-the-ender-3-from-marlin-to-klipper)" in line
        for line in lines
    )
    node = CliRunner().invoke(main, ["get", "--node", "the-voron-2-4-runs-klipper", "--vault", str(vault)])
    assert node.exit_code == 0, node.output
    assert "  - printing/Voron 2.4.md, lines 7-15" in node.output.splitlines()
    assert "  - Klipper  (klipper)" in node.output.splitlines()


def test_a_hit_says_what_replaced_it_and_what_contradicts_it(sample_vault_built: Built) -> None:
    vault, _ = sample_vault_built
    hits = {hit.id: hit for hit in search(vault, "Which Postgres version does Atlas use?", k=5)}
    assert hits["atlas-uses-postgres-15"].conflicts_with == ("atlas-uses-postgres-16",)
    assert hits["atlas-uses-postgres-16"].conflicts_with == ("atlas-uses-postgres-15",)
    text = CliRunner().invoke(
        main, ["search", "Which Postgres version does Atlas use?", "--vault", str(vault)]
    )
    assert "Atlas uses Postgres 15.  (semantic/atlas-uses-postgres-15.md)  (in conflict)" in text.output
    old = {hit.id: hit for hit in search(vault, "The Ender 3 runs Marlin 2.1.2", k=10)}[
        "the-ender-3-runs-marlin-2-1-2"
    ]
    assert old.superseded_by and old.to_json()["superseded_by"] == list(old.superseded_by)


def test_a_time_brings_in_its_nodes_without_a_word_of_the_query(sample_vault_built: Built) -> None:
    vault, _ = sample_vault_built
    # The vault's present is 2025-06-24, so "last month" is May 2025; no node says "month".
    hits = search(vault, "what did I do last month", k=5)
    assert hits and all(hit.timestamp and hit.timestamp.startswith("2025-05") for hit in hits)
    # A node of that time matching a word comes before the others of that time.
    june = search(vault, "What did I print in June 2025?", k=10)
    assert all(hit.timestamp and hit.timestamp.startswith("2025-06") for hit in june)
    assert any("print" in hit.title.lower() for hit in june[:3])


def test_a_word_of_a_tag_most_nodes_carry_still_finds_what_says_it(sample_vault_built: Built) -> None:
    vault, _ = sample_vault_built
    # `3d_printing` tags most nodes of the sample; "print" must still weigh in titles and bodies.
    hits = search(vault, "print", k=5)
    assert all(hit.score > 1.0 for hit in hits)
    assert all("print" in hit.title.lower() for hit in hits), [hit.title for hit in hits]


def test_a_new_user_name_reaches_the_indexed_turns(tmp_path: Path) -> None:
    """The turns' speakers come from the settings, not the file: the rows citing them follow."""
    notes, vault = tmp_path / "notes", tmp_path / "vault"
    shutil.copytree(ROOT / "tests" / "fixtures" / "conversations", notes)
    (notes / "kgvault.toml").write_text('user_name = "Zorblax"\n', "utf-8")
    run_build(notes, vault)
    assert search(vault, "Zorblax", k=5)
    (notes / "kgvault.toml").write_text('user_name = "Quuxwin"\n', "utf-8")
    run_build(notes, vault)
    clean = tmp_path / "clean"
    run_build(notes, clean)
    assert search(vault, "Zorblax", k=5) == []
    assert [hit.id for hit in search(vault, "Quuxwin", k=20)] == [
        hit.id for hit in search(clean, "Quuxwin", k=20)
    ]
