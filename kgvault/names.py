"""Ids and file names: deterministic, safe on every file system, unique after casefold."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Iterable, Mapping
from datetime import date
from functools import lru_cache

from kgvault.secrets import mask_secrets

MAX_NAME_BYTES = 200
MAX_NODE_ID_CHARS = 80
RESERVED_IDS = frozenset({"index", "ontology"})
_WINDOWS_RESERVED = frozenset(
    {"con", "prn", "aux", "nul", *(f"com{i}" for i in range(1, 10)), *(f"lpt{i}" for i in range(1, 10))}
)


_VARIATION_SELECTOR = re.compile("[\ufe00-\ufe0f\U000e0100-\U000e01ef\u180b-\u180d\u180f]")


def is_word_char(char: str) -> bool:
    """Letters, combining marks and digits of every script (Devanagari vowel signs are marks, not breaks).

    Not a variation selector (the U+FE0F that makes ❤ an emoji) nor an enclosing mark (a keycap):
    they dress a symbol, and left alone in a name they are invisible.
    """
    category = unicodedata.category(char)
    if category[0] in "LN":
        return True
    return category in ("Mn", "Mc") and not _VARIATION_SELECTOR.match(char)


def _words_only(text: str) -> str:
    """Replace every run of characters that are not letters, marks or digits with one hyphen.

    Invisible format characters (a zero-width space, a soft hyphen) join what they stand between:
    `Zero<ZWSP>Width` is the word a reader sees.
    """
    if text.isascii():
        return _ASCII_SEPARATORS.sub("-", text)
    kept = (c if is_word_char(c) else "" if unicodedata.category(c) == "Cf" else "\x00" for c in text)
    return _SEPARATORS.sub("-", "".join(kept))


_SEPARATORS = re.compile("\x00+")
_ASCII_SEPARATORS = re.compile("[^A-Za-z0-9]+")
_ASCII_WORDS = re.compile("[a-z0-9]+")
_WORD_SYMBOLS = re.compile(r"(?<=\w)[+#]+(?!\w)")
_SYMBOL_WORDS = {"+": "plus", "#": "sharp"}


def short_hash(text: str, length: int = 8) -> str:
    """Return a stable short hex digest of the text."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:length]


def _cut_bytes(text: str, limit: int) -> str:
    """Cut text to at most `limit` UTF-8 bytes without splitting a character."""
    encoded = text.encode("utf-8")
    if len(encoded) <= limit:
        return text
    return encoded[:limit].decode("utf-8", errors="ignore")


def _cut_at_word(slug: str, max_chars: int) -> str:
    """Cut a slug to at most `max_chars` characters, at a hyphen when one is near."""
    if len(slug) <= max_chars:
        return slug
    cut = slug[:max_chars]
    if slug[max_chars] == "-":
        return cut
    boundary = cut.rfind("-")
    return cut[:boundary] if boundary >= max_chars // 2 else cut


def slugify(text: str, *, max_chars: int | None = None) -> str:
    """Turn any text into a kebab-case file-safe id; non-Latin scripts are kept, never transliterated.

    `C++` and `C#` are spelled out (`c-plus-plus`), as names are: they are not `c`'s page.
    """
    # Composed first: in `À#` decomposed, the `#` follows a combining mark, not a letter.
    text = spell_symbols(text if text.isascii() else unicodedata.normalize("NFC", text))
    if text.isascii():  # most titles: one regex pass, the same slug as the general path
        slug = "-".join(_ASCII_WORDS.findall(text.lower()))
        # Short enough to need no cut, and no dot: nothing below would change it.
        if slug and len(slug) <= (max_chars or MAX_NAME_BYTES - 20) and slug not in _WINDOWS_RESERVED:
            return slug
    else:
        # Turkish "İ" folds to "i" and a combining dot, which no letter takes: shown as a stray dot.
        folded = unicodedata.normalize(
            "NFC", unicodedata.normalize("NFC", text).casefold().replace("i\u0307", "i")
        )
        slug = _words_only(folded).strip("-")
    if max_chars is not None:
        slug = _cut_at_word(slug, max_chars).strip("-")
    slug = _cut_bytes(slug, MAX_NAME_BYTES - 20).strip("-")
    if not slug:
        return f"untitled-{short_hash(text)}"
    if slug.split(".")[0] in _WINDOWS_RESERVED:
        slug = f"{slug}-{short_hash(text, 4)}"
    return slug


def node_slug(title: str) -> str:
    """Id of a node: the slug of its title, cut at a word boundary to at most 80 characters."""
    return slugify(title, max_chars=MAX_NODE_ID_CHARS)


def ascii_node_slug(title: str, normalized: str) -> str | None:
    """`node_slug(title)` made from `normalize_name(title)`, for a short ASCII title; else None.

    Both fold an ASCII title into the same words, so its slug is those words joined by hyphens:
    pass 2 has every node title normalized already, and need not read it again.
    """
    if not title.isascii():
        return None
    slug = normalized.replace(" ", "-")
    return slug if slug and len(slug) <= MAX_NODE_ID_CHARS and slug not in _WINDOWS_RESERVED else None


@lru_cache(maxsize=1 << 16)  # asked of every source by every pass 2 of a watch
def summary_slug(source_path: str, conversation: str | None = None) -> str:
    """Id of a summary page: the source path without extension, folders joined by `-`, plus `-summary`.

    A conversation inside an export adds its title: `<file slug>-<conversation title slug>-summary`.
    """
    stem = source_path.rsplit(".", 1)[0] if "." in source_path.rsplit("/", 1)[-1] else source_path
    words = stem.replace("/", " ")
    if conversation is not None:
        words = f"{words} {conversation}"
    return f"{slugify(words)}-summary"


def assign_unique(
    wanted: Mapping[str, str], *, taken: Iterable[str] = (), rank: Mapping[str, int] | None = None
) -> dict[str, str]:
    """Give each key its wanted id, unique after casefold; a collision gets a hash suffix.

    Keys are processed in sorted order of (id, rank, key), so the same inputs always give
    the same ids, whatever order they were built in: the first keeps the plain id, later
    homonyms get `-<hash of their key>`.
    """
    taken_folded = frozenset(name.casefold() for name in taken)
    ranks = rank or {}
    result: dict[str, str] = {}
    # Sort the keys themselves (no key function): each id is folded once, for the order and the check.
    order = sorted([(wanted[k].casefold(), ranks.get(k, 0), k) for k in wanted])
    _assign_in_order(order, wanted, set(taken_folded), taken_folded, result)
    return result


def _assign_in_order(
    order: Iterable[tuple[str, int, str]],
    wanted: Mapping[str, str],
    used: set[str],
    taken: frozenset[str],
    result: dict[str, str],
) -> bool:
    """Give each key of `order` (sorted (folded id, rank, key)) its id in `result`, adding it to `used`.

    Returns whether every collision was with an earlier key of the same id or a taken name: ids a
    later call can redo one family of keys at a time (`UniqueIds.again`).
    """
    within_families = True
    previous = None
    for folded, _, key in order:
        candidate = wanted[key]
        if folded in used:
            if folded != previous and folded not in taken:
                within_families = False  # another id's hash-suffixed form holds this plain id
            base = _cut_bytes(candidate, MAX_NAME_BYTES - 20)
            candidate = f"{base}-{short_hash(key, 6)}"
            length = 6
            while candidate.casefold() in used:
                within_families = False
                length += 2
                candidate = f"{base}-{short_hash(key, length)}"
            used.add(candidate.casefold())
        else:
            used.add(folded)
        result[key] = candidate
        previous = folded
    return within_families


class UniqueIds:
    """`assign_unique`'s ids with what they were made from, so that the next pass, whose keys mostly
    want what they wanted, gives the same ids by redoing only the families (keys wanting one id
    after casefold) where a key came, went or changed its wish."""

    MOST_CHANGED = 0.2
    """Above this share of families touched, redoing them all costs less than finding them."""

    def __init__(
        self,
        wanted: Mapping[str, str],
        *,
        taken: Iterable[str] = (),
        rank: Mapping[str, int] | None = None,
    ) -> None:
        self.wanted = dict(wanted)
        self.rank = dict(rank or {})
        self.taken = frozenset(name.casefold() for name in taken)
        order = sorted([(self.wanted[k].casefold(), self.rank.get(k, 0), k) for k in self.wanted])
        self.families: dict[str, tuple[str, ...]] = _families(order)
        self.ids: dict[str, str] = {}
        self.used = set(self.taken)
        self.by_family = _assign_in_order(order, self.wanted, self.used, self.taken, self.ids)
        """Whether every collision stayed within a family (or met a taken name): then one family can
        be redone alone."""

    def again(
        self,
        wanted: Mapping[str, str],
        *,
        taken: Iterable[str] = (),
        rank: Mapping[str, int] | None = None,
    ) -> UniqueIds:
        """The ids `assign_unique` gives these inputs: this call's, redone where keys changed.

        Leaves this object as it was (a pass that fails later keeps the last one's).
        """
        taken_folded = frozenset(name.casefold() for name in taken)
        ranks = dict(rank or {})
        if not self.by_family or taken_folded != self.taken:
            return UniqueIds(wanted, taken=taken, rank=ranks)
        wanted = dict(wanted)
        changed = {key for key, _ in wanted.items() ^ self.wanted.items()}
        changed.update(key for key, _ in ranks.items() ^ self.rank.items())
        touched = {self.wanted[key].casefold() for key in changed if key in self.wanted}
        touched.update(wanted[key].casefold() for key in changed if key in wanted)
        if len(touched) > len(self.families) * self.MOST_CHANGED:
            return UniqueIds(wanted, taken=taken, rank=ranks)
        families = dict(self.families)
        ids = dict(self.ids)
        used = set(self.used)
        for folded in touched:
            for key in families.pop(folded, ()):
                used.discard(ids.pop(key).casefold())
        order = sorted(
            [(folded, ranks.get(key, 0), key) for key, folded in _members(wanted, touched, self, changed)]
        )
        families.update(_families(order))
        if not _assign_in_order(order, wanted, used, taken_folded, ids):
            # A collision reached beyond its family: the order of all ids decides, as from scratch.
            return UniqueIds(wanted, taken=taken, rank=ranks)
        again = object.__new__(UniqueIds)
        again.wanted, again.rank, again.taken = wanted, ranks, taken_folded
        again.families, again.ids, again.used, again.by_family = families, ids, used, True
        return again


def _families(order: Iterable[tuple[str, int, str]]) -> dict[str, tuple[str, ...]]:
    """The keys of each family (folded id), in the order given."""
    families: dict[str, list[str]] = {}
    for folded, _, key in order:
        families.setdefault(folded, []).append(key)
    return {folded: tuple(keys) for folded, keys in families.items()}


def _members(
    wanted: Mapping[str, str], touched: set[str], last: UniqueIds, changed: set[str]
) -> Iterable[tuple[str, str]]:
    """(key, folded id) of every key now wanting an id of the `touched` families."""
    for folded in touched:
        for key in last.families.get(folded, ()):
            if key not in changed:
                yield key, folded
    for key in changed:
        if key in wanted and (folded := wanted[key].casefold()) in touched:
            yield key, folded


def note_aliases(meta: Mapping[str, object]) -> tuple[str, ...]:
    """A note's other names, from its `aliases` (or `alias`) property: one value or a list of them.

    A date YAML read is written as YYYY-MM-DD, and a wikilink is its display text (`[[Other|Alias]]`
    is `Alias`). A boolean is no name: YAML reads `yes`, `no`, `on` and `off` as ones, and the
    spelling is gone; nor is a mapping.
    """
    value = meta.get("aliases", meta.get("alias"))
    found = []
    for item in value if isinstance(value, list) else [value]:
        if isinstance(item, bool) or not isinstance(item, str | int | float | date):
            continue
        text = item.isoformat()[:10] if isinstance(item, date) else str(item)
        link = _WHOLE_WIKILINK.match(text.strip())
        if link is not None:
            text = link["display"] or link["target"].partition("#")[0].rsplit("/", 1)[-1]
        text = mask_secrets(" ".join(text.split()))[0]  # a name is copied everywhere: never a secret
        if text:
            found.append(text)
    return tuple(found)


_WHOLE_WIKILINK = re.compile(r"\[\[(?P<target>[^\[\]|]*)(?:\|(?P<display>[^\[\]]*))?\]\]\Z")


def spell_symbols(name: str) -> str:
    """C, C++ and C# are three languages: a `+` or `#` ending a word is spelled out ("C plus plus")."""
    if "+" in name or "#" in name:
        return _WORD_SYMBOLS.sub(lambda m: " " + " ".join(_SYMBOL_WORDS[c] for c in m.group()), name)
    return name


@lru_cache(maxsize=1 << 17)
def normalize_name(name: str) -> str:
    """Fold an entity name for matching: NFC, casefold, punctuation and spacing collapsed."""
    name = spell_symbols(name if name.isascii() else unicodedata.normalize("NFC", name))
    if name.isascii():  # most names: one regex pass, same result as the general path
        return " ".join(_ASCII_WORDS.findall(name.lower()))
    folded = unicodedata.normalize("NFC", name).casefold()
    return " ".join(_words_only(folded).replace("-", " ").split())
