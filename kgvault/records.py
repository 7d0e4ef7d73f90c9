"""Typed, immutable records that travel between the pipeline stages."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields
from datetime import date, datetime
from operator import attrgetter
from typing import Any, Literal, TypeVar, dataclass_transform

SourceKind = Literal["markdown", "text", "transcript", "chat", "draft"]
"""`transcript`: Markdown with `participants`; `chat`: a chat log or one conversation of an export;
`draft`: a file of extraction drafts (kgvault, Mnemon or mini-context-graph)."""
ChunkKind = Literal["frontmatter", "section", "turns", "draft"]
Role = Literal["human", "assistant"]

_Record = TypeVar("_Record")


@dataclass_transform(frozen_default=True)
def record(cls: type[_Record]) -> type[_Record]:
    """A slotted dataclass, immutable to the type checker, hashable by its fields.

    Not frozen at run time: a build makes hundreds of thousands of records, and a frozen one costs
    four times as much to make (each field is set through `object.__setattr__`). mypy still rejects
    any assignment to a field.
    """
    return dataclass(slots=True, unsafe_hash=True)(cls)


def replaced(item: _Record, **changes: Any) -> _Record:
    """`dataclasses.replace` for a record, a third of its cost: the fields are read at C speed and
    passed by position (pass 2 retimes thousands of nodes; `replace` inspects every field each time)."""
    cls = type(item)
    layout = _LAYOUTS.get(cls) or _layout(cls)
    values = list(layout.read(item))
    for name, value in changes.items():
        values[layout.position[name]] = value
    return cls(*values)


@dataclass(frozen=True, slots=True)
class _Layout:
    """How `replaced` reads a record class: its fields in `__init__`'s order."""

    read: Callable[[Any], tuple[Any, ...]]
    position: dict[str, int]


_LAYOUTS: dict[type, _Layout] = {}


def _layout(cls: type) -> _Layout:
    """Read a record class's fields once, for `replaced`."""
    found = fields(cls)
    if len(found) < 2 or any(not f.init or f.kw_only for f in found):
        raise TypeError(f"{cls.__name__}: replaced() reads records of two or more positional fields")
    layout = _LAYOUTS[cls] = _Layout(
        attrgetter(*(f.name for f in found)), {f.name: i for i, f in enumerate(found)}
    )
    return layout


@record
class Problem:
    """Something wrong with an input or output, reported and never fatal."""

    path: str
    """Posix path relative to the notes root (or the vault, for output problems)."""
    line: int | None
    """1-based line number in that file, when one applies."""
    message: str
    """What was wrong and, where possible, what the user can do."""


@record
class Turn:
    """One message of a conversation: who said what, when, and exactly where."""

    speaker: str
    """The speaker's name as the conversation gives it (the configured user name for an export's user)."""
    role: Role
    """`human` for a person, `assistant` for a model: an assistant's words are never a person's memory."""
    text: str
    """What was said; an image shared in the message is kept as `[image: caption]`."""
    line_start: int
    """First line of the turn in the source's text, 1-based."""
    line_end: int
    """Last line of the turn in the source's text, 1-based, inclusive."""
    time: datetime | None = None
    """When it was said (naive, on the clocks of the settings' time zone), when the conversation tells."""
    pointer: str | None = None
    """JSON pointer of the message in its file (`/3/chat_messages/5`), for JSON exports."""
    session: int = 0
    """Session number within the source: chunks never run across sessions."""


@record
class Source:
    """One input file, decoded and parsed; never modified."""

    id: str
    """Stable identity: the posix path relative to the notes root."""
    path: str
    """Posix path relative to the notes root."""
    kind: SourceKind
    """How the file is read: Markdown or plain text."""
    title: str
    """Frontmatter `title`, else the file name without its extension."""
    meta: dict[str, Any]
    """Parsed frontmatter; empty when absent or broken."""
    reference_time: date | None
    """From frontmatter `date`/`created` or a date in the file name; never mtime."""
    text: str
    """Whole decoded file: BOM removed, CRLF/CR turned into LF, frontmatter included."""
    body_line: int
    """1-based line where the body starts: 1 without frontmatter, else the line after the closing `---`."""
    sha256: str
    """Hex digest of the file's raw bytes."""
    frontmatter_lines: tuple[int, int] | None = None
    """1-based inclusive line range of the frontmatter block (delimiters included), if any."""
    turns: tuple[Turn, ...] = ()
    """A conversation's messages in order; empty for notes."""
    pointer: str | None = None
    """JSON pointer of the conversation inside its export file (`/3`); `path` then ends in `#/3`."""
    writer: str | None = None
    """Who "I" is in a note that names no `author`: the settings' `user_name`, when set."""

    @property
    def file(self) -> str:
        """The file the source is read from: `path` without a conversation's pointer."""
        return self.path[: -len(self.pointer) - 1] if self.pointer is not None else self.path


@record
class Chunk:
    """A window of one source with its exact 1-based inclusive line range."""

    source_path: str
    """The source's posix path relative to the notes root."""
    index: int
    """Position of the chunk within its source, from 0."""
    kind: ChunkKind
    """`frontmatter` for the YAML block, `section` for body text."""
    heading_path: tuple[str, ...]
    """Headings above this chunk, outermost first (plain text, no `#`)."""
    line_start: int
    """First line of the chunk in the source file, 1-based."""
    line_end: int
    """Last line of the chunk in the source file, 1-based, inclusive."""
    text: str
    """The source lines line_start..line_end joined with LF."""
    reference_time: date | None
    """The source's reference time (a dated heading inside the note may refine it)."""
    sha256: str
    """Hex digest of the chunk's text, for caching."""
    turns: tuple[Turn, ...] = ()
    """The conversation turns inside the chunk (a run of one session), for `turns` chunks."""


@record
class Evidence:
    """Where a node, entity or relation came from: a source line range, or a JSON pointer."""

    path: str
    """The source's path relative to the notes root (an export's conversation: `file#/pointer`)."""
    line_start: int
    line_end: int
    pointer: str | None = None
    """JSON pointer of the message in the file, for JSON sources; the lines are then internal."""

    def ref(self) -> str:
        """Render as `path#Lstart-Lend` (or `file#/pointer`), the form in relations.jsonl and on pages."""
        if self.pointer is not None:
            return f"{self.file()}#{self.pointer}"
        return f"{self.path}#L{self.line_start}-L{self.line_end}"

    def file(self) -> str:
        """The file cited: `path`, without the conversation pointer an export's source path ends with."""
        head, hashed, conversation = self.path.rpartition("#")
        # A message's pointer starts with its conversation's: `a.json#/3` + `/3/mapping/x`. A `#` in
        # a file name (`C# tips.md`, `graph#1.json`) is no conversation pointer.
        pointer = self.pointer or ""
        inside = conversation.startswith("/") and (
            pointer == conversation or pointer.startswith(conversation + "/")
        )
        return head if hashed and inside else self.path

    def where(self) -> str:
        """Where in the source, for a reader: `lines 3-5`, or the message's pointer."""
        if self.pointer is not None:
            chat = "/mapping/" in self.pointer or "/chat_messages/" in self.pointer
            return f"{'message' if chat else 'item'} `{self.pointer}`"
        return f"lines {self.line_start}-{self.line_end}"


@record
class Node:
    """A resolved episodic or semantic node, ready to render."""

    id: str
    memory_layer: Literal["episodic", "semantic"]
    type: str
    title: str
    body: str
    tags: tuple[str, ...]
    sensitivity: str
    confidence: str
    origin: str
    timestamp: date | None
    evidence: tuple[Evidence, ...]
    entities: tuple[str, ...]
    """Ids of the entities this node mentions."""
    language: str | None = None
    attributed_to: str | None = None
    valid_from: date | None = None
    valid_to: date | None = None
    occurred_at: str | None = None
    importance: int | None = None
    aliases: tuple[str, ...] = ()
    superseded_by: tuple[str, ...] = ()
    conflicts_with: tuple[str, ...] = ()
    derived_from: tuple[str, ...] = ()
    causes: tuple[str, ...] = ()
    precedes: tuple[str, ...] = ()
    related_to: tuple[str, ...] = ()
    links: tuple[NodeLink, ...] = ()
    """The node's `causes`, `precedes` and `related_to` links with their weight and reason, for `## Links`."""


@record
class NodeLink:
    """A link from one node to another that a draft stated (Mnemon's edges)."""

    kind: Literal["causes", "precedes", "related_to"]
    to_id: str
    weight: float | None = None
    reason: str | None = None


@record
class Entity:
    """A resolved entity: one page under entities/."""

    id: str
    title: str
    entity_type: str
    description: str
    aliases: tuple[str, ...]
    evidence: tuple[Evidence, ...]


@record
class Relation:
    """A directed entity-to-entity edge, one line of relations.jsonl."""

    from_id: str
    relation: str
    label: str
    to_id: str
    statement: str
    confidence: float
    valid_at: date | None
    invalid_at: date | None
    evidence: tuple[Evidence, ...]


@record
class CoverageRow:
    """One chunk's line range on a summary page and what it produced."""

    line_start: int
    line_end: int
    result: str
    pointer: str | None = None
    """JSON pointer of the message the row covers, for JSON sources (shown instead of the lines)."""


@record
class SourceSummary:
    """What one source contributed, for its summary page."""

    id: str
    """Summary page id: slug of the path without extension, folders joined by `-`, plus `-summary`."""
    source: Source
    node_ids: tuple[str, ...]
    entity_ids: tuple[str, ...]
    coverage: tuple[CoverageRow, ...]


@record
class Graph:
    """Everything pass 2 knows: the input of render."""

    nodes: tuple[Node, ...]
    entities: tuple[Entity, ...]
    relations: tuple[Relation, ...]
    summaries: tuple[SourceSummary, ...]
    tag_counts: tuple[tuple[str, int], ...]
    """Every tag path (including each parent level) with the number of nodes under it, sorted."""
    predicates: tuple[tuple[str, str, int], ...]
    """(predicate, label, count), sorted by predicate."""
    problems: tuple[Problem, ...] = field(default=())
    conflicts: tuple[tuple[str, str], ...] = field(default=())
    """Pairs of node ids that contradict each other at the same time: the review queue."""
    merges: tuple[tuple[str, str, str], ...] = field(default=())
    """(entity id, the names joined, why) for every entity resolution decision worth reviewing."""
    tag_changes: tuple[tuple[str, str, str], ...] = field(default=())
    """(tag as written, canonical path, why) for every tag the tag tree renamed or nested."""
    split_candidates: tuple[tuple[str, int], ...] = field(default=())
    """Leaf tags on more than 50 nodes, with their counts: worth splitting."""
    corrections: tuple[tuple[str, str], ...] = field(default=())
    """(what the correction asks, what became of it) for each line of the corrections file."""
    functional: tuple[str, ...] = field(default=())
    """Predicates with one current value in this build, for ontology.md."""
