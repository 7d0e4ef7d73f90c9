"""Time `kgvault search` on a synthetic vault, interpreter start-up included.

Usage:
    python bench/search.py [N] [--seed S] [--keep DIR] [--repeat R] [--json]

Generate the seeded synthetic corpus of `bench/build.py` (N notes, default 2,000), build it once
with `python -m kgvault build CORPUS -o VAULT --json -q`, then run
`python -m kgvault search QUERY --vault VAULT --json` as a fresh subprocess for each of the
QUERIES below (names, aliases, topics, "when" questions, time words), R times each (default 3),
in this checkout (cwd is the repository). Reported: the median over the queries of each query's
median wall time (perf_counter from spawn to reap), the slowest query, and two floors measured
the same way — `python -c pass` and `python -m kgvault --version` (start-up and the CLI's
imports) — plus the in-process time of `kgvault.search.search` alone. An unmeasured warm-up
search byte-compiles the imports first.

Target (issue 8): under 150 ms per query at N = 2,000, start-up included.
With --keep DIR the corpus and vault stay in DIR and are reused by the next run with the same
N and seed. Nothing touches the network. See docs/performance.md.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from build import generate  # the seeded corpus of bench/build.py, beside this script

REPO = Path(__file__).resolve().parent.parent
"""Children run here, so `python -m kgvault` is this checkout's kgvault even when not installed."""
TARGET_MS = 150.0
TARGET_N = 2000
QUERIES = (
    "Klipper",
    "Project Northern Willow",
    "budget spreadsheet for Northern Willow",
    "Dana Kim",
    "what did Aisha Moreau decide about the dashboard",
    "when did we fix the memory leak",
    "flaky test in the test suite",
    "technical debt",
    "sourdough starter",
    "Lisbon",
    "expired certificate last year",
    "what happened in March 2024",
    "Pioneer Labs",
    "input shaping and pressure advance",
    "race condition in the uploader",
    "who works at Tundra Analytics",
    "retry storm yesterday",
    "the quarterly report",
    "Obsidian for quick scripts",
    "companion planting in the raised beds",
)
"""Words from the corpus's pools: people, projects, organizations, topics, times."""


def timed(argv: Sequence[str]) -> tuple[float, str]:
    """Run a child; its wall time in ms and its stdout. A failure stops the benchmark."""
    started = time.perf_counter()
    result = subprocess.run(list(argv), cwd=REPO, capture_output=True, text=True, check=False)
    elapsed = (time.perf_counter() - started) * 1000
    if result.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({result.returncode}):\n{result.stderr}")
    return elapsed, result.stdout


def prepare(workdir: Path, n: int, seed: int, say: Any) -> tuple[Path, dict[str, Any]]:
    """The corpus and its built vault in `workdir`, made unless a run with the same N and seed left them."""
    notes, vault, marker = workdir / "notes", workdir / "vault", workdir / "corpus.json"
    wanted = {"n": n, "seed": seed}
    if marker.is_file() and json.loads(marker.read_text("utf-8")) == wanted and vault.is_dir():
        say(f"reusing {vault}")
        report = {"reused": True}
    else:
        if any(workdir.iterdir()):
            raise SystemExit(f"{workdir} holds something else; empty it or choose another --keep folder")
        say(f"generating {n} notes (seed {seed})")
        generate(notes, n, seed)
        say("building the vault")
        seconds, out = timed(
            [sys.executable, "-m", "kgvault", "build", str(notes), "-o", str(vault), "--json", "-q"]
        )
        report = json.loads(out) | {"wall_s": round(seconds / 1000, 2)}
        marker.write_text(json.dumps(wanted) + "\n", "utf-8")
    return vault, report


def measure(vault: Path, repeat: int, say: Any) -> dict[str, Any]:
    """Wall times of the search subprocesses and of the floors, and in-process search times."""
    search = [sys.executable, "-m", "kgvault", "search"]
    timed([*search, QUERIES[0], "--vault", str(vault), "--json"])  # warm-up: byte-compile
    per_query: dict[str, float] = {}
    hits: dict[str, int] = {}
    for query in QUERIES:
        runs = []
        for _ in range(repeat):
            ms, out = timed([*search, query, "--vault", str(vault), "--json"])
            runs.append(ms)
        per_query[query] = statistics.median(runs)
        hits[query] = len(json.loads(out))
        say(f"{per_query[query]:7.1f} ms  {hits[query]:2d} hits  {query}")
    floors = {
        "python -c pass": statistics.median(
            timed([sys.executable, "-c", "pass"])[0] for _ in range(repeat * 5)
        ),
        "python -m kgvault --version": statistics.median(
            timed([sys.executable, "-m", "kgvault", "--version"])[0] for _ in range(repeat * 5)
        ),
    }
    return {
        "queries": len(QUERIES),
        "repeat": repeat,
        "median_ms": round(statistics.median(per_query.values()), 1),
        "max_ms": round(max(per_query.values()), 1),
        "slowest": max(per_query, key=per_query.__getitem__),
        "floors_ms": {name: round(ms, 1) for name, ms in floors.items()},
        "in_process_ms": _in_process(vault, repeat),
        "per_query_ms": {query: round(ms, 1) for query, ms in per_query.items()},
        "hits": hits,
    }


def _in_process(vault: Path, repeat: int) -> dict[str, float]:
    """Median and max over the queries of `kgvault.search.search` alone (the index opened each time)."""
    from kgvault.search import search

    times = []
    for query in QUERIES:
        runs = []
        for _ in range(repeat):
            started = time.perf_counter()
            search(vault, query, 10)
            runs.append((time.perf_counter() - started) * 1000)
        times.append(statistics.median(runs))
    return {"median": round(statistics.median(times), 1), "max": round(max(times), 1)}


def index_size(vault: Path) -> int:
    from kgvault.search import INDEX_FILE

    return (vault / INDEX_FILE).stat().st_size


def report_text(n: int, build: dict[str, Any], numbers: dict[str, Any], size: int) -> str:
    nodes = build.get("nodes") or {}
    built = (
        "reused"
        if build.get("reused")
        else f"{' + '.join(f'{n} {kind}' for kind, n in nodes.items())} nodes, "
        f"{build.get('entities')} entities, built in {build['wall_s']} s"
    )
    floors = numbers["floors_ms"]
    in_process = numbers["in_process_ms"]
    verdict = "met" if numbers["median_ms"] < TARGET_MS else "NOT met"
    return "\n".join(
        [
            f"corpus: {n} notes; vault {built}; index {size / 1e6:.1f} MB",
            f"`kgvault search --json`, {numbers['queries']} queries × {numbers['repeat']}: "
            f"median {numbers['median_ms']} ms, slowest {numbers['max_ms']} ms ({numbers['slowest']!r})",
            f"floors: python -c pass {floors['python -c pass']} ms; "
            f"python -m kgvault --version {floors['python -m kgvault --version']} ms",
            f"search() in-process: median {in_process['median']} ms, max {in_process['max']} ms",
            f"target < {TARGET_MS:.0f} ms at N = {TARGET_N}: {verdict}",
        ]
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("n", nargs="?", type=int, default=TARGET_N, help=f"notes in the corpus [{TARGET_N}]")
    parser.add_argument("--seed", type=int, default=0, help="corpus seed [0]")
    parser.add_argument("--keep", type=Path, metavar="DIR", help="keep (and reuse) corpus and vault in DIR")
    parser.add_argument("--repeat", type=int, default=3, help="runs per query [3]")
    parser.add_argument("--json", action="store_true", help="print the numbers as JSON")
    args = parser.parse_args(argv)
    say = (lambda text: None) if args.json else (lambda text: print(text, file=sys.stderr))

    def run(workdir: Path) -> int:
        vault, build = prepare(workdir, args.n, args.seed, say)
        numbers = measure(vault, args.repeat, say)
        size = index_size(vault)
        if args.json:
            print(json.dumps({"n": args.n, "build": build, "index_bytes": size, **numbers}, indent=2))
        else:
            print(report_text(args.n, build, numbers, size))
        return 0 if numbers["median_ms"] < TARGET_MS else 1

    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
        return run(args.keep.resolve())
    with tempfile.TemporaryDirectory(prefix="kgvault-search-") as tmp:
        return run(Path(tmp))


if __name__ == "__main__":
    sys.exit(main())
