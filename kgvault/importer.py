"""`kgvault import`: take one draft file into a vault, skipping what it already knows, Mnemon-style.

The draft's valid items are kept, as a kgvault draft, in `VAULT/.kgvault/drafts/`, where every
later build of the vault reads them. Per node: the same content as a node the vault has is
skipped; a near-identical one (same entities, a small edit) updates the node an earlier import
gave, or is skipped when a note says it; anything else is added. Invalid items are errors, each
with its JSON pointer and reason; the valid items of the same file still land.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
from dataclasses import dataclass, field
from datetime import date
from functools import partial
from pathlib import Path
from typing import Any

import yaml
from rapidfuzz import fuzz

from kgvault.drafts import DraftFile, read_draft_data
from kgvault.extract.draft import Draft, DraftNode, normalize_for_match
from kgvault.extract.from_draft import checked_quotes, is_notice, masked
from kgvault.extract.patterns import PREDICATE_SYNONYMS
from kgvault.layout import DRAFTS_DIR, FOLDERS, MARKER, STATE_DIR
from kgvault.lock import vault_lock
from kgvault.names import node_slug, slugify
from kgvault.write import atomic_write

NEAR_RATIO = 90
"""How alike (rapidfuzz ratio of folded texts, 0–100) two nodes with the same entities must be to be one."""
_LAST_INDEX = re.compile(r"/(\d+)$")
_WIKILINK_TITLE = re.compile(r"\[\[[^\]|]*\|([^\]]*)\]\]")


class ImportProblem(Exception):
    """The draft file cannot be imported at all (unreadable, not JSON, no known format)."""


@dataclass
class ImportResult:
    """What an import did, in the shape Mnemon's `import` prints."""

    imported: int = 0
    updated: int = 0
    skipped: int = 0
    errors: int = 0
    edges_inserted: int = 0
    auto_pruned: int = 0
    results: list[dict[str, Any]] = field(default_factory=list)
    kept_as: str | None = None
    """The draft file written in the vault (vault-relative), or None when nothing new was kept."""
    titles: dict[int, str] = field(default_factory=dict)
    """The node title behind each result row (by the row's identity), to find its page after the build."""
    notices: list[tuple[str, str]] = field(default_factory=list)
    """(pointer, reason) of what was repaired or left unchecked while every item was kept."""

    def to_json(self) -> dict[str, Any]:
        """The Mnemon result object: counts, then one result per item."""
        return {
            "imported": self.imported,
            "updated": self.updated,
            "skipped": self.skipped,
            "errors": self.errors,
            "edges_inserted": self.edges_inserted,
            "auto_pruned": self.auto_pruned,
            "results": self.results,
        }


@dataclass(frozen=True, slots=True)
class _Known:
    """A node the vault already has: from a page, or from a draft an earlier import kept."""

    id: str
    folded: str
    entities: frozenset[str]
    kept_in: str | None = None
    """The kept draft file (vault-relative) the node comes from, when an import gave it."""
    title: str = ""
    when: date | None = None
    """An episode's date: the same words on another day are another event (None for a semantic node)."""


def read_draft_file(path: Path) -> DraftFile:
    """Read and recognize a draft file, or say exactly why it cannot be imported."""
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except OSError as error:
        raise ImportProblem(f"cannot read {path}: {error.strerror or error}") from error
    except UnicodeDecodeError as error:
        raise ImportProblem(f"{path} is not UTF-8 text (byte {error.start}); save it as UTF-8") from error
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as error:
        raise ImportProblem(f"{path} is not valid JSON: {error}") from error
    found = read_draft_data(data)
    if found is None:
        raise ImportProblem(
            f"{path} is not a draft kgvault reads: expected a kgvault.draft/1 draft (or a list of them), "
            'a Mnemon memory_draft.json (schema_version "1") or mini-context-graph JSON; see `kgvault prompt`'
        )
    return found


def import_draft(
    path: Path, vault: Path, *, notes: Path | None = None, dry_run: bool = False, no_diff: bool = False
) -> ImportResult:
    """Validate one draft file and keep what is new of it in the vault; nothing is written on a dry run.

    A kgvault draft naming the note it was made from has its quotes checked against that note
    under `notes`: an item quoting what the note does not say is an error, as in a build.
    """
    found = read_draft_file(path)
    result = ImportResult()
    problems = [(pointer, reason) for pointer, reason in found.problems if not _is_notice(pointer, reason)]
    result.notices = [(pointer, reason) for pointer, reason in found.problems if _is_notice(pointer, reason)]
    draft = found.draft
    if notes is not None:
        draft, unquoted = checked_quotes(found, partial(_read_note, notes))
        problems += [
            tuple(reason.split(": ", 1))  # type: ignore[misc]
            for reason in unquoted
            if not is_notice(reason)
        ]
    draft = masked(draft)  # what is kept and compared holds no secret, as pages do not
    for pointer, reason in problems:
        result.errors += 1
        index = _LAST_INDEX.search(pointer)
        result.results.append(
            {
                "index": int(index.group(1)) if index else None,
                "pointer": pointer,
                "action": "error",
                "reason": reason,
            }
        )
    kept_drafts = _kept_drafts(vault)
    known = [] if no_diff else [*_kept_nodes(kept_drafts), *_page_nodes(vault)]
    actions: dict[str, str] = {}
    updates: dict[str, list[tuple[str, DraftNode]]] = {}
    for node in draft.nodes:
        action, match = ("added", None) if no_diff else _compare(node, known)
        actions[node.title.casefold()] = action
        row = _row(node.pointer, len(result.results), node.body or node.title, action)
        row["id"] = match.id if match is not None and action == "skipped" else node_slug(node.title)
        result.results.append(row)
        result.titles[id(row)] = node.title
        if action == "updated":
            assert match is not None and match.kept_in is not None
            updates.setdefault(match.kept_in, []).append((match.title, node))
        setattr(result, _COUNTERS[action], getattr(result, _COUNTERS[action]) + 1)
    if not draft.nodes:
        names = set() if no_diff else set(_entity_ids(vault))
        for entity in draft.entities:
            action = "skipped" if entity.name.casefold() in names else "added"
            row = _row(entity.pointer, len(result.results), entity.name, action)
            row["id"] = slugify(entity.name)
            result.results.append(row)
            setattr(result, _COUNTERS[action], getattr(result, _COUNTERS[action]) + 1)
    result.results.sort(key=lambda row: (row["index"] is None, row["index"] or 0, row["action"]))
    kept = _kept_part(draft, actions)
    result.edges_inserted = len(kept.links)
    # A list of drafts naming different notes is kept as one draft per note: a build checks each
    # draft's quotes against the note it names, and one envelope would name one note for all.
    parts = _each_draft(kept, path) if found.named_each else [(kept, None)]
    new = bool(result.imported) or _says_more(kept, vault, no_diff)
    known_digests = {_digest(other) for other in kept_drafts.values()}
    if new and all(_digest(part) in known_digests for part, _ in parts):
        new = False  # the very same items are kept already: nothing is added, even with --no-diff
        for row in result.results:
            if row["action"] == "added":
                row["action"] = "skipped"
                result.imported -= 1
                result.skipped += 1
        result.edges_inserted = 0
    if dry_run or not (new or updates):
        return result
    with vault_lock(vault):
        if new:
            kept_paths: list[str] = []
            for part, source in parts:
                if not (part.nodes or part.entities or part.relations) or _digest(part) in known_digests:
                    continue
                name = f"{slugify(path.stem)}-{_digest(part)[:8]}.json"
                kept_paths.append(f"{DRAFTS_DIR}/{name}")
                atomic_write(vault / DRAFTS_DIR / name, _as_json(part, source).encode("utf-8"))
            result.kept_as = ", ".join(kept_paths) or None
        for kept_in, replaced in sorted(updates.items()):
            _update(vault / kept_in, kept_drafts[kept_in], replaced)
    return result


_COUNTERS = {"added": "imported", "updated": "updated", "skipped": "skipped"}


def _read_note(notes: Path, path: str) -> str | None:
    """A note's text by notes path; None when it is not there or not among the notes (a draft naming
    `../secret.md` must not read any file)."""
    note = notes / path
    try:
        if not note.resolve().is_relative_to(notes.resolve()):
            return None
        return note.read_text("utf-8", errors="replace").replace("\r\n", "\n")
    except OSError:
        return None


def _row(pointer: str | None, position: int, content: str, action: str) -> dict[str, Any]:
    index = _LAST_INDEX.search(pointer or "")
    return {
        "index": int(index.group(1)) if index else position,
        "id": "",
        "content": content,
        "action": action,
    }


def notes_root(vault: Path) -> Path | None:
    """The notes folder the vault was last built from, as its state remembers it."""
    try:
        data = json.loads((vault / STATE_DIR / "state" / "notes.json").read_text("utf-8"))
    except (OSError, ValueError):
        return None
    root = data.get("notes_root") if isinstance(data, dict) else None
    return Path(root) if isinstance(root, str) and Path(root).is_dir() else None


def resolve_ids(result: ImportResult, vault: Path) -> None:
    """After the build, give each added or updated result the id of the node page it became."""
    by_title: dict[str, str] = {}
    for folder in (FOLDERS["episodic"], FOLDERS["semantic"]):
        for page in sorted((vault / folder).glob("*.md")):
            properties, _ = _page(page)
            if properties is not None and isinstance(properties.get("title"), str):
                by_title.setdefault(normalize_for_match(properties["title"]), page.stem)
    for row in result.results:
        title = result.titles.get(id(row))
        if row["action"] in ("added", "updated") and title is not None:
            row["id"] = by_title.get(normalize_for_match(title), row["id"])


def _is_notice(pointer: str, reason: str) -> bool:
    """A problem that leaves no item out: a generic episode name cleared, drafts naming different notes."""
    return pointer.endswith("/episode_name") or "the file names no note" in reason or is_notice(reason)


# -- what the vault knows -----------------------------------------------------------------------


def _kept_drafts(vault: Path) -> dict[str, Draft]:
    """The drafts earlier imports kept, by vault-relative path."""
    folder = vault / DRAFTS_DIR
    kept: dict[str, Draft] = {}
    if not folder.is_dir():
        return kept
    for path in sorted(folder.glob("*.json")):
        try:
            found = read_draft_data(json.loads(path.read_text("utf-8")))
        except (OSError, ValueError):
            continue
        if found is not None:
            kept[f"{DRAFTS_DIR}/{path.name}"] = found.draft
    return kept


def _kept_nodes(kept: dict[str, Draft]) -> list[_Known]:
    return [
        _Known(
            node_slug(node.title),
            _folded(node),
            _names(node.entities),
            kept_in=path,
            title=node.title,
            when=_when(node.memory_layer, node.timestamp),
        )
        for path, draft in kept.items()
        for node in draft.nodes
    ]


def _page_nodes(vault: Path) -> list[_Known]:
    """The node pages of the vault: their title, text and entities."""
    known = []
    for folder in (FOLDERS["episodic"], FOLDERS["semantic"]):
        for page in sorted((vault / folder).glob("*.md")):
            properties, body = _page(page)
            if properties is None:
                continue
            entities = properties.get("entities") or []
            names = [m.group(1) for e in entities if isinstance(e, str) and (m := _WIKILINK_TITLE.search(e))]
            text = body.split("\n## ", 1)[0].split(MARKER, 1)[0].strip()
            known.append(
                _Known(
                    page.stem,
                    normalize_for_match(text),
                    _names(names),
                    title=str(properties.get("title", "")),
                    when=_when(properties.get("memory_layer"), properties.get("timestamp")),
                )
            )
    return known


def _page(path: Path) -> tuple[dict[str, Any] | None, str]:
    """A page's frontmatter and body; (None, "") when it has no readable frontmatter."""
    try:
        text = path.read_text("utf-8")
    except (OSError, UnicodeDecodeError):
        return None, ""
    if not text.startswith("---\n"):
        return None, ""
    front, _, body = text[4:].partition("\n---\n")
    try:
        properties = yaml.safe_load(front)
    except yaml.YAMLError:
        return None, ""
    return (properties if isinstance(properties, dict) else None), body


def _compare(node: DraftNode, known: list[_Known]) -> tuple[str, _Known | None]:
    """`skipped` for the same content, `updated` for a near-identical imported node, else `added`."""
    folded = _folded(node)
    names = _names(node.entities)
    when = _when(node.memory_layer, node.timestamp)
    known = [other for other in known if other.when == when]
    for other in known:
        if other.folded == folded:
            return "skipped", other
    for other in known:
        if other.entities == names and fuzz.ratio(other.folded, folded) >= NEAR_RATIO:
            # A note's word stands: only what an earlier import gave is replaced.
            return ("updated", other) if other.kept_in is not None else ("skipped", other)
    return "added", None


def _when(layer: object, timestamp: object) -> date | None:
    """An episode's date, as a draft or a page gives it; None for a semantic node."""
    if layer != "episodic":
        return None
    if isinstance(timestamp, date):
        return timestamp
    try:
        return date.fromisoformat(str(timestamp))
    except ValueError:
        return None


def _folded(node: DraftNode) -> str:
    return normalize_for_match(node.body or node.title)


def _names(names: list[str]) -> frozenset[str]:
    return frozenset(name.casefold().strip() for name in names)


# -- what is kept ---------------------------------------------------------------------------------


def _kept_part(draft: Draft, actions: dict[str, str]) -> Draft:
    """What of a draft is kept in a new file: its added nodes and the links between them, and every
    entity and relation (nothing valid is dropped). An updated node goes in place of the one it
    replaces, in that node's own kept draft, where the links to it stay."""
    nodes = [n for n in draft.nodes if actions.get(n.title.casefold()) == "added"]
    titles = {node.title.casefold() for node in nodes}
    links = [x for x in draft.links if x.source.casefold() in titles and x.target.casefold() in titles]
    return draft.model_copy(update={"nodes": nodes, "links": links})


def _update(path: Path, draft: Draft, replaced: list[tuple[str, DraftNode]]) -> None:
    """Put the updated nodes in place of the ones they replace in an earlier import's kept draft.

    Its links follow the new title, so nothing that pointed at the old node is lost.
    """
    new_title = {old.casefold(): node for old, node in replaced}
    nodes = [new_title.get(n.title.casefold(), n) for n in draft.nodes]

    def renamed(title: str) -> str:
        node = new_title.get(title.casefold())
        return node.title if node is not None else title

    links = [
        link.model_copy(update={"source": renamed(link.source), "target": renamed(link.target)})
        for link in draft.links
    ]
    atomic_write(path, _as_json(draft.model_copy(update={"nodes": nodes, "links": links})).encode("utf-8"))


def _entity_ids(vault: Path) -> dict[str, str]:
    """The names (titles and aliases, casefolded) of the vault's entity pages, each to its page's id."""
    ids: dict[str, str] = {}
    for page in sorted((vault / FOLDERS["entity"]).glob("*.md")):
        properties, _ = _page(page)
        if properties is None:
            continue
        for name in [properties.get("title"), *(properties.get("aliases") or [])]:
            if isinstance(name, str):
                ids.setdefault(name.casefold(), page.stem)
    return ids


def _says_more(draft: Draft, vault: Path, no_diff: bool) -> bool:
    """Whether a draft names an entity or relates two the way the vault does not know (nodes aside)."""
    if no_diff:
        return bool(draft.entities or draft.relations)
    ids = _entity_ids(vault)
    if any(entity.name.casefold() not in ids for entity in draft.entities):
        return True
    known = _relation_keys(vault)
    for relation in draft.relations:
        start, end = ids.get(relation.subject.casefold()), ids.get(relation.object.casefold())
        predicate = PREDICATE_SYNONYMS.get(relation.predicate, relation.predicate)
        if start is None or end is None or (start, predicate, end) not in known:
            return True
    return False


def _relation_keys(vault: Path) -> set[tuple[str, str, str]]:
    """(from, relation, to) of every line of the vault's relations.jsonl."""
    keys = set()
    try:
        lines = (vault / "relations.jsonl").read_text("utf-8").splitlines()
    except OSError:
        return set()
    for line in lines:
        with contextlib.suppress(ValueError, TypeError, KeyError):
            row = json.loads(line)
            keys.add((str(row["from"]), str(row["relation"]), str(row["to"])))
    return keys


def _as_json(draft: Draft, source: str | None = None) -> str:
    """A kept draft as stable, readable JSON: no internal pointers, keys sorted; `source`, the notes
    path the draft names, when it names one there."""
    data = _without_pointers(draft.model_dump(mode="json", exclude_none=True))
    if source is not None:
        data["source"] = source
    return json.dumps(data, ensure_ascii=False, indent=2, sort_keys=True) + "\n"


def _each_draft(kept: Draft, path: Path) -> list[tuple[Draft, str | None]]:
    """The kept items of a list of drafts, one draft per element of the list, each with its own
    envelope (the note it names, its reference time) as the file gives it."""
    try:
        elements = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return [(kept, None)]
    if not isinstance(elements, list):
        return [(kept, None)]
    parts: list[tuple[Draft, str | None]] = []
    for index, element in enumerate(elements):
        if not isinstance(element, dict):
            continue
        prefix = f"/{index}/"
        items = {
            kind: [item for item in getattr(kept, kind) if (item.pointer or "").startswith(prefix)]
            for kind in ("nodes", "entities", "relations", "links")
        }
        fields: dict[str, Any] = {}
        for key in ("episode_name", "source_description", "reference_time"):
            try:  # what the reader repaired (a long episode name) is left out, not fatal
                fields[key] = getattr(Draft.model_validate({key: element[key]}), key)
            except (KeyError, ValueError):
                continue
        envelope = Draft(**fields)
        source = element.get("source")
        part = masked(envelope.model_copy(update=items))  # its own episode name may hold a secret
        parts.append((part, source if isinstance(source, str) and source.strip() else None))
    return parts


def _without_pointers(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_pointers(v) for k, v in value.items() if k != "pointer"}
    if isinstance(value, list):
        return [_without_pointers(v) for v in value]
    return value


def _digest(draft: Draft) -> str:
    return hashlib.sha256(_as_json(draft).encode("utf-8")).hexdigest()
