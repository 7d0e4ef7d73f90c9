"""What a note is about, by what its properties say and where it is kept: a person, a book, a place.

Read by the extractor (a note about one thing is an entity of that type) and by entity resolution
(an entity others link to takes the type of its note, when their words give it none).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any


def _word_set(words: str) -> frozenset[str]:
    """The whitespace-separated words of a string, as a set."""
    return frozenset(words.split())


DAY_TITLE = re.compile(
    r"^\s*(?:\d{4}[-./_]\d{1,2}[-./_]\d{1,2}|\d{1,2}[-./_]\d{1,2}[-./_]\d{4})"
    r"(?:[\s,_-]+(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*)?\s*$",
    re.IGNORECASE,
)
"""A daily note's title: a day, maybe with its weekday (`2024-05-05`, `2024-05-05 Sunday`)."""
PERSON_TYPES = _word_set(
    """
    person people human contact npc character friend colleague coworker relative mentor teacher student
    musician author writer actor doctor employee founder investor
    """
)
"""Types that say a person (a game's `npc`, a `friend`): one kind to resolution, and a person's note. Not
a `pc` (a computer as often as a player character), `artist` (a band), `player` or `manager` (software)."""
ANIMAL_TYPES = _word_set("pet dog cat horse animal rabbit bird hamster fish")
"""Note types of animals, which the verbs of people's lives ("is on gabapentin", "lives with") fit too."""
GUESS = "likely_"
"""Before an entity type guessed from a line's wording (`likely_person`: "Had lunch with Kenji"): pass 2
never splits a name into homonyms by it nor keeps two names apart, and shows it only where nothing
states a type."""


def guessed(entity_type: str) -> bool:
    """Whether an entity type was guessed from wording (`GUESS`) rather than stated."""
    return entity_type.startswith(GUESS)


WIKILINK = re.compile(r"(?<!!)\[\[(?P<body>[^\[\]\n]+)\]\]")
"""A wikilink (not an embed), its body as written."""
_SNAKE = re.compile(r"^[a-z][a-z0-9_]*$")

_CATEGORY_TYPES: dict[str, str] = {
    "people": "person", "person": "person", "companies": "organization", "organizations": "organization",
    "places": "place", "projects": "project", "books": "book", "movies": "movie", "shows": "show",
    "events": "event", "products": "product", "software": "software", "tools": "software",
    "games": "game", "board games": "game", "board_games": "game", "video games": "game",
    "video_games": "game", "podcasts": "podcast",
    "albums": "album", "recipes": "recipe", "trips": "trip", "meetings": "meeting",
}  # fmt: skip
_SAME_KIND: dict[str, str] = {
    "people": "person", "company": "organization", "organisation": "organization", "org": "organization",
    "location": "place",
}  # fmt: skip
"""A note's `type` that is another name of a kind the extractor gives: one kind in the vault, not two
(`type: company` beside the organizations the sentences name)."""
_KIND_TAGS: dict[str, str] = {
    "person": "person", "people": "person", "contact": "person", "contacts": "person",
    "character": "person", "characters": "person", "npc": "person", "npcs": "person",
    "company": "organization", "companies": "organization", "organization": "organization",
    "organisation": "organization", "org": "organization", "place": "place", "places": "place",
    "project": "project", "projects": "project",
}  # fmt: skip
"""A note's tag that says what its subject is (`tags: [person]`); not a work's (`#book` is as often
what a diary line is about)."""
_LIST_WORDS = _word_set(
    """
    index readme overview list lists directory moc contacts people persons companies organizations places
    team teams template templates dashboard hub all
    """
)
"""Words of a note's title that make it a list of things kept together, not one of them ("Contacts",
"People MOC", "Team directory")."""
_KIND_FOLDERS: dict[str, str] = {
    **{folder: "person" for folder in ("people", "persons", "contacts", "person")},
    **{folder: "organization" for folder in ("companies", "organizations", "organisations", "orgs")},
    **{folder: "place" for folder in ("places", "locations", "cities")},
}
"""The folder a note about one thing sits in, as vaults name them: `People/Ana Souza.md` is a person
(not `Projects/`: a project's folder holds its meetings and plans too)."""
_CITATION_KEYS = _word_set("citekey citation-key citation_key citationKey")
"""Properties only a literature note (Zotero and its plugins) has: it is about a paper or a book."""
_KIND_WORDS = frozenset(
    [
        "person",
        "people",
        "contact",
        "contacts",
        "npc",
        "character",
        "friend",
        "colleague",
        "coworker",
        "family",
        "relative",
        "client",
        "customer",
        "pet",
        "animal",
        "dog",
        "cat",
        "puppy",
        "kitten",
        "horse",
        "rabbit",
        "bird",
        "vendor",
        "supplier",
        "mentor",
        "teacher",
        "student",
        "artist",
        "musician",
        "author",
        "writer",
        "actor",
        "doctor",
        "employee",
        "manager",
        "founder",
        "investor",
        "candidate",
        "partner",
        "user",
        "player",
        "pc",
        "company",
        "organization",
        "organisation",
        "org",
        "team",
        "faction",
        "group",
        "band",
        "university",
        "school",
        "college",
        "startup",
        "agency",
        "institution",
        "club",
        "employer",
        "business",
        "brand",
        "guild",
        "kingdom",
        "place",
        "location",
        "city",
        "country",
        "region",
        "town",
        "village",
        "state",
        "neighborhood",
        "neighbourhood",
        "river",
        "island",
        "mountain",
        "building",
        "venue",
        "museum",
        "park",
        "restaurant",
        "cafe",
        "bar",
        "hotel",
        "tavern",
        "inn",
        "shop",
        "store",
        "project",
        "tool",
        "app",
        "library",
        "framework",
        "software",
        "product",
        "device",
        "hardware",
        "printer",
        "machine",
        "car",
        "bike",
        "camera",
        "phone",
        "laptop",
        "computer",
        "server",
        "instrument",
        "database",
        "plugin",
        "api",
        "protocol",
        "repository",
        "repo",
        "dataset",
        "model",
        "book",
        "movie",
        "film",
        "show",
        "series",
        "tvshow",
        "tv_show",
        "event",
        "meeting",
        "trip",
        "conference",
        "workshop",
        "concept",
        "topic",
        "idea",
        "game",
        "video_game",
        "board_game",
        "boardgame",
        "podcast",
        "article",
        "paper",
        "album",
        "song",
        "recipe",
        "course",
        "anime",
        "manga",
        "comic",
        "novel",
        "documentary",
        "newsletter",
        "channel",
        "playlist",
        "video",
        "painting",
        "artwork",
        "poem",
        "plant",
        "animal",
        "pet",
        "creature",
        "monster",
        "deity",
        "god",
        "species",
        "item",
        "vehicle",
        "language",
        "service",
        "website",
        "dish",
        "ingredient",
        "weapon",
        "spell",
        "quest",
        "magic_item",
        "campaign",
        "class",
        "race",
        "ship",
        "planet",
        "religion",
        "dungeon",
        "stock",
        "medication",
        "exercise",
        "wine",
        "beer",
        "tea",
        "coffee",
    ]
)
"""What a note's `type:` may say that is a kind of thing: a note's `type` is as often what kind of
page the note is (`daily`, `moc`, `note`) or a field of a game's rules (`type: save` on a spell) as what its
subject is, so only these words type its entity; `entity_type:` is taken as it is written."""


def note_type(meta: Mapping[str, Any], title: str, path: str) -> str | None:
    """The type of what a note is about: its `entity_type` as written, a `type` or `categories` naming
    a kind of thing, a literature note's `paper`, else where it is kept (`kept_kind`)."""
    for key in ("entity_type", "type"):
        value = meta.get(key)
        if isinstance(value, list) and len(value) == 1:
            value = value[0]
        if isinstance(value, str):
            link = WIKILINK.search(value)  # `type: "[[People]]"`, as categories are written
            word = link.group("body").split("|")[0] if link else value
            candidate = re.sub(r"[\s-]+", "_", word.strip().lower())
            if key == "type":
                if candidate in _CATEGORY_TYPES:  # a category's plural: `type: "[[People]]"`
                    return _CATEGORY_TYPES[candidate]
                if candidate in _KIND_WORDS:  # the user's own word for the kind, as written
                    return _SAME_KIND.get(candidate, candidate)
            elif _SNAKE.match(candidate) and len(candidate) <= 30:
                return candidate
    categories = meta.get("categories")
    for value in categories if isinstance(categories, list) else [categories]:
        if isinstance(value, str):
            link = WIKILINK.search(value)
            word = (link.group("body") if link else value).split("|")[0].strip().lower()
            if word in _CATEGORY_TYPES:
                return _CATEGORY_TYPES[word]
    if not _CITATION_KEYS.isdisjoint(meta):  # a literature note (Zotero): about a work
        return "paper"
    if "authors" in meta and ("year" in meta or path.rsplit("/", 1)[-1].startswith("@")):
        # The Citations plugin's literature note (`title`, `authors`, `year`; named `@citekey.md`): its
        # authors wrote the work, not the note.
        return "paper"
    if not _BOOK_KEYS.isdisjoint(key.lower() for key in meta if isinstance(key, str)):
        return "book"  # what the Book Search plugin and reading logs write: about a book
    if ("author" in meta or "authors" in meta) and (
        _READING_TAGS.intersection(_tag_words(meta))
        or not _READING_KEYS.isdisjoint(key.lower() for key in meta if isinstance(key, str))
        or not _READING_TAGS.isdisjoint(part.lower() for part in path.split("/")[:-1])
    ):
        # `author: James Clear` with `tags: [books]`, a `rating`, or kept in `Books/`: the book's
        # author, not the note's.
        return "book"
    if "kindle-sync" in meta:
        return "book"  # the Kindle plugin's highlights of a book
    if ("author" in meta or "authors" in meta) and (
        _PAPER_TAGS.intersection(_tag_words(meta))
        or not _PAPER_KEYS.isdisjoint(key.lower() for key in meta if isinstance(key, str))
        or not _PAPER_TAGS.isdisjoint(part.lower() for part in path.split("/")[:-1])
    ):
        # `author: Emanuele Rossi` with `tags: [paper]`, a `doi`, or kept in `Papers/`: the paper's
        # author, not the note's (not an article's: its highlights are its author's words; nor a
        # `conference:` trip report, or a `journal:`, the author's own).
        return "paper"
    return kept_kind(meta, title, path)


_PAPER_TAGS = _word_set("paper papers preprint preprints research-paper research-papers")
_PAPER_KEYS = _word_set("doi arxiv")
"""Tags, folders and properties of a note about a paper: with an `author`, that is the paper's."""
_BOOK_KEYS = _word_set("isbn isbn10 isbn13 publisher localcover total_page totalpage goodreads")
"""Properties only a note about a book has (not `publish`, which Obsidian Publish sets too, nor `cover`)."""
_READING_TAGS = _word_set("book books reading booknote booknotes book-notes reading-notes literature")
_READING_KEYS = _word_set("rating pages date_read read finished started_reading year_read my_rating stars")
"""Properties of a reading log's note: with an `author`, the note is about that author's book."""
"""Tags of a note about a book: with an `author`, that is the book's."""


def _tag_words(meta: Mapping[str, Any]) -> set[str]:
    """A note's tags (and `type`, `category`), lowercased, without `#`, nested ones by each part."""
    words: set[str] = set()
    for key in ("tags", "tag", "category", "categories", "type"):
        value = meta.get(key)
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, str):
                for tag in re.split(r"[\s,]+", item):
                    words.update(part for part in tag.strip("#").lower().split("/") if part)
    return words


def kept_kind(meta: Mapping[str, Any], title: str, path: str) -> str | None:
    """What a note is about by where it is kept, as most vaults keep people: tagged `person`, or in
    a folder `People/` (a person, an organization, a place, or a project by its tag; not a day's note)."""
    if DAY_TITLE.match(title) is not None or not _LIST_WORDS.isdisjoint(title.casefold().split()):
        return None
    for tag in note_tags(meta):
        kind = _KIND_TAGS.get(tag.lstrip("#").casefold())
        if kind is not None:
            return kind
    folder = path.rsplit("/", 2)[-2].casefold() if "/" in path else ""
    return _KIND_FOLDERS.get(folder)


def note_tags(meta: Mapping[str, Any]) -> list[str]:
    """The tags a note's `tags` (or `tag`) property gives, as written."""
    tags: list[str] = []
    for key in ("tags", "tag"):
        value = meta.get(key)
        values = (
            value if isinstance(value, list) else re.split(r"[,\s]+", value) if isinstance(value, str) else []
        )
        tags.extend(str(v) for v in values if v is not None and str(v).strip())
    return tags
