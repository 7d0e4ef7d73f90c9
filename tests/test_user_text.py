"""Nothing a user wrote in the vault is lost, whatever happens to the sources behind it."""

from __future__ import annotations

from pathlib import Path

import pytest

from kgvault.layout import MARKER

from .conftest import run_build


def test_user_text_and_files_survive_edits_renames_and_deletions(sample_copy: Path, tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    run_build(sample_copy, vault)
    wrote: dict[str, str] = {}
    for rel in (
        "entities/klipper.md",
        "sources/voyages-lyon-summary.md",  # its note will be deleted
        "sources/work-decision-log-summary.md",  # its note will be renamed
        "sources/daily-2025-06-24-summary.md",  # its note will be edited
        "episodic/2025-04-05-frame-and-gantry.md",
    ):
        page = vault / rel
        sentence = f"My own words on {rel}."
        page.write_text(page.read_text("utf-8") + sentence + "\n", "utf-8")
        wrote[rel] = sentence
    own_files = {
        "my-note.md": "# Mine\n",
        "entities/my-entity-sketch.md": "A page I made in kgvault's folder.\n",
        "sources/reading-list.txt": "books\n",
    }
    for rel, text in own_files.items():
        (vault / rel).write_text(text, "utf-8")

    episodes = (vault / "episodic").glob("*.md")
    from_lyon = [p for p in episodes if "voyages-lyon-summary" in p.read_text("utf-8")]
    assert from_lyon
    (sample_copy / "voyages" / "lyon.md").unlink()
    (sample_copy / "work" / "decision-log.md").rename(sample_copy / "work" / "decisions.md")
    with (sample_copy / "daily" / "2025-06-24.md").open("a", encoding="utf-8") as note:
        note.write("\nFixed the [[Voron 2.4]] belt tension.\n")
    report = run_build(sample_copy, vault)

    for rel, sentence in wrote.items():
        text = (vault / rel).read_text("utf-8")
        assert text.endswith(f"{MARKER}\n{sentence}\n"), rel
    for rel, text in own_files.items():
        assert (vault / rel).read_text("utf-8") == text
    # Pages whose sources are gone but which hold your words are kept and reported, never deleted.
    assert report["files"]["orphaned"] == 2  # type: ignore[index]
    index = (vault / "index.md").read_text("utf-8")
    assert "sources/voyages-lyon-summary.md" in index and "sources/work-decision-log-summary.md" in index
    assert (vault / "sources" / "work-decisions-summary.md").exists()
    # Pages without your words whose sources are gone are removed.
    assert not (
        vault / "episodic" / "nous-sommes-arrives-a-lyon-vendredi-soir-epuises-par-le-vol.md"
    ).exists()


def test_a_page_orphaned_while_its_note_was_away_is_taken_back_when_the_note_returns(
    sample_copy: Path, tmp_path: Path
) -> None:
    vault = tmp_path / "vault"
    run_build(sample_copy, vault)
    annotated, edited = (
        vault / "sources" / "voyages-lyon-summary.md",
        vault / "sources" / "work-decision-log-summary.md",
    )
    for page in (annotated, edited):
        page.write_text(page.read_text("utf-8") + "My own words.\n", "utf-8")
    lyon, log = sample_copy / "voyages" / "lyon.md", sample_copy / "work" / "decision-log.md"
    away = tmp_path / "away"
    away.mkdir()
    lyon.rename(away / "lyon.md")  # a branch switched, a note moved out for a while
    log.rename(away / "decision-log.md")
    assert run_build(sample_copy, vault)["files"]["orphaned"] == 2  # type: ignore[index]
    # Another build while they are away changes nothing of that: the index still lists them.
    (sample_copy / "daily" / "2025-06-24.md").write_text("Fixed the [[Voron 2.4]] belt tension.\n", "utf-8")
    run_build(sample_copy, vault)
    index = (vault / "index.md").read_text("utf-8")
    assert "sources/voyages-lyon-summary.md" in index and "sources/work-decision-log-summary.md" in index
    # The user edits the generated part of one orphan: that page is theirs now.
    edited.write_text(edited.read_text("utf-8").replace("# ", "# Mine: ", 1), "utf-8")
    with (away / "lyon.md").open("a", encoding="utf-8") as note:  # and it changed while away
        note.write("\nRevisited the [[Musée des Confluences]] on 2025-05-20.\n")
    (away / "lyon.md").rename(lyon)
    (away / "decision-log.md").rename(log)
    report = run_build(sample_copy, vault)

    clean = tmp_path / "clean"
    run_build(sample_copy, clean)
    generated = (clean / "sources" / "voyages-lyon-summary.md").read_text("utf-8")
    assert "Musée des Confluences" in generated
    assert annotated.read_text("utf-8") == generated + "My own words.\n"  # updated again, words kept
    assert not [p for p in report["problems"] if p["path"] == str(annotated)]  # type: ignore[union-attr]
    assert "# Mine: " in edited.read_text("utf-8")  # an edited one is left as the user made it
    kept = [p for p in report["problems"] if p["path"] == str(edited)]  # type: ignore[union-attr]
    assert len(kept) == 1 and "did not write" in kept[0]["message"], report["problems"]
    assert not (vault / ".kgvault" / "orphans.json").exists() or "voyages-lyon" not in (
        vault / ".kgvault" / "orphans.json"
    ).read_text("utf-8")


def test_words_written_below_the_marker_while_a_build_writes_are_kept(
    sample_copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import kgvault.write

    vault = tmp_path / "vault"
    run_build(sample_copy, vault)
    page = vault / "sources" / "daily-2025-06-24-summary.md"
    page.write_text(page.read_text("utf-8") + "Read before the build.\n", "utf-8")
    flush = kgvault.write._VaultWrite.flush

    def editor_saves_meanwhile(self: kgvault.write._VaultWrite, writes: kgvault.write._PendingWrites) -> None:
        if page.exists():  # the page was read and decided; an editor saves it before it is written
            page.write_text(page.read_text("utf-8") + "Saved during the build.\n", "utf-8")
        flush(self, writes)

    monkeypatch.setattr(kgvault.write._VaultWrite, "flush", editor_saves_meanwhile)
    with (sample_copy / "daily" / "2025-06-24.md").open("a", encoding="utf-8") as note:
        note.write("\nSwitched the Voron to a new toolhead.\n")
    run_build(sample_copy, vault)
    text = page.read_text("utf-8")
    assert "new toolhead" in text  # the build's update went in
    assert text.endswith(
        f"{MARKER}\nRead before the build.\nSaved during the build.\n"
    )  # and both words stay


def test_an_orphaned_page_the_user_deleted_leaves_the_index_at_the_next_build(
    sample_copy: Path, tmp_path: Path
) -> None:
    vault = tmp_path / "vault"
    run_build(sample_copy, vault)
    page = vault / "sources" / "voyages-lyon-summary.md"
    page.write_text(page.read_text("utf-8") + "My own words.\n", "utf-8")
    (sample_copy / "voyages" / "lyon.md").unlink()
    run_build(sample_copy, vault)
    # A later build with another change: the page stays listed (it records the vault anew).
    with (sample_copy / "daily" / "2025-06-24.md").open("a", encoding="utf-8") as note:
        note.write("\nFixed the [[Voron 2.4]] belt tension.\n")
    run_build(sample_copy, vault)
    assert "sources/voyages-lyon-summary.md" in (vault / "index.md").read_text("utf-8")
    page.unlink()  # the user is done with it
    run_build(sample_copy, vault)
    assert "sources/voyages-lyon-summary.md" not in (vault / "index.md").read_text("utf-8")
