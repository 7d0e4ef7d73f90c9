"""Render: a pure function from the Graph to pages (vault-relative path → generated text, made on demand)."""

from __future__ import annotations

import hashlib
import heapq
import json
import operator
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from datetime import date
from functools import lru_cache, partial
from itertools import chain
from operator import attrgetter
from pathlib import Path
from typing import TYPE_CHECKING, Generic, TypeVar, cast

import jinja2

from kgvault.extract.patterns import FUNCTIONAL_PREDICATES
from kgvault.layout import FOLDERS, MARKER, TABLE_DELIMITER, packaged_templates
from kgvault.names import normalize_name
from kgvault.properties import PropertyValue, clean_text, plain_text, render_properties
from kgvault.records import Entity, Evidence, Graph, Node, Relation, SourceSummary, record
from kgvault.templating import direct_call, environment, load, render_template
from kgvault.write import sha256

if TYPE_CHECKING:
    from kgvault.page_ledger import InputDigests, PageLedger

RELATION_KEYS = (
    "from",
    "relation",
    "label",
    "to",
    "statement",
    "confidence",
    "valid_at",
    "invalid_at",
    "evidence",
)
# The Obsidian property type of every field kgvault writes (.obsidian/types.json).

_WIKILINK = re.compile(r"(!?)\[\[([^\[\]\n]+?)\]\]")
_FENCE = re.compile(r"^\s*(```|~~~)")
_INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1")
_VALID_TAG = re.compile(r"^[^\W\d_][\w\-]*(?:/[\w\-]+)*$|^\w[\w\-]*(?:/[\w\-]+)*$")

_NODE_FOLDERS = (f"{FOLDERS['episodic']}/", f"{FOLDERS['semantic']}/")
_LINK_LABELS = {"causes": "causes", "precedes": "precedes", "related_to": "is related to"}


@record
class EntityName:
    """An entity as a page that links to it sees it: the `entity`/`entities` of node and entity templates."""

    id: str
    title: str
    entity_type: str


@record
class NodeName:
    """A node as a page listing it sees it: the `timeline`, `facts`, `nodes`, `key_claims` of templates."""

    id: str
    title: str
    memory_layer: str
    timestamp: date | None
    superseded_by: tuple[str, ...]

    @classmethod
    def of(cls, node: Node) -> NodeName:
        return cls(node.id, node.title, node.memory_layer, node.timestamp, node.superseded_by)


R = TypeVar("R")
V = TypeVar("V")


class _ByIdentity(Generic[R, V]):
    """One value per record object, kept from one use to the next (each holds its record, so an id
    is never another's): values made from the very same records are the very same objects."""

    def __init__(self) -> None:
        self._last: dict[int, tuple[R, V]] = {}
        self._now: dict[int, tuple[R, V]] = {}

    def begin(self) -> None:
        """Start a use: keep what the last one made (an empty one keeps the one before)."""
        self._last, self._now = self._now or self._last, {}

    def get(self, record: R, make: Callable[[R], V]) -> V:
        key = id(record)
        kept = self._now.get(key) or self._last.get(key)
        if kept is None or kept[0] is not record:
            kept = (record, make(record))
        self._now[key] = kept
        return kept[1]


class _Names:
    """Names of nodes and entities as pages show them, one per record object, kept from the last
    render to the next: a plan equal to last build's is found equal without comparing its names
    field by field."""

    def __init__(self) -> None:
        self.nodes: _ByIdentity[Node, NodeName] = _ByIdentity()
        self.entities: _ByIdentity[Entity, EntityName] = _ByIdentity()

    def begin(self) -> None:
        self.nodes.begin()
        self.entities.begin()

    def node(self, node: Node) -> NodeName:
        return self.nodes.get(node, NodeName.of)

    def entity(self, entity: Entity) -> EntityName:
        return self.entities.get(entity, _entity_name)


def _entity_name(entity: Entity) -> EntityName:
    return EntityName(entity.id, entity.title, entity.entity_type)


@record
class Plan:
    """What one page is made from: its template, its properties and every value the template reads."""

    template: str
    properties: Mapping[str, PropertyValue] | None
    values: dict[str, object]
    made_from: tuple[object, ...] = field(default=(), compare=False)
    """The records an entity or summary page's values were made of (not shown, not compared): a
    page made from the same ones again is that plan again (`PageMemory.reusable_listing`)."""


@dataclass(frozen=True, slots=True)
class Linker:
    """Write wikilinks that resolve whatever Obsidian's link setting is: `[[prefix/folder/id|Title]]`."""

    prefix: str = ""
    """Path of the kgvault folder inside an enclosing Obsidian vault, with a trailing `/`, or empty."""

    def target(self, kind: str, page_id: str) -> str:
        return f"{self.prefix}{FOLDERS[kind]}/{page_id}"

    @direct_call
    def link(self, kind: str, page_id: str, title: str, *, in_table: bool = False) -> str:
        pipe = "\\|" if in_table else "|"
        return f"[[{self.target(kind, page_id)}{pipe}{display(title)}]]"


@lru_cache(maxsize=1 << 16)
def display(title: str) -> str:
    """Make a title safe as a link's display text: one line, no brackets or pipes."""
    text = clean_text(title)
    text = text.replace("[", "(").replace("]", ")").replace("|", "/") or "untitled"
    # "%%" would open an Obsidian comment that runs on to the marker line.
    return text.replace("%%", "%\u200b%") if "%%" in text else text


def valid_tag(tag: str) -> bool:
    """A tag Obsidian accepts: letters, digits, `_`, `-`, `/` between non-empty levels, not all digits."""
    return bool(_VALID_TAG.match(tag)) and not tag.replace("/", "").isdigit() and tag[:1] != "_"


class PageMemory:
    """What each page was made from last time and the hash of its text, kept by a long-lived process.

    `kgvault watch` keeps one between rebuilds: a page whose plan equals the one that gave a text
    last time gives that text again, so it need not be rendered to be found unchanged.
    """

    MAX_PAGES = 50_000
    """A bigger vault keeps no plans: they hold the whole graph between builds."""

    def __init__(self) -> None:
        self.salt = ""
        self.pages: dict[str, tuple[Plan, str]] = {}
        self.around: Around | None = None
        """What node pages read of the rest of the graph, as of the last build that wrote every page."""
        self._pending: Around | None = None
        self.seen: set[str] = set()
        """The pages this build has planned (a page the writer skips keeps no plan of an older build)."""
        self._relations: tuple[Sequence[Relation], str] = ((), "")
        self._relation_lines: _ByIdentity[Relation, str] = _ByIdentity()
        """Each relation's line of `relations.jsonl`."""
        self.names = _Names()
        self.contexts = _ContextMemory()

    def start(self, salt: str) -> None:
        """Begin a build: what was made with other templates or another link prefix is forgotten."""
        self.seen = set()
        if salt != self.salt:
            self.salt, self.pages, self.around, self._relations = salt, {}, None, ((), "")
            self._relation_lines = _ByIdentity()

    def checkpoint(self) -> dict[str, tuple[Plan, str]]:
        """The plans as they stand, for `rollback`."""
        return dict(self.pages)

    def rollback(self, plans: dict[str, tuple[Plan, str]]) -> None:
        """Forget the plans of a build that wrote nothing (back to `checkpoint`'s): they were made
        against a graph no build wrote, and the next build would take them for its last complete
        build's, against which it finds what changed."""
        self.pages = plans
        self.seen = set()

    def changed_since(self, around: Around) -> Changed | None:
        """What changed around node pages since the last complete build; None when there is none."""
        self._pending = around
        if self.around is None:
            return None
        return Changed.between(self.around, around, self.contexts.touched_since(self.around, around))

    def keep_only(self, paths: Iterable[str], *, complete: bool = True) -> None:
        """Forget the pages a build no longer makes, or did not plan; after an incomplete build, reuse
        no plan unchecked."""
        wanted = set(paths)
        seen = self.seen
        self.pages = {path: kept for path, kept in self.pages.items() if path in wanted and path in seen}
        self.around = self._pending if complete else None
        self._pending = None
        self.contexts.settled(self.around)

    def relations_text(self, relations: Sequence[Relation]) -> str:
        """`relations.jsonl`: last build's text when made from the very same relations."""
        last, text = self._relations
        if not text or len(last) != len(relations) or not all(map(operator.is_, last, relations)):
            # An edit changes a few relations: the others' lines are last build's.
            lines = self._relation_lines
            lines.begin()
            text = "".join(lines.get(r, _relation_line) for r in sorted(relations, key=_relation_order))
            self._relations = (relations, text)
        return text

    def reusable_listing(self, path: str, made_from: tuple[object, ...]) -> Plan | None:
        """Last build's plan of an entity or summary page, when made from these very (or equal) records."""
        kept = self.pages.get(path)
        return kept[0] if kept is not None and kept[0].made_from == made_from else None

    def reusable(
        self, path: str, node: Node, changed: Changed, touched: AbstractSet[str] | None = None
    ) -> Plan | None:
        """Last build's plan of a node's page, when made from this very node and nothing it shows
        changed (`touched`: the ids of the nodes whose pages `changed` touches, when known)."""
        kept = self.pages.get(path)
        if kept is None or kept[0].values.get("node") is not node:
            return None
        if node.id in touched if touched is not None else changed.touches(node):
            return None
        return kept[0]


@dataclass(frozen=True, slots=True)
class Around:
    """What a node's page reads of the rest of the graph, per id (see `render`'s `node_page`)."""

    nodes: dict[str, tuple[str, str]]
    """Node id -> (memory layer, title): the links to superseding, conflicting and linked nodes."""
    entities: dict[str, tuple[EntityName, list[Relation]]]
    """Entity id -> its name and its outgoing relations: the node's entities and relation lines."""
    summaries: dict[str, tuple[str, str]]
    """Source path -> (summary id, source title): links to the node's sources."""
    names: dict[str, str]
    """Normalized name -> entity id: where a wikilink in a node's text points."""

    @classmethod
    def of(cls, ctx: _Context) -> Around:
        return cls(
            nodes={node.id: (node.memory_layer, node.title) for node in ctx.graph.nodes},
            entities={
                entity_id: (name, ctx.outgoing.get(entity_id, []))
                for entity_id, name in ctx.entity_names.items()
            },
            summaries={path: (s.id, s.source.title) for path, s in ctx.summary_by_path.items()},
            names={name: entity.id for name, entity in ctx.entity_by_name.items()},
        )

    def patched(self, last: _Context, ctx: _Context, nodes: _Diff[Node]) -> Around:
        """What node pages read of `ctx`, given this was what they read of `last` and these nodes changed."""
        by_id = dict(self.nodes)
        for node in nodes.gone:
            by_id.pop(node.id, None)
        for node in nodes.came:
            by_id[node.id] = (node.memory_layer, node.title)
        same_summaries = ctx.summary_by_path is last.summary_by_path
        return Around(
            nodes=by_id,
            entities={
                entity_id: (name, ctx.outgoing.get(entity_id, []))
                for entity_id, name in ctx.entity_names.items()
            },
            summaries=self.summaries
            if same_summaries
            else {path: (s.id, s.source.title) for path, s in ctx.summary_by_path.items()},
            names=self.names
            if ctx.entity_by_name is last.entity_by_name
            else {name: entity.id for name, entity in ctx.entity_by_name.items()},
        )


@dataclass(frozen=True, slots=True)
class Changed:
    """The ids, paths and names whose part in a node's page differs from the last complete build."""

    nodes: frozenset[str]
    relations: dict[str, list[Relation]]
    """Per entity, its outgoing relations that came, went or changed (both versions of a changed one)."""
    paths: frozenset[str]
    names: bool
    entity_names: frozenset[str]
    """Entities whose name changed, came or went (what every page naming them shows)."""

    @classmethod
    def between(cls, before: Around, after: Around, touched: AbstractSet[str] | None = None) -> Changed:
        """What differs; `touched` are the only node ids whose entries may differ, when known."""
        relations: dict[str, list[Relation]] = {}
        entity_names = set()
        for key in _changed_keys(before.entities, after.entities):
            old, new = before.entities.get(key), after.entities.get(key)
            if old is None or new is None or old[0] != new[0]:
                entity_names.add(key)
            else:
                # An edit changes a relation's lines more often than anything else: only pages
                # that show one of these relations (or showed it) read differently.
                relations[key] = _symmetric_difference(old[1], new[1])
        if touched is None:
            nodes = _changed_keys(before.nodes, after.nodes)
        else:
            nodes = frozenset(key for key in touched if before.nodes.get(key) != after.nodes.get(key))
        return cls(
            nodes=nodes,
            relations=relations,
            paths=_changed_keys(before.summaries, after.summaries),
            names=before.names != after.names,
            entity_names=frozenset(entity_names),
        )

    def touches(self, node: Node) -> bool:
        """Whether the node's page may read differently now (its node itself being the same)."""
        if self.names and "[[" in node.body:
            return True
        if not self.entity_names.isdisjoint(node.entities):
            return True
        # Asked of every node page: most name none of the entities whose relations changed.
        if not self.relations.keys().isdisjoint(node.entities) and self._shows_changed_relation(node):
            return True
        if self.paths and any(evidence.path in self.paths for evidence in node.evidence):
            return True
        if self.nodes:
            # Most nodes link to no other node: asked of every node page, so the cheap test first.
            if not (
                node.superseded_by or node.conflicts_with or node.derived_from or node.causes
                or node.precedes or node.related_to or node.links
            ):  # fmt: skip
                return False
            linked = (
                node.superseded_by, node.conflicts_with, node.derived_from, node.causes, node.precedes,
                node.related_to, [link.to_id for link in node.links],
            )  # fmt: skip
            return any(not self.nodes.isdisjoint(ids) for ids in linked)
        return False

    def nodes_touched(self, ctx: _Context, linked_from: Mapping[str, AbstractSet[str]]) -> set[str] | None:
        """The ids of the nodes `touches` says yes to, found from what changed, not by asking every
        node; None when each node must be asked (a name or a source's link changed)."""
        if self.names or self.paths:
            return None
        found: set[str] = set()
        by_entity = ctx.nodes_by_entity
        for entity_id in self.entity_names:
            found.update(node.id for node in by_entity.get(entity_id, ()))
        for entity_id in self.relations:
            shown = (node.id for node in by_entity.get(entity_id, ()) if self._shows_changed_relation(node))
            found.update(shown)
        for node_id in self.nodes:
            found.update(linked_from.get(node_id, ()))
        return found

    def _shows_changed_relation(self, node: Node) -> bool:
        """Whether a changed relation is (or was) one the node's page lists: see `node_relations`."""
        for entity_id in node.entities:
            for relation in self.relations.get(entity_id, ()):
                if relation.to_id in node.entities and not set(node.evidence).isdisjoint(relation.evidence):
                    return True
        return False


def _symmetric_difference(before: list[Relation], after: list[Relation]) -> list[Relation]:
    """The relations in one list only (an unchanged relation is often the very same object)."""
    kept = set(map(id, before)) & set(map(id, after))
    old = [r for r in before if id(r) not in kept]
    new = [r for r in after if id(r) not in kept]
    return [r for r in old if r not in new] + [r for r in new if r not in old]


def _changed_keys(before: Mapping[str, object], after: Mapping[str, object]) -> frozenset[str]:
    """The keys present in one mapping only, or with different values."""
    return frozenset(key for key in before.keys() | after.keys() if before.get(key) != after.get(key))


class Pages(Mapping[str, str]):
    """Every page of a vault by path, each rendered when it is read (a big vault never holds all at once).

    Reading a page twice renders it twice: write it down if you need it again.
    """

    def __init__(
        self,
        makers: dict[str, Callable[[], str | Plan]],
        write: Callable[[Plan], str],
        memory: PageMemory | None = None,
        reused: Mapping[str, str] | None = None,
        made_of: Mapping[str, Node | tuple[object, ...]] | None = None,
        salt: str = "",
        around: Around | None = None,
        digests: InputDigests | None = None,
        candidates: Sequence[str] | None = None,
        unchanged: Callable[[str], str | None] | None = None,
    ) -> None:
        self._makers = makers
        self._candidates = candidates
        """The only pages that may need making, when known: all `prepare` looks at."""
        self._unchanged = unchanged
        """The digest of a page known unchanged without its maker, asked when the writer gets to it."""
        self._write = write
        self._memory = memory
        self._reused = reused or {}
        """Pages whose kept plan is known to hold (see `PageMemory.reusable`, `page_ledger`), with
        their digests."""
        self.made_of = made_of or {}
        """What each node, entity and summary page is made of, by path, when a ledger wants it: a
        node page's node, a listing page's records (see `Plan.made_from`)."""
        self.digests = digests
        """Those records' digests, each worked out once (`page_ledger.InputDigests`)."""
        self.salt = salt
        """What every page's text depends on besides its plan (see `_salt`), when it was needed."""
        self.around = around
        """What node pages read of the rest of the graph, when it was needed."""
        self._planned: tuple[str, str | Plan] | None = None
        """The page `known_digest` looked at: it is usually read next."""
        self._prepared: dict[str, tuple[str | None, str | None]] = {}
        """Per page `prepare` got to, its known digest or its text (see `prepare`)."""

    def prepare(self, most: int = 2_000, folders: tuple[str, ...] | None = None) -> None:
        """Find each page's digest, or render it, ahead of writing: in a pause the caller has anyway.

        Watch does it while its debounce runs out. At most `most` rendered texts are held; the
        pages after the one that reached that are made when read, as usual. With `folders`, only
        the pages in those folders are prepared.
        """
        held = 0
        inside = tuple(f"{folder}/" for folder in folders) if folders is not None else ("",)
        reused = self._reused
        paths: Iterable[str] = self._makers
        if self._candidates is not None:
            # Of the node pages only these may need making; the others are known when the writer asks.
            others = (path for path in self._makers if not path.startswith(_NODE_FOLDERS))
            paths = self._candidates if set(inside) <= set(_NODE_FOLDERS) else chain(self._candidates, others)
        for path in paths:
            # A page known unchanged is known when the writer asks: nothing to prepare.
            if path in reused or not path.startswith(inside):
                continue
            if held >= most:
                return
            digest = self.known_digest(path)
            if digest is None:
                self._prepared[path] = (None, self[path])
                held += 1
            else:
                self._prepared[path] = (digest, None)

    def fresh(self) -> list[str]:
        """The pages `prepare` rendered, their digest not known without: the writer writes them first."""
        return [path for path, (digest, _) in self._prepared.items() if digest is None]

    def __getitem__(self, path: str) -> str:
        prepared = self._prepared.pop(path, None)
        if prepared is not None and prepared[1] is not None:
            return prepared[1]
        planned, self._planned = self._planned, None
        made = planned[1] if planned is not None and planned[0] == path else self._makers[path]()
        if isinstance(made, str):
            return made
        text = self._write(made)
        if self._memory is not None:
            self._memory.pages[path] = (made, sha256(text))
            self._memory.seen.add(path)
        return text

    def known_digest(self, path: str) -> str | None:
        """The sha256 of the page's text when the page memory holds an equal plan (or the ledger
        knows it), else None."""
        if self._memory is None:
            return self._reused.get(path)
        prepared = self._prepared.get(path)
        if prepared is not None:
            return prepared[0]
        known = self._reused.get(path)
        if known is None and self._unchanged is not None:
            known = self._unchanged(path)
        if known is not None:
            self._memory.seen.add(path)
            return known
        made = self._makers[path]()
        self._planned = (path, made)
        kept = self._memory.pages.get(path)
        if isinstance(made, str) or kept is None or (kept[0] is not made and kept[0] != made):
            return None
        # The new plan is kept, so the last build's records can go.
        self._memory.pages[path] = (made, kept[1])
        self._memory.seen.add(path)
        return kept[1]

    @property
    def memory(self) -> PageMemory | None:
        return self._memory

    def __contains__(self, path: object) -> bool:
        return path in self._makers

    def __iter__(self) -> Iterator[str]:
        return iter(self._makers)

    def __len__(self) -> int:
        return len(self._makers)


def render(
    graph: Graph,
    *,
    templates: Path | None = None,
    link_prefix: str = "",
    orphaned: Sequence[str] = (),
    memory: PageMemory | None = None,
    ledger: PageLedger | None = None,
    for_ledger: bool = False,
) -> Pages:
    """Plan every page of the vault; Markdown pages end with the user-region marker line.

    Which pages there are is known at once; each page's text is rendered only when it is read,
    so writing a vault of 200,000 pages never holds them all in memory. Without a page `memory`,
    a `ledger` of the last build (`page_ledger`) tells the pages that read as they did then;
    `for_ledger` asks for what a new ledger is made of (`Pages.made_of`, `salt`, `around`).
    """
    env = environment(templates)
    linker = Linker(link_prefix)
    # Every node, entity and summary page, the index, the ontology, the base and relations.jsonl.
    if memory is not None and len(graph.nodes) + len(graph.entities) + len(graph.summaries) + 4 > (
        PageMemory.MAX_PAGES
    ):
        memory.start("")  # too many plans to hold between builds: every page is rendered
        memory.names = _Names()
        memory.contexts = _ContextMemory()
        memory = None
    names = memory.names if memory is not None else _Names()
    names.begin()
    if memory is not None:
        ctx, around_now = memory.contexts.make(graph, linker, names)
    else:
        ctx, around_now = _Context.build(graph, linker, names), None
    # Each template is looked up once per render: a lookup checks the file's time on disk.
    loaded: dict[str, jinja2.Template] = {}

    def write(plan: Plan) -> str:
        template = plan.template
        if template not in loaded:
            loaded[template] = load(env, template)
        body = render_template(loaded[template], link=linker.link, **plan.values).strip("\n")
        head = render_properties(plan.properties) if plan.properties is not None else ""
        return f"{head}{_guard_marker(body)}\n\n{MARKER}\n"

    def page(properties: Mapping[str, PropertyValue] | None, template: str, **values: object) -> str:
        return write(Plan(template, properties, values))

    changed: Changed | None = None  # set below, before any page is made

    # A page's plan holds every value its template may read, and nothing more: two equal plans
    # give the same text (a page that names an entity sees its name, not all of it).
    def node_page(path: str, node: Node) -> Plan:
        if changed is not None and memory is not None:
            # The same node object as last build, and nothing it shows changed: the same plan.
            kept = memory.reusable(path, node, changed, touched)
            if kept is not None:
                return kept
        relations = ctx.node_relations(node)
        return Plan(
            "node.md.j2",
            _node_properties(node, ctx),
            {
                "node": node,
                "body": _rewrite_links(node.body, ctx.entity_by_name, linker),
                "relations": relations,
                "links": ctx.node_links(node),
                "entity": ctx.entities_of(relations),
                "sources": ctx.node_sources(node),
            },
        )

    def entity_page(path: str, entity: Entity) -> Plan:
        made_from = ctx.entity_made_from(entity)
        outgoing, incoming = made_from[1], made_from[2]
        if changed is not None and memory is not None:
            # Made from the same entity, relations and nodes as the kept plan, and no name it shows
            # nor link to a source changed since: the same plan, not made again.
            kept = memory.reusable_listing(path, made_from)
            if (
                kept is not None
                and changed.entity_names.isdisjoint(cast("dict[str, EntityName]", kept.values["entities"]))
                and not (changed.paths and any(e.path in changed.paths for e in entity.evidence))
            ):
                return kept
        return Plan(
            "entity.md.j2",
            _entity_properties(entity),
            {
                "entity": entity,
                "outgoing": outgoing,
                "incoming": incoming,
                "entities": ctx.entities_of(outgoing, incoming),
                "timeline": list(map(names.node, ctx.timeline(entity.id))),
                "facts": list(map(names.node, ctx.facts(entity.id))),
                "mentioned_in": ctx.mentioned_in(entity),
            },
            made_from,
        )

    def summary_page(path: str, summary: SourceSummary) -> Plan:
        made_from = ctx.summary_made_from(summary)
        listed = made_from[1]
        if changed is not None and memory is not None:
            # The same summary and nodes as the kept plan, and no entity name it shows changed.
            kept = memory.reusable_listing(path, made_from)
            if kept is not None and changed.entity_names.isdisjoint(summary.entity_ids):
                return kept
        return Plan(
            "summary.md.j2",
            _summary_properties(summary),
            {
                "summary": summary,
                "nodes": list(map(names.node, listed)),
                "key_claims": list(map(names.node, ctx.key_claims(summary))),
                "entities": [ctx.entity_names[e] for e in summary.entity_ids],
                "coverage": [
                    (r.pointer or f"{r.line_start}-{r.line_end}", _table_cell(r.result))
                    for r in summary.coverage
                ],
            },
            made_from,
        )

    def index_page() -> str:
        return page(
            None,
            "index.md.j2",
            graph=graph,
            counts=ctx.counts(),
            tag_tree=_tag_tree(graph.tag_counts),
            top_entities=ctx.top_entities(15),
            latest=ctx.latest_episodes(15),
            orphaned=sorted(orphaned),
            prefix=link_prefix,
            review=[(ctx.node_by_id[a], ctx.node_by_id[b]) for a, b in graph.conflicts],
        )

    def ontology_page() -> str:
        return page(
            None,
            "ontology.md.j2",
            entity_types=ctx.entity_types(),
            predicates=[(p, _table_cell(clean_text(label)), n) for p, label, n in graph.predicates],
            functional=frozenset(graph.functional) or FUNCTIONAL_PREDICATES,
            review=[(ctx.node_by_id[a], ctx.node_by_id[b]) for a, b in graph.conflicts],
            tag_tree=_tag_tree(graph.tag_counts),
            merges=[
                (ctx.entity_by_id[e], _table_cell(clean_text(names)), _table_cell(clean_text(why)))
                for e, names, why in graph.merges
            ],
            tag_changes=[
                (_table_cell(a), _table_cell(b), _table_cell(why)) for a, b, why in graph.tag_changes
            ],
            split_candidates=graph.split_candidates,
            corrections=[
                (_table_cell(clean_text(what)), _table_cell(clean_text(outcome)))
                for what, outcome in graph.corrections
            ],
        )

    ledgered = memory is None and (ledger is not None or for_ledger)
    wanted = memory is not None or ledgered
    salt = _salt(templates, link_prefix) if wanted else ""
    around = around_now or (Around.of(ctx) if wanted else None)
    touched: set[str] | None = None
    if memory is not None and around is not None:
        memory.start(salt)
        changed = memory.changed_since(around)
        if changed is not None:
            touched = changed.nodes_touched(ctx, memory.contexts.linked_from)
    makers: dict[str, Callable[[], str | Plan]] = {}
    # The node pages known unchanged without asking their makers (most of a rebuild's pages).
    reused: dict[str, str] = {}
    made_of: dict[str, Node | tuple[object, ...]] = {}
    # With the nodes that came or went since the last complete build known too, only their pages
    # and the touched ones may need making: the others are found unchanged when the writer asks,
    # after the pages an edit made are written.
    moved = (
        memory.contexts.touched_since(memory.around, around)
        if touched is not None and memory is not None and memory.around is not None and around is not None
        else None
    )
    for node in graph.nodes:
        path = f"{FOLDERS[node.memory_layer]}/{node.id}.md"
        makers[path] = partial(node_page, path, node)
        if ledgered:
            made_of[path] = node
        if (
            moved is None
            and changed is not None
            and memory is not None
            and memory.reusable(path, node, changed, touched) is not None
        ):
            reused[path] = memory.pages[path][1]
    for entity in graph.entities:
        path = f"{FOLDERS['entity']}/{entity.id}.md"
        makers[path] = partial(entity_page, path, entity)
        if ledgered:
            made_of[path] = ctx.entity_made_from(entity)
    for summary in graph.summaries:
        path = f"{FOLDERS['summary']}/{summary.id}.md"
        makers[path] = partial(summary_page, path, summary)
        if ledgered:
            made_of[path] = ctx.summary_made_from(summary)
    digests = None
    if ledgered:
        from kgvault.page_ledger import InputDigests, unchanged

        digests = InputDigests()
        if ledger is not None and around is not None and ledger.salt == salt:
            reused = unchanged(ledger, around, made_of, digests)
    makers["index.md"] = index_page
    makers["ontology.md"] = ontology_page
    makers["kgvault.base"] = partial(render_template, load(env, "kgvault.base.j2"), prefix=link_prefix)
    makers["relations.jsonl"] = partial(
        render_relations if memory is None else memory.relations_text, graph.relations
    )
    candidates: list[str] | None = None
    kept_digest: Callable[[str], str | None] | None = None
    if moved is not None and touched is not None and changed is not None and memory is not None:
        by_id, kept_memory, was, untouched = ctx.node_by_id, memory, changed, touched
        candidates = sorted(
            f"{FOLDERS[node.memory_layer]}/{node.id}.md" for node in map(by_id.get, moved | touched) if node
        )

        def kept_digest(path: str) -> str | None:
            """The digest of a node page whose kept plan is of this graph's very node, untouched."""
            kept = kept_memory.pages.get(path)
            node = kept[0].values.get("node") if kept is not None else None
            if not isinstance(node, Node) or by_id.get(node.id) is not node:
                return None
            return kept_memory.pages[path][1] if kept_memory.reusable(path, node, was, untouched) else None

    return Pages(makers, write, memory, reused, made_of, salt, around, digests, candidates, kept_digest)


def _salt(templates: Path | None, link_prefix: str) -> str:
    """What every page's text depends on besides its plan: the templates' bytes and the link prefix."""
    digest = hashlib.sha256(link_prefix.encode("utf-8"))
    for folder in (templates, packaged_templates()):
        if folder is not None and folder.is_dir():
            for path in sorted(p for p in folder.rglob("*") if p.is_file()):
                digest.update(
                    str(path).encode("utf-8", "surrogateescape") + b"\0" + path.read_bytes() + b"\0"
                )
    return digest.hexdigest()


def render_relations(relations: Iterable[Relation]) -> str:
    """One compact JSON object a line, keys in contract order, sorted by from, relation, to."""
    return "".join(map(_relation_line, sorted(relations, key=_relation_order)))


def _relation_order(relation: Relation) -> tuple[str, str, str]:
    return relation.from_id, relation.relation, relation.to_id


def _relation_line(rel: Relation) -> str:
    """A relation's line of `relations.jsonl`, its newline included."""
    values = (
        rel.from_id,
        rel.relation,
        rel.label,
        rel.to_id,
        rel.statement,
        rel.confidence,
        rel.valid_at.isoformat() if rel.valid_at else None,
        rel.invalid_at.isoformat() if rel.invalid_at else None,
        [e.ref() for e in rel.evidence],
    )
    data = dict(zip(RELATION_KEYS, values, strict=True))
    return _compact_json(data) + "\n"


_compact_json = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
"""`json.dumps(value, ensure_ascii=False, separators=(",", ":"))`, without an encoder made per line."""


def _guard_marker(text: str) -> str:
    """Keep source text from forging the user-region marker (it would move the user's boundary)."""
    return text.replace(MARKER, MARKER.replace("%%", "%\u200b%"))


def _table_cell(text: str) -> str:
    """One line of text for a table cell: pipes escaped, and no wikilink a model or a draft made up."""
    return " ".join(text.split()).replace("|", "\\|").replace("[[", "[").replace("]]", "]")


@dataclass
class _Context:
    """Indexes over the graph that several page kinds need."""

    graph: Graph
    linker: Linker
    node_by_id: dict[str, Node]
    entity_by_id: dict[str, Entity]
    entity_by_name: dict[str, Entity]
    summary_by_path: dict[str, SourceSummary]
    outgoing: dict[str, list[Relation]]
    incoming: dict[str, list[Relation]]
    nodes_by_entity: dict[str, list[Node]]
    entity_names: dict[str, EntityName]
    summary_links: dict[str, str | None] = field(default_factory=dict)

    @classmethod
    def build(cls, graph: Graph, linker: Linker, names: _Names) -> _Context:
        entity_by_name = _entities_by_name(graph.entities)
        outgoing, incoming = _relation_indexes(graph.relations)
        nodes_by_entity: dict[str, list[Node]] = defaultdict(list)
        for node in graph.nodes:
            for entity_id in node.entities:
                nodes_by_entity[entity_id].append(node)
        return cls(
            graph=graph,
            linker=linker,
            node_by_id={n.id: n for n in graph.nodes},
            entity_by_id={e.id: e for e in graph.entities},
            entity_names={e.id: names.entity(e) for e in graph.entities},
            entity_by_name=entity_by_name,
            summary_by_path={s.source.path: s for s in graph.summaries},
            outgoing=outgoing,
            incoming=incoming,
            nodes_by_entity=dict(nodes_by_entity),
        )

    def patched(
        self,
        graph: Graph,
        nodes: _Diff[Node],
        relations: _Diff[Relation] | None,
        ranks: _GraphRanks,
        names: _Names,
    ) -> _Context:
        """The indexes over `graph`, given these are over another graph and these records changed
        (`relations` None: too many, they are indexed afresh); `ranks` order `graph`'s records.

        A record of both graphs is the very same object in each (pass 2's memory hands them back),
        so each index is this one's with the records that went taken out and those that came put in.
        """
        node_by_id = dict(self.node_by_id)
        for node in nodes.gone:
            node_by_id.pop(node.id, None)
        for node in nodes.came:
            node_by_id[node.id] = node
        if _same(self.graph.entities, graph.entities):
            entity_by_id, entity_names = self.entity_by_id, self.entity_names
            entity_by_name = self.entity_by_name
        else:
            entity_by_id = {e.id: e for e in graph.entities}
            entity_names = {e.id: names.entity(e) for e in graph.entities}
            entity_by_name = _entities_by_name(graph.entities)
        summaries = _Diff.of(self.graph.summaries, graph.summaries, len(graph.summaries) // 4)
        if summaries is None or summaries.gone or summaries.came:
            summary_by_path = {s.source.path: s for s in graph.summaries}
            moved = {s.source.path for s in (*summaries.gone, *summaries.came)} if summaries else set()
            kept = self.summary_links if summaries is not None else {}
            summary_links = {path: link for path, link in kept.items() if path not in moved}
        else:
            summary_by_path, summary_links = self.summary_by_path, dict(self.summary_links)
        if relations is None:
            outgoing, incoming = _relation_indexes(graph.relations)
        else:
            outgoing = _patched_index(self.outgoing, relations, _FROM, ranks.relations)
            incoming = _patched_index(self.incoming, relations, _TO, ranks.relations)
        return _Context(
            graph=graph,
            linker=self.linker,
            node_by_id=node_by_id,
            entity_by_id=entity_by_id,
            entity_by_name=entity_by_name,
            summary_by_path=summary_by_path,
            outgoing=outgoing,
            incoming=incoming,
            nodes_by_entity=_patched_index(self.nodes_by_entity, nodes, _ENTITIES, ranks.nodes),
            entity_names=entity_names,
            summary_links=summary_links,
        )

    def entity_made_from(self, entity: Entity) -> tuple[Entity, list[Relation], list[Relation], list[Node]]:
        """What an entity page lists: the entity, its relations out and in, the nodes naming it."""
        entity_id = entity.id
        return (
            entity,
            self.outgoing.get(entity_id, []),
            self.incoming.get(entity_id, []),
            self.nodes_by_entity.get(entity_id, []),
        )

    def summary_made_from(self, summary: SourceSummary) -> tuple[SourceSummary, list[Node]]:
        """What a summary page lists: the summary and its source's nodes."""
        return summary, [self.node_by_id[n] for n in summary.node_ids]

    def summary_link(self, path: str) -> str | None:
        # Asked for every piece of evidence of every page: a source's link is made once.
        if path not in self.summary_links:
            summary = self.summary_by_path.get(path)
            link = self.linker.link("summary", summary.id, summary.source.title) if summary else None
            self.summary_links[path] = link
        return self.summary_links[path]

    def node_sources(self, node: Node) -> list[tuple[str, Evidence]]:
        return [(link, e) for e in node.evidence if (link := self.summary_link(e.path))]

    def node_links(self, node: Node) -> list[tuple[str, str, float | None, str | None]]:
        """The node's stated links to other nodes: (label, wikilink, weight, reason)."""
        found = []
        for link in node.links:
            target = self.node_by_id.get(link.to_id)
            if target is not None:
                wikilink = self.linker.link(target.memory_layer, target.id, target.title)
                # A draft's words: "[[x]]" in them would link to nothing, "%%" open a comment.
                reason = plain_text(link.reason).replace("%%", "%\u200b%") if link.reason else None
                found.append((_LINK_LABELS[link.kind], wikilink, link.weight, reason))
        return found

    def entities_of(self, *relation_lists: list[Relation]) -> dict[str, EntityName]:
        """The names of the entities at either end of the relations, by id: what relation lines show."""
        names = self.entity_names
        return {
            end: names[end] for rels in relation_lists for rel in rels for end in (rel.from_id, rel.to_id)
        }

    def node_relations(self, node: Node) -> list[Relation]:
        """Relations between this node's entities that come from the same lines."""
        mine = set(node.entities)
        spans = set(node.evidence)
        return [
            rel
            for entity_id in node.entities
            for rel in self.outgoing.get(entity_id, [])
            if rel.to_id in mine and spans.intersection(rel.evidence)
        ]

    def timeline(self, entity_id: str) -> list[Node]:
        nodes = [n for n in self.nodes_by_entity.get(entity_id, []) if n.memory_layer == "episodic"]
        return sorted(nodes, key=lambda n: (n.timestamp.isoformat() if n.timestamp else "", n.id))

    def facts(self, entity_id: str) -> list[Node]:
        return [n for n in self.nodes_by_entity.get(entity_id, []) if n.memory_layer == "semantic"]

    def mentioned_in(self, entity: Entity) -> list[str]:
        paths = sorted({e.path for e in entity.evidence})
        return [link for p in paths if (link := self.summary_link(p))]

    def key_claims(self, summary: SourceSummary, limit: int = 5) -> list[Node]:
        rank = {"high": 0, "medium": 1, "low": 2}
        nodes = [self.node_by_id[n] for n in summary.node_ids]
        ordered = sorted(enumerate(nodes), key=lambda item: (rank[item[1].confidence], item[0]))
        return [node for _, node in ordered[:limit]]

    def counts(self) -> dict[str, int]:
        layers = [n.memory_layer for n in self.graph.nodes]
        return {
            "episodic": layers.count("episodic"),
            "semantic": layers.count("semantic"),
            "entities": len(self.graph.entities),
            "relations": len(self.graph.relations),
            "sources": len(self.graph.summaries),
        }

    def top_entities(self, limit: int) -> list[tuple[Entity, int]]:
        scored = [(e, len(self.nodes_by_entity.get(e.id, [])) + len(e.evidence)) for e in self.graph.entities]
        return sorted(scored, key=lambda item: (-item[1], item[0].id))[:limit]

    def latest_episodes(self, limit: int) -> list[Node]:
        episodes = (n for n in self.graph.nodes if n.memory_layer == "episodic")
        # The same as sorting them all, newest first, and taking `limit` (keys are unique: ids differ).
        return heapq.nlargest(
            limit, episodes, key=lambda n: (n.timestamp.isoformat() if n.timestamp else "", n.id)
        )

    def entity_types(self) -> list[tuple[str, int]]:
        counts: dict[str, int] = defaultdict(int)
        for entity in self.graph.entities:
            counts[entity.entity_type] += 1
        return sorted(counts.items())


def _relation_indexes(
    relations: Iterable[Relation],
) -> tuple[dict[str, list[Relation]], dict[str, list[Relation]]]:
    """Each entity's relations out and in, in the relations' order."""
    outgoing: dict[str, list[Relation]] = defaultdict(list)
    incoming: dict[str, list[Relation]] = defaultdict(list)
    for rel in relations:
        outgoing[rel.from_id].append(rel)
        incoming[rel.to_id].append(rel)
    return dict(outgoing), dict(incoming)


def _entities_by_name(entities: Iterable[Entity]) -> dict[str, Entity]:
    """Every entity by each of its names, normalized (the first entity wins a shared name)."""
    by_name: dict[str, Entity] = {}
    for entity in entities:
        for name in (entity.title, *entity.aliases):
            by_name.setdefault(normalize_name(name), entity)
    return by_name


@dataclass(frozen=True, slots=True)
class _Diff(Generic[R]):
    """The records of one sequence that are not (the very same objects) in another, both ways.

    The records both hold keep their order (a record that moved counts as gone and come again).
    """

    gone: list[R]
    came: list[R]
    came_at: list[int]
    """Where each record that came stands in the new sequence, in order."""

    LOOK_AHEAD = 16

    @classmethod
    def of(cls, before: Sequence[R], after: Sequence[R], most: int) -> _Diff[R] | None:
        """The difference, or None when more than `most` records differ."""
        gone: list[R] = []
        came: list[R] = []
        came_at: list[int] = []
        i = j = 0
        n, m = len(before), len(after)
        while i < n and j < m and len(gone) + len(came) <= most:
            i, j = _after_same_run(before, after, i, j)
            if i >= n or j >= m:
                break
            old, new = before[i], after[j]
            # The nearest place each turns up again in the other: what lies before it came or went.
            k = next((k for k in range(i + 1, min(i + cls.LOOK_AHEAD, n)) if before[k] is new), None)
            ahead = range(j + 1, min(j + cls.LOOK_AHEAD, m))
            l = next((l for l in ahead if after[l] is old), None)  # noqa: E741
            if k is not None and (l is None or k - i <= l - j):
                gone.extend(before[i:k])
                i = k
            elif l is not None:
                came.extend(after[j:l])
                came_at.extend(range(j, l))
                j = l
            else:  # replaced (or moved further than we look: gone here, come there)
                gone.append(old)
                came.append(new)
                came_at.append(j)
                i, j = i + 1, j + 1
        gone.extend(before[i:])
        came.extend(after[j:])
        came_at.extend(range(j, m))
        return cls(gone, came, came_at) if len(gone) + len(came) <= most else None


def _after_same_run(before: Sequence[R], after: Sequence[R], i: int, j: int) -> tuple[int, int]:
    """The positions past the run of the very same records from `before[i]` and `after[j]` on."""
    # Compared a window at a time in C, the window doubling while all match: a rebuild's
    # sequences are long runs of last build's records.
    width = 64
    while i < len(before) and j < len(after):
        same = list(map(operator.is_, before[i : i + width], after[j : j + width]))
        if not all(same):
            run = same.index(False)
            return i + run, j + run
        i, j = i + len(same), j + len(same)
        width = min(width * 2, 4096)
    return i, j


def _same(before: Sequence[object], after: Sequence[object]) -> bool:
    """Whether two sequences hold the very same objects in the same order."""
    return len(before) == len(after) and all(map(operator.is_, before, after))


_Ranks = dict[int, float]
"""Object id -> a number that orders the records of a sequence as it does (its objects stay alive)."""


def _ranks(sequence: Sequence[object]) -> _Ranks:
    return dict(zip(map(id, sequence), map(float, range(len(sequence))), strict=True))


def _patched_ranks(ranks: _Ranks, diff: _Diff[R], after: Sequence[R]) -> _Ranks | None:
    """The ranks of `after`, given these are of the sequence before it; None when no number is left
    between two neighbours (they are then numbered afresh)."""
    ranks = dict(ranks)
    for item in diff.gone:
        ranks.pop(id(item), None)
    came, at, size = diff.came, diff.came_at, len(after)
    first = 0
    while first < len(came):
        last = first  # records that came side by side share the gap between their neighbours
        while last + 1 < len(came) and at[last + 1] == at[last] + 1:
            last += 1
        count = last - first + 1
        below = ranks[id(after[at[first] - 1])] if at[first] > 0 else None
        above = ranks[id(after[at[last] + 1])] if at[last] + 1 < size else None
        if below is None and above is None:
            return None
        low = below if below is not None else above - count - 1  # type: ignore[operator]
        high = above if above is not None else low + count + 1
        step = (high - low) / (count + 1)
        for offset in range(count):
            rank = low + step * (offset + 1)
            if not low < rank < high:
                return None
            ranks[id(came[first + offset])] = rank
        first = last + 1
    return ranks


_FROM: Callable[[Relation], Iterable[str]] = lambda relation: (relation.from_id,)  # noqa: E731
_TO: Callable[[Relation], Iterable[str]] = lambda relation: (relation.to_id,)  # noqa: E731
_ENTITIES: Callable[[Node], Iterable[str]] = attrgetter("entities")


def _patched_index(
    index: dict[str, list[R]], diff: _Diff[R], keys_of: Callable[[R], Iterable[str]], ranks: _Ranks
) -> dict[str, list[R]]:
    """An index from keys to records (in their sequence's order: `ranks`) with the diff's records
    taken out and put in, as made from the sequence afresh; other keys keep this index's very lists."""
    if not diff.gone and not diff.came:
        return index
    came: dict[str, list[R]] = defaultdict(list)
    for item in diff.came:
        for key in keys_of(item):
            came[key].append(item)
    affected = {key for item in diff.gone for key in keys_of(item)} | came.keys()
    gone = set(map(id, diff.gone))
    patched = dict(index)
    for key in affected:
        items = [item for item in index.get(key, ()) if id(item) not in gone]
        if key in came:
            items = sorted([*items, *came[key]], key=lambda item: ranks[id(item)])
        if items:
            patched[key] = items
        else:
            patched.pop(key, None)
    return patched


def _link_targets(node: Node) -> set[str]:
    """The ids of the nodes a node's page links to (see `Changed.touches`)."""
    if not (
        node.superseded_by or node.conflicts_with or node.derived_from or node.causes
        or node.precedes or node.related_to or node.links
    ):  # fmt: skip
        return set()
    return {
        *node.superseded_by, *node.conflicts_with, *node.derived_from, *node.causes, *node.precedes,
        *node.related_to, *(link.to_id for link in node.links),
    }  # fmt: skip


@dataclass(frozen=True, slots=True)
class _GraphRanks:
    """What orders a graph's nodes and relations (see `_Ranks`)."""

    nodes: _Ranks
    relations: _Ranks

    @classmethod
    def of(cls, graph: Graph) -> _GraphRanks:
        return cls(_ranks(graph.nodes), _ranks(graph.relations))


class _ContextMemory:
    """The last render's indexes over the graph, patched for the next graph instead of made again.

    An edit changes a few of 10,000 nodes and pass 2's memory hands back the others as the very
    same objects, so each index is last render's with the few that went and came moved.
    """

    LARGE_SHARE = 4
    """A change to more than a quarter of the nodes (and more than `FEW`): the indexes are made afresh."""
    FEW = 64

    def __init__(self) -> None:
        self.ctx: _Context | None = None
        self.around: Around | None = None
        self.linked_from: dict[str, frozenset[str]] = {}
        """Node id -> the ids of the nodes whose pages link to it."""
        self._ranks = _GraphRanks({}, {})
        self._base: Around | None = None
        self._touched: set[str] = set()
        """The node ids whose entries in `around.nodes` may differ from `_base`'s."""

    def make(self, graph: Graph, linker: Linker, names: _Names) -> tuple[_Context, Around]:
        """The indexes over `graph`, and what node pages read of them."""
        last, around = self.ctx, self.around
        patched = None
        if last is not None and around is not None and last.linker == linker:
            nodes = _Diff.of(last.graph.nodes, graph.nodes, self._most(graph.nodes))
            if nodes is not None:
                relations = _Diff.of(last.graph.relations, graph.relations, self._most(graph.relations))
                node_ranks = _patched_ranks(self._ranks.nodes, nodes, graph.nodes)
                relation_ranks = (
                    _patched_ranks(self._ranks.relations, relations, graph.relations) if relations else None
                )
                ranks = _GraphRanks(
                    node_ranks if node_ranks is not None else _ranks(graph.nodes),
                    relation_ranks if relation_ranks is not None else _ranks(graph.relations),
                )
                patched = (last.patched(graph, nodes, relations, ranks, names), nodes, ranks)
        if patched is None:
            ctx = _Context.build(graph, linker, names)
            self.around, self._ranks = Around.of(ctx), _GraphRanks.of(graph)
            self.linked_from = _linked_from(graph.nodes)
            self._base, self._touched = None, set()
        else:
            ctx, nodes, self._ranks = patched
            self.around = around.patched(last, ctx, nodes)  # type: ignore[union-attr, arg-type]
            self.linked_from = _patched_linked_from(self.linked_from, nodes)
            self._touched.update(node.id for node in (*nodes.gone, *nodes.came))
        self.ctx = ctx
        return ctx, self.around

    def _most(self, records: Sequence[object]) -> int:
        return max(len(records) // self.LARGE_SHARE, self.FEW)

    def touched_since(self, before: Around, after: Around) -> set[str] | None:
        """The only node ids whose entries may differ between the two, when known."""
        return self._touched if before is self._base and after is self.around else None

    def settled(self, around: Around | None) -> None:
        """A build completed against `around` (None: it did not complete): later changes count from it."""
        self._base = around if around is not None and around is self.around else None
        self._touched = set()


def _linked_from(nodes: Iterable[Node]) -> dict[str, frozenset[str]]:
    """Node id -> the ids of the nodes whose pages link to it."""
    found: dict[str, set[str]] = defaultdict(set)
    for node in nodes:
        for target in _link_targets(node):
            found[target].add(node.id)
    return {target: frozenset(ids) for target, ids in found.items()}


def _patched_linked_from(
    linked_from: dict[str, frozenset[str]], nodes: _Diff[Node]
) -> dict[str, frozenset[str]]:
    """`_linked_from` of a graph, given this is it of another and these nodes changed."""
    patched = dict(linked_from)
    for node in nodes.gone:
        for target in _link_targets(node):
            left = patched.get(target, frozenset()) - {node.id}
            if left:
                patched[target] = left
            else:
                patched.pop(target, None)
    for node in nodes.came:
        for target in _link_targets(node):
            patched[target] = patched.get(target, frozenset()) | {node.id}
    return patched


def _quoted_links(linker: Linker, kind_of: Mapping[str, Node], ids: Iterable[str]) -> list[str]:
    return [linker.link(kind_of[i].memory_layer, i, kind_of[i].title) for i in ids if i in kind_of]


def _node_properties(node: Node, ctx: _Context) -> dict[str, PropertyValue]:
    first = node.evidence[0] if node.evidence else None
    episodic = node.memory_layer == "episodic"
    links = ctx.node_by_id
    return {
        "id": node.id,
        "memory_layer": node.memory_layer,
        "type": node.type,
        "title": node.title,
        "tags": [t for t in node.tags if valid_tag(t)],
        "timestamp": node.timestamp,
        "occurred_at": node.occurred_at,
        "sensitivity": node.sensitivity,
        "attributed_to": node.attributed_to if episodic else None,
        "confidence": node.confidence,
        "origin": node.origin,
        "source_input": ctx.summary_link(first.path) if first else None,
        "language": node.language,
        "valid_from": node.valid_from if episodic and node.type == "state" else None,
        "valid_to": node.valid_to if episodic and node.type == "state" else None,
        "entities": [ctx.linker.link("entity", e, ctx.entity_by_id[e].title) for e in node.entities],
        "superseded_by": _quoted_links(ctx.linker, links, node.superseded_by) or None,
        "conflicts_with": _quoted_links(ctx.linker, links, node.conflicts_with) or None,
        "derived_from": _quoted_links(ctx.linker, links, node.derived_from) or None,
        "causes": _quoted_links(ctx.linker, links, node.causes) or None,
        "precedes": _quoted_links(ctx.linker, links, node.precedes) or None,
        "related_to": _quoted_links(ctx.linker, links, node.related_to) or None,
        "importance": node.importance,
        "aliases": list(node.aliases) or None,
    }


def _entity_properties(entity: Entity) -> dict[str, PropertyValue]:
    return {
        "type": "entity",
        "id": entity.id,
        "title": entity.title,
        "entity_type": entity.entity_type,
        "description": entity.description,
        "aliases": list(entity.aliases),
        "sources": [e.ref() for e in entity.evidence],
    }


def _summary_properties(summary: SourceSummary) -> dict[str, PropertyValue]:
    return {
        "type": "summary",
        "id": summary.id,
        "title": plain_text(summary.source.title) or summary.id,
        "source_document": summary.source.path,
        "reference_time": summary.source.reference_time,
        "tags": ["summary"],
    }


def _rewrite_links(body: str, entity_by_name: Mapping[str, Entity], linker: Linker) -> str:
    """Point copied wikilinks at the entity they resolved to; anything else becomes plain text."""
    in_table = False

    def replace(match: re.Match[str]) -> str:
        embed, inner = match.group(1), match.group(2)
        target, _, alias = inner.partition("|")
        # `[[rules/agile]]` names the note by its path: Obsidian finds it by its basename too.
        name = target.split("#", 1)[0].strip().rsplit("/", 1)[-1]
        if name[-3:].lower() == ".md":  # Obsidian resolves `[[Klipper.md]]` to the note `Klipper`
            name = name[:-3]
        # `[[#^x_y]]` shows "x_y": a caret left ending a line would read as a block id of ours.
        shown = alias.strip() or target.replace("#^", " ").replace("#", " ").strip()
        entity = entity_by_name.get(normalize_name(name))
        if embed or entity is None:
            return shown
        return linker.link("entity", entity.id, shown, in_table=in_table)

    def rewrite(text: str) -> str:
        return _rewrite_text(text, replace)

    lines = []
    in_fence = False
    source = body.split("\n")
    for index, line in enumerate(source):
        if _FENCE.match(line):
            in_fence = not in_fence
        if in_fence or _FENCE.match(line):
            lines.append(line)
            continue
        # Text that reads as a table (a row with a delimiter row under it, up to a blank line) needs
        # its links' pipes escaped, or the table splits them (Obsidian's rule 12).
        if not line.strip():
            in_table = False
        elif not in_table and "|" in line and index + 1 < len(source):
            in_table = "|" in source[index + 1] and bool(TABLE_DELIMITER.fullmatch(source[index + 1]))
        # Rewrite links outside inline code spans only.
        out = []
        pos = 0
        for code in _INLINE_CODE.finditer(line):
            out.append(rewrite(line[pos : code.start()]))
            out.append(code.group(0))
            pos = code.end()
        out.append(rewrite(line[pos:]))
        lines.append("".join(out))
    return "\n".join(lines)


def _rewrite_text(text: str, replace: Callable[[re.Match[str]], str]) -> str:
    """Rewrite a run of text's wikilinks; brackets around them that are no link are made single."""
    if "[[" not in text and "]]" not in text:
        return text
    out = []
    pos = 0
    for match in _WIKILINK.finditer(text):
        out.append(_single_brackets(text[pos : match.start()]))
        out.append(replace(match))
        pos = match.end()
    out.append(_single_brackets(text[pos:]))
    return "".join(out)


def _single_brackets(text: str) -> str:
    """`[[1,2],[3,4]]` or a stray `]]` would read as a link to nothing (Obsidian's rule 11)."""
    return text.replace("[[", "[").replace("]]", "]")


def _tag_tree(tag_counts: Sequence[tuple[str, int]]) -> list[tuple[int, str, str, int]]:
    """Flatten tag paths into (depth, leaf name, full path, count) rows in tree order."""
    return [(tag.count("/"), tag.rsplit("/", 1)[-1], tag, count) for tag, count in sorted(tag_counts)]
