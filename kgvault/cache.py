"""The extraction cache: chunks and drafts per source, kept by content: an unchanged note is not re-extracted.

One JSON file per source under `.kgvault/cache/`, named by a hash of everything its chunks
and drafts depend on: the source's path and bytes, the chunk size, and kgvault's own code.
Drafts are validated again on the way in, like any draft. A missing, unreadable or stale
entry is only a miss; entries no build uses any more are pruned. `paths.json` names each
note's entry, so that an edited note can take the drafts of its unchanged chunks from the
entry of its last version (`extract.renew`).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import zlib
from collections.abc import Mapping, Sequence
from datetime import date
from functools import cache
from pathlib import Path
from typing import Any, NamedTuple

from pydantic import BaseModel

from kgvault.extract import Extraction
from kgvault.extract.draft import Draft
from kgvault.layout import STATE_DIR
from kgvault.records import Chunk, Source
from kgvault.secrets import find_secrets
from kgvault.write import atomic_write

CACHE_DIR = f"{STATE_DIR}/cache"
PATHS_FILE = "paths.json"
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


def source_key(source: Source, max_chars: int, user_name: str = "", timezone: str | None = None) -> str:
    """What a source's chunks and drafts depend on, hashed (a chat log's user is named by the settings,
    and the time zone its times are dated in too, as any note's)."""
    user = user_name if source.kind == "chat" else source.writer or ""
    parts = (str(_FORMAT), code_version(), str(max_chars), source.path, source.sha256, user, timezone or "")
    text = "\0".join(parts)
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
        self._paths: dict[str, str] | None = None

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

    def earlier(self, path: str) -> Earlier | None:
        """The drafts of the entry last stored for the note at `path`, by chunk; None when there is none."""
        if not self.enabled:
            return None
        if self._paths is None:
            self._paths = _read_paths(self.folder / PATHS_FILE)
        key = self._paths.get(path)
        if key is None:
            return None
        try:
            data = self._path(key).read_bytes()
            fields = json.loads(data.decode("utf-8"))
            return Earlier(
                str(fields["context"]),
                {
                    reuse_key(
                        chunk["kind"],
                        chunk["sha256"],
                        tuple(chunk["heading_path"]),
                        chunk["line_start"],
                        chunk["line_end"],
                        chunk["reference_time"],
                    ): (item["draft"], str(item["extractor"]), tuple(item["dropped"]))
                    for chunk, item in zip(fields["chunks"], fields["extractions"], strict=True)
                },
            )
        except (OSError, ValueError, KeyError, TypeError):
            return None  # gone, damaged or of an older format: the note is extracted whole

    def encode(
        self,
        chunks: Sequence[Chunk],
        extractions: Sequence[Extraction],
        encoded: bytes | None = None,
        context: str = "",
    ) -> bytes | None:
        """A source's chunks and extractions as an entry's bytes, or None when they must not be kept.

        Encoding is apart from storing so a build can let go of its drafts long before it
        writes anything (see `cache_forked` for who stores an entry, and when). `encoded` is the
        same entry already made by `encode_entry` (by the extraction helper), used as it is;
        `context` is the note's `chunk_context`.
        """
        # The cache holds drafts, as pages do, but no raw note text (a chunk's text is rebuilt from
        # the note) and no secret: a heading that holds one keeps its source out of the cache.
        if not self.enabled or any(find_secrets(" ".join(chunk.heading_path)) for chunk in chunks):
            return None
        return encoded if encoded is not None else encode_entry(chunks, extractions, context)

    def store(self, key: str, entry: bytes) -> None:
        """Keep an encoded entry; a cache that cannot be written is only slower."""
        if not self.enabled:
            return
        with contextlib.suppress(OSError):  # a cache that cannot be written is only slower
            atomic_write(self._path(key), zlib.decompress(entry))

    def prune(self, keys: Mapping[str, str]) -> None:
        """Remove the entries of sources that changed or went away; `keys` are every source's, by path."""
        keep = set(keys.values())
        if self.kept is not None:
            for key in set(self.kept) - keep:
                del self.kept[key]
        if not self.enabled or not self.folder.is_dir():
            return
        for entry in self.folder.glob("*/*.json"):
            if entry.stem not in keep and not entry.is_symlink():
                entry.unlink(missing_ok=True)
        # What a build killed while storing left half-written (every store of this build is done).
        for leftover in self.folder.glob("*/.*.kgvault-tmp"):
            if not leftover.is_symlink():
                leftover.unlink(missing_ok=True)
        paths = {"format": _FORMAT, "code": code_version(), "paths": dict(sorted(keys.items()))}
        with contextlib.suppress(OSError):  # without it, an edited note is only extracted whole
            atomic_write(self.folder / PATHS_FILE, json.dumps(paths, ensure_ascii=False).encode("utf-8"))


def encode_entry(chunks: Sequence[Chunk], extractions: Sequence[Extraction], context: str = "") -> bytes:
    """A source's chunks and extractions as compressed JSON: no note text, which the note gives back.

    `context` is the note's `chunk_context`: its chunks' drafts can be reused under an equal one.
    """
    data = {
        "context": context,
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
    # Parsed and validated in one pass of pydantic's own JSON reader: a fifth faster than json.loads
    # and then validating each draft's dictionaries.
    stored = _Stored.model_validate_json(data)
    lines = source.text.split("\n")
    chunks = [_chunk(chunk_fields, lines, source) for chunk_fields in stored.chunks]
    extractions = [
        Extraction(chunk, item.draft, item.extractor, tuple(item.dropped))
        for chunk, item in zip(chunks, stored.extractions, strict=True)
    ]
    return chunks, extractions


class _StoredExtraction(BaseModel):
    """One chunk's extraction as an entry holds it."""

    draft: Draft
    extractor: str
    dropped: list[str]


class _Stored(BaseModel):
    """An entry as `encode_entry` writes it (the chunks are checked against the note by `_chunk`)."""

    context: str = ""
    chunks: list[dict[str, Any]]
    extractions: list[_StoredExtraction]


class Earlier(NamedTuple):
    """The drafts an entry holds for a note's last version, by `reuse_key`, and its `chunk_context`."""

    context: str
    drafts: dict[ReuseKey, tuple[Any, str, tuple[str, ...]]]
    """Per chunk: the draft as stored (validated when reused), the extractor, the dropped items."""


ReuseKey = tuple[str, str, tuple[str, ...], int, int, str | None]


def reuse_key(
    kind: str, sha256: str, heading_path: tuple[str, ...], line_start: int, line_end: int, when: str | None
) -> ReuseKey:
    """What a chunk's draft depends on of the chunk itself (see `offline.chunk_context` for the rest)."""
    return (kind, sha256, heading_path, line_start, line_end, when)


def chunk_reuse_key(chunk: Chunk) -> ReuseKey:
    """`reuse_key` of a chunk."""
    when = chunk.reference_time.isoformat() if chunk.reference_time else None
    return reuse_key(chunk.kind, chunk.sha256, chunk.heading_path, chunk.line_start, chunk.line_end, when)


def _read_paths(path: Path) -> dict[str, str]:
    """`paths.json`: each note's entry key, when written by this very code; else nothing."""
    try:
        recorded = json.loads(path.read_bytes().decode("utf-8"))
    except (OSError, ValueError):
        return {}
    if (
        not isinstance(recorded, dict)
        or recorded.get("format") != _FORMAT
        or recorded.get("code") != code_version()
    ):
        return {}  # drafts made by other code may differ: nothing of them is reused
    paths = recorded.get("paths")
    return {k: v for k, v in paths.items() if isinstance(v, str)} if isinstance(paths, dict) else {}


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
