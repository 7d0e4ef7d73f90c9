"""Meeting transcripts saved as captions: WebVTT (`.vtt`: Zoom, Teams) and SubRip (`.srt`) files.

A cue is an optional number or name, a timing line (`00:00:05.120 --> 00:00:09.000`) and the
words said. Zoom starts each cue's words with the speaker's name (`Jane Doe: Okay, …`), Teams
with a voice tag (`<v Jane Doe>Okay, …</v>`). A speaker's cues in a row are one turn, on the
file's own lines. Captions that name no speaker (a film's subtitles, a recording's words) are
not read: nobody can tell whose words they are.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

from kgvault.conversations.transcript import is_assistant, not_a_speaker
from kgvault.records import Turn

CAPTION_EXTENSIONS = frozenset({".vtt", ".srt"})

_TIMING = re.compile(
    r"^[ \t]*(?:\d+:)?\d{1,2}:\d{2}[.,]\d{1,3}[ \t]+-->[ \t]+(?:\d+:)?\d{1,2}:\d{2}[.,]\d{1,3}(?:[ \t].*)?$"
)
"""A cue's timing line: `00:01:02.500 --> 00:01:05.000` (WebVTT may leave the hours out, SubRip
writes a comma), optionally followed by WebVTT's cue settings."""
_VOICE = re.compile(r"^[ \t]*<v(?:\.[\w.-]+)?[ \t]+(?P<name>[^>]+)>(?P<text>.*)$")
"""A WebVTT voice tag opening a cue's words (`<v Jane Doe>`, `<v.loud Jane Doe>`), as Teams writes."""
_LABEL = re.compile(r"^[ \t]*(?P<name>[^\W\d_][^:<>\n]{0,60}?)[ \t]*:[ \t]+(?P<text>\S.*)$")
"""A speaker's name before a colon, opening a cue's words (`Jane Doe: Okay, …`), as Zoom writes."""
_TAG = re.compile(r"</?[a-zA-Z][^>]*>|<\d[\d:.]*>")
"""WebVTT's markup inside a cue's words: classes, italics, voices closed, karaoke timestamps."""
_MAX_NAME_WORDS = 5


@dataclass(frozen=True, slots=True)
class _Cue:
    first: int
    """The line of its first words, 1-based."""
    last: int
    speaker: str | None
    text: str


def looks_like_captions(text: str) -> bool:
    """Whether a file holds captions: WebVTT's header, or a cue's timing line among its first lines."""
    if text.lstrip("\ufeff").startswith("WEBVTT"):
        return True
    return any(_TIMING.match(line) for line in text.split("\n", 8)[:8])


def read_captions(text: str) -> tuple[Turn, ...]:
    """The turns of captions: each speaker's cues in a row, one turn on the file's lines.

    Cues without a name continue the last speaker's turn. No turn at all when fewer than half of
    the cues name their speaker: those are subtitles, whose words are nobody's that kgvault knows.
    """
    cues = _cues(text.split("\n"))
    named = sum(cue.speaker is not None for cue in cues)
    if not cues or named * 2 < len(cues):
        return ()
    turns: list[Turn] = []
    speaker: str | None = None
    run: list[_Cue] = []
    for cue in cues:
        if cue.speaker is not None and cue.speaker != speaker:
            if speaker is not None and run:
                turns.append(_turn(speaker, run))
            speaker, run = cue.speaker, []
        if speaker is not None:
            run.append(cue)
    if speaker is not None and run:
        turns.append(_turn(speaker, run))
    return tuple(turns)


def _cues(lines: list[str]) -> list[_Cue]:
    """Every cue with words, in the file's order; NOTE, STYLE and REGION blocks have no timing line."""
    cues: list[_Cue] = []
    number = 0
    while number < len(lines):
        if not _TIMING.match(lines[number]):
            number += 1
            continue
        first = number + 1  # the 0-based index of the cue's first line of words
        end = first
        while end < len(lines) and lines[end].strip() and not _TIMING.match(lines[end]):
            end += 1
        if end > first:
            cues.append(_cue(lines, first, end))
        number = end
    return cues


def _cue(lines: list[str], first: int, end: int) -> _Cue:
    """One cue's speaker and words, from its lines `first` to `end` (0-based, end exclusive)."""
    opening, speaker = lines[first], None
    voice = _VOICE.match(opening)
    if voice is not None:
        speaker, opening = voice["name"], _plain(voice["text"])
    else:
        opening = _plain(opening)  # `<c.yellow>Ana:</c> yes` is Ana's
        label = _LABEL.match(opening)
        if label is not None and _a_name(label["name"]):
            speaker, opening = label["name"], label["text"]
    words = " ".join((opening, *map(_plain, lines[first + 1 : end])))
    name = " ".join(_plain(speaker).split()) if speaker is not None else None
    return _Cue(first + 1, end, name or None, " ".join(words.split()))


def _a_name(label: str) -> bool:
    """Whether a cue's opening label is a speaker's name: a few words, none a note's label ("Note")."""
    words = label.split()
    return 0 < len(words) <= _MAX_NAME_WORDS and not not_a_speaker(label)


def _plain(line: str) -> str:
    """A line of cue words without WebVTT's markup, its character references decoded."""
    return html.unescape(_TAG.sub("", line)).strip()


def _turn(speaker: str, cues: list[_Cue]) -> Turn:
    return Turn(
        speaker=speaker,
        role="assistant" if is_assistant(speaker) else "human",
        text=" ".join(cue.text for cue in cues if cue.text),
        line_start=cues[0].first,
        line_end=cues[-1].last,
    )
