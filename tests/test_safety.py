"""Adversarial layouts: a build never writes outside its vault nor loses a byte the user wrote."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner

from kgvault.cli import main
from kgvault.layout import MANIFEST

from .conftest import SAMPLE, run_build, tree_digest


def invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


def test_the_vault_cannot_be_the_notes_folder(sample_copy: Path) -> None:
    before = tree_digest(sample_copy)
    code, output = invoke("build", str(sample_copy), "-o", str(sample_copy))
    assert code == 2 and "notes folder itself; choose another vault folder (-o, or `vault` in" in output
    assert tree_digest(sample_copy) == before


def test_the_vault_cannot_hold_the_notes_folder(tmp_path: Path) -> None:
    notes = tmp_path / "outer" / "notes"
    shutil.copytree(SAMPLE, notes)
    code, output = invoke("build", str(notes), "-o", str(tmp_path / "outer"))
    assert code == 2 and "inside the vault" in output
    assert sorted(p.name for p in (tmp_path / "outer").iterdir()) == ["notes"]


@pytest.mark.parametrize("command", ["build", "watch"])
def test_swapped_folders_are_refused_before_a_vault_is_written_into_the_notes(
    sample_copy: Path, tmp_path: Path, command: str
) -> None:
    vault = tmp_path / "vault"
    run_build(sample_copy, vault)
    before = tree_digest(sample_copy)
    code, output = invoke(command, str(vault), "-o", str(sample_copy))
    assert code == 2 and "were the folders swapped?" in output
    assert tree_digest(sample_copy) == before


def test_notes_left_inside_the_output_vault_are_reported(sample_copy: Path) -> None:
    code, output = invoke("build", str(sample_copy), "-o", str(sample_copy / "printing"), "--json")
    assert code == 0, output
    skipped = [p["path"] for p in json.loads(output)["problems"] if "inside the output vault" in p["message"]]
    assert "printing/Klipper.md" in skipped and len(skipped) == 4


def test_a_symlinked_folder_in_the_vault_is_never_written_through(sample_copy: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "sources").symlink_to(elsewhere, target_is_directory=True)
    report = run_build(sample_copy, vault)
    assert list(elsewhere.iterdir()) == []
    assert any("symbolic link" in p["message"] for p in report["problems"])  # type: ignore[attr-defined,index]
    assert (vault / "index.md").is_file()


def test_a_page_turned_symbolic_link_is_never_written_through(sample_copy: Path, tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    run_build(sample_copy, vault)
    outside = tmp_path / "outside.md"
    outside.write_text("mine\n", encoding="utf-8")
    entity = sorted((vault / "entities").glob("*.md"))[0]
    redirected = [entity, vault / "index.md"]
    for page in redirected:
        page.unlink()
        page.symlink_to(outside)
    (sample_copy / "daily").mkdir(exist_ok=True)
    (sample_copy / "daily" / "late.md").write_text("Met Dana Kim about the printer.\n", encoding="utf-8")
    report = run_build(sample_copy, vault)
    assert outside.read_text(encoding="utf-8") == "mine\n"
    assert all(page.is_symlink() for page in redirected)
    reported = {p["path"] for p in report["problems"] if "symbolic link" in p["message"]}  # type: ignore[attr-defined,index]
    assert {page.as_posix() for page in redirected} <= reported
    assert (vault / "sources" / "daily-late-summary.md").is_file()  # the rest is written


class _Hung(Exception):
    """Not an OSError: no handler of a build mistakes it for an unreadable file."""


def _too_long(signum: int, frame: object) -> None:
    raise _Hung("the build waited on a named pipe")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_a_named_pipe_where_a_page_should_be_is_left_alone(sample_copy: Path, tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    run_build(sample_copy, vault)
    page = sorted((vault / "entities").glob("*.md"))[0]
    page.unlink()
    os.mkfifo(page)  # reading it would wait for a writer forever
    before = signal.signal(signal.SIGALRM, _too_long)
    signal.alarm(60)  # a build that waits on the pipe fails here instead of hanging the suite
    try:
        report = run_build(sample_copy, vault)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, before)
    assert stat.S_ISFIFO(page.lstat().st_mode)
    problems = [p for p in report["problems"] if p["path"] == page.as_posix()]  # type: ignore[attr-defined,index]
    assert problems and "cannot read" in problems[0]["message"]
    assert (vault / "index.md").is_file()


def test_a_symlinked_state_folder_stops_the_build(sample_copy: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / ".kgvault").symlink_to(elsewhere, target_is_directory=True)
    code, output = invoke("build", str(sample_copy), "-o", str(vault))
    assert code == 2 and "symbolic link" in output
    assert list(elsewhere.iterdir()) == []


def test_manifest_entries_outside_the_layout_delete_nothing(sample_copy: Path, tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    run_build(sample_copy, vault)
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me\n", "utf-8")
    digest = hashlib.sha256(b"keep me\n").hexdigest()
    manifest = json.loads((vault / MANIFEST).read_text("utf-8"))
    manifest["files"].update({"../victim.txt": digest, str(victim): digest, "notes.md": digest})
    (vault / MANIFEST).write_text(json.dumps(manifest), "utf-8")
    (vault / "notes.md").write_text("keep me\n", "utf-8")
    run_build(sample_copy, vault)
    assert victim.read_text("utf-8") == "keep me\n"
    assert (vault / "notes.md").read_text("utf-8") == "keep me\n"


def test_undecodable_bytes_in_the_user_region_survive_a_rewrite(sample_copy: Path, tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    run_build(sample_copy, vault)
    page = vault / "entities" / "klipper.md"
    page.write_bytes(page.read_bytes() + b"caf\xe9 \xff\n")
    note = sample_copy / "printing" / "Klipper.md"
    note.write_text(
        note.read_text("utf-8").replace("[Klipper firmware]", "[Klipper firmware, Klippy]"), "utf-8"
    )
    report = run_build(sample_copy, vault)
    assert report["files"]["written"] > 0  # type: ignore[index]
    assert page.read_bytes().endswith(b"%%\ncaf\xe9 \xff\n")


def test_a_rewritten_page_keeps_its_file_mode(sample_copy: Path, tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    run_build(sample_copy, vault)
    page = vault / "entities" / "klipper.md"
    page.chmod(0o600)
    before = page.read_bytes()
    note = sample_copy / "printing" / "Klipper.md"
    note.write_text(
        note.read_text("utf-8").replace("[Klipper firmware]", "[Klipper firmware, Klippy]"), "utf-8"
    )
    run_build(sample_copy, vault)
    assert page.read_bytes() != before
    assert page.stat().st_mode & 0o777 == 0o600


def test_every_force_keeps_its_own_backup(sample_copy: Path, tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    run_build(sample_copy, vault)
    page = vault / "entities" / "klipper.md"
    for edit in ("EDIT1", "EDIT2"):
        page.write_text(page.read_text("utf-8").replace("title: Klipper", f"title: {edit}"), "utf-8")
        run_build(sample_copy, vault, "--force")
    backups = sorted((vault / ".kgvault" / "backup" / "entities").glob("klipper.md.*"))
    assert ["EDIT1" in b.read_text("utf-8") for b in backups].count(True) == 1
    assert ["EDIT2" in b.read_text("utf-8") for b in backups].count(True) == 1


def test_bad_settings_are_usage_errors(
    sample_copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A vault made by mistake at a relative path would land here (not in the checkout, where the
    # README's build command leaves a `vault/` of its own).
    elsewhere = tmp_path / "cwd"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    for line, word in (
        ('force = "false"', "force"),
        ("vault = 5", "vault"),
        ('max_chunk_chars = "big"', "max"),
        ("jobs = 500", "`jobs` must be at most 64"),  # as `--jobs 500` is refused
    ):
        (sample_copy / "kgvault.toml").write_text(line + "\n", "utf-8")
        code, output = invoke("build", str(sample_copy))  # no -o: the file's `vault` must count
        assert code == 2 and word in output, (line, output)
    assert not (sample_copy / "vault").exists() and list(elsewhere.iterdir()) == []


def test_template_problems_are_usage_errors(tmp_path: Path) -> None:
    code, output = invoke(
        "build", str(SAMPLE), "-o", str(tmp_path / "v"), "--templates", str(tmp_path / "nope")
    )
    assert code == 2 and "nope" in output
    broken = tmp_path / "templates"
    broken.mkdir()
    (broken / "entity.md.j2").write_text("{{ oops\n", "utf-8")
    code, output = invoke("build", str(SAMPLE), "-o", str(tmp_path / "v"), "--templates", str(broken))
    assert code == 2 and "entity.md.j2" in output
    assert not (tmp_path / "v").exists()


def test_an_unwritable_vault_is_a_usage_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x", "utf-8")
    code, output = invoke("build", str(SAMPLE), "-o", str(blocker / "vault"))
    assert code == 2 and "cannot write the vault" in output
    assert os.listdir(tmp_path) == ["file"]


def test_a_damaged_manifest_stops_the_build_and_force_takes_marked_pages_back(
    sample_copy: Path, tmp_path: Path
) -> None:
    vault = tmp_path / "vault"
    run_build(sample_copy, vault)
    summary = vault / "sources" / "daily-2025-06-24-summary.md"
    summary.write_text(summary.read_text("utf-8") + "My own words.\n", "utf-8")
    mine = vault / "entities" / "klipper.md"
    mine.write_text("My Klipper page, no marker.\n", "utf-8")  # a file of the user's at a page path
    manifest = vault / MANIFEST
    manifest.write_text("<<<<<<< HEAD\n" + manifest.read_text("utf-8"), "utf-8")  # a merge conflict
    with (sample_copy / "daily" / "2025-06-24.md").open("a", encoding="utf-8") as note:
        note.write("\nSwitched the Voron to a new toolhead.\n")
    before = {k: v for k, v in tree_digest(vault).items() if not k.startswith(".kgvault/state/")}
    code, output = invoke("build", str(sample_copy), "-o", str(vault))
    assert code == 2 and "manifest.json cannot be read" in output and "--force" in output
    # Nothing written (machine-local state aside), the damaged manifest kept as evidence.
    assert {k: v for k, v in tree_digest(vault).items() if not k.startswith(".kgvault/state/")} == before

    code, output = invoke("build", str(sample_copy), "-o", str(vault), "--force", "--json")
    assert code == 0, output
    text = summary.read_text("utf-8")
    assert "new toolhead" in text and text.endswith("My own words.\n")
    assert mine.read_text("utf-8") == "My Klipper page, no marker.\n"  # no marker: never taken
    assert any((vault / ".kgvault" / "backup" / "sources").glob("daily-2025-06-24-summary.md.*"))
    assert "sources/daily-2025-06-24-summary.md" in json.loads(manifest.read_text("utf-8"))["files"]
