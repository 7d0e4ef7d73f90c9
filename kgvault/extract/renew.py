"""An edited note re-extracts only the chunks that changed: the others take their cached drafts again."""

from __future__ import annotations

from collections.abc import Sequence

from kgvault.cache import Earlier, ExtractionCache, chunk_reuse_key
from kgvault.chunks import chunk_sources
from kgvault.extract import Extraction, extract
from kgvault.extract.draft import Draft
from kgvault.extract.offline import REUSABLE_KINDS, chunk_context
from kgvault.records import Chunk, Source


def renew(
    fresh: Sequence[Source], sources: Sequence[Source], cache: ExtractionCache, max_chars: int
) -> tuple[list[Chunk], list[Extraction], list[Source]]:
    """Chunk and extract the notes the cache held an earlier version of, reusing each unchanged chunk's draft.

    A chunk is unchanged when its kind, text, headings, lines and reference time are the same and
    so is what its note says around it (`offline.chunk_context`): its draft would come out the
    same. Returns those notes' chunks and extractions, and the sources left to extract whole (those
    with no earlier version, another context, or more than half of their chunks changed).
    """
    chunks: list[Chunk] = []
    extractions: list[Extraction] = []
    rest: list[Source] = []
    for source in fresh:
        earlier = cache.earlier(source.path) if source.kind in REUSABLE_KINDS else None
        if earlier is None or earlier.context != chunk_context(source):
            rest.append(source)
            continue
        mine = chunk_sources([source], max_chars=max_chars)
        changed = [chunk for chunk in mine if chunk_reuse_key(chunk) not in earlier.drafts]
        if len(changed) * 2 > len(mine):
            # Mostly new: extracted whole, where many such notes (a branch checked out) share two cores.
            rest.append(source)
            continue
        kept = _kept_drafts(mine, changed, earlier)
        if kept is None:  # a stored draft no longer validates (a damaged entry): extract it whole
            rest.append(source)
            continue
        made = {id(x.chunk): x for x in extract(changed, sources)}
        for chunk in mine:
            chunks.append(chunk)
            extractions.append(made.get(id(chunk)) or kept[id(chunk)])
    return chunks, extractions, rest


def _kept_drafts(
    chunks: Sequence[Chunk], changed: Sequence[Chunk], earlier: Earlier
) -> dict[int, Extraction] | None:
    """The unchanged chunks' extractions from their stored drafts, validated again; None if one fails."""
    fresh = {id(chunk) for chunk in changed}
    kept = {}
    for chunk in chunks:
        if id(chunk) not in fresh:
            draft, extractor, dropped = earlier.drafts[chunk_reuse_key(chunk)]
            try:
                kept[id(chunk)] = Extraction(chunk, Draft.model_validate(draft), extractor, dropped)
            except ValueError:  # pydantic's ValidationError is one
                return None
    return kept
