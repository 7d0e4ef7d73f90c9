"""Sources: read each input file under the notes root into a `Source` (`kgvault.discover` finds them).

This stage only reads. It never modifies, moves or touches a source file, and it
never raises on bad input: whatever is wrong with a file becomes a `Problem`.
"""

from __future__ import annotations

import codecs
import hashlib
import json
import os
import re
import time
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import UTC, date, datetime, tzinfo
from pathlib import Path
from typing import Any

import yaml

from kgvault.conversations import Conversation
from kgvault.conversations.captions import CAPTION_EXTENSIONS, has_cues, looks_like_captions, read_captions
from kgvault.conversations.transcript import participants, read_turns, session_time
from kgvault.conversations.whatsapp import chat_name, looks_like_whatsapp, named_like_whatsapp
from kgvault.dates import date_in_filename, date_in_path, find_dates, parse_date_value
from kgvault.discover import SOURCE_KINDS, Found, find_sources, imported_draft_files
from kgvault.note_kind import kept_kind
from kgvault.records import Problem, Source, SourceKind
from kgvault.secrets import mask_secrets

try:
    from yaml import CSafeLoader as _SafeLoader
except ImportError:  # PyYAML built without libyaml: slower, same results.
    from yaml import SafeLoader as _SafeLoader  # type: ignore[assignment]

MAX_BYTES = 20_000_000
"""Files larger than this are skipped: they are data dumps, not notes."""
MAX_EXPORT_BYTES = 2_000_000_000
"""Chat exports are allowed this much: years of conversations make one big JSON file."""
DEFAULT_USER_NAME = "User"
"""Who says an export's user messages, unless the settings name the user."""
BINARY_SNIFF_BYTES = 8192
"""A NUL byte within this many leading bytes marks a file as binary."""

_WIDE_BOMS = (
    # UTF-32 first: its little-endian BOM begins with the UTF-16 one.
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
_FRONTMATTER_OPEN = re.compile(r"---[ \t]*(?:\n|\Z)")
_FRONTMATTER_CLOSE = re.compile(r"^(?:---|\.\.\.)[ \t]*$", re.MULTILINE)
_DATE_KEYS = ("date", "created")
_MAX_META_DEPTH = 64
_MAX_META_ITEMS = 100_000


def read_sources(
    root: Path,
    *,
    exclude: Sequence[Path] = (),
    max_bytes: int = MAX_BYTES,
    user_name: str | None = None,
    zone: tzinfo = UTC,
    kept: SourceMemory | None = None,
    found: Found | None = None,
) -> tuple[list[Source], list[Problem]]:
    """Find and read every source under the notes root, sorted by path; report problems, never raise on input.

    `exclude` lists folders to leave out (the output vault when it lies inside the notes root);
    folders that are not strictly inside the root are disregarded.
    Symbolic links are followed only when their target lies inside the notes root; a folder
    reached through a link is read once, under its real path when it has one. Each conversation
    of a chat export is a source of its own; `user_name` is its user's name (`User` when None) and
    the "I" of a note that names no `author` (nobody when None). Zoned and epoch times are read on
    `zone`'s clocks (`dates.wall_clock`). `kept` is what a long-lived caller (watch) read last time:
    a file unchanged since is not read again. `found` is what `find_sources` found (with `exclude`),
    when the caller asked it already; the stats it holds then tell `kept` which files are unchanged.
    """
    if found is None:
        files, problems = find_sources(root, exclude=exclude)
        stats: Mapping[str, Sequence[int] | None] = {}
    else:
        files, problems, stats = found.files, list(found.problems), found.stats
    if kept is None:
        sources = [
            source
            for rel_path in sorted(files)
            for source in _read_source(rel_path, files[rel_path], max_bytes, user_name, zone, problems)
        ]
    else:
        kept.start((max_bytes, user_name, zone), files)
        sources = [
            source
            for rel_path in sorted(files)
            for source in kept.read(
                rel_path, files[rel_path], max_bytes, user_name, zone, problems, stats.get(rel_path)
            )
        ]
    problems.sort(key=lambda problem: (problem.path, problem.line or 0, problem.message))
    return sources, problems


class SourceMemory:
    """Each file's sources and problems as last read, kept by a long-lived caller (watch) between reads.

    A file whose stats (size, times, inode) are those it had when it was read has the same bytes,
    unless it was saved just before that read: such a file could be saved again within the
    clock's resolution unseen (as git's racy index entries), so it is read again.
    """

    RACY_NS = 2_000_000_000

    def __init__(self) -> None:
        self.settings: object = None
        self.files: dict[str, tuple[tuple[int, ...], list[Source], list[Problem]]] = {}

    def start(self, settings: object, found: Mapping[str, str]) -> None:
        """Begin a read: forget files gone, and everything when the reading settings changed."""
        if settings != self.settings:
            self.settings, self.files = settings, {}
        self.files = {path: entry for path, entry in self.files.items() if path in found}

    def read(
        self,
        rel_path: str,
        path: str,
        max_bytes: int,
        user_name: str | None,
        zone: tzinfo,
        problems: list[Problem],
        stats: Sequence[int] | None = None,
    ) -> list[Source]:
        """The file's sources: as kept when its stats are unchanged, else read (see `_read_source`);
        `stats` are the file's own (`_stats`'s fields), when just taken."""
        entry = self.files.get(rel_path)
        if entry is not None:
            try:
                unchanged = (tuple(stats) if stats is not None else _stats(os.stat(path))) == entry[0]
            except OSError:
                unchanged = False
            if unchanged:
                problems.extend(entry[2])
                return entry[1]
        read_at = time.time_ns()
        own: list[Problem] = []
        opened: list[os.stat_result] = []  # the stats of the very file read (a link may be repointed)
        sources = _read_source(rel_path, path, max_bytes, user_name, zone, own, opened)
        problems.extend(own)
        # Taken before the read: a save during the read shows as changed next time.
        stats = _stats(opened[0]) if opened else None
        settled = read_at - self.RACY_NS
        if stats is not None and stats[1] < settled and stats[2] < settled:
            self.files[rel_path] = (stats, sources, own)
        else:
            self.files.pop(rel_path, None)
        return sources


def _stats(info: os.stat_result) -> tuple[int, ...]:
    """What tells a changed file from an unchanged one without reading it."""
    return (info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_dev)


# --- reading ---------------------------------------------------------------------------------


def _read_source(
    rel_path: str,
    path: str,
    max_bytes: int,
    user_name: str | None,
    zone: tzinfo,
    problems: list[Problem],
    opened: list[os.stat_result] | None = None,
) -> list[Source]:
    """Read one file's bytes once and parse them into its sources; none (with a problem) on failure.

    `opened`, when given, receives the stats of the file as opened (the very file read).
    """
    name = rel_path.rsplit("/", 1)[-1]
    extension = os.path.splitext(name)[1].lower()
    if max_bytes == MAX_BYTES and (
        extension == ".json" or (extension == ".txt" and named_like_whatsapp(name[:-4]))
    ):
        max_bytes = MAX_EXPORT_BYTES  # a chat export, unless the settings chose a limit of their own
    try:
        with open(path, "rb") as handle:
            info = os.fstat(handle.fileno())
            if opened is not None:
                opened.append(info)
            size = info.st_size
            if size > max_bytes:
                problems.append(
                    Problem(rel_path, None, f"file is larger than {max_bytes:,} bytes ({size:,}); skipped")
                )
                return []
            raw = handle.read()
    except OSError as error:
        problems.append(Problem(rel_path, None, f"cannot read file ({error.strerror or error}); skipped"))
        return []
    text = decode_text(rel_path, raw, problems)
    if text is None:
        return []
    stem = name[: -len(extension)]
    if extension == ".json":
        return _owned(_json_sources(rel_path, stem, text, raw, user_name, zone, problems), user_name)
    if extension == ".jsonl":
        chat = _chat_log_source(rel_path, stem, text, raw, user_name or DEFAULT_USER_NAME, zone, problems)
        return _owned([chat], user_name)
    if extension in CAPTION_EXTENSIONS:
        return _caption_sources(rel_path, stem, text, raw, problems)
    if extension == ".txt":
        named = named_like_whatsapp(stem)
        if looks_like_whatsapp(text, named):
            return _owned([_whatsapp_source(rel_path, stem, text, raw, problems)], user_name)
        if named and stem != "_chat":
            problems.append(
                Problem(
                    rel_path,
                    None,
                    "named like a WhatsApp export, but its lines are not WhatsApp's messages as kgvault "
                    "knows them; read as a note (its “I” is yours)",
                )
            )
    return [_note_source(rel_path, stem, SOURCE_KINDS[extension], text, raw, zone, problems, user_name)]


def _owned(sources: list[Source], user_name: str | None) -> list[Source]:
    """These sources with each conversation's `writer` the user, whose turns are the notes' owner's
    among its speakers'."""
    if not user_name:
        return sources
    return [replace(source, writer=user_name) if source.kind == "chat" else source for source in sources]


def _note_source(
    rel_path: str,
    stem: str,
    kind: SourceKind,
    text: str,
    raw: bytes,
    zone: tzinfo,
    problems: list[Problem],
    writer: str | None = None,
) -> Source:
    """A Markdown or text note; Markdown whose frontmatter lists `participants` is a transcript.

    `writer` is who "I" is when the note names no `author` (a transcript's "I" is each speaker).
    """
    meta: dict[str, Any] = {}
    body_line = 1
    frontmatter_lines = None
    yaml_text = ""
    if kind == "markdown":
        block = _find_frontmatter(rel_path, text, problems)
        if block is not None:
            yaml_text, closing_line = block
            meta = _parse_frontmatter(rel_path, yaml_text, closing_line, problems)
            frontmatter_lines = (1, closing_line)
            body_line = closing_line + 1
        for key, value in _page_properties(text, body_line).items():
            meta.setdefault(key, value)  # Logseq's `type:: person`, `alias:: Caddy server`
    title = _note_title(meta)
    reference_time = _reference_time(rel_path, stem, meta, yaml_text, zone, problems) or (
        # A person's note's date line is their birthday, not when it was written.
        _body_date(text, body_line) if kept_kind(meta, title or stem, rel_path) != "person" else None
    )
    names = participants(meta) if kind == "markdown" else {}
    turns, strangers = read_turns(text, body_line, names, session_time(meta, zone) or reference_time)
    if turns and reference_time is None:
        problems.append(
            Problem(
                rel_path,
                None,
                "a transcript with no date: its turns cannot be dated, so they give no episode; "
                "add `date: YYYY-MM-DD` to its frontmatter",
            )
        )
    for line, stranger in strangers:
        problems.append(
            Problem(
                rel_path,
                line,
                f"“{stranger}:” names no participant, so what they say here is no one's turn; "
                f"add {stranger} to `participants` if they speak here",
            )
        )
    return Source(
        id=rel_path,
        path=rel_path,
        kind="transcript" if names else kind,
        title=title or mask_secrets(stem)[0],
        meta=meta,
        reference_time=reference_time,
        text=text,
        body_line=body_line,
        sha256=hashlib.sha256(raw).hexdigest(),
        frontmatter_lines=frontmatter_lines,
        writer=None if names else writer,
        turns=turns,
    )


def _note_title(meta: dict[str, Any]) -> str | None:
    """The title the frontmatter gives: `title`, else a `name` (Dataview notes name their thing so:
    `name: Ghoulish Cravings` in `ghoulish-cravings.md`), when it is one line of text and no link."""
    title, name = meta.get("title"), meta.get("name")
    # A title names pages, links and entities everywhere: a secret in it is masked as in any text.
    if isinstance(title, str) and title.strip():
        return mask_secrets(title.strip())[0]
    if isinstance(name, str) and name.strip() and "\n" not in name.strip() and "[[" not in name:
        return mask_secrets(name.strip()[:200])[0]
    return None


# --- conversations ---------------------------------------------------------------------------


def _json_sources(
    rel_path: str,
    stem: str,
    text: str,
    raw: bytes,
    user_name: str | None,
    zone: tzinfo,
    problems: list[Problem],
) -> list[Source]:
    """A chat export (one source per conversation) or a draft file; any other JSON file is reported."""
    from kgvault.conversations.slack import METADATA_FILES as SLACK_METADATA_FILES

    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as error:
        line = getattr(error, "lineno", None)
        problems.append(Problem(rel_path, line, f"not valid JSON ({error}); skipped"))
        return []
    # Drafts first: their markers (`schema_version`, `insights`) are explicit, an export's are not.
    draft = _draft_source(rel_path, stem, text, raw, data)
    if draft is not None:
        return [draft]
    try:
        if _LONE_SURROGATE_ESCAPE.search(text):
            data = _without_lone_surrogates(data)  # "\ud83d" alone: half an emoji no text can hold
        conversations = _chat_export(data, rel_path, user_name, zone, problems)
    except (TypeError, ValueError, AttributeError, KeyError, IndexError, RecursionError) as error:
        problems.append(
            Problem(
                rel_path, None, f"JSON file looks like a chat export but cannot be read ({error!r}); skipped"
            )
        )
        return []
    if conversations is None:
        if rel_path.rsplit("/", 1)[-1] in SLACK_METADATA_FILES and isinstance(data, list | dict):
            return []  # a Slack export's list of users or channels: no conversation, nothing to say
        problems.append(
            Problem(
                rel_path,
                None,
                "JSON file is not a chat export (ChatGPT, Claude, Telegram, Messenger, Instagram, Discord, "
                "Slack) nor a draft file "
                "(kgvault.draft/1, Mnemon, mini-context-graph); skipped",
            )
        )
        return []
    sources = []
    for conversation in conversations:
        if conversation.pointer is None and not conversation.turns:
            # A whole file read as one chat with nothing anyone said (notices, a call): no page.
            problems.append(
                Problem(
                    rel_path,
                    None,
                    "read as a chat export, but no message in it is one kgvault reads; nothing from it",
                )
            )
            continue
        sources.append(_conversation_source(rel_path, stem, conversation))
    return sources


def _chat_export(
    data: object, rel_path: str, user_name: str | None, zone: tzinfo, problems: list[Problem]
) -> list[Conversation] | None:
    """The conversations of a chat export of any kind kgvault reads; None when the data is none.

    `user_name` is who the user is, when set: the user of an assistant's export (else `User`), and
    the owner of a Telegram export of all chats.
    """
    from kgvault.conversations.chatgpt import read_chatgpt
    from kgvault.conversations.claude import read_claude
    from kgvault.conversations.discord import read_discord
    from kgvault.conversations.messenger import read_messenger
    from kgvault.conversations.slack import read_slack
    from kgvault.conversations.telegram import read_telegram

    for reader in (read_chatgpt, read_claude):
        read = reader(data, path=rel_path, user_name=user_name or DEFAULT_USER_NAME, zone=zone)
        if read is not None:
            problems.extend(read[1])
            return read[0]
    telegram = read_telegram(data, path=rel_path, zone=zone, user_name=user_name)
    if telegram is not None:
        problems.extend(telegram[1])
        return telegram[0]
    for read_one in (read_messenger, read_discord):
        chat = read_one(data, path=rel_path, zone=zone)
        if chat is not None:
            return [chat]
    day = read_slack(data, path=rel_path, zone=zone)
    if day is not None:
        return [day] if day.turns else []  # a day of joins only: routine, nothing to say
    return None


_LONE_SURROGATE_ESCAPE = re.compile(
    r"\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F])|(?<![0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2}"
)
"""A surrogate's escape in JSON text with no partner: half an emoji (paired, it is a whole one)."""


def _without_lone_surrogates(value: object) -> object:
    """Parsed JSON with every string's lone surrogates replaced (U+FFFD), so any text can be written."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
        return value
    if isinstance(value, list):
        return [_without_lone_surrogates(item) for item in value]
    if isinstance(value, dict):
        return {key: _without_lone_surrogates(item) for key, item in value.items()}
    return value


def _draft_source(rel_path: str, stem: str, text: str, raw: bytes, data: object) -> Source | None:
    """A file of extraction drafts as one source; its items are read again, checked, at extraction."""
    from kgvault.drafts import read_draft_data

    found = read_draft_data(data)
    if found is None:
        return None
    return Source(
        id=rel_path,
        path=rel_path,
        kind="draft",
        title=found.draft.episode_name or stem,
        meta={},
        reference_time=found.draft.reference_time,
        text=text,
        body_line=1,
        sha256=hashlib.sha256(raw).hexdigest(),
    )


def read_imported_drafts(vault: Path) -> tuple[list[Source], list[Problem]]:
    """The drafts `kgvault import` kept in the vault, as sources of every build of it."""
    problems: list[Problem] = []
    sources = []
    for rel_path, path in sorted(imported_draft_files(vault).items()):
        stem = rel_path.rsplit("/", 1)[-1].removesuffix(".json")
        try:
            raw = Path(path).read_bytes()
        except OSError as error:
            problems.append(
                Problem(rel_path, None, f"cannot read imported draft ({error.strerror}); skipped")
            )
            continue
        text = decode_text(rel_path, raw, problems)
        if text is None:
            continue
        try:
            data = json.loads(text)
        except (ValueError, RecursionError) as error:
            problems.append(Problem(rel_path, None, f"imported draft is not valid JSON ({error}); skipped"))
            continue
        source = _draft_source(rel_path, stem, text, raw, data)
        if source is None:
            problems.append(
                Problem(rel_path, None, "imported file is not a draft of a known format; skipped")
            )
        else:
            sources.append(source)
    return sources, problems


def _conversation_source(rel_path: str, stem: str, conversation: Conversation) -> Source:
    """A conversation as a source: an export's conversation is `file#/pointer`, a chat log its file."""
    pointer = conversation.pointer
    started = conversation.started or next((t.time for t in conversation.turns if t.time), None)
    return Source(
        id=f"{rel_path}#{pointer}" if pointer is not None else rel_path,
        path=f"{rel_path}#{pointer}" if pointer is not None else rel_path,
        kind="chat",
        title=mask_secrets(conversation.title or (f"{stem} {pointer}" if pointer is not None else stem))[0],
        meta={},
        reference_time=started.date() if started else date_in_filename(stem),
        text=conversation.text,
        body_line=1,
        sha256=conversation.sha256,
        turns=conversation.turns,
        pointer=pointer,
    )


def _chat_log_source(
    rel_path: str, stem: str, text: str, raw: bytes, user_name: str, zone: tzinfo, problems: list[Problem]
) -> Source:
    """A JSON Lines chat log: one source, its sessions kept apart in its turns."""
    from kgvault.conversations.chat_log import read_chat_log

    conversation, found = read_chat_log(text, path=rel_path, user_name=user_name, zone=zone)
    problems.extend(found)
    if conversation.turns and all(turn.time is None for turn in conversation.turns):
        problems.append(
            Problem(
                rel_path,
                None,
                "a chat log with no time: its turns cannot be dated, so they give no episode; "
                'give each line a "timestamp" (ISO time or epoch seconds)',
            )
        )
    # The log is the source's text, so its digest is the file's, as for any note.
    return _conversation_source(rel_path, stem, replace(conversation, sha256=hashlib.sha256(raw).hexdigest()))


def _whatsapp_source(rel_path: str, stem: str, text: str, raw: bytes, problems: list[Problem]) -> Source:
    """A WhatsApp export: one source, a chat log on the file's own lines."""
    from kgvault.conversations.whatsapp import read_whatsapp

    folder = rel_path.rsplit("/", 2)[-2] if "/" in rel_path else ""
    conversation, found = read_whatsapp(text, path=rel_path, name=chat_name(stem, folder))
    problems.extend(found)
    # iOS names the file `_chat.txt` inside a folder named after the chat.
    title = folder if stem == "_chat" and folder else stem
    return _conversation_source(
        rel_path, title, replace(conversation, sha256=hashlib.sha256(raw).hexdigest())
    )


_PLAIN_CAPTION_NAMES = frozenset(
    {
        "transcript",
        "captions",
        "closed_caption",
        "meeting_saved_closed_caption",
        "audio_transcript",
        "subtitles",
    }
)
"""File names a recording app gives every meeting's captions: the folder is the meeting's name."""
_CAPTION_SUFFIX = re.compile(r"(?i)(?:\.(?:transcript|captions|cc|[a-z]{2}(?:[-_][a-z]{2,4})?))+$")
"""What a captions file's name ends with before `.vtt`: `.transcript`, `.cc`, a language (`.en-US`)."""
_ZOOM_FOLDER = re.compile(r"^\d{4}-\d{2}-\d{2} \d{2}\.\d{2}\.\d{2} (?P<topic>.+?)(?: \d{9,11})?$")
"""The folder Zoom keeps a local recording in: `2025-03-14 10.00.00 Design review 81234567890`."""


def _caption_sources(
    rel_path: str, stem: str, text: str, raw: bytes, problems: list[Problem]
) -> list[Source]:
    """A meeting's captions (`.vtt`, `.srt`) as a transcript on the file's own lines, dated by its path;
    none, with a problem, when they are no captions or name no speaker."""
    if not looks_like_captions(text):
        problems.append(
            Problem(
                rel_path,
                None,
                "no captions: no WEBVTT header or cue timing line (`00:00:01.000 --> …`); skipped",
            )
        )
        return []
    turns, unread = read_captions(text)
    problems.extend(Problem(rel_path, line, message) for line, message in unread)
    if not turns:
        problems.append(
            Problem(
                rel_path,
                None,
                "captions that name no speaker (subtitles, or a recording's words): whose words they are "
                "cannot be told, so they are not read; start each cue's words with `Name: `"
                if has_cues(text)
                else "captions with no cue: nothing to read",
            )
        )
        return []
    folder = rel_path.rsplit("/", 2)[-2] if "/" in rel_path else ""
    name = _CAPTION_SUFFIX.sub("", stem) or stem
    zoom = _ZOOM_FOLDER.match(folder)
    title = name
    if name.casefold() in _PLAIN_CAPTION_NAMES and any(c.isalpha() for c in folder):
        title = zoom["topic"] if zoom else folder
    when = date_in_path(rel_path, name) or (date_in_filename(folder) if folder else None)
    if when is None:
        problems.append(
            Problem(
                rel_path,
                None,
                "a transcript with no date: its turns cannot be dated, so they give no episode; "
                "put the meeting's date in the file's name (`2025-03-12 Weekly sync.vtt`)",
            )
        )
    return [
        Source(
            id=rel_path,
            path=rel_path,
            kind="transcript",
            title=mask_secrets(title)[0],
            meta={},
            reference_time=when,
            text=text,
            body_line=1,
            sha256=hashlib.sha256(raw).hexdigest(),
            turns=turns,
        )
    ]


def decode_text(rel_path: str, raw: bytes, problems: list[Problem]) -> str | None:
    """Decode bytes as text with LF line ends; None (with a problem) for a binary file.

    The byte-order mark decides the codec (UTF-32, UTF-16, else UTF-8, BOM dropped). The checker
    decodes with this function too, so it counts a source's lines exactly as the build did.
    """
    for bom, codec in _WIDE_BOMS:
        if raw.startswith(bom):
            try:
                return _normalize_newlines(raw.decode(codec))
            except UnicodeDecodeError as error:
                text = _normalize_newlines(raw.decode(codec, errors="replace"))
                line = _normalize_newlines(raw[: error.start].decode(codec, errors="replace")).count("\n") + 1
                problems.append(
                    Problem(
                        rel_path,
                        line,
                        f"file is not valid {codec.upper()} at line {line}; "
                        "read with the bad bytes replaced by U+FFFD",
                    )
                )
                return text
    if b"\0" in raw[:BINARY_SNIFF_BYTES]:
        problems.append(Problem(rel_path, None, "file looks binary (NUL byte in its first 8 KiB); skipped"))
        return None
    if raw.startswith(codecs.BOM_UTF8):
        raw = raw[len(codecs.BOM_UTF8) :]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = _line_at(raw, error.start)
        problems.append(
            Problem(
                rel_path,
                line,
                f"file is not valid UTF-8 (byte 0x{raw[error.start]:02x} at line {line}); "
                "read with the bad bytes replaced by U+FFFD",
            )
        )
        text = raw.decode("utf-8", errors="replace")
    return _normalize_newlines(text)


def _normalize_newlines(text: str) -> str:
    """Turn CRLF and lone CR into LF, and decomposed accents into composed ones (NFC)."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    # macOS and some clipboards write "é" as "e" and a combining accent (NFD): read as typed, names
    # match, and titles are what a search in Obsidian types. NFC joins no lines, so lines count the same.
    if not text.isascii() and not unicodedata.is_normalized("NFC", text):
        text = unicodedata.normalize("NFC", text)
    return text


def _line_at(raw: bytes, offset: int) -> int:
    """Return the 1-based line of a byte offset, counting LF, CRLF and lone CR as line ends."""
    before = raw[:offset]
    return before.count(b"\n") + before.count(b"\r") - before.count(b"\r\n") + 1


# --- frontmatter -----------------------------------------------------------------------------


class _FrontmatterLoader(_SafeLoader):
    """Safe YAML loader that keeps impossible dates (`2024-13-45`) as text instead of failing."""


def _timestamp_or_text(loader: _FrontmatterLoader, node: yaml.ScalarNode) -> object:
    try:
        return loader.construct_yaml_timestamp(node)
    except ValueError:
        return loader.construct_scalar(node)


_FrontmatterLoader.add_constructor("tag:yaml.org,2002:timestamp", _timestamp_or_text)


class _MetaTooComplex(Exception):
    """Frontmatter nested too deeply (or recursive through anchors), or too large to copy."""


def _find_frontmatter(rel_path: str, text: str, problems: list[Problem]) -> tuple[str, int] | None:
    """Return the YAML between the `---` delimiters and the closing line, if the text opens with a block."""
    opening = _FRONTMATTER_OPEN.match(text)
    if opening is None:
        return None
    closing = _FRONTMATTER_CLOSE.search(text, opening.end())
    if closing is None:
        problems.append(
            Problem(
                rel_path,
                1,
                "frontmatter is not closed (no `---` line after the opening one); "
                "read the whole file as text without properties",
            )
        )
        return None
    return text[opening.end() : closing.start()], text.count("\n", 0, closing.start()) + 1


def _parse_frontmatter(
    rel_path: str, yaml_text: str, closing_line: int, problems: list[Problem]
) -> dict[str, Any]:
    """Parse the YAML of a frontmatter block into plain Python; report and return {} when it is unusable."""

    def report(line: int, what: str) -> dict[str, Any]:
        problems.append(Problem(rel_path, line, f"{what}; read as text without properties"))
        return {}

    try:
        data = yaml.load(yaml_text, Loader=_FrontmatterLoader)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        # Marks count from 0 inside the block; the block starts on line 2 of the file.
        line = min(mark.line + 2, closing_line) if mark else 1
        reason = " ".join(part for part in (error.problem, error.context) if part) or "syntax error"
        return report(line, f"frontmatter is not valid YAML ({reason})")
    except Exception as error:  # e.g. RecursionError on absurd nesting
        return report(1, f"frontmatter could not be read as YAML ({type(error).__name__}: {error})")
    if data is None:
        return {}
    if not isinstance(data, dict):
        return report(1, f"frontmatter is {_describe(data)}, not a mapping of properties")
    try:
        return {_plain_key(key): _plain(value, 1, [_MAX_META_ITEMS]) for key, value in data.items()}
    except _MetaTooComplex:
        return report(1, "frontmatter is nested too deeply or too large")


def _describe(value: object) -> str:
    """Name the YAML type of a value for a message (`a list`, `a string`)."""
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    return f"a {type(value).__name__}"


def _plain_key(key: object) -> str:
    """Turn a YAML mapping key into a property name."""
    if key is None:
        return "null"
    if isinstance(key, bool):
        return "true" if key else "false"
    if isinstance(key, date):
        return key.isoformat()
    return str(key)


def _plain(value: object, depth: int, budget: list[int]) -> Any:
    """Copy a YAML value into plain JSON-like Python (dates kept), refusing recursive or huge values."""
    budget[0] -= 1
    if budget[0] < 0 or depth > _MAX_META_DEPTH:
        raise _MetaTooComplex
    if value is None or isinstance(value, str | int | float | date):
        return value
    if isinstance(value, dict):
        return {_plain_key(key): _plain(item, depth + 1, budget) for key, item in value.items()}
    if isinstance(value, list):
        return [_plain(item, depth + 1, budget) for item in value]
    if isinstance(value, set | frozenset):
        return sorted((_plain(item, depth + 1, budget) for item in value), key=str)
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    return str(value)


def _reference_time(
    rel_path: str, stem: str, meta: dict[str, Any], yaml_text: str, zone: tzinfo, problems: list[Problem]
) -> date | None:
    """Date the source: frontmatter `date`, else `created`, else a date in the file name; never the mtime."""
    for key in _DATE_KEYS:
        value = meta.get(key)
        if value is None or value == "":
            continue
        parsed = parse_date_value(value, zone)
        if parsed is not None:
            return parsed
        # As written in the note, not as YAML read it (`datetime.datetime(9999, …)`).
        written = _key_value(yaml_text, key) or repr(value)
        shown = written if len(written) <= 60 else written[:57] + "..."
        why = (
            "is out of range: in the time zone it falls outside years 1 to 9999"
            if isinstance(value, datetime) or _iso_time(value)
            # "<% tp.date.now() %>", "{{date}}": a template's, never filled in.
            else "holds a template's placeholder, not a date"
            if isinstance(value, str) and ("<%" in value or "{{" in value)
            else "is not a date"
        )
        problems.append(
            Problem(
                rel_path,
                _key_line(yaml_text, key),
                f"frontmatter `{key}` {why} ({shown}); not used to date the note",
            )
        )
    return date_in_path(rel_path, stem)


_PAGE_PROPERTY = re.compile(r"^(?P<key>type|alias|aliases|tags|title)::[ \t]*(?P<value>\S.*?)[ \t]*$", re.I)
_LISTED_PROPERTIES = frozenset({"alias", "aliases", "tags"})


def _page_properties(text: str, body_line: int) -> dict[str, Any]:
    """Logseq's page properties: `key:: value` lines opening the body, before anything else (only the
    keys frontmatter would give: `type`, `alias`, `tags`, `title`); comma lists become lists."""
    found: dict[str, Any] = {}
    lines = text.split("\n", body_line + 20)[body_line - 1 : body_line + 19]  # never the whole note
    if not any("::" in line for line in lines):
        return found
    for line in lines:
        if not line.strip() and not found:
            continue
        match = _PAGE_PROPERTY.match(line.strip())
        if match is None:
            if "::" in line and not line.lstrip().startswith("-"):
                continue  # another property of the block (`id:: …`, `icon:: …`)
            break
        key = match["key"].lower()
        value = match["value"]
        if key in _LISTED_PROPERTIES:
            parts = [part.strip().strip("[]#").strip() for part in value.split(",")]
            found["aliases" if key == "alias" else key] = [part for part in parts if part]
        else:
            found[key] = value.strip("[]")
    return found


_BODY_DATE = re.compile(
    r"(?im)^[ \t]*[-*]?[ \t]*(?:\*\*|__)?(?:date|created|created[ \t]+(?:at|on|time)|date[ \t]+created"
    r"|meeting[ \t]+date)(?:\*\*|__)?[ \t]*::?(?:\*\*|__)?[ \t]*(?P<value>\S.{0,60})$"
)
_BARE_DATE_LINE = re.compile(
    r"^[ \t]*(?:#{1,6}[ \t]+)?(?:(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?,?[ \t]+)?"
    r"(?P<value>[^\n]{6,30}?)[ \t]*$",
    re.I,
)
_BODY_DATE_LINES = 12
"""How far into the body a `Date:` line dates the note (Notion's and Bear's exports put it on top)."""
_FIRST_NOTES_YEAR = 2000
"""A date line before this year is no day a note was written (a birth date at the top of a person's note)."""


def _body_date(text: str, body_line: int) -> date | None:
    """A note with no date of its own dated by a `Date: March 25, 2025` or `Created: …` line (or a
    `date:: 2025-03-25` field) near the top of its body, with its year."""
    lines = text.split("\n", body_line + _BODY_DATE_LINES)[body_line - 1 : body_line - 1 + _BODY_DATE_LINES]
    found = _BODY_DATE.search("\n".join(lines))
    if found is None:
        # A line that is only a date, among the first three written ("Work notes" / "February 24, 2025");
        # not a birthday's, a deadline's or a kickoff's ("Due" / "June 30, 2025"), nor a day long before
        # anyone wrote notes on a computer (a birth date, "1958-07-12").
        written = [line for line in lines if line.strip()][:3]
        for index, line in enumerate(written):
            bare = _BARE_DATE_LINE.match(line)
            if bare is None:
                continue
            days = find_dates(bare["value"], None)
            labelled = (
                index > 0 and len(written[index - 1].split()) == 1 and not written[index - 1].startswith("#")
            )
            if days and days[0][0] == 0 and days[0][1] == len(bare["value"]):
                return days[0][2] if days[0][2].year >= _FIRST_NOTES_YEAR and not labelled else None
        return None
    days = find_dates(found["value"], None)
    return days[0][2] if days and days[0][0] <= 2 else None


def _iso_time(value: object) -> bool:
    """Whether the value is text naming a time the ISO way (`"9999-12-31T23:59:59-01:00"`)."""
    if not isinstance(value, str):
        return False
    try:
        datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        return False
    return True


def _key_value(yaml_text: str, key: str) -> str | None:
    """The value of a top-level frontmatter key as written on its line (without a `# comment`)."""
    pattern = re.compile(
        rf"""^["']?{re.escape(key)}["']?[ \t]*:[ \t]*(?P<value>[^\s#].*?)[ \t]*(?:[ \t]#.*)?$"""
    )
    for line in yaml_text.split("\n"):
        found = pattern.match(line)
        if found:
            return found["value"]
    return None


def _key_line(yaml_text: str, key: str) -> int:
    """Find the file line of a top-level frontmatter key (the block starts on line 2)."""
    pattern = re.compile(rf"""^["']?{re.escape(key)}["']?[ \t]*:""")
    for number, line in enumerate(yaml_text.split("\n"), start=2):
        if pattern.match(line):
            return number
    return 1
