"""The one place that builds the Jinja environment: the user's folder first, then ours."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import jinja2

from kgvault.records import Relation


def packaged_templates() -> Path:
    """Locate the shipped templates: inside the wheel, or at the repository root when run from source."""
    here = Path(__file__).resolve().parent
    for candidate in (here / "templates", here.parent / "templates"):
        if (candidate / "node.md.j2").is_file():
            return candidate
    raise FileNotFoundError(f"kgvault's templates are missing (looked in {here / 'templates'})")


@cache
def environment(user_dir: Path | None = None) -> jinja2.Environment:
    """Return a Jinja environment whose loader searches `user_dir` before the packaged templates."""
    search = [str(user_dir)] if user_dir else []
    search.append(str(packaged_templates()))
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(search),
        autoescape=False,  # Markdown, not HTML; values are sanitized in render.py.
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
    )
    env.filters["period"] = period
    return env


def period(relation: Relation) -> str:
    """When a relation held, as a link line ends: " (since 2025-03-12, until 2025-06-02)", or ""."""
    parts = []
    if relation.valid_at:
        parts.append(f"since {relation.valid_at.isoformat()}")
    if relation.invalid_at:
        parts.append(f"until {relation.invalid_at.isoformat()}")
    return f" ({', '.join(parts)})" if parts else ""
