"""Pass 2's node groups: the drafts' nodes merged by proposition, whole or from the changed drafts."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from kgvault.extract import Extraction
from kgvault.extract.draft import DraftNode
from kgvault.provenance import evidence_order
from kgvault.records import Evidence
from kgvault.tags import TaggedNode

NodeKey = tuple[str, str, str]
"""(memory layer, normalized title, date of an episode): the same key is the same node."""
ChunkRef = tuple[str, int]
"""(source path, chunk index): one chunk of the corpus."""


class Reading(Protocol):
    """What grouping needs of a draft read with the corpus's entities (`link._Reading`)."""

    @property
    def nodes(self) -> list[tuple[NodeKey, Evidence, DraftNode, set[str]]]: ...

    @property
    def named(self) -> dict[str, str | None]: ...


@dataclass
class NodeGroup:
    """Every draft node of one proposition, with the entity keys they name or mention."""

    items: list[tuple[Evidence, DraftNode]] = field(default_factory=list)
    entity_keys: set[str] = field(default_factory=set)
    _tags: tuple[str, ...] | None = None
    _first: tuple[Evidence, DraftNode] | None = None
    _tagged: TaggedNode | None = None

    def add(self, evidence: Evidence, node: DraftNode, entity_keys: set[str]) -> None:
        """One more draft node of the proposition, with the entity keys it names or mentions."""
        self.items.append((evidence, node))
        self.entity_keys.update(entity_keys)

    def tags(self) -> tuple[str, ...]:
        """Every tag any of the merged drafts gave, sorted; asked only once the group is complete."""
        if self._tags is None:
            if len(self.items) == 1:  # most propositions are said once: no union to make
                tags = self.items[0][1].tags
                self._tags = tuple(tags) if len(tags) < 2 else tuple(sorted(set(tags)))
            else:
                self._tags = tuple(sorted(set().union(*(node.tags for _, node in self.items))))
        return self._tags

    def first(self) -> tuple[Evidence, DraftNode]:
        """The earliest item (see `first_item`); asked for the id, the node and consolidation, found once."""
        if self._first is None:
            self._first = first_item(self.items)
        return self._first

    def paths(self) -> tuple[str, ...]:
        """The source files the merged drafts come from, sorted."""
        if len(self.items) == 1:
            return (self.items[0][0].path,)
        return tuple(sorted({evidence.path for evidence, _ in self.items}))

    def tagged(self) -> TaggedNode:
        """What the tag tree reads of the node (a group kept between passes is read once)."""
        if self._tagged is None:
            self._tagged = TaggedNode(self.paths(), self.tags())
        return self._tagged


def first_item(items: list[tuple[Evidence, DraftNode]]) -> tuple[Evidence, DraftNode]:
    """The earliest item by provenance: what a merged node shows as its title and body."""
    if len(items) == 1:
        return items[0]
    # Path, line and title decide; the rest only breaks what would otherwise be a tie.
    return min(
        items,
        key=lambda item: (
            item[0].path,
            item[0].line_start,
            item[1].title,
            evidence_order(item[0]),
            item[1].body,
        ),
    )


@dataclass(frozen=True)
class Grouped:
    """The corpus's node groups, and what changed since the last pass when groups were kept."""

    groups: dict[NodeKey, NodeGroup]
    chunk_keys: dict[ChunkRef, list[NodeKey]]
    """Per chunk, the keys of its nodes, in the draft's order."""
    owner: Mapping[NodeKey, ChunkRef]
    """Per key, the first chunk in the notes' order that states it: where its node is new."""
    by_path: dict[str, list[tuple[Extraction, Reading]]]
    """Per source, its drafts and their readings, in the order given."""
    refs: Mapping[NodeKey, list[ChunkRef]]
    """Per key, the chunks stating it, in the notes' order."""
    episodes: Mapping[str, list[NodeKey]]
    """Per normalized title, the keys of its episodes (one per date), sorted."""
    changed_paths: frozenset[str] | None = None
    """Sources whose drafts changed, with those where a node became or stopped being new; None: all."""
    touched: frozenset[NodeKey] | None = None
    """The keys regrouped since the last pass (some now gone); None: all."""


def collect_nodes(extractions: Sequence[Extraction], readings: Sequence[Reading]) -> Grouped:
    """Merge duplicate nodes across chunks, keeping every piece of provenance."""
    groups: dict[NodeKey, NodeGroup] = {}
    chunk_keys: dict[ChunkRef, list[NodeKey]] = {}
    by_path: dict[str, list[tuple[Extraction, Reading]]] = defaultdict(list)
    for extraction, reading in zip(extractions, readings, strict=True):
        keys = []
        for key, evidence, node, entity_keys in reading.nodes:
            group = groups.get(key)
            if group is None:  # most propositions are said once: made whole, with nothing to add
                groups[key] = NodeGroup([(evidence, node)], set(entity_keys))
            else:
                group.add(evidence, node, entity_keys)
            keys.append(key)
        chunk = extraction.chunk
        chunk_keys[(chunk.source_path, chunk.index)] = keys
        by_path[chunk.source_path].append((extraction, reading))
    refs: dict[NodeKey, list[ChunkRef]] = defaultdict(list)
    for ref in sorted(chunk_keys):
        for key in chunk_keys[ref]:
            held = refs[key]
            if not held or held[-1] != ref:
                held.append(ref)
    owner = {key: held[0] for key, held in refs.items()}
    episodes: dict[str, list[NodeKey]] = defaultdict(list)
    for key in groups:
        if key[0] == "episodic":
            episodes[key[1]].append(key)
    for keys in episodes.values():
        if len(keys) > 1:  # most episodes are told on one date: only a title's dates need sorting
            keys.sort()
    return Grouped(groups, chunk_keys, owner, dict(by_path), dict(refs), dict(episodes))


class KeptGroups:
    """Node groups kept between passes: a pass regroups only the propositions its changed drafts state.

    A draft is unchanged when its reading is the very object of the last pass (`LinkMemory.readings`
    hands one back while it holds). What a pass groups is kept only once the pass `settle`s.
    """

    def __init__(self) -> None:
        self._entries: dict[ChunkRef, tuple[Extraction, Reading]] = {}
        self._last: Grouped | None = None
        self._pending: tuple[dict[ChunkRef, tuple[Extraction, Reading]], Grouped | None] | None = None

    def update(self, extractions: Sequence[Extraction], readings: Sequence[Reading]) -> Grouped:
        """The groups of these drafts: the last pass's, regrouped where a draft changed, came or went."""
        self._pending = None
        entries: dict[ChunkRef, tuple[Extraction, Reading]] = {}
        by_path: dict[str, list[tuple[Extraction, Reading]]] = defaultdict(list)
        kept, last = self._entries, self._last
        changed: list[ChunkRef] = []
        for extraction, reading in zip(extractions, readings, strict=True):
            chunk = extraction.chunk
            ref = (chunk.source_path, chunk.index)
            entries[ref] = (extraction, reading)
            by_path[ref[0]].append((extraction, reading))
            before = kept.get(ref)
            if before is None or before[1] is not reading:
                changed.append(ref)
        if len(entries) != len(extractions):
            # Two drafts of one chunk (not what a build makes): grouped whole, and not kept to regroup.
            self._pending = ({}, None)
            return collect_nodes(extractions, readings)
        if last is None:
            grouped = collect_nodes(extractions, readings)
        else:
            grouped = self._regroup(entries, dict(by_path), changed, last)
        self._pending = (entries, grouped)
        return grouped

    def settle(self) -> object:
        """Keep what the pass grouped (its graph was made); returns what was kept before."""
        dropped = (self._entries, self._last)
        if self._pending is not None:
            self._entries, self._last = self._pending
            self._pending = None
        return dropped

    def _regroup(
        self,
        entries: dict[ChunkRef, tuple[Extraction, Reading]],
        by_path: dict[str, list[tuple[Extraction, Reading]]],
        changed: list[ChunkRef],
        last: Grouped,
    ) -> Grouped:
        kept = self._entries
        gone = kept.keys() - entries.keys()
        moved = {*changed, *gone}
        touched: set[NodeKey] = set()
        holding: dict[NodeKey, list[ChunkRef]] = defaultdict(list)
        chunk_keys = dict(last.chunk_keys)
        for ref in gone:
            touched.update(key for key, *_ in kept[ref][1].nodes)
            del chunk_keys[ref]
        for ref in changed:
            before = kept.get(ref)
            if before is not None:
                touched.update(key for key, *_ in before[1].nodes)
            keys = [key for key, *_ in entries[ref][1].nodes]
            chunk_keys[ref] = keys
            for key in dict.fromkeys(keys):
                holding[key].append(ref)
            touched.update(keys)
        groups, refs, owner = dict(last.groups), dict(last.refs), dict(last.owner)
        changed_paths = {ref[0] for ref in moved}
        for key in sorted(touched):  # new keys join the groups in one order, whatever the hash seed
            held = sorted({*(ref for ref in refs.get(key, ()) if ref not in moved), *holding.get(key, ())})
            before_owner = owner.get(key)
            if held:
                refs[key], owner[key] = held, held[0]
                groups[key] = _group_of(key, held, entries)
            else:
                del refs[key], owner[key], groups[key]
            if owner.get(key) != before_owner:
                # The chunk where the node is new moved: both sources' coverage counts change.
                changed_paths.update(ref[0] for ref in (before_owner, owner.get(key)) if ref is not None)
        episodes = dict(last.episodes)
        # Per title, its episodes touched: one pass over them, not one per title.
        touched_episodes: dict[str, list[NodeKey]] = defaultdict(list)
        for key in touched:
            if key[0] == "episodic":
                touched_episodes[key[1]].append(key)
        for title, keys in touched_episodes.items():
            said = {*episodes.get(title, ()), *keys}
            still = sorted(key for key in said if key[0] == "episodic" and key in groups)
            if still:
                episodes[title] = still
            else:
                episodes.pop(title, None)
        return Grouped(
            groups, chunk_keys, owner, by_path, refs, episodes, frozenset(changed_paths), frozenset(touched)
        )


def _group_of(
    key: NodeKey, refs: Sequence[ChunkRef], entries: Mapping[ChunkRef, tuple[Extraction, Reading]]
) -> NodeGroup:
    """One key's group made anew from the chunks stating it, in the notes' order."""
    group = NodeGroup()
    for ref in refs:
        for node_key, evidence, node, entity_keys in entries[ref][1].nodes:
            if node_key == key:
                group.add(evidence, node, entity_keys)
    return group
