"""Write Obsidian properties (YAML frontmatter) deterministically, in a fixed key order."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from datetime import date
from functools import lru_cache

import yaml

# A plain (unquoted) scalar must not start with a YAML indicator nor contain `: ` / ` #` sequences.
_PLAIN_SAFE = re.compile(r"^[^\s\-?:,\[\]{}#&*!|>'\"%@`=<][^\n:#]*(?<![\s])$")
# Characters YAML cannot carry even quoted: C0/C1 controls (but tab), surrogates, non-characters.
_UNPRINTABLE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")
# What a JSON string may hold raw but YAML may not: C1 controls and DEL, YAML 1.1's other line breaks
# (NEL, U+2028, U+2029), a byte-order mark, surrogates and non-characters.
_UNSAFE_IN_QUOTES = re.compile("[\x7f-\x9f\u2028\u2029\ufeff\ud800-\udfff\ufffe\uffff]")
_STR_TAG = "tag:yaml.org,2002:str"
_RESOLVER = yaml.resolver.Resolver()

PropertyValue = str | int | float | date | Sequence[str] | None

PATH_PROPERTIES = frozenset({"source_document", "sources"})
"""Properties whose values name files of the notes (`a.md`, `a.md#L3-L5`): written verbatim, never cleaned."""


def _stays_text(text: str) -> bool:
    """Whether YAML reads this plain scalar back as a string (not a number, bool, null, date, merge).

    PyYAML speaks YAML 1.1; Obsidian's parser and other tools speak 1.2, whose numbers (`1e3`,
    `08`, `0o17`) PyYAML reads as text: a scalar is plain only when neither reads it otherwise.
    """
    if _YAML12_NUMBER.match(text):
        return False
    tag: str = _RESOLVER.resolve(yaml.ScalarNode, text, (True, False))  # type: ignore[no-untyped-call]
    return tag == _STR_TAG


_YAML12_NUMBER = re.compile(
    r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$|0o[0-7]+$|0x[0-9a-fA-F]+$"
    r"|[-+]?\.(?:inf|Inf|INF)$|\.(?:nan|NaN|NAN)$"
)


def clean_body(value: str) -> str:
    """Multi-line text without the characters YAML and editors choke on (tabs and newlines stay)."""
    return _UNPRINTABLE.sub("", value)


def clean_text(value: str) -> str:
    """One line of printable text: whitespace runs collapsed, characters YAML cannot hold removed."""
    # Most text is clean already (a build asks 100,000 times): printable text holds no whitespace but
    # the ASCII space and nothing `_UNPRINTABLE` matches, so single inner spaces mean nothing to do.
    if value.isprintable() and "  " not in value and value[:1] != " " and value[-1:] != " ":
        return value
    return " ".join(_UNPRINTABLE.sub("", " ".join(value.split())).split())


def plain_text(value: str) -> str:
    """A title, name or statement as one plain line: `[[x]]` in it (bash's `[[ -f x ]]`, a draft's
    words) would be a wikilink to nothing, so its brackets are made single."""
    text = clean_text(value)
    while "[[" in text or "]]" in text:  # `[[[[x]]]]` is `[[x]]` after one pass
        text = text.replace("[[", "[").replace("]]", "]")
    return text


# typed: True, 1 and 1.0 are equal keys, but not the same property value.
@lru_cache(maxsize=1 << 16, typed=True)
def scalar(value: str | int | float | date) -> str:
    """Render one scalar: dates as YYYY-MM-DD, numbers as is, strings plain or double-quoted."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"cannot write {value!r} as a property")
        # Positional notation: PyYAML reads `1e-05` back as a string.
        return repr(value) if "e" not in repr(value) else f"{value:.15f}".rstrip("0")
    text = clean_text(value)
    if _PLAIN_SAFE.match(text) and "[[" not in text and _stays_text(text):
        return text
    return json.dumps(text, ensure_ascii=False)


@lru_cache(maxsize=1 << 16)
def path_scalar(path: str) -> str:
    """Render a path so that YAML reads back exactly it, escaping what `scalar` would clean away."""
    # Cleaning a path of its tabs, controls or repeated spaces would leave it naming no file.
    if clean_text(path) == path:
        return scalar(path)
    return _UNSAFE_IN_QUOTES.sub(lambda m: f"\\u{ord(m.group()):04x}", json.dumps(path, ensure_ascii=False))


def _any_scalar(value: str | int | float | date) -> str:
    """A path property's value: a path verbatim, anything else (never written today) as a scalar."""
    return path_scalar(value) if isinstance(value, str) else scalar(value)


def render_properties(properties: Mapping[str, PropertyValue]) -> str:
    """Render a frontmatter block: keys in the given order, None omitted, lists as block lists."""
    lines = ["---"]
    for name, value in properties.items():
        if value is None:
            continue
        key = scalar(name)
        write = _any_scalar if name in PATH_PROPERTIES else scalar
        if isinstance(value, list | tuple):
            if not value:
                lines.append(f"{key}: []")
                continue
            lines.append(f"{key}:")
            lines.extend(f"  - {write(item)}" for item in value)
        else:
            assert isinstance(value, str | int | float | date)
            lines.append(f"{key}: {write(value)}")
    lines.append("---")
    return "\n".join(lines) + "\n"
