"""The extraction contract (DESIGN §4): pydantic models and their validation."""

from __future__ import annotations

import re
from datetime import date
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

SCHEMA_VERSION: Literal["kgvault.draft/1"] = "kgvault.draft/1"
GENERIC_EPISODE_NAMES = frozenset(
    {"", "note", "notes", "untitled", "episode", "chunk", "section", "text", "misc", "summary", "document"}
)
_SNAKE = re.compile(r"^[a-z][a-z0-9_]*$")


class _Item(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", str_strip_whitespace=True)


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

    @model_validator(mode="after")
    def _layer_rules(self) -> DraftNode:
        episodic_types = {"observation", "decision", "state"}
        if self.memory_layer == "episodic":
            if self.type not in episodic_types:
                raise ValueError(f"episodic node cannot have type {self.type!r}")
            if self.timestamp is None:
                raise ValueError("episodic node needs a timestamp (undated event)")
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


def normalize_for_match(text: str) -> str:
    """Fold case and collapse whitespace, so a quote can be found in its chunk."""
    return " ".join(text.casefold().split())


def validate_items(raw: dict[str, object], chunk_text: str | None) -> tuple[Draft, list[str]]:
    """Validate a raw draft item by item: keep what is valid, return reasons for what was dropped.

    With `chunk_text`, every `supporting_text` must occur in it (after case and
    whitespace folding) or its item is dropped. Relations whose ends are not named
    in `entities` are dropped too. Raises ValueError when the envelope itself is broken.
    """
    dropped: list[str] = []
    envelope = {k: v for k, v in raw.items() if k not in ("nodes", "entities", "relations")}
    name = envelope.get("episode_name")
    if isinstance(name, str) and name.strip().casefold() in GENERIC_EPISODE_NAMES - {""}:
        dropped.append(f"episode_name {name!r} is generic; cleared")
        envelope["episode_name"] = ""
    try:
        base = Draft.model_validate(envelope)
    except ValidationError as error:
        raise ValueError(_first_error(error)) from error
    haystack = normalize_for_match(chunk_text) if chunk_text is not None else None

    def keep(kind: str, index: int, model: type[_Item], item: object) -> _Item | None:
        try:
            parsed = model.model_validate(item)
        except ValidationError as error:
            dropped.append(f"{kind}[{index}]: {_first_error(error)}")
            return None
        quote = getattr(parsed, "supporting_text", None)
        if haystack is not None and quote and normalize_for_match(quote) not in haystack:
            dropped.append(f"{kind}[{index}]: supporting_text not found in the chunk")
            return None
        return parsed

    nodes = [n for i, x in enumerate(_as_list(raw.get("nodes"))) if (n := keep("nodes", i, DraftNode, x))]
    entities = [
        e for i, x in enumerate(_as_list(raw.get("entities"))) if (e := keep("entities", i, DraftEntity, x))
    ]
    names = {e.name.casefold() for e in entities if isinstance(e, DraftEntity)}
    for e in entities:
        assert isinstance(e, DraftEntity)
        names.update(a.casefold() for a in e.aliases)
    relations: list[_Item] = []
    for i, x in enumerate(_as_list(raw.get("relations"))):
        parsed = keep("relations", i, DraftRelation, x)
        if parsed is None:
            continue
        assert isinstance(parsed, DraftRelation)
        if parsed.subject.casefold() not in names or parsed.object.casefold() not in names:
            dropped.append(f"relations[{i}]: subject or object is not among the entities")
            continue
        relations.append(parsed)
    draft = base.model_copy(update={"nodes": nodes, "entities": entities, "relations": relations})
    return draft, dropped


def _as_list(value: object) -> list[object]:
    return value if isinstance(value, list) else []


def _first_error(error: ValidationError) -> str:
    first = error.errors()[0]
    where = ".".join(str(p) for p in first.get("loc", ())) or "draft"
    return f"{where}: {first.get('msg', 'invalid')}"
