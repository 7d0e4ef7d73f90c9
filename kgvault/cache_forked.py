"""The extraction cache encoded on the other core while this process runs pass 2.

After extraction, a clean build has thousands of cache entries to encode, and pass 2 uses one
core: a forked helper encodes them meanwhile, from its copy of the drafts, then waits. Once the
vault is written, this process tells it to store them and waits for the search index helper
meanwhile; a build that fails tells it to stop, and nothing is stored, as before. If the helper
fails before its entries are ready, this process encodes them itself and stores them; one that
fails while storing leaves the cache short of some entries, which only makes the next build slower.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from kgvault import forking
from kgvault.cache import ExtractionCache
from kgvault.extract import Extraction
from kgvault.extract.offline import chunk_context
from kgvault.records import Chunk, Source

MIN_ENTRIES = 256
"""Below this many entries to store, forking costs more than it saves."""

ToStore = tuple[str, Source, list[Chunk], list[Extraction]]
"""An entry to store: its key, its note, and the note's chunks and extractions."""


def encode_entries(
    cache: ExtractionCache, entries: Sequence[ToStore], shipped: Mapping[str, bytes]
) -> dict[str, bytes]:
    """Each entry's bytes as the cache keeps them, by key (`shipped` are some already encoded, by path)."""
    encoded = {}
    for key, source, chunks, extractions in entries:
        made = shipped.get(source.path)
        # A helper's entry holds its context already: the note's language was detected there.
        context = chunk_context(source) if made is None else ""
        data = cache.encode(chunks, extractions, made, context)
        if data is not None:  # None: the entry must not be kept
            encoded[key] = data
    return encoded


def start(
    cache: ExtractionCache, entries: Sequence[ToStore], shipped: Mapping[str, bytes]
) -> forking.Helper | None:
    """A helper encoding the entries, then storing them when told to go; None when not worth a fork."""
    if not cache.enabled or len(entries) < MIN_ENTRIES or not forking.can_fork():
        return None
    return forking.Helper.start(lambda go: _encode_then_store(cache, entries, shipped, go))


def _encode_then_store(
    cache: ExtractionCache, entries: Sequence[ToStore], shipped: Mapping[str, bytes], go: Callable[[], bool]
) -> None:
    encoded = encode_entries(cache, entries, shipped)
    if go():
        for key, data in encoded.items():
            cache.store(key, data)
