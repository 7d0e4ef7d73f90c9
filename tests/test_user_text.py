"""Nothing a user wrote in the vault is lost, whatever happens to the sources behind it."""

from __future__ import annotations

from pathlib import Path

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
