"""The vault's fixed names, shared by the stages that write it and the checker that reads it."""

MARKER = "%% kgvault: your notes below this line are kept %%"
"""Last generated line of every Markdown page; what the user writes below it is kept."""
STATE_DIR = ".kgvault"
MANIFEST = f"{STATE_DIR}/manifest.json"
PENDING_MANIFEST = f"{STATE_DIR}/manifest.pending.json"
BACKUP_DIR = f"{STATE_DIR}/backup"
FOLDERS = {"episodic": "episodic", "semantic": "semantic", "entity": "entities", "summary": "sources"}
"""Folder of each page kind."""
TOP_LEVEL_FILES = frozenset({"index.md", "ontology.md", "relations.jsonl", "kgvault.base"})
"""Files kgvault writes at the vault's root; everything else it owns is in FOLDERS."""
