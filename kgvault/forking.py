"""A second core for a build: a forked helper that works while this process goes on.

A forked child starts with a copy of everything this process holds (the graph, the drafts), so
nothing has to be sent to it. Fork is used only where it is cheap and safe; callers always
have a way to do the work in this process instead.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
from collections.abc import Callable
from functools import cache

from kgvault.lock import held_descriptors


def can_fork() -> bool:
    """Whether a helper may be forked: Linux, two cores or more, and no other thread running."""
    if not sys.platform.startswith("linux") or not hasattr(os, "fork"):
        return False
    if threading.active_count() > 1:  # a forked child gets no copy of them, and maybe a lock they held
        return False
    return len(os.sched_getaffinity(0)) >= 2


class Helper:
    """A forked child running `work(go)`, where `go()` says the work is ready to finish and waits for
    this process to say go (True) or stop."""

    def __init__(self, pid: int, verdict: int, ready: int) -> None:
        self._pid = pid
        self._verdict: int | None = verdict
        self._ready: int | None = ready
        self._said_ready: bool | None = None
        self._status: int | None = None

    @classmethod
    def start(cls, work: Callable[[Callable[[], bool]], None]) -> Helper:
        """Fork and run `work` in the child; the child never returns from here, and runs no clean-up."""
        read, write = os.pipe()
        ready_read, ready_write = os.pipe()

        def child() -> None:
            os.close(write)
            os.close(ready_read)

            def go() -> bool:
                try:
                    os.write(ready_write, b"1")
                except BrokenPipeError:
                    pass  # this process asked no more (it already said what to do)
                finally:
                    os.close(ready_write)
                return os.read(read, 1) == b"1"

            work(go)

        pid = _forked(child)
        os.close(read)
        os.close(ready_write)
        _parent_ends.update((write, ready_read))
        return cls(pid, write, ready_read)

    def ready(self) -> bool:
        """Wait until the helper's work is ready to finish; False when it ended (or failed) before."""
        if self._ready is not None:
            ready, self._ready = self._ready, None
            try:
                self._said_ready = os.read(ready, 1) == b"1"
            finally:
                _parent_ends.discard(ready)
                os.close(ready)
        return bool(self._said_ready)

    def tell(self, go: bool) -> None:
        """Tell the helper to go on or stop, without waiting for it; only the first word counts."""
        if self._verdict is not None:
            verdict, self._verdict = self._verdict, None
            try:
                os.write(verdict, b"1" if go else b"0")
            except BrokenPipeError:
                pass  # it had nothing to wait for, and is gone
            finally:
                _parent_ends.discard(verdict)
                os.close(verdict)

    def finish(self, go: bool) -> bool:
        """Tell the helper to go on or stop, wait for it to end, and say whether it did its work.

        Only the first word counts: a second call (after an interrupted first) just waits.
        """
        self.tell(go)
        if self._ready is not None:
            _parent_ends.discard(self._ready)
            os.close(self._ready)
            self._ready = None
        if self._status is None:
            _, status = os.waitpid(self._pid, 0)
            self._status = os.waitstatus_to_exitcode(status)
        return self._status == 0


class Answer:
    """What a helper will hand back: `get()` waits for it."""

    def __init__(self, pid: int, answer: int) -> None:
        self._pid = pid
        self._answer: int | None = answer

    def get(self) -> bytes | None:
        """The helper's bytes, once it has ended; None when it failed (do its work here instead)."""
        if self._answer is None:
            return None
        answer, self._answer = self._answer, None
        _parent_ends.discard(answer)
        try:
            with os.fdopen(answer, "rb") as stream:
                data = stream.read()
        finally:
            _, status = os.waitpid(self._pid, 0)
        return data if os.waitstatus_to_exitcode(status) == 0 else None

    def drop(self) -> None:
        """Stop waiting: the helper is told to stop (its writes fail) and is reaped."""
        if self._answer is not None:
            _parent_ends.discard(self._answer)
            os.close(self._answer)
            self._answer = None
            os.kill(self._pid, signal.SIGKILL)
            os.waitpid(self._pid, 0)


def ask(work: Callable[[], bytes]) -> Answer:
    """Fork a helper that runs `work` and hands back its bytes; the child never returns from here."""
    read, write = os.pipe()

    def child() -> None:
        os.close(read)
        data = work()
        with os.fdopen(write, "wb") as stream:
            stream.write(data)

    pid = _forked(child)
    os.close(write)
    _parent_ends.add(read)
    return Answer(pid, read)


def _forked(child: Callable[[], None]) -> int:
    """Fork, run `child` in the child process and end it there (status 1 if it raised); return its pid.

    The child never returns to the caller's code and runs none of its clean-up (`os._exit`).
    """
    parent, die_with_parent = os.getpid(), _die_with_parent()  # found before the fork, not in each child
    pid = os.fork()
    if pid == 0:
        status = 1
        try:
            # A helper's work is its build's: killed with it, it must not go on writing beside the
            # next build (an index built into the same temporary, a lock held while it asks).
            die_with_parent()
            if os.getppid() == parent:  # else the build died before the request could count
                # Copies this helper has no use for: should this process die, the vault's lock and
                # other helpers' pipes must close with it, not stay open in a helper still at work.
                for descriptor in (*held_descriptors(), *_parent_ends):
                    os.close(descriptor)
                child()
                status = 0
        finally:
            os._exit(status)
    return pid


_PR_SET_PDEATHSIG = 1


@cache
def _die_with_parent() -> Callable[[], None]:
    """What a forked child calls to be sent SIGKILL when its parent ends (Linux `prctl`); a no-op
    where the C library offers no `prctl`, and the helper then notices at its next word instead."""
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return lambda: None
    return lambda: prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)


_parent_ends: set[int] = set()
"""This process's ends of its helpers' pipes, open now."""
