"""Rendering on two cores: a forked helper renders the last pages while this process renders the first.

The write stage reads pages in path order, so this process renders the first part while the
helper renders the rest, which is ready (compressed, to bound memory) by the time the writer
reaches it. A page is the same text whichever process renders it; if the helper fails, this
process renders its pages too.
"""

from __future__ import annotations

import pickle
import zlib
from collections.abc import Callable, Iterator, Mapping

from kgvault import forking
from kgvault.write import sha256

MIN_PAGES = 2_000
"""Below this many pages, forking costs more than it saves."""
MAX_PAGES = 200_000
"""Above this many, the helper's pages would wait in memory too long (render them here, lazily)."""
HELPER_SHARE = 0.35
"""The helper's share of the pages: it also compresses and pickles them and shares its core with the
index helper, while this process mostly finds its pages unchanged. At 2,000 notes (RAM disk) a half
share kept this process waiting 0.2-0.4 s for the helper's pages; 0.3-0.35 left it waiting none,
and writing took 0.1-0.15 s less in a clean build and in a one-note edit. Handing back only the
digests of unchanged pages did not move that: in a one-note edit, a share of 0.5 still kept this
process waiting up to 0.13 s (the helper pays copy-on-write faults for every object it touches)."""


class SharedPages(Mapping[str, str]):
    """Pages by path, the last ones rendered by a helper; read in path order, as the writer does.

    The helper hands back each page's digest, and its text only when the digest is not the one
    the vault's manifest records (`known`): a rebuild's unchanged pages cross as digests alone,
    which the writer takes for an unchanged page without its text (`known_digest`).
    """

    def __init__(self, pages: Mapping[str, str], known: Mapping[str, str], paths: list[str]) -> None:
        self._pages = pages
        self._known_here = _known_digest(pages)
        self._theirs = frozenset(paths[len(paths) - round(len(paths) * HELPER_SHARE) :])
        theirs = [path for path in paths if path in self._theirs]
        self._answer: forking.Answer | None = forking.ask(lambda: _rendered(pages, theirs, known))
        self._rendered: dict[str, tuple[str, bytes | None]] = {}
        """What the helper handed back, once waited for (`_received`)."""

    @classmethod
    def of(cls, pages: Mapping[str, str], known: Mapping[str, str]) -> Mapping[str, str]:
        """The pages, shared with a helper when there are enough of them and forking is safe;
        `known` is each page's digest as the manifest records it (empty for a new vault)."""
        known_here = _known_digest(pages)
        # Only pages to be rendered are shared out: not those `pages` knows the digest of.
        paths = sorted(path for path in pages if known_here is None or known_here(path) is None)
        if not MIN_PAGES <= len(paths) <= MAX_PAGES or not forking.can_fork():
            return pages
        return cls(pages, known, paths)

    def known_digest(self, path: str) -> str | None:
        """The digest of the page's text when the helper rendered it, or `pages` knows it; None
        otherwise (or the helper failed)."""
        if path not in self._theirs:
            return self._known_here(path) if self._known_here is not None else None
        entry = self._received().get(path)
        return entry[0] if entry is not None else None

    def __getitem__(self, path: str) -> str:
        if path not in self._theirs:
            return self._pages[path]
        entry = self._received().pop(path, None)
        if entry is None or entry[1] is None:
            # The helper failed, or this page was read before, or only its digest came: render it here.
            return self._pages[path]
        return zlib.decompress(entry[1]).decode("utf-8", "surrogatepass")

    def _received(self) -> dict[str, tuple[str, bytes | None]]:
        """What the helper handed back (waited for the first time): nothing when it failed."""
        if self._answer is not None:
            payload, self._answer = self._answer.get(), None
            self._rendered = (_unpickled(payload) if payload is not None else None) or {}
        return self._rendered

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


def _known_digest(pages: Mapping[str, str]) -> Callable[[str], str | None] | None:
    """The pages' own `known_digest` (see `render.Pages`), if they have one."""
    known: Callable[[str], str | None] | None = getattr(pages, "known_digest", None)
    return known


def _rendered(pages: Mapping[str, str], paths: list[str], known: Mapping[str, str]) -> bytes:
    """The helper's work: each of its pages rendered, its digest, and its text compressed unless the
    digest is the known one; pickled to be handed back."""
    rendered: dict[str, tuple[str, bytes | None]] = {}
    for path in paths:
        text = pages[path]
        digest = sha256(text)
        same = known.get(path) == digest
        rendered[path] = (digest, None if same else zlib.compress(text.encode("utf-8", "surrogatepass"), 1))
    return pickle.dumps(rendered, protocol=pickle.HIGHEST_PROTOCOL)


def _unpickled(payload: bytes) -> dict[str, tuple[str, bytes | None]] | None:
    try:
        rendered = pickle.loads(payload)
    except Exception:  # a helper that died half-way leaves a truncated pickle
        return None
    return rendered if isinstance(rendered, dict) else None
