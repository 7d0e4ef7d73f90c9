"""The extraction prompt, the draft schema, and an agent skill that carries a vault's ontology.

`kgvault prompt` prints the rules every extractor follows (`templates/prompts/extract.md.j2`, the
same template an LLM extractor renders with a chunk); `--schema` the draft's JSON schema; `--skill`
writes a `SKILL.md` for one vault: the rules, the schema, and the names already in use there, so an
agent reuses them instead of inventing near-duplicates. Only the vault's pages are read (their
frontmatter, safely) and `relations.jsonl`; nothing of the build pipeline is imported.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kgvault.layout import FOLDERS, MANIFEST, STATE_DIR
from kgvault.templating import environment, load, render_template

SCHEMA_VERSION = "kgvault.draft/1"
"""The draft format the prompt asks for (kgvault.extract.draft.SCHEMA_VERSION, kept here so the plain
prompt needs no pydantic)."""
ENTITY_LIMIT = 200
"""Entities listed in a skill: the most cited ones (by number of sources)."""
TAG_LIMIT = 100
"""Tags listed in a skill: the most used ones, with their ancestors."""
SKILL_FILE = "SKILL.md"
DEFAULT_SKILL_NAME = "kgvault-drafts"
_FRONTMATTER = re.compile(r"\A---\r?\n(.*?\r?\n)?---\r?\n", re.DOTALL)
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")


class PromptError(ValueError):
    """A prompt or skill cannot be made; the message says what to do."""


class NotAVaultError(PromptError):
    """The folder is not a vault kgvault built."""


@dataclass(frozen=True, slots=True)
class PromptChunk:
    """The chunk an LLM extractor appends to the prompt."""

    source_description: str
    """Notes path and lines: `printing/journal.md lines 12-14`."""
    reference_time: str | None
    """`YYYY-MM-DD` (or with a time of day) the chunk was written or said, when known."""
    text: str
    """The chunk's text, as in the note."""

    @property
    def fence(self) -> str:
        """A code fence longer than any run of backticks in the text, so the text cannot close it."""
        longest = max((len(run) for run in re.findall(r"`+", self.text)), default=0)
        return "`" * max(3, longest + 1)


@dataclass(frozen=True, slots=True)
class ChunkMessage:
    """What a model is sent about one chunk: where it is from, when, who speaks, its numbered lines."""

    source_description: str
    reference_time: str | None
    speakers: tuple[str, ...]
    lines: tuple[tuple[int, str], ...]
    """(line number, text) of each line sent: line numbers point into the note, quotes leave them out."""

    @property
    def fence(self) -> str:
        """A code fence longer than any run of backticks in the lines."""
        longest = max((len(run) for _, text in self.lines for run in re.findall(r"`+", text)), default=0)
        return "`" * max(3, longest + 1)


def chunk_message(chunk: ChunkMessage, *, templates: Path | None = None) -> str:
    """The user message of an extraction request: the chunk, numbered, with its time and speakers."""
    return _render("prompts/chunk.md.j2", templates, chunk=chunk)


def system_prompt(ontology: Ontology | None, *, templates: Path | None = None) -> str:
    """The system message of an extraction request: the rules `kgvault prompt` prints, and the ontology."""
    rules = extraction_prompt(templates=templates)
    if ontology is None or not (ontology.entities or ontology.predicates or ontology.tags):
        return rules
    names = _render("prompts/ontology.md.j2", templates, ontology=ontology)
    return f"{rules.rstrip()}\n\n{names.strip()}\n"


def prompt_version(templates: Path | None = None) -> str:
    """A hash of the prompt templates in use (the user's first): a new prompt never reads an old answer."""
    import hashlib

    env = environment(templates)
    digest = hashlib.sha256()
    for name in ("prompts/extract.md.j2", "prompts/chunk.md.j2"):
        assert env.loader is not None
        source, _, _ = env.loader.get_source(env, name)
        digest.update(source.encode("utf-8") + b"\0")
    return digest.hexdigest()[:16]


def ontology_or_none(vault: Path, *, private: frozenset[str] = frozenset()) -> Ontology | None:
    """The ontology of a vault built before (without what `private` sources alone gave), or None."""
    try:
        return read_ontology(vault, private=private)
    except PromptError:
        return None


def extraction_prompt(chunk: PromptChunk | None = None, *, templates: Path | None = None) -> str:
    """Render the extraction instructions, followed by `chunk` when one is given."""
    return _render("prompts/extract.md.j2", templates, schema_version=SCHEMA_VERSION, chunk=chunk)


def draft_schema() -> str:
    """The JSON schema of a draft, deterministic: sorted keys, indented by 2."""
    from kgvault.extract.draft import Draft

    return json.dumps(Draft.model_json_schema(), sort_keys=True, indent=2, ensure_ascii=False)


# --- the ontology of a built vault -----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class EntityName:
    """An entity as an agent should name it."""

    title: str
    entity_type: str
    aliases: tuple[str, ...]
    sources: int
    """How many source ranges cite it: what ranks it among the entities listed."""


@dataclass(frozen=True, slots=True)
class Predicate:
    """A predicate in use: its code, its label and how many relations use it."""

    code: str
    label: str
    count: int


@dataclass(frozen=True, slots=True)
class TagLine:
    """One line of the tag tree: a full tag path, its depth, and how many nodes carry it or a child."""

    path: str
    depth: int
    count: int


@dataclass(frozen=True, slots=True)
class Ontology:
    """The names in use in a vault, capped for a prompt, with how many were left out."""

    entities: tuple[EntityName, ...]
    entities_left_out: int
    entity_types: tuple[tuple[str, int], ...]
    predicates: tuple[Predicate, ...]
    tags: tuple[TagLine, ...]
    tags_left_out: int


def read_ontology(vault: Path, *, private: frozenset[str] = frozenset()) -> Ontology:
    """Read the entity names, types, predicates and tags of a built vault from its own files.

    Names and tags that only `private` sources (notes paths kept from the model) gave are left out,
    and so are the tags of confidential nodes.
    """
    check_vault(vault)
    owned = _owned_pages(vault)
    entities = [
        e
        for fm in _frontmatters(vault, owned, "entity")
        if (e := _entity(fm)) is not None and not (private and _only_private(fm.get("sources"), private))
    ]
    ranked = sorted(entities, key=lambda e: (-e.sources, e.title.casefold(), e.title))
    listed = sorted(ranked[:ENTITY_LIMIT], key=lambda e: (e.title.casefold(), e.title))
    types = Counter(e.entity_type for e in entities)
    summaries = (
        {str(fm.get("id")): str(fm.get("source_document")) for fm in _frontmatters(vault, owned, "summary")}
        if private
        else {}
    )
    node_tags = [
        _strings(fm.get("tags"))
        for layer in ("episodic", "semantic")
        for fm in _frontmatters(vault, owned, layer)
        if not (private and _private_node(fm, summaries, private))
    ]
    tags, tags_left_out = _tag_tree(node_tags)
    return Ontology(
        entities=tuple(listed),
        entities_left_out=len(entities) - len(listed),
        entity_types=tuple(sorted(types.items(), key=lambda item: (-item[1], item[0]))),
        predicates=_predicates(vault / "relations.jsonl"),
        tags=tags,
        tags_left_out=tags_left_out,
    )


def check_vault(vault: Path) -> None:
    """Raise NotAVaultError, saying what to do, unless `vault` is a vault kgvault built."""
    if not vault.is_dir():
        raise NotAVaultError(
            f"{vault} does not exist: build a vault first (kgvault build NOTES -o {vault}) or pass --vault"
        )
    if not (vault / MANIFEST).is_file():
        raise NotAVaultError(
            f"{vault} is not a kgvault vault (it has no {MANIFEST}): build it first with "
            f"kgvault build NOTES -o {vault}, or pass --vault with the folder kgvault built"
        )


def _owned_pages(vault: Path) -> set[str]:
    """The pages kgvault wrote, by vault-relative path: a page a user keeps in those folders is not read."""
    from kgvault.write import read_manifest

    return set(read_manifest(vault))


def _frontmatters(vault: Path, owned: set[str], kind: str) -> Iterator[dict[str, Any]]:
    """The frontmatter of every page of one kind kgvault owns, in path order; unreadable ones are skipped."""
    import yaml

    loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # safe either way; C is faster
    prefix = f"{FOLDERS[kind]}/"
    pages = (p for p in owned if p.startswith(prefix) and p.endswith(".md") and "/" not in p[len(prefix) :])
    for rel in sorted(pages):
        try:
            text = (vault / rel).read_text("utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        match = _FRONTMATTER.match(text)
        if match is None:
            continue
        try:
            data = yaml.load(match.group(1) or "", Loader=loader)
        except yaml.YAMLError:
            continue
        if isinstance(data, dict):
            yield data


def _entity(fm: dict[str, Any]) -> EntityName | None:
    """The entity a page's frontmatter describes, or None when it is no entity page."""
    title = fm.get("title")
    if fm.get("type") != "entity" or title is None or not str(title).strip():
        return None
    sources = fm.get("sources")
    return EntityName(
        title=str(title).strip(),
        entity_type=str(fm.get("entity_type") or "concept"),
        aliases=tuple(_strings(fm.get("aliases"))),
        sources=len(sources) if isinstance(sources, list) else 0,
    )


def _only_private(sources: object, private: frozenset[str]) -> bool:
    """Whether every `path#…` reference of an entity comes from a private source."""
    paths = (
        {str(ref).rpartition("#")[0] or str(ref) for ref in sources} if isinstance(sources, list) else set()
    )
    return bool(paths) and paths <= private


def _private_node(fm: dict[str, Any], summaries: dict[str, str], private: frozenset[str]) -> bool:
    """Whether a node is confidential or was said by a private source only."""
    if fm.get("sensitivity") == "confidential":
        return True
    link = re.match(r"\[\[(?:[^\]|]*/)?([^\]|/]+)\|", str(fm.get("source_input") or ""))
    return link is not None and summaries.get(link.group(1)) in private


def _strings(value: object) -> list[str]:
    """A frontmatter list as non-empty strings (anything else: empty)."""
    if not isinstance(value, list):
        return []
    return [str(item).strip() for item in value if item is not None and str(item).strip()]


def _predicates(path: Path) -> tuple[Predicate, ...]:
    """Every predicate of `relations.jsonl` with its label (the most used one) and count."""
    counts: Counter[str] = Counter()
    labels: dict[str, Counter[str]] = {}
    try:
        lines = path.read_text("utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return ()
    for line in lines:
        try:
            edge = json.loads(line)
        except ValueError:
            continue
        code = edge.get("relation") if isinstance(edge, dict) else None
        if not isinstance(code, str) or not code:
            continue
        counts[code] += 1
        label = edge.get("label")
        labels.setdefault(code, Counter())[label if isinstance(label, str) and label else code] += 1
    return tuple(
        Predicate(code, min(labels[code].items(), key=lambda item: (-item[1], item[0]))[0], count)
        for code, count in sorted(counts.items())
    )


def _tag_tree(node_tags: list[list[str]]) -> tuple[tuple[TagLine, ...], int]:
    """The most used tags (with their ancestors) as a tree in path order, and how many were left out.

    A tag counts the nodes that carry it or one of its descendants, as in `ontology.md`.
    """
    counts: Counter[str] = Counter()
    for tags in node_tags:
        counts.update({path for tag in tags for path in _with_ancestors(tag.strip("/"))})
    top = sorted(counts, key=lambda path: (-counts[path], path))[:TAG_LIMIT]
    shown = {path for tag in top for path in _with_ancestors(tag)}
    lines = tuple(
        TagLine(path, path.count("/"), counts[path]) for path in sorted(shown, key=lambda p: p.split("/"))
    )
    return lines, len(counts) - len(shown)


def _with_ancestors(tag: str) -> list[str]:
    """A tag path and every path above it: `a/b/c` → `a`, `a/b`, `a/b/c`."""
    parts = tag.split("/")
    return ["/".join(parts[: depth + 1]) for depth in range(len(parts))]


# --- the skill ---------------------------------------------------------------------------------


def write_skill(vault: Path, skill_dir: Path, *, templates: Path | None = None) -> tuple[Path, Ontology]:
    """Write `skill_dir/SKILL.md` for `vault` (atomically); return its path and the ontology it lists."""
    from kgvault.write import atomic_write

    ontology = read_ontology(vault)
    text = render_skill(vault, skill_dir, ontology, templates=templates)
    target = skill_dir / SKILL_FILE
    atomic_write(target, text.encode("utf-8"))
    return target, ontology


def render_skill(vault: Path, skill_dir: Path, ontology: Ontology, *, templates: Path | None = None) -> str:
    """Render `SKILL.md`: frontmatter, workflow, rules, the vault's ontology, the draft schema."""
    import yaml

    vault = vault.resolve()
    description = (
        f"Turn notes, conversations and documents into kgvault drafts ({SCHEMA_VERSION}) for the "
        f"knowledge-graph vault {vault.name!r} and hand them to kgvault. Use when asked to remember, "
        "extract or file events, decisions, facts, people or projects into that vault."
    )
    frontmatter = yaml.safe_dump(
        {"name": skill_name(skill_dir), "description": description},
        sort_keys=False,
        allow_unicode=True,
        width=1_000_000,
    )
    return _render(
        "prompts/skill.md.j2",
        templates,
        frontmatter=frontmatter,
        vault=vault.as_posix(),
        notes=_notes_root(vault),
        instructions=_demote_headings(extraction_prompt(templates=templates)).strip(),
        schema=draft_schema(),
        ontology=ontology,
    )


def _render(name: str, templates: Path | None, **context: object) -> str:
    """Render one template, the user's version first; a broken one is a PromptError naming it."""
    import jinja2

    try:
        return render_template(load(environment(templates), name), **context)
    except jinja2.TemplateError as error:
        raise PromptError(
            f"cannot render {name}: {error.message or error}; fix the template or remove it"
        ) from error


def skill_name(skill_dir: Path) -> str:
    """The skill's name: its folder's name as the Agent Skills format wants it (a-z, 0-9, single `-`)."""
    slug = re.sub(r"[^a-z0-9]+", "-", skill_dir.resolve().name.lower()).strip("-")[:64].strip("-")
    return slug or DEFAULT_SKILL_NAME


def _notes_root(vault: Path) -> str | None:
    """The notes folder the vault was last built from, as the vault's machine-local state remembers it."""
    try:
        data = json.loads((vault / STATE_DIR / "state" / "notes.json").read_text("utf-8"))
    except (OSError, ValueError):
        return None
    root = data.get("notes_root") if isinstance(data, dict) else None
    return root if isinstance(root, str) and root else None


def _demote_headings(markdown: str) -> str:
    """Move every heading one level down (outside code fences), to nest a document in another."""
    lines = []
    fence = ""
    for line in markdown.split("\n"):
        run = _FENCE.match(line)
        if run and not fence:
            fence = run.group(1)
        elif fence and line.strip() == fence[0] * len(line.strip()) and len(line.strip()) >= len(fence):
            fence = ""  # a closing fence: the opening's character, at least as many, nothing else
        elif not fence and line.startswith("#"):
            line = "#" + line
        lines.append(line)
    return "\n".join(lines)
