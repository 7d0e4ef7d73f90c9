"""Pass 2, time: supersession, conflicts, versions and consolidation, on small hand-written drafts."""

from __future__ import annotations

import random
from dataclasses import replace
from datetime import date
from typing import Any

import pytest

from kgvault.corrections import Correction, Corrections
from kgvault.link import link

from .test_link import episode, extraction, source

ENDS = [{"name": "Ender 3"}, {"name": "Marlin"}, {"name": "Klipper"}]


def rel(subject: str, predicate: str, obj: str, valid_at: str | None, **extra: Any) -> dict[str, Any]:
    return {
        "subject": subject,
        "predicate": predicate,
        "label": predicate,
        "object": obj,
        "confidence": 0.9,
        "valid_at": valid_at,
        **extra,
    }


def state(title: str, when: str, *names: str) -> dict[str, Any]:
    return episode(title, when, type="state", entities=list(names))


def firmware_history() -> list[Any]:
    return [
        extraction(
            "a.md",
            0,
            (1, 2),
            entities=ENDS,
            nodes=[
                state("The Ender 3 ran Marlin 2.1.3 from 12 March 2025.", "2025-03-12", "Ender 3", "Marlin")
            ],
            relations=[rel("Ender 3", "runs", "Marlin", "2025-03-12")],
        ),
        extraction(
            "a.md",
            1,
            (3, 4),
            entities=ENDS,
            nodes=[state("Switched to Klipper on 2 June 2025.", "2025-06-02", "Ender 3", "Klipper")],
            relations=[rel("Ender 3", "runs", "Klipper", "2025-06-02")],
        ),
    ]


def test_a_later_value_of_a_functional_relation_supersedes_the_earlier() -> None:
    graph = link([source("a.md")], firmware_history())
    marlin, klipper = sorted(graph.relations, key=lambda r: r.to_id != "marlin")
    assert (marlin.to_id, marlin.valid_at, marlin.invalid_at) == (
        "marlin",
        date(2025, 3, 12),
        date(2025, 6, 2),
    )
    assert (klipper.to_id, klipper.invalid_at) == ("klipper", None)
    old = next(n for n in graph.nodes if "Marlin" in n.title)
    new = next(n for n in graph.nodes if "Klipper" in n.title)
    assert old.superseded_by == (new.id,) and old.valid_to == date(2025, 6, 2)
    assert new.superseded_by == () and new.valid_to is None
    assert len(graph.nodes) == 2 and graph.conflicts == ()  # nothing deleted, nothing resolved


def test_a_value_said_on_the_day_a_switch_stops_it_held_until_the_switch() -> None:
    # "The Ender 3 runs Marlin." in the morning, "Switched the Ender 3 from Marlin to Klipper." that
    # evening: no conflict, Marlin ran until the switch.
    marlin_then = state("The Ender 3 runs Marlin.", "2025-03-12", "Ender 3", "Marlin")
    marlin_now = state("Printed a cube. The Ender 3 runs Marlin.", "2025-06-02", "Ender 3", "Marlin")
    switch = episode(
        "Switched the Ender 3 from Marlin to Klipper.",
        "2025-06-02",
        type="decision",
        entities=["Ender 3", "Marlin", "Klipper"],
    )
    graph = link(
        [source("a.md"), source("b.md")],
        [
            extraction("a.md", 0, (1, 1), entities=ENDS, nodes=[marlin_then],
                       relations=[rel("Ender 3", "runs", "Marlin", "2025-03-12")]),
            extraction("b.md", 0, (1, 1), entities=ENDS, nodes=[marlin_now],
                       relations=[rel("Ender 3", "runs", "Marlin", "2025-06-02")]),
            extraction("b.md", 1, (3, 3), entities=ENDS, nodes=[switch], relations=[
                rel("Ender 3", "runs", "Klipper", "2025-06-02"),
                rel("Ender 3", "runs", "Marlin", None, invalid_at="2025-06-02"),
            ]),
        ],
    )  # fmt: skip
    assert graph.conflicts == ()
    times = {r.to_id: (r.valid_at, r.invalid_at) for r in graph.relations}
    assert times == {"marlin": (date(2025, 3, 12), date(2025, 6, 2)), "klipper": (date(2025, 6, 2), None)}
    (switched,) = [n for n in graph.nodes if n.type == "decision"]
    marlins = [n for n in graph.nodes if n.type == "state"]
    assert len(marlins) == 2
    assert all(n.superseded_by == (switched.id,) and n.valid_to == date(2025, 6, 2) for n in marlins)
    assert switched.conflicts_with == () and switched.superseded_by == ()


def test_a_switch_supersedes_the_states_of_its_day_and_only_the_switch_does() -> None:
    # One chunk: "The Ender 3 runs Marlin." and "Switched the Ender 3 from Marlin to Klipper.";
    # with a March state before it (a.md), and without one (first said that day).
    said = "Switched the Ender 3 from Marlin to Klipper."
    switch = episode(said, "2025-06-02", type="decision", entities=["Ender 3", "Marlin", "Klipper"])
    day = extraction(
        "b.md", 0, (1, 3), entities=ENDS,
        nodes=[state("The Ender 3 runs Marlin.", "2025-06-02", "Ender 3", "Marlin"), switch],
        relations=[
            rel("Ender 3", "runs", "Marlin", "2025-06-02", statement="The Ender 3 runs Marlin."),
            rel("Ender 3", "runs", "Klipper", "2025-06-02", statement=said),
            rel("Ender 3", "runs", "Marlin", None, invalid_at="2025-06-02", statement=said),
        ],
    )  # fmt: skip
    march = extraction(
        "a.md", 0, (1, 1), entities=ENDS,
        nodes=[state("The Ender 3 ran Marlin.", "2025-03-12", "Ender 3", "Marlin")],
        relations=[rel("Ender 3", "runs", "Marlin", "2025-03-12", statement="The Ender 3 ran Marlin.")],
    )  # fmt: skip
    for items, marlin_from in (([march, day], date(2025, 3, 12)), ([day], date(2025, 6, 2))):
        graph = link([source("a.md"), source("b.md")], items)
        times = {r.to_id: (r.valid_at, r.invalid_at) for r in graph.relations}
        assert times == {"marlin": (marlin_from, date(2025, 6, 2)), "klipper": (date(2025, 6, 2), None)}
        (switched,) = [n for n in graph.nodes if n.type == "decision"]
        marlins = [n for n in graph.nodes if n.type == "state"]
        assert len(marlins) == len(items) and graph.conflicts == ()
        assert all((n.superseded_by, n.valid_to) == ((switched.id,), date(2025, 6, 2)) for n in marlins)


def test_a_state_ends_where_a_later_note_says_it_stopped() -> None:
    # "I work at Acme." in January, "Last day at my job at Acme." in August, no new job named.
    ends = [{"name": "Sam", "entity_type": "person"}, {"name": "Acme", "entity_type": "organization"}]
    graph = link(
        [source("a.md"), source("b.md")],
        [
            extraction("a.md", 0, (1, 1), entities=ends,
                       nodes=[state("I work at Acme.", "2024-01-15", "Sam", "Acme")],
                       relations=[rel("Sam", "works_for", "Acme", "2024-01-15")]),
            extraction("b.md", 0, (1, 1), entities=ends,
                       nodes=[state("Last day at my job at Acme.", "2024-08-30", "Sam", "Acme")],
                       relations=[rel("Sam", "works_for", "Acme", None, invalid_at="2024-08-30")]),
        ],
    )  # fmt: skip
    (relation,) = graph.relations
    assert (relation.valid_at, relation.invalid_at) == (date(2024, 1, 15), date(2024, 8, 30))
    work, last_day = sorted(graph.nodes, key=lambda n: n.title != "I work at Acme.")
    assert (work.valid_to, work.superseded_by) == (date(2024, 8, 30), (last_day.id,))
    assert (last_day.valid_to, last_day.superseded_by) == (None, ())


def test_same_day_rivals_conflict_both_ways_and_go_to_review() -> None:
    ends = [{"name": "Dana"}, {"name": "Oakland"}, {"name": "Berkeley"}]
    graph = link(
        [source("a.md"), source("b.md")],
        [
            extraction(
                "a.md",
                0,
                (1, 1),
                entities=ends,
                nodes=[state("Dana lives in Oakland.", "2025-04-10", "Dana", "Oakland")],
                relations=[rel("Dana", "lives_in", "Oakland", "2025-04-10")],
            ),
            extraction(
                "b.md",
                0,
                (1, 1),
                entities=ends,
                nodes=[state("Dana lives in Berkeley.", "2025-04-10", "Dana", "Berkeley")],
                relations=[rel("Dana", "lives_in", "Berkeley", "2025-04-10")],
            ),
        ],
    )
    first, second = sorted(graph.nodes, key=lambda n: n.id)
    assert first.conflicts_with == (second.id,) and second.conflicts_with == (first.id,)
    assert graph.conflicts == ((first.id, second.id),)
    assert all(r.invalid_at is None for r in graph.relations)  # never auto-resolved


def fact_of(path: str, city: str) -> Any:
    """A note with no date saying Dana lives in `city` (a fact of her page, say)."""
    ends = [{"name": "Dana"}, {"name": city}]
    node = {
        "memory_layer": "semantic",
        "type": "fact",
        "title": f"Dana lives in {city}.",
        "entities": ["Dana", city],
    }
    return extraction(
        path, 0, (1, 1), entities=ends, nodes=[node], relations=[rel("Dana", "lives_in", city, None)]
    )


def with_a_fact_of(city: str) -> Any:
    """Dana's page saying she lives in `city`, at no date, and two dated notes: Berkeley, then Reno."""
    drafts = [
        fact_of("Dana.md", city),
        lives("a.md", "Berkeley", "2025-01-10"),
        lives("b.md", "Reno", "2025-04-10"),
    ]
    return link([source("Dana.md"), source("a.md"), source("b.md")], drafts)


def test_a_value_said_at_no_date_is_a_rival_of_the_current_one_not_superseded_by_it() -> None:
    """Which holds now is not known: the review queue asks, and no relation ends on a guess."""
    graph = with_a_fact_of("Oakland")
    times = {r.to_id: (r.valid_at, r.invalid_at) for r in graph.relations}
    assert times == {
        "oakland": (None, None),
        "berkeley": (date(2025, 1, 10), date(2025, 4, 10)),
        "reno": (date(2025, 4, 10), None),
    }
    by_title = {n.title: n for n in graph.nodes}
    oakland, reno = by_title["Dana lives in Oakland."], by_title["Dana lives in Reno."]
    assert oakland.conflicts_with == (reno.id,) and reno.conflicts_with == (oakland.id,)
    assert by_title["Dana lives in Berkeley."].conflicts_with == ()  # over before Reno: no rival of now
    assert graph.conflicts == (tuple(sorted((oakland.id, reno.id))),)
    assert oakland.superseded_by == ()


def test_a_value_said_at_no_date_and_current_on_one_rivals_nothing() -> None:
    graph = with_a_fact_of("Reno")
    assert graph.conflicts == () and all(n.conflicts_with == () for n in graph.nodes)


def test_many_rivals_of_one_day_are_paired_with_the_first_not_with_each_other() -> None:
    """Found by fuzzing: 400 values of one day gave 79,800 review lines; now the queue grows with them."""
    cities = [f"City {i:02d}" for i in range(12)]
    drafts = [lives(f"{c}.md", c, "2025-04-10") for c in cities]
    graph = link([source(f"{c}.md") for c in cities], drafts)
    assert len(graph.conflicts) == len(cities) - 1
    first = next(n for n in graph.nodes if n.title == "Dana lives in City 00.")
    assert len(first.conflicts_with) == len(cities) - 1
    assert all(len(n.conflicts_with) == 1 for n in graph.nodes if n.id != first.id and not n.derived_from)
    assert all(r.invalid_at is None for r in graph.relations)


def lives(path: str, city: str, when: str) -> Any:
    """A note saying Dana lives in `city` on `when`."""
    ends = [{"name": "Dana"}, {"name": city}]
    title = f"Dana lives in {city}."
    return extraction(
        path,
        0,
        (1, 1),
        entities=ends,
        nodes=[{**state(title, when, "Dana", city), "confidence": "high"}],
        relations=[rel("Dana", "lives_in", city, when)],
    )


def test_a_confirmed_rival_closes_the_relations_of_the_side_that_lost() -> None:
    drafts = [
        lives("early.md", "Oakland", "2025-01-01"),
        lives("a.md", "Oakland", "2025-04-10"),
        lives("b.md", "Berkeley", "2025-04-10"),
    ]
    sources = [source("early.md"), source("a.md"), source("b.md")]
    fix = Corrections((Correction("confirm", ("Dana lives in Berkeley.",), None, 1),))
    graph = link(sources, drafts, corrections=fix)
    times = {r.to_id: (r.valid_at, r.invalid_at) for r in graph.relations}
    assert times == {
        "oakland": (date(2025, 1, 1), date(2025, 4, 10)),
        "berkeley": (date(2025, 4, 10), None),
    }
    berkeley = next(n for n in graph.nodes if n.title == "Dana lives in Berkeley.")
    oaklands = [n for n in graph.nodes if n.title == "Dana lives in Oakland." and not n.derived_from]
    assert len(oaklands) == 2
    assert all(n.superseded_by == (berkeley.id,) and n.valid_to == date(2025, 4, 10) for n in oaklands)
    assert all(n.conflicts_with == () for n in graph.nodes) and graph.conflicts == ()
    # Both episodes superseded: what was consolidated from them is too.
    (consolidated,) = [n for n in graph.nodes if n.derived_from]
    assert consolidated.superseded_by == (berkeley.id,)
    # Without the correction the same notes stay a conflict, and no relation is closed.
    plain = link(sources, drafts)
    assert len(plain.conflicts) == 1 and all(r.invalid_at is None for r in plain.relations)


def test_a_value_only_said_on_the_day_it_lost_ends_that_day() -> None:
    drafts = [lives("a.md", "Oakland", "2025-04-10"), lives("b.md", "Berkeley", "2025-04-10")]
    fix = Corrections((Correction("confirm", ("Dana lives in Oakland.",), None, 1),))
    graph = link([source("a.md"), source("b.md")], drafts, corrections=fix)
    times = {r.to_id: (r.valid_at, r.invalid_at) for r in graph.relations}
    assert times == {"oakland": (date(2025, 4, 10), None), "berkeley": (date(2025, 4, 10), date(2025, 4, 10))}


def said_on(item: Any, when: str) -> Any:
    """The extraction as if its note were dated `when`."""
    return replace(item, chunk=replace(item.chunk, reference_time=date.fromisoformat(when)))


def lived_since(city: str, since: str, said: str) -> Any:
    """A note dated `said`: "Dana lives in `city` since `since`." (a state holding from then on)."""
    ends = [{"name": "Dana"}, {"name": city}]
    node = {**state(f"Dana lives in {city} since {since}.", since, "Dana", city), "valid_from": since}
    item = extraction(
        "a.md", 0, (1, 1), entities=ends, nodes=[node], relations=[rel("Dana", "lives_in", city, since)]
    )
    return said_on(item, said)


def test_a_value_said_while_another_was_stated_to_hold_since_earlier_is_a_conflict() -> None:
    berlin = lived_since("Berlin", "2024-01-10", said="2025-05-01")
    paris = said_on(lives("b.md", "Paris", "2024-06-01"), "2024-06-01")
    graph = link([source("a.md"), source("b.md")], [berlin, paris])
    times = {r.to_id: (r.valid_at, r.invalid_at) for r in graph.relations}
    # Berlin held from January through the note of May 2025; Paris came and went in between.
    assert times == {"berlin": (date(2024, 1, 10), None), "paris": (date(2024, 6, 1), date(2025, 5, 1))}
    first, second = sorted(graph.nodes, key=lambda n: n.id)
    assert graph.conflicts == ((first.id, second.id),)
    assert first.conflicts_with == (second.id,) and second.conflicts_with == (first.id,)
    assert first.superseded_by == second.superseded_by == ()


def test_a_value_said_after_the_note_of_a_since_state_supersedes_it() -> None:
    berlin = lived_since("Berlin", "2024-01-10", said="2024-03-01")
    paris = said_on(lives("b.md", "Paris", "2024-06-01"), "2024-06-01")
    graph = link([source("a.md"), source("b.md")], [berlin, paris])
    times = {r.to_id: (r.valid_at, r.invalid_at) for r in graph.relations}
    assert times == {"berlin": (date(2024, 1, 10), date(2024, 6, 1)), "paris": (date(2024, 6, 1), None)}
    assert graph.conflicts == ()


def test_a_past_run_written_down_later_is_no_stretch_and_no_conflict() -> None:
    marlin, klipper = (said_on(item, "2025-07-01") for item in firmware_history())
    graph = link([source("a.md")], [marlin, klipper])
    assert graph.conflicts == ()
    old = next(r for r in graph.relations if r.to_id == "marlin")
    assert old.invalid_at == date(2025, 6, 2)


def test_versions_of_one_thing_hold_one_value_even_with_a_plain_predicate() -> None:
    ends = [{"name": "Atlas"}, {"name": "Postgres 15"}, {"name": "Postgres 16"}, {"name": "Dagster"}]
    graph = link(
        [source("a.md")],
        [
            extraction(
                "a.md",
                0,
                (1, 1),
                entities=ends,
                relations=[rel("Atlas", "uses", "Postgres 15", "2025-01-01")],
            ),
            extraction(
                "a.md",
                1,
                (2, 2),
                entities=ends,
                relations=[rel("Atlas", "uses", "Postgres 16", "2025-05-01")],
            ),
            extraction(
                "a.md", 2, (3, 3), entities=ends, relations=[rel("Atlas", "uses", "Dagster", "2025-06-01")]
            ),
        ],
    )
    ends_at = {r.to_id: r.invalid_at for r in graph.relations}
    assert ends_at == {"postgres-15": date(2025, 5, 1), "postgres-16": None, "dagster": None}


def test_a_non_functional_predicate_never_supersedes() -> None:
    ends = [{"name": "Atlas"}, {"name": "Dagster"}, {"name": "Postgres"}]
    graph = link(
        [source("a.md")],
        [
            extraction(
                "a.md", 0, (1, 1), entities=ends, relations=[rel("Atlas", "uses", "Dagster", "2025-01-01")]
            ),
            extraction(
                "a.md", 1, (2, 2), entities=ends, relations=[rel("Atlas", "uses", "Postgres", "2025-02-01")]
            ),
        ],
    )
    assert all(r.invalid_at is None for r in graph.relations)


def preference(path: str, when: str, confidence: str = "medium") -> Any:
    return extraction(
        path,
        0,
        (1, 1),
        entities=[{"name": "PETG"}],
        nodes=[episode("I prefer PETG for functional parts.", when, type="state", confidence=confidence)],
    )


def test_an_episode_repeated_in_three_sources_yields_a_semantic_node() -> None:
    paths = ["d/2025-01-14.md", "d/2025-04-05.md", "d/2025-06-24.md"]
    graph = link([source(p) for p in paths], [preference(p, p[2:12]) for p in paths])
    (fact,) = [n for n in graph.nodes if n.memory_layer == "semantic"]
    episodes = sorted(n.id for n in graph.nodes if n.memory_layer == "episodic")
    assert len(episodes) == 3 and fact.derived_from == tuple(episodes)
    assert (fact.type, fact.origin, fact.timestamp) == ("fact", "inferred", date(2025, 1, 14))
    assert len(fact.evidence) == 3 and fact.entities == ("petg",)


def test_two_sources_consolidate_only_when_all_are_high_confidence() -> None:
    paths = ["a.md", "b.md"]
    medium = link(
        [source(p) for p in paths], [preference("a.md", "2025-01-01"), preference("b.md", "2025-02-01")]
    )
    assert [n for n in medium.nodes if n.memory_layer == "semantic"] == []
    high = link(
        [source(p) for p in paths],
        [preference("a.md", "2025-01-01", "high"), preference("b.md", "2025-02-01", "high")],
    )
    assert len([n for n in high.nodes if n.derived_from]) == 1


def test_one_event_told_by_several_sources_is_one_episode_and_no_fact() -> None:
    # A note and a draft telling the same day's switch: one event, bound to its day, not a habit.
    paths = ["a.md", "b.md", "c.md"]
    graph = link([source(p) for p in paths], [preference(p, "2025-03-22", "high") for p in paths])
    (node,) = graph.nodes
    assert node.memory_layer == "episodic" and node.timestamp == date(2025, 3, 22)
    assert sorted(e.path for e in node.evidence) == paths


def test_words_that_say_when_are_events_however_often_they_repeat() -> None:
    # The same switch sentence in two notes of two days: two switches, no habit to consolidate.
    said = "Switched the Voron from Marlin to Klipper today."
    items = [
        extraction(p, 0, (1, 1), nodes=[episode(said, when, type="decision", confidence="high")])
        for p, when in (("a.md", "2025-03-01"), ("b.md", "2025-09-01"))
    ]
    graph = link([source("a.md"), source("b.md")], items)
    assert sorted(n.memory_layer for n in graph.nodes) == ["episodic", "episodic"]
    # A fixed time is part of what is said, wherever it is said: that still repeats.
    since = "Dana lives in Oslo since 2019."
    paths = ["a.md", "b.md", "c.md"]
    items = [
        extraction(p, 0, (1, 1), nodes=[episode(since, f"2024-0{i + 1}-08", type="state")])
        for i, p in enumerate(paths)
    ]
    graph = link([source(p) for p in paths], items)
    (fact_node,) = [n for n in graph.nodes if n.memory_layer == "semantic"]
    assert fact_node.title == since and len(fact_node.derived_from) == 3


@pytest.mark.parametrize(
    "said",
    [
        "Ana is on vacation.",
        "Tom is out sick.",
        "Sam's working from home.",
        "Heron is blocked on legal.",
        "Project Heron is on hold.",
        "The migration is behind schedule.",
    ],
)
def test_a_passing_state_however_often_said_is_nothing_true_in_general(said: str) -> None:
    paths = ["a.md", "b.md", "c.md"]
    items = [
        extraction(p, 0, (1, 1), nodes=[episode(said, f"2024-0{i + 1}-08", type="state", confidence="high")])
        for i, p in enumerate(paths)
    ]
    graph = link([source(p) for p in paths], items)
    assert [n.memory_layer for n in graph.nodes] == ["episodic"] * 3


def test_the_same_source_twice_is_not_a_repeat() -> None:
    items = [
        extraction("a.md", i, (i + 1, i + 1), nodes=[episode("I prefer PETG.", f"2025-0{i + 1}-01")])
        for i in range(3)
    ]
    graph = link([source("a.md")], items)
    assert [n for n in graph.nodes if n.memory_layer == "semantic"] == []


def test_shuffling_the_drafts_gives_the_identical_graph() -> None:
    items = [
        *firmware_history(),
        *(preference(p, "2025-0" + p[1] + "-01") for p in ("d1.md", "d2.md", "d3.md")),
    ]
    sources = [source(p) for p in ("a.md", "d1.md", "d2.md", "d3.md")]
    expected = link(sources, items)
    for seed in range(6):
        shuffled = items[:]
        random.Random(seed).shuffle(shuffled)
        assert link(sources, shuffled) == expected


def test_a_value_that_comes_back_is_current_again() -> None:
    def switch(index: int, when: str, old: str, new: str) -> Any:
        return extraction(
            "a.md",
            index,
            (index * 2 + 1, index * 2 + 2),
            entities=ENDS,
            nodes=[state(f"Switched the Ender 3 from {old} to {new}.", when, "Ender 3", old, new)],
            relations=[
                rel("Ender 3", "runs", new, when),
                rel("Ender 3", "runs", old, None, invalid_at=when),  # "from A": A stopped that day
            ],
        )

    graph = link(
        [source("a.md")],
        [
            firmware_history()[0],
            switch(1, "2025-06-02", "Marlin", "Klipper"),
            switch(2, "2025-09-01", "Klipper", "Marlin"),
        ],
    )
    periods = {r.to_id: (r.valid_at, r.invalid_at) for r in graph.relations}
    assert periods == {
        "marlin": (date(2025, 9, 1), None),
        "klipper": (date(2025, 6, 2), date(2025, 9, 1)),
    }
    by_date = {n.timestamp: n for n in graph.nodes}
    march, june, september = (by_date[date(2025, m, d)] for m, d in ((3, 12), (6, 2), (9, 1)))
    assert march.superseded_by == (june.id,) and march.valid_to == date(2025, 6, 2)
    assert june.superseded_by == (september.id,) and june.valid_to == date(2025, 9, 1)
    assert september.superseded_by == () and september.valid_to is None


def test_a_stated_end_before_the_next_value_wins() -> None:
    items = firmware_history()
    stop = extraction(
        "a.md",
        5,
        (9, 9),
        entities=ENDS,
        relations=[rel("Ender 3", "runs", "Marlin", None, invalid_at="2025-05-01")],
    )
    graph = link([source("a.md")], [*items, stop])
    marlin = next(r for r in graph.relations if r.to_id == "marlin")
    assert (marlin.valid_at, marlin.invalid_at) == (date(2025, 3, 12), date(2025, 5, 1))


def test_a_relation_never_ends_the_day_it_starts() -> None:
    same_day = extraction(
        "a.md",
        0,
        (1, 2),
        entities=ENDS,
        relations=[
            rel("Ender 3", "runs", "Marlin", "2025-03-12"),
            rel("Ender 3", "runs", "Marlin", None, invalid_at="2025-03-12"),
        ],
    )
    (marlin,) = link([source("a.md")], [same_day]).relations
    assert marlin.valid_at == date(2025, 3, 12) and marlin.invalid_at is None


def test_a_machine_runs_services_side_by_side_and_one_system_at_a_time() -> None:
    names = [{"name": n} for n in ("NUC", "Plex", "Pi-hole", "Debian", "Proxmox")]
    said = [
        ("The NUC runs Plex.", "2025-03-01", "Plex"),
        ("The NUC runs Debian.", "2025-03-01", "Debian"),
        ("Installed Pi-hole on the NUC.", "2025-03-04", "Pi-hole"),
        ("Flashed Proxmox on the NUC.", "2025-03-08", "Proxmox"),
    ]
    graph = link(
        [source("a.md")],
        [
            extraction(
                "a.md",
                i,
                (2 * i + 1, 2 * i + 2),
                entities=names,
                nodes=[state(title, when, "NUC", thing)],
                relations=[rel("NUC", "runs", thing, when)],
            )
            for i, (title, when, thing) in enumerate(said)
        ],
    )
    ends = {r.to_id: r.invalid_at for r in graph.relations}
    assert ends == {"plex": None, "pi-hole": None, "debian": date(2025, 3, 8), "proxmox": None}
    assert graph.conflicts == ()  # Plex and Debian, said on one day, are no rivals


def test_an_undated_value_a_dated_note_says_stopped_is_no_rival() -> None:
    names = [{"name": n} for n in ("Voron", "Marlin", "Klipper")]
    graph = link(
        [source("Voron.md"), source("b.md")],
        [
            extraction(
                "Voron.md",
                0,
                (1, 2),
                entities=names,
                nodes=[
                    {
                        **state("The Voron runs Marlin.", "2024-01-01", "Voron", "Marlin"),
                        "memory_layer": "semantic",
                        "type": "fact",
                        "timestamp": None,
                    }
                ],
                relations=[rel("Voron", "runs", "Marlin", None)],
            ),
            extraction(
                "b.md",
                0,
                (1, 2),
                entities=names,
                nodes=[
                    state(
                        "Switched the Voron from Marlin to Klipper.",
                        "2024-09-02",
                        "Voron",
                        "Klipper",
                        "Marlin",
                    )
                ],
                relations=[
                    rel("Voron", "runs", "Klipper", "2024-09-02"),
                    rel("Voron", "runs", "Marlin", None, invalid_at="2024-09-02"),
                ],
            ),
        ],
    )
    assert graph.conflicts == ()
    assert {r.to_id: r.invalid_at for r in graph.relations} == {"klipper": None, "marlin": date(2024, 9, 2)}


def _using(path: str, title: str, when: str, *relations: dict[str, Any]) -> Any:
    ends = [{"name": "Sam", "entity_type": "person"}, {"name": "Vim"}, {"name": "Helix"}]
    names = [r["object"] for r in relations]
    return extraction(path, 0, (1, 1), entities=ends, nodes=[state(title, when, "Sam", *names)],
                      relations=list(relations))  # fmt: skip


def test_a_tool_said_to_stop_ends_the_states_that_used_it_and_a_comeback_holds_again() -> None:
    # "I use Vim." twice, "I switched from Vim to Helix.", "I switched from Helix back to Vim.":
    # one of many tools (no slot), yet each switch ends what the notes said before it.
    graph = link(
        [source(p) for p in ("a.md", "b.md", "c.md", "d.md")],
        [
            _using("a.md", "I use Vim.", "2024-01-08", rel("Sam", "uses", "Vim", "2024-01-08")),
            _using("b.md", "I still use Vim.", "2024-03-01", rel("Sam", "uses", "Vim", "2024-03-01")),
            _using("c.md", "I switched from Vim to Helix.", "2024-06-03",
                   rel("Sam", "uses", "Helix", "2024-06-03"),
                   rel("Sam", "uses", "Vim", None, invalid_at="2024-06-03")),
            _using("d.md", "I switched from Helix back to Vim.", "2024-09-10",
                   rel("Sam", "uses", "Vim", "2024-09-10"),
                   rel("Sam", "uses", "Helix", None, invalid_at="2024-09-10")),
        ],
    )  # fmt: skip
    times = {r.to_id: (r.valid_at, r.invalid_at) for r in graph.relations}
    assert times == {"vim": (date(2024, 9, 10), None), "helix": (date(2024, 6, 3), date(2024, 9, 10))}
    node = {n.title: n for n in graph.nodes}
    to_helix, back = node["I switched from Vim to Helix."], node["I switched from Helix back to Vim."]
    for said in ("I use Vim.", "I still use Vim."):
        assert (node[said].valid_to, node[said].superseded_by) == (date(2024, 6, 3), (to_helix.id,))
    assert to_helix.superseded_by == (back.id,)
    assert (back.valid_to, back.superseded_by) == (None, ())


def test_a_tool_stopped_and_taken_up_again_holds_from_then() -> None:
    graph = link(
        [source(p) for p in ("a.md", "b.md")],
        [
            _using("a.md", "I stopped using Vim.", "2024-01-08",
                   rel("Sam", "uses", "Vim", None, invalid_at="2024-01-08")),
            _using("b.md", "I started using Vim again.", "2024-03-01",
                   rel("Sam", "uses", "Vim", "2024-03-01")),
        ],
    )  # fmt: skip
    ((valid_at, invalid_at),) = [(r.valid_at, r.invalid_at) for r in graph.relations]
    assert (valid_at, invalid_at) == (date(2024, 3, 1), None)
    assert all(n.superseded_by == () for n in graph.nodes)


def test_a_note_of_several_tools_holds_on_while_one_of_them_is_still_used() -> None:
    # "I use Vim and Helix." then "I stopped using Helix.": Vim goes on, so does the note;
    # "I stopped using Vim." later ends it.
    both = _using(
        "a.md",
        "I use Vim and Helix.",
        "2024-01-08",
        rel("Sam", "uses", "Vim", "2024-01-08"),
        rel("Sam", "uses", "Helix", "2024-01-08"),
    )
    helix_stops = _using(
        "b.md",
        "I stopped using Helix.",
        "2024-03-01",
        rel("Sam", "uses", "Helix", None, invalid_at="2024-03-01"),
    )
    vim_stops = _using("c.md", "I stopped using Vim.", "2024-05-01",
                       rel("Sam", "uses", "Vim", None, invalid_at="2024-05-01"))  # fmt: skip
    graph = link([source("a.md"), source("b.md")], [both, helix_stops])
    note = next(n for n in graph.nodes if n.title == "I use Vim and Helix.")
    assert (note.valid_to, note.superseded_by) == (None, ())
    graph = link([source("a.md"), source("b.md"), source("c.md")], [both, helix_stops, vim_stops])
    node = {n.title: n for n in graph.nodes}
    note = node["I use Vim and Helix."]
    stops = tuple(sorted((node["I stopped using Helix."].id, node["I stopped using Vim."].id)))
    assert (note.valid_to, note.superseded_by) == (date(2024, 5, 1), stops)
