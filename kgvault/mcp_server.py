"""`kgvault mcp`: serve a built vault to agents as a Model Context Protocol server over stdio.

Five tools read the vault's search index (`kgvault.search`); `add_memory` writes a kgvault draft
into the notes folder's inbox, where the next build (or `kgvault watch`) picks it up. The server
never edits the vault, and nothing leaves the machine: the transport is the client's own pipes.

The `mcp` SDK is imported only when the server starts, so the rest of the CLI stays fast.
"""

# No `from __future__ import annotations` here: the SDK reads the tools' annotations to build their
# schemas, and some of them name types imported inside `build_server`.

import json
import os
import re
import sys
import threading
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeVar

from pydantic import Field
from typing_extensions import TypedDict

from kgvault import __version__
from kgvault.drafts import read_draft_data
from kgvault.extract.draft import SCHEMA_VERSION
from kgvault.extract.offline import normalize_tag
from kgvault.importer import notes_root
from kgvault.names import node_slug, short_hash, slugify
from kgvault.secrets import mask_secrets
from kgvault.write import atomic_write

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

SERVER_NAME = "kgvault"
PICKED_UP = "picked up by the next build or by kgvault watch"
SOURCE_DESCRIPTION = "added by an agent over MCP (kgvault mcp)"
"""What an inbox draft says it came from; no notes path, so no quote is looked up in a note."""
EPISODE_NAME_CHARS = 30
TITLE_CHARS = 120
"""A title made from a memory's first line is cut at a word boundary to at most this many characters."""
MAX_HITS = 100

INSTRUCTIONS = """\
kgvault is the user's long-term memory: a knowledge graph compiled from their notes and conversations.
Episodic nodes are dated events (observations, decisions, states); semantic nodes are lasting facts,
concepts and procedures; entities are the people, things and places they link to.
Start with list_tags: the tag tree is the index of what the memory holds (tags are chunk labels).
Then unpack one tag with get_nodes_by_tag, or ask search_memory in words; open a hit with get_node
and a person or thing with get_entity. Hits cite their sources (note path and lines).
To remember something new, call add_memory: it goes to the notes' inbox and is part of the memory
after the next build."""

SEARCH_MEMORY = """\
Search the memory in words; the best nodes first.
Ranks by words (stemmed), by the entities and people the query names, and by time words ("in May",
"last year"). Each hit is {id, path, title, memory_layer, type, timestamp, score, sources}, where
sources cite the note lines (or message pointer) it came from. Open a hit with get_node(id) for its
body. To survey a topic, start with list_tags and get_nodes_by_tag instead."""

LIST_TAGS = """\
List every tag of the memory with the number of nodes under it: [{tag, count}].
Call this first: tags are the labels of the memory's chunks, nested with "/" (a count includes the
nested tags), so the tree is the memory's table of contents. Unpack a tag with get_nodes_by_tag."""

GET_NODES_BY_TAG = """\
Every node under a tag (nested tags included), oldest first (undated last).
Take the tag from list_tags (with or without "#"). Each node is {id, path, title, memory_layer,
type, timestamp, tags, attributed_to}; open one with get_node(id) for its body and sources."""

GET_ENTITY = """\
One entity (a person, thing, place, project…) by its id, title or any alias: {id, title,
entity_type, description, aliases, relations (both ways), nodes (the nodes that name it, by time)}.
An unknown name is an error: use search_memory to find how the memory names it."""

GET_NODE = """\
One episodic or semantic node by its id (from search_memory, get_nodes_by_tag or get_entity):
its title, body, timestamp, tags, entities, superseded_by and conflicts_with (newer or clashing
nodes: check them before trusting an old state), and sources (note path and lines)."""

ADD_MEMORY = """\
Remember something: write it as a kgvault draft into the notes' inbox folder.
It becomes part of the memory at the next build (or at once under kgvault watch); this tool never
edits the vault. Give a dated event as memory_layer "episodic" (the default) with timestamp
YYYY-MM-DD, the day it happened; a lasting fact, concept or procedure as "semantic" (no timestamp
needed). type: observation, decision or state for episodic; fact, concept or procedure for semantic.
title defaults to the first line of content. Name the people and things it is about in entities,
so it links to them. The same memory added twice is one file. Returns {path, id_hint, note}:
the draft's path in the notes folder and the id the node will probably get."""

_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
_HEADING = re.compile(r"^#+\s*")

T = TypeVar("T")


class ToolProblem(Exception):
    """A tool call that cannot be answered as asked; the message tells the agent what to do instead."""


class TagCount(TypedDict):
    """One tag of the tag tree and how many nodes are under it."""

    tag: str
    count: int


class AddedMemory(TypedDict):
    """Where add_memory wrote its draft."""

    path: str
    """The draft file, relative to the notes folder."""
    id_hint: str
    """The id the node will probably have after the next build (the slug of its title)."""
    note: str


def serve(vault: Path, notes: Path | None = None, inbox: str = "inbox") -> None:
    """Serve the vault over stdio until the client hangs up."""
    try:
        build_server(vault, notes, inbox).run("stdio")
    except* BrokenPipeError:
        # The client hung up while an answer was on its way: nobody is left to tell. Output still
        # buffered would fail again at exit, so it goes nowhere.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def startup_problem(vault: Path, notes: Path | None, inbox: str) -> str | None:
    """What keeps the server from answering at all (a vault with no index, a wrong --notes or
    --inbox), said before any client waits on it; None when it can start."""
    from kgvault import search

    try:
        search.require_index(vault.expanduser())
        _inbox_path(inbox)
        if notes is not None:
            _notes_folder(vault.expanduser(), notes.expanduser())
    except (search.NoIndexError, ToolProblem) as problem:
        return str(problem)
    return None


def build_server(vault: Path, notes: Path | None = None, inbox: str = "inbox") -> "MCPServer[Any]":
    """The MCP server with kgvault's six tools over `vault`; `add_memory` writes into NOTES/`inbox`."""
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp.types import CallToolResult, TextContent, ToolAnnotations

    from kgvault import search

    # An MCP client starts the server without a shell: `~` in its config arrives as it is written.
    vault = vault.expanduser()
    notes = notes.expanduser() if notes is not None else None
    server: MCPServer[Any] = MCPServer(SERVER_NAME, instructions=INSTRUCTIONS, version=__version__)
    reading = ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False)
    writing = ToolAnnotations(
        read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False
    )
    writes = threading.Lock()  # sync tools run on worker threads; one inbox write at a time

    def answer(call: Callable[[], T]) -> T:
        """Run a tool's work; what the agent can act on becomes a tool error, not a crash."""
        try:
            return call()
        except ToolProblem as problem:
            raise ToolError(str(problem)) from problem
        except search.NoIndexError as error:
            raise ToolError(str(error)) from error  # it says to build the vault first

    def as_result(data: Any) -> CallToolResult:
        """One JSON text block for every client, and the same data as structured content."""
        plain = json.loads(json.dumps(data, ensure_ascii=False, default=str))
        text = json.dumps(plain, ensure_ascii=False)  # compact: an agent pays for every token
        structured = plain if isinstance(plain, dict) else {"result": plain}
        return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=structured)

    @server.tool(description=SEARCH_MEMORY, annotations=reading)
    def search_memory(
        query: Annotated[str, Field(description="What to recall, in words.")],
        k: Annotated[int, Field(ge=1, le=MAX_HITS, description="How many hits.")] = 10,
    ) -> Annotated[CallToolResult, list[dict[str, Any]]]:
        return as_result(answer(lambda: [hit.to_json() for hit in search.search(vault, _query(query), k)]))

    @server.tool(description=LIST_TAGS, annotations=reading)
    def list_tags() -> Annotated[CallToolResult, list[TagCount]]:
        tree = answer(lambda: search.tag_tree(vault))
        return as_result([TagCount(tag=tag, count=count) for tag, count in tree])

    @server.tool(description=GET_NODES_BY_TAG, annotations=reading)
    def get_nodes_by_tag(
        tag: Annotated[str, Field(description='A tag from list_tags, e.g. "3d_printing/firmware".')],
    ) -> Annotated[CallToolResult, list[dict[str, Any]]]:
        return as_result(answer(lambda: _nodes_by_tag(vault, tag)))

    @server.tool(description=GET_ENTITY, annotations=reading)
    def get_entity(
        name: Annotated[str, Field(description="The entity's id, title or one of its aliases.")],
    ) -> Annotated[CallToolResult, dict[str, Any]]:
        return as_result(answer(lambda: _found(search.get_entity(vault, name.strip()), "entity", name)))

    @server.tool(description=GET_NODE, annotations=reading)
    def get_node(
        id: Annotated[str, Field(description="The node's id, as a hit or a tag listing gives it.")],
    ) -> Annotated[CallToolResult, dict[str, Any]]:
        return as_result(answer(lambda: _found(search.get_node(vault, id.strip()), "node", id)))

    @server.tool(description=ADD_MEMORY, annotations=writing)
    def add_memory(
        content: Annotated[str, Field(description="The memory itself, in plain words; its body.")],
        memory_layer: Annotated[
            Literal["episodic", "semantic"],
            Field(description="episodic: a dated event (needs timestamp); semantic: a lasting fact."),
        ] = "episodic",
        type: Annotated[
            Literal["observation", "decision", "state", "fact", "concept", "procedure"] | None,
            Field(description="Default: observation (episodic) or fact (semantic)."),
        ] = None,
        title: Annotated[
            str | None, Field(description="One line; default: the first line of content.")
        ] = None,
        timestamp: Annotated[
            str | None,
            Field(
                description="YYYY-MM-DD, the day it happened; required for episodic.", examples=["2025-03-12"]
            ),
        ] = None,
        tags: Annotated[
            list[str] | None, Field(description='Tags, nested with "/", e.g. ["health/sleep"].')
        ] = None,
        entities: Annotated[
            list[str] | None, Field(description="Names of the people and things it is about.")
        ] = None,
        attributed_to: Annotated[str | None, Field(description="Who said or did it (episodic only).")] = None,
    ) -> Annotated[CallToolResult, AddedMemory]:
        def write() -> AddedMemory:
            with writes:
                return write_memory(
                    _notes_folder(vault, notes),
                    inbox,
                    content=content,
                    memory_layer=memory_layer,
                    type=type,
                    title=title,
                    timestamp=timestamp,
                    tags=tags or [],
                    entities=entities or [],
                    attributed_to=attributed_to,
                )

        return as_result(answer(write))

    return server


# -- reading ------------------------------------------------------------------------------------


def _query(query: str) -> str:
    if not query.strip():
        raise ToolProblem("the query is empty: say what to recall, or call list_tags to see what there is")
    return query


def _nodes_by_tag(vault: Path, tag: str) -> list[dict[str, Any]]:
    """The nodes under a tag; an unknown tag is a problem that points at list_tags."""
    from kgvault.search import nodes_by_tag

    wanted = tag.strip().lstrip("#").strip("/")
    if not wanted:
        raise ToolProblem("the tag is empty: call list_tags and pick one")
    nodes = nodes_by_tag(vault, wanted)
    if not nodes:
        raise ToolProblem(f"no node is tagged {wanted!r}: call list_tags for the tags there are")
    return nodes


def _found(record: dict[str, Any] | None, kind: str, asked: str) -> dict[str, Any]:
    if record is not None:
        return record
    if kind == "entity":
        raise ToolProblem(
            f"no entity is called {asked!r} (by id, title or alias): "
            "search_memory finds how the memory names it"
        )
    raise ToolProblem(f"no node has the id {asked!r}: take ids from search_memory or get_nodes_by_tag")


# -- writing ------------------------------------------------------------------------------------


def _notes_folder(vault: Path, notes: Path | None) -> Path:
    """The notes folder add_memory writes into: the one given, else the one the vault was built from."""
    if notes is not None:
        if not notes.is_dir():
            raise ToolProblem(f"the notes folder {notes} does not exist; start kgvault mcp with --notes DIR")
        return notes
    recorded = notes_root(vault)
    if recorded is None:
        raise ToolProblem(
            f"the notes folder of {vault} is not known (not built yet, or the notes moved): "
            "start kgvault mcp with --notes DIR"
        )
    return recorded


def write_memory(
    notes: Path,
    inbox: str,
    *,
    content: str,
    memory_layer: Literal["episodic", "semantic"] = "episodic",
    type: str | None = None,
    title: str | None = None,
    timestamp: str | None = None,
    tags: list[str] | tuple[str, ...] = (),
    entities: list[str] | tuple[str, ...] = (),
    attributed_to: str | None = None,
    today: date | None = None,
) -> AddedMemory:
    """Validate one memory as a kgvault.draft/1 draft and write it atomically into NOTES/`inbox`/.

    The file is named `<date>-<title slug>-<hash>.json`, the hash of the whole memory: the same
    memory again finds its file and writes nothing, another (other tags, another title) gets a file
    of its own, and a file the user edited since is never overwritten.
    """
    folder = notes / _inbox_path(inbox)
    _check_inbox(notes, folder)
    raw = memory_draft(
        content,
        memory_layer=memory_layer,
        type=type,
        title=title,
        timestamp=timestamp,
        tags=tags,
        entities=entities,
        attributed_to=attributed_to,
    )
    node = raw["nodes"][0]
    data = (json.dumps(raw, ensure_ascii=False, indent=2) + "\n").encode("utf-8")
    digest = short_hash(data.decode("utf-8"))
    day = timestamp or (today or date.today()).isoformat()
    # The title as the vault shows it: a key or password in it must not name a file, nor the node.
    shown = mask_secrets(node["title"])[0]
    name = f"{day}-{slugify(shown, max_chars=60)}-{digest}.json"
    same = sorted(folder.glob(f"*-{digest}.json")) if folder.is_dir() else []
    path = same[0] if same else folder / name
    note = PICKED_UP
    try:
        if not path.is_file():
            atomic_write(path, data, new=True)
        elif path.read_bytes() != data:  # the user edited it since: theirs now, left as it is
            note = "already in the inbox, and edited since: left as it is"
    except OSError as error:
        raise ToolProblem(f"cannot write {path}: {error.strerror or error}") from error
    return AddedMemory(path=path.relative_to(notes).as_posix(), id_hint=node_slug(shown), note=note)


def _check_inbox(notes: Path, folder: Path) -> None:
    """Refuse an inbox no build reads: one leading out of the notes (a link), or one the notes'
    `.kgvaultignore` leaves out."""
    from kgvault.discover import is_ignored

    root, real = notes.resolve(), folder.resolve()
    if real != root and root not in real.parents:
        raise ToolProblem(
            f"the inbox {folder} leads out of the notes folder (a symbolic link), so no build would read "
            "what is written there; start kgvault mcp with another --inbox"
        )
    inside = real.relative_to(root).as_posix()
    if is_ignored(root, f"{inside}/memory.json"):
        raise ToolProblem(
            f"the inbox {inside}/ is left out by the notes' .kgvaultignore, so no build would read what "
            "is written there; start kgvault mcp with another --inbox, or change .kgvaultignore"
        )


def memory_draft(
    content: str,
    *,
    memory_layer: Literal["episodic", "semantic"] = "episodic",
    type: str | None = None,
    title: str | None = None,
    timestamp: str | None = None,
    tags: list[str] | tuple[str, ...] = (),
    entities: list[str] | tuple[str, ...] = (),
    attributed_to: str | None = None,
) -> dict[str, Any]:
    """One memory as a raw kgvault.draft/1 draft with one node, validated as a build will read it."""
    body = content.strip()
    if not body:
        raise ToolProblem("content is empty: say what to remember")
    if memory_layer == "episodic" and not timestamp:
        raise ToolProblem(
            "an episodic memory needs a timestamp (YYYY-MM-DD, the day it happened): give one, "
            'or add it with memory_layer "semantic" if it is a lasting fact rather than an event'
        )
    if timestamp:
        try:
            date.fromisoformat(timestamp if _DAY.fullmatch(timestamp) else "")
        except ValueError:
            raise ToolProblem(f"timestamp {timestamp!r} is not a day: give it as YYYY-MM-DD") from None
    heading = (title or "").strip() or _title_from(body)
    names = list(dict.fromkeys(name.strip() for name in entities if name.strip()))
    node: dict[str, Any] = {
        "memory_layer": memory_layer,
        "type": type or ("observation" if memory_layer == "episodic" else "fact"),
        "title": heading,
        "tags": sorted({tag for tag in map(normalize_tag, tags) if tag}),
        "entities": names,
    }
    if body != heading:  # a one-line memory is its title
        node["body"] = body
    if timestamp:
        node["timestamp"] = timestamp
    if attributed_to and attributed_to.strip():
        node["attributed_to"] = attributed_to.strip()
    raw: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        # Masked before it is cut: a key cut short no longer looks like one, and would stay whole.
        "episode_name": _cut_at_word(mask_secrets(heading)[0], EPISODE_NAME_CHARS),
        "source_description": SOURCE_DESCRIPTION,
    }
    if timestamp:
        raw["reference_time"] = timestamp
    raw["nodes"] = [node]
    raw["entities"] = [{"name": name} for name in names]
    found = read_draft_data(raw)
    problems = (
        [reason for pointer, reason in found.problems if "episode_name" not in pointer] if found else []
    )
    if found is None or problems or len(found.draft.nodes) != 1:
        raise ToolProblem("the memory is not a valid draft: " + ("; ".join(problems) or "unreadable"))
    return raw


def _title_from(body: str) -> str:
    """The first line of a memory, as a title of at most TITLE_CHARS characters."""
    first = _HEADING.sub("", body.splitlines()[0]).strip() or body.split()[0]
    return _cut_at_word(first, TITLE_CHARS)


def _cut_at_word(text: str, limit: int) -> str:
    """Cut text to at most `limit` characters, at a space when one is in its second half."""
    if len(text) <= limit:
        return text
    cut = text[:limit]
    space = cut.rfind(" ")
    return (cut[:space] if space >= limit // 2 else cut).rstrip(" ,;:.-")


def _inbox_path(inbox: str) -> Path:
    """The inbox as a path inside the notes: relative, not hidden (a build skips hidden folders)."""
    parts = [part for part in inbox.replace("\\", "/").split("/") if part not in ("", ".")]
    if not parts or inbox.startswith("/") or any(part == ".." or part.startswith(".") for part in parts):
        raise ToolProblem(
            f"the inbox {inbox!r} is not a visible folder inside the notes; start kgvault mcp with "
            "--inbox NAME (e.g. inbox)"
        )
    return Path(*parts)
