"""Frontmatter (DESIGN §3 "Small print", "Determinism"; OBSIDIAN.md rules 1-8)."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from kgvault.properties import clean_text, render_properties, scalar


def load(block: str) -> Any:
    """Parse a frontmatter block the way a reader of the page does: between the two `---` lines."""
    assert block.startswith("---\n"), block
    assert block.endswith("\n---\n"), block
    return yaml.safe_load(block[len("---\n") : -len("---\n")])


def collapse(text: str) -> str:
    """What a text value becomes in a property: one line, without characters YAML cannot hold."""
    return clean_text(text)


def roundtrip(value: object) -> object:
    return load(render_properties({"k": value}))["k"]


# --- framing and layout ----------------------------------------------------------------------------


def test_block_starts_and_ends_with_dashes() -> None:
    block = render_properties({"id": "x", "title": "Hello"})
    assert block == "---\nid: x\ntitle: Hello\n---\n"


def test_empty_mapping_is_an_empty_block() -> None:
    block = render_properties({})
    assert block.startswith("---\n") and block.endswith("---\n")
    assert load(block) is None


def test_key_order_is_kept() -> None:
    keys = ["id", "memory_layer", "type", "title", "tags", "timestamp", "aardvark", "zulu", "beta"]
    props: dict[str, Any] = {k: f"v{i}" for i, k in enumerate(keys)}
    props["tags"] = ["a/b"]
    block = render_properties(props)
    lines = [line.split(":")[0] for line in block.splitlines()[1:-1] if not line.startswith("  ")]
    assert lines == keys
    assert list(load(block)) == keys


def test_none_is_omitted() -> None:
    block = render_properties({"id": "x", "valid_to": None, "title": "T", "aliases": None})
    assert load(block) == {"id": "x", "title": "T"}
    assert "valid_to" not in block
    assert "null" not in block and "~" not in block


def test_empty_list_is_written_as_brackets() -> None:
    block = render_properties({"id": "x", "aliases": [], "tags": ()})
    assert "aliases: []\n" in block
    assert "tags: []\n" in block
    assert load(block) == {"id": "x", "aliases": [], "tags": []}


def test_lists_are_block_lists() -> None:
    block = render_properties({"tags": ["3d_printing/firmware/marlin", "summary"], "aliases": ("Marlin",)})
    assert block == ("---\ntags:\n  - 3d_printing/firmware/marlin\n  - summary\naliases:\n  - Marlin\n---\n")
    assert load(block) == {"tags": ["3d_printing/firmware/marlin", "summary"], "aliases": ["Marlin"]}
    assert "[" not in block  # never a flow list


def test_dates_are_yyyy_mm_dd() -> None:
    block = render_properties({"timestamp": date(2025, 1, 4), "valid_from": date(999, 12, 31)})
    assert "timestamp: 2025-01-04\n" in block
    assert load(block)["timestamp"] == date(2025, 1, 4)


def test_dates_inside_lists() -> None:
    assert roundtrip([date(2025, 2, 3), "2025-02-03"]) == [date(2025, 2, 3), "2025-02-03"]


@pytest.mark.parametrize("value", [0, 1, 5, -3, 10**12, 0.5, 0.85, 1.0, 3.25])
def test_numbers_roundtrip(value: float) -> None:
    got = roundtrip(value)
    assert got == value
    assert type(got) is type(value)


@pytest.mark.parametrize("value", [True, False])
def test_booleans_roundtrip(value: bool) -> None:
    assert roundtrip(value) is value


@pytest.mark.parametrize("value", [1e-05, 2.5e-07, 1e20])
def test_floats_in_exponent_form_stay_numbers(value: float) -> None:
    # repr() gives `1e-05`; YAML 1.1 (PyYAML, python-frontmatter) reads that as a string.
    got = roundtrip(value)
    assert got == value
    assert isinstance(got, float)


def test_rendering_is_deterministic() -> None:
    props = {"id": "x", "tags": ["b", "a"], "timestamp": date(2025, 1, 1), "title": 'Ärger: "quoted"'}
    assert render_properties(props) == render_properties(dict(props))


# --- strings that must stay strings ----------------------------------------------------------------


TRICKY_STRINGS = [
    # booleans in YAML 1.1 and 1.2
    "true", "True", "TRUE", "false", "False", "yes", "Yes", "YES", "no", "No", "NO", "on", "On", "off", "OFF",
    "y", "n", "Y", "N",
    # null
    "null", "Null", "NULL", "~",
    # numbers
    "0", "1", "-1", "+1", "007", "3.14", "-2.5", ".5", "1.", "1e3", "1e-3", "1.5e+3", "1_000", "0x1F",
    "0o17", "0b101", "0b1_0", "+0b1", "0x1_F", "+0x1", "1.0_0", "+1.", ".5_", "1_", "0_.", "1._", "0x_",
    "1:20", "190:20:30",
    ".inf", "-.inf", "+.inf", ".nan", ".NaN",
    # dates and times
    "2025-01-14", "2025-01-14T10:00:00", "2025-01-14 10:00:00", "2025-1-4", "12:30", "10:00:00",
    # YAML indicators
    "- item", "-", "--", "---", "...", "? key", ":", "a: b", "key:", "a:b", "#", "#tag", "a #comment",
    "!tag", "!!str", "&anchor", "*alias", "|", ">", "|-", "@at", "`tick`", "%percent", "{a: 1}", "{}",
    "[a, b]", "[]", ",comma", "=", "<<", "'single'", '"double"', "it's", 'say "hi"', "back\\slash",
    "[[entities/marlin|Marlin]]", "[[Marlin]]", "see [[a|b]] and [[c]]", "a | b", "tab\there",
    # non-ASCII
    "Zürich", "東京タワー", "Привет", "emoji 🎉", "العربية", "\u00a0nbsp", "zero\u200bwidth",
    # whitespace
    "", " ", "  leading", "trailing  ", "multi\nline\ntext", "cr\r\nlf", "a\tb",
    "para\u2028sep", "nel\u0085next",
]  # fmt: skip


@pytest.mark.parametrize("value", TRICKY_STRINGS)
def test_strings_stay_exactly_the_same_strings(value: str) -> None:
    got = roundtrip(value)
    assert got == collapse(value)
    assert isinstance(got, str)


@pytest.mark.parametrize("value", TRICKY_STRINGS)
def test_strings_in_lists_stay_strings(value: str) -> None:
    assert roundtrip([value, "plain"]) == [collapse(value), "plain"]


@pytest.mark.parametrize(
    "value", ["a\x00b", "bell\x07", "esc\x1b[0m", "del\x7f", "c1\x85\x9f", "nonchar\ufffe"]
)
def test_control_characters_do_not_break_the_block(value: str) -> None:
    """Characters YAML cannot carry are dropped (never meant in a title); the rest survives."""
    got = roundtrip(value)
    assert got == clean_text(value)
    assert isinstance(got, str) and got.isprintable() and got


@pytest.mark.parametrize("value", ["multi\nline", "a\r\nb", "x\u2028y", "lots   of \t space"])
def test_values_are_single_line(value: str) -> None:
    block = render_properties({"title": value, "aliases": [value]})
    assert len(block.splitlines()) == 5  # ---, title, aliases:, - item, ---
    assert load(block) == {"title": collapse(value), "aliases": [collapse(value)]}


def test_wikilinks_are_quoted() -> None:
    block = render_properties(
        {"source_input": "[[sources/journal-summary|Journal]]", "entities": ["[[entities/marlin|Marlin]]"]}
    )
    assert 'source_input: "[[sources/journal-summary|Journal]]"\n' in block
    assert '  - "[[entities/marlin|Marlin]]"\n' in block
    assert load(block) == {
        "source_input": "[[sources/journal-summary|Journal]]",
        "entities": ["[[entities/marlin|Marlin]]"],
    }


def test_plain_words_stay_unquoted() -> None:
    assert scalar("observation") == "observation"
    assert scalar("Switched the printer to Marlin") == "Switched the printer to Marlin"
    assert scalar("Zürich") == "Zürich"


def test_full_node_frontmatter_roundtrip() -> None:
    props: dict[str, Any] = {
        "id": "switched-to-marlin",
        "memory_layer": "episodic",
        "type": "decision",
        "title": "Switched to Marlin: firmware #2 — “finally”",
        "tags": ["3d_printing/firmware/marlin"],
        "timestamp": date(2025, 1, 14),
        "occurred_at": "2025-01-14T10:32:00",
        "sensitivity": "private",
        "attributed_to": "Ana",
        "confidence": "high",
        "origin": "stated",
        "source_input": "[[sources/printing-journal-summary|printing/journal.md]]",
        "language": "en",
        "valid_from": None,
        "entities": ["[[entities/marlin|Marlin]]", "[[entities/ana|Ana]]"],
        "superseded_by": [],
        "importance": 4,
        "aliases": ["yes", "2025-01-14"],
    }
    expected = {k: v for k, v in props.items() if v is not None}
    assert load(render_properties(props)) == expected


# --- random values ---------------------------------------------------------------------------------


@settings(max_examples=500, database=None, deadline=None, derandomize=True)
@given(st.text())
def test_any_text_roundtrips(value: str) -> None:
    assert roundtrip(value) == collapse(value)


@settings(max_examples=300, database=None, deadline=None, derandomize=True)
@given(st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cc", "Cs", "Co", "Cn"))))
def test_any_printable_text_roundtrips(value: str) -> None:
    assert roundtrip(value) == collapse(value)


_YAMLISH = st.text(alphabet="0123456789+-._:eExXoObB#&*!|>'\"%@`,[]{}?=<~ aynNTtf\n", max_size=12)


@settings(max_examples=1000, database=None, deadline=None, derandomize=True)
@given(_YAMLISH)
def test_yaml_looking_text_roundtrips(value: str) -> None:
    assert roundtrip(value) == collapse(value)


@settings(max_examples=200, database=None, deadline=None, derandomize=True)
@given(st.dictionaries(st.from_regex(r"[a-z_]{1,12}", fullmatch=True), st.lists(_YAMLISH, max_size=4)))
def test_random_lists_roundtrip_with_key_order(props: dict[str, list[str]]) -> None:
    block = render_properties(props)
    loaded = load(block) or {}
    assert list(loaded) == list(props)
    assert loaded == {k: [collapse(v) for v in vs] for k, vs in props.items()}


def _clean_the_long_way(value: str) -> str:
    """clean_text without its shortcut for text that is clean already."""
    import kgvault.properties as properties

    return " ".join(properties._UNPRINTABLE.sub("", " ".join(value.split())).split())


@given(st.text() | st.sampled_from(["a b", " a", "a ", "a  b", "a\u00a0b", "a\u3000b", "a\x85b", "\ufffe"]))
@settings(max_examples=500)
def test_clean_text_shortcut_changes_nothing(value: str) -> None:
    """Text taken as clean already must be exactly what the full cleaning would give."""
    assert clean_text(value) == _clean_the_long_way(value)
    assert clean_text(clean_text(value)) == clean_text(value)


@pytest.mark.parametrize(
    "text", ["1e3", "1E6", "2e-5", "+1e3", "08", "0o17", "0x1F", ".inf", ".NaN", "1_000"]
)
def test_text_any_yaml_reads_as_a_number_is_quoted(text: str) -> None:
    """PyYAML (YAML 1.1) reads `1e3` as text, Obsidian's YAML 1.2 parser as a number: quote it."""
    written = scalar(text)
    assert written.startswith('"') and yaml.safe_load(f"k: {written}") == {"k": text}


def test_words_and_versions_stay_plain() -> None:
    assert [scalar(t) for t in ("Ender 3", "v1.2", "e3", "1e", "Marlin 2.1.3")] == [
        "Ender 3", "v1.2", "e3", "1e", "Marlin 2.1.3"
    ]  # fmt: skip
