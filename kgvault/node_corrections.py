"""The user's corrections of nodes: hide a node, confirm one side of a conflict."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from operator import attrgetter

from kgvault.corrections import Correction, Corrections
from kgvault.names import normalize_name
from kgvault.records import Node, SourceSummary

_BY_LAYER_AND_ID = attrgetter("memory_layer", "id")
_NODE_LINKS = ("superseded_by", "conflicts_with", "derived_from", "causes", "precedes", "related_to")


@dataclass(frozen=True, slots=True)
class Corrected:
    """Nodes, review queue and summaries after the user's node corrections, and what became of each."""

    nodes: tuple[Node, ...]
    conflicts: tuple[tuple[str, str], ...]
    summaries: tuple[SourceSummary, ...]
    outcomes: dict[Correction, str]


def correct_nodes(
    nodes: Sequence[Node],
    conflicts: Sequence[tuple[str, str]],
    summaries: Sequence[SourceSummary],
    corrections: Corrections,
) -> Corrected:
    """Confirm first (the other side becomes superseded), then hide; nothing is ever deleted from sources."""
    if not (corrections.of("confirm") or corrections.of("hide")):
        ordered = tuple(sorted(nodes, key=_BY_LAYER_AND_ID))
        return Corrected(ordered, tuple(conflicts), tuple(summaries), {})
    find = _finder(nodes)
    outcomes: dict[Correction, str] = {}
    by_id = {node.id: node for node in nodes}
    pairs = set(conflicts)
    for correction in corrections.of("confirm"):
        found = find(correction.targets[0])
        if not found:
            outcomes[correction] = f"not found: {correction.targets[0]}"
            continue
        settled = 0
        for winner in found:
            for loser in list(by_id[winner].conflicts_with):
                if loser in found:
                    continue
                _settle(by_id, winner, loser)
                pairs.discard((min(winner, loser), max(winner, loser)))
                settled += 1
        outcomes[correction] = f"won over {settled} conflicting node(s)" if settled else "no conflict left"
    hidden: set[str] = set()
    for correction in corrections.of("hide"):
        found = find(correction.targets[0])
        hidden.update(found)
        outcomes[correction] = f"hid {len(found)} node(s)" if found else f"not found: {correction.targets[0]}"
    kept = tuple(_without(node, hidden) for node in by_id.values() if node.id not in hidden)
    return Corrected(
        nodes=tuple(sorted(kept, key=_BY_LAYER_AND_ID)),
        conflicts=tuple(sorted(p for p in pairs if not hidden.intersection(p))),
        summaries=tuple(
            replace(s, node_ids=tuple(n for n in s.node_ids if n not in hidden))
            if hidden.intersection(s.node_ids)
            else s
            for s in summaries
        ),
        outcomes=outcomes,
    )


def confirmed_nodes(nodes: Iterable[Node], corrections: Corrections) -> frozenset[str]:
    """The ids of the nodes the user confirmed (by id or title)."""
    if not corrections.of("confirm"):
        return frozenset()
    find = _finder(nodes)
    return frozenset(i for correction in corrections.of("confirm") for i in find(correction.targets[0]))


def _finder(nodes: Iterable[Node]) -> Callable[[str], list[str]]:
    """Find nodes by id, else by title (all nodes with that title, in id order)."""
    by_title: dict[str, list[str]] = defaultdict(list)
    ids = set()
    for node in nodes:
        by_title[normalize_name(node.title)].append(node.id)
        ids.add(node.id)

    def find(reference: str) -> list[str]:
        if reference in ids:
            return [reference]
        return sorted(by_title.get(normalize_name(reference), ()))

    return find


def _settle(by_id: dict[str, Node], winner: str, loser: str) -> None:
    """The confirmed node wins a conflict: the other is superseded by it from its date on."""
    won, lost = by_id[winner], by_id[loser]
    since = won.valid_from or won.timestamp
    by_id[winner] = replace(won, conflicts_with=tuple(i for i in won.conflicts_with if i != loser))
    by_id[loser] = replace(
        lost,
        conflicts_with=tuple(i for i in lost.conflicts_with if i != winner),
        superseded_by=tuple(sorted({*lost.superseded_by, winner})),
        valid_to=lost.valid_to or since,
    )


def _without(node: Node, hidden: set[str]) -> Node:
    """The node with its links to hidden nodes dropped, so no page links to a page that is not written."""
    if not hidden:
        return node
    changes: dict[str, object] = {
        name: tuple(i for i in getattr(node, name) if i not in hidden)
        for name in _NODE_LINKS
        if hidden.intersection(getattr(node, name))
    }
    return replace(node, **changes) if changes else node  # type: ignore[arg-type]
