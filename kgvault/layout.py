"""The vault's fixed names, shared by the stages that write it and the checker that reads it."""

import re
from pathlib import Path

MARKER = "%% kgvault: your notes below this line are kept %%"
"""Last generated line of every Markdown page; what the user writes below it is kept."""
TABLE_DELIMITER = re.compile(r"\s*\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)*\|?\s*")
"""A table's delimiter row (`| --- | :-: |`): the line under a row with a `|` that makes it a table."""
CORRECTIONS_FILE = "kgvault.corrections.yaml"
"""File at the notes root holding the user's corrections; kgvault only ever reads it."""
STATE_DIR = ".kgvault"
DRAFTS_DIR = f"{STATE_DIR}/drafts"
"""Where `kgvault import` keeps the drafts it took in: part of every later build of the vault."""
MANIFEST = f"{STATE_DIR}/manifest.json"
PENDING_MANIFEST = f"{STATE_DIR}/manifest.pending.json"
ORPHANS = f"{STATE_DIR}/orphans.json"
"""The pages handed over to the user as orphans, with their generated part's hash: a source that
comes back takes its page back."""
BACKUP_DIR = f"{STATE_DIR}/backup"
FOLDERS = {"episodic": "episodic", "semantic": "semantic", "entity": "entities", "summary": "sources"}
"""Folder of each page kind."""
TOP_LEVEL_FILES = frozenset({"index.md", "ontology.md", "relations.jsonl", "kgvault.base"})
"""Files kgvault writes at the vault's root; everything else it owns is in FOLDERS."""
PROPERTY_TYPES = {
    "id": "text", "memory_layer": "text", "type": "text", "title": "text", "tags": "tags",
    "timestamp": "date", "occurred_at": "datetime", "sensitivity": "text", "attributed_to": "text",
    "confidence": "text", "origin": "text", "source_input": "text", "language": "text",
    "valid_from": "date", "valid_to": "date", "entities": "multitext", "superseded_by": "multitext",
    "conflicts_with": "multitext", "derived_from": "multitext", "causes": "multitext",
    "precedes": "multitext", "related_to": "multitext", "importance": "number", "aliases": "aliases",
    "entity_type": "text", "description": "text", "sources": "multitext", "source_document": "text",
    "reference_time": "date",
}  # fmt: skip
"""Obsidian property type of every frontmatter key kgvault writes (`.obsidian/types.json`)."""


def packaged_templates() -> Path:
    """Locate the shipped templates: inside the wheel, or at the repository root when run from source."""
    here = Path(__file__).resolve().parent
    for candidate in (here / "templates", here.parent / "templates"):
        if (candidate / "node.md.j2").is_file():
            return candidate
    raise FileNotFoundError(f"kgvault's templates are missing (looked in {here / 'templates'})")
