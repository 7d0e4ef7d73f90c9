"""kgvault watch: after every change the vault equals a clean build; failures and loops are survived."""

from __future__ import annotations

import os
import queue
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from .conftest import SAMPLE, run_build, tree_bytes


class Watcher:
    """`kgvault watch` in a subprocess, its output lines collected as they come."""

    def __init__(
        self, notes: Path, vault: Path, *extra: str, launcher: Sequence[str] = ("-m", "kgvault")
    ) -> None:
        self.process = subprocess.Popen(
            [
                sys.executable,
                *launcher,
                "watch",
                str(notes),
                "-o",
                str(vault),
                "--debounce",
                "100",
                *extra,
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        assert self.process.stdout is not None
        threading.Thread(target=self._read, args=(self.process.stdout,), daemon=True).start()

    def _read(self, stream: object) -> None:
        for line in stream:  # type: ignore[attr-defined]
            self.lines.put(line.rstrip("\n"))

    def next_line(self, timeout: float = 30) -> str:
        return self.lines.get(timeout=timeout)

    def quiet(self, seconds: float) -> list[str]:
        """Lines printed during the next `seconds`."""
        time.sleep(seconds)
        seen = []
        while not self.lines.empty():
            seen.append(self.lines.get_nowait())
        return seen

    def stop(self) -> tuple[int, str]:
        self.process.send_signal(signal.SIGINT)
        _, err = self.process.communicate(timeout=30)
        return self.process.returncode, err


@pytest.fixture
def watching(tmp_path: Path) -> Iterator[tuple[Path, Path, Watcher]]:
    notes, vault = tmp_path / "notes", tmp_path / "vault"
    shutil.copytree(SAMPLE, notes)
    watcher = Watcher(notes, vault)
    assert " start: " in watcher.next_line()
    yield notes, vault, watcher
    if watcher.process.poll() is None:
        watcher.process.kill()
        watcher.process.communicate()


def same_as_clean_build(notes: Path, vault: Path, clean: Path, watcher: Watcher) -> None:
    """Wait for the rebuild the change caused, then until the vault equals a clean build of the notes."""
    line = watcher.next_line()
    assert "build failed" not in line, line
    if clean.exists():
        shutil.rmtree(clean)
    run_build(notes, clean)
    expected = tree_bytes(clean)
    deadline = time.monotonic() + 20
    while tree_bytes(vault) != expected:  # an editor's save can arrive as two rebuilds
        assert time.monotonic() < deadline, f"vault differs from a clean build after: {line}"
        time.sleep(0.2)


def test_every_change_leaves_the_vault_equal_to_a_clean_build(
    watching: tuple[Path, Path, Watcher], tmp_path: Path
) -> None:
    notes, vault, watcher = watching
    clean = tmp_path / "clean"

    def same_as_clean_build_now() -> None:
        same_as_clean_build(notes, vault, clean, watcher)

    with (notes / "daily" / "2025-06-24.md").open("a", encoding="utf-8") as note:
        note.write("\nSwitched the [[Ender 3]] from Klipper to Marlin today.\n")
    same_as_clean_build_now()
    assert "Switched the Ender 3 from Klipper to Marlin" in (vault / "entities" / "ender-3.md").read_text(
        "utf-8"
    )

    (notes / "daily" / "2025-07-01.md").write_text("I still prefer [[PETG]] for functional parts.\n", "utf-8")
    same_as_clean_build_now()

    (notes / "glossary.md").unlink()
    same_as_clean_build_now()
    assert not (vault / "sources" / "glossary-summary.md").exists()

    # An editor's save: write a temporary file, then rename it over the note.
    temporary = notes / "people" / ".Dana Kim.md.swp"
    temporary.write_text((notes / "people" / "Dana Kim.md").read_text("utf-8") + "\nDana moved to Oakland.\n")
    temporary.replace(notes / "people" / "Dana Kim.md")
    same_as_clean_build_now()

    (notes / "work" / "decision-log.md").rename(notes / "work" / "decisions.md")
    same_as_clean_build_now()
    assert (vault / "sources" / "work-decisions-summary.md").exists()

    (notes / "printing").rename(notes / "3d-printing")
    same_as_clean_build_now()
    assert (vault / "sources" / "3d-printing-klipper-summary.md").exists()

    code, err = watcher.stop()
    assert code == 0 and "stopped" in err


def test_a_failing_build_is_reported_and_watching_goes_on(watching: tuple[Path, Path, Watcher]) -> None:
    notes, vault, watcher = watching
    (notes / "kgvault.toml").write_text('colour = "blue"\n', "utf-8")
    line = watcher.next_line()
    assert "build failed" in line and "colour" in line and "still watching" in line
    (notes / "kgvault.toml").unlink()
    (notes / "daily" / "2025-07-02.md").write_text("Fixed the [[Voron 2.4]] belt tension today.\n", "utf-8")
    line = watcher.next_line()
    assert "build failed" not in line and " written" in line
    assert (vault / "sources" / "daily-2025-07-02-summary.md").exists()


def test_writing_a_vault_inside_the_notes_never_triggers_a_rebuild(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    shutil.copytree(SAMPLE, notes)
    watcher = Watcher(notes, notes / "kg")
    try:
        assert " start: " in watcher.next_line()
        assert watcher.quiet(2.0) == []  # its own writes and reads of the notes start nothing
        (notes / "daily" / "2025-07-03.md").write_text("Printed a [[Benchy]] today.\n", "utf-8")
        assert " written" in watcher.next_line()
        assert watcher.quiet(2.0) == []
    finally:
        watcher.stop()


def test_a_template_folder_outside_the_notes_is_watched_too(tmp_path: Path) -> None:
    notes, templates = tmp_path / "notes", tmp_path / "templates"
    shutil.copytree(SAMPLE, notes)
    templates.mkdir()
    shipped = Path(__file__).resolve().parent.parent / "templates" / "index.md.j2"
    shutil.copy(shipped, templates / "index.md.j2")
    watcher = Watcher(notes, tmp_path / "vault", "--templates", str(templates))
    try:
        assert " start: " in watcher.next_line()
        with (templates / "index.md.j2").open("a", encoding="utf-8") as handle:
            handle.write("\nMy own footer.\n")
        assert " written" in watcher.next_line()
        assert "My own footer." in (tmp_path / "vault" / "index.md").read_text("utf-8")
    finally:
        watcher.stop()


@pytest.mark.skipif(sys.platform != "linux", reason="reads the thread count from /proc")
def test_the_building_process_runs_no_thread_of_the_watchers(watching: tuple[Path, Path, Watcher]) -> None:
    # watchdog's threads live in a process of their own: the one that builds may fork helpers.
    notes, vault, watcher = watching
    status = Path(f"/proc/{watcher.process.pid}/status").read_text("utf-8")
    assert "Threads:\t1\n" in status
    (notes / "daily" / "2025-07-04.md").write_text("Fixed the [[Voron 2.4]] door hinge today.\n", "utf-8")
    assert " written" in watcher.next_line()
    assert (vault / "sources" / "daily-2025-07-04-summary.md").exists()
    code, err = watcher.stop()
    assert code == 0 and "stopped" in err


@pytest.mark.skipif(sys.platform != "linux", reason="finds the watcher process through /proc")
def test_a_watcher_that_dies_is_started_again(watching: tuple[Path, Path, Watcher]) -> None:
    notes, vault, watcher = watching
    pid = watcher.process.pid
    [child] = Path(f"/proc/{pid}/task/{pid}/children").read_text("utf-8").split()
    os.kill(int(child), signal.SIGKILL)
    assert "watching again" in watcher.next_line()
    assert " written" in watcher.next_line()  # it catches up on anything it missed
    (notes / "daily" / "2025-07-05.md").write_text("Fixed the [[Voron 2.4]] fan shroud today.\n", "utf-8")
    assert "daily/2025-07-05.md" in watcher.next_line()
    assert (vault / "sources" / "daily-2025-07-05-summary.md").exists()
    code, err = watcher.stop()
    assert code == 0 and "stopped" in err


# kgvault watch with every two-core helper forced on, whatever the size of the notes.
_WATCH_WITH_HELPERS = """
import sys
import kgvault.build, kgvault.extract.forked, kgvault.render_forked
kgvault.extract.forked.MIN_BYTES = 0
kgvault.render_forked.MIN_PAGES = 0
kgvault.build.INDEX_HELPER_RECORDS = 0
from kgvault.cli import main
sys.argv[0] = "kgvault"
main()
"""


def test_watch_with_its_helpers_and_memory_equals_a_clean_build(tmp_path: Path) -> None:
    notes, vault, clean = tmp_path / "notes", tmp_path / "vault", tmp_path / "clean"
    shutil.copytree(SAMPLE, notes)
    watcher = Watcher(notes, vault, launcher=("-c", _WATCH_WITH_HELPERS))
    try:
        assert " start: " in watcher.next_line()
        with (notes / "daily" / "2025-06-24.md").open("a", encoding="utf-8") as note:
            note.write("\nSwitched the [[Ender 3]] from Klipper to Marlin today.\n")
        same_as_clean_build(notes, vault, clean, watcher)
        (notes / "people" / "Dana Kim.md").rename(notes / "people" / "Dana K.md")
        same_as_clean_build(notes, vault, clean, watcher)
        (notes / "glossary.md").unlink()
        same_as_clean_build(notes, vault, clean, watcher)
    finally:
        code, err = watcher.stop()
    assert code == 0 and "stopped" in err
