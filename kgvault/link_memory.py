"""What pass 2 keeps between rebuilds of one vault: each draft's share of the work, reused while unchanged."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any, Generic, TypeVar

from kgvault.extract import Extraction
from kgvault.link_groups import KeptGroups
from kgvault.names import node_slug
from kgvault.records import Node, Relation
from kgvault.resolve import HOMONYM_SEPARATOR
from kgvault.tags import TaggedNode, TagTree
from kgvault.temporal import retimed, timed_relation

T = TypeVar("T")
K = TypeVar("K")
V = TypeVar("V")
R = TypeVar("R")


class _Kept(Generic[K, V]):
    """Values a pass made, kept for the next one; what a pass does not ask for is then forgotten."""

    def __init__(self) -> None:
        self._last: dict[K, V] = {}
        self._now: dict[K, V] = {}

    def begin(self) -> None:
        """Start a pass: what a pass that failed made is not kept (it was checked against nothing since)."""
        self._now = {}

    def settle(self) -> dict[K, V]:
        """End a pass: keep what it used; returns what the pass before kept (see `LinkMemory.release`)."""
        dropped = self._last
        self._last, self._now = self._now, {}
        return dropped


class PerDraft(_Kept[int, tuple[Extraction, T]]):
    """Results made from one draft alone, kept for the next pass 2 while the draft is the very same object.

    A rebuild hands pass 2 the same `Extraction` objects for every unchanged note (watch keeps them
    decoded), so identity says "unchanged" for free.
    """

    def get(self, extraction: Extraction, make: Callable[[Extraction], T]) -> T:
        """The result for this draft: last pass's when the draft is the same object, else `make`'s."""
        key = id(extraction)
        # The entry holds the draft itself, so its id cannot be reused by another object meanwhile.
        found = self._last.get(key)
        if found is None or found[0] is not extraction:
            found = (extraction, make(extraction))
        self._now[key] = found
        return found[1]

    def drop(self, stale: Callable[[T], bool]) -> None:
        """Forget the kept results that no longer hold."""
        self._last = {key: entry for key, entry in self._last.items() if not stale(entry[1])}


class ByInputs(_Kept[Hashable, tuple[object, V]]):
    """Values made from inputs, kept for the next pass: equal inputs under the same key give last pass's."""

    def get(self, key: Hashable, inputs: object, make: Callable[[], V]) -> V:
        """Last pass's value for `key` when it was made from inputs equal to these, else `make()`."""
        last = self._last.get(key)
        # Kept records and drafts are the very objects of last pass: equal inputs compare by identity first.
        value = last[1] if last is not None and last[0] == inputs else make()
        self._now[key] = (inputs, value)
        return value


class Retimed(_Kept[str, tuple[Node, tuple[str, ...], tuple[str, ...], date | None, Node]]):
    """Nodes time gave successors, rivals or an end; kept while made from the same node and the same ones."""

    def remade(
        self,
        node: Node,
        superseded_by: tuple[str, ...],
        conflicts_with: tuple[str, ...],
        valid_to: date | None,
    ) -> Node:
        """Last pass's node when made from this very node with these links and end, else a new one."""
        last = self._last.get(node.id)
        if last is not None and last[0] is node and last[1:4] == (superseded_by, conflicts_with, valid_to):
            made = last[4]
        else:
            made = retimed(node, superseded_by, conflicts_with, valid_to)
        self._now[node.id] = (node, superseded_by, conflicts_with, valid_to, made)
        return made


class TimedRelations(_Kept[tuple[str, str, str], tuple[Relation, date | None, date | None, Relation]]):
    """Relations time gave a start or an end; kept while made from the same relation and the same dates."""

    def remade(self, relation: Relation, valid_at: date | None, invalid_at: date | None) -> Relation:
        """Last pass's relation when made from this very relation with these dates, else a new one."""
        key = (relation.from_id, relation.relation, relation.to_id)
        last = self._last.get(key)
        if last is not None and last[0] is relation and last[1:3] == (valid_at, invalid_at):
            made = last[3]
        else:
            made = timed_relation(relation, valid_at, invalid_at)
        self._now[key] = (relation, valid_at, invalid_at, made)
        return made


class TitleSlugs(_Kept[str, str]):
    """Node titles' slugs, each made once and kept while passes still ask for it."""

    def slug(self, title: str) -> str:
        """The node id a title asks for (`names.node_slug`)."""
        slug = self._now.get(title)
        if slug is None:
            slug = self._last.get(title) or node_slug(title)
            self._now[title] = slug
        return slug


@dataclass
class PassMade:
    """What one pass 2 made that the next one compares with, to reuse what nothing changed."""

    node_ids: Mapping[Any, str] = field(default_factory=dict)
    entity_ids: Mapping[str, str] = field(default_factory=dict)
    canonical: Mapping[str, str] = field(default_factory=dict)
    """The tag tree's canonical path of every tag."""
    tagged: list[TaggedNode] = field(default_factory=list)
    tree: TagTree | None = None
    hints: Mapping[str, str] = field(default_factory=dict)
    """What the tag tree was built from (each node's files and tags, the model's hints) and the tree."""
    nodes: dict[Any, tuple[object, str, tuple[str, ...], Any]] = field(default_factory=dict)
    """Per node key, the group its node was made from, the node's id and tags, and the node (before time)."""
    summaries: dict[str, Any] = field(default_factory=dict)
    """Per source path, its summary (before corrections)."""
    node_keys: dict[Any, str] = field(default_factory=dict)
    node_wanted: dict[str, str] = field(default_factory=dict)
    node_rank: dict[str, int] = field(default_factory=dict)
    """Per node key its page key, and per page key the id and rank it asks for."""
    ids: Any = None
    """Every page key's id, with what they were made from (`names.UniqueIds`)."""
    repeated: dict[str, Any] = field(default_factory=dict)
    """Per title repeated across sources, its episodes' keys."""
    resolved: Any = None
    """The entities resolved (`resolve.Resolved`)."""
    named: Any = None
    """Per entity key, the lines of the nodes naming it, counted (`link._NamedCounts`)."""
    merged: Any = None
    """The relations merged from the readings' statements (`link._MergedRelations`)."""
    settled: bool = False
    """The pass finished: its graph was made from these."""


class LinkMemory:
    """Pass 2's memory between rebuilds: drafts' mentions and readings, and what was made from equal inputs.

    A reading (a draft's nodes, entity keys and relations once its names are resolved) depends on the
    rest of the corpus only through which entity each name it uses means, and through names new to
    the corpus that its texts might contain. Each pass compares every known name's entity key (and
    the homonym splits) with the last pass's and drops only the readings those changes touch. The
    node groups are regrouped where drafts changed (`groups`), and what the last pass made from
    them — ids wanted, repeats, merged nodes, summaries — is kept in `last` and redone for what
    changed only; so are the merged relations, while the entities keep their ids. Coverage rows,
    entities, consolidated nodes and title slugs are reused when made from equal inputs, and
    records equal to last pass's are handed back as last pass's objects (`as_before`). Resolution
    is patched while the drafts name names it knows alike (`resolve.Resolved`), else made again
    reusing each name root's groups its mentions did not change, and ids are redone only in the
    families where keys changed (`names.UniqueIds`). The tag tree is last pass's while the nodes
    carry the same tags from the same files; time is done again each time, though a node or a
    relation time gives the same as last pass is last pass's object (`Retimed`, `TimedRelations`).
    """

    def __init__(self) -> None:
        self.mentions: PerDraft[Any] = PerDraft()
        self.readings: PerDraft[Any] = PerDraft()
        self.known: Mapping[str, str] = {}
        self.split: Mapping[str, object] = {}
        self.nodes: ByInputs[Any] = ByInputs()
        """Merged nodes, per node key, from their id, entities, tags and drafts."""
        self.rows: ByInputs[Any] = ByInputs()
        """Coverage rows, per chunk, from its draft and counts."""
        self.entities: ByInputs[Any] = ByInputs()
        """Entities, per key, from their id and their group of mentions."""
        self.derived: ByInputs[Any] = ByInputs()
        """Consolidated nodes, per title, from their id, episodes and tags."""
        self.title_slugs = TitleSlugs()
        self.retimed = Retimed()
        """Nodes time superseded or set in conflict, per id, from the node and what time gave it."""
        self.timed = TimedRelations()
        """Relations time gave a start or an end, per triple, from the relation and its dates."""
        self.records: dict[str, dict[Hashable, Any]] = {}
        """Per kind, last pass's records by key (see `as_before`)."""
        self.groups = KeptGroups()
        """The node groups, regrouped where drafts changed."""
        self.last = PassMade()
        """What the last finished pass made."""
        self.made = PassMade()
        """What this pass has made so far."""
        self.dropped: list[object] = []
        """What the last pass replaced, until `release`."""

    def as_before(self, kind: str, records: Sequence[R], key: Callable[[R], Hashable]) -> tuple[R, ...]:
        """The records, each equal to last pass's replaced by it: what did not change keeps its identity."""
        last = self.records.get(kind, {})
        keys = list(map(key, records))  # each key made once (`key` is an attrgetter: at C speed)
        kept = tuple(
            old if (old := last.get(name)) is not None and (old is record or old == record) else record
            for name, record in zip(keys, records, strict=True)
        )
        self.records[kind] = dict(zip(keys, kept, strict=True))
        return kept

    def resolving_as(
        self,
        known: Mapping[str, str],
        split: Mapping[str, object],
        stale: Callable[[Any, frozenset[str], frozenset[str]], bool],
    ) -> None:
        """Start a pass whose names mean `known` (name → entity key) with homonyms `split` (root → kinds).

        `stale(reading, changed names, first words of new names)` says whether a kept reading must go.
        """
        before, split_before = self.known, self.split
        if known == before and split == split_before:
            return
        # The readings go before the names change: an interrupted pass leaves nothing unchecked.
        roots = {root for root in {*split, *split_before} if split.get(root) != split_before.get(root)}
        changed = frozenset(
            name
            for name in {*known, *before}
            if known.get(name) != before.get(name)
            or _root(known.get(name)) in roots
            or _root(before.get(name)) in roots
        )
        new_heads = frozenset(name.split(" ", 1)[0] for name in known.keys() - before.keys())
        self.readings.drop(lambda reading: stale(reading, changed, new_heads))
        self.known, self.split = known, split

    def forget(self) -> None:
        """Drop everything kept: the next pass starts from scratch."""
        self.__init__()  # type: ignore[misc]

    def begin(self) -> None:
        """Start a pass."""
        for kept in self._kept():
            kept.begin()
        self.made = PassMade()

    def settle(self) -> None:
        """End a pass: keep what it used.

        What the pass before kept is held until `release`: freeing some 100,000 objects takes
        10-20 ms at 2,000 notes, which a rebuild can spend after its pages are written.
        """
        dropped: list[object] = [kept.settle() for kept in self._kept()]
        dropped.append(self.groups.settle())
        self.made.settled = True
        dropped.append(self.last)
        self.last, self.made = self.made, PassMade()
        self.dropped = dropped

    def release(self) -> None:
        """Free what the last `settle` dropped."""
        self.dropped = []

    def _kept(self) -> tuple[_Kept[Any, Any], ...]:
        return (
            self.mentions,
            self.readings,
            self.nodes,
            self.rows,
            self.entities,
            self.derived,
            self.title_slugs,
            self.retimed,
            self.timed,
        )


def same_multiset(now: Sequence[Hashable], before: Sequence[Hashable]) -> bool:
    """Whether two lists hold the same items as many times each, whatever their order.

    A pass's list is mostly last pass's objects in last pass's places: only the places that differ
    are counted.
    """
    if len(now) != len(before):
        return False  # a multiset's size is its list's length
    differ = [i for i, (a, b) in enumerate(zip(now, before, strict=True)) if a is not b]
    return Counter(now[i] for i in differ) == Counter(before[i] for i in differ)


def _root(entity_key: str | None) -> str | None:
    """The name root of an entity key (a homonym's key is its root, a separator and its kind)."""
    return entity_key.split(HOMONYM_SEPARATOR, 1)[0] if entity_key else None
