"""Crash safety: a build killed with SIGKILL at any moment leaves old or new pages, never a mix."""

from __future__ import annotations

import hashlib
import os
import random
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from kgvault.layout import MANIFEST, PENDING_MANIFEST
from kgvault.write import _read_hashes, split_page

from .conftest import SAMPLE, run_build, tree_bytes

KILLS = 20


def corpus(root: Path, edited: bool) -> Path:
    """Four copies of the sample; the edited one changes every daily note and drops a copy."""
    for copy in range(3 if edited else 4):
        shutil.copytree(SAMPLE, root / f"copy{copy}")
        if edited:
            for note in sorted((root / f"copy{copy}" / "daily").glob("*.md")):
                with note.open("a", encoding="utf-8") as handle:
                    handle.write("\nI still prefer [[PETG]] over [[PLA]] for brackets.\n")
    return root


def files(vault: Path) -> dict[str, bytes]:
    """Pages and manifests as they are; machine-local state and leftovers of a killed write aside."""
    return {
        path: data
        for path, data in tree_bytes(vault).items()
        if not path.endswith(".kgvault-tmp") and path != PENDING_MANIFEST
    }


def manifest_holds(vault: Path) -> None:
    """Every file the manifest claims is as one of its recorded hashes (or the pending ones) says."""
    recorded = _read_hashes(vault, MANIFEST)
    for path, hashes in _read_hashes(vault, PENDING_MANIFEST).items():
        recorded.setdefault(path, []).extend(hashes)
    for path, hashes in recorded.items():
        page = vault / path
        if page.exists():
            parts = split_page(path, page.read_text("utf-8"))
            assert parts is not None, path
            assert hashlib.sha256(parts[0].encode("utf-8")).hexdigest() in hashes, path


def _seconds(command: list[str]) -> float:
    """Wall time of a whole build in a fresh process, start-up included."""
    started = time.perf_counter()
    subprocess.run(command, check=True)
    return time.perf_counter() - started


def two_corpora(tmp_path: Path) -> tuple[dict[bool, Path], dict[bool, dict[str, bytes]]]:
    """The notes, plain and edited, and the files a clean build of each gives."""
    notes = {False: corpus(tmp_path / "a", False), True: corpus(tmp_path / "b", True)}
    clean = {}
    for edited, folder in notes.items():
        run_build(folder, tmp_path / f"clean-{edited}")
        clean[edited] = files(tmp_path / f"clean-{edited}")
    return notes, clean


def kill_builds(
    notes: dict[bool, Path],
    clean: dict[bool, dict[str, bytes]],
    vault: Path,
    command: Callable[[Path], list[str]],
    moments: list[float],
) -> None:
    """SIGKILL a build at each moment, of each notes folder in turn; after each, nothing is partial
    and a build started at once (without waiting) equals a clean build."""
    run_build(notes[False], vault)
    for kill, moment in enumerate(moments):
        target = kill % 2 == 0  # alternate, so every build has old pages to replace
        before = files(vault)
        build = subprocess.Popen(command(notes[target]), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(moment)
        build.kill()  # the build alone: helpers it forked must die with it
        build.wait()
        assert not _survivors(vault), f"kill {kill}: a helper of the killed build is still at work"
        after = files(vault)
        for path, data in after.items():
            assert data in (before.get(path), clean[target].get(path)), f"kill {kill}: {path} is partial"
        manifest_holds(vault)
        run_build(notes[target], vault)
        assert files(vault) == clean[target], f"kill {kill}: the next build is not a clean build"
        assert not list(vault.rglob("*.kgvault-tmp")), f"kill {kill}: a half-written temporary was left"


def _survivors(vault: Path, grace: float = 0.5) -> list[int]:
    """Processes still running with this vault on their command line (a killed build's helpers
    share it), after a short grace for the kernel to end them."""
    needle = str(vault).encode()
    deadline = time.monotonic() + grace
    while True:
        alive = []
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit() and int(entry.name) != os.getpid():
                try:
                    if needle in (entry / "cmdline").read_bytes():
                        alive.append(int(entry.name))
                except OSError:
                    pass  # ended while listed
        if not alive or time.monotonic() > deadline:
            return alive
        time.sleep(0.02)


def test_sigkill_at_twenty_moments_never_leaves_a_partial_page(tmp_path: Path) -> None:
    notes, clean = two_corpora(tmp_path)
    vault = tmp_path / "vault"

    def command(folder: Path) -> list[str]:
        return [sys.executable, "-m", "kgvault", "build", str(folder), "-o", str(vault), "-q"]

    duration = _seconds(
        [sys.executable, "-m", "kgvault", "build", str(notes[False]), "-o", str(tmp_path / "timing")]
    )
    rng = random.Random(20261130)
    # Anywhere in its life, and every other time in its last quarter, where the writing is.
    moments = [
        rng.uniform(0.0, duration) if kill % 4 < 2 else rng.uniform(0.75 * duration, duration)
        for kill in range(KILLS)
    ]
    kill_builds(notes, clean, vault, command, moments)


# The same build with every two-core helper forced on (they fork at any size with these limits),
# each helper taking a second longer, so that a kill finds helpers at work.
_WITH_HELPERS = """
import sys, time
import kgvault.build, kgvault.cache_forked, kgvault.extract.forked, kgvault.forking, kgvault.render_forked
kgvault.cache_forked.MIN_ENTRIES = 0
kgvault.extract.forked.MIN_BYTES = 0
kgvault.render_forked.MIN_PAGES = 0
kgvault.build.INDEX_HELPER_RECORDS = 0
real_forked = kgvault.forking._forked
def slow_forked(child):
    def slow():
        time.sleep(1)
        child()
    return real_forked(slow)
kgvault.forking._forked = slow_forked
from kgvault.cli import main
main(["build", sys.argv[1], "-o", sys.argv[2], "-q"])
"""


def test_sigkill_of_a_build_with_helpers_leaves_no_partial_page_and_no_busy_vault(tmp_path: Path) -> None:
    notes, clean = two_corpora(tmp_path)
    vault = tmp_path / "vault"

    def command(folder: Path) -> list[str]:
        return [sys.executable, "-c", _WITH_HELPERS, str(folder), str(vault)]

    duration = _seconds([sys.executable, "-c", _WITH_HELPERS, str(notes[False]), str(tmp_path / "timing")])
    rng = random.Random(20261201)
    # The next build starts at once: a helper of the killed build must not keep the vault busy.
    kill_builds(notes, clean, vault, command, [rng.uniform(0.0, duration) for _ in range(KILLS // 2)])
