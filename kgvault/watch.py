"""Watch: build once, then rebuild whenever the notes change, a debounce after the last change."""

from __future__ import annotations

import json
import os
import queue
import select
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING

from kgvault.config import Settings
from kgvault.watch_events import READY

if TYPE_CHECKING:  # the pipeline's modules load with the first build
    from kgvault.build import BuildMemory

Say = Callable[[str], None]
WAIT_FOR_OTHERS = 600.0
"""Seconds a rebuild waits for another kgvault writing the vault before it reports a failure."""
READY_WAIT = 60.0
"""Seconds the watcher process may take to start watching."""
START_QUIET = 0.02
"""Seconds without a change after which a rebuild starts reading, while the debounce runs out.

One save arrives as a burst of events within a few milliseconds; a rebuild that starts after it
reads and links during the rest of the debounce, and writes only once the debounce has passed
with no change since it started (otherwise it is dropped, and the next one waits it all out).
"""
EARLY_START_UNDER = 5.0
"""Seconds: only while rebuilds take less, one starts before the debounce has run out. A longer one
gains little by it, and a change during it would drop all that work."""


class FirstBuildFailed(Exception):
    """The build watching starts with failed: the vault cannot be written, or the settings or
    templates are wrong. No rebuild would do better until that is fixed, so watching stops."""


@dataclass(slots=True)
class Rebuild:
    """What one rebuild did, as its line says it."""

    changed: list[str]
    sources: int = 0
    written: int = 0
    removed: int = 0
    problems: int = 0
    milliseconds: float = 0.0
    error: str | None = None
    superseded: bool = False
    """The notes changed again before it could write: it wrote nothing, and says nothing."""

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


class _Events:
    """The changes `kgvault.watch_events` reports, read from its output: no thread in this process.

    A build that forks helpers must run in a process with no other thread, so watchdog's
    threads live in that small process instead.
    """

    def __init__(self, notes: Path, vault: Path, also: Sequence[Path]) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "kgvault.watch_events", str(notes), str(vault), *map(str, also)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        assert self.process.stdout is not None
        self._stream = self.process.stdout.fileno()
        self._buffer = b""
        self.paths: set[str] = set()
        self.seen = 0
        """How many changes have been read so far."""
        self.last = 0.0
        """When the last change was read (`time.monotonic`)."""
        self._lines: queue.Queue[bytes] | None = None
        if os.name == "nt":  # select() takes no pipe there: a thread reads them (and nothing forks)
            self._lines = queue.Queue()
            threading.Thread(target=self._read_all, args=(self.process.stdout,), daemon=True).start()
        first = self._line(READY_WAIT)
        if first != READY:
            self.close()
            raise OSError(f"could not start watching {notes}: the watcher said {first!r}")

    def _read_all(self, stream: IO[bytes]) -> None:
        assert self._lines is not None
        for line in stream:
            self._lines.put(line)
        self._lines.put(b"")

    def _line(self, timeout: float) -> str | None:
        """The next line, waiting at most `timeout` seconds (0: only what is there); None when none came."""
        if self._lines is not None:
            try:
                data = self._lines.get(timeout=timeout)
            except queue.Empty:
                return None
            if not data:
                raise OSError("the watcher stopped")
            return data.rstrip(b"\n").decode("utf-8", "surrogateescape")
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buffer:
            left = max(0.0, deadline - time.monotonic())
            if not select.select([self._stream], [], [], left)[0]:
                return None
            data = os.read(self._stream, 65536)
            if not data:
                raise OSError("the watcher stopped")
            self._buffer += data
        line, self._buffer = self._buffer.split(b"\n", 1)
        return line.decode("utf-8", "surrogateescape")

    def pending(self, quiet: float, stop: threading.Event) -> bool:
        """Wait until changes came and then none for `quiet` seconds; False once `stop` is set.

        The changes stay pending until `take` forgets them.
        """
        while not stop.is_set():
            line = self._line(quiet if self.paths else 0.25)
            if line is not None:
                self._add(line)
            elif self.paths:
                return True
        return False

    def quiet_since(self, seen: int, debounce: float, stop: threading.Event) -> bool:
        """Wait until `debounce` seconds passed since the last change; whether none came after the `seen`-th.

        A change already waiting to be read counts, however late this is asked. Returns False as
        soon as another change comes (or `stop` is set).
        """
        if stop.is_set():
            return False
        line = self._line(max(0.0, self.last + debounce - time.monotonic()))
        if line is not None:
            self._add(line)
            return False
        return self.seen == seen

    def take(self) -> list[str]:
        """The pending changes, sorted; they are forgotten."""
        paths, self.paths = sorted(self.paths), set()
        return paths

    def _add(self, line: str) -> None:
        self.paths.add(json.loads(line))
        self.seen += 1
        self.last = time.monotonic()

    def close(self) -> None:
        """Let the watcher go: it ends when its input closes."""
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()


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
    failing rebuild is reported and watching goes on (a failing first build raises
    `FirstBuildFailed`). Events inside the vault and kgvault's own
    folders are ignored, so writing the vault never triggers another rebuild. `also` names
    files and folders outside the notes that a build reads too (`--config`, `--templates`).
    A rebuild reads and links while the debounce runs out (see `START_QUIET`); the vault is
    written only once `debounce` seconds passed after the last change.
    """
    from kgvault.build import BuildMemory

    stop = stop or threading.Event()
    memory = BuildMemory()  # drafts and page plans: an unchanged note or page is not made again
    settings = load()
    watched = (settings.notes.resolve(), settings.vault.resolve(), [Path(p).resolve() for p in also])
    # Watching starts before the first build, so a change made while it runs is not missed.
    events = _Events(*watched)
    try:
        started = _rebuild(load, [], memory, say=say)
        if started.error:
            raise FirstBuildFailed(started.error)
        say(started.line())
        if started.sources > BuildMemory.MAX_SOURCES:
            say(
                f"note: watch keeps the notes in memory up to {BuildMemory.MAX_SOURCES:,}; with "
                f"{started.sources:,}, each rebuild reads and links them all again, as a build does"
            )
        # Wait out the whole debounce, then build, after a rebuild the notes outran or a long one.
        careful = started.milliseconds > EARLY_START_UNDER * 1000
        while not stop.is_set():
            try:
                if not events.pending(debounce if careful else min(debounce, START_QUIET), stop):
                    break
            except OSError as error:  # the watcher process went away: start another, and catch up
                events.close()
                say(f"{time.strftime('%H:%M:%S')} watching stopped ({error}); watching again")
                events = _Events(*watched)
                events.paths.add("anything changed meanwhile")
                careful = True
            gate = None if careful else _Gate(events, debounce, stop)
            rebuild = _rebuild(load, sorted(events.paths), memory, gate, say)
            careful = rebuild.superseded or rebuild.milliseconds > EARLY_START_UNDER * 1000
            if not rebuild.superseded:
                events.take()
                say(rebuild.line())
    finally:
        events.close()


class _Gate:
    """What a rebuild asks before writing: has the debounce passed with no change since it started?"""

    def __init__(self, events: _Events, debounce: float, stop: threading.Event) -> None:
        self.events, self.debounce, self.stop = events, debounce, stop
        self.seen = events.seen
        self.waited = 0.0
        """Seconds spent waiting out the debounce: not the rebuild's time."""

    def __call__(self) -> bool:
        started = time.perf_counter()
        try:
            return self.events.quiet_since(self.seen, self.debounce, self.stop)
        except OSError:
            return False  # the watcher went away: the next wait starts another
        finally:
            self.waited = time.perf_counter() - started


def _rebuild(
    load: Callable[[], Settings],
    changed: list[str],
    memory: BuildMemory | None = None,
    gate: Callable[[], bool] | None = None,
    say: Say | None = None,
) -> Rebuild:
    """Run one build and say what it did; any error is reported, never raised. `say` hears when it
    waits for another kgvault writing the vault."""
    from kgvault.build import BuildError, Superseded, build
    from kgvault.config import ConfigError
    from kgvault.discover import SourceError
    from kgvault.lock import VaultBusyError

    started = time.perf_counter()
    rebuild = Rebuild(changed)
    try:
        # A `kgvault build` of the same vault may be running: let it finish first.
        told = (lambda what: say(f"{time.strftime('%H:%M:%S')} {what}")) if say is not None else None
        report = build(load(), wait=WAIT_FOR_OTHERS, on_wait=told, memory=memory, gate=gate)
    except Superseded:
        rebuild.superseded = True
        return rebuild
    except (BuildError, ConfigError, SourceError, VaultBusyError, OSError) as error:
        rebuild.error = str(error)
        return rebuild
    rebuild.milliseconds = (time.perf_counter() - started - getattr(gate, "waited", 0.0)) * 1000
    rebuild.sources = report.sources
    rebuild.written = report.files.get("written", 0)
    rebuild.removed = report.files.get("removed", 0)
    rebuild.problems = len(report.problems)
    return rebuild
