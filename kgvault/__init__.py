"""kgvault: compile notes and conversations into an Obsidian vault that is a temporal knowledge graph."""

__version__ = "0.1.0"
