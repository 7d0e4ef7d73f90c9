"""Discovery: find the source files under the notes root without reading them.

Kept apart from reading (`kgvault.sources`) so that a no-op rebuild, which only compares the files it
finds with the last build's, imports neither YAML nor the readers.
"""

from __future__ import annotations

import errno
import heapq
import json
import os
import stat
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from kgvault.layout import DRAFTS_DIR
from kgvault.records import Problem, SourceKind

if TYPE_CHECKING:
    from pathspec import GitIgnoreSpec

SOURCE_KINDS: dict[str, SourceKind] = {
    ".md": "markdown",
    ".markdown": "markdown",
    ".txt": "text",
    ".json": "chat",
    ".jsonl": "chat",
    ".vtt": "transcript",
    ".srt": "transcript",
}
"""Source kind by lowercase file extension; other files are not sources (a note may become a transcript)."""
IGNORE_FILE = ".kgvaultignore"
"""File at the notes root with gitignore-style patterns of paths to leave out."""
SKIPPED_FOLDERS = frozenset({"node_modules"})
"""Folder names never searched (hidden folders, starting with `.`, are skipped too)."""


class SourceError(Exception):
    """The notes root cannot be read at all (it is not an existing folder)."""


@dataclass(frozen=True, slots=True)
class Found:
    """The notes a build found before reading them: `find_sources`'s answer, and each file's stats
    when they were taken for the snapshot (`snapshot.fingerprint`)."""

    files: dict[str, str]
    problems: tuple[Problem, ...]
    stats: Mapping[str, Sequence[int] | None]


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
    from pathspec import GitIgnoreSpec  # only for notes that have an ignore file

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
