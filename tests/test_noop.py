"""A rebuild with nothing changed reads no note; any change to what a build depends on rebuilds."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from importlib import metadata
from pathlib import Path

import pytest

from kgvault import build as build_module
from kgvault import snapshot
from kgvault.build import BuildReport, build
from kgvault.config import load_settings
from kgvault.snapshot import SNAPSHOT

from .conftest import record_calls, tree_bytes


def age(folder: Path) -> None:
    """Date every file a minute back, as notes are when nobody is typing in them."""
    past = time.time() - 60
    for path in folder.rglob("*"):
        os.utime(path, (past, past))


def run(notes: Path, vault: Path, **flags: object) -> tuple[BuildReport, list[str]]:
    stages: list[str] = []
    report = build(load_settings(notes, vault=vault, **flags), progress=stages.append)
    return report, stages


@pytest.fixture
def built(sample_copy: Path, tmp_path: Path) -> tuple[Path, Path, BuildReport]:
    age(sample_copy)
    vault = tmp_path / "vault"
    report, _ = run(sample_copy, vault)
    return sample_copy, vault, report


def test_nothing_changed_means_nothing_is_read(
    built: tuple[Path, Path, BuildReport], monkeypatch: pytest.MonkeyPatch
) -> None:
    notes, vault, first = built
    before = tree_bytes(vault)

    def no_pipeline(*_: object) -> BuildReport:
        raise AssertionError("the pipeline ran")

    monkeypatch.setattr(build_module, "_run_pipeline", no_pipeline)
    again, stages = run(notes, vault)
    assert stages == ["unchanged"]
    assert again.files == {
        "written": 0,
        "unchanged": first.files["written"] + first.files["unchanged"],
        "removed": 0,
        "kept": 0,
        "orphaned": 0,
    }
    assert (again.sources, again.entities, again.problems) == (first.sources, first.entities, first.problems)
    assert tree_bytes(vault) == before


def test_a_watch_recalls_the_snapshot_it_wrote_without_reading_it_and_another_builds_by_reading(
    sample_copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    age(sample_copy)
    vault = tmp_path / "vault"
    settings = load_settings(sample_copy, vault=vault)
    memory = build_module.BuildMemory()
    build(settings, memory=memory)
    # The snapshot is the JSON that holds a report (the fingerprint is compared through JSON too).
    parsed = record_calls(
        monkeypatch, snapshot.json, "loads", lambda text, *_, **__: "snapshot" if '"report":' in text else ""
    )
    stages: list[str] = []
    build(settings, progress=stages.append, memory=memory)
    assert stages == ["unchanged"] and "snapshot" not in parsed  # recalled as written, not parsed again
    note = sample_copy / "daily" / "2025-03-12.md"
    note.write_text(note.read_text("utf-8") + "\nFixed the spool holder today.\n", "utf-8")
    run(sample_copy, vault)  # another build rewrites the snapshot behind the watch's back
    parsed.clear()
    stages.clear()
    build(settings, progress=stages.append, memory=memory)
    assert stages == ["unchanged"]  # the other build's snapshot, read from the file, says so
    assert "snapshot" in parsed


def edit_same_size(notes: Path, vault: Path) -> None:
    note = notes / "printing" / "Klipper.md"
    text = note.read_text("utf-8")
    note.write_text(text.replace("Klipper", "KLIPPER", 1), "utf-8")  # same size, new bytes


CHANGES: dict[str, Callable[[Path, Path], None]] = {
    "a note edited, same size": edit_same_size,
    "a note added": lambda n, v: (n / "daily" / "2025-07-09.md").write_text("Fixed the [[Ender 3]].\n"),
    "a note deleted": lambda n, v: (n / "glossary.md").unlink(),
    "a note renamed": lambda n, v: (n / "work" / "decision-log.md").rename(n / "work" / "log.md"),
    "settings added": lambda n, v: (n / "kgvault.toml").write_text('functional_predicates = ["uses"]\n'),
    "a correction added": lambda n, v: (n / "kgvault.corrections.yaml").write_text(
        "retype:\n  PETG: material\n"
    ),
    "an ignore file added": lambda n, v: (n / ".kgvaultignore").write_text("voyages/\n"),
    "a page deleted in the vault": lambda n, v: (v / "entities" / "klipper.md").unlink(),
    "a page edited in the vault": lambda n, v: (v / "index.md").write_text("edited by hand\n"),
    "obsidian settings deleted": lambda n, v: shutil.rmtree(v / ".obsidian"),
    # Found by fuzzing: a path passed over (and reported) is in the report; the last one was replayed.
    "a note added that is passed over": lambda n, v: (n / "x [[y]].md").write_text("Ana works at Acme.\n"),
}


@pytest.mark.parametrize("change", sorted(CHANGES))
def test_every_kind_of_change_rebuilds(
    change: str, built: tuple[Path, Path, BuildReport], tmp_path: Path
) -> None:
    notes, vault, _ = built
    CHANGES[change](notes, vault)
    _, stages = run(notes, vault)
    assert "extracting" in stages and "unchanged" not in stages
    clean = tmp_path / "clean"
    run(notes, clean)
    expected = tree_bytes(clean)
    if change == "a page edited in the vault":  # kept as you left it, and reported
        expected["index.md"] = b"edited by hand\n"
        expected = {k: v for k, v in expected.items() if not k.startswith(".kgvault/backup")}
    assert {k: v for k, v in tree_bytes(vault).items() if not k.startswith(".kgvault/backup")} == expected


def test_notes_saved_just_before_a_build_are_compared_by_content(sample_copy: Path, tmp_path: Path) -> None:
    for path in sample_copy.rglob("*"):
        os.utime(path)  # saved just now: stats alone cannot tell a second save in the same tick
    vault = tmp_path / "vault"
    run(sample_copy, vault)
    recorded = json.loads((vault / SNAPSHOT).read_text("utf-8"))
    assert len(recorded["racy"]) >= 25  # every note's content hash was kept
    _, stages = run(sample_copy, vault)
    assert stages == ["unchanged"]  # same stats, same contents
    # Had a note been saved again in the same tick, only its content would tell:
    first = sorted(recorded["racy"])[0]
    recorded["racy"][first] = "0" * 64
    (vault / SNAPSHOT).write_text(json.dumps(recorded), "utf-8")
    _, stages = run(sample_copy, vault)
    assert "extracting" in stages


def test_different_templates_rebuild(built: tuple[Path, Path, BuildReport], tmp_path: Path) -> None:
    notes, vault, _ = built
    templates = tmp_path / "templates"
    templates.mkdir()
    shutil.copy(Path(build_module.__file__).parent.parent / "templates" / "index.md.j2", templates)
    with (templates / "index.md.j2").open("a", encoding="utf-8") as handle:
        handle.write("\nMy footer.\n")
    _, stages = run(notes, vault, templates=templates)
    assert "extracting" in stages
    assert "My footer." in (vault / "index.md").read_text("utf-8")


def test_a_page_edited_by_hand_while_a_build_runs_is_seen_by_the_next(
    built: tuple[Path, Path, BuildReport], monkeypatch: pytest.MonkeyPatch
) -> None:
    notes, vault, _ = built
    note = notes / "printing" / "Klipper.md"
    note.write_text(note.read_text("utf-8") + "\nKlipper supports input shaping.\n", "utf-8")
    page = vault / "sources" / "voyages-lyon-summary.md"
    assert page.is_file()
    real = build_module.write_vault

    def then_edit(*args: object, **kwargs: object):  # type: ignore[no-untyped-def]
        result = real(*args, **kwargs)  # type: ignore[arg-type]
        assert "sources/voyages-lyon-summary.md" not in result.written
        text = page.read_text("utf-8")
        page.write_text(text.replace("Summary of", "Edited summary of", 1), "utf-8")  # after the build wrote
        return result

    monkeypatch.setattr(build_module, "write_vault", then_edit)
    run(notes, vault)
    monkeypatch.undo()
    # Nothing changed since that build but the page: the next build must look at it, and keep it.
    again, stages = run(notes, vault)
    assert stages != ["unchanged"]
    assert again.files["kept"] == 1
    assert any("edited by hand" in p.message for p in again.problems if p.path.endswith("lyon-summary.md"))
    assert "Edited summary of" in page.read_text("utf-8")


def test_library_versions_are_the_ones_imports_find(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    versions = snapshot._library_versions()
    assert versions == {name: metadata.version(name) for name in snapshot._LIBRARIES}
    # An upgrade installed first along sys.path is the one imports use: it rebuilds.
    (tmp_path / "pydantic-99.1.dist-info").mkdir()
    # A library installed as an egg there is asked of importlib.metadata, which reads it.
    egg = "Metadata-Version: 1.1\nName: Jinja2\nVersion: 9.9\n"
    (tmp_path / "Jinja2-9.9.egg-info").write_text(egg, "utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert snapshot._library_versions() == {**versions, "pydantic": "99.1", "jinja2": "9.9"}


# pathspec is left out: it compiles `.kgvaultignore`, which a no-op must read too.
READERS_AND_STAGES = ("yaml", "jinja2", "markdown_it", "frontmatter", "pydantic", "kgvault.sources")


def test_a_no_op_rebuild_imports_no_reader_and_no_stage(built: tuple[Path, Path, BuildReport]) -> None:
    # Start-up is most of a no-op rebuild: what it does not need it must not import.
    notes, vault, _ = built
    code = (
        "import sys; from kgvault.cli import main\n"
        f"try:\n    main(['build', {str(notes)!r}, '-o', {str(vault)!r}, '-q'])\n"
        "except SystemExit as done:\n    assert not done.code, done.code\n"
        f"print([m for m in {READERS_AND_STAGES!r} if m in sys.modules])"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout.strip().splitlines()[-1] == "[]"


def test_notes_without_an_ignore_file_need_no_pattern_library(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.md").write_text("# A\n\nAtlas uses Postgres.\n", "utf-8")
    code = (
        "import sys; from kgvault.discover import find_sources\n"
        f"print(sorted(find_sources({str(notes)!r})[0]), 'pathspec' in sys.modules)"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout.split() == ["['a.md']", "False"]
