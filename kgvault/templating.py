"""The one place that builds the Jinja environment: the user's folder first, then ours."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

import jinja2
import jinja2.runtime

from kgvault.layout import packaged_templates
from kgvault.records import Relation

F = TypeVar("F", bound=Callable[..., Any])


def direct_call(function: F) -> F:
    """Mark a helper templates call that takes no Jinja context: it is called straight away."""
    function._kgvault_direct = True  # type: ignore[attr-defined]
    return function


class _Context(jinja2.runtime.Context):
    """A template context that calls helpers marked `direct_call` without Jinja's checks."""

    # Jinja looks for context-passing markers on every call (about 1.5 µs each): a vault of 2,000
    # notes makes 150,000 link calls. Everything else goes through Jinja's own `call`.
    def call(__self, __obj: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        if getattr(__obj, "_kgvault_direct", False):
            # Jinja hands a loop's variables to helpers that take a context; ours take none.
            kwargs.pop("_loop_vars", None)
            kwargs.pop("_block_vars", None)
            return __obj(*args, **kwargs)
        return super().call(__obj, *args, **kwargs)


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
    env.context_class = _Context
    env.filters["period"] = period
    return env


_REFERENCE = re.compile(r"""\{%-?\s*(?:include|import|from|extends)\s+["']([^"']+)["']""")


def unused_templates(user_dir: Path) -> list[str]:
    """The user's template files that override none of ours and no other template uses: a
    misspelled name (`nodes.md.j2`) changes nothing, and would go unnoticed."""
    ours = {path.relative_to(packaged_templates()).as_posix() for path in packaged_templates().rglob("*.j2")}
    theirs = {path.relative_to(user_dir).as_posix(): path for path in sorted(user_dir.rglob("*.j2"))}
    used: set[str] = set()
    for path in theirs.values():
        try:
            used.update(_REFERENCE.findall(path.read_text("utf-8", errors="replace")))
        except OSError:
            continue
    return [name for name in theirs if name not in ours and name not in used]


def load(env: jinja2.Environment, name: str) -> jinja2.Template:
    """Look a template up; one that is no UTF-8 text is a template error naming it."""
    try:
        return env.get_template(name)
    except UnicodeDecodeError as error:
        raise jinja2.TemplateError(f"{name} is not UTF-8 text (byte {error.start} cannot be read)") from error


class TemplateFailure(jinja2.TemplateRuntimeError):
    """A user's template failed while rendering; `template` names it."""

    def __init__(self, template: str, message: str) -> None:
        super().__init__(message)
        self.template = template

    def __reduce__(self) -> tuple[type[TemplateFailure], tuple[str, str]]:
        return type(self), (self.template, str(self))  # whole across a pickle, as exceptions go


def render_template(template: jinja2.Template, **values: Any) -> str:
    """Render a template; what a user's template raises (`{{ 1/0 }}`, a name it does not know) is a
    `TemplateFailure` naming it.

    An error in a packaged template is kgvault's own bug, and goes up as it is.
    """
    try:
        return template.render(**values)
    except jinja2.TemplateSyntaxError:
        raise  # it names its template and line itself
    except Exception as error:
        filename = Path(template.filename or "")
        if filename.is_relative_to(packaged_templates()):  # `prompts/` too
            raise
        # Jinja's own errors say what they are ("'x' is undefined"); Python's need their kind.
        said = str(error) if isinstance(error, jinja2.TemplateError) else f"{type(error).__name__}: {error}"
        raise TemplateFailure(filename.name or template.name or "a template", said) from error


def period(relation: Relation) -> str:
    """When a relation held, as a link line ends: " (since 2025-03-12, until 2025-06-02)", or ""."""
    parts = []
    if relation.valid_at:
        parts.append(f"since {relation.valid_at.isoformat()}")
    if relation.invalid_at:
        parts.append(f"until {relation.invalid_at.isoformat()}")
    return f" ({', '.join(parts)})" if parts else ""
