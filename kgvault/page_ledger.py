"""What each page was made of at the last build, kept on disk: a build started afresh finds most
pages unchanged without rendering them.

`kgvault watch` keeps every page's plan in memory (`render.PageMemory`). A build started afresh
has none, and rendered all 13,000 node, entity and summary pages of a 2,000-note vault to find
the few an edit changed. The ledger holds, per page, a digest of the records it was made of and
the digest of its text, and what pages read of the rest of the graph (`render.Around`). A page
made of records with the same digest, which nothing changed around it touches, reads as then.

The ledger is JSON, not pickle: a vault may come from someone else, and loading it runs no code.
Each ledger is whole in itself (written at once, by one build), so an older one is still true of
the pages it names: the writer compares its digest with the manifest's before trusting it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any, cast

from kgvault.layout import STATE_DIR
from kgvault.records import Entity, Evidence, Node, Relation, SourceSummary
from kgvault.render import Around, Changed, EntityName, Pages
from kgvault.write import atomic_write

LEDGER = f"{STATE_DIR}/state/pages.json"
_FORMAT = 1


@dataclass(frozen=True, slots=True)
class PageLedger:
    """The pages of one build: what they were made with, of, and what text that gave."""

    code: str
    """kgvault's code and libraries then (`snapshot.code_key`): other code may make other pages."""
    salt: str
    """The templates and link prefix then (`render._salt`)."""
    around: Around
    pages: dict[str, tuple[str, str]]
    """Node, entity and summary page path -> (digest of what it is made of, sha256 of its text)."""


class InputDigests:
    """Digests of what pages are made of (a node; a listing page's records): equal digests, equal records.

    The repr of a record of strings, numbers, dates and tuples of them names each value
    unambiguously (strings quoted and escaped, no bare line break) and the same in every process.
    A node is listed by several pages: its digest is worked out once.
    """

    def __init__(self) -> None:
        self._nodes: dict[str, str] = {}
        self._relations: dict[int, str] = {}
        """By the relation object's id: each is listed by the pages of both its ends."""
        self._pages: dict[str, str] = {}

    def node(self, node: Node) -> str:
        digest = self._nodes.get(node.id)
        if digest is None:
            digest = self._nodes[node.id] = _digest(repr(node))
        return digest

    def page(self, path: str, made_of: Node | tuple[object, ...]) -> str:
        """The digest of a page's records: its node, or an entity or summary page's `Plan.made_from`."""
        digest = self._pages.get(path)
        if digest is None:
            digest = self._pages[path] = self._made_of(made_of)
        return digest

    def _made_of(self, made_of: Node | tuple[object, ...]) -> str:
        if isinstance(made_of, Node):
            return self.node(made_of)
        head, *lists = made_of
        parts = [repr(head)]
        for items in cast("list[list[object]]", lists):
            parts.append("\n".join([self._item(x) for x in items]))
        return _digest("\0".join(parts))

    def _item(self, item: object) -> str:
        if isinstance(item, Node):
            return self.node(item)
        if isinstance(item, Relation):
            digest = self._relations.get(id(item))
            if digest is None:
                digest = self._relations[id(item)] = _digest(repr(item))
            return digest
        return repr(item)


def _digest(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def unchanged(
    ledger: PageLedger,
    around: Around,
    made_of: Mapping[str, Node | tuple[object, ...]],
    digests: InputDigests,
) -> dict[str, str]:
    """The pages whose text the ledger knows, with its digest: made of the same records, and nothing
    they show of the rest of the graph changed since (as `render.PageMemory` decides for watch)."""
    changed = Changed.between(ledger.around, around)
    known = ledger.pages
    reused = {}
    for path, made in made_of.items():
        kept = known.get(path)
        # Whether anything around it changed is asked first: it costs less than the digest.
        if kept is None or _touched(changed, made):
            continue
        if digests.page(path, made) == kept[0]:
            reused[path] = kept[1]
    return reused


def _touched(changed: Changed, made_of: Node | tuple[object, ...]) -> bool:
    """Whether the page may read differently though made of the same records."""
    if isinstance(made_of, Node):
        return changed.touches(made_of)
    head = made_of[0]
    if isinstance(head, Entity):  # its relation lines name both ends; it links its sources
        relations = [*cast("list[Relation]", made_of[1]), *cast("list[Relation]", made_of[2])]
        ends = {end for r in relations for end in (r.from_id, r.to_id)}
        return not changed.entity_names.isdisjoint(ends) or bool(
            changed.paths and any(e.path in changed.paths for e in head.evidence)
        )
    return not changed.entity_names.isdisjoint(cast("SourceSummary", head).entity_ids)


def of(pages: Pages, code: str, written: Mapping[str, str]) -> PageLedger:
    """The ledger of a build that wrote every page: `written` is each page's digest, as the manifest has it.

    A page the build kept for its user, or did not write, is left out (rendered next time).
    """
    digests = pages.digests
    if pages.around is None or digests is None:
        raise ValueError("the pages were planned without what a ledger needs (render's for_ledger)")
    return PageLedger(
        code,
        pages.salt,
        pages.around,
        {
            path: (digests.page(path, made), written[path])
            for path, made in pages.made_of.items()
            if path in written
        },
    )


def read(vault: Path, code: str) -> PageLedger | None:
    """The vault's ledger, when made by this `code`; None when there is none, it cannot be read,
    or another code made it."""
    try:
        data = json.loads((vault / LEDGER).read_bytes())
        if data.get("format") != _FORMAT or data.get("code") != code:
            return None
        return PageLedger(
            code=data["code"],
            salt=data["salt"],
            around=_around(data["around"]),
            pages={path: (node, text) for path, (node, text) in data["pages"].items()},
        )
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return None  # damaged, or written by hand: every page is rendered, as without one


def write(vault: Path, ledger: PageLedger) -> None:
    """Replace the vault's ledger at once (a crash leaves the old one or the new one)."""
    target = vault / LEDGER
    if target.parent.is_symlink():
        return
    data = {
        "format": _FORMAT,
        "code": ledger.code,
        "salt": ledger.salt,
        "around": _plain_around(ledger.around),
        "pages": {path: list(digests) for path, digests in ledger.pages.items()},
    }
    text = json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    # A ledger only saves work: one that cannot be written (no space, no access) fails no build,
    # and the one left, if any, is still true of the pages it names.
    with contextlib.suppress(OSError):
        atomic_write(target, text.encode("utf-8", "surrogatepass"))


def _plain_around(around: Around) -> dict[str, Any]:
    return {
        "nodes": around.nodes,
        "entities": {
            entity_id: [[name.id, name.title, name.entity_type], [_plain_relation(r) for r in relations]]
            for entity_id, (name, relations) in around.entities.items()
        },
        "summaries": around.summaries,
        "names": around.names,
    }


def _around(data: Mapping[str, Any]) -> Around:
    return Around(
        nodes={node_id: (layer, title) for node_id, (layer, title) in data["nodes"].items()},
        entities={
            entity_id: (EntityName(*name), [_relation(r) for r in relations])
            for entity_id, (name, relations) in data["entities"].items()
        },
        summaries={path: (summary_id, title) for path, (summary_id, title) in data["summaries"].items()},
        names=dict(data["names"]),
    )


def _plain_relation(relation: Relation) -> list[Any]:
    return [
        relation.from_id,
        relation.relation,
        relation.label,
        relation.to_id,
        relation.statement,
        relation.confidence,
        _plain_date(relation.valid_at),
        _plain_date(relation.invalid_at),
        [[e.path, e.line_start, e.line_end, e.pointer] for e in relation.evidence],
    ]


def _relation(data: list[Any]) -> Relation:
    from_id, relation, label, to_id, statement, confidence, valid_at, invalid_at, evidence = data
    return Relation(
        from_id,
        relation,
        label,
        to_id,
        statement,
        confidence,
        _date(valid_at),
        _date(invalid_at),
        tuple(Evidence(*e) for e in evidence),
    )


def _plain_date(value: date | None) -> str | None:
    return value.isoformat() if value is not None else None


def _date(value: str | None) -> date | None:
    return date.fromisoformat(value) if value is not None else None
