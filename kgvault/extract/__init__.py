"""Pass 1: turn each chunk into a validated draft."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from kgvault.extract.draft import Draft
from kgvault.records import Chunk, Source


@dataclass(frozen=True, slots=True)
class Extraction:
    """One chunk's draft with its provenance."""

    chunk: Chunk
    draft: Draft
    extractor: str
    """`name@version` of the extractor (and model, for LLM extractors)."""
    dropped: tuple[str, ...] = ()
    """Why items of the raw draft were dropped by validation."""


def extract(chunks: Sequence[Chunk], sources: Sequence[Source]) -> list[Extraction]:
    """Extract every chunk with the offline extractor, in chunk order."""
    from kgvault.extract.offline import extract_chunk

    by_path = {source.path: source for source in sources}
    return [extract_chunk(chunk, by_path[chunk.source_path]) for chunk in chunks]
