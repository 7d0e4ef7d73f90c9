"""The write stage (DESIGN §3 "User region and ownership", "Small print"; OBSIDIAN.md rule 15)."""

from __future__ import annotations

import hashlib
import json
import os
import stat
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import kgvault.write as write_module
from kgvault.layout import FOLDERS, MARKER, PROPERTY_TYPES, TOP_LEVEL_FILES
from kgvault.write import (
    BACKUP_DIR,
    MANIFEST,
    PENDING,
    ManifestMemory,
    WriteResult,
    atomic_write,
    find_orphans,
    manifest_text,
    read_owned,
    split_page,
    write_vault,
)

from .conftest import record_calls

TAIL = MARKER + "\n"


def page(body: str, page_id: str = "x") -> str:
    """A generated Markdown page as render makes it: frontmatter, body, the marker line last."""
    return f"---\nid: {page_id}\n---\n{body}\n\n{TAIL}"


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def tree(root: Path) -> dict[str, tuple[bytes | None, int]]:
    """Every file and folder under root with its bytes and mtime_ns."""
    found: dict[str, tuple[bytes | None, int]] = {}
    if not root.exists():
        return found
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        info = path.lstat()
        found[rel] = (None if path.is_dir() else path.read_bytes(), info.st_mtime_ns)
    return found


def manifest(vault: Path) -> dict[str, object]:
    data = json.loads((vault / MANIFEST).read_text("utf-8"))
    assert isinstance(data, dict)
    return data


def owned_files(vault: Path) -> dict[str, str]:
    files = manifest(vault)["files"]
    assert isinstance(files, dict)
    return files


def messages(result: WriteResult, path: str) -> list[str]:
    return [p.message for p in result.problems if p.path == path]


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    return tmp_path / "vault"


@pytest.fixture
def pages() -> dict[str, str]:
    return {
        "episodic/switched-to-marlin.md": page("Switched to Marlin.", "switched-to-marlin"),
        "entities/marlin.md": page("## Overview\n\nFirmware.", "marlin"),
        "sources/journal-summary.md": page("Summary.", "journal-summary"),
        "index.md": page("# Index", "index"),
        "relations.jsonl": '{"from":"ana","relation":"uses","to":"marlin"}\n',
    }


# --- split_page ------------------------------------------------------------------------------------


def test_split_page_with_marker_and_user_text() -> None:
    generated = page("body")
    assert split_page("a.md", generated + "my notes\n") == (generated, "my notes\n")


def test_split_page_with_marker_and_no_user_text() -> None:
    generated = page("body")
    assert split_page("a.md", generated) == (generated, "")


def test_split_page_marker_missing_final_newline() -> None:
    generated = page("body")
    assert split_page("a.md", generated[:-1]) == (generated, "")


def test_split_page_marker_at_start() -> None:
    assert split_page("a.md", TAIL + "mine") == (TAIL, "mine")


def test_split_page_without_marker_is_none() -> None:
    assert split_page("a.md", "---\nid: x\n---\nbody\n") is None
    assert split_page("a.md", "") is None


def test_split_page_marker_must_be_a_whole_line() -> None:
    assert split_page("a.md", f"body\n{MARKER} and more\n") is None
    assert split_page("a.md", f"body {MARKER}\n") is None


def test_split_page_first_marker_wins() -> None:
    generated = page("body")
    user = f"notes\n{TAIL}more notes\n"
    assert split_page("a.md", generated + user) == (generated, user)


def test_split_page_non_markdown_is_generated_whole() -> None:
    text = '{"a":1}\n' + TAIL + "after\n"
    assert split_page("relations.jsonl", text) == (text, "")
    assert split_page("kgvault.base", "views: []\n") == ("views: []\n", "")


# --- atomic_write ----------------------------------------------------------------------------------


def test_atomic_write_creates_parents_and_leaves_no_temp_files(tmp_path: Path) -> None:
    target = tmp_path / "a" / "b" / "c.md"
    atomic_write(target, b"hello")
    assert target.read_bytes() == b"hello"
    assert sorted(p.name for p in target.parent.iterdir()) == ["c.md"]


def test_atomic_write_replaces_content(tmp_path: Path) -> None:
    target = tmp_path / "c.md"
    target.write_bytes(b"old content that is longer")
    atomic_write(target, b"new")
    assert target.read_bytes() == b"new"
    assert [p.name for p in tmp_path.iterdir()] == ["c.md"]


def test_atomic_write_failure_keeps_old_bytes_and_no_temp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "c.md"
    target.write_bytes(b"old")

    def broken_replace(src: object, dst: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(write_module.os, "replace", broken_replace)
    with pytest.raises(OSError):
        atomic_write(target, b"new")
    assert target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["c.md"]


def test_atomic_write_gives_files_the_usual_permissions(tmp_path: Path) -> None:
    # A compiler's output files get the mode any other program would give them (0o666 & ~umask),
    # not mkstemp's private 0o600.
    umask = os.umask(0o022)
    try:
        atomic_write(tmp_path / "new.md", b"x")
        (tmp_path / "plain.md").write_bytes(b"x")
    finally:
        os.umask(umask)
    mode = stat.S_IMODE((tmp_path / "new.md").stat().st_mode)
    assert mode == stat.S_IMODE((tmp_path / "plain.md").stat().st_mode) == 0o644, oct(mode)


# --- first write and the manifest --------------------------------------------------------------------


def test_first_write_creates_pages_and_manifest(vault: Path, pages: dict[str, str]) -> None:
    result = write_vault(vault, pages)
    assert sorted(result.written) == sorted(pages)
    assert result.problems == [] and result.kept == [] and result.removed == [] and result.orphaned == []
    for path, text in pages.items():
        assert (vault / path).read_bytes() == text.encode("utf-8")
    data = manifest(vault)
    assert data["version"] == 1
    files = owned_files(vault)
    assert list(files) == sorted(pages)
    assert files == {path: digest(text) for path, text in pages.items()}
    assert not (vault / PENDING).exists()


def test_manifest_is_deterministic_and_has_no_times_or_absolute_paths(
    tmp_path: Path, pages: dict[str, str]
) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    write_vault(one, pages)
    write_vault(two, dict(reversed(list(pages.items()))))
    text = (one / MANIFEST).read_text("utf-8")
    assert text == (two / MANIFEST).read_text("utf-8")
    assert text == manifest_text({p: digest(t) for p, t in pages.items()})
    assert str(tmp_path) not in text
    assert text.endswith("\n")


def test_same_pages_give_byte_identical_vaults(tmp_path: Path, pages: dict[str, str]) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    write_vault(one, pages)
    write_vault(two, dict(sorted(pages.items(), reverse=True)))
    assert {k: v[0] for k, v in tree(one).items()} == {k: v[0] for k, v in tree(two).items()}


def test_second_identical_write_rewrites_nothing(vault: Path, pages: dict[str, str]) -> None:
    write_vault(vault, pages)
    before = tree(vault)
    result = write_vault(vault, pages)
    assert result.written == []
    assert sorted(result.unchanged) == sorted(pages)
    assert result.problems == [] and result.removed == [] and result.kept == []
    assert tree(vault) == before  # same bytes and same mtime_ns, manifest and .obsidian included


def test_changed_page_is_rewritten_others_untouched(vault: Path, pages: dict[str, str]) -> None:
    write_vault(vault, pages)
    before = tree(vault)
    changed = {**pages, "entities/marlin.md": page("## Overview\n\nFirmware, v2.", "marlin")}
    result = write_vault(vault, changed)
    assert result.written == ["entities/marlin.md"]
    after = tree(vault)
    for path in pages:
        if path != "entities/marlin.md":
            assert after[path] == before[path]
    assert owned_files(vault) == {p: digest(t) for p, t in changed.items()}


# --- the user region ------------------------------------------------------------------------------


def test_user_text_below_marker_survives_a_rewrite(vault: Path, pages: dict[str, str]) -> None:
    write_vault(vault, pages)
    path = "entities/marlin.md"
    mine = "My own notes about [[Marlin]].\n\n- keep me\n"
    (vault / path).write_text(pages[path] + mine, "utf-8")
    new_generated = page("## Overview\n\nChanged.", "marlin")
    result = write_vault(vault, {**pages, path: new_generated})
    assert result.written == [path]
    assert (vault / path).read_text("utf-8") == new_generated + mine
    assert owned_files(vault)[path] == digest(new_generated)
    # A further identical build leaves it alone.
    result = write_vault(vault, {**pages, path: new_generated})
    assert path in result.unchanged
    assert (vault / path).read_text("utf-8") == new_generated + mine


def test_user_text_below_marker_alone_is_not_an_edit(vault: Path, pages: dict[str, str]) -> None:
    write_vault(vault, pages)
    path = "index.md"
    (vault / path).write_text(pages[path] + "notes\n", "utf-8")
    result = write_vault(vault, pages)
    assert result.problems == []
    assert path in result.unchanged
    assert (vault / path).read_text("utf-8") == pages[path] + "notes\n"


# --- user files -----------------------------------------------------------------------------------


def test_users_own_file_is_never_touched(vault: Path, pages: dict[str, str]) -> None:
    (vault / "entities").mkdir(parents=True)
    (vault / "my-note.md").write_text("mine\n", "utf-8")
    (vault / "entities" / "my-entity.md").write_text("also mine\n", "utf-8")
    write_vault(vault, pages)
    before = {k: v for k, v in tree(vault).items() if k in {"my-note.md", "entities/my-entity.md"}}
    write_vault(vault, {})  # everything kgvault wrote is now stale
    after = tree(vault)
    assert after["my-note.md"] == before["my-note.md"]
    assert after["entities/my-entity.md"] == before["entities/my-entity.md"]
    assert "my-note.md" not in owned_files(vault)


def test_users_file_in_the_way_of_a_page_is_kept_and_reported(vault: Path, pages: dict[str, str]) -> None:
    path = "entities/marlin.md"
    (vault / "entities").mkdir(parents=True)
    (vault / path).write_text("# Marlin\n\nMy hand-written page.\n", "utf-8")
    before = tree(vault)[path]
    result = write_vault(vault, pages)
    assert tree(vault)[path] == before
    assert path in result.kept
    assert path not in result.written
    assert messages(result, path), result.problems
    assert path not in owned_files(vault)
    # It stays the user's on the next build too, and is not deleted when the page goes away.
    result = write_vault(vault, pages)
    assert path in result.kept and tree(vault)[path] == before
    result = write_vault(vault, {p: t for p, t in pages.items() if p != path})
    assert tree(vault)[path] == before
    assert path not in result.removed and path not in result.orphaned


def test_users_file_that_looks_generated_is_still_the_users(vault: Path, pages: dict[str, str]) -> None:
    # Even a byte-identical file is not kgvault's unless the manifest says so.
    path = "index.md"
    vault.mkdir()
    (vault / path).write_text(pages[path], "utf-8")
    mtime = (vault / path).stat().st_mtime_ns
    result = write_vault(vault, {path: page("# New index", "index")})
    assert path in result.kept
    assert (vault / path).read_text("utf-8") == pages[path]
    assert (vault / path).stat().st_mtime_ns == mtime


def test_a_folder_in_the_way_is_reported(vault: Path) -> None:
    (vault / "index.md").mkdir(parents=True)
    result = write_vault(vault, {"index.md": page("i")})
    assert "index.md" in result.kept
    assert messages(result, "index.md")
    assert (vault / "index.md").is_dir()


# --- stale pages: removal and orphans --------------------------------------------------------------


def test_untouched_stale_page_is_deleted(vault: Path, pages: dict[str, str]) -> None:
    write_vault(vault, pages)
    gone = "episodic/switched-to-marlin.md"
    rest = {p: t for p, t in pages.items() if p != gone}
    result = write_vault(vault, rest)
    assert result.removed == [gone]
    assert not (vault / gone).exists()
    assert owned_files(vault) == {p: digest(t) for p, t in rest.items()}
    assert result.orphaned == []


def test_stale_page_the_user_wrote_in_is_kept_as_orphan(vault: Path, pages: dict[str, str]) -> None:
    write_vault(vault, pages)
    gone = "episodic/switched-to-marlin.md"
    text = pages[gone] + "I wrote this.\n"
    (vault / gone).write_text(text, "utf-8")
    rest = {p: t for p, t in pages.items() if p != gone}
    assert find_orphans(vault, set(rest)) == [gone]
    result = write_vault(vault, rest)
    assert result.orphaned == [gone]
    assert gone not in result.removed
    assert (vault / gone).read_text("utf-8") == text
    assert gone not in owned_files(vault)
    # It is the user's now: later builds leave it alone.
    result = write_vault(vault, rest)
    assert (vault / gone).read_text("utf-8") == text
    assert gone not in result.removed


def test_stale_page_with_edited_generated_part_is_orphaned(vault: Path, pages: dict[str, str]) -> None:
    write_vault(vault, pages)
    gone = "sources/journal-summary.md"
    text = pages[gone].replace("Summary.", "Summary, corrected by me.")
    (vault / gone).write_text(text, "utf-8")
    result = write_vault(vault, {p: t for p, t in pages.items() if p != gone})
    assert result.orphaned == [gone]
    assert (vault / gone).read_text("utf-8") == text


def test_stale_page_that_lost_its_marker_is_orphaned(vault: Path, pages: dict[str, str]) -> None:
    write_vault(vault, pages)
    gone = "index.md"
    (vault / gone).write_text("---\nid: index\n---\nrewritten by hand\n", "utf-8")
    result = write_vault(vault, {p: t for p, t in pages.items() if p != gone})
    assert result.orphaned == [gone]
    assert (vault / gone).exists()


def test_emptied_folders_are_removed_but_the_root_stays(vault: Path) -> None:
    pages = {"episodic/a.md": page("a"), "episodic/b.md": page("b"), "entities/c.md": page("c")}
    write_vault(vault, pages, obsidian=False)
    write_vault(vault, {"episodic/b.md": page("b")}, obsidian=False)
    assert not (vault / "episodic/a.md").exists()
    assert not (vault / "entities").exists()
    assert (vault / "episodic/b.md").exists()
    write_vault(vault, {}, obsidian=False)
    assert not (vault / "episodic").exists()
    assert vault.is_dir()
    assert sorted(p.relative_to(vault).as_posix() for p in vault.rglob("*") if p.is_file()) == [MANIFEST]


def test_folder_with_a_user_file_is_not_removed(vault: Path) -> None:
    write_vault(vault, {"entities/a.md": page("a")}, obsidian=False)
    (vault / "entities" / "mine.md").write_text("mine", "utf-8")
    (vault / "entities" / "empty-folder-of-mine").mkdir()
    write_vault(vault, {}, obsidian=False)
    assert (vault / "entities" / "mine.md").read_text("utf-8") == "mine"
    assert (vault / "entities" / "empty-folder-of-mine").is_dir()


# --- hand edits of the generated part -------------------------------------------------------------


def test_hand_edited_generated_part_is_kept_and_reported(vault: Path, pages: dict[str, str]) -> None:
    write_vault(vault, pages)
    path = "entities/marlin.md"
    edited = pages[path].replace("Firmware.", "Firmware (fixed by hand).") + "and notes\n"
    (vault / path).write_text(edited, "utf-8")
    new = {**pages, path: page("## Overview\n\nNew text.", "marlin")}
    result = write_vault(vault, new)
    assert path in result.kept
    assert path not in result.written
    assert messages(result, path)
    assert (vault / path).read_text("utf-8") == edited
    assert not (vault / BACKUP_DIR).exists()
    # Still the same on the next build: the edit is not forgotten (the manifest keeps the old hash).
    assert owned_files(vault)[path] == digest(pages[path])
    result = write_vault(vault, new)
    assert path in result.kept
    assert (vault / path).read_text("utf-8") == edited


def test_hand_edited_non_markdown_file_is_kept(vault: Path, pages: dict[str, str]) -> None:
    write_vault(vault, pages)
    path = "relations.jsonl"
    (vault / path).write_text("edited\n", "utf-8")
    result = write_vault(vault, {**pages, path: '{"new":1}\n'})
    assert path in result.kept
    assert (vault / path).read_text("utf-8") == "edited\n"


def test_removed_marker_counts_as_an_edit(vault: Path, pages: dict[str, str]) -> None:
    write_vault(vault, pages)
    path = "index.md"
    text = pages[path].replace(TAIL, "")
    (vault / path).write_text(text, "utf-8")
    result = write_vault(vault, pages)
    assert path in result.kept
    assert (vault / path).read_text("utf-8") == text


def test_force_backs_up_then_overwrites_keeping_the_user_region(vault: Path, pages: dict[str, str]) -> None:
    write_vault(vault, pages)
    path = "entities/marlin.md"
    mine = "my notes stay\n"
    edited = pages[path].replace("Firmware.", "Hand edit.") + mine
    (vault / path).write_text(edited, "utf-8")
    new_generated = page("## Overview\n\nRegenerated.", "marlin")
    result = write_vault(vault, {**pages, path: new_generated}, force=True)
    assert path in result.written
    assert path not in result.kept
    (backup,) = (vault / BACKUP_DIR).glob(f"{path}.*")
    assert backup.read_text("utf-8") == edited
    assert (vault / path).read_text("utf-8") == new_generated + mine
    assert owned_files(vault)[path] == digest(new_generated)
    assert BACKUP_DIR + "/" + path not in owned_files(vault)
    # And now it is clean again.
    result = write_vault(vault, {**pages, path: new_generated})
    assert path in result.unchanged and result.problems == []


def test_force_on_a_page_that_lost_only_its_marker_keeps_just_the_users_words(
    vault: Path, pages: dict[str, str]
) -> None:
    write_vault(vault, pages)
    path = "entities/marlin.md"
    mine = "my precious notes\n\nwith a blank line\n"
    (vault / path).write_text(pages[path].replace(TAIL, "") + mine, "utf-8")
    new_generated = page("## Overview\n\nRegenerated.", "marlin")
    result = write_vault(vault, {**pages, path: new_generated})
    assert path in result.kept
    assert "is gone" in messages(result, path)[0]
    write_vault(vault, {**pages, path: new_generated}, force=True)
    # The old generated part (proven by its recorded hash) is replaced, not kept as the user's text.
    assert (vault / path).read_text("utf-8") == new_generated + mine


def test_force_on_a_page_without_marker_and_other_edits_keeps_all_of_it(
    vault: Path, pages: dict[str, str]
) -> None:
    write_vault(vault, pages)
    path = "entities/marlin.md"
    edited = pages[path].replace(TAIL, "").replace("Firmware.", "Firmware, edited.") + "my notes\n"
    (vault / path).write_text(edited, "utf-8")
    new_generated = page("## Overview\n\nRegenerated.", "marlin")
    write_vault(vault, {**pages, path: new_generated}, force=True)
    assert (vault / path).read_text("utf-8") == new_generated + edited


def test_force_with_same_generated_content_restores_it(vault: Path, pages: dict[str, str]) -> None:
    write_vault(vault, pages)
    path = "index.md"
    (vault / path).write_text(pages[path].replace("# Index", "# My Index"), "utf-8")
    write_vault(vault, pages, force=True)
    assert (vault / path).read_text("utf-8") == pages[path]
    assert list((vault / BACKUP_DIR).glob(f"{path}.*"))


def test_force_never_touches_users_files(vault: Path, pages: dict[str, str]) -> None:
    path = "entities/marlin.md"
    (vault / "entities").mkdir(parents=True)
    (vault / path).write_text("mine\n", "utf-8")
    result = write_vault(vault, pages, force=True)
    assert (vault / path).read_text("utf-8") == "mine\n"
    assert path in result.kept
    assert not list((vault / BACKUP_DIR).glob(f"{path}.*"))


@pytest.mark.parametrize(
    ("theirs", "ours"),
    [("mine\n", False), ('{"from":"x","relation":"uses","to":"y"}\n', True), ("", True)],
)
def test_a_relations_file_no_manifest_lists_is_taken_back_only_when_it_looks_like_ours(
    vault: Path, pages: dict[str, str], theirs: str, ours: bool
) -> None:
    """Found by fuzzing: a user's `relations.jsonl` saying "mine" was said to look like kgvault's own,
    and --force would have taken it (after a backup)."""
    vault.mkdir(parents=True)
    (vault / "relations.jsonl").write_text(theirs, "utf-8")
    kept = write_vault(vault, pages)
    assert any("looks like kgvault's own" in m for m in messages(kept, "relations.jsonl")) is ours
    forced = write_vault(vault, pages, force=True)
    assert ((vault / "relations.jsonl").read_text("utf-8") == theirs) is not ours
    assert ("relations.jsonl" in forced.kept) is not ours


# --- dry run --------------------------------------------------------------------------------------


def test_dry_run_on_empty_vault_writes_nothing(tmp_path: Path, pages: dict[str, str]) -> None:
    vault = tmp_path / "vault"
    result = write_vault(vault, pages, dry_run=True)
    assert sorted(result.written) == sorted(pages)
    assert not vault.exists()
    assert list(tmp_path.iterdir()) == []


def test_dry_run_writes_nothing_at_all(vault: Path, pages: dict[str, str]) -> None:
    write_vault(vault, pages)
    edited = "entities/marlin.md"
    (vault / edited).write_text(pages[edited].replace("Firmware.", "Edited."), "utf-8")
    (vault / "index.md").write_text(pages["index.md"] + "notes\n", "utf-8")
    (vault / "mine.md").write_text("mine", "utf-8")
    (vault / ".obsidian" / "graph.json").unlink()
    before = tree(vault)
    new = {p: t for p, t in pages.items() if p != "episodic/switched-to-marlin.md"}
    new["semantic/new-fact.md"] = page("fact")
    new["index.md"] = page("# Index v2", "index")
    new[edited] = page("## Overview\n\nv2", "marlin")
    for force in (False, True):
        result = write_vault(vault, new, dry_run=True, force=force)
        assert tree(vault) == before
        assert "semantic/new-fact.md" in result.written
        assert "index.md" in result.written
        assert result.removed == ["episodic/switched-to-marlin.md"]
    assert not (vault / BACKUP_DIR).exists()
    assert not (vault / PENDING).exists()


# --- .obsidian ------------------------------------------------------------------------------------


def test_obsidian_settings_created_when_absent(vault: Path, pages: dict[str, str]) -> None:
    write_vault(vault, pages)
    types = json.loads((vault / ".obsidian/types.json").read_text("utf-8"))
    assert types == {"types": PROPERTY_TYPES}
    graph = json.loads((vault / ".obsidian/graph.json").read_text("utf-8"))
    queries = [group["query"] for group in graph["colorGroups"]]
    assert "path:episodic" in queries
    assert sorted(p.name for p in (vault / ".obsidian").iterdir()) == ["graph.json", "types.json"]


def test_existing_graph_json_is_never_modified(vault: Path, pages: dict[str, str]) -> None:
    (vault / ".obsidian").mkdir(parents=True)
    graph = vault / ".obsidian/graph.json"
    graph.write_text('{"showTags": true}', "utf-8")
    mtime = graph.stat().st_mtime_ns
    write_vault(vault, pages)
    write_vault(vault, {})
    assert graph.read_text("utf-8") == '{"showTags": true}'
    assert graph.stat().st_mtime_ns == mtime


def test_existing_types_json_only_gains_missing_keys(vault: Path, pages: dict[str, str]) -> None:
    (vault / ".obsidian").mkdir(parents=True)
    path = vault / ".obsidian/types.json"
    user = {"types": {"title": "multitext", "timestamp": "datetime", "mine": "checkbox"}, "extra": [1, 2]}
    path.write_text(json.dumps(user), "utf-8")
    write_vault(vault, pages)
    data = json.loads(path.read_text("utf-8"))
    assert data["extra"] == [1, 2]
    assert data["types"]["title"] == "multitext"
    assert data["types"]["timestamp"] == "datetime"
    assert data["types"]["mine"] == "checkbox"
    mine = {"title", "timestamp", "mine"}
    assert set(data["types"]) == set(PROPERTY_TYPES) | mine
    for key, value in PROPERTY_TYPES.items():
        if key not in mine:
            assert data["types"][key] == value
    # Complete now: the next build leaves it alone.
    mtime = path.stat().st_mtime_ns
    write_vault(vault, pages)
    assert path.stat().st_mtime_ns == mtime


def test_complete_types_json_is_not_rewritten(vault: Path, pages: dict[str, str]) -> None:
    (vault / ".obsidian").mkdir(parents=True)
    path = vault / ".obsidian/types.json"
    text = json.dumps({"types": {**PROPERTY_TYPES, "title": "multitext"}})  # one line, user's formatting
    path.write_text(text, "utf-8")
    write_vault(vault, pages)
    assert path.read_text("utf-8") == text


def test_unreadable_types_json_is_reported_and_untouched(vault: Path, pages: dict[str, str]) -> None:
    (vault / ".obsidian").mkdir(parents=True)
    path = vault / ".obsidian/types.json"
    path.write_text("{not json", "utf-8")
    result = write_vault(vault, pages)
    assert path.read_text("utf-8") == "{not json"
    assert messages(result, ".obsidian/types.json")


def test_no_obsidian_folder_when_disabled(vault: Path, pages: dict[str, str]) -> None:
    write_vault(vault, pages, obsidian=False)
    assert not (vault / ".obsidian").exists()
    assert (vault / "index.md").exists()


def test_obsidian_files_are_not_in_the_manifest(vault: Path, pages: dict[str, str]) -> None:
    write_vault(vault, pages)
    files = owned_files(vault)
    assert not any(p.startswith(".") for p in files)


# --- a build killed half-way -----------------------------------------------------------------------


def test_stale_pending_manifest_is_owned_by_the_next_write(vault: Path, pages: dict[str, str]) -> None:
    write_vault(vault, pages)
    # A killed build: it recorded what it was about to write, wrote some of it, never wrote manifest.json.
    new_path = "semantic/new-fact.md"
    changed_path = "entities/marlin.md"
    killed = {**pages, new_path: page("fact v1"), changed_path: page("## Overview\n\nv1", "marlin")}
    (vault / PENDING).write_text(manifest_text({p: digest(t) for p, t in killed.items()}), "utf-8")
    for path in (new_path, changed_path):
        atomic_write(vault / path, killed[path].encode("utf-8"))

    final = {**pages, new_path: page("fact v2"), changed_path: page("## Overview\n\nv2", "marlin")}
    result = write_vault(vault, final)
    assert result.problems == [] and result.kept == [] and result.orphaned == []
    assert sorted(result.written) == [changed_path, new_path]
    for path in (new_path, changed_path):
        assert (vault / path).read_text("utf-8") == final[path]
    assert owned_files(vault) == {p: digest(t) for p, t in final.items()}
    assert not (vault / PENDING).exists()


def test_a_rebuild_records_first_only_what_the_manifest_does_not_say(
    vault: Path, pages: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    write_vault(vault, pages)
    # An interrupted build left a hash the manifest does not have; this rebuild is killed as well.
    changed_path, earlier = "entities/marlin.md", page("## Overview\n\nv0", "marlin")
    (vault / PENDING).write_text(manifest_text({changed_path: digest(earlier)}), "utf-8")
    recorded: list[dict[str, list[str]]] = []

    def killed(path: Path | str, data: bytes, **options: bool) -> None:
        if str(path).endswith(PENDING):
            recorded.append(json.loads(data)["files"])
            raise KeyboardInterrupt  # killed right after recording what it is about to write

    monkeypatch.setattr(write_module, "atomic_write", killed)
    final = {**pages, changed_path: page("## Overview\n\nv2", "marlin")}
    with pytest.raises(KeyboardInterrupt):
        write_vault(vault, final)
    # One page changes: the manifest's hash, the interrupted build's and the new one, nothing else.
    assert recorded == [
        {changed_path: sorted({digest(pages[changed_path]), digest(earlier), digest(final[changed_path])})}
    ]


def test_stale_pending_file_no_longer_wanted_is_removed(vault: Path, pages: dict[str, str]) -> None:
    write_vault(vault, pages)
    new_path = "semantic/half-written.md"
    pending = {**{p: digest(t) for p, t in pages.items()}, new_path: digest(page("half"))}
    (vault / PENDING).write_text(manifest_text(pending), "utf-8")
    atomic_write(vault / new_path, page("half").encode("utf-8"))
    result = write_vault(vault, pages)
    assert result.removed == [new_path]
    assert not (vault / new_path).exists()
    assert not (vault / "semantic").exists()
    assert not (vault / PENDING).exists()


def test_build_interrupted_mid_write_is_completed_by_the_next(
    vault: Path, pages: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    write_vault(vault, pages)
    real = write_module.atomic_write

    def dies_on(path: Path | str, data: bytes, **options: bool) -> None:
        if Path(path).name == "switched-to-marlin.md":
            raise KeyboardInterrupt
        real(path, data, **options)

    changed = {p: t.replace("\n\n" + TAIL, "\nv2\n\n" + TAIL) for p, t in pages.items()}
    monkeypatch.setattr(write_module, "atomic_write", dies_on)
    with pytest.raises(KeyboardInterrupt):
        write_vault(vault, changed)
    assert (vault / PENDING).exists()
    monkeypatch.setattr(write_module, "atomic_write", real)
    result = write_vault(vault, changed)
    assert result.problems == [] and result.kept == []
    for path, text in changed.items():
        assert (vault / path).read_text("utf-8") == text
    assert not (vault / PENDING).exists()


def test_two_interrupted_builds_in_a_row_are_completed_by_the_next(
    vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Build 1 writes a.md and dies on b.md; build 2 (inputs changed again) dies before it rewrites
    # a.md. a.md still holds build 1's bytes, which build 1 recorded as kgvault's: build 3 must
    # update it, not mistake it for a hand edit.
    write_vault(vault, {"entities/a.md": page("A0"), "entities/b.md": page("B0")}, obsidian=False)
    real = write_module.atomic_write

    def dies_on(name: str) -> Callable[..., None]:
        def write(path: Path | str, data: bytes, **options: bool) -> None:
            if Path(path).name == name:
                raise KeyboardInterrupt
            real(path, data, **options)

        return write

    monkeypatch.setattr(write_module, "atomic_write", dies_on("b.md"))
    with pytest.raises(KeyboardInterrupt):
        write_vault(vault, {"entities/a.md": page("A1"), "entities/b.md": page("B1")}, obsidian=False)
    assert (vault / "entities/a.md").read_text("utf-8") == page("A1")
    monkeypatch.setattr(write_module, "atomic_write", dies_on("a.md"))
    with pytest.raises(KeyboardInterrupt):
        write_vault(vault, {"entities/a.md": page("A2"), "entities/b.md": page("B2")}, obsidian=False)
    monkeypatch.setattr(write_module, "atomic_write", real)
    result = write_vault(vault, {"entities/a.md": page("A2"), "entities/b.md": page("B2")}, obsidian=False)
    assert result.problems == [] and result.kept == []
    assert (vault / "entities/a.md").read_text("utf-8") == page("A2")
    assert (vault / "entities/b.md").read_text("utf-8") == page("B2")


def test_no_pending_manifest_after_a_normal_build(vault: Path, pages: dict[str, str]) -> None:
    write_vault(vault, pages)
    write_vault(vault, {p: t for p, t in pages.items() if p != "index.md"})
    assert not (vault / PENDING).exists()
    leftovers = [p for p in vault.rglob("*") if p.name.startswith(".kgvault-") or p.suffix == ".tmp"]
    assert leftovers == []


def test_a_linked_page_in_a_folder_that_cannot_be_listed_is_still_not_written(
    vault: Path, pages: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    write_vault(vault, pages)
    outside = vault.parent / "outside.md"
    (vault / "index.md").rename(outside)  # the page moved out, and linked back in
    (vault / "index.md").symlink_to(outside)
    listing = os.scandir

    def unlistable(folder: str) -> object:  # as for a folder of mode 0300, or too many open files
        if Path(folder) == vault:
            raise PermissionError(13, "Permission denied", folder)
        return listing(folder)

    monkeypatch.setattr(os, "scandir", unlistable)
    result = write_vault(vault, {**pages, "index.md": page("changed")}, obsidian=False)
    assert "index.md" in result.kept and "index.md" not in result.written
    assert (vault / "index.md").is_symlink() and outside.read_text(encoding="utf-8") == pages["index.md"]


@pytest.mark.parametrize("count", [3, write_module._ASK_EACH_UNDER + 8])
def test_a_linked_page_is_not_written_whether_its_folder_is_listed_or_each_page_asked(
    tmp_path: Path, count: int
) -> None:
    pages = {f"episodic/n{i:03d}.md": page(f"body {i}", f"n{i:03d}") for i in range(count)}
    vault = tmp_path / "vault"
    write_vault(vault, pages)
    outside = tmp_path / "outside.md"
    outside.write_text("mine", encoding="utf-8")
    linked = vault / "episodic" / "n001.md"
    linked.unlink()
    linked.symlink_to(outside)
    changed = {path: page(f"changed {path}", path[9:13]) for path in pages}
    result = write_vault(vault, changed, obsidian=False)
    assert "episodic/n001.md" in result.kept and "episodic/n001.md" not in result.written
    assert linked.is_symlink() and outside.read_text(encoding="utf-8") == "mine"
    assert len(result.written) == count - 1


def test_temporaries_a_killed_build_left_are_swept_and_nothing_else(
    vault: Path, pages: dict[str, str]
) -> None:
    write_vault(vault, pages)
    leftover = vault / "entities" / ".gone.md.kgvault-tmp"
    leftover.write_text("half a page", encoding="utf-8")
    elsewhere = vault.parent / "elsewhere.md"
    elsewhere.write_text("mine", encoding="utf-8")
    linked = vault / "entities" / ".linked.md.kgvault-tmp"
    linked.symlink_to(elsewhere)
    user_files = [vault / "entities" / "draft.kgvault-tmp", vault / "entities" / ".kgvault-tmp"]
    for path in user_files:
        path.write_text("my own file", encoding="utf-8")
    write_vault(vault, pages)
    assert not leftover.exists()
    assert linked.is_symlink() and elsewhere.read_text(encoding="utf-8") == "mine"
    assert all(path.read_text(encoding="utf-8") == "my own file" for path in user_files)


def test_pages_waiting_compressed_are_written_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Past the plain budget, pending pages wait compressed; every one must still land byte for byte."""
    pages = {f"episodic/n{i:03d}.md": page(f"body {i} " + "é" * i, f"n{i:03d}") for i in range(60)}
    monkeypatch.setattr(write_module._PendingWrites, "_PLAIN_BYTES", 500)
    result = write_vault(tmp_path / "squeezed", pages)
    monkeypatch.undo()
    write_vault(tmp_path / "plain", pages)

    assert sorted(result.written) == sorted(pages)
    for path, text in pages.items():
        assert (tmp_path / "squeezed" / path).read_bytes() == text.encode("utf-8")
    assert (tmp_path / "squeezed" / MANIFEST).read_bytes() == (tmp_path / "plain" / MANIFEST).read_bytes()


def test_pending_writes_compress_only_past_their_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """The first pages wait as they are; only what goes past the budget is squeezed."""
    monkeypatch.setattr(write_module._PendingWrites, "_PLAIN_BYTES", 10)
    pending = write_module._PendingWrites()
    pending.add("a.md", "12345")
    pending.add("b.md", "x" * 100)
    kept = [(path, squeezed) for path, _, squeezed in pending._pages]
    assert kept == [("a.md", False), ("b.md", True)]
    assert list(pending) == [("a.md", b"12345"), ("b.md", b"x" * 100)]


def _page_path_as_specified(path: str) -> bool:
    """is_page_path's rule, spelled out: a top-level file, or one .md file directly in a page folder."""
    parts = path.split("/")
    if "\\" in path or any(part in ("", ".", "..") for part in parts):
        return False
    if len(parts) == 1:
        return path in TOP_LEVEL_FILES
    return len(parts) == 2 and parts[0] in FOLDERS.values() and path.endswith(".md")


_TRICKY_PATHS = [
    "index.md", "ontology.md", "relations.jsonl", "kgvault.base", "episodic/a.md", "entities/.md",
    "sources/x.md", "semantic/a/b.md", "../x", "/etc/passwd", "episodic/../x.md", "episodic//x.md",
    "episodic/", "episodic", "episodic/x.txt", "episodic\\x.md", "notes/x.md", "./index.md", "",
    ".", "..", "entities/..md", "entities/x.md/", "x/index.md", ".kgvault/manifest.json",
]  # fmt: skip


@given(st.one_of(st.sampled_from(_TRICKY_PATHS), st.text(alphabet="/\\.mdeiorstx", max_size=16)))
def test_page_paths_are_exactly_the_files_kgvault_may_own(path: str) -> None:
    assert write_module.is_page_path(path) == _page_path_as_specified(path)


def test_the_manifest_this_process_wrote_is_not_read_again_while_it_is_that_one(
    vault: Path, pages: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    kept = ManifestMemory()
    write_vault(vault, pages, manifest_memory=kept)
    on_disk = read_owned(vault)
    reads = record_calls(monkeypatch, write_module, "_read_hashes", lambda vault, name: name)
    assert read_owned(vault, kept) == on_disk and reads == []
    # Another build replaced it: read again.
    changed = {**pages, "index.md": page("another build's index")}
    write_vault(vault, changed)
    assert read_owned(vault, kept) == read_owned(vault) != on_disk and MANIFEST in reads
    # A pending manifest (a killed build's) is always read.
    write_vault(vault, pages, manifest_memory=kept)
    (vault / PENDING).write_text(manifest_text({"index.md": digest(page("half"))}), "utf-8")
    reads.clear()
    assert read_owned(vault, kept) == read_owned(vault) and PENDING in reads


def test_pages_in_folders_not_there_yet_are_written_without_looking_and_a_users_file_still_wins(
    vault: Path, pages: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The user keeps a file where a page would go, in the one folder that exists already.
    (vault / "entities").mkdir(parents=True)
    (vault / "entities" / "marlin.md").write_text("My own notes on Marlin.\n", "utf-8")
    read = record_calls(
        monkeypatch, write_module, "_read_text", lambda path: Path(path).relative_to(vault).as_posix()
    )
    result = write_vault(vault, pages, obsidian=False)
    # episodic/ and sources/ did not exist: nothing there to read. The others are looked at.
    assert sorted(read) == ["entities/marlin.md", "index.md", "relations.jsonl"]
    assert (vault / "entities" / "marlin.md").read_text("utf-8") == "My own notes on Marlin.\n"
    assert messages(result, "entities/marlin.md")
    for path in ("episodic/switched-to-marlin.md", "sources/journal-summary.md"):
        assert (vault / path).read_text("utf-8") == pages[path]
        assert path in owned_files(vault)
