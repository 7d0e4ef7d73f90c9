"""WhatsApp chat exports: the `.txt` file "Export chat" writes, read in place as a chat log.

Android writes `12/03/2024, 14:22 - Mum: text`, iOS `[12/03/2024, 14:22:05] Mum: text`; the date's
order and separators and the clock (24-hour or `2:22 PM`) follow the phone's language. A message runs
on over the lines up to the next one's header. Each turn's line range is the file's, as in a log.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from datetime import date, datetime, time

from kgvault.conversations import Conversation
from kgvault.conversations.chat_log import split_sessions
from kgvault.records import Problem, Turn
from kgvault.secrets import mask_secrets

_MARKS = "\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\ufeff"
"""Direction marks: iOS puts one before a system line, an attachment and a contact's phone number."""
_HEADER = re.compile(
    rf"[{_MARKS}]*(?P<bracket>\[)?"
    r"(?P<a>\d{1,4})(?P<sep>[./-])(?P<b>\d{1,2})(?P=sep)(?P<c>\d{2,4})\.?,?[\t\x20]"
    r"(?P<hour>\d{1,2})[:.](?P<minute>\d{2})(?:[:.](?P<second>\d{2}))?"
    r"(?:[\x20\u00a0\u202f]?(?P<half>[AaPp])\.?[\x20\u00a0\u202f]?[Mm]\.?)?"
    r"(?(bracket)\][\x20\u00a0]|[\x20\u00a0]?[-–][\x20\u00a0])"
    r"(?P<rest>.*)"
)
"""A message's header: its date and time, then `Speaker: text`, or a system line with no speaker."""
_SPEAKER = re.compile(r"(?P<who>[^:\n\"“]{1,80}?):(?:[\x20\u00a0](?P<said>.*))?$")
"""A message's speaker, before a colon; a notice quoting a name (`changed the subject to "Trip: Rome"`)
is none."""
_MEDIA = {
    "<media omitted>": "[media]",
    "null": "[media]",
    "image omitted": "[image]",
    "video omitted": "[video]",
    "audio omitted": "[audio]",
    "sticker omitted": "[sticker]",
    "gif omitted": "[GIF]",
    "document omitted": "[document]",
    "contact card omitted": "[contact]",
    "this message was deleted": "[deleted]",
    "you deleted this message": "[deleted]",
    "missed voice call": "[missed call]",
    "missed video call": "[missed call]",
}
"""What an export writes in place of what it left out, and the marker kgvault keeps instead."""
_ATTACHED = re.compile(r"<attached: (?P<name>[^>\n]+)>")
_EDITED = re.compile(rf"[\x20{_MARKS}]*<This message was edited>$")
_LOOK_AHEAD_LINES = 20
"""How many non-blank lines at the top of a `.txt` file decide whether it is a WhatsApp export."""


@dataclass(frozen=True, slots=True)
class _Header:
    """One message header as written: the date's three numbers, the clock, and the rest of the line."""

    line: int
    numbers: tuple[int, int, int]
    four_digit_first: bool
    clock: tuple[int, int, int]
    half: str
    """`a` or `p` on a 12-hour clock, else empty."""
    capital: bool
    """The clock says `PM`, not `pm`: American phones write it so, and write the month first."""
    rest: str


def looks_like_whatsapp(text: str) -> bool:
    """Tell a WhatsApp export from a note: it opens with a message header and has two speakers' lines."""
    lines = [line for line in text.split("\n", 400)[:400] if line.strip()][:_LOOK_AHEAD_LINES]
    if not lines or _header(lines[0], 1) is None:
        return False
    said = [h for h in (_header(line, 1) for line in lines) if h is not None and _SPEAKER.match(h.rest)]
    return len(said) >= 2


def read_whatsapp(text: str, *, path: str) -> tuple[Conversation, list[Problem]]:
    """Read a WhatsApp export: each message a turn of its speaker, on the file's own lines.

    System lines (encryption notices, members added) are no turns; media the export left out are
    kept as markers (`[image]`, `[file: name]`). A silence of more than six hours starts a session.
    """
    problems: list[Problem] = []
    lines = text.split("\n")
    headers = [h for number, line in enumerate(lines, start=1) if (h := _header(line, number)) is not None]
    day_first = _day_first(headers, path, problems)
    turns: list[Turn] = []
    for position, header in enumerate(headers):
        last_line = headers[position + 1].line - 1 if position + 1 < len(headers) else len(lines)
        while last_line > header.line and not lines[last_line - 1].strip():
            last_line -= 1
        moment = _moment(header, day_first)
        if moment is None:
            problems.append(Problem(path, header.line, f"line {header.line} has no valid date; skipped"))
            continue
        turn = _turn(header, lines[header.line : last_line], moment, last_line)
        if turn is not None:
            turns.append(turn)
    turns = split_sessions(turns)
    started = turns[0].time if turns else None
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    conversation = Conversation(
        pointer=None, title="", text=text, turns=tuple(turns), started=started, sha256=digest
    )
    return conversation, problems


def _header(line: str, number: int) -> _Header | None:
    """The header a line starts with, if any."""
    match = _HEADER.match(line)
    if match is None:
        return None
    a, b, c = (int(match[key]) for key in ("a", "b", "c"))
    four_digit_first = len(match["a"]) == 4
    if (len(match["a"]) == 3) or (not four_digit_first and len(match["c"]) == 3):
        return None
    clock = (int(match["hour"]), int(match["minute"]), int(match["second"] or 0))
    half = match["half"] or ""
    return _Header(number, (a, b, c), four_digit_first, clock, half.lower(), half.isupper(), match["rest"])


def _day_first(headers: list[_Header], path: str, problems: list[Problem]) -> bool:
    """Whether the dates are day/month: a day past 12 tells, else the order that keeps time running
    forward, else the phone's clock (`2:22 PM` is American) with a problem saying so."""
    pairs = [h.numbers[:2] for h in headers if not h.four_digit_first]
    if not pairs:
        return True
    if any(first > 12 for first, _ in pairs):
        return True
    if any(second > 12 for _, second in pairs):
        return False
    forward = [order for order in (True, False) if _runs_forward(headers, order)]
    if len(forward) == 1:
        return forward[0]
    guess = not any(h.capital for h in headers)
    shown = "/".join(str(n) for n in headers[0].numbers)
    problems.append(
        Problem(
            path,
            headers[0].line,
            f"no date in this chat tells day/month from month/day ({shown}); read as "
            f"{'day/month' if guess else 'month/day'}, so check the dates of its episodes",
        )
    )
    return guess


def _runs_forward(headers: list[_Header], day_first: bool) -> bool:
    """Whether the messages' times never go back when the dates are read in this order."""
    last: datetime | None = None
    for header in headers:
        moment = _moment(header, day_first)
        if moment is None:
            return False
        if last is not None and moment < last:
            return False
        last = moment
    return True


def _moment(header: _Header, day_first: bool) -> datetime | None:
    """The header's date and time, naive as the phone showed it; None when it is no valid date."""
    a, b, c = header.numbers
    if header.four_digit_first:
        year, month, day = a, b, c
    else:
        year = c + 2000 if c < 100 else c
        day, month = (a, b) if day_first else (b, a)
    hour, minute, second = header.clock
    if header.half:
        if not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (12 if header.half == "p" else 0)
    try:
        return datetime.combine(date(year, month, day), time(hour, minute, second))
    except ValueError:
        return None


def _turn(header: _Header, more: list[str], moment: datetime, last_line: int) -> Turn | None:
    """The turn a message says; None for a system line (no speaker, or a speaker's marked notice)."""
    said = _SPEAKER.match(header.rest)
    if said is None:
        return None
    first = said["said"] or ""
    if first.startswith(tuple(_MARKS)) and not _is_media(first):
        return None  # iOS marks its notices ("‎Messages and calls are end-to-end encrypted.")
    text = "\n".join([first, *more]).strip(_MARKS + " \t\n")
    text = _EDITED.sub("", _ATTACHED.sub(lambda m: f"[file: {m['name'].strip(_MARKS)}]", text))
    text = _MEDIA.get(text.strip(_MARKS).casefold(), text)
    text = "".join(ch for ch in text if ch not in _MARKS).strip()
    speaker = "".join(ch for ch in said["who"] if ch not in _MARKS).strip()
    if not text or not speaker:
        return None
    return Turn(
        speaker=mask_secrets(speaker)[0],  # an unsaved contact is their phone number
        role="human",
        text=text,
        line_start=header.line,
        line_end=last_line,
        time=moment,
    )


def _is_media(text: str) -> bool:
    """Whether a marked message is media the export left out, which is still the speaker's message."""
    bare = text.strip(_MARKS + " ").casefold()
    return bare in _MEDIA or _ATTACHED.search(text) is not None
