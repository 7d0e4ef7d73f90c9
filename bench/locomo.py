"""Turn the LoCoMo dev conversations into kgvault transcript notes, build vaults, score search.

Usage:
    python bench/locomo.py convert [--data PATH] OUT [--map FILE]
    python bench/locomo.py build [--data PATH] [--keep DIR]
    python bench/locomo.py retrieval [--data PATH] [--keep DIR] [--cli] [--json] [--misses]

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

retrieval: convert (into a temporary folder, or --keep DIR), build one vault per conversation
(`python -m kgvault build NOTES/<sample_id> -o VAULTS/<sample_id> --json -q`), and search every
question of categories 1–4 that cites evidence (in-process through `kgvault.search.search`, or with
--cli through `python -m kgvault search --json`: the same hits). Reported per category and overall:
evidence recall@1/5/10/25, where k counts cited turns (walk down the hits adding each hit's cited
turns, mapped to dia_ids, until k turns are collected; recall = gold turns found / gold turns), for
kgvault and for BM25 over the raw turns (FTS5 `bm25()`, k1 1.2, b 0.75, one row per `Speaker: text`
line, tokenizer `porter unicode61`, the same query terms); and for category 2, the share of answers
that are a single day, month or year equal (at that granularity) to the `timestamp` of one of
kgvault's top-5 hits, the others left out and counted. See docs/quality.md.

The data file is only ever read; nothing is copied into the repository. Nothing touches the network.
"""

from __future__ import annotations

import argparse
import json
import re
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, NamedTuple

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


# --------------------------------------------------------------------------------------------
# Retrieval: how many of the turns a question rests on `kgvault search` brings back.

KS = (1, 5, 10, 25)
"""Recall is measured at these numbers of cited turns."""
HITS = 60
"""Hits asked of each search: enough to collect KS[-1] distinct turns."""
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
"""LoCoMo's question categories 1–4 as the dataset's authors describe them (5, adversarial, is left out)."""
DIA_ID = re.compile(r"D\d+:\d+")
ANSWER_DAY = re.compile(r"(?P<day>\d{1,2})(?:st|nd|rd|th)?\s+(?P<month>[A-Za-z]+)\.?,?\s+(?P<year>\d{4})")
ANSWER_DAY_US = re.compile(r"(?P<month>[A-Za-z]+)\.?\s+(?P<day>\d{1,2})(?:st|nd|rd|th)?,?\s+(?P<year>\d{4})")
ANSWER_MONTH = re.compile(r"(?P<month>[A-Za-z]+)\.?,?\s+(?P<year>\d{4})")
ANSWER_YEAR = re.compile(r"\d{4}")


class Question(NamedTuple):
    """One question of categories 1–4 with the turns its answer rests on.

    (Named tuples, not dataclasses: tests load this file without registering it as a module.)
    """

    sample_id: str
    text: str
    answer: str
    category: int
    gold: frozenset[str]
    """The evidence's dia_ids ("D1:3")."""


class Scored(NamedTuple):
    """What one question got from kgvault and from the BM25 baseline."""

    question: Question
    kgvault: tuple[str, ...]
    """dia_ids of the turns kgvault's hits cite, in order, at most KS[-1]."""
    bm25: tuple[str, ...]
    """dia_ids of BM25's best turns, in order, at most KS[-1]."""
    dates: tuple[str, ...]
    """Timestamps of kgvault's first five hits."""
    bm25_dates: tuple[str, ...]
    """Session dates of BM25's first five turns."""


def questions(sample: dict[str, Any]) -> tuple[list[Question], int]:
    """The sample's questions of categories 1–4 that cite evidence, and how many cite none."""
    kept, without = [], 0
    for item in sample.get("qa", []):
        category = item.get("category")
        if category not in CATEGORIES:
            continue
        # One evidence string holds two ids ("D8:6; D9:17"): take every id written.
        gold = frozenset(dia for text in item.get("evidence") or [] for dia in DIA_ID.findall(str(text)))
        if not gold:
            without += 1
            continue
        answer = str(item.get("answer", ""))
        kept.append(Question(sample["sample_id"], str(item["question"]), answer, category, gold))
    return kept, without


def cited_turns(hits: Sequence[dict[str, Any]], sample_id: str, dia_ids: DiaMap, k: int) -> list[str]:
    """Walk down the hits (`search --json` items) collecting the turns each cites, until k turns."""
    turns: list[str] = []
    for hit in hits:
        for source in hit["sources"]:
            if source["line_start"] is None:
                continue
            for line in range(source["line_start"], source["line_end"] + 1):
                dia = dia_ids.get((f"{sample_id}/{source['path']}", line))
                if dia is not None and dia not in turns:
                    turns.append(dia)
                    if len(turns) == k:
                        return turns
    return turns


def recall(found: Sequence[str], gold: frozenset[str], k: int) -> float:
    """Share of the gold turns among the first k found."""
    return len(gold.intersection(found[:k])) / len(gold)


def answer_date(answer: str) -> tuple[str, str] | None:
    """A single day, month or year as (granularity, ISO prefix): "7 May 2023" → ("day", "2023-05-07").

    Anything else ("the week before 9 June 2023", "13 August", "since 2016") is None.
    """
    text = answer.strip()
    for pattern in (ANSWER_DAY, ANSWER_DAY_US):
        match = pattern.fullmatch(text)
        if match is not None:
            month = _month(match["month"])
            if month is None:
                return None
            return "day", f"{match['year']}-{month:02d}-{int(match['day']):02d}"
    match = ANSWER_MONTH.fullmatch(text)
    if match is not None:
        month = _month(match["month"])
        return None if month is None else ("month", f"{match['year']}-{month:02d}")
    if ANSWER_YEAR.fullmatch(text):
        return "year", text
    return None


def _month(word: str) -> int | None:
    word = word.lower()
    months = [number for number, name in enumerate(MONTHS, 1) if len(word) >= 3 and name.startswith(word)]
    return months[0] if len(months) == 1 else None


def date_matches(answer: str, dates: Sequence[str]) -> bool | None:
    """Whether one of the dates equals the answer at the answer's granularity; None if it has none."""
    parsed = answer_date(answer)
    if parsed is None:
        return None
    granularity, value = parsed
    width = {"day": 10, "month": 7, "year": 4}[granularity]
    return any(day[:width] == value for day in dates if day)


class TurnIndex:
    """The BM25 baseline: FTS5's bm25() (k1 1.2, b 0.75) over one row per raw turn, `Speaker: text`.

    Same tokenizer (`porter unicode61`) and same query terms as kgvault's search.
    """

    def __init__(self, sample: dict[str, Any]) -> None:
        self.db = sqlite3.connect(":memory:")
        self.db.execute("CREATE VIRTUAL TABLE turns USING fts5(text, tokenize = 'porter unicode61')")
        self.rows: list[tuple[str, str]] = []
        for _, when, turns in sessions(sample):
            for turn in turns:
                self.rows.append((str(turn["dia_id"]), when.date().isoformat()))
                self.db.execute(
                    "INSERT INTO turns (rowid, text) VALUES (?, ?)", (len(self.rows), turn_line(turn))
                )

    def search(self, query: str, k: int) -> list[tuple[str, str]]:
        """The best k turns as (dia_id, session date)."""
        from kgvault.search.query import query_terms

        terms = query_terms(query)
        if not terms:
            return []
        match = " OR ".join(f'"{term}"' for term in terms)
        found = self.db.execute(
            "SELECT rowid FROM turns WHERE turns MATCH ? ORDER BY bm25(turns) LIMIT ?", (match, k)
        )
        return [self.rows[rowid - 1] for (rowid,) in found]


def search_vault(vault: Path, query: str, cli: bool) -> list[dict[str, Any]]:
    """kgvault's hits as `search --json` items: in-process, or through the command line with `cli`."""
    if not cli:
        from kgvault.search import search

        return [hit.to_json() for hit in search(vault, query, HITS)]
    command = [
        sys.executable,
        "-m",
        "kgvault",
        "search",
        query,
        "--vault",
        str(vault),
        "-k",
        str(HITS),
        "--json",
    ]
    result = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=60, check=False)
    if result.returncode != 0:
        raise SystemExit(f"kgvault search failed ({result.returncode}):\n{result.stderr or result.stdout}")
    hits: list[dict[str, Any]] = json.loads(result.stdout)
    return hits


def build_sample(notes: Path, vault: Path) -> dict[str, Any]:
    """`python -m kgvault build NOTES -o VAULT --json` for one conversation; its report."""
    command = [sys.executable, "-m", "kgvault", "build", str(notes), "-o", str(vault), "--json", "-q"]
    result = subprocess.run(
        command, cwd=REPO, capture_output=True, text=True, timeout=BUILD_TIMEOUT, check=False
    )
    if result.returncode != 0:
        raise SystemExit(f"kgvault build failed ({result.returncode}):\n{result.stderr or result.stdout}")
    report: dict[str, Any] = json.loads(result.stdout)
    return report


def score(workdir: Path, data_path: Path, cli: bool, say: Any) -> tuple[list[Scored], int]:
    """Convert, build one vault per conversation, ask every question; the scores and the questions skipped."""
    samples = load_samples(data_path)
    notes_dir = workdir / "notes"
    dia_ids = convert(data_path, notes_dir)
    write_map(dia_ids, workdir / "notes.dia_ids.json")
    scored: list[Scored] = []
    skipped = 0
    deepest = KS[-1]
    for sample in samples:
        sample_id = sample["sample_id"]
        vault = workdir / "vaults" / sample_id
        report = build_sample(notes_dir / sample_id, vault)
        say(f"{sample_id}: {report['sources']} sessions, {report['nodes']['episodic']} episodic nodes")
        asked, without = questions(sample)
        skipped += without
        baseline = TurnIndex(sample)
        for question in asked:
            hits = search_vault(vault, question.text, cli)
            turns = baseline.search(question.text, deepest)
            scored.append(
                Scored(
                    question,
                    tuple(cited_turns(hits, sample_id, dia_ids, deepest)),
                    tuple(dia for dia, _ in turns),
                    tuple(hit["timestamp"] or "" for hit in hits[:5]),
                    tuple(day for _, day in turns[:5]),
                )
            )
    return scored, skipped


def summarize(scored: Sequence[Scored], skipped: int) -> dict[str, Any]:
    """Mean recall@k per category and overall for both systems, and category 2's date accuracy."""
    groups: dict[str, list[Scored]] = {}
    for item in scored:
        groups.setdefault(str(item.question.category), []).append(item)
    groups = dict(sorted(groups.items()))
    groups["all"] = list(scored)
    table = {
        name: {
            "questions": len(items),
            "kgvault": {k: _mean(recall(i.kgvault, i.question.gold, k) for i in items) for k in KS},
            "bm25": {k: _mean(recall(i.bm25, i.question.gold, k) for i in items) for k in KS},
        }
        for name, items in groups.items()
    }
    temporal = [item for item in scored if item.question.category == 2]
    judged = [(item, date_matches(item.question.answer, item.dates)) for item in temporal]
    counted = [item for item, hit in judged if hit is not None]
    return {
        "recall": table,
        "dates": {
            "questions": len(temporal),
            "counted": len(counted),
            "left_out": len(temporal) - len(counted),
            "kgvault": sum(1 for _, hit in judged if hit),
            "bm25_session_dates": sum(1 for i in counted if date_matches(i.question.answer, i.bm25_dates)),
        },
        "skipped_without_evidence": skipped,
    }


def _mean(values: Any) -> float:
    values = list(values)
    return sum(values) / len(values) if values else 0.0


def report_text(summary: dict[str, Any]) -> str:
    """The results as a Markdown table and a line on dates."""
    head = "| category | questions | " + " | ".join(f"kgvault R@{k}" for k in KS) + " | "
    head += " | ".join(f"BM25 R@{k}" for k in KS) + " |"
    lines = [head, "|" + "---|" * (2 + 2 * len(KS))]
    for name, row in summary["recall"].items():
        label = f"{name} {CATEGORIES[int(name)]}" if name.isdigit() else name
        cells = [f"{100 * row['kgvault'][k]:.1f}" for k in KS] + [f"{100 * row['bm25'][k]:.1f}" for k in KS]
        lines.append(f"| {label} | {row['questions']} | " + " | ".join(cells) + " |")
    dates = summary["dates"]
    counted = dates["counted"] or 1
    lines.append("")
    lines.append(
        f"Category-2 date accuracy (an answer date equals a top-5 hit's timestamp at its granularity): "
        f"kgvault {dates['kgvault']}/{dates['counted']} = {100 * dates['kgvault'] / counted:.1f}%; "
        f"session dates of BM25's top-5 turns {dates['bm25_session_dates']}/{dates['counted']} = "
        f"{100 * dates['bm25_session_dates'] / counted:.1f}%. Left out: {dates['left_out']} of "
        f"{dates['questions']} answers that are no single day, month or year."
    )
    if summary["skipped_without_evidence"]:
        lines.append(f"Skipped: {summary['skipped_without_evidence']} questions that cite no evidence.")
    return "\n".join(lines)


def run_retrieval(args: argparse.Namespace) -> int:
    # In-process searches must use this checkout's kgvault, as the builds in subprocesses do.
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    say = (lambda text: None) if args.json else (lambda text: print(text, file=sys.stderr))
    if args.keep:
        workdir: Path = args.keep.resolve()
        if not _empty_folder(workdir):
            raise SystemExit(f"{workdir} is not an empty folder; remove it or choose another --keep folder")
        workdir.mkdir(parents=True, exist_ok=True)
        scored, skipped = score(workdir, args.data, args.cli, say)
    else:
        with tempfile.TemporaryDirectory(prefix="kgvault-locomo-") as tmp:
            scored, skipped = score(Path(tmp), args.data, args.cli, say)
    summary = summarize(scored, skipped)
    if args.misses:
        for item in scored:
            if not item.question.gold.intersection(item.kgvault[:10]):
                q = item.question
                print(
                    f"MISS c{q.category} {q.sample_id} {q.text!r} gold={sorted(q.gold)} "
                    f"kgvault={list(item.kgvault[:10])} bm25@10={bool(q.gold.intersection(item.bm25[:10]))}",
                    file=sys.stderr,
                )
    print(json.dumps(summary, indent=2) if args.json else report_text(summary))
    return 0


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

    retrieval_help = "build one vault per conversation and score `kgvault search` on the questions"
    retrieval_parser = commands.add_parser(
        "retrieval", parents=[data], help=retrieval_help, description=retrieval_help.capitalize() + "."
    )
    retrieval_parser.add_argument(
        "--keep", type=Path, metavar="DIR", help="keep notes, map and vaults in DIR (empty) [temporary]"
    )
    retrieval_parser.add_argument(
        "--cli", action="store_true", help="ask `python -m kgvault search --json` (slower) [in-process API]"
    )
    retrieval_parser.add_argument("--json", action="store_true", help="print the numbers as JSON")
    retrieval_parser.add_argument(
        "--misses", action="store_true", help="list on stderr the questions kgvault misses at 10"
    )
    retrieval_parser.set_defaults(run=run_retrieval)

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
