"""kgvault.corrections.yaml end to end: each correction changes the vault as asked and survives rebuilds."""

from __future__ import annotations

import json
from pathlib import Path

import frontmatter

from kgvault.corrections import Correction, Corrections
from kgvault.layout import CORRECTIONS_FILE
from kgvault.link import link
from tests.test_link import extraction, source

from .conftest import assert_written_nowhere, notes_with, run_build, tree_bytes

CORRECTIONS = """\
merge:
  - [Pressure advance, Input shaping]
keep_apart:
  - [Dana Kim, Dana]
rename:
  Ender 3: Creality Ender 3
retype:
  PETG: material
hide:
  - Project Atlas uses Dagster.
confirm:
  - Atlas uses Postgres 16.
  - A node nobody wrote
"""


def page(vault: Path, rel: str) -> frontmatter.Post:
    return frontmatter.loads((vault / rel).read_text("utf-8"))


def test_every_correction_changes_the_vault_and_survives_a_rebuild(sample_copy: Path, tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    plain = run_build(sample_copy, tmp_path / "plain")
    assert (tmp_path / "plain" / "entities" / "input-shaping.md").exists()
    assert (tmp_path / "plain" / "semantic" / "project-atlas-uses-dagster.md").exists()
    assert not (tmp_path / "plain" / "entities" / "dana.md").exists()
    assert plain["problems"] == []

    (sample_copy / CORRECTIONS_FILE).write_text(CORRECTIONS, "utf-8")
    report = run_build(sample_copy, vault)

    # merge: one entity under the first name, the other name is an alias, its page is gone.
    assert not (vault / "entities" / "input-shaping.md").exists()
    merged = page(vault, "entities/pressure-advance.md")
    assert merged["title"] == "Pressure advance"
    assert "Input shaping" in merged["aliases"]
    # keep apart: Dana is no longer read as Dana Kim, and no longer her alias.
    assert (vault / "entities" / "dana.md").exists()
    assert "Dana" not in page(vault, "entities/dana-kim.md").get("aliases", [])
    # rename: the page takes the new name, and links everywhere follow it.
    assert not (vault / "entities" / "ender-3.md").exists()
    assert page(vault, "entities/creality-ender-3.md")["title"] == "Creality Ender 3"
    everything = "\n".join(p.read_text("utf-8") for p in vault.rglob("*.md"))
    assert "[[entities/ender-3|" not in everything
    assert "[[entities/creality-ender-3|Creality Ender 3]]" in everything
    # retype
    assert page(vault, "entities/petg.md")["entity_type"] == "material"
    # hide: not written, and nothing links to it.
    assert not (vault / "semantic" / "project-atlas-uses-dagster.md").exists()
    assert "project-atlas-uses-dagster" not in everything
    # confirm: the other side is superseded, the pair leaves the review queue.
    old = page(vault, "semantic/atlas-uses-postgres-15.md")
    assert "conflicts_with" not in old.metadata
    assert old["superseded_by"] == ["[[semantic/atlas-uses-postgres-16|Atlas uses Postgres 16.]]"]
    assert "Review queue" not in (vault / "index.md").read_text("utf-8")
    # ... and its relation ends where the confirmed one starts, which stays current.
    relations = [json.loads(line) for line in (vault / "relations.jsonl").read_text("utf-8").splitlines()]
    uses = {r["to"]: (r["valid_at"], r["invalid_at"]) for r in relations if r["from"] == "project-atlas"}
    assert uses["postgres-15"] == ("2025-04-10", "2025-04-10")
    assert uses["postgres-16"] == ("2025-04-10", None)
    # listed in ontology.md, and the one naming nothing is reported, not fatal.
    ontology = (vault / "ontology.md").read_text("utf-8")
    assert "| rename Ender 3 → Creality Ender 3 | renamed |" in ontology
    assert "| confirm “A node nobody wrote” | not found: A node nobody wrote |" in ontology
    assert report["problems"] == [
        {
            "path": CORRECTIONS_FILE,
            "line": 13,
            "message": "confirm “A node nobody wrote”: not found: A node nobody wrote; "
            "fix the line or remove it",
        }
    ]

    before = tree_bytes(vault)
    again = run_build(sample_copy, vault)
    assert tree_bytes(vault) == before
    assert again["files"]["written"] == 0  # type: ignore[index]
    assert again["problems"] == report["problems"]


def test_a_homonym_can_be_retyped_by_its_page_name() -> None:
    drafts = [
        extraction("a.md", 0, (1, 2), entities=[{"name": "Apple", "entity_type": "organization"}]),
        extraction("a.md", 1, (3, 4), entities=[{"name": "Apple", "entity_type": "organization"}]),
        extraction("b.md", 0, (1, 2), entities=[{"name": "apple", "entity_type": "food"}]),
    ]
    fix = Corrections((Correction("retype", ("apple-food",), "fruit", 3),))
    graph = link([source("a.md"), source("b.md")], drafts, corrections=fix)
    assert {(e.id, e.entity_type) for e in graph.entities} == {
        ("apple-organization", "organization"),
        ("apple-fruit", "fruit"),
    }
    assert graph.corrections == (("retype apple-food → fruit", "retyped"),)
    # By the name both share, which one is meant cannot be told: neither is changed, and it is said.
    both = Corrections((Correction("rename", ("Apple",), "Apple Inc.", 3),))
    graph = link([source("a.md"), source("b.md")], drafts, corrections=both)
    assert {e.title for e in graph.entities} == {"Apple", "apple"}
    assert graph.corrections == (
        (
            "rename Apple → Apple Inc.",
            "not renamed: Apple names 2 entities (apple-food, apple-organization); "
            "name the one you mean by its page name",
        ),
    )


def test_keep_apart_wins_over_a_declared_alias_and_a_fuzzy_match() -> None:
    drafts = [
        extraction("a.md", 0, (1, 2), entities=[{"name": "Kubernetes", "aliases": ["K8s"]}]),
        extraction("b.md", 0, (1, 2), entities=[{"name": "K8s"}, {"name": "Kubernets"}]),
        extraction("c.md", 0, (1, 2), entities=[{"name": "Kubernets"}]),
    ]
    fix = Corrections(
        (
            Correction("keep_apart", ("Kubernetes", "K8s"), None, 2),
            Correction("keep_apart", ("Kubernetes", "Kubernets"), None, 3),
        )
    )
    assert len(link([source("a.md"), source("b.md"), source("c.md")], drafts).entities) == 2
    graph = link([source("a.md"), source("b.md"), source("c.md")], drafts, corrections=fix)
    assert sorted(e.title for e in graph.entities) == ["K8s", "Kubernetes", "Kubernets"]
    assert graph.problems == ()


def test_a_merge_a_keep_apart_forbids_or_with_unknown_names_says_so() -> None:
    drafts = [
        extraction("a.md", 0, (1, 2), entities=[{"name": "Marlin"}, {"name": "Klipper"}]),
        extraction("b.md", 0, (1, 2), entities=[{"name": "Ender 3"}, {"name": "Acme"}]),
    ]
    fix = Corrections(
        (
            Correction("merge", ("Marlin", "Klipper"), None, 2),
            Correction("keep_apart", ("Marlin", "Klipper"), None, 4),
            Correction("merge", ("Ender 3", "Acme", "Nobody Known"), None, 3),
        )
    )
    graph = link([source("a.md"), source("b.md")], drafts, corrections=fix)
    outcomes = dict(graph.corrections)
    assert outcomes["merge Marlin + Klipper"] == "not merged: a keep_apart line forbids it"
    assert outcomes["merge Ender 3 + Acme + Nobody Known"] == "merged; not found: Nobody Known"
    assert {p.line for p in graph.problems} == {2, 3}
    assert len(graph.entities) == 3


def test_a_secret_written_in_the_corrections_file_is_masked_and_still_finds_its_node(tmp_path: Path) -> None:
    notes, vault = notes_with(
        tmp_path,
        {
            "a.md": "---\ndate: 2025-03-01\n---\n"
            "My password is Tr0ub4dor&3x for the NAS.\n\nDana Kim works at Northwind Labs.\n",
            CORRECTIONS_FILE: "hide:\n  - My password is Tr0ub4dor&3x for the NAS.\n"
            "rename:\n  Dana Kim: Dana pw Hunter22xyz\n"
            "  Northwind Labs: contact ceo@northwind-secret.example\n",
        },
    )
    report = run_build(notes, vault)
    assert report["problems"] == []  # the hide found the node, whose title is masked
    assert [page.name for page in vault.glob("*/*.md") if "password" in page.name] == []
    assert_written_nowhere(vault, ("Tr0ub4dor", "Hunter22xyz", "ceo@northwind"))
