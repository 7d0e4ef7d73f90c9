"""An edited note re-extracts only the chunks that changed; the vault equals a clean build all the same."""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import pytest

from kgvault.build import BuildMemory, build
from kgvault.cache import CACHE_DIR, PATHS_FILE
from kgvault.config import load_settings
from kgvault.extract import offline

from .conftest import record_calls, run_build, tree_bytes

LOG = "garden/log.md"
SECTIONS = [
    ("2025-03-01", "Planted [[Tomatoes]] in the south bed with Dana."),
    ("2025-03-08", "Fixed the drip line after the frost; [[Rain Bird]] fittings hold better."),
    ("2025-03-15", "Decided to use [[Neem oil]] against the aphids."),
    ("2025-03-22", "Harvested the first [[Radish]] row. I prefer the French breakfast kind."),
    ("2025-03-29", "Moved the compost bin next to the shed."),
    ("2025-04-05", "Sowed [[Basil]] indoors under the grow light."),
]


def log_text(sections: list[tuple[str, str]], title: str = "Garden log", lang: str = "en") -> str:
    head = f"---\ntitle: {title}\nlang: {lang}\n---\n# Garden log\n"
    return head + "".join(f"\n## {day}\n\n{text}\n" for day, text in sections)


def chunks_read(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int]]:
    """Every chunk the offline extractor reads, as (path, first line)."""
    return record_calls(
        monkeypatch, offline, "extract_chunk", lambda chunk, source: (chunk.source_path, chunk.line_start)
    )


def line_of(text: str, line: str) -> int:
    return text.split("\n").index(line) + 1


def same_as_clean_build(notes: Path, vault: Path, clean: Path) -> None:
    if clean.exists():
        shutil.rmtree(clean)
    run_build(notes, clean)
    assert tree_bytes(vault) == tree_bytes(clean)


@pytest.fixture
def with_log(sample_copy: Path, tmp_path: Path) -> tuple[Path, Path]:
    """sample_vault with a long garden log, built once."""
    (sample_copy / LOG).parent.mkdir(exist_ok=True)
    (sample_copy / LOG).write_text(log_text(SECTIONS), "utf-8")
    run_build(sample_copy, tmp_path / "vault")
    return sample_copy, tmp_path / "vault"


def test_appending_to_a_long_note_extracts_only_the_new_chunk(
    with_log: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    notes, vault = with_log
    read = chunks_read(monkeypatch)
    text = log_text([*SECTIONS, ("2025-04-12", "Moved the [[Basil]] to the greenhouse.")])
    (notes / LOG).write_text(text, "utf-8")
    run_build(notes, vault)
    assert read == [(LOG, line_of(text, "## 2025-04-12"))]
    same_as_clean_build(notes, vault, tmp_path / "clean")


def test_an_edited_paragraph_extracts_only_its_chunk(
    with_log: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    notes, vault = with_log
    read = chunks_read(monkeypatch)
    edited = [*SECTIONS]
    edited[2] = ("2025-03-15", "Decided to use [[Insecticidal soap]] against the aphids.")
    text = log_text(edited)
    (notes / LOG).write_text(text, "utf-8")
    run_build(notes, vault)
    assert read == [(LOG, line_of(text, "## 2025-03-15"))]
    same_as_clean_build(notes, vault, tmp_path / "clean")


@pytest.mark.parametrize(
    "change",
    [
        "a line inserted at the top moves every chunk",
        "another title changes what every chunk reads of its note",
        "another language changes what every chunk reads of its note",
        "most of its chunks changed",
    ],
)
def test_a_note_changed_around_its_chunks_is_extracted_whole(
    change: str, with_log: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    notes, vault = with_log
    read = chunks_read(monkeypatch)
    if "inserted" in change:
        text = log_text(SECTIONS).replace("# Garden log\n", "# Garden log\n\nKept since the spring.\n")
    elif "title" in change:
        text = log_text(SECTIONS, title="Vegetable garden")  # the same lines, another context
    elif "language" in change:
        text = log_text(SECTIONS, lang="fr")
    else:
        text = log_text(
            [(day, f"{said} Still true.") if i < 5 else (day, said) for i, (day, said) in enumerate(SECTIONS)]
        )
    (notes / LOG).write_text(text, "utf-8")
    run_build(notes, vault)
    assert {line for path, line in read if path == LOG} >= {line_of(text, f"## {day}") for day, _ in SECTIONS}
    same_as_clean_build(notes, vault, tmp_path / "clean")


def test_drafts_cached_by_other_code_are_not_reused(
    with_log: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    notes, vault = with_log
    index = vault / CACHE_DIR / PATHS_FILE
    recorded = json.loads(index.read_text("utf-8"))
    assert LOG in recorded["paths"]
    index.write_text(json.dumps({**recorded, "code": "an older kgvault"}), "utf-8")
    read = chunks_read(monkeypatch)
    (notes / LOG).write_text(log_text([*SECTIONS, ("2025-04-12", "Watered the beds.")]), "utf-8")
    run_build(notes, vault)
    # Every chunk: the frontmatter, the title's and each section.
    assert len([path for path, _ in read if path == LOG]) == len(SECTIONS) + 3


@pytest.mark.parametrize("watching", [False, True])
def test_seeded_edits_reusing_chunks_equal_clean_builds(
    watching: bool, with_log: tuple[Path, Path], tmp_path: Path
) -> None:
    """Sections appended, edited, inserted and removed, in the log and in other notes."""
    notes, vault = with_log
    memory = BuildMemory() if watching else None
    rng = random.Random(5)
    sections = [*SECTIONS]
    others = sorted(p for p in notes.rglob("*.md") if ".kgvault" not in p.parts and p.name != "log.md")
    for step in range(8):
        kind = rng.choice(["append", "edit", "insert", "remove", "other"])
        day = f"2025-05-{step + 10:02d}"
        if kind == "append":
            sections.append((day, f"Fixed the zq{step} trellis with [[Dana]] today."))
        elif kind == "edit":
            index = rng.randrange(len(sections))
            sections[index] = (sections[index][0], sections[index][1].replace("the", "our", 1))
        elif kind == "insert":
            sections.insert(rng.randrange(len(sections)), (day, "Bought seeds from [[Kitchen Garden Co]]."))
        elif kind == "remove" and len(sections) > 2:
            sections.pop(rng.randrange(len(sections)))
        else:
            note = rng.choice(others)
            note.write_text(note.read_text("utf-8") + f"\n## Later\n\nMet [[Sam]] about zq{step}.\n", "utf-8")
        (notes / LOG).write_text(log_text(sections), "utf-8")
        if memory is None:
            run_build(notes, vault)
        else:
            build(load_settings(notes, vault=vault), memory=memory)
        same_as_clean_build(notes, vault, tmp_path / "clean")


def test_a_damaged_earlier_draft_means_the_note_is_extracted_whole(
    with_log: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    notes, vault = with_log
    key = json.loads((vault / CACHE_DIR / PATHS_FILE).read_text("utf-8"))["paths"][LOG]
    entry = vault / CACHE_DIR / key[:2] / f"{key}.json"
    stored = json.loads(entry.read_text("utf-8"))
    damaged = [x for x in stored["extractions"] if x["draft"].get("nodes")]
    damaged[0]["draft"]["nodes"][0]["memory_layer"] = "dreams"  # no layer a draft may have
    entry.write_text(json.dumps(stored), "utf-8")
    read = chunks_read(monkeypatch)
    (notes / LOG).write_text(log_text([*SECTIONS, ("2025-04-12", "Watered the beds.")]), "utf-8")
    run_build(notes, vault)
    assert len([path for path, _ in read if path == LOG]) == len(SECTIONS) + 3
    same_as_clean_build(notes, vault, tmp_path / "clean")
