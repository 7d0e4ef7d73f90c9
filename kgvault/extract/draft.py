"""The extraction contract (DESIGN §4): pydantic models and their validation."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, date, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator
from pydantic.json_schema import SkipJsonSchema

SCHEMA_VERSION: Literal["kgvault.draft/1"] = "kgvault.draft/1"
GENERIC_EPISODE_NAMES = frozenset(
    {"", "note", "notes", "untitled", "episode", "chunk", "section", "text", "misc", "summary", "document"}
)
_SNAKE = re.compile(r"^[a-z][a-z0-9_]*$")
UNDATED_EPISODE = (
    "episodic node needs a timestamp (undated event): give the day it happened (YYYY-MM-DD), "
    "or make it semantic"
)


def _day(value: object) -> object:
    """A date field's value as a day: an ISO time (`2025-09-10T14:30:00Z`) is its day in UTC.

    Anything else is left to pydantic, save text that is no date at all, said plainly.
    """
    if not isinstance(value, str) or len(value.strip()) <= 10:
        if isinstance(value, str) and value.strip() and not _ISO_DAY.match(value.strip()):
            raise ValueError(f"{value!r} is not a date: write YYYY-MM-DD (or an ISO time)")
        return value
    try:
        moment = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(f"{value!r} is not a date: write YYYY-MM-DD (or an ISO time)") from None
    if moment.tzinfo is not None:
        try:
            moment = moment.astimezone(UTC)
        except OverflowError:  # pydantic reports only ValueError as the item's problem
            raise ValueError(f"{value!r} is out of range: in UTC it falls outside years 1 to 9999") from None
    return moment.date()


_ISO_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")


class _Item(BaseModel):
    # A field the contract does not know is dropped with a notice before validation (`validate_items`).
    model_config = ConfigDict(frozen=True, extra="forbid", str_strip_whitespace=True)

    pointer: SkipJsonSchema[str | None] = None
    """JSON pointer of the item in the draft file it was read from: its evidence (set by kgvault)."""
    turn_line: SkipJsonSchema[int | None] = None
    """First line of the conversation turn that said the item (set by kgvault's turn reader)."""


class DraftNode(_Item):
    """One episodic or semantic node proposed by an extractor."""

    memory_layer: Literal["episodic", "semantic"]
    type: Literal["observation", "decision", "state", "fact", "concept", "procedure"]
    title: str = Field(min_length=1, max_length=300)
    body: str = ""
    tags: list[str] = Field(default_factory=list)
    timestamp: date | None = None
    occurred_at: str | None = None
    sensitivity: Literal["public", "private", "confidential"] = "private"
    attributed_to: str | None = None
    confidence: Literal["low", "medium", "high"] = "medium"
    origin: Literal["stated", "inferred"] = "stated"
    language: str | None = None
    entities: list[str] = Field(default_factory=list)
    valid_from: date | None = None
    valid_to: date | None = None
    importance: int | None = Field(default=None, ge=1, le=5)
    supporting_text: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _time_of_day(cls, data: Any) -> Any:
        # A timestamp with a time of day (what agents are told to write): the time is kept as
        # occurred_at, the day as timestamp.
        if isinstance(data, dict):
            stamp = data.get("timestamp")
            if (
                isinstance(stamp, str)
                and ("T" in stamp or " " in stamp.strip())
                and not data.get("occurred_at")
            ):
                data = {**data, "occurred_at": stamp}
        return data

    @field_validator("timestamp", "valid_from", "valid_to", mode="before")
    @classmethod
    def _days(cls, value: object) -> object:
        return _day(value)

    @field_validator("occurred_at")
    @classmethod
    def _wall_time(cls, value: str | None) -> str | None:
        # The vault writes a time of day as YYYY-MM-DDTHH:MM:SS; one with an offset is read in UTC,
        # as a Mnemon draft's created_at is.
        if value is None or not value.strip():
            return None
        try:
            moment = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            raise ValueError(f"occurred_at {value!r} is not a time (YYYY-MM-DDTHH:MM:SS)") from None
        if ":" not in value:
            return None  # a date alone says no time of day (it is the timestamp's)
        if moment.tzinfo is not None:
            try:
                moment = moment.astimezone(UTC).replace(tzinfo=None)
            except OverflowError:
                raise ValueError(
                    f"occurred_at {value!r} is out of range: in UTC it falls outside years 1 to 9999"
                ) from None
        return moment.isoformat(timespec="seconds")

    @model_validator(mode="after")
    def _layer_rules(self) -> DraftNode:
        episodic_types = {"observation", "decision", "state"}
        if self.memory_layer == "episodic":
            if self.type not in episodic_types:
                raise ValueError(f"episodic node cannot have type {self.type!r}")
            if self.timestamp is None:
                raise ValueError(UNDATED_EPISODE)
            if self.sensitivity == "public":
                raise ValueError("episodic node cannot be public")
        else:
            if self.type in episodic_types:
                raise ValueError(f"semantic node cannot have type {self.type!r}")
            if self.attributed_to or self.valid_from or self.valid_to:
                raise ValueError("semantic node cannot carry attributed_to, valid_from or valid_to")
        if self.valid_from and self.valid_to and self.valid_to < self.valid_from:
            raise ValueError("valid_to is before valid_from")
        return self


class DraftEntity(_Item):
    """One entity named in the chunk."""

    name: str = Field(min_length=1, max_length=200)
    entity_type: str = "concept"
    aliases: list[str] = Field(default_factory=list)
    description: str = ""
    supporting_text: str | None = None

    @field_validator("entity_type")
    @classmethod
    def _snake_type(cls, value: str) -> str:
        value = value.strip().lower().replace(" ", "_").replace("-", "_")
        while value.startswith("likely_likely_"):
            value = value.removeprefix("likely_")
        if value in ("likely_", "likely_concept"):
            value = "concept"  # a guess of nothing is no type
        if not _SNAKE.match(value):
            raise ValueError(f"entity_type {value!r} is not snake_case")
        return value


class DraftRelation(_Item):
    """One entity-to-entity edge."""

    subject: str = Field(min_length=1)
    predicate: str
    label: str = Field(min_length=1)
    object: str = Field(min_length=1)
    statement: str = ""
    confidence: float = Field(ge=0.6, le=1.0)
    supporting_text: str | None = None
    valid_at: date | None = None
    invalid_at: date | None = None

    @field_validator("valid_at", "invalid_at", mode="before")
    @classmethod
    def _days(cls, value: Any) -> Any:  # `object` is a field's name here
        return _day(value)

    @field_validator("predicate")
    @classmethod
    def _snake_predicate(cls, value: str) -> str:
        if not _SNAKE.match(value):
            raise ValueError(f"predicate {value!r} is not snake_case")
        return value

    @model_validator(mode="after")
    def _ends_and_times(self) -> DraftRelation:
        if self.subject.casefold() == self.object.casefold():
            raise ValueError("subject and object are the same")
        if self.valid_at and self.invalid_at and self.invalid_at <= self.valid_at:
            raise ValueError("invalid_at is not later than valid_at")
        return self


LinkKind = Literal["causes", "precedes", "related_to"]


class DraftLink(_Item):
    """A link between two nodes of the draft, by title: Mnemon's edges (causal, temporal, semantic)."""

    source: str = Field(min_length=1)
    """Title of the node the link starts from."""
    target: str = Field(min_length=1)
    """Title of the node it points to."""
    kind: LinkKind
    weight: float | None = Field(default=None, ge=0.0, le=1.0)
    reason: str | None = None

    @field_validator("weight")
    @classmethod
    def _no_negative_zero(cls, value: float | None) -> float | None:
        # -0.0 equals 0.0 but is written "-0.0": one weight, one spelling.
        return None if value is None else value + 0.0

    @model_validator(mode="after")
    def _two_ends(self) -> DraftLink:
        if self.source.casefold() == self.target.casefold():
            raise ValueError("a link joins two different nodes")
        return self


class Draft(_Item):
    """What an extractor returns for one chunk (DESIGN §4)."""

    schema_version: Literal["kgvault.draft/1"] = SCHEMA_VERSION
    episode_name: str = Field(default="", max_length=30)
    source_description: str = Field(default="", max_length=120)
    reference_time: date | None = None
    skip_reason: str | None = None
    nodes: list[DraftNode] = Field(default_factory=list)
    entities: list[DraftEntity] = Field(default_factory=list)
    relations: list[DraftRelation] = Field(default_factory=list)
    links: list[DraftLink] = Field(default_factory=list)
    """Links between the draft's own nodes (`causes`, `precedes`, `related_to`)."""

    @field_validator("reference_time", mode="before")
    @classmethod
    def _days(cls, value: object) -> object:
        return _day(value)


def normalize_for_match(text: str) -> str:
    """Fold case and collapse whitespace, so a quote can be found in its chunk."""
    return " ".join(text.casefold().split())


_ITEM_KINDS = ("nodes", "entities", "relations", "links")
_MODELS: dict[str, tuple[type[_Item], str]] = {
    "nodes": (DraftNode, "a node"), "entities": (DraftEntity, "an entity"),
    "relations": (DraftRelation, "a relation"), "links": (DraftLink, "a link"),
}  # fmt: skip


def validate_items(raw: dict[str, object], chunk_text: str | None) -> tuple[Draft, list[str]]:
    """Validate a raw draft item by item: keep what is valid, return reasons for what was dropped.

    With `chunk_text`, every `supporting_text` must occur in it (after case and
    whitespace folding) or its item is dropped. Relations whose ends are not named
    in `entities` are dropped too. Raises ValueError when the envelope itself is broken.
    """
    dropped: list[str] = []
    raw = _known_fields(raw, dropped)
    envelope = {k: v for k, v in raw.items() if k not in _ITEM_KINDS}
    name = envelope.get("episode_name")
    if isinstance(name, str) and name.strip().casefold() in GENERIC_EPISODE_NAMES - {""}:
        dropped.append(f"episode_name {name!r} is generic; cleared")
        envelope["episode_name"] = ""
    items = {kind: _as_list(raw.get(kind)) for kind in _ITEM_KINDS}
    # Most drafts are valid throughout, and one call validates a whole draft much faster than one
    # call per item; only when that fails is each item validated alone, to keep the valid ones.
    whole = _validate_whole(raw, envelope, items)
    base = _valid_envelope(envelope, dropped) if whole is None else whole
    quoted = _quote_finder(chunk_text)

    def keep(kind: str, model: type[_Item], check: Callable[[Any], str | None] | None = None) -> list[Any]:
        validated: list[_Item] | None = getattr(whole, kind) if whole is not None else None
        kept: list[Any] = []
        for index, item in enumerate(items[kind]):
            if validated is not None:
                parsed = validated[index]
            else:
                try:
                    parsed = model.model_validate(item)
                except ValidationError as error:
                    dropped.append(f"{kind}[{index}]: {_first_error(error)}")
                    continue
            quote = getattr(parsed, "supporting_text", None)
            if quote and not quoted(quote):
                dropped.append(f"{kind}[{index}]: supporting_text not found in the chunk")
                continue
            problem = check(parsed) if check is not None else None
            if problem is not None:
                dropped.append(f"{kind}[{index}]: {problem}")
                continue
            kept.append(parsed)
        return kept

    nodes: list[DraftNode] = keep("nodes", DraftNode)
    entities: list[DraftEntity] = keep("entities", DraftEntity)
    names = {e.name.casefold() for e in entities}
    for e in entities:
        names.update(a.casefold() for a in e.aliases)

    def named_ends(relation: DraftRelation) -> str | None:
        if relation.subject.casefold() not in names or relation.object.casefold() not in names:
            return "subject or object is not among the entities"
        return None

    relations: list[DraftRelation] = keep("relations", DraftRelation, named_ends)
    titles = {node.title.casefold() for node in nodes}

    def node_ends(link: DraftLink) -> str | None:
        if link.source.casefold() not in titles or link.target.casefold() not in titles:
            return "source or target is not the title of a node of the draft"
        return None

    links: list[DraftLink] = keep("links", DraftLink, node_ends)
    kept = (len(nodes), len(entities), len(relations), len(links))
    if whole is not None and kept == tuple(map(len, items.values())):
        return whole, dropped
    update = {"nodes": nodes, "entities": entities, "relations": relations, "links": links}
    draft = base.model_copy(update=update)
    return draft, dropped


IGNORED = "; ignored"
"""How a notice ends that left a field out, and no item."""


def _known_fields(raw: dict[str, object], notices: list[str]) -> dict[str, object]:
    """The draft without the fields the contract does not know (an agent's own `run_id`, a typo),
    each said in `notices`: one unknown field loses no item."""
    known = set(Draft.model_fields) - {"pointer", "turn_line"}
    cleaned: dict[str, object] = {}
    for key, value in raw.items():
        if key in known or key in ("pointer", "turn_line"):
            cleaned[key] = value
        else:
            notices.append(f"{key} is no field of {SCHEMA_VERSION}{IGNORED}")
    for kind, (model, singular) in _MODELS.items():
        items = cleaned.get(kind)
        if not isinstance(items, list):
            continue
        fields = set(model.model_fields)
        kept_items: list[object] = []
        for index, item in enumerate(items):
            if isinstance(item, dict) and not fields.issuperset(item):
                for key in sorted(set(item) - fields, key=str):
                    notices.append(f"{kind}[{index}]: {key} is no field of {singular}{IGNORED}")
                item = {k: v for k, v in item.items() if k in fields}
            kept_items.append(item)
        cleaned[kind] = kept_items
    return cleaned


ENVELOPE_FIELDS = ("episode_name", "source_description", "reference_time", "skip_reason")
"""The draft's own fields a problem may be about (beside its items)."""
# What an envelope field too long or unreadable becomes, so one field loses no item.
_ENVELOPE_LIMITS = {"episode_name": 30, "source_description": 120}


def _valid_envelope(envelope: dict[str, object], dropped: list[str]) -> Draft:
    """The draft's envelope validated; a name or description too long is cut at a word, an unreadable
    reference_time or skip_reason is cleared (each said in `dropped`). Raises ValueError otherwise."""
    try:
        return Draft.model_validate(envelope)
    except ValidationError as error:
        repaired = dict(envelope)
        for problem in error.errors():
            field = str(problem["loc"][0]) if problem.get("loc") else ""
            value, limit = repaired.get(field), _ENVELOPE_LIMITS.get(field, 0)
            if limit and isinstance(value, str) and len(value) > limit:
                cut = value[: limit + 1].rsplit(" ", 1)[0][:limit].rstrip()
                repaired[field] = cut
                dropped.append(f"{field} is longer than {limit} characters; cut to {cut!r}")
            elif field in ENVELOPE_FIELDS:
                repaired[field] = "" if field in _ENVELOPE_LIMITS else None
                wanted = " (YYYY-MM-DD)" if field == "reference_time" else ""
                message = str(problem.get("msg", "invalid")).removeprefix("Value error, ")
                said = (
                    f"{field} {message}"  # our own words name the value already
                    if message.startswith(repr(value))
                    else f"{field} {value!r} is not valid{wanted}: {message}"
                )
                dropped.append(f"{said}; cleared")
        if repaired == envelope:
            raise ValueError(_first_error(error)) from error
        try:
            return Draft.model_validate(repaired)
        except ValidationError as again:
            raise ValueError(_first_error(again)) from again


def _validate_whole(
    raw: dict[str, object], envelope: dict[str, object], items: dict[str, list[object]]
) -> Draft | None:
    """The draft validated in one call, or None when anything in it is invalid (or not a list)."""
    if not all(isinstance(raw.get(kind, []), list) for kind in _ITEM_KINDS):
        return None
    try:
        return Draft.model_validate({**envelope, **items})
    except ValidationError:
        return None


def _quote_finder(chunk_text: str | None) -> Callable[[str], bool]:
    """A test of whether a quote occurs in the chunk after case and whitespace folding."""
    if chunk_text is None:
        return lambda _quote: True
    folded: list[str] = []

    def found(quote: str) -> bool:
        # A verbatim quote is found after folding too; fold the chunk only for the other quotes.
        if quote in chunk_text:
            return True
        if not folded:
            folded.append(normalize_for_match(chunk_text))
        return normalize_for_match(quote) in folded[0]

    return found


def _as_list(value: object) -> list[object]:
    return value if isinstance(value, list) else []


def _first_error(error: ValidationError) -> str:
    first = error.errors()[0]
    where = ".".join(str(p) for p in first.get("loc", ())) or "draft"
    return f"{where}: {first.get('msg', 'invalid')}"
