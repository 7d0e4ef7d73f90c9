"""Messenger and Instagram exports: a `message_1.json` of Meta's "Download your information"."""

from __future__ import annotations

import re
from datetime import tzinfo
from typing import Any

from kgvault.conversations import Conversation, plain_speaker
from kgvault.conversations.chat_log import chat_of, clean_text, json_pointer, wall_time
from kgvault.records import Turn
from kgvault.secrets import mask_secrets

_MEDIA = (
    ("photos", "[image]"),
    ("videos", "[video]"),
    ("gifs", "[GIF]"),
    ("audio_files", "[audio]"),
    ("sticker", "[sticker]"),
    ("share", "[link]"),
)
"""A message's media keys and the marker kept for each (the media themselves are never read)."""
_NOTICE = re.compile(
    r"(?:liked a message|reacted .{1,12} to (?:your|a) message|you missed a (?:video )?call from .*"
    r"|named the group .*|changed the group (?:photo|name).*|set (?:the|your|his|her|their) nickname .*"
    r"|set the nickname for .*|created the group.*|started a (?:video )?call|joined the (?:video )?call"
    r"|left the group\.?|added .+ to the group\.?|removed .+ from the group\.?)$",
    re.IGNORECASE,
)
"""What Meta writes as a message in its sender's name: renames, reactions, calls, members."""
_NO_MESSAGE_TYPES = frozenset({"call", "subscribe", "unsubscribe"})
"""Older exports' `type` of a call or of someone joining or leaving: no one said anything."""


def read_messenger(data: object, *, path: str, zone: tzinfo) -> Conversation | None:
    """Read a parsed Messenger or Instagram chat file; None when the data is not one.

    Its messages are read oldest first (the file lists them newest first), each turn pointing at
    its message. Calls, joins and unsent messages are left out; media are kept as markers
    (`[image]`, `[file: name]`) before their text. A silence of more than six hours starts a session.
    """
    if not _is_chat(data):
        return None
    assert isinstance(data, dict)
    messages: list[Any] = data["messages"]
    ordered = sorted(
        (_time_ms(message), -position)
        for position, message in enumerate(messages)
        if isinstance(message, dict) and _time_ms(message) is not None
    )
    # Newest first in the file: of two sent in one millisecond, the later in the file came first.
    read = (_turn(messages[-back], json_pointer("messages", -back), zone) for _, back in ordered)
    return chat_of(read, title=_title(data), source=data)


def _is_chat(data: object) -> bool:
    """Tell a Messenger chat file: `participants`, and `messages` with a sender's name."""
    if not isinstance(data, dict) or not isinstance(data.get("participants"), list):
        return False
    messages = data.get("messages")
    return isinstance(messages, list) and any(
        isinstance(m, dict) and ("sender_name" in m or "senderName" in m) for m in messages
    )


def unmangled(text: str) -> str:
    """The text Meta meant: its exports write each UTF-8 byte as a character (`Ã©` for `é`)."""
    try:
        return text.encode("latin-1").decode("utf-8")
    except (UnicodeEncodeError, UnicodeDecodeError):
        return text  # already right (the newer exports), or not UTF-8 bytes at all


def _title(data: dict[str, Any]) -> str:
    """The chat's title, else its participants' names."""
    for key in ("title", "threadName"):
        if isinstance(data.get(key), str) and data[key].strip():
            return unmangled(data[key].strip())
    names = [p.get("name") if isinstance(p, dict) else p for p in data["participants"]]
    return ", ".join(unmangled(name) for name in names if isinstance(name, str))


def _time_ms(message: dict[str, Any]) -> int | float | None:
    """When a message was sent, in epoch milliseconds (older exports `timestamp_ms`, newer `timestamp`)."""
    value = message.get("timestamp_ms", message.get("timestamp"))
    return value if isinstance(value, int | float) and not isinstance(value, bool) else None


def _turn(message: dict[str, Any], pointer: str, zone: tzinfo) -> Turn | None:
    """The turn a message says; None for a call, a join, an unsent message or one with nothing in it."""
    kind = message.get("type")
    if (isinstance(kind, str) and kind.casefold() in _NO_MESSAGE_TYPES) or "call_duration" in message:
        return None
    if message.get("is_unsent") or message.get("isUnsent"):
        return None
    speaker = message.get("sender_name", message.get("senderName"))
    if not isinstance(speaker, str) or not speaker.strip():
        return None
    # A contact saved under no name is a number (masked); one saved with emoji, its name ("Jess 🌸").
    speaker = mask_secrets(plain_speaker(unmangled(speaker.strip())))[0]
    markers = _markers(message)
    content = message.get("content", message.get("text"))
    said = unmangled(content) if isinstance(content, str) else ""
    unnamed = next((said[len(who) :] for who in (speaker + " ", "You ") if said.startswith(who)), said)
    if _NOTICE.match(unnamed):
        return (
            None  # "Jake Lee named the group Stag Do.", "Liked a message": Meta's notices in a sender's name
        )
    if markers and said.endswith(("sent an attachment.", "sent a photo.", "sent a video.", "sent a link.")):
        said = ""  # the export's own words for the media, which the marker says
    text = clean_text("\n".join(part for part in (*markers, said) if part))
    if not text:
        return None
    time = wall_time(_time_ms(message), zone)
    return Turn(
        speaker=speaker, role="human", text=text, line_start=0, line_end=0, time=time, pointer=pointer
    )


def _markers(message: dict[str, Any]) -> list[str]:
    """Markers of the media a message shares, in a fixed order; a file by its name."""
    markers = [marker for key, marker in _MEDIA if message.get(key)]
    files = message.get("files")
    for item in files if isinstance(files, list) else ():
        uri = item.get("uri") if isinstance(item, dict) else None
        markers.append(f"[file: {unmangled(uri).rsplit('/', 1)[-1]}]" if isinstance(uri, str) else "[file]")
    media = message.get("media")  # the newer exports list every kind of media here
    if isinstance(media, list) and media and not markers:
        markers.append("[media]")
    return markers
