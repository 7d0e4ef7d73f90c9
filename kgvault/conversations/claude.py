"""Claude exports: the `conversations.json` of a claude.ai data export, one conversation per entry."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, tzinfo
from typing import Any

from kgvault.conversations import Conversation, read_export
from kgvault.conversations.chat_log import (
    clean_text,
    conversation_digest,
    is_image_file,
    json_pointer,
    render_chat,
    wall_time,
)
from kgvault.records import Problem, Role, Turn

ASSISTANT_SPEAKER = "Claude"
"""Who says an export's assistant messages."""

_ROLES: dict[str, Role] = {"human": "human", "assistant": "assistant"}


def read_claude(
    data: object, *, path: str = "", user_name: str, zone: tzinfo = UTC
) -> tuple[list[Conversation], list[Problem]] | None:
    """Read a parsed claude.ai `conversations.json`; None when the data is not one (try another reader).

    Tool calls, tool results and thinking are left out; shared files are kept as `[file: name]` and
    `[image: name]` markers, never their contents. A malformed conversation is a problem and skipped.
    """
    return read_export(data, _is_conversation, _read_conversation, path=path, user_name=user_name, zone=zone)


def _is_conversation(item: object) -> bool:
    """Tell whether an entry looks like a Claude conversation (it has a `chat_messages` list)."""
    return isinstance(item, dict) and isinstance(item.get("chat_messages"), list)


def _read_conversation(
    item: object, index: int, path: str, user_name: str, zone: tzinfo, problems: list[Problem]
) -> Conversation | None:
    """One conversation of the export, or None (with a problem) when it cannot be read."""
    pointer = json_pointer(index)
    if not isinstance(item, dict) or not isinstance(item.get("chat_messages"), list):
        problems.append(Problem(path, None, f"conversation {pointer} has no `chat_messages` list; skipped"))
        return None
    messages: list[Any] = item["chat_messages"]
    turns = []
    for position in _current_branch(messages, item.get("current_leaf_message_uuid")):
        message = messages[position]
        message_pointer = json_pointer(index, "chat_messages", position)
        if not isinstance(message, dict) or str(message.get("sender")) not in _ROLES:
            problems.append(Problem(path, None, f"message {message_pointer} has no known `sender`; skipped"))
            continue
        turn = _turn(message, message_pointer, user_name, zone)
        if turn is not None:
            turns.append(turn)
    text, placed = render_chat(turns)
    title = item.get("name")
    return Conversation(
        pointer=pointer,
        title=title.strip() if isinstance(title, str) else "",
        text=text,
        turns=placed,
        started=wall_time(item.get("created_at"), zone) or next((t.time for t in placed if t.time), None),
        sha256=conversation_digest(item),
    )


def _current_branch(messages: list[Any], leaf: object) -> list[int]:
    """Positions of the messages on the conversation's current branch, in export order.

    Newer exports link each message to its parent; an edited or retried message leaves siblings,
    and only the branch ending at the current leaf (else the last message) is the conversation.
    Without those links every message is read, in order.
    """
    everything = list(range(len(messages)))
    parents: dict[str, object] = {}
    for message in messages:
        if not isinstance(message, dict) or "parent_message_uuid" not in message:
            return everything
        parents[str(message.get("uuid"))] = message["parent_message_uuid"]
    if all(count == 1 for count in Counter(map(str, parents.values())).values()):
        return everything
    node: object = leaf if isinstance(leaf, str) and leaf in parents else str(messages[-1].get("uuid"))
    branch: set[str] = set()
    while isinstance(node, str) and node in parents and node not in branch:
        branch.add(node)
        node = parents[node]
    return [position for position in everything if str(messages[position].get("uuid")) in branch]


def _turn(message: dict[str, Any], pointer: str, user_name: str, zone: tzinfo) -> Turn | None:
    """The turn one message says; None when it says nothing (only tool calls, say)."""
    said = clean_text(_message_text(message))
    if not said:
        return None
    role = _ROLES[str(message["sender"])]
    return Turn(
        speaker=user_name if role == "human" else ASSISTANT_SPEAKER,
        role=role,
        text=said,
        line_start=0,
        line_end=0,
        time=wall_time(message.get("created_at"), zone),
        pointer=pointer,
    )


def _message_text(message: dict[str, Any]) -> str:
    """Markers for the message's files (shown above it), then its text blocks, else its `text`."""
    pieces = _file_markers(message)
    content = message.get("content")
    if isinstance(content, list) and content:
        # `text` repeats the blocks, with placeholders for tool calls: the blocks are the message.
        pieces += [_block_text(block) for block in content]
    elif isinstance(message.get("text"), str):
        pieces.append(message["text"])
    return "\n".join(piece for piece in pieces if piece.strip())


def _block_text(block: object) -> str:
    """A content block's text, an image marker, or nothing (tool use, tool results, thinking)."""
    if not isinstance(block, dict):
        return ""
    kind = block.get("type")
    if kind == "text":
        text = block.get("text")
        return text if isinstance(text, str) else ""
    if kind == "image":
        name = block.get("file_name") or block.get("name")
        return f"[image: {name.strip()}]" if isinstance(name, str) and name.strip() else "[image]"
    return ""


def _file_markers(message: dict[str, Any]) -> list[str]:
    """`[image: name]` or `[file: name]` for each file the message shares, once per name."""
    markers: list[str] = []
    for key in ("attachments", "files", "files_v2"):
        entries = message.get(key)
        for entry in entries if isinstance(entries, list) else []:
            marker = _file_marker(entry, attached_text=key == "attachments")
            if marker not in markers:
                markers.append(marker)
    return markers


def _file_marker(entry: object, *, attached_text: bool) -> str:
    """One file's marker; attachments are documents whose text was extracted, so never images."""
    if (
        not isinstance(entry, dict)
        or not isinstance(entry.get("file_name"), str)
        or not entry["file_name"].strip()
    ):
        return "[file]"
    name = entry["file_name"].strip()
    is_image = not attached_text and (entry.get("file_kind") == "image" or is_image_file(name))
    return f"[image: {name}]" if is_image else f"[file: {name}]"
