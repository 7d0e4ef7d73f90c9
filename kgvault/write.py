"""Write: the only stage that touches the vault — atomic, minimal, and never at the user's expense."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import stat
import zlib
from collections import defaultdict
from collections.abc import Callable, Collection, Container, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from kgvault.layout import (
    BACKUP_DIR,
    FOLDERS,
    MANIFEST,
    MARKER,
    ORPHANS,
    PROPERTY_TYPES,
    STATE_DIR,
    TOP_LEVEL_FILES,
)
from kgvault.layout import PENDING_MANIFEST as PENDING
from kgvault.records import Problem

_MARKER_LINE = MARKER + "\n"
_NOT_OURS = "a file kgvault did not write is in the way; left untouched, page not written"
GRAPH_SETTINGS = {
    "colorGroups": [
        {"query": "path:episodic", "color": {"a": 1, "rgb": 14701138}},
        {"query": "path:semantic", "color": {"a": 1, "rgb": 5431473}},
        {"query": "path:entities", "color": {"a": 1, "rgb": 11657298}},
        {"query": "path:sources", "color": {"a": 1, "rgb": 8421504}},
    ]
}


@dataclass(slots=True)
class WriteResult:
    """What the write stage did, path by path."""

    written: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    orphaned: list[str] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    manifest: dict[str, str] = field(default_factory=dict)
    """What the manifest records once written: each file's path and its generated part's digest."""

    @property
    def owned(self) -> list[str]:
        """The pages the manifest records once written: what `read_manifest` reads back (none in a
        dry run)."""
        return [path for path in self.manifest if is_page_path(path)]


def atomic_write(path: Path | str, data: bytes, *, new: bool = False) -> None:
    """Write a file so that readers (and a crash) see either the old or the new bytes, never a mix.

    `new`: the file was not there a moment ago, so it has no mode of its own to keep.
    """
    # Strings, not Paths: a clean build writes 14,000 pages, and pathlib costs as much as the calls.
    target = os.fspath(path)
    folder, name = os.path.split(target)
    folder = folder or os.curdir
    _make_folder(folder)
    # A fixed temporary name beside the target (hidden from Obsidian); one left by a crash is replaced.
    tmp = os.path.join(folder, f".{name}.kgvault-tmp")
    # O_BINARY: on Windows a descriptor opened without it turns every "\n" written into "\r\n".
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0) | _BINARY
    mode: int | None = None
    if not new:
        with contextlib.suppress(FileNotFoundError):
            mode = stat.S_IMODE(os.lstat(target).st_mode)  # a rewritten page keeps its mode
    try:
        try:
            fd = os.open(tmp, flags, 0o666)  # 0666 less the umask, as for any new file
        except FileNotFoundError:  # the folder went away since we made it
            _made_folders.discard(folder)
            _make_folder(folder)
            fd = os.open(tmp, flags, 0o666)
        try:
            if mode is not None:
                os.fchmod(fd, mode)
            _write_all(fd, data)
        finally:
            os.close(fd)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


_BINARY = getattr(os, "O_BINARY", 0)  # Windows only; 0 elsewhere


def _write_all(fd: int, data: bytes) -> None:
    """Write every byte, however many calls the kernel needs."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


_made_folders: set[str] = set()


def _make_folder(folder: str) -> None:
    """Create a folder once per process (thousands of pages share a few folders)."""
    if folder not in _made_folders:
        os.makedirs(folder, exist_ok=True)
        _made_folders.add(folder)


def sha256(text: str) -> str:
    """Hex digest of UTF-8 text."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _file_digest(text: str) -> str:
    """Hex digest of a file's text as read, bytes that are not UTF-8 included (surrogateescape)."""
    return hashlib.sha256(_encode(text)).hexdigest()


def split_page(path: str, text: str) -> tuple[str, str] | None:
    """Split a page into its generated part (through the marker line) and the user's part.

    Non-Markdown files are generated whole. Returns None when a Markdown page lost its marker.
    """
    if not path.endswith(".md"):
        return text, ""
    at = text.find("\n" + _MARKER_LINE)
    if at >= 0:
        end = at + 1 + len(_MARKER_LINE)
        return text[:end], text[end:]
    if text.startswith(_MARKER_LINE):
        return _MARKER_LINE, text[len(_MARKER_LINE) :]
    if text.endswith("\n" + MARKER):
        return text + "\n", ""
    return None


def _looks_generated(path: str, text: str) -> bool:
    """Whether a file no manifest lists may be one kgvault wrote: a page by its marker (`split_page`);
    `relations.jsonl` by its first line, one of our relations; `kgvault.base` by its view of episodes.
    A user's `relations.jsonl` saying "mine" is theirs, even for --force."""
    if path.endswith(".md"):
        return True
    if path.endswith(".jsonl"):
        first = text.split("\n", 1)[0]
        if not first:
            return not text.strip()
        try:
            line = json.loads(first)
        except ValueError:
            return False
        return isinstance(line, dict) and {"from", "relation", "to"} <= line.keys()
    if path.endswith(".base"):
        return 'file.inFolder("episodic")' in text
    return True


def read_manifest(vault: Path, name: str = MANIFEST) -> dict[str, str]:
    """Read a manifest's files; a missing or unreadable manifest owns nothing."""
    return {path: hashes[0] for path, hashes in _read_hashes(vault, name).items() if hashes}


def unreadable_manifest(vault: Path) -> str | None:
    """Why the vault's manifest cannot be read, when it is there but damaged (None when fine or absent)."""
    path = vault / MANIFEST
    if not os.path.lexists(path):
        return None
    try:
        data = json.loads(path.read_text("utf-8"))
    except OSError as error:
        return error.strerror or str(error)
    except ValueError as error:
        return f"not JSON: {error}"
    if not isinstance(data, dict) or not isinstance(data.get("files"), dict):
        return "no files in it"
    return None


def _read_hashes(vault: Path, name: str) -> dict[str, list[str]]:
    """Read every hash a manifest records per path (a pending manifest may record several)."""
    try:
        data = json.loads((vault / name).read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    files = data.get("files") if isinstance(data, dict) else None
    if not isinstance(files, dict):
        return {}
    return {
        str(k): [str(h) for h in (v if isinstance(v, list) else [v])]
        for k, v in files.items()
        if is_page_path(str(k))
    }


def is_page_path(path: str) -> bool:
    """Whether a manifest entry names a file kgvault may own: one of its page paths, nothing else.

    A manifest can be edited or shared through git: an entry like `../x` or `/etc/x` must never
    make a build delete or overwrite anything.
    """
    # Asked for every entry of every manifest read (15,000 a read at 2,000 notes): no split.
    folder, slash, name = path.partition("/")
    if not slash:
        return path in TOP_LEVEL_FILES
    # A page's name ends in .md, so it is never "", "." or "..".
    return folder in _PAGE_FOLDERS and name.endswith(".md") and "/" not in name and "\\" not in path


_PAGE_FOLDERS = frozenset(FOLDERS.values())


def manifest_text(files: Mapping[str, str]) -> str:
    """The manifest's deterministic bytes: relative paths and hashes only, sorted."""
    return (
        json.dumps({"version": 1, "files": dict(sorted(files.items()))}, indent=2, ensure_ascii=False) + "\n"
    )


def _read_text(path: Path | str) -> str | None:
    """Read a page; bytes that are not UTF-8 survive a rewrite unchanged (surrogateescape).

    None when it cannot be read, or is no regular file: a named pipe where a page should be
    would keep a plain `open` waiting forever, so it is opened without waiting and left alone.
    """
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | _BINARY)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        with open(fd, "rb", closefd=False) as handle:
            data = handle.read()
    except OSError:
        return None
    finally:
        os.close(fd)
    return data.decode("utf-8", errors="surrogateescape")


def _encode(text: str) -> bytes:
    return text.encode("utf-8", errors="surrogateescape")


class _PendingWrites:
    """The pages a build is about to write, in order; past 16 MiB of them, the rest wait compressed.

    Nothing is written until every page is decided (the pending manifest goes first), so on a
    clean build of 200,000 pages every page's text would wait in memory at once.
    """

    _PLAIN_BYTES = 16 << 20

    def __init__(self) -> None:
        self._pages: list[tuple[str, bytes, bool]] = []
        self._plain = 0

    def add(self, path: str, text: str) -> None:
        data = _encode(text)
        squeeze = self._plain + len(data) > self._PLAIN_BYTES
        if not squeeze:
            self._plain += len(data)
        self._pages.append((path, zlib.compress(data, 1) if squeeze else data, squeeze))

    def __bool__(self) -> bool:
        return bool(self._pages)

    def __iter__(self) -> Iterator[tuple[str, bytes]]:
        for path, data, squeezed in self._pages:
            yield path, zlib.decompress(data) if squeezed else data

    def paths(self) -> list[str]:
        return [path for path, _, _ in self._pages]


def _is_edited(path: str, text: str, recorded: Collection[str]) -> bool:
    parts = split_page(path, text)
    return parts is None or sha256(parts[0]) not in recorded


def _split_owned_page(path: str, text: str, recorded: Collection[str]) -> tuple[str, str] | None:
    """`split_page`, or for a page that lost its marker line only, the split a recorded hash proves.

    Everything after where the line stood is then the user's. A page edited otherwise too stays
    unsplit (None), as `split_page` leaves it.
    """
    parts = split_page(path, text)
    if parts is not None or not path.endswith(".md") or not recorded:
        return parts
    # A generated part ends with a blank line, then the marker line: try each blank line in turn,
    # hashing the text once (a digest is copied at each candidate, then given the marker line).
    marker = _MARKER_LINE.encode("utf-8")
    digest = hashlib.sha256()
    done = 0
    at = text.find("\n\n")
    while at >= 0:
        end = at + 2
        digest.update(text[done:end].encode("utf-8"))
        done = end
        trial = digest.copy()
        trial.update(marker)
        if trial.hexdigest() in recorded:
            return text[:end] + _MARKER_LINE, text[end:]
        at = text.find("\n\n", end - 1)
    return None


def find_orphans(vault: Path, page_paths: set[str], owned_pages: OwnedPages | None = None) -> list[str]:
    """The orphaned pages: stale owned pages the user wrote in (they will be kept and handed over to
    the user), and those an earlier build handed over that are still there and not made again.

    `owned_pages` is `read_owned(vault)` when the caller read it already (and wrote nothing since).
    """
    owned, _ = owned_pages or read_owned(vault)
    orphans = {
        path
        for path in read_manifest(vault, ORPHANS)
        if path not in page_paths and path not in owned and os.path.lexists(vault / path)
    }
    for path in set(owned) - page_paths:
        text = _read_text(vault / path)
        if text is not None and _user_wrote_in(path, text, owned[path]):
            orphans.add(path)
    return sorted(orphans)


OwnedPages = tuple[dict[str, tuple[str, ...]], dict[str, str]]
"""Every path kgvault owns with the hashes its generated part may have, and the manifest's hashes."""


class ManifestMemory:
    """The manifest a long-lived process (watch) last wrote, with the file's stats right after.

    Every write of kgvault's replaces the file (a new inode), so while it keeps those stats and no
    pending manifest lies beside it, it holds what this process wrote: it is not read again.
    """

    def __init__(self) -> None:
        self.stats: tuple[int, ...] | None = None
        self.files: dict[str, str] = {}

    def remember(self, vault: Path, files: dict[str, str]) -> None:
        self.stats, self.files = _manifest_stats(vault), files

    def recall(self, vault: Path) -> OwnedPages | None:
        """What `read_owned` would read, when the manifest is as this process left it."""
        if self.stats is None or os.path.lexists(vault / PENDING) or _manifest_stats(vault) != self.stats:
            return None
        return {path: (digest,) for path, digest in self.files.items()}, dict(self.files)


def _manifest_stats(vault: Path) -> tuple[int, ...] | None:
    """What tells the manifest from another without reading it; None when there is none."""
    try:
        info = os.stat(vault / MANIFEST)
    except OSError:
        return None
    return (info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino)


def read_owned(vault: Path, kept: ManifestMemory | None = None) -> OwnedPages:
    """Every path kgvault owns with the hashes its generated part may have (a killed build adds some),
    and the manifest's own hash of each path.

    Read once for both, and kept as tuples: at 200,000 pages a set per path costs 50 MB more.
    `kept` is the manifest this process last wrote, taken instead when the file is still that one.
    """
    recalled = kept.recall(vault) if kept is not None else None
    if recalled is not None:
        return recalled
    recorded = _read_hashes(vault, MANIFEST)
    manifest = {path: hashes[0] for path, hashes in recorded.items() if hashes}
    owned = {
        path: tuple(hashes) if len(hashes) == 1 else tuple(sorted(set(hashes)))
        for path, hashes in recorded.items()
    }
    del recorded
    for path, hashes in _read_hashes(vault, PENDING).items():
        owned[path] = tuple(sorted({*owned.get(path, ()), *hashes}))
    return owned, manifest


def _user_wrote_in(path: str, text: str, recorded: Collection[str]) -> bool:
    parts = split_page(path, text)
    return parts is None or sha256(parts[0]) not in recorded or bool(parts[1].strip())


def write_vault(
    vault: Path,
    pages: Mapping[str, str],
    *,
    force: bool = False,
    dry_run: bool = False,
    obsidian: bool = True,
    settings_dir: Path | None = None,
    graph_settings: bool = True,
    trusted: Container[str] = frozenset(),
    owned_pages: OwnedPages | None = None,
    manifest_memory: ManifestMemory | None = None,
    on_first_written: Callable[[], None] | None = None,
    undeclared: Container[str] = frozenset(),
) -> WriteResult:
    """Bring the vault to `pages`: write what changed, remove what is stale, keep every word the user wrote.

    `trusted` pages are known unchanged since the last build wrote them (by their file stats, which
    it may take when asked): when their generated part is the same again, they are not even read,
    and when `pages` knows that digest without rendering (`render.Pages.known_digest`), not even
    rendered. The pages `pages` rendered ahead (`render.Pages.fresh`) are written first, then
    `on_first_written` is called (at once when there are none).
    With `obsidian`, the `.obsidian/` folder (`settings_dir`, by default the vault's own) gets a
    `types.json` with our property types (created when absent, otherwise only missing keys are
    added, but not the `undeclared` ones) and, with `graph_settings`, a `graph.json` when absent.
    `owned_pages` is `read_owned(vault)` when the caller read it already, and nothing wrote the vault since;
    `manifest_memory` learns the manifest written (see `ManifestMemory`).
    """
    for folder in (STATE_DIR, BACKUP_DIR, ".obsidian"):
        if (vault / folder).is_symlink():
            raise UnsafeVaultError(f"{folder} in the vault is a symbolic link; kgvault writes through none")
    owned, old_manifest = owned_pages or read_owned(vault)
    run = _VaultWrite(vault, pages, owned, old_manifest, force=force, dry_run=dry_run, trusted=trusted)
    result = run.result
    # The pages rendered afresh (whose text may be new) go first when `pages` knows the others by
    # digest: what a watcher waits for is written before the rest of the vault is looked at.
    fresh = getattr(pages, "fresh", None)
    first: list[str] = sorted(fresh()) if fresh is not None else []
    if first:
        run.flush(run.decide_all(first, _look_at_folders(vault, set(first))))
    if on_first_written is not None:
        on_first_written()
    done = set(first)
    folders = _look_at_folders(vault, (set(pages) - done) | set(owned))
    writes = run.decide_all([path for path in sorted(pages) if path not in done], folders)
    run.find_stale(folders.linked)
    run.flush(writes)
    result.written.sort()
    if dry_run:
        return result
    run.remove_stale()
    run.write_manifest(manifest_memory)
    (vault / PENDING).unlink(missing_ok=True)
    _sweep_temporaries(vault)
    if obsidian:
        settings = settings_dir or vault / ".obsidian"
        found = _write_obsidian_settings(settings, graph_settings, undeclared)
        if settings != vault / ".obsidian":  # an enclosing vault's: named by its own path
            found = [replace(problem, path=str(settings / "types.json")) for problem in found]
        result.problems.extend(found)
    return result


class _VaultWrite:
    """One write of a vault: each page decided (unchanged, kept for the user, or to write), then written."""

    def __init__(
        self,
        vault: Path,
        pages: Mapping[str, str],
        owned: dict[str, tuple[str, ...]],
        old_manifest: dict[str, str],
        *,
        force: bool,
        dry_run: bool,
        trusted: Container[str],
    ) -> None:
        self.vault = vault
        self.root = str(vault)  # a string: pathlib costs more than the calls, per page
        self.pages = pages
        self.owned = owned
        self.old_manifest = old_manifest
        self.force = force
        self.dry_run = dry_run
        self.trusted = trusted
        self.known_digest: Callable[[str], str | None] | None = getattr(pages, "known_digest", None)
        self.result = WriteResult()
        self.new_manifest: dict[str, str] = {}
        self.read_as: dict[str, tuple[str, str, int]] = {}
        """Pages to rewrite as they were read: their digest, their generated part's, and how many
        bytes the user's part kept from them takes (see `_as_now`)."""
        self.orphans = read_manifest(vault, ORPHANS)
        self.new_orphans: dict[str, str] = {}
        self.created: set[str] = set()
        """Pages in folders that did not exist: written without asking what was there."""

    def decide_all(self, paths: list[str], folders: _Folders) -> _PendingWrites:
        """Decide each page in turn; what is to be written waits in the returned list."""
        writes = _PendingWrites()
        for path in paths:
            self.decide(path, writes, folders)
        return writes

    def decide(self, path: str, writes: _PendingWrites, folders: _Folders) -> None:
        """Whether the page is unchanged, kept for the user, or to be written (then added to `writes`)."""
        result, owned, old_manifest = self.result, self.owned, self.old_manifest
        if path in folders.linked:
            self._keep(path, "a symbolic link is on the way; left untouched, not written")
            return
        if self.known_digest is not None and path in owned:
            known = self.known_digest(path)
            # Trust is asked last: it may stat the file.
            if known is not None and old_manifest.get(path) == known and path in self.trusted:
                # Untouched since the last build wrote it, and made from the same plan: not even rendered.
                result.unchanged.append(path)
                self.new_manifest[path] = known
                return
        generated = self.pages[path]
        digest = sha256(generated)
        if path in owned and old_manifest.get(path) == digest and path in self.trusted:
            # Untouched since the last build wrote it (its stats say so), and we would write the same.
            result.unchanged.append(path)
            self.new_manifest[path] = digest
            return
        if path.rpartition("/")[0] in folders.missing:  # nothing there to read: not even an attempt
            writes.add(path, generated)
            self.new_manifest[path] = digest
            self.created.add(path)
            return
        target = os.path.join(self.root, path)
        existing = _read_text(target)
        if existing is None:
            if os.path.lexists(target):  # there, but not to be read (a folder, a dangling link, no access)
                self._keep(path, "cannot read the existing file; left untouched")
                return
            writes.add(path, generated)
            self.new_manifest[path] = digest
            return
        if path not in owned:
            if not self._reclaim(path, existing, generated, writes):
                self._take_back_or_keep(path, target, existing, generated, writes)
            return
        user_part = self._user_part(path, target, existing, generated)
        if user_part is None:
            return
        new_text = generated + user_part
        self.new_manifest[path] = digest
        if new_text == existing:
            result.unchanged.append(path)
        else:
            writes.add(path, new_text)
            old = split_page(path, existing)
            if old is not None and old[1] == user_part:
                self.read_as[path] = (_file_digest(existing), _file_digest(old[0]), len(_encode(user_part)))

    def _reclaim(self, path: str, existing: str, generated: str, writes: _PendingWrites) -> bool:
        """Take back a page orphaned by an earlier build whose source is back (a branch switched back,
        a note moved out and in again), when its generated part is still as that build left it."""
        recorded = self.orphans.get(path)
        parts = split_page(path, existing) if recorded is not None else None
        if parts is None or sha256(parts[0]) != recorded:
            return False
        self.new_manifest[path] = sha256(generated)
        new_text = generated + parts[1]
        if new_text == existing:
            self.result.unchanged.append(path)
        else:
            writes.add(path, new_text)
        return True

    def _take_back_or_keep(
        self, path: str, target: str, existing: str, generated: str, writes: _PendingWrites
    ) -> None:
        """A file no manifest says is ours: kept, unless it carries our marker and --force takes it back
        (a manifest lost or damaged), after a backup, keeping what is below the marker."""
        parts = split_page(path, existing) if _looks_generated(path, existing) else None
        if parts is None:  # no marker: nothing says kgvault ever wrote it
            self._keep(path, _NOT_OURS)
            return
        if not self.force:
            self._keep(
                path,
                f"{_NOT_OURS} (it looks like kgvault's own: if the vault's manifest was lost, --force "
                "takes it back after a backup)",
            )
            return
        self.new_manifest[path] = sha256(generated)
        if generated + parts[1] == existing:  # already what would be written: simply ours again
            self.result.unchanged.append(path)
            return
        self._back_up(path, target, existing)
        taken = f"taken back with --force; the old file is in {BACKUP_DIR}/"
        self.result.problems.append(Problem(path, None, taken))
        writes.add(path, generated + parts[1])

    def _back_up(self, path: str, target: str, existing: str) -> None:
        """Copy a file about to be overwritten to the backup folder: one copy per distinct content."""
        if not self.dry_run:
            backup = self.vault / BACKUP_DIR / f"{path}.{_file_digest(existing)[:12]}"
            backup.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(target, backup)

    def _user_part(self, path: str, target: str, existing: str, generated: str) -> str | None:
        """What the user wrote in an existing page of ours; None when its edited generated part is kept."""
        parts = split_page(path, existing)
        # A page that already holds what we would write is ours whatever its history says.
        if parts is not None and (parts[0] == generated or not _is_edited(path, existing, self.owned[path])):
            return parts[1]
        if not self.force:
            self._keep(
                path,
                "generated part was edited by hand; kept (--force overwrites, after a backup)"
                if parts is not None
                else f"the line `{MARKER}` is gone, so your notes cannot be told from the page; kept "
                "(put the line back above your notes, or --force rewrites the page after a backup)",
            )
            self.new_manifest[path] = self.old_manifest.get(path, min(self.owned[path]))
            return None
        # One backup per distinct content: a second --force never overwrites the first backup.
        self._back_up(path, target, existing)
        # Without a marker the user's words cannot be told apart, unless only the marker line went (a
        # recorded hash then says where it stood): otherwise all of the old text is kept below it.
        parts = parts or _split_owned_page(path, existing, self.owned[path])
        return parts[1] if parts else existing

    def _keep(self, path: str, why: str) -> None:
        """Leave the file as it is, and say why."""
        self.result.problems.append(Problem(path, None, why))
        self.result.kept.append(path)

    def find_stale(self, linked: set[str]) -> None:
        """Our pages no build makes any more: to remove, or kept (orphaned) where the user wrote in them."""
        result = self.result
        for path in sorted(set(self.owned) - set(self.pages)):
            stale = self.vault / path
            if path in linked:
                result.problems.append(Problem(path, None, "a symbolic link is on the way; not removed"))
                continue
            text = _read_text(stale) if stale.is_file() else None
            if text is None:
                continue
            if _user_wrote_in(path, text, self.owned[path]):
                result.orphaned.append(path)
                parts = split_page(path, text)
                if parts is not None:
                    self.new_orphans[path] = sha256(parts[0])
            else:
                result.removed.append(path)

    def flush(self, writes: _PendingWrites) -> None:
        """Record what is about to be written (`_record_pending`), then write it; report a failed page.

        A dry run only counts it as written.
        """
        result = self.result
        if self.dry_run:
            result.written.extend(writes.paths())
            return
        if writes or result.removed:
            self._record_pending()
        for path, page in writes:
            data = self._as_now(path, page) if path in self.read_as else page
            if data is None:
                continue
            try:
                atomic_write(os.path.join(self.root, path), data, new=path in self.created)
            except OSError as error:
                # E.g. a file of the user's where we need a folder: report it, keep going.
                result.problems.append(Problem(path, None, f"cannot write: {error.strerror or error}"))
                result.kept.append(path)
                self.new_manifest.pop(path, None)
            else:
                result.written.append(path)

    def _as_now(self, path: str, data: bytes) -> bytes | None:
        """The page to write, with what the user wrote below the marker since it was read (an editor
        saving while a rebuild runs); None, and the page kept, when they edited its generated part."""
        was, generated_was, user_bytes = self.read_as[path]
        now = _read_text(os.path.join(self.root, path))
        if now is None or _file_digest(now) == was:
            return data
        parts = split_page(path, now)
        if parts is not None and _file_digest(parts[0]) == generated_was:
            return data[: len(data) - user_bytes] + _encode(parts[1])
        self._keep(path, "edited while this build wrote the vault; left as it is (the next build updates it)")
        self.new_manifest[path] = self.old_manifest.get(path, min(self.owned[path]))
        return None

    def _record_pending(self) -> None:
        """Record every hash about to be written before writing, so a build killed half-way is finished
        by the next one.

        Every hash any earlier (possibly interrupted) build recorded stays known, so none of our own
        files is ever mistaken for a hand edit. The next build reads it with the manifest, so it holds
        only what the manifest does not say: a rebuild writing a few pages records a few lines.
        """
        owned, old_manifest = self.owned, self.old_manifest
        pending: dict[str, Collection[str]] = {
            path: hashes  # each path's hashes, sorted (`read_owned`)
            for path, hashes in owned.items()
            if len(hashes) != 1 or old_manifest.get(path) != hashes[0]
        }
        for path, digest in self.new_manifest.items():
            hashes = owned.get(path, ())
            if digest not in hashes:
                pending[path] = sorted({*hashes, digest})
        # Compact: read back by the next build only, and written before every rebuild's pages.
        recorded = {"version": 1, "files": dict(sorted(pending.items()))}
        atomic_write(self.vault / PENDING, json.dumps(recorded, separators=(",", ":")).encode("utf-8"))

    def remove_stale(self) -> None:
        """Remove the stale pages `find_stale` found; one that cannot go stays ours, and is reported."""
        result = self.result
        for path in list(result.removed):
            try:
                (self.vault / path).unlink(missing_ok=True)
            except OSError as error:
                result.problems.append(
                    Problem(path, None, f"cannot remove the stale page: {error.strerror or error}")
                )
                result.removed.remove(path)
                self.new_manifest[path] = min(self.owned[path])
                continue
            _remove_empty_parents(self.vault, (self.vault / path).parent)

    def write_manifest(self, memory: ManifestMemory | None) -> None:
        """Write the manifest of what the vault now holds (unless it already says so)."""
        new_manifest, result = self.new_manifest, self.result
        manifest_bytes = manifest_text(new_manifest).encode("utf-8")
        result.manifest = new_manifest
        manifest_path = self.vault / MANIFEST
        if not manifest_path.is_file() or manifest_path.read_bytes() != manifest_bytes:
            atomic_write(manifest_path, manifest_bytes)
        if memory is not None:  # what `read_manifest` would read back
            memory.remember(self.vault, {path: new_manifest[path] for path in result.owned})
        self._write_orphans()

    def _write_orphans(self) -> None:
        """Record the orphaned pages: the new ones, and the old ones still there and not taken back."""
        orphans = {
            path: digest
            for path, digest in self.orphans.items()
            if path not in self.new_manifest and os.path.lexists(os.path.join(self.root, path))
        }
        orphans.update(self.new_orphans)
        if orphans == self.orphans:
            return
        if orphans:
            atomic_write(self.vault / ORPHANS, manifest_text(orphans).encode("utf-8"))
        else:
            (self.vault / ORPHANS).unlink(missing_ok=True)


def _sweep_temporaries(vault: Path) -> None:
    """Remove what a killed build left half-written: only our own fixed temporary names, never a page."""
    suffix = ".kgvault-tmp"  # atomic_write's temporary: `.{name}.kgvault-tmp`
    for folder in (vault, vault / STATE_DIR, *(vault / f for f in FOLDERS.values())):
        if folder.is_symlink():
            continue
        try:
            with os.scandir(folder) as entries:  # a listing, not a pattern match per page
                leftovers = [
                    entry.path
                    for entry in entries
                    if entry.name.endswith(suffix)
                    and entry.name.startswith(".")
                    and len(entry.name) > len(suffix)
                    and entry.is_file(follow_symlinks=False)
                ]
        except OSError:  # no such folder (yet), or not one
            continue
        for leftover in leftovers:
            Path(leftover).unlink(missing_ok=True)


class UnsafeVaultError(OSError):
    """The vault is laid out so that writing would reach outside it."""


@dataclass(frozen=True, slots=True)
class _Folders:
    """What one listing per folder says about the pages to write in it."""

    linked: set[str]
    """Paths that are, or lie in a folder that is, a symbolic link: writing there leaves the vault."""
    missing: frozenset[str]
    """Folders that did not exist: no page in them has anything to read or keep (a clean build's)."""


def _look_at_folders(vault: Path, paths: set[str]) -> _Folders:
    """List each folder of the pages once: the symbolic links on the way, and the folders not there yet."""
    by_folder: dict[str, list[str]] = defaultdict(list)
    for path in paths:
        by_folder[path.rpartition("/")[0]].append(path)
    linked = set()
    missing = set()
    root = str(vault)  # os.path on strings: pathlib costs more than the check itself, 15,000 times
    for folder, inside in by_folder.items():
        where = os.path.join(root, folder) if folder else root
        if folder and os.path.islink(where):
            linked.update(inside)
            continue
        if len(inside) > _ASK_EACH_UNDER:
            listed = _holds_no_link(where)
        else:  # a few pages (a rebuild's first) in a folder of thousands: asking each costs less
            listed = False if os.path.lexists(where) else None
        if listed is None:
            missing.add(folder)
        elif not listed:
            # A folder with a link in it (or one we cannot list): each page is asked about itself.
            linked.update(path for path in inside if os.path.islink(os.path.join(root, path)))
    return _Folders(linked, frozenset(missing))


_ASK_EACH_UNDER = 32
"""Pages of one folder up to which each page is asked whether it is a link, instead of a listing."""


def _holds_no_link(folder: str) -> bool | None:
    """Whether the folder lists no symbolic link (one listing, not a call per page); None: it is missing."""
    try:
        with os.scandir(folder) as entries:
            return not any(entry.is_symlink() for entry in entries)
    except FileNotFoundError:
        return None
    except OSError:  # not listable (permissions, too many open files, not a folder): fail closed
        return False


def _remove_empty_parents(vault: Path, folder: Path) -> None:
    """Remove folders emptied by deletions, up to (not including) the vault root."""
    root = vault.resolve()
    while folder.resolve() != root and root in folder.resolve().parents:
        try:
            folder.rmdir()
        except OSError:
            return
        _made_folders.discard(str(folder))
        folder = folder.parent


def _write_obsidian_settings(
    settings: Path, graph_settings: bool, undeclared: Container[str] = frozenset()
) -> list[Problem]:
    """Create `types.json` (and `graph.json`) when absent; afterwards only add missing property types.

    A property declared with another type than ours is reported, and left as it is.
    """
    problems: list[Problem] = []
    types_path = settings / "types.json"
    ours = {key: kind for key, kind in sorted(PROPERTY_TYPES.items()) if key not in undeclared}
    if not types_path.exists():
        atomic_write(types_path, _json_bytes({"types": ours}))
    else:
        try:
            data = json.loads(types_path.read_text("utf-8"))
            types = data["types"]
            if not isinstance(types, dict):
                raise TypeError("types is not an object")
        except (OSError, ValueError, KeyError, TypeError) as error:
            problems.append(Problem(".obsidian/types.json", None, f"not updated, unreadable: {error}"))
        else:
            missing = {k: v for k, v in ours.items() if k not in types}
            problems.extend(
                Problem(
                    ".obsidian/types.json",
                    None,
                    f"declares the property `{key}` as {types[key]}, while kgvault's pages write it as "
                    f"{kind}: Obsidian may show their `{key}` as mismatched (left as you declared it)",
                )
                for key, kind in ours.items()
                if key in types and types[key] != kind
            )
            if missing:
                types.update(sorted(missing.items()))
                atomic_write(types_path, _json_bytes(data))
    graph_path = settings / "graph.json"
    if graph_settings and not graph_path.exists():
        atomic_write(graph_path, _json_bytes(GRAPH_SETTINGS))
    return problems


def _json_bytes(data: object) -> bytes:
    return (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
