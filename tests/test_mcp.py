"""The MCP server: `kgvault mcp` as a subprocess, driven by the `mcp` client over stdio."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import date
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.types import CallToolResult, TextContent

from kgvault import __version__
from kgvault.drafts import read_draft_data
from kgvault.mcp_server import ToolProblem, write_memory

from .conftest import ROOT, assert_written_nowhere, run_build

TOOLS = {"search_memory", "list_tags", "get_nodes_by_tag", "get_entity", "get_node", "add_memory"}
MEMORY = {
    "content": "Swapped the Voron 2.4 hotend for a Rapido UHF; first prints at 300 mm/s look clean.",
    "memory_layer": "episodic",
    "type": "observation",
    "timestamp": "2025-07-01",
    "tags": ["3d_printing/voron"],
    "entities": ["Voron 2.4"],
    "attributed_to": "alex",
}
Session = Callable[[ClientSession], Awaitable[None]]


def with_server(tmp_path: Path, vault: Path, notes: Path | None, scenario: Session) -> None:
    """Start `kgvault mcp` on the vault, run a scenario against it, and stop it."""
    args = ["-m", "kgvault", "mcp", "--vault", str(vault)]
    if notes is not None:
        args += ["--notes", str(notes)]
    # The server must import this tree's kgvault, whatever is installed.
    python_path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    server = StdioServerParameters(
        command=sys.executable, args=args, env={"PYTHONPATH": python_path}, cwd=str(tmp_path)
    )

    async def run() -> None:
        with anyio.fail_after(30), (tmp_path / "server.log").open("a", encoding="utf-8") as log:
            async with (
                stdio_client(server, errlog=log) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                await scenario(session)

    # In a thread of its own: an event loop another test left as this thread's current one (litellm
    # does) must not be dropped, unclosed, by ours.
    with ThreadPoolExecutor(1) as thread:
        thread.submit(anyio.run, run).result()


def data(result: CallToolResult) -> Any:
    """A successful tool result's JSON: its text block, which must say what its structured content says."""
    assert not result.is_error, text(result)
    found = json.loads(text(result))
    structured = result.structured_content
    assert structured == (found if isinstance(found, dict) else {"result": found})
    return found


def text(result: CallToolResult) -> str:
    """The result's one text block."""
    [block] = result.content
    assert isinstance(block, TextContent)
    return block.text


def test_search_fetch_add_rebuild_and_find(sample_copy: Path, tmp_path: Path) -> None:
    notes, vault = sample_copy, tmp_path / "vault"
    run_build(notes, vault)
    added: dict[str, Any] = {}

    async def first(session: ClientSession) -> None:
        tools = await session.list_tools()
        assert {tool.name for tool in tools.tools} == TOOLS
        assert all(tool.description for tool in tools.tools)

        tags = data(await session.call_tool("list_tags", {}))
        assert {"tag", "count"} <= tags[0].keys()
        tag = tags[0]["tag"]
        under = data(await session.call_tool("get_nodes_by_tag", {"tag": tag}))
        assert len(under) == tags[0]["count"]

        hits = data(await session.call_tool("search_memory", {"query": "heating failed Ender 3", "k": 5}))
        assert hits and len(hits) <= 5
        assert all(hit["sources"] for hit in hits)
        assert {"path", "line_start", "line_end", "pointer"} <= hits[0]["sources"][0].keys()
        node = data(await session.call_tool("get_node", {"id": hits[0]["id"]}))
        assert node["id"] == hits[0]["id"]

        dana = data(await session.call_tool("get_entity", {"name": "Dana"}))  # an alias of Dana Kim
        assert dana["id"] == "dana-kim"
        unknown = await session.call_tool("get_entity", {"name": "Nobody Anyone Knows"})
        assert unknown.is_error and "search_memory" in text(unknown)

        undated = await session.call_tool("add_memory", {"content": "Alex likes PETG now."})
        assert undated.is_error and "timestamp" in text(undated) and "semantic" in text(undated)
        assert not list((notes / "inbox").glob("*.json"))

        added.update(data(await session.call_tool("add_memory", MEMORY)))
        again = data(await session.call_tool("add_memory", MEMORY))
        assert again == added  # the same memory twice is one file

    with_server(tmp_path, vault, notes, first)

    path = notes / added["path"]
    assert added["path"].startswith("inbox/") and path.is_file()
    assert len(list((notes / "inbox").glob("*.json"))) == 1
    draft = read_draft_data(json.loads(path.read_text("utf-8")))
    assert draft is not None and draft.format == "kgvault.draft/1" and not draft.problems
    [node] = draft.draft.nodes
    assert (node.memory_layer, node.timestamp, node.attributed_to) == ("episodic", date(2025, 7, 1), "alex")

    run_build(notes, vault)

    async def second(session: ClientSession) -> None:
        hits = data(await session.call_tool("search_memory", {"query": "Rapido UHF hotend"}))
        assert hits and hits[0]["id"] == added["id_hint"], hits
        assert hits[0]["timestamp"] == "2025-07-01"
        assert hits[0]["sources"][0]["path"] == added["path"]

    with_server(tmp_path, vault, notes, second)


def test_a_vault_gone_while_serving_is_a_tool_error_not_a_crash(tmp_path: Path) -> None:
    notes, vault = tmp_path / "notes", tmp_path / "vault"
    notes.mkdir()
    (notes / "printer.md").write_text("The Ender 3 runs Klipper.\n", encoding="utf-8")
    run_build(notes, vault)

    async def scenario(session: ClientSession) -> None:
        assert not (await session.call_tool("list_tags", {})).is_error
        shutil.rmtree(vault)  # deleted, or rebuilt elsewhere, while the client is connected
        tags = await session.call_tool("list_tags", {})
        assert tags.is_error and "is not found; give the vault's folder" in text(tags)
        memory = await session.call_tool("add_memory", {"content": "A fact.", "memory_layer": "semantic"})
        assert memory.is_error and "--notes" in text(memory)
        hits = await session.call_tool("search_memory", {"query": "anything"})
        assert hits.is_error  # the server is still up after an error

    with_server(tmp_path, vault, None, scenario)


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--vault", "no-vault"], "no-vault is not found; give the vault's folder (--vault)"),
        (["--vault", "notes"], "notes has no search index"),
        (["--vault", "vault", "--notes", "elsewhere"], "the notes folder elsewhere does not exist"),
        (["--vault", "vault", "--inbox", "../out"], "the inbox '../out' is not a visible folder"),
    ],
)
def test_a_server_that_could_answer_nothing_does_not_start(
    tmp_path: Path, args: list[str], says: str
) -> None:
    """A typo in a client's settings is said at once, not as an error on every later call."""
    done = subprocess.run(
        [sys.executable, "-m", "kgvault", "mcp", *args],
        cwd=tmp_path,
        env=_printer_vault(tmp_path),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2, done.stderr
    assert says in done.stderr


def _printer_vault(tmp_path: Path) -> dict[str, str]:
    """Build TMP/vault from one note in TMP/notes; the environment a server of this tree runs in."""
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "printer.md").write_text("The Ender 3 runs Klipper.\n", encoding="utf-8")
    run_build(notes, tmp_path / "vault")
    # The server must import this tree's kgvault, whatever is installed.
    python_path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    return {**os.environ, "PYTHONPATH": python_path}


def test_a_client_hanging_up_before_its_answer_stops_the_server_quietly(tmp_path: Path) -> None:
    server = subprocess.Popen(
        [sys.executable, "-m", "kgvault", "mcp", "--vault", "vault"],
        cwd=tmp_path,
        env=_printer_vault(tmp_path),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert server.stdin is not None and server.stdout is not None and server.stderr is not None
    hello = {"protocolVersion": "2024-11-05", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}
    server.stdin.write(
        json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello}).encode()
    )
    server.stdin.write(b"\n")
    server.stdin.flush()
    answer = json.loads(server.stdout.readline())
    assert answer["id"] == 1 and answer["result"]["serverInfo"]["version"] == __version__
    server.stdout.close()  # the client stops reading: the next answer has nowhere to go
    asked = [{"jsonrpc": "2.0", "method": "notifications/initialized"}]
    asked += [{"jsonrpc": "2.0", "id": 2, "method": "tools/list"}]
    server.stdin.write("".join(json.dumps(message) + "\n" for message in asked).encode())
    server.stdin.close()
    assert server.wait(timeout=60) == 0
    with server.stderr:
        assert b"Traceback" not in server.stderr.read()


def test_write_memory_names_files_by_date_title_and_content(tmp_path: Path) -> None:
    fact = "PETG needs a hotter bed than PLA."
    one = write_memory(
        tmp_path, "agents/inbox", content=fact, memory_layer="semantic", today=date(2025, 8, 2)
    )
    assert one["path"] == "agents/inbox/2025-08-02-petg-needs-a-hotter-bed-than-pla-" + one["path"][-13:]
    later = write_memory(
        tmp_path, "agents/inbox", content=fact, memory_layer="semantic", today=date(2025, 9, 1)
    )
    assert later == one  # the same memory on another day is still one file
    other_day = write_memory(tmp_path, "agents/inbox", content="Printed a benchy.", timestamp="2025-08-03")
    assert other_day["path"].startswith("agents/inbox/2025-08-03-printed-a-benchy-")
    for inbox in ("../outside", ".hidden", ""):
        with pytest.raises(ToolProblem, match="--inbox"):
            write_memory(tmp_path, inbox, content="x", timestamp="2025-08-03")
    with pytest.raises(ToolProblem, match="YYYY-MM-DD"):
        write_memory(tmp_path, "inbox", content="x", timestamp="2025-13-01")


def test_write_memory_never_overwrites_a_file_and_writes_only_where_a_build_reads(tmp_path: Path) -> None:
    fact = "PETG needs a hotter bed than PLA."
    first = write_memory(tmp_path, "inbox", content=fact, memory_layer="semantic", tags=["printing"])
    path = tmp_path / first["path"]
    edited = path.read_text("utf-8").replace('"printing"', '"3d_printing"')
    path.write_text(edited, "utf-8")  # the user corrects the tag
    again = write_memory(tmp_path, "inbox", content=fact, memory_layer="semantic", tags=["printing"])
    assert again["path"] == first["path"] and "edited since" in again["note"]
    assert path.read_text("utf-8") == edited  # the user's edit is kept
    other = write_memory(tmp_path, "inbox", content=fact, memory_layer="semantic", tags=["materials"])
    assert other["path"] != first["path"] and path.read_text("utf-8") == edited  # a file of its own
    (tmp_path / ".kgvaultignore").write_text("drafts/\n", "utf-8")
    with pytest.raises(ToolProblem, match="kgvaultignore"):
        write_memory(tmp_path, "drafts", content=fact, memory_layer="semantic")
    outside = tmp_path.parent / f"{tmp_path.name}-outside"
    outside.mkdir()
    (tmp_path / "linked").symlink_to(outside, target_is_directory=True)
    with pytest.raises(ToolProblem, match="leads out of the notes"):
        write_memory(tmp_path, "linked", content=fact, memory_layer="semantic")
    assert list(outside.iterdir()) == []


def test_a_secret_in_a_memory_names_no_file_and_no_node(tmp_path: Path) -> None:
    key = "sk-proj-AbCdEf1234567890abcdefGHIJKLmnop"
    added = write_memory(
        tmp_path, "inbox", content=f"{key} is the staging key for Heron.", memory_layer="semantic"
    )
    assert key.lower() not in added["path"].lower() and "abcdef1234567890" not in added["path"].lower()
    assert "abcdef1234567890" not in added["id_hint"]
    notes, vault = tmp_path, tmp_path.parent / f"{tmp_path.name}-vault"
    run_build(notes, vault)
    assert (vault / "semantic" / f"{added['id_hint']}.md").is_file()  # the hint is the node's id
    assert_written_nowhere(vault, ["abcdef1234567890"])
