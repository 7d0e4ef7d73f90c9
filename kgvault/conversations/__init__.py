"""Conversations: read chat exports, chat logs and transcripts into turns with exact provenance."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from kgvault.records import Turn


@dataclass(frozen=True, slots=True)
class Conversation:
    """One conversation read from a file: its turns, and the text their line numbers refer to."""

    pointer: str | None
    """JSON pointer of the conversation in an export (`/3`); None when the conversation is the whole file."""
    title: str
    """The conversation's title (an export's `title`/`name`), else empty."""
    text: str
    """The text the turns' line ranges refer to: the file itself, or a rendering of an export's messages."""
    turns: tuple[Turn, ...]
    started: datetime | None
    """When the conversation started (naive, UTC), when it is known."""
    sha256: str
    """Hex digest of the conversation's own content, so editing one conversation leaves the others cached."""
