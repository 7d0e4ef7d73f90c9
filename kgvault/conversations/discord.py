"""Discord exports: a channel's JSON as DiscordChatExporter writes it."""

from __future__ import annotations

from datetime import tzinfo
from typing import Any

from kgvault.conversations import Conversation
from kgvault.conversations.chat_log import chat_of, clean_text, is_image_file, json_pointer, wall_time
from kgvault.records import Turn
from kgvault.secrets import mask_secrets

_SAID_TYPES = frozenset({"Default", "Reply"})
"""Message types someone wrote; the others are Discord's notices (joins, pins, calls, boosts)."""


def read_discord(data: object, *, path: str, zone: tzinfo) -> Conversation | None:
    """Read a parsed DiscordChatExporter channel export; None when the data is not one.

    Each message a person wrote is their turn, pointing at it; a bot's is an assistant's (never
    anyone's memory). Notices are left out; attachments and stickers are kept as markers
    (`[image]`, `[file: name]`, `[sticker]`). A silence of more than six hours starts a session.
    """
    if not _is_export(data):
        return None
    assert isinstance(data, dict)
    read = (_turn(message, json_pointer("messages", n), zone) for n, message in enumerate(data["messages"]))
    return chat_of(read, title=_title(data), source=data)


def _is_export(data: object) -> bool:
    """Tell a DiscordChatExporter file: a `guild` and a `channel`, and `messages` with an `author` and a
    `timestamp` (a bot's settings may hold a channel and messages too)."""
    return (
        isinstance(data, dict)
        and isinstance(data.get("guild"), dict)
        and isinstance(data.get("channel"), dict)
        and isinstance(data.get("messages"), list)
        and any(
            isinstance(m, dict) and isinstance(m.get("author"), dict) and "timestamp" in m
            for m in data["messages"]
        )
    )


def _title(data: dict[str, Any]) -> str:
    """`Server #channel`, or a direct message's channel name alone."""
    guild, channel = data.get("guild"), data["channel"]
    server = guild.get("name") if isinstance(guild, dict) else None
    name = channel.get("name") if isinstance(channel.get("name"), str) else ""
    if isinstance(server, str) and server.strip() and server != "Direct Messages":
        return f"{server.strip()} #{name.strip()}" if name.strip() else server.strip()
    return name.strip()


def _turn(message: object, pointer: str, zone: tzinfo) -> Turn | None:
    """The turn a message says; None for a notice or a message with nothing in it."""
    kind = message.get("type", "Default") if isinstance(message, dict) else None
    if not isinstance(message, dict) or not isinstance(kind, str) or kind not in _SAID_TYPES:
        return None
    author = message.get("author")
    if not isinstance(author, dict):
        return None
    name = next(
        (
            author[key]
            for key in ("nickname", "name")
            if isinstance(author.get(key), str) and author[key].strip()
        ),
        "",
    )
    if not name:
        return None
    content = message.get("content")
    said = clean_text("\n".join([*_markers(message), content if isinstance(content, str) else ""]))
    if not said:
        return None
    return Turn(
        speaker=mask_secrets(name.strip())[0],
        role="assistant" if author.get("isBot") else "human",
        text=said,
        line_start=0,
        line_end=0,
        time=wall_time(message.get("timestamp"), zone),
        pointer=pointer,
    )


def _markers(message: dict[str, Any]) -> list[str]:
    """Markers of the message's attachments (an image, else a file by name) and stickers."""
    markers = []
    for attachment in _items(message.get("attachments")):
        name = attachment.get("fileName") if isinstance(attachment, dict) else None
        if not isinstance(name, str) or not name.strip():
            markers.append("[file]")
        elif is_image_file(name):
            markers.append("[image]")
        else:
            markers.append(f"[file: {name.strip()}]")
    markers.extend("[sticker]" for _ in _items(message.get("stickers")))
    return markers


def _items(value: object) -> list[object]:
    """A list field's items; nothing when the field is missing or no list."""
    return value if isinstance(value, list) else []
