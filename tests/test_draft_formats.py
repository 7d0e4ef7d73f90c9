"""Draft files: kgvault, Mnemon and mini-context-graph drafts read as one kgvault draft, item by item."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from kgvault.drafts import DraftFile, read_draft_data
from kgvault.extract.draft import UNDATED_EPISODE, Draft
from kgvault.extract.from_draft import checked_quotes

FIXTURES = Path(__file__).parent / "fixtures" / "drafts"
CHATGPT_EXPORT = Path(__file__).parent / "fixtures" / "conversations" / "chatgpt" / "conversations.json"
KINDS = ("nodes", "entities", "relations", "links")
DECISION = "Chose Qdrant over Milvus for vector search because filtered query performance was better"
PREFERENCE = "The user prefers concise API responses without extra explanatory text"


def load(name: str) -> Any:
    return json.loads((FIXTURES / name).read_text(encoding="utf-8"))


def read(data: object) -> DraftFile:
    result = read_draft_data(data)
    assert result is not None
    return result


def pointers(draft: Draft, kind: str | None = None) -> list[str | None]:
    return [item.pointer for k in KINDS if kind in (None, k) for item in getattr(draft, k)]


def worked_example() -> dict[str, Any]:
    data: dict[str, Any] = load("memory_draft.json")
    return data


# -- Mnemon: the worked example -----------------------------------------------------------------


def test_worked_example_becomes_two_nodes_and_a_causal_link() -> None:
    result = read(worked_example())
    assert result.format == "mnemon"
    assert result.problems == ()
    assert (result.named_source, result.named_lines) == (None, None)
    decision, preference = result.draft.nodes
    assert (decision.memory_layer, decision.type) == ("episodic", "decision")
    assert decision.timestamp == date(2024, 3, 15)
    assert decision.occurred_at == "2024-03-15T09:30:00"
    assert decision.title == DECISION
    assert decision.body == f"{DECISION}."
    assert (decision.importance, decision.confidence, decision.origin) == (5, "high", "stated")
    assert decision.sensitivity == "private" and decision.attributed_to is None
    assert decision.tags == ["architecture", "search", "vector-db"]
    assert decision.entities == ["Qdrant", "Milvus"]
    # A preference is episodic, but this one has no created_at: no date is invented.
    assert (preference.memory_layer, preference.type) == ("semantic", "fact")
    assert (preference.timestamp, preference.occurred_at) == (None, None)
    assert preference.title == PREFERENCE
    assert (preference.importance, preference.confidence) == (4, "high")
    [link] = result.draft.links
    assert (link.source, link.target, link.kind, link.weight) == (DECISION, PREFERENCE, "causes", 0.7)
    assert link.reason == "The vector engine decision influenced API response design."
    assert [(e.name, e.entity_type) for e in result.draft.entities] == [
        ("Qdrant", "concept"),
        ("Milvus", "concept"),
    ]


def test_worked_example_items_carry_their_pointers() -> None:
    assert pointers(read(worked_example()).draft) == [
        "/insights/0",
        "/insights/1",
        "/insights/0/entities/0",
        "/insights/0/entities/1",
        "/edges/0",
    ]


@pytest.mark.parametrize(
    ("category", "created_at", "layer", "node_type", "origin"),
    [
        ("decision", "2024-03-15T09:30:00Z", "episodic", "decision", "stated"),
        ("preference", "2024-03-15T09:30:00Z", "episodic", "state", "stated"),
        ("context", "2024-03-15T09:30:00Z", "episodic", "state", "stated"),
        ("fact", "2024-03-15T09:30:00Z", "semantic", "fact", "stated"),
        ("general", "2024-03-15T09:30:00Z", "semantic", "fact", "stated"),
        ("insight", "2024-03-15T09:30:00Z", "semantic", "concept", "inferred"),
        (None, "2024-03-15T09:30:00Z", "semantic", "fact", "stated"),
        ("decision", None, "semantic", "fact", "stated"),
        ("context", None, "semantic", "fact", "stated"),
        ("insight", None, "semantic", "concept", "inferred"),
    ],
)
def test_categories_map_to_layers_and_types(
    category: str | None, created_at: str | None, layer: str, node_type: str, origin: str
) -> None:
    insight = {"content": "Something worth keeping.", "category": category, "created_at": created_at}
    [node] = read({"schema_version": "1", "insights": [insight]}).draft.nodes
    assert (node.memory_layer, node.type, node.origin) == (layer, node_type, origin)
    assert node.timestamp == (date(2024, 3, 15) if created_at else None)


@pytest.mark.parametrize(
    ("created_at", "timestamp", "occurred_at"),
    [
        ("2024-03-15T23:30:00-05:00", date(2024, 3, 16), "2024-03-16T04:30:00"),
        ("2024-03-15T00:30:00+02:00", date(2024, 3, 14), "2024-03-14T22:30:00"),
        ("2024-03-15t09:30:00.123456789z", date(2024, 3, 15), "2024-03-15T09:30:00"),
    ],
)
def test_created_at_is_read_in_utc(created_at: str, timestamp: date, occurred_at: str) -> None:
    insight = {"content": "Deployed.", "category": "decision", "created_at": created_at}
    [node] = read({"schema_version": "1", "insights": [insight]}).draft.nodes
    assert (node.timestamp, node.occurred_at) == (timestamp, occurred_at)


@pytest.mark.parametrize(
    ("importance", "confidence"), [(1, "low"), (2, "low"), (3, "medium"), (None, "medium")]
)
def test_importance_sets_confidence_and_defaults_to_three(importance: int | None, confidence: str) -> None:
    insight = {"content": "A fact.", "importance": importance}
    [node] = read({"schema_version": "1", "insights": [insight]}).draft.nodes
    assert (node.importance, node.confidence) == (importance or 3, confidence)


def test_title_is_the_first_sentence_cut_at_a_word() -> None:
    long_sentence = " ".join(["word"] * 60) + "."
    insights = [
        {"content": "Use e.g. Qdrant for search. It filters well."},
        {"content": "First line\nsecond line."},
        {"content": f"{long_sentence} Second sentence."},
        {"content": "Is it fast? Yes."},
    ]
    titles = [node.title for node in read({"schema_version": "1", "insights": insights}).draft.nodes]
    assert titles[:2] == ["Use e.g. Qdrant for search", "First line"]
    assert len(titles[2]) <= 200 and titles[2].endswith("word…")
    assert titles[3] == "Is it fast?"


def test_colliding_titles_are_numbered_and_links_name_the_right_node() -> None:
    data = {
        "schema_version": "1",
        "insights": [
            {"content": "Qdrant is fast. It was measured in March."},
            {"content": "Qdrant is fast. Nobody measured it."},
            {"content": "Qdrant is fast. It was measured in March."},
        ],
        "edges": [
            {"source_index": 0, "target_index": 1, "edge_type": "semantic"},
            {"source_index": 0, "target_index": 2, "edge_type": "semantic"},
        ],
    }
    result = read(data)
    # The third insight is the first one again: the same node, so the same title (kgvault merges them),
    # and a link between the two would join a node to itself.
    assert [n.title for n in result.draft.nodes] == ["Qdrant is fast", "Qdrant is fast (2)", "Qdrant is fast"]
    assert [(link.source, link.target) for link in result.draft.links] == [
        ("Qdrant is fast", "Qdrant is fast (2)")
    ]
    assert result.problems == (("/edges/1", "a link joins two different nodes"),)


def test_entities_are_deduplicated_by_casefold_with_the_first_pointer() -> None:
    data = {
        "schema_version": "1",
        "insights": [
            {"content": "Qdrant is fast.", "entities": ["Qdrant", " qdrant "]},
            {"content": "Qdrant is written in Rust.", "entities": ["QDRANT", "Rust", ""]},
        ],
    }
    result = read(data)
    assert [(e.name, e.pointer) for e in result.draft.entities] == [
        ("Qdrant", "/insights/0/entities/0"),
        ("Rust", "/insights/1/entities/1"),
    ]
    assert [n.entities for n in result.draft.nodes] == [["Qdrant"], ["QDRANT", "Rust"]]


@pytest.mark.parametrize(
    ("edge_type", "kind"),
    [("temporal", "precedes"), ("causal", "causes"), ("semantic", "related_to"), ("entity", "related_to")],
)
def test_edge_types_become_link_kinds_with_a_default_weight(edge_type: str, kind: str) -> None:
    data = worked_example()
    data["edges"] = [{"source_index": 1, "target_index": 0, "edge_type": edge_type}]
    [link] = read(data).draft.links
    assert (link.source, link.target, link.kind, link.weight, link.reason) == (
        PREFERENCE,
        DECISION,
        kind,
        0.5,
        None,
    )


# -- Mnemon: one invalid item, the rest kept ----------------------------------------------------


def with_insight(insight: dict[str, Any]) -> dict[str, Any]:
    """The worked example with `insight` in the middle (the edge still joins the example's two)."""
    data = worked_example()
    data["insights"].insert(1, insight)
    data["edges"][0]["target_index"] = 2
    return data


def assert_only_problem(result: DraftFile, pointer: str, reason: str) -> None:
    assert len(result.problems) == 1, result.problems
    [(where, why)] = result.problems
    assert where == pointer
    assert reason in why


@pytest.mark.parametrize(
    ("insight", "reason"),
    [
        ({"category": "fact"}, "content is missing"),
        ({"content": 42}, "content is not a string"),
        ({"content": "   "}, "content is empty"),
        ({"content": "x" * 8001}, "content is 8001 characters (max 8000)"),
        ({"content": "A.", "category": "opinion"}, "category 'opinion' is not one of preference, decision"),
        ({"content": "A.", "category": ["fact"]}, "category ['fact'] is not one of preference, decision"),
        ({"content": "A.", "importance": 0}, "importance 0 is not an integer from 1 to 5"),
        ({"content": "A.", "importance": 6}, "importance 6 is not an integer from 1 to 5"),
        ({"content": "A.", "importance": "3"}, "importance '3' is not an integer from 1 to 5"),
        ({"content": "A.", "importance": 3.5}, "importance 3.5 is not an integer from 1 to 5"),
        ({"content": "A.", "importance": True}, "importance True is not an integer from 1 to 5"),
        ({"content": "A.", "tags": [f"t{i}" for i in range(21)]}, "tags has 21 items (max 20)"),
        ({"content": "A.", "tags": ["ok", "t" * 101]}, "tags[1] is 101 characters (max 100)"),
        ({"content": "A.", "tags": "ux"}, "tags is not a list"),
        ({"content": "A.", "tags": ["ux", 3]}, "tags[1] is not a string"),
        ({"content": "A.", "entities": [f"E{i}" for i in range(51)]}, "entities has 51 items (max 50)"),
        ({"content": "A.", "entities": ["Qdrant", "E" * 201]}, "entities[1] is 201 characters (max 200)"),
        (
            {"content": "A.", "created_at": "2024-03-15"},
            "created_at '2024-03-15' is not an RFC 3339 timestamp",
        ),
        ({"content": "A.", "created_at": "yesterday"}, "created_at 'yesterday' is not an RFC 3339 timestamp"),
        ({"content": "A.", "created_at": "2024-13-01T00:00:00Z"}, "is not an RFC 3339 timestamp"),
        ({"content": "A.", "created_at": "2024-03-15T09:30:00"}, "is not an RFC 3339 timestamp"),
        (
            {"content": "A.", "created_at": "0001-01-01T00:00:00+01:00"},
            "created_at '0001-01-01T00:00:00+01:00' is out of range: in UTC it falls outside years 1 to 9999",
        ),
        ("an insight", "an insight is an object"),
    ],
)
def test_an_insight_breaking_a_limit_is_left_out_alone(insight: Any, reason: str) -> None:
    result = read(with_insight(insight))
    assert_only_problem(result, "/insights/1", reason)
    assert pointers(result.draft, "nodes") == ["/insights/0", "/insights/2"]
    [link] = result.draft.links
    assert (link.source, link.target, link.pointer) == (DECISION, PREFERENCE, "/edges/0")


def test_limits_at_their_bounds_are_kept() -> None:
    insight = {
        "content": "x" * 8000,
        "importance": 1,
        "tags": ["t" * 100] * 20,
        "entities": [f"{i:0200d}" for i in range(50)],
    }
    result = read(with_insight(insight))
    assert result.problems == ()
    assert len(result.draft.nodes) == 3
    assert len(result.draft.entities) == 52


def test_every_limit_an_insight_breaks_is_named() -> None:
    result = read(with_insight({"content": "", "importance": 9, "category": "x"}))
    [(pointer, reason)] = result.problems
    assert pointer == "/insights/1"
    assert "content is empty" in reason and "category 'x'" in reason and "importance 9" in reason


def test_the_entities_of_an_invalid_insight_are_left_out_with_it() -> None:
    result = read(with_insight({"content": "Uses Weaviate.", "entities": ["Weaviate"], "importance": 0}))
    assert [e.name for e in result.draft.entities] == ["Qdrant", "Milvus"]


@pytest.mark.parametrize(
    ("edge", "reason"),
    [
        (
            {"source_index": 0, "target_index": 5, "edge_type": "causal"},
            "target_index 5 is not an index into insights",
        ),
        ({"source_index": -1, "target_index": 1, "edge_type": "causal"}, "source_index -1 is not an index"),
        (
            {"source_index": "0", "target_index": 1, "edge_type": "causal"},
            "source_index '0' is not an integer",
        ),
        ({"target_index": 1, "edge_type": "causal"}, "source_index is missing"),
        (
            {"source_index": 1, "target_index": 1, "edge_type": "causal"},
            "source_index and target_index are the same",
        ),
        (
            {"source_index": 0, "target_index": 1, "edge_type": "causes"},
            "edge_type 'causes' is not one of temporal",
        ),
        ({"source_index": 0, "target_index": 1}, "edge_type None is not one of temporal"),
        (
            {"source_index": 0, "target_index": 1, "edge_type": ["causal"]},
            "edge_type ['causal'] is not one of",
        ),
        (
            {"source_index": 0, "target_index": 1, "edge_type": "causal", "weight": 1.5},
            "weight 1.5 is not a number",
        ),
        ({"source_index": 0, "target_index": 1, "edge_type": "causal", "weight": -0.1}, "weight -0.1 is not"),
        (
            {"source_index": 0, "target_index": 1, "edge_type": "causal", "weight": "high"},
            "weight 'high' is not",
        ),
        (
            {"source_index": 0, "target_index": 1, "edge_type": "causal", "reason": 3},
            "reason is not a string",
        ),
        ([0, 1], "an edge is an object"),
    ],
)
def test_an_invalid_edge_is_left_out_alone(edge: Any, reason: str) -> None:
    data = worked_example()
    data["edges"].append(edge)
    result = read(data)
    assert_only_problem(result, "/edges/1", reason)
    assert pointers(result.draft, "nodes") == ["/insights/0", "/insights/1"]
    assert pointers(result.draft, "links") == ["/edges/0"]


def test_an_edge_to_an_invalid_insight_is_left_out() -> None:
    data = worked_example()
    data["insights"].append({"content": "Broken.", "importance": 0})
    data["edges"].append({"source_index": 0, "target_index": 2, "edge_type": "temporal"})
    result = read(data)
    assert result.problems[1] == ("/edges/1", "edge end /insights/2 is invalid")
    assert result.problems[0][0] == "/insights/2"
    assert pointers(result.draft, "links") == ["/edges/0"]


def test_empty_insights_and_edges_not_a_list_are_problems() -> None:
    assert read({"schema_version": "1", "insights": []}).problems == (
        ("/insights", "insights is empty: a Mnemon draft holds at least one insight"),
    )
    data = worked_example()
    data["edges"] = {"0": 1}
    result = read(data)
    assert result.problems == (("/edges", "edges is not a list"),)
    assert len(result.draft.nodes) == 2


def test_the_invalid_mnemon_fixture() -> None:
    result = read(load("memory_draft_invalid.json"))
    assert [pointer for pointer, _ in result.problems] == [
        "/insights/1",
        "/insights/3",
        "/insights/4",
        "/edges/1",
        "/edges/2",
        "/edges/3",
        "/edges/4",
        "/edges/5",
    ]
    assert result.problems[3] == ("/edges/1", "edge end /insights/3 is invalid")
    assert pointers(result.draft, "nodes") == ["/insights/0", "/insights/2", "/insights/5"]
    assert pointers(result.draft, "links") == ["/edges/0", "/edges/6"]
    assert [link.kind for link in result.draft.links] == ["causes", "related_to"]


def test_problems_come_in_file_order() -> None:
    example = worked_example()
    data = {
        "edges": [{"source_index": 0, "target_index": 0, "edge_type": "causal"}],
        "schema_version": "1",
        "insights": [*example["insights"], {"content": ""}],
    }
    assert [pointer for pointer, _ in read(data).problems] == ["/edges/0", "/insights/2"]


# -- mini-context-graph -------------------------------------------------------------------------


def test_mini_graph_example_becomes_entities_and_relations() -> None:
    result = read(load("mini_graph.json"))
    assert result.format == "mini-context-graph"
    assert result.problems == ()
    assert [(e.name, e.entity_type, e.pointer) for e in result.draft.entities] == [
        ("system crash", "issue", "/entities/0"),
        ("memory leak", "issue", "/entities/1"),
        ("object", "component", "/entities/2"),
    ]
    assert result.draft.entities[1].supporting_text == "memory leaks occur when objects are not released"
    first, second = result.draft.relations
    assert (first.subject, first.predicate, first.label, first.object) == (
        "memory leak",
        "causes",
        "causes",
        "system crash",
    )
    assert (first.confidence, first.statement, first.pointer) == (
        1.0,
        "System crashes due to memory leaks.",
        "/relations/0",
    )
    assert (second.predicate, second.label, second.confidence, second.pointer) == (
        "contributes_to",
        "contributes to",
        0.9,
        "/relations/1",
    )
    assert second.supporting_text == "Memory leaks occur when objects are not released."
    assert result.draft.nodes == [] and result.draft.links == []


def with_relation(relation: dict[str, Any]) -> dict[str, Any]:
    data: dict[str, Any] = load("mini_graph.json")
    data["relations"].insert(1, relation)
    return data


def mini_relation(source: str, target: str, kind: str = "x", **fields: Any) -> dict[str, Any]:
    return {"source": source, "target": target, "type": kind, **fields}


@pytest.mark.parametrize(
    ("relation", "reason"),
    [
        (mini_relation("object", "system crash", "may cause", confidence=0.5), "confidence 0.5 is below 0.6"),
        (mini_relation("object", "system crash", "may cause"), "confidence is missing"),
        (mini_relation("object", "system crash", confidence="high"), "confidence 'high' is not a number"),
        (mini_relation("object", "system crash", confidence=1.2), "confidence 1.2 is above"),
        (mini_relation("object", "heap", confidence=0.9), "target 'heap' is not among the entities"),
        (mini_relation("heap", "object", confidence=0.9), "source 'heap' is not among the entities"),
        (mini_relation("object", " Object ", confidence=0.9), "source and target are the same entity"),
        ({"target": "object", "type": "is", "confidence": 0.9}, "source is missing"),
        (mini_relation("object", "memory leak", "", confidence=0.9), "type is blank"),
        ("causes", "a relation is an object"),
    ],
)
def test_an_invalid_relation_is_left_out_alone(relation: Any, reason: str) -> None:
    result = read(with_relation(relation))
    assert_only_problem(result, "/relations/1", reason)
    assert pointers(result.draft, "relations") == ["/relations/0", "/relations/2"]
    assert len(result.draft.entities) == 3


@pytest.mark.parametrize(
    ("entity", "reason"),
    [
        ({"name": "", "type": "issue"}, "name is blank"),
        ({"type": "issue"}, "name is missing"),
        ({"name": "heap", "type": ["issue"]}, "type is not a string"),
        ({"name": "x" * 201, "type": "issue"}, "name: String should have at most 200 characters"),
    ],
)
def test_an_invalid_entity_is_left_out_alone(entity: dict[str, Any], reason: str) -> None:
    data: dict[str, Any] = load("mini_graph.json")
    data["entities"].insert(1, entity)
    result = read(data)
    assert_only_problem(result, "/entities/1", reason)
    assert pointers(result.draft, "entities") == ["/entities/0", "/entities/2", "/entities/3"]
    assert len(result.draft.relations) == 2


def test_entity_types_are_snake_cased_and_default_to_concept() -> None:
    entities = [
        {"name": "Marlin", "type": "Software Tool"},
        {"name": "Ender 3"},
        {"name": "Prusa", "type": "3-D printer"},
        {"name": "王小明", "type": "人物"},
        {"name": "Klipper", "type": "part-of / related"},
    ]
    result = read({"entities": entities, "relations": []})
    # A type the format allows but kgvault cannot spell is kept in words: nothing valid is dropped.
    assert [(e.entity_type, e.description) for e in result.draft.entities] == [
        ("software_tool", ""),
        ("concept", ""),
        ("concept", "type: 3-D printer"),
        ("concept", "type: 人物"),
        ("part_of_related", ""),
    ]
    assert result.problems == ()


def test_a_relation_type_that_is_no_predicate_relates_the_two_in_its_own_words() -> None:
    data: dict[str, Any] = load("mini_graph.json")
    data["relations"][1]["type"] = "провоцирует"
    result = read(data)
    assert result.problems == ()
    relation = result.draft.relations[1]
    assert (relation.predicate, relation.label) == ("related_to", "провоцирует")


def test_a_relation_to_an_invalid_entity_is_left_out() -> None:
    data: dict[str, Any] = load("mini_graph.json")
    data["entities"][2]["type"] = ["component"]
    result = read(data)
    assert [pointer for pointer, _ in result.problems] == ["/entities/2", "/relations/1"]
    assert result.problems[1][1] == "source 'object' is not among the entities"
    assert pointers(result.draft, "relations") == ["/relations/0"]


def test_the_invalid_mini_graph_fixture() -> None:
    result = read(load("mini_graph_invalid.json"))
    assert [pointer for pointer, _ in result.problems] == [
        "/entities/1",
        "/relations/1",
        "/relations/2",
        "/relations/3",
        "/relations/4",
    ]
    assert pointers(result.draft) == [
        "/entities/0",
        "/entities/2",
        "/entities/3",
        "/relations/0",
        "/relations/5",
    ]
    assert result.draft.entities[1].entity_type == "software_component"
    assert (result.draft.entities[2].entity_type, result.draft.entities[2].description) == (
        "concept",
        "type: 3d part",
    )


# -- kgvault drafts -----------------------------------------------------------------------------


def test_agent_draft_is_read_with_pointers_and_its_named_note() -> None:
    result = read(load("agent_draft.json"))
    assert result.format == "kgvault.draft/1"
    assert result.problems == ()
    assert (result.named_source, result.named_lines) == ("notes/printer.md", (1, 3))
    assert pointers(result.draft) == [
        "/nodes/0",
        "/nodes/1",
        "/entities/0",
        "/entities/1",
        "/relations/0",
        "/links/0",
    ]
    assert result.draft.episode_name == "Ender 3 heater fault"
    assert result.draft.reference_time == date(2025, 3, 12)
    note = (FIXTURES / "notes" / "printer.md").read_text(encoding="utf-8")
    for kind in KINDS:
        for item in getattr(result.draft, kind):
            quote = getattr(item, "supporting_text", None)
            assert quote is None or quote in note


def test_an_invalid_node_in_the_middle_keeps_the_pointers_of_the_others() -> None:
    data: dict[str, Any] = load("agent_draft.json")
    data["nodes"].insert(1, {"memory_layer": "episodic", "type": "state", "title": "Undated"})
    data["entities"].insert(0, {"name": "Creality", "entity_type": "Company!"})
    result = read(data)
    assert result.problems == (
        (
            "/nodes/1",
            UNDATED_EPISODE,
        ),
        ("/entities/0", "entity_type 'company!' is not snake_case"),
    )
    assert pointers(result.draft, "nodes") == ["/nodes/0", "/nodes/2"]
    assert [n.title for n in result.draft.nodes] == [n["title"] for n in data["nodes"][::2]]
    assert pointers(result.draft, "entities") == ["/entities/1", "/entities/2"]
    assert pointers(result.draft, "relations") == ["/relations/0"]
    assert pointers(result.draft, "links") == ["/links/0"]


def test_a_pointer_written_by_the_agent_is_replaced() -> None:
    data: dict[str, Any] = load("agent_draft.json")
    data["nodes"][1]["pointer"] = "/somewhere/else"
    assert pointers(read(data).draft, "nodes") == ["/nodes/0", "/nodes/1"]


def test_a_field_the_contract_does_not_know_is_ignored_and_said_and_no_item_is_lost() -> None:
    """An agent's own bookkeeping (`run_id`) or a field of a newer contract must not lose items."""
    data: dict[str, Any] = load("agent_draft.json")
    whole = pointers(read(data).draft)
    data["colour"] = "red"
    data["entities"][0]["extra"] = "field"
    data["nodes"][1]["why"] = 1
    result = read(data)
    assert pointers(result.draft) == whole
    assert sorted(result.problems) == [
        ("/colour", "colour is no field of kgvault.draft/1; ignored"),
        ("/entities/0", "extra is no field of an entity; ignored"),
        ("/nodes/1", "why is no field of a node; ignored"),
    ]


def test_a_time_of_day_where_a_day_is_wanted_keeps_the_day_and_the_time() -> None:
    """Agents are told to write ISO UTC times (seed 000): the day is the UTC day, the time occurred_at."""
    data: dict[str, Any] = load("agent_draft.json")
    data["reference_time"] = "2025-03-12T23:30:00-02:00"
    data["nodes"][0]["timestamp"] = "2025-03-12T23:30:00-02:00"
    data["relations"][0]["valid_at"] = "2025-03-12T09:00:00Z"
    draft = read(data).draft
    assert draft.reference_time == date(2025, 3, 13)
    assert (draft.nodes[0].timestamp, draft.nodes[0].occurred_at) == (
        date(2025, 3, 13),
        "2025-03-13T01:30:00",
    )
    assert draft.relations[0].valid_at == date(2025, 3, 12)
    data["relations"][0]["valid_at"] = "last week"
    reasons = [reason for _, reason in read(data).problems]
    assert reasons == ["valid_at: 'last week' is not a date: write YYYY-MM-DD (or an ISO time)"]


@pytest.mark.parametrize("field", ["reference_time", "timestamp", "occurred_at", "valid_at"])
def test_a_time_past_the_calendars_ends_in_utc_is_a_problem_not_a_crash(field: str) -> None:
    data: dict[str, Any] = load("agent_draft.json")
    where = (
        data
        if field == "reference_time"
        else data["relations"][0]
        if field == "valid_at"
        else data["nodes"][0]
    )
    where[field] = "9999-12-31T23:59:59-01:00"
    reasons = [reason for _, reason in read(data).problems]
    assert any("is out of range: in UTC it falls outside years 1 to 9999" in reason for reason in reasons), (
        reasons
    )


def test_an_unreadable_or_too_long_envelope_field_is_repaired_and_no_item_is_lost() -> None:
    data: dict[str, Any] = load("agent_draft.json")
    data["reference_time"] = "last week"
    data["episode_name"] = "Ender 3 heater fault after the Marlin update"
    result = read(data)
    assert result.problems == (
        (
            "/episode_name",
            "episode_name is longer than 30 characters; cut to 'Ender 3 heater fault after the'",
        ),
        (
            "/reference_time",
            "reference_time 'last week' is not a date: write YYYY-MM-DD (or an ISO time); cleared",
        ),
    )
    assert (result.draft.episode_name, result.draft.reference_time) == (
        "Ender 3 heater fault after the",
        None,
    )
    assert pointers(result.draft) == pointers(read(load("agent_draft.json")).draft)


def test_items_not_in_a_list_and_a_generic_episode_name_are_reported() -> None:
    data: dict[str, Any] = load("agent_draft.json")
    data["links"] = {"source": "a"}
    data["episode_name"] = "notes"
    result = read(data)
    assert result.problems == (
        ("/episode_name", "episode_name 'notes' is generic; cleared"),
        ("/links", "links is not a list"),
    )
    assert result.draft.episode_name == ""
    assert len(result.draft.nodes) == 2


def test_a_list_of_drafts_is_merged_with_prefixed_pointers() -> None:
    result = read(load("agent_drafts_invalid.json"))
    assert result.format == "kgvault.draft/1"
    assert result.problems == (
        (
            "/0/nodes/1",
            UNDATED_EPISODE,
        ),
        ("/0/entities/1", "entity_type '3d_part' is not snake_case"),
        ("/0/relations/1", "subject or object is not among the entities"),
        ("/0/relations/2", "confidence: Input should be greater than or equal to 0.6"),
        ("/0/links/1", "source or target is not the title of a node of the draft"),
        ("/1/episode_name", "episode_name is longer than 30 characters; cut to 'An episode name far longer'"),
        ("/2", "not a draft: schema_version is not 'kgvault.draft/1'"),
    )
    assert pointers(result.draft) == [
        "/0/nodes/0",
        "/0/nodes/2",
        "/1/nodes/0",
        "/3/nodes/0",
        "/0/entities/0",
        "/0/entities/2",
        "/0/relations/0",
        "/0/links/0",
    ]
    assert (result.draft.episode_name, result.draft.reference_time) == (
        "Ender 3 heater fault",
        date(2025, 3, 12),
    )
    assert result.draft.source_description == "notes/printer.md lines 1-3"
    assert result.draft.skip_reason is None
    # The drafts naming a note agree on it; the repaired /1 gives no range, so the whole note is read.
    assert (result.named_source, result.named_lines) == ("notes/printer.md", None)


def test_drafts_naming_different_notes_are_each_checked_against_their_own() -> None:
    drafts: list[dict[str, Any]] = [load("agent_draft.json"), load("agent_draft.json")]
    drafts[1]["source_description"] = "notes/other.md lines 4-5"
    drafts[1]["nodes"][1]["supporting_text"] = "words nobody wrote"
    result = read(drafts)
    assert (result.named_source, result.named_lines) == (None, None)
    assert result.named_each == (("/0", "notes/printer.md", (1, 3)), ("/1", "notes/other.md", (4, 5)))
    assert result.problems == () and len(result.draft.nodes) == 4
    printer = (FIXTURES / "notes" / "printer.md").read_text(encoding="utf-8")
    notes = {"notes/printer.md": printer, "notes/other.md": printer}
    draft, dropped = checked_quotes(result, notes.get)
    # The second draft's made-up quote is not in its note: its node goes; the first draft's all hold.
    assert dropped == ["/1/nodes/1: supporting_text not found in the note it names"]
    assert [n.pointer for n in draft.nodes] == ["/0/nodes/0", "/0/nodes/1", "/1/nodes/0"]


def test_a_list_with_nothing_kept_keeps_the_skip_reason() -> None:
    draft = {"schema_version": "kgvault.draft/1", "skip_reason": "small talk"}
    result = read([draft, dict(draft)])
    assert result.draft.skip_reason == "small talk"
    assert result.problems == ()


@pytest.mark.parametrize(
    ("fields", "named_source", "named_lines"),
    [
        ({"source_description": "printing/journal.md lines 12-14"}, "printing/journal.md", (12, 14)),
        ({"source_description": "printing/journal.md, line 7"}, "printing/journal.md", (7, 7)),
        ({"source_description": "notes/Meeting notes.md (lines 3–9)"}, "notes/Meeting notes.md", (3, 9)),
        ({"source_description": "journal.md"}, "journal.md", None),
        ({"source_description": "Ender 3 heater fault"}, None, None),
        ({"source_description": "Marlin 2.1.3"}, None, None),
        ({"source_description": "lines 12-14"}, None, (12, 14)),
        ({"source_description": "printing/journal.md lines 14-12"}, "printing/journal.md", None),
        ({"source": "a/b.md", "source_description": "Heater fault lines 2-3"}, "a/b.md", (2, 3)),
        ({}, None, None),
    ],
)
def test_named_source_and_lines(
    fields: dict[str, str], named_source: str | None, named_lines: tuple[int, int] | None
) -> None:
    result = read({"schema_version": "kgvault.draft/1", **fields})
    assert result.problems == ()
    assert (result.named_source, result.named_lines) == (named_source, named_lines)


# -- detection and determinism ------------------------------------------------------------------


@pytest.mark.parametrize(
    "data",
    [
        json.loads(CHATGPT_EXPORT.read_text(encoding="utf-8")),
        {},
        [],
        {"a": 1},
        "a string",
        None,
        [{"a": 1}],
        {"schema_version": "2", "insights": []},
        {"schema_version": "1"},
        {"entities": "x"},
        {"entities": [], "relations": []},
        {"entities": [{"name": "Marlin", "entity_type": "software"}]},
        {
            "entities": [{"name": "a", "type": "t"}],
            "relations": [{"subject": "a", "predicate": "p", "object": "b"}],
        },
    ],
)
def test_other_json_is_no_draft(data: object) -> None:
    assert read_draft_data(data) is None


def test_detection() -> None:
    assert read({"entities": [{"name": "a", "type": "t"}]}).format == "mini-context-graph"
    assert read({"relations": [{"source": "a", "target": "b", "type": "t"}]}).format == "mini-context-graph"
    assert read({"schema_version": "1", "insights": []}).format == "mnemon"
    assert read([{"schema_version": "kgvault.draft/1"}]).format == "kgvault.draft/1"


def test_reading_leaves_the_data_untouched() -> None:
    for name in ("memory_draft_invalid.json", "mini_graph_invalid.json", "agent_drafts_invalid.json"):
        data = load(name)
        before = copy.deepcopy(data)
        read(data)
        assert data == before


def dump(result: DraftFile) -> str:
    return json.dumps(
        [
            result.format,
            result.draft.model_dump(mode="json"),
            result.problems,
            result.named_source,
            result.named_lines,
        ]
    )


_DUMP_SCRIPT = """
import json, sys
from pathlib import Path
from kgvault.drafts import read_draft_data
for path in sys.argv[1:]:
    r = read_draft_data(json.loads(Path(path).read_text(encoding="utf-8")))
    print(json.dumps([r.format, r.draft.model_dump(mode="json"), r.problems, r.named_source, r.named_lines]))
"""


def test_reading_is_deterministic_across_runs_and_hash_seeds() -> None:
    names = sorted(p.name for p in FIXTURES.glob("*.json"))
    expected = "".join(dump(read(load(name))) + "\n" for name in names)
    assert expected == "".join(dump(read(load(name))) + "\n" for name in names)
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        paths = [str(FIXTURES / name) for name in names]
        output = subprocess.run(
            [sys.executable, "-c", _DUMP_SCRIPT, *paths], capture_output=True, text=True, check=True, env=env
        ).stdout
        assert output == expected


@pytest.mark.parametrize(
    ("given", "kept"),
    [
        ("2025-03-12T10:15:00", "2025-03-12T10:15:00"),
        ("2025-03-12T10:15:00+01:00", "2025-03-12T09:15:00"),  # read in UTC, as Mnemon's created_at
        ("2025-03-12T10:15:00Z", "2025-03-12T10:15:00"),
        ("2025-03-12", None),  # a date alone is no time of day
    ],
)
def test_a_draft_node_s_occurred_at_is_written_as_the_vault_writes_times(
    given: str, kept: str | None
) -> None:
    data: dict[str, Any] = load("agent_draft.json")
    data["nodes"][0]["occurred_at"] = given
    result = read(data)
    assert result.problems == ()
    assert result.draft.nodes[0].occurred_at == kept


def test_a_draft_node_with_an_unreadable_occurred_at_is_left_out_with_what_to_write() -> None:
    data: dict[str, Any] = load("agent_draft.json")
    data["nodes"][0]["occurred_at"] = "around noon"
    problems = read(data).problems
    assert problems[0] == ("/nodes/0", "occurred_at 'around noon' is not a time (YYYY-MM-DDTHH:MM:SS)")
    assert problems[1:] == (("/links/0", "source or target is not the title of a node of the draft"),)
