"""Chunks: split each source into windows with exact 1-based inclusive line ranges.

A Markdown body is cut at every top-level heading (markdown-it-py's block tokens
carry line maps); a section longer than `max_chars` is cut again between
top-level blocks, never inside a code fence, a table or a `%% comment %%`.
A plain-text body is cut into runs of paragraphs. In both, a paragraph opening
with a line that is only a date (a diary's "14 March 2025") starts a section
of that day, as a heading of that date would. The cuts partition the body,
so every non-blank line lands in exactly one chunk, including lines markdown-it
puts in no token (link reference definitions, stray lines).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from functools import cache, lru_cache
from itertools import accumulate
from typing import Any, Literal

from markdown_it import MarkdownIt
from markdown_it.common.utils import mdTrim
from markdown_it.token import Token

from kgvault.dates import date_line, date_line_days, parse_date_value
from kgvault.note_kind import DAY_TITLE, kept_kind
from kgvault.records import Chunk, ChunkKind, Source, record

_BlockKind = Literal["heading", "date", "list", "paragraph", "other"]

# A superset of the lines that can be a top-level ATX heading or a setext underline:
# a body with none of them that fits in one chunk needs no parse at all.
_HEADING_LIKE = re.compile(r"^ {0,3}(?:#{1,6}(?:[ \t]|$)|=+[ \t]*$|-+[ \t]*$)", re.MULTILINE)
# What can make a line that starts with `# ` something other than a top-level heading, hide one or
# change a heading's title: fences, HTML blocks, indented lines starting with `#`, setext underlines,
# a `#` line holding `|` (a table's header row), link reference definitions, comments, and the CRs
# and NULs markdown-it reads its own way. A body with none of them needs no parse to find its
# headings: an unindented ATX heading ends any paragraph, list, quote or table before it.
_NOT_HEADINGS_ONLY = ("```", "~~~", "%%", "\r", "\0")
# Searched in the body after a LF: a pattern opening with a literal is scanned for much faster.
_NOT_HEADINGS_ONLY_LINE = re.compile(r"\n(?:[ \t]*<|[ \t]+#|[ \t]*(?:=+|-+)[ \t]*$|#.*\|)", re.MULTILINE)
_REFERENCE_LABEL_END = re.compile(r"(?<!\])\]:|\\\]\]:")
"""Where a link reference definition's label can end: not in `[[wikilink]]:`, whose label holds a `[`."""
_ATX_OPENING = re.compile(r"#{1,6}(?=[ \t]|$)")
_DATED_TITLE = re.compile(r"(\d{4}-\d{2}-\d{2})(?!\d)")
_FOUR_DIGITS = re.compile(r"\d{4}")
_WIKILINK = re.compile(r"!?\[\[([^\]|]*)(?:\|([^\]]*))?\]\]")
_INLINE_COMMENT = re.compile(r"%%.*?(?:%%|$)")
_CODE_SPAN = re.compile(r"(`+).*?\1")
_CODE_TOKENS = frozenset({"fence", "code_block"})
_LIST_TOKENS = frozenset({"bullet_list_open", "ordered_list_open"})


@dataclass(slots=True)
class _Block:
    """A top-level block of a Markdown body, as 0-based file line indices [start, end)."""

    start: int
    end: int
    kind: _BlockKind
    level: int = 0
    """Heading level (1-6), for headings; for a date line, one below the heading it is under."""
    title: str = ""
    """Plain-text heading title, for headings and date lines."""
    day: date | None = None
    """The day a date line names (None when its a/b/yyyy order is unknown)."""
    items: list[int] = field(default_factory=list)
    """Start line of each top-level item, for lists."""


@record
class _Cut:
    """Where a chunk begins (0-based line index) and what it inherits."""

    line: int
    heading_path: tuple[str, ...]
    reference_time: date | None


@cache
def _markdown() -> MarkdownIt:
    """Build this process's one parser: block rules only, inline parsing runs on headings alone."""
    md = MarkdownIt("commonmark").enable("table")
    md.disable(["inline", "text_join"])
    return md


def chunk_sources(sources: Sequence[Source], *, max_chars: int = 3000) -> list[Chunk]:
    """Chunk every source, in source order."""
    chunks: list[Chunk] = []
    for source in sources:
        chunks.extend(chunk_source(source, max_chars=max_chars))
    return chunks


def chunk_source(source: Source, *, max_chars: int = 3000) -> list[Chunk]:
    """Split one source into chunks with exact 1-based inclusive line ranges."""
    lines = source.text.split("\n")
    chunks: list[Chunk] = []
    body_start = max(source.body_line - 1, 0)
    if source.frontmatter_lines is not None:
        first, last = max(source.frontmatter_lines[0], 1), min(source.frontmatter_lines[1], len(lines))
        if first <= last:
            chunks.append(
                _make_chunk(source, lines, 0, "frontmatter", first - 1, last, (), source.reference_time)
            )
            body_start = max(body_start, last)
    if body_start >= len(lines):
        return chunks
    if source.turns:
        return _turn_chunks(source, lines, body_start, chunks, max_chars)
    if source.kind == "chat":
        # A chat log with no readable message is no prose either: one run of no turns covers it.
        start, end = _trim(lines, body_start, len(lines))
        return (
            [_make_chunk(source, lines, 0, "turns", start, end, (), source.reference_time)]
            if start < end
            else []
        )
    if source.kind == "draft":
        # A draft file is read whole: its items are already extracted, each cites its own pointer.
        start, end = _trim(lines, body_start, len(lines))
        return (
            [_make_chunk(source, lines, 0, "draft", start, end, (), source.reference_time)]
            if start < end
            else []
        )
    cut_body = _markdown_cuts if source.kind == "markdown" else _text_cuts
    cuts = cut_body(lines, body_start, source.reference_time, max_chars, _keeps_days(source))
    # Each chunk runs up to the next cut, so lines in no block still land in exactly one chunk.
    for position, cut in enumerate(cuts):
        end = cuts[position + 1].line if position + 1 < len(cuts) else len(lines)
        start, end = _trim(lines, cut.line, end)
        if start < end:
            chunks.append(
                _make_chunk(
                    source, lines, len(chunks), "section", start, end, cut.heading_path, cut.reference_time
                )
            )
    return chunks


def _make_chunk(
    source: Source,
    lines: list[str],
    index: int,
    kind: ChunkKind,
    start: int,
    end: int,
    heading_path: tuple[str, ...],
    reference_time: date | None,
) -> Chunk:
    """Build the record for the 0-based lines [start, end) of the source."""
    text = "\n".join(lines[start:end])
    return Chunk(
        source_path=source.path,
        index=index,
        kind=kind,
        heading_path=heading_path,
        line_start=start + 1,
        line_end=end,
        text=text,
        reference_time=reference_time,
        sha256=hashlib.sha256(text.encode("utf-8")).hexdigest(),
    )


def _turn_chunks(
    source: Source, lines: list[str], body_start: int, chunks: list[Chunk], max_chars: int
) -> list[Chunk]:
    """Cut a conversation into runs of turns of one session, each at most max_chars of speech.

    Text before the first turn (a transcript's heading or preamble) is a section of its own;
    the runs partition the rest, so lines in no turn (a system message in a log) are covered too.
    """
    turns = source.turns
    if source.kind == "transcript":
        start, end = _trim(lines, body_start, turns[0].line_start - 1)
        if start < end:
            chunks.append(
                _make_chunk(source, lines, len(chunks), "section", start, end, (), source.reference_time)
            )
    runs: list[list[int]] = [[0]]
    size = len(turns[0].text)
    for position in range(1, len(turns)):
        turn = turns[position]
        if turn.session != turns[position - 1].session or size + len(turn.text) > max_chars:
            runs.append([])
            size = 0
        runs[-1].append(position)
        size += len(turn.text)
    for number, run in enumerate(runs):
        # A log's lines before its first turn are not prose (a system message): they join the first run.
        leading = number == 0 and source.kind != "transcript"
        run_start = body_start if leading else turns[run[0]].line_start - 1
        run_end = turns[runs[number + 1][0]].line_start - 1 if number + 1 < len(runs) else len(lines)
        run_start, run_end = _trim(lines, run_start, run_end)
        first = turns[run[0]]
        when = first.time.date() if first.time else source.reference_time
        chunk = _make_chunk(source, lines, len(chunks), "turns", run_start, run_end, (), when)
        chunks.append(replace(chunk, turns=tuple(turns[position] for position in run)))
    return chunks


def _trim(lines: list[str], start: int, end: int) -> tuple[int, int]:
    """Shrink [start, end) past leading and trailing blank lines (empty when all are blank)."""
    while start < end and not lines[start].strip():
        start += 1
    while end > start and not lines[end - 1].strip():
        end -= 1
    return start, end


class _Sizer:
    """Measure the text length of line ranges in O(1) from prefix sums."""

    def __init__(self, lines: list[str], offset: int) -> None:
        self._offset = offset
        self._prefix = [0, *accumulate(len(line) + 1 for line in lines[offset:])]

    def chars(self, start: int, end: int) -> int:
        """Length of lines [start, end) joined with LF."""
        if end <= start:
            return 0
        return self._prefix[end - self._offset] - self._prefix[start - self._offset] - 1


# -- plain text ---------------------------------------------------------------------------------


def _keeps_days(source: Source) -> bool:
    """Whether a note may keep days apart by lines that are only their date: not a day's own note (its
    "20 April 2025" is a day it names), nor a person's (their birthday)."""
    meta = source.meta if isinstance(source.meta, dict) else {}
    return DAY_TITLE.match(source.title) is None and kept_kind(meta, source.title, source.path) != "person"


def _text_cuts(
    lines: list[str], body_start: int, reference_time: date | None, max_chars: int, diary: bool = True
) -> list[_Cut]:
    """Cut a plain-text body into runs of blank-line-separated paragraphs of at most max_chars.

    A paragraph opening with a date line starts a run, and the runs up to the next one are of its day,
    unless nothing but another date line follows it.
    """
    sizer = _Sizer(lines, body_start)
    days = _date_lines(lines, body_start) if diary else {}
    cuts: list[_Cut] = []
    chunk_start = -1
    paragraph_start = -1
    heading_path: tuple[str, ...] = ()
    day = reference_time
    for number in range(body_start, len(lines) + 1):
        blank = number == len(lines) or not lines[number].strip()
        if not blank and paragraph_start < 0:
            paragraph_start = number
        elif blank and paragraph_start >= 0:
            following = _line_after(lines, paragraph_start) if paragraph_start in days else None
            dated = following is not None and following not in days
            if dated:
                heading_path = (" ".join(lines[paragraph_start].split()),)
                day = days[paragraph_start] or reference_time
            if dated or chunk_start < 0 or sizer.chars(chunk_start, number) > max_chars:
                chunk_start = paragraph_start
                cuts.append(_Cut(chunk_start, heading_path, day))
            paragraph_start = -1
    return cuts


def _line_after(lines: list[str], number: int) -> int | None:
    """The next non-blank line after this one, if any."""
    return next((after for after in range(number + 1, len(lines)) if lines[after].strip()), None)


def _date_lines(lines: list[str], body_start: int) -> dict[int, date | None]:
    """Find the body's lines that are only a date (`date_line`), with the day each names: a diary's,
    two or more (one alone is a day the note names: "20 April 2025" / "Lisbon, 9am from Gatwick")."""
    written: dict[int, str] = {}
    for number in range(body_start, len(lines)):
        line = lines[number]
        # Most lines hold no year: skip the date-line pattern for them.
        if _FOUR_DIGITS.search(line):
            found = date_line(line)
            if found is not None:
                written[number] = found
    if len(written) < 2:
        return {}
    return dict(zip(written, date_line_days(list(written.values())), strict=True))


# -- Markdown -----------------------------------------------------------------------------------


def _markdown_cuts(
    lines: list[str], body_start: int, reference_time: date | None, max_chars: int, diary: bool = True
) -> list[_Cut]:
    """Cut a Markdown body at its top-level headings and date lines, then split sections longer than
    max_chars."""
    sizer = _Sizer(lines, body_start)
    body = "\n".join(lines[body_start:])
    fits = sizer.chars(body_start, len(lines)) <= max_chars
    days = _date_lines(lines, body_start) if diary else {}
    if fits and not days and not _HEADING_LIKE.search(body):
        return [_Cut(body_start, (), reference_time)]
    if fits and not days and _headings_only(body):
        # One chunk's worth is never split, so its headings are all the structure it needs.
        blocks = _atx_headings(lines, body_start)
    else:
        blocks, code = _top_level_blocks(body, body_start, len(lines))
        if days:
            blocks = _split_date_lines(blocks, days, lines)
        if "%%" in body:
            blocks = _merge_comments(blocks, _comment_spans(lines, body_start, code))

    sections: list[tuple[_Cut, list[_Block]]] = [(_Cut(body_start, (), reference_time), [])]
    stack: list[_Block] = []
    for block in blocks:
        if block.kind == "date":
            # A date line ends the day before it (and the headings under that day), and heads its own
            # day one level below the heading it is under: any heading up to that level ends it.
            while any(entry.kind == "date" for entry in stack):
                stack.pop()
            block.level = stack[-1].level + 1 if stack else 1
        if block.kind in ("heading", "date"):
            while stack and stack[-1].level >= block.level:
                stack.pop()
            stack.append(block)
            path = tuple(entry.title for entry in stack if entry.title)
            sections.append((_Cut(block.start, path, _dated(stack) or reference_time), []))
        sections[-1][1].append(block)

    cuts: list[_Cut] = []
    for position, (cut, section_blocks) in enumerate(sections):
        if cuts and cuts[-1].line == cut.line:
            cuts.pop()  # the empty lead-in before a heading on the first body line
        cuts.append(cut)
        end = sections[position + 1][0].line if position + 1 < len(sections) else len(lines)
        start, end = _trim(lines, cut.line, end)
        if sizer.chars(start, end) > max_chars:
            cuts.extend(
                _Cut(line, cut.heading_path, cut.reference_time)
                for line in _split_section(section_blocks, sizer, max_chars)
            )
    return cuts


def _split_section(blocks: list[_Block], sizer: _Sizer, max_chars: int) -> list[int]:
    """Return where to cut an oversized section: between top-level blocks, packed greedily up to max_chars.

    A list stays one block unless it alone is too long; then it is cut between its top-level items.
    Fences, tables and comments stay single blocks whatever their size.
    """
    units: list[tuple[int, int]] = []
    for block in blocks:
        if block.kind == "list" and len(block.items) > 1 and sizer.chars(block.start, block.end) > max_chars:
            starts = [block.start, *block.items[1:]]
            units.extend(zip(starts, [*starts[1:], block.end], strict=True))
        else:
            units.append((block.start, block.end))
    if not units:
        return []
    heading = blocks[0].start if blocks[0].kind in ("heading", "date") else -1
    cuts: list[int] = []
    chunk_start, units_in_chunk = units[0][0], 1
    for unit_start, unit_end in units[1:]:
        # A heading alone says nothing: it always keeps the block below it.
        glued = units_in_chunk == 1 and chunk_start == heading
        if not glued and sizer.chars(chunk_start, unit_end) > max_chars:
            chunk_start, units_in_chunk = unit_start, 0
            cuts.append(chunk_start)
        units_in_chunk += 1
    return cuts


def _top_level_blocks(body: str, offset: int, line_count: int) -> tuple[list[_Block], list[tuple[int, int]]]:
    """Parse the body; return its top-level blocks and its code blocks (any depth), as file line indices."""
    md = _markdown()
    env: dict[str, Any] = {}
    # markdown-it also breaks lines at a lone CR; keep its line numbers equal to ours.
    tokens = md.parse(body.replace("\r", " ") if "\r" in body else body, env)
    blocks: list[_Block] = []
    code: list[tuple[int, int]] = []
    current_list: _Block | None = None
    for position, token in enumerate(tokens):
        if token.map is None or token.nesting < 0:
            continue
        start = min(token.map[0] + offset, line_count)
        end = min(token.map[1] + offset, line_count)
        if token.type in _CODE_TOKENS:
            code.append((start, end))
        if token.level == 1 and token.type == "list_item_open" and current_list is not None:
            current_list.items.append(start)
        if token.level != 0:
            continue
        if token.type == "heading_open":
            title = _heading_title(tokens[position + 1].content, env)
            blocks.append(_Block(start, end, "heading", level=int(token.tag[1:]), title=title))
        elif token.type in _LIST_TOKENS:
            current_list = _Block(start, end, "list")
            blocks.append(current_list)
        else:
            blocks.append(_Block(start, end, "paragraph" if token.type == "paragraph_open" else "other"))
    return blocks, code


def _split_date_lines(blocks: list[_Block], days: dict[int, date | None], lines: list[str]) -> list[_Block]:
    """Make the date line opening a top-level paragraph a block of its own, heading the day below it.

    A date line with nothing below it before the next heading or date line heads no day and stays
    as it is (a meeting note's date under its title, before its first `##`).
    """
    split: list[_Block] = []
    for position, block in enumerate(blocks):
        following = blocks[position + 1] if position + 1 < len(blocks) else None
        heads_something = block.end > block.start + 1 or not (
            following is None
            or following.kind == "heading"
            or (following.kind == "paragraph" and following.start in days)
        )
        if block.kind != "paragraph" or block.start not in days or not heads_something:
            split.append(block)
            continue
        title = _plain_title(mdTrim(lines[block.start]))
        split.append(_Block(block.start, block.start + 1, "date", title=title, day=days[block.start]))
        if block.end > block.start + 1:
            split.append(_Block(block.start + 1, block.end, "paragraph"))
    return split


def _comment_spans(lines: list[str], body_start: int, code: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Find `%% … %%` comments spanning several lines, outside code, as inclusive line index pairs.

    An unclosed comment runs to the end of the file, as Obsidian shows it.
    """
    spans: list[tuple[int, int]] = []
    opened = -1
    next_code = 0
    for number in range(body_start, len(lines)):
        line = lines[number]
        if "%%" not in line:
            continue
        while next_code < len(code) and code[next_code][1] <= number:
            next_code += 1
        if next_code < len(code) and code[next_code][0] <= number:
            continue
        if "`" in line:
            line = _CODE_SPAN.sub("", line)
        if line.count("%%") % 2 == 0:
            continue
        if opened < 0:
            opened = number
        else:
            spans.append((opened, number))
            opened = -1
    if opened >= 0:
        spans.append((opened, len(lines) - 1))
    return spans


def _merge_comments(blocks: list[_Block], spans: list[tuple[int, int]]) -> list[_Block]:
    """Fuse the blocks a multi-line comment touches into one block that is never split.

    The fused block still starts a section when it begins with a heading the comment does not hide.
    """
    merged: list[_Block] = []
    next_span = 0
    group_end = -1
    for block in blocks:
        if block.start < group_end:
            group = merged[-1]
            group.end = max(group.end, block.end)
        else:
            while next_span < len(spans) and spans[next_span][1] < block.start:
                next_span += 1
            if next_span == len(spans) or spans[next_span][0] >= block.end:
                merged.append(block)
                continue
            span_start = spans[next_span][0]
            visible_heading = block.kind in ("heading", "date") and span_start >= block.start
            group = _Block(
                min(block.start, span_start),
                block.end,
                block.kind if visible_heading else "other",
                level=block.level,
                title=block.title,
                day=block.day,
            )
            merged.append(group)
        while next_span < len(spans) and spans[next_span][0] < group.end:
            group.end = max(group.end, spans[next_span][1] + 1)
            next_span += 1
        group_end = group.end
    return merged


def _headings_only(body: str) -> bool:
    """Whether the unindented ATX headings of the body are all its top-level headings, titled as parsed."""
    for marker in _NOT_HEADINGS_ONLY:
        if marker in body:
            return False
    if "]:" in body and _REFERENCE_LABEL_END.search(body):
        return False
    return _NOT_HEADINGS_ONLY_LINE.search("\n" + body) is None


def _atx_headings(lines: list[str], body_start: int) -> list[_Block]:
    """Find the headings of a body `_headings_only` accepts, as `_top_level_blocks` would, without a parse."""
    # Each line opening with 1-6 `#` and a space, a tab or nothing more is then a top-level heading;
    # its title is read as markdown-it's heading rule reads it, with no reference definitions.
    env: dict[str, Any] = {}
    blocks: list[_Block] = []
    for number in range(body_start, len(lines)):
        line = lines[number]
        opening = _ATX_OPENING.match(line) if line.startswith("#") else None
        if opening is None:
            continue
        # The content runs to a closing sequence of `#` that follows a space or a tab, if any.
        start = opening.end()
        end = max(len(line.rstrip(" \t")), start)
        closing = len(line[start:end].rstrip("#")) + start
        if closing > start and line[closing - 1] in " \t":
            end = closing
        title = _heading_title(mdTrim(line[start:end]), env)
        blocks.append(_Block(number, number + 1, "heading", level=opening.end(), title=title))
    return blocks


def _heading_title(content: str, env: dict[str, Any]) -> str:
    """Render a heading's inline content as plain text: markup dropped, link text kept."""
    # Inline rules only read the env, and only its link reference definitions: without any,
    # a title depends on its content alone, and the same headings recur from note to note.
    return _plain_title(content) if not env.get("references") else _render_title(content, env)


@lru_cache(maxsize=4096)
def _plain_title(content: str) -> str:
    """`_render_title` of a heading in a body without link reference definitions."""
    return _render_title(content, {})


def _render_title(content: str, env: dict[str, Any]) -> str:
    """Parse a heading's inline content and keep its text."""
    md = _markdown()
    children: list[Token] = []
    md.inline.parse(content, md, env, children)
    parts: list[str] = []
    for child in children:
        if child.type in ("text", "text_special", "code_inline", "image"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
    text = _WIKILINK.sub(_wikilink_text, "".join(parts))
    return " ".join(_INLINE_COMMENT.sub("", text).split())


def _wikilink_text(match: re.Match[str]) -> str:
    """Show a wikilink as Obsidian does: its alias, else its target."""
    target, alias = match.group(1), match.group(2)
    if alias:
        return alias
    return target.split("#", 1)[0] or target.lstrip("#^")


def _dated(stack: list[_Block]) -> date | None:
    """Return the day of the innermost date line, or heading that is or starts with an ISO date, over a
    section."""
    for block in reversed(stack):
        if block.kind == "date" and block.day is not None:
            return block.day
        match = _DATED_TITLE.match(block.title)
        if match:
            found = parse_date_value(match.group(1))
            if found is not None:
                return found
    return None
