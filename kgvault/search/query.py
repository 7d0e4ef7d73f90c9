"""Answer queries from a vault's search index; stdlib only, so that `kgvault search` starts fast.

Ranking: BM25 (SQLite FTS5, Porter stemming) over each node's title, body, the turn it cites,
tags, entity names, speaker, date words and context, then three multiplicative boosts on the best
candidates — nodes linked to an entity or person the query names (less for one relation away),
nodes dated (or said) inside a time the query names, and for a "when" question dated nodes, most
of all those whose words stated the date — and finally every superseded node is put below its
successors, what replaced it last brought in if it did not match. See docs/quality.md.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from kgvault.search import schema
from kgvault.search.schema import INDEX_FILE, SCHEMA_VERSION, name_key, stored_version

__all__ = [
    "INDEX_FILE",
    "Hit",
    "NoIndexError",
    "SourceRef",
    "get_entity",
    "get_node",
    "nodes_by_tag",
    "search",
    "tag_tree",
]

CANDIDATES = 200
"""BM25's best this many nodes (at least, 20 × k) are reranked: boosts never reach deeper."""
ENTITY_BOOST = 0.5
"""Added to the multiplier of a node linked to an entity (or spoken by a person) the query names."""
NEIGHBOUR_BOOST = 0.2
"""Added for a node linked to an entity one relation away from one the query names."""
TIME_BOOST = 1.0
"""Added for a node dated, or said, inside a time the query names ("in May 2023", "last year")."""
WHEN_BOOST = 0.3
"""Added, for a "when" question, to a node whose words gave its date ("yesterday"); half of it to
any other dated node: an episode answers "when" better than an undated fact."""
SUPERSEDED_FACTOR = 0.5
"""A superseded node keeps this share of its score, and always ends up below its successor."""
_LONGEST_NAME = 6
"""Words in the longest entity name looked for in a query."""
_CHUNK = 900
"""Values bound in one `IN (…)` list at most (SQLite before 3.32 allows 999 variables)."""
_MOST_TERMS = 200
"""Distinct words of a query that count: a pasted page stays a fast query."""

_WORD = re.compile(r"[^\W_]+")
_STOPWORDS = frozenset((
    "a", "about", "after", "all", "also", "am", "an", "and", "any", "are", "as", "at", "be", "been",
    "before", "being", "but", "by", "can", "could", "did", "do", "does", "doing", "for", "from", "had",
    "has", "have", "having", "he", "her", "hers", "him", "his", "how", "i", "if", "in", "into", "is", "it",
    "its", "me", "my", "of", "on", "or", "our", "ours", "she", "should", "so", "than", "that", "the",
    "their", "theirs", "them", "then", "there", "these", "they", "this", "those", "to", "too", "up", "us",
    "was", "we", "were", "what", "when", "where", "which", "while", "who", "whom", "whose", "why", "will",
    "with", "would", "you", "your", "yours", "s", "t",
))  # fmt: skip
_TIME_HINT = re.compile(
    r"(?i)\b(?:ago|yesterday|today|tonight|tomorrow|last|next|this|week|weekend|month|year|since|during"
    r"|january|february|march|april|may|june|july|august|september|october|november|december"
    r"|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec|\d{4}"
    # French: "la semaine dernière", "il y a deux jours", "en mai".
    r"|hier|aujourd|demain|semaine|mois|ann[ée]e|dernier|derni[èe]re|prochaine?|il y a|dans|janvier"
    r"|f[ée]vrier|mars|avril|mai|juin|juillet|ao[ûu]t|septembre|octobre|novembre|d[ée]cembre)\b"
)
_WHEN = re.compile(r"(?i)\bwhen\b|\bwhat (?:year|month|date|day)\b|\bhow long ago\b")


class NoIndexError(Exception):
    """The vault has no search index (or one this version cannot read): build it first."""

    def __init__(
        self,
        vault: Path,
        why: str = "has no search index",
        todo: str = "build the vault first (kgvault build NOTES -o VAULT)",
    ) -> None:
        super().__init__(f"{vault} {why}; {todo}")


@dataclass(frozen=True, slots=True)
class SourceRef:
    """Where a node came from: a notes-relative file, with lines (text) or a JSON pointer."""

    path: str
    """The file, relative to the notes root."""
    line_start: int | None
    """First cited line, 1-based; None for a JSON source."""
    line_end: int | None
    """Last cited line, inclusive; None for a JSON source."""
    pointer: str | None
    """JSON pointer of the cited message or item; None for a text source."""

    def to_json(self) -> dict[str, Any]:
        """The DESIGN §6 `sources` item."""
        return {
            "path": self.path,
            "line_start": self.line_start,
            "line_end": self.line_end,
            "pointer": self.pointer,
        }


@dataclass(frozen=True, slots=True)
class Hit:
    """One search result: a node, its score and what it cites."""

    id: str
    path: str
    """The node's page, relative to the vault (`episodic/<id>.md`)."""
    title: str
    memory_layer: str
    type: str
    timestamp: str | None
    """YYYY-MM-DD, when the node has one."""
    score: float
    """Higher is better; comparable only within one query."""
    sources: tuple[SourceRef, ...]
    superseded_by: tuple[str, ...] = ()
    """The nodes that replaced this one (it held until then)."""
    conflicts_with: tuple[str, ...] = ()
    """The nodes that say otherwise about the same thing at the same time: one of them is wrong."""

    def to_json(self) -> dict[str, Any]:
        """The `search --json` item of DESIGN §6."""
        return {
            "id": self.id,
            "path": self.path,
            "title": self.title,
            "memory_layer": self.memory_layer,
            "type": self.type,
            "timestamp": self.timestamp,
            "score": round(self.score, 4),
            "sources": [source.to_json() for source in self.sources],
            "superseded_by": list(self.superseded_by),
            "conflicts_with": list(self.conflicts_with),
        }


def _connect(vault: Path) -> sqlite3.Connection:
    """Open the index read-only, or say how to make one."""
    path = vault / INDEX_FILE
    if not vault.is_dir():
        raise NoIndexError(
            vault, "is no folder" if vault.exists() else "is not found", "give the vault's folder (--vault)"
        )
    if not path.is_file():
        raise NoIndexError(vault)
    try:
        with path.open("rb"):
            pass
    except OSError as error:
        raise NoIndexError(
            vault,
            f"has a search index that cannot be read ({error.strerror or error})",
            f"make {path} readable to you",
        ) from error
    version = stored_version(path)
    if version is None:
        raise NoIndexError(
            vault, f"has a damaged search index ({INDEX_FILE} is no SQLite file)", "rebuild the vault"
        )
    if version != SCHEMA_VERSION:
        raise NoIndexError(
            vault, "has a search index this version of kgvault cannot read", "rebuild the vault"
        )
    return sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True)


def require_index(vault: Path) -> None:
    """Raise `NoIndexError` unless the vault has an index this version of kgvault can read."""
    _connect(vault).close()


# -- search ---------------------------------------------------------------------------------------


def search(vault: Path, query: str, k: int = 10) -> list[Hit]:
    """The `k` nodes that best answer `query`, best first."""
    db = _connect(vault)
    try:
        return _search(db, query, k)
    finally:
        db.close()


def _search(db: sqlite3.Connection, query: str, k: int) -> list[Hit]:
    if k <= 0:
        return []
    times = _times(db, query)
    spans = [(first, last) for first, last, _, _ in times]
    # The words of a time ("last month") are no words to look for: the time brings its own nodes.
    words = "".join(" " if any(t[2] <= i < t[3] for t in times) else c for i, c in enumerate(query))
    terms = query_terms(words if times else query)
    if not terms and not times:
        return []
    found: list[tuple[int, float]] = []
    if terms:
        # A word is looked for in the text and, with its prefix, in the tags (see TAG_WORD_PREFIX).
        match = " OR ".join(f'"{term}" OR "{schema.TAG_WORD_PREFIX}{term}"' for term in terms)
        weights = ", ".join(map(str, schema.WEIGHTS))
        found = db.execute(
            f"SELECT rowid, bm25(node_text, {weights}) AS rank FROM node_text WHERE node_text MATCH ?"
            " ORDER BY rank LIMIT ?",
            (match, max(CANDIDATES, 20 * k)),
        ).fetchall()
    bm25 = {rowid: -rank for rowid, rank in found}
    if times:
        # Nodes of the time the query names come in even without a word of it ("what did I do last
        # month"): with the time's boost, below the nodes of that time that matched a word, and
        # above every node of another time (a twentieth over the best match sees to it).
        floor = max(max(bm25.values(), default=0.0) * 1.05, 1.0)
        bm25 = {rowid: score + floor for rowid, score in bm25.items()}
        for rowid in _dated_within(db, spans, max(CANDIDATES, 20 * k)):
            bm25.setdefault(rowid, floor)
    if not bm25:
        return []
    nodes = _rows(db, "rowid", list(bm25))
    boosts = _Boosts(db, query, [node["id"] for node in nodes.values()], spans)
    scores = {node["id"]: bm25[node["rowid"]] * boosts.multiplier(node) for node in nodes.values()}
    by_id = {node["id"]: node for node in nodes.values()}
    _below_successors(db, scores, by_id)
    best = sorted(scores, key=lambda node_id: (-scores[node_id], node_id))[:k]
    return [_hit(by_id[node_id], scores[node_id]) for node_id in best]


def query_terms(query: str) -> list[str]:
    """The query's words as FTS terms: casefolded, stopwords dropped (kept if nothing else is left)."""
    words = list(dict.fromkeys(_WORD.findall(query.casefold())))[:_MOST_TERMS]
    content = [word for word in words if word not in _STOPWORDS]
    return content or words


class _Boosts:
    """What a query names, computed once per query: entities, their neighbours, times, a "when"."""

    def __init__(
        self, db: sqlite3.Connection, query: str, candidates: list[str], spans: list[tuple[str, str]]
    ) -> None:
        keys = _ngrams(name_key(query).split()[: _MOST_TERMS * 2], _LONGEST_NAME)
        named = _column(db, "SELECT entity_id FROM names WHERE name IN ({})", keys)
        self.speakers = _column(db, "SELECT speaker FROM nodes WHERE speaker IN ({})", keys)
        near = _column(db, "SELECT to_id FROM relations WHERE from_id IN ({})", named)
        near |= _column(db, "SELECT from_id FROM relations WHERE to_id IN ({})", named)
        # Only the candidates' links are read: a popular entity is linked to thousands of nodes.
        links = _select_in(
            db, "SELECT node_id, entity_id FROM node_entities WHERE node_id IN ({})", candidates
        )
        self.linked = {node_id for node_id, entity_id in links if entity_id in named}
        self.near = {node_id for node_id, entity_id in links if entity_id in near}
        self.spans = spans
        """The days the query's times cover, as ISO (first, last) (see `_times`)."""
        self.when = bool(_WHEN.search(query))

    def multiplier(self, node: dict[str, Any]) -> float:
        """What a node's BM25 score is multiplied by for this query."""
        factor = 1.0
        if node["id"] in self.linked or node["speaker"] in self.speakers:
            factor += ENTITY_BOOST
        elif node["id"] in self.near:
            factor += NEIGHBOUR_BOOST
        days = [day for day in (node["timestamp"], node["said_on"]) if day]
        if any(first <= day <= last for first, last in self.spans for day in days):
            factor += TIME_BOOST
        if self.when and node["timestamp"]:
            factor += WHEN_BOOST if node["stated_time"] else WHEN_BOOST / 2
        return factor


def _times(db: sqlite3.Connection, query: str) -> list[tuple[str, str, int, int]]:
    """The query's time expressions: the days each covers, as ISO (first, last), and where it is.

    "Last year" or "in June" mean the vault's present: its latest date not after today (an archive
    of 2023 conversations answers "in June" with June 2023). French times ("le mois dernier") are
    read when no English one is found. `kgvault.when` costs ~20 ms to
    import, so it is loaded only when the query holds a time word.
    """
    if not _TIME_HINT.search(query):
        return []
    from kgvault.when import find_times

    today = date.today()
    (latest,) = db.execute(
        "SELECT max(timestamp) FROM nodes WHERE timestamp <= ?", (today.isoformat(),)
    ).fetchone()
    present = date.fromisoformat(latest) if latest else today
    # A query in French names its time in French: read so when English finds none.
    times = find_times(query, present) or find_times(query, present, "fr")
    return [(t.first.isoformat(), t.last.isoformat(), t.start, t.end) for t in times]


def _dated_within(db: sqlite3.Connection, spans: list[tuple[str, str]], limit: int) -> list[int]:
    """The rowids of the nodes dated, or said, within these spans: the latest `limit` of them."""
    if not spans:
        return []
    where = " OR ".join("timestamp BETWEEN ? AND ? OR said_on BETWEEN ? AND ?" for _ in spans)
    values = [day for first, last in spans for day in (first, last, first, last)]
    rows = db.execute(
        f"SELECT rowid FROM nodes WHERE {where} ORDER BY timestamp DESC, rowid LIMIT ?", (*values, limit)
    ).fetchall()
    return [rowid for (rowid,) in rows]


def _below_successors(
    db: sqlite3.Connection, scores: dict[str, float], nodes: dict[str, dict[str, Any]]
) -> None:
    """Put each superseded node below its successors; what holds now comes in if it did not match.

    A superseded node keeps SUPERSEDED_FACTOR of its score, and never more than just below any
    successor in the results. The ends of its supersession chains (the index's `current`) that
    did not match come in at its score, so a search for an old state also shows the new one.
    """
    replaced = sorted(node_id for node_id in scores if nodes[node_id]["superseded_by"] != "[]")
    if not replaced:
        return
    direct = {node_id: json.loads(nodes[node_id]["superseded_by"]) for node_id in replaced}
    current = {node_id: json.loads(nodes[node_id]["current"]) for node_id in replaced}
    missing = sorted({end for ends in current.values() for end in ends if end not in scores})
    nodes.update(_rows(db, "id", missing))
    for node_id in replaced:
        for end in current[node_id]:
            if end in missing and end in nodes:
                scores[end] = max(scores.get(end, 0.0), scores[node_id])
    above = {
        node_id: [s for s in dict.fromkeys([*direct[node_id], *current[node_id]]) if s in scores]
        for node_id in replaced
    }
    for node_id in _successors_first(above):
        scores[node_id] *= SUPERSEDED_FACTOR
        if above[node_id]:
            scores[node_id] = min(scores[node_id], min(scores[s] for s in above[node_id]) * 0.999)


def _successors_first(above: dict[str, list[str]]) -> list[str]:
    """The keys of `above` ordered so that each comes after the keys among its successors.

    Depth-first; a cycle is cut where it is met, in sorted order, so the order never wavers.
    """
    order: list[str] = []
    seen: set[str] = set()
    for start in sorted(above):
        if start in seen:
            continue
        seen.add(start)
        path = [(start, iter(above[start]))]
        while path:
            node_id, successors = path[-1]
            deeper = next((s for s in successors if s in above and s not in seen), None)
            if deeper is None:
                path.pop()
                order.append(node_id)
            else:
                seen.add(deeper)
                path.append((deeper, iter(above[deeper])))
    return order


def _ngrams(words: list[str], longest: int) -> list[str]:
    """Every run of 1 to `longest` consecutive words, joined by spaces."""
    runs = (words[i : i + n] for n in range(1, longest + 1) for i in range(len(words) - n + 1))
    return list(dict.fromkeys(" ".join(run) for run in runs))


def _select_in(db: sqlite3.Connection, sql: str, values: Iterable[Any]) -> list[Any]:
    """The rows of a query with one `IN ({})` list, asked in chunks any SQLite's limits allow."""
    values = list(values)
    rows: list[Any] = []
    for start in range(0, len(values), _CHUNK):
        chunk = values[start : start + _CHUNK]
        rows.extend(db.execute(sql.format(", ".join("?" * len(chunk))), chunk).fetchall())
    return rows


def _column(db: sqlite3.Connection, sql: str, values: Iterable[str]) -> set[Any]:
    """The distinct values of the first column of a query with one `IN ({})` list."""
    return {row[0] for row in _select_in(db, sql, values)}


def _rows(db: sqlite3.Connection, key: str, values: list[Any]) -> dict[Any, dict[str, Any]]:
    """Node rows by `key` (rowid or id)."""
    db.row_factory = sqlite3.Row
    try:
        rows = _select_in(db, f"SELECT rowid, * FROM nodes WHERE {key} IN ({{}})", values)
        return {row[key]: dict(row) for row in rows}
    finally:
        db.row_factory = None


def _hit(node: dict[str, Any], score: float) -> Hit:
    return Hit(
        id=node["id"],
        path=node["path"],
        title=node["title"],
        memory_layer=node["memory_layer"],
        type=node["type"],
        timestamp=node["timestamp"],
        score=score,
        sources=tuple(SourceRef(**source) for source in json.loads(node["sources"])),
        superseded_by=tuple(json.loads(node["superseded_by"])),
        conflicts_with=tuple(json.loads(node["conflicts_with"])),
    )


# -- browsing -------------------------------------------------------------------------------------


def tag_tree(vault: Path) -> list[tuple[str, int]]:
    """Every tag path, parents included, with the number of nodes under it, sorted by path."""
    db = _connect(vault)
    try:
        return [(tag, count) for tag, count in db.execute("SELECT tag, count FROM tags ORDER BY tag")]
    finally:
        db.close()


_LISTED = "id, path, title, memory_layer, type, timestamp, tags, attributed_to"


def nodes_by_tag(vault: Path, tag: str) -> list[dict[str, Any]]:
    """Every node tagged `tag` or a tag nested under it, by timestamp (undated last), then id."""
    tag = "_".join(tag.strip().lstrip("#").strip("/").lower().split())
    db = _connect(vault)
    db.row_factory = sqlite3.Row
    try:
        # "x/" ≤ nested < "x0": "/" and "0" are neighbours in code-point order.
        rows = db.execute(
            f"SELECT {_LISTED} FROM nodes WHERE id IN (SELECT node_id FROM node_tags"
            " WHERE tag = ? OR (tag >= ? AND tag < ?)) ORDER BY timestamp IS NULL, timestamp, id",
            (tag, tag + "/", tag + "0"),
        ).fetchall()
        return [_listed(row) for row in rows]
    finally:
        db.close()


def _listed(row: sqlite3.Row) -> dict[str, Any]:
    found = dict(row)
    found["tags"] = json.loads(found["tags"])
    return found


def get_node(vault: Path, node_id: str) -> dict[str, Any] | None:
    """Everything the index knows about one node, or None."""
    db = _connect(vault)
    db.row_factory = sqlite3.Row
    try:
        row = db.execute(
            f"SELECT {_LISTED}, body, entities, superseded_by, conflicts_with, sources"
            " FROM nodes WHERE id = ?",
            (node_id,),
        ).fetchone()
        if row is None:
            return None
        node = _listed(row)
        ids = json.loads(node["entities"])
        titles = dict(_rows_of(db, "SELECT id, title FROM entities WHERE id IN ({})", ids))
        node["entities"] = [{"id": entity_id, "title": titles.get(entity_id, entity_id)} for entity_id in ids]
        for key in ("superseded_by", "conflicts_with", "sources"):
            node[key] = json.loads(node[key])
        return node
    finally:
        db.close()


def get_entity(vault: Path, id_or_name: str) -> dict[str, Any] | None:
    """One entity by id, title or alias (casefolded), with its relations both ways and its nodes."""
    db = _connect(vault)
    db.row_factory = sqlite3.Row
    try:
        row = db.execute("SELECT * FROM entities WHERE id = ?", (id_or_name,)).fetchone()
        if row is None:
            key = name_key(id_or_name)
            named = db.execute(
                "SELECT * FROM entities WHERE id IN (SELECT entity_id FROM names WHERE name = ?) ORDER BY id",
                (key,),
            ).fetchall()
            # A title beats an alias; among equals the smallest id, so the answer never wavers.
            row = min(named, key=lambda e: name_key(e["title"]) != key, default=None)
        if row is None:
            return None
        entity_id = row["id"]
        relations = db.execute(
            'SELECT from_id AS "from", relation, label, to_id AS "to", valid_at, invalid_at FROM relations'
            " WHERE from_id = ? OR to_id = ? ORDER BY from_id, relation, to_id",
            (entity_id, entity_id),
        ).fetchall()
        nodes = db.execute(
            "SELECT id, title, timestamp FROM nodes WHERE id IN (SELECT node_id FROM node_entities"
            " WHERE entity_id = ?) ORDER BY timestamp IS NULL, timestamp, id",
            (entity_id,),
        ).fetchall()
        return {
            "id": entity_id,
            "title": row["title"],
            "entity_type": row["entity_type"],
            "description": row["description"],
            "aliases": json.loads(row["aliases"]),
            "relations": [dict(relation) for relation in relations],
            "nodes": [dict(node) for node in nodes],
        }
    finally:
        db.close()


def _rows_of(db: sqlite3.Connection, sql: str, values: list[str]) -> list[tuple[Any, ...]]:
    if not values:
        return []
    return [tuple(row) for row in db.execute(sql.format(", ".join("?" * len(values))), values)]
