"""WhatsApp chat exports: the `.txt` file "Export chat" writes, read in place as a chat log.

Android writes `12/03/2024, 14:22 - Mum: text`, iOS `[12/03/2024, 14:22:05] Mum: text`; the date's
order and separators and the clock (24-hour or `2:22 PM`) follow the phone's language. A message runs
on over the lines up to the next one's header. Each turn's line range is the file's, as in a log.
"""

from __future__ import annotations

import hashlib
import itertools
import re
from collections import Counter
from dataclasses import dataclass
from datetime import date, datetime, time

from kgvault.conversations import Conversation, plain_speaker
from kgvault.conversations.chat_log import is_image_file, split_sessions
from kgvault.records import Problem, Turn
from kgvault.secrets import mask_secrets

_MARKS = "\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\ufeff"
"""Direction marks: iOS puts one before a system line, an attachment and a contact's phone number."""
_IOS_MARK = "\u200e"
"""The left-to-right mark iOS puts before a notice (a right-to-left one may open a Hebrew message)."""
_SPACE = "\x20\u00a0\u202f"
_HEADER = re.compile(
    rf"[{_MARKS}]*(?P<bracket>\[)?"
    rf"(?P<a>\d{{1,4}})(?P<sep>[./-])\x20?(?P<b>\d{{1,2}})(?P=sep)\x20?(?P<c>\d{{2,4}})\.?,?[\t\x20]"
    r"(?:klo\x20)?(?P<before>오전|오후|上午|下午|午前|午後)?\x20?"
    r"(?P<hour>\d{1,2})[:.](?P<minute>\d{2})(?:[:.](?P<second>\d{2}))?"
    rf"(?:[{_SPACE}]?(?P<half>[AaPp])\.?[{_SPACE}]?[Mm]\.?)?"
    rf"(?(bracket)\][{_SPACE}]|\.?[{_SPACE}]?[-–][{_SPACE}])"
    r"(?P<rest>.*)"
)
"""A message's header: its date and time, then `Speaker: text`, or a system line with no speaker."""
_AFTERNOON = frozenset({"오후", "下午", "午後"})
_SPEAKER = re.compile(r"(?P<who>[^:\n\"“”„«»‚‹›「」]{1,80}?):(?:[\x20\u00a0](?P<said>.*))?$")
"""A message's speaker, before a colon; a notice quoting a name (`changed the subject to "Trip: Rome"`)
is none."""
_MOST_WORDS_IN_A_NAME = 7
_ENCRYPTED = re.compile(
    r"(?i)(?:messages and calls are end-to-end encrypted"
    r"|nachrichten und anrufe sind ende-zu-ende-verschlüsselt"
    r"|los mensajes y las llamadas están cifrados de extremo a extremo"
    r"|les messages et les appels sont chiffrés de bout en bout"
    r"|as mensagens e as chamadas são protegidas com a criptografia de ponta a ponta"
    r"|i messaggi e le chiamate sono crittografati end-to-end"
    r"|berichten en oproepen zijn end-to-end versleuteld)"
)
"""The notice every export of a chat since 2016 opens with, in several languages."""
_OWN_PLACEHOLDER = re.compile(
    r"(?i)<(?:media omitted|multimedia omitido|medien ausgeschlossen|médias omis|mídia oculta|media omessi"
    r"|media weggelaten)>|(?:image|video|audio|sticker|gif|document|contact card) omitted"
    r"|<(?:attached|adjunto|anhang|pièce jointe|anexo|allegato|bijlage): [^>\n]+>"
)
"""Placeholders only WhatsApp writes for media it left out (a log's `<no changes>` is none)."""
_NOTICE = re.compile(
    r"(?:messages (?:and calls|to this (?:chat|group) and calls) are (?:now secured with )?end-to-end"
    r"|your security code with .* changed|.* turned (?:on|off) disappearing messages"
    r"|.* changed (?:their phone number|the group description|this group's icon)"
    r"|you're now an admin|.* joined using this group's invite link)",
    re.IGNORECASE,
)
"""English notices an older iOS export writes as a speaker's message, with no direction mark."""
_MEMBERS_CHANGED = re.compile(r"\S.* (?:added|removed) \S.*|\S.* (?:left|joined)|\S.* created group .*")
"""Notices of an older iOS export of a group, under the group's name."""
_KINDS = (
    ("[image]", ("image", "imagen", "imagem", "immagine", "bild", "afbeelding", "photo", "foto")),
    ("[video]", ("video", "vidéo", "vídeo")),
    ("[audio]", ("audio", "áudio")),
    ("[sticker]", ("sticker", "autocollant", "figurinha")),
    ("[GIF]", ("gif",)),
    ("[document]", ("document", "documento", "dokument")),
    ("[contact]", ("contact", "contacto", "contato", "kontakt", "kontaktkarte", "contatto")),
)
"""What kind of media an export's placeholder names by its first word, in several languages."""
_LEFT_OUT = re.compile(
    r"(?:(?P<name>.+?)\s*•.*\s)?(?P<kind>\w+)(?:\s+\w+){0,2}\s+(?:omitted|omitida|omitido|omis|omise"
    r"|absente|absent|weggelassen|ausgeschlossen|omessa|omesso|ocultada|ocultado|oculta|weggelaten)",
    re.IGNORECASE,
)
"""iOS's placeholder for media left out (`image omitted`, `Bild weggelassen`, `name • 2 pages document
omitted`)."""
_DELETED = frozenset(
    {
        "this message was deleted",
        "you deleted this message",
        "diese nachricht wurde gelöscht",
        "du hast diese nachricht gelöscht",
        "se eliminó este mensaje",
        "eliminaste este mensaje",
        "este mensaje fue eliminado",
        "ce message a été supprimé",
        "vous avez supprimé ce message",
        "você apagou esta mensagem",
        "mensagem apagada",
        "esta mensagem foi apagada",
        "essa mensagem foi apagada",
        "mensagem eliminada",
        "questo messaggio è stato eliminato",
        "hai eliminato questo messaggio",
        "dit bericht is verwijderd",
        "je hebt dit bericht verwijderd",
    }
)
"""A deleted message's placeholder, in several languages."""
_OTHER_PLACEHOLDERS = {
    "null": "[media]",  # a view-once photo
    "missed voice call": "[missed call]",
    "missed video call": "[missed call]",
    "waiting for this message. this may take a while": "[not received]",
}
_EDITED = re.compile(
    r"<[^<>\n]*(?:edited|bearbeitet|editó|modifié|editada|editado|modificato|bewerkt)[^<>\n]*>", re.IGNORECASE
)
"""What a message's end says of an edit, in several languages: dropped."""
_ANGLE_PLACEHOLDER = re.compile(r"<[^<>\n]{3,60}>")
"""Android's placeholder for what it left out, in the phone's language (`<Media omitted>`)."""
_ATTACHED = re.compile(
    r"<(?:attached|adjunto|anhang|pièce jointe|anexo|allegato|bijlage): (?P<name>[^>\n]+)>", re.IGNORECASE
)
_FILE_ATTACHED = re.compile(
    r"(?P<name>\S[^\n]*?\.\w{2,5}) \((?:file attached|datei angehängt|archivo adjunto|fichier joint"
    r"|arquivo anexado|file allegato|bestand bijgevoegd)\)",
    re.IGNORECASE,
)
_LOCATION = re.compile(
    r"(?:location|live location shared|ubicación|standort|localisation|localização|posizione|locatie)"
    r"\s?:\s?https?://\S+",
    re.IGNORECASE,
)
_POLL = re.compile(r"(?:POLL|ENCUESTA|UMFRAGE|SONDAGE|ENQUETE|SONDAGGIO|PEILING):")
_MENTION = re.compile(rf"@[{_MARKS}]?\+?(?P<digits>\d{{8,15}})[{_MARKS}]?")
"""An @mention of a contact saved under no name: their phone number."""
_CHAT_NAME = re.compile(
    r"^(?:WhatsApp Chat (?:with|-)|Chat de WhatsApp con|WhatsApp-Chat mit|WhatsApp Chat mit"
    r"|Conversa do WhatsApp com|Discussion WhatsApp avec|Chat WhatsApp con|WhatsApp[- ]chat met)"
    r"\s+(?P<name>.+?)(?:\s*\(\d+\))?$",
    re.IGNORECASE,
)
_BLANK_LINES = re.compile(r"(?:[\t\x20]*\n)*")
_LONGEST_PLACEHOLDER = 200
_LOOK_AHEAD_LINES = 400
"""How many lines at the top of a `.txt` file decide whether it is a WhatsApp export."""


@dataclass(frozen=True, slots=True)
class _Header:
    """One message header as written: the date's three numbers, the clock, and the rest of the line."""

    line: int
    numbers: tuple[int, int, int]
    year_first: bool
    clock: tuple[int, int, int]
    half: str
    """`a` or `p` on a 12-hour clock, else empty."""
    capital: bool
    """The clock says `PM`, not `pm`: American phones write it so, and write the month first."""
    style: tuple[object, ...]
    """How the header is written (brackets, separator, seconds, clock, year): one export writes one."""
    rest: str


def named_like_whatsapp(stem: str) -> bool:
    """Whether a file's name is one WhatsApp gives an export (`WhatsApp Chat with Mum`, `_chat`)."""
    return stem == "_chat" or _CHAT_NAME.match(stem) is not None


def chat_name(stem: str, folder: str) -> str:
    """The chat's name as the export's file (or, for `_chat.txt`, its folder) gives it."""
    match = _CHAT_NAME.match(folder if stem == "_chat" else stem)
    return match["name"].strip() if match else ""


def looks_like_whatsapp(text: str, named: bool = False) -> bool:
    """Tell a WhatsApp export from a note: it opens with a message header, and its top has a message,
    when the file is `named` as an export is; else three messages of two speakers, one of whom speaks
    twice, and lines only WhatsApp writes (its encryption notice, or two placeholders for media).

    A diary or a log written `12/03/2024, 09:15 - Plumber: coming Thursday` is no chat: its labels are
    no people, and its lines without one are its writer's.
    """
    opening = blank.end() if (blank := _BLANK_LINES.match(text)) else 0
    end = text.find("\n", opening)
    if _header(text[opening:] if end < 0 else text[opening:end], 1) is None:
        return False  # every note but an export ends here, before its lines are split
    top = [line for line in text.split("\n", _LOOK_AHEAD_LINES)[:_LOOK_AHEAD_LINES] if line.strip()]
    headers = _one_style([h for h in (_header(line, 1) for line in top) if h is not None])
    speakers = Counter(said[0] for said in map(_said, headers) if said is not None)
    if named:
        return bool(speakers)
    if not (speakers.total() >= 3 and len(speakers) >= 2 and max(speakers.values()) >= 2):
        return False
    return _whatsapp_evidence(headers)


def _whatsapp_evidence(headers: list[_Header]) -> bool:
    """Whether lines only WhatsApp writes are among these: its encryption notice, or two of its
    placeholders for media left out."""
    placeholders = 0
    for header in headers:
        said = _SPEAKER.match(header.rest)
        text = _bare((said["said"] or "") if said else header.rest)
        if len(text) > _LONGEST_PLACEHOLDER:
            continue  # the notice and the placeholders are short; a long line is someone's words
        if _ENCRYPTED.match(text):
            return True
        placeholders += _OWN_PLACEHOLDER.fullmatch(text) is not None
        if placeholders >= 2:
            return True
    return False


def read_whatsapp(text: str, *, path: str, name: str = "") -> tuple[Conversation, list[Problem]]:
    """Read a WhatsApp export: each message a turn of its speaker, on the file's own lines.

    System lines (encryption notices, members added) are no turns; media the export left out are
    kept as markers (`[image]`, `[file: name]`). A line that reads as a header written otherwise
    than the file's own (a message copied in from elsewhere), or whose date cannot be read as the
    others', belongs to the message before it. `name` is the chat's, as the file's name gives it.
    A silence of more than six hours starts a session.
    """
    problems: list[Problem] = []
    lines = text.split("\n")
    found = [h for number, line in enumerate(lines, start=1) if (h := _header(line, number)) is not None]
    headers = _one_style(found)
    day_first = _day_first(headers, path, problems)
    dated = [(h, moment) for h in headers if (moment := _moment(h, day_first)) is not None]
    kept = {h.line for h, _ in dated}
    stray = [h.line for h in found if h.line not in kept]
    if stray:
        shown = ", ".join(map(str, stray[:5])) + (", …" if len(stray) > 5 else "")
        problems.append(
            Problem(
                path,
                stray[0],
                f"{len(stray)} line(s) look like messages but not like this chat's own (copied in, or a "
                f"date that cannot be): read as part of the message before them, line(s) {shown}",
            )
        )
    turns: list[Turn] = []
    numbers: dict[str, str] = {}
    for position, (header, moment) in enumerate(dated):
        last_line = dated[position + 1][0].line - 1 if position + 1 < len(dated) else len(lines)
        while last_line > header.line and not lines[last_line - 1].strip():
            last_line -= 1
        turn = _turn(header, lines[header.line : last_line], moment, last_line, name, numbers)
        if turn is not None:
            turns.append(turn)
    turns = split_sessions(turns)
    started = turns[0].time if turns else None
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    conversation = Conversation(
        pointer=None, title="", text=text, turns=tuple(turns), started=started, sha256=digest
    )
    return conversation, problems


def _header(line: str, number: int) -> _Header | None:
    """The header a line starts with, if any."""
    match = _HEADER.match(line)
    if match is None:
        return None
    a, b, c = (int(match[key]) for key in ("a", "b", "c"))
    year_first = len(match["a"]) == 4
    if len(match["a"]) == 3 or (not year_first and len(match["c"]) == 3):
        return None
    clock = (int(match["hour"]), int(match["minute"]), int(match["second"] or 0))
    half = match["half"] or ""
    if match["before"]:
        half = "p" if match["before"] in _AFTERNOON else "a"
    style = (
        bool(match["bracket"]),
        match["sep"],
        year_first,
        len(match["c"]),
        match["second"] is not None,
        bool(half),
    )
    return _Header(number, (a, b, c), year_first, clock, half.lower(), half.isupper(), style, match["rest"])


def _one_style(headers: list[_Header]) -> list[_Header]:
    """The headers written as most of them are: an export writes all its own one way."""
    if not headers:
        return headers
    counts = Counter(h.style for h in headers)
    most = max(counts.values())
    style = next(h.style for h in headers if counts[h.style] == most)
    return [h for h in headers if h.style == style]


def _said(header: _Header) -> tuple[str, str] | None:
    """Who speaks in a header's line and the words on it, when it is a message rather than a notice."""
    said = _SPEAKER.match(header.rest)
    if said is None:
        return None
    who = "".join(ch for ch in said["who"] if ch not in _MARKS).strip().lstrip("~").strip(_SPACE)
    if not who or len(who.split()) > _MOST_WORDS_IN_A_NAME:
        return None
    return who, said["said"] or ""


def _day_first(headers: list[_Header], path: str, problems: list[Problem]) -> bool:
    """Whether the dates are day/month: as most dates with a number past 12 say, else the order in
    which time runs forward (over the shorter span), else the phone's clock (`2:22 PM` is American);
    a problem says when it was a guess."""
    pairs = [h.numbers[:2] for h in headers if not h.year_first]
    if not pairs:
        return True
    days_first = sum(first > 12 for first, _ in pairs)
    months_first = sum(second > 12 for _, second in pairs)
    if days_first or months_first:
        return days_first >= months_first
    ranks = {order: _how_it_runs(headers, order) for order in (True, False)}
    if ranks[True][:2] != ranks[False][:2]:
        return ranks[True][:2] < ranks[False][:2]  # one order sends time back less often
    if ranks[True] != ranks[False]:
        guess = ranks[True] < ranks[False]
        why = "the shorter span"
    else:
        guess = not any(h.capital for h in headers)
        why = "the clock" if any(h.half for h in headers) else "the most common order"
    shown = "/".join(str(n) for n in headers[0].numbers)
    problems.append(
        Problem(
            path,
            headers[0].line,
            f"no date in this chat tells day/month from month/day ({shown}); read as "
            f"{'day/month' if guess else 'month/day'} by {why}, so check the dates of its episodes",
        )
    )
    return guess


def _how_it_runs(headers: list[_Header], day_first: bool) -> tuple[int, int, float]:
    """Read in this order: how many dates are none, how often time goes back by more than an hour
    (a clock set back goes back less), and the seconds from the first message to the last."""
    moments = [_moment(header, day_first) for header in headers]
    valid = [moment for moment in moments if moment is not None]
    back = sum((before - after).total_seconds() > 3600 for before, after in itertools.pairwise(valid))
    span = (max(valid) - min(valid)).total_seconds() if valid else 0.0
    return len(moments) - len(valid), back, span


def _moment(header: _Header, day_first: bool) -> datetime | None:
    """The header's date and time, naive as the phone showed it; None when it is no valid date."""
    a, b, c = header.numbers
    if header.year_first:
        year, month, day = a, b, c
    else:
        year = c + 2000 if c < 100 else c
        day, month = (a, b) if day_first else (b, a)
    hour, minute, second = header.clock
    if header.half:
        if not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (12 if header.half == "p" else 0)
    try:
        return datetime.combine(date(year, month, day), time(hour, minute, second))
    except ValueError:
        return None


def _turn(
    header: _Header, more: list[str], moment: datetime, last_line: int, name: str, numbers: dict[str, str]
) -> Turn | None:
    """The turn a message says; None for a system line (no speaker, or a speaker's notice). `numbers`
    holds how each unsaved contact (a phone number) has been shown so far in the chat."""
    said = _said(header)
    if said is None:
        return None
    speaker, first = said
    bare = _bare(first)
    marked = first.startswith(_IOS_MARK)
    if _NOTICE.match(bare) or (speaker == name and _MEMBERS_CHANGED.fullmatch(bare)):
        return None
    if marked and _placeholder(bare) is None and not _ATTACHED.search(first):
        return None  # iOS marks its notices ("‎Messages and calls are end-to-end encrypted.")
    text = _unedited("\n".join([first, *more]).rstrip())
    text = "".join(ch for ch in text if ch not in _MARKS).strip()
    text = _placeholder(text) or _media_lines(text)
    if not text:
        return None
    speaker = plain_speaker(speaker)  # "Jess 🌸" is Jess
    masked = mask_secrets(speaker)[0]
    if masked != speaker:
        # An unsaved contact is their number, masked, and named with the chat ("+44 …0123 (Book Club)"):
        # two numbers masked alike in two chats are not one person; a second in the same chat is
        # counted. Never a digest of the number: a number is short enough to be found from one.
        if speaker not in numbers:
            alike = sum(shown.startswith(masked) for shown in numbers.values())
            where = [name] if name else []
            count = [str(alike + 1)] if alike else []
            numbers[speaker] = f"{masked} ({', '.join([*where, *count])})" if where or count else masked
        masked = numbers[speaker]
    return Turn(
        speaker=masked,
        role="human",
        text=text,
        line_start=header.line,
        line_end=last_line,
        time=moment,
    )


def _unedited(text: str) -> str:
    """A message without the note of an edit at its end ("… <This message was edited>")."""
    if not text.endswith(">"):
        return text
    start = text.rfind("<")
    if start < 0 or _EDITED.fullmatch(text, start) is None:
        return text
    return text[:start].rstrip(_MARKS + " ")


def _bare(text: str) -> str:
    """Text without direction marks, blank space at its ends or a full stop at its end."""
    return "".join(ch for ch in text if ch not in _MARKS).strip().rstrip(".").strip()


def _placeholder(text: str) -> str | None:
    """The marker for a whole message the export left out (media, a deleted message), else None."""
    if len(text) > _LONGEST_PLACEHOLDER:
        return None  # placeholders are short; a long message is someone's words (and costly to search)
    bare = _bare(text)
    folded = bare.casefold()
    if folded in _OTHER_PLACEHOLDERS:
        return _OTHER_PLACEHOLDERS[folded]
    if folded in _DELETED:
        return "[deleted]"
    if _ANGLE_PLACEHOLDER.fullmatch(bare) and not _ATTACHED.fullmatch(bare):
        return "[media]"
    left_out = _LEFT_OUT.fullmatch(bare)
    if left_out is None:
        return None
    if left_out["name"]:
        return f"[file: {left_out['name'].strip()}]"
    word = left_out["kind"].casefold()  # "Names omitted" is someone's message, not a placeholder
    return next((marker for marker, words in _KINDS if word in words), None)


def _media_lines(text: str) -> str:
    """A message's text with its attachments, polls, locations and mentions of numbers as markers."""
    lines = text.split("\n")
    if _POLL.fullmatch(lines[0].strip()) and len(lines) > 1:
        return f"[poll: {lines[1].strip()}]"  # the options and their votes are no one's words
    out = []
    for line in lines:
        attached = _FILE_ATTACHED.fullmatch(line.strip())
        if attached is not None:
            line = _file_marker(attached["name"])
        elif _LOCATION.fullmatch(line.strip()):
            line = "[location]"
        line = _ATTACHED.sub(lambda m: _file_marker(m["name"]), line)
        out.append(_MENTION.sub(lambda m: "@…" + m["digits"][-4:], line))
    return "\n".join(out).strip()


def _file_marker(name: str) -> str:
    """`[image]` for a photo's file, `[file: name]` for any other."""
    name = name.strip()
    return "[image]" if is_image_file(name) else f"[file: {name}]"
