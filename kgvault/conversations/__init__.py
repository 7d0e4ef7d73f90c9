"""Conversations: read chat exports, chat logs and transcripts into turns with exact provenance."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, tzinfo

from kgvault.records import Problem, Turn


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
    """When the conversation started (naive, on the settings' time zone's clocks), when it is known."""
    sha256: str
    """Hex digest of the conversation's own content, so editing one conversation leaves the others cached."""


def plain_speaker(name: str) -> str:
    """A speaker's name without the emoji and symbols a contact is saved with ("Jess 🌸", "✨ Mia ✨"):
    the person's name, as notes write it; the name as it is when nothing else is left."""
    kept = "".join(" " if _a_symbol(char) else char for char in name)
    plain = " ".join(kept.split())
    return plain if any(char.isalnum() for char in plain) else name.strip()


def _a_symbol(char: str) -> bool:
    """Whether a character is an emoji or a symbol, or what joins or styles one (a ZWJ, a variation
    selector, a skin tone)."""
    return (
        unicodedata.category(char) in ("So", "Sk", "Cs")
        or char in "\u200d\ufe0e\ufe0f"
        or ("\U0001f3fb" <= char <= "\U0001f3ff")
    )


ReadOne = Callable[[object, int, str, str, tzinfo, list[Problem]], "Conversation | None"]
"""Read the conversation at an index of an export: (item, index, path, user name, time zone, problems)."""


def read_export(
    data: object,
    looks_like: Callable[[object], bool],
    read_one: ReadOne,
    *,
    path: str,
    user_name: str,
    zone: tzinfo,
) -> tuple[list[Conversation], list[Problem]] | None:
    """Read every conversation of an export list; None when no entry looks like one (another reader's)."""
    if not isinstance(data, list) or not any(looks_like(item) for item in data):
        return None
    conversations: list[Conversation] = []
    problems: list[Problem] = []
    for index, item in enumerate(data):
        conversation = read_one(item, index, path, user_name, zone, problems)
        if conversation is not None:
            conversations.append(conversation)
    return conversations, problems
