"""One writer per vault: an OS file lock in `.kgvault/state/`, released by the OS if its holder dies."""

from __future__ import annotations

import json
import os
import socket
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import IO

from kgvault.layout import STATE_DIR

LOCK_FILE = f"{STATE_DIR}/state/lock"
"""Held by the build or watch writing the vault; says who holds it."""
POLL_SECONDS = 0.1


class VaultBusyError(RuntimeError):
    """Another kgvault is writing this vault and did not finish in time."""


@contextmanager
def vault_lock(
    vault: Path, *, wait: float = 0.0, on_wait: Callable[[str], None] | None = None
) -> Iterator[None]:
    """Hold the vault's lock for the block; wait up to `wait` seconds for another holder to finish.

    The lock is an OS lock on an open file (flock, or msvcrt on Windows), so a holder killed with
    SIGKILL loses it at once: a stale lock is never left behind, only a stale description of who
    held it, which the next holder overwrites.
    """
    state = vault / STATE_DIR / "state"
    for folder in (vault / STATE_DIR, state):
        if folder.is_symlink():
            raise OSError(f"{folder} is a symbolic link; kgvault writes through none")
    fresh = not vault.exists()
    path = vault / LOCK_FILE
    deadline = time.monotonic() + wait
    told = False
    while True:
        state.mkdir(parents=True, exist_ok=True)
        # Opened without truncating: the holder's description stays readable while we wait.
        with open(path, "a+", encoding="utf-8") as handle:
            while not _try_lock(handle):
                if time.monotonic() >= deadline:
                    raise VaultBusyError(
                        f"{vault} is being written by {holder(path)}; wait for it to finish, or stop it"
                    )
                if not told and on_wait is not None:
                    on_wait(f"waiting for {holder(path)} to finish writing {vault}")
                    told = True
                time.sleep(POLL_SECONDS)
            try:
                # A holder that failed on a fresh vault removes the lock file before letting go:
                # a lock on a file that is no longer the lock file holds nothing, so try again.
                if not _is_current(handle, path):
                    continue
                _describe(handle)
                _HELD.add(handle.fileno())
                try:
                    yield
                finally:
                    _HELD.discard(handle.fileno())
                    if fresh:
                        _remove_if_only_the_lock(vault)
                return
            finally:
                _unlock(handle)


_HELD: set[int] = set()
"""Descriptors of the locks this process holds now."""


def held_descriptors() -> frozenset[int]:
    """The descriptors of the locks this process holds: a forked helper closes its copies.

    Closing a copy leaves the lock with this process; a helper that kept one would keep the vault
    busy after this process died, until it ended too.
    """
    return frozenset(_HELD)


def _is_current(handle: IO[str], path: Path) -> bool:
    """Whether the open file is still the one at the lock's path."""
    try:
        return os.fstat(handle.fileno()).st_ino == os.stat(path).st_ino
    except OSError:
        return False


def _remove_if_only_the_lock(vault: Path) -> None:
    """A first build that failed before writing leaves no vault folder behind, only as it found it."""
    lock = vault / LOCK_FILE
    # Stopped at the first other file: after a first build that succeeded, the walk would
    # otherwise visit every page (0.1-0.2 s at 14,000 pages).
    for walked, _, names in os.walk(vault):
        for name in names:
            path = Path(walked, name)
            if path != lock and path.is_file():
                return
    if not lock.is_file():
        return
    lock.unlink()
    for folder in (vault / STATE_DIR / "state", vault / STATE_DIR, vault):
        try:
            folder.rmdir()
        except OSError:
            return


def holder(path: Path) -> str:
    """Who holds (or last held) the lock, as a person reads it: `kgvault watch (pid 812, since 09:14:03)`."""
    try:
        about = json.loads(path.read_text("utf-8") or "{}")
        when = datetime.fromtimestamp(float(about["since"])).strftime("%H:%M:%S")
        return f"{about['command']} (pid {about['pid']} on {about['host']}, since {when})"
    except (OSError, ValueError, KeyError, TypeError):
        return "another kgvault process"


def _describe(handle: IO[str]) -> None:
    """Write who holds the lock into the lock file itself."""
    command = " ".join(["kgvault", *sys.argv[1:2]]) if sys.argv[:1] else "kgvault"
    about = {"pid": os.getpid(), "host": socket.gethostname(), "command": command, "since": time.time()}
    handle.seek(0)
    handle.truncate()
    handle.write(json.dumps(about) + "\n")
    handle.flush()


if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
    import msvcrt

    def _try_lock(handle: IO[str]) -> bool:
        handle.seek(0)
        try:
            msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True

    def _unlock(handle: IO[str]) -> None:
        handle.seek(0)
        msvcrt.locking(handle.fileno(), msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    def _try_lock(handle: IO[str]) -> bool:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True

    def _unlock(handle: IO[str]) -> None:
        fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
