"""Write Obsidian properties (YAML frontmatter) deterministically, in a fixed key order."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from datetime import date

# A plain (unquoted) YAML scalar is safe only when it cannot be read as anything but this string.
_PLAIN_SAFE = re.compile(r"^[^\s\-?:,\[\]{}#&*!|>'\"%@`][^\n:#]*(?<![\s])$")
_LOOKS_TYPED = re.compile(
    r"^(?:[-+]?(?:\d[\d_]*)?\.?\d+(?:[eE][-+]?\d+)?|0x[0-9a-fA-F]+|0o[0-7]+|\d{4}-\d{2}-\d{2}.*|"
    r"~|null|Null|NULL|true|True|TRUE|false|False|FALSE|yes|Yes|YES|no|No|NO|on|On|ON|off|Off|OFF|y|Y|n|N|"
    r"[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)|[\d:.]+)$"
)

PropertyValue = str | int | float | date | Sequence[str] | None


def scalar(value: str | int | float | date) -> str:
    """Render one scalar: dates as YYYY-MM-DD, numbers as is, strings plain or double-quoted."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, int | float):
        return repr(value)
    text = " ".join(value.split())
    if _PLAIN_SAFE.match(text) and not _LOOKS_TYPED.match(text) and "[[" not in text:
        return text
    return json.dumps(text, ensure_ascii=False)


def render_properties(properties: Mapping[str, PropertyValue]) -> str:
    """Render a frontmatter block: keys in the given order, None omitted, lists as block lists."""
    lines = ["---"]
    for key, value in properties.items():
        if value is None:
            continue
        if isinstance(value, list | tuple):
            if not value:
                lines.append(f"{key}: []")
                continue
            lines.append(f"{key}:")
            lines.extend(f"  - {scalar(item)}" for item in value)
        else:
            assert isinstance(value, str | int | float | date)
            lines.append(f"{key}: {scalar(value)}")
    lines.append("---")
    return "\n".join(lines) + "\n"
