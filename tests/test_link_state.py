"""Pass 2 kept between rebuilds (`LinkState`): every update equals linking from scratch, and reuses."""

from __future__ import annotations

import random
import re
from datetime import date
from pathlib import Path

import pytest

import kgvault.link
import kgvault.link_memory
import kgvault.resolve
from kgvault.chunks import chunk_sources
from kgvault.extract import Extraction, extract
from kgvault.extract.draft import DraftLink
from kgvault.link import LinkState, link
from kgvault.records import Graph, Source
from kgvault.sources import read_sources
from tests.conftest import SAMPLE, record_calls
from tests.test_link import episode, extraction, fact, source
from tests.test_temporal import firmware_history, rel, state


def relinked(state: LinkState) -> Graph:
    """The graph a from-scratch pass 2 gives for the state's current inputs."""
    extractions = [x for path in state.sources for x in state.extractions.get(path, ())]
    return link(list(state.sources.values()), extractions, **state.options)


def node_entities(graph: Graph, title: str) -> tuple[str, ...]:
    (node,) = [node for node in graph.nodes if node.title == title]
    return node.entities


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The chunk paths pass 2 reads anew (a kept reading is not read again)."""
    return record_calls(
        monkeypatch, kgvault.link, "_read", lambda extraction, *_: extraction.chunk.source_path
    )


def test_an_update_reads_only_the_changed_source_and_equals_a_relink(reads: list[str]) -> None:
    sources = [source("a.md"), source("b.md"), source("c.md")]
    state = LinkState.build(
        sources,
        [
            extraction(
                "a.md",
                0,
                (1, 2),
                nodes=[fact("Flashed Marlin on the Ender.")],
                entities=[{"name": "Marlin", "entity_type": "software"}],
            ),
            extraction("b.md", 0, (1, 2), nodes=[fact("Marlin runs the printer.")]),
            extraction("c.md", 0, (1, 2), nodes=[fact("Tomatoes need sun.")]),
        ],
    )
    reads.clear()
    changed = extraction("c.md", 0, (1, 3), nodes=[fact("Tomatoes need sun and water.")])
    graph = state.update([source("c.md")], [changed])
    assert reads == ["c.md"]
    assert graph == relinked(state) == state.graph
    assert {node.title for node in graph.nodes} >= {
        "Tomatoes need sun and water.",
        "Marlin runs the printer.",
    }


def test_a_name_new_to_the_corpus_is_found_in_texts_kept_from_before(reads: list[str]) -> None:
    state = LinkState.build(
        [source("a.md"), source("b.md")],
        [
            extraction("a.md", 0, (1, 2), nodes=[fact("Flashed Marlin on the Ender.")]),
            extraction("b.md", 0, (1, 2), nodes=[fact("Tomatoes need sun.")]),
        ],
    )
    assert node_entities(state.graph, "Flashed Marlin on the Ender.") == ()
    reads.clear()
    named = extraction("c.md", 0, (1, 2), entities=[{"name": "Ender", "entity_type": "device"}])
    graph = state.update([source("c.md")], [named])
    assert node_entities(graph, "Flashed Marlin on the Ender.") == ("ender",)
    assert sorted(reads) == ["a.md", "c.md"]  # b.md's text holds no word the new name starts with
    assert graph == relinked(state)


def test_an_entity_named_only_in_other_notes_texts_gains_and_loses_their_lines_as_they_change() -> None:
    def ender_paths(graph: Graph) -> list[str]:
        (ender,) = [entity for entity in graph.entities if entity.id == "ender"]
        return sorted(evidence.path for evidence in ender.evidence)

    ender = extraction("e.md", 0, (1, 2), entities=[{"name": "Ender", "entity_type": "device"}])
    # Enough other notes that an update counts what changed instead of counting all again.
    others = [f"n{i}.md" for i in range(8)]
    state = LinkState.build(
        [source("a.md"), source("b.md"), source("e.md"), *map(source, others)],
        [
            extraction("a.md", 0, (1, 2), nodes=[fact("Flashed Marlin on the Ender.")]),
            extraction("b.md", 0, (1, 2), nodes=[fact("Tomatoes need sun.")]),
            ender,
            *(extraction(path, 0, (1, 2), nodes=[fact(f"Watered bed {path[1]}.")]) for path in others),
        ],
    )
    assert ender_paths(state.graph) == ["a.md", "e.md"]
    steps = [
        ("b.md", [fact("Cleaned the Ender nozzle.")], ["a.md", "b.md", "e.md"]),
        ("a.md", [fact("Flashed Marlin on the Voron.")], ["b.md", "e.md"]),
        ("b.md", [fact("Tomatoes need sun."), fact("Oiled the Ender rods.")], ["b.md", "e.md"]),
        ("b.md", [fact("Tomatoes need sun.")], ["e.md"]),
    ]
    for path, nodes, expected in steps:
        graph = state.update([source(path)], [extraction(path, 0, (1, 3), nodes=nodes)])
        assert ender_paths(graph) == expected, (path, nodes)
        assert graph == relinked(state)


def test_homonyms_split_by_a_change_are_read_again_and_joined_when_it_goes() -> None:
    apple_inc = extraction(
        "a.md",
        0,
        (1, 2),
        nodes=[fact("Apple ships phones.")],
        entities=[{"name": "Apple", "entity_type": "company"}],
    )
    elsewhere = extraction("b.md", 0, (1, 2), nodes=[fact("Bought an Apple watch.")])
    state = LinkState.build([source("a.md"), source("b.md")], [apple_inc, elsewhere])
    assert node_entities(state.graph, "Bought an Apple watch.") == ("apple",)
    fruit = extraction(
        "c.md", 0, (1, 2), nodes=[fact("Ate an apple.")], entities=[{"name": "apple", "entity_type": "food"}]
    )
    for _ in range(2):
        split = state.update([source("c.md")], [fruit])
        assert {e.id for e in split.entities} == {"apple-organization", "apple-food"}
        # An untyped mention means the kind mentioned most: the kept reading had to be read again.
        assert node_entities(split, "Bought an Apple watch.") == ("apple-food",)
        assert split == relinked(state)
        joined = state.update([], [], ["c.md"])
        assert [e.id for e in joined.entities] == ["apple"]
        assert node_entities(joined, "Bought an Apple watch.") == ("apple",)
        assert joined == relinked(state)


def _notes(tmp_path: Path) -> Path:
    notes = tmp_path / "notes"
    for path in SAMPLE.rglob("*"):
        if path.is_file() and ".kgvault" not in path.parts:
            target = notes / path.relative_to(SAMPLE)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(path.read_bytes())
    return notes


def _extract(notes: Path) -> tuple[list[Source], dict[str, list[Extraction]]]:
    sources, _ = read_sources(notes)
    by_path: dict[str, list[Extraction]] = {source.path: [] for source in sources}
    for made in extract(chunk_sources(sources), sources):
        by_path[made.chunk.source_path].append(made)
    return sources, by_path


def test_random_edits_of_sample_vault_give_what_a_full_relink_gives(tmp_path: Path) -> None:
    """Seeded edits as people make them: a name swapped for another, a sentence added, a note gone or back."""
    notes = _notes(tmp_path)
    sources, by_path = _extract(notes)
    state = LinkState.build(sources, [x for s in sources for x in by_path[s.path]])
    rng = random.Random(7)
    names = sorted({e.title for e in state.graph.entities if " " not in e.title and e.title.isalpha()})
    removed: dict[str, bytes] = {}
    for step in range(24):
        files = sorted(p for p in notes.rglob("*.md") if p.is_file())
        path = rng.choice(files)
        text = path.read_text("utf-8")
        kind = step % 4
        if kind == 0:  # one name becomes another, wherever the note says it
            words = [w for w in names if re.search(rf"\b{re.escape(w)}\b", text)]
            if words:
                text = re.sub(rf"\b{re.escape(rng.choice(words))}\b", rng.choice(names), text)
        elif kind == 1:
            tag = rng.choice(["ops", "garden", "Printing"])
            text += f"\n\nToday I switched the {rng.choice(names)} setup to {rng.choice(names)}. #{tag}\n"
        elif kind == 2:  # a note deleted (a deleted note is never picked again: it is not listed)
            removed[path.relative_to(notes).as_posix()] = path.read_bytes()
            path.unlink()
            text = None
        else:
            for relative, data in removed.items():
                (notes / relative).write_bytes(data)
            removed.clear()
            text = text.replace(".", ". I still prefer Obsidian.", 1)
        if text is not None:
            path.write_text(text, "utf-8")
        now, now_by_path = _extract(notes)
        changed = [s for s in now if state.sources.get(s.path) != s]
        gone = [p for p in state.sources if p not in now_by_path]
        state.update(changed, [x for s in changed for x in now_by_path[s.path]], gone)
        assert state.graph == relinked(state), f"step {step}: {path.name}"
        assert state.graph == link(now, [x for s in now for x in now_by_path[s.path]])


def test_a_link_weight_of_minus_zero_is_zero_so_an_equal_node_is_written_alike() -> None:
    """Nodes equal to last pass's are handed back as last pass's objects: equal must mean the same text."""
    weights = [DraftLink(source="a", target="b", kind="causes", weight=w).weight for w in (-0.0, 0.0)]
    assert [repr(w) for w in weights] == ["0.0", "0.0"]  # -0.0 == 0.0, but it would print "-0.0"


def _stating(path: str, subject: str, obj: str, label: str) -> Extraction:
    entities = [{"name": subject, "entity_type": "person"}, {"name": obj, "entity_type": "person"}]
    relation = {"subject": subject, "predicate": "mentors", "label": label, "object": obj, "confidence": 0.9}
    return extraction(path, 0, (1, 2), entities=entities, relations=[relation])


def test_a_relation_no_draft_of_which_changed_takes_the_label_its_predicate_now_has_most() -> None:
    state = LinkState.build(
        [source("a.md"), source("b.md")],
        [_stating("a.md", "Ada", "Bob", "coaches"), _stating("b.md", "Cy", "Dee", "mentors")],
    )
    assert {r.label for r in state.graph.relations} == {"coaches"}  # a tie: the first label in order
    graph = state.update([source("c.md")], [_stating("c.md", "Eve", "Fay", "mentors")])
    assert {r.label for r in graph.relations} == {"mentors"}
    assert graph == relinked(state)


def test_an_update_merges_again_only_the_statements_of_the_drafts_that_changed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    people = [
        "Ada", "Bob", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal",
        "Ida", "Jo", "Kai", "Lu", "Max", "Ned", "Oz", "Pia",
    ]  # fmt: skip
    paths = [f"{name.lower()}.md" for name in people[::2]]
    state = LinkState.build(
        [source(path) for path in paths],
        [
            _stating(path, people[2 * i], people[2 * i + 1], ["coaches", "mentors"][i % 2])
            for i, path in enumerate(paths)
        ],
    )
    assert {r.label for r in state.graph.relations} == {"coaches"}  # a tie: the first label in order
    said = record_calls(monkeypatch, kgvault.link, "_said", lambda reading, _: reading.relations[0][3].path)
    # The same people: Dee now coaches Cy, a triple of its own (Cy's goes, Dee's comes in order).
    graph = state.update([source("cy.md")], [_stating("cy.md", "Dee", "Cy", "coaches")])
    assert said == ["cy.md", "cy.md"]  # what it said before, taken out, and what it says now
    pairs = [(r.from_id, r.to_id) for r in graph.relations]
    assert pairs[:3] == [("ada", "bob"), ("dee", "cy"), ("eve", "fay")] and len(pairs) == 8
    assert graph == relinked(state)
    said.clear()
    graph = state.update([source("cy.md")], [_stating("cy.md", "Cy", "Dee", "mentors")])
    assert said == ["cy.md", "cy.md"] and graph == relinked(state)
    said.clear()
    # Five statements say "mentors" now, three "coaches": every relation of the predicate says so.
    graph = state.update([source("ada.md")], [_stating("ada.md", "Ada", "Bob", "mentors")])
    assert said == ["ada.md", "ada.md"] and graph == relinked(state)
    assert {r.label for r in graph.relations} == {"mentors"}


def test_a_kept_chunk_says_so_when_it_now_holds_the_first_statement_of_a_node() -> None:
    said_twice = [
        extraction("a.md", 0, (1, 2), nodes=[fact("Tomatoes need sun.")]),
        extraction("b.md", 0, (1, 2), nodes=[fact("Tomatoes need sun.")]),
    ]
    state = LinkState.build([source("a.md"), source("b.md")], said_twice)

    def coverage(graph: Graph) -> list[str]:
        (summary,) = [s for s in graph.summaries if s.source.path == "b.md"]
        return [row.result for row in summary.coverage]

    assert coverage(state.graph) == ["1 duplicate node merged"]
    graph = state.update([], [], ["a.md"])
    assert coverage(graph) == ["1 node"]
    assert graph == relinked(state)


def test_a_pass_that_failed_leaves_nothing_unchecked_behind(monkeypatch: pytest.MonkeyPatch) -> None:
    marlin = extraction("v.md", 0, (1, 2), entities=[{"name": "Marlin", "entity_type": "software"}])
    amarlin = extraction("w.md", 0, (1, 2), entities=[{"name": "Amarlin", "entity_type": "software"}])
    joined = extraction(
        "y.md", 0, (1, 2), entities=[{"name": "Marlin", "entity_type": "software", "aliases": ["Amarlin"]}]
    )
    flashed = extraction("x.md", 0, (1, 2), nodes=[fact("Flashed Marlin today.")])
    state = LinkState.build([source("v.md"), source("w.md")], [marlin, amarlin])
    before = state.graph

    def failing(*args: object, **kwargs: object) -> None:
        raise RuntimeError("failed after the drafts were read")

    with monkeypatch.context() as patched:
        patched.setattr(kgvault.link, "apply_time", failing)
        with pytest.raises(RuntimeError):
            state.update([source("y.md"), source("x.md")], [joined, flashed])  # Marlin is Amarlin
    assert state.graph is before and set(state.sources) == {"v.md", "w.md"}  # the state is as it was
    state.update([], [], ["y.md"])
    graph = state.update([source("x.md")], [flashed])  # read while Marlin was Amarlin, in the failed pass
    assert node_entities(graph, "Flashed Marlin today.") == ("marlin",)
    assert graph == relinked(state)


def test_links_stated_twice_take_the_first_statement_in_the_notes_order_whatever_the_drafts_order() -> None:
    def stating(path: str, weight: float) -> Extraction:
        link = {"source": "Rain came.", "target": "Roads got wet.", "kind": "causes", "weight": weight}
        return extraction(path, 0, (1, 2), nodes=[fact("Rain came."), fact("Roads got wet.")], links=[link])

    sources, drafts = [source("a.md"), source("b.md")], [stating("a.md", 0.3), stating("b.md", 0.9)]
    graph = link(sources, drafts)
    assert [link.weight for node in graph.nodes for link in node.links] == [0.3]
    assert link(sources[::-1], drafts[::-1]) == graph
    state = LinkState.build(sources, drafts)
    state.update([], [], ["a.md"])
    assert state.update([sources[0]], [drafts[0]]) == graph  # a.md back, now last in the state's dict


def test_when_the_tag_tree_changes_only_the_nodes_whose_tags_it_changes_are_made_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    sourdough = extraction("a.md", 0, (1, 2), nodes=[fact("Sourdough needs time.", tags=["recipes"])])
    soup = extraction("b.md", 0, (1, 2), nodes=[fact("Soup is easy.", tags=["soup"])])
    tomatoes = extraction("c.md", 0, (1, 2), nodes=[fact("Tomatoes need sun.", tags=["garden"])])
    sources = [source("a.md"), source("b.md"), source("c.md")]
    state = LinkState.build(sources, [sourdough, soup, tomatoes])
    made = record_calls(monkeypatch, kgvault.link, "_make_node", lambda node_id, *_: node_id)
    state.update(
        [source("b.md")], [extraction("b.md", 0, (1, 3), nodes=[fact("Soup is warm.", tags=["soup"])])]
    )
    assert made == ["soup-is-warm"]  # the others kept as they were made
    made.clear()
    # "recipe" now used too: the tree folds "recipes" into it, and only the sourdough's tags change.
    graph = state.update(
        [source("b.md")], [extraction("b.md", 0, (1, 3), nodes=[fact("Soup is warm.", tags=["recipe"])])]
    )
    assert sorted(made) == ["soup-is-warm", "sourdough-needs-time"]
    assert [(n.title, n.tags) for n in graph.nodes] == [
        ("Soup is warm.", ("recipe",)),
        ("Sourdough needs time.", ("recipe",)),
        ("Tomatoes need sun.", ("garden",)),
    ]
    assert graph == relinked(state)


def test_the_tag_tree_is_built_again_only_when_the_tags_of_the_nodes_or_their_files_change(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    soups = [fact("Soup is easy.", tags=["recipes"]), fact("Soup is warm.", tags=["recipe"])]
    sources = [source("a.md"), source("b.md")]
    state = LinkState.build(
        sources,
        [
            extraction("a.md", 0, (1, 2), nodes=soups),
            extraction("b.md", 0, (1, 2), nodes=[fact("Tomatoes need sun.", tags=["garden"])]),
        ],
    )
    built = record_calls(monkeypatch, kgvault.link, "build_tag_tree", lambda nodes, *_: str(len(nodes)))
    # Another title with the same tags in the same file: the tree is last pass's.
    rain = fact("Tomatoes need rain.", tags=["garden"])
    graph = state.update([source("b.md")], [extraction("b.md", 0, (1, 2), nodes=[rain])])
    assert built == []
    assert graph == relinked(state)
    built.clear()
    # One node fewer carrying "recipe": the tree is built again, and "recipes" is no longer folded.
    graph = state.update([source("a.md")], [extraction("a.md", 0, (1, 2), nodes=soups[:1])])
    assert built == ["2"]
    soup = [(n.title, n.tags) for n in graph.nodes if n.title.startswith("Soup")]
    assert soup == [("Soup is easy.", ("recipes",))]
    assert graph == relinked(state)


def test_an_episode_repeated_in_a_third_note_is_consolidated_and_undone_as_notes_change() -> None:
    def said(path: str, day: str) -> Extraction:
        return extraction(path, 0, (1, 2), nodes=[episode("Watered the tomatoes.", day, confidence="medium")])

    sources = [source("a.md"), source("b.md"), source("c.md")]
    drafts = [said("a.md", "2025-05-01"), said("b.md", "2025-05-02"), extraction("c.md", 0, (1, 2))]
    state = LinkState.build(sources, drafts)
    assert not [n for n in state.graph.nodes if n.derived_from]  # said in two notes: not yet a habit
    third = state.update([source("c.md")], [said("c.md", "2025-05-03")])
    (habit,) = [n for n in third.nodes if n.derived_from]
    assert habit.memory_layer == "semantic" and len(habit.derived_from) == 3
    assert third == relinked(state)
    gone = state.update([], [], ["b.md"])
    assert not [n for n in gone.nodes if n.derived_from]
    assert gone == relinked(state)


def test_an_update_elsewhere_makes_no_entity_and_no_consolidated_node_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def said(path: str, day: str, lines: tuple[int, int] = (1, 2)) -> Extraction:
        return extraction(
            path,
            0,
            lines,
            nodes=[episode("Watered the tomatoes.", day, confidence="medium")],
            entities=[{"name": "Tomatoes", "entity_type": "concept"}],
        )

    sources = [source("a.md"), source("b.md"), source("c.md"), source("d.md")]
    drafts = [said("a.md", "2025-05-01"), said("b.md", "2025-05-02"), said("c.md", "2025-05-03")]
    state = LinkState.build(sources, [*drafts, extraction("d.md", 0, (1, 2), nodes=[fact("Rain is due.")])])
    entities = record_calls(monkeypatch, kgvault.link, "make_entity", lambda entity_id, *_: entity_id)
    consolidated = record_calls(monkeypatch, kgvault.link, "_consolidate", lambda node_id, _: node_id)
    graph = state.update([source("d.md")], [extraction("d.md", 0, (1, 3), nodes=[fact("Rain is due soon.")])])
    assert entities == [] and consolidated == []  # neither the tomatoes nor the habit changed
    assert [n.title for n in graph.nodes if n.derived_from] == ["Watered the tomatoes."]
    assert graph == relinked(state)
    entities.clear()
    consolidated.clear()
    # The habit's third day moved, said in longer lines: the tomatoes' evidence changed too.
    graph = state.update([source("c.md")], [said("c.md", "2025-05-04", (1, 3))])
    assert entities == ["tomatoes"] and consolidated == ["watered-the-tomatoes"]
    assert graph == relinked(state)


def test_drafts_naming_the_same_names_patch_the_resolution_where_their_evidence_moved(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def naming(path: str, lines: tuple[int, int], kind: str, description: str) -> Extraction:
        entity = {"name": "Apple", "entity_type": kind, "description": description}
        return extraction(path, 0, lines, nodes=[fact(f"Apple is a {kind}.")], entities=[entity])

    sources = [source("a.md"), source("b.md"), source("c.md")]
    state = LinkState.build(
        sources,
        [
            naming("a.md", (1, 2), "organization", "A company."),
            naming("b.md", (1, 2), "food", "A fruit."),
            extraction("c.md", 0, (1, 2), entities=[{"name": "Marlin", "entity_type": "software"}]),
        ],
    )
    made_again = record_calls(monkeypatch, kgvault.resolve, "_resolve", lambda *_: "resolved")
    # The fruit's note grew: its chunk's lines moved, its names did not.
    graph = state.update([source("b.md")], [naming("b.md", (1, 4), "food", "A fruit.")])
    assert made_again == []
    (fruit,) = [e for e in graph.entities if e.id == "apple-food"]
    assert [(e.path, e.line_end) for e in fruit.evidence] == [("b.md", 4)]
    assert graph == relinked(state)
    made_again.clear()
    # A description is a name's too: read from scratch.
    graph = state.update([source("b.md")], [naming("b.md", (1, 4), "food", "A sweet fruit.")])
    assert made_again == ["resolved"]
    assert graph == relinked(state)


def _naming(path: str, *names: tuple[str, str]) -> Extraction:
    return extraction(path, 0, (1, 2), entities=[{"name": n, "entity_type": t} for n, t in names])


LEILA, PROMETHEUS, GRAFANA = ("Leila Tanaka", "person"), ("Prometheus", "software"), ("Grafana", "software")


def test_a_draft_naming_known_entities_anew_patches_the_resolution(monkeypatch: pytest.MonkeyPatch) -> None:
    state = LinkState.build(
        [source(p) for p in ("a.md", "b.md", "c.md", "d.md")],
        [
            _naming("a.md", LEILA, PROMETHEUS),
            _naming("b.md", LEILA),
            _naming("c.md", PROMETHEUS, GRAFANA),
            _naming("d.md", GRAFANA),
        ],
    )
    made_again = record_calls(monkeypatch, kgvault.resolve, "_resolve", lambda *_: "resolved")
    # "Met Leila about the alerts in Prometheus": names the corpus knows, now in d.md too.
    graph = state.update([source("d.md")], [_naming("d.md", GRAFANA, LEILA, ("Prometheus", "concept"))])
    assert made_again == []
    (leila,) = [e for e in graph.entities if e.title == "Leila Tanaka"]
    assert [e.path for e in leila.evidence] == ["a.md", "b.md", "d.md"]
    assert graph == relinked(state)
    made_again.clear()
    # Grafana and Prometheus leave d.md's chunk: meeting less, no two of its names are spelled alike.
    graph = state.update([source("d.md")], [_naming("d.md", LEILA)])
    assert made_again == []
    assert [e.path for e in leila.evidence] == ["a.md", "b.md", "d.md"]
    (grafana,) = [e for e in graph.entities if e.title == "Grafana"]
    assert [e.path for e in grafana.evidence] == ["c.md"]
    assert graph == relinked(state)


def test_a_name_leaving_a_chunk_is_resolved_again_where_meeting_less_may_join_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two names met in a chunk are two things: one spelled like the other, or a refused alias."""
    right, typo = ("Kubernetes Operator", "software"), ("Kubernetes Operater", "software")
    paths = ["a.md", "b.md", "c.md", "d.md", "e.md"]
    state = LinkState.build(
        [source(p) for p in paths],
        [
            _naming("a.md", right, typo, GRAFANA),
            _naming("b.md", right),
            _naming("c.md", right),
            _naming("d.md", typo),
            _naming("e.md", right),
        ],
    )
    assert len([e for e in state.graph.entities if e.title.startswith("Kubernetes")]) == 2
    made_again = record_calls(monkeypatch, kgvault.resolve, "_resolve", lambda *_: "resolved")
    graph = state.update([source("a.md")], [_naming("a.md", typo, GRAFANA)])
    assert made_again == ["resolved"]
    assert len([e for e in graph.entities if e.title.startswith("Kubernetes")]) == 1  # a typo of it
    assert graph == relinked(state)

    klipper = {"name": "Klipper", "entity_type": "software", "aliases": ["Klipper Fw"]}
    fw = {"name": "Klipper Fw", "entity_type": "software"}
    state = LinkState.build(
        [source(p) for p in paths[:4]],
        [
            extraction("a.md", 0, (1, 2), entities=[klipper]),
            extraction("b.md", 0, (1, 2), entities=[{"name": "Klipper", "entity_type": "software"}, fw]),
            extraction("c.md", 0, (1, 2), entities=[fw]),
            extraction("d.md", 0, (1, 2), entities=[fw]),
        ],
    )
    assert len(state.graph.entities) == 2  # b.md names both: the alias is refused
    made_again.clear()
    graph = state.update([source("b.md")], [_naming("b.md", ("Klipper", "software"))])
    assert made_again == ["resolved"]
    assert [e.title for e in graph.entities] == ["Klipper"]
    assert graph == relinked(state)


def test_a_homonym_named_less_is_resolved_again_as_its_untyped_mentions_may_change_sides(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    company, fruit, untyped = ("Apple", "organization"), ("Apple", "food"), ("Apple", "concept")
    paths = ["a.md", "b.md", "c.md", "d.md", "e.md", "f.md"]
    named = {"a.md": company, "b.md": company, "c.md": fruit, "d.md": fruit, "e.md": untyped, "f.md": company}
    state = LinkState.build([source(p) for p in paths], [_naming(p, named[p], GRAFANA) for p in paths])
    made_again = record_calls(monkeypatch, kgvault.resolve, "_resolve", lambda *_: "resolved")
    graph = state.update([source("a.md")], [_naming("a.md", GRAFANA)])  # two and two: the fruit's now
    assert made_again == ["resolved"]
    (food,) = [e for e in graph.entities if e.entity_type == "food"]
    assert [e.path for e in food.evidence] == ["c.md", "d.md", "e.md"]
    assert graph == relinked(state)


def test_a_patched_resolution_counts_the_new_mentions_spellings_and_types(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    loki, paths = ("Grafana Loki", "software"), ["a.md", "b.md", "c.md", "d.md", "e.md"]
    state = LinkState.build(
        [source(p) for p in paths],
        [_naming(p, GRAFANA, loki) if p < "c" else _naming(p, GRAFANA) for p in paths],
    )
    made_again = record_calls(monkeypatch, kgvault.resolve, "_resolve", lambda *_: "resolved")
    # Three say it is a tool, two that it is software; one spells it otherwise.
    for path, spelled in (("c.md", "Grafana-Loki"), ("d.md", "Grafana Loki"), ("e.md", "Grafana Loki")):
        graph = state.update([source(path)], [_naming(path, GRAFANA, (spelled, "tool"))])
        assert made_again == []
    (entity,) = [e for e in graph.entities if e.title.startswith("Grafana ")]
    assert (entity.entity_type, entity.aliases) == ("tool", ("Grafana-Loki",))
    assert graph == relinked(state)


def test_names_one_rule_joined_are_resolved_again_when_a_draft_changes_what_it_reads(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    right, typo = ("Kubernetes Operator", "software"), ("Kubernetes Operater", "software")
    state = LinkState.build(
        [source(p) for p in ("a.md", "b.md", "c.md", "d.md", "e.md", "f.md")],
        [
            _naming("a.md", right),
            _naming("b.md", right),
            _naming("c.md", right),
            _naming("d.md", typo),
            _naming("e.md", GRAFANA),
            _naming("f.md", GRAFANA),
        ],
    )
    assert {e.title for e in state.graph.entities} == {"Kubernetes Operator", "Grafana"}  # a typo of it
    made_again = record_calls(monkeypatch, kgvault.resolve, "_resolve", lambda *_: "resolved")
    graph = state.update([source("e.md")], [_naming("e.md", GRAFANA, typo)])  # still rare: patched
    assert made_again == []
    assert graph == relinked(state)
    made_again.clear()
    # Said a third time, the spelling is no typo any more: two things.
    graph = state.update([source("f.md")], [_naming("f.md", GRAFANA, typo)])
    assert made_again == ["resolved"]
    assert graph == relinked(state)
    assert {e.title for e in graph.entities} == {"Kubernetes Operator", "Kubernetes Operater", "Grafana"}
    made_again.clear()
    state = LinkState.build(
        [source(p) for p in ("a.md", "b.md", "c.md", "d.md")],
        [_naming("a.md", right), _naming("b.md", right), _naming("c.md", right), _naming("d.md", typo)],
    )
    # Both spellings in one chunk: two things named side by side, not one misspelled.
    made_again.clear()
    graph = state.update([source("a.md")], [_naming("a.md", right, typo)])
    assert made_again == ["resolved"]
    assert graph == relinked(state)
    assert len(graph.entities) == 2
    made_again.clear()
    # No longer side by side: the typo is one again.
    graph = state.update([source("a.md")], [_naming("a.md", right)])
    assert made_again == ["resolved"]
    assert graph == relinked(state)
    assert len(graph.entities) == 1


def test_names_looked_up_in_patched_passes_do_not_pile_up_in_the_resolution() -> None:
    # Patched passes share one union-find of names; a long watch must not grow it with every
    # name a draft looked up that means no entity.
    sources = [source("a.md"), source("b.md")]
    state = LinkState.build(
        sources,
        [
            extraction("a.md", 0, (1, 2), entities=[{"name": "Marlin", "entity_type": "software"}]),
            extraction("b.md", 0, (1, 2), nodes=[fact("Marlin runs the printer.")]),
        ],
    )
    for edit in range(3, 9):
        named = fact("Marlin runs the printer.", entities=["Marlin", f"Board {edit}"])
        state.update([source("b.md")], [extraction("b.md", 0, (1, edit), nodes=[named])])
    resolution = state.memory.last.resolved.resolution
    assert not any(name.startswith("board") for name in resolution.names.parent)
    assert resolution.key_of("Board 8") is None and "board 8" not in resolution.names.parent
    assert state.graph == relinked(state)


def test_a_node_time_superseded_is_made_again_only_when_its_node_or_its_successors_change(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def klipper_day(day: str) -> Extraction:
        return extraction(
            "a.md",
            1,
            (3, 4),
            entities=[{"name": "Ender 3"}, {"name": "Klipper"}],
            nodes=[state("Switched to Klipper.", day, "Ender 3", "Klipper")],
            relations=[rel("Ender 3", "runs", "Klipper", day)],
        )

    marlin = firmware_history()[0]
    state_ = LinkState.build([source("a.md"), source("b.md")], [marlin, klipper_day("2025-06-02")])
    remade = record_calls(monkeypatch, kgvault.link_memory, "retimed", lambda node, *_: node.title)
    graph = state_.update([source("b.md")], [extraction("b.md", 0, (1, 2), nodes=[fact("Rain is due.")])])
    assert remade == []  # Marlin is superseded by Klipper on the same day as last pass
    assert graph == relinked(state_)
    superseded = next(n for n in graph.nodes if n.superseded_by)
    assert superseded.valid_to == date(2025, 6, 2)
    graph = state_.update([source("a.md")], [marlin, klipper_day("2025-07-01")])
    assert remade == [superseded.title]  # the switch moved: Marlin now ran until July
    assert next(n for n in graph.nodes if n.superseded_by).valid_to == date(2025, 7, 1)
    assert graph == relinked(state_)


def test_a_relation_time_ends_is_made_again_only_when_it_or_its_dates_change(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    marlin, klipper = firmware_history()
    state_ = LinkState.build([source("a.md"), source("b.md")], [marlin, klipper])
    (ended,) = [r for r in state_.graph.relations if r.invalid_at is not None]
    remade = record_calls(monkeypatch, kgvault.link_memory, "timed_relation", lambda r, *_: r.to_id)
    graph = state_.update([source("b.md")], [extraction("b.md", 0, (1, 2), nodes=[fact("Rain is due.")])])
    assert remade == [] and graph == relinked(state_)
    assert any(r is ended for r in graph.relations)  # last pass's very object: its line is not redone
    remade.clear()
    later = extraction(
        "a.md",
        1,
        (3, 4),
        entities=[{"name": "Ender 3"}, {"name": "Klipper"}],
        nodes=[state("Switched to Klipper on 1 July 2025.", "2025-07-01", "Ender 3", "Klipper")],
        relations=[rel("Ender 3", "runs", "Klipper", "2025-07-01")],
    )
    graph = state_.update([source("a.md")], [marlin, later])
    assert "marlin" in remade and graph == relinked(state_)
    assert next(r for r in graph.relations if r.invalid_at is not None).invalid_at == date(2025, 7, 1)


def test_names_resolved_again_gather_again_only_the_roots_whose_mentions_changed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def naming(path: str, *names: str, lines: tuple[int, int] = (1, 2)) -> Extraction:
        return extraction(
            path, 0, lines, entities=[{"name": name, "entity_type": "software"} for name in names]
        )

    sources = [source("a.md"), source("b.md"), source("c.md")]
    state = LinkState.build(
        sources, [naming("a.md", "Marlin"), naming("b.md", "Klipper"), naming("c.md", "Prusa")]
    )
    gathered = record_calls(monkeypatch, kgvault.resolve, "_gather", lambda root, _: root)
    # A new name, so names are resolved again; Prusa is said alike (an equal mention), Marlin and
    # Klipper by the very same mentions.
    graph = state.update([source("c.md")], [naming("c.md", "Prusa", "Voron")])
    assert gathered == ["voron"]
    assert graph == relinked(state)
    gathered.clear()
    graph = state.update([source("c.md")], [naming("c.md", "Prusa", "Voron", "Bambu", lines=(1, 3))])
    assert sorted(gathered) == ["bambu", "prusa", "voron"]  # their evidence moved
    assert graph == relinked(state)


def test_an_entity_gathered_as_before_takes_no_note_it_had_before() -> None:
    # Mentions spell it "marlin"; its note titles it "Marlin". The note goes, the mentions stay.
    drafts = [extraction("a.md", 0, (1, 2), entities=[{"name": "marlin", "entity_type": "software"}])]
    state = LinkState.build([source("a.md"), source("Marlin.md")], drafts)
    assert [e.title for e in state.graph.entities] == ["Marlin"]
    graph = state.update([], [], removed_paths=["Marlin.md"])
    assert [e.title for e in graph.entities] == ["marlin"]
    assert graph == relinked(state)


def test_an_update_reads_again_only_what_the_changed_note_says_of_its_names(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    state = LinkState.build(
        [source("a.md"), source("b.md"), source("c.md")],
        [_naming("a.md", LEILA), _naming("b.md", LEILA, PROMETHEUS), _naming("c.md", PROMETHEUS)],
    )
    read = record_calls(monkeypatch, kgvault.resolve, "note_aliases", lambda meta: "read")
    graph = state.update([source("b.md")], [_naming("b.md", PROMETHEUS, LEILA)])
    assert read == ["read"]  # b.md's, a new source; a.md and c.md are last pass's very objects
    assert graph == relinked(state)


def test_random_links_to_known_entities_patch_the_resolution_as_a_full_relink_resolves(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Seeded edits that name known entities anew, or drop a line: patched or not, as from scratch."""
    notes = _notes(tmp_path)
    sources, by_path = _extract(notes)
    state = LinkState.build(sources, [x for s in sources for x in by_path[s.path]])
    rng = random.Random(11)
    names = sorted({e.title for e in state.graph.entities})
    resolved = record_calls(monkeypatch, kgvault.resolve, "_resolve", lambda *_: "resolved")
    patched = 0
    for step in range(20):
        path = rng.choice(sorted(p for p in notes.rglob("*.md") if p.is_file()))
        text = path.read_text("utf-8")
        if step % 4 == 3:  # a line deleted: names may leave a chunk
            lines = text.splitlines()
            del lines[rng.randrange(len(lines))]
            text = "\n".join(lines) + "\n"
        else:
            text += f"\n\nMet [[{rng.choice(names)}]] about [[{rng.choice(names)}]] today.\n"
        path.write_text(text, "utf-8")
        now, now_by_path = _extract(notes)
        changed = [s for s in now if state.sources.get(s.path) != s]
        resolved.clear()
        state.update(changed, [x for s in changed for x in now_by_path[s.path]])
        patched += not resolved
        assert state.graph == link(now, [x for s in now for x in now_by_path[s.path]]), f"step {step}"
    assert patched >= 5  # the patch is what most of these edits take


def test_a_notes_type_changed_alone_retypes_its_entity_as_a_relink_does() -> None:
    """`type: book` → `type: movie` with the same text: the entity others link to follows its note."""
    mention = {"name": "Sea of Tranquility", "entity_type": "concept"}
    log = extraction("log.md", 0, (1, 2), nodes=[fact("Finished Sea of Tranquility.")], entities=[mention])
    book = source("books/Sea of Tranquility.md", meta={"type": "book"})
    state = LinkState.build([book, source("log.md")], [log])
    assert [e.entity_type for e in state.graph.entities] == ["book"]
    movie = source("books/Sea of Tranquility.md", meta={"type": "movie"})
    graph = state.update([movie], [])
    assert [e.entity_type for e in graph.entities] == ["movie"]
    assert graph == relinked(state)


def test_a_first_name_joins_a_full_name_and_parts_when_a_second_one_appears() -> None:
    ana, lopez, silva = ("Ana", "person"), ("Ana Lopez", "person"), ("Ana Silva", "person")
    state = LinkState.build(
        [source(p) for p in ("a.md", "people/Ana Lopez.md", "c.md")],
        [_naming("a.md", ana, GRAFANA), _naming("people/Ana Lopez.md", lopez), _naming("c.md", GRAFANA)],
    )
    assert sorted(e.title for e in state.graph.entities) == ["Ana Lopez", "Grafana"]
    graph = state.update([source("c.md")], [_naming("c.md", silva, GRAFANA)])
    assert sorted(e.title for e in graph.entities) == ["Ana", "Ana Lopez", "Ana Silva", "Grafana"]
    assert graph == relinked(state)
    graph = state.update([source("c.md")], [_naming("c.md", GRAFANA)])
    assert sorted(e.title for e in graph.entities) == ["Ana Lopez", "Grafana"]
    assert graph == relinked(state)
    # Named again elsewhere: still one person.
    graph = state.update([source("c.md")], [_naming("c.md", GRAFANA, ana)])
    assert sorted(e.title for e in graph.entities) == ["Ana Lopez", "Grafana"]
    assert graph == relinked(state)


def test_a_first_name_meeting_a_full_name_in_a_chunk_is_resolved_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """ "Met [[Kim]] today. Kim Nguyen works at UCL.": meeting in a chunk joins them, parting parts them."""
    kim, nguyen = ("Kim", "person"), ("Kim Nguyen", "person")
    state = LinkState.build(
        [source(p) for p in ("a.md", "b.md", "c.md")],
        [_naming("a.md", kim, GRAFANA), _naming("b.md", nguyen), _naming("c.md", GRAFANA, kim)],
    )
    assert sorted(e.title for e in state.graph.entities) == ["Grafana", "Kim", "Kim Nguyen"]
    made_again = record_calls(monkeypatch, kgvault.resolve, "_resolve", lambda *_: "resolved")
    graph = state.update([source("c.md")], [_naming("c.md", GRAFANA, kim, nguyen)])
    assert made_again == ["resolved"]
    assert sorted(e.title for e in graph.entities) == ["Grafana", "Kim Nguyen"]
    assert graph == relinked(state)
    made_again.clear()
    graph = state.update([source("c.md")], [_naming("c.md", GRAFANA, kim)])
    assert made_again == ["resolved"]
    assert sorted(e.title for e in graph.entities) == ["Grafana", "Kim", "Kim Nguyen"]
    assert graph == relinked(state)
