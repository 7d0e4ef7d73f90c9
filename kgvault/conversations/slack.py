"""Slack exports: a channel's day, `general/2024-03-12.json`, of a workspace export."""

from __future__ import annotations

import html
import math
import re
from datetime import tzinfo
from typing import Any

from kgvault.conversations import Conversation
from kgvault.conversations.chat_log import chat_of, clean_text, json_pointer, wall_time
from kgvault.records import Role, Turn
from kgvault.secrets import mask_secrets

METADATA_FILES = frozenset(
    {
        "users.json",
        "channels.json",
        "groups.json",
        "dms.json",
        "mpims.json",
        "integration_logs.json",
        "canvases.json",
    }
)
"""What an export keeps beside its channels' folders: who and what, no conversation."""
_SAID_SUBTYPES = frozenset({"", "thread_broadcast", "file_share", "me_message", "bot_message"})
"""Message subtypes someone wrote; the others are Slack's notices (joins, topics, pins)."""
_MARKUP = re.compile(r"<(?P<kind>[@#!]?)(?P<target>[^<>|\n]*)(?:\|(?P<label>[^<>\n]*))?>")
"""Slack's markup for a mention, a channel, a broadcast or a link: `<@U012|ana>`, `<https://x|label>`."""
_DAY_FILE = re.compile(r"\d{4}-\d{2}-\d{2}")
_DIRECT = re.compile(r"D[A-Z0-9]{6,}|mpdm-.+")


def read_slack(data: object, *, path: str, zone: tzinfo) -> Conversation | None:
    """Read a parsed Slack export's day of a channel; None when the data is not one.

    Its messages are read in the order they were sent, each a turn of its author (a bot's an
    assistant's) pointing at it; notices are left out, mentions and links are read as their names,
    and shared files are kept as markers (`[image]`, `[file: name]`).
    """
    if not _is_day(data):
        return None
    assert isinstance(data, list)
    names = _names(data)
    ordered = sorted(
        (float(message["ts"]), position)
        for position, message in enumerate(data)
        if isinstance(message, dict) and _time(message) is not None
    )
    read = (_turn(data[position], json_pointer(position), names, zone) for _, position in ordered)
    return chat_of(read, title=_title(path), source=data)


def _is_day(data: object) -> bool:
    """Tell a Slack day file: a list of messages, each with its `ts`."""
    return (
        isinstance(data, list)
        and bool(data)
        and all(isinstance(m, dict) for m in data)
        and any(m.get("type") == "message" and _time(m) is not None for m in data)
    )


def _time(message: dict[str, Any]) -> float | None:
    """A message's `ts` (epoch seconds, written as a string) as a number, or None."""
    value = message.get("ts")
    try:
        seconds = float(value) if isinstance(value, str) else None
    except ValueError:
        return None
    return seconds if seconds is not None and math.isfinite(seconds) else None


def _title(path: str) -> str:
    """`#general 2024-03-12` for `…/general/2024-03-12.json`."""
    parts = path.split("/")
    stem = parts[-1].removesuffix(".json")
    if len(parts) < 2 or not _DAY_FILE.fullmatch(stem):
        return ""
    # A direct message's folder is its id (`D0123ABCD`, `mpdm-ana--sam-1`): no channel's `#`.
    return f"{parts[-2]} {stem}" if _DIRECT.fullmatch(parts[-2]) else f"#{parts[-2]} {stem}"


def _names(messages: list[dict[str, Any]]) -> dict[str, str]:
    """Each user id's name as the day's own messages give it, for their mentions."""
    return {
        m["user"]: name for m in messages if isinstance(m.get("user"), str) and (name := _profile_name(m))
    }


def _profile_name(message: dict[str, Any]) -> str:
    """The author's name a message carries: real name, else display name, else a bot's name."""
    for key in ("user_profile", "bot_profile"):
        profile = message.get(key)
        if isinstance(profile, dict):
            for field in ("real_name", "display_name", "name"):
                value = profile.get(field)
                if isinstance(value, str) and value.strip():
                    return value.strip()
    value = message.get("username")
    return value.strip() if isinstance(value, str) else ""


def _turn(message: dict[str, Any], pointer: str, names: dict[str, str], zone: tzinfo) -> Turn | None:
    """The turn a message says; None for a notice or a message with nothing in it."""
    if message.get("type") != "message" or message.get("subtype", "") not in _SAID_SUBTYPES:
        return None
    user = message.get("user")
    speaker = (
        _profile_name(message) or names.get(user if isinstance(user, str) else "", "") or str(user or "")
    )
    if not speaker:
        return None
    bot = message.get("subtype") == "bot_message" or ("bot_id" in message and "user_profile" not in message)
    role: Role = "assistant" if bot else "human"
    content = message.get("text")
    said = _plain(content, names) if isinstance(content, str) else ""
    text = clean_text("\n".join([*_files(message), said]))
    if not text:
        return None
    seconds = _time(message)  # its fraction tells messages of one second apart, no time
    time = wall_time(int(seconds), zone) if seconds is not None else None
    return Turn(
        speaker=mask_secrets(speaker)[0],
        role=role,
        text=text,
        line_start=0,
        line_end=0,
        time=time,
        pointer=pointer,
    )


def _plain(text: str, names: dict[str, str]) -> str:
    """Slack's markup read as what it shows: `<@U012>` as `@Ana`, `<https://x|docs>` as `docs`."""

    def shown(match: re.Match[str]) -> str:
        kind, target, label = match["kind"], match["target"], match["label"]
        if kind == "@":
            return "@" + (label or names.get(target, "someone")).lstrip("@")
        if kind == "#":
            return "#" + (label or "channel")
        if kind == "!":
            return "@" + (label or target.split("^")[0]).lstrip("@")
        return label or target.removeprefix("mailto:")

    return html.unescape(_MARKUP.sub(shown, text))


def _files(message: dict[str, Any]) -> list[str]:
    """Markers of the files a message shares: `[image]` for a picture, else `[file: name]`."""
    markers = []
    files = message.get("files")
    for item in files if isinstance(files, list) else ():
        if not isinstance(item, dict):
            continue
        kind, name = item.get("mimetype"), item.get("name") or item.get("title")
        if isinstance(kind, str) and kind.startswith("image/"):
            markers.append("[image]")
        else:
            markers.append(f"[file: {name.strip()}]" if isinstance(name, str) and name.strip() else "[file]")
    return markers
