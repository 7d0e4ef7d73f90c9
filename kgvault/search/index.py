"""Keep a vault's search index in step with a build's graph, touching only the rows that changed."""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import closing
from datetime import date, datetime
from hashlib import blake2b
from pathlib import Path
from typing import Any

from kgvault.layout import FOLDERS
from kgvault.records import Entity, Evidence, Graph, Node, Source, Turn
from kgvault.search.schema import INDEX_FILE, SCHEMA, SCHEMA_VERSION, TAG_WORD_PREFIX, TEXT_COLUMNS, name_key
from kgvault.secrets import mask_secrets

_MONTHS = (
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
)  # fmt: skip
_SENSITIVITY = {"public": 0, "private": 1, "confidential": 2}
_MAX_SAID = 4000
"""Characters of cited text indexed per node: enough for any turn, not a whole long note."""
_NODE_COLUMNS = (
    "id", "hash", "path", "title", "memory_layer", "type", "timestamp", "said_on", "stated_time",
    "attributed_to", "speaker", "body", "tags", "entities", "superseded_by", "current", "conflicts_with",
    "sources",
)  # fmt: skip
_INSERT_NODE = f"INSERT INTO nodes (rowid, {', '.join(_NODE_COLUMNS)}) VALUES (?{', ?' * len(_NODE_COLUMNS)})"
_INSERT_TEXT = (
    f"INSERT INTO node_text (rowid, {', '.join(TEXT_COLUMNS)}) VALUES (?{', ?' * len(TEXT_COLUMNS)})"
)


_BATCH = 5000
"""Nodes written to the index per batch."""


class _Wanted:
    """What the index should hold for a graph: a digest per node and entity, the edges, the tags.

    A digest covers everything a row is made of — the node's fields that the row reads, its
    entities' names, the bytes of the sources it cites (its turn and the turn before), the ends
    of its supersession chains — so an equal digest means an equal row, and only the rows whose
    digest changed are built at all.
    """

    def __init__(self, graph: Graph) -> None:
        self.entities = {entity.id: entity for entity in graph.entities}
        self.sources = {summary.source.path: summary.source for summary in graph.summaries}
        names = {entity.id: (entity.title, entity.aliases) for entity in graph.entities}
        # A turn's speaker and time come from the settings too (`user_name`, `timezone`), not only
        # from the file's bytes: a row citing a turn is made again when either changes.
        shas = {
            path: (
                source.sha256,
                _digest([(t.speaker, t.time) for t in source.turns]) if source.turns else "",
            )
            for path, source in self.sources.items()
        }
        self.current = _current_successors(graph.nodes)
        self.nodes = {
            node.id: (
                _digest(
                    (
                        _read_fields(node),
                        [names.get(e) for e in node.entities],
                        [shas.get(ev.path) for ev in node.evidence],
                        self.current.get(node.id),
                    )
                ),
                node,
            )
            for node in graph.nodes
        }
        self.entity_digests = {
            entity.id: _digest((entity.title, entity.entity_type, entity.description, entity.aliases))
            for entity in graph.entities
        }
        # When a relation held is part of it: an agent must tell Marlin until March from Klipper since.
        self.relations: dict[str, tuple[str, str, str, str, str | None, str | None]] = {}
        for r in graph.relations:
            held = (_day_text(r.valid_at), _day_text(r.invalid_at))
            row = (r.from_id, r.relation, r.label, r.to_id, held[0] or None, held[1] or None)
            self.relations["\x1f".join((*row[:4], *held))] = row
        self.tags = sorted(graph.tag_counts)


def _day_text(day: date | None) -> str:
    """A relation's date as stored: YYYY-MM-DD, or "" for none."""
    return day.isoformat() if day is not None else ""


def _current_successors(nodes: Sequence[Node]) -> dict[str, tuple[str, ...]]:
    """For each superseded node, the nodes at the ends of its supersession chains: what holds now.

    A search that finds an old state brings in what replaced it last, not every state between.
    Depth-first, successors before the nodes they replace, each node once (a state may change
    hundreds of times); a cycle (A replaces B replaces A) adds no end.
    """
    successors = {node.id: node.superseded_by for node in nodes if node.superseded_by}
    ends: dict[str, frozenset[str]] = {}
    for start in sorted(successors):
        if start in ends:
            continue
        path, on_path = [start], {start}
        while path:
            node_id = path[-1]
            deeper = next(
                (s for s in successors[node_id] if s in successors and s not in ends and s not in on_path),
                None,
            )
            if deeper is not None:
                path.append(deeper)
                on_path.add(deeper)
                continue
            path.pop()
            on_path.discard(node_id)
            found: set[str] = set()
            for successor in successors[node_id]:
                if successor not in successors:
                    found.add(successor)
                elif successor in ends:
                    found |= ends[successor]
            ends[node_id] = frozenset(found)
    return {node_id: tuple(sorted(found)) for node_id, found in ends.items()}


def _read_fields(node: Node) -> tuple[object, ...]:
    """Every field of a node that `_node_row` reads (keep the two in step), as plain values.

    Plain tuples, not the record: a dataclass's repr costs three times as much.
    """
    evidence = tuple((e.path, e.line_start, e.line_end, e.pointer) for e in node.evidence)
    return (
        node.id, node.memory_layer, node.type, node.title, node.body, node.tags, node.sensitivity,
        node.timestamp, node.attributed_to, node.entities, node.superseded_by, node.conflicts_with,
        evidence,
    )  # fmt: skip


def _digest(value: object) -> str:
    """A stable digest of records, tuples, strings and dates (their repr does not depend on the process)."""
    return blake2b(repr(value).encode("utf-8"), digest_size=16).hexdigest()


def update_index(vault: Path, graph: Graph, go: Callable[[], bool] = lambda: True) -> None:
    """Bring `VAULT/.kgvault/state/search.sqlite` up to date with the graph a build just wrote.

    Rows whose digest is unchanged are not touched (nothing at all is written when none changed);
    all changes land in one transaction, so a crash leaves the previous index whole. An index of
    another schema version, or an unreadable one, is rebuilt in a temporary file that then
    replaces it. `go` is asked last, when all but the commit is done: False leaves the index as
    it was (a helper process prepares the index while the build writes pages that may fail).
    """
    target = vault / INDEX_FILE
    wanted = _Wanted(graph)
    if target.is_file():
        try:
            with closing(sqlite3.connect(target, isolation_level=None)) as db:
                if db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION:
                    _sync(db, wanted, go)
                    return
        except sqlite3.DatabaseError:
            pass  # unreadable, or not ours: start over below
    _create(target, wanted, go)


def _create(target: Path, wanted: _Wanted, go: Callable[[], bool]) -> None:
    """Write a whole new index beside the target, then put it in place."""
    missing = []  # the folders made for it: a stopped build leaves none behind (not even the vault)
    for folder in (target.parent, *target.parent.parents):
        if folder.exists():
            break
        missing.append(folder)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.kgvault-tmp")
    tmp.unlink(missing_ok=True)
    try:
        with closing(sqlite3.connect(tmp, isolation_level=None)) as db:
            db.execute("PRAGMA journal_mode = OFF")  # a temporary file: a crash just leaves it behind
            db.executescript(SCHEMA)
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION:d}")
            _sync(db, wanted, lambda: True)
        if go():
            os.replace(tmp, target)
        else:
            tmp.unlink(missing_ok=True)
            for folder in missing:
                try:
                    folder.rmdir()
                except OSError:
                    break  # the build wrote something there after all
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _sync(db: sqlite3.Connection, wanted: _Wanted, go: Callable[[], bool]) -> None:
    """Write what differs from the stored index, in one transaction; nothing when nothing differs."""
    stored_nodes: dict[str, str] = dict(db.execute("SELECT id, hash FROM nodes").fetchall())
    stored_entities: dict[str, str] = dict(db.execute("SELECT id, hash FROM entities").fetchall())
    stored_relations = {key for (key,) in db.execute("SELECT key FROM relations")}
    stored_tags = db.execute("SELECT tag, count FROM tags ORDER BY tag").fetchall()

    nodes = {key: digest for key, (digest, _) in wanted.nodes.items()}
    node_writes, node_drops = _differences(stored_nodes, nodes)
    entity_writes, entity_drops = _differences(stored_entities, wanted.entity_digests)
    relation_writes = sorted(set(wanted.relations) - stored_relations)
    relation_drops = sorted(stored_relations - set(wanted.relations))
    tags_differ = stored_tags != wanted.tags
    changes = (node_writes, node_drops, entity_writes, entity_drops, relation_writes, relation_drops)
    if not (any(changes) or tags_differ):
        return
    counts = {
        "nodes": _counts(stored_nodes, nodes, node_writes),
        "entities": _counts(stored_entities, wanted.entity_digests, entity_writes),
        "relations": {
            "added": len(relation_writes),
            "removed": len(relation_drops),
            "unchanged": len(wanted.relations) - len(relation_writes),
        },
    }
    db.execute("BEGIN IMMEDIATE")
    try:
        _drop_nodes(db, node_drops)
        _write_nodes(db, [wanted.nodes[key][1] for key in node_writes], wanted)
        db.executemany("DELETE FROM entities WHERE id = ?", [(key,) for key in entity_drops])
        db.executemany("DELETE FROM names WHERE entity_id = ?", [(key,) for key in entity_drops])
        _write_entities(db, [wanted.entities[key] for key in entity_writes], wanted.entity_digests)
        db.executemany("DELETE FROM relations WHERE key = ?", [(key,) for key in relation_drops])
        db.executemany(
            "INSERT INTO relations VALUES (?, ?, ?, ?, ?, ?, ?)",
            [(key, *wanted.relations[key]) for key in relation_writes],
        )
        if tags_differ:  # a few hundred rows whose counts move together
            db.execute("DELETE FROM tags")
            db.executemany("INSERT INTO tags VALUES (?, ?)", wanted.tags)
        db.execute("INSERT OR REPLACE INTO meta VALUES ('last_update', ?)", (json.dumps(counts),))
        db.execute("COMMIT" if go() else "ROLLBACK")
    except BaseException:
        db.execute("ROLLBACK")
        raise


def _differences(stored: dict[str, str], wanted: dict[str, str]) -> tuple[list[str], list[str]]:
    """Keys to write (new or changed digest) and keys to drop (gone, or about to be rewritten)."""
    writes = sorted(key for key, digest in wanted.items() if stored.get(key) != digest)
    drops = sorted(key for key, digest in stored.items() if wanted.get(key) != digest)
    return writes, drops


def _counts(stored: dict[str, str], wanted: dict[str, str], writes: list[str]) -> dict[str, int]:
    changed = sum(1 for key in writes if key in stored)
    return {
        "added": len(writes) - changed,
        "changed": changed,
        "removed": sum(1 for key in stored if key not in wanted),
        "unchanged": len(wanted) - len(writes),
    }


def _drop_nodes(db: sqlite3.Connection, keys: list[str]) -> None:
    for key in keys:
        (rowid,) = db.execute("SELECT rowid FROM nodes WHERE id = ?", (key,)).fetchone()
        db.execute("DELETE FROM node_text WHERE rowid = ?", (rowid,))
        db.execute("DELETE FROM nodes WHERE rowid = ?", (rowid,))
        db.execute("DELETE FROM node_entities WHERE node_id = ?", (key,))
        db.execute("DELETE FROM node_tags WHERE node_id = ?", (key,))


def _write_nodes(db: sqlite3.Connection, nodes: list[Node], wanted: _Wanted) -> None:
    """Insert the nodes, their full text under the same rowid, and their entity and tag links."""
    (last,) = db.execute("SELECT coalesce(max(rowid), 0) FROM nodes").fetchone()
    # In batches: the rows of 100,000 nodes at once would be a build's memory peak.
    for start in range(0, len(nodes), _BATCH):
        rows: list[tuple[Any, ...]] = []
        texts: list[tuple[Any, ...]] = []
        links: list[tuple[str, str]] = []
        tags: list[tuple[str, str]] = []
        for rowid, node in enumerate(nodes[start : start + _BATCH], start=last + 1 + start):
            row, text, entity_ids = _node_row(node, wanted)
            rows.append((rowid, *row))
            texts.append((rowid, *text))
            links.extend((entity_id, node.id) for entity_id in entity_ids)
            tags.extend((tag, node.id) for tag in node.tags)
        db.executemany(_INSERT_NODE, rows)
        db.executemany(_INSERT_TEXT, texts)
        db.executemany("INSERT OR IGNORE INTO node_entities VALUES (?, ?)", links)
        db.executemany("INSERT OR IGNORE INTO node_tags VALUES (?, ?)", tags)


def _write_entities(db: sqlite3.Connection, entities: list[Entity], digests: dict[str, str]) -> None:
    for entity in entities:
        db.execute(
            "INSERT INTO entities VALUES (?, ?, ?, ?, ?, ?)",
            (
                entity.id,
                digests[entity.id],
                entity.title,
                entity.entity_type,
                entity.description,
                _json(entity.aliases),
            ),
        )
        names = {name_key(name) for name in (entity.title, *entity.aliases)} - {""}
        db.executemany(
            "INSERT OR IGNORE INTO names VALUES (?, ?)", [(name, entity.id) for name in sorted(names)]
        )


# -- a node's row ---------------------------------------------------------------------------------


def _node_row(node: Node, wanted: _Wanted) -> tuple[tuple[Any, ...], tuple[str, ...], list[str]]:
    """A node's `nodes` row, its full-text row (TEXT_COLUMNS order) and the ids of its entities.

    Reads only the node fields `_read_fields` lists: the digest must cover whatever is read here.
    """
    linked = [wanted.entities[e] for e in node.entities if e in wanted.entities]
    cited = [_cited(evidence, wanted.sources.get(evidence.path), node) for evidence in node.evidence]
    said = "\n".join(dict.fromkeys(text for text, _, _ in cited if text))[:_MAX_SAID]
    context = "\n".join(dict.fromkeys(text for _, text, _ in cited if text))
    said_on = next((day for _, _, day in cited if day is not None), None)
    names = [name for entity in linked for name in (entity.title, *entity.aliases)]
    if node.attributed_to:
        names.append(node.attributed_to)
    text = (
        node.title,
        node.body,
        said,
        " ".join(
            TAG_WORD_PREFIX + word
            for tag in node.tags
            for word in tag.replace("/", " ").replace("_", " ").split()
        ),
        " ".join(dict.fromkeys(names)),
        _date_words(node.timestamp),
        context,
    )
    entity_ids = [entity.id for entity in linked]
    row = (
        node.id,
        wanted.nodes[node.id][0],
        f"{FOLDERS[node.memory_layer]}/{node.id}.md",
        node.title,
        node.memory_layer,
        node.type,
        node.timestamp.isoformat() if node.timestamp else None,
        said_on.isoformat() if said_on else None,
        int(node.timestamp is not None and said_on is not None and node.timestamp != said_on),
        node.attributed_to,
        name_key(node.attributed_to) if node.attributed_to else None,
        node.body,
        _json(node.tags),
        _json(entity_ids),
        _json(node.superseded_by),
        _json(wanted.current.get(node.id, ())),
        _json(node.conflicts_with),
        _to_json([_source_ref(evidence) for evidence in node.evidence]),
    )
    return row, text, entity_ids


def _json(items: Sequence[str]) -> str:
    return _to_json(list(items)) if items else "[]"


_to_json = json.JSONEncoder(ensure_ascii=False).encode
"""`json.dumps(value, ensure_ascii=False)`, without making an encoder per call (five per node)."""


def _source_ref(evidence: Evidence) -> dict[str, Any]:
    """The DESIGN §6 `sources` item: the notes-relative file, lines for text, a pointer for JSON."""
    lines = (None, None) if evidence.pointer is not None else (evidence.line_start, evidence.line_end)
    return {
        "path": evidence.file(),
        "line_start": lines[0],
        "line_end": lines[1],
        "pointer": evidence.pointer,
    }


def _cited(evidence: Evidence, source: Source | None, node: Node) -> tuple[str, str, date | None]:
    """What the evidence says as spoken, the turn before it (its context), and the day it was said.

    Only conversations have turns; for a note the node's own body already holds what it cites,
    and the day is the note's reference time. A turn's text is indexed for a node only when the
    turn is no more sensitive than the node (see `_spoken`): a vault built with
    `max_sensitivity` must not hold, even as searchable context, what it left out.
    """
    if source is None:
        return "", "", None
    turns = list(_cited_turns(evidence, source.turns))
    if not turns:
        return "", "", source.reference_time
    ceiling = _SENSITIVITY.get(node.sensitivity, 0)
    first, position = turns[0]
    before = source.turns[position - 1] if position > 0 else None
    context = (
        _spoken(before, source, ceiling) if before is not None and before.session == first.session else ""
    )
    said_on = first.time.date() if isinstance(first.time, datetime) else source.reference_time
    said = "\n".join(text for text in (_spoken(turn, source, ceiling) for turn, _ in turns) if text)
    return said, context, said_on


def _cited_turns(evidence: Evidence, turns: Sequence[Turn]) -> Iterator[tuple[Turn, int]]:
    """The turns an evidence covers, with their positions."""
    for position, turn in enumerate(turns):
        if evidence.pointer is not None:
            if turn.pointer == evidence.pointer:
                yield turn, position
        elif turn.line_start <= evidence.line_end and evidence.line_start <= turn.line_end:
            yield turn, position


def _spoken(turn: Turn, source: Source, ceiling: int) -> str:
    """A turn as indexed, `Speaker: text` with its secrets masked; "" if above the ceiling.

    What people say is private; a turn holding a secret, or from a note marked confidential, is
    confidential (as pass 1 rates the nodes it makes). Source text is raw, so it is masked here:
    nothing unmasked is ever stored (DESIGN §5).
    """
    masked, kinds = mask_secrets(turn.text)
    marked = str(source.meta.get("sensitivity", "")).strip().lower() == "confidential"
    level = _SENSITIVITY["confidential" if kinds or marked else "private"]
    speaker = mask_secrets(turn.speaker)[0]  # a dial-in's phone number, a guest's email
    return f"{speaker}: {masked}" if level <= ceiling else ""


def _date_words(day: date | None) -> str:
    """A timestamp as the words a query uses: "7 May 2023"."""
    return "" if day is None else f"{day.day} {_MONTHS[day.month - 1]} {day.year}"
