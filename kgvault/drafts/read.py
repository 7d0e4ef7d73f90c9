"""Draft files: read a kgvault, Mnemon or mini-context-graph draft as one kgvault draft (DESIGN §4).

A draft file has no chunk, so its items are not checked against one here; each kept item carries
its JSON pointer into the file as its evidence, and each invalid item is reported with its pointer
while the valid items of the same file are kept.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from kgvault.drafts.mini_graph import read_mini_graph
from kgvault.drafts.mnemon import read_mnemon
from kgvault.extract.draft import ENVELOPE_FIELDS, IGNORED, SCHEMA_VERSION, Draft, validate_items

DraftFormat = Literal["kgvault.draft/1", "mnemon", "mini-context-graph"]
Problem = tuple[str, str]
"""(JSON pointer, reason) of one item left out of a draft file."""

_ITEM_KINDS = ("nodes", "entities", "relations", "links")
# validate_items names a dropped item `nodes[3]: reason`; everything else it says is about the envelope.
_DROPPED_ITEM = re.compile(
    r"^(?P<kind>nodes|entities|relations|links)\[(?P<index>\d+)\]: (?P<reason>.*)$", re.S
)
# How validate_items words a model's refusal: `field: message`, `draft` when the whole item refused it.
_MODEL_REASON = re.compile(r"^(?P<where>[\w.]+): (?:Value error, )?(?P<message>.*)$", re.S)
_LINE_RANGE = re.compile(
    r"[\s,;:(\[#]*\blines?\s+(?P<start>\d+)(?:\s*(?:-|–|—|to)\s*(?P<end>\d+))?\s*[)\]]?\s*$", re.I
)
# A notes path ends with a file extension (`journal.md`); a free description ("Ender 3 fault") names no note.
# The vault's own evidence style (`journal.md#L5-L7`) and an editor's (`journal.md:5-7`).
_CITED_RANGE = re.compile(r"(?:#L(?P<start>\d+)(?:-L?(?P<end>\d+))?|:(?P<start2>\d+)(?:-(?P<end2>\d+))?)$")
_NOTES_PATH = re.compile(r"^\S(?:.*\S)?\.[A-Za-z][A-Za-z0-9]{0,9}$")


@dataclass(frozen=True, slots=True)
class DraftFile:
    """Every valid item of one draft file, as one kgvault draft; and why each invalid item was left out."""

    format: DraftFormat
    """The format the file was read as."""
    draft: Draft
    """All valid items of the file in one draft, each with `pointer` set to its JSON pointer in the file."""
    problems: tuple[Problem, ...]
    """(pointer, reason) for each item left out (or repaired), in file order."""
    named_source: str | None
    """For kgvault drafts, the notes path the draft says it was made from (`source`, or the path part of
    `source_description`); else None."""
    named_lines: tuple[int, int] | None
    """The line range `source_description` gives (`lines 12-14`), when it gives one."""
    named_each: tuple[tuple[str, str, tuple[int, int] | None], ...] = ()
    """For a list of drafts naming different notes: (pointer prefix, notes path, lines) of each draft
    that names one, so each is checked against its own note."""


def read_draft_data(data: object) -> DraftFile | None:
    """Read parsed JSON as a draft file of a known format; None when it is none of them."""
    if isinstance(data, dict) and _is_kgvault_draft(data):
        return _read_kgvault(data)
    if isinstance(data, list) and any(map(_is_kgvault_draft, data)):
        return _read_kgvault(data)
    if isinstance(data, dict) and _is_mnemon(data):
        draft, problems = read_mnemon(data)
        return DraftFile("mnemon", draft, _in_file_order(problems, data), None, None)
    if isinstance(data, dict) and _is_mini_graph(data):
        draft, problems = read_mini_graph(data)
        return DraftFile("mini-context-graph", draft, _in_file_order(problems, data), None, None)
    return None


# -- detection ----------------------------------------------------------------------------------


def _is_kgvault_draft(data: object) -> bool:
    return isinstance(data, dict) and data.get("schema_version") == SCHEMA_VERSION


def _is_mnemon(data: dict[str, object]) -> bool:
    return data.get("schema_version") == "1" and isinstance(data.get("insights"), list)


def _is_mini_graph(data: dict[str, object]) -> bool:
    """Entities and/or relations in mini-context-graph's shape (relations by source/target/type)."""
    if "schema_version" in data or "nodes" in data or "insights" in data:
        return False
    entities, relations = data.get("entities"), data.get("relations")
    if not isinstance(entities, list | None) or not isinstance(relations, list | None):
        return False
    if relations:
        return any(isinstance(r, dict) and {"source", "target", "type"} <= r.keys() for r in relations)
    # Entities alone: mini-context-graph types them with `type`, kgvault with `entity_type`.
    return any(isinstance(e, dict) and {"name", "type"} <= e.keys() for e in entities or [])


# -- kgvault drafts -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Read:
    """One kgvault draft of a file, read."""

    pointer: str
    draft: Draft | None
    """None when its envelope is broken."""
    source: str | None
    lines: tuple[int, int] | None


def _read_kgvault(data: dict[str, object] | list[object]) -> DraftFile:
    """Read one kgvault draft, or a list of them merged into one (their pointers prefixed `/i`)."""
    problems: list[Problem] = []
    if isinstance(data, dict):
        one = _read_one(data, "", problems)
        draft = one.draft if one.draft is not None else Draft()
        return DraftFile(SCHEMA_VERSION, draft, _in_file_order(problems, data), one.source, one.lines)
    reads: list[_Read] = []
    for index, element in enumerate(data):
        if isinstance(element, dict) and _is_kgvault_draft(element):
            reads.append(_read_one(element, f"/{index}", problems))
        else:
            problems.append((f"/{index}", f"not a draft: schema_version is not {SCHEMA_VERSION!r}"))
    draft = _merge([r.draft for r in reads if r.draft is not None])
    source, lines = _named_by_all(reads)
    each = (
        tuple((r.pointer, r.source, r.lines) for r in reads if r.source is not None and r.draft is not None)
        if source is None
        else ()
    )
    return DraftFile(SCHEMA_VERSION, draft, _in_file_order(problems, data), source, lines, each)


def _read_one(raw: dict[str, object], prefix: str, problems: list[Problem]) -> _Read:
    """Validate one kgvault draft item by item, each kept item carrying its pointer."""
    raw = dict(raw)
    source = raw.pop("source", None)
    if source is not None and not (isinstance(source, str) and source.strip()):
        problems.append((f"{prefix}/source", "source is not a notes path"))
        source = None
    for kind in _ITEM_KINDS:
        items = raw.get(kind)
        if isinstance(items, list):
            # `pointer` is a field of every item, so the kept ones come back from validation carrying it.
            raw[kind] = [
                {**item, "pointer": f"{prefix}/{kind}/{index}"} if isinstance(item, dict) else item
                for index, item in enumerate(items)
            ]
        elif items is not None:
            problems.append((f"{prefix}/{kind}", f"{kind} is not a list"))
    try:
        draft, dropped = validate_items(raw, None)
    except ValueError as error:
        problems.append((prefix, f"the draft's envelope is invalid: {error}"))
        return _Read(prefix, None, None, None)
    for reason in dropped:
        item = _DROPPED_ITEM.match(reason)
        if item:
            problems.append((f"{prefix}/{item['kind']}/{item['index']}", _tidy(item["reason"])))
        elif (field := reason.split(" ", 1)[0]) in ENVELOPE_FIELDS or reason.endswith(IGNORED):
            problems.append((f"{prefix}/{field}", reason))
        else:
            problems.append((prefix, reason))
    path, lines = named_in_description(draft.source_description)
    return _Read(prefix, draft, source.strip() if isinstance(source, str) else path, lines)


def _tidy(reason: str) -> str:
    """Drop pydantic's repetitions: `entity_type: Value error, entity_type …` → `entity_type …`."""
    found = _MODEL_REASON.match(reason)
    if not found:
        return reason
    where, message = found["where"], found["message"]
    return message if where == "draft" or message.startswith(where) else f"{where}: {message}"


def named_in_description(description: str) -> tuple[str | None, tuple[int, int] | None]:
    """Split a source_description like `printing/journal.md lines 12-14` (or `…#L12-L14`, `…:12-14`)
    into its notes path and lines."""
    text = description.strip()
    lines: tuple[int, int] | None = None
    found = _LINE_RANGE.search(text)
    if found:
        start = int(found["start"])
        end = int(found["end"] or start)
        lines = (start, end) if 1 <= start <= end else None
        text = text[: found.start()].strip()
    elif cited := _CITED_RANGE.search(text):
        start = int(cited["start"] or cited["start2"])
        end = int(cited["end"] or cited["end2"] or start)
        lines = (start, end) if 1 <= start <= end else None
        text = text[: cited.start()].strip()
    return (text if _NOTES_PATH.match(text) else None), lines


def _merge(drafts: list[Draft]) -> Draft:
    """One draft holding every item of `drafts`, in order, with the first draft's envelope."""
    if not drafts:
        return Draft()
    items = {kind: [item for draft in drafts for item in getattr(draft, kind)] for kind in _ITEM_KINDS}
    kept = any(items.values())
    return drafts[0].model_copy(update={**items, "skip_reason": None if kept else drafts[0].skip_reason})


def _named_by_all(reads: list[_Read]) -> tuple[str | None, tuple[int, int] | None]:
    """The note a list of drafts was made from, when they agree on it, and the lines they span.

    Drafts naming different notes leave the file with no one named note (each draft is then checked
    against its own: `DraftFile.named_each`). The lines are the span of every draft's range; a draft
    without a range means the whole note.
    """
    named = [r for r in reads if r.source is not None]
    if not named:
        return None, None
    first = named[0].source
    if any(r.source != first for r in named):
        return None, None
    ranges = [r.lines for r in reads if r.draft is not None]
    if not ranges or any(r is None for r in ranges):
        return first, None
    spans = [r for r in ranges if r is not None]
    return first, (min(s for s, _ in spans), max(e for _, e in spans))


# -- problems in file order ---------------------------------------------------------------------


def _in_file_order(problems: list[Problem], data: object) -> tuple[Problem, ...]:
    """Sort problems by where their pointers point in the file (stable for one pointer)."""
    return tuple(sorted(problems, key=lambda problem: _file_position(data, problem[0])))


def _file_position(data: object, pointer: str) -> tuple[int, ...]:
    """Where a pointer points, as the rank of each key (in the file's order) or index along the way."""
    position: list[int] = []
    node = data
    for token in pointer.split("/")[1:]:
        token = token.replace("~1", "/").replace("~0", "~")
        if isinstance(node, list) and token.isdigit():
            index = int(token)
            position.append(index)
            node = node[index] if index < len(node) else None
        elif isinstance(node, dict):
            keys = list(node)
            position.append(keys.index(token) if token in node else len(keys))
            node = node.get(token)
        else:
            break
    return tuple(position)
