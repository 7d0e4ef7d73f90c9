"""Mnemon's `memory_draft.json` (schema_version "1"): insights become nodes, edges become node links.

The limits are Mnemon's own (its import guide): an insight breaking one is left out with the
reason, and so is an edge to it; everything else of the file is kept.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

from pydantic import ValidationError

from kgvault.extract.draft import Draft, DraftEntity, DraftLink, DraftNode, LinkKind

Problem = tuple[str, str]

CONTENT_MAX = 8000
TAGS_MAX = 20
TAG_MAX = 100
ENTITIES_MAX = 50
ENTITY_MAX = 200
TITLE_MAX = 200
DEFAULT_IMPORTANCE = 3
DEFAULT_WEIGHT = 0.5

# DESIGN §4: what each category becomes, as (memory layer, node type).
CATEGORIES: dict[str, tuple[str, str]] = {
    "preference": ("episodic", "state"),
    "decision": ("episodic", "decision"),
    "fact": ("semantic", "fact"),
    "insight": ("semantic", "concept"),
    "context": ("episodic", "state"),
    "general": ("semantic", "fact"),
}
EDGE_KINDS: dict[str, LinkKind] = {
    "temporal": "precedes",
    "causal": "causes",
    "semantic": "related_to",
    "entity": "related_to",
}
_RFC3339 = re.compile(
    r"^(?P<date>\d{4}-\d{2}-\d{2})[Tt](?P<time>\d{2}:\d{2}:\d{2})(?:\.\d+)?"
    r"(?:(?P<utc>[Zz])|(?P<sign>[+-])(?P<hours>\d{2}):(?P<minutes>\d{2}))$"
)
# A sentence ends at `.`, `!`, `?` or `…` before a capital or digit, or at a line break.
_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+(?=[\"'“‘(\[]?[A-ZÀ-ÖØ-Þ0-9])|\n")
_ABBREVIATIONS = frozenset({"e.g", "i.e", "etc", "vs", "dr", "mr", "mrs", "ms", "st", "no", "approx", "cf"})


@dataclass(frozen=True, slots=True)
class _Insight:
    """One insight that is within every limit, read."""

    content: str
    category: str
    importance: int
    tags: list[str]
    entities: list[tuple[int, str]]
    """(index in the insight's `entities`, name) of each named entity."""
    created_at: datetime | None
    """In UTC."""


def read_mnemon(data: dict[str, Any]) -> tuple[Draft, list[Problem]]:
    """Convert a Mnemon draft into one kgvault draft; report each insight or edge left out, by pointer."""
    problems: list[Problem] = []
    insights: list[object] = data["insights"]
    if not insights:
        problems.append(("/insights", "insights is empty: a Mnemon draft holds at least one insight"))
    titles = _Titles()
    nodes: dict[int, DraftNode] = {}
    entities: dict[str, DraftEntity] = {}
    for index, raw in enumerate(insights):
        pointer = f"/insights/{index}"
        insight = _read_insight(raw)
        if isinstance(insight, str):
            problems.append((pointer, insight))
            continue
        node = _node(insight, pointer, titles)
        if isinstance(node, str):
            problems.append((pointer, node))
            continue
        nodes[index] = node
        for position, name in insight.entities:
            entity = DraftEntity.model_validate(
                {"name": name, "entity_type": "concept", "pointer": f"{pointer}/entities/{position}"}
            )
            entities.setdefault(entity.name.casefold(), entity)
    links: list[DraftLink] = []
    edges = data.get("edges")
    if edges is not None and not isinstance(edges, list):
        problems.append(("/edges", "edges is not a list"))
    for index, raw in enumerate(edges if isinstance(edges, list) else []):
        link = _link(raw, f"/edges/{index}", len(insights), nodes)
        if isinstance(link, str):
            problems.append((f"/edges/{index}", link))
        else:
            links.append(link)
    draft = Draft(nodes=list(nodes.values()), entities=list(entities.values()), links=links)
    return draft, problems


# -- insights -----------------------------------------------------------------------------------


def _read_insight(raw: object) -> _Insight | str:
    """The insight, or the reason it breaks Mnemon's limits (every limit it breaks)."""
    if not isinstance(raw, dict):
        return "an insight is an object with at least `content`"
    reasons: list[str] = []
    content = raw.get("content")
    if content is None:
        reasons.append("content is missing (it is required)")
    elif not isinstance(content, str):
        reasons.append("content is not a string")
    elif not content.strip():
        reasons.append("content is empty")
    elif len(content) > CONTENT_MAX:
        reasons.append(f"content is {len(content)} characters (max {CONTENT_MAX})")
    category = raw.get("category")
    if category is None:
        category = "general"
    elif not isinstance(category, str) or category not in CATEGORIES:
        reasons.append(f"category {category!r} is not one of {', '.join(CATEGORIES)}")
    importance = raw.get("importance")
    if importance is None:
        importance = DEFAULT_IMPORTANCE
    elif not (type(importance) is int and 1 <= importance <= 5):
        reasons.append(f"importance {importance!r} is not an integer from 1 to 5")
    tags = _strings(raw.get("tags"), "tags", TAGS_MAX, TAG_MAX, reasons)
    entities = _strings(raw.get("entities"), "entities", ENTITIES_MAX, ENTITY_MAX, reasons)
    created_at = raw.get("created_at")
    moment = None if created_at is None else rfc3339_utc(created_at)
    if created_at is not None and moment is None:
        reasons.append(
            f"created_at {created_at!r} is out of range: in UTC it falls outside years 1 to 9999"
            if isinstance(created_at, str) and _RFC3339.match(created_at) and _valid_wall_time(created_at)
            else f"created_at {created_at!r} is not an RFC 3339 timestamp (like 2024-03-15T09:30:00Z)"
        )
    if reasons:
        return "; ".join(reasons)
    assert isinstance(content, str) and isinstance(category, str) and isinstance(importance, int)
    return _Insight(
        content=content.strip(),
        category=category,
        importance=importance,
        tags=[tag for _, tag in tags],
        entities=entities,
        created_at=moment,
    )


def _strings(value: object, field: str, most: int, longest: int, reasons: list[str]) -> list[tuple[int, str]]:
    """A list of strings within Mnemon's limits, as (index, stripped string) without the blank ones."""
    if value is None:
        return []
    if not isinstance(value, list):
        reasons.append(f"{field} is not a list")
        return []
    if len(value) > most:
        reasons.append(f"{field} has {len(value)} items (max {most})")
    for index, item in enumerate(value):
        if not isinstance(item, str):
            reasons.append(f"{field}[{index}] is not a string")
            break
        if len(item) > longest:
            reasons.append(f"{field}[{index}] is {len(item)} characters (max {longest})")
            break
    strings = [(index, item.strip()) for index, item in enumerate(value) if isinstance(item, str)]
    return [(index, item) for index, item in strings if item]


def _valid_wall_time(value: str) -> bool:
    """Whether an RFC 3339 timestamp names a real date and time before its offset is applied."""
    found = _RFC3339.match(value)
    try:
        return found is not None and bool(datetime.fromisoformat(f"{found['date']}T{found['time']}"))
    except ValueError:
        return False


def rfc3339_utc(value: object) -> datetime | None:
    """Read an RFC 3339 timestamp (`2024-03-15T09:30:00Z`) as a naive UTC datetime; None if it is not one."""
    found = _RFC3339.match(value) if isinstance(value, str) else None
    if found is None:
        return None
    try:
        offset = timedelta()
        if not found["utc"]:
            sign = -1 if found["sign"] == "-" else 1
            offset = sign * timedelta(hours=int(found["hours"]), minutes=int(found["minutes"]))
        moment = datetime.fromisoformat(f"{found['date']}T{found['time']}").replace(tzinfo=timezone(offset))
        return moment.astimezone(UTC).replace(tzinfo=None)
    except (ValueError, OverflowError):  # no such time, or past the calendar's ends in UTC
        return None


def _node(insight: _Insight, pointer: str, titles: _Titles) -> DraftNode | str:
    """The insight as a kgvault node (DESIGN §4), or why the node model refused it."""
    layer, node_type = CATEGORIES[insight.category]
    if layer == "episodic" and insight.created_at is None:
        layer, node_type = "semantic", "fact"  # an undated event is not episodic: no date is invented
    moment = insight.created_at
    timestamp = moment.date() if moment else None
    names: dict[str, str] = {}
    for _, name in insight.entities:
        names.setdefault(name.casefold(), name)
    identity = (layer, node_type, timestamp, " ".join(insight.content.casefold().split()))
    try:
        node = DraftNode.model_validate(
            {
                "memory_layer": layer,
                "type": node_type,
                "title": titles.unique(title_of(insight.content), identity),
                "body": insight.content,
                "tags": insight.tags,
                "timestamp": timestamp,
                # isoformat pads the year to four digits; strftime('%Y') does not on glibc.
                "occurred_at": moment.replace(tzinfo=None).isoformat(timespec="seconds") if moment else None,
                "sensitivity": "private",
                "confidence": _confidence(insight.importance),
                "origin": "inferred" if insight.category == "insight" else "stated",
                "entities": list(names.values()),
                "importance": insight.importance,
                "pointer": pointer,
            }
        )
    except ValidationError as error:
        return _reason(error)
    titles.take(node.title, identity)
    return node


def _confidence(importance: int) -> str:
    """Mnemon's importance read as kgvault's confidence: 4-5 high, 3 medium, 1-2 low."""
    if importance >= 4:
        return "high"
    return "medium" if importance == 3 else "low"


def title_of(content: str) -> str:
    """The content's first sentence, on one line, without its final period, cut at a word to ≤ 200."""
    sentence = _first_sentence(content)
    title = " ".join(sentence.split())
    if title.endswith(".") and not title.endswith(".."):
        title = title[:-1]
    return _cut_at_word(title, TITLE_MAX)


def _first_sentence(text: str) -> str:
    text = text.strip()
    for end in _SENTENCE_END.finditer(text):
        head = text[: end.start()].rstrip()
        words = head.split()
        if not words:
            continue
        last = words[-1].rstrip(".").casefold()
        if head.endswith(".") and (last in _ABBREVIATIONS or len(last) == 1):
            continue  # `e.g.` or an initial does not end a sentence
        return head
    return text


def _cut_at_word(text: str, limit: int) -> str:
    """Cut text to at most `limit` characters at a word boundary, ending with `…` when cut."""
    if len(text) <= limit:
        return text
    room = limit - 1
    space = text.rfind(" ", 0, room + 1)
    cut = text[:space] if space > room // 2 else text[:room]
    return cut.rstrip(" ,;:—–-") + "…"


class _Titles:
    """The titles given so far: one title names one node.

    Links name nodes by title, so two insights with the same first sentence get distinct titles
    (` (2)`, ` (3)`, … on the later ones), unless they are the same node anyway (same layer, type,
    date and content), which kgvault merges into one.
    """

    def __init__(self) -> None:
        self.owners: dict[str, tuple[object, ...]] = {}

    def unique(self, title: str, identity: tuple[object, ...]) -> str:
        """A title for the node `identity` describes, distinct from other nodes' titles."""
        unique, number = title, 1
        while self.owners.get(unique.casefold(), identity) != identity:
            number += 1
            unique = f"{title} ({number})"
        return unique

    def take(self, title: str, identity: tuple[object, ...]) -> None:
        """Record that `title` names the node `identity` describes."""
        self.owners.setdefault(title.casefold(), identity)


# -- edges --------------------------------------------------------------------------------------


def _link(raw: object, pointer: str, count: int, nodes: dict[int, DraftNode]) -> DraftLink | str:
    """The edge as a link between two node titles, or why it is left out."""
    if not isinstance(raw, dict):
        return "an edge is an object with source_index, target_index and edge_type"
    reasons: list[str] = []
    ends: list[int] = []
    for field in ("source_index", "target_index"):
        value = raw.get(field)
        if value is None:
            reasons.append(f"{field} is missing")
        elif type(value) is not int:
            reasons.append(f"{field} {value!r} is not an integer")
        elif not 0 <= value < count:
            reasons.append(f"{field} {value} is not an index into insights ({count} insights)")
        else:
            ends.append(value)
    if len(ends) == 2 and ends[0] == ends[1]:
        reasons.append(f"source_index and target_index are the same ({ends[0]})")
    edge_type = raw.get("edge_type")
    kind = EDGE_KINDS.get(edge_type) if isinstance(edge_type, str) else None
    if kind is None:
        reasons.append(f"edge_type {edge_type!r} is not one of {', '.join(EDGE_KINDS)}")
    weight = raw.get("weight")
    if weight is None:
        weight = DEFAULT_WEIGHT
    elif not isinstance(weight, int | float) or isinstance(weight, bool) or not 0.0 <= weight <= 1.0:
        reasons.append(f"weight {weight!r} is not a number from 0.0 to 1.0")
    reason = raw.get("reason")
    if reason is not None and not isinstance(reason, str):
        reasons.append("reason is not a string")
    if not reasons:
        invalid = [f"/insights/{end}" for end in ends if end not in nodes]
        reasons.extend(f"edge end {end} is invalid" for end in invalid)
    if reasons or kind is None:
        return "; ".join(reasons)
    try:
        return DraftLink.model_validate(
            {
                "source": nodes[ends[0]].title,
                "target": nodes[ends[1]].title,
                "kind": kind,
                "weight": float(weight),
                "reason": reason,
                "pointer": pointer,
            }
        )
    except ValidationError as error:
        return _reason(error)


def _reason(error: ValidationError) -> str:
    """The first thing a model refused, as `field: message` (the field left out when it says it)."""
    first = error.errors()[0]
    where = ".".join(str(part) for part in first["loc"])
    message = first["msg"].removeprefix("Value error, ")
    return f"{where}: {message}" if where and not message.startswith(where) else message
