"""Watch: build once, then rebuild whenever the notes change, a debounce after the last change."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from kgvault.config import Settings
from kgvault.layout import STATE_DIR

Say = Callable[[str], None]
# Reading a note opens and closes it: only events that change something start a rebuild.
_CHANGES = frozenset({"created", "deleted", "modified", "moved", "closed"})
WAIT_FOR_OTHERS = 600.0
"""Seconds a rebuild waits for another kgvault writing the vault before it reports a failure."""
_NEVER_INPUT = frozenset({STATE_DIR, ".git", ".obsidian", "node_modules", "__pycache__"})


@dataclass(slots=True)
class Rebuild:
    """What one rebuild did, as its line says it."""

    changed: list[str]
    written: int = 0
    removed: int = 0
    problems: int = 0
    milliseconds: float = 0.0
    error: str | None = None

    def line(self) -> str:
        """One line a person reads at a glance: when, what changed, what it wrote, how long."""
        stamp = time.strftime("%H:%M:%S")
        what = self.changed[0] if self.changed else "start"
        if len(self.changed) > 1:
            what += f" and {len(self.changed) - 1} more"
        if self.error:
            return f"{stamp} {what}: build failed: {self.error} (still watching)"
        problems = f", {self.problems} problem(s)" if self.problems else ""
        return (
            f"{stamp} {what}: {self.written} written, {self.removed} removed{problems}"
            f" in {self.milliseconds:.0f} ms"
        )


class _Changes:
    """Paths changed since the last rebuild, and when the last one arrived."""

    def __init__(self) -> None:
        self.condition = threading.Condition()
        self.paths: set[str] = set()
        self.last = 0.0

    def add(self, path: str) -> None:
        with self.condition:
            self.paths.add(path)
            self.last = time.monotonic()
            self.condition.notify_all()

    def settled(self, debounce: float, stop: threading.Event) -> list[str]:
        """Wait until changes came and then none for `debounce` seconds; return and forget them."""
        with self.condition:
            while not stop.is_set():
                if self.paths:
                    quiet = time.monotonic() - self.last
                    if quiet >= debounce:
                        paths, self.paths = sorted(self.paths), set()
                        return paths
                    self.condition.wait(debounce - quiet)
                else:
                    self.condition.wait(0.25)
        return []


def watch(
    load: Callable[[], Settings],
    *,
    debounce: float = 0.2,
    say: Say = print,
    stop: threading.Event | None = None,
    also: Sequence[Path] = (),
) -> None:
    """Build, then rebuild on every settled change until `stop` is set (or Ctrl-C).

    Settings are loaded again for each rebuild, so an edit of kgvault.toml takes effect; a
    failing build is reported and watching goes on. Events inside the vault and kgvault's own
    folders are ignored, so writing the vault never triggers another rebuild. `also` names
    files and folders outside the notes that a build reads too (`--config`, `--templates`).
    """
    from watchdog.events import FileSystemEvent, FileSystemEventHandler
    from watchdog.observers import Observer

    stop = stop or threading.Event()
    settings = load()
    notes, vault = settings.notes.resolve(), settings.vault.resolve()
    changes = _Changes()

    class Handler(FileSystemEventHandler):
        def on_any_event(self, event: FileSystemEvent) -> None:
            if event.event_type not in _CHANGES:
                return
            if event.is_directory and event.event_type == "modified":
                return  # a folder is "modified" whenever a file in it is: the file's event says it
            for raw in (event.src_path, getattr(event, "dest_path", "")):
                path = Path(raw if isinstance(raw, str) else raw.decode(errors="replace"))
                if raw and _is_input(path, notes, vault):
                    changes.add(path.relative_to(notes).as_posix())
                elif raw and any(path == extra or extra in path.parents for extra in extras):
                    changes.add(str(path))

    # Watching starts before the first build, so a change made while it runs is not missed.
    observer = Observer()
    observer.schedule(Handler(), str(notes), recursive=True)
    extras = [Path(p).resolve() for p in also]
    for extra in extras:
        if extra.is_dir():
            observer.schedule(Handler(), str(extra), recursive=True)
        elif extra.parent.is_dir() and notes not in (extra.parent, *extra.parent.parents):
            observer.schedule(Handler(), str(extra.parent), recursive=False)
    observer.start()
    try:
        say(_rebuild(load, []).line())
        while not stop.is_set():
            changed = changes.settled(debounce, stop)
            if changed:
                say(_rebuild(load, changed).line())
    finally:
        observer.stop()
        observer.join()


def _is_input(path: Path, notes: Path, vault: Path) -> bool:
    """Whether a changed path can change the vault: under the notes, outside the vault and our folders."""
    if path == vault or vault in path.parents:
        return False
    try:
        parts = path.relative_to(notes).parts
    except ValueError:
        return False
    return bool(parts) and not _NEVER_INPUT.intersection(parts)


def _rebuild(load: Callable[[], Settings], changed: list[str]) -> Rebuild:
    """Run one build and say what it did; any error is reported, never raised."""
    from kgvault.build import BuildError, build
    from kgvault.config import ConfigError
    from kgvault.lock import VaultBusyError
    from kgvault.sources import SourceError

    started = time.perf_counter()
    rebuild = Rebuild(changed)
    try:
        # A `kgvault build` of the same vault may be running: let it finish first.
        report = build(load(), wait=WAIT_FOR_OTHERS)
    except (BuildError, ConfigError, SourceError, VaultBusyError, OSError) as error:
        rebuild.error = str(error)
        return rebuild
    rebuild.milliseconds = (time.perf_counter() - started) * 1000
    rebuild.written = report.files.get("written", 0)
    rebuild.removed = report.files.get("removed", 0)
    rebuild.problems = len(report.problems)
    return rebuild
