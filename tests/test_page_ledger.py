"""The page ledger: a build started afresh renders only the pages an edit changed, and writes the same."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from kgvault.build import BuildMemory, build
from kgvault.config import load_settings
from kgvault.page_ledger import LEDGER

from .conftest import run_build, tree_bytes
from .test_page_memory import count_renders, edit_renders_few, same_as_clean_build


def _built_counting_renders(
    notes: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[Path, list[str], int]:
    """A vault built from the notes, the list recording each page rendered, and how many it rendered."""
    vault = tmp_path / "vault"
    rendered = count_renders(monkeypatch)
    run_build(notes, vault)
    return vault, rendered, len(rendered)


def _append(note: Path, text: str) -> None:
    note.write_text(note.read_text("utf-8") + text, "utf-8")


def test_a_fresh_build_after_an_edit_renders_only_the_pages_it_changes(
    sample_copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault, rendered, everything = _built_counting_renders(sample_copy, tmp_path, monkeypatch)
    assert everything > 100 and (vault / LEDGER).is_file()
    edit_renders_few(sample_copy, vault, tmp_path / "clean", rendered, lambda: run_build(sample_copy, vault))

    rendered.clear()
    (sample_copy / "glossary.md").unlink()
    run_build(sample_copy, vault)
    assert 0 < len(rendered) < everything / 2, rendered
    same_as_clean_build(sample_copy, vault, tmp_path / "clean")


def _without_ledger(vault: Path, twin: Path) -> None:
    """Make `twin` the vault as it is, less its ledger: a build there renders every page."""
    if twin.exists():
        shutil.rmtree(twin)
    shutil.copytree(vault, twin, symlinks=True)
    (twin / LEDGER).unlink()


EDITS = [
    ("an entity renamed in one note", "people/Dana Kim.md", "\nDana Kim goes by Dee Kim now.\n"),
    ("a new link between notes", "daily/2025-06-24.md", "\nMet [[Sam Ortiz]] about the Voron 2.4 today.\n"),
    ("a state switched", "printing/Ender 3.md", "\nSwitched the Ender 3 to Marlin on 3 July 2025.\n"),
    ("a heading added", "glossary.md", "\n## Nozzle\n\nA nozzle is the hot end's tip.\n"),
]


@pytest.mark.parametrize(("what", "path", "text"), EDITS, ids=[e[0] for e in EDITS])
def test_a_build_with_the_ledger_writes_what_one_without_it_writes(
    sample_copy: Path, tmp_path: Path, what: str, path: str, text: str
) -> None:
    vault, twin = tmp_path / "vault", tmp_path / "twin"
    run_build(sample_copy, vault)
    # A page changed by hand above the marker, which the ledger says is unchanged: the writer
    # must still look at it, as it does without a ledger.
    page = next((vault / "entities").glob("*.md"))
    page.write_text(page.read_text("utf-8").replace("\n", "\nA line of mine.\n", 1), "utf-8")
    _append(sample_copy / path, text)
    _without_ledger(vault, twin)
    report = json.dumps({**run_build(sample_copy, vault), "seconds": 0}).replace(str(vault), "VAULT")
    report_twin = json.dumps({**run_build(sample_copy, twin), "seconds": 0}).replace(str(twin), "VAULT")
    assert report == report_twin and "edited by hand" in report
    assert tree_bytes(vault) == tree_bytes(twin)


def test_a_ledger_made_by_other_code_damaged_or_wrong_is_not_trusted(
    sample_copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault, rendered, everything = _built_counting_renders(sample_copy, tmp_path, monkeypatch)
    ledger = vault / LEDGER
    kept = json.loads(ledger.read_bytes())
    note = sample_copy / "printing" / "Klipper.md"

    def rebuilt_pages(ledger_text: str) -> int:
        ledger.write_text(ledger_text, "utf-8")
        _append(note, "\nChecked the belts today.\n")
        rendered.clear()
        run_build(sample_copy, vault)
        same_as_clean_build(sample_copy, vault, tmp_path / "clean")
        return len(rendered)

    assert rebuilt_pages(json.dumps({**kept, "code": "another kgvault"})) >= everything - 5
    assert rebuilt_pages("{not json") >= everything - 5
    assert rebuilt_pages(json.dumps({**kept, "salt": "other templates"})) >= everything - 5
    # Digests of texts no page has: each page is compared with the manifest, and rendered.
    wrong = {path: [made, "0" * 64] for path, (made, _) in json.loads(ledger.read_bytes())["pages"].items()}
    assert rebuilt_pages(json.dumps({**json.loads(ledger.read_bytes()), "pages": wrong})) >= everything - 5
    # The ledger left by that build is whole again: the next edit renders few pages.
    _append(note, "\nOrdered spare belts today.\n")
    rendered.clear()
    run_build(sample_copy, vault)
    assert 0 < len(rendered) < everything / 4


def test_a_ledger_outlived_by_watch_builds_still_tells_true(sample_copy: Path, tmp_path: Path) -> None:
    vault, twin, memory = tmp_path / "vault", tmp_path / "twin", BuildMemory()
    run_build(sample_copy, vault)
    ledger = (vault / LEDGER).read_bytes()
    # Watch builds keep their plans in memory and leave the ledger as the last build made it.
    for line in ("\nSwitched the Voron to Klipper on 2 July 2025.\n", "\nMet [[Dana Kim]] at the shop.\n"):
        _append(sample_copy / "printing" / "Voron 2.4.md", line)
        build(load_settings(sample_copy, vault=vault), memory=memory)
    assert (vault / LEDGER).read_bytes() == ledger
    _append(sample_copy / "daily" / "2025-06-24.md", "\nThe Voron prints well with Klipper.\n")
    _without_ledger(vault, twin)
    run_build(sample_copy, vault)
    run_build(sample_copy, twin)
    assert tree_bytes(vault) == tree_bytes(twin)
    same_as_clean_build(sample_copy, vault, tmp_path / "clean")


def test_a_ledger_that_cannot_be_written_fails_no_build(sample_copy: Path, tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    run_build(sample_copy, vault)
    (vault / LEDGER).unlink()
    (vault / LEDGER).mkdir()  # in the way: the ledger cannot be replaced
    _append(sample_copy / "printing" / "Klipper.md", "\nChecked the belts today.\n")
    run_build(sample_copy, vault)
    assert (vault / LEDGER).is_dir()
    same_as_clean_build(sample_copy, vault, tmp_path / "clean")
