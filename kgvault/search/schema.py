"""The search index's layout, shared by the writer (`index`) and the reader (`query`); stdlib only."""

from __future__ import annotations

import re
from pathlib import Path

INDEX_FILE = ".kgvault/state/search.sqlite"
"""Where the index lives, relative to the vault: machine-local state, never compared byte for byte."""
SCHEMA_VERSION = 4
"""The index's `PRAGMA user_version`, bumped whenever a table or the indexed text changes: an index
of another version is rebuilt by the next build, and read by no query."""

TEXT_COLUMNS = ("title", "body", "said", "tags", "names", "dates", "context")
"""The full-text columns of a node, in table order.

`said` is the cited turn as spoken (a conversation node's title and body hold one sentence of it);
`names` the titles and aliases of the node's entities and whom it is attributed to; `dates` its
timestamp in words ("7 May 2023"); `context` what it needs to be found but does not say, such as
the question a turn answers: it is searched, never cited.
"""
TAG_WORD_PREFIX = "kgtag"
"""Glued to each word of a node's tags in the index (`kgtagprinting`), and to each query word looked
for in them: a tag on most nodes ("3d_printing") would otherwise make its words worthless everywhere,
since BM25 weighs a word by how few nodes hold it in any column."""
WEIGHTS = (2.0, 1.0, 1.0, 1.5, 1.0, 1.0, 0.6)
"""BM25 weight of each column, in TEXT_COLUMNS order: the title counts most, context least."""

SCHEMA = f"""
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE nodes (
    rowid INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    hash TEXT NOT NULL,
    path TEXT NOT NULL,
    title TEXT NOT NULL,
    memory_layer TEXT NOT NULL,
    type TEXT NOT NULL,
    timestamp TEXT,
    said_on TEXT,
    stated_time INTEGER NOT NULL,
    attributed_to TEXT,
    speaker TEXT,
    body TEXT NOT NULL,
    tags TEXT NOT NULL,
    entities TEXT NOT NULL,
    superseded_by TEXT NOT NULL,
    current TEXT NOT NULL,
    conflicts_with TEXT NOT NULL,
    sources TEXT NOT NULL
);
CREATE INDEX nodes_speaker ON nodes (speaker);
CREATE INDEX nodes_timestamp ON nodes (timestamp);
CREATE VIRTUAL TABLE node_text USING fts5 ({", ".join(TEXT_COLUMNS)}, tokenize = 'porter unicode61');
CREATE TABLE node_entities (entity_id TEXT NOT NULL, node_id TEXT NOT NULL,
    PRIMARY KEY (entity_id, node_id)) WITHOUT ROWID;
CREATE INDEX node_entities_node ON node_entities (node_id);
CREATE TABLE node_tags (tag TEXT NOT NULL, node_id TEXT NOT NULL, PRIMARY KEY (tag, node_id)) WITHOUT ROWID;
CREATE INDEX node_tags_node ON node_tags (node_id);
CREATE TABLE entities (
    id TEXT PRIMARY KEY,
    hash TEXT NOT NULL,
    title TEXT NOT NULL,
    entity_type TEXT NOT NULL,
    description TEXT NOT NULL,
    aliases TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE names (name TEXT NOT NULL, entity_id TEXT NOT NULL, PRIMARY KEY (name, entity_id)) WITHOUT ROWID;
CREATE INDEX names_entity ON names (entity_id);
CREATE TABLE relations (
    key TEXT PRIMARY KEY,
    from_id TEXT NOT NULL,
    relation TEXT NOT NULL,
    label TEXT NOT NULL,
    to_id TEXT NOT NULL,
    valid_at TEXT,
    invalid_at TEXT
) WITHOUT ROWID;
CREATE INDEX relations_from ON relations (from_id);
CREATE INDEX relations_to ON relations (to_id);
CREATE TABLE tags (tag TEXT PRIMARY KEY, count INTEGER NOT NULL) WITHOUT ROWID;
"""
_NOT_WORD = re.compile(r"[\W_]+")
_HEADER = b"SQLite format 3\x00"
_USER_VERSION = slice(60, 64)
"""Where SQLite keeps `user_version` in a database file's 100-byte header (big-endian)."""


def name_key(name: str) -> str:
    """A name as looked up: casefolded, punctuation as single spaces ("Voron 2.4" → "voron 2 4")."""
    return _NOT_WORD.sub(" ", name.casefold()).strip()


def stored_version(path: Path) -> int | None:
    """The schema version of an index file, read from its header; None if it is no SQLite file."""
    try:
        with path.open("rb") as file:
            header = file.read(100)
    except OSError:
        return None
    if len(header) < 100 or not header.startswith(_HEADER):
        return None
    return int.from_bytes(header[_USER_VERSION], "big")


def index_is_current(vault: Path) -> bool:
    """Whether the vault has an index this version of kgvault reads (a glance at its header).

    A build that finds nothing changed may skip `update_index` only when this holds: an index
    deleted, damaged or made by another version must be rebuilt even then. Stdlib only, so the
    no-op build can ask.
    """
    return stored_version(vault / INDEX_FILE) == SCHEMA_VERSION
