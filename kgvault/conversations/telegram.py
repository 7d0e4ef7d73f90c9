"""Telegram exports: the `result.json` Telegram Desktop writes, for one chat or for all of them."""

from __future__ import annotations

from datetime import tzinfo
from typing import Any

from kgvault.conversations import Conversation, plain_speaker
from kgvault.conversations.chat_log import chat_of, clean_text, json_pointer, wall_time
from kgvault.records import Problem, Role, Turn
from kgvault.secrets import mask_secrets

_MEDIA = {
    "sticker": "[sticker]",
    "voice_message": "[voice message]",
    "video_message": "[video message]",
    "video_file": "[video]",
    "animation": "[GIF]",
    "audio_file": "[audio]",
}
"""A file's `media_type` and the marker kept for it (the file itself is never read)."""
_SECTIONS = ("chats", "left_chats")
"""Where an export of all chats lists them."""


def read_telegram(
    data: object, *, path: str, zone: tzinfo, user_name: str | None = None
) -> tuple[list[Conversation], list[Problem]] | None:
    """Read a parsed Telegram `result.json`; None when the data is not one (try another reader).

    Each chat is a conversation; service messages (joins, pins, calls) are left out, and media are
    kept as markers (`[image]`, `[voice message]`, `[file: name]`) before their caption. A silence
    of more than six hours starts a new session. In an export of all chats, which names its owner
    (`personal_information`), the owner's messages are said by `user_name` when one is set: they are
    the user's, as the "I" of the user's notes is.
    """
    if not isinstance(data, dict):
        return None
    if _is_chat(data):
        return _read_chats([((), data)], path, zone, None)
    found: list[tuple[tuple[str | int, ...], object]] = [
        ((section, "list", index), chat)
        for section in _SECTIONS
        if isinstance(data.get(section), dict) and isinstance(data[section].get("list"), list)
        for index, chat in enumerate(data[section]["list"])
    ]
    if not any(_is_chat(chat) for _, chat in found):
        return None
    return _read_chats(found, path, zone, _owner(data, user_name))


def _owner(data: dict[str, Any], user_name: str | None) -> tuple[str, str] | None:
    """The export's owner as their messages' `from_id` says them, and the user's name for them."""
    about = data.get("personal_information")
    who = about.get("user_id") if isinstance(about, dict) else None
    if user_name is None or not isinstance(who, int | str) or isinstance(who, bool):
        return None
    return f"user{who}", user_name


def _is_chat(item: object) -> bool:
    """Tell whether a JSON object is one Telegram chat: a chat `type` or `name`, and `messages` of which
    one at least has Telegram's `id` and `date` (an app's strings file or another tool's session
    has `messages` too)."""
    return (
        isinstance(item, dict)
        and ("type" in item or "name" in item)
        and isinstance(item.get("messages"), list)
        and any(
            isinstance(m, dict) and "id" in m and ("date" in m or "date_unixtime" in m)
            for m in item["messages"]
        )
    )


def _read_chats(
    chats: list[tuple[tuple[str | int, ...], object]], path: str, zone: tzinfo, owner: tuple[str, str] | None
) -> tuple[list[Conversation], list[Problem]]:
    """Every chat with a message as a conversation; one that is no chat is a problem, and skipped."""
    conversations, problems = [], []
    for tokens, chat in chats:
        pointer = json_pointer(*tokens) if tokens else None
        if isinstance(chat, dict) and chat.get("messages") == []:
            continue  # a chat the export took no message of (by date, or by kind): nothing to read
        if not _is_chat(chat):
            problems.append(Problem(path, None, f"chat {pointer} has no Telegram messages; skipped"))
            continue
        assert isinstance(chat, dict)
        conversation = _read_chat(chat, tokens, pointer, zone, owner)
        if conversation.turns or not tokens:  # in an export of all chats, one of notices only is left out
            conversations.append(conversation)
    return conversations, problems


def _read_chat(
    chat: dict[str, Any],
    tokens: tuple[str | int, ...],
    pointer: str | None,
    zone: tzinfo,
    owner: tuple[str, str] | None,
) -> Conversation:
    """One chat: its messages' turns, rendered as `Speaker: text` blocks."""
    name = chat.get("name")
    title = name.strip() if isinstance(name, str) and name.strip() else _untitled(chat)
    bot = f"user{chat.get('id')}" if chat.get("type") == "bot_chat" else None
    read = (
        _turn(message, json_pointer(*tokens, "messages", n), zone, title, bot, owner)
        for n, message in enumerate(chat["messages"])
    )
    return chat_of(read, title=title, source=chat, pointer=pointer)


def _untitled(chat: dict[str, Any]) -> str:
    """The title of a chat with no name: Telegram's own for the chat with yourself."""
    return "Saved Messages" if chat.get("type") == "saved_messages" else ""


def _turn(
    message: object, pointer: str, zone: tzinfo, chat: str, bot: str | None, owner: tuple[str, str] | None
) -> Turn | None:
    """The turn a message says; None for a service message or one with neither text nor media.

    A forwarded message is its author's words (`forwarded_from`), not the forwarder's; in a chat with
    a bot (`bot`, its sender id) the bot's messages are an assistant's, never anyone's memory.
    """
    if not isinstance(message, dict) or message.get("type", "message") != "message":
        return None
    forwarded = message.get("forwarded_from")
    speaker = forwarded if isinstance(forwarded, str) and forwarded.strip() else message.get("from")
    if isinstance(speaker, str) and speaker.strip():
        speaker = plain_speaker(speaker)  # "Jess 🌸" is Jess
        masked = mask_secrets(speaker)[0]
        # A contact saved under no name is their number: masked, and named with the chat (two numbers
        # masked alike in two chats are two people).
        speaker = masked if masked == speaker or not chat else f"{masked} ({chat})"
    else:  # one who deleted their account: Telegram's name for them, told apart by their id
        who = message.get("from_id")
        speaker = f"Deleted Account ({who})" if isinstance(who, str) and who else "Deleted Account"
    if owner is not None and not forwarded and message.get("from_id") == owner[0]:
        speaker = owner[1]  # the export's owner: the user
    said = clean_text("\n".join(part for part in (_media(message), _text(message.get("text"))) if part))
    if not said:
        return None
    moment = wall_time(message.get("date"), zone) or wall_time(message.get("date_unixtime"), zone)
    role: Role = "assistant" if bot is not None and message.get("from_id") == bot else "human"
    return Turn(speaker=speaker, role=role, text=said, line_start=0, line_end=0, time=moment, pointer=pointer)


def _text(value: object) -> str:
    """A message's `text`: a string, or a list of strings and styled parts (`{"type": "bold", "text": …}`)."""
    if isinstance(value, str):
        return value
    if not isinstance(value, list):
        return ""
    parts = [
        part if isinstance(part, str) else part.get("text") if isinstance(part, dict) else None
        for part in value
    ]
    return "".join(part for part in parts if isinstance(part, str))


def _media(message: dict[str, Any]) -> str:
    """The marker of what the message shares besides its text, or empty."""
    if "photo" in message:
        return "[image]"
    kind = message.get("media_type")
    if kind == "sticker" and isinstance(message.get("sticker_emoji"), str):
        return f"[sticker {message['sticker_emoji']}]"  # its emoji is all a sticker says
    if isinstance(kind, str) and kind in _MEDIA:
        return _MEDIA[kind]
    if "file" in message:
        name = message.get("file_name") or message.get("file")
        name = name.rsplit("/", 1)[-1] if isinstance(name, str) and not name.startswith("(") else ""
        return f"[file: {name}]" if name else "[file]"
    poll = message.get("poll")
    if isinstance(poll, dict) and isinstance(poll.get("question"), str):
        return f"[poll: {poll['question'].strip()}]"
    if "location_information" in message:
        return "[location]"
    if "contact_information" in message:
        return "[contact]"
    return ""
