"""Bounded memory: build one huge note, or a folder of very many tiny notes, and measure peak RSS.

Usage:
    python bench/limits.py big-note [--mb 100] [--seed S] [--timeout SECONDS] [--keep DIR] [--json]
    python bench/limits.py many-notes [--count 100000] [--seed S] [--timeout SECONDS] [--keep DIR] [--json]
    python bench/limits.py profile big-note|many-notes [--mb 5 | --count 5000] [--top 25] [--frames 1]

`big-note` writes one seeded, realistic Markdown note of about --mb megabytes (dated sections,
paragraphs naming people, projects and places, lists, wikilinks, `#tags`, a table and a code fence
now and then) and builds it twice, each time in a fresh `python -m kgvault build NOTES -o VAULT
--json` subprocess:

1. with the default settings: the note is larger than `max_file_bytes` (20 MB), so it is skipped
   and reported as a problem;
2. with a `kgvault.toml` (passed with `--config`, so the notes folder holds only the note) that
   sets `max_file_bytes = 200000000`, so the note is actually read, chunked, extracted and linked.

`many-notes` writes --count tiny notes (a dated frontmatter, a heading, a sentence or two with a
wikilink and a tag) spread over folders of 1,000 and builds them once.

Wall time is perf_counter from spawn to reap; peak memory is the child's own ru_maxrss from the
rusage `os.wait4` returns for it (Linux reports KiB), not RUSAGE_CHILDREN's running maximum.
The target (issue 9) is under 1.5 GB peak for each build. A build that exceeds --timeout is
killed and reported as such.

`profile` runs the pipeline in this process and prints, for each stage, when it started and the
resident (and, with --frames > 0, traced) memory then; with tracing it also prints the source lines
holding the most memory when linking starts (every chunk extracted) and when rendering starts
(the graph is alive, the drafts are gone).
Use --frames 0 on the full corpus to see which stage makes the peak, and tracing on a smaller one
to see which lines hold the memory. Temporary folders are removed unless --keep.
Nothing touches the network. See docs/performance.md.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pools import CITIES, CODENAMES, CONCEPTS, FIRST_NAMES, LAST_NAMES, PURPOSES, TASKS, THINGS

TARGET_MB = 1536.0
"""Peak resident memory allowed for each build (1.5 GB)."""
DEFAULT_TIMEOUT = 3600.0
RAISED_LIMIT = 200_000_000
"""`max_file_bytes` for the build that reads the big note (the default is 20 MB)."""
NOTES_PER_FOLDER = 1000
SNAPSHOT_STAGES = ("linking", "rendering")
"""Where `profile` takes a tracemalloc snapshot: after extraction, and once pass 2 let the drafts go."""


# --------------------------------------------------------------------------------------------
# Corpora


def _people(rng: random.Random, count: int) -> list[str]:
    return [f"{rng.choice(FIRST_NAMES)} {rng.choice(LAST_NAMES)}" for _ in range(count)]


def _sentence(rng: random.Random, people: Sequence[str], day: str) -> str:
    """One sentence of the kind a journal holds: events, decisions, states, facts."""
    person = rng.choice(people)
    project = rng.choice(CODENAMES)
    kind = rng.randrange(10)
    if kind == 0:
        return f"Met [[{person}]] in {rng.choice(CITIES)} to talk about Project {project}."
    if kind == 1:
        return f"We decided to use {rng.choice(CONCEPTS)} for {rng.choice(TASKS)}."
    if kind == 2:
        return f"Fixed the {rng.choice(THINGS)} in {rng.choice(TASKS)} on {day}."
    if kind == 3:
        return f"{person} works at {project} Labs and lives in {rng.choice(CITIES)}."
    if kind == 4:
        return f"Project {project} uses {rng.choice(CONCEPTS)} for {rng.choice(PURPOSES)}."
    if kind == 5:
        return f"I think the {rng.choice(THINGS)} is back, maybe because of {rng.choice(CONCEPTS)}."
    if kind == 6:
        return f"Spent the afternoon on {rng.choice(TASKS)} with [[{person}]] #{project.lower()}."
    if kind == 7:
        return f"{rng.choice(CONCEPTS).capitalize()} is a technique for {rng.choice(PURPOSES)}."
    if kind == 8:
        return f"Switched {rng.choice(TASKS)} from {rng.choice(CODENAMES)} to {project} yesterday."
    return f"The weather in {rng.choice(CITIES)} was fine and the coffee was good."


def big_note_parts(megabytes: float, seed: int) -> Iterator[str]:
    """Yield the pieces of one realistic Markdown note of about `megabytes` MB (10**6 bytes)."""
    rng = random.Random(seed)
    people = _people(rng, 400)
    target = int(megabytes * 1_000_000)
    size = 0
    header = "---\ntitle: Work and life journal\ndate: 2020-01-01\ntags: [journal, work]\n---\n# Journal\n\n"
    yield header
    size += len(header.encode("utf-8"))
    section = 0
    while size < target:
        day = f"{2020 + section // 365 % 10}-{section // 28 % 12 + 1:02d}-{section % 28 + 1:02d}"
        parts = [f"## {day} {rng.choice(CODENAMES)} log\n\n"]
        for _ in range(rng.randint(2, 5)):
            kind = rng.randrange(12)
            if kind < 8:
                count = rng.randint(2, 6)
                parts.append(" ".join(_sentence(rng, people, day) for _ in range(count)) + "\n\n")
            elif kind < 10:
                items = [f"- {_sentence(rng, people, day)}\n" for _ in range(rng.randint(2, 6))]
                parts.append("".join(items) + "\n")
            elif kind == 10:
                rows = "".join(
                    f"| [[{rng.choice(people)}]] | {rng.choice(TASKS)} | {rng.randint(1, 9)} h |\n"
                    for _ in range(rng.randint(2, 5))
                )
                parts.append("| who | what | time |\n| --- | --- | --- |\n" + rows + "\n")
            else:
                parts.append("```bash\n[[ -f config.yaml ]] && make deploy\n```\n\n")
        piece = "".join(parts)
        size += len(piece.encode("utf-8"))
        section += 1
        yield piece


def write_big_note(folder: Path, megabytes: float, seed: int) -> int:
    """Write the big note as `folder/journal.md`; return its size in bytes."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "journal.md"
    with path.open("w", encoding="utf-8", newline="\n") as handle:
        for piece in big_note_parts(megabytes, seed):
            handle.write(piece)
    return path.stat().st_size


def tiny_note(rng: random.Random, index: int, people: Sequence[str]) -> str:
    """One tiny dated note: a frontmatter, a heading and a sentence or two."""
    day = f"{2015 + index // 3650 % 10}-{index // 28 % 12 + 1:02d}-{index % 28 + 1:02d}"
    sentences = " ".join(_sentence(rng, people, day) for _ in range(rng.randint(1, 2)))
    return f"---\ndate: {day}\n---\n# Note {index}\n\n{sentences}\n"


def write_many_notes(folder: Path, count: int, seed: int) -> int:
    """Write `count` tiny notes under `folder`, 1,000 per subfolder; return their total size in bytes."""
    rng = random.Random(seed)
    people = _people(rng, 2000)
    total = 0
    for index in range(count):
        sub = folder / f"batch-{index // NOTES_PER_FOLDER:04d}"
        if index % NOTES_PER_FOLDER == 0:
            sub.mkdir(parents=True, exist_ok=True)
        data = tiny_note(rng, index, people).encode("utf-8")
        (sub / f"note-{index:06d}.md").write_bytes(data)
        total += len(data)
    return total


# --------------------------------------------------------------------------------------------
# Measurements


@dataclass(slots=True)
class Run:
    """One build in a child process."""

    label: str
    seconds: float
    cpu_seconds: float
    """The build's own CPU time, and its waited-for helpers' (user and system): steadier than wall
    time on a shared machine."""
    peak_mb: float
    returncode: int
    timed_out: bool
    report: dict[str, Any] | None
    """The `build --json` report, when the build finished and printed one."""
    stderr_tail: str

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out and self.peak_mb < TARGET_MB

    def summary(self) -> dict[str, Any]:
        """The numbers worth printing: time, memory, and what the build made and said."""
        report = self.report or {}
        problems = report.get("problems", [])
        return {
            "label": self.label,
            "seconds": round(self.seconds, 1),
            "peak_mb": round(self.peak_mb, 1),
            "returncode": self.returncode,
            "timed_out": self.timed_out,
            "under_target": self.peak_mb < TARGET_MB,
            "sources": report.get("sources"),
            "chunks": report.get("chunks"),
            "nodes": report.get("nodes"),
            "entities": report.get("entities"),
            "relations": report.get("relations"),
            "files_written": (report.get("files") or {}).get("written"),
            "problems": len(problems),
            "first_problems": [f"{p['path']}: {p['message']}" for p in problems[:3]],
        }


def run_build(label: str, notes: Path, vault: Path, extra: Sequence[str], timeout: float) -> Run:
    """Build `notes` into `vault` in a fresh interpreter; its wall time and its own peak RSS."""
    argv = [sys.executable, "-m", "kgvault", "build", str(notes), "-o", str(vault), "--json", *extra]
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=out, stderr=err, stdin=subprocess.DEVNULL)
        deadline = started + timeout
        timed_out = False
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() > deadline:
                proc.kill()
                pid, status, usage = os.wait4(proc.pid, 0)
                timed_out = True
                break
            time.sleep(0.05)
        seconds = time.perf_counter() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode("utf-8", "replace")
        stderr = err.read().decode("utf-8", "replace")
    scale = 1024 * 1024 if sys.platform == "darwin" else 1024  # KiB on Linux, bytes on macOS
    try:
        report = json.loads(stdout) if stdout.strip() else None
    except json.JSONDecodeError:
        report = None
    return Run(
        label=label,
        seconds=seconds,
        cpu_seconds=usage.ru_utime + usage.ru_stime,
        peak_mb=usage.ru_maxrss / scale,
        returncode=proc.returncode,
        timed_out=timed_out,
        report=report if isinstance(report, dict) else None,
        stderr_tail=stderr[-2000:],
    )


def _work_folder(keep: Path | None) -> Path:
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
        return keep
    return Path(tempfile.mkdtemp(prefix="kgvault-limits-"))


def _remove(work: Path) -> None:
    """Remove a work folder; say so when something is left (a million pages take a while to delete)."""
    shutil.rmtree(work, ignore_errors=True)
    if work.exists():
        print(f"could not remove all of {work}; delete it by hand", file=sys.stderr)


def bench_big_note(megabytes: float, seed: int, timeout: float, keep: Path | None) -> list[Run]:
    """Build one big note with the default limit (skipped) and with a raised one (read)."""
    work = _work_folder(keep)
    try:
        notes = work / "notes"
        started = time.perf_counter()
        size = write_big_note(notes, megabytes, seed)
        print(f"wrote {size:,} bytes in {time.perf_counter() - started:.1f} s: {notes / 'journal.md'}")
        config = work / "config" / "kgvault.toml"
        config.parent.mkdir(parents=True, exist_ok=True)
        config.write_text(f"max_file_bytes = {RAISED_LIMIT}\n", encoding="utf-8")
        skipped = run_build("default max_file_bytes (skipped)", notes, work / "vault-default", (), timeout)
        _show(skipped)
        read = run_build(
            f"max_file_bytes = {RAISED_LIMIT} (read)",
            notes,
            work / "vault-raised",
            ("--config", str(config)),
            timeout,
        )
        _show(read)
        return [skipped, read]
    finally:
        if keep is None:
            _remove(work)


def bench_many_notes(count: int, seed: int, timeout: float, keep: Path | None) -> list[Run]:
    """Build a folder of `count` tiny notes."""
    work = _work_folder(keep)
    try:
        notes = work / "notes"
        started = time.perf_counter()
        size = write_many_notes(notes, count, seed)
        print(f"wrote {count:,} notes ({size:,} bytes) in {time.perf_counter() - started:.1f} s: {notes}")
        run = run_build(f"{count:,} tiny notes", notes, work / "vault", (), timeout)
        _show(run)
        return [run]
    finally:
        if keep is None:
            _remove(work)


def _show(run: Run) -> None:
    summary = run.summary()
    verdict = "OK" if run.ok else "OVER TARGET" if run.peak_mb >= TARGET_MB else "FAILED"
    print(
        f"{run.label}: {summary['seconds']} s, peak {summary['peak_mb']} MiB "
        f"(target < {TARGET_MB:.0f} MiB) exit {run.returncode}{' TIMED OUT' if run.timed_out else ''} "
        f"-> {verdict}"
    )
    print(
        f"  sources {summary['sources']}, chunks {summary['chunks']}, nodes {summary['nodes']}, "
        f"entities {summary['entities']}, relations {summary['relations']}, "
        f"files written {summary['files_written']}, problems {summary['problems']}"
    )
    for line in summary["first_problems"]:
        print(f"    {line}")
    if run.returncode != 0 and run.stderr_tail:
        print("  stderr: " + run.stderr_tail.strip().replace("\n", "\n  "))


# --------------------------------------------------------------------------------------------
# Profiling in process


def _memory_status() -> tuple[float, float]:
    """This process's resident memory now and at its peak (VmRSS, VmHWM) in MiB; zeros off Linux."""
    values = {"VmRSS": 0.0, "VmHWM": 0.0}
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                key, _, rest = line.partition(":")
                if key in values:
                    values[key] = int(rest.split()[0]) / 1024
    except OSError:
        pass
    return values["VmRSS"], values["VmHWM"]


def profile(corpus: str, megabytes: float, count: int, seed: int, top: int, frames: int) -> None:
    """Build a corpus in this process; per stage, print time and memory, then the lines holding the most.

    With `frames` > 0, tracemalloc traces allocations (that many frames each; slow) and a snapshot is
    taken when the pipeline reaches "linking" (every chunk extracted) and "rendering" (the graph is
    alive, the drafts are gone; pages are rendered one by one as "writing" writes them); with 0, only
    resident memory is sampled, at full speed.
    """
    import tracemalloc

    from kgvault.build import build
    from kgvault.config import load_settings

    with tempfile.TemporaryDirectory(prefix="kgvault-limits-profile-") as tmp:
        work = Path(tmp)
        notes = work / "notes"
        if corpus == "big-note":
            size = write_big_note(notes, megabytes, seed)
            flags: dict[str, Any] = {"max_file_bytes": RAISED_LIMIT}
            print(f"profiling one note of {size:,} bytes")
        else:
            size = write_many_notes(notes, count, seed)
            flags = {}
            print(f"profiling {count:,} notes ({size:,} bytes)")
        settings = load_settings(notes, vault=work / "vault", **flags)
        rows: list[tuple[str, float, float, float, float, float]] = []
        snapshots: dict[str, Any] = {}
        started = time.perf_counter()

        def stage(name: str) -> None:
            rss, hwm = _memory_status()
            current, peak = tracemalloc.get_traced_memory() if frames else (0, 0)
            rows.append((name, time.perf_counter() - started, rss, hwm, current / 2**20, peak / 2**20))
            if frames and name in SNAPSHOT_STAGES:
                snapshots[name] = tracemalloc.take_snapshot()
            if frames:
                tracemalloc.reset_peak()

        if frames:
            tracemalloc.start(frames)
        report = build(settings, progress=stage)
        stage("done")
        if frames:
            tracemalloc.stop()
    print(
        f"{report.chunks:,} chunks, {report.episodic + report.semantic:,} nodes, {report.entities:,} entities"
    )
    print("stage (memory when it starts; traced peak is the previous stage's)")
    print(f"  {'stage':<24}{'at s':>8}{'RSS MiB':>10}{'peak RSS':>10}{'traced':>10}{'tr. peak':>10}")
    for name, at, rss, hwm, current, peak in rows:
        print(f"  {name:<24}{at:8.1f}{rss:10.1f}{hwm:10.1f}{current:10.1f}{peak:10.1f}")
    for name, snapshot in snapshots.items():
        print(f"top {top} lines by memory alive when {name!r} starts:")
        for stat in snapshot.statistics("lineno")[:top]:
            frame = stat.traceback[0]
            print(f"  {stat.size / 2**20:8.1f} MiB {stat.count:9,} blocks  {frame.filename}:{frame.lineno}")
        if frames > 1:
            print(f"top {min(top, 10)} tracebacks when {name!r} starts:")
            for stat in snapshot.statistics("traceback")[: min(top, 10)]:
                print(f"  {stat.size / 2**20:8.1f} MiB {stat.count:9,} blocks")
                for line in stat.traceback.format(limit=frames):
                    print(f"    {line}")


# --------------------------------------------------------------------------------------------
# Command line


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    commands = parser.add_subparsers(dest="command", required=True)
    for name in ("big-note", "many-notes"):
        sub = commands.add_parser(name)
        if name == "big-note":
            sub.add_argument("--mb", type=float, default=100.0, help="size of the note in MB [100]")
        else:
            sub.add_argument("--count", type=int, default=100_000, help="number of notes [100000]")
        sub.add_argument("--seed", type=int, default=7)
        sub.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, help="seconds per build [3600]")
        sub.add_argument("--keep", type=Path, help="work in this folder and keep it")
        sub.add_argument("--json", action="store_true", help="also print the results as JSON")
    prof = commands.add_parser("profile")
    prof.add_argument("corpus", choices=("big-note", "many-notes"))
    prof.add_argument("--mb", type=float, default=5.0)
    prof.add_argument("--count", type=int, default=5000)
    prof.add_argument("--seed", type=int, default=7)
    prof.add_argument("--top", type=int, default=25)
    prof.add_argument(
        "--frames", type=int, default=1, help="tracemalloc frames per allocation; 0 samples RSS only [1]"
    )
    args = parser.parse_args(argv)
    if args.command == "profile":
        profile(args.corpus, args.mb, args.count, args.seed, args.top, args.frames)
        return 0
    if args.command == "big-note":
        runs = bench_big_note(args.mb, args.seed, args.timeout, args.keep)
    else:
        runs = bench_many_notes(args.count, args.seed, args.timeout, args.keep)
    if args.json:
        print(json.dumps([{**r.summary(), "stderr_tail": r.stderr_tail} for r in runs], indent=2))
    return 0 if all(r.ok for r in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
