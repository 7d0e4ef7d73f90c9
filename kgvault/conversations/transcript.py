"""Transcript notes: Markdown whose frontmatter lists `participants`, one turn per `Name: text` line."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, tzinfo
from typing import Any

from kgvault.dates import wall_clock
from kgvault.records import Role, Turn

_ASSISTANT_NAMES = frozenset({"assistant", "ai", "chatgpt", "claude", "gpt", "bot", "gemini", "copilot"})


def participants(meta: dict[str, Any]) -> tuple[str, ...]:
    """The participants a transcript's frontmatter names, or () when the note is not a transcript."""
    value = meta.get("participants")
    if not isinstance(value, list):
        return ()
    names = []
    for item in value:
        name = str(item).strip().removeprefix("[[").removesuffix("]]").strip() if item is not None else ""
        if name and name not in names:
            names.append(name)
    return tuple(names)


def session_time(meta: dict[str, Any], zone: tzinfo = UTC) -> datetime | None:
    """The session's time of day from frontmatter `date` (`YYYY-MM-DDTHH:MM:SS`), when it has one,
    on `zone`'s clocks (see `dates.wall_clock`)."""
    value = meta.get("date")
    if isinstance(value, datetime):
        return wall_clock(value, zone)
    if isinstance(value, str):
        try:
            parsed = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            return None
        # A bare date string parses as midnight: that time of day was never said.
        return None if "T" not in value and ":" not in value else wall_clock(parsed, zone)
    return None


def read_turns(
    text: str, body_line: int, names: tuple[str, ...], when: datetime | date | None
) -> tuple[Turn, ...]:
    """Read the turns of a transcript body: a `Name:` or `**Name:**` line starts one, others continue it.

    Lines before the first turn belong to no turn (a heading, a preamble); trailing blank lines
    are not part of a turn.
    """
    if not names:
        return ()
    alternation = "|".join(re.escape(name) for name in sorted(names, key=lambda n: (-len(n), n)))
    starts = re.compile(
        rf"^[ \t]*(?:\*\*(?P<bold>{alternation})[ \t]*:[ \t]*\*\*|\*\*(?P<bold2>{alternation})\*\*[ \t]*:"
        rf"|(?P<plain>{alternation})[ \t]*:)[ \t]*(?P<text>.*)$",
        re.IGNORECASE,
    )
    canonical = {name.casefold(): name for name in names}
    moment = when if isinstance(when, datetime) else None
    lines = text.split("\n")
    turns: list[Turn] = []
    speaker: str | None = None
    said: list[str] = []
    first = last = 0
    for number in range(body_line, len(lines) + 1):
        line = lines[number - 1]
        match = starts.match(line)
        if match is not None:
            if speaker is not None:
                turns.append(_turn(speaker, said, first, last, moment))
            found = match.group("bold") or match.group("bold2") or match.group("plain")
            speaker = canonical[found.casefold()]
            said = [match.group("text")]
            first = last = number
        elif speaker is not None:
            said.append(line)
            if line.strip():
                last = number
    if speaker is not None:
        turns.append(_turn(speaker, said, first, last, moment))
    return tuple(turns)


def _turn(speaker: str, said: list[str], first: int, last: int, moment: datetime | None) -> Turn:
    """One turn, its text cut to its own lines (trailing blank lines belong to no one)."""
    role: Role = "assistant" if speaker.casefold() in _ASSISTANT_NAMES else "human"
    return Turn(
        speaker=speaker,
        role=role,
        text="\n".join(said[: last - first + 1]).strip(),
        line_start=first,
        line_end=last,
        time=moment,
    )
