"""bench/locomo.py: LoCoMo conversations become transcript notes, every turn on its mapped line."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from datetime import datetime
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data" / "locomo-dev" / "locomo-dev.json"
SCRIPT = ROOT / "bench" / "locomo.py"
FRONTMATTER_LINES = 7
"""`---`, title, date, `participants:` and its two names, `---`: the first turn is on line 8."""


def load_locomo() -> ModuleType:
    """Import bench/locomo.py from its path (bench is not a package)."""
    spec = importlib.util.spec_from_file_location("bench_locomo", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


locomo = load_locomo()


def raw_samples() -> list[dict[str, Any]]:
    """The data as JSON, read here without the module under test. Fails (not skips) when it is missing."""
    if not DATA.is_file():
        pytest.fail(f"LoCoMo dev data not found at {DATA}; these tests need the real file there")
    data: list[dict[str, Any]] = json.loads(DATA.read_text("utf-8"))
    return data


def raw_sessions(sample: dict[str, Any]) -> dict[int, list[dict[str, Any]]]:
    """Session number → turns, straight from the keys."""
    conversation = sample["conversation"]
    return {
        int(key.removeprefix("session_")): turns
        for key, turns in conversation.items()
        if re.fullmatch(r"session_\d+", key)
    }


def expected_line(turn: dict[str, Any]) -> str:
    text = " ".join(turn["text"].splitlines()).strip()
    if "blip_caption" in turn:
        text = f"{text} [image: {turn['blip_caption']}]".strip()
    return f"{turn['speaker']}: {text}"


def split_note(text: str) -> tuple[dict[str, Any], list[str]]:
    """Frontmatter as YAML, and the lines after it."""
    lines = text.split("\n")
    assert lines[0] == "---" and lines[FRONTMATTER_LINES - 1] == "---", text[:300]
    meta = yaml.safe_load("\n".join(lines[1 : FRONTMATTER_LINES - 1]))
    assert text.endswith("\n") and not text.endswith("\n\n")
    return meta, lines[FRONTMATTER_LINES:-1]


def tree(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


def test_the_data_file_is_there() -> None:
    samples = raw_samples()
    assert samples and all("sample_id" in sample for sample in samples)


def test_one_note_per_session_and_nothing_else(tmp_path: Path) -> None:
    samples = raw_samples()
    locomo.convert(DATA, tmp_path)
    expected = {
        f"{sample['sample_id']}/session-{number:02d}.md"
        for sample in samples
        for number in raw_sessions(sample)
    }
    assert set(tree(tmp_path)) == expected
    for sample in samples:
        written = list((tmp_path / sample["sample_id"]).glob("session-*.md"))
        assert len(written) == len(raw_sessions(sample)) > 0


def test_every_turn_is_on_its_mapped_line_once(tmp_path: Path) -> None:
    samples = raw_samples()
    dia_ids = locomo.convert(DATA, tmp_path)
    bodies = {
        path: split_note(text.decode("utf-8"))[1] for path, text in tree(tmp_path).items()
    }  # note → body lines
    # dia_ids repeat across samples ("D1:1"), so a turn is known by its note's sample folder too.
    where = {(path.split("/")[0], dia_id): (path, line) for (path, line), dia_id in dia_ids.items()}
    assert len(where) == len(dia_ids)
    turns = 0
    for sample in samples:
        for number, session in raw_sessions(sample).items():
            for turn in session:
                turns += 1
                path, line = where[(sample["sample_id"], turn["dia_id"])]
                assert path == f"{sample['sample_id']}/session-{number:02d}.md"
                assert bodies[path][line - FRONTMATTER_LINES - 1] == expected_line(turn), turn["dia_id"]
    assert turns == len(dia_ids) == sum(len(lines) for lines in bodies.values())
    # Every body line is a mapped turn: no heading, no blank line, no continuation.
    for path, lines in bodies.items():
        mapped = sorted(line for (note, line), _ in dia_ids.items() if note == path)
        assert mapped == list(range(FRONTMATTER_LINES + 1, FRONTMATTER_LINES + 1 + len(lines)))


def test_frontmatter_has_title_date_and_participants(tmp_path: Path) -> None:
    samples = raw_samples()
    locomo.convert(DATA, tmp_path)
    first = (tmp_path / samples[0]["sample_id"] / "session-01.md").read_text("utf-8")
    # By hand from the data: conv-26 session 1 is "1:56 pm on 8 May, 2023".
    assert samples[0]["conversation"]["session_1_date_time"] == "1:56 pm on 8 May, 2023"
    assert first.split("\n")[2] == "date: 2023-05-08T13:56:00"
    assert split_note(first)[0]["date"] == datetime(2023, 5, 8, 13, 56)
    for sample in samples:
        conversation = sample["conversation"]
        for number in raw_sessions(sample):
            meta, _ = split_note((tmp_path / sample["sample_id"] / f"session-{number:02d}.md").read_text())
            stamp = datetime.strptime(conversation[f"session_{number}_date_time"], "%I:%M %p on %d %B, %Y")
            assert meta == {
                "title": f"{sample['sample_id']} session {number}",
                "date": stamp,
                "participants": [conversation["speaker_a"], conversation["speaker_b"]],
            }


def test_shared_images_show_their_caption(tmp_path: Path) -> None:
    samples = raw_samples()
    locomo.convert(DATA, tmp_path)
    captions = [
        turn["blip_caption"]
        for sample in samples
        for session in raw_sessions(sample).values()
        for turn in session
        if "blip_caption" in turn
    ]
    text = "".join(path.read_text("utf-8") for path in sorted(tmp_path.rglob("*.md")))
    assert captions and text.count(" [image: ") == len(captions)
    for caption in captions:
        assert f" [image: {caption}]\n" in text


def test_converting_twice_gives_the_same_bytes(tmp_path: Path) -> None:
    raw_samples()
    first = locomo.convert(DATA, tmp_path / "a")
    second = locomo.convert(DATA, tmp_path / "b")
    assert first == second
    assert tree(tmp_path / "a") == tree(tmp_path / "b")
    locomo.convert(DATA, tmp_path / "a")
    assert tree(tmp_path / "a") == tree(tmp_path / "b")


def test_cli_writes_the_map_beside_the_notes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    samples = raw_samples()
    out = tmp_path / "notes"
    assert locomo.main(["convert", "--data", str(DATA), str(out)]) == 0
    summary = capsys.readouterr().out
    turns = sum(len(s) for sample in samples for s in raw_sessions(sample).values())
    assert f"{len(samples)} samples" in summary and f"{turns} turns" in summary
    map_path = tmp_path / "notes.dia_ids.json"
    assert not list(out.rglob("*.json"))
    assert locomo.read_map(map_path) == locomo.convert(DATA, tmp_path / "again")
    other = tmp_path / "elsewhere.json"
    assert locomo.main(["convert", "--data", str(DATA), str(tmp_path / "more"), "--map", str(other)]) == 0
    assert locomo.read_map(other) == locomo.read_map(map_path)


def test_sessions_sort_by_number_not_by_name() -> None:
    turn = {"speaker": "A", "dia_id": "D1:1", "text": "hi"}
    sample = {
        "sample_id": "s",
        "conversation": {
            "speaker_a": "A",
            "speaker_b": "B",
            **{f"session_{n}": [turn] for n in (10, 2, 9, 1)},
            **{f"session_{n}_date_time": "10:37 am on 27 June, 2023" for n in (1, 2, 9, 10, 11)},
        },
    }
    assert [number for number, _, _ in locomo.sessions(sample)] == [1, 2, 9, 10]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1:56 pm on 8 May, 2023", datetime(2023, 5, 8, 13, 56)),
        ("10:37 am on 27 June, 2023", datetime(2023, 6, 27, 10, 37)),
        ("12:48 am on 1 February, 2023", datetime(2023, 2, 1, 0, 48)),
        ("12:05 pm on 1 February, 2023", datetime(2023, 2, 1, 12, 5)),
        ("  9:05 PM on 3 Sept 2023 ", datetime(2023, 9, 3, 21, 5)),
    ],
)
def test_session_times_parse(text: str, expected: datetime) -> None:
    assert locomo.parse_session_time(text) == expected


@pytest.mark.parametrize(
    "text", ["", "13:00 pm on 8 May, 2023", "1:56 pm on 31 June, 2023", "1:56 pm on 8 Ma, 2023"]
)
def test_unreadable_session_times_are_errors(text: str) -> None:
    with pytest.raises(ValueError):
        locomo.parse_session_time(text)


def test_a_turn_stays_on_one_line() -> None:
    turn = {"speaker": "A", "dia_id": "D1:1", "text": "one\ntwo\r\nthree ", "blip_caption": "a\nphoto"}
    assert locomo.turn_line(turn) == "A: one two three [image: a photo]"
    assert locomo.turn_line({"speaker": "A", "dia_id": "D1:2", "text": "", "blip_caption": "x"}) == (
        "A: [image: x]"
    )
