"""Two cores: extraction's helper and the index's helper give exactly what one process gives."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import textwrap
from contextlib import closing
from pathlib import Path

import pytest

from kgvault import forking
from kgvault.extract import forked
from kgvault.records import Source, SourceKind
from kgvault.search import INDEX_FILE

from .conftest import NOT_COMPARED, ROOT, SAMPLE

# Each build runs in a fresh interpreter: a thread some other test left running would rightly
# keep this one from forking, and the test would then prove nothing.
_BUILD = """
import os, sys
import kgvault.extract.forked as forked
forked.MIN_BYTES = int(sys.argv[3])
used = []
real_decoded, real_here = forked._decoded, forked._here
def decoded(sources, entries):
    got = real_decoded(sources, entries)
    used.append(f"helper:{len(sources)}:{got is not None}")
    return got
def here(fresh, sources, max_chars):
    used.append(f"here:{len(fresh)}:{os.getpid()}")
    return real_here(fresh, sources, max_chars)
forked._decoded, forked._here = decoded, here
{patch}
from kgvault.cli import main
try:
    main(["build", sys.argv[1], "-o", sys.argv[2], "--json"])
finally:
    print(";".join(used), file=sys.stderr)
"""
# The helper dies after extracting its part, before it can hand anything back.
_HELPER_FAILS = """
parent = os.getpid()
real_encode = forked.encode_entry
def encode_entry(chunks, extractions):
    if os.getpid() != parent:
        raise RuntimeError("the helper fails")
    return real_encode(chunks, extractions)
forked.encode_entry = encode_entry
"""


def build(notes: Path, vault: Path, min_bytes: int, patch: str = "") -> tuple[list[str], int]:
    """Build in a fresh interpreter with that fork threshold: what extraction did, and how many sources."""
    script = textwrap.dedent(_BUILD).replace("{patch}", textwrap.dedent(patch))
    done = subprocess.run(
        [sys.executable, "-c", script, str(notes), str(vault), str(min_bytes)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return done.stderr.strip().splitlines()[-1].split(";"), json.loads(done.stdout)["sources"]


def vault_files(vault: Path) -> dict[str, bytes]:
    """Every file of the vault, the extraction cache included; not machine-local state."""
    state = NOT_COMPARED[0]
    return {
        p.relative_to(vault).as_posix(): p.read_bytes()
        for p in sorted(vault.rglob("*"))
        if p.is_file() and not p.relative_to(vault).as_posix().startswith(state)
    }


@pytest.fixture(scope="module")
def one_process(tmp_path_factory: pytest.TempPathFactory) -> Path:
    vault = tmp_path_factory.mktemp("one") / "vault"
    used, _ = build(SAMPLE, vault, min_bytes=10**12)
    assert not any(step.startswith("helper") for step in used)
    return vault


def test_two_processes_build_the_vault_one_process_builds(tmp_path: Path, one_process: Path) -> None:
    vault = tmp_path / "vault"
    used, sources = build(SAMPLE, vault, min_bytes=0)
    helper = [step for step in used if step.startswith("helper")]
    assert len(helper) == 1 and helper[0].endswith(":True"), used
    # This process extracted its part; the helper's part came back whole, decoded here.
    here = [step for step in used if step.startswith("here")]
    assert len(here) == 1 and int(here[0].split(":")[1]) + int(helper[0].split(":")[1]) == sources, used
    assert vault_files(vault) == vault_files(one_process)
    assert any(path.startswith(".kgvault/cache/") for path in vault_files(vault))


def test_a_failing_helper_leaves_its_part_to_this_process(tmp_path: Path, one_process: Path) -> None:
    vault = tmp_path / "vault"
    used, sources = build(SAMPLE, vault, min_bytes=0, patch=_HELPER_FAILS)
    assert not any(step.startswith("helper") for step in used), used
    here = [step for step in used if step.startswith("here")]
    # The helper failed, and this process then did the helper's part as well.
    assert len(here) == 2 and sum(int(step.split(":")[1]) for step in here) == sources, used
    assert vault_files(vault) == vault_files(one_process)


def source(path: str, size: int, kind: SourceKind = "markdown") -> Source:
    return Source(
        id=path, path=path, kind=kind, title=path, meta={}, reference_time=None, text="x" * size,
        body_line=1, sha256="0" * 64,
    )  # fmt: skip


def test_the_split_deals_notes_out_by_size_and_keeps_drafts_here(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(forking, "can_fork", lambda: True)
    monkeypatch.setattr(forked, "MIN_BYTES", 1000)
    fresh = [source(f"n{i:02}.md", 100 + 10 * i) for i in range(30)]
    fresh.insert(5, source("drafts/d.json", 5000, kind="draft"))
    mine, theirs = forked._split(fresh)
    assert sorted(s.path for s in [*mine, *theirs]) == sorted(s.path for s in fresh)
    assert "drafts/d.json" in {s.path for s in mine}
    notes_total = sum(len(s.text) for s in fresh if s.kind != "draft")
    share = sum(len(s.text) for s in theirs) / notes_total
    assert abs(share - forked.HELPER_SHARE) < 0.05
    # Dealt out in turn: both sides hold early and late notes, each in source order.
    assert theirs[0].path < "n05" and theirs[-1].path > "n25"
    assert [s.path for s in theirs] == sorted(s.path for s in theirs)


def test_too_little_text_is_not_worth_a_fork(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(forking, "can_fork", lambda: True)
    fresh = [source("a.md", 100), source("b.md", 100)]
    assert forked._split(fresh) == (fresh, [])


# The search index, prepared by a helper while the pages are written.
_INDEX_BUILD = """
import sys
import kgvault.build as build
from kgvault import forking
build.INDEX_HELPER_RECORDS = int(sys.argv[3])
finished = []
real_finish = forking.Helper.finish
def finish(self, go):
    done = real_finish(self, go)
    finished.append(f"{go}:{done}")
    return done
forking.Helper.finish = finish
from kgvault.cli import main
try:
    main(["build", sys.argv[1], "-o", sys.argv[2], "-q", *sys.argv[4:]])
except SystemExit as stop:
    print(";".join(finished), file=sys.stderr)
    raise
"""


def index_build(notes: Path, vault: Path, records: int, *extra: str) -> tuple[int, list[str]]:
    """Build in a fresh interpreter with that helper threshold: the exit code and the helper's ends."""
    done = subprocess.run(
        [sys.executable, "-c", _INDEX_BUILD, str(notes), str(vault), str(records), *extra],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    ends = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else ""
    return done.returncode, [end for end in ends.split(";") if end]


def index_rows(vault: Path) -> list[str]:
    """The index as SQL, but for the counts of the last update (they say what changed, not what is)."""
    with closing(sqlite3.connect(vault / INDEX_FILE)) as db:
        return [line for line in db.iterdump() if "last_update" not in line]


def test_a_helper_indexes_what_this_process_would(tmp_path: Path) -> None:
    alone, helped = tmp_path / "alone", tmp_path / "helped"
    assert index_build(SAMPLE, alone, 10**9) == (0, [])
    assert index_build(SAMPLE, helped, 0) == (0, ["True:True"])
    assert index_rows(helped) == index_rows(alone)
    assert not list(helped.rglob("*.kgvault-tmp"))


def test_a_failed_build_leaves_the_index_as_it_was(sample_copy: Path, tmp_path: Path) -> None:
    broken = tmp_path / "templates"
    broken.mkdir()
    (broken / "node.md.j2").write_text("{{ no_such_value }}\n", "utf-8")
    first = tmp_path / "first"
    code, ends = index_build(sample_copy, first, 0, "--templates", str(broken))
    assert code != 0 and ends == ["False:True"]
    assert not (first / INDEX_FILE).exists() and not list(tmp_path.rglob("*.kgvault-tmp"))

    vault = tmp_path / "vault"
    assert index_build(sample_copy, vault, 0)[0] == 0
    before = index_rows(vault)
    note = sample_copy / "printing" / "Klipper.md"
    note.write_text(note.read_text("utf-8") + "\nFixed the zq17 extruder today.\n", "utf-8")
    code, ends = index_build(sample_copy, vault, 0, "--templates", str(broken))
    assert code != 0 and ends == ["False:True"]
    assert index_rows(vault) == before
    # The same change, built: the helper's index now holds it.
    assert index_build(sample_copy, vault, 0) == (0, ["True:True"])
    assert any("zq17" in row for row in index_rows(vault))
