"""Offline extraction of a run of conversation turns: each turn read as its speaker's own words."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import date, datetime
from typing import Any

from kgvault.conversations.small_talk import is_fiction, is_request, is_small_talk
from kgvault.extract import Extraction
from kgvault.extract.draft import validate_items
from kgvault.extract.offline import EXTRACTOR, read_turn, split_sentences
from kgvault.records import Chunk, Source, Turn
from kgvault.secrets import mask_secrets
from kgvault.when import booked_ahead, dated_title, find_times, is_booked_for

# A shared image or file, kept in the body as said, is no part of a title.
_ATTACHMENT = re.compile(r"\s*\[(?:image|file)(?::[^\]]*)?\]|\s*\[(?:image|file)\b[^\]]*$")
"""An attachment's marker (`[image: a photo of …]`), whole or cut short at a title's end (`[image…`)."""
_FEELINGS = "so very really too just not sorry glad happy sure fine good ok okay excited thrilled here in on"
"""After "I'm", words of a feeling or a place in the talk, not of what the speaker is."""
_SELF = re.compile(rf"(?i)\s*(?:i['’]m|i am)\s+(?!(?:{'|'.join(_FEELINGS.split())})\b)\w")
"""A statement of what the speaker is ("I'm a nurse", "I'm from Brazil"), not of how they feel."""
_SECOND_PERSON = re.compile(r"(?i)\b(?:you|your|yours|yourself|you're|you've|you'll|you'd|ya|u)\b")
_FIRST_PERSON = re.compile(r"(?i)\b(?:i|me|my|mine|myself|i'm|i've|i'll|i'd|we|us|our|ours|we're|we've)\b")


def extract_turns(chunk: Chunk, source: Source) -> Extraction:
    """Read each turn of a `turns` chunk on its own and merge what they give into one draft.

    A person's episodes are attributed to them and titled with their name; an assistant's words
    give general knowledge only (semantic nodes), never an episode of anyone. Small talk gives
    nothing. Quotes are checked against what was said, not against the file's markup.
    """
    merged = _Merged()
    reasons: list[str] = []
    # A voice shown by an email or a phone number (a dial-in, a guest) is named by its mask only.
    unnamed = {turn.speaker for turn in chunk.turns if _UNNAMED_SPEAKER.match(turn.speaker)}
    turns = []
    for turn in chunk.turns:
        masked, found = mask_secrets(turn.speaker)
        if found:
            turn = replace(turn, speaker=masked)
            unnamed.add(masked)
        turns.append(turn)
    for turn in turns:
        if is_small_talk(turn.text):
            reasons.append("small talk")
            continue
        raw = read_turn(_turn_chunk(chunk, turn), source, _speaker(turn), _said_at(turn, chunk))
        gave = merged.add(raw, turn)
        # What the rules found nothing in is still the speaker's news: each other statement too.
        covered = [str(node["supporting_text"] or node["body"] or "") for node in raw["nodes"]]
        told = _told(raw, turn, chunk, covered)
        if gave:
            told = {**told, "relations": []}  # the rules' relations are in already
        if not merged.add(told, turn) and not gave:
            reasons.append(str(raw.get("skip_reason") or "no statement"))
    raw = _without_unnamed_speakers(
        {
            **merged.envelope,
            "reference_time": chunk.reference_time,
            "skip_reason": None if merged.produced() else _skip_reason(reasons),
            "nodes": merged.nodes,
            "entities": list(merged.entities.values()),
            "relations": merged.relations,
        },
        {speaker.casefold() for speaker in unnamed},
    )
    said = "\n".join(turn.text for turn in chunk.turns)
    draft, dropped = validate_items(raw, said)
    return Extraction(chunk=chunk, draft=draft, extractor=EXTRACTOR, dropped=tuple(dropped))


_UNNAMED_SPEAKER = re.compile(
    r"(?i)^(?:unknown(?:\s+speaker)?|(?:unknown\s+)?(?:speaker|participant|guest|caller|voice|person|attendee)"
    r"(?:\s*(?:\d+|[a-z]))?|speaker\s*\d+|spk_?\d+)$"
)
"""What a transcription app calls a voice it could not name: "Speaker 1", "Unknown Speaker", "Guest 2"."""


def _without_unnamed_speakers(raw: dict[str, Any], unnamed: set[str]) -> dict[str, Any]:
    """The draft without the speakers a transcript does not name as entities: every transcript's
    "Speaker 1" is someone else, and no one's page should gather them all. Their words stay theirs
    (`attributed_to`), what they relate is left out (it relates no one known)."""
    if not unnamed:
        return raw
    return {
        **raw,
        "nodes": [
            {**node, "entities": [name for name in node["entities"] if name.casefold() not in unnamed]}
            for node in raw["nodes"]
        ],
        "entities": [entity for entity in raw["entities"] if entity["name"].casefold() not in unnamed],
        "relations": [
            relation
            for relation in raw["relations"]
            if relation["subject"].casefold() not in unnamed and relation["object"].casefold() not in unnamed
        ],
    }


class _Merged:
    """The items of a chunk's turns, first occurrence kept."""

    def __init__(self) -> None:
        self.envelope: dict[str, Any] = {}
        self.nodes: list[dict[str, Any]] = []
        self.entities: dict[str, dict[str, Any]] = {}
        self.relations: list[dict[str, Any]] = []
        self.titles: set[str] = set()

    def produced(self) -> bool:
        return bool(self.nodes or self.entities or self.relations)

    def add(self, raw: dict[str, Any], turn: Turn) -> bool:
        """Take what one turn gave; tell whether it gave anything."""
        if not self.envelope:
            self.envelope = {k: raw[k] for k in ("schema_version", "episode_name", "source_description")}
        human = turn.role == "human"
        if human and is_fiction(turn.text):
            return False  # "Let's roleplay. I am a knight who …": a story, nobody's memory
        named: set[str] = set()
        before = len(self.nodes), len(self.entities), len(self.relations)
        for node in raw["nodes"]:
            said = _ATTACHMENT.sub("", str(node["body"] or node["title"])).strip()
            if said.endswith("?") or is_small_talk(said) or _about_the_listener(said):
                continue  # a question, a reaction or a compliment tells nothing about the speaker
            if human and is_request(said):
                continue  # "Translate 'I moved to Berlin yesterday'": the words are not the speaker's news
            title = _ATTACHMENT.sub("", node["title"]).strip() or node["title"]
            if node["memory_layer"] == "episodic":
                if not human:
                    continue  # an assistant's "I" is nobody's memory
                title = f"{turn.speaker}: {title}"
            elif human and _FIRST_PERSON.search(title):
                title = f"{turn.speaker}: {title}"  # "I live in Berlin." is theirs, not the vault owner's
            node = {**node, "title": title, "turn_line": turn.line_start}
            folded = node["title"].casefold()
            if folded in self.titles:
                continue
            self.titles.add(folded)
            self.nodes.append(node)
            named.update(name.casefold() for name in node["entities"])
        quote = next((n["supporting_text"] for n in raw["nodes"] if n["supporting_text"]), None)
        for entity in raw["entities"]:
            key = entity["name"].casefold()
            if human and key == turn.speaker.casefold() and not entity["supporting_text"]:
                # The speaker is named by their turn, not in it: cite what they said.
                entity = {**entity, "supporting_text": quote}
            if human and key not in named and _asked_for(entity["supporting_text"]):
                continue  # named only in a request: "Write a cover letter saying Zoe works at SAP."
            # An assistant's turn names only what its kept nodes are about.
            if key not in self.entities and (human or key in named):
                self.entities[key] = {**entity, "turn_line": turn.line_start}
        if human:
            self.relations.extend(
                {
                    **relation,
                    "statement": _in_their_words(relation["statement"], turn),
                    "turn_line": turn.line_start,
                }
                for relation in raw["relations"]
                if not _asked_for(relation["statement"]) and not _asked_for(relation["supporting_text"])
            )
        return (len(self.nodes), len(self.entities), len(self.relations)) != before


def _told(raw: dict[str, Any], turn: Turn, chunk: Chunk, covered: list[str]) -> dict[str, Any]:
    """What a person said that the rules found nothing in: each statement not `covered` by a node
    the rules made of the turn, as their episode.

    In a conversation every statement a person makes about themselves or their world is memory
    ("Researching adoption agencies — it's been a dream"), even with no verb pattern the note
    reader knows. Questions, reactions and remarks about the listener stay out (see `add`).
    """
    said_at = _said_at(turn, chunk)
    if turn.role != "human" or said_at is None or is_fiction(turn.text):
        return {**raw, "nodes": []}
    # Sentences as the note reader splits them: "a nurse at St. Mary's" is one.
    said = _ATTACHMENT.sub("", turn.text)
    nodes: list[dict[str, Any]] = []
    for sentence in (s for line in said.split("\n") for s in split_sentences(line)):
        words = sentence.split()
        # Short, a statement says little, unless it says what the speaker is ("I'm a nurse.").
        if len(words) < (2 if _SELF.match(sentence) else 4):
            continue
        if sentence.rstrip().endswith("?") or is_small_talk(sentence):
            continue
        if any(sentence.strip() in quote or quote in sentence for quote in covered if quote):
            continue  # the rules made a node of it
        if _about_the_listener(sentence) or is_request(sentence):
            continue  # a compliment or a request first: the speaker's own statement may follow
        today = said_at.date() if isinstance(said_at, datetime) else said_at
        # "We booked the party for 12 April": this April's, and booked when it was said.
        times = booked_ahead(sentence, find_times(sentence, said_at), today)
        happened = [time for time in times if not is_booked_for(sentence, time)]
        day = happened[0].first if happened else today
        # Raw words of a turn: masked as every other node's are (DESIGN §5), a quote holding a
        # secret is none at all, and the node is confidential.
        title, secret = mask_secrets(dated_title(" ".join(words), times))
        body, in_body = mask_secrets(sentence.strip())
        node: dict[str, Any] = {
            "memory_layer": "episodic",
            "type": "observation",
            "title": title[:280],
            "body": body,
            "tags": [],
            "timestamp": day,
            "sensitivity": "confidential" if secret or in_body else "private",
            "attributed_to": turn.speaker,
            "confidence": "low",
            "origin": "stated",
            "entities": [turn.speaker],
            "supporting_text": None if secret or in_body else sentence.strip(),
        }
        nodes.append(node)
    if not nodes:
        return {**raw, "nodes": []}
    # The speaker is an entity of their episodes, as with every other episode of theirs.
    entities = [e for e in raw["entities"] if e["name"].casefold() != turn.speaker.casefold()]
    speaker = {"name": turn.speaker, "entity_type": "person", "aliases": [], "description": ""}
    return {**raw, "nodes": nodes, "entities": [*entities, {**speaker, "supporting_text": None}]}


def _in_their_words(statement: str, turn: Turn) -> str:
    """A statement as its speaker's ("Anna: I work at SAP."): "I" is nobody in relations.jsonl."""
    return f"{turn.speaker}: {statement}" if _FIRST_PERSON.search(statement) else statement


def _asked_for(text: str | None) -> bool:
    """Whether the words are a request to the listener (what they hold is no one's news)."""
    return bool(text) and is_request(_ATTACHMENT.sub("", str(text)).strip())


def _about_the_listener(said: str) -> bool:
    """Whether a sentence speaks of the listener and not of the speaker ("You're so dedicated")."""
    return bool(_SECOND_PERSON.search(said)) and not _FIRST_PERSON.search(said)


def _turn_chunk(chunk: Chunk, turn: Turn) -> Chunk:
    """A turn as a chunk of its own, so the note reader reads just what this speaker said."""
    when = turn.time.date() if turn.time is not None else chunk.reference_time
    return replace(
        chunk,
        kind="section",
        line_start=turn.line_start,
        line_end=turn.line_end,
        text=turn.text,
        reference_time=when,
        turns=(),
    )


def _speaker(turn: Turn) -> str | None:
    """Whose memory a turn's episodes are: a person's, never an assistant's."""
    return turn.speaker if turn.role == "human" else None


def _said_at(turn: Turn, chunk: Chunk) -> date | datetime | None:
    return turn.time if turn.time is not None else chunk.reference_time


def _skip_reason(reasons: list[str]) -> str:
    """Why a run of turns gave nothing: small talk only when every turn was small talk."""
    if not reasons:
        return "not a message (system, tool or unreadable)"
    if all(reason == "small talk" for reason in reasons):
        return "small talk"
    return next((r for r in reasons if r != "small talk"), "no statement")
