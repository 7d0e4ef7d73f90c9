"""The no-op rebuild: when no input, setting, template or vault file changed since the last build, skip it.

After each full build we record the file stats (size, mtime, ctime, inode) of everything that
can change its output — every source, the settings, corrections and ignore files, kgvault's own
code and templates — and of every file it left in the vault. The next build compares stats only:
it reads no note and renders nothing when all of them are as recorded. Anything else, even a
touched file with the same bytes, runs the full build, which then finds little to write.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
from collections.abc import Collection, Container, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kgvault.config import Settings
from kgvault.discover import TEMPLATE_SETTINGS, find_sources, imported_draft_files
from kgvault.layout import CORRECTIONS_FILE, DRAFTS_DIR, MANIFEST, STATE_DIR, packaged_templates
from kgvault.records import Problem
from kgvault.write import is_page_path

SNAPSHOT = f"{STATE_DIR}/state/snapshot.json"
"""Machine-local: stats change with every checkout, so the snapshot is never shared or compared."""
_FORMAT = 2
RACY_SECONDS = 2.0
"""A file saved this close to the fingerprint may be saved again within the clock's resolution unseen."""
_PACKAGE = Path(__file__).resolve().parent
_LIBRARIES = ("jinja2", "markdown-it-py", "pydantic", "python-frontmatter", "pyyaml", "rapidfuzz", "pathspec")


def fingerprint(
    settings: Settings, found: Mapping[str, str] | None = None, skipped: Sequence[Problem] = ()
) -> dict[str, Any]:
    """Everything outside the vault a build's output depends on, as stats; `found` are the notes
    `find_sources` found, when already asked, and `skipped` what it reported passing over."""
    notes = settings.notes
    if found is None:
        found, skipped = find_sources(notes, exclude=[settings.vault])
    inputs = [
        notes / "kgvault.toml",
        notes / CORRECTIONS_FILE,
        notes / ".kgvaultignore",
        *(notes / settings_file for settings_file, _ in TEMPLATE_SETTINGS),  # which folder holds templates
    ]
    code = [*_PACKAGE.rglob("*.py"), *_templates(settings.templates)]
    return {
        "libraries": _library_versions(),
        "settings": {
            key: str(value)
            for key, value in _settings_fields(settings).items()
            # How hard a model is tried does not change what a build makes; which model does.
            if key
            not in (
                "force",
                "dry_run",
                "jobs",
                "timeout",
                "retries",
                "backoff",
                "max_cost",
                "refresh",
                "strict",
            )
        },
        "sources": {rel: _stat(path) for rel, path in sorted(found.items())},
        # A path passed over, and why, is in the report: another one is another build.
        "skipped": sorted([problem.path, problem.message] for problem in skipped),
        # Drafts `kgvault import` kept: the folder's own stats change when one is added or removed.
        "drafts": {
            rel: _stat(path)
            for rel, path in sorted(
                {DRAFTS_DIR: str(settings.vault / DRAFTS_DIR), **imported_draft_files(settings.vault)}.items()
            )
        },
        "inputs": {str(path): _stat(path) for path in inputs},
        "code": {str(path): _stat(path) for path in sorted(code)},
    }


def code_key(taken: Mapping[str, Any]) -> str:
    """What names kgvault's code, templates and libraries as `fingerprint` found them."""
    code = json.dumps([taken["code"], taken["libraries"]], sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(code.encode("utf-8", "surrogateescape")).hexdigest()


class VaultFiles(Container[str]):
    """The vault files the last build recorded, each compared with the disk when first asked about.

    `rel in files` says whether a file's stats are as the last build left them (its bytes are what
    it wrote). A watch rebuild asks first about the few pages it writes, and about the rest only
    once those are written; a no-op check asks about every file, once.
    """

    def __init__(self, vault: Path | str, recorded: Mapping[str, list[int] | None]) -> None:
        # Joined as strings: a Path per file costs as much again as its stat (14,000 pages at 2,000 notes).
        self._base = os.path.join(vault, "")
        self._recorded = recorded
        self._now: dict[str, list[int] | None] = {}
        self.seen: dict[str, list[int] | None] = {}
        """The stats of the untouched files as found, for `remember` (a build rewrites few of them)."""

    def __contains__(self, rel: object) -> bool:
        if not isinstance(rel, str):
            return False
        recorded = self._recorded.get(rel)
        if not recorded:
            return False
        if self._found(rel) != recorded:
            return False
        self.seen[rel] = recorded
        return True

    def as_left(self) -> bool:
        """Every file the last build recorded is as it left it (or still missing)."""
        return all(self._found(rel) == stat for rel, stat in self._recorded.items())

    def _found(self, rel: str) -> list[int] | None:
        """The file's stats now: taken once, on the first question."""
        if rel not in self._now:
            self._now[rel] = _stat(self._base + rel)
        return self._now[rel]


@dataclass(frozen=True, slots=True)
class Previous:
    """What the last build recorded, read once, with its vault files compared to the disk when asked."""

    recorded: dict[str, Any]
    files: VaultFiles

    @property
    def vault_as_left(self) -> bool:
        """Every vault file the last build recorded is as it left it (or still missing)."""
        return bool(self.recorded) and self.files.as_left()

    @property
    def untouched(self) -> VaultFiles:
        """Vault files whose stats are as the last build left them (each stat-ed when asked about)."""
        return self.files

    @property
    def seen(self) -> dict[str, list[int] | None]:
        """The stats of the untouched files as found, for `remember`."""
        return self.files.seen


class SnapshotMemory:
    """The snapshot a long-lived process (watch) last wrote, with the file's stats right after.

    While the file keeps those stats, it holds what this process wrote: it is not read again.
    """

    def __init__(self) -> None:
        self.recorded: dict[str, Any] | None = None
        self.stat: list[int] | None = None


def recall(settings: Settings, kept: SnapshotMemory | None = None) -> Previous:
    """Read the last build's snapshot (`kept` when it is what this process wrote); a missing or
    damaged one recalls nothing."""
    path = settings.vault / SNAPSHOT
    recorded: object = None
    if kept is not None and kept.recorded is not None and kept.stat is not None and _stat(path) == kept.stat:
        recorded = kept.recorded
    else:
        try:
            recorded = json.loads(path.read_text("utf-8"))
        except (OSError, ValueError):
            recorded = None
    if not isinstance(recorded, dict) or recorded.get("format") != _FORMAT:
        return Previous({}, VaultFiles(settings.vault, {}))
    files = recorded.get("vault")
    if not isinstance(files, dict):
        return Previous({}, VaultFiles(settings.vault, {}))
    return Previous(recorded, VaultFiles(settings.vault, files))


def unchanged_report(previous: Previous, taken: dict[str, Any]) -> dict[str, Any] | None:
    """The last build's report when nothing it depends on changed since, else None.

    `taken` is the `fingerprint` of the inputs now, before the build reads them.
    """
    recorded = previous.recorded
    # The inputs first: when a note changed, the vault's files need no stat here.
    if recorded.get("fingerprint") != json.loads(json.dumps(taken)) or not previous.vault_as_left:
        return None
    racy = recorded.get("racy")
    if not isinstance(racy, dict) or any(_hash(Path(path)) != digest for path, digest in racy.items()):
        return None
    report = recorded.get("report")
    return report if isinstance(report, dict) else None


def forget(settings: Settings) -> None:
    """Drop the snapshot before a build writes, so a build killed midway is never taken as done."""
    (settings.vault / SNAPSHOT).unlink(missing_ok=True)


def racy_hashes(settings: Settings, taken: dict[str, Any], taken_at: int) -> dict[str, str]:
    """Content hashes of the inputs saved within RACY_SECONDS of `taken_at`, read before the build reads them.

    As git does with its index: a file saved in the same clock tick as the fingerprint could be
    saved again with the same size and times, so for those stats are not enough.
    """
    since = taken_at - int(RACY_SECONDS * 1e9)
    paths = [
        *(settings.notes / rel for rel, stat in taken["sources"].items() if stat and stat[1] >= since),
        *(Path(path) for path, stat in taken["inputs"].items() if stat and stat[1] >= since),
    ]
    return {str(path): _hash(path) for path in paths}


def remember(
    settings: Settings,
    taken: dict[str, Any],
    racy: dict[str, str],
    report: dict[str, Any],
    vault_files: Iterable[str],
    seen: Mapping[str, list[int] | None] | None = None,
    changed: Collection[str] = (),
    kept: SnapshotMemory | None = None,
) -> None:
    """Record the stats a finished build leaves, with its report, for the next build to compare.

    `taken` is the fingerprint from before the build read its inputs, and `racy` the hashes of
    the inputs saved just before it: a note saved while the build ran then differs from them,
    and the next build reads it. `seen` are pages' stats found before the build (`Previous.seen`)
    and `changed` the pages it wrote or removed: the others keep their stats as seen. Should one
    have been changed by hand meanwhile, its stats now differ from the recorded ones, and the
    next build reads it, as for any touched page. `kept` learns the snapshot written.
    """
    paths = sorted({*vault_files, MANIFEST})
    seen = seen or {}
    data = {
        "format": _FORMAT,
        "racy": racy,
        "fingerprint": taken,
        "vault": {
            rel: seen[rel]
            if rel in seen and rel not in changed and is_page_path(rel)
            else _stat(os.path.join(settings.vault, rel))
            for rel in paths
        },
        "report": report,
    }
    target = settings.vault / SNAPSHOT
    if target.parent.is_symlink():
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_name(f".{target.name}.kgvault-tmp")
    text = json.dumps(data, ensure_ascii=False, sort_keys=True)
    try:
        encoded = text.encode("utf-8")
    except UnicodeEncodeError:  # a path that is no UTF-8 (a byte read as a surrogate): escaped instead
        encoded = json.dumps(data, sort_keys=True).encode("ascii")
    temporary.write_bytes(encoded)
    os.replace(temporary, target)
    if kept is not None:
        # What a reader would parse: every value here is a JSON string, number, list or object.
        kept.recorded, kept.stat = data, _stat(target)


def _hash(path: Path) -> str:
    """The file's content hash, or "" when it cannot be read."""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return ""


def _stat(path: Path | str) -> list[int] | None:
    """What tells a changed file from an unchanged one without reading it; None when it is missing."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return [info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_dev]


def _templates(user_dir: Path | None) -> list[Path]:
    folders = [packaged_templates(), *([user_dir] if user_dir else [])]
    return [path for folder in folders for path in sorted(folder.rglob("*")) if path.is_file()]


def _library_versions() -> dict[str, str]:
    """The libraries whose behaviour shapes the output: an upgrade rebuilds.

    Read from the names of their installed `.dist-info` folders (`pydantic-2.14.4.dist-info`), the
    first along `sys.path` as for imports; `importlib.metadata` parses each one's METADATA file
    instead (15 ms per build), and is asked only about a library installed some other way.
    """
    wanted = {_project(name): name for name in _LIBRARIES}
    found: dict[str, str | None] = {}  # None: installed some other way here, importlib.metadata says
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:  # not a folder (a zip file), or gone
            continue
        for folder in names:
            stem, _, kind = folder.rpartition(".")
            if kind in ("dist-info", "egg-info"):
                project, _, release = stem.partition("-")
                library = wanted.get(_project(project))
                if library is not None:
                    found.setdefault(library, release if kind == "dist-info" and release else None)
        if len(found) == len(wanted):
            break
    return {name: found.get(name) or _installed_version(name) for name in _LIBRARIES}


def _installed_version(name: str) -> str:
    """What `importlib.metadata` says of a library's version; empty when it is not installed."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(name)
    except PackageNotFoundError:
        return ""


def _project(name: str) -> str:
    """A distribution's name as packaging compares them (PEP 503): `markdown_it_py` is `markdown-it-py`."""
    return re.sub(r"[-_.]+", "-", name).lower()


def _settings_fields(settings: Settings) -> dict[str, Any]:
    return {name: getattr(settings, name) for name in settings.__slots__}
