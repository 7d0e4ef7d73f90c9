"""Linear growth: build hostile-but-plausible single notes at sizes n, 2n and 4n and compare.

Usage:
    python bench/shapes.py [--shape NAME ...] [--scale F] [--seed S] [--timeout SECONDS]
                           [--keep DIR] [--json]

Each shape is one note that a real notes folder may well hold but that is easy to handle in
quadratic time (a regex that backtracks, a list scanned once per item, a string grown by copies):

- `links-on-one-line`: `# Index` and n distinct `[[Page i]]` wikilinks on one line (n = 2,000);
- `run-on-transcript`: a dated note (`date: 2024-03-01`) of one paragraph of n seeded random
  clauses ("Alice works at Google", "um you know", ...) without any sentence punctuation (2,000);
- `unclosed-brackets`: one line of n sentences `For case i the value lies in [0, i) and we use
  Atlas.` (2,000);
- `dot-runs`, `bang-runs`: `Alice met Bob in Berlin. Wait` followed by n dots (or `!`) and `done`
  (10,000);
- `many-aliases`: a frontmatter `aliases:` list of n items `Alias i` (10,000);
- `long-log`: a pasted server log of n lines like `2024-03-01T12:00:00Z INFO worker-3 processed
  job 123 in 45 ms` (2,000);
- `long-lists`: a sentence listing n people as the subject (`Person0 Lastname0, … and Bob work at
  Acme.`) and one listing them as objects (`Atlas depends on …`) (1,000).

--scale multiplies the base sizes. Each note is built alone, one build at a time, in a fresh
`python -m kgvault build NOTES -o VAULT --json` subprocess (limits.run_build: CPU time and peak
memory are the child's own, from `os.wait4`; wall time is shown too). CPU time, not wall time,
is compared: on a shared machine wall time of one build varied 2.5-fold. An empty-notes build is
measured three times first; the least CPU time of those (start-up and imports) is subtracted from
every build, clamped at FLOOR_SECONDS. The verdict per shape is "linear" when the net time of 4n
is under 6 × that of n (linear would be ~4, quadratic ~16), else "SUPER-LINEAR". A build that
exceeds --timeout is killed and reported as such, and the shape's larger sizes are skipped
(if 2n or 4n timed out, its ratio is a lower bound). The exit status is 0 whatever the verdicts:
this is a benchmark, not a test. Nothing touches the network; temporary folders are removed
unless --keep.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from limits import Run, run_build  # the build-and-measure helper, beside this script

DEFAULT_TIMEOUT = 120.0
FLOOR_SECONDS = 0.1
"""Net build times (start-up subtracted) never go below this: about the jitter of start-up on a
shared machine, so a note that costs next to nothing cannot fake a large ratio."""
LINEAR_RATIO = 6.0
"""A 4n/n net time ratio at or above this is called super-linear (linear ~4, quadratic ~16)."""
MULTIPLES = (1, 2, 4)
CLAUSES = ("Alice works at Google", "Bob lives in Paris", "um you know", "I met Carol yesterday")


# --------------------------------------------------------------------------------------------
# Shapes


def links_on_one_line(n: int, rng: random.Random) -> str:
    return "# Index\n\n" + " ".join(f"[[Page {i}]]" for i in range(n)) + "\n"


def run_on_transcript(n: int, rng: random.Random) -> str:
    return "---\ndate: 2024-03-01\n---\n" + " ".join(rng.choice(CLAUSES) for _ in range(n)) + "\n"


def unclosed_brackets(n: int, rng: random.Random) -> str:
    return " ".join(f"For case {i} the value lies in [0, {i}) and we use Atlas." for i in range(n)) + "\n"


def mark_run(mark: str) -> Callable[[int, random.Random], str]:
    def shape(n: int, rng: random.Random) -> str:
        return "# S\n\nAlice met Bob in Berlin. Wait" + mark * n + "done\n"

    return shape


def many_aliases(n: int, rng: random.Random) -> str:
    items = "".join(f"  - Alias {i}\n" for i in range(n))
    return f"---\naliases:\n{items}---\n# Hub\n\nAlice met Bob in Berlin.\n"


def long_log(n: int, rng: random.Random) -> str:
    lines = []
    for i in range(n):
        stamp = f"2024-03-01T{12 + i // 3600 % 12:02d}:{i // 60 % 60:02d}:{i % 60:02d}Z"
        level = "WARN" if rng.random() < 0.05 else "INFO"
        lines.append(
            f"{stamp} {level} worker-{rng.randrange(8)} processed job {rng.randrange(1, 100_000)}"
            f" in {rng.randrange(1, 500)} ms\n"
        )
    return "# Outage on 2024-03-01\n\nThe worker log:\n\n" + "".join(lines)


def long_lists(n: int, rng: random.Random) -> str:
    """A sentence listing n people as its subject, and one listing n things as its objects."""
    names = ", ".join(f"Person{i} Lastname{i}" for i in range(n))
    return f"# Roster\n\n{names} and Bob work at Acme.\n\nAtlas depends on {names} and Kafka.\n"


@dataclass(frozen=True, slots=True)
class Shape:
    """One kind of hostile note."""

    name: str
    base: int
    """n at --scale 1."""
    unit: str
    """What n counts."""
    text: Callable[[int, random.Random], str]


SHAPES = {
    shape.name: shape
    for shape in (
        Shape("links-on-one-line", 2_000, "links", links_on_one_line),
        Shape("run-on-transcript", 2_000, "clauses", run_on_transcript),
        Shape("unclosed-brackets", 2_000, "sentences", unclosed_brackets),
        Shape("dot-runs", 10_000, "dots", mark_run(".")),
        Shape("bang-runs", 10_000, "marks", mark_run("!")),
        Shape("many-aliases", 10_000, "aliases", many_aliases),
        Shape("long-log", 2_000, "lines", long_log),
        Shape("long-lists", 1_000, "names", long_lists),
    )
}


# --------------------------------------------------------------------------------------------
# Measurements


@dataclass(slots=True)
class Point:
    """One build of one shape at one size."""

    shape: str
    n: int
    kb: float
    run: Run
    net: float
    """CPU time minus the empty build's, clamped at FLOOR_SECONDS."""

    @property
    def status(self) -> str:
        if self.run.timed_out:
            return "TIMED OUT"
        return "ok" if self.run.returncode == 0 else f"exit {self.run.returncode}"


def verdict(points: Sequence[Point]) -> tuple[str, str]:
    """The 4n/n net time ratio as text, and whether it looks linear."""
    first, last = points[0], points[-1]
    if first.status != "ok":
        return "-", f"NO BASELINE ({first.status})"
    ratio = last.net / first.net
    if last.run.timed_out:
        return f"> {ratio:.1f}", "SUPER-LINEAR" if ratio >= LINEAR_RATIO else "TIMED OUT"
    if last.status != "ok":
        return f"{ratio:.1f}", f"FAILED ({last.status})"
    return f"{ratio:.1f}", "linear" if ratio < LINEAR_RATIO else "SUPER-LINEAR"


def bench_shape(
    shape: Shape, scale: float, seed: int, startup: float, timeout: float, work: Path
) -> list[Point]:
    """Write and build the shape's note at n, 2n and 4n, one build at a time; stop at a timeout."""
    points = []
    for multiple in MULTIPLES:
        n = max(1, round(shape.base * scale)) * multiple
        folder = work / f"{shape.name}-{n}"
        notes = folder / "notes"
        notes.mkdir(parents=True, exist_ok=True)
        data = shape.text(n, random.Random(seed)).encode("utf-8")
        (notes / f"{shape.name}.md").write_bytes(data)
        run = run_build(f"{shape.name} n={n}", notes, folder / "vault", (), timeout)
        point = Point(shape.name, n, len(data) / 1024, run, max(FLOOR_SECONDS, run.cpu_seconds - startup))
        print(
            f"{shape.name} n={n:,} ({point.kb:,.0f} KB): {run.seconds:.2f} s, CPU {run.cpu_seconds:.2f} s"
            f" (net {point.net:.2f} s),"
            f" peak {run.peak_mb:.0f} MB, {point.status}",
            file=sys.stderr,
        )
        if point.status != "ok" and run.stderr_tail:
            print("  stderr: " + run.stderr_tail.strip().replace("\n", "\n  "), file=sys.stderr)
        points.append(point)
        if run.timed_out:
            break  # the larger sizes would only take longer
    return points


def table(startup: Run, results: dict[str, list[Point]]) -> str:
    """The results as a Markdown table, one row per build; the verdict on each shape's last row."""
    rows = [
        "| shape | n | KB | wall s | CPU s | net CPU s | peak MB | status | 4n/n net | verdict |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | --- |",
        f"| (empty notes) | 0 | 0 | {startup.seconds:.2f} | {startup.cpu_seconds:.2f} | - "
        f"| {startup.peak_mb:.0f} | "
        f"{'ok' if startup.returncode == 0 else f'exit {startup.returncode}'} | | |",
    ]
    for name, points in results.items():
        ratio, word = verdict(points)
        for index, p in enumerate(points):
            last = index == len(points) - 1
            rows.append(
                f"| {name} | {p.n:,} | {p.kb:,.0f} | {p.run.seconds:.2f} | {p.run.cpu_seconds:.2f} "
                f"| {p.net:.2f} | {p.run.peak_mb:.0f} "
                f"| {p.status} | {ratio if last else ''} | {word if last else ''} |"
            )
    return "\n".join(rows)


def as_json(startup: Run, results: dict[str, list[Point]]) -> dict[str, Any]:
    shapes = []
    for name, points in results.items():
        ratio, word = verdict(points)
        builds = [
            {
                "n": p.n,
                "kb": round(p.kb, 1),
                "seconds": round(p.run.seconds, 3),
                "cpu_seconds": round(p.run.cpu_seconds, 3),
                "net_cpu_seconds": round(p.net, 3),
                "peak_mb": round(p.run.peak_mb, 1),
                "status": p.status,
            }
            for p in points
        ]
        shapes.append({"shape": name, "ratio": ratio, "verdict": word, "builds": builds})
    return {
        "startup_seconds": round(startup.seconds, 3),
        "startup_cpu_seconds": round(startup.cpu_seconds, 3),
        "startup_peak_mb": round(startup.peak_mb, 1),
        "shapes": shapes,
    }


# --------------------------------------------------------------------------------------------
# Command line


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--shape", action="append", choices=list(SHAPES), help="a shape to build (repeatable) [all]"
    )
    parser.add_argument("--scale", type=float, default=1.0, help="multiply the base sizes [1]")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, help="seconds per build [120]")
    parser.add_argument("--keep", type=Path, help="work in this folder and keep it")
    parser.add_argument("--json", action="store_true", help="also print the results as JSON")
    args = parser.parse_args(argv)
    names = list(dict.fromkeys(args.shape or SHAPES))
    if args.keep is not None:
        args.keep.mkdir(parents=True, exist_ok=True)
    work = args.keep or Path(tempfile.mkdtemp(prefix="kgvault-shapes-"))
    try:
        empty = work / "empty"
        (empty / "notes").mkdir(parents=True, exist_ok=True)
        tries = [
            run_build("empty notes", empty / "notes", empty / f"vault-{i}", (), args.timeout)
            for i in range(3)
        ]
        startup = min(tries, key=lambda run: run.cpu_seconds)
        print(
            f"empty notes: {startup.seconds:.2f} s, CPU {startup.cpu_seconds:.2f} s, "
            f"peak {startup.peak_mb:.0f} MB",
            file=sys.stderr,
        )
        started = time.perf_counter()
        results = {
            name: bench_shape(SHAPES[name], args.scale, args.seed, startup.cpu_seconds, args.timeout, work)
            for name in names
        }
        print(f"all builds: {time.perf_counter() - started:.1f} s", file=sys.stderr)
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)
    print(table(startup, results))
    if args.json:
        print(json.dumps(as_json(startup, results), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
