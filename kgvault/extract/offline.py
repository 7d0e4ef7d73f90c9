"""The offline extractor (pass 1): rules over one chunk, no network, deterministic, fast (DESIGN §5).

A section chunk is read in four steps:

1. *visible lines*: code fences, `$$` math, `%% comments %%` and `<!-- comments -->` (also across
   lines) are hidden, so nothing inside them is mined;
2. *blocks*: headings, paragraphs, list items, table rows, Dataview inline fields (`key:: value`)
   and basic-memory relation items (`- uses [[Klipper]]`);
3. *candidates*: each sentence of a paragraph, each list item and each table row is one statement;
   an ordered list of two or more items is one procedure;
4. *classification*: wording decides episodic observation/decision/state or semantic
   fact/concept/procedure, or nothing (with the reason kept for the coverage table).

Every raw draft goes through `validate_items(raw, chunk.text)`, so each `supporting_text` is a
verbatim quote of the chunk; a quote that would reveal a secret is left out instead (secrets.py).
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from bisect import bisect_right
from collections import Counter
from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field, replace
from datetime import date, datetime, timedelta
from functools import lru_cache
from operator import attrgetter
from typing import Any, Literal
from urllib.parse import unquote

from kgvault.dates import MONTHS as _MONTHS
from kgvault.dates import find_dates, parse_date_value
from kgvault.extract import Extraction
from kgvault.extract.draft import GENERIC_EPISODE_NAMES, SCHEMA_VERSION, normalize_for_match, validate_items
from kgvault.extract.patterns import (
    CAPITALS,
    DOSE,
    JOB_TITLE,
    JOB_TITLE_WORDS,
    NAME,
    NO_NOUN_AFTER,
    PLACEHOLDER,
    PLACEHOLDER_RE,
    SIDE_BY_SIDE,
    TIMELESS_PREDICATES,
    VITAMIN,
    LazyRegex,
    PatternHit,
    clean_name,
    could_be_home,
    hit_clause,
    hit_sentence,
    is_asserted,
    is_known_tool,
    is_medicine,
    is_provider,
    is_running_thing,
    is_software,
    match_verb_patterns,
    medicine_name,
    no_childs_club,
    no_kin,
    opens_its_clause,
)
from kgvault.extract.people import people_met
from kgvault.names import is_word_char, note_aliases, spell_symbols
from kgvault.note_kind import ANIMAL_TYPES, PERSON_TYPES, guessed, kept_kind, note_tags, note_type
from kgvault.note_kind import DAY_TITLE as _DAY_TITLE
from kgvault.note_kind import WIKILINK as _WIKILINK
from kgvault.records import Chunk, Source
from kgvault.secrets import SecretValues, find_secrets, mask_secrets, mask_values, secret_values
from kgvault.when import When, booked_ahead, can_count_from, dated_title, find_times, last_weekend, moved_to

EXTRACTOR = "offline@1"

TITLE_MAX = 160
EPISODE_NAME_MAX = 30
SOURCE_DESCRIPTION_MAX = 120
FIELD_CONFIDENCE = 0.9
"""Explicit relations: frontmatter links, inline fields, relation items."""
PATTERN_CONFIDENCE = 0.75
"""Relations read from prose with the verb-pattern table."""
HEDGED_CONFIDENCE = 0.6
"""A relation in a sentence with a guess elsewhere ("Tom works at Google and may be promoted")."""


def _word_set(words: str) -> frozenset[str]:
    """The whitespace-separated words of a string, as a set (word lists read better as text)."""
    return frozenset(words.split())


QUOTE_AROUND = 400
"""The most characters of its sentence an entity or relation quotes: a sentence naming thousands
of things (a line of links, an unpunctuated transcript) was otherwise held once per thing."""


def around(quote: str | None, name: str) -> str | None:
    """A long quote cut to whole words around the first place it names `name` (else its start)."""
    if quote is None or len(quote) <= QUOTE_AROUND:
        return quote
    at = quote.find(name)
    if at < 0:
        at = quote.lower().find(name.lower())
    at = max(at, 0)
    start = max(0, min(at - (QUOTE_AROUND - len(name)) // 2, len(quote) - QUOTE_AROUND))
    end = start + QUOTE_AROUND
    # Whole words: the cut moves in to the nearest blank on each side, if there is one.
    if start > 0:
        blank = quote.find(" ", start, at)
        start = blank + 1 if blank >= 0 else start
    if end < len(quote):
        blank = quote.rfind(" ", max(start, at + len(name)), end)
        end = blank if blank > start else end
    return quote[start:end]


# -- inline Markdown ----------------------------------------------------------------------------

# A tag runs, as in Obsidian, up to a space or a punctuation mark (ASCII's but `-`, `/` and `_`, and
# the general punctuation blocks): `\w` would cut `#हिन्दी` at its first vowel sign, a combining mark.
# The leading lookahead gives the regex engine a first-character set to skip ahead with: without it,
# every position of every sentence tries all eight branches (six times slower). A link's text is
# at most 500 characters: unbounded, each of a line's unclosed `[` scanned the rest of the line.
_INLINE = re.compile(
    r"""
    (?=[`!\[<\#hw])
    (?:
    (?P<code>(?P<ticks>`+)(?P<code_body>.+?)(?P=ticks))
  | (?P<embed>!\[\[(?P<embed_body>[^\[\]\n]*)\]\])
  | (?P<link>\[\[(?P<link_body>[^\[\]\n]+)\]\])
  | (?P<image>!\[(?P<image_alt>[^\]\n]{0,500})\]\((?P<image_target>[^)\n]*)\))
  | (?P<mdlink>\[(?P<mdlink_text>[^\]\n]{1,500})\]\((?P<mdlink_target>[^)\n]*)\))
  | (?P<url>(?:https?://|www\.)[^\s<>)\]]+)
  | (?P<html></?[A-Za-z][^<>\n]*>)
  | (?P<tag>\#(?P<tag_body>[^\s!-,.:-@\[-^`{-~\u2000-\u206f\u2e00-\u2e7f]+))
    )
    """,
    re.VERBOSE,
)
_EMPHASIS = re.compile(r"\*\*|__|~~|==|(?<![\w*])\*(?=\S)|(?<=\S)\*(?![\w*])|(?<!\w)_(?=\S)|(?<=\S)_(?!\w)")
_MAYBE_INLINE = re.compile(r"[`\[<#]|://|www\.")
_TAG_MARK = "\ue002"
_TRAILING_TAGS = re.compile(rf"(?:\s*{_TAG_MARK}\S*)+\s*$")
_ATTACHMENT = re.compile(
    r"\.(?:png|jpe?g|gif|svg|webp|bmp|avif|pdf|mp3|mp4|m4a|wav|ogg|webm|mov|mkv|canvas|base|excalidraw|csv"
    r"|zip|docx?|xlsx?|pptx?)$",
    re.IGNORECASE,
)
_TAG_SEPARATORS = re.compile(r"[\s-]+")
_UNDERSCORES = re.compile(r"_+")
_DATE_ONLY = re.compile(r"^\d{4}-\d{2}-\d{2}$|^\d{4}-W\d{2}$|^\d{4}-\d{2}$")
_HAS_WORD = re.compile(r"[^\W_]")
_SHORT_WEEKDAY = r"(?:mon|tues?|weds?|thu(?:rs?)?|fri|sat|sun)"
"""A weekday as it is shortened ("Thu", "Tues", "Weds"): each a key of `_WEEKDAY_NUMBERS`."""
_A_WEEKDAY = rf"(?:(?:mon|tues|wednes|thurs|fri|satur|sun)day|{_SHORT_WEEKDAY})"
"""A weekday, whole or shortened."""
_A_DAY_ONLY = re.compile(
    r"(?i)^\W*(?:(?:mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)[a-z]*\.?,?\s+)?"
    r"(?:\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
    r"|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+\d{1,2}(?:st|nd|rd|th)?)\W*$"
)


_DAY_OR_TIME_LED = re.compile(
    r"(?i)^\W*(?:(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|lundi|mardi|mercredi|jeudi"
    r"|vendredi|samedi|dimanche)(?=\s*(?:$|[,:—–(-]|\d|the\b|le\b))"
    rf"|{_SHORT_WEEKDAY}\.?(?:,?\s+\d|\s*$)"
    r"|(?:[01]?\d|2[0-3])(?:[:.h][0-5]\d|\s*(?:am|pm))\b)"
)
"""A heading led by a weekday or a clock time: when its lines were written, no topic of theirs."""


def _only_a_day(heading: str) -> bool:
    """Whether a heading only names a day, without its year ("Mon 20 Jan", "Sept 23"): no topic of it."""
    return _A_DAY_ONLY.match(heading) is not None


_ENTITY_SUBJECT = re.compile(
    r"^[^\w\ue000]*(?:(?i:the|a|an|le|la|les|un|une)\s+|(?i:l)['’])?\ue000\d+\ue001\s+\w"
)
_OURS = re.compile(
    r"^[^\w\ue000]*(?:(?i:the|a|an)\s+)?\ue000\d+\ue001\s+(?:is|are)\s+(?:(?:one|some|all)\s+of\s+)?"
    r"(?:our|my)\s(?![^.;:!?]*\b(?:I|[Ww]e|me|us)\b)"
)
"""A link that is the writer's something ("[[Globex]] is our biggest customer"): the link is the
subject, "our" only says whose; not "[[Ana]] is my friend and we meet on Fridays"."""

# -- blocks -------------------------------------------------------------------------------------

_FENCE_OPEN = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
_QUOTE_MARKS = re.compile(r"^(?:\s{0,3}>)+[ \t]?")
"""The `>` marks opening a line of a quote or a callout, however deep."""
_HIDE_TOKEN = re.compile(r"(`+).*?\1|%%|<!--|-->|<%|%>")
_COMMENT_ENDS = {"%%": "%%", "<!--": "-->", "<%": "%>"}
"""What closes each hidden span: a comment, or a template command (Templater's `<% tp.date.now() %>`)."""
_PLACEHOLDER = re.compile(r"\{\{[^{}\n]*\}\}")
"""A template's placeholder left unfilled (`{{date}}`, `{{title}}`): no word of the writer's."""
_FOOTNOTE = re.compile(r"^[ \t]*\[\^[^\]\s]+\]:[ \t]*|\[\^[^\]\s]+\]")
"""A footnote's mark (`[^1]`), or the start of its text (`[^1]: …`): where it is, not what it says."""
_HEADING = re.compile(r"^\s{0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_RULE = re.compile(r"^\s{0,3}(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,}|=+)$")
_QUOTE = re.compile(r"^\s{0,3}>[ \t]?")
_CALLOUT = re.compile(r"^\[![\w-]+\][+-]?[ \t]*")
_QUOTING_CALLOUT = re.compile(r"^\[!(?:quote|cite|abstract)\]", re.IGNORECASE)
_SPEAKER_CALLOUT = re.compile(
    r"^(?:(?i:from)\s+(?:\[\[)?[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)?(?:\]\])?"
    r"|(?:\[\[)?[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)?(?:\]\])?\s+"
    r"(?:said|says|wrote|writes|told\s+me|texted|asked|replied|emailed))\s*:?\s*$"
)
"""A callout's title naming whose words it holds: "Marta said", "From Marta", "[[Tom]] wrote"."""
_HIGHLIGHTS = re.compile(r"^new\s+highlights\s+added\b", re.IGNORECASE)
"""Readwise's heading over passages it adds to a book's note. Not any "Highlights": a weekly
review's are the writer's own."""
_PASSAGE_LINK = re.compile(
    r"\(\[[^\]\n]*\]\((?:zotero://|kindle://|https://(?:(?:read\.)?readwise\.io|share\.snipd\.com|hyp\.is"
    r"|omnivore\.app|glasp\.co)/)[^()\s]*\)\)\s*$"
)
"""A link back to where a marked passage stands in its source, ending it: `([Location 1234](https://
readwise.io/…))`, `([View Highlight](https://read.readwise.io/…))`, `([Clear, 2018, p. 12](zotero://
…))`, a podcast's `([Time 0:14:32](https://share.snipd.com/…))`: the work's words, not the writer's."""
_KINDLE_PASSAGE = re.compile(
    r"(?m)[—–-][\x20\t]*(?i:location|loc\.|page):[\x20\t]*(?:\[\d[\d–-]*\]\(kindle://[^()\s]*\)|\d[\d–-]*)"
    r"(?:[\x20\t]+\^[\w-]+)?[\x20\t]*$"
)
"""A highlight as the Kindle plugin writes it, its place after a dash: `— location: [340](kindle://…)
^ref-4412`, `— location: 340`: the book's words, not the writer's."""
_PASSAGE_REF = re.compile(r"\((?:location|loc\.|page|p\.|pp\.)\s*\d[\d–-]*\)\s*$", re.IGNORECASE)
"""`(p. 12)`, `(Location 300)` ending a line: a passage, in a note about a work (in a diary, "on the
train today (p. 120)" is the writer's)."""
"""Callouts holding someone else's words (a quotation, a paper's abstract), unlike `[!note]`."""
_TABLE_ROW = re.compile(r"^\s*\|.*\|\s*$")
_TABLE_SEPARATOR = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*$")
_FIELD = re.compile(r"^\s*(?:[-*+][ \t]+)?(?P<key>[A-Za-z][\w -]{0,40}?)::[ \t]*(?P<value>.*?)\s*$")
# Dataview's fields inside a sentence: `[key:: value]` (shown as "key: value") and `(key:: value)`
# (shown as the value); a value may hold wikilinks, whose brackets do not end the field.
_BRACKETED_FIELD = re.compile(
    r"\[(?P<key>[A-Za-z][\w -]{0,40}?)::[ \t]*(?P<value>(?:\[\[[^\[\]\n]*\]\]|[^\[\]\n])*?)[ \t]*\]"
    r"|\((?P<pkey>[A-Za-z][\w -]{0,40}?)::[ \t]*(?P<pvalue>(?:\[\[[^\[\]\n]*\]\]|[^()\[\]\n])*?)[ \t]*\)"
)
_ITEM = re.compile(
    # "•" too: a list pasted from an app or a bullet journal keeps its dots, each line an item.
    r"^(?P<indent>[ \t]*)(?:(?P<bullet>[-*+•◦▪‣])|(?P<number>\d{1,3})[.)])(?:[ \t]+(?P<text>.*)|$)"
)
_CHECKBOX = re.compile(r"^\[(?P<status>[ xX/>-])\][ \t]+")
_LOGSEQ_MARKER = re.compile(
    r"^(?P<marker>TODO|LATER|NOW|DOING|WAIT|WAITING|IN-PROGRESS|CANCELED|CANCELLED|DONE)[ \t]+"
    r"(?:\[#[ABC]\][ \t]+)?"
)
"""A Logseq task's marker (and priority) opening a block: `TODO write the plan`, `DONE [#A] Ship it`."""
_PLAIN_WORD_MARKERS = frozenset({"NOW", "LATER", "WAIT"})
"""Markers that are words too ("- NOW that Aisha lives in Leeds …"): markers only in a Logseq graph."""
_LOGSEQ_PATH = re.compile(r"(?:^|/)(?:journals|pages)/[^/]+$")
"""Where a Logseq graph keeps its pages: `journals/2025_03_04.md`, `pages/Atlas.md`."""
_LOGSEQ_STATUS = {
    "DONE": "x",
    "CANCELED": "-",
    "CANCELLED": "-",
    "NOW": "/",
    "DOING": "/",
    "IN-PROGRESS": "/",
}
"""A marker's status as a checkbox's (`_Block.task`); any other is a task to do."""
_LOGSEQ_PLANNING = re.compile(r"^(?:SCHEDULED|DEADLINE):[ \t]*<[^<>]*>$")
"""A Logseq task's planning line (`SCHEDULED: <2025-03-06 Thu>`): when it is meant for, no words of it."""
_TASK_DONE = re.compile(r"✅\uFE0F?[ \t]*(?P<date>\d{4}-\d{2}-\d{2})")
_CARD_DATE = re.compile(r"@(?:\{|\[\[)(?P<date>\d{4}-\d{2}-\d{2})(?:\}|\]\])")
_TASK_FIELDS = re.compile(
    r"[ \t]*(?:(?:📅|⏳|🛫|➕|❌)\uFE0F?[ \t]*\d{4}-\d{2}-\d{2}|(?:⏫|🔼|🔽|⏬|🔺)\uFE0F?"
    r"|(?:🔁|🆔|⛔)\uFE0F?[ \t]*[^📅⏳🛫➕❌✅⏫🔼🔽⏬🔺🔁🆔⛔\n]*|@(?:\{|\[\[)\d{4}-\d{2}-\d{2}(?:\}|\]\])"
    r"|@@\{\d{1,2}:\d{2}\})"
)
"""A task's fields as the Tasks and Kanban plugins write them (due, scheduled, start, created and
cancelled dates, priority, recurrence, id, dependencies, a card's `@{date}` or `@[[date]]` and its
`@@{time}`): no words of the task."""
_TASK_FILTER = re.compile(r"^[ \t]*#(?:task|tasks|todo)(?!\S)[ \t]*", re.IGNORECASE)
"""The tag the Tasks plugin's global filter marks tasks with (`- [ ] #task Pay rent`): no word, no topic."""
_RELATION_ITEM = re.compile(
    r"^(?P<predicate>[a-z][a-z0-9_]*(?: [a-z][a-z0-9_]*){0,2}) \[\[(?P<target>[^\[\]\n]+)\]\]"
    r"(?:\s*\((?P<context>[^)\n]*)\))?\s*$"
)
_NOT_PREDICATES = _word_set(
    "see also and or with from to via cf by in on at for of the a an me my our is are was were"
)

# -- frontmatter --------------------------------------------------------------------------------

_YAML_KEY = re.compile(r"^(?P<key>[^\s#'\"-][^:]*?|\"[^\"]+\"|'[^']+'):(?:[ \t]+(?P<rest>.*))?$")
_COMPANY_KEYS = frozenset(["attendees", "attendee", "participants", "with", "met", "present", "guests"])
"""A day note's properties naming whom its writer was with that day (`attendees: [[Ana]]`)."""
_PLAIN_NAME = re.compile(r"[A-Z][\w'’&.-]*(?:[ ](?:[A-Z&][\w'’&.-]*|of|and|the|de|du|van|von)){0,4}")
_NOT_PLAIN_NAMES = _word_set(
    "remote unknown none n/a tbd tba home null yes no true false other various multiple same here abroad"
    " online office zoom nobody self divorced single married widowed engaged partner separated self-employed"
    " freelance freelancer retired unemployed student contractor home-schooled homeschooled"
) | frozenset({"self employed", "not married", "not sure", "n a"})


def _plain_name(value: str) -> str | None:
    """A property's plain value when it is a name (`Acme`, `Berlin`, `London, UK`: London); not a
    link, a list, a number, a sentence or a word for none (`Remote`, `N/A`)."""
    value = value.strip().strip("'\"").split(",", 1)[0].strip()
    if not _PLAIN_NAME.fullmatch(value) or value.casefold() in _NOT_PLAIN_NAMES:
        return None
    return value


_AUTHOR_KEYS = frozenset(["author", "authors"])


def _plain_authors(value: str) -> list[str]:
    """The people a plain `author` property names: `Daniel Kahneman`, `Kahneman, Daniel` and `Le Guin,
    Ursula K.` (a citation's order), `Smith, J., Jones, K.`, `Daniel Kahneman; Amos Tversky`, `Kahneman
    and Tversky`; not a link, a number, a sentence, nor `Anonymous` or a publisher (`Penguin Books`)."""
    value = value.strip().strip("'\"").strip()
    if not value or len(value) > 200:
        return []
    names: list[str] = []
    for part in re.split(r"\s*;\s*|\s+(?:and|&)\s+", value):
        pieces = [piece.strip() for piece in part.split(",") if piece.strip()]
        # "Kahneman, Daniel", "Le Guin, Ursula K.", "Smith, J., Jones, K.": each surname a word (or a
        # particle and a word) and each given name one word and initials; "Daniel Kahneman, Amos Tversky"
        # are two names.
        if (
            len(pieces) % 2 == 0
            and all(_GIVEN.fullmatch(given) for given in pieces[1::2])
            and all(_SURNAME.fullmatch(surname) for surname in pieces[::2])
        ):
            pieces = [f"{given} {surname}" for surname, given in zip(pieces[::2], pieces[1::2], strict=True)]
        names.extend(piece for piece in pieces if _an_author(piece))
    return names


_GIVEN = re.compile(r"(?:[A-Z][a-z]+|[A-Z]\.)(?:[ -]?[A-Z]\.)*|(?:[A-Z]\.){1,3}")
"""A given name and initials after a surname and a comma: `Daniel`, `Ursula K.`, `J.`, `J.R.R.`."""
_SURNAME = re.compile(r"(?:(?i:le|la|de|du|van|von|der|den|di|da|del)[ ])?[A-Z][\w'’-]+")
"""A surname before a comma: `Kahneman`, `Le Guin`, `van Gogh`."""
_NOT_AUTHORS = _word_set("anonymous unknown anon staff editors editor various n/a none")
_PUBLISHER_WORDS = _word_set(
    "books press news times magazine journal board team staff editors publishing media blog post review"
    " inc ltd llc group"
)


def _an_author(name: str) -> bool:
    """Whether a name from an `author` property may be a person's who wrote the work."""
    words = name.split()
    return (
        _PLAIN_NAME.fullmatch(name) is not None
        and name.casefold() not in _NOT_PLAIN_NAMES
        and name.casefold() not in _NOT_AUTHORS
        and words[0].casefold() != "the"
        and words[-1].casefold() not in _PUBLISHER_WORDS
        and not (len(words) == 1 and len(name) <= 2)  # a lone initial
    )


_ABOUT_KEYS = frozenset(["candidate", "interviewee", "person", "employee", "patient", "mentee"])
"""A day note's properties naming whom the note is about (`candidate: [[Olivia Chen]]` on an interview,
`person: [[Priya]]` on a 1:1): its writer met them, and its properties of a person's life are not the
writer's (an interview's `employer`; nor the candidate's surely: the hiring company's, maybe)."""
_SKIPPED_KEYS = frozenset({"tags", "tag", "aliases", "alias", "cssclasses", "cssclass"})
_DATE_KEYS = _word_set(
    "date created updated modified due start end scheduled completion last published time day"
)
_KEY_TYPES: dict[str, str] = {}
"""Entity type of a property's or field's value, by key."""
for _type, _keys in (
    ("person", "author authors people person attendees participants with director directors cast speaker"
               " speakers owner owners creator creators guest guests artist artists lead leads manager"
               " spouse wife husband boss teacher mentor mother father mum mom dad son sons daughter"
               " daughters brother brothers sister sisters candidate interviewee"),
    # Not `maker`: a board game's or a product's maker is often a person (its designer).
    ("organization", "org orgs organization organisation company companies employer publisher"
                     " publishers manufacturer manufacturers studio studios brand works_at workplace school"
                     " university college"),
    ("place", "loc location locations place places city country where venue lives_in based_in"),
    ("project", "project projects"),
):  # fmt: skip
    _KEY_TYPES.update(dict.fromkeys(_keys.split(), _type))
_BODY_WORDS = _word_set(
    "group inc inc. ltd ltd. llc gmbh ag plc foundation corporation corp corp. company co. labs lab"
    " university institute association society team committee council agency consortium"
)
"""Last words of a name that make it a body of people (`PostgreSQL Global Development Group`)."""
_BUSINESS_WORDS = _word_set(
    "club mates interiors shop bakery cafe café bar restaurant league consulting robotics collective choir"
    " band striders runners fc school academy gym clinic salon store records partners associates ventures"
    " nursery plumbing grooming garage kennels cattery dental surgery harriers pub co-op practice farm coffee"
    " roasters roastery studio studios design digital media creative consultancy agency catering cleaning"
    " landscaping photography events"
    " builders electrical motors hotel b&b florist florists barbers hairdressers pharmacy deli"
)
"""Last words of a name that make it a business, club or school someone runs (`Meeple Mates`)."""
_RACE_WORDS = _word_set("marathon half-marathon 10k 5k race parkrun ultra triathlon relay peaks")
"""Last words of a name that make it a race one runs (`the Boston Marathon`)."""


def _a_software_switch(subject: str, old: str | None, new: str, moved: bool) -> bool:
    """Whether a switch or a move is of software: of a machine, or to or from a name software may have
    (one known, one word, a version, a capital inside), and of nobody's family, bank or network unless
    a name is surely software's ("Switched the printer from Marlin to Klipper", "Switched Basalt from
    StreamBoard to TallyKit", "Moved Plex to the NUC", "Switched Atlas from Octopus to ArgoCD"; not
    "Switched Priya from Little Acorns to Busy Bees", "Moved Lena from Vodafone to EE", "Switched
    Spotify to Family"). `moved`: what was moved is the software."""
    names = [name for name in (old, new) if name]
    if not no_kin(subject):
        return False
    if any((" " not in name and is_medicine(name.casefold())) or not no_childs_club(name) for name in names):
        return False  # "Dad switched from Warfarin to Apixaban", "Mia switched from Brownies to Guides"
    if any(is_provider(name) for name in (subject, *names)) and not any(map(_surely_software, names)):
        return False
    if moved:
        return _software_like(subject)
    return is_running_thing(subject) or any(_software_like(name) for name in names)


def _surely_software(name: str) -> bool:
    """Whether the name is known software's, or has a capital inside it (`ArgoCD`)."""
    return is_software(name) or _CAPITAL_INSIDE.search(name) is not None


def _software_like(name: str) -> bool:
    """Whether the name could be software's: known (or its first word), or one word, a version, a
    capital inside it, an acronym or a word of software's names, and no plan's ("Family", "Premium")."""
    words = name.split()
    if is_software(name) or (words and is_software(words[0])):
        return True  # "Plex Media Server"
    return name.casefold() not in _PLAN_WORDS and (
        len(words) == 1
        or any(c.isdigit() for c in name)
        or _CAPITAL_INSIDE.search(name) is not None
        or any(len(word) > 1 and word.isupper() for word in words)  # "Cloud SQL", "Frigate NVR"
        or not _SOFTWARE_NAME_WORDS.isdisjoint(word.casefold() for word in words)
    )


_PLAN_WORDS = _word_set("family premium student duo basic pro plus standard free individual unlimited")
_CAPITAL_INSIDE = re.compile(r"[a-z][A-Z]")
_SOFTWARE_NAME_WORDS = _word_set(
    "google amazon aws azure microsoft cloud server controller deploy engine functions lambda studio"
    " manager hub lab labs run registry proxy dashboard console"
)
"""Words of software's and cloud services' names: "Google Cloud Run", "Amazon Aurora", "Unifi Controller"."""


def _full_name(title: str) -> tuple[str, ...]:
    """A note's title when it may be someone's full name ("Anna Kowalski": her "Anna" is her; not "Sarah
    Weekly Sync", "Jake Birthday Party", "Victoria Station")."""
    words = title.split()
    if not 2 <= len(words) <= 3 or not all(
        w[:1].isupper() and w.replace("'", "").replace("’", "").isalpha() for w in words
    ):
        return ()
    return () if any(w.casefold() in _NOT_IN_NAMES for w in words[1:]) else (title,)


def _given_name(full: str) -> str:
    """The first name of a full name, after its title if any ("Dr Anna Kowalski": anna), casefolded."""
    words = full.casefold().split()
    if len(words) > 2 and words[0].rstrip(".") in _TITLES:
        return words[1]
    return words[0] if words else ""


_TITLES = _word_set("dr prof mr mrs ms mx miss sir dame")


def _full_names_written(text: str) -> tuple[str, ...]:
    """The full names a note's title writes out beside other words: two or three capitalized words
    no title or place has ("2025-03-05 debrief Olivia Chen"; not "Victoria Station")."""
    found: set[str] = set()
    for match in _WRITTEN_NAME.finditer(text):
        after = text[match.end() :].split(None, 1)
        # "Morgan Stanley sync" is a meeting with a company, more likely than with a Morgan.
        if not after or after[0].casefold() not in _NOT_IN_NAMES:
            found.update(_full_name(match[0]))
    return tuple(sorted(found))


_WRITTEN_NAME = re.compile(r"(?<![\w'’.-])[A-Z][a-z]+(?:[\x20][A-Z][a-z]+(?:-[A-Z][a-z]+)?){1,2}(?![\w'’-])")
_NOT_IN_NAMES = _word_set(
    """
    sync meeting meetings plan plans onboarding party birthday station review notes note project trip
    weekly daily monthly call interview retro standup kickoff offboarding leaving visit wedding funeral
    street road lane avenue square park house hall centre center school college university hospital
    karenina holmes potter
    """
)
"""Words of a title that make it no one's name ("Sarah Weekly Sync", "Anna Karenina")."""


def _attendees_named(title: str, attendees: Sequence[str]) -> list[str]:
    """The attendees a line names by first name, where no other attendee has it ("Anna walked through
    the cloud spend", of `attendees: [[Anna Kowalski]]`; not "Anna Bell's talk", someone else)."""
    words = set(_LONE_CAPITALIZED_WORD.findall(title))
    if not words:
        return []
    firsts = [full.split()[0] for full in attendees]
    return [
        full
        for full, first in zip(attendees, firsts, strict=True)
        if first in words and firsts.count(first) == 1
    ]


_LONE_CAPITALIZED_WORD = re.compile(r"(?<![\w'’-])[A-Z][\w'’-]*(?![\w'’-])(?!\x20[A-Z])")
"""A capitalized word no other capitalized word follows: a first name said alone."""


def _people_of(meta: Mapping[str, Any]) -> tuple[str, ...]:
    """The people a note's properties say took part (`attendees: ["[[Ana Souza]]"]`, `people: …`, a
    notetaker's `attendees: [Priya Shah, Marcus Lee]`)."""
    # Who took part, not who wrote it: a book's `author` is no one the reader's lines name by first name.
    # A 1:1's `person: "[[Lena Ortiz]]"` is whom its "Lena" means, as a meeting's attendees are.
    values = [
        value
        for key, value in meta.items()
        if str(key).lower() in _COMPANY_KEYS or key in ("people", "person")
    ]
    texts = [str(v) for value in values for v in (value if isinstance(value, list) else [value])]
    linked = {
        name for text in texts for link in _WIKILINK.finditer(text) if (name := _parse_link(link["body"])[0])
    }
    plain = {name for text in texts if "[[" not in text for name in _plain_people(text)}
    return tuple(sorted(linked | plain))


_FULL_NAME = re.compile(
    r"[A-Z][\w'’-]+(?:[ ](?:[A-Z][\w'’.-]+|de|la|del|van|von|der|den|da|di|du|le|bin|al)){1,3}"
)
"""A person's full name written out: "Priya Shah", "Mei Tanaka", "Anna van der Berg"."""


def _plain_people(value: str) -> list[str]:
    """The full names a property's value lists without links (`attendees: [Priya Shah, Marcus Lee]`,
    `with: Priya Shah, Tom Reed`); not a team or an email. Only whom a first name may mean: a plain
    value may as well be a place or a product ("New York", "Google Meet"), so it makes no entity."""
    names = (part.strip().strip("'\"").strip() for part in value.strip().strip("[]").split(","))
    return [name for name in names if _FULL_NAME.fullmatch(name) and not _TEAM_OR_PLACE.search(name)]


_TEAM_OR_PLACE = re.compile(
    r"(?i)\b(?:team|group|squad|crew|department|dept|office|room|hq|inc|ltd|llc|gmbh|corp|company|committee"
    r"|board|council|staff|everyone|all|members|leads|managers|engineering|design|product|sales|marketing)\b"
)
"""Words of a body of people or a place, which a meeting's `attendees` may list beside people."""


def _key_type(key: str, name: str | None) -> str | None:
    """The type a property's key gives its value; a person key (`author`) naming a body of people
    (`PostgreSQL Global Development Group`, `OpenAI Inc.`) gives an organization."""
    found = _KEY_TYPES.get(key.lower())
    if found == "person" and name and len(name.split()) > 1 and name.split()[-1].lower() in _BODY_WORDS:
        return "organization"
    return found


_LISTED_GONE = re.compile(
    r"(?i)(?:[(—–,]|\s-)\s*(?:(?:left|departed|retired)(?=\s*(?:in\s+)?(?:(?:19|20)\d\d|[A-Z][a-z]+\s+(?:19|20)\d\d|\)|$|,|;))"
    r"|until\b|till\b|former\b|ex-|moved\s+to\b|no\s+longer\b)"
)
"""A list item's remark opening with its person or thing gone: "(left 2024)", "(until March 2024)",
"— former QA" (not "took over when Ravi left", "left-handed", "lead until the launch")."""
_LEFT_LATER = re.compile(
    r"(?i)^[^.;!?]*?(?:\b(?:but|and|then)\s+|,\s*)(?:(?:she|he|they|I|we)\s+)?(?:left|quit|resigned"
    r"|moved\s+out|(?:was\s+|got\s+)?(?:fired|laid\s+off|let\s+go))\b"
    r"(?=\s+(?:in|on|after|at\s+the\s+end\s+of|two|three|a)\b|\s*(?:[,.;!?]|$))"  # not "quit smoking"
)
"""A later clause of the sentence leaving the job or home its relation names: "… but left in 2022"."""
_FROM_WORD = re.compile(r"(?i)\b(?:since|from|in|on)\s+(?:the\s+)?$")
"""Before a time a relation holds from, in its own clause ("… and worked at Datadog since 22 April")."""
_MY_KIN = re.compile(
    r"My\s+(?:(?P<kin>mum|mom|mam|mother|dad|father|grandma|grandpa|granny|gran|nana|nan|grandmother"
    r"|grandfather)|wife|husband|partner|girlfriend|boyfriend|daughter|son|sister|brother|manager|boss"
    r"|supervisor)\s*[.!]?\s*$"
)
"""A person's note saying, and only saying, who they are to the writer: "My mum." (by the word the
diary calls her), "My wife.", "My manager." (not "My mum, Linda, in Whitby." in a family page, nor
"Our mum, …")."""
_MY_PARENT_DOES = re.compile(
    r"[Mm]y\s+(?P<kin>mum|mom|mam|dad|mother|father|grandma|grandpa|granny|gran|nan|nana)(?=\s+(?:takes|is|has"
    r"|was|lives|works|worked|moved|started|stopped|switched|retired|quit|joined|uses|used)\b)"
)
"""A parent named by the writer's word as a sentence's subject: "My mum takes metformin" is Mum's."""
_CHARACTER_TYPES = frozenset({"npc", "character", "pc"})
"""A person's note about a character: its "my" is the character's."""
_BARE_YEAR = re.compile(r"(?i)(?:\b(?:left|until|till|since|in)\s+|^\s*)((?:19|20)\d\d)\b")
"""A year said bare, after what leaves or bounds (or first): "(left 2024)", "… but left in 2022"."""
_JOB_AT = re.compile(
    rf"(?i)(?!(?:former|ex|previous|retired|wannabe|aspiring|future|favou?rite|old|past)\b)(?:(?:a|an|the)\s+)?"
    rf"{JOB_TITLE}\s+(?:at|@)\s+(?=(?:the\s+)?(?-i:{NAME})\s*[.!]?\s*$)"
)
"""A line of a person's note that is their job and where, and nothing else: "Senior engineer at
[[Cloudflare]]." (not "Former CTO at Acme.", "Intern at NASA in 2012.", "Manager at Tesco until 2021")."""
_THEIR_KIN = re.compile(
    r"(?:Her|His|Their)(?=[ \t]+(?:husband|wife|partner|spouse|son|daughter|mum|mom|dad|mother|father|brother"
    r"|sister|boss|manager)\b)"
)
"""A line of a person's note naming one of their family by "her" ("Her husband is [[Piotr]]."): theirs."""
_LEFT_OUT_SUBJECT = re.compile(
    r"(?:(?P<pronoun>She|He|They)(?=[ \t]+(?:is|was|are|were|has|had|works|worked|lives|lived|reports|joined"
    r"|moved|studied|studies|graduated|married|manages|leads|founded|owns|uses|left|quit|started|retired"
    r"|resigned|switched|migrated|stopped|co-founded|cofounded)\b)"
    r"|(?:Works|Worked|Lives|Lived|Reports|Joined|Moved|Studied|Studies|Graduated|Manages|Leads|Founded"
    r"|Owns|Uses|Left|Quit|Started|Married|Retired|Resigned|Switched|Migrated|Stopped|Co-founded"
    r"|Cofounded)[ \t](?![^\s:]*:))"  # "Lives in: Leeds" is a label's (`_PERSON_FIELD`)
)
"""A line of a person's note whose subject is its person: left out ("Works at the BBC as a producer.")
or said as a pronoun ("She is married to [[Hugo Gomes]].")."""
_CONTRACTED_PRONOUN = re.compile(
    r"(?P<pronoun>She|He|They)(?P<mark>['’](?:s|re))(?=[ \t](?P<been>(?:been|got|gone|had)\b)?)"
)
"""A person's note's line opening with "She's", "He's", "They're": read as "She is" (or "has")."""
_LEARNED = re.compile(r"(?i)^\W*(?:TIL|today\s+I\s+(?:learned|learnt)(?:\s+that)?)\b[\s:,—–-]*\w")
"""A line of what the writer learned ("TIL …", "Today I learned that …"): a general fact, not an event."""
_MEAL_WITH = re.compile(
    r"(?i)^\W*(?:[A-Z][\w'’-]*['’]s\s+)?(?:a\s+)?(?:lunch|dinner|breakfast|brunch|coffee|drinks|a\s+drink|tea|a\s+pint|a\s+walk|a\s+run"
    r"|a\s+hike|a\s+call|a\s+catch-?up|catch-?up|1:1|one-on-one|a\s+date|date\s+night)\s+(?:with|w/)\s+\S"
)
"""A diary's line of whom the writer ate, drank or walked with, no verb said: "Lunch with Daniel Ford.",
"Coffee w/ Liv at Monzo's office"."""
_APPOINTMENT = re.compile(
    r"(?i)^\W*(?:[A-Z][\w'’-]*['’]s\s+)?(?:(?:knee|hip|eye|back|tooth|wisdom\s+tooth|follow-?up|annual|yearly)\s+)?"
    r"(?:dentist|doctor|doctor['’]s|gp|vet|physio|physiotherapy|hairdresser|haircut|barber|optician|check-?up|therapy"
    r"|therapist|counsellor|counselor|appointment|appt|scan|mri|x-ray|blood\s+test|surgery|operation|massage"
    r"|dermatologist|orthodontist|vaccination|jab|booster)(?:\s+(?:appointment|appt|visit))?\b"
    r"(?=[^.!?]*\b(?:at\s+\d{1,2}(?:[:.h]\d\d\s*(?:am|pm)?|\s*(?:am|pm))\b|today|this\s+(?:morning|afternoon"
    r"|evening)))(?![^.!?]*\b(?:cancel(?:l)?ed|postponed|moved|closing|closed|called\s+off)\b)"
)
"""A health or care appointment of the day, its time said: "Dentist at 9:30 with Dr. Lopes.", "Mum's knee
operation today.", "Vet at 10:15, Biscuit's ear infection."."""
_PERSON_PROPERTY = re.compile(
    r"(?i)^\W*(?:birthday|born|date\s+of\s+birth|dob|birth\s*date|anniversary|address|home\s+address"
    r"|allerg(?:y|ies)|diet|likes|dislikes|favou?rites?(?:\s+\w+)?|nickname|pronouns)\W*[:;]\s*\S"
)
"""A property of a person, labelled in their note ("Birthday: 14 May 1988", "| Allergies | peanuts |"):
a fact about them, whatever its date."""
_LABEL_LINE = re.compile(r"[A-Z][\w'’ -]{0,24}:[ \t]+\S")
"""A line a label opens ("Email: jose@…", "Birthday: 14 May"): in a person's note, a property of theirs."""
_PERSON_FIELDS = {
    "company": "works at", "employer": "works at", "works at": "works at", "workplace": "works at",
    "location": "lives in", "city": "lives in", "lives in": "lives in", "based in": "lives in",
    "spouse": "is married to", "wife": "is married to", "husband": "is married to",
    "partner": "is the partner of", "girlfriend": "is the partner of", "boyfriend": "is the partner of",
    "sister": "is the sibling of", "brother": "is the sibling of", "siblings": "is the sibling of",
    "kids": "is the parent of", "children": "is the parent of", "son": "is the parent of",
    "daughter": "is the parent of", "sons": "is the parent of", "daughters": "is the parent of",
    "manager": "reports to", "reports to": "reports to", "boss": "reports to",
}  # fmt: skip
_FIELD_PREDICATES = {
    "works at": "works_for",
    "lives in": "lives_in",
    "is married to": "married_to",
    "reports to": "reports_to",
    "is the partner of": "partner_of",
    "is the sibling of": "sibling_of",
    "is the parent of": "parent_of",
}
_PERSON_KEY_PREDICATES = {
    **{
        key.replace(" ", "_"): _FIELD_PREDICATES[says]
        for key, says in _PERSON_FIELDS.items()
        # As properties, a hierarchy's (see below), and a client's firm (`partner: "[[Kirkland & Ellis]]"`).
        if key not in ("kids", "children", "siblings", "partner")
    },
    # Not `parent`, `children`, `sibling`: a hierarchy's links as often (Breadcrumbs' `parent: [[Cooking]]`).
    **dict.fromkeys(["mother", "father", "mum", "mom", "dad"], "child_of"),
    **dict.fromkeys(["son", "sons", "daughter", "daughters"], "parent_of"),
    **dict.fromkeys(["brother", "brothers", "sister", "sisters"], "sibling_of"),
    **dict.fromkeys(["school", "university", "college"], "studied_at"),
}
"""A person's note's properties that say the relations of its fields (`company: "[[Sony]]"`) or its
family and schools (`mother: "[[Ana]]"` on Mia's note: Mia is Ana's child)."""
_FIELD_KEYS = "|".join(key.replace(" ", r"[ \t]+") for key in _PERSON_FIELDS)
_PERSON_FIELD = re.compile(
    rf"(?i)(?:\*\*|__)?(?P<key>{_FIELD_KEYS})(?:\*\*|__)?[ \t]*::?(?:\*\*|__)?[ \t]*(?=(?-i:[A-Z\ue000]))"
)
"""A person's note's label line saying where they work or live, or whom they married or report to:
"Company: Google", "Location: Zurich", "**Spouse:** [[Sophie Laurent]]"."""
_WORKS = _word_set("book movie show album podcast game recipe product article paper")
"""Kinds of notes about a work: their `author` made it, and wrote none of the note's "I"."""
_SNAKE = re.compile(r"^[a-z][a-z0-9_]*$")

# -- wording ------------------------------------------------------------------------------------


class _Keywords:
    """A regex behind a word screen: every match holds one of `words`, and most sentences hold none.

    `starts` tells where a match can start (a lookahead for the first letters of its phrases): the
    regex engine then leaves most positions of a sentence at once, and searches twice as fast.
    """

    __slots__ = ("pattern", "regex", "words")

    def __init__(self, words: str, pattern: str, *, starts: str, flags: int = 0) -> None:
        self.words = frozenset(words.split())
        self.pattern = pattern
        """The regex without `starts`, which must not change what it matches."""
        self.regex = LazyRegex(f"(?:{starts})(?:{pattern})", flags)

    def search(self, text: str, words: frozenset[str]) -> bool:
        """Whether the regex matches `text`, whose lowercase words are `words`."""
        return not self.words.isdisjoint(words) and self.regex.search(text) is not None


_IRREGULAR_PAST = _word_set(
    "was were had did made got went came saw met took gave found bought built broke brought caught chose"
    " drove fell felt forgot heard kept knew left lost paid ran said sent spent spoke stood taught thought"
    " told understood won wrote began ate drank flew grew held led lent meant rode rose sang sat slept sold"
    " shot stole swam threw woke wore burnt learnt dealt dug fed fought hung laid lit quit rang sank shook"
    " stuck struck swept tore became"
)
_NOT_PAST = _word_set(
    "need needed seed speed feed bed red shed sled hundred embed proceed succeed exceed indeed based related"
    " called named advanced interested supposed detailed limited beloved sacred naked wicked kindred hatred"
    " used unused aged excited thrilled worried scared"
)
_DIARY_PAST = _word_set("called used needed named read")
"""Words of `_NOT_PAST` that are past verbs when a line starts with them ("Called Kevin about it.")."""
_NOT_AFTER_DIARY_PAST = _word_set("by to after as for in on")
_NOT_A_READING = re.compile(
    r"(?i)^\W*read\s+(?:the\s+room|the\s+riot\s+act|between\s+the\s+lines|my\s+mind|it\s+and\s+weep|more\b|me\b)"
    r"|\b(?:every|each|usually|always|often|daily)\b"
)
""""Read the room.", "Read more", "Read every morning": an idiom, a link's label or a habit, no reading
done."""
_READ_THEN = re.compile(
    r"(?i)\b(?:I|we)\s+(?:finally\s+|just\s+|also\s+|re)?read\b(?!.*\b(?:every|each|usually|always|often))"
    r"(?=.*?\b(?:yesterday|last\s+(?:night|week|weekend"
    r"|month|year)|ago|this\s+(?:morning|afternoon|evening)|earlier|today|tonight|on\s+the\s+(?:flight|train"
    r"|plane|bus|way)|over\s+the\s+weekend)\b)"
    r"|^\W*(?:[A-Z][a-z]{2,8}\.?\s+\d{1,2}(?:st|nd|rd|th)?|\d{4}-\d{2}-\d{2})\s*[:—–-]\s*(?:re)?read\b"
)
"""A reading the sentence says is done: "I read Dune on the flight", "Mar 14: read Vaswani et al.",
not "I read before bed"."""
"""After one of `_DIARY_PAST`, a passive, a habit or a description: "Used by", "Used to", "Named after"."""
# Not "you": a note that tells "you" what happened addresses its reader (rules, a story, advice),
# and in a conversation it is the listener's: neither is the writer's own event.
_PRONOUN_SUBJECTS = _word_set("i we he she they")
"""After one of these, a word of `_NOT_PAST` is the verb: "I called Bob", "we used the lathe"."""
_KIN_SUBJECTS = _word_set(
    "mum mom dad mother father sister brother wife husband grandma grandpa son daughter"
)
"""After one of these too, unless a name follows: "Dad called", not "a sister called Mia"."""
_ED_ENDING = re.compile(r"(?i)ed\b")
_PASSIVE_BEFORE = _word_set("is are be been being am getting")
_SUBJECT_BEFORE = _word_set(
    "i we he she they it who which that i've we've have has had just then finally also already never"
    " really eventually quickly first later ever and"
)
_DIARY_LEAD = _word_set("finally then also just first")
_TOKENS = re.compile(r"\ue000\d+\ue001|[^\W\d_]+(?:['’][^\W\d_]+)?")
"""Words, and the placeholders of links and code spans (names, for `_is_main_verb`)."""
_FIRST_PERSON_WORDS = _word_set(
    "I I'm I've I'd I'll I’m I’ve I’d I’ll me Me my My mine Mine myself Myself we We us Us our Our ours Ours"
    " we're We're we’re We’re we've We've we’ve We’ve we'd We'd we’d We’d we'll We'll we’ll We’ll"
)
_FIRST_PERSON_FR_WORDS = _word_set("je moi mon ma mes nous notre nos")
_FRENCH_PAST = re.compile(
    r"(?i)\b(?:j['’]ai|nous avons|on a|je suis|nous sommes|j['’]avais|nous avions)\s+"
    r"(?:(?:enfin|déjà|aussi|finalement|encore|bien|jamais|beaucoup|tout|vite)\s+)*(?P<word>[\wéèêû]+)"
)
_FRENCH_NOT_PARTICIPLE = _word_set(
    "un une des deux trois quatre cinq six plus moins du le la les mon ma mes ton ta tes son sa ses notre"
    " nos besoin envie peur faim soif mal hâte toujours rien pas très si"
)
_FRENCH_PARTICIPLE_ENDINGS = tuple(
    sorted(_word_set("é ée és ées i ie is it u ue us ert erte eint aint oint û"))
)
_DECIDING = re.compile(r"(?i)\b(?:decided|agreed|chose|opted|committed|settled)\b")
_DECIDED_CLAUSE = re.compile(r"(?i)\b(?:to|that)\b")
"""What opens what was decided, after its verb: "decided to …", "agreed that …"."""


def _days_of_what_was_decided(title: str, dates: Sequence[tuple[int, int, date]]) -> bool:
    """Whether every day a decision names is in what was decided ("We decided to postpone the launch
    to December 1; the beta stays on Oct 20"), none of when it was decided ("We decided on Monday to
    …", "We decided, after the March 12 demo, to …", "We opted for Stripe in the 2024-11-05 review")."""
    verb = _DECIDING.search(title)
    return (
        verb is not None
        and bool(dates)
        and all(
            start > verb.end() and _DECIDED_CLAUSE.search(title, verb.end(), start) for start, _, _ in dates
        )
    )


_DECISION = _Keywords(
    "decided decide decision chose chosen choose switched picked went going settled opted use agreed"
    " committed décidé décidons décide choisi opté utiliser",
    # Not "picked up Leo from school": an errand.
    r"\b(?:decided|decide to|decision to|chose|chosen|choose to|switched|picked(?!\s+(?:up|off)\b)|went with"
    r"|going with"
    r"|settled on|opted|will use|we'll use|are going to use|agreed to|committed to"
    r"|décidé|décidons|décide de|choisi|opté|on va utiliser|nous allons utiliser)\b",
    starts="(?=[dcspwgoan])",
    flags=re.IGNORECASE,
)
_NOT_DECIDED = re.compile(
    r"(?i)\b(?:not|n['’]t|never|yet to|haven['’]t|hasn['’]t|didn['’]t|pas encore|pas)\s+(?:yet\s+)?"
    r"(?:decided|chosen|picked|décidé|choisi)\b|\bundecided\b"
    # The listener's choice, or the reader's: "I love that you chose pottery", "if you picked A".
    r"|\byou(?:['’]ve|\s+have)?\s+(?:just\s+)?(?:decided|chose|chosen|picked|switched|opted|went\s+with"
    r"|settled\s+on|agreed)\b"
)
_PREFERENCE = _Keywords(
    "prefer like love hate dislike always never usually tend enjoy favorite favourite rather préfère"
    " préférons j'aime j’aime j'adore j’adore déteste",
    # Up to two adverbs between: "I now prefer", "we generally prefer", "I don't really like".
    r"\b(?:I|[Ww]e)\s+(?:(?:really|much|still|definitely|now|also|generally|mostly|actually|personally"
    r"|honestly|truly|strongly|do|don['’]t|do\s+not|kind\s+of|very\s+much)\s+){0,2}(?:prefer|like|love|hate"
    r"|dislike|always|never|usually|tend to|enjoy)\b|\b[Mm]y favou?rite\b"
    # "I've come to prefer", "I have always loved"; "I'd rather", "we would rather".
    r"|\b(?:I|[Ww]e)(?:['’]ve|\s+have)\s+(?:always|come\s+to|grown\s+to|learned\s+to|learnt\s+to)\s+"
    r"(?:prefer|like|love|hate|enjoy)"
    r"|\b(?:I|[Ww]e)(?:['’]d|\s+would)\s+(?:much\s+)?rather\b"
    r"|(?i:\bje préfère\b|\bj['’]aime\b|\bj['’]adore\b|\bje déteste\b|\bnous préférons\b)",
    starts="(?=[IWwMm]|(?i:[jn]))",
)
_STATE_STRONG = _Keywords(
    "currently running now still nowadays moment days actuellement désormais",
    r"\b(?:currently|is running|are running|is now|are now|now uses?|now runs?|still uses?|still runs?"
    r"|nowadays|at the moment|these days|actuellement|en ce moment|désormais)\b",
    starts="(?=[ciansted])",
    flags=re.IGNORECASE,
)
_STATE_FIRST_PERSON = _Keywords(
    "use run own work live using running working living report reporting j'utilise j’utilise utilisons"
    " j'habite j’habite travaille",
    r"\b(?:I|[Ww]e)\s+(?:now\s+|still\s+|currently\s+)?(?:use|run|own|work (?:at|for)|live in|report to"
    r"|am using|am running)\b|\bI['’]m\s+(?:using|running|working|living|reporting to)\b"
    r"|(?i:\bj['’]utilise\b|\bnous utilisons\b|\bj['’]habite\b|\bje travaille\b)",
    starts="(?=[IWw]|(?i:[jn]))",
)
# What someone is, has and is called, in the present: the facts about a person that last (an
# allergy, a diet, a family, a pet, where they are from). Closed lists: "I'm tired" is no such fact.
_SELF_FACT = _Keywords(
    "allergic intolerant vegetarian vegan pescatarian diabetic coeliac celiac married engaged divorced"
    " widowed pregnant retired handed fluent from based work works have kid kids child children son sons"
    " daughter daughters sister sisters brother brothers dog dogs cat cats grandchildren grandkids wife"
    " husband partner boyfriend girlfriend mother father mum mom dad",
    r"\b(?:I['’]m|I\s+am|[Ww]e['’]re|[Ww]e\s+are)\s+(?:(?:also|still|now|severely|very|mildly|happily"
    r"|originally)\s+)?(?:allergic\s+to|(?:lactose|gluten)\s+intolerant|vegetarian|vegan|pescatarian"
    r"|diabetic|c(?:o)?eliac|married|engaged|divorced|widowed|pregnant|retired|left-handed|right-handed"
    r"|fluent\s+in|from\s+(?=[A-Z])|based\s+in)\b"
    r"|\b(?:I|[Ww]e)\s+(?:(?:also|still|now)\s+)?work\s+as\b"
    r"|\b(?:I|[Ww]e)\s+(?:(?:also|still|now)\s+)?have\s+(?:a|an|one|two|three|four|five|six|\d+)\s+"
    r"(?:[a-z]+\s+)?(?:kids?|child(?:ren)?|sons?|daughters?|sisters?|brothers?|dogs?|cats?|grandchildren"
    r"|grandkids)\b"
    r"|\b(?:My|Our)\s+(?:[a-z]+\s+)?(?:wife|husband|partner|boyfriend|girlfriend|sons?|daughters?"
    r"|sisters?|brothers?|mother|father|mum|mom|dad|kids|children|dog|cat)(?:['’]s\s+name\s+is|\s+(?:is"
    r"|are)\s+(?:called|named)|\s+(?:lives?|works?)\s+(?:in|at|as|for)|\s+was\s+born)\b",
    starts="(?=[IWwMO])",
)
_NAMED_SUBJECT = (
    r"(?:(?!(?:This|That|It|There|Here|What|Which|Who|Everything|Something|Nothing|Everyone|Someone|Nobody"
    r"|He|She|They|You|One|I|We|The|A|An|My|Our|Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday"
    r"|January|February|March|April|May|June|July|August|September|October|November|December|Today"
    r"|Tomorrow|Yesterday)\b)(?:(?:Dr|Mr|Mrs|Ms|Mx|Prof)\.\s+)?[A-Z][^\W\d_]+(?:\s+[A-Z][^\W\d_]+)?"
    r"|\ue000\d+\ue001)"
)
"""A sentence's subject that names someone or something: "Ana", "Ana Costa", "Prof. Okafor", a link;
no pronoun, no day ("Monday leads into a long week")."""
_THEIR_PREFERENCE = _Keywords(
    "prefers loves likes hates dislikes enjoys adores",
    rf"{_NAMED_SUBJECT}\s+(?:(?:really|still|now|also|generally|mostly|absolutely|actually)\s+)?"
    r"(?:prefers|loves|likes|hates|dislikes|enjoys|adores)\b(?!\s+(?:me|us|it)\b)",
    starts="^",
)
"""Someone named's preference: "Tomás prefers email over Slack", "Ana loves hiking"; not what a
tool seems to feel about its user ("Docker hates me today")."""
_LANGUAGES = (
    "English|Spanish|Portuguese|German|French|Italian|Dutch|Mandarin|Chinese|Cantonese|Japanese|Korean"
    "|Arabic|Hindi|Urdu|Bengali|Russian|Ukrainian|Polish|Czech|Hungarian|Romanian|Swedish|Norwegian"
    "|Danish|Finnish|Icelandic|Greek|Turkish|Hebrew|Persian|Farsi|Catalan|Basque|Galician|Vietnamese"
    "|Thai|Indonesian|Tagalog|Swahili"
)
_THEIR_TRAIT = _Keywords(
    "allergic intolerant vegetarian vegan pescatarian diabetic coeliac celiac married engaged divorced"
    " widowed pregnant retired fluent speaks kid kids child children son sons daughter daughters sister"
    " sisters brother brothers dog dogs cat cats grandchildren grandkids old",
    rf"{_NAMED_SUBJECT}(?:\s+is|['’]s)\s+(?:(?:also|still|now|severely|very|mildly|happily)\s+)?"
    r"(?:allergic\s+to|(?:lactose|gluten)\s+intolerant|(?:an?\s+)?(?:vegetarian|vegan|pescatarian|diabetic)"
    r"|c(?:o)?eliac|married|engaged|divorced|widowed|pregnant|retired|fluent\s+in|\d{1,3}\s+years?\s+old)\b"
    rf"|{_NAMED_SUBJECT}\s+(?:(?:also|still|now)\s+)?speaks\s+(?:(?:fluent|some|a\s+little)\s+)?"
    rf"(?:{_LANGUAGES})\b"
    rf"|{_NAMED_SUBJECT}\s+(?:(?:also|still|now)\s+)?has\s+(?:a|an|one|two|three|four|five|six|\d+)\s+"
    r"(?:[a-z]+\s+)?(?:kids?|child(?:ren)?|sons?|daughters?|sisters?|brothers?|dogs?|cats?|grandchildren"
    r"|grandkids)\b",
    starts="^",
)
"""What someone named lastingly is or has: "Mia is allergic to peanuts", "Sam is a vegetarian",
"Tomás speaks Portuguese", "Ana has two kids", "Tom is 34 years old" (so on the note's day)."""
_THEIR_ROLE = _Keywords(
    "owns leads manages maintains heads oversees coordinates responsible charge owner lead manager"
    " maintainer contact go go-to dri",
    rf"{_NAMED_SUBJECT}\s+(?:(?:now|still|currently|also)\s+)?(?:owns|leads|manages|maintains|heads|oversees"
    r"|coordinates|is\s+(?:(?:now|still|currently|also)\s+)?(?:responsible\s+for|in\s+charge\s+of|(?:the|our)"
    r"\s+(?:new\s+)?(?:owner|lead|manager|maintainer|(?:main\s+)?point\s+of\s+contact|contact(?:\s+person)?"
    r"|go-to\s+(?:person|guy|contact)|DRI)\s+(?:of|for|on|at|with)))\b",
    starts="^",
)
"""What someone named is in charge of: "Kai owns the onboarding flow", "Ana is responsible for QA",
"Dev is the point of contact for Globex" (a role of theirs, no definition of them)."""
_GOAL = _Keywords(
    "goal goals aim aims plan plans resolution resolutions dream dreams intention target priority trying",
    r"\b(?:My|Our)\s+(?:(?:main|big|only|first|new)\s+)?(?:goal|aim|plan|resolution|dream|intention|target"
    r"|priority)s?\b[^.;]{0,40}?\b(?:is|are)\s+to\b"
    r"|\b(?:I['’]m|I\s+am|[Ww]e['’]re|[Ww]e\s+are)\s+(?:(?:still|now|really)\s+)?trying\s+to\b",
    starts="(?=[MOIWw])",
)
"""The writer's aim: "My goal for this year is to run a marathon", "I'm trying to cut down on coffee"."""
_ONGOING = re.compile(r"\b(?:I|[Ww]e)(?:['’]ve|\s+have)\s+been\s+[a-z]{2,}ing\b")
"""What the writer has been doing and still does: "I've been learning Spanish for two years"."""
_LEARNING = _Keywords(
    "learning studying practicing practising training",
    r"\b(?:I['’]m|I\s+am|[Ww]e['’]re|[Ww]e\s+are)\s+(?:(?:still|now|currently)\s+)?"
    r"(?:learning|studying|practi[cs]ing|training\s+for)\b",
    starts="(?=[IWw])",
)
"""What the writer is learning these days: "I'm learning the cello" (not "I'm studying for the exam
tomorrow": a day says it is for then)."""
_HABIT = _Keywords(
    "every times once twice mondays tuesdays wednesdays thursdays fridays saturdays sundays weekends"
    " weekdays",
    r"(?i:\bevery\s+(?:other\s+|single\s+)?(?:day|morning|evening|night|week|weekend|month|year|monday"
    r"|tuesday|wednesday|thursday|friday|saturday|sunday)\b"
    r"|\b(?:once|twice|(?:two|three|four|five|six|\d+)\s+times)\s+(?:a|per|each)\s+(?:day|week|month|year)\b"
    r"|\bon\s+(?:mondays|tuesdays|wednesdays|thursdays|fridays|saturdays|sundays|weekends|weekdays)\b)",
    starts="(?=(?i:[eotfs0-9]))",
)
"""What is done again and again: "Every Tuesday I go climbing", "I run three times a week"."""
_HOUSE_RULE = re.compile(
    r"(?:Never|Always)\s+(?:ever\s+)?(?!(?:the|a|an|my|our|your|his|her|their|this|that|these|those|so|too|very"
    r"|more|less|been|mind|again|here|there|ever)\b)[a-z]{2,}\b"
)
"""A rule the writer keeps: "Never run migrations on Fridays", "Always check the bed level first"."""
_RULE_LABEL = re.compile(r"(?i)(?:note to self|rule|reminder|lesson(?: learned)?)\s*:\s*")
"""A label before a rule: "Note to self: never deploy on Fridays"."""
_DECISION_LABEL = re.compile(r"(?i)(?:decision|decided|décision)\s*:\s*\w")
"""A label that says what follows was decided: "Decision: we go with Postgres for the metadata store"."""
# "Sam's birthday is on 3 May", "My birthday is on 12 March": a lasting fact about someone named or
# the writer, whatever the note's date.
_NAMED_FACT = _Keywords(
    "birthday address phone number email wife husband partner boyfriend girlfriend son daughter kids"
    " children dog cat sister brother mother father mum mom dad name surname job allergy allergies",
    r"\b[Mm]y\s+(?:birthday|(?:home\s+)?address|(?:phone\s+)?number|e-?mail|(?:first\s+|last\s+)?name|surname"
    r"|allerg(?:y|ies))\s+(?:is|are)\b"
    r"|\b[A-Z][^\W\d_]+(?:\s+[A-Z][^\W\d_]+)?['’]s\s+(?:birthday|(?:home\s+)?address|phone(?:\s+number)?"
    r"|number|email|wife|husband|partner|boyfriend|girlfriend|son|daughter|kids|children|dog|cat|sister"
    r"|brother|mother|father|mum|mom|dad|(?:first\s+|last\s+)?name|surname|job|allerg(?:y|ies))\s+(?:is|are)\b",
    starts="(?=[A-Zm])",
)
# "has lived", "have used", "'ve been": with "since <date>" a state that still holds, no past event.
_PERFECT = re.compile(r"(?i)\b(?:has|have)\b|[a-z][’']ve\b")
_SAID_CLAUSE = re.compile(
    r"(?i)\b(?:is|are|will|would|could|might|should|can|has|have|due|going\s+to|(?:re)?starts?|begins?"
    r"|(?:re)?opens?|ends?|closes?|arrives?|lands?|ships?|launch(?:es)?|happens?|runs?|takes?\s+place)\b"
    r"|['’](?:s|re|d|ll)\b"
)
"""A clause said, between a reporting verb and a day: "said the deadline is …", "mentioned Helen starts …"."""
_WOULD_BEFORE = re.compile(
    r"(?i)\b(?:would|will|could|might|['’]d|['’]ll|(?:is|are|was|were)\s+going\s+to|should)\b[^.;:!?]{0,40}$"
)
"""A day something said would happen comes after ("Carlos said the cabinets would arrive May 2")."""
_MOVED_TO_BEFORE = re.compile(
    r"(?i)\b(?:postpone[ds]?|push(?:ed|es)?|move[ds]?|reschedule[ds]?|delay(?:ed|s)?|put\s+off|shift(?:ed|s)?"
    r"|slip(?:ped|s)?|slid(?:es)?|bump(?:ed|s)?|extend(?:ed|s)?|change[ds]?|report[ée]e?)\b[^.;,]{0,40}?"
    r"\b(?:to|until|till|from|à|au)\s+(?:the\s+|le\s+)?"
    # A hedge ("to about April 2", "to approx. April 3"), then a month's or a weekday's name.
    r"(?:(?:about|around|approx|approximately|roughly|likely|probably|hopefully|maybe|perhaps|possibly"
    r"|sometime|tentatively|provisionally|early|mid|late)\.?\s+)?"
    r"(?:(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?"
    r"|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?|mon(?:day)?|tues?(?:day)?|wed(?:nesday)?|thu(?:rs)?(?:day)?"
    r"|fri(?:day)?|sat(?:urday)?|sun(?:day)?|next|this)\.?,?\s+)?$"
)
"""A day something is moved to (or from: a range's first day after its month, "from Nov |14 to Nov
21"), its verb further back ("Postponed the dentist to June 14", "Apple Pay
slipped to June 15"): read over more of the sentence than `_TARGET_BEFORE`. A place between is no
month: "I moved to Montreal yesterday" moved then."""
_TARGET_BEFORE = re.compile(
    r"(?i)(?:\b(?:postpone[ds]?|push(?:ed|es)?|move[ds]?|reschedule[ds]?|delay(?:ed|s)?|put\s+off"
    r"|shift(?:ed|s)?|report[ée]e?)\b[^.;]{0,40}?"
    r"\b(?:to|until|till|à|au)\s+(?:the\s+|le\s+)?|\b(?:due|deadline)\s+"
    r"|\b(?:expected|slated)\s+(?:on\s+|by\s+)?"
    r"|\bfor\s+(?:the\s+)?(?:\d{1,2}(?:st|nd|rd|th)?\s*[–-]\s*)?"  # a range's first day: "for 12–15 July"
    r"|\b(?:deadline|due\s+date)\b[^.;]{0,40}?\b(?:is|was|of)\s+)$"
)
"""The words before a date that say it is a target: "to April 15", "until Friday", "due 3 May",
"the deadline for Heron is 2025-10-15", "booked the hotel for 12 July"."""
_BOOKED_BEFORE = re.compile(
    r"(?i)\b(?:booked|registered|signed\s+up|enrolled|reserved|rsvp['’]?d"
    r"|(?:bought|got|ordered|booked)\s+(?:\w+\s+)?tickets?)\b[^.;!?]{0,20}?\bfor\b[^.;!?]{0,60}?"
    r"(?:\bon\s+(?:the\s+)?|\(\s*)$"
)
"""Before the day of what was booked: "Registered for the Berlin marathon on 28 September", "Bought
tickets for the concert on June 3", "Signed up for the half marathon (April 6)": the booking is of the
note's day (but "Booked the flights on Monday" was done then)."""
_SOCIAL_ACT = re.compile(
    r"(?i)^\W*(?:called|phoned|rang|met|saw|visited|texted|messaged|emailed|face-?timed|skyped|talked\s+to"
    r"|spoke\s+(?:to|with)|chatted\s+(?:to|with)|caught\s+up\s+with|had\s+(?:a\s+)?(?:lunch|dinner|breakfast"
    r"|brunch|coffee|drinks|a\s+drink|tea|call|chat|catch-?up)\s+with)\s+\S"
)
"""A diary line opening with time spent with someone: "Called Mum", "Met Lena for dinner"."""
_THEIR_NEWS = re.compile(r"(?:[,;—–]|\s-\s)\s*(?:he|she|they|his|her|their|[A-Z][a-z]+)\b")
"""A later clause telling someone else's news: ", her knee op is …", "; she starts …", " — he's …"."""


def _their_news_before(title: str, at: int) -> bool:
    """Whether a clause telling someone else's news starts before a place in a line (see `_THEIR_NEWS`)."""
    found = _THEIR_NEWS.search(title, 0, at)
    return found is not None and found.group(0).strip(",;—–- \t").casefold() not in ("i", "we")


_BOOKING = re.compile(
    r"(?i)\b(?:booked|reserved|registered|signed\s+up|enrolled|rsvp['’]?d"
    r"|(?:bought|got|ordered)\s+(?:\w+\s+){0,2}tickets?|tickets?\s+(?:bought|sorted)"
    r"|paid\s+(?:the\s+|a\s+)?deposit)\b"
)
"""A booking, wherever the day booked stands (a month and day long gone when read as past is ahead)."""
_UNTIL_BEFORE = re.compile(
    r"(?i)\b(?:until|till|til|jusqu['’]au|jusqu['’]à)\s+(?:the\s+|le\s+)?(?:(?:very\s+)?end\s+of\s+(?:the\s+)?)?$"
)
"""Before the date a past state ended ("worked at SAP until 3 March 2023", "until the end of June")."""
_POINTS_AHEAD_BEFORE = re.compile(
    r"(?i)(?:\b(?:is|are|am|['’]s|['’]re|['’]m|will\s+be)\b(?:\s+[\w'’-]+){0,2}?"
    r"|\b(?:starts?|starting|begins?|beginning|ends?|ending|leaves?|leaving|fly|flies|flying|move|moves|moving"
    r"|arrives?|arriving|opens?|opening|due|scheduled|booked|planned|set|going|coming|heading|retiring"
    r"|relocating|emigrating|graduating|joining|changing|switching)\b"
    r"(?:\s+[\w'’-]+){0,5}?"
    # The writer's news, right before its time: "we're having a baby in", "I'm getting married in".
    r"|\b(?:having\s+(?:a\s+baby|twins)|expecting(?:\s+(?:a\s+baby|twins))?|getting\s+(?:married|divorced|engaged)))"
    r"\s+(?:on|in|for|by|from)?\s*(?:the\s+)?$"
)
"""A verb right before a time that points ahead: a copula up to two words apart ("my last day here is",
"I'm off from"), a verb of going or starting up to five ("I'm starting a new role at Deliveroo on",
"we're moving to Bristol in"); not "the photos from our trip in", "still sore from the marathon on"."""
_STARTS_AHEAD_BEFORE = re.compile(
    r"(?i)(?<!\bwas\s)(?<!\bwere\s)(?<!\bhad\s)\b(?:start|starts|starting|begin|begins|beginning|joining|flying"
    r"|moving|leaving|leaves|retiring|due|(?:to|will|gonna|going\s+to)\s+(?:start|begin|join|move|leave|fly|retire))"
    r"(?:\s+[\w'’-]+){0,3}?\s+(?:on|in|from|at\s+the\s+(?:end|start|beginning)\s+of)\s+(?:the\s+)?$"
)
"""A start still ahead right before a time, in a sentence otherwise past: "start on", "joining Anthropic
in", "decided to retire at the end of" (not "we were flying on", "I booked the tickets on")."""
_STARTS_ON_BEFORE = re.compile(
    r"(?i)(?<!\bwas\s)(?<!\bwere\s)(?<!\bhad\s)\b(?:start|starts|begin|begins|due"
    r"|(?:to|will|gonna|going\s+to|['’]ll)\s+(?:start|begin|join|move|leave|fly|retire))"
    r"(?:\s+[\w'’-]+){0,3}?\s+(?:on|from)\s+(?:the\s+)?$"
)
"""A start still ahead right before a weekday or a day of the month, in a sentence otherwise past: "I
start at Monzo on the 3rd" (not "Flying back from Rome on Sunday was a nightmare", "Starting on
Monday, I logged every meal": a participle tells what was)."""
_RESCHEDULED_BEFORE = re.compile(
    r"(?i)\b(?:moved|pushed|postponed|delayed|rescheduled|bumped|shifted|brought\s+forward|pushed\s+back"
    r"|(?:to|will|'ll)\s+(?:move|push|postpone|delay|reschedule|bump|shift))(?:\s+[\w'’-]+){0,4}?\s+"
    r"(?:to|until|till)\s+(?:the\s+)?$"
)
"""A new day something was put off or brought forward to: "moved the launch to", "was postponed until".
Said before or after it, it is the nearest such day: "pushed the release to March 10, and it shipped"."""
_WEEKDAY_BEFORE = re.compile(rf"(?i)\b(?P<day>{_A_WEEKDAY})\.?,?\s+(?:the\s+)?$")
"""A weekday right before a day ("saturday 6th april"): the day is one of that weekday."""
_RANGE_TO = re.compile(r"(?i)\s*(?:to|until|till|through|–|-)\s*")
"""Between a range's two times: "from 1 April to 14 April"."""
_AHEAD_VERB = re.compile(
    r"(?i)\b(?:starts|starting|begins|beginning|will|going\s+to|is\s+moving|are\s+moving|moves|is\s+running"
    r"|plans?\s+to|is\s+due|joins|is\s+joining)\b"
)
"""A verb of what is still to happen: the month after it without its year is the coming one."""
_FOUR_DIGITS = re.compile(r"\d{4}")
_MAX_YEAR_SAID = 2999
"""A day after any year a note names, to read "in March 2025" in a note without a date against."""
_REPORTED = re.compile(
    r"(?i)\b(?:said|says|told|tells|mentioned|heard|announced|confirmed|confirmation|learned|learnt"
    r"|found\s+out|wrote|emailed|explained|noted|reminded|promised|agreed)\b|\s[—–]\s|;"
    r"|,\s+(?=(?:and\s+|so\s+|but\s+)?(?:(?:I|we|she|he|they|it)(?:['’](?:re|s|m|ll|d))?|the|his|her|my|our|their|its"
    r"|starts?|begins?|ends|opens|closes|due|arrives?)\s)"
    # A bare noun's clause that is about a day: "launch is June 3", "deadline is on 3 May" (not
    # "damage is from the storm on 6 April": a day gone that the clause names by the way).
    # (the text is read up to the day: the clause ends there).
    r"|,\s+(?=[a-z][\w-]*\s+(?:is|are)\s+(?:(?:on|due|set\s+for|scheduled\s+for)\s+)?(?:the\s+)?$)"
    r"|\s+and\s+(?=(?:starts|begins|joins|moves|arrives|flies|lands)\s)"
)
"""A verb reporting what someone said, a dash or semicolon between two clauses, a comma before a
clause's own subject ("Aisha accepted the offer, she starts on March 17", "Got the invite, the wedding
is on 14 June", "Reviewed the roadmap, launch is June 3"), or "and" before a verb of what is to come
("Olivia accepted our offer and joins on May 5"): the tense of what follows is its own."""
_REPORTED_BEFORE_COLON = re.compile(
    r"(?i:^.*\b(?:overheard|quot(?:e|es|ed|ing)|prompt|words)\b[^:.!?]*:[\x20\t]*$)"
    # Someone else's: "Ana texted me:", "She said:", "My boss wrote:" (not "I texted Mom:", nor a
    # diary's "Texted Mom:", "Posted the announcement:": the writer reporting their own words).
    r"|^[\W_]*(?:(?!I\b|We\b)(?:[A-Z][\w'’-]*|\ue000\d+\ue001)(?:\x20[A-Z][\w'’-]*)?(?:\x20\([^()\n]{1,30}\))?"
    r"|(?i:my|our|the|his|her|their)(?:\x20[a-z]+){1,3})"
    r"\x20(?:just\x20|then\x20|also\x20)?(?i:text(?:s|ed)|said|says|told\x20\w+|tells\x20\w+|wr(?:ote|ites)"
    r"|messaged|e-?mailed|repl(?:ied|ies)|asked|posted|tweeted|claim(?:s|ed)|joked|announced|yelled|shouted"
    r"|whispered|dm['’]?d|whatsapped)\b[^:.!?]*:[\x20\t]*$"
)
"""What someone else said, reported before a colon: an "I" after it is theirs ("Ana texted me: I just
started a new job at Stripe!", "Overheard on the train: I quit my job")."""
_NUMBERED_VOICE = r"(?:Speaker|Participant|Guest|Caller)\x20\d{1,2}"
"""A voice a transcription app could not name: "Speaker 2"."""
_RECORDING_TIME = r"(?:0?0:\d\d(?::\d\d)?|\d{1,2}:\d\d:\d\d)"
"""A time into a recording ("00:01", "0:42:10"), not a time of day ("10:00"): a day plan's block
("**Deep Work** 10:00", "Flight Home (18:00):") is no one's line."""
_SPEAKER_LABEL = re.compile(
    r"^[\W_]*(?:(?P<speaker>(?!I\b|We\b)[A-Z][\w'’-]*)(?:\x20[A-Z][\w'’-]*)?|\ue000\d+\ue001"
    # A recording's time after a full name or an unnamed voice: "Priya Shah (00:01): …", "Speaker 2
    # (00:00:09): …" (not "Flight (14:00): I moved to Lisbon today", the writer's own line).
    rf"|(?:(?P<named>[A-Z][\w'’-]*)\x20[A-Z][\w'’-]*|{_NUMBERED_VOICE})"
    rf"(?:\*\*|__)?(?:[\x20\t]*[\[(]{_RECORDING_TIME}[\])])?)(?:\*\*|__)?"
    r"[\x20\t]*(?::|[—–]|\x20-)(?:\*\*|__)?[\x20\t]*$"
)
"""A speaker's label before their words: "Ana: I live in Berlin now", "**Ana**: …", "Ana — I moved …",
"[[Ana]]: …" (not a diary's label: "Update:", "Today:", "Texted Mom:")."""
_NOT_SPEAKERS = _word_set(
    """news big reminder personal work life home health family done also finally next last first
    monday tuesday wednesday thursday friday saturday sunday january february march april may june july
    august september october november december"""
)
_TOPIC_LABELS = _word_set(
    """reorg gym mood sleep weather kids money finance finances admin career job team project projects
    fitness diet food meals car house garden travel trip holiday holidays vacation school study books
    music film films movies tv gratitude grateful highlight highlights lowlight lowlights win wins blocker
    blockers goal goals focus energy weight wellbeing therapy social friends thoughts feelings journal
    chores errands baby pregnancy insight worry concern risk recap retro feedback milestone deadline
    launch release deploy incident outage bug hotfix security infra ops budget sales revenue product
    design support legal hr okr okrs kpi kpis ux ui qa eng health relocation moving reading cooking
    running training shopping hiring marketing planning learning parenting gardening cleaning writing
    climbing cycling swimming baking hiking housing funding pricing engineering"""
)
"""Topics that label a diary's or a work log's line ("Reorg: I now report to Marcus", "Gym: …"), which
a speaker's name is not."""
_TOPIC_ENDINGS = ("tion", "sion", "ness", "ship", "ism", "ology")


def _a_topic(label: str) -> bool:
    """Whether one word before a colon names a topic rather than who speaks ("Cooking:", "Promotion:";
    not "Clement:", "Sterling:", names as often as words)."""
    return label in _TOPIC_LABELS or (len(label) >= 6 and label.endswith(_TOPIC_ENDINGS))


def _someone_elses_words(before: str) -> bool:
    """Whether what follows `before` (a sentence up to a clause of its own) is someone else's words."""
    if _REPORTED_BEFORE_COLON.search(before):
        return True
    speaker = _SPEAKER_LABEL.match(before)
    if speaker is None:
        return False
    first = (speaker["speaker"] or speaker["named"] or "").lower()
    return not (first in _DIARY_LABELS or first in _NOT_SPEAKERS or _a_topic(first) or _is_past_word(first))


def _speaker_opens(
    text: str, transcript: AbstractSet[str]
) -> Literal["speaker", "reported", "transcript"] | None:
    """Whether a block opens with someone else's label or speaker line: "reported" when the writer
    reports them ("Ana told me:"), "speaker" after their label ("Priya:"), "transcript" after a speaker
    line of a `transcript` ("Priya Natarajan  0:42", its lines below all theirs)."""
    first_line = text.split("\n", 1)[0]
    if transcript and first_line.strip() in transcript and "\n" in text:
        return "transcript"
    colon = _LABEL_END.search(first_line, 0, 120)
    # A link in the label reads as the extractor's placeholder for it ("[[Priya]]:").
    label = _LINK_IN_LABEL.sub("\ue0000\ue001", first_line[: colon.end()]) if colon is not None else ""
    if colon is None or not _someone_elses_words(label):
        return None
    return "reported" if _REPORTED_BEFORE_COLON.search(label) else "speaker"


_LINK_IN_LABEL = re.compile(r"\[\[[^\[\]\n]*\]\]")
_THEIR_REPORT_HEADING = re.compile(
    r"\s*(?:(?P<owner>\[\[[^\[\]\n]+\]\]|(?!My\b)[A-Z][\w'’-]*(?:[ ][A-Z][\w'’-]*)?)['’]s?|Her|His|Their)[ ]+"
    r"(?:(?:weekly|monthly|latest|recent|own)[ ]+)?"
    r"(?:updates?|topics?|notes|news|points|agenda|items|wins|concerns|feedback|status|progress|side|week)\s*$"
)
"""A heading over someone else's report in a 1:1 or a meeting: "Priya's updates", "Her topics"."""
_NOT_AN_OWNER = _word_set(
    "today tonight yesterday tomorrow monday tuesday wednesday thursday friday saturday sunday morning"
    " afternoon evening night week weekend month year quarter day project team company client customer"
    " everyone everybody group family household last this next daily weekly monthly work"
)
"""First words of what owns a heading's notes that are no one: "Today's notes", "Team's week"."""


def _names_a_speaker(text: str, opens: str) -> bool:
    """Whether a label-only item names whose words the items under it are: one that reports them ("Ana
    told me:"), or a link or a full name ("[[Priya]]:", "Priya Natarajan:"); not a diary's "Wins:"."""
    label = text.strip().rstrip(":").strip("*_ ")
    return opens == "reported" or label.startswith("[[") or len(label.split()) >= 2


def _label_only(text: str) -> bool:
    """Whether a list item is a label and nothing else ("Priya:", "Ana told me:")."""
    stripped = text.strip()
    return stripped.endswith(":") and "\n" not in stripped


_LABEL_END = re.compile(r"(?<!\d):(?!\d)|[\x20\t](?:[—–]|-)[\x20\t]")
"""Where a label ends: a colon (not a clock's: "Speaker 2 (00:00:09): …") or a spaced dash."""
_FULL_SPEAKER = r"[A-Z][\w'’-]*(?:\x20[A-Z][\w'’-]*){1,2}"
_CLOCK = r"\d{1,2}:\d\d(?::\d\d)?"
_TRANSCRIPT_SPEAKER = re.compile(
    rf"(?m)^(?:(?:(?!I\b)[A-Z][\w'’-]*(?:\x20[A-Z][\w'’-]*){{0,2}}|{_NUMBERED_VOICE})[\x20\t]+\(?{_CLOCK}\)?"
    rf"|(?:\*\*|__)(?:{_FULL_SPEAKER}|{_NUMBERED_VOICE})(?:\*\*|__)[\x20\t]+[\[(]?{_RECORDING_TIME}[\])]?"
    rf"|\[{_CLOCK}\][\x20\t]+(?P<who>{_FULL_SPEAKER}|{_NUMBERED_VOICE}))[\x20\t]*$"
)
"""A transcript's speaker line: "Priya Natarajan  0:42", "Tom (00:03:12)" (Otter, Zoom), "**Tom
Becker** 00:01" (tl;dv, Granola), "[10:04] Tom Becker" (a Teams copy: its speakers speak again, a
day plan's "[07:00] Morning Run" does not), "Speaker 2  1:05"."""


def _transcript_speaker_lines(text: str) -> frozenset[str]:
    """The speaker lines of a chunk that reads as a transcript (two or more of them), stripped; a
    Teams copy's `[10:04] Tom Becker` only where that name comes back."""
    found = list(_TRANSCRIPT_SPEAKER.finditer(text))
    if len(found) < 2:
        return frozenset()
    again = Counter(match["who"] for match in found if match["who"])
    lines = frozenset(m[0].strip() for m in found if m["who"] is None or again[m["who"]] > 1)
    return lines if len(lines) >= 2 else frozenset()


_YEARS_SAID = re.compile(r"\b(?:19|20)\d\d\b")
_YEAR_SPAN = re.compile(
    r"(?i)(?<![\d./-])(?<!the\x20)(?<!a\x20)(?<!an\x20)(?<!her\x20)(?<!his\x20)(?<!our\x20)(?<!my\x20)(?<!its\x20)"
    r"(?<!their\x20)(?:from[\x20\t]+)?(?P<first>(?:19|20)\d\d)[\x20\t]*(?:[-–—]|\bto\b"
    r"|\b(?:until|till)(?:[\x20\t]+the[\x20\t]+end[\x20\t]+of)?\b)"
    r"[\x20\t]*(?P<last>(?:19|20)\d\d)\)?(?=[\x20\t]*(?:[.,;!?]|$))"
)
"""Years a state lasted, said where its clause ends: "from 2018 to 2020", "2018–2020", "(2018–2020)"
(not "the 2018–2020 census", "her 2020-2024 plan is on track")."""
_UNTIL_YEAR = re.compile(
    r"(?i)\b(?:until|till)[\x20\t]+(?:the[\x20\t]+end[\x20\t]+of[\x20\t]+)?(?P<last>(?:19|20)\d\d)\b(?![./-]\d)"
)
"""A bare year a state lasted until: "worked at Stripe until 2020"."""
_ON_BEFORE = re.compile(
    r"(?i)\b(?:on|for|is|are|(?:runs?|takes?\s+place|starts?|begins?|(?:re)?opens?|ends|closes|expires|launches)"
    r"(?:\s+from)?)\s+(?:the\s+)?"
    r"(?:\d{1,2}(?:st|nd|rd|th)?\s*[–-]\s*)?$"
)
"""Before the day something is to happen: "we fly to Tokyo on 3 October", "scheduled for 14 July",
"the fair runs 12–15 July", "the launch is 3 May"."""
_INTENT_BEFORE = re.compile(
    r"(?i)\b(?:decided|decide|agreed|agree|plann?(?:ed|ing)?|plans|promised|arranged|chose|want(?:ed|s)?|hop(?:e|ed|es)"
    r"|intend(?:ed|s)?|offered|expect(?:ed|s)?|scheduled|(?:asked|told|reminded)\s+[\w\ue000\ue001]+)\s+to\s+[a-z]+\b"
    r"[^.;!?]{0,40}?$"
)
"""Before the day of what was decided or planned, not done: "we decided to ship on Friday" (the
decision is of the note's day)."""
_PAST_POINTING = re.compile(
    r"(?i)\b(?:last|ago|yesterday|previous|earlier|dernier|derni[èe]re|hier|il y a)\b"
)
"""A time that can only be past: "I wanted to tell you about my school event last week" dates the
event, whatever was wanted."""
_DUE_BEFORE = re.compile(
    r"(?i)(?:\b(?:due|expected|scheduled|slated)\s+(?:on\s+|by\s+|for\s+)?"
    r"|\bdeadline\b[^.;]{0,40}?\b(?:is|of)\s+(?:on\s+)?)(?:the\s+)?$"
)
"""Before the day something is due: "the report is due 3 May", "the deadline for the grant is 15 April"."""
_RANGE_FIRST = re.compile(
    r"(?<![\d.,:/])(?P<day>\d{1,2})(?:st|nd|rd|th)?(?:\s*[–-]\s*|\s+(?i:to|until|till|through)\s+)$"
)
"""The first day of a range whose last day a date names: the "12–" of "12–15 July 2025", "10 to 14 March"."""
_OVER_THE_WEEKEND = re.compile(r"(?i)\b(?:over|during)\s+the\s+weekend\b")
_SHORT_DAYS = r"Mon|Tues?|Weds?|Thu(?:rs?)?|Fri|Sat|Sun"
"""Weekdays written short, capitalized ("on Mon.", "till Thurs")."""
_BARE_WEEKDAY = re.compile(
    # "The deadline is Friday", "Our flight is Tuesday" (not "Today is Friday", "It is Friday").
    r"(?i)\b(?:on|until|till|til|by|before|(?<!today\s)(?<!tomorrow\s)(?<!\bit\s)(?<!^)(?:is|are))"
    r"\s+(?P<day>monday|tuesday|wednesday|thursday|friday|saturday"
    rf"|sunday|(?-i:{_SHORT_DAYS})(?=\.|[\x20\t]*[,;:!?)]|[\x20\t]*$|[\x20\t]+[a-z]))"
    r"(?![\w'’-]|\s*,?\s*(?:the\s+)?\d)"
)
"""A weekday named alone after a preposition or "is": the coming one ("closed until Thursday", "The
deadline is Friday"), or in a past sentence the last one ("met Ana on Monday"). Not "on Mondays" (a
habit) nor "on Monday 3 March"."""
_SHORT_DAY = re.compile(rf"\b(?:{_SHORT_DAYS})\b")
_USUAL_DAY = re.compile(
    r"(?i)\b(?:days?\s+off|bins?|rubbish|recycling|trash|garbage|pick-?up|pay\s*day|best|usual|usually"
    r"|favou?rite|rest\s+day|leg\s+day|gym\s+day|cheat\s+day|market\s+day|collection|every|each|always"
    r"|normally|often|office\s+days?|wfh|remote\s+days?|home\s+days?|today['’]s)\b"
)
"""Words that make "is Thursday" a day of every week: "Bin day is Thursday", "Retro is Friday as usual"."""
_CLAUSE_BREAK = re.compile(r"[;,:]|\s[–—-]\s|\b(?:and|but|so|since|because|as)\s")
"""Before "is Friday", a clause of its own: the day may not be the sentence's news."""
_WEEKDAYS = "monday|tuesday|wednesday|thursday|friday|saturday|sunday"
_TITLE_YEAR = re.compile(
    r"(?<!\d)(?<!\d-)(?:19|20|21)\d\d(?:(?=-(?:0[1-9]|1[0-2]|W\d\d|Q[1-4])(?![\w-]))|(?!\d|-\d))"
)
"""A year a note's title names ("Reading log 2025", "running-log-2025", a monthly, weekly or quarterly
note's "2025-02", "2025-W09", "2025-Q1"), not part of a date or a range."""
_MONTH_NAMES = (
    "(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec|january|february|march|april|june|july|august"
    "|september|october|november|december|janvier|février|fevrier|mars|avril|mai|juin|juillet|août|aout"
    "|septembre|octobre|novembre|décembre|decembre)"
)
_MONTH_NAMED = re.compile(rf"(?i)\b{_MONTH_NAMES}\b")
_MONTH_DAY_WORDS = re.compile(
    rf"(?i)\b{_MONTH_NAMES}\.?\s+\d{{1,2}}(?:st|nd|rd|th)?\b|\b\d{{1,2}}(?:st|nd|rd|th|er)?\s+(?:of\s+)?{_MONTH_NAMES}\b"
)
"""A day named by its month and number ("Jan 12", "April 1st", "3 February", "le 1er mai"), not a weekday
or "today"."""
_HEADING_WEEKDAY = re.compile(
    rf"(?i)(?:(?P<day>{_WEEKDAYS})|(?P<short>{_SHORT_WEEKDAY})\.?"
    r"(?=,?[ ]+\d|\s*(?:[:—–-]|$)))(?:,?[ ]+(?P<number>\d{1,2})(?:st|nd|rd|th)?(?![\w'’/.:-]))?(?![\w'’-])"
)
"""A heading that is or starts with a weekday ("Monday", "Thursday — retro", "Thu", not "Sun cream"), maybe
with the day's number ("Thu 6th", "Mon 17"): a day of the note's week, or of the week above it."""
_PAST_WEEKDAY = re.compile(
    rf"(?i)(?:\b(?:was|were|came|went|left|got|arrived|broke|began|ran|met|saw|[a-z]{{2,}}ed)\s+"
    rf"|^(?=(?:{_WEEKDAYS})\s*[:—–]))(?P<day>{_WEEKDAYS})(?![\w'’-]|\s*,?\s*(?:the\s+)?\d)"
)
"""A weekday right after a past verb, or labelling the line, in a past sentence: "The kit arrived
Monday", "Ana's last day was Friday", "Monday: Derek announced the reorg" (the last one); not
"Friday the band played"."""
_BARE_WEEKDAY_FR = re.compile(
    r"(?i)\b(?:jusqu['’]à|avant|d['’]ici)\s+(?P<day>lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche)"
    r"(?![\w'’-]|\s+(?:dernier|prochain|\d))"
)
"""A French weekday named alone after "jusqu'à", "avant" or "d'ici": the coming one."""
_BARE_MONTH_DAY = re.compile(
    r"(?i)\b(?:on|until|till|til|by|before)\s+the\s+(?P<day>\d{1,2})(?:st|nd|rd|th)\b"
    r"(?!\s+of\s+(?:every|each|the)\b)"
)
"""A day of the month named alone: "Dentist appointment on the 14th" (not "the 1st of every month")."""
_WEEKDAY_NUMBERS = {
    name: number
    for names in (
        ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"),
        ("lundi", "mardi", "mercredi", "jeudi", "vendredi", "samedi", "dimanche"),
        ("mon", "tue", "wed", "thu", "fri", "sat", "sun"),
    )
    for number, name in enumerate(names)
} | {"tues": 1, "weds": 2, "thur": 3, "thurs": 3}
_PRESENT_STATE = re.compile(r"(?i)\b(?:is|are|am|stays?|remains?|will\s+be)\b|[’'](?:s|re|m)\b")
"""A state's present verb: "Omar is out sick until Thursday", "we're closed until Monday"."""
_FUTURE = re.compile(r"(?i)\b(?:will|shall|won['’]t|going\s+to|gonna|about\s+to)\b|[’']ll\b")
"""What is yet to be: "Ana will send the budget by Friday" is no past sentence, whatever "revised" says."""
_NOT_WHEN_BEFORE = re.compile(
    r"(?i)(?:\b(?:by|before|after|until|till|than|since|depuis|avant|après|apres)|d['’]ici)\s+(?:the\s+)?$"
)
"""Before a day that bounds what a sentence says rather than dating it: "forget it by next week"."""
_OWN_STATE = re.compile(r"\b(?:I['’]m|I\s+am|[Ww]e['’]re|[Ww]e\s+are)\b")
"""The writer's own present state: "We're closed until Monday" (its "closed" is no event)."""
_SHIFT = re.compile(
    r"(?i)\b(?:is|are|['’]s|['’]re)\s+(?:up|down)\s+(?:by\s+)?(?:(?:about|almost|nearly|over|roughly|another)\s+)?"
    r"[$€£]?\d"
)
"""A measure that moved: "Customer churn is up 3% this quarter", "Costs are down by €2k"."""
_UP_DOWN = _word_set("up down")
"""One of them is a word of every sentence `_SHIFT` matches."""
_PROGRESSIVE = re.compile(
    rf"(?:(?:The|Our|My)\s+[a-z]+(?:\s+[a-z]+)?|{_NAMED_SUBJECT}(?:['’]s\s+[a-z]+)?)"
    r"\s+(?:is|are)\s+(?:(?:now|still|currently|finally|slowly|actively)\s+)?(?:hiring|moving|migrating|leaving"
    r"|joining|building|launching|planning|renovating|expanding|closing|opening|switching|shipping|rolling\s+out"
    r"|recovering|studying|learning|working\s+on|negotiating|interviewing|relocating|selling|buying|renting"
    r"|preparing|restructuring|rebuilding|replacing|upgrading|testing|piloting|phasing\s+out|retiring|raising"
    r"|looking\s+for|applying|training|writing|organizing|organising|running"
    # Away, or put off, for now: "Kai is out on parental leave", "The launch is postponed to May 20".
    r"|(?:out\s+)?on\s+(?:[a-z]+\s+)?leave|on\s+(?:vacation|holiday|holidays|sabbatical)|(?:out|off)\s+sick"
    r"|postponed|delayed|on\s+hold|paused|blocked"
    # How an affair goes: "Heron is on track for June", "The migration is behind schedule".
    r"|on\s+track|off\s+track|behind\s+schedule|ahead\s+of\s+schedule|at\s+risk|over\s+budget)\b"
)
"""Someone named (or ours) in the middle of an affair: "Ana's team is hiring", "Bob is moving to
Berlin", "The team is migrating to Postgres", "Kai is on parental leave", "The launch is postponed";
not "the cat is sleeping" nor "Ana is going to call"."""
_IN_CARE = re.compile(
    r"(?i)^(?P<who>[^.;!?]{1,40}?)(?:\s+(?:is|are|am)|['’](?:s|re|m))\s+(?:still\s+|now\s+|back\s+|currently\s+)?"
    r"(?:in\s+(?:the\s+)?(?:hospital|a&e|icu|intensive\s+care|labou?r|rehab|hospice|surgery|quarantine)"
    r"|at\s+(?:the\s+)?(?:a&e|er)|in\s+the\s+er)\b"
)
"""Someone in hospital, or in labour, now: "Mum's in hospital.", "Dad is back in hospital", "Sarah's in
labour!!" (a state of the day, however short)."""
_KIN_WORD = r"(?:Mum|Mom|Dad|Mummy|Daddy|Nan|Gran|Grandma|Grandpa|Granny|Grandad|Auntie|Uncle|Sis|Bro)"
_CARED_FOR = re.compile(rf"(?P<kin>{_KIN_WORD})|(?-i:[A-Z][a-z]+(?:[ ][A-Z][a-z]+)?)")
"""Who `_IN_CARE` says is in hospital, when named: a family word, or a name ("Sarah", "Tom Reed")."""
_OWN_NEWS_END = (
    # Not "in 5" (minutes), "in the morning", "at the pub", "today": a day's plans.
    r"(?=\s*(?:[.!,;]|$|\s+(?:in(?!\s+(?:\d{1,2}\b|the\s+(?:morning|afternoon|evening)|a\s+(?:bit|minute|sec)))"
    r"|on|from|after|before|next|this|soon|for\s+good|too|again|as|full[\s-]time|permanently"
    r"|at\s+the\s+(?:end|start|beginning))\b))"
)
"""What may follow news that is under way: its time, or nothing ("I'm leaving Acme in May", not "I'm
leaving Tesco now", "I'm joining Sarah for lunch")."""
_NEWS_NAME = r"(?-i:[A-Z][\w'’&-]*(?:\.\w+)*(?:[ ](?:of[ ])?[A-Z][\w'’&-]*(?:\.\w+)*){0,3})(?![\w'’&-]|\.\w)"
"""Where the news takes the writer: "Leeds", "Google", "University of Leeds"."""
_OWN_NEWS = re.compile(
    r"(?:(?:So|And|Also|Finally|Officially|OMG|Omg|Wow|Guess\s+what|Big\s+news|News|Update|In\s+[A-Z][a-z]+"
    r"|Next\s+(?:month|year|week|spring|summer|autumn|fall|winter)|This\s+(?:spring|summer|autumn|fall|winter))"
    r"[:,!]*\s+)?"
    rf"(?:[Ii]['’]?m|[Ii]\s+am|[Ww]e['’]re|[Ww]e\s+are|(?:{_NAMED_SUBJECT}|[Mm]y\s+[a-z]+)\s+and\s+I\s+are"
    rf"|Me\s+and\s+(?:{_NAMED_SUBJECT}|my\s+[a-z]+)\s+are)"
    r"\s+(?:(?:now|finally|officially|actually|really|definitely)\s+)?"
    rf"(?:moving\s+(?:house|home|abroad|in\s+with|in\s+together|countries|cities|back\s+to\s+(?P<back>{_NEWS_NAME})"
    rf"|back\s+home|to\s+(?:(?P<place>{_NEWS_NAME})|a\s+new\s+(?:house|flat|city|country|place)"
    r"|the\s+(?:countryside|coast|suburbs|US|UK)\b))"
    r"|relocating(?!\s+(?:the|my|a|our|this|that)\b)|emigrating|downsizing|retiring(?!\s+for\b)"
    r"|getting\s+(?:married|divorced|engaged|a\s+divorce|a\s+(?:puppy|dog|kitten))|splitting\s+up"
    r"|having\s+(?:a\s+baby|twins|a\s+(?:boy|girl)|our\s+(?:first|second|third))"
    r"|expecting(?:\s+(?:a\s+baby|a\s+(?:boy|girl)|twins|our\s+(?:first|second|third)|baby))?"
    + _OWN_NEWS_END
    + r"|due(?=\s+(?:in\s+[A-Z]|on\s+(?:the\s+)?\d|next\s+(?:week|month)))|being\s+made\s+redundant"
    r"|getting\s+laid\s+off"
    r"|going\s+on\s+(?:maternity|paternity|parental)\s+leave|changing\s+jobs|switching\s+(?:jobs|teams|careers)"
    r"|(?:leaving|quitting)\s+(?:my\s+job|the\s+(?:company|firm|team)|(?!(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day)"
    rf"(?P<left>{_NEWS_NAME}))"
    + _OWN_NEWS_END
    # Not "joining Mum in Spain", "joining Zoom in 5": a family word or a known app is no employer.
    + rf"|joining\s+(?:the\s+)?(?!{_KIN_WORD}\b)(?P<joined>{_NEWS_NAME})(?:\s+team)?"
    + _OWN_NEWS_END
    + r"|starting\s+(?:a\s+new\s+(?:job|role|position)|my\s+new\s+(?:job|role)"
    + rf"|at\s+(?:the\s+)?(?P<started>{_NEWS_NAME})"
    r"|(?:a|my)\s+(?:PhD|masters|master's|degree|apprenticeship|training\s+contract)|uni\b|university|college)"
    r"|(?:selling|buying)\s+(?:a|our|my|the)\s+(?:house|flat|apartment|home|first\s+home))"
)
"""The writer's own news of what is under way, a state of the note's day: "We're moving to Leeds in
May", "I'm getting married in June", "Tom and I are expecting", "I'm leaving Acme"; not "I'm moving
the meeting", "I'm moving to the pub", "I'm leaving at 5", "I'm expecting a call", "I'm retiring for
the night" (what the day holds, not news)."""
_THEIR_MOVE = re.compile(
    rf"(?:(?P<who>{_NAMED_SUBJECT})|(?:[Mm]y|[Oo]ur|[Hh]is|[Hh]er|[Tt]heir)\s+[a-z]+)\s+(?:is|are)\s+"
    r"(?:(?:now|finally|officially|actually)\s+)?"
    rf"(?:(?:moving|relocating)\s+(?:back\s+)?to\s+(?P<place>{_NEWS_NAME})"
    rf"|(?:joining|starting\s+at)\s+(?:the\s+)?(?!{_KIN_WORD}\b)(?P<joined>{_NEWS_NAME})(?:\s+team)?"
    rf"|leaving\s+(?!(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day)(?P<left>{_NEWS_NAME})){_OWN_NEWS_END}"
)
"""Someone else's move under way, whose news names who and where: "Bob is moving to Berlin", "My sister
is joining Stripe" (a subject of no type: a company moves too)."""
_NEWS_KINDS = {
    "who": None,
    "back": "likely_place",
    "place": "likely_place",
    "started": "likely_organization",
    "joined": "likely_organization",
    "left": None,
}
"""The type each group of `_OWN_NEWS` and `_THEIR_MOVE` guesses for what it names (pass 2's `GUESS`:
"moving to Snowflake" may be the tool a note types; "leaving London" or "leaving Acme": either)."""
_NEWS_WORDS = re.compile(
    "moving|relocat|emigrat|downsiz|retir|getting|splitting|having|expecting|due|redundant|leave|changing"
    "|switching|leaving|quitting|joining|starting|selling|buying"
)
"""A word of every sentence `_OWN_NEWS` matches: most sentences hold none, and a search is quicker."""
_MOVE_WORDS = re.compile("moving|relocating|joining|starting|leaving")
"""A word of every sentence `_THEIR_MOVE` matches."""


_JOB_HUNT = re.compile(
    r"(?i:\b(?:accepted|took|got|received|had|turned\s+down|declined|signed)\s+(?:an?|the|my|his|her|their)"
    r"\s+(?:(?:better|great|good|formal|verbal|written|official|new)\s+)?(?:job\s+)?offer\s+(?:at|from)"
    r"|\bgot\s+(?:the|a)\s+job\s+at|\b(?:handed\s+in|gave|put\s+in)\s+(?:my|his|her|their)\s+notice\s+at"
    r"|\b(?:had|have|got|booked)\s+(?:an?|my|the)\s+(?:(?:first|second|third|final|phone|video|onsite|on-site"
    r"|technical|panel|job)\s+)?interview\s+at|\binterview(?:ed|ing)\s+at"
    r"|\bapplied\s+(?:to|at|for\s+(?:an?|the)\s+(?:[a-z]+\s+){0,3}(?:job|role|position)\s+at))"
    rf"\s+(?:the\s+)?(?!{_KIN_WORD}\b)(?P<employer>{_NEWS_NAME})(?<!['’]s)"
    # What may follow: the clause's end, the job, a time; not "an offer from Dave for the car".
    r"(?=\s*(?:[.!?,;:)]|$|\s+(?:as|to\s+join|today|yesterday|this|last|on|in|after|before|for\s+(?:an?|the)"
    r"\s+(?:[\w-]+\s+){0,2}(?:job|role|position))\b))"
)
"""Where someone looks for work, is offered it or gives notice: "Accepted the offer from Stripe", "Had
a second interview at Canva", "Handed in my notice at Acme" (not "an interview with Priya": a person;
nor "an offer from Dave for the car", "my visa interview at the embassy", "an offer from Mum")."""
_JOB_HUNT_WORDS = re.compile("offer|job|notice|interview|applied", re.IGNORECASE)
"""A word of every sentence `_JOB_HUNT` matches."""


def _job_hunt(text: str) -> re.Match[str] | None:
    """Who employs, or may, in a sentence of a job hunt (`_JOB_HUNT`), screened by its words first."""
    return _JOB_HUNT.search(text) if _JOB_HUNT_WORDS.search(text) else None


def _own_news(text: str) -> re.Match[str] | None:
    """The writer's own news of what is under way (`_OWN_NEWS`), screened by its words first."""
    return _OWN_NEWS.match(text) if _NEWS_WORDS.search(text) else None


def _their_move(text: str) -> re.Match[str] | None:
    """Someone else's move under way (`_THEIR_MOVE`), screened by its words first."""
    return _THEIR_MOVE.match(text) if _MOVE_WORDS.search(text) else None


_SOMEDAY = re.compile(r"(?i)\b(?:if|unless|one\s+day|someday|some\s+day|eventually|maybe|might|wish)\b")
"""News that may never be: "We're moving to Leeds if I get the job", "We're moving house one day"."""
_WEEKDAY_WORD = re.compile(r"(?i)\b(?:mon|tues|wednes|thurs|fri|satur|sun)day\b")
_HALF_A_YEAR = 183
_SOON = 62
"""Days ahead within which a day "from" which something holds is taken as coming, not gone."""
_FROM_ONLY_BEFORE = re.compile(r"(?i)\bfrom\s+(?:the\s+)?$")
_ON_BEFORE_A_DAY = re.compile(r"(?i)\bon\s+(?:the\s+)?$")
"""A day said with "on": a past sentence's "on Monday" is the last one ("until Monday" may be either)."""
_ON_THE_WAY_BEFORE = re.compile(
    r"(?i)\b(?:leaving|moving|flying|heading|coming|going|arriving|travell?ing|driving|returning)\b"
    r"(?:\s+[\w'’-]+){0,3}?\s+on\s+(?:the\s+)?$"
)
"""A move under way before a day: "Booked the flights, leaving on Friday" (ahead, though booked)."""
_NOT_ONE_DAY = re.compile(r"(?i)\b(?:born|paid|payday|birthday|anniversary)\b")
"""Words that make a day named alone no day of the news: "I was born on the 2nd", "I get paid on the 15th"."""
_RECURRING = re.compile(r"(?i)\b(?:every|each)\s+(?:year|month|week)\b|\bannually\b|\byearly\b")
"""A sentence about what recurs: its day is no one day ("Every year on 5 November we go to …")."""
_RECURS = re.compile(
    r"(?i)\b(?:every|each)\s+(?:day|week|month|year|morning|evening|night|weekend|monday|tuesday|wednesday"
    r"|thursday|friday|saturday|sunday|spring|summer|autumn|fall|winter)\b"
    r"|\b(?:daily|weekly|monthly|annually|yearly)\b(?=\s+(?:on|at|in|from|around|by)\b|\s*[.,;!?)]|\s*$)"
    r"|\b(?:usually|typically|normally|generally)\b"
)


def _recurs_around(text: str, start: int, end: int) -> bool:
    """Whether the clause of the time at `start`–`end` says it recurs."""
    before = max((m.end() for m in _TIME_CLAUSE_BREAK.finditer(text, 0, start)), default=0)
    after = _TIME_CLAUSE_BREAK.search(text, end)
    return _RECURS.search(text, before, after.start() if after else len(text)) is not None


_TIME_CLAUSE_BREAK = re.compile(r"[,;:—–]|\b(?:and|but|so|because|while|though)\b", re.IGNORECASE)
"""A present sentence telling what recurs or is usual: its days are no one day."""
_JUST_GONE = 31
"""Days back within which a day without a year, said as ahead, is taken as just gone instead."""
_FROM_BEFORE = re.compile(r"(?i)\b(?:from|starting|effective|as\s+of|beginning)\s+(?:the\s+)?$")
"""Before the day a sentence not past says something starts: "my manager will be Ines from April 1"."""
_SINCE_BEFORE = re.compile(r"(?i)\b(?:since|depuis|seit|desde)\s+(?:the\s+|le\s+|dem\s+|el\s+)?$")
_HEDGE = _Keywords(
    "maybe perhaps probably possibly might may think guess believe suppose sure unsure seem seems apparently"
    " likely could wonder considering thinking planning decided peut pense crois probablement doute semble"
    " sûr",
    r"\b(?:maybe|perhaps|probably|possibly|might|may be|i think|i guess|i believe|i suppose|not sure"
    r"|unsure|seems?|apparently|likely|could be|i wonder|not decided)\b"
    # Intentions hedge too, when they are the writer's own: "Considering moving …", "We're thinking of …".
    r"|(?i:^\W*|\b(?:i|we)(?:['’]m|['’]re| am| are)?\s+)(?:considering|thinking (?:about|of)|planning to)\b"
    r"|(?i:peut[- ]être|je pense|je crois|probablement|sans doute|il me semble|pas sûr)",
    starts="^|(?=[mpinusalcwj])",  # at the start, the branch above may begin with any character
    flags=re.IGNORECASE,
)
_SMALL_TALK = re.compile(
    r"(?i)^\W*(?:hi|hello|hey|thanks|thank you|thx|merci|bonjour|salut|coucou|cheers|ok|okay|lol|haha"
    r"|good (?:morning|night|evening|afternoon)|bye|goodbye|see you|welcome|congrats|congratulations"
    r"|bravo|happy (?:birthday|new year))\b"
)
_NAVIGATION_WORDS = _word_set(
    "previous prev next back up home index see also related parent top return to go contents toc"
)
_LEADING_MARKS = re.compile(r"^[^\w\[(]+")


def _bare_heading(heading: str) -> str:
    """A heading without the emoji or marks a notetaker app opens it with ("📌 Decisions", "✅ Action
    items"): the words that say what its section holds."""
    return _LEADING_MARKS.sub("", heading).strip()


_DECISIONS_CONTEXT = re.compile(
    r"(?i)^(?:\d+[.)]?\s+)?(?:(?:key|our|the)\s+)?(?:decisions?(?:\s+(?:log|outcome))?|ADRs?|décisions?)$"
)
"""A heading whose items are decisions taken: "## Decisions", "Decision log", "ADRs", an ADR's
"## Decision Outcome"."""
_LISTING_CONTEXT = re.compile(
    r"(?i)^(?:(?:our|the|my)\s+)?(?:(?P<stack>(?:tech(?:nology)?\s+)?stack|technolog(?:y|ies)|built\s+with"
    r"|dependencies|tooling|(?P<tools>tools|software|apps))|team|team\s+members|members|maintainers|contributors)$"
)
"""A heading whose items name what a project uses ("## Stack", "Built with", "## Tools") or who is in it
("## Team")."""
_MEDICINE_WORDS = r"(?:medications?|medicines?|meds|prescriptions?)"
_MEDICINE_NOTE = re.compile(rf"(?i)\b{_MEDICINE_WORDS}\b")
_MEDICINE_TITLE = re.compile(rf"(?i)^(?:my\s+)?(?:current\s+)?{_MEDICINE_WORDS}(?:\s+list)?$")
_CARERS = _word_set("doctor gp nurse pharmacist dentist therapist physio physiotherapist vet consultant")
_MEDICINE_HEADING = re.compile(rf"(?i)^(?:(?:my|current|daily|regular)\s+)?{_MEDICINE_WORDS}$")
_CURRENT_HEADING = re.compile(rf"(?i)^(?:current|now|taking|active)(?:\s+{_MEDICINE_WORDS})?$")
_STOPPED_HEADING = re.compile(
    rf"(?i)^(?:stopped|past|previous|former|old|discontinued)(?:\s+{_MEDICINE_WORDS})?$"
)
_LISTED_MEDICINE = re.compile(
    rf"[\x20\t]*(?:\*\*)?(?P<drug>{VITAMIN}|[A-Za-z][a-z-]{{3,}})(?:\*\*)?(?:[\x20\t]+{DOSE})?"
)
"""A medicine opening an item of a list of them, with its dose if said: "Sertraline 50mg, mornings"."""


def _medicine_list(heading: str, source: Source, someones: bool) -> str | None:
    """Whether a chunk is a list of medicines taken ("current") or no more ("stopped"): in the writer's
    note about them (titled `Medications`, `My meds`) under no heading, `## Medications`, `## Current`
    or `## Stopped`; in a person's or a pet's note (`someones`), under `## Medications`. Not in a daily
    note (its lists are what happened that day), nor in a note of another kind (a pharmacy's, an app's,
    a recipe's, "Prescription glasses")."""
    if _DAY_TITLE.match(source.title) is not None:
        return None
    if _MEDICINE_TITLE.match(source.title):
        if _STOPPED_HEADING.match(heading):
            return "stopped"
        return (
            "current"
            if not heading or _CURRENT_HEADING.match(heading) or _MEDICINE_HEADING.match(heading)
            else None
        )
    if someones and _MEDICINE_HEADING.match(heading):
        return "current"
    if someones and _STOPPED_HEADING.match(heading) and _MEDICINE_NOTE.search(heading):
        return "stopped"
    return None


_LISTED_NAME = re.compile(rf"(?:\*\*)?{NAME}")
"""The name an item of such a list starts with (a link, or Capitalized words)."""
_LABEL_START = r"^(?:\*\*|__)?(?P<label>[^\W\d_][\w&/.\x20-]{0,24}?)[\x20\t]*"
"""A Stack or Team item's label, bold or not, up to what follows it."""
_LISTED_LABEL = re.compile(
    _LABEL_START + r"(?:(?P<colon>(?:\*\*|__)?:(?:\*\*|__)?)|(?:\*\*|__)?[\x20\t]+[—–-])[\x20\t]*"
    r"(?P<value>(?:\*\*)?(?:[A-Z0-9]|\ue000).*)$",
    re.S,
)
"""An item of a Stack or Team list that labels what it names: "Database: Postgres 16", "**Lead**: [[Ana]]",
"Hosting — Fly.io" (a dash only after a word in `_LISTED_CATEGORIES`: "[[Ravi]] — Backend" names Ravi)."""
_LISTED_CATEGORIES = _word_set(
    """database databases db datastore storage cache caching queue queues messaging broker search frontend
    backend api hosting host infra infrastructure ci cd ci/cd deploy deployment monitoring observability
    logging logs metrics tracing alerting auth authentication language languages framework runtime orm
    testing tests build bundler styling ui email payments analytics cdn dns containers orchestration os
    editor ide scheduler workflows secrets vcs linting formatting docs documentation warehouse lead leads pm
    product design designer qa manager em owner sponsor mentor former alumni past previous notifications
    mobile web marketing sales ops devops sre support data ml ai sms push maps video chat accounting
    invoicing banking bookkeeping payroll crm newsletter copy copywriting dev development content seo social
    tax legal photography illustration writing strategy scheduling calendar notes tasks"""
) | frozenset(
    (
        *("tech lead", "team lead", "message bus", "message queue", "object storage", "data store"),
        *("data warehouse", "version control", "package manager", "product manager", "project manager"),
        *("engineering manager", "former members", "past members"),
    )
)
"""Labels an item's dash may follow in a Stack or Team list ("Hosting — Fly.io", "Lead — [[Ana]]")."""


def _a_kind_of_part(label: str) -> bool:
    """Whether a Stack label says a kind of part, not a name: "CRM", "BI" (an acronym), "Feature flags",
    "Error tracking" (a name's later words would be capitalized: "Ravi Kumar: Backend lead")."""
    words = label.split()
    return (len(words) == 1 and label.isupper() and label.isalpha() and len(label) <= 5) or (
        len(words) > 1 and all(word.islower() for word in words[1:])
    )


_LISTED_PAST = frozenset(("former", "alumni", "past", "previous", "ex", "ex-members", "ex-member"))
"""A Team list's label's first word for who is in it no more: "Former: [[Tom Berg]]", "Former lead:"."""
_LISTED_ANY_LABEL = re.compile(
    _LABEL_START + r"(?P<colon>(?:\*\*|__)?:(?:\*\*|__)?)[\x20\t]*(?P<value>.*)$", re.S
)
"""An item with any label before a colon ("Queue: none", "Frontend: htmx")."""
_LISTED_HEDGE = re.compile(
    r"(?i)\((?:planned|not\s+yet|maybe|tbd|todo|soon|proposed|evaluating|considering|under\s+review|later)\)"
    r"|\bmaybe\b|\bnot\s+yet\b|\?"
)
"""An item the list holds as a wish or a question: "Queue: SQS (planned)", "Redis — maybe later"."""
_LISTED_NONE = frozenset(
    ("open", "open position", "open positions", "hiring", "vacant", "tbd", "tba", "todo")
)
_LISTED_NOT = re.compile(
    r"(?i)^(?:\*\*)?(?:not\b|no\b|none\b|n/a\b|tbd\b|tba\b|considering\b|evaluating\b|maybe\b|perhaps"
    r"\b|possibly\b|planned\b|planning\b|to\s+be\s+decided\b|open\s+positions?\b|hiring\b|vacant\b|\?)"
)
"""An item naming what the project does not use, or not yet ("Not using Kubernetes", "Considering
Temporal", "TBD — frontend"), or nobody ("Open position (frontend)")."""
_LISTED_NOW = re.compile(
    r"(?i)^(?:(?:previously|formerly|was|used\s+to\s+be)\b.*?[,;]\s*now|.*?\b(?:until|till)\b[^,;]*[,;]\s*"
    r"(?:then|now))\s+(?P<now>.+)$"
)
"""An item saying what was used and what is now: "Previously MySQL, now Postgres 16", "MySQL until
2023, then Postgres"."""


def _listed_parts(value: str, people: bool = False) -> list[str]:
    """The names a labelled item's value lists: "Ravi, Kai", "React + Vite"; after a comma only where
    every part is one word or a link, or every part a full name ("Jo Patel, Liam Kerr"; "Fly.io,
    Frankfurt region" names Fly.io; "Ana Souza, PhD" Ana)."""
    parts = [part for part in _LISTED_AND.split(value) if part]
    pieces = [piece.strip() for piece in parts[0].split(",")] if parts else []
    if (
        len(pieces) > 1
        and not all(_ONE_NAME.fullmatch(piece.strip("* ")) for piece in pieces)
        # In a Team list, "Jo Patel, Liam O'Connor" (not "Tom Reed, London Office", "Ana Souza, Head
        # Designer").
        and not (people and all(_a_persons_full_name(piece.strip("* ")) for piece in pieces))
    ):
        pieces = pieces[:1]
    return [*pieces, *parts[1:]]


def _a_persons_full_name(text: str) -> bool:
    """Whether words may be someone's full name in a list: no word of a role, a place or a company's."""
    return bool(_full_name(text)) and _DESCRIPTOR_WORDS.isdisjoint(word.casefold() for word in text.split())


_DESCRIPTOR_WORDS = _word_set(
    "office head designer developer engineer manager director lead corp corporation inc ltd llc company"
    " contract contractor only freelance freelancer intern west east north south region cloud central europe"
    " consultant agency studio labs team group"
)
_LISTED_AND = re.compile(r"\s*(?:\+|&|\band\b|\x20/\x20)\s*")
_ONE_NAME = re.compile(r"\ue000\d+\ue001|[A-Z][\w.+#-]*")
_WE_WILL = re.compile(
    r"(?i)^(?:we\s+will|we['’]ll|we\s+are\s+going\s+to|we['’]re\s+going\s+to|chosen\s+option)\b"
)
"""A paragraph under a decision heading saying what will be done: an ADR's "We will replace RabbitMQ …"."""
_GLOSSARY_CONTEXT = re.compile(
    r"(?i)\b(?:glossary|glossaire|definitions?|définitions?|lexique|terms|vocabulary)\b"
)
_BOLD_DEFINITION = re.compile(
    r"^(?:\*\*|__)(?P<term>[^*_\n]{1,80}?)(?P<inner>:)?(?:\*\*|__)[ \t]*(?P<sep>[:—–]|-(?=\s))?[ \t]*"
    r"(?P<definition>\S.*)$",
    re.S,
)
# Words that open "X is a …" without naming anything: "Below is a template for …", "Here is the …".
_NOT_TERMS = frozenset(
    (
        *("below", "above", "beneath", "underneath", "inside", "outside", "within", "behind", "nearby"),
        *("here", "there", "this", "that", "these", "those", "it", "what", "which", "who", "where"),
        *("attached", "included", "enclosed", "following", "next", "today", "tomorrow", "yesterday"),
    )
)
_DASH_DEFINITION = re.compile(
    r"^(?P<term>[^\s—–:][^—–:\n]{0,60}?)[ \t]+[—–][ \t]+(?P<definition>\S.*)$", re.S
)
_ATTRIBUTED_QUOTE = re.compile(
    r'^["“‘«][^"”’»\n]{2,300}["”’»][.!?]?\s*[—–-]\s*(?:the\s+|my\s+|a\s+|an\s+)?[\w .,\'’-]{1,40}$'
)
"""A quotation with whose it is after it: '"I love this city" — the taxi driver'."""
_STRUCK = re.compile(r"~~[^~\n]+~~")
_QUOTE_OPENERS = frozenset("\"“‘'«")
_COLON_DEFINITION = re.compile(r"^(?P<term>[^\s:][^:\n]{0,60}?):[ \t]+(?P<definition>\S.*)$", re.S)
_IS_A_DEFINITION = re.compile(
    r"^(?:(?:The|An?|Le|La|Un|Une)\s+)?"
    rf"(?P<term>\ue000\d+\ue001|[{CAPITALS}][\w.+-]*(?: [{CAPITALS}0-9][\w.+-]*){{0,3}})"
    r"\s+(?:is|are|est|sont)\s+(?P<article>a|an|the|un|une|le|la|our|my|notre|mon|ma)\s+(?P<definition>.+)$",
    re.S,
)
_A_PERSON = re.compile(
    r"(?i)(?:(?!(?:for|of|with|to|from|by|in|on|at|that|which)\b)[a-z-]+\s+){0,2}?"
    r"(?:TA|teaching\s+assistant|student|PhD\s+student|postdoc|friend|colleague|neighbou?r"
    r"|classmate|flatmate|roommate|coworker|co-worker|mentor|coach|tutor|cousin|nanny|babysitter"
    r"|freelancer|volunteer|photographer|journalist"
    rf"|{'|'.join(w for w in JOB_TITLE_WORDS.split() if w not in ('manager', 'editor', 'lead', 'director'))})"
    rf"s?\b(?!['’]){NO_NOUN_AFTER}"
)
"""What makes "X is a …" say who someone is: "a TA", "a friend from uni", "a senior nurse"."""
_POSSESSIVE_ARTICLES = frozenset({"our", "my", "notre", "mon", "ma"})
"""In a definition only of the note's own subject: "Ana is my sister" elsewhere is no definition."""
_IS_A_VERBS = _word_set("is are est sont")
"""One of them is a word of every sentence `_IS_A_DEFINITION` matches."""
_RELATIVE_CLAUSE = re.compile(r"(?i)\b(?:that|which|who|where|used|designed|for|qui|que|utilisée?|pour)\b")
_DIARY_LABELS = _word_set(
    """
    lunch dinner breakfast brunch coffee drinks update note edit todo tl;dr tldr nb ps fyi status summary
    result results outcome today yesterday tomorrow tonight morning afternoon evening later meeting call
    standup offsite weekend plan idea question answer verdict conclusion decision takeaway lesson problem
    issue fix context background
    """
)
"""Words that label a diary line before a dash ("Lunch — the new Thai place", "TL;DR — it worked"):
what follows is about the day, not what the word means."""
_CLAUSE_AFTER_ARTICLE = re.compile(
    r"(?i)^(?:the|a|an)\s+(?:(?!(?:that|which|who|whose|where|we|i|you|they|he|she|it)\b)[\w'’-]+\s+){1,3}"
    r"(?:is|are|was|were|has|have|had|will|won['’]t|can|can['’]t|isn['’]t|aren['’]t|wasn['’]t|got|gets"
    r"|ends|starts|works|broke|went|came|[a-z]+ed)\b"
)
"""A sentence, not a noun phrase: "the agenda is finally done", "the migration worked" (but "the
container orchestrator we run", "a filament that prints at 240 C" define)."""


def _defines(dash: re.Match[str]) -> bool:
    """Whether a "term — the …" line outside a glossary defines its term, rather than labelling a
    diary line ("Offsite — the agenda is done") or joining two sentences ("Ana raised concerns — …")."""
    term = dash.group("term").strip()
    if (
        term.casefold() in _DIARY_LABELS
        or _NO_TERM.match(term)  # "2025-02-01 — The Depot, …", "Day 1 — The flight to Malaga"
        or _A_NAME_AFTER_ARTICLE.match(dash.group("definition"))  # "Blackbird — The Beatles"
        or _CLAUSE_AFTER_ARTICLE.match(dash.group("definition"))
        or _WITH_SOMEONE.search(term)  # "Dinner with Lena — the new Thai place"
    ):
        return False
    return not _wording(term, False).past


_NO_TERM = re.compile(
    r"(?i)^(?:[\d*_]|(?:day|week|month|step|part|stage|phase|round|leg|session|lesson|chapter|night)\s+\d+$"
    r"|(?:mon|tues|wednes|thurs|fri|satur|sun)day$|(?:january|february|march|april|may|june|july|august"
    r"|september|october|november|december)(?:\s+\d+)?$)"
)
"""What labels a log's line, which defines nothing: a date or a number, "Day 1", a weekday, a month."""
_A_NAME_AFTER_ARTICLE = re.compile(
    rf"^(?:The|A|An)(?:\s+[{CAPITALS}][\w'’&.-]*){{1,4}}\s*(?:\([^()\n]*\))?[.!]?\s*$"
)
"""A name after the dash ("Blackbird — The Beatles"): whose the term is, not what it means."""
_WITH_SOMEONE = re.compile(r"\s(?:with|w/|avec)\s")
"""A diary label's company ("Dinner with Lena", "Call w/ Tom"): what was done, not a term."""
_ARTICLE_START = re.compile(r"(?i)^(?:a|an|the|un|une|le|la|les|l['’]|der|die|das|ein|eine|el|los)\b")
_SOFTWARE_WORDS = re.compile(
    r"(?i)^(?:firmware|software|library|framework|database|app|application|plugin|package|tool|service|api"
    r"|cli|os|language|runtime|server|ui)\b"
)
_DATE_LEAD = re.compile(r"^\s*(?:\*\*)?(?P<date>\d{4}-\d{2}-\d{2})(?:\*\*)?\s*(?:[:—–|;-]|\s)\s*\S")
_MY_CALLOUT = re.compile(
    r"(?i)^\[!(?:comment|comments|thought|thoughts|personal|reflection|mine|my[\w-]*)\]"
    r"|^\[![\w-]+\][+-]?[ \t]*(?:my\b|me\b|note\s+to\s+self|thoughts\b|comments?\b|reflections?\b)"
)
"""A callout its writer labels theirs: `> [!note] My notes`, `> [!comment]`, `> [!info] Thoughts`."""
_MY_COMMENT = re.compile(
    r"(?i)^\W*(?:my\s+(?:take|notes?|thoughts?|comments?|two\s+cents|2\s+cents)|note\s+to\s+self|me)\s*:"
)
"""The writer's comment on a clipped page, labelled so: "my take: she's right about meetings"."""
_KINDLE_MARK = re.compile(
    r"^(?:-\s*)?Your\s+(?P<kind>Highlight|Note|Bookmark)\b[^|\n]*(?:\|[^|\n]*)*\|\s*Added\s+on\b",
    re.IGNORECASE,
)
"""The line a Kindle writes over each clipping: "- Your Highlight on Location 1540-1541 | Added on …"."""
_START_KEYS = ("start", "start_date", "startDate", "departure", "date")
"""Properties that date a trip's or a course's note by its first day."""
_DAY_NUMBER = re.compile(r"(?i)^\W*day\s+(?P<number>[1-9]|[1-5]\d|60)\b(?!\s*(?:of\b|/))")
"""A heading numbering a day of a trip or a course ("Day 3 — Coimbra"; not "Day 30 of 100", "Day 3 of
the sprint": a count)."""
_DAY_ONE_HEADING = re.compile(r"(?im)^#{1,6}[ \t]+\W*day[ \t]+1\b(?![ \t]*(?:of\b|/))")
_STARTED_KEYS = ("started", "date_started", "started_reading", "date_start")
_FINISHED_KEYS = ("finished", "date_finished", "finished_reading", "date_read", "read")
_NOT_FINISHED = _word_set("abandoned dnf dropped unfinished paused to-read tbr want-to-read wishlist reading")
"""A book's `status` that says it was not read to its end ("abandoned", "DNF")."""
_RATING_KEYS = ("rating", "my_rating", "stars")
_KIN_AND_PETS = (
    r"mum|mom|dad|mother|father|gran|granny|grandma|grandpa|nan|nana|son|daughter|wife|husband"
    r"|partner|sister|brother|kids?|baby|dog|cat|puppy|kitten"
)
_NAMES_SOMEONE = re.compile(rf"(?i:\b(?:{_KIN_AND_PETS})\b)|\b[A-Z][a-z]+['’]s\b|\bfor\s+[A-Z][a-z]+")
"""A family word, someone's ("Lily's ear"), or whom it is for ("for Tom"): someone the line may be about."""
_A_NAME_HEADING = re.compile(r"[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?(?:['’]s\b.*)?")
_LOG_HEADINGS = _word_set(
    "health meds medication medications medicine medicines log notes today morning afternoon evening night"
    " diary journal symptoms treatment doctor appointments mood sleep food body"
)


def _someones_heading(heading: str) -> bool:
    """Whether a heading names someone the lines under it are about ("Mum", "Dad's meds", "Biscuit"), not
    a log's section ("Health", "Meds", "Morning")."""
    bare = _bare_heading(heading)
    if _FAMILY_WORD.search(bare):
        return True
    return _A_NAME_HEADING.fullmatch(bare) is not None and bare.split()[0].casefold() not in _LOG_HEADINGS


_FAMILY_WORD = re.compile(rf"(?i)\b(?:{_KIN_AND_PETS})\b")
_CANCELLED = re.compile(r"(?i)\b(?:cancel(?:l)?ed|called\s+off|postponed)\b")
_START_TIME = re.compile(r"(?P<hour>[01]?\d|2[0-3]):(?P<minute>[0-5]\d)(?::[0-5]\d)?")
"""A calendar event's `startTime` ("10:00", "9:30")."""
_TAGS_LINE = re.compile(r"(?i)^\W*(?:document\s+)?tags\s*::?\s*(?:#?\[\[[^\]\n]+\]\][\s,]*)+$")
"""A line of links labelled as tags (Readwise's `- Tags: [[favorite]] [[blue]]`): topics, no entities."""
_SUBJECT_LEFT_OUT = re.compile(
    r"^\W*(?:(?:\d{4}-\d{2}-\d{2}|[A-Z][a-z]+(?:[ \t][a-z]+){0,2}:)[^\w]*)?"  # "2025-03-03:", "Last talked:"
    r"(?:[a-z]|(?:She|He|They|Her|His|Their)\b|[A-Z][a-z]+ed\b|(?:Met|Saw|Had|Got|Went|Left|Took|Gave|Made|Spent"
    r"|Built|Told|Sent|Came|Became|Ran|Led|Won|Lost|Moved|Called|Used)\b)"
)
"""A line whose subject is left out or said by a pronoun (lower case after its date or label, "She
…", "Joined …", "Built …"): in a person's note, theirs."""
_PLANNED_HEADING = re.compile(
    r"(?i)\b(?:plans?|planned|planning|tomorrow|to\s?-?do|todo|agenda|schedule|upcoming|next\s+week)\b"
)
"""A heading over what is yet to happen: "## Plan for tomorrow", "## Schedule", "## To do"."""
_AHEAD_HEADING = re.compile(r"(?i)\b(?:tomorrow|next\s+week|upcoming|coming\s+up|later\s+this\s+week)\b")
"""A plan's heading naming days ahead: a box ticked under it was not done on the note's day."""
_CLOCK_LEAD = re.compile(
    r"(?i)^\s*(?:\*\*)?(?:[01]?\d|2[0-3])(?:[:h][0-5]\d\s*(?:am|pm)?|\s*(?:am|pm))"
    r"(?:\s*[-–]\s*(?:[01]?\d|2[0-3])(?:[:.h][0-5]\d)?\s*(?:am|pm)?)?(?:\*\*)?\s*(?:[:—–|;-]\s*)?[A-Za-z\[]"
)
"""A line led by a clock time, or a span of them: "13:00 lunch w/ Aisha", "9am — gym", "10:00-11:00 deep
work"."""
# Only from a run's first mark: from each mark of "Wait.....done" the run was scanned again.
_SENTENCE_END = re.compile(r"(?=[.!?…\n])(?:(?<![.!?…])(?P<end>[.!?…]+[\"'”’)\]*_]*)\s+|\n)")
_ABBREVIATIONS = _word_set(
    "e.g i.e etc vs dr mr mrs ms mx prof st no nr approx cf fig p pp ca resp incl esp jr sr mt ft min max"
)
_ALSO_ACRONYMS = _word_set("mt ft ca mx")
"""Abbreviations that in capitals are acronyms ending a sentence ("machine translation, MT."; "CA.";
"Cherry MX."), unlike "VS.", "NO.", "MR."."""
_A_STREET = re.compile(r"\b[A-Z][\w'’-]*\s+St$")
"""A street's "St." ends a sentence ("Tom lives on Oak St. Ana lives in Leeds."); a saint's starts a name."""
_TITLES_ONLY = _word_set("prof mx")
"""Abbreviations only as a title, capitalized: "Prof. Okafor", but "Talked to my prof. He said …"."""
_SENTENCE_START = re.compile(rf"[\"'“‘(\[*_\ue000]*[{CAPITALS}0-9\ue000]")
_WORD_TOKEN = re.compile(r"[^\W\d_]+", re.UNICODE)
_WHOLE_WORD = re.compile(r"(?<!\w)[^\W\d_]+(?!\w)")
"""A word of letters only: the "d" of dice notation ("1d8") is no French "d'"."""

# -- language -----------------------------------------------------------------------------------

_STOPWORDS: dict[str, frozenset[str]] = {
    "en": _word_set("the and is are was were of to that it with for this have has had not but be at by from i"
                    " we you my our they what which"),
    "fr": _word_set("le les des et est une du qui pas je nous avec pour dans sur au aux cette sont été avons"
                    " suis mais où très il elle ils qu j l d c n ce ces avait était"),
    "de": _word_set("der die das und ist nicht ich mit ein eine auf für den dem wir sie auch von sich zu"
                    " nach bei aus wie"),
    "es": _word_set("el los las y del al por con para pero muy más una está son lo como fue yo pero"
                    " nosotros también"),
}  # fmt: skip
_STOPWORD_LANGUAGES: dict[str, tuple[str, ...]] = {}
for _language, _words in _STOPWORDS.items():
    for _word in _words:
        _STOPWORD_LANGUAGES[_word] = (*_STOPWORD_LANGUAGES.get(_word, ()), _language)
_LANGUAGE_NAMES = {
    "english": "en", "french": "fr", "français": "fr", "francais": "fr", "german": "de", "deutsch": "de",
    "spanish": "es", "español": "es", "espanol": "es",
}  # fmt: skip

Layer = Literal["episodic", "semantic"]


# -- public API ---------------------------------------------------------------------------------


def extract_chunk(chunk: Chunk, source: Source) -> Extraction:
    """Extract one chunk with rules: build a raw draft dict, validate it with validate_items(raw, chunk.text).

    Secrets are masked in every text field before validation; a quote that holds one is dropped.
    """
    if chunk.kind == "turns":
        from kgvault.extract.conversation import extract_turns

        return extract_turns(chunk, source)
    reader = _ChunkReader(chunk, source)
    raw = reader.read_frontmatter() if chunk.kind == "frontmatter" else reader.read_section()
    draft, dropped = validate_items(_mask_draft(raw, reader.values) if reader.secrets else raw, chunk.text)
    return Extraction(chunk=chunk, draft=draft, extractor=EXTRACTOR, dropped=tuple(dropped))


def read_turn(
    chunk: Chunk, source: Source, speaker: str | None, said_at: date | datetime | None
) -> dict[str, Any]:
    """Read one conversation turn (given as a one-turn chunk) into a raw draft, masked.

    Its episodes are `speaker`'s (None: nobody's, for an assistant); relative times are read
    against `said_at` with the conversation resolver, and the title gives the date they mean.
    """
    reader = _ChunkReader(chunk, source)
    reader.author = reader.i_am = speaker
    reader.said_at = said_at
    raw = _whose_parents(reader.read_section(), speaker, source)
    return _mask_draft(raw, reader.values) if reader.secrets else raw


_PARENT_WORDS = _word_set(
    "mum mom mam mummy mommy dad daddy mother father grandma grandpa granny gran nan nana grandad granddad"
)
"""What a speaker calls a parent or grandparent: "Mum" said by a friend is the friend's mum."""


def _whose_parents(raw: dict[str, Any], speaker: str | None, source: Source) -> dict[str, Any]:
    """A turn's draft with "Mum", "Dad" … named as the speaker's ("Jess's mum") when the speaker is not
    the user (`_someone_elses`): in its entities and relations, and as an entity of each node that says
    one ("Mum said she loved the flowers"; pass 2 then takes no other Mum for it). The user's own
    "Mum" is the notes' Mum."""
    if not _someone_elses(speaker, source):
        return raw
    assert speaker is not None
    entities = raw.get("entities") or []
    renamed = {
        entity["name"]: f"{speaker}'s {entity['name'].casefold()}"
        for entity in entities
        if entity["name"].casefold() in _PARENT_WORDS
    }
    for entity in entities:
        entity["name"] = renamed.get(entity["name"], entity["name"])
    named = {entity["name"] for entity in entities}
    for node in raw.get("nodes") or []:
        said = [renamed.get(name, name) for name in node.get("entities") or []]
        for word in dict.fromkeys(_A_PARENT.findall(node.get("title", ""))):
            theirs = f"{speaker}'s {word.casefold()}"
            if theirs not in said:
                said.append(theirs)
            if theirs not in named:
                named.add(theirs)
                entities.append(
                    {"name": theirs, "entity_type": "person", "aliases": [], "description": "",
                     "supporting_text": node.get("supporting_text")}
                )  # fmt: skip
        node["entities"] = said
    raw["entities"] = entities
    for relation in raw.get("relations") or []:
        relation["subject"] = renamed.get(relation["subject"], relation["subject"])
        relation["object"] = renamed.get(relation["object"], relation["object"])
    return raw


_A_PARENT = re.compile(
    r"\b("
    + "|".join(sorted((word.capitalize() for word in _PARENT_WORDS), key=lambda w: (-len(w), w)))
    + r")\b"
)
"""A parent named by what a speaker calls them, capitalized as a name ("Mum said …", "my Mum")."""


def _someone_elses(speaker: str | None, source: Source) -> bool:
    """Whether a turn's parents are its speaker's own, not the user's: a person who is not the user
    (`source.writer`, the settings' `user_name`: by their whole name or first name), in a chat with no
    assistant and no one saved as a parent ("Mum", "Dad": a family's chat), whose surname is not the
    user's (a sister's "Mum" is yours too). Nobody's when the user is not known."""
    user = source.writer
    if speaker is None or user is None:
        return False
    said, mine = speaker.casefold().split(), user.casefold().split()
    if not said or not mine or said == mine or said[0] == mine[0] or (len(said) > 1 and said[-1] == mine[-1]):
        return False
    return not any(
        turn.role == "assistant" or turn.speaker.casefold() in _PARENT_WORDS for turn in source.turns
    )


@lru_cache(maxsize=4096)
def normalize_tag(raw: str) -> str | None:
    """Normalize a tag: NFC, lowercase, spaces and `-` to `_`, `/` for nesting; None when nothing is left.

    `C++` and `C#` are spelled out as names are (`c_plus_plus`); other characters than letters,
    combining marks (`हिन्दी`'s vowel signs), digits, `_` and `/` go, empty segments go, and a tag
    made only of digits is no tag (Obsidian does not accept `#2025`).
    """
    text = spell_symbols(unicodedata.normalize("NFC", raw.strip().lstrip("#")))
    text = _TAG_SEPARATORS.sub("_", text.strip()).lower()
    text = "".join(ch for ch in text if is_word_char(ch) or ch in "_/")
    segments = [_UNDERSCORES.sub("_", segment).strip("_") for segment in text.split("/")]
    tag = "/".join(segment for segment in segments if segment)
    if not tag or tag.replace("/", "").replace("_", "").isdigit():
        return None
    return tag


def detect_language(text: str) -> str:
    """Guess the language of a text from stopword counts (en, fr, de, es); English when unsure."""
    counts = dict.fromkeys(_STOPWORDS, 0)
    found = Counter(_WHOLE_WORD.findall(text[:20_000].lower()))
    for word in _STOPWORD_LANGUAGES.keys() & found.keys():
        number = found[word]
        for language in _STOPWORD_LANGUAGES[word]:
            counts[language] += number
    best = max(counts, key=lambda language: counts[language])  # dict order breaks ties: en first
    if best != "en" and counts[best] >= 2 and counts[best] > counts["en"]:
        return best
    return "en"


# -- inline analysis ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Ref:
    """A wikilink or code span of a candidate, replaced by a placeholder for pattern matching."""

    kind: Literal["link", "code"]
    name: str | None
    """Entity name: the link's target note (basename, no heading) or the code text; None if not an entity."""
    display: str
    alias: str | None = None


@dataclass(frozen=True, slots=True)
class _Inline:
    """One candidate's text in the forms the rules need (shared by every caller: never changed)."""

    refs: tuple[_Ref, ...]
    tags: tuple[str, ...]
    placeholder: str
    """Links and code spans as placeholders, tags, HTML, URLs and embeds removed: for the wording rules."""
    title: str
    """Plain text as a reader sees it: link display text, no markup."""
    body: str
    """Markdown kept, embeds turned into plain text."""
    word_count: int
    """How many words `title` holds."""
    linked: str = ""
    """`title` with each letter and digit of a link's text as `_LINKED`: where the links are."""


@lru_cache(maxsize=4096)
def _parse_link(body: str) -> tuple[str | None, str, str | None]:
    """Read a wikilink body: (entity name or None, display text, alias)."""
    target, _, alias_part = body.partition("|")
    target = target.rstrip("\\")
    alias = alias_part.strip() or None
    note, _, heading = target.partition("#")
    note = " ".join(note.split())
    basename = note.rsplit("/", 1)[-1]
    if basename.lower().endswith(".md"):
        basename = basename[:-3]
    display = alias or basename or heading.lstrip("^").strip()
    if heading.strip():
        # `[[conditions#Blinded|Blinded]]` shows a section's name, no other name of the note.
        alias = None
    if (
        not basename
        or body[:1].isspace()
        or basename.startswith("-")
        or _ATTACHMENT.search(basename)
        or _DATE_ONLY.match(basename)
        or not _HAS_WORD.search(basename)
        or _a_day_written(basename)
    ):
        return None, display, alias
    return basename, display, alias


def _a_day_written(name: str) -> bool:
    """Whether a link's target is a day written out, as Logseq and Roam name daily notes (`Mar 12th,
    2025`, `Wednesday, March 12th, 2025`): a day's note, no entity."""
    if not any(c.isdigit() for c in name):
        return False
    found = find_dates(name, None)
    return (
        len(found) == 1
        and found[0][1] >= len(name.rstrip(" ."))
        and _WEEKDAY_LEAD.fullmatch(name, 0, found[0][0]) is not None
    )


_WEEKDAY_LEAD = re.compile(rf"(?i:{_A_WEEKDAY},?\s+)?")
"""A weekday leading a day written out ("Wednesday, "), or nothing."""


_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def _is_web(target: str) -> bool:
    """Whether a Markdown link's target leads somewhere outside the notes (a URL, an address)."""
    return bool(_SCHEME.match(target.strip().lstrip("<")))


def _linked_note(target: str) -> str | None:
    """The note a Markdown link leads to (`rules/agile.md`, `<My Note.md>`, `My%20Note.md#Part`),
    as a wikilink's target; None for a URL, a section of the same note or a file that is no note."""
    target = target.strip()
    # `<My Note.md>` may hold spaces; otherwise a space starts a title: `(note.md "a title")`.
    target = target[1:].partition(">")[0] if target.startswith("<") else target.split(" ", 1)[0]
    if not target or target.startswith("#") or _is_web(target):
        return None
    path, _, heading = unquote(target).partition("#")
    if not path.lower().endswith(".md") or "|" in path or "[" in path or "]" in path:
        return None
    return f"{path}#{heading}" if heading else path


_LINKED = "\ue003"  # not _TAG_MARK
_LINK_LETTERS = re.compile(r"[^\W_]")


def _plain_title(pieces: list[str]) -> str:
    """The title the pieces make: one space between words, no tag marks, no punctuation at its ends."""
    plain = " ".join("".join(pieces).split())
    if _TAG_MARK in plain:
        plain = _TRAILING_TAGS.sub("", plain).replace(_TAG_MARK, "")
    return plain.strip(" \t-–—:;,·|")


# Notes repeat themselves (list items, boilerplate sentences, headings read once as blocks and
# again as titles): a repeated text is analysed once. The result is immutable, so sharing is safe.
@lru_cache(maxsize=8192)
def _analyse(text: str) -> _Inline:
    """Split a candidate into its references, tags and the three text forms the rules read."""
    if not _MAYBE_INLINE.search(text):
        plain = " ".join(_strip_emphasis(text).split()).strip(" \t-–—:;,·|")
        return _Inline((), (), " ".join(text.split()), plain, text.strip(), len(plain.split()))
    refs: list[_Ref] = []
    tags: list[str] = []
    placeholder: list[str] = []
    title: list[str] = []
    linked: list[str] = []  # `title`'s pieces with the links' letters masked
    body: list[str] = []
    position = 0
    for match in _INLINE.finditer(text):
        if len(linked) < len(title):
            linked.extend(title[len(linked) :])
        between = text[position : match.start()]
        placeholder.append(between)
        title.append(_strip_emphasis(between))
        body.append(between)
        position = match.end()
        whole = match.group()
        kind = match.lastgroup
        if kind == "code":
            code = match.group("code_body").strip()
            if code.startswith(("=", "$=")):  # a Dataview query, shown as its answer in Obsidian
                placeholder.append(" ")
                continue
            words = code.split()
            is_name = 0 < len(words) <= 3 and len(code) <= 40 and _HAS_WORD.search(code) is not None
            placeholder.append(PLACEHOLDER.format(index=len(refs)))
            refs.append(_Ref("code", code if is_name else None, code))
            title.append(code)
            body.append(whole)
        elif kind == "link":
            name, display, alias = _parse_link(match.group("link_body"))
            placeholder.append(PLACEHOLDER.format(index=len(refs)))
            refs.append(_Ref("link", name, display, alias))
            title.append(display)
            linked.extend(title[len(linked) : -1])
            linked.append(_LINK_LETTERS.sub(_LINKED, display))
            body.append(whole)
        elif kind == "embed":
            _name, display, _alias = _parse_link(match.group("embed_body") or " ")
            placeholder.append(" ")
            body.append(display)
        elif kind == "image":
            alt = match.group("image_alt")
            placeholder.append(alt)
            title.append(alt)
            # A file of the notes is not in the vault: its embed would show nothing there.
            body.append(whole if _is_web(match.group("image_target")) else alt)
        elif kind == "mdlink":
            label = match.group("mdlink_text")
            note = _linked_note(match.group("mdlink_target"))
            if note is not None:  # `[Agile](rules/agile.md)` links a note as `[[agile|Agile]]` does
                name, display, alias = _parse_link(f"{note}|{label}")
                placeholder.append(PLACEHOLDER.format(index=len(refs)))
                refs.append(_Ref("link", name, display, alias))
                title.append(_strip_emphasis(display))
                body.append(f"[[{note}|{label}]]" if name is not None and "[" not in label else label)
                continue
            placeholder.append(label)
            title.append(_strip_emphasis(label))
            # A web link works in the vault; a path into the notes folder would lead nowhere.
            body.append(whole if _is_web(match.group("mdlink_target")) else label)
        elif kind == "url":
            placeholder.append(" ")
            title.append(whole)
            body.append(whole)
        elif kind == "html":
            placeholder.append(" ")
            if _LINE_BREAK_TAG.fullmatch(whole):  # a Kanban card's lines: "Hired [[Olivia]]<br>she starts …"
                title.append(" ")
            body.append(whole)
        else:  # tag
            tag_body = match.group("tag_body")
            body.append(whole)
            if _is_tag(text, match):
                tags.append(tag_body)
                placeholder.append(" ")
                title.append(_TAG_MARK + tag_body)
            else:
                placeholder.append(whole)
                title.append(whole)
    tail = text[position:]
    placeholder.append(tail)
    title.append(_strip_emphasis(tail))
    body.append(tail)
    plain = _plain_title(title)
    linked.extend(title[len(linked) :])
    masked = _plain_title(linked) if _LINKED in "".join(linked) else ""
    return _Inline(
        refs=tuple(refs),
        tags=tuple(tags),
        placeholder=" ".join("".join(placeholder).split()),
        title=plain,
        body="".join(body).strip(),
        word_count=len(plain.split()),
        linked=masked if len(masked) == len(plain) else "",
    )


def _strip_emphasis(text: str) -> str:
    """Drop bold, italics, strike-through and highlight markers."""
    if "*" in text or "_" in text or "~~" in text or "==" in text:
        return _EMPHASIS.sub("", text)
    return text


def _links_and_tags(text: str) -> tuple[list[str], list[str]]:
    """The entity names of a text's wikilinks and its tags, as `_analyse` would find them."""
    names: list[str] = []
    tags: list[str] = []
    if not _MAYBE_INLINE.search(text):
        return names, tags
    for match in _INLINE.finditer(text):
        kind = match.lastgroup
        if kind == "link":
            name = _parse_link(match.group("link_body"))[0]
            if name:
                names.append(name)
        elif kind == "tag" and _is_tag(text, match):
            tags.append(match.group("tag_body"))
    return names, tags


def _is_tag(text: str, match: re.Match[str]) -> bool:
    """A `#tag` starts a word (not `page#anchor`) and holds a non-digit (`#1` is no tag)."""
    start = match.start()
    return (start == 0 or text[start - 1].isspace()) and not match.group("tag_body").replace(
        "/", ""
    ).isdigit()


def _cut_at_word(text: str, limit: int, *, ellipsis: bool) -> str:
    """Cut text to at most `limit` characters at a word boundary (with `…` when asked and cut)."""
    if len(text) <= limit:
        return text
    room = limit - 1 if ellipsis else limit
    cut = text[: room + 1]
    boundary = cut.rfind(" ")
    cut = cut[:boundary] if boundary > room // 2 else text[:room]
    cut = cut.rstrip(" ,;:—–-")
    return f"{cut}…" if ellipsis else cut


# -- blocks -------------------------------------------------------------------------------------


def _visible_lines(lines: list[str], markdown: bool = True) -> list[str | None]:
    """Hide what is never mined: fenced and indented code, `$$` math, `%%` and `<!-- -->` comments,
    template commands (`<% … %>`) and placeholders (`{{date}}`) a template left (None = hidden); a
    line's block id (` ^id`) is no part of what it says. In plain text (`markdown` false) an
    indented line is no code."""
    out: list[str | None] = []
    fence: str | None = None
    fence_quoted = False  # the fence opened in a quote, which ends it when it ends
    comment: str | None = None
    math = False
    indented = False  # in an indented code block
    in_list = False  # after a list item: indented lines continue it, they are no code
    blank_before = True
    for line in lines:
        if fence is None and comment is None and not math:
            depth = _indent(line) if line[:1] in (" ", "\t") else 0
            if not line.strip():
                if indented:
                    out.append(None)
                    continue
            elif indented and depth >= 4:
                out.append(None)
                continue
            elif depth >= 4 and blank_before and not in_list and markdown:
                indented = True  # CommonMark: four spaces after a blank line, outside a list, are code
                out.append(None)
                continue
            else:
                indented = False
                if depth < 4:
                    in_list = _LIST_ITEM.match(line) is not None
            blank_before = not line.strip()
        if "^" in line and _BLOCK_ID.search(line):  # most lines hold no caret: the regex is skipped
            line = _BLOCK_ID.sub("", line)
        # A fence in a quote or a callout, at any depth ("> ```sql", ">> ```dataview"), is code too.
        # Hidden in a quote, the quote goes on: its marks alone, an empty line of it. (Most lines hold
        # no ">" at all: the test is skipped.)
        if ">" in line and line.lstrip()[:1] == ">":
            bare = _QUOTE_MARKS.sub("", line)
            hidden: str | None = line[: len(line) - len(bare)].rstrip()
        else:
            bare, hidden = line, None
        if fence is not None and fence_quoted and hidden is None:
            fence = None  # a quote's end ends a fence in it (CommonMark)
        if fence is not None:
            # A fence opened in a quote closes in it; an open one, only as written ("> ```" is code).
            stripped = (bare if fence_quoted else line).strip()
            if stripped.startswith(fence) and not stripped.strip(fence[0]):
                fence = None
            out.append(hidden)
            continue
        if comment is None:
            opening = _FENCE_OPEN.match(bare)
            if opening:
                fence, fence_quoted = opening.group(1), hidden is not None
                out.append(hidden)
                continue
            if line.strip() == "$$":
                math = not math
                out.append(None)
                continue
            if math:
                out.append(None)
                continue
            if "[^" in line:
                line = _FOOTNOTE.sub("", line)
            if "%%" not in line and "<!--" not in line and "<%" not in line:
                out.append(_unfilled(line) if "{{" in line else line)
                continue
        pieces: list[str] = []
        position = 0
        holed = False  # a template command between words of this line
        opened_at = -1
        for token in _HIDE_TOKEN.finditer(line):
            value = token.group()
            if comment is None:
                if value in _COMMENT_ENDS:
                    pieces.append(line[position : token.start()])
                    comment, opened_at = value, token.start()
            elif value == _COMMENT_ENDS[comment]:
                holed = holed or (
                    comment == "<%" and opened_at >= 0 and _between_words(line, opened_at, token.end())
                )
                comment = None
                position = token.end()
        if comment is None:
            pieces.append(line[position:])
        visible = "".join(pieces)
        if "{{" in visible:
            unfilled = _unfilled(visible)
            holed = holed or unfilled is None
            visible = unfilled or ""
        # "Met <% tp.system.prompt() %> for coffee": words around a hole say nothing whole.
        out.append(None if holed or not visible.strip() else visible)
    return out


def _unfilled(line: str) -> str | None:
    """A line without the placeholders a template left (`{{date}}`), or None (hidden) where words stand
    on both sides of one: "Had lunch with {{attendee}} at noon" says nothing whole."""
    if any(_between_words(line, *hole.span()) for hole in _PLACEHOLDER.finditer(line)):
        return None
    return _PLACEHOLDER.sub("", line)


def _between_words(line: str, start: int, end: int) -> bool:
    """Whether words of a sentence stand on both sides of `line[start:end]` (not a label before it,
    "Date: {{date}}", nor a sentence's end, "Met Ana. <% … %>")."""
    before = line[:start].rstrip()
    return bool(before) and before[-1:].isalnum() and any(c.isalnum() for c in line[end:])


def _indent(line: str) -> int:
    """How far a line is indented, a tab counting as four columns."""
    width = 0
    for char in line:
        if char == " ":
            width += 1
        elif char == "\t":
            width += 4 - width % 4
        else:
            break
    return width


_LIST_ITEM = re.compile(r"^\s{0,3}(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)")
_BLOCK_ID = re.compile(r"[ \t]\^[\w-]+[ \t]*$")
"""A block id ending a line (` ^id`), or what was meant as one (` ^ünï`: Obsidian takes only Latin
letters, digits and dashes): markup, no part of what the line says."""


@dataclass(slots=True)
class _Block:
    """A structural unit of a section: its visible text and its 0-based chunk line range."""

    kind: Literal["paragraph", "item", "row", "heading", "field", "relation_item"]
    text: str
    first: int
    last: int
    indent: int = 0
    ordered_list: int = -1
    """Id of the ordered list this item belongs to (also for items nested in it), else -1."""
    header_row: bool = False
    quoted: bool = False
    """Inside a blockquote (not a callout but a quote, cite or abstract one): someone else's words."""
    callout: bool = False
    """In a callout labelled the writer's (`> [!note] My notes`, `> [!comment]`): theirs even in a page
    clipped from the web (whose own `> [!NOTE]` and `> [!IMPORTANT]`, as GitHub writes them, are the
    page's)."""
    task: str | None = None
    """A task's status (`[ ]` open, `[x]` done, `[/]` doing, `[-]` cancelled, `[>]` moved), if it is one."""
    parts: list[str] = field(default_factory=list)
    """Continuation lines, joined into `text` once the block is complete."""


_LINK_ITEM = re.compile(r"^(?:\[\[[^\[\]]+\]\]|\[[^\[\]]+\]\([^()]*\))$")
"""A list item that is one link and nothing else (`[[Dataview]]`, `[Templater](templater.md)`)."""


def _names_only(items: list[_Block]) -> bool:
    """Whether a numbered list only links things (plugins to install, books to read): no steps.

    Words alone cannot tell "2. Templater" from "2. Reboot", and a list of steps read as names
    would lose its steps: only lists of links whose every word is capitalized are names.
    """
    for item in items:
        text = _strip_emphasis(item.text).strip(" .")
        if not _LINK_ITEM.match(text):
            return False
        shown = _analyse(text).title
        # "[[Set up the virtualenv]]" links a step's own note: a step, not a name.
        if any(word[:1].islower() for word in shown.split()):
            return False
    return True


def _task_text(text: str, done: bool) -> str:
    """A task's words without its plugin fields; done on a day (`✅ 2024-06-01`, or a done Kanban
    card's `@{2024-06-01}`), it says so."""
    if "#" in text:
        text = _TASK_FILTER.sub("", text)
    if not any(mark in text for mark in "📅⏳🛫➕❌✅⏫🔼🔽⏬🔺🔁🆔⛔@"):
        return text
    day = _TASK_DONE.search(text) or (_CARD_DATE.search(text) if done else None)
    words = _TASK_FIELDS.sub("", _TASK_DONE.sub("", text)).rstrip()
    return f"{words} on {day.group('date')}" if day else words


def _field_as_words(found: re.Match[str]) -> str:
    """A bracketed field within a statement: nothing, unless its value is a day (`[finished::
    2024-04-20]` reads "finished on 2024-04-20")."""
    value = (found.group("value") or found.group("pvalue") or "").strip()
    if not _ISO_DAY.fullmatch(value):
        return ""
    return f"{(found.group('key') or found.group('pkey')).strip()} on {value}"


_ISO_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
_LINE_BREAK_TAG = re.compile(r"(?i)<br\s*/?>")
_TICK = r"(?:[✅❌✔✖☑✓✗☐⬜🟩🟥]\uFE0F?|(?i:x|y|n|yes|no|done)|[-–—/])"
_DAY_OR_TICK = rf"(?:(?:\[\[)?\d{{4}}-\d{{2}}-\d{{2}}(?:\]\])?|{_TICK})"
_MARKS_ONLY_ROW = re.compile(rf"{_DAY_OR_TICK}(?:; {_DAY_OR_TICK})*")
"""A table row of days and ticks only (a habit tracker's `| 2025-03-10 | ✅ | ❌ |`): no words to read."""


def _split_row(row: str) -> list[str]:
    """Split a table row into cells, leaving the `|` inside wikilinks alone."""
    cells: list[str] = []
    current: list[str] = []
    depth = 0
    text = row.strip()
    text = text[1:] if text.startswith("|") else text
    text = text[:-1] if text.endswith("|") and not text.endswith("\\|") else text
    index = 0
    while index < len(text):
        pair = text[index : index + 2]
        if pair == "[[":
            depth += 1
        elif pair == "]]" and depth:
            depth -= 1
        char = text[index]
        if char == "|" and depth == 0 and (index == 0 or text[index - 1] != "\\"):
            cells.append("".join(current).strip())
            current = []
        else:
            current.append(char)
        index += 1
    cells.append("".join(current).strip())
    return cells


_DIARY_DEFINITION = re.compile(
    r"(?i)\b(?:today|tonight|tomorrow|yesterday|again|this\s+(?:morning|afternoon|evening|week)|will|won['’]t"
    r"|[a-z]+['’]ll|later|so\s+far|still|finally|a\s+bit)\b"
)
"""What says a day's labelled line tells the day, not what a term means: "a flaky test, will fix today"."""
_ITEM_WORDS = re.compile(r"\[\[[^\]]*\]\]|[^\W\d_][\w'’-]*")
"""An item's words, a wikilink counted as one."""
_NOT_A_LABEL = re.compile(r"[\d:/.!?)]|\bsee\b|\bfrom\b", re.IGNORECASE)
"""What a line above a list is not a label with: a count or a time ("Serves 4"), a source ("Source:
https://…", "Adapted from …"), a sentence, a step's remark ("(use convection if you have it)")."""
_BEHIND_BEFORE = re.compile(r"(?i)\b(?:since|as\s+of|depuis)\b[^,;.]{0,30}$")
_THE_FOLLOWING = re.compile(r"(?i)\bthe\s+following\b")
_LOWER_WORD = re.compile(r"(?<![\w.])[a-z]{2,}")
_ANY_LINK = re.compile(r"!?\[\[[^\]]*\]\]|!?\[[^\]]*\]\([^)]*\)")
"""A wikilink or a Markdown link, with its text: what a row's words are read without."""


_TASK_HEADER = re.compile(r"(?i)^(?:due(?:\s+(?:date|by))?|deadline|by\s+when|to\s?-?do|action\s+items?)$")
"""A column only a table of tasks has (`Due`, `Deadline`, `Action items`): its rows are to be done."""
_TASK_COLUMN = re.compile(r"(?i)^(?:actions?|tasks?|next\s+steps?|follow[\s-]?ups?)$")
_WHOSE_COLUMN = re.compile(r"(?i)^(?:owner|owners|assignee|assigned\s+to|who|responsible|status)$")
"""A task column is of a table of tasks beside whose they are (`| Owner | Action |`), not in a log's
`| Time | Action |` or a timesheet's `| Date | Task | Hours |`."""
_STATUS_HEADER = re.compile(r"(?i)^(?:status|state|done|progress)$")
_DONE_STATUS = re.compile(
    r"(?i)^\s*(?:done|complete[d]?|closed|finished|shipped|resolved|x|yes|✅|✔️?|☑️?)\s*$"
)
"""A status cell that says a task is done."""


def _task_columns(header: list[str]) -> int | None:
    """Whether a table's header row is a table of tasks: None if not, else its status column (-1: none)."""
    cells = [_strip_emphasis(cell).strip() for cell in header]
    if not any(_TASK_HEADER.match(cell) for cell in cells) and not (
        any(_TASK_COLUMN.match(cell) for cell in cells) and any(_WHOSE_COLUMN.match(cell) for cell in cells)
    ):
        return None
    return next((at for at, cell in enumerate(header) if _STATUS_HEADER.match(cell.strip())), -1)


def _is_form_row(cells: list[str], filled: list[str], row: str) -> bool:
    """A row that states nothing: a cheat sheet's next line for its cell ("| | | | [Decipher
    Writing](…) E [Secret](…) |": blank first cells, no lowercase word outside its links), or a blank
    form's labels ("| Observation | | | | Ranged Wpns | |": mostly blanks, each filled cell a short
    Capitalized label, no number, no link). A log's sparse row ("| 2025-03-02 | | | Launched Heron |")
    is no form."""
    blanks = len(cells) - len(filled)
    if blanks < max(2, len(filled) + 1):
        return False
    if not cells[0] and not _LOWER_WORD.search(_ANY_LINK.sub(" ", row)):
        return True
    return len(filled) >= 2 and all(
        len(cell.split()) <= 3
        and not any(c.isdigit() for c in cell)
        and "[" not in cell
        and all(word[:1].isupper() or not word[:1].isalpha() for word in cell.split())
        for cell in filled
    )


def _blocks(visible: list[str | None], logseq: bool = False) -> list[_Block]:
    """Group visible lines into headings, paragraphs, list items, table rows and fields."""
    blocks: list[_Block] = []
    paragraph: _Block | None = None
    item: _Block | None = None
    blank_before = True
    list_id = -1
    list_indent = 0
    next_list = 0
    quoting: Literal["callout", "quote"] | None = None
    own = False
    """The callout the lines are in is labelled the writer's (`> [!note] My notes`, `> [!comment]`)."""
    in_table = False
    """Rows of a table whose lines need not start with a pipe (`a | b`) go on until a blank line."""
    tasks: int | None = None
    """In a table of tasks (a `Due` or `Action` column): its `Status` column, else -1 (none)."""
    for index, line in enumerate(visible):
        if line is None or not line.strip():
            paragraph = None
            blank_before = True
            quoting, own = None, False
            in_table = False
            tasks = None
            continue
        text = line
        while _QUOTE.match(text):
            text = _QUOTE.sub("", text, count=1)
        if (text is not line) != (quoting is not None):
            paragraph = None  # a quotation starts or ends here: "Sam texted me this:" / "> I quit."
        if text is line:
            quoting, own = None, False
        else:
            if quoting is None:
                callout = (
                    _CALLOUT.match(text) is not None
                    and not _QUOTING_CALLOUT.match(text)
                    # "> [!note] Marta said": her words, as a quote's are.
                    and not _SPEAKER_CALLOUT.match(_CALLOUT.sub("", text))
                )
                quoting = "callout" if callout else "quote"
                own = callout and _MY_CALLOUT.match(text) is not None
            text = _CALLOUT.sub("", text)
            if not text.strip():
                paragraph = None
                continue
        heading = _HEADING.match(text)
        if heading or _RULE.match(text) or (_TABLE_SEPARATOR.match(text) and "-" in text):
            if heading:
                blocks.append(_Block("heading", (heading.group(2) or "").strip(), index, index))
            elif _TABLE_SEPARATOR.match(text) and blocks and blocks[-1].kind == "row":
                blocks[-1].header_row = True
                in_table = True
                tasks = _task_columns(blocks[-1].text.split("; "))
            elif "|" in text and paragraph is not None and paragraph.first == paragraph.last == index - 1:
                # `Name | Value` over `---- | -----`: a table's header row, written without outer pipes.
                header = paragraph.parts[0] if paragraph.parts else paragraph.text
                if "|" in header:
                    paragraph.kind, paragraph.header_row = "row", True
                    paragraph.text, paragraph.parts = "; ".join(c for c in _split_row(header) if c), []
                    in_table = True
            paragraph = item = None
            list_id = -1
            blank_before = False
            continue
        if _TABLE_ROW.match(text) or (in_table and "|" in text):
            cells = _split_row(text)
            filled = [c for c in cells if c]
            row = "; ".join(filled)
            form = _is_form_row(cells, filled, row)
            blocks.append(
                _Block(
                    "row",
                    row,
                    index,
                    index,
                    header_row=form,
                    quoted=quoting == "quote",
                    callout=own,
                )
            )
            if tasks is not None:
                # "| Priya | Review ranking PR | 2025-04-10 |": to be done by then, not done then.
                said = cells[tasks] if 0 <= tasks < len(cells) else ""
                blocks[-1].task = "x" if _DONE_STATUS.match(said) else " "
            paragraph = item = None
            list_id = -1
            blank_before = False
            continue
        inline_field = _FIELD.match(text) if "::" in text else None
        if inline_field and "[[" not in inline_field.group("key"):
            blocks.append(_Block("field", text.strip(), index, index))
            paragraph = item = None
            blank_before = False
            continue
        listed = _ITEM.match(text)
        if listed:
            indent = len(listed.group("indent").expandtabs(4))
            content = (listed.group("text") or "").strip()
            box = _CHECKBOX.match(content)
            status = box.group("status").lower() if box is not None else None
            if box is not None:
                content = _task_text(content[box.end() :], done=status == "x")
            elif (marker := _LOGSEQ_MARKER.match(content)) is not None and (
                logseq or marker["marker"] not in _PLAIN_WORD_MARKERS
            ):
                status = _LOGSEQ_STATUS.get(marker["marker"], " ")
                content = content[marker.end() :]
            ordered = listed.group("number") is not None
            if ordered and (
                list_id < 0
                or indent < list_indent
                or (indent == list_indent and blank_before and item is None)
            ):
                list_id, list_indent = next_list, indent
                next_list += 1
            elif list_id >= 0 and indent <= list_indent and not ordered:
                list_id = -1
            kind: Literal["item", "relation_item"] = (
                "relation_item" if "[[" in content and _RELATION_ITEM.match(content) else "item"
            )
            item = _Block(
                kind,
                content,
                index,
                index,
                indent,
                list_id,
                quoted=quoting == "quote",
                callout=own,
            )
            item.task = status
            blocks.append(item)
            paragraph = None
            blank_before = False
            continue
        if item is not None and (text[:1] in " \t" or not blank_before):
            if item.task is None or not _LOGSEQ_PLANNING.match(text.strip()):
                item.parts.append(text.strip())
            item.last = index
            if item.kind == "relation_item":
                item.kind = "item"
            blank_before = False
            continue
        item = None
        if text[:1] not in " \t":
            list_id = -1
        if paragraph is None:
            paragraph = _Block("paragraph", "", index, index, quoted=quoting == "quote", callout=own)
            blocks.append(paragraph)
        paragraph.parts.append(text.strip())
        paragraph.last = index
        blank_before = False
    for block in blocks:
        if block.parts:
            block.text = "\n".join(part for part in (block.text, *block.parts) if part)
    return blocks


def _protected_spans(text: str) -> list[tuple[int, int]]:
    """Spans where a sentence may not end: code, links, URLs."""
    return [
        m.span() for m in _INLINE.finditer(text) if m.lastgroup in ("code", "link", "embed", "url", "mdlink")
    ]


def _sentence_spans(text: str) -> list[tuple[int, int]]:
    """Split a paragraph into sentences, as (start, end) offsets of stripped pieces.

    A sentence ends at `.`, `!`, `?` or `…` followed by space and a capital (or a digit, link or
    quote), or at a line break before a capital; never inside code, links or URLs, nor after an
    abbreviation (`e.g.`, `Dr.`, but `MT.` in capitals is an acronym) or an initial on the same line.
    """
    protected = _protected_spans(text) if "[" in text or "`" in text or "://" in text else []
    spans: list[tuple[int, int]] = []
    start = 0
    guard = 0
    for boundary in _SENTENCE_END.finditer(text):
        cut = boundary.end("end") if boundary.group("end") else boundary.start()
        while guard < len(protected) and protected[guard][1] <= cut:
            guard += 1
        if guard < len(protected) and protected[guard][0] < cut:
            continue
        if not _SENTENCE_START.match(text, boundary.end()):
            continue
        if boundary.group("end"):
            before = text[max(start, cut - 40) : cut].rstrip(".!?…\"'”’)]*_")
            # "(p. 12)", "[e.g. this]": what opens before the word is no part of it.
            written = before.rsplit(None, 1)[-1].lstrip("([{\"'“‘") if before.strip() else ""
            last_word = written.lower()
            # Not after a line break, nor an acronym: "Works on multilingual MT.\nWorks at …" is two.
            # "Vaswani et al. (2017) showed …": a citation's year goes on with it.
            if (
                last_word == "al"
                and before[-6:].lower() == " et al"
                and text[boundary.end()] in "(0123456789"
            ):
                continue
            if (
                (
                    last_word in _ABBREVIATIONS
                    and not (written.isupper() and last_word in _ALSO_ACRONYMS)
                    and not (last_word in _TITLES_ONLY and not written[:1].isupper())
                    and not (last_word == "st" and _A_STREET.search(before))
                )
                or (len(last_word) == 1 and last_word.isalpha())
            ) and "\n" not in text[cut : boundary.end()]:
                continue
        _add_span(text, start, cut, spans)
        start = boundary.end()
    _add_span(text, start, len(text), spans)
    return spans


def _add_span(text: str, start: int, end: int, spans: list[tuple[int, int]]) -> None:
    """Append [start, end) to spans, trimmed of whitespace, unless nothing is left."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if start < end:
        spans.append((start, end))


def split_sentences(text: str) -> list[str]:
    """Split a paragraph into sentences (see `_sentence_spans`)."""
    return [text[start:end] for start, end in _sentence_spans(text)]


@dataclass(frozen=True, slots=True)
class _Wording:
    """What the words of one candidate say about it, read once."""

    words: frozenset[str]
    """The lowercase words."""
    first_person: bool
    past: bool
    """A past-tense main verb (not a present passive, "is cracked", nor an adjective deep in the clause)."""
    diary: bool
    """It starts with a past verb, as diary lines do ("Printed a benchy")."""
    hedged: bool
    hits: tuple[PatternHit, ...]
    """What the verb-pattern table reads in it."""

    @classmethod
    def read(cls, text: str, french: bool) -> _Wording:
        """Read a placeholder text (links and code already replaced)."""
        tokens = _TOKENS.findall(text)
        folded = [token.lower() for token in tokens]
        words = frozenset(folded)
        first_person = not _FIRST_PERSON_WORDS.isdisjoint(tokens)
        if french and not first_person:
            first_person = any(t in _FIRST_PERSON_FR_WORDS or t.startswith(("j'", "j’")) for t in folded)
        past = False
        head = text.lstrip(" \t*_-–—>\"'“‘([").split(None, 2)
        # "Linked list: a sequence of nodes …" defines a term, whatever its first word looks like.
        term = len(head) > 2 and head[1].endswith(":") and head[2].lower().startswith(("a ", "an "))
        if not _IRREGULAR_PAST.isdisjoint(words) or _ED_ENDING.search(text):
            # "Two days ago the server crashed": the clause starts after the time it leads with.
            led = _TIME_LEAD.match(text) if text[:1] in _TIME_LEAD_STARTS else None
            shift = len(_TOKENS.findall(led.group(0))) if led else 0
            for index, word in enumerate(folded):
                if word == "sat" and tokens[index] == "Sat" and _SAT_DAY.search(text) is not None:
                    continue  # "on Sat 14 June", "Sat 14 June: party": Saturday (not "Sat in the garden.")
                if term and index == 0:
                    continue
                if (
                    _is_past_word(word) and _is_main_verb(tokens, folded, index, shift)
                ) or _is_verb_after_subject(tokens, folded, index):
                    past = True
                    break
        if not past and "read" in words and _READ_THEN.search(text):
            past = True  # "I read the BERT paper yesterday": "read" is spelled alike in the past
        if not past and french:
            past = any(
                (word := match.group("word").lower()) not in _FRENCH_NOT_PARTICIPLE
                and word.endswith(_FRENCH_PARTICIPLE_ENDINGS)
                for match in _FRENCH_PAST.finditer(text)
            )
        diary = False
        if head:
            lead = head[0].lower().strip(",.:;!?")
            if len(head) > 1 and lead in _DIARY_LEAD:
                lead = head[1].lower().strip(",.:;!?")
            weekday = lead == "sat" and len(head) > 1 and head[1][:1].isdigit()  # "Sat 14 June: party"
            diary = (
                lead.isalpha()
                and not weekday
                and not term
                and (
                    _is_past_word(lead)
                    # "Called Kevin", not "Used by the backend", "Named after …", "Needed: a PSU".
                    or (
                        lead in _DIARY_PAST
                        and not head[0].endswith(":")
                        and (len(head) < 2 or head[1].lower() not in _NOT_AFTER_DIARY_PAST)
                        and not (lead == "read" and _NOT_A_READING.search(text))
                    )
                )
            )
            past = past or diary  # the line starts with its past verb
        hits = tuple(match_verb_patterns(text, words))
        return cls(words, first_person, past, diary, _HEDGE.search(text, words), hits)


def _ranges_run_forward(title: str, times: list[When]) -> list[When]:
    """The times, each range's end written without its year after its start: "from 1 April 2024 to 14
    April" ends on 14 April 2024, not 2023."""
    for index in range(1, len(times)):
        first, then = times[index - 1], times[index]
        if (
            then.first < first.first
            and not _FOUR_DIGITS.search(then.text)
            and _RANGE_TO.fullmatch(title, first.end, then.start)
        ):
            times[index] = moved_to(then, _a_year_on(then.first))
    return times


def _a_year_on(day: date) -> date:
    """The same day a year on (28 February for the 29th)."""
    try:
        return day.replace(year=day.year + 1)
    except ValueError:
        return day.replace(year=day.year + 1, day=28)


@lru_cache(maxsize=8192)
def _wording(text: str, french: bool) -> _Wording:
    """`_Wording.read`, remembered: the same sentence is often read again, in this note or another."""
    return _Wording.read(text, french)


_TIME_LEAD = re.compile(
    r"(?i)(?:(?:\d+|a|an|one|two|three|four|five|six|a\s+few|a\s+couple\s+of)\s+(?:days?|weeks?|months?"
    r"|years?|hours?)\s+ago|earlier\s+(?:this|that|today)(?:\s+(?:week|month|morning|year))?"
    r"|(?:last|this)\s+(?:week|weekend|month|year|morning|night|evening|afternoon))\b,?"
)
"""A time a sentence leads with ("Two days ago the server crashed"): its clause starts after it."""
_TIME_LEAD_STARTS = frozenset("0123456789aAoOtTfFsSeElL")


def _is_main_verb(tokens: list[str], folded: list[str], index: int, shift: int = 0) -> bool:
    """Whether the past form at `index` reads as the clause's verb, not an adjective or a passive.

    It must come early (one of the first five words of its clause, which starts `shift` words in:
    "The first batch warped …"), or right after a subject (a pronoun, a name) or an auxiliary ("we
    had just printed"); never after "is"/"are" ("is cracked", a state). Adjectives deep in a
    sentence ("unsolicited advice") are not events.
    """
    if index == 0:
        return True
    before = folded[index - 1]
    if before in _PASSIVE_BEFORE:
        return False
    return (
        index - shift <= 4
        or before in _SUBJECT_BEFORE
        or tokens[index - 1][:1].isupper()
        or before[:1] == "\ue000"
    )


def _is_verb_after_subject(tokens: list[str], folded: list[str], index: int) -> bool:
    """Whether a word usually no verb ("called", "used", "needed") is one here: right after a
    pronoun that is the clause's subject, or a relative ("Dad called, …", not "a sister called
    Mia"), and not "used to" (a habit, no event)."""
    if index == 0 or folded[index] not in _NOT_PAST or folded[index + 1 : index + 2] == ["to"]:
        return False
    before = folded[index - 1]
    if before in _PRONOUN_SUBJECTS:
        return True
    after = tokens[index + 1 : index + 2]
    # "Mom called …", "Greg called on Friday", "Dr. Cho called with the results" (not "a band called
    # The Cure", "Project called Atlas": a name follows).
    named = (
        folded[index] == "called"
        and tokens[index - 1][:1].isupper()
        and folded[index - 1] not in _NOT_A_CALLER
    )
    return (before in _KIN_SUBJECTS or named) and not (
        after and (after[0][:1].isupper() or after[0][:1] == "\ue000")
    )


_PEOPLE_PAGE = re.compile(
    r"(?i)\b(?:team|people|directory|staff|contacts|crm|who'?s\s+who|org\s+chart|members)\b"
)
"""A note listing people under their names (a team wiki): its headings name them."""
_RELATION_VERBS = r"(?:lives|works|leads|manages|heads|uses|runs|reports|owns)"
_SHARED_SUBJECT = re.compile(
    rf"^(?P<subject>\ue000\d+\ue001|(?!(?:I|We|The|A|An|This|That|It|He|She|They)\b)[{CAPITALS}][\w'’-]*"
    rf"(?:\x20[{CAPITALS}][\w'’-]*){{0,2}})\x20+(?:(?:now|also|still|currently)\x20+)?{_RELATION_VERBS}\b"
    rf"[^.;!?,]*?\x20and\x20+(?=(?:(?:now|also|still|currently)\x20+)?{_RELATION_VERBS}\b)"
)
"""A sentence whose subject does two things: "Mia lives in Lisbon and works at Google"."""
_ASIDE_COMMA = re.compile(r",\s+(?:my|our|his|her|their)\s")
"""A cheap screen for `_ASIDE`'s comma form before the full pattern runs."""
_LABEL_MARK = re.compile(r"[:—–]|\s-\s")
"""A cheap screen for a label on a block's first lines before `_speaker_opens` reads it."""
_ASIDE = re.compile(
    r"(?<=[A-Za-z\ue001])(?:[\x20\t]*\((?![^()\n]*\b(?:apparently|allegedly|supposedly|reportedly|maybe|probably"
    r"|perhaps|possibly|not|no|never|unconfirmed|unverified|sure|think|guess|rumou?red|formerly|former|retired|ex"
    r"|until|left|or)\b)(?:my|our|his|her|their|the|a|an|[a-z]+)\b[^()\n?]{0,40}\)"
    r"|,[\x20\t]+(?:my|our|his|her|their)[\x20\t]+[a-z][a-z'’-]*(?:[\x20\t]+[a-z][a-z'’-]*){0,3},)"
    r"(?=[\x20\t]+[a-z])"
)
"""An aside after a name, before the verb: "Alex (my husband) works at …", "Alex, my husband, works
at …", "Dr. Patel (pediatrician) works at …"; not one that doubts, denies or ends what follows:
"Tom (apparently) works at Meta", "Ana (no longer) works at Google"."""
_DATE_PROPERTY = re.compile(
    r"(?i)(?:\*\*|__)?(?:date|created|updated|modified|last[ \t]+(?:edited|modified|updated)(?:[ \t]+time)?"
    r"|created[ \t]+(?:at|on|time)|date[ \t]+created)(?:\*\*|__)?[ \t]*::?(?:\*\*|__)?[ \t]*"
    r"(?:\[\[)?(?:\d|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|mon|tue|wed|thu|fri|sat|sun)[a-z]*\b)"
    r"[^.!?]{0,40}$"
)
"""A note's date said as a property line in its body ("Created: March 25, 2025 4:12 PM", as Notion
exports it): no statement."""
_DATE_PROPERTY_STARTS = frozenset("DdCcUuMmLl*_")
_SLASH_DAY = re.compile(
    r"(?i)\b(?:on|by|due|until|till|from|before|after|since|update|edit|as\s+of)[\x20\t]+(?:(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?,?"
    r"[\x20\t]+)?(?!24/7\b)(?P<a>\d{1,2})/(?P<b>\d{1,2})(?![/\d])"
    r"(?![\x20\t]*(?:inch|in\b|mm|cm|\"|rotation|on-call|support|coverage|of\b|ratio|scale))"
)
"""A day written with a slash and no year, after a word that dates ("on 2/28", "by Fri 3/21")."""
_NOT_A_CALLER = _word_set("so project app tool band film book song company team group place town village")
"""Capitalized words before "called" that name a thing, not someone calling ("Project called …")."""
_SAT_DAY = re.compile(r"\bSat\.?\s+\d")
"""Saturday's date ("Sat 14 June: party"), not the verb ("Sat in the garden")."""


def _end_type(raw: str, entity_type: str | None) -> str | None:
    """The type a verb pattern gives one end of its relation: for a link, a guess (`likely_…`), since
    the note it links to says what it is ("works at [[Atlas]]" is no company where `Atlas.md` is a
    project's note); for a name written out, the pattern's."""
    if entity_type is None or entity_type == "person" or not PLACEHOLDER_RE.fullmatch(raw):
        return entity_type
    return "likely_" + entity_type


_MEETING_VERBS = _word_set(
    "met saw called phoned rang texted messaged emailed visited hugged thanked invited congratulated helped"
    " interviewed hosted joined contacted pinged facetimed skyped drove picked dropped fed babysat"
)
"""The past verbs a diary line opens with before whom the writer saw ("Met Priya's husband Dev"); not
any "-ed" word: "Mohammed Ali", "Alfred Jones" are names."""


def _after_a_diary_verb(hit: PatternHit, wording: _Wording) -> str:
    """A subject without the past verb a diary line opens with: "Met Priya's husband Dev" is Priya's."""
    if not wording.diary or not hit.subject[:1].isupper():
        return hit.subject
    verb, _, rest = hit.subject.partition(" ")
    lead = verb.lower()
    return rest if rest[:1].isupper() and lead in _MEETING_VERBS else hit.subject


def _is_past_word(word: str) -> bool:
    """A lowercase word that is a past-tense verb: irregular, or a regular -ed form."""
    if word in _IRREGULAR_PAST:
        return True
    return len(word) >= 4 and word.endswith("ed") and not word.endswith("eed") and word not in _NOT_PAST


# -- the reader ---------------------------------------------------------------------------------


@dataclass(slots=True)
class _Candidate:
    """One statement: a sentence, a list item or a table row."""

    text: str
    """Visible text, list marker and checkbox removed."""
    quote: str | None
    """A verbatim quote of the chunk that supports it."""
    kind: Literal["sentence", "item", "row"]
    heading_entity: str | None = None
    """The entity a heading made only of one wikilink names (`## [[Dana Kim]]`), for key: value items."""
    quoted: bool = False
    """Someone else's words: a blockquote, or a clipped web page."""
    done: bool = False
    """A task ticked done (`- [x] Fix the bike brakes`, Logseq's `DONE`): it happened, in any words."""


_TITLED = re.compile(
    r"(?:Dr|Mr|Mrs|Ms|Mx|Prof|Miss)\.?[ ]"
    r"(?!(?:Martens|Pepper|Oetker|Who|Robot|Bean|Muscle|Tumble|Brightside|Doubtfire|Saigon|Marvel|Chow|Coffee"
    r"|Kipling|Layton|Jekyll|Hyde|Men|Potato|Freeze|Strange|Sheen|Blobby|Motivator|Benn|Squiggle)\b)"
    r"[A-Z][\w’-]*(?:[ ][A-Z][\w’-]*)?$"
)
"""A name led by a person's title: "[[Dr. Lindqvist]]", "[[Mrs. Okafor]]" are people (not "Dr. Martens",
"Mr Robot", "Miss Saigon", "Mrs Brown's Boys", "Dr Jekyll and Mr Hyde": brands and works)."""


@dataclass(slots=True)
class _EntityTable:
    """The chunk's entities by casefolded name, in order of first mention."""

    items: dict[str, dict[str, Any]] = field(default_factory=dict)
    positions: dict[str, int] = field(default_factory=dict)
    """Position of each entity in `items`, by its key."""
    by_alias: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Casefolded alias → the first entity of `items` that has it (a scan of every entity per lookup
    made adding entities quadratic)."""
    aliases: dict[str, set[str]] = field(default_factory=dict)
    """Each entity's aliases as a set, by its key: a list's scan made 20,000 aliases quadratic."""
    own: tuple[str, str] | None = None
    """The note's own name (casefolded) and the type its frontmatter gives it: what its lines call
    that name is that thing ("Apple is a crisp fruit" in a note with `entity_type: food`)."""

    def add(
        self,
        name: str,
        entity_type: str | None,
        quote: str | None,
        aliases: tuple[str, ...] = (),
        description: str = "",
    ) -> str:
        """Record an entity (or refine a known one); return its name as first spelled."""
        key = name.casefold()
        if self.own is not None and key == self.own[0] and entity_type in (None, "concept"):
            entity_type = self.own[1]
        entry = self.items.get(key)
        if entry is None:
            entry = self.by_alias.get(key)
        if entry is None:
            entry = {
                "name": name,
                "entity_type": entity_type or ("person" if _TITLED.match(name) else "concept"),
                "aliases": [],
                "description": description,
                "supporting_text": around(quote, name),
            }
            self.positions[key] = len(self.items)
            self.items[key] = entry
        elif entity_type and (
            entry["entity_type"] == "concept" or (guessed(entry["entity_type"]) and not guessed(entity_type))
        ):
            entry["entity_type"] = entity_type  # a type stated in the chunk beats one guessed
        if description and not entry["description"]:
            entry["description"] = description
        if entry["supporting_text"] is None and quote is not None:
            entry["supporting_text"] = around(quote, name)
        known = self.aliases.setdefault(entry["name"].casefold(), set())
        for alias in aliases:
            folded = alias.casefold()
            if folded != entry["name"].casefold() and alias not in known:
                known.add(alias)
                entry["aliases"].append(alias)
                owner = self.by_alias.get(folded)
                if owner is None or self._position(entry) < self._position(owner):
                    self.by_alias[folded] = entry
        return str(entry["name"])

    def _position(self, entry: dict[str, Any]) -> int:
        """Where an entity stands in `items` (its key is its first spelling, casefolded)."""
        return self.positions[entry["name"].casefold()]


@dataclass(slots=True)
class _Outcome:
    """What one candidate became."""

    layer: Layer | None
    type: str = ""
    reason: str = ""
    public: bool = False
    valid_from: date | None = None
    valid_to: date | None = None
    """The day a state is said to last until ("until Thursday")."""
    day: date | None = None
    """The node's day, when it is not the first day the sentence names (see `dated_by_note`)."""
    dated_by_note: bool = False
    """Dated by its note alone: a day the sentence names (a birthday) is no day anything happened."""
    brief: bool = False
    """Whole in two words, as "We're vegetarian." is (such short statements usually say nothing)."""


class _ChunkReader:
    """Read one chunk of one source into a raw draft dict.

    Of the source it reads only what `chunk_context` hashes (path, title, frontmatter, language):
    a chunk's stored draft is reused on that promise. Reading more of it means hashing more there.
    """

    def __init__(self, chunk: Chunk, source: Source) -> None:
        self.chunk = chunk
        self.source = source
        self.meta: dict[str, Any] = source.meta if isinstance(source.meta, dict) else {}
        self.language = self._language()
        self.date_languages: tuple[str, ...] = ("en", "fr") if self.language == "fr" else ("en",)
        self.french = self.language == "fr"
        self.heading = chunk.heading_path[-1] if chunk.heading_path else None
        self.heading_week = False
        """The dated heading names a week: its weekdays are of that week."""
        self.heading_date = self._heading_date()
        self.entities = _EntityTable()
        self.nodes: list[dict[str, Any]] = []
        self.node_titles: set[str] = set()
        """The casefolded titles of `nodes`: a title is used once per chunk."""
        self.relations: list[dict[str, Any]] = []
        self.relation_keys: dict[tuple[str, str, str, date | None], int] = {}
        """Each relation recorded, to its place in `relations`."""
        self.reasons: Counter[str] = Counter()
        self.undated = 0
        self.author = self._author()
        self.clipped = _is_clipping(self.meta)
        """A web page kept in the notes: its first person is its author, not the notes' owner."""
        self.highlights = any(_HIGHLIGHTS.match(heading) for heading in chunk.heading_path)
        """Under Readwise's "New highlights added …": passages of a book or article, its author's words."""
        # Who "I" is: the note's author, unless the note is about a work of theirs (a book's
        # `author` did not write the reader's "I reread it every year": the notes' owner did); in a
        # note naming no author, the notes' owner (`user_name`), unless it is a page clipped from the web.
        if self.author is not None and self.author.casefold() in _ME:
            self.author = source.writer  # `author: "[[Me]]"` (a template's): the notes' owner wrote it
        writer = self.author or (None if self.clipped or "author" in self.meta else source.writer)
        note_type = self._note_entity_type()
        if note_type is not None and _DAY_TITLE.match(source.title) is None:
            self.entities.own = (source.title.casefold(), note_type)
        self.about_a_work = note_type in _WORKS
        """A note about a book, a paper or another work (a `citekey` too): its lines quote it."""
        self.person_note = note_type in PERSON_TYPES and _DAY_TITLE.match(source.title) is None
        """A note about one person (`People/Jamie Chen.md`): its lines without a subject are theirs."""
        if self.about_a_work:
            # A book's or a paper's `author` wrote the work, not the note. In a book's or a paper's note
            # the "I" is its reader's ("I use their Cora split"; the paper's own voice is "we"); in a
            # podcast's or a recipe's it may be the speaker's, paraphrased.
            self.author, writer = None, source.writer if note_type in ("book", "paper") else None
        self.i_am = writer
        self.said_at: date | datetime | None = None
        """When a conversation turn was said: relative times are then read with the full resolver."""
        self.times: list[When] = []
        """The times found in the candidate being read, for its title."""
        self.known: frozenset[str] = frozenset()
        self.linked_names: tuple[str, ...] = ()
        self.note_people: tuple[tuple[str, ...], ...] | None = None
        self.attendees: tuple[str, ...] | None = None
        """The people the note's properties name, and its own full-name title, once asked for."""
        self.someone_described = False
        """The candidate being read says who someone is ("Fatima is a TA …"), no term it defines."""
        self.spoken = False
        self.sentence_at = 0
        """Where the sentence being read starts in its line (0: the line's first, or a list item)."""
        """The block being read is someone else's words: its "I" is not the writer."""
        self.reported = False
        """And the writer reports them ("Ana told me: …"): what they say of anyone is their claim."""
        self.spoken_lines = 1
        """How many lines of a paragraph someone else's words take: its first (after their label), or
        all of it (-1: under their speaker line)."""
        self.values = _secret_values(chunk, source)
        """The secrets of the chunk as written: masked wherever they show, even cut from their context."""
        self.secrets = bool(self.values) or _may_hold_secrets(chunk, source)
        """Whether anything this chunk can put in a draft holds a secret; when not, masking is skipped."""
        self.heading_secret = self.secrets and bool(find_secrets(" ".join(chunk.heading_path)))
        """A secret in a heading: no topic tag of it, and every node under it is confidential."""
        self.chunk_tags: list[str] = []
        self.base_tags: frozenset[str] | None = None
        self.sorted_base_tags: list[str] = []
        self.glossary = bool(
            _GLOSSARY_CONTEXT.search(" ".join(chunk.heading_path)) or _GLOSSARY_CONTEXT.search(source.title)
        )
        listing = (
            _LISTING_CONTEXT.match(_bare_heading(chunk.heading_path[-1])) if chunk.heading_path else None
        )
        self.listing = (
            ("uses" if listing["stack"] else "member_of")
            if listing is not None and _DAY_TITLE.match(source.title) is None
            else None
        )
        """What a note's list says of its subject: a `## Stack` what it uses, a `## Team` who is in it."""
        self.software_only = listing is not None and listing["tools"] is not None
        """A `## Tools` list names software only where it is known as such (a workbench's `- Saw: Bosch`
        uses no software)."""
        self.medicines = _medicine_list(
            chunk.heading_path[-1].strip() if chunk.heading_path else "",
            source,
            # Whose a `## Medications` list is: a person's or an animal's note's (not a doctor's).
            (self.person_note and note_type not in _CARERS) or note_type in ANIMAL_TYPES,
        )
        """A list of medicines taken ("current") or no more ("stopped"): a person's or a pet's
        `## Medications` list, or the lists of the writer's note about them (`Health/Medications.md`)."""
        self.medicines_of_the_note = self.medicines is not None and not _MEDICINE_TITLE.match(source.title)
        """Whether the list's medicines are taken by the note's own person or animal, not the writer."""
        self.decisions = bool(chunk.heading_path) and bool(
            _DECISIONS_CONTEXT.match(_bare_heading(chunk.heading_path[-1]))
        )
        """The chunk is a list of decisions ("## Decisions"): each item one, if it states anything."""

    # -- envelope -------------------------------------------------------------------------------

    def _envelope(self, skip_reason: str | None) -> dict[str, Any]:
        start, end = self.chunk.line_start, self.chunk.line_end
        suffix = f" lines {start}-{end}"
        path = self.chunk.source_path
        if len(path) + len(suffix) > SOURCE_DESCRIPTION_MAX:
            path = "…" + path[-(SOURCE_DESCRIPTION_MAX - len(suffix) - 1) :]
        return {
            "schema_version": SCHEMA_VERSION,
            "episode_name": self._episode_name(),
            "source_description": f"{path}{suffix}",
            "reference_time": self.chunk.reference_time,
            "skip_reason": skip_reason,
            "nodes": self.nodes,
            "entities": list(self.entities.items.values()),
            "relations": self.relations,
        }

    def _episode_name(self) -> str:
        """The innermost meaningful heading, else the source title, else the file name, cut to 30."""
        stem = self.source.path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
        for candidate in (*reversed(self.chunk.heading_path), self.source.title, stem):
            name = _cut_at_word(" ".join(str(candidate).split()), EPISODE_NAME_MAX, ellipsis=False)
            if _HAS_WORD.search(name) and name.casefold() not in GENERIC_EPISODE_NAMES:
                return name
        return ""

    # -- source facts ---------------------------------------------------------------------------

    def _language(self) -> str:
        return _language_of(self.source, self.meta)

    def _heading_date(self) -> date | None:
        """The day the innermost dated heading names: a full date ("Week of 3–9 March 2025" is its
        first day), else, in a dated note, a day without a year ("Day 2 — Wed Oct 2", "Tue 18 Mar":
        the nearest such day) or a weekday leading it ("Monday": that day of the note's week; "Thu
        6th": the nearest 6th that is a Thursday). Under a heading naming a day ("Week 11 (10–16
        March 2025)"), or in a week's note (`2025-W11.md`), a weekday is the first of its name from
        that day on."""
        return self._day_of_headings(self.chunk.heading_path)

    def _day_of_headings(self, path: tuple[str, ...]) -> date | None:
        """The day the innermost heading of `path` that names one names (`_heading_date`)."""
        reference = self.chunk.reference_time
        for depth in range(len(path) - 1, -1, -1):
            heading = path[depth]
            found = find_dates(heading, reference, languages=self.date_languages)
            if found:
                # "## Week of 2025-01-20": a weekday under it is that week's.
                self.heading_week = _WEEK_WORD.search(heading) is not None
                return _range_firsts(heading, found)[0][2]
            if self.language not in ("en", "fr"):
                continue
            if reference is None:
                # "Scotland 2024" / "## Tue 6 Aug — Edinburgh": the title's year, as its sentences' days.
                days = self._days_of_the_titles_year(heading)
                if days:
                    return days[0][2]
            if reference is not None:
                for when in find_times(heading, reference, self.language):
                    if when.granularity == "day" and not _FOUR_DIGITS.search(heading[when.start : when.end]):
                        return _nearest_year(when.first, reference)
                numbered = _DAY_NUMBER.match(heading)
                first = self._first_day() if numbered is not None else None
                if numbered is not None and first is not None:
                    # A trip's or a course's "## Day 3 — Coimbra", in a note whose `date` is its first day
                    # and whose days start at "Day 1" (not one dated by when it was `created`: written
                    # after, perhaps; nor "Whole30 Day 12.md", already that day).
                    return first + timedelta(days=int(numbered["number"]) - 1)
            weekday = _HEADING_WEEKDAY.match(heading)
            if weekday is None:
                continue
            named = _WEEKDAY_NUMBERS[(weekday["day"] or weekday["short"]).lower()]
            # A day above (a heading naming one), else the week's note itself.
            above = self._day_of_headings(path[:depth]) if depth else None
            week = _week_monday(self.source.title) if above is None else None
            base = above or week or reference
            if base is None or not can_count_from(base):
                continue
            if weekday["number"]:
                return _day_numbered(base, named, int(weekday["number"]))
            if week is not None or (above is not None and self.heading_week):
                # "# Week 11 (10–16 March 2025)" / "## Wednesday": the first of its name from that day on.
                return base + timedelta(days=(named - base.weekday()) % 7)
            # "# Weekly review 22 March 2025" / "## Monday": that day's week, Monday to Sunday.
            return base + timedelta(days=named - base.weekday())
        return None

    def _published(self) -> date | None:
        """When a page clipped from the web was published (its `published` property), if it says."""
        value = self.meta.get("published")
        return parse_date_value(value) if isinstance(value, date | str) else None

    def _first_day(self) -> date | None:
        """The first day of a trip's or a course's note that numbers its days from "## Day 1": its `date`,
        `start` or `departure` property."""
        if _DAY_TITLE.match(self.source.title) is not None or not _DAY_ONE_HEADING.search(self.source.text):
            return None
        for key in _START_KEYS:
            value = self.meta.get(key)
            day = parse_date_value(value) if isinstance(value, date | str) else None
            if day is not None and can_count_from(day):
                return day
        return None

    def _author(self) -> str | None:
        value = self.meta.get("author")
        if value is None:
            value = self.meta.get("authors")
        if isinstance(value, list):
            value = value[0] if value else None
        if not isinstance(value, str) or not value.strip():
            return None
        link = _WIKILINK.search(value)
        if link:
            name, _display, _alias = _parse_link(link.group("body"))
            return name
        text = " ".join(value.split())
        return text if _HAS_WORD.search(text) and len(text) <= 80 else None

    def _source_tags(self) -> list[str]:
        return note_tags(self.meta)

    def _kin_of_the_writer(self) -> bool:
        """Whether this person's note may say who they are to the writer ("My mum."): not a character's
        note, nor the writer's own."""
        writer = self.i_am
        return self._note_entity_type() not in _CHARACTER_TYPES and not (
            writer is not None and writer.casefold() == self.source.title.casefold()
        )

    def _note_entity_type(self) -> str | None:
        return note_type(self.meta, self.source.title, self.source.path)

    def _kept_kind(self) -> str | None:
        return kept_kind(self.meta, self.source.title, self.source.path)

    def _note_aliases(self) -> tuple[str, ...]:
        return note_aliases(self.meta)

    def _note_entity(self, quote: str | None) -> str:
        return self.entities.add(self.source.title, self._note_entity_type(), quote, self._note_aliases())

    def _reading_events(self) -> None:
        """A book's note's reading dates (`started: 2023-12-10`, `finished: 2024-01-02`, as the Book Search
        plugin and reading logs write them) are the reader's events: "Started reading Project Hail Mary",
        "Finished reading Project Hail Mary (rated 4.5)"."""
        title, meta = self.source.title, self.meta
        rating = next(
            (meta[key] for key in _RATING_KEYS if isinstance(meta.get(key), int | float | str)), None
        )
        rated = (
            f" (rated {rating})"
            if rating is not None and str(rating).strip() and len(str(rating)) <= 12
            else ""
        )
        status = str(meta.get("status") or "").strip().casefold().replace(" ", "-")
        for keys, says in ((_STARTED_KEYS, "Started reading"), (_FINISHED_KEYS, "Finished reading")):
            if says.startswith("Finished") and status in _NOT_FINISHED:
                continue  # `status: abandoned`: its end date is when it was put down
            key = next((key for key in keys if key in meta), None)
            value = meta[key] if key is not None else None
            # A day as written (`2024-01-02`), not `read: true` nor a number a clock could read.
            day = parse_date_value(value) if isinstance(value, date | str) else None
            if day is None:
                continue
            words = f"{says} {title}{rated if says.startswith('Finished') else ''}"
            self._property_event(words, day, [self.entities.add(title, "book", None)], f"{key}: {value}")

    def _property_event(
        self, words: str, day: date, entities: list[str], quote: str | None, occurred_at: str | None = None
    ) -> None:
        """An event a note's properties say (a calendar's, a book's reading), as a node of that day."""
        masked = _cut_at_word(mask_secrets(" ".join(words.split()))[0], TITLE_MAX, ellipsis=True)
        if masked.casefold() in self.node_titles:
            return
        self.nodes.append(
            {
                "memory_layer": "episodic",
                "type": "observation",
                "title": masked,
                "body": masked,
                "tags": self._tags([]),
                "timestamp": day,
                "occurred_at": occurred_at,
                "sensitivity": "private",
                "confidence": "medium",
                "origin": "stated",
                "language": self.language,
                "entities": entities,
                "supporting_text": quote,
            }
        )
        self.node_titles.add(masked.casefold())

    def _writers_own_health_line(self, inline: _Inline) -> bool:
        """Whether a health log's line with no subject ("Started sertraline 50mg today.") is the writer's:
        in a day's own note, under no heading naming anyone, and naming no one ("for Lily's ear")."""
        if _DAY_TITLE.match(self.source.title) is None or self.person_note or inline.refs:
            return False
        if any(_someones_heading(heading) for heading in self.chunk.heading_path):
            return False  # "## Mum", "## Dad's meds", "## Biscuit"
        return _NAMES_SOMEONE.search(inline.title) is None

    def _calendar_event(self, title_quote: str | None) -> None:
        """A Full Calendar event note (`title`, `date`, `startTime` or `allDay`, `type: single`) is an
        event of that day, at its start time: "Dentist" on 2025-04-02 at 10:00."""
        meta, day = self.meta, self.chunk.reference_time
        title = meta.get("title")
        if (
            day is None
            or not isinstance(title, str)
            or not title.strip()
            or not ("startTime" in meta or "allDay" in meta)
            or meta.get("type", "single") != "single"
            or _CANCELLED.search(title)
        ):
            return
        start = meta.get("startTime")
        clock = (
            _START_TIME.fullmatch(str(start).strip())
            if start is not None and meta.get("allDay") is not True
            else None
        )
        at = f"{day.isoformat()}T{int(clock['hour']):02d}:{clock['minute']}:00" if clock else None
        self._property_event(title, day, [], title_quote, at)

    def _note_subject(self, quote: str | None) -> str | None:
        """Who the note's fields and properties are about: the note's entity; in a daily note
        (`2024-05-05.md`: `met:: [[Sam Lee]]`), the day is no entity, and they are its writer's
        (nobody's when unknown)."""
        if _DAY_TITLE.match(self.source.title) is None:
            return self._note_entity(quote)
        return self.entities.add(self.i_am, "person", quote) if self.i_am else None

    # -- frontmatter ----------------------------------------------------------------------------

    def read_frontmatter(self) -> dict[str, Any]:
        """Entities and relations from properties whose values are wikilinks; no nodes."""
        key: str | None = None
        title_quote: str | None = None
        found: list[tuple[str, str, str]] = []
        # A value written over several lines (`description: >` and its text, or a plain value that
        # goes on, indented): its lines are no keys, and a block of text relates nothing.
        scalar: tuple[int, bool] | None = None  # (indent of its key, whether it is a block of text)
        plain: list[tuple[str, str, str]] = []  # a person's properties named without a link
        authors: list[tuple[str, str, str]] = []  # a work's authors named without a link
        for line in self.chunk.text.split("\n"):
            if line.strip() in ("---", "..."):
                continue  # delimiters
            stripped = line.lstrip()
            indent = len(line) - len(stripped)
            if scalar is not None and (not stripped or indent > scalar[0]):
                if scalar[1]:
                    continue
            else:
                scalar = None
                if stripped.startswith("#"):
                    continue  # a YAML comment
                nested = indent > 0
                if not stripped.startswith("-"):
                    keyed = _YAML_KEY.match(stripped)
                    if keyed:
                        # A nested mapping's key names its value better than the key above it.
                        key = keyed.group("key").strip("'\"").strip() or None
                        if key is not None and key.lower() == "title" and not nested:
                            title_quote = line.strip()
                        value = (keyed.group("rest") or "").strip()
                        if key is not None and not nested and key.lower() in _PERSON_KEY_PREDICATES:
                            named = _plain_name(value)
                            if named is not None:  # `company: Acme` on a person's note (kept below)
                                plain.append((key, named, line.strip()))
                        if (
                            key is not None
                            and not nested
                            and key.lower() in _AUTHOR_KEYS
                            and "[[" not in value
                        ):
                            # `authors: Daniel Kahneman`, `author: Kahneman, Daniel` (kept below for a work)
                            authors.extend((key, name, line.strip()) for name in _plain_authors(value))
                        if value and not value.startswith(("#", "&", "*", "!")):
                            scalar = (indent, value[0] in "|>")
                    elif not nested:
                        key = None  # a top-level line that is no key we read (`"": …`, `? …`): relate nothing
            if (
                key is not None
                and key.lower() in _AUTHOR_KEYS
                and stripped.startswith("-")
                and "[[" not in line
            ):
                # `authors:` as a list: `  - Daniel Kahneman`
                authors.extend((key, name, line.strip()) for name in _plain_authors(stripped[1:]))
            if key is None or key.lower() in _SKIPPED_KEYS or "[[" not in line:
                continue
            if key.lower() == "participants" and self.source.kind == "transcript":
                # Who speaks in it: each is an entity of their own turns, and the talk no entity.
                continue
            for link in _WIKILINK.finditer(line):
                name, _display, alias = _parse_link(link.group("body"))
                if name is not None:
                    found.append((key, name, line.strip()))
                    if alias and _is_proper_alias(alias, name):
                        self.entities.add(name, None, line.strip(), (alias,))
        self._calendar_event(title_quote)
        if self.about_a_work and self._note_entity_type() == "book":
            self._reading_events()
        if authors and (self.about_a_work or self.clipped):
            # A book's, a paper's or a clipped page's `author: Cal Newport` says what a link to him does.
            linked = {key for key, _, _ in found}
            found.extend(item for item in authors if item[0] not in linked)
        # The note itself is an entity when it links to others, declares an entity type or has aliases
        # (so `[[Klipper firmware]]` elsewhere finds `Klipper`), or is where a person, an organization
        # or a place is kept (`tags: [person]`, `People/`); `type` alone types it but is no reason.
        if not (
            found
            or self._note_aliases()
            or isinstance(self.meta.get("entity_type"), str)
            or self._kept_kind() is not None
        ):
            return self._envelope(None if self.nodes else "structural: no linked properties")
        subject = writer = self._note_subject(title_quote)
        a_day = _DAY_TITLE.match(self.source.title) is not None
        a_person = not a_day and self._note_entity_type() == "person"
        if a_person:
            # `company: Acme`, `location: Berlin` say what `company: "[[Acme]]"` says.
            found.extend(item for item in plain if item[0] not in {key for key, _, _ in found})
        about = {name for key, name, _ in found if key.lower() in _ABOUT_KEYS} if a_day else set()
        for key, name, quote in found:
            predicate = "author" if key.lower() == "authors" else _snake(key)  # one predicate, however many
            who = subject
            if about and key.lower() in _PERSON_KEY_PREDICATES:
                # An interview's `employer: [[Wise]]` or `location:` is not its writer's, and whose it
                # is (the candidate's, the hiring company's, the meeting's) the note does not say.
                who = None
            if a_day and key.lower() in _COMPANY_KEYS | _ABOUT_KEYS:
                # A day's `attendees: [[Ana]]`: its writer met Ana that day.
                predicate, who = "met", writer
            elif a_person and key.lower() in _PERSON_KEY_PREDICATES:
                # A person's `company: "[[Sony]]"` is where they work, as their note's "Company: Sony".
                predicate = _PERSON_KEY_PREDICATES[key.lower()]
            if self.i_am is not None and name.casefold() in _ME:  # `owner: "[[Me]]"`: the writer
                name = self.i_am
            kind = "person" if name in about else _key_type(key, name)
            object_name = self.entities.add(name, kind, quote)
            if (
                who is None
                or predicate is None
                or key.lower() in _DATE_KEYS
                or object_name.casefold() == who.casefold()
            ):
                continue
            label = predicate.replace("_", " ")
            self._relation(
                who,
                predicate,
                label,
                object_name,
                f"{who} {label} {object_name}",
                FIELD_CONFIDENCE,
                quote,
                # A day's properties are of that day (`location: "[[Lisbon]]"`, `attendees`).
                self._chunk_date() if a_day else None,
            )
        return self._envelope(None)

    # -- sections -------------------------------------------------------------------------------

    def read_section(self) -> dict[str, Any]:
        """Nodes, entities and relations from a body section."""
        lines = self.chunk.text.split("\n")
        visible = _visible_lines(lines, markdown=self.source.kind == "markdown")
        blocks = _blocks(visible, logseq=_LOGSEQ_PATH.search(self.source.path) is not None)
        linked, self.chunk_tags = _links_and_tags("\n".join(block.text for block in blocks))
        aliases = self._note_aliases()
        self.known = frozenset(n.casefold() for n in (*linked, self.source.title, *aliases))
        self.linked_names = tuple(sorted({n for n in linked if len(n) > 2}, key=lambda n: (-len(n), n)))
        clipped_voice, mine = (self.author, self.i_am), False
        # A clipped page speaks as of when it was published; the writer's note on it, as of the clipping.
        clipped_days = (self.heading_date, self.heading_date or self._published()) if self.clipped else None
        # A Kindle's "My Clippings.txt", pasted or kept: after "Your Highlight on Location …", the book's
        # words; after "Your Note on page …", the reader's.
        kindle = "" if "Added on" not in self.chunk.text else None
        if _KINDLE_SEPARATOR.search(self.chunk.text):
            # "==========" under a clipping makes it a heading of its own chunk: its mark is above it.
            kindle = _kindle_mark_above(self.source, self.chunk.line_start) or kindle

        if self.chunk.index == 0 and self._kept_kind() is not None:
            # `People/Ana Souza.md` with no frontmatter: its first lines are where the note's entity is.
            self._note_entity(None)
        heading_entity: str | None = None
        procedures: dict[int, list[_Block]] = {}
        for block in blocks:
            if block.ordered_list >= 0:
                procedures.setdefault(block.ordered_list, []).append(block)
        day_note = _DAY_TITLE.match(self.source.title) is not None
        # Any note of a day (a meeting's, a dated page) says so by its headings, labels and times alone.
        dated = day_note or self.chunk.reference_time is not None
        steps = {
            k: v
            for k, v in procedures.items()
            if sum(1 for b in v if b.indent == v[0].indent) >= 2
            and not _names_only(v)
            and not (
                dated
                and self._tells_the_day(
                    v, _block_before(blocks, v[0]), self.chunk.heading_path, by_items=day_note
                )
            )
            and not _a_grateful_list(_block_before(blocks, v[0]), self.chunk.heading_path)
            and not self.decisions  # "## Decisions / 1. Use Postgres …": each a decision, no steps
        }

        done: set[int] = set()
        spoken_at: tuple[int, bool] | None = None  # an item naming a speaker above their words: its
        # indent, and whether it reports what they said ("- Ana told me:")
        transcript = _transcript_speaker_lines(self.chunk.text)
        # Under "## Priya's updates" (or "## Her topics"), a line with no subject is hers.
        theirs = bool(self.chunk.heading_path) and self._someone_elses_heading(self.chunk.heading_path[-1])
        for position, block in enumerate(blocks):
            quote = self._raw_quote(lines, block)
            # Someone else's words: the rest of the line after a label of theirs ("Priya: I work at
            # Shopify … and I live in Toronto."), the items under an item that reports them ("- Ana
            # told me:", "- [[Priya]]:"), the lines under a transcript's speaker line ("Priya
            # Natarajan  0:42", in a chunk of them).
            if spoken_at is not None and not (block.kind == "item" and block.indent > spoken_at[0]):
                spoken_at = None
            opens = (
                _speaker_opens(block.text, transcript)
                # Only a line with a label's mark, or a speaker line, may open someone's words.
                if spoken_at is None
                and (transcript or _LABEL_MARK.search(block.text, 0, 160))
                and not self._mine(block.text)
                else None
            )
            self.spoken = theirs or spoken_at is not None or opens is not None
            self.spoken_lines = -1 if theirs or spoken_at is not None or opens == "transcript" else 1
            # What someone told the writer is their claim, of anyone ("Ana told me: Tom works at Google").
            self.reported = (spoken_at is not None and spoken_at[1]) or opens == "reported"
            if (
                block.kind == "item"
                and opens is not None
                and _label_only(block.text)
                and _names_a_speaker(block.text, opens)
            ):
                spoken_at = (block.indent, opens == "reported")
            if kindle is None or kindle:
                marked = _KINDLE_MARK.match(block.text)
                if marked is not None:
                    kindle = marked["kind"].lower()
                    self.reasons["app boilerplate"] += 1
                    continue
            if self.clipped:
                # The writer's own note on a page clipped from the web ("> [!note] My notes", "my take:
                # …"): theirs, and its "I" the notes' owner; the rest is the page's, its author's.
                mine = block.callout or _MY_COMMENT.match(block.text) is not None
                self.author, self.i_am = (None, self.source.writer) if mine else clipped_voice
                if clipped_days is not None:
                    self.heading_date = clipped_days[0] if mine else clipped_days[1]
            quoted = (
                block.quoted
                or _ATTRIBUTED_QUOTE.match(block.text) is not None  # '"I love this city" — the taxi driver'
                or (self.clipped and not mine)
                or kindle == "highlight"
                or self.highlights
                or (block.kind in ("item", "paragraph") and self._passage(block.text))
            )
            if block.kind == "heading":
                inline = _analyse(block.text)
                heading_entity = self._heading_links(inline, quote)
                continue
            if block.kind == "field":
                self._inline_field(block, quote)
                continue
            if block.kind == "relation_item":
                self._relation_item(block, quote)
                continue
            if block.ordered_list in steps:
                if block.ordered_list not in done:
                    done.add(block.ordered_list)
                    previous = blocks[position - 1] if position else None
                    self._procedure(steps[block.ordered_list], previous, lines)
                continue
            if "::" in block.text:
                for field_match in _BRACKETED_FIELD.finditer(block.text):
                    key = field_match.group("key") or field_match.group("pkey")
                    value = field_match.group("value") or field_match.group("pvalue") or ""
                    self._field(key, value, field_match.group())
                # Read as fields, they are no words of the statement ("Read [[Dune]] [rating:: 4]"),
                # but a day they give is when it happened ("[finished:: 2024-04-20]": "finished on …").
                block.text = _BRACKETED_FIELD.sub(_field_as_words, block.text)
            if "~~" in block.text and "`" not in block.text:
                # "~~Raj works at Google.~~ Raj works at Meta.": what is struck out is taken back (an
                # item struck whole, "- ~~Submitted the visa application~~", is done, not wrong).
                unstruck = _STRUCK.sub("", block.text).strip()
                if unstruck or block.kind != "item":
                    block.text = unstruck
                else:
                    block.text = block.text.strip().strip("~").strip()
                if not block.text:
                    continue
            if block.kind == "row":
                if block.task not in (None, "x"):
                    self.reasons["open task"] += 1  # a row of a table of tasks, not done
                elif _MARKS_ONLY_ROW.fullmatch(block.text):
                    self.reasons["no statement"] += 1  # a habit tracker's "2025-03-10; ✅; ❌; ✅"
                elif not block.header_row:
                    self._candidate(_Candidate(block.text, quote, "row", heading_entity, quoted))
                continue
            if block.kind == "item" and block.task not in (None, "x"):
                self.reasons["open task"] += 1  # to do, doing, dropped or moved: nothing happened yet
                continue
            if block.kind == "item":
                self.sentence_at = 0
                self._candidate(
                    _Candidate(
                        block.text,
                        self._quote(block.text, quote),
                        "item",
                        heading_entity,
                        quoted,
                        done=block.task == "x",
                    )
                )
                continue
            spoken, line_end, at = self.spoken, block.text.find("\n"), 0
            reported = self.reported
            # In a dialogue, a later line may open with someone's label too ("Priya: Let's start.\nTom: I
            # live in …"); not under a line that opens with none ("Dentist: at 3pm. I live in …").
            labelled = (
                self._labelled_lines(block.text, transcript) if line_end >= 0 and opens == "speaker" else {}
            )
            for sentence, sentence_quote in self._paragraph_sentences(block, lines):
                at = block.text.find(sentence, at)
                self.sentence_at = at if at > 0 and block.text[at - 1] != "\n" else 0
                # A label's words run to the end of its line: the lines under it are the writer's again.
                self.spoken = spoken and (self.spoken_lines < 0 or line_end < 0 or at < line_end)
                self.reported = reported and self.spoken
                opened = (
                    labelled.get(block.text.rfind("\n", 0, at) + 1) if labelled and at > line_end else None
                )
                if opened is not None:
                    self.spoken, self.reported = True, opened == "reported"
                self._candidate(_Candidate(sentence, sentence_quote, "sentence", heading_entity, quoted))
        self.author, self.i_am = clipped_voice
        if clipped_days is not None:
            self.heading_date = clipped_days[0]
        return self._envelope(self._skip_reason(blocks))

    def _labelled_lines(self, text: str, transcript: AbstractSet[str]) -> dict[int, str]:
        """Where each line after a paragraph's first starts, for the lines that open with someone else's
        label ("Tom Becker: I live in Lisbon."): how it opens them (see `_speaker_opens`)."""
        found: dict[int, str] = {}
        start = text.find("\n") + 1
        while start > 0:
            end = text.find("\n", start)
            line = text[start:] if end < 0 else text[start:end]
            if _LABEL_MARK.search(line, 0, 160) and not self._mine(line):
                opens = _speaker_opens(line, transcript)
                if opens is not None:
                    found[start] = opens
            start = end + 1
        return found

    def _someone_elses_heading(self, heading: str) -> bool:
        """Whether a heading says the lines under it are someone else's report ("Priya's updates", "Her
        topics", "[[Tom Becker]]'s notes"; not the writer's own, "Today's notes", "Project's status",
        nor "Mum's birthday", what the writer did)."""
        found = _THEIR_REPORT_HEADING.match(heading)
        if found is None:
            return False
        if found["owner"] is None:
            return True  # "Her topics"
        owner = found["owner"].strip("[]").split("|")[0]
        first = owner.casefold().split()[0]
        if first in _NOT_AN_OWNER or any(c.isdigit() for c in owner):
            return False  # "Today's notes", "Q2's progress", "Team's week"
        return self.i_am is None or first != self.i_am.casefold().split()[0]

    def _mine(self, text: str) -> bool:
        """Whether a line's speaker or label is the writer's own name ("Sam: I moved to Leeds" by Sam)."""
        words = text.lstrip(" \t*_>-[").split(None, 1)
        first = words[0].rstrip(":*_]").casefold() if words else ""
        return self.i_am is not None and first == self.i_am.split(None, 1)[0].casefold()

    def _passage(self, text: str) -> bool:
        """Whether a line is a passage marked in a book or article (see `_PASSAGE_LINK`)."""
        if ":" in text and _KINDLE_PASSAGE.search(text) is not None:
            return True
        if "(" not in text:
            return False
        return _PASSAGE_LINK.search(text) is not None or (
            self.about_a_work and _PASSAGE_REF.search(text) is not None
        )

    def _skip_reason(self, blocks: list[_Block]) -> str | None:
        produced = bool(self.nodes or self.entities.items or self.relations)
        if self.undated:
            return "undated event" if not produced else f"undated event ({self.undated} dropped)"
        if produced:
            return None
        if not blocks:
            return "structural: code or comments only"
        if all(block.kind == "heading" for block in blocks):
            return "structural: heading only"
        for reason in ("small talk", "navigation", "app boilerplate", "quoted", "open task", "question"):
            if self.reasons[reason]:
                return reason
        if self.language not in ("en", "fr") and (self.reasons["too short"] or self.reasons["no statement"]):
            # A German diary's lines are no "no statement": no rule reads its language.
            return f"language {self.language}, which the offline rules do not read"
        for reason in ("too short", "no statement"):
            if self.reasons[reason]:
                return reason
        return "structural"

    def _raw_quote(self, lines: list[str], block: _Block) -> str:
        return "\n".join(lines[block.first : block.last + 1]).strip()

    def _paragraph_sentences(self, block: _Block, lines: list[str]) -> list[tuple[str, str]]:
        """Each sentence of a paragraph with its quote, looked up in the lines it spans only."""
        starts = [0]
        for line in block.text.split("\n")[:-1]:
            starts.append(starts[-1] + len(line) + 1)
        found: list[tuple[str, str]] = []
        for start, end in _sentence_spans(block.text):
            first = bisect_right(starts, start) - 1
            last = bisect_right(starts, end - 1) - 1
            raw = "\n".join(lines[block.first + first : block.first + last + 1]).strip()
            sentence = block.text[start:end]
            found.append((sentence, self._quote(sentence, raw)))
        return found

    def _quote(self, text: str, fallback: str) -> str:
        """The candidate's own text when the chunk holds it verbatim, else its raw lines."""
        if text in fallback or normalize_for_match(text) in _normalized(fallback):
            return text
        return fallback

    def _heading_links(self, inline: _Inline, quote: str) -> str | None:
        """Register a heading's links as entities; return the entity when the heading is just one link."""
        names = [self._link_entity(ref, quote) for ref in inline.refs if ref.kind == "link" and ref.name]
        only = len(inline.refs) == 1 and inline.placeholder.strip() == PLACEHOLDER.format(index=0)
        return names[0] if only and names else None

    def _link_entity(self, ref: _Ref, quote: str | None, entity_type: str | None = None) -> str:
        assert ref.name is not None
        if self.i_am is not None and ref.name.casefold() in _ME:
            return self.entities.add(self.i_am, "person", quote)  # `owner: "[[Me]]"`: the writer
        aliases = (ref.alias,) if ref.alias and _is_proper_alias(ref.alias, ref.name) else ()
        return self.entities.add(ref.name, entity_type or _type_from_name(ref.name), quote, aliases)

    # -- explicit relations ---------------------------------------------------------------------

    def _chunk_date(self) -> date | None:
        return self.heading_date or self.chunk.reference_time

    def _relative_days(self, text: str, past: bool) -> list[tuple[int, int, date]]:
        """Days a note's relative words mean ("two weeks ago", "last Tuesday", "until Friday"),
        against its date.

        Read with the conversation resolver, in English or French ("lundi dernier"); only days,
        weeks and weekends: "in March" or "in 2019" in a note usually frames a fact rather than
        dating an event. A weekday or a day of the month named alone after a preposition is the
        last one in a `past` sentence, else the coming one (`_BARE_WEEKDAY`, `_BARE_MONTH_DAY`,
        `_BARE_WEEKDAY_FR`).
        """
        today = self._chunk_date()
        if today is None:
            return self._days_of_the_titles_year(text)
        if not can_count_from(today):
            return []
        found = [
            (when.start, when.end, when.first)
            for when in find_times(text, today, self.language)
            if when.granularity in ("day", "days", "week", "weekend")
        ]
        if not past:
            # A month and day without a year in a sentence not past is the nearest such day, ahead
            # or gone: "Tom is my manager from 1 July" written on 24 June is this July (the
            # resolver reads it as past: last July), "off sick until 6 Jan" written in December is
            # next January, "the minutes from 12 February" written in March this February. Not
            # "since 1 April": a start is gone.
            found = [
                (start, end, self._nearest(text, start, end, day, today))
                if _MONTH_DAY_WORDS.search(text, start, end)
                and not _FOUR_DIGITS.search(text, start, end)
                and not _SINCE_BEFORE.search(text[max(0, start - 20) : start])
                and not _RECURRING.search(text)
                else (start, end, day)
                for start, end, day in found
            ]
        else:
            # "Raised my rate to £500 from July 1", written on 24 June: a start the change sets, this
            # July's; one over half a year back in a past sentence is read ahead.
            found = [
                (start, end, _nearest_year(day, today))
                if (today - day).days > _HALF_A_YEAR
                and _FROM_BEFORE.search(text[max(0, start - 20) : start])
                and _MONTH_DAY_WORDS.search(text, start, end)
                and not _FOUR_DIGITS.search(text, start, end)
                else (start, end, day)
                for start, end, day in found
            ]
        lower = text.lower()  # the patterns hold these letters: most sentences skip them
        if self.language == "en" and past and "weekend" in lower:
            # "Fixed the router over the weekend": the weekend just gone ("We'll fix it over the
            # weekend" names none: which one is for the sentence to say).
            for match in _OVER_THE_WEEKEND.finditer(text):
                if not _overlaps_any(found, [start for start, _, _ in found], *match.span()):
                    found.append((match.start(), match.end(), last_weekend(today)[0]))
            found.sort()
        if self.language == "en" and "/" in text:
            found = self._slash_days(text, found, today, past)
        return self._bare_days(text, found, today, past)

    def _bare_times(self, text: str, times: list[When], past: bool) -> list[When]:
        """A turn's times with the weekdays and days of the month it names alone, where what is said
        tells which: "I moved to Leeds on Monday", said on a Wednesday, the last one; "She starts on
        Monday" the coming one. Else left as said: "closed until Monday", "the move dragged on until
        Tuesday, but we're in", "leaving on Friday" may be either."""
        said = self.said_at.date() if isinstance(self.said_at, datetime) else self.said_at
        if self.language != "en" or said is None or not can_count_from(said):
            return times
        if _USUAL_DAY.search(text) or _RECURS.search(text) or _NOT_ONE_DAY.search(text):
            return times  # "I always call Mum on Sunday", "I get paid on the 15th": no one day
        known = [(time.start, time.end, time.first) for time in times]
        more = [
            (start, end, day)
            for start, end, day in self._bare_days(text, list(known), said, past)
            if (start, end, day) not in known
            and (
                _STARTS_ON_BEFORE.search(text[max(0, start - 60) : start])
                or (
                    past
                    and day < said
                    and _ON_BEFORE_A_DAY.search(text[max(0, start - 8) : start])
                    and not _ON_THE_WAY_BEFORE.search(text[max(0, start - 60) : start])
                )
            )
        ]
        if not more:
            return times
        named = []
        for start, end, day in more:
            while end < len(text) and text[end].isalpha():
                end += 1  # "the 3rd" is replaced whole, ordinal and all
            named.append(When(start, end, text[start:end], day, day, "day"))
        return sorted([*times, *named], key=attrgetter("start"))

    def _bare_days(
        self, text: str, found: list[tuple[int, int, date]], today: date, past: bool
    ) -> list[tuple[int, int, date]]:
        """`found` with the weekdays and days of the month named alone after a preposition that no
        day found already covers: the last one in a `past` sentence, else the coming one."""
        lower = text.lower()
        if self.language == "fr":  # "jusqu'à jeudi": always the coming one
            weekdays = list(_BARE_WEEKDAY_FR.finditer(text)) if "di" in lower else []
            month_days: list[re.Match[str]] = []
        elif self.language == "en":
            weekdays = list(_BARE_WEEKDAY.finditer(text)) if "day" in lower or _SHORT_DAY.search(text) else []
            if weekdays and (" is " in text or " are " in text):
                # "Bin day is Thursday", "Retro is Friday as usual": a day of every week, not one ahead;
                # "Renewed my passport; my flight is Sunday", "Atlas is at risk; the review is Thursday":
                # the sentence's news is of the note's day.
                weekdays = [
                    m
                    for m in weekdays
                    if m[0][:1] not in "iIaA"
                    or not (past or _USUAL_DAY.search(text) or _CLAUSE_BREAK.search(text, 0, m.start()))
                ]
            month_days = list(_BARE_MONTH_DAY.finditer(text)) if "the" in lower else []
        else:
            return found
        if past and self.language == "en" and "day" in lower:
            # "The kit arrived Monday", "Monday: Derek announced the reorg": the last one.
            weekdays = sorted([*weekdays, *_PAST_WEEKDAY.finditer(text)], key=lambda m: m.start("day"))
        if not weekdays and not month_days:
            return found
        # Read once per sentence, not per match: a run-on transcript may name a thousand days.
        back = past and self.language == "en" and not _FUTURE.search(text)
        present = _PRESENT_STATE.search(text) is not None
        taken, starts = list(found), [start for start, _, _ in found]
        for match in weekdays:
            start, end = match.span("day")
            if _overlaps_any(taken, starts, start, end) or (match.re is _PAST_WEEKDAY and not back):
                continue
            if self.heading_week:  # "## Week of 2025-01-20 / Shipped it on Wednesday": the 22nd
                monday = today - timedelta(days=today.weekday())
                found.append((start, end, monday + timedelta(days=_WEEKDAY_NUMBERS[match["day"].lower()])))
                continue
            # "Worked there until Friday" ended last Friday; "we're closed until Friday" ends next;
            # "handed in my notice today, I start on Monday": a start still ahead is the coming one.
            earlier = (
                back
                and (match[0][:2].lower() == "on" or not present or match.re is _PAST_WEEKDAY)
                and not _STARTS_ON_BEFORE.search(text[max(0, start - 60) : start])
            )
            apart = (_WEEKDAY_NUMBERS[match["day"].lower()] - today.weekday()) % 7 or 7
            found.append(
                (start, end, today - timedelta(days=7 - apart) if earlier else today + timedelta(days=apart))
            )
        for match in month_days:
            start, end = match.span("day")
            if _overlaps_any(taken, starts, start, end):
                continue
            ahead = _STARTS_ON_BEFORE.search(text[max(0, start - 60) : start]) is not None
            day = _month_day_near(today, int(match["day"]), back=back and not ahead)
            if day is not None:
                found.append((start, end, day))
        return sorted(found)

    @staticmethod
    def _slash_days(
        text: str, found: list[tuple[int, int, date]], today: date, past: bool
    ) -> list[tuple[int, int, date]]:
        """Days written with a slash and no year after "on", "by", "due" …: "Lost to Motive on 2/28" (US)
        or "on 28/2"; one that may be either ("on 3/4") is refused. The last such day in a past
        sentence, else the nearest."""
        starts = [start for start, _, _ in found]
        for match in _SLASH_DAY.finditer(text):
            first, second = int(match["a"]), int(match["b"])
            month, day = (second, first) if first > 12 else (first, second) if second > 12 else (0, 0)
            start, end = match.span("a")[0], match.span("b")[1]
            if not 1 <= month <= 12 or _overlaps_any(found, starts, start, end):
                continue
            try:
                said = date(today.year, month, day)
            except ValueError:
                continue  # 31/2
            if not past:
                said = _nearest_year(said, today)
            elif said > today and (month, day) != (2, 29):
                said = said.replace(year=said.year - 1)
            found.append((start, end, said))
        return sorted(found)

    @staticmethod
    def _nearest(text: str, start: int, end: int, day: date, today: date) -> date:
        """The nearest such day; after "from", where something comes from, the last one unless the
        next is at most two months ahead ("Tom is my manager from 1 July", written on 24 June;
        "the changes from 5 March", written in September, are last March's)."""
        nearest = _nearest_year(day, today)
        if nearest > today and _FROM_ONLY_BEFORE.search(text[max(0, start - 8) : start]):
            return nearest if (nearest - today).days <= _SOON else day
        return nearest

    def _days_of_the_titles_year(self, text: str) -> list[tuple[int, int, date]]:
        """In a note with no date whose title names one year ("Reading log 2025", "Japan 2024"), the
        days a sentence names by month and day ("finished Jan 12") are of that year."""
        years = _TITLE_YEAR.findall(self.source.title)
        if len(set(years)) != 1 or not _MONTH_DAY_WORDS.search(text):
            return []
        end_of_year = date(int(years[0]), 12, 31)
        if not can_count_from(end_of_year):
            return []
        days = [
            (when.start, when.end, when.first)
            for when in find_times(text, end_of_year, self.language)
            if when.granularity == "day"
            and when.first.year == end_of_year.year
            and _MONTH_DAY_WORDS.search(text, when.start, when.end)
        ]
        middle = _period_middle(self.source.title)
        return [(start, end, _nearest_year(day, middle)) for start, end, day in days] if middle else days

    def _past_periods(self, text: str, wording: _Wording) -> tuple[date | None, date | None]:
        """The first day of a month or year a sentence with a relation names ("in May 2019", "in
        2019", "depuis 2020"), when it is over by the note's date, else None (the note's date
        holds); and of one it names as an end ("worked at SAP until March 2020"), else None. In a note
        without a date, a month or year named with its year ("in March 2025") dates the relation."""
        today = self._chunk_date()
        if self.said_at is not None or self.language not in ("en", "fr") or not wording.hits:
            return None, None
        undated = today is None
        if today is None:
            if not _FOUR_DIGITS.search(text):
                return None, None
            today = date(_MAX_YEAR_SAID, 12, 31)  # only the spans naming their year count, as said
        starts: list[date] = []
        ends: list[date] = []
        for when in find_times(text, today, self.language):
            if undated and not _FOUR_DIGITS.search(text, when.start, when.end):
                continue
            until = _UNTIL_BEFORE.search(text[max(0, when.start - 28) : when.start])
            if when.granularity in ("month", "year") and when.last < today:
                first = when.first
                if when.granularity == "month" and not wording.past and not undated:
                    first = self._coming_month(text, when.start, when.end, first, today)
                elif (
                    when.granularity == "month"
                    and not undated
                    and not _FOUR_DIGITS.search(text, when.start, when.end)
                    and _STARTS_AHEAD_BEFORE.search(text, max(0, when.start - 60), when.start)
                ):
                    # "Sam got a job at Shopify, starts in April": a past sentence, a start ahead.
                    first = _a_year_on(first)
                # "until the end of June": its last day.
                said_end = (
                    _period_end(first, when.granularity) if until and "end" in until[0].lower() else first
                )
                (ends if until else starts).append(said_end if until else first)
        month_end = _UNTIL_MONTH.search(text) if not ends and not undated else None
        if month_end is not None:
            # "worked for Brightline until March": the last March gone (a March ahead in a present
            # sentence: "I live in Leeds until March"), to its end when said so.
            month = _MONTHS[month_end["month"].lower().rstrip(".")]
            year = (
                today.year
                if (month <= today.month) == wording.past or month == today.month
                else (today.year - 1 if wording.past else today.year + 1)
            )
            first = date(year, month, 1)
            ends.append(_period_end(first, "month") if month_end["end"] else first)
        if _YEARS_SAID.search(text) and not _ANOTHER_CLAUSE.search(text):
            # "from 2018 to 2020", "2018–2020", "until 2020": years said bare, which `find_times` leaves
            # alone (a bare number may be anything), are years here.
            span = _YEAR_SPAN.search(text)
            last = (
                int(span["last"])
                if span
                else int(until_year["last"])
                if (until_year := _UNTIL_YEAR.search(text))
                else 0
            )
            if span and not starts and int(span["first"]) <= last:
                starts.append(date(int(span["first"]), 1, 1))
            if 0 < last < today.year and not ends:
                ends.append(date(last, 1, 1))
        return (starts[0] if starts else None), (ends[0] if ends else None)

    def _ahead_in_a_turn(self, title: str, time: When, past: bool = False) -> When:
        """A time named by its month without its year, in a turn's sentence not in the past, as the
        coming one when a verb right before it points ahead: "I start there on 3 June", "we're moving
        to Bristol in July", "my last day is 31 May", said in March, are this year's (the resolver reads
        such a time as the last one, as a story tells), while "the photos from our trip in August" and
        "the crash on 3 February" stay behind."""
        today = self._chunk_date()
        if today is None or time.last >= today or _FOUR_DIGITS.search(time.text):
            return time  # still to come or going on, or said with its year
        if _MONTH_NAMED.search(time.text) is None:
            return time  # "this month", "last Friday": relative words say which one
        before = title[max(0, time.start - 60) : time.start]
        if _RESCHEDULED_BEFORE.search(before):
            return moved_to(time, _nearest_year(time.first, today))  # "moved the launch to May 6th"
        if past:
            # In a past sentence only a start still ahead, in the present: "got the job, start on 1st
            # april" (not "I booked the tickets on 1st March", "we were flying on 2nd March").
            return moved_to(time, _a_year_on(time.first)) if _STARTS_AHEAD_BEFORE.search(before) else time
        # "saturday 6th april", said in March 2024: the 6 April that is a Saturday is the coming one.
        weekday = _WEEKDAY_BEFORE.search(before) if time.granularity == "day" else None
        if weekday is not None:
            named = _WEEKDAY_NUMBERS[weekday["day"].lower()]
            ahead = _a_year_on(time.first)
            if time.first.weekday() != named and ahead.weekday() == named:
                return moved_to(time, ahead)
        if _BEHIND_BEFORE.search(before[-40:]) or not _POINTS_AHEAD_BEFORE.search(before):
            return time
        return moved_to(time, _a_year_on(time.first))

    @staticmethod
    def _coming_month(text: str, start: int, end: int, first: date, today: date) -> date:
        """A month named without its year in a sentence not in the past: the nearer of last year's
        and the coming one ("Tom is the new CTO of Acme starting in May", written in April, is this
        May), unless "since" or "as of" says it is behind ("she has been at Figma since May", "the CTO
        since the beginning of September")."""
        if _FOUR_DIGITS.search(text, start, end) or _BEHIND_BEFORE.search(text[max(0, start - 40) : start]):
            return first
        if _AHEAD_VERB.search(text, 0, start):
            # "Tom starts working at Monzo in September", written in January: the coming September.
            return first.replace(year=first.year + 1)
        now = today.year * 12 + today.month
        behind = now - (first.year * 12 + first.month)
        return first.replace(year=first.year + 1) if 12 - behind < behind else first

    def _inline_field(self, block: _Block, quote: str) -> None:
        """`uses:: [[Klipper]]`: the note is the subject, the key the predicate."""
        field_match = _FIELD.match(block.text)
        assert field_match is not None
        self._field(field_match.group("key"), field_match.group("value"), quote)

    def _field(self, key: str, value: str, quote: str) -> None:
        """Relate the note to a field's values (wikilinks, else bare names), the key as predicate."""
        key = key.strip()
        predicate = _snake(key)
        if predicate is None or key.lower() in _SKIPPED_KEYS or key.lower() in _DATE_KEYS:
            return
        inline = _analyse(value)
        objects = [
            self._link_entity(ref, quote, _key_type(key, ref.name))
            for ref in inline.refs
            if ref.name and ref.kind == "link"
        ]
        if not inline.refs:
            for part in value.split(","):
                name = " ".join(part.strip().strip("\"'").split())
                if _is_bare_name(name) and not find_dates(name, None):
                    objects.append(self.entities.add(name, _key_type(key, name), quote))
        subject = self._note_subject(quote) if objects else None
        if subject is None:
            return
        label = predicate.replace("_", " ")
        for name in objects:
            if name.casefold() != subject.casefold():
                self._relation(
                    subject,
                    predicate,
                    label,
                    name,
                    f"{subject} {label} {name}",
                    FIELD_CONFIDENCE,
                    quote,
                    self._chunk_date(),
                )

    def _relation_item(self, block: _Block, quote: str) -> None:
        """`- part_of [[Project Atlas]]` (basic-memory): the note is the subject."""
        item = _RELATION_ITEM.match(block.text)
        assert item is not None
        words = item.group("predicate").split()
        name, _display, alias = _parse_link(item.group("target"))
        if words[0] in _NOT_PREDICATES or name is None:
            self._candidate(_Candidate(block.text, quote, "item"))
            return
        predicate = "_".join(words)
        object_name = self.entities.add(
            name, _type_from_name(name), quote, (alias,) if alias and _is_proper_alias(alias, name) else ()
        )
        subject = self._note_subject(quote)
        if subject is not None and object_name.casefold() != subject.casefold():
            label = predicate.replace("_", " ")
            self._relation(
                subject,
                predicate,
                label,
                object_name,
                f"{subject} {label} {object_name}",
                FIELD_CONFIDENCE,
                quote,
                self._chunk_date(),
            )

    def _relation(
        self,
        subject: str,
        predicate: str,
        label: str,
        object_name: str,
        statement: str,
        confidence: float,
        quote: str | None,
        valid_at: date | None,
        invalid_at: date | None = None,
    ) -> None:
        key = (subject.casefold(), predicate, object_name.casefold(), invalid_at)
        if key in self.relation_keys:
            earlier = self.relations[self.relation_keys[key]]
            if earlier["valid_at"] is None and valid_at is not None:
                # "Zoe worked at SAP before. Zoe still works at SAP.": it holds now, from this date.
                self.relations[self.relation_keys[key]] = {**earlier, "valid_at": valid_at}
            return
        self.relation_keys[key] = len(self.relations)
        self.relations.append(
            {
                "subject": subject,
                "predicate": predicate,
                "label": label,
                "object": object_name,
                "statement": _cut_at_word(statement, 300, ellipsis=True),
                "confidence": confidence,
                "supporting_text": around(quote, object_name),
                "valid_at": valid_at,
                "invalid_at": invalid_at,
            }
        )

    # -- candidates -----------------------------------------------------------------------------

    def _candidate(self, candidate: _Candidate) -> None:
        if candidate.text[:1] in _DATE_PROPERTY_STARTS and _DATE_PROPERTY.match(candidate.text):
            self.reasons["structural"] += 1  # "Created: March 25, 2025 4:12 PM": when the note was made
            return
        inline = _analyse(candidate.text)
        size = inline.word_count
        navigation = bool(inline.refs) and (
            _is_navigation(inline) or _TAGS_LINE.match(candidate.text) is not None
        )
        company = _met_links(inline.placeholder) if "\ue000" in inline.placeholder else _NO_LINKS
        names = (
            []
            if navigation
            else [
                # Not a bank or a network one phoned ("Called [[British Gas]] about the boiler").
                self._link_entity(
                    r,
                    candidate.quote,
                    "likely_person" if index in company and not is_provider(r.name) else None,
                )
                for index, r in enumerate(inline.refs)
                if r.name and r.kind == "link"
            ]
        )
        if not size:
            self.reasons["structural"] += 1
            return
        if candidate.text.rstrip().endswith(":"):
            self.reasons["no statement"] += 1  # it introduces what follows (a list, a code block)
            return
        if self.listing is not None and candidate.kind == "item" and self._listed(inline, candidate):
            return  # "## Team / - [[Sam Ortiz]] (lead)": what it says is the relation, not a fact of its own
        if (
            self.medicines is not None
            and candidate.kind == "item"
            and self._medicine_listed(inline, candidate)
        ):
            return  # "## Current / - Sertraline 50mg, mornings (since Oct 2024)": taken
        if navigation:
            self.reasons["navigation"] += 1
            return
        if _APP_BOILERPLATE.match(inline.placeholder):
            self.reasons["app boilerplate"] += 1
            return
        if size <= 6 and _SMALL_TALK.match(inline.title):
            self.reasons["small talk"] += 1
            return
        for linked in self.linked_names:
            if linked in inline.title and _mentions(inline.title, linked):
                names.append(self.entities.add(linked, None, candidate.quote))
        # "Had lunch with Kenji and Aisha.": whom the writer met, named without a link (entities only
        # if the sentence says something: "Dinner with Neighbours, lovely evening." makes no page).
        met = people_met(inline.placeholder, self.i_am)
        met_at = len(names)

        # In a person's note, "Works at the BBC." and "She is married to [[Hugo]]." are about them.
        if self.person_note:
            kin = _MY_KIN.match(inline.placeholder)
            if kin is not None and not self._kin_of_the_writer():
                kin = None
            read = self._about_the_person(inline, kin=kin)
            if kin is not None:
                # "My mum." in her note: "Called Mum" in a diary is her ("My wife." names no one else).
                called = (kin["kin"].capitalize(),) if kin["kin"] else ()
                self.entities.add(self.source.title, "person", candidate.quote, called)
        elif (
            self.chunk.heading_path
            and _PERSON_FIELD.match(inline.placeholder)
            and (_PEOPLE_PAGE.search(self.source.title) or self.chunk.heading_path[-1].startswith("[["))
        ):
            # A team wiki's "## Ana Souza" / "Location: Lisbon": the label lines under a person's name.
            named = _full_name(_analyse(self.chunk.heading_path[-1]).title)
            read = self._about_the_person(inline, named[0], fields_only=True) if named else inline
        else:
            read = inline
        if " and " in read.placeholder:
            # "Mia lives in Lisbon and works at Google": the second verb's subject said again, for reading.
            shared = _SHARED_SUBJECT.match(read.placeholder)
            if shared is not None:
                at = shared.end()
                read = replace(
                    read, placeholder=f"{read.placeholder[:at]}{shared['subject']} {read.placeholder[at:]}"
                )
        if read.placeholder[:3] in ("My ", "my "):
            parent = _MY_PARENT_DOES.match(read.placeholder)
            if parent is not None:
                # "My mum takes metformin": Mum, as the diary calls her (padded: every position stays).
                word = parent["kin"].capitalize()
                at = parent.end()
                read = replace(read, placeholder=" " * (at - len(word)) + word + read.placeholder[at:])
        if "(" in read.placeholder or (", " in read.placeholder and _ASIDE_COMMA.search(read.placeholder)):
            # "Alex (my husband) works at Boeing", "Alex, my husband, works at Boeing": read without
            # the aside (blanked, so every position stays where it was).
            blanked = _ASIDE.sub(lambda aside: " " * len(aside[0]), read.placeholder)
            if blanked != read.placeholder:
                read = replace(read, placeholder=blanked)
        wording = _wording(read.placeholder, self.french)
        if self.said_at is not None:
            self.times = find_times(inline.title, self.said_at)
            # "I'm getting married in June, Tom proposed!", "got the job at Deloitte, start on 1st
            # april": what a verb right before a time points to is ahead, though the rest is past.
            past = wording.past and not _own_news(read.placeholder)
            self.times = _ranges_run_forward(
                inline.title, [self._ahead_in_a_turn(inline.title, time, past) for time in self.times]
            )
            self.times = self._bare_times(inline.title, self.times, past)
            dates = [(time.start, time.end, time.first) for time in self.times]
        else:
            dates = find_dates(inline.title, self._chunk_date(), languages=self.date_languages)
            # "Dinner with Ana on Feb 12 (not tomorrow as planned)": a word denied names no day.
            dates = [d for d in dates if not _DENIED_BEFORE.search(inline.title, max(0, d[0] - 5), d[0])]
            if (
                dates
                and self.language in ("en", "fr")
                and not any(_FOUR_DIGITS.search(inline.title, a, b) for a, b, _ in dates)
                and _MONTH_DAY_WORDS.search(inline.title)
            ):
                # Only relative words: a month and day said beside them comes first where it comes first.
                more = self._relative_days(inline.title, wording.past)
                starts = [a for a, _, _ in dates]
                dates = sorted([*dates, *(d for d in more if not _overlaps_any(dates, starts, d[0], d[1]))])
            if not dates and self.language in ("en", "fr"):
                dates = self._relative_days(inline.title, wording.past)
            if dates and inline.refs:
                dates = _not_linked_words(inline, dates)
            dates = _range_firsts(inline.title, dates)
        if dates and not wording.past and _RECURS.search(inline.title):
            # "Mortgage payment goes out on the 1st every month": no one day, a habit (not "Our weekly
            # 1:1 is on Thursday", nor "I start on 17 March and will work from home every Tuesday").
            dates = [d for d in dates if not _recurs_around(inline.title, d[0], d[1])]
        ahead = self._reported_ahead(inline.title, dates, wording)
        if ahead:
            dates = [ahead.get(d, d) for d in dates]
        today = self._chunk_date()
        # "Postponed the launch to April 15", "decided to ship on Friday": a date something is
        # moved to, due by or meant for is not when the sentence's event happened; the note's is.
        happened = [
            d
            for d in dates
            if not _TARGET_BEFORE.search(inline.title[max(0, d[0] - 24) : d[0]])
            and not _MOVED_TO_BEFORE.search(inline.title[max(0, d[0] - 64) : d[0]])
            and not (
                # Booked for a weekday, or for a day long gone by the resolver's count: a day ahead
                # ("Signed up for the gym on 2 March", written on the 4th, was signing up then).
                today is not None
                and not _FOUR_DIGITS.search(inline.title, d[0], d[1])
                and (
                    (
                        _WEEKDAY_WORD.search(inline.title, d[0], d[1]) is not None
                        and _BOOKED_BEFORE.search(inline.title[max(0, d[0] - 90) : d[0]])
                    )
                    or (
                        (today - d[2]).days > _JUST_GONE
                        and _MONTH_DAY_WORDS.search(inline.title, d[0], d[1]) is not None
                        # "Flights booked: Lisbon 24 April", "Bought train tickets to Paris, 5 May":
                        # however the day is put after the booking, it is what was booked (not "Registered
                        # the car on March 3", "Went to the concert on 3 March that Tom booked").
                        and (
                            _BOOKED_BEFORE.search(inline.title[max(0, d[0] - 90) : d[0]])
                            or (
                                _BOOKING.search(inline.title, 0, d[0])
                                and not _ON_BEFORE_A_DAY.search(inline.title[max(0, d[0] - 12) : d[0]])
                            )
                        )
                    )
                )
            )
            and not (
                _INTENT_BEFORE.search(inline.title[max(0, d[0] - 60) : d[0]])
                and not _PAST_POINTING.search(inline.title[d[0] : d[1]])
            )
        ]
        # "Omar is out sick until Thursday", "we're closed until Monday": the day ahead a present
        # state lasts until is its end; the note's day is when it was so.
        lasting = [
            d
            for d in happened
            if today is not None
            and d[2] > today
            and _UNTIL_BEFORE.search(inline.title[max(0, d[0] - 12) : d[0]])
        ]
        if lasting and wording.past and not _PRESENT_STATE.search(inline.placeholder):
            lasting = []  # "Worked there until Friday": what ended, not what lasts
        if wording.past and today is not None:
            # "Dad called, he's coming next week": what is past did not happen on a day after the
            # note's that only the note's day gives (a date with its year says what it says).
            happened = [
                d
                for d in happened
                if d[2] <= today
                or _FOUR_DIGITS.search(inline.title[d[0] : d[1]])
                or d in ahead.values()
                # Under "## Week of 2025-01-20", that week's Wednesday.
                or (self.heading_week and d[2] <= today + timedelta(days=6 - today.weekday()))
            ]
        if (
            happened
            and today is not None
            and (_MEAL_WITH.match(inline.title) or _SOCIAL_ACT.match(inline.title))
        ):
            # "Called Mum, her knee op is on March 18.", "Lunch w/ James — he runs Brighton on 6 April.":
            # time with someone is that day's episode; a day ahead their news names is what they told
            # then (not "Called Mum, we're visiting on Sunday": the writer's own plan dates the line).
            happened = [d for d in happened if d[2] <= today or not _their_news_before(inline.title, d[0])]
        if happened and today is not None and wording.past:
            # "Fixed the bug that was reported on March 3.", "Replaced the boiler, the old one broke
            # down yesterday.": the day of what a later clause tells, not of what the sentence did.
            main = _SUBORDINATE.search(inline.title)
            if (
                main is not None
                and all(
                    d[0] >= main.start()
                    and d[2] < today
                    and not _FOUR_DIGITS.search(inline.title, d[0], d[1])
                    for d in happened
                )
                and _wording(inline.title[: main.start()], self.french).past
            ):
                happened = []
        if self.said_at is not None and self.times and today is not None:
            # A turn's title says its days with their years: a day ahead the sentence is dated by, and
            # a day booked for, are the coming ones.
            coming = {(a, b): day for a, b, day in ahead.values() if (a, b, day) in happened}
            self.times = booked_ahead(
                inline.title,
                [
                    moved_to(time, coming[time.start, time.end]) if (time.start, time.end) in coming else time
                    for time in self.times
                ],
                today,
            )
        ends = [d for d in happened if _UNTIL_BEFORE.search(inline.title[max(0, d[0] - 12) : d[0]])]
        node_date = next((d[2] for d in happened if d not in lasting), today)
        secret = self.heading_secret or (
            self.secrets
            and (bool(find_secrets(candidate.text)) or any(v in candidate.text for v in self.values))
        )

        # "I moved to Paris in May 2019", written in 2025: the relation starts in May 2019, not on
        # the note's day (the node stays the note's: when it was written down).
        period, period_end = self._past_periods(inline.title, wording) if not happened else (None, None)
        relations = self._pattern_relations(
            read,
            candidate,
            wording,
            period or node_date,
            dated_here=len(ends) < len(happened),
            until=ends[0][2] if ends else period_end,
            # A past state's start, where said as one ("from 2017 to 2021"; not "Back in 2019, …").
            since=period if period is not None and _FROM_A_TIME.search(inline.title) else None,
        )
        for subject, _predicate, object_name, _functional in relations:
            names.extend((subject, object_name))
        until = lasting[0][2] if lasting else None
        outcome = self._classify(read, candidate, wording, dates, relations, secret, node_date, until)
        # Fragments (under 4 words) say nothing, but a short event ("Printed a benchy"), a relation
        # ("Bob uses Vim") or a secret ("E-mail: d@x.org") still counts.
        shortest = (
            2
            if secret or outcome.brief
            else 3
            if relations or outcome.type in ("observation", "decision")
            else 4
        )
        if outcome.layer is None or size < shortest:
            if outcome.layer is not None or (outcome.reason == "no statement" and size < 4):
                self.reasons["too short"] += 1
            elif outcome.reason == "undated event":
                self.undated += 1
            else:
                self.reasons[outcome.reason] += 1
            return
        names[met_at:met_at] = [self.entities.add(name, kind, candidate.quote) for name, kind in met]
        if self.source.meta and (attendees := self._attendees()):
            # A meeting's "Anna walked through the cloud spend" is its attendee Anna Kowalski's, not
            # another Anna the notes know (the one attendee of that first name).
            for full in _attendees_named(inline.title, attendees):
                if full not in names and full.split()[0] not in names:  # not "[[Theo]]", linked as another
                    names.append(self.entities.add(full, "person", candidate.quote))
        if outcome.type == "state" and (news := _own_news(read.placeholder) or _their_move(read.placeholder)):
            # "We're moving to Leeds in May", "I'm starting at Google", "Bob is moving to Berlin": who
            # and where the news takes them.
            for group, where in news.groupdict().items():
                name = clean_name(where, self.known) if where and "\ue000" not in where else None
                kind = _NEWS_KINDS.get(group)
                # "Our team is moving to Postgres": no place.
                if (
                    name is not None
                    and group in _NEWS_KINDS
                    and (kind != "likely_place" or could_be_home(name))
                ):
                    names.append(self.entities.add(name, kind, candidate.quote))
        if outcome.type == "state" and (care := _IN_CARE.match(read.placeholder)) is not None:
            # "Mum's in hospital", "Sarah's in labour": who is, a person.
            who = _CARED_FOR.fullmatch(care["who"])
            if who is not None and (name := clean_name(who[0], self.known)) is not None:
                names.append(
                    self.entities.add(name, "person" if who["kin"] else "likely_person", candidate.quote)
                )
        # "Got an offer from Revolut", "Interviewed at Canva today": an employer, or one that may be.
        if (
            (hunt := _job_hunt(read.placeholder)) is not None
            and "\ue000" not in hunt["employer"]
            and (employer := clean_name(hunt["employer"], self.known)) is not None
        ):
            names.append(self.entities.add(employer, "likely_organization", candidate.quote))
        if candidate.heading_entity and (secret or outcome.type == "fact") and candidate.kind == "item":
            names.insert(0, candidate.heading_entity)
        confidence = "low" if wording.hedged else "high" if relations else "medium"
        day = self._chunk_date() if outcome.dated_by_note else outcome.day or node_date
        if self.person_note and not names and (candidate.kind == "row" or _LABEL_LINE.match(inline.title)):
            # "| Email | jose@example.com |", "Email: jose@…" in José's note: his, though they name no one.
            names.append(self._note_entity(candidate.quote))
        self._node(inline, candidate, outcome, confidence, day, names, secret)

    def _pattern_relations(
        self,
        inline: _Inline,
        candidate: _Candidate,
        wording: _Wording,
        node_date: date | None,
        *,
        dated_here: bool,
        until: date | None = None,
        since: date | None = None,
    ) -> list[tuple[str, str, str, bool]]:
        """Record what the verb-pattern table reads; return (subject, predicate, object, functional).

        A guess in the relation's own clause ("Perhaps Anna works at Meta"), a question, a
        supposition, a denial or someone else's claim gives no relation: a relation is taken as so,
        and a functional one ends the value before it; a guess elsewhere in the sentence lowers
        its confidence. A past state ("Zoe worked at SAP") had ended when the note was written (or
        `until` a date it gives), and began at no date the note gives, unless the sentence gives one.
        """
        found: list[tuple[str, str, str, bool]] = []
        confidence = HEDGED_CONFIDENCE if wording.hedged else PATTERN_CONFIDENCE
        stated: set[tuple[str, str, str, bool]] = set()
        # What holds now before what held once: "worked at SAP … works at SAP again" is dated now.
        for hit in sorted(wording.hits, key=lambda hit: hit.past_state):
            if not is_asserted(inline.placeholder, hit) or self.reported:
                continue
            if _INSIDE_A_PLACE.search(inline.placeholder, max(0, hit.start - 60), hit.start):
                continue  # "My sister in New York works at Pfizer": "York" is no one
            if _RELATIVE_BEFORE.search(inline.placeholder, max(0, hit.start - 40), hit.start):
                continue  # "The guy who replaced Tom works at Google": Tom is who was replaced
            if _CORRECTED_AFTER.match(inline.placeholder, hit.end):
                continue  # "Lucia lives in Braga, no wait, in Guimarães": taken back as it is said
            # The match may start at the "that" before its subject ("that Tom works at …").
            said_to = (
                hit.start + 5 if inline.placeholder.startswith(("that ", "That "), hit.start) else hit.start
            )
            if _WROTE_THAT.search(inline.placeholder, max(0, hit.start - 80), said_to):
                continue  # "I wrote on 3/1 that Tom works at Meta": what was written, not so
            clause_start, clause_end = hit_clause(inline.placeholder, hit)  # read once, asked below
            if _REPORTED_BEFORE_COLON.search(inline.placeholder[:clause_start]):
                continue  # "Ana told me: Tom works at Google now": her claim
            if hit.pattern.first_person and (
                candidate.quoted
                or self.spoken
                or not opens_its_clause(inline.placeholder, hit)
                or (
                    _someone_elses_words(inline.placeholder[:clause_start])
                    and not self._mine(inline.placeholder)
                )
            ):
                # Someone else's "I" (a quotation, "Ana texted me: I just started at Stripe!"), or
                # what was assumed, told or dreamt.
                continue
            if wording.hedged:
                clause = inline.placeholder[clause_start:clause_end]
                if _HEDGE.search(clause, frozenset(word.lower() for word in _TOKENS.findall(clause))):
                    continue  # "Perhaps Anna works at Meta": a guess, and it would end what is known
            if _NAMES_AND_AN_AMPERSAND.search(inline.placeholder, 0, hit.start):
                continue  # "Linley & Simpson manages …": a firm's name, or two people's, not Simpson's
            # "I work at SAP" is its speaker's, or the note's author's; nobody's in an unsigned note.
            pattern = hit.pattern
            subject = (
                self.i_am
                if pattern.first_person
                else self._resolve(
                    _after_a_diary_verb(hit, wording), inline, person=pattern.subject_type == "person"
                )
            )
            object_name = (
                self.i_am  # `{ME}`: "Ravi reports to me"
                if hit.object in ("me", "m")
                else self._resolve(hit.object, inline, person=pattern.object_type == "person")
            )
            if subject is None or object_name is None or subject.casefold() == object_name.casefold():
                continue
            if pattern.object_test is not None and not pattern.object_test(object_name):
                continue  # "I moved to Obsidian" is no new home
            if pattern.software and not _a_software_switch(
                subject, hit.old, object_name, moved=pattern.subject_type == "software"
            ):
                continue  # "Switched the Golf from Admiral to Aviva", "Moved Grandma to the Willows"
            if pattern.predicate == "takes" and not hit.subject and not self._writers_own_health_line(inline):
                continue  # "Started metformin today." in Dad's log, a pet's note, under "## Mum": not theirs
            if pattern.predicate == "takes":  # "sertraline 50mg": the medicine, named as a name
                object_name = medicine_name(object_name)
            if pattern.predicate == "runs":
                last = object_name.casefold().split()[-1]
                if last in _RACE_WORDS:
                    continue  # "Kelly ran the Boston Marathon": a race run, nothing running
                if (last in _BODY_WORDS or last in _BUSINESS_WORDS) and not (
                    # "Tom runs Android Studio", "The Mac runs Final Cut Studio": software.
                    is_software(object_name)
                    or is_software(object_name.split()[0])
                    or is_running_thing(subject)
                ):
                    # "Hannah runs Meeple Mates", "Ines runs Kelp Robotics": a body of people is led.
                    pattern = replace(
                        pattern,
                        predicate="leads",
                        label="leads",
                        functional=False,
                        subject_type="person",
                        object_type="organization",
                        subject_test=None,  # "Mum runs Sunrise Bakery": a family word leads one too
                    )
            if pattern.subject_test is not None and not pattern.subject_test(subject):
                continue  # "Dr. Shah switched Dad to Eliquis": Dad runs no software
            if hit.listed and pattern.functional and not SIDE_BY_SIDE[pattern.predicate](object_name):
                continue  # "runs Plex and Pi-hole" lists two services; "runs Marlin and Klipper" no system
            if "upgraded" in pattern.keywords and _one_family(subject, object_name):
                continue  # "Upgraded Postgres 14 to Postgres 16": a new version, no host of the old
            subject = self.entities.add(
                subject,
                _end_type(hit.subject, pattern.subject_type) or _type_from_name(subject),
                candidate.quote,
            )
            object_name = self.entities.add(
                object_name,
                _end_type(hit.object, pattern.object_type) or _type_from_name(object_name),
                candidate.quote,
            )
            # "Zoe worked at SAP before and now works at SAP again": the past and the present both count.
            if (subject, pattern.predicate, object_name, hit.past_state) in stated:
                continue
            stated.add((subject, pattern.predicate, object_name, hit.past_state))
            statement = inline.title
            valid_at, invalid_at = node_date, None
            if node_date is not None:  # "Ravi lives in Amsterdam but is moving to Utrecht in May"
                valid_at = self._own_clauses_day(inline.placeholder, hit, node_date, wording) or node_date
                if len(wording.hits) > 1:
                    # "I've lived in Verdun since 20 May 2024, and worked at Datadog since 22 April
                    # 2024": each relation from the day its own clause says.
                    valid_at = self._clause_since(inline.placeholder, hit.end, clause_end) or valid_at
            if (
                pattern.functional
                and not pattern.ends
                and _ALSO.search(inline.placeholder, hit.start, clause_end)
                and not (pattern.predicate in SIDE_BY_SIDE and SIDE_BY_SIDE[pattern.predicate](object_name))
            ):
                # "Ana also works at Gail's on weekends" (a second job) or "Jonas also works at Stripe"
                # (like Ana): said at no date, it ends nothing; beside a current value, review asks.
                valid_at = None
            if pattern.ends:
                if node_date is None:
                    continue  # "I quit my job at Acme" on no date: when it ended is unknown
                valid_at, invalid_at = None, node_date
            elif pattern.predicate in TIMELESS_PREDICATES or pattern.undated:
                valid_at = None  # "Tom is Ana's brother", "my husband Tom": not begun on the note's day
            elif (
                pattern.predicate == "founded"
                and not dated_here
                and node_date == self._chunk_date()
                and "founded" in inline.placeholder[hit.start : hit.end]
            ):
                valid_at = None  # "Phil Knight founded Nike": history read, not begun on the note's day
            elif hit.past_state and not dated_here:
                # It held before the note; when it began, and whether it still holds ("worked at
                # Google all week"), the words do not say, unless "until" gives its end (and "from
                # 2017 to 2021" its start).
                valid_at, invalid_at = since, until
                if until is None and _FOR_A_SPAN.match(inline.placeholder, hit.end):
                    # "Dad worked at Boeing for 30 years": over by the time it was written, at the latest.
                    invalid_at = self._chunk_date()
            elif (
                until is not None
                and valid_at is not None
                and until > valid_at
                and pattern.functional
                # In its own clause: not "Ana works at Stripe but is on leave until 3 April".
                and _UNTIL_WORD.search(inline.placeholder, hit.end, clause_end)
            ):
                invalid_at = until  # "I live in London until the end of June": its end, said ahead
            if pattern.functional and invalid_at is None:
                # "Deb joined Acme as a designer in 2020 but left in 2022": over since then.
                left = self._left_later(inline.placeholder[hit.end :], valid_at)
                if left is not None:
                    invalid_at = left
            self._relation(
                subject,
                pattern.predicate,
                pattern.label,
                object_name,
                statement,
                confidence,
                candidate.quote,
                valid_at,
                invalid_at,
            )
            found.append((subject, pattern.predicate, object_name, pattern.functional))
            # "switched X from A to B": A stopped on that date; without a date nothing true can be said.
            old = self._resolve(hit.old, inline) if hit.old and node_date else None
            if pattern.predicate == "takes" and hit.old and node_date:  # "from warfarin to apixaban"
                old = medicine_name(hit.old) if is_medicine(hit.old) else None
            if old is not None and old.casefold() not in (subject.casefold(), object_name.casefold()):
                old = self.entities.add(old, pattern.object_type or _type_from_name(old), candidate.quote)
                self._relation(
                    subject,
                    pattern.predicate,
                    pattern.label,
                    old,
                    statement,
                    confidence,
                    candidate.quote,
                    None,
                    node_date,
                )
        return found

    def _listed(self, inline: _Inline, candidate: _Candidate) -> list[tuple[str, str, str, bool]]:
        """An item of a project's `## Stack` or `## Team` list: the project uses what it names first
        ("Postgres 16 for storage"), whom it names first is a member of it ("[[Ravi]] — backend")."""
        listing = self.listing
        assert listing is not None
        when = self._chunk_date()
        text = inline.placeholder
        if _LISTED_HEDGE.search(text):
            return []  # "Queue: SQS (planned)", "Cache: Redis — maybe later", "Search: Meilisearch?"
        loose = _LISTED_ANY_LABEL.match(text)
        if loose is not None and _LISTED_NOT.match(loose["value"]):
            return []  # "Queue: none", "Database: not decided yet", "Design: hiring"
        labelled = _LISTED_LABEL.match(text)
        label = labelled["label"].casefold() if labelled is not None else ""
        gone_label = label.split(None, 1)[0] in _LISTED_PAST if label else False
        if (
            labelled is not None
            and (
                label in _LISTED_CATEGORIES
                or gone_label
                # "message broker: Kafka", "Reviewer: [[Ana]]", "Notifications: Twilio" (not "Postgres:
                # Primary store", "Ravi Kumar: Backend lead").
                or (
                    labelled["colon"]
                    and (
                        labelled["label"][0].islower()
                        or "\ue000" in labelled["value"][:3]
                        or is_known_tool(_listed_parts(labelled["value"])[0].strip(" *"))
                        or _a_kind_of_part(labelled["label"])
                    )
                )
            )
        ):
            # "Database: Postgres 16", "Lead: [[Ana]]", "Hosting — Fly.io": the label says what for.
            if label in _LISTED_NONE:
                return []
            text = labelled["value"]
            parts = _listed_parts(text, people=listing == "member_of")
        elif loose is not None and (
            loose["label"].casefold() in _LISTED_CATEGORIES or loose["label"][:1].islower()
        ):
            return []  # "Frontend: htmx": the label names nothing, what it labels is no name
        else:
            parts = _listed_parts(text, people=listing == "member_of")  # "Postgres, Redis"
        if _LISTED_NOT.match(text):
            return []  # "Not using Kubernetes", "Considering Temporal", "TBD — frontend"
        now = _LISTED_NOW.match(text)
        if now is not None:  # "Previously MySQL, now Postgres 16": what it uses now
            parts = [now["now"]]
        matches = [_LISTED_NAME.match(part.lstrip()) for part in parts]
        names = [self._resolve(found.group(0), inline) for found in matches if found]
        named_all = [
            n
            for n in names
            if n is not None
            and n.casefold() != self.source.title.casefold()
            and (not self.software_only or is_software(n))
        ]
        if not named_all:
            return []
        note = self._note_entity(candidate.quote)
        gone: tuple[date | None, date | None] | None = None
        span = _YEAR_SPAN.search(inline.title)
        if gone_label or span or _LISTED_GONE.search(inline.title):
            # "[[Ravi Kumar]] — backend (left 2024)", "(until March 2024)", "Former: [[Tom]] (left
            # 2023)", "Lead: Ana (2019–2021)": no more, from then; when nothing says, not said to hold.
            ended = date(int(span["last"]), 1, 1) if span else self._gone_since(inline.title)
            if ended is None:
                return []
            gone = (None, ended) if when is None or ended <= when else (when, None)  # "(on leave until June)"
        found_relations = []
        for named in named_all:
            found_relations.append(self._listed_one(listing, named, note, candidate, gone or (when, None)))
        return found_relations

    def _medicine_listed(self, inline: _Inline, candidate: _Candidate) -> bool:
        """An item of a list of medicines: whose the note is (a person's or a pet's, else the writer)
        takes the medicine it opens with ("Sertraline 50mg, mornings (since Oct 2024)"), from the day
        it names, or took it over the years it names ("Propranolol 10mg (2022–2023)"); a stopped one
        only when said."""
        listed = _LISTED_MEDICINE.match(inline.placeholder)
        if (
            listed is None
            or not is_medicine(" ".join(listed[0].casefold().split()))
            or listed["drug"].casefold() in _MONTHS  # "April: switched to Ramipril"
            or inline.placeholder[listed.end() :].lstrip().startswith(":")
        ):
            return False
        subject = self._note_entity(candidate.quote) if self.medicines_of_the_note else self.i_am
        if subject is None:
            return False
        span = _YEAR_SPAN.search(inline.title)
        named = self._times_named(inline.title[listed.end() :])
        if span is not None:
            valid: tuple[date | None, date | None] = (
                date(int(span["first"]), 1, 1),
                date(int(span["last"]), 1, 1),
            )
        elif self.medicines == "stopped":
            if not named:
                return False  # no more taken, since when not said: nothing true to say
            valid = (None, named[-1])
        else:
            valid = (named[0] if named else self._chunk_date(), None)
        medicine = self.entities.add(medicine_name(listed["drug"]), "medication", candidate.quote)
        if self.medicines_of_the_note:
            self.entities.add(subject, "person" if self.person_note else None, candidate.quote)
        else:
            subject = self.entities.add(subject, "person", candidate.quote)
        self._relation(
            subject, "takes", "takes", medicine, f"{subject} takes {medicine}.", PATTERN_CONFIDENCE,
            candidate.quote, *valid,
        )  # fmt: skip
        return True

    def _listed_one(
        self,
        listing: str,
        named: str,
        note: str,
        candidate: _Candidate,
        valid: tuple[date | None, date | None],
    ) -> tuple[str, str, str, bool]:
        """One relation of a `## Stack` or `## Team` item: the note uses it, or it is a member of the note."""
        if listing == "uses":
            subject, obj = note, self.entities.add(named, _type_from_name(named), candidate.quote)
        else:
            subject, obj = self.entities.add(named, "person", candidate.quote), note
        label = listing.replace("_", " ")
        statement = f"{subject} uses {obj}." if listing == "uses" else f"{subject} is a member of {obj}."
        self._relation(subject, listing, label, obj, statement, PATTERN_CONFIDENCE, candidate.quote, *valid)
        return (subject, listing, obj, False)

    def _own_clauses_day(self, text: str, hit: PatternHit, day: date, wording: _Wording) -> date | None:
        """The day a relation began when the sentence's `day` is said only in a clause of its own after
        the relation's and is still to come, of someone else ("…, and his sister visits on 12 May") or
        of what is yet to happen ("Ravi lives in Amsterdam but is moving to Utrecht in May"): the
        relation's own clauses' time, else the note's. None where `day` is theirs too ("I moved to
        Berlin and joined Stripe on 1 March"), or gone ("Ana married Tom; the wedding was on 1 March")."""
        later = _LATER_CLAUSE.search(text, hit.end, hit_sentence(text, hit)[1])
        today = self._chunk_date()
        # Only what is still to come: "Ana married Tom; the wedding was on 1 March" dates the marriage.
        if later is None or today is None or day <= today:
            return None
        head = text[: later.start()]
        days = find_dates(head, today) or self._relative_days(head, wording.past)
        if days:
            return days[0][2]
        return self._past_periods(head, wording)[0] or today

    def _clause_since(self, text: str, start: int, end: int) -> date | None:
        """The first day of the one time a clause says its relation holds from ("since 22 April 2024",
        "from May", "in 2021", "on 3 March"), if it says one."""
        clause = text[start:end]
        today = self._chunk_date()
        found = [
            when
            for when in find_times(clause, today, self.language)
            if _FROM_WORD.search(clause, max(0, when.start - 8), when.start)
            and (today is not None or _FOUR_DIGITS.search(clause, when.start, when.end))
        ]
        if len(found) != 1:
            return None
        when = found[0]
        # A month or a year not over yet ("since March", written in March) holds from the note's day.
        if today is not None and when.granularity != "day" and when.last >= today:
            return today
        return when.first

    def _left_later(self, rest: str, since: date | None) -> date | None:
        """The day a sentence's later clause says its job or home was left ("… but left in 2022"), if
        it names one after `since`."""
        found = _LEFT_LATER.search(rest)
        if found is None:
            return None
        times = self._times_named(rest[found.end() :])
        left = times[0] if times else None
        return left if left is not None and (since is None or left > since) else None

    def _gone_since(self, text: str) -> date | None:
        """The first day of the last time a listed item names ("left 2024", "until March 2024")."""
        times = self._times_named(text)
        return times[-1] if times else None

    def _times_named(self, text: str) -> list[date]:
        """The first days of the days, months and years a text names, in order (in a note without a
        date, only those said with their year), else of a bare year after "in", "left", "until"."""
        today = self._chunk_date()
        reference = today if today is not None and can_count_from(today) else date(_MAX_YEAR_SAID, 12, 31)
        times = [
            when.first
            for when in find_times(text, reference, self.language)
            if when.granularity in ("day", "month", "year")
            and (today is not None or _FOUR_DIGITS.search(text, when.start, when.end))
        ]
        if times:
            return times
        year = _BARE_YEAR.search(text)  # "(left 2024)": a bare year the resolver leaves alone
        return [date(int(year.group(1)), 1, 1)] if year else []

    def _about_the_person(
        self,
        inline: _Inline,
        who: str | None = None,
        *,
        fields_only: bool = False,
        kin: re.Match[str] | None = None,
    ) -> _Inline:
        """A line of a person's note with its subject left out or said as "she", "he" or "they", read
        with the person named instead: "Works at the BBC." as "<Jamie Chen> works at the BBC."; `who`
        is the person when not the note's (only their label lines then, `fields_only`); `kin`, the
        line saying who they are to the writer ("My mum."), as "<Linda Wilson> is my mum."."""
        text = inline.placeholder
        who = who or self.source.title
        if not fields_only and (contracted := _CONTRACTED_PRONOUN.match(text)) is not None:
            # "She's a designer at Farfetch." as "She is …"; "He's been at Monzo since 2023" as "He has …".
            verb = "has" if contracted["been"] else "are" if contracted["pronoun"] == "They" else "is"
            text = (
                f"{contracted['pronoun']} {verb}{text[contracted.end('pronoun') + len(contracted['mark']) :]}"
            )
            inline = replace(inline, placeholder=text)
        match = None if fields_only else _LEFT_OUT_SUBJECT.match(text)
        # "Her husband is [[Piotr]]." opening its line; not after "His mum is [[Linda]].": hers.
        theirs = None if fields_only or match is not None or self.sentence_at else _THEIR_KIN.match(text)
        if theirs is not None:  # "Her husband is [[Piotr]]." as "<Anna>'s husband is [[Piotr]]."
            return replace(
                inline,
                refs=(*inline.refs, _Ref("link", who, who)),
                placeholder=PLACEHOLDER.format(index=len(inline.refs)) + "'s" + text[theirs.end() :],
            )
        job = None if fields_only else _JOB_AT.match(text) if match is None else None
        field = _PERSON_FIELD.match(text) if match is None and job is None else None
        if match or job or field:
            kin = None
        if match is None and job is None and field is None and kin is None:
            return inline
        person = PLACEHOLDER.format(index=len(inline.refs))
        if field is not None:  # "Company: Google" as "<David Kim> works at Google"
            rest = f" {_PERSON_FIELDS[' '.join(field['key'].lower().split())]} " + text[field.end() :]
        elif job is not None:  # "Senior engineer at [[Cloudflare]]." as "<Priya> works at [[Cloudflare]]."
            rest = " works at " + text[job.end() :]
        elif kin is not None:  # "My mum." as "<Linda Wilson> is my mum."
            rest = " is " + text[0].lower() + text[1:]
        elif match is not None and match["pronoun"]:
            rest = text[match.end("pronoun") :]
        elif text.startswith(("Married to ", "Engaged to ")):  # "Married to [[Carmen]]." as "is married to"
            rest = " is " + text[0].lower() + text[1:]
        else:
            rest = " " + text[0].lower() + text[1:]
        return replace(
            inline,
            refs=(*inline.refs, _Ref("link", who, who)),
            placeholder=person + rest,
        )

    def _resolve(self, raw: str, inline: _Inline, *, person: bool = False) -> str | None:
        """A pattern end as an entity name: a link's target, a code span, or a cleaned Capitalized name;
        where a `person` is meant, a first name is the one full name linked beside it, if one."""
        placeholder = PLACEHOLDER_RE.fullmatch(raw)
        if placeholder:
            name = inline.refs[int(placeholder.group(1))].name
            # `[[Me]]` is the writer, when the note says who that is.
            return (
                self.i_am if name is not None and self.i_am is not None and name.casefold() in _ME else name
            )
        if PLACEHOLDER_RE.search(raw):
            return None
        name = clean_name(raw, self.known)
        if name is not None and " " not in name:
            # "…is [[Jorge Ramos]]. I report to Jorge from today.": the one full name linked here, or
            # else among the people the note's properties name (a meeting's `attendees`). Where the
            # end may be anything ("Helen uses FreeAgent" in `Helen Marsh.md`), only the one the note's
            # title names (an attendee "Phoenix Ward" is no "Phoenix uses Django").
            if self.note_people is None:  # once per chunk: only a first name asks
                self.note_people = (
                    _people_of(self.source.meta),
                    _full_name(self.source.title),
                    # A title "2025-03-05 debrief Olivia Chen": its "Olivia" is hers (not a name the
                    # lines write out: "Ana works at Morgan Stanley. Morgan is my manager.").
                    _full_names_written(self.source.title),
                )
            for names in (self.linked_names, *self.note_people) if person else self.note_people[1:]:
                fuller = [n for n in names if _given_name(n) == name.casefold() and " " in n]
                if len(fuller) == 1:
                    return fuller[0]
        return name

    def _classify(
        self,
        inline: _Inline,
        candidate: _Candidate,
        wording: _Wording,
        dates: list[tuple[int, int, date]],
        relations: list[tuple[str, str, str, bool]],
        secret: bool,
        node_date: date | None,
        until: date | None = None,
    ) -> _Outcome:
        """Decide what a candidate is, first rule that applies wins (DESIGN §5).

        `until` is the day ahead a present state is said to last until, if any.

        definition → concept; a question → nothing; someone else's words (a blockquote, a clipped
        page) without a date → fact or nothing; decision → decision; preference, or what someone
        named prefers, is or is in charge of → state; a rule ("Never …") → fact; a present state
        said to last `until` a day ahead → state ending then; a past event (first person, a diary
        line starting with a past verb, a dated sentence, a line led by a date) → observation;
        what the writer lastingly is, aims at or has been doing → state; a state ("since <date>",
        "currently", "I use", a functional relation in the present) → state; what is to happen on
        a day the sentence names → observation of that day; a hedge → observation; a measure that
        moved → observation; someone in the middle of an affair → state; a secret, or a named
        subject → fact. Episodic outcomes need a date: a state or preference without one becomes a
        fact, an event is dropped.
        """
        text, words = inline.placeholder, wording.words
        subject_entity = bool(relations) or _starts_with_entity(text)
        dated = node_date is not None
        first_person = wording.first_person

        self.someone_described = False
        if _LEARNED.match(inline.title) and inline.word_count >= 4:
            # "TIL git worktree lets you check out several branches": what holds, learned that day.
            return _Outcome("semantic", "fact")  # private: "TIL my landlord is selling" is no one else's
        if self.person_note and _PERSON_PROPERTY.match(inline.title):
            # "Birthday: 14 May 1988" in Ana's note: hers, recorded on the note's day (none, here).
            return _Outcome("semantic", "fact", brief=True, dated_by_note=True)
        if self._definition(inline, candidate, words) is not None:
            return _Outcome("semantic", "concept", public=not first_person and not secret)
        if self.someone_described:  # who someone is: a state of the note's day, or a fact
            return _Outcome("episodic", "state") if dated else _Outcome("semantic", "fact")
        if not secret and not relations and _is_question(inline.title):
            return _Outcome(None, reason="question")  # it asks; it states nothing
        if candidate.quoted and not any(any(c.isdigit() for c in inline.title[a:b]) for a, b, _ in dates):
            # Someone else's words (a quotation, a clipped page) are no episode of the notes' owner
            # unless they give the date something happened ("today" in a quotation is not ours).
            if secret or (subject_entity and not first_person):
                return _Outcome("semantic", "fact")
            return _Outcome(None, reason="quoted")
        if _DECISION.search(text, words) and not _NOT_DECIDED.search(text):
            if not dated:
                return _Outcome(None, reason="undated event")
            planned = self._planned(inline.title, dates, wording)
            if planned is None and _days_of_what_was_decided(inline.title, dates):
                # "We decided to postpone the launch to December 1": decided on the note's day.
                return _Outcome("episodic", "decision", dated_by_note=True)
            return _Outcome("episodic", "decision", day=planned)
        if (
            (self.decisions and (candidate.kind == "item" or _WE_WILL.match(text)))
            or _DECISION_LABEL.match(text)
        ) and not _NOT_DECIDED.search(text):
            # "## Decisions / - Use Postgres for metadata, not MongoDB.": taken on the note's day;
            # in a note with no date, what was decided still holds.
            if not dated:
                return _Outcome("semantic", "fact")
            return _Outcome("episodic", "decision", day=self._planned(inline.title, dates, wording))
        since = self._since(inline.title, dates)
        if _PREFERENCE.search(text, words):
            return _Outcome("episodic", "state", valid_from=since) if dated else _Outcome("semantic", "fact")
        if (
            not wording.past
            and not relations
            and (
                _THEIR_PREFERENCE.search(text, words)
                or _THEIR_TRAIT.search(text, words)
                or _THEIR_ROLE.search(text, words)
            )
        ):
            # Whole in three words or two: "Ana loves hiking.", "Sam's vegetarian."
            if dated:
                return _Outcome("episodic", "state", valid_from=since, brief=True)
            return _Outcome("semantic", "fact", brief=True)
        if not wording.past and (_HOUSE_RULE.match(text) or _labelled_rule(text)):
            return _Outcome("semantic", "fact")  # what holds whatever the day
        if since is not None and _PERFECT.search(text):
            return _Outcome("episodic", "state", valid_from=since) if dated else _Outcome("semantic", "fact")
        if until is not None and not (wording.past and first_person and not _OWN_STATE.search(text)):
            # Not "Sam is out until Monday, so I paired with Dana": what the writer did is the event.
            return _Outcome("episodic", "state", valid_from=since, valid_to=until)
        past = wording.past
        # A day's log line led by its clock time ("13:00 lunch w/ Aisha", "14:30 call w/ Priya re:
        # Stripe") tells what happened at it, as one led by its date does.
        date_led = (
            _DATE_LEAD.match(inline.title) is not None
            or (dated and self._logged_at_a_time(inline.title, done=candidate.done))
        ) and inline.word_count >= 3
        # A task ticked done happened, though its words are an order: "- [x] Fix the bike brakes".
        done = (candidate.done and dated and _an_order(inline.title)) or (
            dated
            and (
                _MEAL_WITH.match(inline.title) is not None  # "Lunch with Daniel Ford.": a day's event
                or _APPOINTMENT.match(inline.title) is not None  # "Dentist at 9:30 with Dr. Lopes."
            )
            # Not under "## Plan for tomorrow": what is yet to happen, unless ticked done.
            and (
                candidate.done
                or not any(_PLANNED_HEADING.search(heading) for heading in self.chunk.heading_path)
            )
        )
        if (past and (first_person or wording.diary or dates)) or date_led or done:
            if dated:
                return _Outcome("episodic", "observation")
            if subject_entity and not first_person:
                return _Outcome("semantic", "fact")
            return _Outcome(None, reason="undated event")
        if not past and _NAMED_FACT.search(text, words):
            return _Outcome("semantic", "fact", dated_by_note=True)
        if not past and first_person and _SELF_FACT.search(text, words):
            # Whole in two words: "We're vegetarian."
            if dated:
                return _Outcome("episodic", "state", valid_from=since, brief=True)
            return _Outcome("semantic", "fact", brief=True)
        if not past and (
            _GOAL.search(text, words)
            or ("been" in words and _ONGOING.search(text))
            or (not dates and _LEARNING.search(text, words))
            or (first_person and _HABIT.search(text, words))
        ):
            return _Outcome("episodic", "state", valid_from=since) if dated else _Outcome("semantic", "fact")
        # A functional relation in the present, or a medicine one is on or off ("I'm on lisinopril now").
        functional_now = not past and any(
            functional or predicate == "takes" for _subject, predicate, _object, functional in relations
        )
        if (
            since is not None
            or functional_now
            or _STATE_STRONG.search(text, words)
            or (first_person and _STATE_FIRST_PERSON.search(text, words))
        ):
            if dated:
                return _Outcome("episodic", "state", valid_from=since)
            if (candidate.kind == "row" or _THE_FOLLOWING.search(text)) and not (
                subject_entity
                or first_person
                or since is not None
                or any(r.kind == "link" for r in inline.refs)
            ):
                # A table's row of nothing named or linked ("A dartboard … The eyes currently have darts
                # in them": a trinket table), or what introduces a list ("Currently, this repository
                # has the following resources."): undated, no fact.
                return _Outcome(None, reason="no statement")
            return _Outcome("semantic", "fact")
        if past and dated:
            return _Outcome("episodic", "observation")
        title = inline.title
        today = self._chunk_date()
        ahead = [
            (start, end, day)
            for start, end, day in dates
            if _ON_BEFORE.search(title[max(0, start - 20) : start])
            or _DUE_BEFORE.search(title[max(0, start - 60) : start])
            # "The new API launches next week", "Tomorrow we fly to Porto": a day ahead it names.
            or (
                today is not None
                and day > today
                and inline.word_count >= 4  # not "Next Friday works."
                and not wording.hedged
                and not _NOT_WHEN_BEFORE.search(title[max(0, start - 20) : start])
                and not _TARGET_BEFORE.search(title[max(0, start - 24) : start])
                and not _MOVED_TO_BEFORE.search(title[max(0, start - 64) : start])  # "postponed to May 20"
            )
        ]
        if dated and ahead:
            # "We fly to Tokyo on 3 October", "The release is scheduled for 14 July", "The report is
            # due 3 May": what is to happen on a day the sentence names, an episode of that day, the
            # next one of that name.
            # A turn's days ahead are read already (`_ahead_in_a_turn`): its title says the same day.
            day = ahead[0][2] if self.said_at is not None else self._coming(title, *ahead[0])
            return _Outcome("episodic", "observation", day=day)
        # A dated guess is the writer's own observation when it is theirs or a single diary sentence,
        # not when it is general advice ("… that may sound stupid. Ask anyway.").
        if wording.hedged and inline.word_count >= 4 and (first_person or _single_sentence(inline.title)):
            return _Outcome("episodic", "observation") if dated else _Outcome(None, reason="no statement")
        if dated and not past and not _UP_DOWN.isdisjoint(words) and _SHIFT.search(text):
            return _Outcome("episodic", "observation")  # "Churn is up 3% this quarter": a measure of the day
        if dated and not past and _PROGRESSIVE.match(text):
            return _Outcome("episodic", "state")  # "Ana's team is hiring": what is going on that day
        if dated and not past and _IN_CARE.match(text):
            return _Outcome("episodic", "state", brief=True)  # "Mum's in hospital.": news of that day
        if dated and not past and _own_news(text) and not _SOMEDAY.search(text):
            return _Outcome("episodic", "state", brief=True)  # "We're getting married!": news of that day
        if secret or (subject_entity and (not first_person or _OURS.match(text))):
            return _Outcome("semantic", "fact")
        return _Outcome(None, reason="undated event" if past else "no statement")

    def _coming(self, title: str, start: int, end: int, day: date) -> date:
        """The day a date without a year means in a sentence about what is to happen: the next one
        after the note's date ("on 3 May" written on 12 April 2025 is 3 May 2025), not the last."""
        today = self._chunk_date()
        if today is None or day >= today or _FOUR_DIGITS.search(title[start:end]):
            return day
        if not _MONTH_DAY_WORDS.search(title, start, end):
            # A weekday ("she starts on Monday"): the coming one, not the same day a year on (said on
            # a Monday, the next Monday).
            return day + timedelta(weeks=(today - day).days // 7 + 1)
        try:
            coming = day.replace(year=day.year + 1)
        except ValueError:  # 29 February
            return day
        return coming if coming >= today else day

    def _reported_ahead(
        self, title: str, dates: list[tuple[int, int, date]], wording: _Wording
    ) -> dict[tuple[int, int, date], tuple[int, int, date]]:
        """Dates without a year that a past sentence reports as ahead, each with the coming day it means.

        "Marcus said the deadline is May 30", written on 4 March 2025, is 30 May 2025: the saying is
        past, what was said is not. Only a date in a present clause after a reporting verb, where
        something is on or due ("is on", "starts on", "due"); "Ana said she moved on 5 January" stays past.
        """
        today = self._chunk_date()
        if not wording.past or today is None:
            return {}
        ahead = {}
        for date_ in dates:
            start, end, day = date_
            if _FOUR_DIGITS.search(title[start:end]):
                continue
            before = title[max(0, start - 60) : start]
            if not (
                _ON_BEFORE.search(before)
                or _DUE_BEFORE.search(before)
                or _UNTIL_BEFORE.search(before)
                or _WOULD_BEFORE.search(before)
            ):
                continue
            reported = list(_REPORTED.finditer(title, 0, start))
            said = reported[-1].end() if reported else None
            if said is None:
                # A present clause of its own before the past one: "Mum has surgery on June 14, I
                # told her I'd come."
                boundary = _REPORTED.search(title, end)
                head = title[: boundary.start()] if boundary is not None else ""
                if (
                    boundary is not None
                    and not boundary[0][:1].isalpha()
                    and _SAID_CLAUSE.search(head)
                    and not _wording(head, self.french).past
                ):
                    ahead[date_] = (start, end, self._coming(title, start, end, day))
                continue
            if _wording(title[said:start], self.french).past:
                continue
            if reported[-1][0][:1].isalpha() and not _SAID_CLAUSE.search(title, said, start):
                continue  # "He emailed me on Friday": the day of the saying, no clause said

            # A day already ahead is kept as it is (a past sentence would otherwise drop it).
            ahead[date_] = (start, end, self._coming(title, start, end, day))
        return ahead

    def _planned(self, title: str, dates: list[tuple[int, int, date]], wording: _Wording) -> date | None:
        """The day a decision in the present tense sets something for, when a date without a year names
        it: "Decision: we sunset the app on Nov 30", written in September, is this November's."""
        today = self._chunk_date()
        if wording.past or today is None:
            return None
        for start, end, day in dates:
            if day < today and _ON_BEFORE.search(title[max(0, start - 20) : start]):
                return self._coming(title, start, end, day)
        return None

    def _since(self, title: str, dates: list[tuple[int, int, date]]) -> date | None:
        """The date a "since <date>" / "depuis <date>" phrase gives, if any."""
        for start, _end, value in dates:
            if _SINCE_BEFORE.search(title[max(0, start - 20) : start]):
                return value
        return None

    def _definition(self, inline: _Inline, candidate: _Candidate, words: frozenset[str]) -> str | None:
        """Return the defined term when the candidate is a definition, and record it as an entity.

        `words` are the lowercase words of `inline.placeholder`. Each regex runs only when the text
        holds what it needs (leading `**`, a dash, "is"), which few candidates do.
        """
        if candidate.kind == "row":
            return None
        text = candidate.text.strip()
        term: str | None = None
        definition = ""
        bold = _BOLD_DEFINITION.match(text) if text.startswith(("**", "__")) else None
        # Outside a glossary a bold term defines only when a colon or dash says so: "**Failure** The
        # target is …" is a label before a sentence.
        if bold and (
            self.glossary
            or ((bold.group("inner") or bold.group("sep")) and _ARTICLE_START.match(bold.group("definition")))
        ):
            term, definition = bold.group("term"), bold.group("definition")
        if term is None and ("—" in text or "–" in text) and text[:1] not in _QUOTE_OPENERS:
            # Not '"I love this city" — the taxi driver': a quotation and whose it is.
            dash = _DASH_DEFINITION.match(text)
            if (
                dash
                and len(dash.group("term").split()) <= 5
                and (self.glossary or (_ARTICLE_START.match(dash.group("definition")) and _defines(dash)))
                # Not "Visit **Torre de Belém** — the tower by the river": what to do there, no term (a
                # term of its own is plain: "Merge sort — a divide-and-conquer sorting algorithm").
                and not (
                    _MARKED_OBJECT.match(dash.group("term"))
                    and _an_order(_strip_emphasis(dash.group("term")))
                )
            ):
                term, definition = dash.group("term"), dash.group("definition")
        if term is None and self.glossary and candidate.kind == "item":
            colon = _COLON_DEFINITION.match(text)
            if colon and len(colon.group("term").split()) <= 5:
                term, definition = colon.group("term"), colon.group("definition")
        if term is None:
            is_a = None if _IS_A_VERBS.isdisjoint(words) else _IS_A_DEFINITION.match(inline.placeholder)
            if (
                is_a
                and is_a.group("term").casefold() not in _NOT_TERMS
                and not _THEIR_ROLE.search(inline.placeholder, words)
                # "Atlas is our internal search service." opening the note Atlas says what it is.
                and (
                    self._own_subject(is_a.group("term"))
                    or (
                        is_a.group("article").lower() not in _POSSESSIVE_ARTICLES
                        and _RELATIVE_CLAUSE.search(is_a.group("definition"))
                    )
                )
            ):
                resolved = self._resolve(is_a.group("term"), inline)
                if resolved is None:
                    return None
                if _A_PERSON.match(is_a.group("definition")) and not self._own_subject(is_a.group("term")):
                    # "Fatima is a TA for Calc II this semester": a person and what they do, no term defined.
                    self.entities.add(resolved, "person", candidate.quote)
                    self.someone_described = True
                    return None
                description = _cut_at_word(inline.title, 200, ellipsis=True)
                return self.entities.add(resolved, None, candidate.quote, description=description)
            return None
        if (
            not self.glossary
            and _DAY_TITLE.match(self.source.title) is not None
            and (term.strip("*_ ").casefold() in _DIARY_LABELS or _DIARY_DEFINITION.search(definition))
        ):
            # A day's note labels its lines: "- **[[Kenji]]**: a flaky test, will fix today", "**Lunch**:
            # the ramen place again" (not "**CRDT**: a conflict-free replicated data type").
            return None
        term_inline = _analyse(term)
        link_names = [ref.name for ref in term_inline.refs if ref.kind == "link" and ref.name]
        name = link_names[0] if len(link_names) == 1 else term_inline.title
        if not name or not _HAS_WORD.search(name):
            return None
        description = _cut_at_word(_analyse(definition).title, 200, ellipsis=True)
        return self.entities.add(name, None, candidate.quote, description=description)

    def _attendees(self) -> tuple[str, ...]:
        """The people a note's properties say took part, with full names (`attendees: [[Anna Kowalski]]`)."""
        if self.attendees is None:
            self.attendees = tuple(name for name in _people_of(self.source.meta) if " " in name.strip())
        return self.attendees

    def _logged_at_a_time(self, title: str, *, done: bool = False) -> bool:
        """Whether a line is a day's log led by its clock time ("13:00 lunch w/ Aisha"): in a note of one
        day (titled by it, or under a heading naming it), not under a plan ("## Plan for tomorrow")
        unless its box is ticked (a Day Planner's "- [x] 12:30 Lunch with Priya" under "## Schedule")."""
        if _CLOCK_LEAD.match(title) is None:
            return False
        if _DAY_TITLE.match(self.source.title) is None and self.heading_date is None:
            return False  # "1. 6:30 alarm, no snooze" in a routine's note: no day's log
        planned = any(_PLANNED_HEADING.search(heading) for heading in self.chunk.heading_path)
        ahead = any(_AHEAD_HEADING.search(heading) for heading in self.chunk.heading_path)
        return not planned or (done and not ahead)

    def _own_subject(self, term: str) -> bool:
        """Whether a sentence's subject is the note's own (its title or an alias of it, not a day's):
        "Atlas is …" in Atlas, or in "Project Atlas" with the alias Atlas."""
        title = self.source.title
        folded = term.casefold()
        return _DAY_TITLE.match(title) is None and (
            folded == title.casefold() or any(folded == alias.casefold() for alias in self._note_aliases())
        )

    # -- nodes ----------------------------------------------------------------------------------

    def _tags(self, own: Sequence[str]) -> list[str]:
        """The candidate's tags, the chunk's, the source's and the heading topic: normalized, sorted."""
        if self.base_tags is None:
            raw = [*self.chunk_tags, *self._source_tags()]
            topic = self.heading
            if (
                topic
                and _HAS_WORD.search(topic)
                and len(topic.split()) <= 6
                and topic.casefold() not in GENERIC_EPISODE_NAMES
                and not find_dates(topic, None)
                and not _only_a_day(topic)
                # Not "Saturday", "Thu 6th", "Vendredi 11 avril", "14:00 Call with Acme": when, not what.
                and not _DAY_OR_TIME_LED.match(topic)
                and not self.heading_secret
            ):
                raw.append(topic.replace("/", " "))  # "Setup / Config" is prose, not a tag's levels
            self.base_tags = frozenset(tag for tag in map(normalize_tag, raw) if tag)
            self.sorted_base_tags = sorted(self.base_tags)
        if not own:
            return list(self.sorted_base_tags)
        return sorted(self.base_tags.union(tag for tag in map(normalize_tag, own) if tag))

    def _node(
        self,
        inline: _Inline,
        candidate: _Candidate,
        outcome: _Outcome,
        confidence: str,
        node_date: date | None,
        names: list[str],
        secret: bool,
    ) -> None:
        title = inline.title
        if self.said_at is not None and self.times:
            title = dated_title(title, self.times)
        title = mask_values(title, self.values)[0] if self.secrets else title
        if (
            candidate.heading_entity
            and candidate.heading_entity in names
            and candidate.kind == "item"
            and (candidate.heading_entity.casefold() not in title.casefold())
        ):
            title = f"{candidate.heading_entity} — {title}"
        title = _cut_at_word(title, TITLE_MAX, ellipsis=True)
        body = mask_values(inline.body, self.values)[0] if self.secrets else inline.body
        if outcome.layer == "episodic" and self.author:
            author = self.entities.add(self.author, "person", None)
            names = [*names, author]
        if (
            self.person_note
            and _SUBJECT_LEFT_OUT.match(inline.title)
            and not any(name.casefold() == self.source.title.casefold() for name in names)
        ):
            # A line of a person's note that names no subject is about them: "- 2025-03-03: wants to
            # move toward a tech lead role", "Built the Dagster spike in February." (not "Harbor
            # Foundry is based in Montréal.", nor the writer's "I prefer …").
            names = [*names, self.entities.add(self.source.title, None, None)]
        if title.casefold() in self.node_titles:
            return
        episodic = outcome.layer == "episodic"
        sensitivity = "confidential" if secret else "public" if outcome.public else "private"
        node: dict[str, Any] = {
            "memory_layer": outcome.layer,
            "type": outcome.type,
            "title": title,
            "body": body,
            "tags": self._tags(inline.tags),
            "timestamp": node_date,
            "sensitivity": sensitivity,
            "attributed_to": self.author if episodic else None,
            "confidence": confidence,
            "origin": "stated",
            "language": self.language,
            "entities": _unique(names),
            "valid_from": outcome.valid_from if episodic and outcome.type == "state" else None,
            "valid_to": outcome.valid_to if episodic and outcome.type == "state" else None,
            "supporting_text": None if secret else candidate.quote,
        }
        self.nodes.append(node)
        self.node_titles.add(title.casefold())

    @staticmethod
    def _tells_the_day(
        items: list[_Block], intro: _Block | None, heading: tuple[str, ...], *, by_items: bool = True
    ) -> bool:
        """Whether a numbered list in a note of a day tells the day rather than steps: the line before
        says the day ("Meds given today:"), or the list is a meeting's ("## Board meeting"), or (`by_items`,
        in a day's own note) an item gives a time of day ("1. Metoprolol 25mg at 8am") or starts with
        what happened ("1. Left Acme, joined Datadog", "1. Leo swam his first length", "1. I fixed …"),
        or (in a note dated otherwise) most items say what the writer's side did ("1. We decided to …");
        not "1. Add chopped tomatoes", "1. Make sure my VPN is on"."""
        # Items that tell what to do are steps, whatever the day ("Restore the NAS backup (did this
        # today): 1. Unplug …", "## Call with the plumber / 1. Turn off the heating").
        firsts = [
            _ITEM_WORDS.findall(item.text, 0, 40)[:1] for item in items if item.indent == items[0].indent
        ]
        if sum(1 for first in firsts if first and first[0].lower() in _IMPERATIVES) * 2 >= len(firsts):
            return False
        # The line right above, when a label of its own ("Meds given today:", "Standup agenda:").
        label = (
            intro.text if intro is not None and intro.kind == "paragraph" and len(intro.text) <= 80 else ""
        )
        if _DAY_WORDS.search(label) or any(_MEETING_WORDS.search(line) for line in (*heading, label)):
            return True
        if by_items and any(_TIME_OF_DAY.search(item.text) for item in items):
            return True  # not "1. 6:30 alarm" in a routine's note, which has its date from `created`
        if not by_items:
            # In a note dated otherwise (a meeting's), a list of what the writer's side did or decided,
            # most of its items saying so: "1. We decided to postpone …" (not a recipe with one "Fed
            # the starter", nor a how-to's "Installed …, Created …": no one said).
            said = [
                _ITEM_WORDS.findall(item.text, 0, 200)[:2] for item in items if item.indent == items[0].indent
            ]
            ours = sum(
                1
                for words in said
                if len(words) == 2 and words[0].lower() in ("i", "we") and _is_past_word(words[1].lower())
            )
            return ours > 0 and ours * 2 >= len(said)
        for item in items:
            if item.indent != items[0].indent:
                continue
            words = _ITEM_WORDS.findall(item.text, 0, 200)[:2]
            if not words:
                continue
            first = words[0].lower()
            if first in ("i", "we") or _is_past_word(first):
                return True
            # "Leo swam", "[[Mia]] took her first steps".
            if (
                len(words) == 2
                and (words[0][:1].isupper() or words[0].startswith("[["))
                and (words[1].lower() in _IRREGULAR_PAST)
            ):
                return True
        return False

    def _procedure(self, steps: list[_Block], previous: _Block | None, lines: list[str]) -> None:
        """An ordered list of two or more steps: one semantic procedure node."""
        title = ""
        if previous is not None and previous.kind == "paragraph" and previous.last + 2 >= steps[0].first:
            last_sentence = split_sentences(previous.text)[-1] if previous.text else ""
            if last_sentence.rstrip().endswith(":"):
                title = _analyse(last_sentence).title.rstrip(":").strip()
            else:
                # "## Directions / Making the crust / 1. …" then "Filling / 1. …": two lists, two titles.
                label = _analyse(previous.text).title.strip()
                if (
                    previous.first == previous.last
                    and not lines[previous.first].lstrip().startswith(">")  # a callout's, a quote's
                    and _HAS_WORD.search(label)
                    and len(label.split()) <= 6
                    and _NOT_A_LABEL.search(label) is None
                    and not _wording(label, self.french).first_person
                ):
                    title = f"{self.heading or self.source.title}: {label}"
        names: list[str] = []
        if not title:
            title = self.heading or self.source.title
            if (
                self.heading
                and _STEPS_HEADING.match(_bare_heading(self.heading))
                and _DAY_TITLE.match(self.source.title) is None
            ):
                # A recipe's "## Method", a guide's "## Steps": a hundred notes' steps would all be
                # "Steps"; they are the note's, and about what it is about.
                title = f"{self.source.title}: {self.heading}"
                if self.entities.own is not None:
                    names.append(self.source.title)
        tags: list[str] = []
        body_lines: list[str] = []
        number = 0
        first_person = False
        relations = False
        for step in steps:
            inline = _analyse(step.text)
            quote = self._raw_quote(lines, step)
            names.extend(
                self._link_entity(ref, quote) for ref in inline.refs if ref.kind == "link" and ref.name
            )
            tags.extend(inline.tags)
            wording = _wording(inline.placeholder, self.french)
            relations = (
                bool(
                    self._pattern_relations(
                        inline,
                        _Candidate(step.text, quote, "item"),
                        wording,
                        self._chunk_date(),
                        dated_here=False,
                    )
                )
                or relations
            )
            first_person = first_person or wording.first_person
            if step.indent == steps[0].indent:
                number += 1
                body_lines.append(f"{number}. {inline.body}")
            else:
                body_lines.append(f"   - {inline.body}")
        raw_text = "\n".join(lines[steps[0].first : steps[-1].last + 1])
        secret = bool(find_secrets(raw_text))
        masked_title, _ = mask_secrets(title)
        body, _ = mask_secrets("\n".join(body_lines))
        title = _cut_at_word(masked_title, TITLE_MAX, ellipsis=True)
        self.node_titles.add(title.casefold())
        self.nodes.append(
            {
                "memory_layer": "semantic",
                "type": "procedure",
                "title": title,
                "body": body,
                "tags": self._tags(tags),
                "timestamp": self._chunk_date(),
                # A day's note is the writer's own, whatever its lists say.
                "sensitivity": "confidential"
                if secret
                else "private"
                if first_person or _DAY_TITLE.match(self.source.title)
                else "public",
                "confidence": "high" if relations else "medium",
                "origin": "stated",
                "language": self.language,
                "entities": _unique(names),
                "supporting_text": None if secret else self._raw_quote(lines, steps[0]),
            }
        )


# -- helpers ------------------------------------------------------------------------------------


_ALSO = re.compile(r"(?i)\b(?:also|as\s+well|too|additionally|on\s+the\s+side)\b")
"""A second value beside the first, of what holds one at a time: "also works at", "… on the side"."""
_SUBORDINATE = re.compile(
    # "that" as a pronoun, before its verb ("the leak that started"; not "that lake sunrise").
    r"\s(?:that|which|who)\s+(?!(?:was|is)\s+(?:on|last|yesterday)\b)(?=(?:was|were|is|had|has|got|\w+ed)\b)"
    # Another thing's clause after a dash or comma (not the writer's own: "- I went to … on 10 July").
    r"|(?:\s[—–]|\s-|,)\s+(?:the|my|our|his|her|their)\s"
    r"(?![^,.;]{0,30}\b(?:was|were|came|arrived|started|began|ended)\s+(?:on\s|last\s|yesterday|[A-Z\d]))"
)
"""Where a sentence's main clause ends and a clause telling of something else begins ("… the leak that
started two weeks ago", "…, the old one broke down yesterday"); not one restating its day ("…, it was
on Monday")."""
_DENIED_BEFORE = re.compile(r"(?i)\bnot\s+$")
_WEEK_WORD = re.compile(r"(?i)\bweek\b")
_RELATIVE_BEFORE = re.compile(r"(?i)(?:\b[a-z]+\s+(?:who|that|whom)|^whoever|\bwhoever)\s+[a-z]+ed\s+$")
"""Before a name the object of a relative clause: "The guy who replaced |Tom works at Google"."""
_CORRECTED_AFTER = re.compile(
    r"(?i)\s*[,;—–-]\s*(?:(?:no\s+wait|no,?\s+sorry|scratch\s+that)\b"
    r"|sorry,?\s+(?:in\b|at\b|(?-i:[A-Z](?!\b)))|I\s+mean,?\s+(?:in\b|at\b|(?-i:(?!I\b)[A-Z])))"
)
"""After a relation in its sentence, the writer taking it back: ", no wait, …", ", sorry, …", ", I mean …"."""
_WROTE_THAT = re.compile(
    r"(?i)\b(?:(?:I|we)\s+(?:wrote|noted|posted|tweeted|said)\s+(?:on|earlier|last|yesterday|before)\b[^.;!?]{0,40}"
    r"|(?:I|we)\s+(?:read|heard)\s+(?:somewhere|online|on\s+\w+|in\s+the\s+\w+)?\s*)\bthat\s+$"
)
"""What was written or read, not the writer's word now: "I wrote on 3/1 that |Tom works at Meta"."""
_INSIDE_A_PLACE = re.compile(
    rf"\b(?:in|at|from|for|with|near)\s+(?:the\s+)?(?:[{CAPITALS}](?:[\w'’&-]*(?:\.[\w'’&-]+)*|[a-z]{{0,2}}\.)\s+)+$"
)
"""What comes before a match that starts inside a name after a place word ("in New |York works …", "in St.
|Louis"; not "First day at Spotify. |My manager is …": a sentence ends there)."""
_UNTIL_WORD = re.compile(r"(?i)\b(?:until|till|til)\b")
_UNTIL_MONTH = re.compile(
    r"(?i)\b(?:until|till)\s+(?P<end>(?:the\s+)?end\s+of\s+)?(?P<month>january|february|march|april|may|june|july"
    r"|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)\b\.?"
    r"(?!\s*\d)"
)
"""A month a state lasted until, named without its year: "worked at Brightline until March"."""
_FOR_A_SPAN = re.compile(
    r"(?i)[\x20\t]+for[\x20\t]+(?:(?:almost|nearly|about|over|more[\x20\t]+than|just|only)[\x20\t]+)?"
    r"(?:a|an|one|two|three|four|five|six|seven|eight|nine|ten|twenty|thirty|forty|fifty|a[\x20\t]+few"
    r"|a[\x20\t]+couple[\x20\t]+of|several|many|\d+)[\x20\t]+(?:weeks?|months?|years?|decades?)\b"
)
"""Right after a past state, how long it lasted: "worked at Boeing for 30 years" is over."""
_FROM_A_TIME = re.compile(
    r"(?i)\b(?:from|since)\s+(?:(?:early|mid|late|the\s+(?:start|beginning|end)\s+of)\s+)?"
    r"(?:\d|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b)"
)
"""A start said as one: "from 2017", "since March 2020" (not "far from home")."""


def _period_end(first: date, granularity: str) -> date:
    """The last day of the month or year that starts on `first`."""
    if granularity == "year":
        return first.replace(month=12, day=31)
    following = (
        first.replace(year=first.year + 1, month=1)
        if first.month == 12
        else first.replace(month=first.month + 1)
    )
    return following - timedelta(days=1)


def _block_before(blocks: list[_Block], block: _Block) -> _Block | None:
    """The block just before one (a list's intro), if any."""
    position = blocks.index(block)
    return blocks[position - 1] if position else None


_DAY_WORDS = re.compile(
    r"(?i)\b(?:today|yesterday|tonight|this\s+(?:morning|afternoon|evening)|last\s+night)\b"
)
_IMPERATIVES = _word_set(
    """
    give take add put set turn open close check install run wait press remove pour mix heat bake stir feed
    apply clean fill plug unplug restart reboot click go make use let keep start stop pick research read
    write call email send book buy update test restore copy move save back configure enable disable log
    bring ask review prepare print cut boil fry chop preheat whisk drain rinse soak water plant sow
    """
)
"""First words of steps ("1. Give one pill at 8am", "1. Research the company"): a numbered list of
them is a procedure, whatever else a day's list says."""
_TASK_VERBS = (_IMPERATIVES - _word_set("open let keep go use wait turn run")) | _word_set(
    """
    fix pay finish submit renew order return schedule file reply text ring ship deploy merge plan sort pack
    sign register get replace repair refactor migrate upgrade confirm follow invite visit collect drop
    transfer publish upload tidy vacuum hoover cook wash mow draft cancel change finalize finalise organize
    organise backup hand post clear empty charge top declutter iron pick vote see try watch eat
    arrange announce onboard
    """
)
"""First words of a task ("Fix the bike brakes", "email Priya the slides"): ticked done, it happened."""


_MARKED_OBJECT = re.compile(r"\S+\s+(?:\*\*|__|\[\[|\ue000)")
"""A verb, then a bold or linked name: what to do with something named ("Visit **Torre de Belém**")."""


def _an_order(title: str) -> bool:
    """Whether a task's words are an order, a task verb first ("Call the plumber"; not "Open questions
    remain", nor "Postgres runs on port 5432": words a ticked box does not make an event), maybe for
    someone named first, as a meeting's action items are ("Sam to create the Slack channel", "@Ravi —
    publish the runbook", "Ravi: publish the runbook")."""
    owner = _ACTION_OWNER.match(title)
    if (
        owner is not None
        and owner["to"]
        and " " not in owner["who"]
        and owner["who"].lower() in _NO_OWNER_BEFORE_TO
    ):
        owner = None  # "Better to write it down now", "Remember to call Mum": no one's
    rest = title[owner.end() :] if owner is not None else title
    first = rest.split(None, 1)[0] if rest.strip() else ""
    if owner is not None and owner["to"]:
        return first.isalpha() and first.islower()  # "Sam to create the Slack channel": whatever the verb
    return first.casefold() in _TASK_VERBS


_ACTION_OWNER = re.compile(
    r"[\x20\t]*(?P<who>@?[A-Z][\w'’-]*(?:[\x20][A-Z][\w'’-]*)?|\ue000\d+\ue001)"
    r"(?:(?P<to>[\x20\t]+to[\x20\t]+)|[\x20\t]*[:—–][\x20\t]*|[\x20\t]+-[\x20\t]+)"
)
"""Whose an action item is, before it: "Sam to …", "@Ravi — …", "Ravi: …", a link's placeholder."""
_NO_OWNER_BEFORE_TO = _word_set(
    """better best need needs want wants time how what where when why ready nice good hard easy important
    worth remember try going plan planning back due have has had used able reminder note things stuff
    ways go start started decide decided make also just still then later next forgot forget remembered
    tried learn learned learning questions ideas nothing something everything anything ok okay fine
    happy glad sad sorry tough first last only one places reasons steps"""
)
"""Capitalized words before "to" that own no task: "Better to write it down", "Remember to call Mum"."""


_MEETING_WORDS = re.compile(
    r"(?i)\b(?:meeting|minutes|agenda|stand-?up|retro(?:spective)?|sync|1:1|one-on-one|call|interview)s?\b"
)
"""What a day's meeting is called: its numbered items are what was said, no steps."""
_GRATEFUL_WORDS = re.compile(
    r"(?i)\b(?:grateful|gratitude|thankful|good\s+things|went\s+well|best\s+bits"
    r"|(?:today['’]?s|this\s+week['’]?s|daily|weekly|small)\s+(?:wins|highlights))\b"
)
"""What a day's gratitude list or highlights are called ("Grateful for:", "## Three good things"): no
steps."""


_STEPS_HEADING = re.compile(
    r"(?i)^(?:the\s+)?(?:steps|method|directions|instructions|procedure|preparation|how\s+to|how-to"
    r"|instructions\s+and\s+steps)$"
)
"""A heading that says only that steps follow: the steps are named by the note they are in."""
_REVIEW_HEADING = re.compile(
    r"(?i)^(?:(?:my|key|main|the|big|top(?:\s+\d+)?)\s+)*(?:wins|highlights|lessons(?:\s+learn[et]d?)?|learnings"
    r"|takeaways|accomplishments|achievements|insights|reflections|what\s+(?:went\s+well|i\s+learn[et]d?))$"
)
"""A review's or a book note's heading ("## Wins", "## 🏆 Lessons learned", "## My takeaways"): what
was done or learnt, no steps to follow."""


def _a_grateful_list(intro: _Block | None, heading: tuple[str, ...]) -> bool:
    """Whether a numbered list is what the writer is grateful for, the day's highlights or a review's
    wins and lessons: its heading or the label right above says so (`_GRATEFUL_WORDS`)."""
    label = intro.text if intro is not None and intro.kind == "paragraph" and len(intro.text) <= 80 else ""
    if heading and _REVIEW_HEADING.match(_bare_heading(heading[-1])):
        return True
    return any(_GRATEFUL_WORDS.search(line) for line in (*heading[-1:], label))


_TIME_OF_DAY = re.compile(
    r"(?i)\b(?:[01]?\d|2[0-3])(?::[0-5]\d)?\s?(?:am|pm)\b|\b(?:[01]?\d|2[0-3]):[0-5]\d\b"
)
"""A clock time ("8am", "9:30 pm", "14:00"): a list of them is a day's log or schedule, no steps."""


_KINDLE_SEPARATOR = re.compile(r"(?m)^={10}[ \t]*$")


def _kindle_mark_above(source: Source, line: int) -> str:
    """The kind of Kindle clipping ("highlight", "note") whose mark is the last line written above a
    line of the source, or "" when none is."""
    lines = _source_lines(source.path, source.sha256, source.text)
    for above in range(min(line - 2, len(lines) - 1), max(-1, line - 8), -1):
        if lines[above].strip():
            marked = _KINDLE_MARK.match(lines[above].strip())
            return marked["kind"].lower() if marked is not None else ""
    return ""


@lru_cache(maxsize=4)
def _source_lines(path: str, sha256: str, text: str) -> list[str]:
    """A source's lines, split once for all its chunks (`path` and `sha256` name the text cheaply)."""
    return text.split("\n")


@lru_cache(maxsize=16)
def _normalized(text: str) -> str:
    """normalize_for_match, remembered: every sentence of a paragraph is looked up in the same block."""
    return normalize_for_match(text)


_DETECTED: dict[tuple[str, str], tuple[int, str]] = {}
"""Each note's detected language by path and bytes, with its text's hash: asked by every chunk and
by `chunk_context`, and kept without holding the text."""


def _language_of(source: Source, meta: dict[str, Any]) -> str:
    """The note's language: its frontmatter's `lang` or `language`, else detected from its whole text."""
    declared = meta.get("lang") or meta.get("language")
    if isinstance(declared, str) and declared.strip():
        value = declared.strip().lower()
        value = _LANGUAGE_NAMES.get(value, value)
        return re.split(r"[-_]", value, maxsplit=1)[0] or "en"
    key, text = (source.path, source.sha256), source.text
    found = _DETECTED.get(key)
    # The text's hash is computed once per string object: a note's chunks ask in constant time.
    if found is None or found[0] != hash(text):
        if len(_DETECTED) >= 200_000:  # a watch running for months: start again rather than grow
            _DETECTED.clear()
        found = _DETECTED[key] = (hash(text), detect_language(text))
    return found[1]


REUSABLE_KINDS = frozenset({"markdown", "text"})
"""Sources whose chunks are read one at a time, each from itself and `chunk_context` alone."""


def chunk_context(source: Source) -> str:
    """What a chunk's draft reads of its note besides the chunk itself, hashed.

    A chunk of a Markdown or text note is read from its own kind, text, headings, lines and
    reference time, and from the note's path, title, frontmatter, language and writer: two chunks equal in
    those under equal contexts get equal drafts, so an edited note re-extracts only the chunks
    that changed (`extract.renew`). Keep this in step with what `_ChunkReader` reads of `source`.
    """
    meta = source.meta if isinstance(source.meta, dict) else {}
    # repr, not JSON: frontmatter keys may be dates or numbers. Equal reprs mean equal values for
    # what YAML gives; where a repr is not stable (a set), two contexts only differ: nothing is reused.
    described = repr(
        (source.kind, source.path, source.title, _language_of(source, meta), meta, source.writer)
    )
    return hashlib.sha256(described.encode("utf-8", "surrogatepass")).hexdigest()


def _snake(key: str) -> str | None:
    """A property or field key as a snake_case predicate, or None when it cannot be one."""
    value = re.sub(r"[^a-z0-9]+", "_", key.strip().lower()).strip("_")
    return value if _SNAKE.match(value) else None


def _is_proper_alias(alias: str, name: str) -> bool:
    """An alias is kept only when it looks like a name: at most 4 words, each Capitalized or a number."""
    words = alias.split()
    if not 0 < len(words) <= 4 or alias.casefold() == name.casefold():
        return False
    return all(word[0].isupper() or word[0].isdigit() for word in words)


def _is_bare_name(value: str) -> bool:
    """A field value without a wikilink names an entity when it is short and Capitalized."""
    words = value.split()
    return (
        0 < len(words) <= 5
        and value[0].isupper()
        and _HAS_WORD.search(value) is not None
        and not value.endswith((".", "!", "?"))
    )


_PERIOD_TITLE = re.compile(
    r"^\s*(?P<year>\d{4})-(?:(?P<month>0[1-9]|1[0-2])|W(?P<week>\d\d)|Q(?P<quarter>[1-4]))\b"
)


def _week_monday(title: str) -> date | None:
    """The Monday of the week a week's note is titled by (`2025-W11`), else None."""
    found = _PERIOD_TITLE.match(title)
    if found is None or not found["week"]:
        return None
    try:
        return date.fromisocalendar(int(found["year"]), int(found["week"]), 1)
    except ValueError:  # no such week (2025-W53)
        return None


def _day_numbered(base: date, weekday: int, number: int) -> date | None:
    """The day of that number nearest `base` (in its month, the last or the next), the named weekday if
    one is: "Thu 6th" in a note of Monday 3 March 2025 is Thursday 6 March."""
    days = []
    for shift in (-1, 0, 1):
        year, month = divmod(base.year * 12 + base.month - 1 + shift, 12)
        try:
            days.append(date(year, month + 1, number))
        except ValueError:  # the 31st of a short month, or past the calendar's ends
            continue
    fitting = [day for day in days if day.weekday() == weekday] or days
    # As near before as after ("Mon 17" in a note of 3 March 2025): the base's own month.
    return min(fitting, key=lambda day: (abs(day - base), day.month != base.month)) if fitting else None


def _period_middle(title: str) -> date | None:
    """The middle day of the month, week or quarter a periodic note's title names (`2025-W01`)."""
    found = _PERIOD_TITLE.match(title)
    if found is None:
        return None
    year = int(found["year"])
    try:
        if found["week"]:
            return date.fromisocalendar(year, int(found["week"]), 4)  # a week's Thursday
        month = int(found["month"]) if found["month"] else 3 * int(found["quarter"]) - 1
        return date(year, month, 15)
    except ValueError:  # no such week (2025-W53), or past the calendar's ends
        return None


_ME = frozenset({"me", "myself"})
"""A link's target that names the writer: `[[Me]]`, as vault templates write `author: "[[Me]]"`."""


_A_DAY_LINKED_AFTER = re.compile(
    r"(?:^[\s*_(\[-]*|(?i:\b(?:on|by|since|from|until|till|to|before|after|dated)\s+))"
    rf"(?i:{_A_WEEKDAY},?\s+)?$"
)
"""What comes before a link to a daily note that dates the sentence by it: nothing ("[[2025-03-14]]:
flew to Lisbon"), or a word of time ("Flight to Lisbon on [[2025-04-20]]"); not "Reread
[[2025-03-14]]", "Looked at [[2025-03-14]]": a day's note read again."""


def _not_linked_words(inline: _Inline, dates: list[tuple[int, int, date]]) -> list[tuple[int, int, date]]:
    """The dates but those in a link's text: "Watched [[Yesterday]] with Sam" names a film. A link to
    a daily note (`[[2025-03-04]]`) is a date where a word of time leads it (`_A_DAY_LINKED_AFTER`)."""
    masked = inline.linked
    if not masked:
        return dates
    title = inline.title
    return [
        d
        for d in dates
        if _LINKED not in masked[d[0] : d[1]]
        or (
            any(c.isdigit() for c in title[d[0] : d[1]])
            and _A_DAY_LINKED_AFTER.search(title, max(0, d[0] - 24), d[0]) is not None
        )
    ]


_MET = re.compile(
    r"(?i)\b(?:met(?:\s+up)?(?:\s+with)?|(?:lunch|dinner|breakfast|brunch|coffee|drinks|a\s+drink)\s+with"
    r"|(?:chatted|talked|spoke|hung\s+out|caught\s+up)\s+(?:to|with)|texted|phoned|hugged"
    r"|(?:a|went\s+for\s+a)\s+(?:run|hike|swim|jog)\s+with"
    r"|(?<![\w:])(?:1:1|1-1|one-on-one|1on1)\s+(?:with|w/)"
    # "reviewed by [[Priya]]", "Recommended by [[Anna]]": people do that.
    r"|(?:reviewed|recommended|mentored|coached|interviewed)\s+by"
    # "Called [[Mum]]", "I called [[Mum]]"; not "a note called [[Creativity is …]]".
    r"|(?:^|(?<=I\s)|(?<=[Ww]e\s)|(?<=she\s)|(?<=he\s)|(?<=just\s)|(?<=also\s))called)"
    r"\s+(?:my\s+[a-z]+\s+)?(?P<links>\ue000\d+\ue001(?:(?:,\s*|\s+and\s+|\s*&\s*)\ue000\d+\ue001)*)"
)
"""Whom one meets, eats with, talks to or texts: people ("Met [[Rui]] for coffee", "Had lunch with
[[Kenji]] and [[Aisha]]", "1:1 w/ [[Tom]]"); not whom one has a meeting or a call with (a company may be)."""
_NO_LINKS: frozenset[int] = frozenset()


def _met_links(placeholder: str) -> frozenset[int]:
    """The indices of the links a sentence says the writer met, ate with or talked to."""
    found = [
        int(index) for match in _MET.finditer(placeholder) for index in _LINK_INDEX.findall(match["links"])
    ]
    return frozenset(found) if found else _NO_LINKS


_NAMES_AND_AN_AMPERSAND = re.compile(
    rf"(?:^|[.;:!?][\x20\t]+)[{CAPITALS}][\w'’.-]*(?:[\x20\t][{CAPITALS}][\w'’.-]*)*[\x20\t]&[\x20\t]$"
)
"""A sentence opening with names and an "&" before a match: the match's subject is the name after it."""
_LINK_INDEX = re.compile("\ue000(\\d+)\ue001")


@lru_cache(maxsize=4096)
def _type_from_name(name: str) -> str | None:
    """Cheap type guess from the name itself ("Klipper firmware" is software)."""
    words = name.split()
    if len(words) > 1 and _SOFTWARE_WORDS.match(words[-1]):
        return "software"
    return None


def _starts_with_entity(placeholder: str) -> bool:
    """Whether the sentence's subject is a link or code span (`[[Marlin]] supports …`)."""
    return "\ue000" in placeholder and _ENTITY_SUBJECT.match(placeholder) is not None


_APP_BOILERPLATE = re.compile(
    r"(?i)^\W*(?:transcribed\s+by\b|(?:this\s+)?(?:transcript|summary|recap|note)s?\s+(?:was\s+|were\s+)?"
    r"(?:auto(?:matically)?[-\s])?generated\s+(?:by|with|using)\b|generated\s+(?:by|with)\s+(?:fireflies|otter|"
    r"gemini|zoom|tl;?dv|granola|fathom|read\.ai|copilot)|powered\s+by\s+\S+(?:\s+\S+)?\W*$|recording\s+(?:started|stopped|ended)\W*$"
    r"|meeting\s+ended\s+after\b|(?-i:Invited)(?:[\s,]+(?:(?-i:[A-Z])[\w'’.-]*|\ue000\d+\ue001)){3,}\W*$)"
)
"""A line a notetaker app writes on every note ("Transcribed by https://otter.ai", "Notes generated by
Gemini", "Invited [[Priya Shah]] [[Tom Becker]]"): no one's news."""


def _is_navigation(inline: _Inline) -> bool:
    """A line that only links elsewhere (`Previous: [[a]] · Next: [[b]]`, `← [[Home]]`)."""
    # Placeholders hold no letters: they separate words as the spaces around them would.
    first = _WORD_TOKEN.search(inline.placeholder)
    if first is not None:
        # The first word settles most lines: only a navigation word needs the others read.
        return first.group().lower() in _NAVIGATION_WORDS and _NAVIGATION_WORDS.issuperset(
            map(str.lower, _WORD_TOKEN.findall(inline.placeholder, first.end()))
        )
    return (
        "←" in inline.placeholder
        or "→" in inline.placeholder
        or (len(inline.refs) > 1 and all(ref.name is None for ref in inline.refs))
    )


def _is_clipping(meta: dict[str, Any]) -> bool:
    """Whether a note is a clipped web page: a `url`/`source` link, or filed under clippings."""
    for key in ("url", "source", "source_url"):
        value = meta.get(key)
        if isinstance(value, str) and value.strip().startswith(("http://", "https://")):
            return True
    for key in ("categories", "tags", "type"):
        value = meta.get(key)
        values = value if isinstance(value, list) else [value]
        if any(isinstance(v, str) and "clipping" in v.lower() for v in values):
            return True
    return False


def _labelled_rule(text: str) -> bool:
    """Whether a label opens a rule: "Note to self: never deploy on Fridays", "Rule: always …"."""
    label = _RULE_LABEL.match(text)
    if label is None:
        return False
    rest = text[label.end() :]
    return bool(_HOUSE_RULE.match(rest[:1].upper() + rest[1:]))


def _is_question(text: str) -> bool:
    """Whether a candidate only asks: it ends with "?", opens as a question does ("Did …", "Would
    …", "Why …"), and states nothing before ("Tom works at Google now. Crazy, right?" and "Anna
    moved to Berlin — isn't that wild?" state something)."""
    stripped = text.rstrip(" \t*_\"'”’)]")
    return (
        stripped.endswith("?")
        and not _STATED_BEFORE.search(stripped)
        # A diary's question leaves its words out ("Think it went OK?", "Switched CI to Buildkite?");
        # with a comma or a dash it may have said something first ("Met Ana today, who knew?").
        and (
            _QUESTION_START.match(stripped) is not None
            # Not "Passed my driving test!?", "Broke my wrist skiing??": emphasis, not asking.
            or (not _CLAUSE_MARK.search(stripped, 0, len(stripped) - 1) and stripped[-2:-1] not in ("!", "?"))
        )
    )


_CLAUSE_MARK = re.compile(r"[,;:—–]|\s-\s")
_ANOTHER_CLAUSE = re.compile(
    r"[;:]|,\s+(?:and\s+|but\s+)?(?:she|he|they|it|I|we|her|his|their)\b|\s(?:and|but)\s+(?:she|he|they)\b"
)
"""A clause of its own after the first: "Ana works at Stripe; she ran the office 2019–2021"."""


_LATER_CLAUSE = re.compile(
    r"[;:]|,\s+(?:and\s+|but\s+)?(?:she|he|they|it|I|we|his|her|their|my|our)\b"
    r"|\s(?:and|but|while|whereas)\s+(?:(?:she|he|they|it|I|we|his|her|their|my|our)\b"
    r"|(?P<verb>(?:is|are|was|were|will|has|have|had|am|[a-z]+(?:s|ed|ing))\b))"
)
"""Another clause after a relation's: one with a subject of its own, or a verb of its own ("but is
moving to Utrecht"), which `verb` names."""


_STATED_BEFORE = re.compile(r"[.!…](?=\s)")
_QUESTION_START = re.compile(
    r"(?i)^\W*(?:who|whom|whose|what|which|when|where|why|how|is|are|am|was|were|do|does|did|can|could"
    r"|would|should|will|shall|may|might|must|have|has|had|isn['’]t|aren['’]t|don['’]t|doesn['’]t"
    r"|didn['’]t|won['’]t|est-ce|pourquoi|comment|quand|où|qui|quoi|quel|quelle)\b"
)


def _overlaps_any(spans: list[tuple[int, int, date]], starts: list[int], start: int, end: int) -> bool:
    """Whether `start`–`end` overlaps one of `spans` (in order, not overlapping; `starts` their starts)."""
    index = bisect_right(starts, start) - 1
    return (index >= 0 and spans[index][1] > start) or (index + 1 < len(spans) and spans[index + 1][0] < end)


def _month_day_near(today: date, number: int, *, back: bool) -> date | None:
    """The next day of the month numbered so after `today` (the last one before it when `back`)."""
    if not 1 <= number <= 31:
        return None
    step = -1 if back else 1
    index = today.year * 12 + today.month - 1
    for months in range(13):  # the 31st is at most two months away; a year of tries ends any search
        year, month = divmod(index + step * months, 12)
        try:
            day = date(year, month + 1, number)
        except ValueError:
            continue  # no 31st in April
        if (day < today) if back else (day > today):
            return day
    return None


def _one_family(first: str, second: str) -> bool:
    """Whether two names are two versions or editions of one thing: "TrueNAS Core" and "TrueNAS Scale",
    "Ubuntu 22.04" and "Ubuntu 24.04", "Ubuntu" and "Ubuntu 24.04" (not "Raspberry Pi" and "Raspberry Pi
    OS", a thing and what it runs)."""
    one, two = first.casefold().split(), second.casefold().split()
    if not one or not two or one[0] != two[0]:
        return False
    shorter, longer = sorted((one, two), key=len)
    if longer[: len(shorter)] != shorter or len(longer) == len(shorter):
        return True
    return longer[len(shorter)][:1].isdigit()


def _nearest_year(day: date, reference: date) -> date:
    """The day of that month and day nearest the reference ("Jan 2" in a note of 30 December: next year)."""
    nearest = day
    for year in (reference.year - 1, reference.year, reference.year + 1):
        try:
            candidate = day.replace(year=year)
        except ValueError:  # 29 February
            continue
        if abs(candidate - reference) < abs(nearest - reference):
            nearest = candidate
    return nearest


def _range_firsts(title: str, dates: list[tuple[int, int, date]]) -> list[tuple[int, int, date]]:
    """Each date that ends a range of days ("12–15 July 2025") as the range's first day, from its start."""
    firsts = []
    for start, end, day in dates:
        match = _RANGE_FIRST.search(title[max(0, start - 16) : start])
        if match is not None and 0 < int(match["day"]) < day.day:
            start, day = start - len(match[0]), day.replace(day=int(match["day"]))
        firsts.append((start, end, day))
    return firsts


def _single_sentence(text: str) -> bool:
    """Whether a candidate holds one sentence only."""
    return len(_sentence_spans(text)) == 1


def _mentions(text: str, name: str) -> bool:
    """Whether `name` occurs in `text` as whole words."""
    start = text.find(name)
    while start >= 0:
        end = start + len(name)
        if (start == 0 or not text[start - 1].isalnum()) and (end == len(text) or not text[end].isalnum()):
            return True
        start = text.find(name, start + 1)
    return False


_MARKUP = re.compile(r"[*~=`\[\]<>|#]+")


def _may_hold_secrets(chunk: Chunk, source: Source) -> bool:
    """Whether any text a draft of this chunk can hold might hide a secret.

    Everything in a draft comes from the chunk, its headings, the source title and frontmatter;
    a secret can only appear in a draft if it appears in them with whitespace collapsed (titles join
    lines) and markup removed (titles drop `**` and brackets), which is the form screened here.
    """
    pieces = [chunk.text, source.title, *chunk.heading_path, *(str(v) for v in source.meta.values())]
    return bool(find_secrets(" ".join(_MARKUP.sub("", " ".join(pieces)).split())))


def _unique(names: list[str]) -> list[str]:
    seen: set[str] = set()
    out: list[str] = []
    for name in names:
        folded = name.casefold()
        if folded not in seen:
            seen.add(folded)
            out.append(name)
    return out


def _secret_values(chunk: Chunk, source: Source) -> SecretValues:
    pieces = [chunk.text, source.title, *chunk.heading_path, *(str(v) for v in source.meta.values())]
    return secret_values("\n".join(pieces))


def _mask_draft(raw: dict[str, Any], values: SecretValues) -> dict[str, Any]:
    """Mask every secret left in the draft's text fields; a quote holding one is dropped, not masked."""

    def mask(value: Any) -> tuple[Any, bool]:
        if isinstance(value, str):
            masked, kinds = mask_values(value, values)
            return masked, bool(kinds)
        if isinstance(value, list):
            results = [mask(item) for item in value]
            return [item for item, _ in results], any(found for _, found in results)
        return value, False

    for key in ("episode_name", "source_description", "skip_reason"):
        raw[key], _ = mask(raw[key])
    for kind in ("nodes", "entities", "relations"):
        for item in raw[kind]:
            found_any = False
            for key, value in list(item.items()):
                if key == "supporting_text":
                    if value is not None and (find_secrets(value) or any(v in value for v in values)):
                        item[key] = None
                        found_any = True
                    continue
                item[key], found = mask(value)
                found_any = found_any or found
            if kind == "nodes" and found_any and item.get("sensitivity") != "confidential":
                item["sensitivity"] = "confidential"
    return raw


__all__ = ["EXTRACTOR", "detect_language", "extract_chunk", "normalize_tag"]
