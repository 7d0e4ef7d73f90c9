"""Watch's render indexes, patched from one build to the next: always what a fresh render would make."""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path

import pytest

from kgvault import render as render_module
from kgvault.build import BuildMemory, build
from kgvault.config import load_settings
from kgvault.records import Evidence, Graph
from kgvault.render import (
    Around,
    Changed,
    PageMemory,
    _Context,
    _Diff,
    _linked_from,
    _Names,
    _patched_ranks,
    _ranks,
    render,
)  # fmt: skip
from kgvault.write import sha256

from .conftest import record_calls
from .test_page_memory import _written
from .test_render import graph as render_graph

INDEXES = (
    "node_by_id", "entity_by_id", "entity_by_name", "summary_by_path", "outgoing", "incoming",
    "nodes_by_entity", "entity_names",
)  # fmt: skip


class _Thing:
    """A record stand-in: only its identity counts."""


def _edited(rng: random.Random, before: list[_Thing]) -> list[_Thing]:
    """A copy with a few records gone, come, replaced and moved, the rest in their order."""
    after = list(before)
    for _ in range(rng.randrange(1, 12)):
        what = rng.randrange(4)
        at = rng.randrange(len(after) + 1)
        if what == 0:
            after.insert(at, _Thing())
        elif what == 1 and after:
            del after[min(at, len(after) - 1)]
        elif what == 2 and after:
            after[min(at, len(after) - 1)] = _Thing()
        elif after:
            after.insert(at, after.pop(rng.randrange(len(after))))
    return after


@pytest.mark.parametrize("seed", range(40))
def test_a_diff_takes_out_and_puts_in_what_makes_one_sequence_the_other(seed: int) -> None:
    rng = random.Random(seed)
    before = [_Thing() for _ in range(rng.randrange(0, 400))]
    after = _edited(rng, before)
    diff = _Diff.of(before, after, len(before) + len(after))
    assert diff is not None
    assert [after[j] for j in diff.came_at] == diff.came and diff.came_at == sorted(diff.came_at)
    gone, came = set(map(id, diff.gone)), set(map(id, diff.came))
    # What is in both and was neither taken out nor put in kept its order: it is the same run.
    assert [t for t in before if id(t) not in gone] == [t for t in after if id(t) not in came]
    assert not set(map(id, after)) - set(map(id, before)) - came  # every new record came
    assert not set(map(id, before)) - set(map(id, after)) - gone  # every lost record went
    ranks = _patched_ranks(_ranks(before), diff, after)
    if ranks is not None:
        assert sorted(after, key=lambda t: ranks[id(t)]) == after


def test_a_diff_of_too_many_changes_is_none() -> None:
    before = [_Thing() for _ in range(100)]
    assert _Diff.of(before, [_Thing() for _ in range(100)], 50) is None
    assert _Diff.of(before, list(before), 0) == _Diff([], [], [])


def test_ranks_with_no_number_left_between_neighbours_are_none() -> None:
    """Records put again and again into the same gap run out of numbers between their neighbours:
    then the ranks are made afresh (None), never wrong."""
    sequence = [_Thing() for _ in range(1000)]
    ranks = _ranks(sequence)
    for _ in range(200):
        after = [*sequence[:500], _Thing(), *sequence[500:]]
        diff = _Diff.of(sequence, after, 10)
        assert diff is not None
        patched = _patched_ranks(ranks, diff, after)
        if patched is None:
            return
        assert sorted(after, key=lambda t: patched[id(t)]) == after
        sequence, ranks = after, patched
    pytest.fail("200 records fitted between two neighbours")


def test_seeded_edits_under_watch_memory_patch_the_indexes_a_fresh_render_makes(
    sample_copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Notes appended to, with names swapped, lines deleted, deleted and back: after each rebuild
    the patched indexes, what node pages read of them and the nodes found touched are a fresh
    render's, and more than one rebuild patched them."""
    graphs: list[Graph] = []
    real_render = render_module.render

    def spying(graph: Graph, **options: object) -> render_module.Pages:
        graphs.append(graph)
        return real_render(graph, **options)  # type: ignore[arg-type]

    touched_sets = []
    real_touched = Changed.nodes_touched

    def checked(self: Changed, ctx: _Context, linked_from: dict[str, frozenset[str]]) -> set[str] | None:
        found = real_touched(self, ctx, linked_from)
        if found is not None:
            assert found == {node.id for node in ctx.graph.nodes if self.touches(node)}
            touched_sets.append(found)
        return found

    monkeypatch.setattr(render_module, "render", spying)
    monkeypatch.setattr(Changed, "nodes_touched", checked)
    patched = 0
    real_patch = _Context.patched

    def counting(self: _Context, *args: object) -> _Context:
        nonlocal patched
        patched += 1
        return real_patch(self, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(_Context, "patched", counting)
    settings = load_settings(sample_copy, vault=tmp_path / "vault")
    memory = BuildMemory()
    build(settings, memory=memory)
    rng = random.Random(5)
    notes = sorted(sample_copy.rglob("*.md"))
    names = ["Klipper", "Marlin", "Voron", "Dana", "Sam", "Atlas", "Lyon", "Dagster"]
    saved: dict[Path, bytes] = {}
    for step in range(16):
        note = rng.choice(notes)
        saved.setdefault(note, note.read_bytes())
        if not note.exists():
            note.write_bytes(saved[note])
        elif step % 5 == 4:
            note.unlink()
        elif step % 3 == 1:
            text = note.read_text("utf-8")
            note.write_text(text.replace(rng.choice(names), rng.choice(names)), "utf-8")
        elif step % 3 == 2:
            lines = note.read_text("utf-8").splitlines()
            del lines[rng.randrange(len(lines))]
            note.write_text("\n".join(lines) + "\n", "utf-8")
        else:
            said = f"\nMet [[{rng.choice(names)}]] about {rng.choice(names)} today.\n"
            note.write_text(
                note.read_text("utf-8") + said + "Switched the Voron from Marlin to Klipper today.\n"
            )
        graphs.clear()
        build(settings, memory=memory)
        if not graphs:
            continue
        kept = memory.pages.contexts
        assert kept.ctx is not None and kept.ctx.graph is graphs[-1]
        fresh = _Context.build(graphs[-1], kept.ctx.linker, _Names())
        for index in INDEXES:
            assert getattr(kept.ctx, index) == getattr(fresh, index), (step, index)
        assert kept.around == Around.of(fresh)
        assert kept.linked_from == _linked_from(graphs[-1].nodes)
    assert patched >= 8 and len(touched_sets) >= 8


def _linked_graph() -> Graph:
    """test_render's graph with a third node: the first superseded by the second, the third
    naming the product only."""
    base = render_graph()
    first = replace(base.nodes[0], superseded_by=("switched-back",))
    later = replace(base.nodes[0], id="switched-back", title="Switched back to Marlin", body="Back.")
    aside = replace(
        base.nodes[0], id="aside", title="Oiled the Ender 3", body="Oiled.", entities=("ender-3",)
    )
    return replace(base, nodes=(aside, first, later))


def _retyped(g: Graph) -> Graph:
    return replace(g, entities=(replace(g.entities[0], entity_type="machine"), *g.entities[1:]))


def _no_longer_superseded(g: Graph) -> Graph:
    return replace(g, nodes=(g.nodes[0], replace(g.nodes[1], superseded_by=()), g.nodes[2]))


def _superseding_node_gone(g: Graph) -> Graph:
    return replace(g, nodes=g.nodes[:2])


def _relation_moved(g: Graph) -> Graph:
    return replace(g, relations=(replace(g.relations[0], evidence=(Evidence("daily/2025-03-22.md", 2, 3),)),))


def _node_came(g: Graph) -> Graph:
    came = replace(g.nodes[0], id="aside-2", title="Oiled it again", entities=("ender-3", "klipper"))
    return replace(g, nodes=(*g.nodes, came))


CHANGES = {
    "an entity retyped": _retyped,
    "a node no longer superseded": _no_longer_superseded,
    "the superseding node gone": _superseding_node_gone,
    "a relation from other lines": _relation_moved,
    "a node come": _node_came,
}


TOUCHING = {"an entity retyped", "the superseding node gone", "a relation from other lines"}


@pytest.mark.parametrize("change", CHANGES)
def test_a_patched_render_reads_the_graph_as_a_fresh_render_does(
    change: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each change patches the kept indexes into a fresh render's; the node pages found touched
    from the change are those each page's own check says yes to; every page reads as a fresh render's."""
    memory, before = PageMemory(), _linked_graph()
    _written(render(before, memory=memory))
    after = CHANGES[change](before)
    found: list[set[str] | None] = []
    real_touched = Changed.nodes_touched

    def checked(self: Changed, ctx: _Context, linked_from: dict[str, frozenset[str]]) -> set[str] | None:
        touched = real_touched(self, ctx, linked_from)
        found.append(touched)
        return touched

    monkeypatch.setattr(Changed, "nodes_touched", checked)
    made_afresh = record_calls(monkeypatch, _Context, "build", lambda *args: "made")
    patched = render(after, memory=memory)
    assert not made_afresh  # patched
    kept = memory.contexts
    assert kept.ctx is not None and kept.ctx.graph is after
    fresh = _Context.build(after, kept.ctx.linker, _Names())
    for index in INDEXES:
        assert getattr(kept.ctx, index) == getattr(fresh, index), index
    assert kept.around == Around.of(fresh)
    assert kept.linked_from == _linked_from(after.nodes)
    assert found and found[0] is not None
    changed = memory.changed_since(kept.around)
    assert changed is not None
    assert found[0] == {node.id for node in after.nodes if changed.touches(node)}
    if change in TOUCHING:
        assert found[0]  # the change shows on pages of nodes that are as they were
    unpatched = render(after)
    # A page the writer is told it knows (its digest) is the page a fresh render makes.
    known = {path: patched.known_digest(path) for path in unpatched}
    assert {path: digest for path, digest in known.items() if digest is not None} == {
        path: sha256(unpatched[path]) for path, digest in known.items() if digest is not None
    }
    assert any(known.values()) and not all(known.values())
    assert {path: patched[path] for path in patched} == {path: unpatched[path] for path in unpatched}


def test_a_render_no_build_wrote_counts_towards_the_next_one() -> None:
    """A watch rebuild stopped at its gate renders but writes nothing (its plans rolled back): the
    next render patches from it, and still reads every page as a fresh render does."""
    memory, first = PageMemory(), _linked_graph()
    _written(render(first, memory=memory))
    plans = memory.checkpoint()
    # Stopped at the gate: nothing written, nothing kept. Its superseding node's new title (shown on
    # the superseded node's page) is in the next graph too, as the very same node.
    stopped = replace(first, nodes=(*first.nodes[:2], replace(first.nodes[2], title="Back to Marlin")))
    render(stopped, memory=memory)
    memory.rollback(plans)
    last = _node_came(stopped)
    again = render(last, memory=memory)
    kept = memory.contexts
    assert kept.ctx is not None and kept.ctx.graph is last
    fresh = _Context.build(last, kept.ctx.linker, _Names())
    for index in INDEXES:
        assert getattr(kept.ctx, index) == getattr(fresh, index), index
    unpatched = render(last)
    for path in unpatched:
        digest = again.known_digest(path)
        assert digest is None or digest == sha256(unpatched[path]), path
        assert again[path] == unpatched[path], path
