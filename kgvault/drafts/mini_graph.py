"""mini-context-graph's extraction JSON: `entities` (name, type) and `relations` (source, target, type)."""

from __future__ import annotations

import re
from typing import Any

from pydantic import ValidationError

from kgvault.extract.draft import Draft, DraftEntity, DraftRelation

Problem = tuple[str, str]

MIN_CONFIDENCE = 0.6
"""mini-context-graph's own floor: a relation weaker than this is not to be included."""
DEFAULT_ENTITY_TYPE = "concept"


def read_mini_graph(data: dict[str, Any]) -> tuple[Draft, list[Problem]]:
    """Convert mini-context-graph JSON into one kgvault draft; report each item left out, by pointer."""
    problems: list[Problem] = []
    entities: list[DraftEntity] = []
    for index, raw in enumerate(_items(data, "entities", problems)):
        entity = _entity(raw, f"/entities/{index}")
        if isinstance(entity, str):
            problems.append((f"/entities/{index}", entity))
        else:
            entities.append(entity)
    names = {_folded(entity.name) for entity in entities}
    relations: list[DraftRelation] = []
    for index, raw in enumerate(_items(data, "relations", problems)):
        relation = _relation(raw, f"/relations/{index}", names)
        if isinstance(relation, str):
            problems.append((f"/relations/{index}", relation))
        else:
            relations.append(relation)
    return Draft(entities=entities, relations=relations), problems


def _items(data: dict[str, Any], kind: str, problems: list[Problem]) -> list[object]:
    value = data.get(kind)
    if value is None:
        return []
    if not isinstance(value, list):
        problems.append((f"/{kind}", f"{kind} is not a list"))
        return []
    return value


_NOT_SNAKE = re.compile(r"[^a-z0-9]+")
_SNAKE = re.compile(r"^[a-z][a-z0-9_]*$")


def _entity(raw: object, pointer: str) -> DraftEntity | str:
    """The entity, or why it is left out."""
    if not isinstance(raw, dict):
        return "an entity is an object with name, type and supporting_text"
    reasons = _texts(raw, required=("name",), optional=("type", "supporting_text"))
    if reasons:
        return "; ".join(reasons)
    try:
        kind = _snake(raw.get("type") or "") or DEFAULT_ENTITY_TYPE
        # A type kgvault cannot spell as one (`人物`, `3D printer`) is kept in words, not lost.
        said = " ".join(str(raw.get("type") or "").split())
        return DraftEntity.model_validate(
            {
                "name": raw["name"],
                "entity_type": kind,
                "description": f"type: {said}" if said and kind != _snake(said) else "",
                "supporting_text": raw.get("supporting_text"),
                "pointer": pointer,
            }
        )
    except ValidationError as error:
        return _reason(error)


def _relation(raw: object, pointer: str, names: set[str]) -> DraftRelation | str:
    """The relation, or why it is left out: ends among the entities, distinct, confidence ≥ 0.6."""
    if not isinstance(raw, dict):
        return "a relation is an object with source, target, type, confidence and supporting_text"
    reasons = _texts(raw, required=("source", "target", "type"), optional=("supporting_text",))
    confidence: object = raw.get("confidence")
    if confidence is None:
        reasons.append(f"confidence is missing (a relation needs one of at least {MIN_CONFIDENCE})")
    elif not isinstance(confidence, int | float) or isinstance(confidence, bool):
        reasons.append(f"confidence {confidence!r} is not a number")
    elif confidence < MIN_CONFIDENCE:
        reasons.append(f"confidence {confidence} is below {MIN_CONFIDENCE}")
    elif confidence > 1:
        reasons.append(f"confidence {confidence} is above 1.0")
    if not reasons:
        for end in ("source", "target"):
            if _folded(raw[end]) not in names:
                reasons.append(f"{end} {raw[end].strip()!r} is not among the entities")
        if _folded(raw["source"]) == _folded(raw["target"]):
            reasons.append("source and target are the same entity")
    if reasons or not isinstance(confidence, int | float):
        return "; ".join(reasons)
    relation_type = " ".join(raw["type"].lower().split())
    supporting_text = raw.get("supporting_text")
    try:
        return DraftRelation.model_validate(
            {
                "subject": raw["source"],
                # A type kgvault cannot spell as a predicate (`位于`) relates the two, in its own words.
                "predicate": _snake(relation_type) or "related_to",
                "label": relation_type,
                "object": raw["target"],
                "statement": supporting_text or "",
                "confidence": float(confidence),
                "supporting_text": supporting_text,
                "pointer": pointer,
            }
        )
    except ValidationError as error:
        return _reason(error)


def _snake(text: str) -> str | None:
    """The type as snake_case (`Part-of / related` → `part_of_related`), or None when it cannot be."""
    snake = _NOT_SNAKE.sub("_", text.casefold()).strip("_")
    return snake if _SNAKE.match(snake) else None


def _texts(raw: dict[Any, Any], *, required: tuple[str, ...], optional: tuple[str, ...]) -> list[str]:
    """Why the required fields are not non-blank strings, or the optional ones not strings."""
    reasons = []
    for field in required:
        value = raw.get(field)
        if value is None:
            reasons.append(f"{field} is missing")
        elif not isinstance(value, str):
            reasons.append(f"{field} is not a string")
        elif not value.strip():
            reasons.append(f"{field} is blank")
    for field in optional:
        value = raw.get(field)
        if value is not None and not isinstance(value, str):
            reasons.append(f"{field} is not a string")
    return reasons


def _folded(name: str) -> str:
    return " ".join(name.casefold().split())


def _reason(error: ValidationError) -> str:
    """The first thing a model refused, as `field: message` (the field left out when it says it)."""
    first = error.errors()[0]
    where = ".".join(str(part) for part in first["loc"])
    message = first["msg"].removeprefix("Value error, ")
    return f"{where}: {message}" if where and not message.startswith(where) else message
