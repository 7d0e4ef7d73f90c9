"""The command line: parse options, call the library. Heavy modules are imported inside commands."""

from __future__ import annotations

import atexit
import gc
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from kgvault import __version__

if TYPE_CHECKING:  # heavy modules load only when a command runs
    from kgvault.build import BuildReport
    from kgvault.config import Settings


class UsageProblem(click.ClickException):
    """An input or usage error: exit 2 with a message that says what to do."""

    exit_code = 2


class _GivenPath(click.Path):
    """A path that is not empty: an unset variable (`kgvault build "$NOTES"`) is no current folder."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str) and not value.strip():
            self.fail("is empty; give a path", param, ctx)
        return super().convert(value, param, ctx)


# The options build and watch share.
_vault_option = click.option(
    "-o",
    "--output",
    "vault",
    type=_GivenPath(path_type=Path, file_okay=False),
    help="Vault folder [./vault].",
)
_config_option = click.option(
    "--config", type=_GivenPath(path_type=Path, dir_okay=False), help="Settings file [NOTES/kgvault.toml]."
)
_templates_option = click.option(
    "--templates",
    type=_GivenPath(path_type=Path, file_okay=False, exists=True),
    help="Folder of templates to override.",
)


class _Commands(click.Group):
    """kgvault's commands: one interrupted with Ctrl-C exits 130, as shells expect, not 1."""

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            writing = ctx.invoked_subcommand in ("build", "watch", "import")
            # Pages are replaced whole, and the manifest last: nothing is half-written.
            after = (
                "; every page is as it was or as new, and the next build finishes the job" if writing else ""
            )
            click.echo(f"\ninterrupted{after}", err=True)
            ctx.exit(130)


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="kgvault")
def main() -> None:
    """Compile notes and conversations into an Obsidian vault that is a temporal knowledge graph.

    \b
    Example:
      kgvault build ~/notes -o ~/notes-vault
    """


@main.command()
@click.argument("notes", type=_GivenPath(path_type=Path, file_okay=False))
@_vault_option
@click.option(
    "--model", help="Extract with this model through litellm (openai/gpt-4o-mini, ollama/llama3.1, …)."
)
@click.option("--api-base", help="Base URL of an OpenAI-compatible server (or Ollama) for --model.")
@click.option("--jobs", type=click.IntRange(1, 64), help="Model requests in flight at once (default 4).")
@click.option("--refresh", is_flag=True, default=None, help="Ask the model again, even for cached chunks.")
@click.option("--strict", is_flag=True, default=None, help="Exit 1 when the model failed on any chunk.")
@click.option(
    "--max-cost", type=click.FloatRange(0), help="Stop sending requests once this many USD are spent."
)
@click.option(
    "--llm-link",
    is_flag=True,
    default=None,
    help="Let the model file flat tags and judge near-identical names.",
)
@click.option(
    "--max-sensitivity",
    type=click.Choice(["public", "private", "confidential"]),
    help="Leave out everything above this level: a vault to share.",
)
@_config_option
@_templates_option
@click.option(
    "--force",
    is_flag=True,
    default=None,
    help="Overwrite hand-edited generated parts; take back marked pages no manifest lists (backed up first).",
)
@click.option("--dry-run", is_flag=True, default=None, help="Compute everything, write nothing.")
@click.option(
    "--wait",
    type=click.FloatRange(0),
    default=0.0,
    is_flag=False,
    flag_value=float("inf"),
    help="Wait for another kgvault writing the same vault: --wait until it is done, --wait S for S seconds.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the build report as one JSON object.")
@click.option("-q", "--quiet", is_flag=True, help="Print nothing but errors and the problems found.")
@click.option("-v", "--verbose", is_flag=True, help="Say more (reserved; every problem is always listed).")
def build(
    notes: Path,
    vault: Path | None,
    model: str | None,
    api_base: str | None,
    jobs: int | None,
    refresh: bool | None,
    strict: bool | None,
    max_cost: float | None,
    llm_link: bool | None,
    max_sensitivity: str | None,
    config: Path | None,
    templates: Path | None,
    force: bool | None,
    dry_run: bool | None,
    wait: float,
    as_json: bool,
    quiet: bool,
    verbose: bool,
) -> None:
    """Compile the NOTES folder into an Obsidian vault.

    NOTES holds Markdown and text notes, transcripts, chat logs, and chat exports
    as the apps write them: ChatGPT, Claude, WhatsApp, Telegram, Messenger,
    Instagram, Discord and Slack (see docs/formats.md).

    Sources are only read, never changed. Files in the vault that kgvault did not
    write are never touched, and whatever you write below the line
    `%% kgvault: your notes below this line are kept %%` survives every rebuild.

    Offline by default. With --model (or KGVAULT_MODEL) each chunk is extracted
    by that model through litellm; answers are cached in VAULT/.kgvault/cache/llm/.

    \b
    Examples:
      kgvault build sample_vault -o /tmp/sample-kg
      kgvault build ~/notes -o ~/vault/kg --json
      kgvault build ~/notes -o ~/vault --model openai/gpt-4o-mini --max-cost 2
      kgvault build ~/notes -o ~/vault --model ollama/llama3.1 --api-base http://localhost:11434
    """
    from kgvault.build import BuildError
    from kgvault.build import build as run_build
    from kgvault.config import ConfigError, load_settings
    from kgvault.discover import SourceError
    from kgvault.lock import VaultBusyError

    try:
        settings = load_settings(
            notes,
            config,
            vault=vault,
            model=model,
            api_base=api_base,
            jobs=jobs,
            refresh=refresh,
            strict=strict,
            max_cost=max_cost,
            llm_link=llm_link,
            max_sensitivity=max_sensitivity,
            templates=templates,
            force=force,
            dry_run=dry_run,
        )
    except ConfigError as error:
        raise UsageProblem(str(error)) from error
    if not settings.model:
        model_options = {
            "--api-base": api_base, "--jobs": jobs, "--refresh": refresh, "--strict": strict,
            "--max-cost": max_cost, "--llm-link": llm_link,
        }  # fmt: skip
        unused = [name for name, value in model_options.items() if value is not None]
        if unused:
            click.echo(
                f"note: {', '.join(unused)} only change(s) a build with a model; without --model (or "
                "KGVAULT_MODEL) the notes are read offline",
                err=True,
            )
    show_progress = not (as_json or quiet) and sys.stderr.isatty()
    try:
        with _StageBar(show_progress) as bar:
            report = run_build(
                settings, progress=bar.stage, wait=wait, on_wait=lambda say: click.echo(say, err=True)
            )
    except (SourceError, BuildError) as error:
        raise UsageProblem(str(error)) from error
    except VaultBusyError as error:
        advice = f"waited {wait:g} s; wait longer with --wait SECONDS" if wait else "or run with --wait"
        raise UsageProblem(f"{error}; {advice}") from error
    except OSError as error:
        raise UsageProblem(f"cannot write the vault {settings.vault}: {error}") from error
    _exit_without_collecting()
    failed = settings.strict and bool(report.llm["failed"])
    if as_json:
        click.echo(json.dumps(report.to_json(), ensure_ascii=False, indent=2))
    elif not quiet:
        _summarize(settings, report)
    else:
        _print_problems(report)  # nothing but what went wrong: every problem is always listed
    if report.sources == 0 and not as_json:
        from kgvault.discover import SOURCE_KINDS

        click.echo(
            f"note: no notes found in {settings.notes} (kgvault reads {', '.join(SOURCE_KINDS)} files; "
            "hidden folders and what .kgvaultignore lists are left out)",
            err=True,
        )
    if failed:
        raise SystemExit(1)


def _exit_without_collecting() -> None:
    """Let the process end without a last garbage collection over what a build left in caches.

    Everything is written by then; scanning the records only costs time (0.15 s of a 2,000-note
    build's exit, 0.03 s with them frozen). Registered once, however many builds a process runs.
    """
    atexit.unregister(gc.freeze)
    atexit.register(gc.freeze)


def _summarize(settings: Settings, report: BuildReport) -> None:
    """The short human summary of a build, problems on stderr."""
    files = report.files
    click.echo(
        f"{report.sources} sources, {report.chunks} chunks → {report.episodic} episodic, "
        f"{report.semantic} semantic, {report.entities} entities, {report.relations} relations"
    )
    click.echo(
        f"{settings.vault}: {files['written']} written, {files['unchanged']} unchanged, "
        f"{files['removed']} removed, "
        f"{files['kept']} kept, {files['orphaned']} orphaned in {report.seconds:.2f} s"
        + (" (dry run: nothing written)" if settings.dry_run else "")
    )
    llm = report.llm
    if settings.model:
        estimate = "estimated " if settings.dry_run else ""
        click.echo(
            f"{settings.model}: {llm['calls']} calls, {llm['cache_hits']} cached, {llm['failed']} failed, "
            f"{estimate}{llm['prompt_tokens']} + {llm['completion_tokens']} tokens, "
            f"{estimate}${llm['cost_usd']:.4f}"
        )
    _print_problems(report)


def _print_problems(report: BuildReport) -> None:
    """The build's problems, if any, on stderr."""
    if report.problems:
        click.echo(f"{len(report.problems)} problem(s):", err=True)
        for problem in report.problems:
            where = f"{problem.path}:{problem.line}" if problem.line else problem.path
            click.echo(f"  {where}: {problem.message}", err=True)


@main.command()
@click.argument("notes", type=_GivenPath(path_type=Path, file_okay=False))
@_vault_option
@_config_option
@_templates_option
@click.option(
    "--debounce",
    type=click.IntRange(0, 60_000),
    default=200,
    show_default=True,
    help="Milliseconds of quiet after a change before rebuilding.",
)
def watch(
    notes: Path, vault: Path | None, config: Path | None, templates: Path | None, debounce: int
) -> None:
    """Build NOTES into a vault, then rebuild whenever a note changes.

    Prints one line per rebuild: what changed, pages written and removed, milliseconds.
    A failing rebuild is reported and watching goes on (a failing first build exits 2);
    Ctrl-C stops. Changes inside the vault are ignored, so the vault may live inside NOTES.

    \b
    Examples:
      kgvault watch ~/notes -o ~/notes-vault
      kgvault watch sample_vault -o /tmp/sample-kg --debounce 500
    """
    from kgvault.config import ConfigError, load_settings
    from kgvault.watch import FirstBuildFailed
    from kgvault.watch import watch as run_watch

    def load() -> Settings:
        return load_settings(notes, config, vault=vault, templates=templates)

    try:
        load()
    except ConfigError as error:
        raise UsageProblem(str(error)) from error
    click.echo(f"watching {notes} (Ctrl-C to stop)", err=True)
    try:
        also = [path for path in (config, templates) if path is not None]
        run_watch(load, debounce=debounce / 1000, say=click.echo, also=also)
    except KeyboardInterrupt:
        click.echo("stopped", err=True)
    except FirstBuildFailed as error:
        raise UsageProblem(f"the first build failed, so watching stops: {error}") from error
    except OSError as error:  # e.g. the folder cannot be watched (too many inotify watches)
        raise click.ClickException(f"watching stopped: {error}") from error


class _StageBar:
    """A progress bar over the pipeline's stages, shown only on a terminal."""

    STAGES = ("reading sources", "chunking", "extracting", "linking", "rendering", "writing", "indexing")

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.bar: object = None
        self.done = 0
        """How many stages are over: the bar shows those, not the one that just began."""

    def __enter__(self) -> _StageBar:
        if self.enabled:
            self.bar = click.progressbar(length=len(self.STAGES), label="building", file=sys.stderr)
            self.bar.__enter__()
        return self

    def stage(self, name: str) -> None:
        if self.bar is None:
            return
        self.bar.label = name  # type: ignore[attr-defined]
        if name in self.STAGES and self.STAGES.index(name) > self.done:
            self.bar.update(self.STAGES.index(name) - self.done)  # type: ignore[attr-defined]
            self.done = self.STAGES.index(name)

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            if exc[0] is None:
                self.bar.update(len(self.STAGES) - self.done)  # type: ignore[attr-defined]
            self.bar.__exit__(*exc)  # type: ignore[attr-defined]


@main.command()
@click.option("--schema", is_flag=True, help="Print the JSON schema of a draft instead.")
@click.option("--skill", is_flag=True, help="Write DIR/SKILL.md: an agent skill for a vault.")
@click.option(
    "-o",
    "--output",
    "skill_dir",
    type=_GivenPath(path_type=Path, file_okay=False),
    help="Folder to write SKILL.md into (with --skill).",
)
@click.option(
    "--vault",
    type=_GivenPath(path_type=Path, file_okay=False),
    help="Vault whose entities, predicates and tags the skill lists (with --skill) [./vault].",
)
@_templates_option
def prompt(
    schema: bool, skill: bool, skill_dir: Path | None, vault: Path | None, templates: Path | None
) -> None:
    """Print the instructions an extractor (an agent, a model) follows to write a draft.

    The draft (kgvault.draft/1) is what `kgvault import` and a build read. With
    --schema, print its JSON schema instead. With --skill, write DIR/SKILL.md: an
    agent skill holding the instructions, the schema and the names already in use
    in VAULT (entities, predicates, tags), so an agent reuses them.

    \b
    Examples:
      kgvault prompt > extract-prompt.md
      kgvault prompt --schema > draft.schema.json
      kgvault prompt --skill -o .claude/skills/my-notes --vault ~/notes-vault
    """
    if schema and skill:
        raise UsageProblem("--schema and --skill do not go together: pick one")
    if not skill and (skill_dir is not None or vault is not None):
        raise UsageProblem("-o and --vault go with --skill: kgvault prompt --skill -o DIR [--vault VAULT]")
    if schema:
        from kgvault.prompt import draft_schema

        click.echo(draft_schema())
        return
    from kgvault.prompt import PromptError, extraction_prompt, write_skill

    if not skill:
        try:
            click.echo(extraction_prompt(templates=templates), nl=False)
        except PromptError as error:
            raise UsageProblem(str(error)) from error
        return
    if skill_dir is None:
        raise UsageProblem("--skill needs a folder to write SKILL.md into: kgvault prompt --skill -o DIR")
    try:
        target, ontology = write_skill(vault or Path("vault"), skill_dir, templates=templates)
    except PromptError as error:
        raise UsageProblem(str(error)) from error
    except OSError as error:
        raise UsageProblem(f"cannot write {skill_dir / 'SKILL.md'}: {error}") from error
    click.echo(
        f"wrote {target}: {len(ontology.entities)} entities, {len(ontology.predicates)} predicates, "
        f"{len(ontology.tags)} tags"
    )


@main.command("import")
@click.argument("draft", type=_GivenPath(path_type=Path, dir_okay=False))
@click.option(
    "-o",
    "--output",
    "vault",
    type=_GivenPath(path_type=Path, file_okay=False),
    default=Path("vault"),
    show_default=True,
    help="The vault to import into.",
)
@click.option(
    "--notes",
    type=_GivenPath(path_type=Path, file_okay=False),
    help="The notes folder the vault is built from (default: the one its last build used).",
)
@_config_option
@_templates_option
@click.option("--dry-run", is_flag=True, help="Validate and say what would happen; write nothing.")
@click.option("--no-diff", is_flag=True, help="Insert every item as new: no duplicate detection.")
@click.option("--json", "as_json", is_flag=True, help="Print Mnemon's result object as JSON.")
def import_(
    draft: Path,
    vault: Path,
    notes: Path | None,
    config: Path | None,
    templates: Path | None,
    dry_run: bool,
    no_diff: bool,
    as_json: bool,
) -> None:
    """Import a DRAFT file (kgvault, Mnemon or mini-context-graph JSON) into a vault.

    Its valid items are kept in VAULT/.kgvault/drafts/ and are part of every later
    build of the vault; the vault is rebuilt at once. The same content as a node the
    vault has is skipped; a near-identical one updates what an earlier import gave.
    Invalid items are reported with their JSON pointer; the valid ones still land.

    \b
    Examples:
      kgvault import memory_draft.json -o ~/notes-vault
      kgvault import agent-draft.json -o ~/notes-vault --dry-run --json
    """
    from kgvault.build import BuildError
    from kgvault.build import build as run_build
    from kgvault.config import ConfigError, load_settings
    from kgvault.importer import ImportProblem, import_draft, notes_root, resolve_ids
    from kgvault.lock import VaultBusyError

    recorded = notes_root(vault)
    root = notes or recorded
    if root is None:
        raise UsageProblem(
            f"{vault} has not been built yet (or its notes folder moved): build it first with "
            f"`kgvault build NOTES -o {vault}`, or name the notes with --notes"
        )
    if notes is not None and recorded is not None and notes.resolve() != recorded.resolve():
        click.echo(
            f"note: {vault} was built from {recorded}; it is rebuilt from {notes} instead, as --notes says",
            err=True,
        )
    try:
        settings = load_settings(root, config, vault=vault, templates=templates, dry_run=dry_run or None)
        result = import_draft(draft, vault, notes=root, dry_run=dry_run, no_diff=no_diff)
        if not dry_run:
            report = run_build(settings)
            resolve_ids(result, vault)
            _exit_without_collecting()
    except (ImportProblem, ConfigError, BuildError) as error:
        raise UsageProblem(str(error)) from error
    except VaultBusyError as error:
        raise UsageProblem(f"{error}; try again when it is done") from error
    except OSError as error:
        raise UsageProblem(f"cannot write the vault {vault}: {error}") from error
    for pointer, reason in result.notices:  # kept whole, but said: an ignored field, a cleared name
        click.echo(f"note: {draft}#{pointer or '/'}: {reason}", err=True)
    if as_json:
        click.echo(json.dumps(result.to_json(), ensure_ascii=False, indent=2))
        return
    click.echo(
        f"{draft}: {result.imported} imported, {result.updated} updated, {result.skipped} skipped, "
        f"{result.errors} errors, {result.edges_inserted} edges"
        + (" (dry run: nothing written)" if dry_run else f" → {result.kept_as or 'nothing new to keep'}")
    )
    for row in result.results:
        if row["action"] == "error":
            click.echo(f"  {draft}#{row['pointer']}: {row['reason']}", err=True)
    if not dry_run:
        click.echo(f"{vault}: {report.files['written']} written, {report.files['removed']} removed")


# -- recall: search, tags, get, mcp ----------------------------------------------------------------

_read_vault_option = click.option(
    "--vault",
    type=_GivenPath(path_type=Path, file_okay=False),
    default=Path("vault"),
    show_default=True,
    help="The built vault to read.",
)


def _recall_error(error: Exception) -> UsageProblem:
    """A missing or unreadable index, said as what to do."""
    return UsageProblem(str(error))


@main.command()
@click.argument("query")
@_read_vault_option
@click.option("-k", "k", type=click.IntRange(1, 1000), default=10, show_default=True, help="How many hits.")
@click.option("--json", "as_json", is_flag=True, help="Print the hits as a JSON list.")
def search(query: str, vault: Path, k: int, as_json: bool) -> None:
    """Search the vault's episodic and semantic nodes for QUERY, best first.

    Ranks by words (stemmed), entities and people named, and time words; each hit
    cites its source lines (or message pointer).

    \b
    Examples:
      kgvault search "when did I switch the printer to Klipper" --vault ~/notes-vault
      kgvault search klipper --vault ~/notes-vault -k 5 --json
      kgvault search --vault ~/notes-vault -- "-20 degrees"   (a query starting with -)
    """
    from kgvault.search import NoIndexError
    from kgvault.search import search as run_search

    if not query.strip():
        raise UsageProblem('the query is empty; say what to look for, e.g. kgvault search "klipper"')
    try:
        hits = run_search(vault, query, k)
    except NoIndexError as error:
        raise _recall_error(error) from error
    if as_json:
        click.echo(json.dumps([hit.to_json() for hit in hits], ensure_ascii=False, indent=2))
        return
    for hit in hits:
        when = f"{hit.timestamp}  " if hit.timestamp else ""
        marks = "  (superseded)" if hit.superseded_by else ""
        marks += "  (in conflict)" if hit.conflicts_with else ""
        click.echo(f"{hit.score:7.3f}  {when}{hit.title}  ({hit.path}){marks}")
    if not hits:
        click.echo("no match", err=True)


@main.command()
@_read_vault_option
@click.option("--json", "as_json", is_flag=True, help="Print the tags as a JSON list of {tag, count}.")
def tags(vault: Path, as_json: bool) -> None:
    """Print the vault's tag tree with the number of nodes under each tag.

    \b
    Examples:
      kgvault tags --vault ~/notes-vault
      kgvault tags --vault ~/notes-vault --json
    """
    from kgvault.search import NoIndexError, tag_tree

    try:
        tree = tag_tree(vault)
    except NoIndexError as error:
        raise _recall_error(error) from error
    if as_json:
        click.echo(
            json.dumps([{"tag": tag, "count": count} for tag, count in tree], ensure_ascii=False, indent=2)
        )
        return
    for tag, count in tree:
        depth = tag.count("/")
        click.echo(f"{'  ' * depth}{tag.rpartition('/')[2]} ({count})")
    if not tree:
        click.echo("no tags: no node of this vault has one", err=True)


@main.command()
@_read_vault_option
@click.option("--tag", help="Every node under this tag (nested tags included), by time.")
@click.option("--node", "node_id", help="One node, by id.")
@click.option("--entity", help="One entity, by id, title or alias.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def get(vault: Path, tag: str | None, node_id: str | None, entity: str | None, as_json: bool) -> None:
    """Get the nodes under a tag, or one node, or one entity.

    \b
    Examples:
      kgvault get --tag 3d_printing/firmware --vault ~/notes-vault
      kgvault get --entity Klipper --vault ~/notes-vault --json
    """
    from kgvault.search import NoIndexError, get_entity, get_node, nodes_by_tag

    asked = sum(x is not None for x in (tag, node_id, entity))
    if asked != 1:
        what = "say what to get" if not asked else "get one thing at a time"
        raise UsageProblem(f"{what}: one of --tag TAG, --node ID or --entity NAME")
    if node_id is not None:
        # A page's path, as search and `get --tag` print it, names its node too.
        folder, _, page = node_id.removesuffix(".md").rpartition("/")
        node_id = page if folder in ("", "episodic", "semantic") else node_id
    try:
        if tag is not None:
            found: object = nodes_by_tag(vault, tag)
        elif node_id is not None:
            found = get_node(vault, node_id)
        else:
            found = get_entity(vault, str(entity))
    except NoIndexError as error:
        raise _recall_error(error) from error
    if found is None:
        if node_id is not None:
            raise UsageProblem(
                f"no node {node_id!r} in {vault}; `kgvault search WORDS --vault {vault}` finds nodes "
                f"(an entity is got with --entity NAME)"
            )
        import shlex  # only on this error

        where = shlex.quote(str(vault))
        if not (entity or "").strip():
            raise UsageProblem(
                f"--entity needs a name; `kgvault search WORDS --vault {where}` finds entities"
            )
        raise UsageProblem(
            f"no entity {entity!r} in {vault}; "
            f"`kgvault search {shlex.quote(entity or '')} --vault {where}` finds what mentions it"
        )
    if found == [] and not as_json:  # JSON says it with []
        raise UsageProblem(f"no node is tagged {tag!r} in {vault}; `kgvault tags --vault {vault}` lists them")
    if as_json:
        click.echo(json.dumps(found, ensure_ascii=False, indent=2, default=str))
        return
    if isinstance(found, dict):  # one node or entity: the whole record, as `--json` has it
        click.echo("\n".join(_record_lines(found)))
        return
    assert isinstance(found, list)
    for row in found:
        when = f"{row.get('timestamp')}  " if row.get("timestamp") else ""
        click.echo(f"{when}{row.get('title')}  ({row.get('path') or row.get('id')})")


def _record_lines(record: dict[str, object]) -> list[str]:
    """One node or entity as `get` prints it: its title and id, then each field that says something."""
    lines = [f"{record.get('title')}  ({record.get('path') or record.get('id')})"]
    for key, value in record.items():
        if key in ("title", "id", "path") or value in (None, "", [], {}):
            continue
        if not isinstance(value, list):
            lines.append(f"{key}: {value}")
            continue
        lines.append(f"{key}:")
        for item in value:
            lines.append(f"  - {_item_text(item)}")
    return lines


def _holds_marker(page: Path) -> bool:
    """Whether a page carries kgvault's marker line (an index.md of yours does not)."""
    from kgvault.layout import MARKER

    try:
        return MARKER in page.read_text("utf-8", errors="replace")
    except OSError:
        return False


def _item_text(item: object) -> str:
    """A list item of a record in words: a relation, a node, a source, an entity, or the value."""
    if not isinstance(item, dict):
        return str(item)
    if "relation" in item:
        return f"{item.get('from')} {item.get('label') or item.get('relation')} {item.get('to')}"
    if "line_start" in item:
        where = f"lines {item.get('line_start')}-{item.get('line_end')}"
        return f"{item.get('path')}, {item.get('pointer') or where}"
    when = f"{item['timestamp']}  " if item.get("timestamp") else ""
    return f"{when}{item.get('title')}  ({item.get('id')})"


@main.command()
@_read_vault_option
@click.option(
    "--notes",
    type=_GivenPath(path_type=Path, file_okay=False),
    help="The notes folder (default: the one the vault was last built from); add_memory writes there.",
)
@click.option(
    "--inbox", default="inbox", show_default=True, help="Folder of the notes where add_memory writes."
)
def mcp(vault: Path, notes: Path | None, inbox: str) -> None:
    """Serve the vault to agents: a Model Context Protocol server over stdio.

    Tools: search_memory, list_tags, get_nodes_by_tag, get_entity, get_node and
    add_memory (which writes a draft into NOTES/inbox/ for the next build).

    \b
    Examples:
      kgvault mcp --vault ~/notes-vault
      claude mcp add kgvault -- kgvault mcp --vault ~/notes-vault
    """
    from kgvault.mcp_server import serve, startup_problem

    problem = startup_problem(vault, notes, inbox)
    if problem is not None:
        raise UsageProblem(problem)
    serve(vault, notes, inbox)


@main.command()
@click.argument("vault", type=_GivenPath(path_type=Path, file_okay=False))
@click.option(
    "--notes",
    type=_GivenPath(path_type=Path, file_okay=False),
    help="The notes folder, to check coverage and evidence (default: the one the vault was built from).",
)
@click.option(
    "--max-sensitivity",
    type=click.Choice(["public", "private", "confidential"]),
    help="Also fail on any node or relation more sensitive than this (the proof a vault is safe to share).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the problems as a JSON list.")
def check(vault: Path, notes: Path | None, max_sensitivity: str | None, as_json: bool) -> None:
    """Check a vault: the vault contract, Obsidian's rules, the manifest, every evidence line.

    Exits 0 when the vault is sound, 1 with the list of problems otherwise.

    \b
    Examples:
      kgvault check ~/notes-vault
      kgvault check public-vault --max-sensitivity public --json
    """
    from kgvault.check import check_vault
    from kgvault.importer import notes_root
    from kgvault.layout import MANIFEST

    if not vault.is_dir():
        raise UsageProblem(f"vault folder {vault} not found")
    if notes is not None and not notes.is_dir():
        raise UsageProblem(f"notes folder {notes} not found")
    if not (vault / MANIFEST).exists() and not _holds_marker(vault / "index.md"):
        raise UsageProblem(
            f"{vault} is not a kgvault vault (no {MANIFEST}, no index.md of kgvault's); build one with: "
            f"kgvault build NOTES -o {vault}"
        )
    notes = notes or notes_root(vault)
    if notes is None:  # the folder it was built from is gone (or it never was built): say what is not checked
        click.echo(
            "note: the notes folder this vault was built from is not found, so coverage and evidence are "
            "not checked against the notes; name it with --notes",
            err=True,
        )
    problems = check_vault(vault, notes=notes, max_sensitivity=max_sensitivity)
    if as_json:
        rows = [{"path": p.path, "line": p.line, "message": p.message} for p in problems]
        click.echo(json.dumps(rows, ensure_ascii=False, indent=2))
    else:
        for problem in problems:
            where = f"{problem.path}:{problem.line}" if problem.line else problem.path
            click.echo(f"{where}: {problem.message}")
        click.echo(f"{vault}: {len(problems)} problem(s)" if problems else f"{vault}: no problem", err=True)
    if problems:
        raise SystemExit(1)
