"""Offline chunking and extraction on two cores: a forked helper does part of the notes and hands it back.

The helper hands back what the extraction cache would keep (`cache.encode_entry`): compact
JSON, decoded here the way a cached note is, so its notes come out exactly as if extracted
here (a rebuild from the cache equals a clean build). Where fork is not safe or not worth it
(few notes, one core, not Linux, other threads running), or if the helper fails, everything
is done in this process.
"""

from __future__ import annotations

import pickle
from collections.abc import Sequence

from kgvault import forking
from kgvault.cache import decode_entry, encode_entry
from kgvault.chunks import chunk_sources
from kgvault.extract import Extraction, extract
from kgvault.extract.offline import chunk_context
from kgvault.records import Chunk, Source

MIN_BYTES = 512 * 1024
"""Below this much note text to extract, forking costs more than it saves."""
HELPER_SHARE = 0.47
"""The helper's share of the text: a little under half, as this process then decodes what it hands back."""


def chunk_and_extract(
    fresh: Sequence[Source], sources: Sequence[Source], *, max_chars: int
) -> tuple[list[Chunk], list[Extraction], dict[str, bytes]]:
    """Chunk and extract the `fresh` sources (`sources` are all of the build's, for draft quotes).

    Returns chunks and extractions grouped by source, in source order, and the encoded cache
    entry of each source the helper did, by path (the build stores those instead of encoding again).
    """
    mine, theirs = _split(fresh)
    if not theirs:
        chunks, extractions = _here(fresh, sources, max_chars)
        return chunks, extractions, {}
    answer = forking.ask(lambda: _encoded(theirs, *_here(theirs, sources, max_chars)))
    try:
        chunks, extractions = _here(mine, sources, max_chars)
    except BaseException:
        answer.drop()
        raise
    payload = answer.get()
    entries = _entries(payload) if payload is not None else None
    taken = _decoded(theirs, entries) if entries is not None else None
    if taken is None:  # the helper failed: do its part here, as if it had never been asked
        their_chunks, their_extractions = _here(theirs, sources, max_chars)
        return [*chunks, *their_chunks], [*extractions, *their_extractions], {}
    assert entries is not None
    return [*chunks, *taken[0]], [*extractions, *taken[1]], entries


def _here(
    fresh: Sequence[Source], sources: Sequence[Source], max_chars: int
) -> tuple[list[Chunk], list[Extraction]]:
    chunks = chunk_sources(fresh, max_chars=max_chars)
    return chunks, extract(chunks, sources)


def _split(fresh: Sequence[Source]) -> tuple[list[Source], list[Source]]:
    """This process's sources and the helper's, a like mix on each side (no helper when not worth a fork)."""
    # Draft files are not cached (their quotes depend on other notes), so they stay here.
    shippable = [source for source in fresh if source.kind != "draft"]
    if sum(len(source.text) for source in shippable) < MIN_BYTES or not forking.can_fork():
        return list(fresh), []
    given: set[int] = set()
    mine = theirs = 0
    # Dealt out note by note, so that both sides get a like mix of daily notes, projects, logs.
    for source in shippable:
        if theirs * (1 - HELPER_SHARE) <= mine * HELPER_SHARE:
            given.add(id(source))
            theirs += len(source.text)
        else:
            mine += len(source.text)
    return [s for s in fresh if id(s) not in given], [s for s in fresh if id(s) in given]


def _encoded(sources: Sequence[Source], chunks: Sequence[Chunk], extractions: Sequence[Extraction]) -> bytes:
    """Each source's chunks and extractions as a cache entry, by path, pickled to be handed back."""
    made: dict[str, tuple[list[Chunk], list[Extraction]]] = {source.path: ([], []) for source in sources}
    for chunk, extraction in zip(chunks, extractions, strict=True):
        made[chunk.source_path][0].append(chunk)
        made[chunk.source_path][1].append(extraction)
    context = {source.path: chunk_context(source) for source in sources}
    entries = {path: encode_entry(*parts, context[path]) for path, parts in made.items()}
    return pickle.dumps(entries, protocol=pickle.HIGHEST_PROTOCOL)


def _entries(payload: bytes) -> dict[str, bytes] | None:
    """The helper's answer, or None when it is not one."""
    try:
        entries = pickle.loads(payload)
    except Exception:  # a helper that died half-way leaves a truncated pickle
        return None
    if not isinstance(entries, dict) or not all(
        isinstance(k, str) and isinstance(v, bytes) for k, v in entries.items()
    ):
        return None
    return entries


def _decoded(
    sources: Sequence[Source], entries: dict[str, bytes]
) -> tuple[list[Chunk], list[Extraction]] | None:
    """The helper's chunks and extractions in source order, or None when any source is missing."""
    chunks: list[Chunk] = []
    extractions: list[Extraction] = []
    for source in sources:
        entry = entries.get(source.path)
        if entry is None:
            return None
        try:
            source_chunks, source_extractions = decode_entry(entry, source)
        except (ValueError, KeyError, TypeError):
            return None
        chunks.extend(source_chunks)
        extractions.extend(source_extractions)
    return chunks, extractions
