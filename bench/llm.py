"""Benchmark `kgvault build --model` against a local OpenAI-compatible stub that answers slowly.

Usage:
    python bench/llm.py [--chunks 64] [--jobs 8] [--delay 0.5] [--keep DIR] [--json]

Generates a notes folder of `--chunks` one-paragraph notes (one chunk each, no frontmatter) in a
temporary folder, starts the stub of tests/llm_stub.py on 127.0.0.1 answering every request with a
valid draft after `--delay` seconds, and runs

    python -m kgvault build NOTES -o VAULT --model openai/stub --api-base STUB --jobs N --json

in a subprocess (OPENAI_API_KEY removed from its environment: nothing real is reached). Prints the
chunks, the requests the stub received, the build's wall time (perf_counter from spawn to reap,
interpreter start and the litellm import included), the most requests the stub saw at once, the
floor (chunks / jobs × delay) and the report's `llm` object.

Target (issue 7): `--jobs 8` against a 0.5 s stub finishes 64 chunks in under 8 s. See
docs/performance.md.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
TARGET_SECONDS = 8.0
"""Issue 7: 64 chunks, --jobs 8, a 0.5 s stub."""
_WORDS = (
    *("printer", "garden", "kettle", "sourdough", "bicycle", "router", "lantern", "harbour"),
    *("violin", "compass", "notebook", "telescope", "orchard", "ferry", "workshop", "glacier"),
)


def load_stub() -> ModuleType:
    """tests/llm_stub.py, imported by path (bench is no package, and tests need not be importable)."""
    path = ROOT / "tests" / "llm_stub.py"
    spec = importlib.util.spec_from_file_location("kgvault_bench_llm_stub", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    return module


def write_notes(folder: Path, chunks: int) -> None:
    """`chunks` one-paragraph notes, each a different sentence naming a different project."""
    folder.mkdir(parents=True)
    for i in range(chunks):
        word = _WORDS[i % len(_WORDS)]
        (folder / f"note-{i:04d}.md").write_text(
            f"Benchmark note {i}: the {word} project Zeta{i} moved to its next phase.\n", "utf-8"
        )
    (folder / "kgvault.toml").write_text("timeout = 30\nretries = 1\nbackoff = 0.5\n", "utf-8")


def run(chunks: int, jobs: int, delay: float, work: Path) -> dict[str, Any]:
    """Build the generated notes against the stub once; the measurements."""
    stub_module = load_stub()
    notes, vault = work / "notes", work / "vault"
    write_notes(notes, chunks)
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "KGVAULT_MODEL")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))

    def respond(body: dict[str, Any]) -> Any:
        reply = stub_module.default_reply(body)
        return stub_module.Reply(reply.status, reply.body, reply.text, delay, reply.headers)

    with stub_module.StubLLM(respond) as stub:
        command = [
            sys.executable, "-m", "kgvault", "build", str(notes), "-o", str(vault),
            "--model", "openai/stub", "--api-base", stub.api_base, "--jobs", str(jobs), "--json",
        ]  # fmt: skip
        started = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=work, check=False)
        wall = time.perf_counter() - started
        requests = len(stub.requests)
        concurrency = stub.max_concurrency()
    if done.returncode != 0:
        raise SystemExit(f"kgvault build exited {done.returncode}:\n{done.stderr}{done.stdout}")
    report: dict[str, Any] = json.loads(done.stdout)
    return {
        "chunks": chunks,
        "jobs": jobs,
        "delay": delay,
        "requests": requests,
        "max_in_flight": concurrency,
        "wall_seconds": round(wall, 3),
        "floor_seconds": round(math.ceil(chunks / jobs) * delay, 3),
        "build_seconds": report["seconds"],
        "llm": report["llm"],
        "problems": len(report["problems"]),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--chunks", type=int, default=64, help="notes to generate, one chunk each")
    parser.add_argument("--jobs", type=int, default=8, help="kgvault build --jobs")
    parser.add_argument("--delay", type=float, default=0.5, help="seconds the stub takes per answer")
    parser.add_argument("--keep", type=Path, help="work in this (new) folder and keep it")
    parser.add_argument("--json", action="store_true", help="print the result as one JSON object")
    args = parser.parse_args(argv)
    if args.chunks < 1 or args.jobs < 1 or args.delay < 0:
        parser.error("--chunks and --jobs must be ≥ 1, --delay ≥ 0")
    work = args.keep or Path(tempfile.mkdtemp(prefix="kgvault-bench-llm-"))
    if args.keep:
        work.mkdir(parents=True, exist_ok=False)
    try:
        result = run(args.chunks, args.jobs, args.delay, work)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        llm = result["llm"]
        print(f"chunks          {result['chunks']}")
        print(f"requests        {result['requests']} (at most {result['max_in_flight']} at once)")
        print(f"jobs, delay     {result['jobs']}, {result['delay']} s")
        print(f"wall            {result['wall_seconds']:.2f} s (floor {result['floor_seconds']:.2f} s)")
        print(f"build (report)  {result['build_seconds']:.2f} s")
        print(f"llm             {json.dumps(llm)}")
        print(f"problems        {result['problems']}")
        if (result["chunks"], result["jobs"], result["delay"]) == (64, 8, 0.5):
            verdict = "met" if result["wall_seconds"] < TARGET_SECONDS else "MISSED"
            print(f"target          < {TARGET_SECONDS:.0f} s: {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
