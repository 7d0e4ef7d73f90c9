"""`kgvault import`: take one draft file into a vault, skipping what it already knows, Mnemon-style.

The draft's valid items are kept, as a kgvault draft, in `VAULT/.kgvault/drafts/`, where every
later build of the vault reads them. Per node: the same content as a node the vault has is
skipped; a near-identical one (same entities, a small edit) updates the node an earlier import
gave, or is skipped when a note says it; anything else is added. Invalid items are errors, each
with its JSON pointer and reason; the valid items of the same file still land.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from rapidfuzz import fuzz

from kgvault.drafts import DraftFile, read_draft_data
from kgvault.extract.draft import Draft, DraftNode, normalize_for_match
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
    except ValueError as error:
        raise ImportProblem(f"{path} is not valid JSON: {error}") from error
    found = read_draft_data(data)
    if found is None:
        raise ImportProblem(
            f"{path} is not a draft kgvault reads: expected a kgvault.draft/1 draft (or a list of them), "
            'a Mnemon memory_draft.json (schema_version "1") or mini-context-graph JSON; see `kgvault prompt`'
        )
    return found


def import_draft(path: Path, vault: Path, *, dry_run: bool = False, no_diff: bool = False) -> ImportResult:
    """Validate one draft file and keep its new items in the vault; nothing is written on a dry run."""
    found = read_draft_file(path)
    result = ImportResult()
    for pointer, reason in found.problems:
        if _is_notice(pointer, reason):
            continue  # nothing was left out
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
    keep: list[DraftNode] = []
    retire: dict[str, set[str]] = {}
    for node in found.draft.nodes:
        action, match = ("added", None) if no_diff else _compare(node, known)
        index = _LAST_INDEX.search(node.pointer or "")
        row: dict[str, Any] = {
            "index": int(index.group(1)) if index else len(result.results),
            "id": match.id if match is not None and action == "skipped" else node_slug(node.title),
            "content": node.body or node.title,
            "action": action,
        }
        result.results.append(row)
        result.titles[id(row)] = node.title
        if action == "skipped":
            result.skipped += 1
            continue
        if action == "updated":
            assert match is not None and match.kept_in is not None
            retire.setdefault(match.kept_in, set()).add(match.title.casefold())
            result.updated += 1
        else:
            result.imported += 1
        keep.append(node)
    result.results.sort(key=lambda row: (row["index"] is None, row["index"] or 0, row["action"]))
    draft = _kept_part(found.draft, keep)
    result.edges_inserted = len(draft.links)
    if not (draft.nodes or draft.entities or draft.relations):
        return result
    name = f"{slugify(path.stem)}-{_digest(draft)[:8]}.json"
    if any(_digest(kept) == _digest(draft) for kept in kept_drafts.values()):
        return result  # the very same items are kept already
    if dry_run:
        return result
    result.kept_as = f"{DRAFTS_DIR}/{name}"
    with vault_lock(vault):
        for kept_in, titles in sorted(retire.items()):
            _retire(vault / kept_in, kept_drafts[kept_in], titles)
        atomic_write(vault / DRAFTS_DIR / name, _as_json(draft).encode("utf-8"))
    return result


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
    return pointer.endswith("/episode_name") or "the file names no note" in reason


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
        _Known(node_slug(node.title), _folded(node), _names(node.entities), kept_in=path, title=node.title)
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
    for other in known:
        if other.folded == folded:
            return "skipped", other
    for other in known:
        if other.entities == names and fuzz.ratio(other.folded, folded) >= NEAR_RATIO:
            # A note's word stands: only what an earlier import gave is replaced.
            return ("updated", other) if other.kept_in is not None else ("skipped", other)
    return "added", None


def _folded(node: DraftNode) -> str:
    return normalize_for_match(node.body or node.title)


def _names(names: list[str]) -> frozenset[str]:
    return frozenset(name.casefold().strip() for name in names)


# -- what is kept ---------------------------------------------------------------------------------


def _kept_part(draft: Draft, nodes: list[DraftNode]) -> Draft:
    """The draft with only the nodes to keep, the links between them and the entities still named.

    A draft of entities and relations alone (mini-context-graph) keeps them all.
    """
    titles = {node.title.casefold() for node in nodes}
    links = [
        link for link in draft.links if link.source.casefold() in titles and link.target.casefold() in titles
    ]
    entities = draft.entities
    if draft.nodes:
        named = {name.casefold() for node in nodes for name in node.entities}
        named |= {end.casefold() for r in draft.relations for end in (r.subject, r.object)}
        entities = [e for e in entities if {e.name.casefold(), *map(str.casefold, e.aliases)} & named]
    update = {"nodes": nodes, "entities": entities, "links": links, "source_description": ""}
    return draft.model_copy(update=update)


def _retire(path: Path, draft: Draft, titles: set[str]) -> None:
    """Take the nodes an update replaced out of an earlier import's kept draft."""
    nodes = [node for node in draft.nodes if node.title.casefold() not in titles]
    kept = _kept_part(draft, nodes)
    if kept.nodes or kept.entities or kept.relations:
        atomic_write(path, _as_json(kept).encode("utf-8"))
    else:
        path.unlink(missing_ok=True)


def _as_json(draft: Draft) -> str:
    """A kept draft as stable, readable JSON: no internal pointers, keys sorted."""
    return (
        json.dumps(
            _without_pointers(draft.model_dump(mode="json", exclude_none=True)),
            ensure_ascii=False,
            indent=2,
            sort_keys=True,
        )
        + "\n"
    )


def _without_pointers(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_pointers(v) for k, v in value.items() if k != "pointer"}
    if isinstance(value, list):
        return [_without_pointers(v) for v in value]
    return value


def _digest(draft: Draft) -> str:
    return hashlib.sha256(_as_json(draft).encode("utf-8")).hexdigest()
