"""What watch keeps between builds: drafts and page plans; less is redone, and nothing differs."""

from __future__ import annotations

import random
import shutil
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from kgvault import build as build_module
from kgvault import cache as cache_module
from kgvault import render as render_module
from kgvault import sources as sources_module
from kgvault import write as write_module
from kgvault.build import BuildMemory, build
from kgvault.config import load_settings
from kgvault.extract import offline
from kgvault.records import Entity, Graph, Relation
from kgvault.render import PageMemory, Pages, render
from kgvault.write import sha256

from .conftest import record_calls, run_build, tree_bytes
from .test_render import graph as render_graph


def count_renders(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record the id of every page rendered from a plan (each renders its properties once)."""
    return record_calls(monkeypatch, render_module, "render_properties", lambda props: str(props.get("id")))


def rebuild(notes: Path, vault: Path, memory: BuildMemory, templates: Path | None = None) -> None:
    build(load_settings(notes, vault=vault, templates=templates), memory=memory)


def edit_renders_few(
    notes: Path, vault: Path, clean: Path, rendered: list[str], rebuilt: Callable[[], object]
) -> None:
    """Append an event to a note and rebuild: a quarter of the pages at most are rendered, its
    summary and new episode among them, and the vault is a clean build's."""
    everything = len(rendered)
    rendered.clear()
    note = notes / "printing" / "Klipper.md"
    note.write_text(note.read_text("utf-8") + "\nFixed the zq-nozzle clog on the Voron today.\n", "utf-8")
    rebuilt()
    assert 0 < len(rendered) < everything / 4, rendered
    assert "printing-klipper-summary" in rendered
    assert any("zq-nozzle" in page_id for page_id in rendered)
    same_as_clean_build(notes, vault, clean)


def same_as_clean_build(notes: Path, vault: Path, clean: Path, *extra: str) -> None:
    if clean.exists():
        shutil.rmtree(clean)
    run_build(notes, clean, *extra)
    assert tree_bytes(vault) == tree_bytes(clean)


def test_an_edit_renders_only_the_pages_it_changes(
    sample_copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault, memory = tmp_path / "vault", BuildMemory()
    rendered = count_renders(monkeypatch)
    rebuild(sample_copy, vault, memory)
    everything = len(rendered)
    assert everything > 100 and len(memory.pages.pages) == everything

    edit_renders_few(
        sample_copy, vault, tmp_path / "clean", rendered, lambda: rebuild(sample_copy, vault, memory)
    )

    rendered.clear()
    (sample_copy / "glossary.md").unlink()
    rebuild(sample_copy, vault, memory)
    assert not any(path.startswith("sources/glossary") for path in memory.pages.pages)
    same_as_clean_build(sample_copy, vault, tmp_path / "clean")


def test_a_watch_started_on_a_built_vault_reads_it_once_so_its_first_edit_works_from_memory(
    sample_copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault, clean, memory = tmp_path / "vault", tmp_path / "clean", BuildMemory()
    run_build(sample_copy, vault)  # as `kgvault build` left it: nothing to do
    stages: list[str] = []
    first = build(load_settings(sample_copy, vault=vault), progress=stages.append, memory=memory)
    assert "reading sources" in stages and first.files["written"] == 0  # read once, nothing written
    rendered = count_renders(monkeypatch)
    note = sample_copy / "printing" / "Klipper.md"
    note.write_text(note.read_text("utf-8") + "\nFixed the zq-nozzle clog on the Voron today.\n", "utf-8")
    rebuild(sample_copy, vault, memory)
    assert 0 < len(rendered) < 20, rendered  # of about 160 pages
    same_as_clean_build(sample_copy, vault, clean)
    stages.clear()
    build(load_settings(sample_copy, vault=vault), progress=stages.append, memory=memory)
    assert stages == ["unchanged"]  # once filled, a build with nothing to do does nothing


def test_a_gated_rebuild_writes_the_pages_of_what_an_edit_said_before_the_pages_listing_them(
    sample_copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault, memory = tmp_path / "vault", BuildMemory()
    rebuild(sample_copy, vault, memory)
    written = record_calls(monkeypatch, write_module, "atomic_write", lambda path, *_, **__: str(path))
    note = sample_copy / "printing" / "Klipper.md"
    note.write_text(note.read_text("utf-8") + "\nFixed the zq-nozzle clog on the Voron today.\n", "utf-8")
    build(load_settings(sample_copy, vault=vault), memory=memory, gate=lambda: True)
    pages = [Path(path).relative_to(vault).as_posix() for path in written]
    pages = [path for path in pages if not path.startswith(".")]
    episode = next(path for path in pages if "zq-nozzle" in path)
    listing = [path for path in pages if path.startswith(("entities/", "sources/")) or path == "index.md"]
    assert episode.startswith("episodic/") and listing  # the Voron's page, Klipper's summary, the index
    assert pages.index(episode) < min(map(pages.index, listing))
    same_as_clean_build(sample_copy, vault, tmp_path / "clean")


def test_a_watch_started_on_a_built_vault_too_big_to_keep_does_nothing_first(
    sample_copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = tmp_path / "vault"
    run_build(sample_copy, vault)
    monkeypatch.setattr(BuildMemory, "MAX_SOURCES", 5)  # more notes than a watch keeps
    stages: list[str] = []
    build(load_settings(sample_copy, vault=vault), progress=stages.append, memory=BuildMemory())
    assert stages == ["unchanged"]  # reading everything would fill no memory: not done


def test_a_rebuild_reads_again_only_the_notes_that_changed(
    sample_copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """And it finds and stats the notes once: the snapshot's look at them is the one reading uses."""
    vault, memory = tmp_path / "vault", BuildMemory()
    memory.sources.RACY_NS = -(10**18)  # every note counts as saved long before it was read
    rebuild(sample_copy, vault, memory)
    finds = record_calls(monkeypatch, build_module, "find_sources", lambda root, **_: str(root))
    finds_again = record_calls(monkeypatch, sources_module, "find_sources", lambda root, **_: str(root))
    stats = record_calls(monkeypatch, sources_module.os, "stat", lambda path, *_, **__: str(path))
    reads = record_calls(monkeypatch, sources_module, "_read_source", lambda rel_path, *_: rel_path)
    note = sample_copy / "printing" / "Klipper.md"
    note.write_text(note.read_text("utf-8") + "\nFixed the zq-belt on the Voron today.\n", "utf-8")
    rebuild(sample_copy, vault, memory)
    assert reads == ["printing/Klipper.md"]
    assert len(finds) == 1 and not finds_again
    # Each unchanged note is stat-ed once, for the snapshot; reading takes those stats.
    unchanged = Counter(path for path in stats if path.endswith(".md") and "Klipper" not in path)
    assert len(unchanged) > 20 and set(unchanged.values()) == {1}
    same_as_clean_build(sample_copy, vault, tmp_path / "clean")


def test_too_many_sources_are_not_kept_between_builds(
    sample_copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory = BuildMemory()
    memory.sources.RACY_NS = -(10**18)
    monkeypatch.setattr(BuildMemory, "MAX_SOURCES", 3)
    rebuild(sample_copy, tmp_path / "vault", memory)
    assert memory.sources.files == {}


def test_a_changed_template_renders_every_page_again(
    sample_copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    templates, vault, memory = tmp_path / "templates", tmp_path / "vault", BuildMemory()
    templates.mkdir()
    shipped = Path(render_module.__file__).resolve().parent.parent / "templates" / "node.md.j2"
    shutil.copy(shipped, templates / "node.md.j2")
    rebuild(sample_copy, vault, memory, templates)
    rendered = count_renders(monkeypatch)
    with (templates / "node.md.j2").open("a", encoding="utf-8") as template:
        template.write("\nMade by my own template.\n")
    rebuild(sample_copy, vault, memory, templates)
    node_pages = [p for p in tree_bytes(vault) if p.startswith(("episodic/", "semantic/"))]
    assert len(rendered) >= len(node_pages) > 0
    assert all(b"Made by my own template." in (vault / p).read_bytes() for p in node_pages)
    same_as_clean_build(sample_copy, vault, tmp_path / "clean", "--templates", str(templates))


def test_a_page_edited_by_hand_is_read_not_taken_from_memory(sample_copy: Path, tmp_path: Path) -> None:
    vault, memory = tmp_path / "vault", BuildMemory()
    rebuild(sample_copy, vault, memory)
    # A page the next edit leaves as it is: its plan will be the same, but the file is not.
    page = vault / "sources" / "voyages-lyon-summary.md"
    page.write_text(page.read_text("utf-8").replace("Summary of", "My summary of", 1), "utf-8")
    note = sample_copy / "printing" / "Klipper.md"
    note.write_text(note.read_text("utf-8") + "\nKlipper supports input shaping.\n", "utf-8")
    report = build(load_settings(sample_copy, vault=vault), memory=memory)
    [problem] = [p for p in report.problems if p.path.endswith("sources/voyages-lyon-summary.md")]
    assert "edited by hand" in problem.message
    assert "My summary of" in page.read_text("utf-8")


def test_too_many_pages_keep_no_plans(
    sample_copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(PageMemory, "MAX_PAGES", 10)
    memory = BuildMemory()
    rebuild(sample_copy, tmp_path / "vault", memory)
    assert memory.pages.pages == {}


def test_unchanged_notes_are_neither_extracted_nor_read_from_the_cache_again(
    sample_copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault, memory = tmp_path / "vault", BuildMemory()
    rebuild(sample_copy, vault, memory)
    kept = dict(memory.extractions)
    assert kept
    extracted = record_calls(monkeypatch, offline, "extract_chunk", lambda chunk, source: chunk.source_path)
    decoded = record_calls(monkeypatch, cache_module, "decode_entry", lambda data, source: source.path)
    note = sample_copy / "printing" / "Klipper.md"
    note.write_text(note.read_text("utf-8") + "\nKlipper supports input shaping.\n", "utf-8")
    rebuild(sample_copy, vault, memory)
    assert set(extracted) == {"printing/Klipper.md"} and decoded == []
    # The edited note's old entry is gone, its new one kept; the others are the same objects.
    assert len(memory.extractions) == len(kept)
    assert sum(
        memory.extractions[key] is entry for key, entry in kept.items() if key in memory.extractions
    ) == (len(kept) - 1)
    same_as_clean_build(sample_copy, vault, tmp_path / "clean")


def test_too_many_notes_keep_no_drafts(
    sample_copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(BuildMemory, "MAX_SOURCES", 3)
    memory = BuildMemory()
    rebuild(sample_copy, tmp_path / "vault", memory)
    assert memory.extractions == {}


def count_node_plans(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record the id of every node page planned (a reused plan is not planned again)."""
    return record_calls(monkeypatch, render_module, "_node_properties", lambda node, ctx: node.id)


def node_pages_showing(vault: Path, text: str) -> set[str]:
    return {
        path.stem
        for folder in ("episodic", "semantic")
        for path in (vault / folder).glob("*.md")
        if text in path.read_text("utf-8")
    }


def test_an_edit_plans_again_only_the_node_pages_it_touches(
    sample_copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault, memory = tmp_path / "vault", BuildMemory()
    planned = count_node_plans(monkeypatch)
    rebuild(sample_copy, vault, memory)
    everything = len(set(planned))
    assert everything > 50

    planned.clear()
    note = sample_copy / "printing" / "Klipper.md"
    note.write_text(note.read_text("utf-8") + "\nFixed the zq-nozzle clog on the Voron today.\n", "utf-8")
    rebuild(sample_copy, vault, memory)
    assert 0 < len(planned) < everything / 4, planned
    assert any("zq-nozzle" in node_id for node_id in planned)
    same_as_clean_build(sample_copy, vault, tmp_path / "clean")

    # A person's new title shows on every page that names them: each of those is planned again.
    planned.clear()
    person = sample_copy / "people" / "Sam Ortiz.md"
    person.write_text(person.read_text("utf-8").replace("title: Sam Ortiz", "title: Samuel Ortiz"), "utf-8")
    rebuild(sample_copy, vault, memory)
    showing = node_pages_showing(vault, "Samuel Ortiz")
    assert showing and showing <= set(planned) and len(planned) < everything
    same_as_clean_build(sample_copy, vault, tmp_path / "clean")


def test_after_a_failed_write_no_plan_is_reused_unchecked(
    sample_copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault, memory = tmp_path / "vault", BuildMemory()
    rebuild(sample_copy, vault, memory)
    planned = count_node_plans(monkeypatch)
    real_write = build_module.write_vault

    def failing(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise OSError("disk full")

    monkeypatch.setattr(build_module, "write_vault", failing)
    person = sample_copy / "people" / "Sam Ortiz.md"
    person.write_text(person.read_text("utf-8").replace("title: Sam Ortiz", "title: Samuel Ortiz"), "utf-8")
    with pytest.raises(OSError):
        rebuild(sample_copy, vault, memory)
    monkeypatch.setattr(build_module, "write_vault", real_write)
    planned.clear()
    rebuild(sample_copy, vault, memory)
    assert len(set(planned)) == len(node_pages_showing(vault, "---"))  # every node page planned anew
    same_as_clean_build(sample_copy, vault, tmp_path / "clean")


def test_seeded_edits_under_watch_memory_equal_clean_builds(sample_copy: Path, tmp_path: Path) -> None:
    """Names swapped, sentences added, a title changed, a note deleted and back: each equals a clean build."""
    vault, memory = tmp_path / "vault", BuildMemory()
    rebuild(sample_copy, vault, memory)
    rng = random.Random(11)
    notes = sorted(p for p in sample_copy.rglob("*.md") if ".kgvault" not in p.parts)
    names = ["Klipper", "Marlin", "Voron", "Dana", "Sam", "Atlas", "Lyon", "Dagster"]
    gone: tuple[Path, bytes] | None = None
    for step in range(6):
        note = rng.choice([n for n in notes if n.exists()])
        text = note.read_text("utf-8")
        if step == 3:
            gone = (note, note.read_bytes())
            note.unlink()
        elif step == 5 and gone is not None:
            gone[0].write_bytes(gone[1])
        elif step % 2:
            note.write_text(text.replace(rng.choice(names), rng.choice(names)), "utf-8")
        else:
            note.write_text(text + f"\nMet {rng.choice(names)} about {rng.choice(names)} today.\n", "utf-8")
        rebuild(sample_copy, vault, memory)
        same_as_clean_build(sample_copy, vault, tmp_path / "clean")


def _linked_graph() -> Graph:
    """test_render's graph, its node superseded by a second node."""
    base = render_graph()
    later = replace(base.nodes[0], id="switched-back", title="Switched back to Marlin", body="Back.")
    first = replace(base.nodes[0], superseded_by=("switched-back",))
    return replace(base, nodes=(first, later))


def _written(pages: Pages) -> None:
    """Look at every page as a build writes it: its known digest, else its text."""
    for path in pages:
        if pages.known_digest(path) is None:
            pages[path]
    assert pages.memory is not None
    pages.memory.keep_only(pages)


def _entity_title(g: Graph) -> Graph:
    return replace(g, entities=(replace(g.entities[0], title="Ender 3 Pro"), *g.entities[1:]))


def _relation_label(g: Graph) -> Graph:
    return replace(g, relations=(replace(g.relations[0], label="ran"),))


def _source_title(g: Graph) -> Graph:
    summary = g.summaries[0]
    return replace(g, summaries=(replace(summary, source=replace(summary.source, title="March the 22nd")),))


def _superseding_title(g: Graph) -> Graph:
    return replace(g, nodes=(g.nodes[0], replace(g.nodes[1], title="Back to Marlin")))


def _wikilink_target(g: Graph) -> Graph:
    return replace(g, entities=(g.entities[0], replace(g.entities[1], aliases=())))


AROUND_A_NODE = {
    "an entity's title": _entity_title,
    "a relation's label": _relation_label,
    "a source's title": _source_title,
    "a superseding node's title": _superseding_title,
    "where a wikilink points": _wikilink_target,
}


@pytest.mark.parametrize("change", AROUND_A_NODE)
def test_a_kept_node_page_is_planned_again_when_what_it_shows_changes(
    change: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory, before = PageMemory(), _linked_graph()
    _written(render(before, memory=memory))
    page = "episodic/switched.md"
    after = AROUND_A_NODE[change](before)
    assert after.nodes[0] is before.nodes[0]
    assert render(after)[page] != render(before)[page]  # the change shows on the page
    planned = count_node_plans(monkeypatch)
    assert render(after, memory=memory)[page] == render(after)[page]
    assert "switched" in planned


def test_a_kept_node_page_is_not_planned_again_when_nothing_it_shows_changed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    memory, before = PageMemory(), _linked_graph()
    _written(render(before, memory=memory))
    # Another node's text changed: nothing the first node's page shows.
    after = replace(before, nodes=(before.nodes[0], replace(before.nodes[1], body="Back, for good.")))
    planned = count_node_plans(monkeypatch)
    pages = render(after, memory=memory)
    assert pages.known_digest("episodic/switched.md") is not None
    assert pages["episodic/switched.md"] == render(after)["episodic/switched.md"]
    assert planned.count("switched") == 1  # the fresh render's; the memory's render planned nothing
    assert pages.known_digest("episodic/switched-back.md") is None


def test_a_page_the_writer_skipped_keeps_no_plan_of_an_older_build() -> None:
    memory, first = PageMemory(), _linked_graph()
    _written(render(first, memory=memory))
    second = _entity_title(first)
    pages = render(second, memory=memory)
    skipped = "episodic/switched.md"  # a symbolic link stood there: the writer left the page alone
    for path in pages:
        if path != skipped and pages.known_digest(path) is None:
            pages[path]
    memory.keep_only(pages)
    assert skipped not in memory.pages
    assert render(second, memory=memory)[skipped] == render(second)[skipped]


def test_relations_jsonl_is_written_again_only_from_other_relations() -> None:
    memory, before = PageMemory(), _linked_graph()
    first = render(before, memory=memory)["relations.jsonl"]
    assert render(replace(before), memory=memory)["relations.jsonl"] is first  # the very same relations
    after = _relation_label(before)
    assert render(after, memory=memory)["relations.jsonl"] == render(after)["relations.jsonl"] != first


def test_relations_jsonl_renders_again_only_the_lines_of_changed_relations(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    base = _linked_graph()
    template = base.relations[0]
    relations = tuple(replace(template, to_id=f"{template.to_id}-{n}") for n in range(5))
    memory, before = PageMemory(), replace(base, relations=relations)
    render(before, memory=memory)["relations.jsonl"]
    lines = record_calls(monkeypatch, render_module, "_relation_line", lambda relation: relation.to_id)
    changed = replace(relations[3], label="ran")
    after = replace(before, relations=(*relations[:3], changed, relations[4]))
    text = render(after, memory=memory)["relations.jsonl"]
    assert lines == [changed.to_id]
    assert text == render(after)["relations.jsonl"] and '"label":"ran"' in text.splitlines()[3]


def test_pages_made_from_the_same_records_hold_the_same_names(monkeypatch: pytest.MonkeyPatch) -> None:
    memory, graph = PageMemory(), _linked_graph()
    _written(render(graph, memory=memory))
    compared = record_calls(monkeypatch, render_module.NodeName, "__eq__", lambda self, other: self.id)
    compared += record_calls(monkeypatch, render_module.EntityName, "__eq__", lambda self, other: self.id)
    pages = render(graph, memory=memory)
    listing = [p for p in pages if p.startswith(("entities/", "sources/"))]
    assert listing and all(pages.known_digest(path) is not None for path in listing)
    assert compared == []  # each name is last build's very object: nothing to compare field by field
    # Another node title is another name, and the pages listing that node are made again.
    retitled = _superseding_title(graph)
    before, again, fresh = render(graph), render(retitled, memory=memory), render(retitled)
    assert all(again[path] == fresh[path] for path in listing)
    assert any(fresh[path] != before[path] for path in listing)


def test_node_pages_known_unchanged_are_not_even_planned() -> None:
    memory, graph = PageMemory(), _linked_graph()
    _written(render(graph, memory=memory))
    pages = render(graph, memory=memory)
    node_pages = [path for path in pages if path.startswith(("episodic/", "semantic/"))]

    def unasked() -> str:
        raise AssertionError("a node page known unchanged was planned")

    for path in node_pages:  # its maker is never asked: the page memory knows the digest already
        pages._makers[path] = unasked
    assert node_pages and all(pages.known_digest(path) is not None for path in node_pages)


def count_listing_plans(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record the id of every entity and summary page planned (a reused plan is not planned again)."""
    planned: list[str] = []
    for name in ("_entity_properties", "_summary_properties"):
        real = getattr(render_module, name)

        def spy(record: Any, real: Any = real) -> Any:
            planned.append(record.id)
            return real(record)

        monkeypatch.setattr(render_module, name, spy)
    return planned


AROUND_A_LISTING = {
    **AROUND_A_NODE,
    "a listed node's timestamp": lambda g: replace(
        g, nodes=(replace(g.nodes[0], timestamp=date(2024, 1, 1)), g.nodes[1])
    ),
    "a relation's end": lambda g: replace(g, relations=(replace(g.relations[0], to_id=g.entities[0].id),)),
}


@pytest.mark.parametrize("change", AROUND_A_LISTING)
def test_entity_and_summary_pages_are_planned_again_when_what_they_show_changes(change: str) -> None:
    memory, before = PageMemory(), _linked_graph()
    _written(render(before, memory=memory))
    after = AROUND_A_LISTING[change](before)
    fresh, again = render(after), render(after, memory=memory)
    listing = [p for p in fresh if p.startswith(("entities/", "sources/"))]
    assert sorted(listing) == sorted(p for p in again if p.startswith(("entities/", "sources/")))
    assert [again[p] for p in listing] == [fresh[p] for p in listing]
    assert any(fresh[p] != render(before)[p] for p in listing if p in render(before))  # it shows


def test_entity_and_summary_pages_are_not_planned_again_when_made_from_the_same_records(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    memory, before = PageMemory(), _linked_graph()
    _written(render(before, memory=memory))
    planned = count_listing_plans(monkeypatch)
    pages = render(replace(before), memory=memory)  # another graph, of the very same records
    listing = [p for p in pages if p.startswith(("entities/", "sources/"))]
    assert listing and all(pages.known_digest(p) is not None for p in listing)
    assert planned == []
    # A node's body is not shown there: planned again from the new node, found unchanged, not rendered.
    _written(pages)
    after = replace(before, nodes=(before.nodes[0], replace(before.nodes[1], body="Back, for good.")))
    rendered = count_renders(monkeypatch)
    pages = render(after, memory=memory)
    assert all(pages.known_digest(p) is not None for p in listing)
    assert planned and not any(page_id in planned for page_id in rendered)


def test_an_entitys_own_relations_changing_plans_again_only_the_pages_that_show_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    base = _linked_graph()
    ender, ev = base.entities[0], base.entities[0].evidence[0]
    voron = Entity("voron", "Voron", "product", "Another printer.", (), (ev,))
    beside = Relation(
        "voron",
        "sits_next_to",
        "sits next to",
        ender.id,
        "It sits next to the Ender 3.",
        0.9,
        None,
        None,
        (ev,),
    )
    before = replace(base, entities=(*base.entities, voron), relations=(*base.relations, beside))
    memory = PageMemory()
    _written(render(before, memory=memory))
    # The Ender 3's own relation says something else: its page and Klipper's show it, the Voron's lists
    # the Ender 3 by name only, the summary lists both by name only.
    after = replace(
        before, relations=(replace(before.relations[0], statement="It runs Klipper now."), beside)
    )
    fresh = dict(render(after))  # every page made now: pages are made when read
    planned = count_listing_plans(monkeypatch)
    pages = render(after, memory=memory)
    assert [pages.known_digest(p) or sha256(pages[p]) for p in fresh] == [sha256(fresh[p]) for p in fresh]
    assert sorted(planned) == ["ender-3", "klipper"]


@pytest.mark.parametrize("most", [0, 1, 1_000])
def test_prepared_pages_read_as_pages_made_when_written(most: int) -> None:
    memory, graph = PageMemory(), _linked_graph()
    _written(render(graph, memory=memory))
    changed = _superseding_title(graph)
    expected = render(changed)  # no memory: every page made anew
    pages = render(changed, memory=memory)
    pages.prepare(most)
    held = [path for path, (_, text) in pages._prepared.items() if text is not None]
    if most < len(expected):
        assert len(held) == most  # the first `most` pages to render, held; the rest are made when read
    else:
        assert set(pages._prepared) == set(expected)  # every page: its digest known, or its text held
        assert 0 < len(held) < len(expected)  # a page that does not show the node's title is not rendered
    for path in expected:
        digest = pages.known_digest(path)
        if digest is None:
            assert pages[path] == expected[path]
        else:
            assert digest == sha256(expected[path])


def test_a_relation_moving_lines_plans_again_only_the_node_pages_on_its_lines(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    base = _linked_graph()
    lines = base.relations[0].evidence[0]
    elsewhere = replace(lines, line_start=lines.line_end + 20, line_end=lines.line_end + 21)
    # Both nodes name the relation's two ends; only the first comes from the relation's lines.
    before = replace(base, nodes=(base.nodes[0], replace(base.nodes[1], evidence=(elsewhere,))))
    ends = {before.relations[0].from_id, before.relations[0].to_id}
    assert set(before.nodes[0].entities) == set(before.nodes[1].entities) >= ends
    memory = PageMemory()
    _written(render(before, memory=memory))
    # An edit above the relation's sentence: the same relation, on the next lines as well.
    moved = replace(lines, line_start=lines.line_start + 1, line_end=lines.line_end + 1)
    after = replace(before, relations=(replace(before.relations[0], evidence=(lines, moved)),))
    planned = count_node_plans(monkeypatch)
    pages = render(after, memory=memory)
    fresh = dict(render(after))  # every page made now: pages are made when read
    digests = [pages.known_digest(p) or sha256(pages[p]) for p in fresh]
    assert digests == [sha256(fresh[p]) for p in fresh]
    assert planned.count("switched") == 2 and planned.count("switched-back") == 1  # the fresh render's


def test_pages_prepared_in_some_folders_leave_the_others_to_be_made_when_read() -> None:
    memory, graph = PageMemory(), _linked_graph()
    _written(render(graph, memory=memory))
    changed = _superseding_title(graph)
    expected = render(changed)
    pages = render(changed, memory=memory)
    pages.prepare(folders=("episodic",))
    assert pages._prepared and all(path.startswith("episodic/") for path in pages._prepared)
    assert sorted(pages.fresh()) == ["episodic/switched-back.md", "episodic/switched.md"]  # and its link
    assert all((pages.known_digest(p) or sha256(pages[p])) == sha256(expected[p]) for p in expected)


def test_what_pass_two_replaced_is_freed_only_once_the_pages_are_written(
    sample_copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault, memory = tmp_path / "vault", BuildMemory()
    rebuild(sample_copy, vault, memory)
    assert memory.link.dropped == []
    held = record_calls(monkeypatch, write_module, "atomic_write", lambda *_, **__: len(memory.link.dropped))
    note = sample_copy / "printing" / "Klipper.md"
    note.write_text(note.read_text("utf-8") + "\nFixed the zq-nozzle clog on the Voron today.\n", "utf-8")
    build(load_settings(sample_copy, vault=vault), memory=memory, gate=lambda: True)
    assert held and all(held)  # the last pass's memory, still held while pages were written
    assert memory.link.dropped == []
    same_as_clean_build(sample_copy, vault, tmp_path / "clean")
