"""Sources: find the input files under the notes root and read each into a `Source`.

This stage only reads. It never modifies, moves or touches a source file, and it
never raises on bad input: whatever is wrong with a file becomes a `Problem`.
"""

from __future__ import annotations

import codecs
import errno
import hashlib
import heapq
import json
import os
import re
import stat
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, date, tzinfo
from pathlib import Path
from typing import Any

import yaml
from pathspec import GitIgnoreSpec

from kgvault.conversations import Conversation
from kgvault.conversations.transcript import participants, read_turns, session_time
from kgvault.dates import date_in_filename, parse_date_value
from kgvault.layout import DRAFTS_DIR
from kgvault.records import Problem, Source, SourceKind
from kgvault.secrets import mask_secrets

try:
    from yaml import CSafeLoader as _SafeLoader
except ImportError:  # PyYAML built without libyaml: slower, same results.
    from yaml import SafeLoader as _SafeLoader  # type: ignore[assignment]

SOURCE_KINDS: dict[str, SourceKind] = {
    ".md": "markdown",
    ".markdown": "markdown",
    ".txt": "text",
    ".json": "chat",
    ".jsonl": "chat",
}
"""Source kind by lowercase file extension; other files are not sources (a note may become a transcript)."""
IGNORE_FILE = ".kgvaultignore"
"""File at the notes root with gitignore-style patterns of paths to leave out."""
SKIPPED_FOLDERS = frozenset({"node_modules"})
"""Folder names never searched (hidden folders, starting with `.`, are skipped too)."""
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


class SourceError(Exception):
    """The notes root cannot be read at all (it is not an existing folder)."""


def read_sources(
    root: Path,
    *,
    exclude: Sequence[Path] = (),
    max_bytes: int = MAX_BYTES,
    user_name: str | None = None,
    zone: tzinfo = UTC,
    kept: SourceMemory | None = None,
) -> tuple[list[Source], list[Problem]]:
    """Find and read every source under the notes root, sorted by path; report problems, never raise on input.

    `exclude` lists folders to leave out (the output vault when it lies inside the notes root);
    folders that are not strictly inside the root are disregarded.
    Symbolic links are followed only when their target lies inside the notes root; a folder
    reached through a link is read once, under its real path when it has one. Each conversation
    of a chat export is a source of its own; `user_name` is its user's name (`User` when None) and
    the "I" of a note that names no `author` (nobody when None). Zoned and epoch times are read on
    `zone`'s clocks (`dates.wall_clock`). `kept` is what a long-lived caller (watch) read last time:
    a file unchanged since is not read again.
    """
    found, problems = find_sources(root, exclude=exclude)
    if kept is None:
        sources = [
            source
            for rel_path in sorted(found)
            for source in _read_source(rel_path, found[rel_path], max_bytes, user_name, zone, problems)
        ]
    else:
        kept.start((max_bytes, user_name, zone), found)
        sources = [
            source
            for rel_path in sorted(found)
            for source in kept.read(rel_path, found[rel_path], max_bytes, user_name, zone, problems)
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
    ) -> list[Source]:
        """The file's sources: as kept when its stats are unchanged, else read (see `_read_source`)."""
        entry = self.files.get(rel_path)
        if entry is not None:
            try:
                unchanged = _stats(os.stat(path)) == entry[0]
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


# --- discovery -------------------------------------------------------------------------------


def find_sources(root: Path, *, exclude: Sequence[Path] = ()) -> tuple[dict[str, str], list[Problem]]:
    """Find the source files under the notes root without reading them: relative path → path to open."""
    root = Path(root)
    if not root.is_dir():
        raise SourceError(f"notes folder {str(root)!r} does not exist or is not a folder")
    problems: list[Problem] = []
    root_real = os.path.realpath(root)
    finder = _Finder(
        root_real=root_real,
        excluded=_folders_inside(root_real, exclude),
        ignore=_load_ignore_file(root, problems),
        problems=problems,
    )
    return finder.find(str(root)), problems


TEMPLATE_SETTINGS = (
    (".obsidian/templates.json", "folder"),
    (".obsidian/plugins/templater-obsidian/data.json", "templates_folder"),
)
"""Where Obsidian's Templates core plugin and the Templater plugin keep the templates folder's name."""


def template_folders(root: Path) -> list[str]:
    """The templates folders the notes' Obsidian settings name (placeholders, not knowledge), when they
    exist inside the notes, as notes-relative paths ending in `/`."""
    folders: list[str] = []
    for settings, key in TEMPLATE_SETTINGS:
        try:
            data = json.loads((root / settings).read_text("utf-8"))
        except (OSError, ValueError):
            continue
        name = data.get(key) if isinstance(data, dict) else None
        if not isinstance(name, str) or not name.strip("/ "):
            continue
        folder = root / name.strip("/ ")
        relative = f"{name.strip('/ ')}/"
        if (
            folder.is_dir()
            and relative not in folders
            and _is_within(os.path.realpath(folder), os.path.realpath(root))
        ):
            folders.append(relative)
    return folders


def _source_kind(name: str) -> SourceKind | None:
    """Return the source kind a file name implies, or None when it is not a source."""
    return SOURCE_KINDS.get(os.path.splitext(name)[1].lower())


def _is_within(path: str, folder: str) -> bool:
    """Tell whether a resolved path is `folder` itself or lies inside it."""
    return path == folder or path.startswith(folder if folder.endswith(os.sep) else folder + os.sep)


def _folders_inside(root_real: str, folders: Sequence[Path]) -> tuple[str, ...]:
    """Resolve the excluded folders and keep those strictly inside the root."""
    resolved = (os.path.realpath(folder) for folder in folders)
    return tuple(folder for folder in resolved if folder != root_real and _is_within(folder, root_real))


def is_ignored(root: Path, rel_path: str) -> bool:
    """Whether the notes' `.kgvaultignore` leaves this notes-relative path out of every build."""
    spec = _load_ignore_file(root, [])
    return spec is not None and spec.match_file(rel_path)


def _load_ignore_file(root: Path, problems: list[Problem]) -> GitIgnoreSpec | None:
    """Compile `.kgvaultignore`; a bad pattern is reported and left out, never fatal."""
    path = root / IGNORE_FILE
    if not path.is_file():
        return None
    try:
        lines = path.read_bytes().decode("utf-8", errors="replace").splitlines()
    except OSError as error:
        problems.append(Problem(IGNORE_FILE, None, f"cannot read ignore file ({error.strerror}); ignored"))
        return None
    try:
        return GitIgnoreSpec.from_lines(lines)
    except Exception:  # a bad pattern: find the bad lines below, report each
        good_lines = []
        for number, line in enumerate(lines, start=1):
            try:
                GitIgnoreSpec.from_lines([line])
            except Exception as error:
                problems.append(
                    Problem(IGNORE_FILE, number, f"not a valid ignore pattern ({error}); pattern left out")
                )
            else:
                good_lines.append(line)
        return GitIgnoreSpec.from_lines(good_lines)


@dataclass(slots=True)
class _Finder:
    """Walk the notes root once and collect source files by relative path."""

    root_real: str
    excluded: tuple[str, ...]
    ignore: GitIgnoreSpec | None
    problems: list[Problem]
    files: dict[str, str] = field(default_factory=dict)
    """Posix path relative to the root → path to open."""
    visited: set[str] = field(default_factory=set)
    """Resolved folders already searched, so no folder is read twice and link loops end."""
    linked_folders: list[tuple[str, str, str, str]] = field(default_factory=list)
    """Heap of links to folders: (relative path, path, resolved target, resolved parent)."""

    def find(self, root: str) -> dict[str, str]:
        """Search the real folders first, then linked ones, so a real path always wins."""
        self.visited.add(self.root_real)
        self._walk(root, "", self.root_real)
        while self.linked_folders:
            rel_path, path, target, parent = heapq.heappop(self.linked_folders)
            if target in self.visited:
                if _is_within(parent, target):
                    self._problem(
                        rel_path, "symbolic link loop: it points to a folder that contains it; skipped"
                    )
                else:
                    already = Path(os.path.relpath(target, self.root_real)).as_posix()
                    self._problem(
                        rel_path,
                        f"symbolic link to folder {already!r}, which is already read; skipped "
                        "so its notes are not read twice",
                    )
                continue
            self.visited.add(target)
            self._walk(path, rel_path, target)
        return self.files

    def _problem(self, rel_path: str, message: str) -> None:
        self.problems.append(Problem(rel_path, None, message))

    def _ignored(self, rel_path: str) -> bool:
        return self.ignore is not None and self.ignore.match_file(rel_path)

    def _excluded(self, resolved: str) -> bool:
        return any(_is_within(resolved, folder) for folder in self.excluded)

    def _walk(self, top: str, top_rel: str, top_real: str) -> None:
        """Search one folder tree without following links (they are queued instead)."""
        stack = [(top, top_rel, top_real)]
        while stack:
            path, rel_path, real = stack.pop()
            try:
                with os.scandir(path) as listing:
                    entries = list(listing)
            except OSError as error:
                self._problem(rel_path or ".", f"cannot list folder ({error.strerror}); skipped")
                continue
            if rel_path and _is_kgvault_vault(path, entries):
                self._problem(rel_path, "folder is a kgvault vault (it has .kgvault/manifest.json); skipped")
                continue
            for entry in entries:
                name = entry.name
                if name.startswith("."):
                    continue
                child_rel = f"{rel_path}/{name}" if rel_path else name
                if not name.isascii() and not _is_utf8(name):
                    shown = os.fsencode(child_rel).decode("utf-8", errors="replace")
                    self._problem(shown, "file name is not valid UTF-8; skipped (rename it to include it)")
                    continue
                try:
                    if entry.is_symlink():
                        self._visit_link(entry.path, child_rel, real)
                    elif entry.is_dir(follow_symlinks=False):
                        child_real = os.path.join(real, name)
                        if not (
                            name in SKIPPED_FOLDERS
                            or self._ignored(child_rel + "/")
                            or child_real in self.visited
                            or self._excluded(child_real)
                        ):
                            self.visited.add(child_real)
                            stack.append((entry.path, child_rel, child_real))
                    elif (
                        entry.is_file(follow_symlinks=False)
                        and _source_kind(name)
                        and not self._ignored(child_rel)
                    ):
                        self._take(child_rel, entry.path)
                except OSError as error:
                    self._problem(child_rel, f"cannot inspect ({error.strerror}); skipped")

    def _visit_link(self, path: str, rel_path: str, parent_real: str) -> None:
        """Follow a symbolic link only when it leads inside the notes root."""
        name = os.path.basename(path)
        try:
            mode = os.stat(path).st_mode
        except OSError as error:
            if self._ignored(rel_path) or self._ignored(rel_path + "/"):
                return
            if error.errno == errno.ELOOP:
                self._problem(rel_path, "symbolic link loop: the link never reaches a file; skipped")
            elif error.errno == errno.ENOENT:
                self._problem(rel_path, "broken symbolic link: its target does not exist; skipped")
            else:
                self._problem(rel_path, f"cannot follow symbolic link ({error.strerror}); skipped")
            return
        if stat.S_ISDIR(mode):
            if name in SKIPPED_FOLDERS or self._ignored(rel_path + "/"):
                return
            target = self._link_target(rel_path, path, "folder")
            if target is not None:
                heapq.heappush(self.linked_folders, (rel_path, path, target, parent_real))
        elif (
            stat.S_ISREG(mode)
            and _source_kind(name)
            and not self._ignored(rel_path)
            and self._link_target(rel_path, path, "file") is not None
        ):
            self._take(rel_path, path)

    def _take(self, rel_path: str, path: str) -> None:
        """Take a source file, unless its path could not be written into the vault without breaking it."""
        if "[[" in rel_path or "]]" in rel_path:
            # Its summary names it in properties and on pages, where `[[x]]` would be a broken wikilink.
            self._problem(
                rel_path,
                "path holds `[[` or `]]`, which Obsidian reads as a wikilink; skipped "
                "(rename it to include it)",
            )
            return
        self.files[rel_path] = path

    def _link_target(self, rel_path: str, path: str, kind: str) -> str | None:
        """Resolve a link worth following: inside the notes root and not excluded, else None."""
        target = os.path.realpath(path)
        if not _is_within(target, self.root_real):
            self._problem(
                rel_path,
                f"symbolic link to a {kind} outside the notes root; skipped "
                "(only links that stay inside the notes root are followed)",
            )
            return None
        return None if self._excluded(target) else target


def _is_kgvault_vault(path: str, entries: list[os.DirEntry[str]]) -> bool:
    """Tell whether a folder is a vault kgvault built (it has `.kgvault/manifest.json`)."""
    return any(entry.name == ".kgvault" for entry in entries) and os.path.isfile(
        os.path.join(path, ".kgvault", "manifest.json")
    )


def _is_utf8(name: str) -> bool:
    """Tell whether a file name decoded from the file system is proper Unicode (no stray bytes)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


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
    if extension == ".json" and max_bytes == MAX_BYTES:
        max_bytes = MAX_EXPORT_BYTES  # unless the settings chose a limit of their own
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
        return _json_sources(rel_path, stem, text, raw, user_name or DEFAULT_USER_NAME, zone, problems)
    if extension == ".jsonl":
        return [_chat_log_source(rel_path, stem, text, raw, user_name or DEFAULT_USER_NAME, zone, problems)]
    return [_note_source(rel_path, stem, SOURCE_KINDS[extension], text, raw, zone, problems, user_name)]


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
    title = _note_title(meta)
    reference_time = _reference_time(rel_path, stem, meta, yaml_text, zone, problems)
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
    rel_path: str, stem: str, text: str, raw: bytes, user_name: str, zone: tzinfo, problems: list[Problem]
) -> list[Source]:
    """A chat export (one source per conversation) or a draft file; any other JSON file is reported."""
    from kgvault.conversations.chatgpt import read_chatgpt
    from kgvault.conversations.claude import read_claude

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
    for reader in (read_chatgpt, read_claude):
        read = reader(data, path=rel_path, user_name=user_name, zone=zone)
        if read is not None:
            conversations, found = read
            problems.extend(found)
            return [_conversation_source(rel_path, stem, c) for c in conversations]
    problems.append(
        Problem(
            rel_path,
            None,
            "JSON file is not a chat export (ChatGPT, Claude) nor a draft file "
            "(kgvault.draft/1, Mnemon, mini-context-graph); skipped",
        )
    )
    return []


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


def imported_draft_files(vault: Path) -> dict[str, str]:
    """The draft files kept in `VAULT/.kgvault/drafts/`: vault-relative path → path to open."""
    folder = vault / DRAFTS_DIR
    if folder.is_symlink() or not folder.is_dir():
        return {}
    return {
        f"{DRAFTS_DIR}/{entry.name}": entry.path
        for entry in os.scandir(folder)
        if entry.name.endswith(".json")
        and not entry.name.startswith(".")
        and entry.is_file(follow_symlinks=False)
    }


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
    """Turn CRLF and lone CR into LF."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
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
        shown = repr(value) if len(repr(value)) <= 60 else repr(value)[:57] + "..."
        problems.append(
            Problem(
                rel_path,
                _key_line(yaml_text, key),
                f"frontmatter `{key}` is not a date ({shown}); not used to date the note",
            )
        )
    return date_in_filename(stem)


def _key_line(yaml_text: str, key: str) -> int:
    """Find the file line of a top-level frontmatter key (the block starts on line 2)."""
    pattern = re.compile(rf"""^["']?{re.escape(key)}["']?[ \t]*:""")
    for number, line in enumerate(yaml_text.split("\n"), start=2):
        if pattern.match(line):
            return number
    return 1
