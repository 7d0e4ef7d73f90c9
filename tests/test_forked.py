"""Two cores: what the extraction, render, index and cache helpers give is exactly what one process gives."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

import pytest

from kgvault import forking, render_forked
from kgvault.extract import forked
from kgvault.records import Source, SourceKind
from kgvault.search import INDEX_FILE

from .conftest import NOT_COMPARED, ROOT, SAMPLE

# Each build runs in a fresh interpreter: a thread some other test left running would rightly
# keep this one from forking, and the test would then prove nothing. The script sets each
# helper's threshold (0: always, None: never) and reports what the helpers did on stderr.
_BUILD = """
import json, os, sys
import kgvault.build as build
import kgvault.cache_forked as cache_forked
import kgvault.extract.forked as forked
import kgvault.render_forked as render_forked
from kgvault import forking
never = 10**12
limits = json.loads(sys.argv[3])
forked.MIN_BYTES = never if limits["extract"] is None else limits["extract"]
render_forked.MIN_PAGES = never if limits["render"] is None else limits["render"]
build.INDEX_HELPER_RECORDS = never if limits["index"] is None else limits["index"]
cache_forked.MIN_ENTRIES = never if limits["cache"] is None else limits["cache"]
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
real_unpickled = render_forked._unpickled
def unpickled(payload):
    got = real_unpickled(payload)
    texts = sum(1 for _, text in got.values() if text is not None) if got is not None else None
    used.append(f"pages:{len(got) if got is not None else None}:{texts}")
    return got
render_forked._unpickled = unpickled
real_finish = forking.Helper.finish
def finish(self, go):
    done = real_finish(self, go)
    used.append(f"index:{go}:{done}")
    return done
forking.Helper.finish = finish
real_ready = forking.Helper.ready
def ready(self):
    done = real_ready(self)
    used.append(f"cache:{done}")
    return done
forking.Helper.ready = ready
{patch}
from kgvault.cli import main
try:
    main(["build", sys.argv[1], "-o", sys.argv[2], "--json", *sys.argv[4:]])
finally:
    print(";".join(used), file=sys.stderr)
"""
# A helper dies when its work is done, before it can hand anything back.
_HELPERS_FAIL = """
parent = os.getpid()
def failing(real):
    def fails(*args):
        if os.getpid() != parent:
            raise RuntimeError("the helper fails")
        return real(*args)
    return fails
forked.encode_entry = failing(forked.encode_entry)
render_forked._rendered = failing(render_forked._rendered)
cache_forked._encode_then_store = failing(cache_forked._encode_then_store)
"""


class Built:
    """What a build in a fresh interpreter did: its exit code, report and the helpers' steps."""

    def __init__(self, done: subprocess.CompletedProcess[str]) -> None:
        self.code = done.returncode
        self.report = json.loads(done.stdout) if done.returncode == 0 else {}
        lines = done.stderr.strip().splitlines()
        self.used = [step for step in (lines[-1] if lines else "").split(";") if step]
        self.stderr = done.stderr

    def steps(self, kind: str) -> list[list[str]]:
        return [step.split(":")[1:] for step in self.used if step.startswith(kind + ":")]


def build(
    notes: Path,
    vault: Path,
    *extra: str,
    extract: int | None = None,
    render: int | None = None,
    index: int | None = None,
    cache: int | None = None,
    patch: str = "",
) -> Built:
    """Build in a fresh interpreter with the helpers' thresholds given (None: no helper)."""
    script = textwrap.dedent(_BUILD).replace("{patch}", textwrap.dedent(patch))
    limits = json.dumps({"extract": extract, "render": render, "index": index, "cache": cache})
    done = subprocess.run(
        [sys.executable, "-c", script, str(notes), str(vault), limits, *extra],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    return Built(done)


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
    built = build(SAMPLE, vault)
    assert built.code == 0, built.stderr
    assert built.steps("helper") == built.steps("pages") == built.steps("index") == built.steps("cache") == []
    return vault


def test_two_processes_extract_what_one_process_extracts(tmp_path: Path, one_process: Path) -> None:
    vault = tmp_path / "vault"
    built = build(SAMPLE, vault, extract=0)
    assert built.code == 0, built.stderr
    [(theirs, decoded)] = built.steps("helper")
    assert decoded == "True", built.used
    # This process extracted its part; the helper's part came back whole, decoded here.
    [(mine, _)] = built.steps("here")
    assert int(mine) + int(theirs) == built.report["sources"], built.used
    assert vault_files(vault) == vault_files(one_process)
    assert any(path.startswith(".kgvault/cache/") for path in vault_files(vault))


def test_two_processes_render_what_one_process_renders(tmp_path: Path, one_process: Path) -> None:
    vault = tmp_path / "vault"
    built = build(SAMPLE, vault, render=0)
    assert built.code == 0, built.stderr
    [(pages, texts)] = built.steps("pages")
    files = built.report["files"]
    assert int(pages) == round((files["written"] + files["unchanged"]) * render_forked.HELPER_SHARE)
    assert texts == pages  # a new vault: every page's text comes back
    assert vault_files(vault) == vault_files(one_process)


def test_in_a_rebuild_the_render_helper_hands_back_only_the_pages_that_changed(
    sample_copy: Path, tmp_path: Path
) -> None:
    vault, alone = tmp_path / "vault", tmp_path / "alone"
    assert build(sample_copy, vault).code == build(sample_copy, alone).code == 0
    for note in sorted(sample_copy.rglob("*.md"))[-3:]:  # notes whose pages sort last: the helper's
        note.write_text(note.read_text("utf-8") + "\nFixed the zq41 valve today.\n", "utf-8")
    built = build(sample_copy, vault, render=0)
    assert built.code == 0, built.stderr
    [(pages, texts)] = built.steps("pages")
    # The unchanged pages came back as digests alone; the changed ones with their text.
    assert 0 < int(texts) < int(pages), built.used
    assert build(sample_copy, alone).code == 0
    assert vault_files(vault) == vault_files(alone)
    assert built.report["files"]["written"] > 0


def test_a_helper_stores_the_cache_this_process_would_store(tmp_path: Path, one_process: Path) -> None:
    vault = tmp_path / "vault"
    built = build(SAMPLE, vault, cache=0)
    assert built.code == 0, built.stderr
    assert built.steps("cache") == [["True"]], built.used
    assert vault_files(vault) == vault_files(one_process)
    # The next build finds every note in the cache the helper wrote: nothing is extracted again.
    again = build(SAMPLE, vault, "--force", cache=1)
    assert again.code == 0, again.stderr
    assert [count for count, _ in again.steps("here")] == ["0"] and again.steps("cache") == []


def test_a_failed_build_has_the_cache_helper_store_nothing(tmp_path: Path) -> None:
    broken = tmp_path / "templates"
    broken.mkdir()
    (broken / "node.md.j2").write_text("{{ no_such_value }}\n", "utf-8")
    vault = tmp_path / "vault"
    built = build(SAMPLE, vault, "--templates", str(broken), cache=0)
    # Its entries were ready during pass 2; rendering failed, so it was told to stop.
    assert built.code != 0 and built.steps("cache") == [["True"]], built.stderr
    assert not list((vault / ".kgvault").rglob("cache/*/*.json"))
    assert not list(tmp_path.rglob("*.kgvault-tmp"))


def test_failing_helpers_leave_their_part_to_this_process(tmp_path: Path, one_process: Path) -> None:
    vault = tmp_path / "vault"
    built = build(SAMPLE, vault, extract=0, render=0, cache=0, patch=_HELPERS_FAIL)
    assert built.code == 0, built.stderr
    assert built.steps("helper") == built.steps("pages") == [], built.used
    # The cache helper failed too: this process encoded the entries and stored them itself.
    assert built.steps("cache") == [["False"]], built.used
    # The extraction helper failed, and this process then did its part as well.
    here = built.steps("here")
    assert len(here) == 2 and sum(int(count) for count, _ in here) == built.report["sources"], built.used
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


def index_rows(vault: Path) -> list[str]:
    """The index as SQL, but for the counts of the last update (they say what changed, not what is)."""
    with closing(sqlite3.connect(vault / INDEX_FILE)) as db:
        return [line for line in db.iterdump() if "last_update" not in line]


def test_a_helper_indexes_what_this_process_would(tmp_path: Path, one_process: Path) -> None:
    vault = tmp_path / "vault"
    built = build(SAMPLE, vault, index=0)
    assert built.code == 0 and built.steps("index") == [["True", "True"]], built.stderr
    assert index_rows(vault) == index_rows(one_process)
    assert not list(vault.rglob("*.kgvault-tmp"))


def test_a_failed_build_leaves_the_index_as_it_was(sample_copy: Path, tmp_path: Path) -> None:
    broken = tmp_path / "templates"
    broken.mkdir()
    (broken / "node.md.j2").write_text("{{ no_such_value }}\n", "utf-8")
    first = tmp_path / "first"
    built = build(sample_copy, first, "--templates", str(broken), index=0, render=0)
    assert built.code != 0 and built.steps("index") == [["False", "True"]], built.stderr
    assert not (first / INDEX_FILE).exists() and not list(tmp_path.rglob("*.kgvault-tmp"))

    vault = tmp_path / "vault"
    assert build(sample_copy, vault, index=0).code == 0
    before = index_rows(vault)
    note = sample_copy / "printing" / "Klipper.md"
    note.write_text(note.read_text("utf-8") + "\nFixed the zq17 extruder today.\n", "utf-8")
    built = build(sample_copy, vault, "--templates", str(broken), index=0, render=0)
    assert built.code != 0 and built.steps("index") == [["False", "True"]], built.stderr
    assert index_rows(vault) == before
    # The same change, built: the helper's index now holds it.
    built = build(sample_copy, vault, index=0, render=0)
    assert built.code == 0 and built.steps("index") == [["True", "True"]], built.stderr
    assert any("zq17" in row for row in index_rows(vault))


def test_a_helper_hands_back_its_bytes_and_is_reaped() -> None:
    answer = forking.ask(lambda: b"x" * 300_000)  # more than a pipe holds at once
    assert answer.get() == b"x" * 300_000
    assert answer.get() is None  # asked once only


def test_a_dropped_helper_is_stopped_and_reaped() -> None:
    def forever() -> bytes:
        while True:
            time.sleep(1)

    answer = forking.ask(forever)
    pid = answer._pid
    answer.drop()
    with pytest.raises(ChildProcessError):  # reaped: no zombie is left
        os.waitpid(pid, os.WNOHANG)


def test_a_helper_that_raises_hands_back_nothing() -> None:
    def fails() -> bytes:
        raise RuntimeError("the helper fails")

    assert forking.ask(fails).get() is None


def test_a_helper_waits_for_the_word_to_go_on(tmp_path: Path) -> None:
    said = tmp_path / "said"

    def work(go: Callable[[], bool]) -> None:
        said.write_text("go" if go() else "stop", "utf-8")

    assert forking.Helper.start(work).finish(go=False)
    assert said.read_text("utf-8") == "stop"
    helper = forking.Helper.start(work)
    assert helper.finish(go=True) and helper.finish(go=False)  # only the first word counts
    assert said.read_text("utf-8") == "go"


def test_a_helper_says_when_its_work_is_ready_and_is_told_later(tmp_path: Path) -> None:
    said = tmp_path / "said"

    def work(go: Callable[[], bool]) -> None:
        said.write_text("prepared", "utf-8")
        said.write_text("go" if go() else "stop", "utf-8")

    helper = forking.Helper.start(work)
    assert helper.ready() and said.read_text("utf-8") == "prepared"  # it waits for the word now
    helper.tell(go=True)  # told without waiting for it
    assert helper.finish(go=False)  # only the first word counts: this just waits
    assert said.read_text("utf-8") == "go"

    def fails(go: Callable[[], bool]) -> None:
        raise RuntimeError("the helper fails before its work is ready")

    failing = forking.Helper.start(fails)
    assert not failing.ready() and not failing.finish(go=True)


_KILLED_PARENT = """
import sys, time
from kgvault import forking
def busy():
    time.sleep(30)
    return b""
answer = forking.ask(busy)
helper = forking.Helper.start(lambda go: busy())
print(answer._pid, helper._pid, flush=True)
time.sleep(60)
"""


def test_helpers_die_with_a_killed_build() -> None:
    command = [sys.executable, "-c", _KILLED_PARENT]
    with subprocess.Popen(command, stdout=subprocess.PIPE, text=True, cwd=ROOT) as parent:
        assert parent.stdout is not None
        helpers = [int(pid) for pid in parent.stdout.readline().split()]
        assert len(helpers) == 2 and all(_running(pid) for pid in helpers)
        parent.kill()  # SIGKILL: the build runs no clean-up of its own
    deadline = time.monotonic() + 2.0
    while any(_running(pid) for pid in helpers) and time.monotonic() < deadline:
        time.sleep(0.02)
    left = [pid for pid in helpers if _running(pid)]
    for pid in left:  # not to outlive the test either
        os.kill(pid, signal.SIGKILL)
    assert not left


def _running(pid: int) -> bool:
    """Whether the process is alive (a zombie waiting to be reaped by init is not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"
