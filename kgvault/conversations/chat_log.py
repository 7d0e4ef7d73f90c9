"""JSON Lines chat logs, and the pieces every chat reader shares: times, pointers, the rendering."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from dataclasses import replace
from datetime import UTC, datetime, timedelta, tzinfo
from typing import Any
from urllib.parse import quote, unquote

from kgvault.conversations import Conversation
from kgvault.dates import epoch_wall_clock, wall_clock
from kgvault.records import Problem, Role, Turn

SESSION_GAP = timedelta(hours=6)
"""A longer silence between two timestamped lines starts a new session."""
ASSISTANT_SPEAKER = "Assistant"
"""Who says a chat log's assistant lines when the line names no speaker."""

_HUMAN_ROLES = frozenset({"user", "human"})
_ASSISTANT_ROLES = frozenset({"assistant", "ai", "bot", "model"})
_SKIPPED_ROLES = frozenset({"system", "developer", "tool", "function"})
# A line with a speaker but no role is a person's, unless the name is plainly a model's: an assistant's
# words taken for a person's memory are the costlier mistake, so the common model names are caught.
_ASSISTANT_NAMES = frozenset({"assistant", "ai", "bot", "chatgpt", "claude", "gpt", "gemini", "copilot"})
_NUMBER = re.compile(r"\d+(?:\.\d+)?")


# --- shared by the readers -------------------------------------------------------------------


def wall_time(value: object, zone: tzinfo = UTC) -> datetime | None:
    """Read an ISO string or epoch seconds (or milliseconds) as a naive time on `zone`'s clocks
    (see `dates.wall_clock`); None otherwise.

    A naive ISO time is taken as it is; a number, as `dates.epoch_wall_clock` reads it.
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return epoch_wall_clock(value, zone)
    if not isinstance(value, str) or not value.strip():
        return None
    text = value.strip()
    if _NUMBER.fullmatch(text):
        return wall_time(float(text), zone)
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        return None
    return wall_clock(moment, zone)


def json_pointer(*tokens: str | int) -> str:
    """Build an RFC 6901 JSON pointer in its URI fragment form: `~0` and `~1` escapes, then %XX ones."""
    # Pointers stand in coverage tables, page lines and after the `#` of evidence: a ChatGPT node id
    # holding `|`, a line break, a backtick or `[[` would break them. So, as RFC 6901 section 6 does for
    # fragments, all but letters, digits and `-._~` is percent-encoded (as UTF-8); `pointer_tokens` decodes.
    return "".join("/" + quote(str(token).replace("~", "~0").replace("/", "~1"), safe="") for token in tokens)


def pointer_tokens(pointer: str) -> list[str]:
    """Read a pointer `json_pointer` wrote back into its tokens: `/0/mapping/a%7Cb` gives 0, mapping, a|b."""
    return [unquote(token).replace("~1", "/").replace("~0", "~") for token in pointer.split("/")[1:]]


_IMAGE_EXTENSIONS = frozenset({"png", "jpg", "jpeg", "gif", "webp", "heic", "heif", "bmp", "tif", "tiff"})


def is_image_file(name: str) -> bool:
    """Whether a shared file's name is a picture's (`IMG-20240311-WA0004.jpg`)."""
    return name.rpartition(".")[2].lower() in _IMAGE_EXTENSIONS


def clean_text(text: str) -> str:
    """A message's text with LF line ends and no surrounding blank space."""
    return text.replace("\r\n", "\n").replace("\r", "\n").strip()


def render_chat(turns: Iterable[Turn]) -> tuple[str, tuple[Turn, ...]]:
    """Render turns as `Speaker: text` blocks a blank line apart; return the text and the placed turns."""
    lines: list[str] = []
    placed: list[Turn] = []
    for turn in turns:
        if lines:
            lines.append("")
        start = len(lines) + 1
        lines.extend(f"{turn.speaker}: {turn.text}".split("\n"))
        placed.append(replace(turn, line_start=start, line_end=len(lines)))
    return ("\n".join(lines) + "\n" if lines else ""), tuple(placed)


def split_sessions(turns: Iterable[Turn]) -> list[Turn]:
    """The turns numbered by session: a silence of more than `SESSION_GAP` starts the next one."""
    numbered: list[Turn] = []
    for turn in turns:
        last = numbered[-1] if numbered else None
        session = last.session if last is not None else 0
        if (
            last is not None
            and last.time is not None
            and turn.time is not None
            and turn.time - last.time > SESSION_GAP
        ):
            session += 1
        numbered.append(replace(turn, session=session))
    return numbered


def chat_of(
    turns: Iterable[Turn | None], *, title: str, source: object, pointer: str | None = None
) -> Conversation:
    """A chat of an export, from its messages' turns (None for a message that says nothing): split into
    sessions, rendered as `Speaker: text` blocks, its digest that of `source`, its data."""
    text, placed = render_chat(split_sessions(turn for turn in turns if turn is not None))
    started = next((turn.time for turn in placed if turn.time), None)
    return Conversation(
        pointer=pointer,
        title=title,
        text=text,
        turns=placed,
        started=started,
        sha256=conversation_digest(source),
    )


def conversation_digest(conversation: object) -> str:
    """Hex digest of one conversation of an export, the same whatever the key order in the file."""
    canonical = json.dumps(conversation, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def text_of(value: object) -> str:
    """The text of a `text`/`content` value: a string, or a list of strings and `{"type": "text"}` parts."""
    if isinstance(value, str):
        return value
    if not isinstance(value, list):
        return ""
    parts = []
    for item in value:
        part = item.get("text") if isinstance(item, dict) and item.get("type", "text") == "text" else item
        if isinstance(part, str) and part.strip():
            parts.append(part)
    return "\n".join(parts)


# --- JSON Lines chat logs --------------------------------------------------------------------


def read_chat_log(
    text: str, *, path: str, user_name: str, zone: tzinfo = UTC
) -> tuple[Conversation, list[Problem]]:
    """Read a JSON Lines chat log: one `{speaker|role, text|content, timestamp?, session?}` object a line.

    System and tool lines are skipped; a bad line is a problem and skipped. A new session starts when
    the `session` field changes (a line without one stays in the current session) or after a silence
    of more than six hours between timestamps.
    """
    problems: list[Problem] = []
    turns: list[Turn] = []
    session = 0
    last_key: object = None
    last_time: datetime | None = None
    for number, line in enumerate(text.split("\n"), start=1):
        entry = _entry(line, path, number, problems)
        if entry is None:
            continue
        turn = _log_turn(entry, path, number, user_name, zone, problems)
        if turn is None:
            continue
        key = entry.get("session")
        new_key = key is not None and last_key is not None and key != last_key
        long_gap = turn.time is not None and last_time is not None and turn.time - last_time > SESSION_GAP
        if turns and (new_key or long_gap):
            session += 1
        turns.append(replace(turn, session=session))
        last_key = key if key is not None else last_key
        last_time = turn.time or last_time
    started = next((turn.time for turn in turns if turn.time is not None), None)
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    conversation = Conversation(
        pointer=None, title="", text=text, turns=tuple(turns), started=started, sha256=digest
    )
    return conversation, problems


def _entry(line: str, path: str, number: int, problems: list[Problem]) -> dict[str, Any] | None:
    """Parse one line as a JSON object; None for a blank line or (with a problem) a bad one."""
    stripped = line.strip().lstrip("\ufeff")
    if not stripped:
        return None
    try:
        entry = json.loads(stripped)
    except (ValueError, RecursionError) as error:
        problems.append(Problem(path, number, f"line {number} is not valid JSON ({error}); skipped"))
        return None
    if not isinstance(entry, dict):
        problems.append(Problem(path, number, f"line {number} is not a JSON object; skipped"))
        return None
    return entry


def _log_turn(
    entry: dict[str, Any], path: str, number: int, user_name: str, zone: tzinfo, problems: list[Problem]
) -> Turn | None:
    """The turn one chat-log line says; None for a system or tool line and (with a problem) a bad one."""
    speaker_role = _speaker_and_role(entry, user_name)
    if speaker_role is None:
        return None
    if isinstance(speaker_role, str):
        problems.append(Problem(path, number, f"line {number} {speaker_role}; skipped"))
        return None
    said = clean_text(text_of(entry.get("text")) or text_of(entry.get("content")))
    if not said:
        problems.append(Problem(path, number, f"line {number} has no text (`text` or `content`); skipped"))
        return None
    stamp = entry.get("timestamp")
    moment = wall_time(stamp, zone)
    if stamp is not None and moment is None:
        problems.append(
            Problem(path, number, f"line {number} has a timestamp that is not ISO or epoch: {stamp!r}")
        )
    speaker, role = speaker_role
    return Turn(speaker=speaker, role=role, text=said, line_start=number, line_end=number, time=moment)


def _speaker_and_role(entry: dict[str, Any], user_name: str) -> tuple[str, Role] | str | None:
    """Who speaks a line and in what role; None for a skipped role, or why the line cannot be read."""
    raw_role = entry.get("role")
    raw_speaker = entry.get("speaker")
    speaker = raw_speaker.strip() if isinstance(raw_speaker, str) else ""
    role_name = raw_role.strip().lower() if isinstance(raw_role, str) else ""
    if role_name in _SKIPPED_ROLES:
        return None
    if role_name in _HUMAN_ROLES:
        return speaker or user_name, "human"
    if role_name in _ASSISTANT_ROLES:
        return speaker or ASSISTANT_SPEAKER, "assistant"
    if role_name:
        return f"has an unknown role {raw_role!r}"
    if not speaker:
        return "has no `speaker` or `role`"
    return speaker, "assistant" if speaker.casefold() in _ASSISTANT_NAMES else "human"
