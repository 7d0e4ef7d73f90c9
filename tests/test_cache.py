"""The extraction cache: an unchanged note is not extracted again, and the vault is the same either way."""

from __future__ import annotations

from pathlib import Path

import pytest

from kgvault.cache import CACHE_DIR
from kgvault.extract import offline
from kgvault.snapshot import SNAPSHOT

from .conftest import record_calls, run_build, tree_bytes


def count_extractions(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record the source path of every chunk the offline extractor reads."""
    return record_calls(monkeypatch, offline, "extract_chunk", lambda chunk, source: chunk.source_path)


def without_state(vault: Path) -> dict[str, bytes]:
    return {k: v for k, v in tree_bytes(vault).items() if not k.startswith(".kgvault/cache")}


def rebuild(notes: Path, vault: Path) -> None:
    (vault / SNAPSHOT).unlink(missing_ok=True)  # past the no-op check: a full build, cache or not
    run_build(notes, vault)


def test_a_full_rebuild_extracts_only_what_changed(
    sample_copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = tmp_path / "vault"
    run_build(sample_copy, vault)
    seen = count_extractions(monkeypatch)
    rebuild(sample_copy, vault)
    assert seen == []
    note = sample_copy / "printing" / "Klipper.md"
    note.write_text(note.read_text("utf-8") + "\nKlipper supports input shaping.\n", "utf-8")
    rebuild(sample_copy, vault)
    assert set(seen) == {"printing/Klipper.md"}
    clean = tmp_path / "clean"
    run_build(sample_copy, clean)
    assert without_state(vault) == without_state(clean)


def test_a_damaged_entry_is_only_a_miss(sample_copy: Path, tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    run_build(sample_copy, vault)
    entries = sorted((vault / CACHE_DIR).glob("*/*.json"))
    assert entries
    for entry in entries[::2]:
        entry.write_text('{"chunks": [', "utf-8")
    for entry in entries[1::4]:
        entry.write_text('{"chunks": [{"line_start": 1}], "extractions": []}', "utf-8")
    rebuild(sample_copy, vault)
    clean = tmp_path / "clean"
    run_build(sample_copy, clean)
    assert without_state(vault) == without_state(clean)


def test_the_cache_holds_no_raw_note_text_and_no_secret(sample_copy: Path, tmp_path: Path) -> None:
    secret = "sk-test-51HfakeKEYabcdefghijklmnop1234"
    (sample_copy / "inbox" / "keys.md").write_text(
        f"# Keys\n\nThe staging API key is {secret} for now.\n\nWorth revisiting when there is more time.\n",
        "utf-8",
    )
    vault = tmp_path / "vault"
    run_build(sample_copy, vault)
    cached = "".join(p.read_text("utf-8") for p in (vault / CACHE_DIR).glob("*/*.json"))
    assert secret not in cached
    assert "Worth revisiting when there is more time" not in cached  # prose no draft quotes


def test_entries_of_deleted_notes_are_pruned(sample_copy: Path, tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    run_build(sample_copy, vault)
    before = len(list((vault / CACHE_DIR).glob("*/*.json")))
    (sample_copy / "glossary.md").unlink()
    rebuild(sample_copy, vault)
    assert len(list((vault / CACHE_DIR).glob("*/*.json"))) == before - 1


def test_an_entry_a_killed_build_left_half_written_is_swept_by_the_next_build(tmp_path: Path) -> None:
    notes, vault = tmp_path / "notes", tmp_path / "vault"
    notes.mkdir()
    (notes / "a.md").write_text("Atlas uses Postgres.\n", "utf-8")
    run_build(notes, vault)
    [entry] = (vault / CACHE_DIR).glob("*/*.json")
    leftover = entry.with_name(f".{entry.name}.kgvault-tmp")
    leftover.write_bytes(b"half an entry")
    mine = entry.with_name("notes-of-mine.txt")  # not ours: never touched
    mine.write_text("mine", "utf-8")
    rebuild(notes, vault)
    assert not leftover.exists() and mine.read_text("utf-8") == "mine"
