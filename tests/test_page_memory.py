"""What watch keeps between builds: drafts and page plans; less is redone, and nothing differs."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from kgvault import cache as cache_module
from kgvault import render as render_module
from kgvault.build import BuildMemory, build
from kgvault.config import load_settings
from kgvault.extract import offline
from kgvault.render import PageMemory

from .conftest import run_build, tree_bytes


def count_renders(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record the id of every page rendered from a plan (each renders its properties once)."""
    rendered: list[str] = []
    real = render_module.render_properties

    def counting(properties):  # type: ignore[no-untyped-def]
        rendered.append(str(properties.get("id")))
        return real(properties)

    monkeypatch.setattr(render_module, "render_properties", counting)
    return rendered


def rebuild(notes: Path, vault: Path, memory: BuildMemory, templates: Path | None = None) -> None:
    build(load_settings(notes, vault=vault, templates=templates), memory=memory)


def same_as_clean_build(notes: Path, vault: Path, clean: Path, *extra: str) -> None:
    if clean.exists():
        shutil.rmtree(clean)
    run_build(notes, clean, *extra)
    assert tree_bytes(vault) == tree_bytes(clean)


def test_an_edit_renders_only_the_pages_it_changes(
    sample_copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault, memory = tmp_path / "vault", BuildMemory()
    rendered = count_renders(monkeypatch)
    rebuild(sample_copy, vault, memory)
    everything = len(rendered)
    assert everything > 100 and len(memory.pages.pages) == everything

    rendered.clear()
    note = sample_copy / "printing" / "Klipper.md"
    note.write_text(note.read_text("utf-8") + "\nFixed the zq-nozzle clog on the Voron today.\n", "utf-8")
    rebuild(sample_copy, vault, memory)
    assert 0 < len(rendered) < everything / 4, rendered
    assert "printing-klipper-summary" in rendered
    assert any("zq-nozzle" in page_id for page_id in rendered)
    same_as_clean_build(sample_copy, vault, tmp_path / "clean")

    rendered.clear()
    (sample_copy / "glossary.md").unlink()
    rebuild(sample_copy, vault, memory)
    assert not any(path.startswith("sources/glossary") for path in memory.pages.pages)
    same_as_clean_build(sample_copy, vault, tmp_path / "clean")


def test_a_changed_template_renders_every_page_again(
    sample_copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    templates, vault, memory = tmp_path / "templates", tmp_path / "vault", BuildMemory()
    templates.mkdir()
    shipped = Path(render_module.__file__).resolve().parent.parent / "templates" / "node.md.j2"
    shutil.copy(shipped, templates / "node.md.j2")
    rebuild(sample_copy, vault, memory, templates)
    rendered = count_renders(monkeypatch)
    with (templates / "node.md.j2").open("a", encoding="utf-8") as template:
        template.write("\nMade by my own template.\n")
    rebuild(sample_copy, vault, memory, templates)
    node_pages = [p for p in tree_bytes(vault) if p.startswith(("episodic/", "semantic/"))]
    assert len(rendered) >= len(node_pages) > 0
    assert all(b"Made by my own template." in (vault / p).read_bytes() for p in node_pages)
    same_as_clean_build(sample_copy, vault, tmp_path / "clean", "--templates", str(templates))


def test_a_page_edited_by_hand_is_read_not_taken_from_memory(sample_copy: Path, tmp_path: Path) -> None:
    vault, memory = tmp_path / "vault", BuildMemory()
    rebuild(sample_copy, vault, memory)
    # A page the next edit leaves as it is: its plan will be the same, but the file is not.
    page = vault / "sources" / "voyages-lyon-summary.md"
    page.write_text(page.read_text("utf-8").replace("Summary of", "My summary of", 1), "utf-8")
    note = sample_copy / "printing" / "Klipper.md"
    note.write_text(note.read_text("utf-8") + "\nKlipper supports input shaping.\n", "utf-8")
    report = build(load_settings(sample_copy, vault=vault), memory=memory)
    [problem] = [p for p in report.problems if p.path.endswith("sources/voyages-lyon-summary.md")]
    assert "edited by hand" in problem.message
    assert "My summary of" in page.read_text("utf-8")


def test_too_many_pages_keep_no_plans(
    sample_copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(PageMemory, "MAX_PAGES", 10)
    memory = BuildMemory()
    rebuild(sample_copy, tmp_path / "vault", memory)
    assert memory.pages.pages == {}


def test_unchanged_notes_are_neither_extracted_nor_read_from_the_cache_again(
    sample_copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault, memory = tmp_path / "vault", BuildMemory()
    rebuild(sample_copy, vault, memory)
    kept = dict(memory.extractions)
    assert kept
    extracted: list[str] = []
    decoded: list[str] = []
    real_extract, real_decode = offline.extract_chunk, cache_module.decode_entry

    def extracting(chunk, source):  # type: ignore[no-untyped-def]
        extracted.append(chunk.source_path)
        return real_extract(chunk, source)

    def decoding(data, source):  # type: ignore[no-untyped-def]
        decoded.append(source.path)
        return real_decode(data, source)

    monkeypatch.setattr(offline, "extract_chunk", extracting)
    monkeypatch.setattr(cache_module, "decode_entry", decoding)
    note = sample_copy / "printing" / "Klipper.md"
    note.write_text(note.read_text("utf-8") + "\nKlipper supports input shaping.\n", "utf-8")
    rebuild(sample_copy, vault, memory)
    assert set(extracted) == {"printing/Klipper.md"} and decoded == []
    # The edited note's old entry is gone, its new one kept; the others are the same objects.
    assert len(memory.extractions) == len(kept)
    assert sum(
        memory.extractions[key] is entry for key, entry in kept.items() if key in memory.extractions
    ) == (len(kept) - 1)
    same_as_clean_build(sample_copy, vault, tmp_path / "clean")


def test_too_many_notes_keep_no_drafts(
    sample_copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(BuildMemory, "MAX_SOURCES", 3)
    memory = BuildMemory()
    rebuild(sample_copy, tmp_path / "vault", memory)
    assert memory.extractions == {}
