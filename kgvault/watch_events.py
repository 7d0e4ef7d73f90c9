"""The watcher's eyes: a process that runs watchdog and prints every change to the notes, one per line.

`kgvault watch` starts it, so the process that builds has no thread of watchdog's and may fork
helpers. Usage (for kgvault itself): `python -m kgvault.watch_events NOTES VAULT [EXTRA ...]`.
Prints `ready` once watching, then each changed path as a JSON string: a notes-relative path
for a change under NOTES (outside VAULT and kgvault's own folders), an absolute one for a
change to an EXTRA file or folder. Exits when its standard input closes.
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Sequence
from pathlib import Path

from kgvault.layout import STATE_DIR

READY = "ready"
# Reading a note opens and closes it: only events that change something start a rebuild. A chmod
# ("attrib") does: a note made unreadable, or readable again, leaves or joins the vault.
_CHANGES = frozenset({"created", "deleted", "modified", "moved", "closed", "attrib"})
_NEVER_INPUT = frozenset({STATE_DIR, ".git", ".obsidian", "node_modules", "__pycache__"})


def main(argv: Sequence[str]) -> int:
    """Watch until standard input closes (or Ctrl-C); print changes as they come."""
    from watchdog.events import FileSystemEvent, FileSystemEventHandler
    from watchdog.observers import Observer

    notes, vault = Path(argv[0]).resolve(), Path(argv[1]).resolve()
    extras = [Path(extra).resolve() for extra in argv[2:]]
    printing = threading.Lock()  # one line at a time, whichever of watchdog's threads saw it

    def say(path: str) -> None:
        with printing:
            sys.stdout.write(json.dumps(path) + "\n")
            sys.stdout.flush()

    class Handler(FileSystemEventHandler):
        def on_any_event(self, event: FileSystemEvent) -> None:
            if event.event_type not in _CHANGES:
                return
            if event.is_directory and event.event_type == "modified":
                return  # a folder is "modified" whenever a file in it is: the file's event says it
            for raw in (event.src_path, getattr(event, "dest_path", "")):
                if not raw:
                    continue
                path = Path(raw if isinstance(raw, str) else raw.decode(errors="replace"))
                if is_input(path, notes, vault):
                    say(path.relative_to(notes).as_posix())
                elif any(path == extra or extra in path.parents for extra in extras):
                    say(str(path))

    observer = Observer()
    observer.schedule(Handler(), str(notes), recursive=True)
    for extra in extras:
        if extra.is_dir():
            observer.schedule(Handler(), str(extra), recursive=True)
        elif extra.parent.is_dir() and notes not in (extra.parent, *extra.parent.parents):
            observer.schedule(Handler(), str(extra.parent), recursive=False)
    observer.start()
    try:
        with printing:
            sys.stdout.write(READY + "\n")
            sys.stdout.flush()
        sys.stdin.read()  # until kgvault watch closes it, or goes away
    except KeyboardInterrupt:
        pass  # Ctrl-C reaches the whole process group: kgvault watch says "stopped"
    finally:
        observer.stop()
        observer.join()
    return 0


def is_input(path: Path, notes: Path, vault: Path) -> bool:
    """Whether a changed path can change the vault: under the notes, outside the vault and our folders."""
    if path == vault or vault in path.parents:
        return False
    try:
        parts = path.relative_to(notes).parts
    except ValueError:
        return False
    return bool(parts) and not _NEVER_INPUT.intersection(parts)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
