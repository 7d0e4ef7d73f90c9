"""Pass 2 (first version): entity resolution, node and relation merging, ids, tags, coverage."""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import subprocess
import sys
from datetime import date
from pathlib import Path
from typing import Any

from kgvault.extract import Extraction
from kgvault.extract.draft import Draft
from kgvault.link import link
from kgvault.records import Chunk, Evidence, Source


def source(path: str, *, title: str | None = None, meta: dict[str, Any] | None = None) -> Source:
    text = "line\n" * 20
    return Source(
        id=path,
        path=path,
        kind="markdown",
        title=title or path.rsplit("/", 1)[-1].rsplit(".", 1)[0],
        meta=meta or {},
        reference_time=date(2025, 3, 12),
        text=text,
        body_line=1,
        sha256=hashlib.sha256(text.encode()).hexdigest(),
    )


def extraction(path: str, index: int, lines: tuple[int, int], **draft: Any) -> Extraction:
    chunk = Chunk(path, index, "section", (), lines[0], lines[1], "x", date(2025, 3, 12), "0" * 64)
    return Extraction(chunk, Draft.model_validate(draft), "test@1")


def episode(title: str, when: str = "2025-03-12", **extra: Any) -> dict[str, Any]:
    return {"memory_layer": "episodic", "type": "observation", "title": title, "timestamp": when, **extra}


def fact(title: str, **extra: Any) -> dict[str, Any]:
    return {"memory_layer": "semantic", "type": "fact", "title": title, **extra}


def test_aliases_from_frontmatter_and_drafts_meet_on_one_entity() -> None:
    sources = [source("printing/Klipper.md", meta={"aliases": ["Klipper firmware"]}), source("daily/a.md")]
    graph = link(
        sources,
        [
            extraction(
                "daily/a.md", 0, (1, 3), entities=[{"name": "Klipper firmware", "entity_type": "software"}]
            ),
            extraction("printing/Klipper.md", 1, (4, 6), entities=[{"name": "klipper"}]),
        ],
    )
    (entity,) = graph.entities
    assert (entity.id, entity.title, entity.entity_type) == ("klipper", "Klipper", "software")
    assert entity.aliases == ("Klipper firmware",)
    assert entity.evidence == (Evidence("daily/a.md", 1, 3), Evidence("printing/Klipper.md", 4, 6))


def test_same_proposition_from_two_sources_is_one_node_with_both_provenances() -> None:
    sources = [source("a.md"), source("b.md")]
    graph = link(
        sources,
        [
            extraction(
                "a.md", 0, (1, 2), nodes=[fact("Atlas uses Postgres.", confidence="low", tags=["db"])]
            ),
            extraction(
                "b.md", 0, (5, 9), nodes=[fact("atlas uses  postgres", confidence="high", tags=["work"])]
            ),
        ],
    )
    (node,) = graph.nodes
    assert node.title == "Atlas uses Postgres."
    assert node.confidence == "high"
    assert node.tags == ("db", "work")
    assert node.evidence == (Evidence("a.md", 1, 2), Evidence("b.md", 5, 9))
    coverage = {s.source.path: [r.result for r in s.coverage] for s in graph.summaries}
    assert coverage == {"a.md": ["1 node"], "b.md": ["1 duplicate node merged"]}


def test_the_same_episode_on_different_dates_stays_two_nodes() -> None:
    graph = link(
        [source("a.md")],
        [
            extraction("a.md", 0, (1, 1), nodes=[episode("I prefer PETG.", "2025-01-14")]),
            extraction("a.md", 1, (2, 2), nodes=[episode("I prefer PETG.", "2025-04-05")]),
        ],
    )
    assert sorted(n.timestamp for n in graph.nodes if n.timestamp) == [date(2025, 1, 14), date(2025, 4, 5)]
    ids = sorted(n.id for n in graph.nodes)
    assert ids[0] == "i-prefer-petg" and ids[1].startswith("i-prefer-petg-") and len(set(ids)) == 2


def test_ids_do_not_depend_on_input_order() -> None:
    sources = [source(f"n{i}.md") for i in range(6)]
    items = [
        extraction(f"n{i}.md", 0, (1, 2), nodes=[fact("Marlin is firmware.")], entities=[{"name": "Marlin"}])
        for i in range(6)
    ]
    items += [
        extraction("n5.md", 1, (3, 4), nodes=[episode("Marlin", "2025-02-0" + str(d))]) for d in range(1, 4)
    ]
    expected = link(sources, items)
    for seed in range(5):
        shuffled = items[:]
        random.Random(seed).shuffle(shuffled)
        again = link(sources, shuffled)
        assert again.nodes == expected.nodes and again.entities == expected.entities
    # The entity keeps the plain name; the homonym episodes get hash suffixes.
    assert [e.id for e in expected.entities] == ["marlin"]
    assert sum(1 for n in expected.nodes if re.fullmatch(r"marlin-[0-9a-f]{6}", n.id)) == 3


def test_relations_merge_with_unioned_evidence_and_one_label_per_predicate() -> None:
    ends = [{"name": "Ender 3"}, {"name": "Klipper"}]
    rel = {"subject": "Ender 3", "predicate": "runs", "object": "Klipper"}
    graph = link(
        [source("a.md"), source("b.md")],
        [
            extraction(
                "a.md", 0, (1, 2), entities=ends, relations=[{**rel, "label": "runs", "confidence": 0.7}]
            ),
            extraction(
                "b.md", 0, (3, 4), entities=ends, relations=[{**rel, "label": "runs", "confidence": 0.9}]
            ),
            extraction(
                "b.md",
                1,
                (5, 6),
                entities=ends,
                relations=[{**rel, "label": "is running", "confidence": 0.8}],
            ),
        ],
    )
    (relation,) = graph.relations
    assert (relation.from_id, relation.relation, relation.to_id) == ("ender-3", "runs", "klipper")
    assert relation.confidence == 0.9 and relation.label == "runs"
    assert len(relation.evidence) == 3
    assert graph.predicates == (("runs", "runs", 1),)


def test_unlinked_mentions_of_known_entities_are_attached_to_nodes() -> None:
    graph = link(
        [source("a.md")],
        [
            extraction("a.md", 0, (1, 1), entities=[{"name": "Ender 3"}, {"name": "Marlin"}]),
            extraction(
                "a.md", 1, (2, 2), nodes=[episode("Had an error on the Ender 3 after updating Marlin.")]
            ),
            extraction("a.md", 2, (3, 3), nodes=[episode("The marlin swam away.")]),
        ],
    )
    by_title = {n.title: n.entities for n in graph.nodes}
    assert by_title["Had an error on the Ender 3 after updating Marlin."] == ("ender-3", "marlin")
    assert by_title["The marlin swam away."] == ()  # lowercase: not a proper-noun mention


def test_a_name_inside_a_longer_known_name_is_no_mention_unless_that_is_its_version() -> None:
    known = [
        {"name": n} for n in ("Tom", "Tom Becker", "Atlas", "Project Silent Atlas", "Postgres", "Postgres 15")
    ]
    texts = [
        "Tom Becker joined the team today.",
        "Met Tom to talk about Project Silent Atlas.",
        "Atlas uses Postgres 15 now.",
    ]
    graph = link(
        [source("a.md")],
        [
            extraction("a.md", 0, (1, 1), entities=known),
            *(extraction("a.md", i + 1, (i + 2, i + 2), nodes=[episode(t)]) for i, t in enumerate(texts)),
        ],
    )
    by_title = {n.title: n.entities for n in graph.nodes}
    assert by_title[texts[0]] == ("tom-becker",)
    assert by_title[texts[1]] == ("project-silent-atlas", "tom")
    assert by_title[texts[2]] == ("atlas", "postgres", "postgres-15")


def test_a_one_word_name_inside_a_longer_unknown_name_is_no_mention() -> None:
    known = [{"name": n} for n in ("Alex", "Mercedes", "Jordan", "Georgia", "Tom")]
    named = {
        "Had lunch with Alex Rivera from the data team.": (),
        "Took the car to the Mercedes-Benz garage.": (),
        "Finished the Michael Jordan documentary.": (),
        "Leo got an offer from Georgia Tech.": (),
        # Beside a sentence's first word, a weekday, "I" or punctuation, it is a mention.
        "Met Alex at the café. Jordan called.": ("alex", "jordan"),
        "Yesterday Alex called.": ("alex",),
        "Saw Tom Tuesday, then Georgia.": ("georgia", "tom"),
        "Jordan showed me the Mercedes UI.": ("jordan", "mercedes"),
        # Beside another known name, a kin word or a title, or a weekday's or a reply's short form.
        "Showed Alex Mercedes brochures.": ("alex", "mercedes"),
        "Had lunch with Uncle Tom at the pub.": ("tom",),
        "Saw Dr Jordan about my knee.": ("jordan",),
        "Called Alex Mon about Georgia Re: the trip.": ("alex", "georgia"),
        "1:1 Alex - Tom went fine.": ("alex", "tom"),
        "Told Alex I would come. Tom Hanks, Mercedes and Jordan too.": ("alex", "jordan", "mercedes"),
        "I was late. Then Alex called.": ("alex",),  # "Then" opens its sentence
    }
    graph = link(
        [source("a.md")],
        [
            extraction("a.md", 0, (1, 1), entities=known),
            *(extraction("a.md", i + 1, (i + 2, i + 2), nodes=[episode(t)]) for i, t in enumerate(named)),
        ],
    )
    assert {n.title: n.entities for n in graph.nodes} == named


def test_tag_counts_include_every_parent_level() -> None:
    graph = link(
        [source("a.md")],
        [
            extraction(
                "a.md",
                0,
                (1, 2),
                nodes=[
                    fact("One thing.", tags=["3d_printing/firmware/marlin"]),
                    fact("Two.", tags=["3d_printing"]),
                ],
            )
        ],
    )
    assert dict(graph.tag_counts) == {
        "3d_printing": 2,
        "3d_printing/firmware": 1,
        "3d_printing/firmware/marlin": 1,
    }


def test_summary_ids_and_coverage_reasons() -> None:
    graph = link(
        [source("printing/journal.md")],
        [
            extraction("printing/journal.md", 0, (1, 3), skip_reason="small talk"),
            extraction("printing/journal.md", 1, (4, 5)),
        ],
    )
    (summary,) = graph.summaries
    assert summary.id == "printing-journal-summary"
    assert [(r.line_start, r.line_end, r.result) for r in summary.coverage] == [
        (1, 3, "nothing: small talk"),
        (4, 5, "nothing: no statement found"),
    ]


def test_taken_basenames_push_our_ids_aside() -> None:
    graph = link(
        [source("a.md")], [extraction("a.md", 0, (1, 1), entities=[{"name": "Klipper"}])], taken=["KLIPPER"]
    )
    (entity,) = graph.entities
    assert entity.id.startswith("klipper-") and entity.title == "Klipper"


def test_predicate_synonyms_fold_into_the_table_predicate() -> None:
    ends = [{"name": "Dana Kim"}, {"name": "Northwind Labs"}]
    rel = {"subject": "Dana Kim", "object": "Northwind Labs", "confidence": 0.9}
    graph = link(
        [source("a.md")],
        [
            extraction(
                "a.md", 0, (1, 1), entities=ends, relations=[{**rel, "predicate": "works_at", "label": "at"}]
            ),
            extraction(
                "a.md", 1, (2, 2), entities=ends, relations=[{**rel, "predicate": "works_for", "label": "x"}]
            ),
        ],
    )
    (relation,) = graph.relations
    assert (relation.relation, relation.label, len(relation.evidence)) == ("works_for", "works for", 2)


def test_frontmatter_aliases_reach_the_entity_even_when_unused() -> None:
    sources = [source("people/Dana Kim.md", meta={"aliases": ["Dana", "DK"]}), source("a.md")]
    graph = link(
        sources, [extraction("a.md", 0, (1, 1), entities=[{"name": "Dana Kim", "entity_type": "person"}])]
    )
    (entity,) = graph.entities
    assert entity.aliases == ("Dana", "DK")


def test_node_tags_are_filed_under_the_canonical_tree() -> None:
    sources = [source("a.md"), source("b.md")]
    graph = link(
        sources,
        [
            extraction("a.md", 0, (1, 2), nodes=[fact("Printers need calibration.", tags=["printers"])]),
            extraction(
                "b.md", 0, (1, 2), nodes=[fact("The Ender is a printer.", tags=["printer", "klipper"])]
            ),
            extraction("b.md", 1, (3, 4), nodes=[fact("Klipper runs macros.", tags=["printing/klipper"])]),
        ],
    )
    tags = {node.title: node.tags for node in graph.nodes}
    assert tags["Printers need calibration."] == ("printer",)
    assert tags["The Ender is a printer."] == ("printer", "printing/klipper")
    assert dict(graph.tag_counts) == {"printer": 2, "printing": 2, "printing/klipper": 2}
    assert {(a, b) for a, b, _ in graph.tag_changes} == {
        ("printers", "printer"),
        ("klipper", "printing/klipper"),
    }


_POINTER_TIES = """
import json
from datetime import date
from kgvault.link import link
from tests.test_link import extraction, source

rel = {"subject": "Ada", "predicate": "mentors", "label": "mentors", "object": "Bob", "confidence": 0.9}
fact = {"memory_layer": "semantic", "type": "fact", "title": "Ada mentors Bob."}
made = extraction(
    "d.md", 0, (1, 20),
    entities=[{"name": "Ada", "entity_type": "person", "pointer": "/entities/0"},
              {"name": "Bob", "entity_type": "person", "pointer": "/entities/1"},
              {"name": "Ada", "entity_type": "person", "pointer": "/entities/2"}],
    relations=[{**rel, "pointer": f"/relations/{i}"} for i in range(6)],
    nodes=[{**fact, "pointer": f"/nodes/{i}"} for i in range(6)],
)
graph = link([source("d.md")], [made])
records = (*graph.relations, *graph.nodes, *graph.entities)
print(json.dumps([[e.pointer for e in r.evidence] for r in records]))
"""


def test_evidence_that_differs_only_by_pointer_is_in_pointer_order_whatever_the_hash_seed() -> None:
    """A draft file's items all cite their chunk's lines: the pointer orders them, not a set's iteration."""
    root = Path(__file__).resolve().parent.parent
    outputs = {
        subprocess.run(
            [sys.executable, "-c", _POINTER_TIES],
            cwd=root,
            env={**os.environ, "PYTHONHASHSEED": str(seed), "PYTHONPATH": str(root)},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in range(5)
    }
    assert len(outputs) == 1
    (printed,) = outputs
    cited = json.loads(printed)
    assert all(pointers == sorted(pointers) for pointers in cited)
    # The relation, the node, Bob (named once, and by the six nodes), Ada (twice, and by the nodes).
    assert sorted(map(len, cited)) == [6, 6, 7, 8]


def test_an_entity_a_node_names_in_its_text_is_mentioned_in_that_note_everywhere() -> None:
    sources = [source("people.md"), source("day.md")]
    named = extraction(
        "people.md",
        0,
        (1, 2),
        entities=[{"name": "Sam Ortiz", "entity_type": "person"}],
        nodes=[fact("Sam Ortiz works at Northwind.")],
    )
    unnamed = extraction("day.md", 0, (3, 5), nodes=[fact("Sam Ortiz helped me tune the printer.")])
    graph = link(sources, [named, unnamed])
    (sam,) = [e for e in graph.entities if e.title == "Sam Ortiz"]
    (helped,) = [n for n in graph.nodes if n.title.startswith("Sam Ortiz helped")]
    assert sam.id in helped.entities
    # Its page's sources (and so "Mentioned in") and the note's summary say so too.
    assert [(e.path, e.line_start) for e in sam.evidence] == [("day.md", 3), ("people.md", 1)]
    (day,) = [s for s in graph.summaries if s.source.path == "day.md"]
    assert day.entity_ids == (sam.id,)


def test_procedures_under_one_title_are_one_node_only_when_their_steps_are_the_same() -> None:
    def steps(body: str) -> dict[str, Any]:
        return {"memory_layer": "semantic", "type": "procedure", "title": "Installation", "body": body}

    pip, brew = "1. Run pip install.\n2. Restart.", "1. Run brew install.\n2. Restart."
    sources = [source("a.md"), source("b.md"), source("c.md")]
    drafts = [
        extraction("a.md", 0, (1, 9), nodes=[steps(pip), steps(brew)]),  # two lists under one heading
        extraction("b.md", 0, (1, 4), nodes=[steps(pip)]),  # the same steps elsewhere
        extraction("c.md", 0, (1, 4), nodes=[steps("1. Download it.\n2. Open it.")]),
    ]
    graph = link(sources, drafts)
    procedures = sorted((n.body, sorted({e.path for e in n.evidence})) for n in graph.nodes)
    assert procedures == [
        ("1. Download it.\n2. Open it.", ["c.md"]),
        ("1. Run brew install.\n2. Restart.", ["a.md"]),
        ("1. Run pip install.\n2. Restart.", ["a.md", "b.md"]),
    ]
    assert len({n.id for n in graph.nodes}) == 3
