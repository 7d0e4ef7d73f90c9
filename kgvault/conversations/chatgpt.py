"""ChatGPT exports: the `conversations.json` of an OpenAI data export, one conversation per entry."""

from __future__ import annotations

from datetime import UTC, tzinfo
from typing import Any

from kgvault.conversations import Conversation, read_export
from kgvault.conversations.chat_log import (
    clean_text,
    conversation_digest,
    json_pointer,
    render_chat,
    wall_time,
)
from kgvault.records import Problem, Role, Turn

ASSISTANT_SPEAKER = "ChatGPT"
"""Who says an export's assistant messages."""

_ROLES: dict[str, Role] = {"user": "human", "assistant": "assistant"}
# Only what the user saw as the conversation is read: reasoning, browsing results, custom
# instructions and memory updates have other content types and are left out.
_READ_CONTENT = frozenset({"text", "multimodal_text", "code"})
_CAPTION_KEYS = ("caption", "alt_text", "alt", "title")


def read_chatgpt(
    data: object, *, path: str = "", user_name: str, zone: tzinfo = UTC
) -> tuple[list[Conversation], list[Problem]] | None:
    """Read a parsed ChatGPT `conversations.json`; None when the data is not one (try another reader).

    Each conversation follows its current branch only (from `current_node` up to the root): the other
    branches are edits the user abandoned. A malformed conversation is a problem and skipped.
    """
    return read_export(data, _is_conversation, _read_conversation, path=path, user_name=user_name, zone=zone)


def _is_conversation(item: object) -> bool:
    """Tell whether an entry looks like a ChatGPT conversation (it has a message `mapping`)."""
    return isinstance(item, dict) and isinstance(item.get("mapping"), dict)


def _read_conversation(
    item: object, index: int, path: str, user_name: str, zone: tzinfo, problems: list[Problem]
) -> Conversation | None:
    """One conversation of the export, or None (with a problem) when it cannot be read."""
    pointer = json_pointer(index)
    if not isinstance(item, dict) or not isinstance(item.get("mapping"), dict):
        problems.append(Problem(path, None, f"conversation {pointer} has no message `mapping`; skipped"))
        return None
    mapping: dict[str, Any] = item["mapping"]
    current = item.get("current_node")
    if not isinstance(current, str) or current not in mapping:
        problems.append(Problem(path, None, f"conversation {pointer} has no valid `current_node`; skipped"))
        return None
    branch, broken = _branch(mapping, current)
    if broken:
        problems.append(Problem(path, None, f"conversation {pointer}: {broken}; read from there on"))
    turns = []
    for node_id in branch:
        turn = _turn(mapping[node_id], json_pointer(index, "mapping", node_id), user_name, zone)
        if turn is not None:
            turns.append(turn)
    text, placed = render_chat(turns)
    title = item.get("title")
    return Conversation(
        pointer=pointer,
        title=title.strip() if isinstance(title, str) else "",
        text=text,
        turns=placed,
        started=wall_time(item.get("create_time"), zone) or next((t.time for t in placed if t.time), None),
        sha256=conversation_digest(item),
    )


def _branch(mapping: dict[str, Any], current: str) -> tuple[list[str], str]:
    """The node ids from the root down to `current`, and what broke the walk up ("" when nothing did)."""
    chain: list[str] = []
    seen: set[str] = set()
    node_id: object = current
    while node_id is not None:
        if not isinstance(node_id, str) or not isinstance(mapping.get(node_id), dict):
            return chain[::-1], f"parent node {node_id!r} is missing"
        if node_id in seen:
            return chain[::-1], f"node {node_id!r} is its own ancestor"
        chain.append(node_id)
        seen.add(node_id)
        node_id = mapping[node_id].get("parent")
    return chain[::-1], ""


def _turn(node: dict[str, Any], pointer: str, user_name: str, zone: tzinfo) -> Turn | None:
    """The turn a node's message says; None for the root, a system or tool message, hidden or empty ones."""
    message = node.get("message")
    if not isinstance(message, dict):
        return None
    role = _ROLES.get(str(_dict(message.get("author")).get("role")))
    metadata = _dict(message.get("metadata"))
    if role is None or metadata.get("is_visually_hidden_from_conversation"):
        return None
    # An assistant message addressed to a tool (`recipient` "python", "web", ...) is a call, not a reply.
    if message.get("recipient", "all") not in ("all", None):
        return None
    said = clean_text(_message_text(message, metadata))
    if not said:
        return None
    return Turn(
        speaker=user_name if role == "human" else ASSISTANT_SPEAKER,
        role=role,
        text=said,
        line_start=0,
        line_end=0,
        time=wall_time(message.get("create_time"), zone),
        pointer=pointer,
    )


def _message_text(message: dict[str, Any], metadata: dict[str, Any]) -> str:
    """A message's text parts, images as `[image]` markers and attached files as `[file: name]`."""
    content = message.get("content")
    if not isinstance(content, dict) or str(content.get("content_type")) not in _READ_CONTENT:
        return ""
    if content.get("content_type") == "code":
        code = content.get("text")
        return code if isinstance(code, str) else ""
    listed = metadata.get("attachments")
    attachments = [a for a in listed if isinstance(a, dict)] if isinstance(listed, list) else []
    parts = content.get("parts")
    pieces = [_part_text(part, attachments) for part in parts] if isinstance(parts, list) else []
    pieces += [_file_marker(attachment) for attachment in attachments]
    return "\n".join(piece for piece in pieces if piece.strip())


def _part_text(part: object, attachments: list[dict[str, Any]]) -> str:
    """One content part: its text, a voice message's transcription, or an image marker."""
    if isinstance(part, str):
        return part
    if not isinstance(part, dict):
        return ""
    kind = part.get("content_type")
    if kind == "audio_transcription":
        spoken = part.get("text")
        return spoken if isinstance(spoken, str) else ""
    if kind == "image_asset_pointer":
        caption = _caption(part, attachments)
        return f"[image: {caption}]" if caption else "[image]"
    return ""


def _caption(part: dict[str, Any], attachments: list[dict[str, Any]]) -> str:
    """A caption for an image part: its own caption-like field, else the uploaded file's name."""
    for holder in (part, _dict(part.get("metadata"))):
        for key in _CAPTION_KEYS:
            value = holder.get(key)
            if isinstance(value, str) and value.strip():
                return " ".join(value.split())
    # The pointer names the upload (`file-service://file-abc`), whose attachment entry has its file name.
    asset = part.get("asset_pointer")
    asset_id = asset.partition("://")[2] if isinstance(asset, str) else ""
    for attachment in attachments:
        name = attachment.get("name")
        if asset_id and attachment.get("id") == asset_id and isinstance(name, str):
            return name.strip()
    return ""


def _file_marker(attachment: dict[str, Any]) -> str:
    """`[file: name]` for an uploaded file that is not an image (images are marked where they appear)."""
    mime = attachment.get("mime_type")
    name = attachment.get("name")
    if isinstance(mime, str) and mime.startswith("image/"):
        return ""
    return f"[file: {name.strip()}]" if isinstance(name, str) and name.strip() else "[file]"


def _dict(value: object) -> dict[str, Any]:
    """The value when it is a JSON object, else an empty one: exports leave fields out or null."""
    return value if isinstance(value, dict) else {}
