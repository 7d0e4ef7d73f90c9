"""Drafts as input: draft files in the notes, and `kgvault import` into a vault (Mnemon's result shape)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from kgvault.check import check_vault
from kgvault.cli import main

from .conftest import ROOT, run_build, tree_digest

DRAFTS = ROOT / "tests" / "fixtures" / "drafts"


def _import(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["import", *args])
    return result.exit_code, result.stdout, result.stderr


def _properties(page: Path) -> dict[str, object]:
    return yaml.safe_load(page.read_text("utf-8").split("---\n", 2)[1])


@pytest.fixture
def built(tmp_path: Path) -> tuple[Path, Path]:
    """A vault built from one plain note, ready to import into."""
    notes, vault = tmp_path / "notes", tmp_path / "vault"
    notes.mkdir()
    (notes / "today.md").write_text("---\ndate: 2024-03-16\n---\nWatered the plants.\n", "utf-8")
    run_build(notes, vault)
    return notes, vault


def test_the_mnemon_worked_example_imports_then_is_skipped(built: tuple[Path, Path]) -> None:
    notes, vault = built
    code, out, _ = _import(str(DRAFTS / "memory_draft.json"), "-o", str(vault), "--json")
    assert code == 0, out
    first = json.loads(out)
    assert (first["imported"], first["updated"], first["skipped"], first["errors"]) == (2, 0, 0, 0)
    assert first["edges_inserted"] == 1
    assert [r["action"] for r in first["results"]] == ["added", "added"]
    assert [r["index"] for r in first["results"]] == [0, 1]
    decision_id = first["results"][0]["id"]
    decision = _properties(vault / "episodic" / f"{decision_id}.md")
    assert decision["type"] == "decision"
    assert str(decision["timestamp"]) == "2024-03-15"
    preference_id = first["results"][1]["id"]
    assert (vault / "semantic" / f"{preference_id}.md").is_file()  # no created_at: no invented date
    assert decision["causes"] == [
        f"[[semantic/{preference_id}|{_properties(vault / 'semantic' / f'{preference_id}.md')['title']}]]"
    ]
    body = (vault / "episodic" / f"{decision_id}.md").read_text("utf-8")
    assert "(weight 0.7): The vector engine decision influenced API response design." in body
    assert check_vault(vault, notes=notes) == []

    code, out, _ = _import(str(DRAFTS / "memory_draft.json"), "-o", str(vault), "--json")
    again = json.loads(out)
    assert (again["imported"], again["skipped"], again["edges_inserted"]) == (0, 2, 0)
    assert [r["id"] for r in again["results"]] == [decision_id, preference_id]
    assert len(list((vault / ".kgvault" / "drafts").iterdir())) == 1


def test_a_dry_run_writes_nothing(built: tuple[Path, Path]) -> None:
    _, vault = built
    before = tree_digest(vault)
    code, out, _ = _import(str(DRAFTS / "memory_draft.json"), "-o", str(vault), "--dry-run", "--json")
    assert code == 0
    assert json.loads(out)["imported"] == 2
    assert tree_digest(vault) == before


def test_an_imported_draft_is_part_of_every_later_build(built: tuple[Path, Path]) -> None:
    notes, vault = built
    _import(str(DRAFTS / "memory_draft.json"), "-o", str(vault))
    (notes / "more.md").write_text("---\ndate: 2024-03-17\n---\nRepotted the fern.\n", "utf-8")
    report = run_build(notes, vault)
    assert report["nodes"] == {"episodic": 3, "semantic": 1}
    summary = vault / "sources" / next(p.name for p in (vault / "sources").glob("kgvault-drafts-*"))
    assert str(_properties(summary)["source_document"]).startswith(".kgvault/drafts/")


def test_a_near_identical_item_updates_what_an_import_gave(built: tuple[Path, Path], tmp_path: Path) -> None:
    _, vault = built
    _import(str(DRAFTS / "memory_draft.json"), "-o", str(vault))
    draft = json.loads((DRAFTS / "memory_draft.json").read_text("utf-8"))
    draft["insights"][1]["content"] = (
        "The user prefers concise API responses, without extra explanatory text."
    )
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(draft), "utf-8")
    code, out, _ = _import(str(edited), "-o", str(vault), "--json")
    result = json.loads(out)
    assert code == 0
    assert (result["imported"], result["updated"], result["skipped"]) == (0, 1, 1)
    titles = [str(_properties(p)["title"]) for p in (vault / "semantic").glob("*.md")]
    assert titles == ["The user prefers concise API responses, without extra explanatory text"]


def test_no_diff_inserts_every_item_as_new(built: tuple[Path, Path], tmp_path: Path) -> None:
    _, vault = built
    _import(str(DRAFTS / "memory_draft.json"), "-o", str(vault))
    # The same items in other words (another file): no duplicate detection, both are added.
    draft = json.loads((DRAFTS / "memory_draft.json").read_text("utf-8"))
    for insight in draft["insights"]:
        insight["content"] += " Noted again."
    again = tmp_path / "again.json"
    again.write_text(json.dumps(draft), "utf-8")
    code, out, _ = _import(str(again), "-o", str(vault), "--no-diff", "--json")
    assert code == 0
    assert [r["action"] for r in json.loads(out)["results"]] == ["added", "added"]
    # The very file an import kept already adds nothing, and says so rather than "added".
    code, out, _ = _import(str(again), "-o", str(vault), "--no-diff", "--json")
    result = json.loads(out)
    assert code == 0 and (result["imported"], result["skipped"]) == (0, 2)
    assert [r["action"] for r in result["results"]] == ["skipped", "skipped"]


def test_invalid_items_are_errors_with_their_pointer_while_the_valid_ones_land(
    built: tuple[Path, Path],
) -> None:
    notes, vault = built
    code, out, _ = _import(str(DRAFTS / "memory_draft_invalid.json"), "-o", str(vault), "--json")
    assert code == 0
    result = json.loads(out)
    errors = {r["pointer"]: r["reason"] for r in result["results"] if r["action"] == "error"}
    assert "importance 6" in errors["/insights/1"]
    assert "RFC 3339" in errors["/insights/3"]
    assert result["errors"] == len(errors) > 0
    assert result["imported"] >= 1
    assert check_vault(vault, notes=notes) == []


@pytest.mark.parametrize(
    ("content", "message"),
    [("not json", "is not valid JSON"), ('{"hello": 1}', "is not a draft kgvault reads")],
)
def test_a_file_that_is_no_draft_is_refused(
    built: tuple[Path, Path], tmp_path: Path, content: str, message: str
) -> None:
    _, vault = built
    bad = tmp_path / "bad.json"
    bad.write_text(content, "utf-8")
    code, _, err = _import(str(bad), "-o", str(vault))
    assert code == 2
    assert message in err


def test_importing_into_a_vault_never_built_says_what_to_do(tmp_path: Path) -> None:
    code, _, err = _import(str(DRAFTS / "memory_draft.json"), "-o", str(tmp_path / "nowhere"))
    assert code == 2
    assert "kgvault build NOTES -o" in err


# -- draft files in the notes -------------------------------------------------------------------


@pytest.fixture(scope="module")
def drafts_vault(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, object]]:
    base = tmp_path_factory.mktemp("drafts")
    notes, vault = base / "notes", base / "vault"
    shutil.copytree(DRAFTS, notes)
    return notes, vault, run_build(notes, vault)


def test_the_mini_context_graph_example_gives_three_entities_and_two_labelled_relations(
    drafts_vault: tuple[Path, Path, dict[str, object]],
) -> None:
    notes, vault, _ = drafts_vault
    assert check_vault(vault, notes=notes) == []
    lines = [json.loads(line) for line in (vault / "relations.jsonl").read_text("utf-8").splitlines()]
    mine = [line for line in lines if any(e.startswith("mini_graph.json#") for e in line["evidence"])]
    assert [(r["from"], r["relation"], r["label"], r["to"]) for r in mine] == [
        ("memory-leak", "causes", "causes", "system-crash"),
        ("object", "contributes_to", "contributes to", "memory-leak"),
    ]
    assert [r["statement"] for r in mine] == [
        "System crashes due to memory leaks.",
        "Memory leaks occur when objects are not released.",
    ]
    assert [r["evidence"] for r in mine] == [
        ["mini_graph.json#/relations/0"],
        ["mini_graph.json#/relations/1"],
    ]
    for name in ("system-crash", "memory-leak", "object"):
        sources = _properties(vault / "entities" / f"{name}.md")["sources"]
        assert any(str(s).startswith("mini_graph.json#/entities/") for s in sources)  # type: ignore[union-attr]


def test_each_invalid_item_of_a_draft_in_the_notes_is_reported_with_pointer_and_reason(
    drafts_vault: tuple[Path, Path, dict[str, object]],
) -> None:
    _, vault, report = drafts_vault
    said = {(p["path"], p["message"]) for p in report["problems"]}  # type: ignore[union-attr]
    assert ("mini_graph_invalid.json", "dropped: /relations/1: confidence 0.5 is below 0.6") in said
    assert any(
        path == "memory_draft_invalid.json" and m.startswith("dropped: /edges/2: ") for path, m in said
    )
    assert any(
        path == "agent_drafts_invalid.json" and m.startswith("dropped: /0/nodes/1: ") for path, m in said
    )
    valid = [json.loads(line) for line in (vault / "relations.jsonl").read_text("utf-8").splitlines()]
    assert any("mini_graph_invalid.json#/relations/0" in r["evidence"] for r in valid)


def test_an_agent_draft_is_checked_against_the_note_it_names(tmp_path: Path) -> None:
    notes, vault = tmp_path / "notes", tmp_path / "vault"
    shutil.copytree(DRAFTS / "notes", notes / "notes")
    draft = json.loads((DRAFTS / "agent_draft.json").read_text("utf-8"))
    draft["nodes"][1]["supporting_text"] = "words that are nowhere in the note"
    (notes / "agent.json").write_text(json.dumps(draft), "utf-8")
    report = run_build(notes, vault)
    messages = [p["message"] for p in report["problems"]]  # type: ignore[union-attr]
    assert "dropped: /nodes/1: supporting_text not found in the note it names" in messages
    assert "dropped: /links/0: a node it joins was left out" in messages
    titles = {str(_properties(p)["title"]) for p in (vault / "episodic").glob("*.md")}
    assert "Heating failed error on the Ender 3 after updating to Marlin 2.1.3" in titles
    assert "Replaced the Ender 3 hotend thermistor" not in titles


def test_a_draft_naming_a_note_outside_the_notes_lands_whole_with_a_notice(built: tuple[Path, Path]) -> None:
    """Its quotes cannot be checked: a notice, not an error, and no build calls its items dropped."""
    _, vault = built
    code, out, _ = _import(str(DRAFTS / "agent_draft.json"), "-o", str(vault), "--json")
    result = json.loads(out)
    assert code == 0 and result["errors"] == 0 and result["imported"] == 2, result
    report = run_build(built[0], vault)
    messages = [p["message"] for p in report["problems"]]  # type: ignore[union-attr]
    assert any(m.endswith("is not among the notes; quotes not checked") for m in messages), messages
    assert not any(m.startswith("dropped:") for m in messages)


def test_an_update_keeps_the_links_and_entities_of_what_it_replaces(
    built: tuple[Path, Path], tmp_path: Path
) -> None:
    notes, vault = built
    _import(str(DRAFTS / "memory_draft.json"), "-o", str(vault))
    draft = json.loads((DRAFTS / "memory_draft.json").read_text("utf-8"))
    draft["insights"][1]["content"] = (
        "The user prefers concise API responses, without extra explanatory text."
    )
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(draft), "utf-8")
    _import(str(edited), "-o", str(vault))
    (decision,) = (vault / "episodic").glob("chose-*.md")
    (preference,) = (vault / "semantic").glob("*.md")
    assert _properties(decision)["causes"] == [
        f"[[semantic/{preference.stem}|{_properties(preference)['title']}]]"
    ]
    assert check_vault(vault, notes=notes) == []


def test_import_keeps_an_entity_no_node_names_and_checks_quotes_against_the_note(
    built: tuple[Path, Path], tmp_path: Path
) -> None:
    vault = built[1]
    draft = {
        "schema_version": "kgvault.draft/1",
        "source_description": "today.md lines 4-4",
        "nodes": [
            {
                "memory_layer": "semantic",
                "type": "fact",
                "title": "Plants need water",
                "supporting_text": "Watered the plants",
            },
            {
                "memory_layer": "semantic",
                "type": "fact",
                "title": "Ferns like shade",
                "supporting_text": "words the note never says",
            },
        ],
        "entities": [
            {"name": "Creality", "entity_type": "organization", "description": "Makes 3D printers."}
        ],
    }
    path = tmp_path / "agent.json"
    path.write_text(json.dumps(draft), "utf-8")
    code, out, _ = _import(str(path), "-o", str(vault), "--json")
    result = json.loads(out)
    assert code == 0
    assert (result["imported"], result["errors"]) == (1, 1)
    assert [r["reason"] for r in result["results"] if r["action"] == "error"] == [
        "supporting_text not found in the note it names"
    ]
    assert _properties(vault / "entities" / "creality.md")["entity_type"] == "organization"
    titles = {str(_properties(p)["title"]) for p in (vault / "semantic").glob("*.md")}
    assert titles == {"Plants need water"}


def test_deeply_nested_json_is_refused_not_a_crash(built: tuple[Path, Path], tmp_path: Path) -> None:
    vault = built[1]
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000, "utf-8")
    code, _, err = _import(str(deep), "-o", str(vault), "--dry-run")
    assert code == 2
    assert "is not valid JSON" in err


@pytest.mark.parametrize(
    ("named", "checked"),
    [
        ("today.md lines 4-4", True),
        ("today.md#L4-L4", True),  # the vault's own evidence style
        ("today.md:4", True),
        ("../outside.md", False),  # never read: it is not among the notes
    ],
)
def test_an_imported_draft_s_quotes_are_checked_against_its_note_and_only_among_the_notes(
    built: tuple[Path, Path], tmp_path: Path, named: str, checked: bool
) -> None:
    notes, vault = built
    (notes.parent / "outside.md").write_text("The outside key is 1234.\n", "utf-8")
    draft = {
        "schema_version": "kgvault.draft/1",
        "source_description": named,
        "nodes": [
            {
                "memory_layer": "semantic",
                "type": "fact",
                "title": "A quote",
                "supporting_text": "The outside key is 1234.",
            }
        ],
    }
    path = tmp_path / "d.json"
    path.write_text(json.dumps(draft), "utf-8")
    code, out, _ = _import(str(path), "-o", str(vault), "--dry-run", "--json")
    assert code == 0, out
    rows = json.loads(out)["results"]
    reasons = [row.get("reason", "") for row in rows if row["action"] == "error"]
    if checked:  # the quote is not in today.md: the item is refused
        assert reasons == ["supporting_text not found in the note it names"]
    else:  # the file outside the notes was not read: the quote is unchecked, the item lands as given
        assert reasons == [] and [row["action"] for row in rows] == ["added"]


def test_the_same_words_on_another_day_are_another_event_not_an_update(
    built: tuple[Path, Path], tmp_path: Path
) -> None:
    _, vault = built

    def episode(content: str, created_at: str) -> dict[str, object]:
        return {"content": content, "category": "context", "importance": 3, "created_at": created_at}

    first = {
        "schema_version": "1",
        "insights": [
            episode("Upgraded Postgres to version 15.4 on the main server.", "2024-03-15T10:00:00Z"),
            episode("Deployed the API to production.", "2024-03-15T11:00:00Z"),
        ],
    }
    later = {
        "schema_version": "1",
        "insights": [
            episode("Upgraded Postgres to version 16.2 on the main server.", "2024-06-01T10:00:00Z"),
            episode("Deployed the API to production.", "2024-04-20T11:00:00Z"),
        ],
    }
    for name, draft in (("first.json", first), ("later.json", later)):
        (tmp_path / name).write_text(json.dumps(draft), "utf-8")
        code, out, _ = _import(str(tmp_path / name), "-o", str(vault), "--json")
        assert code == 0, out
        assert [row["action"] for row in json.loads(out)["results"]] == ["added", "added"]
    run_build(vault.parent / "notes", vault)
    dated = sorted(
        (str(_properties(p)["title"]), str(_properties(p)["timestamp"]))
        for p in (vault / "episodic").glob("*.md")
    )
    assert [d for d in dated if "Watered" not in d[0]] == [
        ("Deployed the API to production", "2024-03-15"),
        ("Deployed the API to production", "2024-04-20"),
        ("Upgraded Postgres to version 15.4 on the main server", "2024-03-15"),
        ("Upgraded Postgres to version 16.2 on the main server", "2024-06-01"),
    ]


def test_a_draft_whose_only_news_is_a_relation_is_kept(built: tuple[Path, Path], tmp_path: Path) -> None:
    notes, vault = built
    ends = [{"name": "system crash", "type": "issue"}, {"name": "memory leak", "type": "issue"}]
    first = {
        "entities": ends,
        "relations": [
            {"source": "memory leak", "target": "system crash", "type": "causes", "confidence": 1.0}
        ],
    }
    news = {
        "entities": ends,
        "relations": [
            {"source": "system crash", "target": "memory leak", "type": "is reported as", "confidence": 0.9}
        ],
    }
    for name, draft in (("first.json", first), ("news.json", news), ("again.json", news)):
        (tmp_path / name).write_text(json.dumps(draft), "utf-8")
        code, out, _ = _import(str(tmp_path / name), "-o", str(vault), "--json")
        assert code == 0, out
        run_build(notes, vault)
    lines = [json.loads(line) for line in (vault / "relations.jsonl").read_text("utf-8").splitlines()]
    assert {(r["from"], r["relation"], r["to"]) for r in lines} == {
        ("memory-leak", "causes", "system-crash"),
        ("system-crash", "is_reported_as", "memory-leak"),
    }
    assert len(list((vault / ".kgvault" / "drafts").glob("*.json"))) == 2  # the same news again keeps nothing


def test_an_imported_draft_survives_lines_added_above_what_it_quotes(tmp_path: Path) -> None:
    notes, vault = tmp_path / "notes", tmp_path / "vault"
    notes.mkdir()
    journal = notes / "journal.md"
    journal.write_text(
        "---\ndate: 2025-03-12\n---\n\nThe Ender 3 stopped with a heating failed error.\n", "utf-8"
    )
    run_build(notes, vault)
    draft = {
        "schema_version": "kgvault.draft/1",
        "source_description": "journal.md lines 5-5",
        "nodes": [
            {
                "memory_layer": "episodic",
                "type": "observation",
                "title": "Heater fault on the Ender 3",
                "timestamp": "2025-03-12",
                "supporting_text": "stopped with a heating failed error",
            },
            {
                "memory_layer": "semantic",
                "type": "fact",
                "title": "Made up",
                "supporting_text": "never written",
            },
        ],
    }
    (tmp_path / "d.json").write_text(json.dumps(draft), "utf-8")
    code, out, _ = _import(str(tmp_path / "d.json"), "-o", str(vault), "--json")
    assert code == 0 and json.loads(out)["imported"] == 1, out
    journal.write_text(
        journal.read_text("utf-8").replace("\n\nThe Ender", "\n\nPrinter log.\n\nThe Ender"), "utf-8"
    )
    report = run_build(notes, vault)
    assert (vault / "episodic" / "heater-fault-on-the-ender-3.md").is_file()
    assert not [p for p in report["problems"] if "supporting_text" in p["message"]]  # type: ignore[union-attr]


def test_a_list_of_drafts_naming_different_notes_lands_whole(
    built: tuple[Path, Path], tmp_path: Path
) -> None:
    """Each draft's quotes are checked against its own note, at import and at every later build."""
    notes, vault = built
    (notes / "daily").mkdir()
    (notes / "daily" / "2025-09-10.md").write_text("Moved Heron to Postgres today.\n", "utf-8")
    (notes / "daily" / "2025-09-15.md").write_text("Priya Nair works at Orbital Systems now.\n", "utf-8")

    def draft(note: str, title: str, quote: str) -> dict[str, object]:
        return {
            "schema_version": "kgvault.draft/1",
            "source_description": f"{note} lines 1-1",
            "reference_time": note[-13:-3],
            "nodes": [
                {"memory_layer": "episodic", "type": "observation", "title": title, "timestamp": note[-13:-3],
                 "supporting_text": quote}
            ],
        }  # fmt: skip

    path = tmp_path / "agent.json"
    path.write_text(
        json.dumps(
            [
                draft("daily/2025-09-10.md", "Heron moved to Postgres", "Moved Heron to Postgres today."),
                draft("daily/2025-09-15.md", "Priya joined Orbital Systems", "Priya Nair works at Orbital"),
            ]
        ),
        "utf-8",
    )
    code, out, _ = _import(str(path), "-o", str(vault), "--json")
    assert code == 0 and json.loads(out)["imported"] == 2, out
    report = run_build(notes, vault)
    assert not [p for p in report["problems"] if "dropped" in p["message"]], report["problems"]  # type: ignore[index, union-attr]
    titles = {str(_properties(page)["title"]) for page in (vault / "episodic").glob("*.md")}
    assert {"Heron moved to Postgres", "Priya joined Orbital Systems"} <= titles
    code, out, _ = _import(str(path), "-o", str(vault), "--json")  # again: nothing new
    assert json.loads(out)["imported"] == 0


def test_a_field_the_contract_does_not_know_is_said_at_import(
    built: tuple[Path, Path], tmp_path: Path
) -> None:
    _, vault = built
    draft = json.loads((DRAFTS / "agent_draft.json").read_text("utf-8"))
    draft["run_id"] = "abc123"
    path = tmp_path / "d.json"
    path.write_text(json.dumps(draft), "utf-8")
    code, out, err = _import(str(path), "-o", str(vault), "--dry-run", "--json")
    assert code == 0 and json.loads(out)["errors"] == 0
    assert "#/run_id: run_id is no field of kgvault.draft/1; ignored" in err
