"""Pass 1: turn each chunk into a validated draft."""

from __future__ import annotations

from collections.abc import Sequence

from kgvault.extract.draft import Draft
from kgvault.records import Chunk, Source, record


@record
class Extraction:
    """One chunk's draft with its provenance."""

    chunk: Chunk
    draft: Draft
    extractor: str
    """`name@version` of the extractor (and model, for LLM extractors)."""
    dropped: tuple[str, ...] = ()
    """Why items of the raw draft were dropped by validation."""
    failure: str | None = None
    """Why the model gave no draft for this chunk, which the rules read instead (`extract/llm.py`)."""


def extract(chunks: Sequence[Chunk], sources: Sequence[Source]) -> list[Extraction]:
    """Extract every chunk, in chunk order: notes and conversations offline, draft files as they say.

    `sources` holds every source of the build, so a draft's quotes can be checked against the note
    it names.
    """
    from kgvault.extract.offline import extract_chunk

    by_path = {source.path: source for source in sources}
    extractions = []
    for chunk in chunks:
        if chunk.kind == "draft":
            from kgvault.extract.from_draft import extract_draft

            extractions.append(extract_draft(chunk, by_path))
        else:
            extractions.append(extract_chunk(chunk, by_path[chunk.source_path]))
    return extractions
