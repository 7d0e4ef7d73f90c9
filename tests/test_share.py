"""Sharing: a note's sensitivity floor, and a vault built with --max-sensitivity."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from kgvault.check import check_vault
from kgvault.cli import main
from kgvault.sensitivity import label_predicate, predicate_sensitivity

from .conftest import assert_written_nowhere, run_build, triples

NOTES = {
    "work.md": (
        "---\ndate: 2025-03-12\n---\n# Work\n\n"
        "Switched the Ender 3 from Marlin to Klipper today.\n\n"
        "Dana's phone is +1 415 555 0199, call her about [[Acme Corp]].\n"
    ),
    "diary.md": (
        "---\ndate: 2025-03-13\nsensitivity: private\n---\nI told [[Bob]] about the new job at [[Initech]].\n"
    ),
    "facts.md": "---\ntitle: Klipper\n---\nKlipper is a 3D printer firmware that runs on a Raspberry Pi.\n",
}


def _pages(vault: Path) -> dict[str, str]:
    return {p.relative_to(vault).as_posix(): p.read_text("utf-8") for p in vault.rglob("*.md")}


def _write(folder: Path) -> Path:
    folder.mkdir()
    for name, text in NOTES.items():
        (folder / name).write_text(text, "utf-8")
    return folder


def test_a_sensitivity_floor_in_the_frontmatter_lifts_everything_the_note_yields(tmp_path: Path) -> None:
    notes = _write(tmp_path / "notes")
    run_build(notes, tmp_path / "vault")
    diary = [t for p, t in _pages(tmp_path / "vault").items() if p.startswith("episodic/") and "Initech" in t]
    assert diary and all("\nsensitivity: private\n" in text for text in diary)


def test_max_sensitivity_public_leaves_out_private_and_confidential_and_what_they_said(
    tmp_path: Path,
) -> None:
    notes = _write(tmp_path / "notes")
    full, public = tmp_path / "full", tmp_path / "public"
    run_build(notes, full)
    run_build(notes, public, "--max-sensitivity", "public")
    assert check_vault(public, notes=notes, max_sensitivity="public") == []
    assert check_vault(full, notes=notes, max_sensitivity="public") != []
    pages = _pages(public)
    for text in pages.values():
        assert not re.search(r"\nsensitivity: (private|confidential)\n", text)
        assert "0199" not in text and "Initech" not in text and "Acme" not in text
    assert "entities/initech.md" not in pages and "entities/acme-corp.md" not in pages
    assert "entities/klipper.md" in pages  # a public fact's entity stays
    relations = (public / "relations.jsonl").read_text("utf-8")
    assert "initech" not in relations and "acme" not in relations
    assert not (public / ".kgvault" / "cache").exists()  # its drafts would hold what was left out
    assert "sources/diary-summary.md" not in pages  # a note private as a whole is not named either
    summary = pages["sources/work-summary.md"]  # one confidential line among public ones
    assert "withheld: above the sharing level" in summary
    result = CliRunner().invoke(
        main, ["check", str(full), "--notes", str(notes), "--max-sensitivity", "public", "--json"]
    )
    assert result.exit_code == 1
    assert all("above public" in p["message"] for p in json.loads(result.stdout))


def test_a_left_out_draft_item_takes_what_it_named_with_it(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    key = "sk-ant-api03-Q8mZr2LkP9vX4tY7wN1cB6hJ3dF5gS0aE8uI2oK4"
    insight = {
        "content": f"Chose Zephyrion over Milvus; the Zephyrion API key is {key}.",
        "category": "decision",
        "importance": 5,
        "entities": ["Zephyrion", "Project Nightjar"],
        "created_at": "2024-03-15T09:30:00Z",
    }
    (notes / "memory_draft.json").write_text(
        json.dumps({"schema_version": "1", "insights": [insight]}), "utf-8"
    )
    agent = {
        "schema_version": "kgvault.draft/1",
        "nodes": [
            {"memory_layer": "semantic", "type": "fact", "title": "Deploy key", "body": f"The key is {key}."}
        ],
        "entities": [{"name": "Atlas"}, {"name": "Redis"}],
        "relations": [
            {"subject": "Atlas", "predicate": "uses", "label": "uses", "object": "Redis", "confidence": 0.9}
        ],
    }
    (notes / "agent.json").write_text(json.dumps(agent), "utf-8")
    vault = tmp_path / "public"
    run_build(notes, vault, "--max-sensitivity", "public")
    # Each node was confidential (a key), so what only it named or related is not shared either.
    assert not (vault / "entities").exists() or list((vault / "entities").glob("*.md")) == []
    assert (vault / "relations.jsonl").read_text("utf-8") == ""
    assert check_vault(vault, max_sensitivity="public") == []


def test_what_a_private_notes_properties_fields_and_aliases_said_is_not_shared(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "secret-client.md").write_text(
        '---\nsensitivity: confidential\nclient: "[[Zephyrion Corp]]"\n---\n# Deal\n\n'
        "- acquirer:: [[Harriet Vantablack]]\n",
        "utf-8",
    )
    (notes / "Orbitronix.md").write_text(
        "---\nsensitivity: private\naliases: [Codename Nightjar]\n---\nOrbitronix makes drones.\n", "utf-8"
    )
    (notes / "news.md").write_text("[[Orbitronix]] is a drone company that sells to farms.\n", "utf-8")
    (notes / "kgvault.corrections.yaml").write_text(
        "keep_apart:\n  - [Orbitronix, Codename Nightjar]\n", "utf-8"
    )
    public = tmp_path / "public"
    run_build(notes, public, "--max-sensitivity", "public")
    # `.kgvault/state/` still names the notes' files (docs/security.md: share without it).
    assert_written_nowhere(
        public, ("zephyrion", "vantablack", "nightjar", "secret-client"), skip=(".kgvault",)
    )
    assert (public / "entities" / "orbitronix.md").is_file()  # what a public note says stays


HEALTH_AND_FAMILY = {
    "kgvault.toml": 'user_name = "Sam Carter"\n',
    "Health/Medications.md": "# Medications\n## Current\n- Sertraline 100mg, mornings (since Oct 2024)\n",
    "People/Linda Carter.md": (
        "---\ntags: [person]\n---\nMy mum.\nCompany: Tesco\n## Medications\n- Donepezil 10mg\n"
    ),
    "Projects/Atlas.md": "---\ntags: [project]\n---\n# Atlas\n\nuses:: [[Postgres]]\n",
}


def test_a_relation_that_says_someones_health_or_family_is_not_shared(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    for name, text in HEALTH_AND_FAMILY.items():
        (notes / name).parent.mkdir(parents=True, exist_ok=True)
        (notes / name).write_text(text, "utf-8")
    full, public = tmp_path / "full", tmp_path / "public"
    run_build(notes, full)
    assert {("sam-carter", "takes", "sertraline"), ("sam-carter", "child_of", "linda-carter")} <= set(
        triples(full)
    )
    run_build(notes, public, "--max-sensitivity", "public")
    # No node said any of it, yet the medicines taken and the writer's mother are not shared, nor
    # where she works (the lines that say she is the mother), nor the "Mum" they named her.
    assert triples(public) == [("atlas", "uses", "postgres")]  # a project's relation stays
    pages = _pages(public)
    for name in ("sertraline", "donepezil", "sam-carter", "tesco"):
        assert f"entities/{name}.md" not in pages
    for text in pages.values():
        assert "takes" not in text and "child of" not in text and "Mum" not in text
    medications = pages["sources/health-medications-summary.md"]
    assert "| 2-3 | withheld: above the sharing level |" in medications and "Sertraline" not in medications
    assert check_vault(public, notes=notes, max_sensitivity="public") == []


def test_check_max_sensitivity_fails_on_a_private_relation_of_a_vault_built_without_it(
    tmp_path: Path,
) -> None:
    notes = tmp_path / "notes"
    for name, text in HEALTH_AND_FAMILY.items():
        (notes / name).parent.mkdir(parents=True, exist_ok=True)
        (notes / name).write_text(text, "utf-8")
    full = tmp_path / "full"
    run_build(notes, full)
    problems = check_vault(full, max_sensitivity="public")
    flagged = {(p.path, p.message.split(":")[0]) for p in problems}
    assert {
        ("relations.jsonl", "relation `takes` (sam-carter → sertraline) is private by its predicate"),
        ("relations.jsonl", "relation `child_of` (sam-carter → linda-carter) is private by its predicate"),
        (
            "relations.jsonl",
            "relation `works_for` (linda-carter → tesco) cites lines that gave a private relation too",
        ),
        ("entities/sam-carter.md", "relation `takes` is private by its predicate"),
        ("entities/linda-carter.md", "relation `child of` is private by its predicate"),
    } <= flagged
    assert not any("atlas" in p.message or p.path == "entities/atlas.md" for p in problems)
    assert check_vault(full, max_sensitivity="private") == []


def test_a_notes_floor_makes_its_relations_private_to_check_too(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "deal.md").write_text(
        '---\nsensitivity: confidential\nclient: "[[Zephyrion Corp]]"\n---\n', "utf-8"
    )
    full = tmp_path / "full"
    run_build(notes, full)
    assert triples(full) != []
    assert check_vault(full, max_sensitivity="public") == []  # the vault alone cannot tell
    problems = check_vault(full, notes=notes, max_sensitivity="private")
    assert any("cites a note marked `sensitivity: confidential`" in p.message for p in problems)


@pytest.mark.parametrize(
    ("predicate", "sensitivity"),
    [
        ("takes", "private"),
        ("diagnosed_with", "private"),
        ("allergic_to", "private"),
        ("child_of", "private"),
        ("married_to", "private"),
        ("partner_of", "private"),
        ("owes", "private"),
        ("uses", "public"),
        ("works_for", "public"),
        ("depends_on", "public"),
        ("lives_in", "public"),
        # A note's own property names: a hierarchy's, a plant's family, a client's partner, an invoice's.
        ("parent", "public"),
        ("child", "public"),
        ("sibling", "public"),
        ("family", "public"),
        ("partner", "public"),
        ("treatment", "public"),
        ("paid_by", "public"),
    ],
)
def test_what_a_predicate_reveals(predicate: str, sensitivity: str) -> None:
    assert predicate_sensitivity(predicate) == sensitivity
    assert predicate_sensitivity(label_predicate(predicate.replace("_", " "))) == sensitivity


def test_a_left_out_property_takes_no_other_property_and_a_file_name_stays_an_alias(tmp_path: Path) -> None:
    """A book note's `finished:` reading is private; its `author` is still shared. A note's file name,
    which no withheld line says, stays an alias of its entity."""
    notes = tmp_path / "notes"
    (notes / "Books").mkdir(parents=True)
    (notes / "Books" / "Project Hail Mary.md").write_text(
        '---\nauthor: "[[Andy Weir]]"\nfinished: 2024-01-02\ntags: [books]\n---\nA good book.\n', "utf-8"
    )
    (notes / "decision-log.md").write_text(
        '---\ntitle: Atlas decision log\nproject: "[[Atlas]]"\n---\nWe decided to use Postgres for Atlas.\n',
        "utf-8",
    )
    (notes / "2025-02-03.md").write_text("Logged it in [[decision-log]].\n", "utf-8")
    vault = tmp_path / "vault"
    run_build(notes, vault, "--max-sensitivity", "public")
    assert ("project-hail-mary", "author", "andy-weir") in triples(vault)
    assert "decision-log" in (vault / "entities" / "atlas-decision-log.md").read_text("utf-8")


def test_a_private_property_leaves_the_note_s_other_properties_shared_and_checked(tmp_path: Path) -> None:
    """A person's `spouse:` is private, their `company:` is not: a public vault keeps the company, and
    `check --max-sensitivity public` passes it."""
    notes = tmp_path / "notes"
    (notes / "People").mkdir(parents=True)
    (notes / "People" / "Ana Lee.md").write_text(
        '---\ntags: [person]\nspouse: "[[Tom Lee]]"\ncompany: "[[Globex]]"\n---\nAna likes climbing.\n',
        "utf-8",
    )
    vault = tmp_path / "vault"
    run_build(notes, vault, "--max-sensitivity", "public")
    assert triples(vault) == [("ana-lee", "works_for", "globex")]
    assert check_vault(vault, max_sensitivity="public") == []
    # Built without the flag, check names the spouse, and not the company beside it.
    full = tmp_path / "full"
    run_build(notes, full)
    flagged = [p.message for p in check_vault(full, max_sensitivity="public") if p.path == "relations.jsonl"]
    assert [m for m in flagged if "married_to" in m] and not [m for m in flagged if "works_for" in m]
