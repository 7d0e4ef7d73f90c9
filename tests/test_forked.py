"""Extraction on two cores: the helper's half comes back exactly as if extracted here."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from kgvault.extract import forked
from kgvault.records import Source, SourceKind

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
    monkeypatch.setattr(forked, "_can_fork", lambda: True)
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
    monkeypatch.setattr(forked, "_can_fork", lambda: True)
    fresh = [source("a.md", 100), source("b.md", 100)]
    assert forked._split(fresh) == (fresh, [])
