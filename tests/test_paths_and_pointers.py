"""Paths and JSON pointers written into the vault name their file and message exactly (issue 9's bugs).

The end-to-end regressions are in test_hostile.py; these pin the pieces: how a path property is
quoted, how a pointer is encoded, which source paths are skipped, and how the checker decodes and
splits what it reads back.
"""

from __future__ import annotations

import codecs
import json
import re
from pathlib import Path

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from kgvault.check import check_vault
from kgvault.conversations.chat_log import json_pointer, pointer_tokens
from kgvault.discover import find_sources
from kgvault.properties import path_scalar, render_properties, scalar
from kgvault.records import Problem
from kgvault.sources import decode_text

from .conftest import run_build

# Any text a file name can hold: no surrogates (names that are not UTF-8 are skipped), no `/` or NUL.
_NAME_TEXT = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="/\x00"), min_size=1)
# What YAML may carry raw inside a one-line double-quoted scalar.
_YAML_PRINTABLE = re.compile(
    "[\t\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]*"
)


# --- path properties -------------------------------------------------------------------------


@given(st.lists(_NAME_TEXT, min_size=1, max_size=3).map("/".join))
def test_a_path_property_reads_back_exactly(path: str) -> None:
    block = render_properties({"source_document": path, "sources": [f"{path}#L1-L2"]})
    inner = block.removeprefix("---\n").removesuffix("---\n")
    assert yaml.safe_load(inner) == {"source_document": path, "sources": [f"{path}#L1-L2"]}
    assert inner.count("\n") == 3  # one line per key and per item: nothing broke a line
    assert all(_YAML_PRINTABLE.fullmatch(line) for line in inner.split("\n"))


@pytest.mark.parametrize(
    ("path", "written"),
    [
        (" a.md", '" a.md"'),
        ("a  b.md", '"a  b.md"'),
        ("a\tb.md", '"a\\tb.md"'),
        ("a\x01b.md", '"a\\u0001b.md"'),
        ("a\x85b\u2028.md", '"a\\u0085b\\u2028.md"'),
    ],
)
def test_a_path_that_cleaning_would_change_is_escaped(path: str, written: str) -> None:
    assert path_scalar(path) == written
    assert scalar(path) != written  # any other text property is still cleaned


@pytest.mark.parametrize("path", ["daily/2025-03-22.md", "g.json#/0", "a b.md", "a.md#L3-L5", "été.md"])
def test_a_clean_path_is_written_as_before(path: str) -> None:
    # Vaults built before the fix keep their bytes: only paths cleaning would change are written anew.
    assert path_scalar(path) == scalar(path)


# --- pointers --------------------------------------------------------------------------------


@given(st.lists(st.one_of(st.integers(0, 10**6), st.text()), min_size=1, max_size=4))
def test_a_pointer_is_a_uri_fragment_that_reads_back(tokens: list[int | str]) -> None:
    pointer = json_pointer(*tokens)
    assert re.fullmatch(r"(/[A-Za-z0-9._~%-]*)+", pointer), pointer
    assert pointer_tokens(pointer) == [str(token) for token in tokens]


def test_a_pointer_escapes_what_breaks_markdown_and_nothing_of_a_uuid() -> None:
    assert json_pointer(3, "mapping", "a|b\n`[[x]]`") == "/3/mapping/a%7Cb%0A%60%5B%5Bx%5D%5D%60"
    assert json_pointer(0, "mapping", "aaa1-b2c3_d.e~f/g") == "/0/mapping/aaa1-b2c3_d.e~0f~1g"


# --- sources whose path no wikilink can hold --------------------------------------------------


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, "utf-8")


def test_a_path_with_double_brackets_is_skipped_and_named(tmp_path: Path) -> None:
    _write(tmp_path, {"[[x]].md": "a", "b]]c.txt": "b", "[[d]]/e.md": "c", "[x] [y].md": "d", "ok.md": "e"})
    found, problems = find_sources(tmp_path)
    assert sorted(found) == ["[x] [y].md", "ok.md"]  # single brackets are fine: no wikilink
    assert sorted(p.path for p in problems) == ["[[d]]/e.md", "[[x]].md", "b]]c.txt"]
    assert all("skipped (rename it to include it)" in p.message for p in problems)


def test_an_ignored_path_with_double_brackets_is_not_reported(tmp_path: Path) -> None:
    _write(tmp_path, {".kgvaultignore": "*]]*\n", "[[x]].md": "a", "ok.md": "b"})
    assert find_sources(tmp_path) == ({"ok.md": str(tmp_path / "ok.md")}, [])


def test_a_symbolic_link_named_with_double_brackets_is_skipped(tmp_path: Path) -> None:
    _write(tmp_path, {"ok.md": "b"})
    (tmp_path / "[[x]].md").symlink_to(tmp_path / "ok.md")
    found, problems = find_sources(tmp_path)
    assert list(found) == ["ok.md"] and [p.path for p in problems] == ["[[x]].md"]


# --- what the checker reads back --------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "codec"),
    [
        (codecs.BOM_UTF16_LE + "a\r\nb\n".encode("utf-16-le"), "utf-16"),
        (codecs.BOM_UTF16_BE + "a\rb\n".encode("utf-16-be"), "utf-16"),
        (codecs.BOM_UTF32_LE + "a\nb\n".encode("utf-32-le"), "utf-32"),
        (codecs.BOM_UTF8 + b"a\nb\n", "utf-8"),
    ],
)
def test_decode_text_reads_the_byte_order_mark(raw: bytes, codec: str) -> None:
    problems: list[Problem] = []
    assert decode_text("a.md", raw, problems) == "a\nb\n", codec
    assert problems == []


def test_a_folder_ending_in_a_hash_is_no_json_pointer(tmp_path: Path) -> None:
    notes, vault = tmp_path / "notes", tmp_path / "vault"
    _write(notes, {"x#/a.md": "Today I met [[Ada]].\n", "x.JSON#/b.md": "Bob was here.\n"})
    run_build(notes, vault)
    assert check_vault(vault, notes=notes) == []
    (notes / "x#" / "a.md").unlink()  # now the page names a file that is gone, and says so
    page = "sources/x-sharp-a-summary.md"
    assert [p.message for p in check_vault(vault, notes=notes) if p.path == page] == [
        "source_document x#/a.md not found under the notes folder"
    ]


def test_a_pointer_source_with_a_raw_pipe_is_reported(tmp_path: Path) -> None:
    notes, vault = tmp_path / "notes", tmp_path / "vault"
    notes.mkdir()
    content = {"content_type": "text", "parts": ["I moved to Paris."]}
    message = {"author": {"role": "user"}, "content": content}
    export = [{"title": "x", "current_node": "a-b", "mapping": {"a-b": {"parent": None, "message": message}}}]
    (notes / "g.json").write_text(json.dumps(export), "utf-8")
    run_build(notes, vault)
    assert check_vault(vault, notes=notes) == []
    page = vault / "sources" / "g-x-summary.md"
    page.write_text(page.read_text("utf-8").replace("/0/mapping/a-b", "/0/mapping/a b"), "utf-8")
    messages = [p.message for p in check_vault(vault, notes=notes) if p.path == "sources/g-x-summary.md"]
    assert "coverage row '/0/mapping/a b' is not a JSON pointer in URI form" in messages


def test_only_a_json_file_is_cited_by_pointer(tmp_path: Path) -> None:
    notes, vault = tmp_path / "notes", tmp_path / "vault"
    _write(notes, {"a.md": "Today I met [[Ada]] at Acme.\n"})
    run_build(notes, vault)
    page = vault / "entities" / "ada.md"
    page.write_text(page.read_text("utf-8").replace("a.md#L1-L1", "a.md#/0"), "utf-8")
    messages = [p.message for p in check_vault(vault, notes=notes) if p.path == "entities/ada.md"]
    assert "evidence 'a.md#/0' is not `path#Lstart-Lend` or `path#/json/pointer`" in messages
