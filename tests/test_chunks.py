"""Tests for the chunks stage: exact line ranges, sections, splitting and full coverage."""

from __future__ import annotations

import hashlib
import re
from datetime import date
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from kgvault import chunks as chunks_module
from kgvault.chunks import chunk_source, chunk_sources
from kgvault.records import Chunk, Source, SourceKind

from .conftest import SHARED_DATA

REAL_VAULTS = SHARED_DATA / "real-vaults"
KINDS: tuple[SourceKind, ...] = ("markdown", "text")


def make_source(
    text: str,
    *,
    kind: SourceKind = "markdown",
    path: str = "note.md",
    frontmatter_lines: tuple[int, int] | None = None,
    reference_time: date | None = None,
) -> Source:
    """Build a Source the way the sources stage would, for a text that is already LF-only."""
    return Source(
        id=path,
        path=path,
        kind=kind,
        title=Path(path).stem,
        meta={},
        reference_time=reference_time,
        text=text,
        body_line=frontmatter_lines[1] + 1 if frontmatter_lines else 1,
        sha256="0" * 64,
        frontmatter_lines=frontmatter_lines,
    )


def assert_exact_coverage(source: Source, chunks: list[Chunk]) -> None:
    """Check coverage: exact texts, in order, disjoint, trimmed, every non-blank body line once."""
    lines = source.text.split("\n")
    covered = [0] * (len(lines) + 1)
    previous_end = 0
    for position, chunk in enumerate(chunks):
        assert chunk.index == position
        assert chunk.source_path == source.path
        assert 1 <= chunk.line_start <= chunk.line_end <= len(lines), chunk
        assert chunk.line_start > previous_end, f"chunk {position} overlaps or is out of order"
        assert chunk.text == "\n".join(lines[chunk.line_start - 1 : chunk.line_end])
        assert chunk.sha256 == hashlib.sha256(chunk.text.encode("utf-8")).hexdigest()
        assert chunk.kind == ("frontmatter" if position == 0 and source.frontmatter_lines else "section")
        if chunk.kind == "section":
            assert lines[chunk.line_start - 1].strip(), "leading blank line not trimmed"
            assert lines[chunk.line_end - 1].strip(), "trailing blank line not trimmed"
        for number in range(chunk.line_start, chunk.line_end + 1):
            covered[number] += 1
        previous_end = chunk.line_end
    if source.frontmatter_lines:
        assert (chunks[0].line_start, chunks[0].line_end) == source.frontmatter_lines
    for number in range(source.body_line, len(lines) + 1):
        if lines[number - 1].strip():
            assert covered[number] == 1, (
                f"line {number} {lines[number - 1][:40]!r} covered {covered[number]}x"
            )


def ranges(chunks: list[Chunk]) -> list[tuple[int, int]]:
    """Line ranges of the chunks, for compact assertions."""
    return [(chunk.line_start, chunk.line_end) for chunk in chunks]


def chunk_containing(chunks: list[Chunk], line: int) -> Chunk:
    """Return the chunk whose range holds the 1-based line."""
    found = [chunk for chunk in chunks if chunk.line_start <= line <= chunk.line_end]
    assert len(found) == 1, f"line {line} is in {len(found)} chunks"
    return found[0]


NOTE = """---
title: Printer
date: 2025-01-10
---

Intro before any heading.

# Printer

The Ender 3 needs a new nozzle.

## Firmware

Marlin 2.1 is installed.


## Parts
- nozzle
- belt
"""


def test_line_ranges_are_exact_source_lines() -> None:
    source = make_source(NOTE, frontmatter_lines=(1, 4))
    chunks = chunk_source(source)
    assert ranges(chunks) == [(1, 4), (6, 6), (8, 10), (12, 14), (17, 19)]
    lines = NOTE.split("\n")
    assert [chunk.text for chunk in chunks] == ["\n".join(lines[a - 1 : b]) for a, b in ranges(chunks)]
    assert chunks[3].text == "## Firmware\n\nMarlin 2.1 is installed."
    assert_exact_coverage(source, chunks)


def test_frontmatter_is_chunk_zero() -> None:
    source = make_source(NOTE, frontmatter_lines=(1, 4), reference_time=date(2025, 1, 10))
    first, *rest = chunk_source(source)
    assert first.kind == "frontmatter"
    assert (first.line_start, first.line_end) == (1, 4)
    assert first.text == "---\ntitle: Printer\ndate: 2025-01-10\n---"
    assert first.heading_path == ()
    assert first.reference_time == date(2025, 1, 10)
    assert all(chunk.kind == "section" for chunk in rest)
    no_frontmatter = chunk_source(make_source("# Only\n\nbody\n"))
    assert [chunk.kind for chunk in no_frontmatter] == ["section"]


def test_headings_start_sections_with_heading_paths() -> None:
    text = "\n".join(
        [
            "# Top **bold** [link text](https://x.org) ##",  # 1
            "a",
            "## Child `code` and [[target|Alias]]",  # 3
            "b",
            "### Grandchild [[Plain]] *em*",  # 5
            "c",
            "## Second",  # 7
            "d",
            "",
            "Setext",  # 10
            "------",
            "e",
            "# New top",  # 13
            "f",
        ]
    )
    chunks = chunk_source(make_source(text))
    assert ranges(chunks) == [(1, 2), (3, 4), (5, 6), (7, 8), (10, 12), (13, 14)]
    assert [chunk.heading_path for chunk in chunks] == [
        ("Top bold link text",),
        ("Top bold link text", "Child code and Alias"),
        ("Top bold link text", "Child code and Alias", "Grandchild Plain em"),
        ("Top bold link text", "Second"),
        ("Top bold link text", "Setext"),
        ("New top",),
    ]


def test_nested_and_fenced_hashes_are_not_headings() -> None:
    text = "Intro\n\n```bash\n# a comment\n[[ -f x ]] && echo\n```\n\n> # quoted heading\n\n- # listed\n"
    chunks = chunk_source(make_source(text))
    assert ranges(chunks) == [(1, 10)]
    assert chunks[0].heading_path == ()


def test_setext_headings_start_sections() -> None:
    text = "Intro\n\nTitle\n=====\nbody\n\nSub\n---\nmore"
    chunks = chunk_source(make_source(text))
    assert ranges(chunks) == [(1, 1), (3, 5), (7, 9)]
    assert [chunk.heading_path for chunk in chunks] == [(), ("Title",), ("Title", "Sub")]


def test_content_before_first_heading_is_its_own_chunk() -> None:
    text = "first line\nsecond line\n\n# Heading\nbody\n"
    chunks = chunk_source(make_source(text))
    assert ranges(chunks) == [(1, 2), (4, 5)]
    assert chunks[0].heading_path == ()
    assert chunks[0].text == "first line\nsecond line"
    assert chunks[1].heading_path == ("Heading",)
    assert ranges(chunk_source(make_source("\n\n# Heading\nbody"))) == [(3, 4)]


def test_long_section_is_split_at_paragraph_boundaries() -> None:
    paragraphs = [f"Paragraph {n} " + "word " * 8 + f"\nsecond line of {n}." for n in range(6)]
    text = "## Log\n\n" + "\n\n".join(paragraphs) + "\n"
    source = make_source(text)
    whole = chunk_source(source)
    assert len(whole) == 1
    chunks = chunk_source(source, max_chars=150)
    assert_exact_coverage(source, chunks)
    assert len(chunks) > 2
    assert all(chunk.heading_path == ("Log",) for chunk in chunks)
    assert all(len(chunk.text) <= 150 for chunk in chunks)
    lines = text.split("\n")
    for chunk in chunks[1:]:
        assert lines[chunk.line_start - 1].startswith("Paragraph"), "split inside a paragraph"
        assert lines[chunk.line_end - 1].startswith("second line"), "split inside a paragraph"
    assert chunks[0].text.startswith("## Log\n\nParagraph 0"), "the heading keeps the block below it"


def test_heading_is_never_left_alone_in_a_split_section() -> None:
    text = "## A long heading line\n\n" + "x" * 100 + "\n\n" + "y" * 100
    chunks = chunk_source(make_source(text), max_chars=30)
    assert ranges(chunks) == [(1, 3), (5, 5)]


def test_code_fence_is_never_split() -> None:
    fence = ["```python", "def f():", "", "    return 1", "", "", "# not a heading", "x = f()", "```"]
    text = "\n".join(["# Code", "", "Before.", "", *fence, "", "After."])
    source = make_source(text)
    chunks = chunk_source(source, max_chars=10)
    assert_exact_coverage(source, chunks)
    fence_chunk = chunk_containing(chunks, 5)
    assert (fence_chunk.line_start, fence_chunk.line_end) == (5, 13)
    assert fence_chunk.text == "\n".join(fence)
    assert all(chunk.heading_path == ("Code",) for chunk in chunks)


def test_prose_and_list_stay_together_when_the_section_fits() -> None:
    text = "## Parts\nWe need:\n\n- nozzle\n- belt\n\nThat is all.\n"
    chunks = chunk_source(make_source(text))
    assert ranges(chunks) == [(1, 7)]


def test_list_is_one_unit_when_a_long_section_is_split() -> None:
    items = "- nozzle 0.4 mm\n- belt GT2 6 mm\n- spool of PLA filament, 1 kg"
    text = "## Parts\n\n" + "a" * 100 + f"\n\n{items}\n\n" + "b" * 100 + "\n"
    source = make_source(text, reference_time=date(2025, 1, 1))
    chunks = chunk_source(source, max_chars=150)
    assert_exact_coverage(source, chunks)
    assert ranges(chunks) == [(1, 3), (5, 7), (9, 9)]
    assert chunks[1].text == items
    assert all(chunk.heading_path == ("Parts",) for chunk in chunks)
    assert all(chunk.reference_time == date(2025, 1, 1) for chunk in chunks)
    packed = "## Parts\nWe need:\n\n" + items + "\n\n" + "b" * 100 + "\n"
    assert ranges(chunk_source(make_source(packed), max_chars=150)) == [(1, 6), (8, 8)]


def test_long_list_splits_between_top_level_items_only() -> None:
    items = []
    for n in range(8):
        items += [f"- item {n} " + "z" * 30, f"  - nested under {n}", "", f"  continuation of {n}"]
    text = "# List\n" + "\n".join(items)
    source = make_source(text)
    chunks = chunk_source(source, max_chars=120)
    assert_exact_coverage(source, chunks)
    assert len(chunks) > 3
    lines = text.split("\n")
    for chunk in chunks[1:]:
        assert lines[chunk.line_start - 1].startswith("- item"), "split inside a list item"
    assert chunks[0].text.startswith("# List\n- item 0"), "the heading keeps its first item"


def test_table_is_never_split() -> None:
    rows = [f"| row {n} | {'v' * 20} |" for n in range(10)]
    table = ["| name | value |", "|------|-------|", *rows]
    text = "\n".join(["## Stats", "", "Before the table.", "", *table, "", "After the table."])
    source = make_source(text)
    chunks = chunk_source(source, max_chars=40)
    assert_exact_coverage(source, chunks)
    table_chunk = chunk_containing(chunks, 5)
    assert table_chunk.text == "\n".join(table)


def test_stray_carriage_return_does_not_shift_line_numbers() -> None:
    # Sources turn CRLF and CR into LF; the chunker numbers lines by LF only, and a CR left
    # inside a line (which markdown-it would take for a line break) must not shift anything.
    text = "# One\nalpha\rstill line two\n\n# Two\nbeta\r\n\n# Three\ngamma"
    source = make_source(text)
    chunks = chunk_source(source)
    assert_exact_coverage(source, chunks)
    assert ranges(chunks) == [(1, 2), (4, 5), (7, 8)]
    assert [chunk.heading_path for chunk in chunks] == [("One",), ("Two",), ("Three",)]
    assert chunks[0].text == "# One\nalpha\rstill line two"
    text_source = make_source("one\rtwo\n\nthree", kind="text", path="a.txt")
    assert ranges(chunk_source(text_source, max_chars=5)) == [(1, 1), (3, 3)]


def test_unbalanced_fence_runs_to_the_end() -> None:
    text = "# Start\nintro\n\n```js\nconst a = 1;\n\n# looks like a heading\n\nmore code"
    source = make_source(text)
    chunks = chunk_source(source)
    assert_exact_coverage(source, chunks)
    assert ranges(chunks) == [(1, 9)]
    small = chunk_source(source, max_chars=10)
    assert_exact_coverage(source, small)
    assert ranges(small) == [(1, 2), (4, 9)]
    assert all(chunk.heading_path == ("Start",) for chunk in small)


def test_percent_comments_are_never_split() -> None:
    text = "\n".join(
        [
            "# Notes %% hidden part %%",  # 1
            "",
            "Visible paragraph.",  # 3
            "",
            "%% kanban:settings",  # 5
            "",
            "# not a heading, it is commented out",
            "",
            "```",
            "%%",  # 10: inside a fence inside the comment, not a delimiter
            "```",
            "",
            "end of comment %%",  # 13
            "",
            "Inline %% comment %% text.",  # 15
            "",
            "```",
            "%% a fence line, not a comment",  # 18
            "```",
            "",
            "## Real heading",  # 21
            "text",
        ]
    )
    source = make_source(text)
    for max_chars in (10, 3000):
        chunks = chunk_source(source, max_chars=max_chars)
        assert_exact_coverage(source, chunks)
        comment = chunk_containing(chunks, 5)
        assert comment.line_end >= 13
        assert chunk_containing(chunks, 13) is comment
        assert chunks[0].heading_path == ("Notes",)
        assert [chunk.heading_path for chunk in chunks][-1] == ("Notes", "Real heading")
        assert {chunk.heading_path for chunk in chunks} == {("Notes",), ("Notes", "Real heading")}
        assert chunk_containing(chunks, 21).line_start == 21


def test_unclosed_percent_comment_runs_to_the_end() -> None:
    text = "# A\nintro\n\n%% opened and never closed\n\n# hidden\n\nstill hidden"
    source = make_source(text)
    chunks = chunk_source(source, max_chars=10)
    assert_exact_coverage(source, chunks)
    assert ranges(chunks) == [(1, 2), (4, 8)]
    assert chunks[1].heading_path == ("A",)


def test_ten_thousand_character_line_is_never_split() -> None:
    long_line = "word " * 2000 + "end"
    text = f"# Big\nshort\n\n{long_line}\n\nafter\n"
    source = make_source(text)
    chunks = chunk_source(source)
    assert_exact_coverage(source, chunks)
    assert ranges(chunks) == [(1, 2), (4, 4), (6, 6)]
    assert chunks[1].text == long_line
    headingless = make_source(long_line)
    assert [chunk.text for chunk in chunk_source(headingless)] == [long_line]
    as_text = make_source(f"a\n\n{long_line}\n\nb", kind="text", path="a.txt")
    assert ranges(chunk_source(as_text)) == [(1, 1), (3, 3), (5, 5)]


def test_text_sources_group_paragraphs() -> None:
    paragraphs = [f"# not a heading {n}\nline two of {n}" for n in range(5)]
    text = "\n\n\n".join(paragraphs) + "\n\n"
    source = make_source(text, kind="text", path="notes.txt")
    assert ranges(chunk_source(source)) == [(1, 18)]
    chunks = chunk_source(source, max_chars=70)
    assert_exact_coverage(source, chunks)
    assert ranges(chunks) == [(1, 6), (9, 14), (17, 18)]
    assert all(chunk.heading_path == () for chunk in chunks)
    assert all(chunk.kind == "section" for chunk in chunks)


def test_dated_headings_set_reference_time() -> None:
    text = "\n".join(
        [
            "Intro",  # 1
            "# Journal",  # 2
            "## 2025-02-03",  # 3
            "a",
            "### Details",  # 5
            "b",
            "### 2025-02-05 Follow-up",  # 7
            "c",
            "## 2025-02-10 Kickoff",  # 9
            "d",
            "## 2025-13-45 not a date",  # 11
            "e",
            "## Later",  # 13
            "f",
        ]
    )
    source = make_source(text, reference_time=date(2025, 1, 1))
    chunks = chunk_source(source)
    assert ranges(chunks) == [(1, 1), (2, 2), (3, 4), (5, 6), (7, 8), (9, 10), (11, 12), (13, 14)]
    assert [chunk.reference_time for chunk in chunks] == [
        date(2025, 1, 1),
        date(2025, 1, 1),
        date(2025, 2, 3),
        date(2025, 2, 3),
        date(2025, 2, 5),
        date(2025, 2, 10),
        date(2025, 1, 1),
        date(2025, 1, 1),
    ]
    undated_source = make_source("## [[2025-03-04]]\nx")
    assert chunk_source(undated_source)[0].reference_time == date(2025, 3, 4)


def test_uncovered_lines_go_to_the_surrounding_chunk() -> None:
    text = "\n".join(
        [
            "# Links",
            "See [the docs][docs].",
            "",
            "[docs]: https://example.org",  # a link reference definition: no token
            "",
            "<!-- an html",
            "comment -->",
            "# Next",
            "[other]: https://example.org/2",
        ]
    )
    source = make_source(text)
    for max_chars in (5, 3000):
        chunks = chunk_source(source, max_chars=max_chars)
        assert_exact_coverage(source, chunks)
    assert ranges(chunk_source(source)) == [(1, 7), (8, 9)]
    assert ranges(chunk_source(make_source("[a]: https://a.org\n\n# H\nx"))) == [(1, 1), (3, 4)]


def test_blank_bodies_give_no_section_chunks() -> None:
    assert chunk_source(make_source("")) == []
    assert chunk_source(make_source("\n  \n\t\n")) == []
    assert chunk_source(make_source("   \n\n", kind="text", path="a.txt")) == []
    only_frontmatter = chunk_source(make_source("---\na: 1\n---\n\n\n", frontmatter_lines=(1, 3)))
    assert [chunk.kind for chunk in only_frontmatter] == ["frontmatter"]


def test_chunk_sources_keeps_source_order() -> None:
    first = make_source("# A\nx", path="b.md")
    second = make_source("one\n\ntwo", kind="text", path="a.txt")
    chunks = chunk_sources([first, second], max_chars=3)
    assert [(chunk.source_path, chunk.index) for chunk in chunks] == [("b.md", 0), ("a.txt", 0), ("a.txt", 1)]


def test_one_parser_per_process(monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[str] = []

    def counting(config: str) -> MarkdownIt:
        built.append(config)
        return MarkdownIt(config)

    chunks_module._markdown.cache_clear()
    monkeypatch.setattr(chunks_module, "MarkdownIt", counting)
    try:
        chunk_sources([make_source(f"# Note {n}\n\nbody {n}\n## Sub\nx") for n in range(5)])
    finally:
        chunks_module._markdown.cache_clear()
    assert len(built) == 1


VARIED_DOCUMENTS = [
    NOTE,
    "no headings at all\njust prose\n\nand more",
    "# Title\n\n> [!note] A callout\n> with **two** lines\n\n> [!warning]- folded\n> body\n",
    "- [ ] task one\n- [x] task two\n\t- nested with tab\n\n1. first\n2. second\n\n* star list\n",
    "# H\n<div>\n\nhtml with a blank line\n\n</div>\n\n![[embed.png]]\n[[a#heading]] and [[a#^block]]\n",
    "---\nnot: frontmatter\n---\n\ntext after a thematic break\n***\n___\n",
    "    indented code\n    # not heading\n\n## Real\n\n~~~\nfence with tildes\n~~~\n",
    "####### seven hashes is not a heading\n#no space is a tag\n#\n# \n## closing ##\n",
    "| a | b |\n|---|---|\n| 1 | 2 |\ntrailing row\n\n| broken table\n|---\n",
    "%%\n%%\n%% single %%\n%%\n# hidden\n%%\n%%% odd\n",
    "```\n%%\n```\n%% open\n```\n%%\n```\nafter\n# H %% start\nx %%\n",
    "Title\n=====\nSub\n---\n\n  - list\n    ```\n    nested fence\n\n    ```\n# End",
    "日本語の見出し\n==\n\n# 🚀 Emoji: heading/with:colon\n本文\n\n## Ünïcödé\n" + "長い行" * 3000,
    "line\n" * 300,
    "\n\n\n# late heading\n\n\n",
    "$$\nmath\n\n$$\n\n[^1]: a footnote\n\n[^1]\n",
]


@pytest.mark.parametrize("max_chars", [1, 25, 200, 3000])
@pytest.mark.parametrize("text", VARIED_DOCUMENTS)
def test_full_coverage_over_varied_documents(text: str, max_chars: int) -> None:
    for kind in KINDS:
        source = make_source(text, kind=kind)
        assert_exact_coverage(source, chunk_source(source, max_chars=max_chars))


@pytest.mark.parametrize("text", VARIED_DOCUMENTS)
def test_skipping_the_parse_changes_nothing(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # A body with no heading-like line that fits in one chunk is not parsed; parsing it anyway
    # must give the very same chunks.
    for kind in KINDS:
        source = make_source(text, kind=kind)
        for max_chars in (200, 100_000):
            fast = chunk_source(source, max_chars=max_chars)
            with monkeypatch.context() as patch:
                patch.setattr(chunks_module, "_HEADING_LIKE", re.compile(""))
                assert chunk_source(source, max_chars=max_chars) == fast


LINE_KINDS = st.sampled_from(
    [
        "",
        "   ",
        "plain prose",
        "# H1",
        "## H2 **b**",
        "### 2025-02-03 dated",
        "Setext",
        "===",
        "---",
        "- item",
        "  - nested item",
        "1. ordered",
        "> quote",
        "```",
        "~~~",
        "    indented",
        "| a | b |",
        "|---|---|",
        "%%",
        "text %% open",
        "%% both %%",
        "<!-- html",
        "-->",
        "[ref]: https://x.org",
        "x" * 120,
        "a\rb",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(LINE_KINDS, max_size=40), st.integers(min_value=1, max_value=200), st.booleans())
def test_coverage_property_on_generated_markdown(lines: list[str], max_chars: int, frontmatter: bool) -> None:
    text = "\n".join(["---", "a: 1", "---", *lines] if frontmatter else lines)
    source = make_source(text, frontmatter_lines=(1, 3) if frontmatter else None)
    assert_exact_coverage(source, chunk_source(source, max_chars=max_chars))


def read_vault_file(path: Path, root: Path) -> Source:
    """Build a Source from a real note, detecting a leading `---` block as frontmatter."""
    with open(path, encoding="utf-8", errors="replace") as handle:
        text = handle.read()
    text = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    frontmatter = None
    if lines[0].strip() == "---":
        closing = next((n for n in range(1, len(lines)) if lines[n].strip() in ("---", "...")), None)
        if closing is not None:
            frontmatter = (1, closing + 1)
    relative = path.relative_to(root).as_posix()
    source = make_source(text, path=relative, frontmatter_lines=frontmatter)
    return source


def real_vault_sources(name: str) -> list[Source]:
    """Every Markdown note of one real vault, or skip when the data is absent."""
    root = REAL_VAULTS / name
    assert root.is_dir(), f"missing test data {root}"
    return [read_vault_file(path, root) for path in sorted(root.rglob("*.md")) if path.is_file()]


@pytest.mark.parametrize("vault", ["kepano-obsidian", "ttrpg-share"])
@pytest.mark.parametrize("max_chars", [400, 3000])
def test_real_vaults_are_fully_covered(vault: str, max_chars: int) -> None:
    sources = real_vault_sources(vault)
    assert sources
    for source in sources:
        assert_exact_coverage(source, chunk_source(source, max_chars=max_chars))


# A body of these lines may take the shortcut (no parse) or not; when it does, its headings must be
# exactly those markdown-it finds at the top level.
_BODY_LINES = st.sampled_from(
    [
        "# Title",
        "## Sub *emph* and `code`",
        "### [link](http://x) and [[Wiki|shown]] #",
        "#hashtag not a heading",
        "####### seven",
        "#\tTabbed ## closing ##",
        "#",
        "# #",
        "Text paragraph.",
        "- item",
        "  - nested # not heading",
        "1. step",
        "> # quoted heading",
        "> quote",
        "| a | b |",
        "# a | b",
        "|---|---|",
        "    # indented code",
        "   # three spaces",
        "===",
        "---",
        "```",
        "<div>",
        "%% comment %%",
        "[ref]: http://example.com",
        "Term: definition",
        "* star item",
        "",
        "Emoji 🙂 and é",
        "\\# escaped",
        "# Heading with \\# escape",
    ]
)


@given(st.lists(_BODY_LINES, max_size=12))
@settings(max_examples=600, deadline=None)
def test_headings_found_without_a_parse_are_the_parsed_ones(lines: list[str]) -> None:
    """The shortcut is taken only where it finds the same top-level headings, titled the same."""
    body = "\n".join(lines)
    if not chunks_module._headings_only(body):
        return
    parsed, _ = chunks_module._top_level_blocks(body, 0, len(lines))
    headings = [(b.start, b.end, b.level, b.title) for b in parsed if b.kind == "heading"]
    fast = [(b.start, b.end, b.level, b.title) for b in chunks_module._atx_headings(lines, 0)]
    assert fast == headings
