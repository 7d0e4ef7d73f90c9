"""Rendering on two cores: a forked helper renders the last pages while this process renders the first.

The write stage reads pages in path order, so this process renders the first part while the
helper renders the rest, which is ready (compressed, to bound memory) by the time the writer
reaches it. A page is the same text whichever process renders it; if the helper fails, this
process renders its pages too.
"""

from __future__ import annotations

import pickle
import zlib
from collections.abc import Iterator, Mapping

from kgvault import forking

MIN_PAGES = 2_000
"""Below this many pages, forking costs more than it saves."""
MAX_PAGES = 200_000
"""Above this many, the helper's pages would wait in memory too long (render them here, lazily)."""
HELPER_SHARE = 0.35
"""The helper's share of the pages: it also compresses and pickles them and shares its core with the
index helper, while this process mostly finds its pages unchanged. At 2,000 notes (RAM disk) a half
share kept this process waiting 0.2-0.4 s for the helper's pages; 0.3-0.35 left it waiting none,
and writing took 0.1-0.15 s less in a clean build and in a one-note edit."""


class SharedPages(Mapping[str, str]):
    """Pages by path, the last ones rendered by a helper; read in path order, as the writer does."""

    def __init__(self, pages: Mapping[str, str]) -> None:
        self._pages = pages
        paths = sorted(pages)
        self._theirs = frozenset(paths[len(paths) - round(len(paths) * HELPER_SHARE) :])
        theirs = [path for path in paths if path in self._theirs]
        self._answer: forking.Answer | None = forking.ask(lambda: _rendered(pages, theirs))
        self._rendered: dict[str, bytes] | None = None

    @classmethod
    def of(cls, pages: Mapping[str, str]) -> Mapping[str, str]:
        """The pages, shared with a helper when there are enough of them and forking is safe."""
        if not MIN_PAGES <= len(pages) <= MAX_PAGES or not forking.can_fork():
            return pages
        return cls(pages)

    def __getitem__(self, path: str) -> str:
        if path not in self._theirs:
            return self._pages[path]
        if self._answer is not None:
            payload, self._answer = self._answer.get(), None
            self._rendered = _unpickled(payload) if payload is not None else None
        compressed = self._rendered.pop(path, None) if self._rendered is not None else None
        if compressed is None:  # the helper failed, or this page was read before: render it here
            return self._pages[path]
        return zlib.decompress(compressed).decode("utf-8", "surrogatepass")

    def close(self) -> None:
        """Let the helper go if its pages will not be read (the write stopped half-way)."""
        if self._answer is not None:
            self._answer.drop()
            self._answer = None

    def __contains__(self, path: object) -> bool:
        return path in self._pages

    def __iter__(self) -> Iterator[str]:
        return iter(self._pages)

    def __len__(self) -> int:
        return len(self._pages)


def _rendered(pages: Mapping[str, str], paths: list[str]) -> bytes:
    """The helper's work: each of its pages rendered and compressed, pickled to be handed back."""
    return pickle.dumps(
        {path: zlib.compress(pages[path].encode("utf-8", "surrogatepass"), 1) for path in paths},
        protocol=pickle.HIGHEST_PROTOCOL,
    )


def _unpickled(payload: bytes) -> dict[str, bytes] | None:
    try:
        rendered = pickle.loads(payload)
    except Exception:  # a helper that died half-way leaves a truncated pickle
        return None
    return rendered if isinstance(rendered, dict) else None
