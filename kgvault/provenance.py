"""Provenance: the evidence an extracted item cites, down to the conversation turn that said it."""

from __future__ import annotations

from kgvault.extract.draft import normalize_for_match
from kgvault.records import Chunk, Evidence, Turn


def evidence_order(evidence: Evidence) -> tuple[str, int, int, str]:
    """Evidence in source order; a draft file's items share their chunk's lines, and differ by pointer."""
    return (evidence.path, evidence.line_start, evidence.line_end, evidence.pointer or "")


def chunk_evidence(chunk: Chunk) -> Evidence:
    """The whole chunk as evidence; a run of an export's messages cites its message or its conversation."""
    if chunk.turns and chunk.turns[0].pointer is not None:
        pointer = chunk.turns[0].pointer if len(chunk.turns) == 1 else chunk.source_path.rpartition("#")[2]
        return Evidence(chunk.source_path, chunk.line_start, chunk.line_end, pointer or None)
    return Evidence(chunk.source_path, chunk.line_start, chunk.line_end)


def turn_evidence(chunk: Chunk, turn: Turn) -> Evidence:
    """One turn as evidence: its lines, or its message's pointer."""
    return Evidence(chunk.source_path, turn.line_start, turn.line_end, turn.pointer)


def turn_of(chunk: Chunk, quote: str | None, line: int | None = None) -> Turn | None:
    """The turn of a chunk that said an item: the one starting at `line`, else the first holding its quote."""
    if line is not None:
        said = next((turn for turn in chunk.turns if turn.line_start == line), None)
        if said is not None:
            return said
    if not quote or not chunk.turns:
        return None
    for turn in chunk.turns:
        if quote in turn.text:
            return turn
    folded = normalize_for_match(quote)
    return next((turn for turn in chunk.turns if folded in normalize_for_match(turn.text)), None)


def item_evidence(
    chunk: Chunk, quote: str | None, whole: Evidence, pointer: str | None = None, line: int | None = None
) -> Evidence:
    """What an item of a chunk cites: its place in a draft file, the turn that said it, or `whole`."""
    if pointer is not None:
        return Evidence(chunk.source_path, chunk.line_start, chunk.line_end, pointer)
    turn = turn_of(chunk, quote, line)
    return whole if turn is None else turn_evidence(chunk, turn)
