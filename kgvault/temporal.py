"""Pass 2, time: later values of a functional relation supersede earlier ones; same-day rivals conflict."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import date

from kgvault.extract.patterns import FUNCTIONAL_PREDICATES
from kgvault.records import Node, Relation

# "Postgres 15" and "Postgres 16" are versions of one thing: only one is current, whatever the predicate.
_VERSION = re.compile(r"^(?P<base>.*?\S)\s+v?\d+(?:\.\d+)*$", re.IGNORECASE)

RelationKey = tuple[str, str, str]


def version_base(title: str) -> str | None:
    """The name without a trailing version number (`Postgres 15` → `postgres`), or None."""
    match = _VERSION.match(title)
    return match.group("base").casefold() if match else None


def _slot(
    relation: Relation, titles: Mapping[str, str], functional: frozenset[str]
) -> tuple[str, ...] | None:
    """What holds one value at a time: (subject, predicate), or (subject, predicate, thing) for versions."""
    if relation.relation in functional:
        return (relation.from_id, relation.relation)
    base = version_base(titles.get(relation.to_id, ""))
    return (relation.from_id, relation.relation, base) if base else None


def apply_time(
    nodes: Sequence[Node],
    relations: Sequence[Relation],
    entity_titles: Mapping[str, str],
    *,
    functional: frozenset[str] = FUNCTIONAL_PREDICATES,
) -> tuple[tuple[Node, ...], tuple[Relation, ...], tuple[tuple[str, str], ...]]:
    """Close superseded relations, link superseded and conflicting nodes; never delete, never resolve.

    Returns the updated nodes and relations and the conflicting node pairs (for the review queue).
    """
    slots: dict[tuple[str, ...], list[Relation]] = defaultdict(list)
    for relation in relations:
        slot = _slot(relation, entity_titles, functional)
        if slot is not None and relation.valid_at is not None:
            slots[slot].append(relation)

    invalid_at: dict[RelationKey, date] = {}
    superseded: list[tuple[Relation, Relation]] = []
    rivals: list[tuple[Relation, Relation]] = []
    for members in slots.values():
        members.sort(key=lambda r: (r.valid_at or date.min, r.to_id))
        for index, older in enumerate(members):
            assert older.valid_at is not None
            later = [r for r in members[index + 1 :] if r.to_id != older.to_id]
            successor = next((r for r in later if r.valid_at and r.valid_at > older.valid_at), None)
            if successor is not None:
                superseded.append((older, successor))
                if older.invalid_at is None:
                    invalid_at[_key(older)] = successor.valid_at  # type: ignore[assignment]
            rivals.extend((older, r) for r in later if r.valid_at == older.valid_at)

    asserting = _asserting_nodes(nodes, [r for pair in superseded + rivals for r in pair])
    superseded_by: dict[str, set[str]] = defaultdict(set)
    valid_to: dict[str, date] = {}
    for older, successor in superseded:
        for node_id in asserting.get(_key(older), ()):
            later_nodes = asserting.get(_key(successor), set()) - {node_id}
            superseded_by[node_id].update(later_nodes)
            if later_nodes and successor.valid_at:
                valid_to[node_id] = min(valid_to.get(node_id, successor.valid_at), successor.valid_at)
    conflicts: dict[str, set[str]] = defaultdict(set)
    pairs: set[tuple[str, str]] = set()
    for first, second in rivals:
        for a in asserting.get(_key(first), ()):
            for b in asserting.get(_key(second), ()):
                if a != b:
                    conflicts[a].add(b)
                    conflicts[b].add(a)
                    pairs.add((min(a, b), max(a, b)))

    new_nodes = tuple(
        replace(
            node,
            superseded_by=tuple(sorted({*node.superseded_by, *superseded_by.get(node.id, ())})),
            conflicts_with=tuple(sorted({*node.conflicts_with, *conflicts.get(node.id, ())})),
            valid_to=valid_to.get(node.id, node.valid_to) if node.type == "state" else node.valid_to,
        )
        if node.id in superseded_by or node.id in conflicts
        else node
        for node in nodes
    )
    new_relations = tuple(
        replace(r, invalid_at=invalid_at[_key(r)]) if _key(r) in invalid_at else r for r in relations
    )
    return new_nodes, new_relations, tuple(sorted(pairs))


def _key(relation: Relation) -> RelationKey:
    return (relation.from_id, relation.relation, relation.to_id)


def _asserting_nodes(nodes: Sequence[Node], relations: Sequence[Relation]) -> dict[RelationKey, set[str]]:
    """Nodes that state a relation: they name both ends and come from the same lines."""
    wanted = {_key(r): set(r.evidence) for r in relations}
    by_entity: dict[str, list[Node]] = defaultdict(list)
    for node in nodes:
        if not node.derived_from:  # a consolidated node restates its episodes; they carry the dates
            for entity_id in node.entities:
                by_entity[entity_id].append(node)
    found: dict[RelationKey, set[str]] = defaultdict(set)
    for key, evidence in wanted.items():
        start, _, end = key
        for node in by_entity.get(start, ()):
            if end in node.entities and evidence.intersection(node.evidence):
                found[key].add(node.id)
    return found
