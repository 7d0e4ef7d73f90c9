"""One writer per vault: a second build waits for the first, gives up naming it, and no lock goes stale."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from kgvault.lock import LOCK_FILE, VaultBusyError, vault_lock

from .conftest import SAMPLE, run_build, tree_bytes


def kgvault(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "kgvault", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_a_second_build_waits_for_the_holder_and_then_builds(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    with vault_lock(vault):
        second = kgvault("build", str(SAMPLE), "-o", str(vault), "-q", "--wait")  # until it is free
        time.sleep(1.5)
        assert second.poll() is None, "the second build did not wait"
        assert not (vault / "index.md").exists(), "the second build wrote while the vault was held"
    _, err = second.communicate(timeout=120)
    assert second.returncode == 0, err
    assert "waiting for kgvault" in err and f"pid {os.getpid()}" in err
    clean = tmp_path / "clean"
    run_build(SAMPLE, clean)
    assert tree_bytes(vault) == tree_bytes(clean)


def test_a_second_build_exits_2_at_once_naming_the_holder(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    with vault_lock(vault):
        second = kgvault("build", str(SAMPLE), "-o", str(vault), "-q")
        _, err = second.communicate(timeout=60)
    assert second.returncode == 2
    assert "is being written by kgvault" in err and f"pid {os.getpid()}" in err and "--wait" in err
    assert "waiting" not in err


def test_a_build_gives_up_after_wait_and_names_the_holder(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    with vault_lock(vault):
        second = kgvault("build", str(SAMPLE), "-o", str(vault), "--wait", "0.3", "-q")
        _, err = second.communicate(timeout=60)
    assert second.returncode == 2
    assert "is being written by kgvault" in err and f"pid {os.getpid()}" in err
    assert "waited 0.3 s; wait longer with --wait SECONDS" in err and "or run with --wait" not in err
    assert not (vault / "index.md").exists()


def test_a_killed_holder_leaves_no_stale_lock(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from pathlib import Path; from kgvault.lock import vault_lock\n"
            "with vault_lock(Path(sys.argv[1])):\n    print('held', flush=True); time.sleep(120)",
            str(vault),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    os.kill(holder.pid, signal.SIGKILL)
    holder.wait(timeout=30)
    holder.stdout.close()
    assert (vault / LOCK_FILE).exists()  # its description is left, but not the lock itself
    run_build(SAMPLE, vault)  # without --wait: a lock still held would fail it at once
    assert (vault / "index.md").is_file()


def test_two_builds_started_together_both_finish_with_a_clean_vault(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    builds = [kgvault("build", str(SAMPLE), "-o", str(vault), "-q", "--wait") for _ in range(2)]
    for build in builds:
        _, err = build.communicate(timeout=120)
        assert build.returncode == 0, err
    clean = tmp_path / "clean"
    run_build(SAMPLE, clean)
    assert tree_bytes(vault) == tree_bytes(clean)


def test_a_dry_run_takes_no_lock(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    run_build(SAMPLE, vault)
    with vault_lock(vault):
        run_build(SAMPLE, vault, "--dry-run")


def test_a_lock_file_removed_under_a_waiting_build_is_not_taken_for_the_lock(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    held, release = threading.Event(), threading.Event()

    def second() -> None:
        with vault_lock(vault, wait=30):
            held.set()
            release.wait(30)

    with vault_lock(vault):
        waiting = threading.Thread(target=second)
        waiting.start()
        time.sleep(0.5)  # the second one has the lock file open and waits on it
        (vault / LOCK_FILE).unlink()  # as a first build that failed does before letting go
    assert held.wait(30)
    with pytest.raises(VaultBusyError), vault_lock(vault):
        pass  # the second one holds the lock file that exists now
    release.set()
    waiting.join()


def test_a_fresh_vault_holding_only_the_lock_is_removed_and_one_holding_a_file_is_kept(
    tmp_path: Path,
) -> None:
    vault = tmp_path / "vault"
    with vault_lock(vault):
        pass  # a first build that failed before writing anything
    assert not vault.exists()
    written = tmp_path / "written"
    with vault_lock(written):
        (written / "episodic").mkdir()
        (written / "episodic" / "a.md").write_text("a\n", "utf-8")
    assert (written / "episodic" / "a.md").is_file() and (written / LOCK_FILE).is_file()
    # Only a vault that did not exist before is ever removed.
    existing = tmp_path / "existing"
    existing.mkdir()
    with vault_lock(existing):
        pass
    assert (existing / LOCK_FILE).is_file()
