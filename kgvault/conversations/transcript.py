"""Transcript notes: Markdown whose frontmatter lists `participants`, one turn per `Name: text` line."""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import UTC, date, datetime, tzinfo
from typing import Any

from kgvault.dates import wall_clock
from kgvault.records import Role, Turn

_ASSISTANT_NAMES = frozenset({"assistant", "ai", "chatgpt", "claude", "gpt", "bot", "gemini", "copilot"})


# A recording's time before the speaker ("[00:01:12] Hank: …", "(14:03) Ivy: …"); the turn keeps
# the session's time: it may be a clock time or an offset into the recording.
_TIME = r"\d{1,2}:\d{2}(?::\d{2})?(?:[.,]\d+)?"
_CUE = rf"(?:[\[(]?{_TIME}[\])]?[ \t]+)?"
_CUE_AFTER = rf"(?:[ \t]*[\[(]{_TIME}[\])])?"
"""A recording's time after the speaker, before the colon ("Jordan Blake (00:01:20): …"), as Otter
and Fireflies export."""
_MARK = r"(?:>[ \t]*|[-*+][ \t]+)?"
"""A quote or list marker a turn's line may start with (`> Ann: …`, `- Ann: …`)."""
# A line that looks like another speaker's ("Carol: …"): one to three capitalized words and a colon.
_WORD = r"[^\W\d_][\w'’.-]*"
_LABEL = re.compile(
    rf"^[ \t]*{_MARK}{_CUE}(?:\*\*)?(?P<label>{_WORD}(?:[ \t]{_WORD}){{0,2}})"
    rf"{_CUE_AFTER}[ \t]*:(?:\*\*)?[ \t]+\S"
)
# Labels that introduce a line of notes, not a speaker.
_NOT_SPEAKERS = frozenset(
    (
        *("note", "notes", "nb", "ps", "update", "edit", "todo", "action", "actions", "decision"),
        *("decisions", "summary", "agenda", "question", "answer", "q", "a", "time", "date", "location"),
        *("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "today"),
        *("tomorrow", "tonight", "yesterday", "morning", "afternoon", "evening", "breakfast", "lunch"),
        *("dinner", "pros", "cons", "goal", "goals", "plan", "idea", "ideas", "tip", "warning", "status"),
        *("result", "results", "problem", "solution", "issue", "link", "source", "quote", "step", "next"),
        *("january", "february", "march", "april", "may", "june", "july", "august", "september"),
        *("october", "november", "december", "weekend", "p.s", "fyi", "btw", "reminder"),
        *("place", "topic", "topics", "next", "context", "tldr", "fyi", "re", "subject", "source", "link"),
        *("follow-up", "followup", "important", "warning", "caveat", "aside", "example", "reminder"),
        *("result", "results", "status"),
    )
)


def is_assistant(speaker: str) -> bool:
    """Whether a speaker's name is a model's (`Assistant`, `ChatGPT`, …): their words are no one's memory."""
    return speaker.casefold() in _ASSISTANT_NAMES


def not_a_speaker(label: str) -> bool:
    """Whether a label before a colon introduces a line of notes (`Note:`, `Update:`), not a speaker."""
    return label.casefold() in _NOT_SPEAKERS


def participants(meta: dict[str, Any]) -> dict[str, str]:
    """The labels that start a participant's turn, each to that participant's name; {} when the note
    is not a transcript.

    `participants` is a list (or a comma-separated string) of names; a link `[[Caroline Jones|Caro]]`
    names Caroline Jones, whose lines may start with either name.
    """
    value = meta.get("participants")
    if isinstance(value, str):
        value = [part for part in value.split(",") if part.strip()]
    if not isinstance(value, list):
        return {}
    labels: dict[str, str] = {}
    for item in value:
        text = str(item).strip() if item is not None else ""
        if text.startswith("[[") and text.endswith("]]"):
            target, _, shown = text[2:-2].partition("|")
            name, shown = target.split("#", 1)[0].strip(), shown.strip()
        else:
            name, shown = text, ""
        if not name or name.casefold() in (n.casefold() for n in labels.values()):
            continue
        labels.setdefault(name, name)
        if shown:
            labels.setdefault(shown, name)
    return labels


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
    text: str, body_line: int, names: Mapping[str, str], when: datetime | date | None
) -> tuple[tuple[Turn, ...], list[tuple[int, str]]]:
    """Read the turns of a transcript body: a `Name:` or `**Name:**` line starts one, others continue it.

    `names` are `participants`'. Lines before the first turn belong to no turn (a heading, a
    preamble); trailing blank lines are not part of a turn. Also returns the lines that look like
    the turn of someone who is no participant (line number, name): they and the lines after them
    belong to no turn, up to the next participant's.
    """
    if not names:
        return (), []
    alternation = "|".join(re.escape(name) for name in sorted(names, key=lambda n: (-len(n), n)))
    starts = re.compile(
        rf"^[ \t]*{_MARK}{_CUE}(?:\*\*(?P<bold>{alternation}){_CUE_AFTER}[ \t]*:[ \t]*\*\*"
        rf"|\*\*(?P<bold2>{alternation})\*\*{_CUE_AFTER}[ \t]*:|(?P<plain>{alternation}){_CUE_AFTER}[ \t]*:)"
        rf"[ \t]*(?P<text>.*)$",
        re.IGNORECASE,
    )
    canonical = {label.casefold(): name for label, name in names.items()}
    strangers: list[tuple[int, str]] = []
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
        elif (stranger := _stranger(line)) is not None:
            # Someone who is no participant: their words are no one's turn (not the last speaker's).
            if speaker is not None:
                turns.append(_turn(speaker, said, first, last, moment))
            strangers.append((number, stranger))
            speaker = None
        elif speaker is not None:
            said.append(line)
            if line.strip():
                last = number
    if speaker is not None:
        turns.append(_turn(speaker, said, first, last, moment))
    return tuple(turns), strangers


def _stranger(line: str) -> str | None:
    """The name a line starts with as a speaker's turn does ("Carol: I moved …"), if it reads as one."""
    match = _LABEL.match(line)
    if match is None:
        return None
    label = match.group("label")
    if not_a_speaker(label) or not all(word[0].isupper() for word in label.split()):
        return None
    return label


def _turn(speaker: str, said: list[str], first: int, last: int, moment: datetime | None) -> Turn:
    """One turn, its text cut to its own lines (trailing blank lines belong to no one)."""
    role: Role = "assistant" if is_assistant(speaker) else "human"
    return Turn(
        speaker=speaker,
        role=role,
        text="\n".join(said[: last - first + 1]).strip(),
        line_start=first,
        line_end=last,
        time=moment,
    )
