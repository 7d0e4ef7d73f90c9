"""Render: pages from a graph — links, marker, relations.jsonl, template overrides."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import date
from pathlib import Path

import yaml

from kgvault.layout import MARKER
from kgvault.records import CoverageRow, Entity, Evidence, Graph, Node, NodeLink, Relation, SourceSummary
from kgvault.render import render, render_relations

from .test_link import source


def graph(
    body: str = "Switched to [[Klipper firmware|Klipper]] and ![[photo.png]] and [[Nowhere]].",
) -> Graph:
    ev = Evidence("daily/2025-03-22.md", 1, 3)
    entities = (
        Entity("ender-3", "Ender 3", "product", "A printer.", (), (ev,)),
        Entity("klipper", "Klipper", "software", "Firmware.", ("Klipper firmware",), (ev,)),
    )
    node = Node(
        id="switched",
        memory_layer="episodic",
        type="decision",
        title="Switched the Ender 3 | to Klipper [v2]",
        body=body,
        tags=("3d_printing/firmware", "bad tag", "123"),
        sensitivity="private",
        confidence="high",
        origin="stated",
        timestamp=date(2025, 3, 22),
        evidence=(ev,),
        entities=("ender-3", "klipper"),
        language="en",
    )
    relation = Relation(
        "ender-3", "runs", "runs", "klipper", "It runs Klipper.", 0.9, date(2025, 3, 22), None, (ev,)
    )
    summary = SourceSummary(
        "daily-2025-03-22-summary",
        source("daily/2025-03-22.md", title="2025-03-22"),
        ("switched",),
        ("ender-3", "klipper"),
        (CoverageRow(1, 3, "1 node | odd"),),
    )
    return Graph((node,), entities, (relation,), (summary,), (("3d_printing", 1),), (("runs", "runs", 1),))


def frontmatter(text: str) -> dict[str, object]:
    assert text.startswith("---\n")
    loaded: dict[str, object] = yaml.safe_load(text[4 : text.index("\n---\n", 3)])
    return loaded


def test_every_page_kind_is_rendered_and_ends_with_the_marker() -> None:
    pages = render(graph())
    assert set(pages) == {
        "episodic/switched.md", "entities/ender-3.md", "entities/klipper.md",
        "sources/daily-2025-03-22-summary.md", "index.md", "ontology.md", "kgvault.base", "relations.jsonl",
    }  # fmt: skip
    for path, text in pages.items():
        if path.endswith(".md"):
            assert text.endswith(f"\n{MARKER}\n") and text.count(MARKER) == 1, path


def test_node_properties_and_links() -> None:
    page = render(graph())["episodic/switched.md"]
    props = frontmatter(page)
    assert list(props)[:4] == ["id", "memory_layer", "type", "title"]
    assert props["tags"] == ["3d_printing/firmware"]  # invalid tags are never written
    assert props["timestamp"] == date(2025, 3, 22)
    assert props["source_input"] == "[[sources/daily-2025-03-22-summary|2025-03-22]]"
    assert props["entities"] == ["[[entities/ender-3|Ender 3]]", "[[entities/klipper|Klipper]]"]
    body = page.split("\n---\n", 1)[1]
    assert "Switched to [[entities/klipper|Klipper]] and photo.png and Nowhere." in body
    assert "- [[entities/ender-3|Ender 3]] runs [[entities/klipper|Klipper]]" in body
    assert "[[sources/daily-2025-03-22-summary|2025-03-22]], lines 1-3" in body


def test_links_inside_code_are_left_alone() -> None:
    body = "Run `[[ -f x ]]` then:\n```bash\n[[ -f y ]] && echo [[Klipper]]\n```\nSee [[Klipper]]."
    page = render(graph(body))["episodic/switched.md"]
    assert "`[[ -f x ]]`" in page and "[[ -f y ]] && echo [[Klipper]]" in page
    assert "See [[entities/klipper|Klipper]]." in page


def test_source_text_cannot_forge_the_marker() -> None:
    page = render(graph(f"before\n{MARKER}\nafter"))["episodic/switched.md"]
    assert page.count(MARKER) == 1 and page.endswith(MARKER + "\n")


def test_display_titles_are_made_safe_for_links() -> None:
    summary = render(graph())["sources/daily-2025-03-22-summary.md"]
    assert "[[episodic/switched|Switched the Ender 3 / to Klipper (v2)]]" in summary
    assert "| 1-3 | 1 node \\| odd |" in summary


def test_entity_pages_list_relations_on_both_ends() -> None:
    pages = render(graph())
    assert "- runs [[entities/klipper|Klipper]]" in pages["entities/ender-3.md"]
    assert "- [[entities/ender-3|Ender 3]] runs this" in pages["entities/klipper.md"]
    klipper = frontmatter(pages["entities/klipper.md"])
    assert klipper["aliases"] == ["Klipper firmware"]
    assert klipper["sources"] == ["daily/2025-03-22.md#L1-L3"]


def test_relations_jsonl_is_compact_ordered_and_complete() -> None:
    line = render_relations(graph().relations)
    assert line == (
        '{"from":"ender-3","relation":"runs","label":"runs","to":"klipper","statement":"It runs Klipper.",'
        '"confidence":0.9,"valid_at":"2025-03-22","invalid_at":null,"evidence":["daily/2025-03-22.md#L1-L3"]}\n'
    )
    assert list(json.loads(line)) == [
        "from", "relation", "label", "to", "statement", "confidence", "valid_at", "invalid_at", "evidence"
    ]  # fmt: skip


def test_link_prefix_for_a_folder_inside_another_vault() -> None:
    pages = render(graph(), link_prefix="kg/")
    assert "[[kg/entities/klipper|Klipper]]" in pages["entities/ender-3.md"]
    assert 'file.inFolder("kg/episodic")' in pages["kgvault.base"]
    assert "[[kg/ontology|Ontology]]" in pages["index.md"]


def test_a_user_template_folder_overrides_one_template(tmp_path: Path) -> None:
    (tmp_path / "entity.md.j2").write_text("Custom {{ entity.title }} page.\n", "utf-8")
    pages = render(graph(), templates=tmp_path)
    assert pages["entities/klipper.md"].split("\n---\n", 1)[1] == f"Custom Klipper page.\n\n{MARKER}\n"
    assert "## Sources" in pages["episodic/switched.md"]  # the others still come from the shipped set


def test_orphaned_pages_are_listed_in_the_index() -> None:
    index = render(graph(), orphaned=["episodic/old.md"])["index.md"]
    assert "## Orphaned pages" in index and "`episodic/old.md`" in index


def test_ontology_marks_functional_predicates_and_lists_the_review_queue() -> None:
    base = graph()
    rival = Node(
        **{**{f: getattr(base.nodes[0], f) for f in Node.__slots__}, "id": "rival", "title": "Rival"}
    )
    conflicted = Graph(
        (*base.nodes, rival),
        base.entities,
        base.relations,
        base.summaries,
        base.tag_counts,
        (("runs", "runs", 1), ("uses", "uses", 2)),
        conflicts=(("rival", "switched"),),
    )
    ontology = render(conflicted)["ontology.md"]
    assert "| `runs` | runs | 1 | yes |" in ontology and "| `uses` | uses | 2 | no |" in ontology
    assert "## Review queue" in ontology and "[[episodic/rival|Rival]] ⟷ [[episodic/switched|" in ontology
    assert "## Review" in render(conflicted)["index.md"]


def test_brackets_that_are_no_link_are_made_single_and_md_links_resolve() -> None:
    body = "Saved [[1,2],[3,4]] and a ]] stray; see [[Klipper.md]] and [[KLIPPER.md|k]]."
    page = render(graph(body))["episodic/switched.md"]
    assert (
        "Saved [1,2],[3,4] and a ] stray; see [[entities/klipper|Klipper.md]] and [[entities/klipper|k]]."
        in page
    )


def test_a_draft_links_reason_and_a_predicate_label_are_plain_text() -> None:
    base = graph()
    other = replace(base.nodes[0], id="other", title="Other", links=())
    node = replace(
        base.nodes[0], links=(NodeLink("causes", "other", 0.5, "see [[Klipper]] | and ![[img.png]] %% x"),)
    )
    odd = replace(base, nodes=(node, other), predicates=(("runs", "runs | via [[x]]", 1),))
    pages = render(odd)
    assert "(weight 0.5): see [Klipper] | and ![img.png] %\u200b% x" in pages["episodic/switched.md"]
    assert "| `runs` | runs \\| via [x] | 1 | yes |" in pages["ontology.md"]


def test_a_title_cannot_open_an_obsidian_comment_in_a_link() -> None:
    base = graph()
    renamed = replace(base.entities[1], title="Klipper %% fork")
    page = render(replace(base, entities=(base.entities[0], renamed)))["entities/ender-3.md"]
    assert "[[entities/klipper|Klipper %\u200b% fork]]" in page
