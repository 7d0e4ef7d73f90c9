"""Turn the LoCoMo dev conversations into kgvault transcript notes, and build a vault from them.

Usage:
    python bench/locomo.py convert [--data PATH] OUT [--map FILE]
    python bench/locomo.py build [--data PATH] [--keep DIR]

LoCoMo (`locomo-dev.json`) is a list of samples; each has a `sample_id` and a `conversation` with
`speaker_a`, `speaker_b`, and for every session N a list `session_N` of turns (`speaker`, `dia_id`,
`text`, and for a shared image `blip_caption`, usually with `img_url` and `query`) and its time
`session_N_date_time` ("1:56 pm on 8 May, 2023").

convert: write one transcript note per session (DESIGN §6, "Transcript notes") to
`OUT/<sample_id>/session-NN.md`: frontmatter with `title`, `date` (`YYYY-MM-DDTHH:MM:SS`) and
`participants`, then one line `Speaker: text` per turn and nothing else. A shared image appends
` [image: <blip_caption>]`; line breaks inside a text become spaces, so every turn is one line.
The map from (note, 1-based line in the file) to the turn's `dia_id` is written to --map
(default `OUT.dia_ids.json`, beside OUT, so that OUT stays a notes folder of transcripts only):
a JSON object {note path: {line: dia_id}}. `dia_id`s repeat across samples ("D1:1" opens every
conversation); the note's folder tells the samples apart.

build: convert into a temporary folder (or --keep DIR: DIR/notes, DIR/notes.dia_ids.json) and run
`python -m kgvault build NOTES -o VAULT --json` on it in a subprocess (this checkout's kgvault), then
print the report's sources, chunks, nodes and seconds.

retrieval: not yet (a later issue); it will read the notes, the map and the samples' `qa`.

The data file is only ever read; nothing is copied into the repository. Nothing touches the network.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parent.parent
"""Children run here, so `python -m kgvault` is this checkout's kgvault even when not installed."""
DEFAULT_DATA = REPO.parent / "shared" / "data" / "locomo-dev" / "locomo-dev.json"
BUILD_TIMEOUT = 1800.0

MONTHS = (
    "january", "february", "march", "april", "may", "june",
    "july", "august", "september", "october", "november", "december",
)  # fmt: skip
"""Spelled out here, not taken from `calendar`, whose names follow the locale."""
SESSION_KEY = re.compile(r"session_(\d+)")
SESSION_TIME = re.compile(
    r"(?P<hour>\d{1,2})[:.](?P<minute>\d{2})\s*(?P<half>[ap])\.?\s*m\.?\s*,?\s*(?:on\s+)?"
    r"(?P<day>\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<month>[a-z]+)\.?\s*,?\s*(?P<year>\d{4})",
    re.IGNORECASE,
)
SAMPLE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
"""A sample id becomes a folder name: no separators, no leading dot."""

Session = tuple[int, datetime, list[dict[str, Any]]]
DiaMap = dict[tuple[str, int], str]


class ConvertError(ValueError):
    """The data file is not LoCoMo as this script knows it."""


# --------------------------------------------------------------------------------------------
# Reading LoCoMo.


def load_samples(data_path: Path) -> list[dict[str, Any]]:
    """Read the LoCoMo samples, each a dict with at least `sample_id` and `conversation`."""
    data = json.loads(data_path.read_text("utf-8"))
    if not isinstance(data, list):
        raise ConvertError(f"{data_path}: expected a JSON list of samples, found {type(data).__name__}")
    for index, sample in enumerate(data):
        if not isinstance(sample, dict) or not isinstance(sample.get("conversation"), dict):
            raise ConvertError(f"{data_path}: sample {index} has no `conversation` object")
        if not isinstance(sample.get("sample_id"), str):
            raise ConvertError(f"{data_path}: sample {index} has no `sample_id` string")
    return data


def parse_session_time(text: str) -> datetime:
    """Parse LoCoMo's "1:56 pm on 8 May, 2023" (case, spacing, "Sept", "8th" tolerated) to a datetime."""
    match = SESSION_TIME.fullmatch(text.strip())
    if match is None:
        raise ConvertError(f"cannot read the session time {text!r} (expected like '1:56 pm on 8 May, 2023')")
    word = match["month"].lower()
    months = [number for number, name in enumerate(MONTHS, 1) if len(word) >= 3 and name.startswith(word)]
    hour = int(match["hour"])
    if len(months) != 1 or not 1 <= hour <= 12:
        raise ConvertError(f"cannot read the session time {text!r}")
    hour = hour % 12 + (12 if match["half"].lower() == "p" else 0)
    try:
        return datetime(int(match["year"]), months[0], int(match["day"]), hour, int(match["minute"]))
    except ValueError as error:
        raise ConvertError(f"cannot read the session time {text!r}: {error}") from error


def sessions(sample: dict[str, Any]) -> list[Session]:
    """The sample's sessions as (number, time, turns), by session number (session_10 after session_9).

    A `session_N_date_time` without a `session_N` (LoCoMo has some) is no session.
    """
    conversation = sample["conversation"]
    found: list[Session] = []
    for key, turns in conversation.items():
        match = SESSION_KEY.fullmatch(key)
        if match is None:
            continue
        where = f"{sample['sample_id']} {key}"
        if not isinstance(turns, list):
            raise ConvertError(f"{where}: expected a list of turns")
        stamp = conversation.get(f"{key}_date_time")
        if not isinstance(stamp, str):
            raise ConvertError(f"{where}: no {key}_date_time")
        try:
            when = parse_session_time(stamp)
        except ConvertError as error:
            raise ConvertError(f"{where}: {error}") from error
        found.append((int(match[1]), when, turns))
    return sorted(found, key=lambda session: session[0])


# --------------------------------------------------------------------------------------------
# Writing transcript notes.


def one_line(text: str) -> str:
    """The text on one line: every line break (any that str.splitlines knows) becomes a space."""
    return " ".join(text.splitlines()).strip()


def participants(sample: dict[str, Any]) -> list[str]:
    """speaker_a, speaker_b, then anyone else who speaks in the sample, in order of first turn."""
    conversation = sample["conversation"]
    names = [one_line(str(conversation[key])) for key in ("speaker_a", "speaker_b") if conversation.get(key)]
    for _, _, turns in sessions(sample):
        for turn in turns:
            name = one_line(str(turn["speaker"]))
            if name not in names:
                names.append(name)
    return names


def turn_line(turn: dict[str, Any]) -> str:
    """The turn as one transcript line: `Speaker: text`, with ` [image: caption]` for a shared image."""
    text = one_line(str(turn.get("text") or ""))
    caption = turn.get("blip_caption")
    if isinstance(caption, str) and one_line(caption):
        image = f"[image: {one_line(caption)}]"
        text = f"{text} {image}" if text else image
    speaker = one_line(str(turn["speaker"]))
    return f"{speaker}: {text}" if text else f"{speaker}:"


def frontmatter(title: str, when: datetime, names: list[str]) -> str:
    """The note's frontmatter block, `date` written plain so YAML reads it as a timestamp."""
    return (
        "---\n"
        + _yaml({"title": title})
        + f"date: {when.isoformat(timespec='seconds')}\n"
        + _yaml({"participants": names})
        + "---\n"
    )


def _yaml(mapping: dict[str, Any]) -> str:
    """Block-style YAML, quoting only where YAML needs it."""
    return yaml.safe_dump(
        mapping, allow_unicode=True, default_flow_style=False, sort_keys=False, width=10_000
    )


def session_note(sample_id: str, number: int) -> str:
    """The note's path relative to the output folder."""
    return f"{sample_id}/session-{number:02d}.md"


def render(samples: list[dict[str, Any]]) -> tuple[dict[str, str], DiaMap]:
    """Every note's text by relative path, and the map (note, 1-based line) → dia_id."""
    notes: dict[str, str] = {}
    dia_ids: DiaMap = {}
    for sample in samples:
        sample_id = sample["sample_id"]
        if not SAMPLE_ID.fullmatch(sample_id):
            raise ConvertError(f"sample id {sample_id!r} cannot be a folder name")
        names = participants(sample)
        for number, when, turns in sessions(sample):
            path = session_note(sample_id, number)
            if path in notes:
                raise ConvertError(f"{path}: sample id {sample_id!r} or session {number} occurs twice")
            head = frontmatter(f"{sample_id} session {number}", when, names)
            first = head.count("\n") + 1
            lines = []
            for offset, turn in enumerate(turns):
                lines.append(turn_line(turn))
                dia_ids[(path, first + offset)] = str(turn["dia_id"])
            notes[path] = head + "".join(f"{line}\n" for line in lines)
    return notes, dia_ids


def convert(data_path: Path, out: Path) -> DiaMap:
    """Write one transcript note per session under `out`; return (relative path, 1-based line) → dia_id."""
    notes, dia_ids = render(load_samples(data_path))
    for path, text in notes.items():
        target = out / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(text.encode("utf-8"))
    return dia_ids


def write_map(dia_ids: DiaMap, path: Path) -> None:
    """Write the map as JSON: {note path: {line: dia_id}}, notes and lines in order."""
    nested: dict[str, dict[str, str]] = {}
    for (note, line), dia_id in sorted(dia_ids.items()):
        nested.setdefault(note, {})[str(line)] = dia_id
    path.write_text(json.dumps(nested, indent=1, ensure_ascii=False) + "\n", "utf-8")


def read_map(path: Path) -> DiaMap:
    """Read a map that `write_map` wrote."""
    nested = json.loads(path.read_text("utf-8"))
    return {(note, int(line)): dia_id for note, lines in nested.items() for line, dia_id in lines.items()}


# --------------------------------------------------------------------------------------------
# Subcommands.


def _empty_folder(path: Path) -> bool:
    return not path.exists() or (path.is_dir() and not any(path.iterdir()))


def run_convert(args: argparse.Namespace) -> int:
    out: Path = args.out
    map_path: Path = args.map or out.with_name(out.name + ".dia_ids.json")
    if not _empty_folder(out):
        raise SystemExit(f"{out} is not an empty folder; remove it or choose another OUT")
    if map_path.resolve().is_relative_to(out.resolve()):
        raise SystemExit(f"--map {map_path} is inside OUT; kgvault would read it as a note")
    samples = load_samples(args.data)
    dia_ids = convert(args.data, out)
    write_map(dia_ids, map_path)
    counted = [len(turns) for sample in samples for _, _, turns in sessions(sample)]
    files = sum(1 for _ in out.rglob("*.md"))
    print(
        f"{len(samples)} samples, {len(counted)} sessions, {sum(counted)} turns → {files} files in {out}; "
        f"dia_id map {map_path}"
    )
    return 0


def build_vault(data_path: Path, workdir: Path) -> tuple[dict[str, Any], float]:
    """Convert into `workdir/notes`, build `workdir/vault`; return kgvault's JSON report and wall time."""
    notes, vault = workdir / "notes", workdir / "vault"
    write_map(convert(data_path, notes), workdir / "notes.dia_ids.json")
    command = [sys.executable, "-m", "kgvault", "build", str(notes), "-o", str(vault), "--json"]
    started = time.perf_counter()
    result = subprocess.run(
        command, cwd=REPO, capture_output=True, text=True, timeout=BUILD_TIMEOUT, check=False
    )
    wall = time.perf_counter() - started
    if result.returncode != 0:
        raise SystemExit(f"kgvault build failed ({result.returncode}):\n{result.stderr or result.stdout}")
    report: dict[str, Any] = json.loads(result.stdout)
    return report, wall


def run_build(args: argparse.Namespace) -> int:
    if args.keep:
        workdir: Path = args.keep.resolve()
        if not _empty_folder(workdir):
            raise SystemExit(f"{workdir} is not an empty folder; remove it or choose another --keep folder")
        workdir.mkdir(parents=True, exist_ok=True)
        report, wall = build_vault(args.data, workdir)
    else:
        with tempfile.TemporaryDirectory(prefix="kgvault-locomo-") as tmp:
            report, wall = build_vault(args.data, Path(tmp))
    nodes = report.get("nodes")
    shown = (
        " + ".join(f"{count} {kind}" for kind, count in nodes.items()) if isinstance(nodes, dict) else nodes
    )
    print(
        f"{report.get('sources')} sources, {report.get('chunks')} chunks, nodes {shown}, "
        f"{len(report.get('problems') or [])} problems; {report.get('seconds')} s "
        f"({wall:.2f} s wall with interpreter start)" + (f"; kept in {args.keep}" if args.keep else "")
    )
    return 0


# A later issue adds `retrieval` here: its parser in `main` (with --data and the map) and
# a `run_retrieval(args)` beside these, scoring the samples' `qa` against the built vault.


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    data = argparse.ArgumentParser(add_help=False)
    data.add_argument(
        "--data",
        type=Path,
        default=DEFAULT_DATA,
        metavar="PATH",
        help=f"LoCoMo JSON, only read [{DEFAULT_DATA}]",
    )

    convert_help = "write one transcript note per session, and the dia_id map"
    convert_parser = commands.add_parser(
        "convert", parents=[data], help=convert_help, description=convert_help.capitalize() + "."
    )
    convert_parser.add_argument("out", type=Path, metavar="OUT", help="notes folder to create (empty)")
    convert_parser.add_argument(
        "--map", type=Path, metavar="FILE", help="where to write the dia_id map [OUT.dia_ids.json]"
    )
    convert_parser.set_defaults(run=run_convert)

    build_help = "convert into a temporary folder and run `kgvault build` on it"
    build_parser = commands.add_parser(
        "build", parents=[data], help=build_help, description=build_help.capitalize() + "."
    )
    build_parser.add_argument(
        "--keep", type=Path, metavar="DIR", help="keep notes, map and vault in DIR (empty) [temporary]"
    )
    build_parser.set_defaults(run=run_build)

    args = parser.parse_args(argv)
    if not args.data.is_file():
        parser.error(f"no LoCoMo data at {args.data}; pass --data PATH")
    try:
        code: int = args.run(args)
    except ConvertError as error:
        print(error, file=sys.stderr)
        return 1
    return code


if __name__ == "__main__":
    sys.exit(main())
