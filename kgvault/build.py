"""Build: run the pipeline, sources → chunks → extract → link → render → write, and report."""

from __future__ import annotations

import gc
import json
import os
import re
import time
import unicodedata
from collections.abc import Callable, Container, Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kgvault import snapshot
from kgvault.config import Settings
from kgvault.discover import Found, find_sources
from kgvault.layout import (
    BACKUP_DIR,
    DRAFTS_DIR,
    FOLDERS,
    MANIFEST,
    ORPHANS,
    PROPERTY_TYPES,
    STATE_DIR,
    TOP_LEVEL_FILES,
)
from kgvault.lock import vault_lock
from kgvault.records import Chunk, Graph, Problem, Source
from kgvault.write import (
    ManifestMemory,
    UnsafeVaultError,
    WriteResult,
    atomic_write,
    find_orphans,
    read_manifest,
    read_owned,
    unreadable_manifest,
    write_vault,
)

if TYPE_CHECKING:  # the stages' modules load only when a build runs
    from kgvault.cache import ExtractionCache
    from kgvault.extract import Extraction
    from kgvault.extract.llm import LlmSettings, LlmStats
    from kgvault.forking import Helper
    from kgvault.render import PageMemory, Pages

Progress = Callable[[str], None]
_OBSIDIAN_FILES = (".obsidian/types.json", ".obsidian/graph.json")
_NO_LLM = {
    "calls": 0,
    "cache_hits": 0,
    "failed": 0,
    "prompt_tokens": 0,
    "completion_tokens": 0,
    "cost_usd": 0.0,
}


@dataclass(slots=True)
class BuildReport:
    """What a build did: the `build --json` object of DESIGN §6."""

    sources: int = 0
    chunks: int = 0
    episodic: int = 0
    semantic: int = 0
    entities: int = 0
    relations: int = 0
    files: dict[str, int] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    seconds: float = 0.0
    llm: dict[str, Any] = field(default_factory=lambda: dict(_NO_LLM))
    """The model's calls, cache hits, failures, tokens and cost (all 0 offline)."""
    vault_files: list[str] = field(default_factory=list, repr=False)
    """Every file the build left in the vault as its own (not part of the JSON report)."""
    changed_files: frozenset[str] = field(default=frozenset(), repr=False)
    """The pages this build wrote or removed (not part of the JSON report)."""

    def to_json(self) -> dict[str, Any]:
        """The report with exactly the keys scripts rely on."""
        return {
            "sources": self.sources,
            "chunks": self.chunks,
            "nodes": {"episodic": self.episodic, "semantic": self.semantic},
            "entities": self.entities,
            "relations": self.relations,
            "files": self.files,
            "llm": dict(self.llm),
            "problems": [{"path": p.path, "line": p.line, "message": p.message} for p in self.problems],
            "seconds": round(self.seconds, 3),
        }


class BuildMemory:
    """What a long-lived caller (watch) keeps between builds of one vault, so a rebuild redoes less.

    Every note as read (`sources.SourceMemory`), its chunks and extractions as the cache holds
    them, decoded, what pass 2 made of each (`link_memory.LinkMemory`), each page's plan
    (`render.PageMemory`), and the manifest and snapshot last written (`write.ManifestMemory`,
    `snapshot.SnapshotMemory`). A folder of more than `MAX_SOURCES` notes keeps neither notes,
    extractions nor pass 2's share.
    """

    MAX_SOURCES = 10_000

    def __init__(self) -> None:
        from kgvault.link_memory import LinkMemory
        from kgvault.render import PageMemory
        from kgvault.sources import SourceMemory

        self.sources = SourceMemory()
        self.pages = PageMemory()
        self.manifest = ManifestMemory()
        self.extractions: dict[str, tuple[list[Chunk], list[Extraction]]] = {}
        self.link = LinkMemory()
        self.snapshot = snapshot.SnapshotMemory()
        self.filled = False
        """A build ran the whole pipeline with it: what it keeps is there to work from."""


class BuildError(Exception):
    """A build that cannot go on, with a message saying what to fix."""


class Superseded(Exception):
    """The notes changed again while a build read them: it stopped before writing anything."""


Gate = Callable[[], bool]
"""Asked once everything is read and linked, before the first write: False drops the build."""


def enclosing_vault(vault: Path) -> Path | None:
    """The Obsidian vault the output folder lies inside (an ancestor holding `.obsidian/`), if any;
    or the output folder itself, when it is an Obsidian vault holding notes of the user's at its root."""
    resolved = vault.resolve()
    for ancestor in resolved.parents:
        if (ancestor / ".obsidian").is_dir():
            return ancestor
    return resolved if (resolved / ".obsidian").is_dir() and _holds_user_notes(resolved) else None


def _holds_user_notes(vault: Path) -> bool:
    """Whether the vault's root holds a note or a folder that is not kgvault's (one listing, no walk)."""
    ours = {*FOLDERS.values(), *TOP_LEVEL_FILES}
    try:
        with os.scandir(vault) as entries:
            return any(
                not entry.name.startswith(".")
                and entry.name not in ours
                and (entry.name.endswith(".md") or entry.is_dir(follow_symlinks=False))
                for entry in entries
            )
    except OSError:
        return False


def build(
    settings: Settings,
    progress: Progress | None = None,
    *,
    wait: float = 0.0,
    on_wait: Callable[[str], None] | None = None,
    memory: BuildMemory | None = None,
    gate: Gate | None = None,
) -> BuildReport:
    """Compile the notes folder into the vault; gather everything before the first write.

    One build writes a vault at a time: another one holding the vault is waited for up to
    `wait` seconds (`on_wait` hears about it), then `VaultBusyError` names it. A dry run writes
    nothing and takes no lock. `memory` is what a long-lived caller (watch) keeps between builds:
    the decoded extraction cache, and each page's plan (one made as last time is not rendered).
    `gate` is asked before the first write (watch waits there for the rest of its debounce); when
    it says no, the build raises `Superseded` and the vault is as it was.
    """
    # A build makes hundreds of thousands of long-lived records and frees almost none of them;
    # the cyclic garbage collector would rescan them over and over (a fifth of the build at
    # 2,000 notes). Nothing here relies on it, so it waits until the build is done.
    collecting = gc.isenabled()
    gc.disable()
    try:
        if settings.dry_run:
            return _run_pipeline(settings, progress)
        with vault_lock(settings.vault, wait=wait, on_wait=on_wait):
            return _build_unless_unchanged(settings, progress, memory, gate)
    finally:
        if collecting:
            gc.enable()


def _build_unless_unchanged(
    settings: Settings, progress: Progress | None, memory: BuildMemory | None = None, gate: Gate | None = None
) -> BuildReport:
    """Skip the build when nothing it depends on changed since the last one; otherwise build and remember."""
    started = time.perf_counter()
    # Inside a vault you already have, your notes there decide our ids: always build.
    from kgvault.search.schema import index_is_current

    checkable = not (settings.force or settings.refresh) and enclosing_vault(settings.vault) is None
    taken_at = time.time_ns()
    notes = find_sources(settings.notes, exclude=[settings.vault]) if checkable else None
    taken = snapshot.fingerprint(settings, notes[0], notes[1]) if notes is not None else None
    racy = snapshot.racy_hashes(settings, taken, taken_at) if taken is not None else {}
    kept = memory.snapshot if memory is not None else None
    previous = snapshot.recall(settings, kept) if taken is not None else None
    recorded = snapshot.unchanged_report(previous, taken) if previous is not None and taken else None
    if recorded is not None and not index_is_current(settings.vault):
        recorded = None  # the search index is missing or outdated: build, so search can answer again
    if recorded is not None and memory is not None and not memory.filled and taken is not None:
        # A watch's first build reads everything once, though nothing changed (it writes nothing
        # then), so that its first rebuild after an edit works from memory like every later one.
        recorded = None if len(taken["sources"]) <= BuildMemory.MAX_SOURCES else recorded
    if recorded is not None:
        if progress is not None:
            progress("unchanged")
        return _unchanged(recorded, time.perf_counter() - started)
    untouched = previous.untouched if previous else frozenset()
    snapshot.forget(settings)
    code = snapshot.code_key(taken) if taken is not None else None
    # The notes as found and stat-ed for the snapshot: reading them needs neither again.
    found = Found(notes[0], tuple(notes[1]), taken["sources"]) if notes is not None and taken else None
    report = _run_pipeline(settings, progress, untouched, memory, gate, code, found)
    if memory is not None:
        memory.filled = True
    # A chunk the model failed on is retried by the next build, so this one is not "the last word".
    if taken is not None and not report.llm["failed"]:
        seen = previous.seen if previous else None
        snapshot.remember(
            settings, taken, racy, report.to_json(), report.vault_files, seen, report.changed_files, kept
        )
    return report


def _unchanged(recorded: dict[str, Any], seconds: float) -> BuildReport:
    """The report of a build that had nothing to do: the last build's, with nothing written."""
    files = recorded["files"]
    return BuildReport(
        sources=recorded["sources"],
        chunks=recorded["chunks"],
        episodic=recorded["nodes"]["episodic"],
        semantic=recorded["nodes"]["semantic"],
        entities=recorded["entities"],
        relations=recorded["relations"],
        files={
            "written": 0,
            "unchanged": files["written"] + files["unchanged"],
            "removed": 0,
            "kept": files["kept"],
            "orphaned": files["orphaned"],
        },
        problems=[Problem(p["path"], p["line"], p["message"]) for p in recorded["problems"]],
        seconds=seconds,
    )


@dataclass(slots=True)
class _Linked:
    """What reading, extracting and linking leave for render and write: the drafts are gone by then."""

    graph: Graph
    sources: int
    chunks: int
    problems: list[Problem]
    """Everything reading, extracting and linking reported, dropped draft items included."""
    cache_entries: dict[str, bytes]
    """Encoded cache entries of the sources extracted in this build, stored once the vault is written."""
    storing: Helper | None
    """The helper holding those entries instead, encoded during pass 2 (see `cache_forked`)."""
    cache_made: frozenset[str]
    """The keys of all those entries, wherever they wait."""
    cache_keys: dict[str, str]
    """The cache key of every source, by path, so entries of notes changed or gone can be pruned."""
    stats: LlmStats | None
    undeclared: frozenset[str] = frozenset()
    """Properties the notes use otherwise than kgvault does: left out of `.obsidian/types.json`."""


def _run_pipeline(
    settings: Settings,
    progress: Progress | None,
    untouched: Container[str] = frozenset(),
    memory: BuildMemory | None = None,
    gate: Gate | None = None,
    code: str | None = None,
    found: Found | None = None,
) -> BuildReport:
    """Run every stage in order; all reading and pass 2 finish before the first write.

    `code` names kgvault's code and libraries (`snapshot.code_key`): a build with it and without a
    memory finds unchanged pages in the last build's ledger, and leaves its own.
    """
    # The stages' modules are imported here: a no-op rebuild never needs them.
    from kgvault.cache import ExtractionCache

    started = time.perf_counter()
    say = progress or (lambda _stage: None)
    vault = settings.vault
    outer = enclosing_vault(vault)
    cache = ExtractionCache(vault, enabled=not settings.dry_run, kept=memory.extractions if memory else None)
    linked = _read_extract_link(settings, cache, outer, say, memory, found)
    graph = linked.graph
    # The search index is prepared by a helper on the other core while pages are written; it
    # commits only once they are (a build that fails leaves the index as it was).
    helper: Helper | None = None

    def start_indexing() -> None:
        nonlocal helper
        helper = None if settings.dry_run else _start_indexing(vault, graph)

    storing = linked.storing
    made: list[Problem] = []
    try:
        if gate is None:
            start_indexing()
        say("rendering")
        pages_memory = memory.pages if memory is not None else None
        manifest_memory = memory.manifest if memory is not None else None
        # A gated build forks the helper once the pages a watcher waits for are written: before,
        # the fork would cost it the fork and copy-on-write faults, and a stopped build nothing.
        result, pages = _render_and_write(
            settings,
            graph,
            outer,
            untouched,
            say,
            pages_memory,
            manifest_memory,
            gate,
            start_indexing if gate is not None else None,
            linked.undeclared,
            code if memory is None else None,
        )
        if memory is not None:
            memory.link.release()  # what pass 2 replaced, freed once the pages are out
        if not settings.dry_run:
            _remember_notes_root(vault, settings.notes)
            say("indexing")
            if storing is not None:
                storing.tell(go=True)  # it stores the cache while the index helper finishes
            made = _made_by_your_templates(settings, result.owned)
            if code is not None and memory is None:
                # Meanwhile (the helpers finish the index and the cache), this build's ledger.
                from kgvault import page_ledger

                page_ledger.write(vault, page_ledger.of(pages, code, result.manifest))
            indexed = helper is not None and helper.finish(go=True)
            helper = None
            if not indexed:
                from kgvault.search import update_index

                update_index(vault, graph)
            # The cache is stored only once the vault is written: a build that fails stores nothing.
            for key, entry in linked.cache_entries.items():
                cache.store(key, entry)
            if storing is not None:
                storing.finish(go=True)  # one that failed only leaves the next build more to extract
            cache.prune(linked.cache_keys)
            if settings.max_sensitivity is not None:
                _drop_caches(vault)
    except Superseded:
        if memory is not None:
            memory.link.release()
        if cache.kept is not None:
            # Entries this build made are stored only by a build that writes: let the next one make them.
            for key in linked.cache_made:
                cache.kept.pop(key, None)
        raise
    finally:
        if helper is not None:
            helper.finish(go=False)
        if storing is not None:
            storing.finish(go=False)  # only the first word counts: after a go, this just waits

    layers = [n.memory_layer for n in graph.nodes]
    return BuildReport(
        sources=linked.sources,
        chunks=linked.chunks,
        episodic=layers.count("episodic"),
        semantic=layers.count("semantic"),
        entities=len(graph.entities),
        relations=len(graph.relations),
        files={
            "written": len(result.written),
            "unchanged": len(result.unchanged),
            "removed": len(result.removed),
            "kept": len(result.kept),
            "orphaned": len(result.orphaned),
        },
        problems=sorted(
            [*linked.problems, *(_in_vault(settings.vault, p) for p in [*result.problems, *made])],
            key=lambda p: (p.path, p.line or 0, p.message),
        ),
        seconds=time.perf_counter() - started,
        llm=linked.stats.to_json() if linked.stats is not None else dict(_NO_LLM),
        changed_files=frozenset([*result.written, *result.removed]),
        # The .obsidian files we make count too: deleting them must not pass for "nothing changed".
        vault_files=sorted(
            {
                *(read_manifest(vault) if settings.dry_run else result.owned),
                *result.kept,
                *result.orphaned,
                # Orphans listed in index.md since earlier builds: deleting one changes the index.
                *(read_manifest(vault, ORPHANS) if not settings.dry_run else ()),
                ".obsidian/types.json",
                ".obsidian/graph.json",
            }
        ),
    )


INDEX_HELPER_RECORDS = 2_000
"""A graph with fewer nodes and entities is indexed in this process: a fork would cost more than it saves."""


def _start_indexing(vault: Path, graph: Graph) -> Helper | None:
    """Fork a helper that brings the search index up to date and waits for the word to commit."""
    from kgvault import forking
    from kgvault.search import update_index

    if len(graph.nodes) + len(graph.entities) < INDEX_HELPER_RECORDS or not forking.can_fork():
        return None
    return forking.Helper.start(lambda go: update_index(vault, graph, go))


def _render_and_write(
    settings: Settings,
    graph: Graph,
    outer: Path | None,
    untouched: Container[str],
    say: Progress,
    memory: PageMemory | None,
    manifest_memory: ManifestMemory | None = None,
    gate: Gate | None = None,
    on_first_written: Callable[[], None] | None = None,
    undeclared: frozenset[str] = frozenset(),
    code: str | None = None,
) -> tuple[WriteResult, Pages]:
    """Render the pages as they are written; a template's error surfaces in either stage.

    `gate` is asked before the first write (see `build`); the pages that will need rendering are
    rendered before asking it when a page memory says they are few. `on_first_written` is
    called once those are written, before the rest of the vault is looked at. With `code`
    (see `_run_pipeline`), the pages the vault's ledger knows are not rendered, and the pages
    returned hold what the next ledger is made of.
    """
    import jinja2

    from kgvault import page_ledger
    from kgvault.render import render
    from kgvault.render_forked import SharedPages
    from kgvault.templating import TemplateFailure

    vault = settings.vault
    inside = vault.resolve().relative_to(outer).as_posix() if outer else "."
    prefix = "" if inside == "." else inside + "/"
    ledger = page_ledger.read(vault, code) if code is not None else None
    plan = partial(
        render,
        graph,
        templates=settings.templates,
        link_prefix=prefix,
        memory=memory,
        ledger=ledger,
        for_ledger=code is not None,
    )
    try:
        pages = plan()
        # What kgvault owns is read once for finding orphans and for writing: nothing writes the
        # vault in between, and the lock is held.
        owned = read_owned(vault, manifest_memory)
        damaged = unreadable_manifest(vault) if not owned[1] and not settings.force else None
        if damaged is not None:  # only a vault whose manifest gave nothing is looked at again
            raise BuildError(
                f"the vault's {MANIFEST} cannot be read ({damaged}), so kgvault cannot tell its pages "
                "from yours and would update none; restore it (from version control, a backup), or run "
                f"with --force to take back every page that carries kgvault's marker line (each copied "
                f"to {BACKUP_DIR}/ first)"
            )
        # The set of pages does not depend on the orphan list, so plan again only when there are orphans.
        orphaned = find_orphans(vault, set(pages), owned)
        if orphaned:
            pages = plan(orphaned=orphaned)
        if gate is not None:
            before = pages.memory.checkpoint() if pages.memory is not None else None
            if pages.memory is not None and pages.memory.around is not None:
                # While the gate waits anyway. Only the episodes' and facts' pages: what an edit said
                # is written first; the pages listing it (entities, summaries, the index) follow.
                pages.prepare(folders=(FOLDERS["episodic"], FOLDERS["semantic"]))
            if not gate():
                if pages.memory is not None and before is not None:
                    pages.memory.rollback(before)
                raise Superseded("the notes changed while they were read; nothing was written")
        say("writing")
        # The last pages rendered on the other core meanwhile; with a page memory few are rendered.
        shared = SharedPages.of(pages, owned[1]) if pages.memory is None else pages
        complete = False
        try:
            written = write_vault(
                vault,
                shared,
                force=settings.force,
                dry_run=settings.dry_run,
                # Inside a vault you already have, only its types.json learns our property types.
                settings_dir=(outer or vault) / ".obsidian",
                graph_settings=outer is None,
                undeclared=undeclared,
                trusted=untouched,
                owned_pages=owned,
                manifest_memory=manifest_memory,
                on_first_written=on_first_written,
            )
            complete = True
            return written, pages
        finally:
            if isinstance(shared, SharedPages):
                shared.close()
            if pages.memory is not None:
                pages.memory.keep_only(pages, complete=complete)
    except jinja2.TemplateError as error:
        if isinstance(error, jinja2.TemplateSyntaxError):
            where = f"{error.name}, line {error.lineno}"
        else:
            where = error.template if isinstance(error, TemplateFailure) else "a template"
        said = (error.message or str(error)).rstrip(".")
        raise BuildError(f"cannot render {where}: {said}; fix the template or remove it") from error


def _read_extract_link(
    settings: Settings,
    cache: ExtractionCache,
    outer: Path | None,
    say: Progress,
    memory: BuildMemory | None = None,
    found: Found | None = None,
) -> _Linked:
    """Read, chunk, extract and link: return the graph, and let every source, chunk and draft go.

    Drafts are the build's largest records; nothing after pass 2 needs them, so they live only
    as long as this function (the peak memory of a big build is then render's, not theirs), unless
    a watch keeps them (`memory`: the notes as read, the drafts and pass 2's share of each).
    """
    from kgvault import cache_forked
    from kgvault.cache import source_key
    from kgvault.chunks import chunk_sources
    from kgvault.extract.forked import chunk_and_extract
    from kgvault.extract.renew import renew
    from kgvault.sources import DEFAULT_USER_NAME, read_imported_drafts, read_sources

    vault = settings.vault
    say("reading sources")
    kept = memory.sources if memory is not None else None
    sources, problems = read_sources(
        settings.notes,
        exclude=[vault],
        max_bytes=settings.max_file_bytes,
        user_name=settings.user_name,
        zone=settings.zone,
        kept=kept,
        found=found,
    )
    imported, import_problems = read_imported_drafts(vault)
    if imported:
        sources = sorted([*sources, *imported], key=lambda source: source.path)
    if kept is not None and len(sources) > BuildMemory.MAX_SOURCES:
        kept.files.clear()  # too many sources to hold between builds: they are read from disk
    problems.extend(_in_vault(vault, problem) for problem in import_problems)
    problems.extend(_notes_in_vault(settings))
    problems.extend(_template_problems(settings))
    undeclared = _property_clashes(settings, sources, outer) if outer is not None else {}
    problems.extend(_clash_problems(undeclared))
    say("chunking")
    read_as = (settings.max_chunk_chars, settings.user_name or DEFAULT_USER_NAME, settings.timezone)
    keys = [source_key(source, *read_as) for source in sources]
    # A draft file is not cached: reading it is cheap, and its quotes depend on another note. With a
    # model, answers are cached per chunk instead (an edited paragraph asks about that chunk only).
    cached = [
        None if source.kind == "draft" or settings.model else cache.load(key, source)
        for key, source in zip(keys, sources, strict=True)
    ]
    fresh = [source for source, hit in zip(sources, cached, strict=True) if hit is None]
    stats = None
    shipped: dict[str, bytes] = {}
    if settings.model:
        new_chunks = chunk_sources(fresh, max_chars=settings.max_chunk_chars)
        say("extracting")
        new_extractions, stats = _extract_with_model(settings, new_chunks, sources, say)
    else:
        say("extracting")
        # An edited note re-extracts only the chunks that changed since the version the cache holds.
        renewed_chunks, renewed_extractions, fresh = renew(fresh, sources, cache, settings.max_chunk_chars)
        # The rest chunked and extracted together, on two cores when there is enough to do.
        new_chunks, new_extractions, shipped = chunk_and_extract(
            fresh, sources, max_chars=settings.max_chunk_chars
        )
        new_chunks, new_extractions = [*renewed_chunks, *new_chunks], [*renewed_extractions, *new_extractions]
    chunks, extractions, to_cache = _in_source_order(sources, keys, cached, new_chunks, new_extractions)
    if cache.kept is not None and not settings.model:  # a model's drafts are cached per chunk, elsewhere
        if len(sources) > BuildMemory.MAX_SOURCES:
            cache.kept.clear()  # too many drafts to hold between builds: they are read from disk
        else:
            cache.kept.update(
                (key, made) for key, made in to_cache.items() if not any(c.kind == "draft" for c in made[0])
            )
    say("linking")
    # The new cache entries are encoded on the other core while pass 2 runs on this one (not for a
    # share build: it drops its cache once written).
    to_store = (
        [
            (key, source, *to_cache[key])
            for key, source in zip(keys, sources, strict=True)
            if key in to_cache and not any(chunk.kind == "draft" for chunk in to_cache[key][0])
        ]
        if not settings.dry_run and not settings.model
        else []
    )
    storing = cache_forked.start(cache, to_store, shipped) if settings.max_sensitivity is None else None
    try:
        graph = _link(settings, sources, extractions, outer, say, stats, memory, problems)
        entries = {}
        if storing is None or not storing.ready():  # the helper failed: encode them here
            if storing is not None:
                storing.finish(go=False)
                storing = None
            entries = cache_forked.encode_entries(cache, to_store, shipped)
    except BaseException:
        if storing is not None:
            storing.finish(go=False)
        raise
    cache_keys = {source.path: key for source, key in zip(sources, keys, strict=True)}
    made = frozenset(entry[0] for entry in to_store)
    return _Linked(
        graph, len(sources), len(chunks), problems, entries, storing, made, cache_keys, stats,
        frozenset(undeclared),
    )  # fmt: skip


_TEMPLATE_PAGES = {
    "node.md.j2": ("episodic/", "semantic/"),
    "entity.md.j2": ("entities/",),
    "summary.md.j2": ("sources/",),
    "index.md.j2": ("index.md",),
    "ontology.md.j2": ("ontology.md",),
    "kgvault.base.j2": ("kgvault.base",),
}
"""What each of our templates makes: where the pages a template of the user's makes are."""


TEMPLATE_SAMPLE = 50
"""Pages of each kind a template of yours makes that a build checks: the first, by path."""


def _made_by_your_templates(settings: Settings, owned: Iterable[str]) -> list[Problem]:
    """What the vault contract says of pages made by templates of the user's: a template may make
    pages `kgvault check` refuses (a `kgvault.base` that is no YAML, an entity page without its
    Overview). A template makes all its pages alike, so the first `TEMPLATE_SAMPLE` of each kind
    by path are checked, on every build (checking all would add a third to a big build)."""
    if settings.templates is None:
        return []
    yours = {name: where for name, where in _TEMPLATE_PAGES.items() if (settings.templates / name).is_file()}
    if not yours:
        return []
    from kgvault.check import check_written

    by_path: dict[str, str] = {}
    for name, where in yours.items():
        made = sorted(p for p in owned if p.startswith(where) and (p.endswith(".md") or p == "kgvault.base"))
        by_path.update(dict.fromkeys(made[:TEMPLATE_SAMPLE], name))
    return [
        Problem(
            problem.path,
            problem.line,
            f"made by your template {by_path[problem.path]}: {problem.message}; fix the template",
        )
        for problem in check_written(settings.vault, by_path)
        if problem.path in by_path
    ]


def _template_problems(settings: Settings) -> list[Problem]:
    """A template file of the user's that overrides nothing (a misspelled `nodes.md.j2`) is said."""
    if settings.templates is None:
        return []
    from kgvault.templating import unused_templates

    return [
        Problem(
            str(settings.templates / name),
            None,
            "no template of kgvault's has this name, and no template of yours includes it, so it "
            "changes nothing; `kgvault prompt` and the pages use node.md.j2, entity.md.j2, "
            "summary.md.j2, index.md.j2, ontology.md.j2, kgvault.base.j2 and prompts/*.md.j2",
        )
        for name in unused_templates(settings.templates)
    ]


def _clash_problems(undeclared: dict[str, str]) -> list[Problem]:
    """One problem per property the notes hold otherwise than kgvault writes it (see `_property_clashes`)."""
    return [
        Problem(
            path,
            None,
            f"your notes use the property `{key}` as a list, while kgvault's pages write it as "
            f"{PROPERTY_TYPES[key]}: Obsidian keeps one type per property in a vault, so kgvault leaves "
            f"`{key}` out of .obsidian/types.json (Obsidian may show its pages' `{key}` as mismatched)",
        )
        for key, path in sorted(undeclared.items())
    ]


def _property_clashes(settings: Settings, sources: Sequence[Source], outer: Path) -> dict[str, str]:
    """The properties kgvault writes as one value that the notes of the enclosing vault hold as a list
    (`type: []`), each with the first note that does; only notes inside that vault count."""
    try:
        inside = settings.notes.resolve().is_relative_to(outer)
    except OSError:
        return {}
    if not inside:
        return {}
    scalar = {key for key, kind in PROPERTY_TYPES.items() if kind in ("text", "date", "datetime", "number")}
    found: dict[str, str] = {}
    for source in sources:
        for key in scalar.intersection(source.meta):
            if isinstance(source.meta[key], list):
                found.setdefault(key, source.path)
    return found


def _link(
    settings: Settings,
    sources: list[Source],
    extractions: list[Extraction],
    outer: Path | None,
    say: Progress,
    stats: LlmStats | None,
    memory: BuildMemory | None,
    problems: list[Problem],
) -> Graph:
    """Pass 2 (and the model's advice, when asked); what they report is added to `problems`."""
    from kgvault.corrections import load_corrections
    from kgvault.extract.patterns import FUNCTIONAL_PREDICATES
    from kgvault.link import link
    from kgvault.share import apply_floors, restrict

    vault = settings.vault
    corrections, correction_problems = load_corrections(settings.notes)
    problems.extend(correction_problems)
    extractions = _without_templates(settings.notes, apply_floors(extractions, sources))
    taken = _outer_basenames(outer, vault) if outer else ()
    folded = {name.casefold() for name in taken}
    for fixed in sorted(name for name in TOP_LEVEL_FILES if name.endswith(".md") and name[:-3] in folded):
        clash = (
            f"a note of yours in the enclosing Obsidian vault is also named {fixed[:-3]!r}: a link "
            f"[[{fixed[:-3]}]] may reach either; rename yours, or build into a folder of its own"
        )
        problems.append(_in_vault(vault, Problem(fixed, None, clash)))
    functional = FUNCTIONAL_PREDICATES.union(settings.functional_predicates)
    link_memory = memory.link if memory is not None else None
    if link_memory is not None and (settings.model or len(sources) > BuildMemory.MAX_SOURCES):
        link_memory.forget()  # drafts not kept between builds: nothing pass 2 made of them would be reused
        link_memory = None
    graph = link(
        sources, extractions, taken=taken, corrections=corrections, functional=functional, memory=link_memory
    )
    if stats is not None and settings.llm_link:
        from kgvault.corrections import Corrections
        from kgvault.link_model import advise

        say("linking with the model")
        advice = advise(graph, _model_settings(settings), vault, stats)
        problems.extend(advice.problems)
        if advice:
            corrections = Corrections((*corrections.items, *advice.merges))
            graph = link(
                sources,
                extractions,
                taken=taken,
                corrections=corrections,
                functional=functional,
                tag_hints=advice.tag_hints,
            )
    problems.extend(graph.problems)
    if settings.max_sensitivity is not None:
        graph = restrict(graph, settings.max_sensitivity)
    problems.extend(_dropped(vault, extractions))
    return graph


def _without_templates(notes: Path, extractions: list[Extraction]) -> list[Extraction]:
    """Nothing from templates: their properties and text are placeholders (`created: {{date}}`,
    `author: [[Me]]`), no knowledge. A template is a note in the templates folder Obsidian's settings
    name, or in a `Templates` folder anywhere (the settings may not be synced), or one
    whose name is a placeholder (`{{title}}.md`). They stay sources, with a summary that says so."""
    from kgvault.discover import template_folders
    from kgvault.extract.draft import Draft

    folders = tuple(template_folders(notes))
    template = Draft(skip_reason="a template (Obsidian's templates folder): placeholders, no knowledge")
    return [
        replace(x, draft=template) if _is_template(x.chunk.source_path, folders) else x for x in extractions
    ]


_TEMPLATES_FOLDER = re.compile(r"(?i)(?:.*/)?_?templates?/")
"""A templates folder at any depth: a shared vault keeps one per game or project (`dungeon23/templates/`)."""
_PLACEHOLDER_NAME = re.compile(r"\{\{[^{}/]*\}\}|<%")


def _is_template(path: str, folders: tuple[str, ...]) -> bool:
    """Whether a notes-relative path is a template's (see `_without_templates`)."""
    return (
        path.startswith(folders)
        or _TEMPLATES_FOLDER.match(path) is not None
        or _PLACEHOLDER_NAME.search(path.rpartition("/")[2]) is not None
    )


def _dropped(vault: Path, extractions: Sequence[Extraction]) -> list[Problem]:
    """What extraction left out, and the chunks it failed on: one problem each."""
    from kgvault.extract.from_draft import is_notice

    dropped = [
        Problem(
            x.chunk.source_path, x.chunk.line_start, reason if is_notice(reason) else f"dropped: {reason}"
        )
        for x in extractions
        for reason in x.dropped
    ]
    dropped = [_in_vault(vault, p) if p.path.startswith(f"{DRAFTS_DIR}/") else p for p in dropped]
    dropped += [
        Problem(x.chunk.source_path, x.chunk.line_start, f"extraction {x.draft.skip_reason}")
        for x in extractions
        if x.draft.skip_reason and x.draft.skip_reason.startswith(("failed:", "dry run:"))
    ]
    dropped += [
        Problem(
            x.chunk.source_path,
            x.chunk.line_start,
            f"extraction failed: {x.failure}; read by the rules instead, and asked again next build",
        )
        for x in extractions
        if x.failure is not None
    ]
    return dropped


def _extract_with_model(
    settings: Settings, chunks: Sequence[Chunk], sources: Sequence[Source], say: Progress
) -> tuple[list[Extraction], LlmStats]:
    """Extract with the model the settings name; return the extractions and what the model cost."""
    from kgvault.extract import extract
    from kgvault.extract.llm import extract_with_model, is_confidential
    from kgvault.prompt import ontology_or_none

    say(f"extracting with {settings.model}")
    model = _model_settings(settings)
    # What only notes kept from the model said stays out of the names the model is shown.
    private = frozenset(s.path for s in sources if not model.confidential and is_confidential(s))
    ontology = ontology_or_none(settings.vault, private=private)
    return extract_with_model(chunks, sources, model, settings.vault, ontology, offline=extract)


def _model_settings(settings: Settings) -> LlmSettings:
    """How the settings say to reach and try the model."""
    from kgvault.extract.llm import LlmSettings

    return LlmSettings(
        model=str(settings.model),
        api_base=settings.api_base,
        jobs=settings.jobs,
        timeout=settings.timeout,
        retries=settings.retries,
        backoff=settings.backoff,
        max_cost=settings.max_cost,
        refresh=settings.refresh,
        dry_run=settings.dry_run,
        confidential=settings.llm_confidential,
        templates=settings.templates,
    )


def _drop_caches(vault: Path) -> None:
    """A vault to share keeps no cache: the drafts there hold what the vault left out."""
    import shutil

    from kgvault.cache import CACHE_DIR

    folder = vault / CACHE_DIR
    if folder.is_dir() and not folder.is_symlink() and not (vault / STATE_DIR).is_symlink():
        shutil.rmtree(folder, ignore_errors=True)


def _in_source_order(
    sources: Sequence[Source],
    keys: Sequence[str],
    cached: Sequence[tuple[list[Chunk], list[Extraction]] | None],
    new_chunks: Sequence[Chunk],
    new_extractions: Sequence[Extraction],
) -> tuple[list[Chunk], list[Extraction], dict[str, tuple[list[Chunk], list[Extraction]]]]:
    """Every source's chunks and extractions, cached or just made, in source order; and what to cache."""
    made: dict[str, tuple[list[Chunk], list[Extraction]]] = {}
    for chunk, extraction in zip(new_chunks, new_extractions, strict=True):
        entry = made.setdefault(chunk.source_path, ([], []))
        entry[0].append(chunk)
        entry[1].append(extraction)
    chunks: list[Chunk] = []
    extractions: list[Extraction] = []
    to_cache = {}
    for source, key, hit in zip(sources, keys, cached, strict=True):
        if hit is None:
            hit = to_cache[key] = made.get(source.path, ([], []))
        chunks.extend(hit[0])
        extractions.extend(hit[1])
    return chunks, extractions, to_cache


def _in_vault(vault: Path, problem: Problem) -> Problem:
    """Name a vault file as the user knows it (`VAULT/path`), apart from notes-relative paths."""
    return Problem((vault / problem.path).as_posix(), problem.line, problem.message)


def _notes_in_vault(settings: Settings) -> list[Problem]:
    """Notes of the user's that sit inside the output vault are not read: say so, one by one."""
    notes, vault = settings.notes.resolve(), settings.vault.resolve()
    if notes not in vault.parents or not vault.is_dir():
        return []
    owned = set(read_manifest(vault))
    skipped = []
    for folder, dirs, files in os.walk(vault):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            path = Path(folder, name)
            rel = path.relative_to(vault).as_posix()
            if path.suffix.lower() in (".md", ".markdown", ".txt") and rel not in owned:
                where = path.relative_to(notes).as_posix()
                skipped.append(
                    Problem(where, None, f"not read: it lies inside the output vault {settings.vault}")
                )
    return skipped


def _outer_basenames(outer: Path, vault: Path) -> set[str]:
    """Basenames of the user's own notes in the enclosing vault, in NFC (as our ids are, whatever form
    the file system gave: macOS writes NFD): our ids must not collide with them."""
    names: set[str] = set()
    inner = vault.resolve()
    # The vault itself an Obsidian vault of the user's: its notes are theirs, kgvault's folders not.
    ours = {*FOLDERS.values(), *TOP_LEVEL_FILES} if outer.resolve() == inner else set()
    for folder, dirs, files in os.walk(outer):
        here = Path(folder)
        top = here.resolve() == outer.resolve()
        dirs[:] = [
            d
            for d in dirs
            if not d.startswith(".") and (here / d).resolve() != inner and not (top and d in ours)
        ]
        names.update(
            unicodedata.normalize("NFC", f[:-3])
            for f in files
            if f[-3:].lower() == ".md" and not (top and f in ours)  # `Globex.MD` is a note to Obsidian too
        )
    return names


def _remember_notes_root(vault: Path, notes: Path) -> None:
    """Remember where the notes are, so check, search and mcp find them (machine-local state)."""
    state = vault / STATE_DIR / "state"
    if state.is_symlink():
        raise UnsafeVaultError(
            f"{STATE_DIR}/state in the vault is a symbolic link; kgvault writes through none"
        )
    target = state / "notes.json"
    data = json.dumps({"notes_root": str(notes.resolve())}, indent=2) + "\n"
    if target.is_symlink() or not target.is_file() or target.read_text("utf-8") != data:
        atomic_write(target, data.encode("utf-8"))
