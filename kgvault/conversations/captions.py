"""Meeting transcripts saved as captions: WebVTT (`.vtt`: Zoom, Teams) and SubRip (`.srt`) files.

A cue is an optional number or name, a timing line (`00:00:05.120 --> 00:00:09.000`) and the
words said. Zoom starts each cue's words with the speaker's name (`Jane Doe: Okay, …`), Teams
with a voice tag (`<v Jane Doe>Okay, …</v>`); a line of a cue may open another speaker's words.
A speaker's words in a row are one turn, on the file's own lines. Captions that name no speaker
(a film's subtitles, a recording's words) are not read: nobody can tell whose words they are.
"""

from __future__ import annotations

import html
import re
from collections import Counter
from dataclasses import dataclass

from kgvault.conversations.transcript import is_assistant, not_a_speaker
from kgvault.records import Turn

CAPTION_EXTENSIONS = frozenset({".vtt", ".srt"})

_TIMING = re.compile(
    r"^[ \t]*(?:\d+:)?\d{1,2}:\d{2}[.,]\d{1,3}[ \t]*-->[ \t]*(?:\d+:)?\d{1,2}:\d{2}[.,]\d{1,3}(?:[ \t].*)?$"
)
"""A cue's timing line: `00:01:02.500 --> 00:01:05.000` (WebVTT may leave the hours out, SubRip
writes a comma, some tools no spaces), optionally followed by WebVTT's cue settings."""
_OPENING = r"^[ \t]*(?:>>[ \t]*|-[ \t]*)?"
"""What may come before a speaker: a broadcast caption's `>>`, a subtitle's dialogue dash."""
_VOICE = re.compile(rf"{_OPENING}<v(?:\.[\w.-]+)?[ \t]+(?P<name>[^<>]+)>(?P<text>.*)$")
"""A WebVTT voice tag opening a line's words (`<v Jane Doe>`, `<v.loud Jane Doe>`), as Teams writes."""
_A_VOICE = re.compile(r"<v(?:\.[\w.-]+)?[ \t]+(?P<name>[^<>]+)>")
_LABEL = re.compile(
    rf"{_OPENING}\[?(?P<name>[^\s:<>\[\]][^:<>\[\]\n]{{0,79}}?)\]?[ \t]*:[ \t]+(?P<text>\S.*)$"
)
"""A speaker's name before a colon, opening a line's words (`Jane Doe: Okay, …`, `[Speaker 1]: …`,
`>> BEN: …`), as Zoom and others write."""
_TAG = re.compile(r"</?[a-zA-Z][^<>]*>|<\d[\d:.]*>")
"""WebVTT's markup inside a cue's words: classes, italics, voices closed, karaoke timestamps."""
_MAX_NAME_WORDS = 8
_PARTICLES = frozenset(
    {"de", "la", "del", "van", "von", "der", "den", "da", "di", "du", "le", "bin", "al", "y"}
)
"""Lowercase words inside a person's name ("María José Pérez de la Cruz")."""
_DIAL_IN = re.compile(r"^\+?[\d ().-]{7,}$|^[\w.+-]+@[\w-]+(?:\.[\w-]+)+$")
"""A phone number a dial-in caller is shown by (`+49 30 1234567`), or the email of a guest."""
_NAMED_FOR_TIMES = frozenset([
    "january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
    "november", "december", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
])  # fmt: skip
"""Words a note's line may open with (`March: …`) that open a cue as a person's name (`April: …`)."""


@dataclass(frozen=True, slots=True)
class _Words:
    """What a line of a cue opens, and the lines under it up to the next opening or the cue's end."""

    first: int
    """Its first line, 1-based."""
    last: int
    voice: str | None
    """The speaker a voice tag names (a speaker for sure)."""
    label: str | None
    """The name before a colon, if it opens with one: a speaker's, or words ("The plan: …")."""
    text: str
    """The words after the voice or label."""
    whole: str
    """The words with the label, as said when the label is no speaker."""


def looks_like_captions(text: str) -> bool:
    """Whether a file holds captions: WebVTT's header, or a cue's timing line among its first lines."""
    text = text.lstrip("\ufeff \t\r\n")
    if text.startswith("WEBVTT"):
        return True
    return any(_TIMING.match(line) for line in text.split("\n", 8)[:8])


def has_cues(text: str) -> bool:
    """Whether captions hold a cue at all (a header alone holds none)."""
    return any(_TIMING.match(line) for line in text.split("\n"))


def read_captions(text: str) -> tuple[tuple[Turn, ...], list[tuple[int, str]]]:
    """The turns of captions, and what could not be read as said (line, why).

    A speaker's words in a row are one turn; words no speaker opens go on with the one before. No
    turn at all when fewer than half the cues' words name their speaker: those are subtitles,
    whose words are nobody's that kgvault knows.
    """
    lines = [line.rstrip("\r") for line in text.split("\n")]
    problems: list[tuple[int, str]] = []
    said = [words for first, end in _cues(lines) for words in _lines_of(lines, first, end, problems)]
    speakers = _speakers(said)
    named = sum(words.voice is not None or words.label in speakers for words in said)
    if not said or named * 2 < len(said):
        return (), problems
    turns: list[Turn] = []
    speaker: str | None = None
    run: list[tuple[_Words, str]] = []
    for words in said:
        found = words.voice or (words.label if words.label in speakers else None)
        if found is not None and found != speaker:
            if speaker is not None and run:
                turns.append(_turn(speaker, run))
            speaker, run = found, []
        if speaker is not None:
            run.append((words, words.text if found is not None else words.whole))
    if speaker is not None and run:
        turns.append(_turn(speaker, run))
    return tuple(turns), problems


def _cues(lines: list[str]) -> list[tuple[int, int]]:
    """Each cue's lines of words (0-based, end exclusive), in the file's order. A cue ends at an
    empty line, at a timing line or before the number or name over one; NOTE, STYLE and REGION
    blocks have no timing line."""
    cues: list[tuple[int, int]] = []
    number = 0
    while number < len(lines):
        if not _TIMING.match(lines[number]):
            number += 1
            continue
        first = end = number + 1
        while (
            end < len(lines)
            and lines[end]
            and not _TIMING.match(lines[end])
            and not (end + 1 < len(lines) and _TIMING.match(lines[end + 1]))
        ):
            end += 1
        if any(line.strip() for line in lines[first:end]):
            cues.append((first, end))
        number = end
    return cues


def _lines_of(lines: list[str], first: int, end: int, problems: list[tuple[int, str]]) -> list[_Words]:
    """A cue's words, cut where a line opens with a voice or a name."""
    found: list[_Words] = []
    for index in range(first, end):
        line = lines[index]
        if not line.strip():
            continue  # a line of spaces (YouTube opens cues with one): no words
        voice, label, text = _opening(line)
        whole = _plain(line if voice is None else text)
        if (inner := _A_VOICE.search(text)) is not None:
            problems.append(
                (
                    index + 1,
                    f"a second voice on one line (`<v {inner['name'].strip()}>`): its words are read "
                    "as the first's; put each voice on a line of its own",
                )
            )
        words = _Words(index + 1, index + 1, voice, label, _plain(text), whole)
        if found and voice is None and label is None:
            last = found[-1]
            found[-1] = _Words(
                last.first,
                index + 1,
                last.voice,
                last.label,
                f"{last.text} {words.text}",
                f"{last.whole} {whole}",
            )
        else:
            found.append(words)
    return found


def _opening(line: str) -> tuple[str | None, str | None, str]:
    """The voice or the label a line opens with, and its words after them."""
    voice = _VOICE.match(line)
    if voice is not None:
        name = " ".join(_plain(voice["name"]).split())
        return name or None, None, voice["text"]
    label = _LABEL.match(_plain(line))  # `<c.yellow>Ana:</c> yes` is Ana's
    if label is not None:
        return None, " ".join(label["name"].split()), label["text"]
    return None, None, line


def _speakers(said: list[_Words]) -> set[str]:
    """The labels that name speakers: any a file opens words with twice or more, and one used once
    that reads as a name ("Long story short: we ship Friday" opens with none)."""
    counts = Counter(words.label for words in said if words.label is not None)
    return {label for label, count in counts.items() if count > 1 or _a_name(label)}


def _a_name(label: str) -> bool:
    """Whether a label reads as a person's or a line's name: capitalized words (or a number one
    dials, an email), a few of them, none a note's label ("Note"; a month may be a name: "April")."""
    if _DIAL_IN.match(label):
        return True
    words = label.split()
    if not words or len(words) > _MAX_NAME_WORDS or not any(c.isalpha() for c in label):
        return False
    if not_a_speaker(label) and label.casefold() not in _NAMED_FOR_TIMES:
        return False
    return all(not word[0].isalpha() or word[0].isupper() or word in _PARTICLES for word in words)


def _plain(line: str) -> str:
    """A line of cue words without WebVTT's markup, its character references decoded."""
    return " ".join(html.unescape(_TAG.sub("", line)).split())


def _turn(speaker: str, run: list[tuple[_Words, str]]) -> Turn:
    return Turn(
        speaker=speaker,
        role="assistant" if is_assistant(speaker) else "human",
        text=" ".join(text for _, text in run if text),
        line_start=run[0][0].first,
        line_end=run[-1][0].last,
    )
