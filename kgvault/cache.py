"""The extraction cache: chunks and drafts per source, kept by content: an unchanged note is not re-extracted.

One JSON file per source under `.kgvault/cache/`, named by a hash of everything its chunks
and drafts depend on: the source's path and bytes, the chunk size, and kgvault's own code.
Drafts are validated again on the way in, like any draft. A missing, unreadable or stale
entry is only a miss; entries no build uses any more are pruned.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import zlib
from collections.abc import Sequence
from datetime import date
from functools import cache
from pathlib import Path
from typing import Any

from kgvault.extract import Extraction
from kgvault.extract.draft import Draft
from kgvault.layout import STATE_DIR
from kgvault.records import Chunk, Source
from kgvault.secrets import find_secrets
from kgvault.write import atomic_write

CACHE_DIR = f"{STATE_DIR}/cache"
Entry = tuple[list[Chunk], list[Extraction]]
"""A source's chunks and their extractions, in order."""
_FORMAT = 1
_PACKAGE = Path(__file__).resolve().parent


@cache
def code_version() -> str:
    """A hash of kgvault's own code: a new extractor, chunker or record never reads an old entry."""
    digest = hashlib.sha256()
    for path in sorted(_PACKAGE.rglob("*.py")):
        digest.update(path.relative_to(_PACKAGE).as_posix().encode("utf-8") + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


def source_key(source: Source, max_chars: int, user_name: str = "") -> str:
    """What a source's chunks and drafts depend on, hashed (a chat log's user is named by the settings)."""
    user = user_name if source.kind == "chat" else ""
    text = f"{_FORMAT}\0{code_version()}\0{max_chars}\0{source.path}\0{source.sha256}\0{user}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class ExtractionCache:
    """Chunks and drafts per source key, in the vault's `.kgvault/cache/` (or nowhere when disabled)."""

    def __init__(
        self,
        vault: Path,
        *,
        enabled: bool = True,
        kept: dict[str, tuple[list[Chunk], list[Extraction]]] | None = None,
    ) -> None:
        self.folder = vault / CACHE_DIR
        self.enabled = enabled and not (vault / STATE_DIR).is_symlink() and not self.folder.is_symlink()
        self.kept = kept if self.enabled else None
        """Entries already decoded, by key, that a long-lived process (watch) keeps between builds."""

    def _path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"

    def load(self, key: str, source: Source) -> tuple[list[Chunk], list[Extraction]] | None:
        """The cached chunks and extractions of a source, or None on any miss."""
        if not self.enabled:
            return None
        if self.kept is not None and key in self.kept:
            return self.kept[key]
        try:
            entry = decode_entry(self._path(key).read_bytes(), source)
        except (OSError, ValueError, KeyError, TypeError):
            return None  # not there, or damaged: extract again
        if self.kept is not None:
            self.kept[key] = entry
        return entry

    def encode(
        self, chunks: Sequence[Chunk], extractions: Sequence[Extraction], encoded: bytes | None = None
    ) -> bytes | None:
        """A source's chunks and extractions as an entry's bytes, or None when they must not be kept.

        Encoding is apart from storing so a build can let go of its drafts long before it may
        write anything (an entry is stored only once the vault is written). `encoded` is the
        same entry already made by `encode_entry` (by the extraction helper), used as it is.
        """
        # The cache holds drafts, as pages do, but no raw note text (a chunk's text is rebuilt from
        # the note) and no secret: a heading that holds one keeps its source out of the cache.
        if not self.enabled or any(find_secrets(" ".join(chunk.heading_path)) for chunk in chunks):
            return None
        return encoded if encoded is not None else encode_entry(chunks, extractions)

    def store(self, key: str, entry: bytes) -> None:
        """Keep an encoded entry; a cache that cannot be written is only slower."""
        if not self.enabled:
            return
        with contextlib.suppress(OSError):  # a cache that cannot be written is only slower
            atomic_write(self._path(key), zlib.decompress(entry))

    def prune(self, keep: set[str]) -> None:
        """Remove the entries of sources that changed or went away."""
        if self.kept is not None:
            for key in set(self.kept) - keep:
                del self.kept[key]
        if not self.enabled or not self.folder.is_dir():
            return
        for entry in self.folder.glob("*/*.json"):
            if entry.stem not in keep and not entry.is_symlink():
                entry.unlink(missing_ok=True)


def encode_entry(chunks: Sequence[Chunk], extractions: Sequence[Extraction]) -> bytes:
    """A source's chunks and extractions as compressed JSON: no note text, which the note gives back."""
    data = {
        "chunks": [_chunk_fields(chunk) for chunk in chunks],
        "extractions": [
            {
                "draft": x.draft.model_dump(mode="json", exclude_defaults=True),
                "extractor": x.extractor,
                "dropped": list(x.dropped),
            }
            for x in extractions
        ],
    }
    # Compressed while it waits in memory: a build of 100,000 notes holds one per note.
    return zlib.compress(json.dumps(data, ensure_ascii=False).encode("utf-8"), 1)


def decode_entry(data: bytes, source: Source) -> tuple[list[Chunk], list[Extraction]]:
    """The chunks and extractions an entry holds, compressed or not, drafts validated again.

    Raises ValueError (or KeyError, TypeError) when the entry is damaged or not of this note.
    """
    if data[:1] != b"{":
        try:
            data = zlib.decompress(data)
        except zlib.error as error:
            raise ValueError(f"not an entry: {error}") from error
    fields = json.loads(data.decode("utf-8"))
    lines = source.text.split("\n")
    chunks = [_chunk(chunk_fields, lines, source) for chunk_fields in fields["chunks"]]
    extractions = [
        Extraction(chunk, Draft.model_validate(item["draft"]), item["extractor"], tuple(item["dropped"]))
        for chunk, item in zip(chunks, fields["extractions"], strict=True)
    ]
    return chunks, extractions


def _chunk_fields(chunk: Chunk) -> dict[str, Any]:
    return {
        "source_path": chunk.source_path,
        "index": chunk.index,
        "kind": chunk.kind,
        "heading_path": list(chunk.heading_path),
        "line_start": chunk.line_start,
        "line_end": chunk.line_end,
        "reference_time": chunk.reference_time.isoformat() if chunk.reference_time else None,
        "sha256": chunk.sha256,
    }


def _chunk(fields: dict[str, Any], lines: list[str], source: Source) -> Chunk:
    when = fields["reference_time"]
    start, end = int(fields["line_start"]), int(fields["line_end"])
    text = "\n".join(lines[start - 1 : end])
    if hashlib.sha256(text.encode("utf-8")).hexdigest() != fields["sha256"]:
        raise ValueError("the note does not hold the cached lines")
    return Chunk(
        source_path=str(fields["source_path"]),
        index=int(fields["index"]),
        kind=fields["kind"],
        heading_path=tuple(str(h) for h in fields["heading_path"]),
        line_start=start,
        line_end=end,
        text=text,
        reference_time=date.fromisoformat(when) if when else None,
        sha256=str(fields["sha256"]),
        # A conversation's turns are the source's own, by line: nothing of them is cached.
        turns=tuple(t for t in source.turns if start <= t.line_start <= end),
    )
