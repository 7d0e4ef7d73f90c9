"""Pass 2: resolve entities, merge nodes and relations, build tags and coverage into one Graph."""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_left, insort
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence, Set
from dataclasses import dataclass, replace
from datetime import date
from functools import lru_cache, partial
from itertools import compress, count, islice
from operator import attrgetter
from typing import Any

from kgvault.conversations.small_talk import silence_reason
from kgvault.corrections import Correction, Corrections
from kgvault.extract import Extraction
from kgvault.extract.draft import DraftNode
from kgvault.extract.patterns import FUNCTIONAL_PREDICATES, PREDICATE_LABELS, PREDICATE_SYNONYMS
from kgvault.layout import CORRECTIONS_FILE
from kgvault.link_groups import ChunkRef, Grouped, NodeGroup, NodeKey, Reading, collect_nodes
from kgvault.link_memory import LinkMemory, PassMade, same_multiset
from kgvault.names import (
    UniqueIds,
    ascii_node_slug,
    assign_unique,
    node_slug,
    normalize_name,
    summary_slug,
)
from kgvault.node_corrections import confirmed_nodes, correct_nodes
from kgvault.properties import clean_body, plain_text
from kgvault.provenance import chunk_evidence, evidence_order, item_evidence, turn_of
from kgvault.records import (
    CoverageRow,
    Entity,
    Evidence,
    Graph,
    Node,
    NodeLink,
    Problem,
    Relation,
    Source,
    SourceSummary,
    replaced,
)
from kgvault.resolve import HOMONYM_SEPARATOR, EntityGroup, Resolution, make_entity, resolve_entities
from kgvault.secrets import mask_secrets
from kgvault.tags import TaggedNode, TagTree, build_tag_tree
from kgvault.temporal import Assertion, apply_time

_NO_CORRECTIONS = Corrections()
_ID = attrgetter("id")
_NOTHING: frozenset[str] = frozenset()
_NO_EVIDENCE: frozenset[Evidence] = frozenset()
_CONFIDENCE_RANK = {"low": 0, "medium": 1, "high": 2}
_SENSITIVITY_RANK = {"public": 0, "private": 1, "confidential": 2}
# Entities win a basename collision over summaries and nodes: users type [[Marlin]] for the entity.
_KIND_RANK = {"entity": 0, "summary": 1, "semantic": 2, "episodic": 3}


def link(
    sources: Sequence[Source],
    extractions: Sequence[Extraction],
    *,
    taken: Iterable[str] = (),
    corrections: Corrections = _NO_CORRECTIONS,
    functional: frozenset[str] = FUNCTIONAL_PREDICATES,
    tag_hints: Mapping[str, str] | None = None,
    memory: LinkMemory | None = None,
) -> Graph:
    """Build the corpus-wide graph from every chunk's draft; `taken` are basenames already in use.

    `functional` are the predicates with one current value (the built-in ones and the config's);
    `tag_hints` a model's parent paths for tags the rules leave flat (`--llm-link`); `memory` what
    the last pass over the same vault kept (a rebuild then reads only the changed drafts anew).
    """
    if memory is not None:
        memory.begin()
    resolved = resolve_entities(
        sources,
        extractions,
        corrections,
        memory.mentions if memory is not None else None,
        memory.last.resolved if memory is not None and memory.last.settled else None,
    )
    resolution = resolved.resolution
    if memory is not None:
        memory.made.resolved = resolved
    entity_groups = resolution.groups
    readings = _readings(extractions, resolution, memory)
    grouped = (
        collect_nodes(extractions, readings)
        if memory is None
        else memory.groups.update(extractions, readings)
    )
    node_groups = grouped.groups

    entity_key_by_root = {root: f"entity:{root}" for root in entity_groups}
    summary_key = {s.path: f"summary:{s.path}" for s in sources}
    # An episode said on many dates is one node per date, all with the same title: slug it once.
    title_slug = memory.title_slugs.slug if memory is not None else lru_cache(maxsize=None)(node_slug)
    node_key, node_wanted, node_rank = _node_wants(grouped, title_slug, memory)
    wanted, rank = dict(node_wanted), dict(node_rank)
    for root, group in entity_groups.items():
        wanted[entity_key_by_root[root]] = group.wanted_id()
        rank[entity_key_by_root[root]] = _KIND_RANK["entity"]
    for source in sources:
        page_key = summary_key[source.path]
        in_export = source.pointer is not None
        wanted[page_key] = summary_slug(source.file, source.title if in_export else None)
        rank[page_key] = _KIND_RANK["summary"]
    last = memory.last if memory is not None and memory.last.settled else None
    repeated = _repeated_episodes(grouped, last.repeated if last is not None else None)
    if memory is not None:
        memory.made.repeated = repeated
    for title_key, keys in repeated.items():
        if ("semantic", title_key, "") not in node_groups:
            wanted[f"derived:{title_key}"] = title_slug(node_groups[keys[0]].first()[1].title)
            rank[f"derived:{title_key}"] = _KIND_RANK["semantic"]
    taken_ids = [*taken, "index", "ontology"]
    if memory is None:
        ids = assign_unique(wanted, taken=taken_ids, rank=rank)
    else:
        # Only the id families where a key came, went or changed are redone (the same ids).
        unique = (
            last.ids.again(wanted, taken=taken_ids, rank=rank)
            if last is not None and last.ids is not None
            else UniqueIds(wanted, taken=taken_ids, rank=rank)
        )
        memory.made.ids = unique
        ids = unique.ids

    entity_id = {root: ids[entity_key_by_root[root]] for root in entity_groups}
    node_id = {key: ids[node_key[key]] for key in node_groups}
    named_by_nodes = _named_by_nodes(readings, memory)

    def entity_of(root: str, group: EntityGroup) -> Entity:
        inputs = (entity_id[root], group, named_by_nodes.get(root, _NO_EVIDENCE))
        if memory is None:
            return make_entity(*inputs)
        # A group equal to last pass's (names, types, descriptions, evidence) makes the same entity.
        entity: Entity = memory.entities.get(root, inputs, partial(make_entity, *inputs))
        return entity

    entities = tuple(sorted((entity_of(*item) for item in entity_groups.items()), key=_ID))
    tree = _tag_tree(node_groups, repeated, tag_hints or {}, memory)
    canonical: dict[tuple[str, ...], tuple[str, ...]] = {}
    since = _Since.last_pass(memory, grouped, node_id, entity_id, tree)
    made = _make_nodes(
        node_groups, node_id, entity_id, lambda tags: _canonical_tags(tags, tree, canonical), memory, since
    )
    for title_key, keys in repeated.items():
        episodes = [made[k] for k in keys]
        existing = ("semantic", title_key, "")
        if existing in made:
            made[existing] = replace(made[existing], derived_from=tuple(sorted(e.id for e in episodes)))
        else:
            made[("derived", title_key, "")] = _consolidated(
                title_key, ids[f"derived:{title_key}"], episodes, tree, memory
            )
    _add_links(made, extractions, node_id)
    relations, assertions = _merge_relations(readings, entity_id, memory)
    titles = {e.id: e.title for e in entities}
    timed, relations, conflicts = apply_time(
        list(made.values()),
        relations,
        titles,
        assertions,
        functional=functional,
        # A node superseded or in conflict as last pass is last pass's node: its page is reused.
        retime=memory.retimed.remade if memory is not None else None,
        retime_relation=memory.timed.remade if memory is not None else None,
        confirmed=confirmed_nodes(made.values(), corrections),
    )
    summaries = _summaries(sources, grouped, ids, summary_key, node_id, entity_id, memory, since)
    corrected = correct_nodes(timed, conflicts, summaries, corrections)
    outcomes = {**resolution.outcomes, **corrected.outcomes}
    nodes, summaries = corrected.nodes, corrected.summaries
    if memory is not None:
        # A record equal to last pass's is last pass's object: a page made from it can be reused.
        nodes = memory.as_before("node", nodes, _ID)
        entities = memory.as_before("entity", entities, _ID)
        relations = memory.as_before("relation", relations, attrgetter("from_id", "relation", "to_id"))
        summaries = memory.as_before("summary", summaries, _ID)
        memory.settle()
    return Graph(
        nodes=nodes,
        entities=entities,
        relations=relations,
        summaries=summaries,
        # Hidden nodes leave the counts; without them the tree's own counts are exact.
        tag_counts=tag_counts(corrected.nodes) if len(corrected.nodes) < len(timed) else tree.counts,
        tag_changes=tree.changes,
        split_candidates=tree.split_candidates,
        predicates=_predicates(relations),
        problems=_correction_problems(corrections, outcomes),
        conflicts=corrected.conflicts,
        merges=resolution.merges(entity_id),
        corrections=tuple((c.describe(), outcomes.get(c, "nothing to do")) for c in corrections.items),
        functional=tuple(sorted(functional)),
    )


def _named_by_nodes(
    readings: Sequence[_Reading], memory: LinkMemory | None = None
) -> dict[str, frozenset[Evidence]]:
    """Per entity key, the lines of the nodes that name it: a node's text may name an entity its
    draft did not ("Sam Ortiz helped me …"), and the entity is then mentioned there too.

    With a memory, last pass's answer changed by the readings that came and went since.
    """
    if memory is None:
        return _lines_naming(readings)
    last = memory.last.named if memory.last.settled else None
    counts = _NamedCounts(readings, last)
    memory.made.named = counts
    return counts.named


def _lines_naming(readings: Sequence[_Reading]) -> dict[str, frozenset[Evidence]]:
    """`_named_by_nodes` for a pass that keeps nothing: the lines as sets, with no counts to update."""
    lines: dict[str, set[Evidence]] = defaultdict(set)
    for reading in readings:
        for _, evidence, _, keys in reading.nodes:
            for key in keys:
                lines[key].add(evidence)
    return {key: frozenset(found) for key, found in lines.items()}


class _NamedCounts:
    """How many of the readings' nodes name each entity key on each line, and the lines as sets."""

    __slots__ = ("counts", "named", "readings")

    def __init__(self, readings: Sequence[_Reading], last: _NamedCounts | None) -> None:
        self.readings = readings
        """Held so that no reading counted here is freed and its id taken by another."""
        before = {id(reading): reading for reading in last.readings} if last is not None else {}
        came = [reading for reading in readings if id(reading) not in before]
        if last is None or 4 * len(came) > len(readings):
            self.counts: dict[str, Counter[Evidence]] = defaultdict(Counter)
            self._count(readings, 1, self.counts.__getitem__)
            self.named = {key: frozenset(lines) for key, lines in self.counts.items()}
            return
        for reading in readings:
            before.pop(id(reading), None)
        # Copied on first change, so last pass's counts stay as they were should this pass fail.
        self.counts = dict(last.counts)
        changed: set[str] = set()

        def counter(key: str) -> Counter[Evidence]:
            if key not in changed:
                changed.add(key)
                self.counts[key] = Counter(self.counts.get(key, ()))
            return self.counts[key]

        self._count(before.values(), -1, counter)
        self._count(came, 1, counter)
        self.named = dict(last.named)
        for key in changed:
            lines = +self.counts[key]  # without the lines no node names it on any more
            if lines:
                self.counts[key], self.named[key] = lines, frozenset(lines)
            else:
                del self.counts[key]
                self.named.pop(key, None)

    @staticmethod
    def _count(readings: Iterable[_Reading], step: int, counter: Callable[[str], Counter[Evidence]]) -> None:
        for reading in readings:
            for _, evidence, _, keys in reading.nodes:
                for key in keys:
                    counter(key)[evidence] += step


def _add_links(
    made: dict[NodeKey, Node], extractions: Sequence[Extraction], node_ids: dict[NodeKey, str]
) -> None:
    """Give nodes the links their drafts state between them (by title), each kept once, in id order."""
    found: dict[NodeKey, dict[tuple[str, str], NodeLink]] = defaultdict(dict)
    # In the notes' order, whatever order the drafts came in: the first statement of a link wins.
    stating = sorted(
        (x for x in extractions if x.draft.links), key=lambda x: (x.chunk.source_path, x.chunk.index)
    )
    for extraction in stating:
        draft = extraction.draft
        by_title = {node.title.casefold(): _node_identity(node) for node in draft.nodes}
        for link in draft.links:
            start, end = by_title.get(link.source.casefold()), by_title.get(link.target.casefold())
            if start in made and end in node_ids and node_ids[end] != node_ids.get(start):
                # The first statement of a link wins: its weight and reason are the ones shown.
                found[start].setdefault(
                    (link.kind, node_ids[end]), NodeLink(link.kind, node_ids[end], link.weight, link.reason)
                )
    for key, links in found.items():
        ordered = tuple(links[k] for k in sorted(links))
        made[key] = replace(
            made[key],
            links=ordered,
            causes=_ids(made[key].causes, ordered, "causes"),
            precedes=_ids(made[key].precedes, ordered, "precedes"),
            related_to=_ids(made[key].related_to, ordered, "related_to"),
        )


def _ids(existing: tuple[str, ...], links: tuple[NodeLink, ...], kind: str) -> tuple[str, ...]:
    return tuple(sorted({*existing, *(link.to_id for link in links if link.kind == kind)}))


def _correction_problems(corrections: Corrections, outcomes: dict[Correction, str]) -> tuple[Problem, ...]:
    """A correction naming what no longer exists, or at odds with another, is reported, never fatal."""
    return tuple(
        Problem(
            CORRECTIONS_FILE,
            correction.line,
            f"{correction.describe()}: {outcomes[correction]}; fix the line or remove it",
        )
        for correction in corrections.items
        if not correction.by_model
        and (outcomes.get(correction, "").startswith("not ") or "not found" in outcomes.get(correction, ""))
    )


def _node_wants(
    grouped: Grouped, title_slug: Callable[[str], str], memory: LinkMemory | None
) -> tuple[dict[NodeKey, str], dict[str, str], dict[str, int]]:
    """Each node's page key, and the id and rank that key asks for (see `assign_unique`).

    With a memory, the last pass's, asked again only for the keys regrouped since.
    """
    groups = grouped.groups
    last = memory.last if memory is not None and memory.last.settled else None
    if last is None or grouped.touched is None:
        keys = {key: f"{key[0]}:{key[1]}:{key[2]}" for key in groups}
        wanted = {keys[key]: _wanted_slug(key, group, title_slug) for key, group in groups.items()}
        rank = {page_key: _KIND_RANK[key[0]] for key, page_key in keys.items()}
    else:
        keys, wanted, rank = dict(last.node_keys), dict(last.node_wanted), dict(last.node_rank)
        for key in sorted(grouped.touched):
            page_key = keys.pop(key, None)
            if page_key is not None:
                del wanted[page_key], rank[page_key]
            group = groups.get(key)
            if group is not None:
                page_key = keys[key] = f"{key[0]}:{key[1]}:{key[2]}"
                wanted[page_key] = _wanted_slug(key, group, title_slug)
                rank[page_key] = _KIND_RANK[key[0]]
    if memory is not None:
        memory.made.node_keys, memory.made.node_wanted, memory.made.node_rank = keys, wanted, rank
    return keys, wanted, rank


def _wanted_slug(key: NodeKey, group: NodeGroup, title_slug: Callable[[str], str]) -> str:
    """The id a node's title asks for; a short ASCII title's is made from the words its key holds."""
    title = group.first()[1].title
    # A procedure's key holds its steps too (after `_STEPS`): its title's words are not all it holds.
    return (_STEPS not in key[1] and ascii_node_slug(title, key[1])) or title_slug(title)


def _repeated_episodes(
    grouped: Grouped, last: Mapping[str, list[NodeKey]] | None = None
) -> dict[str, list[NodeKey]]:
    """Episodic propositions said on ≥ 2 dates, in ≥ 3 distinct sources (≥ 2 when all say it with
    high confidence), in words that do not tie them to the day they were said.

    Repeats on different dates are what consolidation feeds on: they become one semantic node. One
    event however many sources tell it (one date) is bound to its day, nothing true in general;
    so is one whose words point at the day of writing ("today", "last week"). A fixed time stays
    the same proposition wherever it is said ("Dana lives in Oslo since 2019.").
    `last` is the last pass's answer: then only the titles regrouped since are asked again.
    """
    groups, episodes = grouped.groups, grouped.episodes
    if last is None or grouped.touched is None:
        asked: Iterable[str] = episodes
        repeated = {}
    else:
        again = {key[1] for key in grouped.touched if key[0] == "episodic"}
        asked = sorted(title for title in again if title in episodes)
        repeated = {title: keys for title, keys in last.items() if title not in again}
    for title_key in asked:
        keys = episodes[title_key]
        if len(keys) == 1:
            continue  # one date: one event, told once or by several sources
        said = groups[keys[0]].first()[1].title
        if _SAID_WHEN.search(said) or _PASSING.search(said):
            # "Switched the Voron to Klipper today." on two days: two events, no habit; "Ana is on
            # vacation." in three weeks: a passing state each time, nothing true in general.
            continue
        items = [item for key in keys for item in groups[key].items]
        sources = {evidence.path for evidence, _ in items}
        all_high = all(node.confidence == "high" for _, node in items)
        if len(sources) >= 3 or (len(sources) >= 2 and all_high):
            repeated[title_key] = keys
    # In title order, whatever order the drafts came in; sorting only the repeated titles is cheaper.
    return dict(sorted(repeated.items()))


def _consolidated(
    title_key: str, node_id: str, episodes: list[Node], tree: TagTree, memory: LinkMemory | None
) -> Node:
    """The semantic node of a repeated episode, its tags under the tree's paths; with a memory, last
    pass's when made from the very same episodes under the same id and tags."""
    tags = tree.apply({tag for node in episodes for tag in node.tags})

    def make() -> Node:
        return replaced(_consolidate(node_id, episodes), tags=tags)

    return make() if memory is None else memory.derived.get(title_key, (node_id, episodes, tags), make)


def _consolidate(node_id: str, episodes: Sequence[Node]) -> Node:
    """A semantic node standing for an episode repeated across sources, derived from each of them."""
    first = min(episodes, key=lambda n: (n.timestamp or date.max, n.id))
    sources = {e.path for node in episodes for e in node.evidence}
    return Node(
        id=node_id,
        memory_layer="semantic",
        type="fact",
        title=first.title,
        body=first.body,
        tags=tuple(sorted({t for n in episodes for t in n.tags})),
        sensitivity=max((n.sensitivity for n in episodes), key=_SENSITIVITY_RANK.__getitem__),
        confidence="high" if len(sources) >= 5 else "medium",
        origin="inferred",
        timestamp=first.timestamp,
        evidence=tuple(sorted({e for n in episodes for e in n.evidence}, key=evidence_order)),
        entities=tuple(sorted({e for n in episodes for e in n.entities})),
        language=first.language,
        derived_from=tuple(sorted(n.id for n in episodes)),
    )


_KeyOf = Callable[..., str | None]
"""`Resolution.key_of`: the entity key of a name, read as a type when one is given."""


class _Reader:
    """Read a name as a chunk means it: a homonym resolves by the type the chunk gave it."""

    __slots__ = ("key_of", "named", "own", "whole")

    def __init__(self, key_of: _KeyOf, extraction: Extraction) -> None:
        self.key_of = key_of
        """`Resolution.key_of`, answered once per pass for each name (and type) asked."""
        self.whole = chunk_evidence(extraction.chunk)
        """The whole chunk as evidence, made once for its nodes and relations."""
        self.named = {
            normalize_name(e.name): key_of(e.name, e.entity_type) for e in extraction.draft.entities
        }
        """The entity each of the chunk's own mentions resolved to."""
        # Read once per chunk, not once per node of the chunk.
        self.own = {
            key.split(HOMONYM_SEPARATOR)[0]: key
            for key in self.named.values()
            if key and HOMONYM_SEPARATOR in key
        }
        """Per shared name, the homonym this chunk's own mentions typed it as."""

    def own_reading(self, keys: set[str]) -> set[str]:
        """Entities found by name in a text, each homonym read as this chunk typed it (if it did)."""
        own = self.own
        if not own:
            return keys
        return {own.get(key.split(HOMONYM_SEPARATOR)[0], key) for key in keys}

    def __call__(self, name: str) -> str | None:
        key = normalize_name(name)
        return self.named[key] if key in self.named else self.key_of(name)


def _node_identity(node: DraftNode) -> NodeKey:
    """Same proposition, same layer (and same date for episodes) means the same node.

    A procedure's title is where it stands ("Installation"), its steps what it says: two notes'
    "Installation" lists are two procedures unless their steps are the same.
    """
    when = node.timestamp.isoformat() if node.memory_layer == "episodic" and node.timestamp else ""
    title = normalize_name(node.title)
    if node.type == "procedure":
        title = f"{title}{_STEPS}{normalize_name(node.body)}"
    return (node.memory_layer, title, when)


_SAID_WHEN = re.compile(
    r"(?i)\b(?:today|tonight|yesterday|tomorrow|this (?:morning|afternoon|evening)|last night"
    r"|(?:this|last|next) (?:week|weekend|month|year)|(?:\d+|a|an|one|two|three|a few|a couple of)"
    r" (?:days?|weeks?|months?|years?) ago)\b"
)
"""Words that point at the day they were written: what they say happened then, not in general."""
_PASSING = re.compile(
    r"(?i)\b(?:(?:is|are|am|was|were|['’]s|['’]re|['’]m)\s+(?:still\s+|now\s+)?(?:on\s+(?:vacation|holiday|leave"
    r"|sabbatical|a\s+trip|a\s+break)|(?:out|off)\s+(?:sick|today|this\s+week)|sick|ill|away|abroad|traveling"
    r"|travelling|out\s+of\s+(?:the\s+)?office|working\s+from\s+home|in\s+hospital|in\s+the\s+hospital"
    # How an affair stands this week: "Heron is blocked on legal", "The launch is on hold".
    r"|blocked|on\s+hold|paused|delayed|postponed|stuck|behind\s+schedule|ahead\s+of\s+schedule|at\s+risk"
    r"|over\s+budget|on\s+track|off\s+track|waiting\s+(?:on|for))"
    r"|OOO|WFH)\b"
)
"""A passing state of someone or of an affair ("Ana is on vacation", "Tom is out sick", "Heron is
blocked on legal"): said on many days, still nothing true in general."""
_STEPS = "\n"
"""Between a procedure's title and its steps in its identity (no normalized title holds a line break)."""


@dataclass(slots=True)
class _Reading:
    """One draft read with the corpus's entities: what its nodes and relations are, before merging."""

    named: dict[str, str | None]
    """The entity key each of the draft's own mentions resolved to (see `_Reader.named`)."""
    nodes: list[tuple[NodeKey, Evidence, DraftNode, set[str]]]
    """Each node's identity, evidence, draft and the entity keys it names or mentions."""
    relations: list[_RelationItem]
    names: frozenset[str]
    """Every normalized name the reading looked up or found in a text: it holds while they mean the same."""
    heads: frozenset[str]
    """The folded capitalized words of its texts: where a name new to the corpus could be found."""


# (from key, predicate, to key, evidence, confidence, statement, valid_at, invalid_at, label, the
# chunk's date: when it was said)
_RelationItem = tuple[str, str, str, Evidence, float, str, date | None, date | None, str, date | None]
# (evidence, confidence, statement, valid_at, invalid_at, when it was said)
_Statement = tuple[Evidence, float, str, date | None, date | None, date | None]


def _readings(
    extractions: Sequence[Extraction], resolution: Resolution, memory: LinkMemory | None
) -> list[_Reading]:
    """Every draft read with the corpus's entities; a kept reading is reused while names resolve alike."""
    known = resolution.known_names()
    # Drafts name the same few thousand entities over and over: each name is looked up once a pass.
    key_of = lru_cache(maxsize=None)(resolution.key_of)
    if memory is None:
        everything = _MentionIndex(known)
        return [_read(extraction, key_of, everything) for extraction in extractions]
    index: list[_MentionIndex] = []  # made once, and only when a draft is read anew

    def read(extraction: Extraction) -> _Reading:
        if not index:
            index.append(_MentionIndex(known, capitals=True))
        return _read(extraction, key_of, index[0])

    memory.resolving_as(known, resolution.split, _stale_reading)
    readings = []
    for extraction in extractions:
        reading = memory.readings.get(extraction, read)
        readings.append(reading)
    return readings


def _keys_named(reading: Reading) -> Iterable[str | None]:
    """The entity keys a draft names, itself or in its nodes' texts."""
    yield from reading.named.values()
    for *_, keys in reading.nodes:
        yield from keys


def _stale_reading(reading: _Reading, changed: frozenset[str], new_heads: frozenset[str]) -> bool:
    """Whether a kept reading may read differently now: a name it used means another entity, or a
    name new to the corpus starts with a capitalized word of its texts."""
    return not (changed.isdisjoint(reading.names) and new_heads.isdisjoint(reading.heads))


def _read(extraction: Extraction, key_of: _KeyOf, known: _MentionIndex) -> _Reading:
    """One draft's nodes with their evidence and entity keys, and its relations between entity keys."""
    mean = _Reader(key_of, extraction)
    chunk = extraction.chunk
    whole = mean.whole
    turns = bool(chunk.turns)
    # What a kept reading depends on, gathered only when it may be kept (a one-off pass skips it).
    track = known.capitals
    names: set[str] = set(mean.named) if track else set()
    heads: set[str] = set()
    nodes = []
    for node in extraction.draft.nodes:
        key = _node_identity(node)
        if not key[1]:
            continue
        evidence = (
            item_evidence(chunk, node.supporting_text, whole, node.pointer, node.turn_line)
            if turns or node.pointer
            else whole
        )
        entity_keys = {entity_key for name in node.entities if (entity_key := mean(name)) is not None}
        found, roots, capitals = known.mentioned_in(f"{node.title}\n{node.body}")
        if found and any(" " in name for name in node.entities):
            roots = roots - _named_more_fully(node.entities, found, known, turns)
        entity_keys.update(mean.own_reading(roots))
        if track:
            names.update(map(normalize_name, node.entities))
            names.update(found)
            heads.update(capitals)
        nodes.append((key, evidence, node, entity_keys))
    relations: list[_RelationItem] = []
    for rel in extraction.draft.relations:
        if track:
            names.update((normalize_name(rel.subject), normalize_name(rel.object)))
        subject, obj = mean(rel.subject), mean(rel.object)
        if subject is None or obj is None:
            continue  # an end that is no entity: nothing to relate (read again when it becomes one)
        # Only a conversation's turns or a draft file's pointer make an item's evidence narrower.
        evidence = (
            item_evidence(chunk, rel.supporting_text, whole, rel.pointer, rel.turn_line)
            if turns or rel.pointer is not None
            else whole
        )
        # `works_at:: [[X]]` and "X works for Y" are one predicate: the table's name and label win.
        predicate = PREDICATE_SYNONYMS.get(rel.predicate, rel.predicate)
        label = PREDICATE_LABELS.get(predicate, rel.label)
        # A draft may state a relation without a sentence: say it in its own words.
        statement = plain_text(rel.statement) or f"{rel.subject} {label} {rel.object}."
        relations.append(
            (
                subject,
                predicate,
                obj,
                evidence,
                rel.confidence,
                statement,
                rel.valid_at,
                rel.invalid_at,
                plain_text(label) or predicate,
                chunk.reference_time,
            )
        )
    if not track:
        return _Reading(mean.named, nodes, relations, _NOTHING, _NOTHING)
    return _Reading(mean.named, nodes, relations, frozenset(names), frozenset(heads))


def _named_more_fully(
    entities: Sequence[str], found: Set[str], known: _MentionIndex, turns: bool
) -> set[str]:
    """The entities a node's text names by a word that one of its own entities says in full: "Anna" where
    the node is Anna Kowalski's (a meeting's attendee), "Mum" in a turn that is Jess's mum's."""
    words = {word for name in entities if (word := _first_of_full_name(name)) is not None}
    if turns:  # "Jess: Mum said she loved the flowers" names `Jess's mum`, not the user's Mum
        words.update(name.rsplit("'s ", 1)[1].casefold() for name in entities if "'s " in name)
    return {known.roots[name] for name in found if name in words}


@lru_cache(maxsize=1 << 16)  # nodes name the same few thousand entities over and over
def _first_of_full_name(name: str) -> str | None:
    """The folded first word of a full name, or None for a one-word name or one with a digit."""
    # A person's full name ("Anna Kowalski"), not a thing's version: "Postgres 15" mentions Postgres too.
    if " " not in name.strip() or any(c.isdigit() for c in name):
        return None
    key = normalize_name(name)
    return key.split(" ", 1)[0] if key else None


class _MentionIndex:
    """Find known entities named in a text, so a node links to what it talks about even unlinked."""

    MAX_TOKENS = 6

    def __init__(self, known: Mapping[str, str], *, capitals: bool = False) -> None:
        self.capitals = capitals
        """Whether `mentioned_in` also gathers each text's capitalized words (empty otherwise)."""
        self.roots: dict[str, str] = {
            key: entity_key
            for key, entity_key in known.items()
            # One-letter names and bare numbers would match everywhere.
            if len(key) > 1 and not key.isdigit()
        }
        # Most capitalized words start no known name: checking the first word first skips them cheaply.
        # Per first word, the most words a name starting with it has: longer keys would match nothing.
        self.reach: dict[str, int] = {}
        for key in self.roots:
            first, words = key.split(" ", 1)[0], min(key.count(" ") + 1, self.MAX_TOKENS)
            if words > self.reach.get(first, 0):
                self.reach[first] = words
        self.seen: dict[str, tuple[set[str], set[str], Set[str]]] = {}

    def mentioned_in(self, text: str) -> tuple[set[str], set[str], Set[str]]:
        """Known names found in the text as proper nouns (capitalized or with a digit), the entity keys
        they mean, and (when asked for) its folded capitalized words: where a name could start."""
        cached = self.seen.get(text)
        if cached is not None:
            return cached
        # The tokens normalize_name keeps, folded at C speed; most texts share no first word with a name.
        text = text if text.isascii() else unicodedata.normalize("NFC", text)
        raw = _TOKEN.findall(text)
        folded = list(map(str.casefold, raw))
        roots, reach = self.roots, self.reach
        found: set[str] = set()
        # The longest name at each place, and none inside it: "Tom Becker" is no mention of a Tom. But
        # a version is of its thing: "Postgres 15" mentions Postgres too.
        after = 0
        # Only the words some name starts with, found at C speed (about a quarter of a text's words).
        for start in compress(count(), map(reach.__contains__, folded)):
            head = raw[start][0]
            if start < after or not (head.isupper() or head.isdigit()):
                continue
            key = folded[start]
            longest = key if key in roots else None
            end = start + 1
            for follow in folded[start + 1 : start + reach[key]]:
                key = f"{key} {follow}"
                end += 1
                if key in roots:
                    if longest is not None and _VERSION.match(follow):
                        found.add(longest)
                    longest, after = key, end
            if longest is not None and not (
                " " not in longest and _in_a_longer_name(text, raw, folded, start, reach)
            ):
                found.add(longest)
        capitals = (
            {token for token, word in zip(folded, raw, strict=True) if word[0].isupper() or word[0].isdigit()}
            if self.capitals
            else _NOTHING
        )
        # Merged nodes repeat their text: read each text once.
        seen = self.seen[text] = found, {roots[name] for name in found}, capitals
        return seen


_TOKEN = re.compile(r"[^\W_]+")
_NOT_OF_A_NAME = frozenset([
    "i", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "january",
    "february", "march", "april", "may", "june", "july", "august", "september", "october", "november",
    "december", "mon", "tue", "tues", "wed", "thu", "thur", "thurs", "fri", "sat", "sun", "jan", "feb",
    "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec", "re", "fw", "fwd", "cc", "ok",
])  # fmt: skip
"""Capitalized words that go beside a name without being part of it ("Alex Tuesday", "told Alex I …",
"Emailed Ana Re: the budget")."""
_BEFORE_A_NAME = frozenset([
    "uncle", "aunt", "auntie", "aunty", "grandma", "grandpa", "granny", "gran", "nana", "nan", "cousin",
    "dr", "mr", "mrs", "ms", "mx", "prof", "sir", "dame", "lady", "lord", "captain", "capt", "coach",
    "father", "sister", "brother", "saint", "st", "rev", "king", "queen", "prince", "princess",
])  # fmt: skip
"""Words before a name that say who they are to the writer, or their title: "Uncle Tom", "Dr Reid"."""
_SENTENCE_BREAK = re.compile(r"[.!?:;\n]")


def _in_a_longer_name(
    text: str, raw: Sequence[str], folded: Sequence[str], at: int, starts: Mapping[str, int]
) -> bool:
    """Whether the one-word name at token `at` is part of a longer name the corpus does not know:
    "Alex Rivera", "Tom Hanks", "Mercedes-Benz", "the Michael Jordan documentary". A capitalized
    word before it that opens a sentence is no part of it ("Met Alex", "Yesterday Alex called"), nor
    one that starts a known name (`starts`): "Showed Ana Obsidian", "In London Ana and I …"."""
    following = raw[at + 1] if at + 1 < len(raw) else ""
    before = raw[at - 1] if at else ""
    # An acronym after it says what part of it: "the Dagster UI", "the Stripe API".
    next_to = (
        following[:1].isupper()
        and not following.isupper()
        and folded[at + 1] not in _NOT_OF_A_NAME
        and folded[at + 1] not in starts
    )
    after_one = (
        before[:1].isupper()
        and at > 1
        and folded[at - 1] not in _NOT_OF_A_NAME
        and folded[at - 1] not in _BEFORE_A_NAME
        and folded[at - 1] not in starts
    )
    if not (next_to or after_one):
        return False
    spans = [match.span() for match in islice(_TOKEN.finditer(text), at + 2)]
    # Joined by spaces, or a hyphen with none ("Mercedes-Benz", not "1:1 Ana - Tom").
    if next_to and text[spans[at][1] : spans[at + 1][0]] in ("-", *_SPACES):
        return True
    # The word before counts only mid-sentence: a sentence's first word is capitalized anyway.
    return (
        after_one
        and not text[spans[at - 1][1] : spans[at][0]].strip(" \t")
        and not _SENTENCE_BREAK.search(text, spans[at - 2][1], spans[at - 1][0])
    )


_SPACES = (" ", "  ", "\t")


_VERSION = re.compile(r"v?\d")
"""A folded word that numbers a version ("15", "3", "v2"): what it follows names the thing versioned."""


@dataclass(frozen=True, slots=True)
class _Since:
    """What changed since the last pass over the same vault: what the steps that reuse its records ask."""

    last: PassMade
    entities: frozenset[str]
    """Entity keys whose id changed, or that came or went."""
    tags_alike: bool
    """The tag tree maps every tag as it did."""
    dirty_paths: frozenset[str]
    """Sources whose summary may differ: a draft of theirs changed, or a node or entity of theirs moved."""

    @classmethod
    def last_pass(
        cls,
        memory: LinkMemory | None,
        grouped: Grouped,
        node_id: Mapping[NodeKey, str],
        entity_id: Mapping[str, str],
        tree: TagTree,
    ) -> _Since | None:
        """Compare this pass with the last one (and note this one's ids for the next); None: redo all."""
        if memory is None:
            return None
        made, last = memory.made, memory.last
        made.node_ids, made.entity_ids, made.canonical = node_id, entity_id, tree.canonical
        if grouped.changed_paths is None or not last.settled:
            return None
        before = last.entity_ids
        entities = frozenset(key for key in {*entity_id, *before} if entity_id.get(key) != before.get(key))
        dirty = set(grouped.changed_paths)
        ids_before = last.node_ids
        for key, value in node_id.items():
            if ids_before.get(key) != value:
                dirty.update(ref[0] for ref in grouped.refs.get(key, ()))
        if entities:
            for path, drafts in grouped.by_path.items():
                if path not in dirty and not all(entities.isdisjoint(_keys_named(r)) for _, r in drafts):
                    dirty.add(path)
        return cls(last, entities, tree.canonical == last.canonical, frozenset(dirty))


def _make_nodes(
    node_groups: Mapping[NodeKey, NodeGroup],
    node_id: Mapping[NodeKey, str],
    entity_id: Mapping[str, str],
    canonical: Callable[[tuple[str, ...]], tuple[str, ...]],
    memory: LinkMemory | None,
    since: _Since | None = None,
) -> dict[NodeKey, Node]:
    """Every merged node; with a memory, a node made from the same drafts under the same ids is reused.

    A group the last pass grouped alike (the very object) keeps its node while its id, its entities'
    ids and its tags are as they were; any other is compared with what made its node last time.
    """
    made = {}
    reuse = since.last.nodes if since is not None else {}
    moved = since.entities if since is not None else frozenset()
    tags_alike = since is not None and since.tags_alike
    keep = memory.made.nodes if memory is not None else None
    for key, group in node_groups.items():
        last = reuse.get(key)
        if (
            last is not None
            and last[0] is group
            and last[1] == node_id[key]
            and (not moved or moved.isdisjoint(group.entity_keys))
            and (tags_alike or last[2] == canonical(group.tags()))
        ):
            tags, node = last[2], last[3]
        else:
            entity_ids, tags = sorted({entity_id[k] for k in group.entity_keys}), canonical(group.tags())
            if memory is None:
                node = _make_node(node_id[key], group, entity_ids, tags)
            else:
                inputs = (node_id[key], entity_ids, tags, group.items)
                make = partial(_make_node, node_id[key], group, entity_ids, tags)
                node = memory.nodes.get(key, inputs, make)
        made[key] = node
        if keep is not None:
            keep[key] = (group, node_id[key], tags, node)
    return made


def _make_node(node_id: str, group: NodeGroup, entity_ids: list[str], tags: tuple[str, ...]) -> Node:
    if len(group.items) == 1:  # most propositions are said once: nothing to merge
        evidence, first = group.items[0]
        confidence, sensitivity, origin = first.confidence, first.sensitivity, first.origin
        timestamp, importance = first.timestamp, first.importance
        evidences: tuple[Evidence, ...] = (evidence,)
    else:
        _, first = group.first()
        drafts = [node for _, node in group.items]
        confidence = max((d.confidence for d in drafts), key=_CONFIDENCE_RANK.__getitem__)
        sensitivity = max((d.sensitivity for d in drafts), key=_SENSITIVITY_RANK.__getitem__)
        origin = "stated" if any(d.origin == "stated" for d in drafts) else "inferred"
        timestamp = min((d.timestamp for d in drafts if d.timestamp), default=None)
        importance = max((d.importance for d in drafts if d.importance), default=None)
        evidences = tuple(sorted({e for e, _ in group.items}, key=evidence_order))
    return Node(
        id=node_id,
        memory_layer=first.memory_layer,
        type=first.type,
        title=plain_text(first.title) or "untitled",
        body=clean_body(first.body),
        tags=tags,
        sensitivity=sensitivity,
        confidence=confidence,
        origin=origin,
        timestamp=timestamp,
        evidence=evidences,
        entities=tuple(entity_ids),
        language=first.language,
        attributed_to=plain_text(first.attributed_to) or None if first.attributed_to else None,
        valid_from=first.valid_from,
        valid_to=first.valid_to,
        occurred_at=first.occurred_at,
        importance=importance or None,
    )


def _merge_relations(
    readings: Sequence[_Reading], entity_id: dict[str, str], memory: LinkMemory | None = None
) -> tuple[tuple[Relation, ...], list[Assertion]]:
    """Merge duplicate triples: evidence unioned, the highest confidence kept, one label per predicate.

    Also returns each chunk's dated statement of a triple, which time reads (a value can come back).
    With a memory, last pass's merge is changed by the readings that came and went since, while
    the entities keep their ids.
    """
    last = memory.last.merged if memory is not None and memory.last.settled else None
    merged = _MergedRelations(readings, entity_id, last)
    if memory is not None:
        memory.made.merged = merged
    relations = tuple(merged.relations[key] for key in merged.keys)
    return relations, [assertion for key in merged.keys for assertion in merged.assertions[key]]


_Said = tuple[tuple[str, str, str], _Statement, str]
"""A triple between entity ids, one statement of it, and the statement's label."""


class _MergedRelations:
    """Every triple's statements, the relation merged from them, and the dated statements time reads."""

    __slots__ = (
        "assertions", "entity_id", "keys", "label_of", "labels", "readings", "relations", "statements",
    )  # fmt: skip

    def __init__(
        self, readings: Sequence[_Reading], entity_id: dict[str, str], last: _MergedRelations | None
    ) -> None:
        self.readings = readings
        """Held so that no reading merged here is freed and its id taken by another."""
        self.entity_id = entity_id
        if last is not None and last.entity_id == entity_id:
            gone = {id(reading): reading for reading in last.readings}
            came = [reading for reading in readings if gone.pop(id(reading), None) is None]
            if 4 * (len(came) + len(gone)) <= len(readings):
                self._update(last, came, gone.values())
                return
        statements: dict[tuple[str, str, str], list[_Statement]] = defaultdict(list)
        labels: dict[str, Counter[str]] = defaultdict(Counter)
        for reading in readings:
            for key, said_as, label in _said(reading, entity_id):
                statements[key].append(said_as)
                labels[key[1]][label] += 1
        self.statements, self.labels = dict(statements), dict(labels)
        self.label_of = {predicate: _most_used(counts) for predicate, counts in labels.items()}
        self.keys = sorted(statements)
        self.relations: dict[tuple[str, str, str], Relation] = {}
        self.assertions: dict[tuple[str, str, str], tuple[Assertion, ...]] = {}
        for key, items in statements.items():
            label = self.label_of[key[1]]
            if last is not None and last.statements.get(key) == items and last.label_of[key[1]] == label:
                self.relations[key] = last.relations[key]  # what an unchanged page was made of
            else:
                self.relations[key] = _merged_relation(*key, items, label)
            self.assertions[key] = _assertions(key, items)

    def _update(self, last: _MergedRelations, came: Sequence[_Reading], gone: Iterable[_Reading]) -> None:
        """Last pass's merge without what the gone readings said and with what the new ones say."""
        statements, labels = dict(last.statements), dict(last.labels)
        changed: set[tuple[str, str, str]] = set()
        relabelled: set[str] = set()

        def note(key: tuple[str, str, str], label: str, step: int) -> None:
            if key[1] not in relabelled:  # copied on first change: last pass's merge stays as it was
                relabelled.add(key[1])
                labels[key[1]] = Counter(labels.get(key[1], ()))
            labels[key[1]][label] += step
            if key not in changed:
                changed.add(key)
                statements[key] = list(statements.get(key, ()))

        for reading in gone:
            for key, said_as, label in _said(reading, self.entity_id):
                note(key, label, -1)
                statements[key].remove(said_as)
        for reading in came:
            for key, said_as, label in _said(reading, self.entity_id):
                note(key, label, 1)
                statements[key].append(said_as)
        self.label_of = dict(last.label_of)
        for predicate in relabelled:
            counts = +labels[predicate]  # without the labels no statement uses any more
            if counts:
                labels[predicate] = counts
                if self.label_of.get(predicate) == _most_used(counts):
                    continue
                self.label_of[predicate] = _most_used(counts)
            else:
                del labels[predicate]
                self.label_of.pop(predicate, None)
            # Another label for the predicate: every relation of it reads differently.
            changed.update(key for key in statements if key[1] == predicate)
        self.statements, self.labels = statements, labels
        self.relations, self.assertions = dict(last.relations), dict(last.assertions)
        keys = last.keys
        for key in changed:
            items = statements[key]
            if items:
                if key not in self.relations:
                    keys = keys if keys is not last.keys else list(keys)
                    insort(keys, key)
                self.relations[key] = _merged_relation(*key, items, self.label_of[key[1]])
                self.assertions[key] = _assertions(key, items)
            else:
                del statements[key]
                if key in self.relations:
                    keys = keys if keys is not last.keys else list(keys)
                    del keys[bisect_left(keys, key)]
                    del self.relations[key], self.assertions[key]
        self.keys = keys


def _said(reading: _Reading, entity_id: Mapping[str, str]) -> Iterator[_Said]:
    """The reading's statements of triples between two different entities, with their labels."""
    for (
        subject,
        predicate,
        obj,
        evidence,
        confidence,
        statement,
        valid_at,
        invalid_at,
        label,
        said,
    ) in reading.relations:
        start = entity_id.get(subject)
        end = entity_id.get(obj)
        if start is None or end is None or start == end:
            continue
        yield (start, predicate, end), (evidence, confidence, statement, valid_at, invalid_at, said), label


def _most_used(labels: Counter[str]) -> str:
    """The label its statements use most (the first by name of those used as often)."""
    return min(labels.items(), key=lambda item: (-item[1], item[0]))[0]


def _assertions(key: tuple[str, str, str], items: Sequence[_Statement]) -> tuple[Assertion, ...]:
    return tuple(Assertion(key, i[0], i[3], i[4], i[5], i[2]) for i in items)


def _merged_relation(
    start: str,
    predicate: str,
    end: str,
    items: list[_Statement],
    label: str,
) -> Relation:
    """One relation from every statement of a triple."""
    best = min(items, key=lambda i: (-i[1], evidence_order(i[0]), i[2]))
    valid_ats = [i[3] for i in items if i[3]]
    invalid_ats = [i[4] for i in items if i[4]]  # stated ends ("switched from A") win
    return Relation(
        from_id=start,
        relation=predicate,
        label=label,
        to_id=end,
        statement=best[2],
        confidence=max(i[1] for i in items),
        valid_at=min(valid_ats) if valid_ats else None,
        invalid_at=min(invalid_ats) if invalid_ats else None,
        evidence=tuple(sorted({i[0] for i in items}, key=evidence_order)),
    )


def _summaries(
    sources: Sequence[Source],
    grouped: Grouped,
    ids: dict[str, str],
    summary_key: dict[str, str],
    node_id: dict[NodeKey, str],
    entity_id: dict[str, str],
    memory: LinkMemory | None = None,
    since: _Since | None = None,
) -> tuple[SourceSummary, ...]:
    """One summary per source with a coverage row for every chunk (a memory keeps rows made alike).

    With what changed since the last pass, a source none of whose inputs changed keeps its summary.
    """
    owner, chunk_keys = grouped.owner, grouped.chunk_keys
    reuse = since.last.summaries if since is not None else {}
    dirty = since.dirty_paths if since is not None else frozenset()
    keep = memory.made.summaries if memory is not None else None
    summaries = []
    for source in sorted(sources, key=lambda s: s.path):
        summary_id = ids[summary_key[source.path]]
        last = reuse.get(source.path)
        if last is not None and source.path not in dirty and last.source is source and last.id == summary_id:
            summary = last
        else:
            summary = _summary(
                source,
                summary_id,
                grouped.by_path.get(source.path, []),
                chunk_keys,
                owner,
                node_id,
                entity_id,
                memory,
            )
        summaries.append(summary)
        if keep is not None:
            keep[source.path] = summary
    return tuple(summaries)


def _summary(
    source: Source,
    summary_id: str,
    drafts: Sequence[tuple[Extraction, Reading]],
    chunk_keys: Mapping[ChunkRef, list[NodeKey]],
    owner: Mapping[NodeKey, ChunkRef],
    node_id: Mapping[NodeKey, str],
    entity_id: Mapping[str, str],
    memory: LinkMemory | None,
) -> SourceSummary:
    """One source's summary: its nodes, its entities and a coverage row for every chunk."""
    node_ids: dict[str, None] = {}  # ordered, without repeats
    entity_ids: set[str] = set()
    rows = []
    lines: list[str] = []  # a conversation's lines, split once for all its chunks
    for extraction, reading in sorted(drafts, key=lambda x: x[0].chunk.index):
        chunk = extraction.chunk
        here = (chunk.source_path, chunk.index)
        keys = chunk_keys.get(here, [])
        node_ids.update(dict.fromkeys(map(node_id.__getitem__, keys)))
        chunk_entities = {entity_id[k] for k in reading.named.values() if k is not None and k in entity_id}
        entity_ids.update(chunk_entities)
        # And what its nodes name without the draft naming it: the note mentions it too.
        entity_ids.update(entity_id[k] for _, _, _, keys in reading.nodes for k in keys if k in entity_id)
        if chunk.kind == "turns":
            lines = lines or source.text.split("\n")
            rows.extend(_turn_rows(lines, extraction, owner))
            continue
        fresh = list(map(owner.get, keys)).count(here)  # the keys new in this chunk
        counts = (fresh, len(keys) - fresh, len(chunk_entities))
        if memory is None:
            rows.append(_row(extraction, *counts))
        else:
            rows.append(memory.rows.get(here, (extraction, counts), partial(_row, extraction, *counts)))
    return SourceSummary(
        id=summary_id,
        source=source,
        node_ids=tuple(node_ids),
        entity_ids=tuple(sorted(entity_ids)),
        coverage=tuple(rows),
    )


def _turn_rows(
    lines: list[str], extraction: Extraction, owner: Mapping[NodeKey, ChunkRef]
) -> list[CoverageRow]:
    """A conversation's coverage: what each turn said that was kept, or why nothing was.

    Lines of the chunk in no turn (a log's system message or unreadable line) get a row too.
    """
    chunk = extraction.chunk
    here = (chunk.source_path, chunk.index)
    draft = extraction.draft
    said: dict[int, Counter[str]] = defaultdict(Counter)
    for node in draft.nodes:
        key = _node_identity(node)
        said_by = turn_of(chunk, node.supporting_text, node.turn_line) or chunk.turns[0]
        if key[1]:
            said[said_by.line_start]["node" if owner.get(key) == here else "duplicate node"] += 1
    for kind, items in (("entity", draft.entities), ("relation", draft.relations)):
        for item in items:
            turn = turn_of(chunk, item.supporting_text, item.turn_line)
            if turn is not None:  # an item quoting no turn is the run's as a whole
                said[turn.line_start][kind] += 1
    rows = []
    covered = chunk.line_start
    failed = (draft.skip_reason or "").startswith(("failed:", "dry run:"))
    for turn in chunk.turns:
        rows.extend(_gap_rows(lines, covered, turn.line_start - 1))
        covered = turn.line_end + 1
        counts = said.get(turn.line_start)
        speaker = mask_secrets(turn.speaker)[0]  # a dial-in's phone number, a guest's email
        if counts:
            parts = [
                _plural(counts[kind], kind, "entities" if kind == "entity" else None)
                + (" merged" if kind == "duplicate node" else "")
                for kind in ("node", "duplicate node", "entity", "relation")
                if counts[kind]
            ]
            result = f"{speaker}: {', '.join(parts)}"
        elif failed:
            result = f"{speaker}: nothing: {draft.skip_reason}"
        else:
            result = f"{speaker}: nothing: {silence_reason(turn)}"
        rows.append(
            CoverageRow(turn.line_start, turn.line_end, result + _read_instead(extraction), turn.pointer)
        )
    rows.extend(_gap_rows(lines, covered, chunk.line_end))
    return rows


def _read_instead(extraction: Extraction) -> str:
    """What a coverage row adds when the model failed on the chunk and the rules read it instead."""
    return f" (the model failed: {extraction.failure}; read by the rules)" if extraction.failure else ""


def _gap_rows(lines: list[str], first: int, last: int) -> list[CoverageRow]:
    """Rows for the non-blank lines first..last that belong to no turn."""
    rows: list[CoverageRow] = []
    start = None
    for number in range(first, last + 2):
        blank = number > last or not lines[number - 1].strip()
        if not blank and start is None:
            start = number
        elif blank and start is not None:
            rows.append(CoverageRow(start, number - 1, "nothing: not a message (system, tool or unreadable)"))
            start = None
    return rows


def _row(extraction: Extraction, fresh: int, merged: int, entity_count: int) -> CoverageRow:
    """A chunk's coverage row (see `_coverage_result`)."""
    chunk = extraction.chunk
    result = _coverage_result(extraction, fresh, merged, entity_count) + _read_instead(extraction)
    return CoverageRow(chunk.line_start, chunk.line_end, result)


def _coverage_result(extraction: Extraction, fresh: int, merged: int, entity_count: int) -> str:
    """Say what a chunk produced (new nodes, nodes merged into others', entities), or why nothing."""
    chunk = extraction.chunk
    parts = []
    if fresh:
        parts.append(_plural(fresh, "node"))
    if merged:
        parts.append(f"{_plural(merged, 'duplicate node')} merged")
    if entity_count:
        parts.append(_plural(entity_count, "entity", "entities"))
    if extraction.draft.relations:
        parts.append(_plural(len(extraction.draft.relations), "relation"))
    if parts:
        return ", ".join(parts)
    if extraction.draft.skip_reason:
        return f"nothing: {extraction.draft.skip_reason}"
    if chunk.kind == "frontmatter":
        return "nothing: properties only (structural)"
    if extraction.dropped:
        return f"nothing: {len(extraction.dropped)} item(s) failed validation"
    return "nothing: no statement found"


def _plural(count: int, word: str, plural: str | None = None) -> str:
    return f"{count} {word if count == 1 else (plural or word + 's')}"


def _tag_tree(
    node_groups: dict[NodeKey, NodeGroup],
    repeated: dict[str, list[NodeKey]],
    hints: Mapping[str, str],
    memory: LinkMemory | None = None,
) -> TagTree:
    """The corpus's tag tree, from every node to be made (consolidated ones included) before any is made.

    With a memory, last pass's tree when its nodes carried the same tags from the same files.
    """
    tagged = [group.tagged() for group in node_groups.values()]
    for title_key, keys in repeated.items():
        if ("semantic", title_key, "") not in node_groups:
            episodes = [node_groups[key] for key in keys]
            tagged.append(
                TaggedNode(
                    tuple(sorted({p for g in episodes for p in g.paths()})),
                    tuple(sorted({t for g in episodes for t in g.tags()})),
                )
            )
    if memory is None:
        return build_tag_tree(tagged, hints)
    last = memory.last
    if last.settled and last.tree is not None and last.hints == hints and same_multiset(tagged, last.tagged):
        tree = last.tree
    else:
        tree = build_tag_tree(tagged, hints)
    memory.made.tagged, memory.made.tree, memory.made.hints = tagged, tree, dict(hints)
    return tree


def _canonical_tags(
    tags: tuple[str, ...], tree: TagTree, seen: dict[tuple[str, ...], tuple[str, ...]]
) -> tuple[str, ...]:
    """Tags under their canonical paths; nodes share tag sets, so each set is mapped once."""
    canonical = seen.get(tags)
    if canonical is None:
        canonical = seen[tags] = tree.apply(tags)
    return canonical


def tag_counts(nodes: Sequence[Node]) -> tuple[tuple[str, int], ...]:
    """Count nodes under every tag path, each parent level included."""
    counts: Counter[str] = Counter()
    for node in nodes:
        paths: set[str] = set()
        for tag in node.tags:
            parts = tag.split("/")
            paths.update("/".join(parts[: i + 1]) for i in range(len(parts)))
        counts.update(paths)
    return tuple(sorted(counts.items()))


def _predicates(relations: Sequence[Relation]) -> tuple[tuple[str, str, int], ...]:
    counts: Counter[tuple[str, str]] = Counter((r.relation, r.label) for r in relations)
    return tuple(sorted((p, label, n) for (p, label), n in counts.items()))


class LinkState:
    """Pass 2 over a corpus that changes a source at a time: the inputs, the graph, and what to reuse."""

    def __init__(
        self,
        sources: Iterable[Source],
        extractions: Iterable[Extraction],
        options: Mapping[str, Any],
    ) -> None:
        self.sources = {source.path: source for source in sources}
        self.extractions: dict[str, list[Extraction]] = defaultdict(list)
        for extraction in extractions:
            self.extractions[extraction.chunk.source_path].append(extraction)
        self.options = dict(options)
        self.memory = LinkMemory()
        self.graph = self._link(self.sources, self.extractions)

    @classmethod
    def build(cls, sources: Sequence[Source], extractions: Sequence[Extraction], **options: Any) -> LinkState:
        """Link a corpus from scratch, keeping what a later `update` can reuse; `options` are `link`'s."""
        if "taken" in options:
            options["taken"] = tuple(options["taken"])  # read at every update, not only once
        return cls(sources, extractions, options)

    def update(
        self,
        changed_sources: Iterable[Source],
        changed_extractions: Iterable[Extraction],
        removed_paths: Iterable[str] = (),
    ) -> Graph:
        """The graph after sources changed (each with all its extractions) or went; also kept as `graph`.

        When pass 2 fails, the state is left as it was.
        """
        sources, extractions = dict(self.sources), dict(self.extractions)
        for path in removed_paths:
            sources.pop(path, None)
            extractions.pop(path, None)
        changed: set[str] = set()
        for source in changed_sources:
            sources[source.path] = source
            extractions[source.path] = []
            changed.add(source.path)
        for extraction in changed_extractions:
            if extraction.chunk.source_path not in changed:
                raise ValueError(
                    f"{extraction.chunk.source_path}: an extraction of a source not among the changed"
                )
            extractions[extraction.chunk.source_path].append(extraction)
        self.graph = self._link(sources, extractions)
        self.sources, self.extractions = sources, extractions
        return self.graph

    def _link(self, sources: Mapping[str, Source], extractions: Mapping[str, list[Extraction]]) -> Graph:
        # In path order, as a build hands them over (pass 2's result does not depend on it).
        paths = sorted(sources)
        drafts = [x for path in paths for x in extractions.get(path, ())]
        graph = link([sources[path] for path in paths], drafts, memory=self.memory, **self.options)
        self.memory.release()  # no pages to write first: what the pass replaced goes now
        return graph
