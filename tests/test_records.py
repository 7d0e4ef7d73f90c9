"""Records: equal by their fields, hashable by them, and immutable to the type checker."""

from __future__ import annotations

import dataclasses
from datetime import date
from pathlib import Path

import pytest
from mypy import api as mypy_api

from kgvault.records import Evidence, Node, record

REPO = Path(__file__).resolve().parent.parent


def _node(node_id: str = "n") -> Node:
    return Node(
        id=node_id,
        memory_layer="episodic",
        type="event",
        title="Printed a benchy",
        body="Printed a benchy.",
        tags=("printing",),
        sensitivity="public",
        confidence="high",
        origin="stated",
        timestamp=date(2025, 3, 12),
        evidence=(Evidence("daily/2025-03-12.md", 3, 3),),
        entities=(),
    )


def test_equal_records_are_one_key() -> None:
    first, again = Evidence("a.md", 1, 2), Evidence("a.md", 1, 2)
    assert first is not again and first == again
    assert len({first, again, Evidence("a.md", 1, 3)}) == 2
    assert {_node(): "kept"}[_node()] == "kept"
    assert _node() != _node("other")


def test_records_are_slotted() -> None:
    with pytest.raises(AttributeError):
        _node().colour = "red"  # type: ignore[attr-defined]


def test_the_type_checker_rejects_assigning_a_field(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    @record
    class Local:
        value: int

    assert dataclasses.is_dataclass(Local) and hash(Local(1)) == hash(Local(1))
    checked = tmp_path / "assigns.py"
    checked.write_text(
        "from kgvault.records import Evidence\n"
        "evidence = Evidence('a.md', 1, 2)\n"
        "evidence.line_start = 3\n"
        "print(evidence.path)\n",
        encoding="utf-8",
    )
    monkeypatch.chdir(REPO)  # mypy finds this checkout's kgvault from here
    out, _, status = mypy_api.run(
        [
            str(checked),
            "--cache-dir",
            str(tmp_path / "cache"),
            "--follow-imports=silent",
            "--no-error-summary",
        ]
    )
    assert status == 1
    assert 'assigns.py:3: error: Property "line_start" defined in "Evidence" is read-only' in out
    assert "assigns.py:4" not in out
