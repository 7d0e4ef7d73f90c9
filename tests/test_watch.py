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
from collections.abc import Callable, Iterator, Sequence
from functools import partial
from pathlib import Path

import pytest

import kgvault.build
import kgvault.snapshot
import kgvault.write
from kgvault import watch as watch_module
from kgvault.build import BuildMemory, Superseded, build
from kgvault.cache import ExtractionCache, source_key
from kgvault.config import load_settings
from kgvault.render import Pages
from kgvault.sources import read_sources

from .conftest import SAMPLE, record_calls, run_build, tree_bytes


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


@pytest.fixture
def watched(sample_copy: Path, tmp_path: Path) -> tuple[Path, Path, BuildMemory]:
    """`sample_vault` built once as a watch does: the notes, the vault and the memory it keeps."""
    vault, memory = tmp_path / "vault", BuildMemory()
    build(load_settings(sample_copy, vault=vault), memory=memory)
    return sample_copy, vault, memory


def test_a_build_stopped_at_its_gate_writes_nothing_and_the_next_one_catches_up(
    watched: tuple[Path, Path, BuildMemory], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (notes, vault, memory), clean = watched, tmp_path / "clean"
    before = tree_bytes(vault)
    note = notes / "daily" / "2025-06-24.md"
    with note.open("a", encoding="utf-8") as text:
        text.write("\nSwitched the [[Ender 3]] from Klipper to Marlin today.\n")
    asked = []

    def gate() -> bool:
        asked.append(tree_bytes(vault))
        return False  # the notes changed again meanwhile

    with pytest.raises(Superseded):
        build(load_settings(notes, vault=vault), memory=memory, gate=gate)
    assert asked == [before]  # asked once, before anything was written
    assert tree_bytes(vault) == before
    # The next build (same memory, nothing changed since) writes what the stopped one would have,
    # its pages rendered before its gate said yes.
    prepared = record_calls(monkeypatch, Pages, "prepare", lambda pages, **_: "prepared")
    build(load_settings(notes, vault=vault), memory=memory, gate=lambda: bool(prepared))
    assert prepared == ["prepared"]
    run_build(notes, clean)
    assert tree_bytes(vault) == tree_bytes(clean)
    # ...and caches the note's drafts on disk, though the stopped build had already read them.
    settings = load_settings(notes, vault=vault)
    sources, _ = read_sources(notes, exclude=[vault], user_name=settings.user_name)
    [edited] = [source for source in sources if source.path == "daily/2025-06-24.md"]
    key = source_key(edited, settings.max_chunk_chars, settings.user_name)
    assert ExtractionCache(vault).load(key, edited) is not None


def test_a_gated_build_starts_indexing_only_once_its_gate_lets_it_write(
    watched: tuple[Path, Path, BuildMemory], monkeypatch: pytest.MonkeyPatch
) -> None:
    notes, vault, memory = watched
    indexing = record_calls(monkeypatch, kgvault.build, "_start_indexing", lambda *_: "indexing")
    note = notes / "daily" / "2025-06-24.md"
    for gate_says in (False, True):
        with note.open("a", encoding="utf-8") as text:
            text.write(f"\nFixed the spool holder {gate_says} today.\n")
        indexing.clear()
        seen_by_gate: list[list[str]] = []

        def gate(says: bool = gate_says, seen: list[list[str]] = seen_by_gate) -> bool:
            seen.append(list(indexing))
            return says

        if gate_says:
            build(load_settings(notes, vault=vault), memory=memory, gate=gate)
            assert seen_by_gate == [[]] and indexing == ["indexing"]  # started after the gate, not before
        else:
            with pytest.raises(Superseded):
                build(load_settings(notes, vault=vault), memory=memory, gate=gate)
            assert seen_by_gate == [[]] and indexing == []  # a build that writes nothing indexes nothing


def test_a_watch_rebuild_writes_the_pages_it_rendered_before_it_looks_at_the_rest_or_forks(
    watched: tuple[Path, Path, BuildMemory], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (notes, vault, memory), clean = watched, tmp_path / "clean"
    order: list[str] = []

    def spy(owner: object, name: str, note: Callable[[str], str | None]) -> None:
        real = getattr(owner, name)

        def noted(path: str, *rest: object, **options: object) -> object:
            said = note(str(path))
            if said is not None:
                order.append(said)
            return real(path, *rest, **options)

        monkeypatch.setattr(owner, name, noted)

    def in_vault(path: str) -> str | None:
        relative = os.path.relpath(path, vault)
        return None if relative.startswith((".", "..")) else relative

    spy(kgvault.write, "atomic_write", lambda path: f"write {in_vault(path)}" if in_vault(path) else None)
    spy(kgvault.snapshot, "_stat", lambda path: f"stat {in_vault(path)}" if in_vault(path) else None)
    spy(kgvault.build, "_start_indexing", lambda vault: "indexing")
    note = notes / "daily" / "2025-06-24.md"
    with note.open("a", encoding="utf-8") as text:
        text.write("\nFixed the spool holder today.\n")
    build(load_settings(notes, vault=vault), memory=memory, gate=lambda: True)
    written = order.index("write episodic/fixed-the-spool-holder-today.md")
    stats = [i for i, said in enumerate(order) if said.startswith("stat ")]
    # Stat-ed before: only pages rendered afresh whose text came out as it was (kgvault.base, ...).
    assert len([i for i in stats if i < written]) < 5
    assert len([i for i in stats if i > written]) > 100  # the unchanged pages are still compared, after
    assert order.index("indexing") > written  # and the search index's helper forked after it
    run_build(notes, clean)
    assert tree_bytes(vault) == tree_bytes(clean)


class _ScriptedEvents:
    """Stands in for the watcher: a note is edited, and edited again while the first rebuild reads."""

    def __init__(self, notes: Path, vault: Path, also: Sequence[Path]) -> None:
        self.notes, self.vault = notes, vault
        self.paths: set[str] = set()
        self.seen = 0
        self.quiets: list[float] = []
        self.gates = 0
        self.vaults: list[dict[str, bytes]] = []

    def edit(self, sentence: str) -> None:
        with (self.notes / "daily" / "2025-06-24.md").open("a", encoding="utf-8") as text:
            text.write(f"\n{sentence}\n")
        self.paths.add("daily/2025-06-24.md")
        self.seen += 1

    def pending(self, quiet: float, stop: threading.Event) -> bool:
        self.quiets.append(quiet)
        self.vaults.append(tree_bytes(self.vault))
        if len(self.quiets) == 1:
            self.edit("Switched the [[Ender 3]] from Klipper to Marlin today.")
            return True
        if len(self.quiets) == 2:
            return True  # the change made while the first rebuild read the notes
        stop.set()
        return False

    def quiet_since(self, seen: int, debounce: float, stop: threading.Event) -> bool:
        self.gates += 1
        if self.gates == 1:
            self.edit("Printed a [[Benchy]] on the Ender 3 today.")
        return self.seen == seen

    def take(self) -> list[str]:
        paths, self.paths = sorted(self.paths), set()
        return paths

    def close(self) -> None:
        pass


def scripted_watcher(monkeypatch: pytest.MonkeyPatch) -> list[_ScriptedEvents]:
    """Have `watch` use a `_ScriptedEvents` instead of a watcher process; the list gets it."""
    scripted: list[_ScriptedEvents] = []

    def start_watching(notes: Path, vault: Path, also: Sequence[Path]) -> _ScriptedEvents:
        scripted.append(_ScriptedEvents(notes, vault, also))
        return scripted[-1]

    monkeypatch.setattr(watch_module, "_Events", start_watching)
    return scripted


@pytest.fixture
def piped() -> Iterator[tuple[watch_module._Events, int]]:
    """The watcher's events read from a pipe the test writes to (no watcher process started)."""
    if os.name == "nt":
        pytest.skip("reads the watcher's pipe with select()")
    read_end, write_end = os.pipe()
    events = watch_module._Events.__new__(watch_module._Events)
    events._stream, events._buffer, events._lines = read_end, b"", None
    events.paths, events.seen, events.last = set(), 0, 0.0
    yield events, write_end
    os.close(read_end)
    os.close(write_end)


def test_a_change_during_a_rebuild_drops_it_and_the_next_waits_out_the_debounce(
    sample_copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    notes, vault, clean = sample_copy, tmp_path / "vault", tmp_path / "clean"
    scripted = scripted_watcher(monkeypatch)
    said: list[str] = []
    watch_module.watch(lambda: load_settings(notes, vault=vault), debounce=0.3, say=said.append)
    [events] = scripted
    # Started after a short quiet; after the dropped rebuild, the next one waited the whole debounce.
    assert events.quiets == [watch_module.START_QUIET, 0.3, watch_module.START_QUIET]
    assert events.gates == 1
    # The dropped rebuild wrote nothing and said nothing; the next one wrote both sentences.
    assert events.vaults[1] == events.vaults[0]
    assert len(said) == 2 and "daily/2025-06-24.md: " in said[1] and " written" in said[1]
    run_build(notes, clean)
    assert tree_bytes(vault) == tree_bytes(clean)
    assert "Benchy" in (vault / "sources" / "daily-2025-06-24-summary.md").read_text("utf-8")


def _after_a_change(
    piped: tuple[watch_module._Events, int], wait: float
) -> tuple[watch_module._Events, int, threading.Event]:
    """The piped watcher once a change to a.md came and was waited for: events, pipe end, stop."""
    events, write_end = piped
    stop = threading.Event()
    os.write(write_end, b'"a.md"\n')
    assert events.pending(wait, stop) and events.paths == {"a.md"}
    return events, write_end, stop


def test_the_gate_waits_out_the_debounce_and_says_no_when_another_change_comes(
    piped: tuple[watch_module._Events, int],
) -> None:
    events, write_end, stop = _after_a_change(piped, 0.05)
    threading.Timer(0.1, os.write, (write_end, b'"b.md"\n')).start()
    assert not events.quiet_since(1, 0.3, stop)  # b.md changed within the debounce
    assert events.paths == {"a.md", "b.md"} and events.seen == 2
    b_came = events.last
    assert events.quiet_since(2, 0.3, stop)
    assert time.monotonic() - b_came >= 0.3  # only once the debounce ran out after the last change
    assert events.take() == ["a.md", "b.md"] and events.paths == set()


class _SlowQuiet:
    """A watcher with no change coming: the gate waits out a half-second debounce."""

    seen = 0

    def quiet_since(self, seen: int, debounce: float, stop: threading.Event) -> bool:
        time.sleep(0.5)
        return True


def test_a_rebuild_line_counts_the_build_not_the_debounce_it_waited_out(
    sample_copy: Path, tmp_path: Path
) -> None:
    vault = tmp_path / "vault"
    gate = watch_module._Gate(_SlowQuiet(), 0.5, threading.Event())  # type: ignore[arg-type]
    started = time.perf_counter()
    rebuild = watch_module._rebuild(
        lambda: load_settings(sample_copy, vault=vault), ["x.md"], BuildMemory(), gate
    )
    elapsed = time.perf_counter() - started
    assert rebuild.error is None and rebuild.written > 0
    assert gate.waited >= 0.5
    assert 0 < rebuild.milliseconds <= (elapsed - 0.5) * 1000


def test_a_gate_asked_after_the_debounce_still_sees_a_change_that_came_meanwhile(
    piped: tuple[watch_module._Events, int],
) -> None:
    # A rebuild longer than the debounce asks its gate late: a change that came while it read the
    # notes waits in the pipe, and must still stop it.
    events, write_end, stop = _after_a_change(piped, 0.01)
    os.write(write_end, b'"a.md"\n')  # the editor's second write, during the rebuild
    time.sleep(0.1)  # the rebuild goes on past the debounce
    assert not events.quiet_since(1, 0.05, stop)
    assert events.seen == 2
    assert events.quiet_since(2, 0.05, stop)  # nothing since: the next rebuild may write


def test_after_a_long_rebuild_the_next_waits_out_the_debounce_before_reading(
    sample_copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    notes, vault = sample_copy, tmp_path / "vault"
    scripted = scripted_watcher(monkeypatch)
    monkeypatch.setattr(watch_module, "EARLY_START_UNDER", 0.0)  # every rebuild counts as long
    watch_module.watch(lambda: load_settings(notes, vault=vault), debounce=0.3, say=lambda _: None)
    [events] = scripted
    assert events.quiets == [0.3, 0.3, 0.3] and events.gates == 0
    assert "Switched the Ender 3 from Klipper to Marlin" in (vault / "entities" / "ender-3.md").read_text(
        "utf-8"
    )


def test_a_build_stopped_at_its_gate_leaves_no_plan_the_next_build_trusts(tmp_path: Path) -> None:
    # Found by a burst of edits under watch: a note added, another edited, the first deleted, each
    # within the debounce. The stopped build had planned pages against a graph no build wrote;
    # the next one took such a plan for the one its last complete build made.
    notes, vault, clean = tmp_path / "notes", tmp_path / "vault", tmp_path / "clean"
    for path, text in {
        "daily/2025-01-12.md": "The Voron 2.4 runs Klipper.\n",
        "journal/2025-03-16.md": "Switched the Voron 2.4 from RepRapFirmware to Klipper today.\n",
        "journal/2025-04-18.md": "Switched the Voron 2.4 from RepRapFirmware to Marlin today.\n",
        "daily/2025-04-05.md": "Met Alice about Project Atlas.\n",
    }.items():
        (notes / path).parent.mkdir(parents=True, exist_ok=True)
        (notes / path).write_text(text, "utf-8")
    memory = BuildMemory()
    build(load_settings(notes, vault=vault), memory=memory)
    added = notes / "daily" / "2025-11-17.md"
    added.write_text("Switched the Voron 2.4 from Marlin to RepRapFirmware today.\n", "utf-8")
    with pytest.raises(Superseded):
        build(load_settings(notes, vault=vault), memory=memory, gate=lambda: False)
    added.unlink()
    with (notes / "daily" / "2025-04-05.md").open("a", encoding="utf-8") as text:
        text.write("\nWe decided to use Postgres.\n")
    build(load_settings(notes, vault=vault), memory=memory)
    run_build(notes, clean)
    assert tree_bytes(vault) == tree_bytes(clean)


def test_a_rebuild_waiting_for_another_writer_says_so(watched: tuple[Path, Path, BuildMemory]) -> None:
    from kgvault.lock import vault_lock

    notes, vault, memory = watched
    said: list[str] = []
    with vault_lock(vault):  # another kgvault writes the vault
        (notes / "daily" / "2025-06-24.md").write_text("Fixed the zq widget today.\n", "utf-8")
        release = threading.Event()
        holder = threading.Thread(target=release.wait, args=(5,))
        holder.start()
        rebuild = threading.Thread(
            target=lambda: said.append(
                watch_module._rebuild(
                    lambda: load_settings(notes, vault=vault), ["x"], memory, say=said.append
                ).line()
            )
        )
        rebuild.start()
        deadline = time.monotonic() + 10
        while not any("waiting for" in line for line in said) and time.monotonic() < deadline:
            time.sleep(0.05)
        release.set()
        holder.join()
    rebuild.join(30)
    assert any("waiting for" in line and "to finish writing" in line for line in said), said


def test_a_note_made_unreadable_and_readable_again_is_a_change(
    watching: tuple[Path, Path, Watcher], tmp_path: Path
) -> None:
    """A chmod changes no byte, but what can be read: the vault must follow it both ways."""
    notes, vault, watcher = watching
    note = notes / "glossary.md"
    note.chmod(0o000)
    try:
        if os.geteuid() != 0:  # root reads it anyway: then only the rebuild itself can be seen
            same_as_clean_build(notes, vault, tmp_path / "clean", watcher)
            assert not (vault / "sources" / "glossary-summary.md").exists()
        else:
            assert " glossary.md" in watcher.next_line(timeout=10)
    finally:
        note.chmod(0o644)
    same_as_clean_build(notes, vault, tmp_path / "clean", watcher)
    assert (vault / "sources" / "glossary-summary.md").exists()


def test_a_first_build_that_fails_stops_watching_with_a_usage_error(tmp_path: Path) -> None:
    """No rebuild can do better until the user fixes it: say so at once, as `build` would."""
    notes, templates = tmp_path / "notes", tmp_path / "tpl"
    notes.mkdir()
    templates.mkdir()
    (notes / "a.md").write_text("Fixed the heater on 2025-03-12.\n", "utf-8")
    (templates / "node.md.j2").write_text("{{ 1/0 }}", "utf-8")
    args = ["watch", str(notes), "-o", str(tmp_path / "vault"), "--templates", str(templates)]
    # A watch that went on would run until killed: the timeout fails the test instead.
    done = subprocess.run(
        [sys.executable, "-m", "kgvault", *args], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2, done.stderr
    assert "the first build failed, so watching stops: cannot render node.md.j2" in done.stderr


def test_a_watch_of_more_notes_than_it_keeps_says_each_rebuild_starts_over(
    sample_copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Nobody should wonder why every save takes as long as a build.
    monkeypatch.setattr(BuildMemory, "MAX_SOURCES", 3)
    said: list[str] = []
    stop = threading.Event()
    stop.set()  # the first build only
    load = partial(load_settings, sample_copy, vault=tmp_path / "vault")
    watch_module.watch(load, say=said.append, stop=stop)
    assert len(said) == 2
    assert said[1].startswith("note: watch keeps the notes in memory up to 3; with ")
    assert "each rebuild reads and links them all again" in said[1]
    monkeypatch.setattr(BuildMemory, "MAX_SOURCES", 10_000)
    said.clear()
    watch_module.watch(load, say=said.append, stop=stop)
    assert len(said) == 1
