"""Entity resolution: which mentions, under which spellings and types, are one entity."""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_left, bisect_right
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from copy import copy
from dataclasses import dataclass, field, replace
from operator import attrgetter
from typing import TYPE_CHECKING

from kgvault.corrections import Correction, Corrections
from kgvault.extract import Extraction
from kgvault.names import normalize_name, note_aliases, slugify
from kgvault.note_kind import ANIMAL_TYPES, GUESS, PERSON_TYPES, guessed, note_type
from kgvault.properties import plain_text
from kgvault.provenance import chunk_evidence, evidence_order, item_evidence
from kgvault.records import Entity, Evidence, Source, record

if TYPE_CHECKING:
    from kgvault.link_memory import PerDraft

NOTE_KINDS = frozenset({"markdown", "text"})
"""Sources that can be an entity's own note; a conversation or a draft file is about many things."""
FUZZY_MIN_SCORE = 92.0
"""rapidfuzz ratio (0–100) two names need to be read as one misspelled name."""
FUZZY_MIN_LENGTH = 8
"""Shorter names are too often different words one letter apart ("Kevin", "Keven")."""
RARE_MENTIONS = 2
"""A misspelling is rare: only names mentioned at most this often are matched against the others."""

# A last word that names the kind of thing, not the thing: "Marlin firmware" is Marlin.
_KIND_SUFFIXES = frozenset([
    "firmware", "software", "app", "application", "library", "framework", "database", "db", "plugin",
    "package", "tool", "service", "company", "inc", "ltd", "llc", "corp", "corporation", "gmbh", "project",
    "language", "limited", "plc", "co", "pty", "llp", "ag", "bv",
])  # fmt: skip
_KIND_PREFIXES = frozenset(["project"])
"""A first word that names the kind of thing: "Project Falcon" is Falcon."""
WELL_KNOWN_NAMES: tuple[tuple[str, str], ...] = (
    ("postgres", "postgresql"),
    ("mongo", "mongodb"),
    ("k8s", "kubernetes"),
    ("vscode", "visual studio code"),
    ("vs code", "visual studio code"),
    ("nodejs", "node js"),
    ("aws", "amazon web services"),
    ("gcp", "google cloud platform"),
    ("ms teams", "microsoft teams"),
)
"""Normalized names of one thing that no spelling rule joins: each pair is one entity when both
are named (`ontology.md` lists the join in the pair's order)."""
_LEGAL_FORMS = frozenset(
    ["inc", "ltd", "llc", "corp", "corporation", "gmbh", "limited", "plc", "co", "pty", "llp", "ag", "bv"]
)
"""Kind suffixes that say a company."""
# Types that name the same kind of thing; any other type is a kind of its own.
_TYPE_CLASSES = {
    **dict.fromkeys(sorted(PERSON_TYPES), "person"),
    **dict.fromkeys(
        ["organization", "organisation", "company", "business", "brand", "org", "employer", "client",
         "customer", "supplier", "vendor", "agency", "firm"],
        "organization",
    ),
    **dict.fromkeys(["place", "location", "city", "country", "region", "venue", "address"], "place"),
    **dict.fromkeys([
        "software", "tool", "firmware", "library", "framework", "database", "db", "app", "application",
        "service", "plugin", "package", "programming_language", "language", "runtime", "os",
    ], "software"),
}  # fmt: skip
_UNTYPED = "concept"
NoteNames = tuple[str, str, str, tuple[str, ...], str | None]
"""What a note says of its names: path, kind, title, frontmatter aliases, the type of what it is about."""
HOMONYM_SEPARATOR = "\x1f"
"""Between a shared name and a kind in the key of one of several entities of that name."""
_NO_CORRECTIONS = Corrections()
_DIGITS = re.compile(r"\d+")


def type_class(entity_type: str) -> str | None:
    """The kind an entity type belongs to, or None for the untyped `concept`."""
    if entity_type == _UNTYPED:
        return None
    entity_type = entity_type.removeprefix(GUESS)
    return _TYPE_CLASSES.get(entity_type, entity_type)


@dataclass
class EntityGroup:
    """Every mention resolved to one entity, before it becomes an `Entity` record."""

    spellings: Counter[str] = field(default_factory=Counter)
    types: Counter[str] = field(default_factory=Counter)
    descriptions: list[tuple[Evidence, str]] = field(default_factory=list)
    evidence: set[Evidence] = field(default_factory=set)
    note_title: str | None = None
    note_type: str | None = None
    """What its note says it is (`type: book`), for when no mention gives a type."""
    note_aliases: set[str] = field(default_factory=set)
    stated_aliases: set[str] = field(default_factory=set)
    """Aliases the drafts state for it (`[[Klipper|Klipper Fw]]`)."""
    title_override: str | None = None
    type_override: str | None = None
    homonym: bool = False
    """Another entity shares this one's name under a different type: each id says its type."""
    full_name: str | None = None
    """The full name of a person first named alone ("Ana" joined to Ana Lopez): its title and id."""

    def title(self) -> str:
        """The corrected title, else the note's title, else the most frequent spelling (one clean line)."""
        if self.title_override:
            return self.title_override
        if self.note_title:
            return plain_text(self.note_title) or self.note_title
        if self.full_name:
            return plain_text(self.full_name) or self.full_name
        return plain_text(min(self.spellings.items(), key=lambda item: (-item[1], item[0]))[0])

    def entity_type(self) -> str:
        """The corrected type, else its note's when an animal's (`type: pet`), else the most frequent
        stated type, else its note's, else the most frequent guessed one, else `concept`."""
        if self.type_override:
            return self.type_override
        if self.note_type in ANIMAL_TYPES:
            # A pet's note says what a line's verb cannot: "[[Miso]] is on gabapentin" is no person.
            return self.note_type
        typed = [(count, name) for name, count in self.types.items() if name != _UNTYPED]
        stated = [(count, name) for count, name in typed if not guessed(name)]
        if stated:
            return min(stated, key=lambda t: (-t[0], t[1]))[1]
        if self.note_type or not typed:
            return self.note_type or _UNTYPED
        # Only guesses ("Had lunch with Kenji"): the one guessed most, as the type it guesses.
        return min(typed, key=lambda t: (-t[0], t[1]))[1].removeprefix(GUESS)

    def wanted_id(self) -> str:
        """The page name this entity asks for; homonyms add their kind ("apple-food", "apple-organization").

        Unlike the title it does not follow mention counts, so a note added or deleted elsewhere
        never moves the page (and the notes you wrote on it): it is the corrected title, else the
        note's title, else the first spelling in code-point order, which changes only when no note
        spells the name that way any more.
        """
        name = (
            self.title_override
            or self.note_title
            or self.full_name
            or min(self.spellings, default="")
            or self.title()
        )
        if not self.homonym:
            return slugify(name)
        kind = type_class(self.entity_type()) or self.entity_type()
        return slugify(f"{name} {kind.replace('_', ' ')}")


@dataclass(frozen=True, slots=True)
class Join:
    """Why two names were read as one entity (or kept apart): a line of ontology.md."""

    name: str
    other: str
    reason: str


class _UnionFind:
    """Union-find over normalized names; the smaller key is the root, so input order does not matter."""

    def __init__(self) -> None:
        self.parent: dict[str, str] = {}

    def find(self, key: str) -> str:
        """The root of a name (added as its own root if new), halving the path walked on the way."""
        parent = self.parent  # asked 100,000 times a pass: one attribute read, not five per step
        up = parent.setdefault(key, key)
        while up != key:
            grandparent = parent[key] = parent[up]  # the name now points past its parent
            key, up = grandparent, parent[grandparent]
        return key

    def known_root(self, key: str) -> str | None:
        """The root of a name already in the forest; None for any other, which is not added."""
        return self.find(key) if key in self.parent else None

    def union(self, a: str, b: str) -> None:
        root_a, root_b = self.find(a), self.find(b)
        if root_a != root_b:
            low, high = sorted((root_a, root_b))
            self.parent[high] = low


# Not frozen: a corpus has one mention per entity a draft names, and a frozen init costs 4x more.
@dataclass(slots=True)
class _Mention:
    key: str
    spelling: str
    entity_type: str
    description: str | None
    evidence: Evidence
    chunk: int


_SPELLED = attrgetter("key", "spelling")
_TYPED = attrgetter("key", "entity_type")
_SPELLING = attrgetter("spelling")
_TYPE = attrgetter("entity_type")
_EVIDENCE = attrgetter("evidence")


Edge = tuple[int, str, str, str]
"""(precedence, name, other name, reason): a join to make, in the order of the tuple."""
DraftMentions = tuple[list[_Mention], list[Edge], list[tuple[str, str, str, str]]]
"""One draft's entity mentions, the aliases it states (as joins), and each of those as written:
(alias key, alias spelling, the entity's name, its type)."""


class Resolution:
    """The entities of a corpus and how to find the one a mention means."""

    def __init__(self) -> None:
        self.names = _UnionFind()
        self.groups: dict[str, EntityGroup] = {}
        self.split: dict[str, tuple[dict[str, str], str]] = {}
        """Per name root shared by homonyms: entity key per type class, and the key untyped mentions get."""
        self.joins: dict[str, list[Join]] = defaultdict(list)
        """Per entity key, the joins that made it (and homonyms kept apart from it)."""
        self.spelling_of: dict[str, str] = {}
        self.spellings: Mapping[str, Counter[str]] = {}
        """Per name, how often each spelling of it is mentioned (0: known as an alias or a note's name)."""
        self.types: Mapping[str, Counter[str]] = {}
        """Per mentioned name, how often it is mentioned as each type."""
        self.outcomes: dict[Correction, str] = {}
        """What became of each correction of entities: done, or which names were not found."""
        self.gathered: Mapping[str, _Gathered] = {}
        """Per name root, its mentions and the groups made of them, as gathered (see `_group`)."""
        self.full_names: dict[str, str] = {}
        """Per name root a person's first name joined, the full name it was joined to."""
        self.first_names: frozenset[str] = frozenset()
        """One-word names of people that a full name starting with them might be (`_first_name_edges`)."""

    def key_of(self, name: str, entity_type: str | None = None) -> str | None:
        """The entity key a mention means: by its name, and by its type when homonyms share the name."""
        key = normalize_name(name)
        if not key:
            return None
        # A lookup never adds the name: a patched resolution shares its forest with the last one's,
        # and in a long watch every name ever looked up would stay in it.
        root = self.names.known_root(key)
        if root is None:
            return None
        if root in self.split:
            by_class, default = self.split[root]
            kind = type_class(entity_type) if entity_type else None
            return by_class.get(kind, default) if kind else default
        return root if root in self.groups else None

    def known_names(self) -> dict[str, str]:
        """Every normalized name that means an entity, with that entity's key (untyped reading)."""
        known = {}
        for key in list(self.names.parent):
            found = self.key_of_normalized(key)
            if found is not None:
                known[key] = found
        return known

    def merges(self, entity_id: Mapping[str, str]) -> tuple[tuple[str, str, str], ...]:
        """(entity id, the names joined, why) for every join, homonym split and refused join."""
        rows = set()
        for key, joins in self.joins.items():
            if key not in entity_id:
                continue
            for join in joins:
                first, second = (
                    self.spelling_of.get(join.name, join.name),
                    self.spelling_of.get(join.other, join.other),
                )
                names = first if join.name == join.other else f"{first} + {second}"
                rows.add((entity_id[key], names, join.reason))
        return tuple(sorted(rows))

    def key_of_normalized(self, key: str) -> str | None:
        root = self.names.known_root(key)
        if root is None:
            return None
        if root in self.split:
            return self.split[root][1]
        return root if root in self.groups else None


@dataclass(frozen=True)
class Resolved:
    """A pass's resolution with what it was made from: the next pass may patch it instead."""

    resolution: Resolution
    drafts: list[DraftMentions]
    """Each draft's mentions and stated aliases, in the drafts' order."""
    notes: Sequence[NoteNames]
    """What the notes say of their names: path, kind, title, frontmatter aliases, and what they are about."""
    corrections: Corrections
    sources: Sequence[Source] = ()
    """The sources `notes` were read from."""


def resolve_entities(
    sources: Sequence[Source],
    extractions: Sequence[Extraction],
    corrections: Corrections = _NO_CORRECTIONS,
    kept: PerDraft[DraftMentions] | None = None,
    last: Resolved | None = None,
) -> Resolved:
    """Resolve every entity mention: exact names, aliases, kind suffixes, fuzzy spellings, then types.

    The user's corrections outrank every rule: merges join first, kept-apart names never join,
    renames and retypes apply to the entity a name resolves to. `kept` holds each draft's mentions
    from the last pass (a rebuild reads only the changed drafts' anew), `last` the last pass's
    resolution: when the notes and corrections are the same and the drafts state the same aliases
    and name the same names (or known names anew, where no rule reads them differently), it is
    patched where mentions moved instead of being made again.
    """
    drafts = _draft_list(extractions, kept)
    notes = _notes(sources, last)
    if last is not None and notes == last.notes and corrections == last.corrections:
        patched = _patched(last, drafts)
        if patched is not None:
            return Resolved(patched, drafts, notes, corrections, sources)
    gathered = last.resolution.gathered if last is not None else None
    resolution = _resolve(sources, drafts, corrections, gathered, notes)
    return Resolved(resolution, drafts, notes, corrections, sources)


def _notes(sources: Sequence[Source], last: Resolved | None) -> list[NoteNames]:
    """What each note says of its names; a source that is last pass's very object said it then."""
    if last is None or len(last.sources) != len(sources):
        return [_note(source) for source in sources]
    return [
        said if source is before else _note(source)
        for source, before, said in zip(sources, last.sources, last.notes, strict=True)
    ]


def _note(source: Source) -> NoteNames:
    return (
        source.path,
        source.kind,
        source.title,
        note_aliases(source.meta),
        note_type(source.meta, source.title, source.path) if source.kind in NOTE_KINDS else None,
    )


def _draft_list(
    extractions: Sequence[Extraction], kept: PerDraft[DraftMentions] | None
) -> list[DraftMentions]:
    """Each draft's mentions (numbered by chunk) and stated aliases; `kept` gives back unchanged ones."""
    drafts = []
    for number, extraction in enumerate(extractions):
        if kept is None:
            drafts.append(_draft_mentions(extraction, number))
            continue
        found = kept.get(extraction, _draft_mentions)
        if found[0] and found[0][0].chunk != number:  # a draft's mentions are numbered together
            for mention in found[0]:
                mention.chunk = number  # its chunk's place in this pass (a kept mention's was another)
        drafts.append(found)
    return drafts


def _patched(last: Resolved, drafts: list[DraftMentions]) -> Resolution | None:
    """The last resolution with the changed drafts' mentions in place; None when a rule may read
    them differently.

    Mentions of one name in a draft all cite that draft's chunk (or its own turn or pointer), so
    an entity's evidence from a changed draft is replaced as a whole. Drafts that name other names
    than before are patched only when every rule reads the corpus as before (`_moved_within`).
    """
    before = last.drafts
    if len(before) != len(drafts):
        return None
    changed = [(old, new) for old, new in zip(before, drafts, strict=True) if old is not new]
    moved = False
    for (old_mentions, old_edges, old_spelled), (new_mentions, new_edges, new_spelled) in changed:
        if old_edges != new_edges or old_spelled != new_spelled:
            return None
        moved = moved or [_name_of(m) for m in old_mentions] != [_name_of(m) for m in new_mentions]
    resolution = copy(last.resolution)
    if moved:
        # A correction names names: which one it finds may follow the counts. Redone in full.
        counted = None if last.corrections.items else _moved_within(last.resolution, changed, last.drafts)
        if counted is None:
            return None
        resolution.spellings, resolution.types = counted
    resolution.groups = dict(resolution.groups)
    patches: dict[str, _Patch] = defaultdict(_Patch)
    for (old_mentions, _, _), (new_mentions, _, _) in changed:
        for old in old_mentions:
            patch = patches[_group_key(resolution, old)]
            patch.gone.add(old.evidence)
            if moved:
                patch.spellings[old.spelling] -= 1
                patch.types[old.entity_type] -= 1
        for new in new_mentions:
            patch = patches[_group_key(resolution, new)]
            patch.cited.add(new.evidence)
            if new.description:
                patch.said.append((new.evidence, new.description))
            if moved:
                patch.spellings[new.spelling] += 1
                patch.types[new.entity_type] += 1
    for key, patch in patches.items():
        group = resolution.groups[key]
        resolution.groups[key] = replace(
            group,
            spellings=_shifted(group.spellings, patch.spellings),
            types=_shifted(group.types, patch.types),
            descriptions=[item for item in group.descriptions if item[0] not in patch.gone] + patch.said,
            evidence=(group.evidence - patch.gone) | patch.cited,
        )
    return resolution


@dataclass
class _Patch:
    """What the changed drafts take from one entity group and give it."""

    gone: set[Evidence] = field(default_factory=set)
    cited: set[Evidence] = field(default_factory=set)
    said: list[tuple[Evidence, str]] = field(default_factory=list)
    spellings: Counter[str] = field(default_factory=Counter)
    types: Counter[str] = field(default_factory=Counter)


def _shifted(counts: Counter[str], by: Counter[str]) -> Counter[str]:
    """The counts moved by these steps, without the ones that reach zero (as counting anew gives)."""
    if not any(by.values()):
        return counts
    shifted = Counter(counts)
    for name, step in by.items():
        shifted[name] += step
        if shifted[name] <= 0:
            del shifted[name]
    return shifted


def _moved_within(
    resolution: Resolution,
    changed: Sequence[tuple[DraftMentions, DraftMentions]],
    drafts: Sequence[DraftMentions],
) -> tuple[dict[str, Counter[str]], dict[str, Counter[str]]] | None:
    """Each name's spellings and types counted after the changed drafts, when no rule reads the
    corpus differently for them; else None.

    That holds when no first name or full name a first name may be (`Resolution.first_names`)
    comes or goes, when every name the drafts now mention was mentioned before and keeps its entity,
    its most used spelling, its kinds of type and whether it is rare (what fuzzy matching asks),
    when no name leaves a chunk where meeting less lets it join (`_parting_changes_nothing`), when
    no two names of one entity newly meet in a chunk (they would part), and when no entity they
    name shares its name with a homonym (which kind takes untyped mentions follows the counts).
    `drafts` are the last pass's, every one.
    """
    spellings: dict[str, Counter[str]] = {}
    types: dict[str, Counter[str]] = {}
    aliased: set[str] | None = None
    for (old_mentions, _, _), (new_mentions, _, _) in changed:
        old_keys = {mention.key for mention in old_mentions}
        new_keys = {mention.key for mention in new_mentions}
        # A first name and a full name meeting in a chunk, or parting, may join or part them.
        if resolution.first_names and any(
            key.partition(" ")[0] in resolution.first_names for key in old_keys ^ new_keys
        ):
            return None
        if not old_keys <= new_keys:
            if aliased is None:
                aliased = {name for _, edges, _ in drafts for _, a, b, _ in edges for name in (a, b)}
            if not _parting_changes_nothing(resolution, old_keys, old_keys - new_keys, aliased):
                return None
        by_root: dict[str, set[str]] = defaultdict(set)
        for key in new_keys:
            root = resolution.names.known_root(key)
            if (
                root is None
                or root in resolution.split
                or not sum(resolution.spellings.get(key, {}).values())
            ):
                return None
            by_root[root].add(key)
        if any(len(keys) > 1 and not keys <= old_keys for keys in by_root.values()):
            return None
        for mention in old_mentions:
            spellings.setdefault(mention.key, Counter())[mention.spelling] -= 1
            types.setdefault(mention.key, Counter())[mention.entity_type] -= 1
        for mention in new_mentions:
            spellings.setdefault(mention.key, Counter())[mention.spelling] += 1
            types.setdefault(mention.key, Counter())[mention.entity_type] += 1
    all_spellings, all_types = dict(resolution.spellings), dict(resolution.types)
    for key, steps in spellings.items():
        before = resolution.spellings[key]
        after = Counter(before)
        after.update(steps)
        count, was = sum(after.values()), sum(before.values())
        if count < 1 or _most_spelled(after) != resolution.spelling_of.get(key):
            return None
        if (
            len(key) >= FUZZY_MIN_LENGTH
            and (count <= RARE_MENTIONS) != (was <= RARE_MENTIONS)
            and not _person_like(resolution.types.get(key, Counter()))
            and _spelled_alike(key, resolution.spellings)
        ):
            return None  # a rare name is matched against the others: now it is, or is not
        all_spellings[key] = after
    for key, steps in types.items():
        before = resolution.types.get(key, Counter())
        after = _shifted(before, steps)
        if _kinds_of(after) != _kinds_of(before):
            return None
        all_types[key] = after
    return all_spellings, all_types


def _parting_changes_nothing(
    resolution: Resolution, met: AbstractSet[str], leaving: AbstractSet[str], aliased: AbstractSet[str]
) -> bool:
    """Whether names leaving a chunk where they met the names `met` leave every rule reading as before.

    Two names met in one chunk are two things: a stated alias between them is refused, and two
    names spelled alike are not read as one misspelled. Meeting less, they might join. Neither can
    happen when no leaving name is an end of a stated alias (`aliased`) and no name of a leaving
    name's entity is spelled like a name of another entity it met there, or of its own when two of
    its names met there (which rule joined them is what ontology.md says). A leaving name must
    not be a homonym's either.
    """
    find = resolution.names.find
    if not leaving.isdisjoint(aliased) or any(find(key) in resolution.split for key in leaving):
        return False  # a homonym's untyped mentions go to the kind mentioned most: counts decide
    met_by_root = Counter(find(key) for key in met)
    members: dict[str, list[str]] = {root: [] for root in met_by_root}
    for key in resolution.spellings:
        root = find(key)
        if root in members and len(key) >= FUZZY_MIN_LENGTH:
            members[root].append(key)
    for root in {find(key) for key in leaving}:
        met_there = [other for other, count in met_by_root.items() if other != root or count > 1]
        others = [key for other in met_there for key in members[other]]
        if others and any(_spelled_alike(key, others) for key in members[root]):
            return False
    return True


def _spelled_alike(key: str, names: Iterable[str]) -> bool:
    """Whether another name is spelled so like this one that fuzzy matching may join them."""
    from rapidfuzz.fuzz import ratio
    from rapidfuzz.process import extract

    found = extract(key, list(names), scorer=ratio, score_cutoff=FUZZY_MIN_SCORE, limit=2)
    return any(name != key for name, _, _ in found)


def _kinds_of(types: Counter[str]) -> set[tuple[str, bool]]:
    """The type classes of these types, each with whether it was guessed (an untyped mention says no
    kind): a stated kind splits homonyms, a guessed one does not."""
    return {(kind, guessed(entity_type)) for entity_type in types if (kind := type_class(entity_type))}


def _met_as(entity_type: str) -> bool:
    """Whether a mention's type is a person guessed from the writer's meeting them ("Had lunch with
    Olivia Chen"), the way someone the writer knows is named."""
    return entity_type == GUESS + "person"


def _person_like(entity_types: Iterable[str]) -> bool:
    """Whether these types say a person: a stated person, or a guessed one where nothing else is stated
    (as `_classes` reads them with `guesses`)."""
    stated = {kind for t in entity_types if not guessed(t) and (kind := type_class(t))}
    if stated:
        return "person" in stated
    return any(type_class(t) == "person" for t in entity_types)


def _most_spelled(counts: Counter[str]) -> str:
    """The spelling mentioned most (the first in code-point order of those mentioned as often)."""
    return min(counts.items(), key=lambda item: (-item[1], item[0]))[0]


def _name_of(mention: _Mention) -> tuple[str, str, str, str | None]:
    """What resolution reads of a mention besides its evidence."""
    return (mention.key, mention.spelling, mention.entity_type, mention.description)


def _group_key(resolution: Resolution, mention: _Mention) -> str:
    """The entity group a mention was gathered into (see `_group`)."""
    root = resolution.names.find(mention.key)
    if root not in resolution.split:
        return root
    by_class, default = resolution.split[root]
    kind = type_class(mention.entity_type)
    # A guessed kind no homonym has goes to the default one, as `_gather` sends it.
    return by_class.get(kind, default) if kind else default


def _resolve(
    sources: Sequence[Source],
    drafts: list[DraftMentions],
    corrections: Corrections,
    gathered: Mapping[str, _Gathered] | None = None,
    notes: Sequence[NoteNames] = (),
) -> Resolution:
    """Resolve the drafts' mentions from scratch (see `resolve_entities`); `gathered` is what the
    last pass gathered per name root (`_group`), `notes` what the notes say of their names."""
    resolution = Resolution()
    mentions = [mention for own, _, _ in drafts for mention in own]
    alias_edges, refused = _stated_aliases(drafts, mentions)
    spellings = _per_name(Counter(map(_SPELLED, mentions)))
    for _, _, spelled in drafts:
        for key, spelling, _name, _type in spelled:
            spellings[key][spelling] += 0  # known as a spelling (an alias), counted by no mention
    note_edges = _note_edges(sources, notes, spellings)
    surnames = _title_surnames(spellings)
    typed = Counter(map(_TYPED, mentions))
    types = _per_name(typed)
    called = _people_first_names(spellings, types, notes, sources)
    resolution.spelling_of = {key: _most_spelled(counts) for key, counts in spellings.items()}
    resolution.spellings = spellings
    resolution.types = types
    find = _NameFinder(spellings)
    edges: list[Edge] = []
    apart = []
    merges: list[tuple[Correction, list[str]]] = []
    for correction in (*corrections.of("merge"), *corrections.of("keep_apart")):
        keys = find.all(correction, resolution)
        if len(set(keys)) < 2:
            continue
        if correction.action == "keep_apart":
            apart.append(keys)
            _outcome(resolution, correction, "kept apart")
        else:
            edges.extend((0, keys[0], other, "merged by a correction") for other in keys[1:])
            merges.append((correction, keys))
    guard = _Guard(resolution.names, apart)
    titled = _titled(sources)
    said, ambiguous = _unambiguous_aliases([*note_edges, *alias_edges], titled, resolution.spelling_of)
    edges.extend(said)
    _apply(resolution, guard, sorted(set(edges)))
    for a, b, why in ambiguous:
        resolution.joins[f"apart:{a}"].append(Join(a, b, why))
    for a, b in refused:  # said where it made a difference: the two names are two entities
        if resolution.names.find(a) != resolution.names.find(b):
            resolution.joins[f"apart:{a}"].append(
                Join(a, b, "a draft's alias, but named as two things in one chunk")
            )
    for correction, keys in merges:
        joined = len({resolution.names.find(key) for key in keys}) == 1
        _outcome(resolution, correction, "merged" if joined else "not merged: a keep_apart line forbids it")
    roots = _roots(mentions, resolution.names)
    classes = _classes(typed, roots)
    cooccur = _cooccurring(mentions, roots)
    # "Lunch with Olivia": a first name is a person's when only guessed so.
    people = _classes(typed, roots, guesses=True)
    met = {
        resolution.names.known_root(key) or key for key, counts in types.items() if any(map(_met_as, counts))
    }
    first_names = _first_name_edges(
        spellings, resolution.names, people, notes, sources, cooccur, met, resolution
    )
    later = sorted(
        {
            *_suffix_edges(spellings, resolution.names, classes),
            *(
                (3, titled, surname, "the name without its title")
                for titled, surname in surnames
                if _compatible(resolution.names, classes, titled, surname)
            ),
            # An alias of every such note, as its file name is: no news to list among the merges.
            *((5, full, first, "") for full, first in called),
            *_well_known_edges(spellings, resolution.names, classes),
            *_accent_edges(spellings, resolution.names, classes),
            *_fuzzy_edges(spellings, resolution.names, classes, cooccur, people),
            *first_names,
        }
    )
    # Kind suffixes, spelling and first names are guesses: they never make one thing of two notes.
    _apply(resolution, _Guard(resolution.names, apart, titled), later)
    for _, full, first, _ in first_names:
        if resolution.names.find(full) == resolution.names.find(first):
            resolution.full_names[resolution.names.find(first)] = full
    resolution.gathered = _group(resolution, mentions, sources, gathered)
    _attach_full_names(resolution)
    _attach_stated_aliases(resolution, drafts)
    _correct_entities(resolution, corrections, find)
    return resolution


class _NameFinder:
    """Find the name a correction means: a known spelling, alias or note title, or an entity's page name."""

    def __init__(self, spellings: Mapping[str, Counter[str]]) -> None:
        self.spellings = spellings
        self.by_slug: dict[str, str] | None = None

    def one(self, reference: str) -> str | None:
        key = normalize_name(reference)
        if key in self.spellings:
            return key
        if self.by_slug is None:  # page names are only needed when a correction uses one
            self.by_slug = {}
            for known in sorted(self.spellings):
                for spelling in sorted(self.spellings[known]):
                    self.by_slug.setdefault(slugify(spelling), known)
        return self.by_slug.get(reference) or self.by_slug.get(slugify(reference))

    def all(self, correction: Correction, resolution: Resolution) -> list[str]:
        """The names of every reference; the ones not found are noted as the correction's outcome."""
        keys: list[str] = []
        missing: list[str] = []
        for reference in correction.targets:
            key = self.one(reference)
            if key is None:
                missing.append(reference)
            else:
                keys.append(key)
        if missing:
            resolution.outcomes[correction] = "not found: " + ", ".join(missing)
        return keys


def _outcome(resolution: Resolution, correction: Correction, outcome: str) -> None:
    """Say what a correction did, after what it could not find (if anything)."""
    missing = resolution.outcomes.get(correction)
    resolution.outcomes[correction] = f"{outcome}; {missing}" if missing else outcome


def _correct_entities(resolution: Resolution, corrections: Corrections, find: _NameFinder) -> None:
    """Apply renames and retypes, and give a merge its first name's title."""
    by_id: dict[str, str] = {}
    for key in sorted(resolution.groups):
        by_id.setdefault(resolution.groups[key].wanted_id(), key)
    for correction in corrections.of("merge"):
        if resolution.outcomes.get(correction) == "merged":
            first = find.one(correction.targets[0])
            group = resolution.groups.get(resolution.key_of_normalized(first or "") or "")
            if group is not None and first is not None:
                group.title_override = plain_text(resolution.spelling_of.get(first, correction.targets[0]))
    renamed: set[int] = set()
    for correction in (*corrections.of("rename"), *corrections.of("retype")):
        reference = correction.targets[0]
        found = by_id.get(reference) or resolution.key_of_normalized(find.one(reference) or "")
        group = resolution.groups.get(found or "")
        if group is None:
            resolution.outcomes[correction] = f"not found: {reference}"
            continue
        homonyms = _homonyms(resolution, find.one(reference)) if reference not in by_id else []
        if len(homonyms) > 1:  # "Café Müller" the place and the organization: which one is meant?
            resolution.outcomes[correction] = (
                f"not {correction.action}d: {reference} names {len(homonyms)} entities "
                f"({', '.join(homonyms)}); name the one you mean by its page name"
            )
            continue
        if correction.action == "rename":
            if id(group) in renamed:
                resolution.outcomes[correction] = "not renamed: an earlier line renames this entity"
                continue
            renamed.add(id(group))
            group.title_override = plain_text(correction.value or "") or group.title()
            resolution.outcomes[correction] = "renamed"
        else:
            if group.type_override is not None:
                resolution.outcomes[correction] = "not retyped: an earlier line retypes this entity"
                continue
            group.type_override = correction.value
            resolution.outcomes[correction] = "retyped"


def _homonyms(resolution: Resolution, name: str | None) -> list[str]:
    """The page names of the entities a name stands for when homonyms share it (else one or none)."""
    root = resolution.names.known_root(name) if name else None
    if root is None or root not in resolution.split:
        return []
    by_class, _ = resolution.split[root]
    return sorted(
        {resolution.groups[key].wanted_id() for key in by_class.values() if key in resolution.groups}
    )


def _draft_mentions(extraction: Extraction, number: int = 0) -> DraftMentions:
    """One draft's entity mentions (of chunk `number`) and the aliases it states."""
    chunk = extraction.chunk
    whole = chunk_evidence(chunk)
    turns = bool(chunk.turns)
    mentions = []
    edges = []
    spelled = []
    for entity in extraction.draft.entities:
        key = normalize_name(entity.name)
        if not key:
            continue
        # Only a conversation's turns or a draft file's pointer make an item's evidence narrower.
        evidence = (
            item_evidence(chunk, entity.supporting_text, whole, entity.pointer, entity.turn_line)
            if turns or entity.pointer is not None
            else whole
        )
        # One spelling whatever its Unicode form: `Café` composed or not is counted once, shown composed.
        spelling = entity.name if entity.name.isascii() else unicodedata.normalize("NFC", entity.name)
        mentions.append(_Mention(key, spelling, entity.entity_type, entity.description, evidence, number))
        for alias in entity.aliases:
            alias_key = normalize_name(alias)
            if alias_key and alias_key != key:
                edges.append((2, key, alias_key, f"alias stated in {chunk.source_path}"))
                spelled.append(
                    (alias_key, unicodedata.normalize("NFC", alias), entity.name, entity.entity_type)
                )
    return mentions, edges, spelled


def _note_edges(
    sources: Sequence[Source], notes: Sequence[NoteNames], spellings: dict[str, Counter[str]]
) -> list[Edge]:
    """A note's title, file name and frontmatter aliases all mean the note: a wikilink to any is the note;
    so does a person's full name heading their note. `notes` are what `_notes` read of `sources`."""
    edges = []
    for source, (*_, kind_of_thing) in zip(sources, notes, strict=True):
        if source.kind not in NOTE_KINDS:
            continue
        key = normalize_name(source.title)
        if not key:
            continue
        stem = source.path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
        spellings[key][source.title] += 0  # known as a spelling, counted by no mention
        for alias in note_aliases(source.meta):
            alias_key = normalize_name(alias)
            if alias_key and alias_key != key:
                edges.append((1, key, alias_key, f"alias in the frontmatter of {source.path}"))
                spellings[alias_key][alias] += 0  # known as a spelling, counted by no mention
        stem_key = normalize_name(stem)
        if stem_key and stem_key != key:
            edges.append((1, key, stem_key, ""))  # a note's file name is no news: not listed
        full = _full_name_heading(source) if kind_of_thing in PERSON_TYPES else None
        if full is not None:
            full_key = normalize_name(full)
            edges.append((1, key, full_key, f"the heading of {source.path}"))
            spellings[full_key][full] += 0
    return edges


def _full_name_heading(source: Source) -> str | None:
    """A person's note's first heading when it is their full name after the title's first one
    (`people/Mark.md` opening `# Mark Ellis`), else None."""
    if "# " not in source.text:
        return None
    heading = _FIRST_HEADING.search(source.text)
    if heading is None:
        return None
    words = heading["title"].split()
    if 2 <= len(words) <= 4 and words[0] == source.title and all(w[:1].isupper() for w in words):
        return " ".join(words)
    return None


_FIRST_HEADING = re.compile(r"^#[\x20\t]+(?P<title>[^\n#]+?)[\x20\t]*$", re.MULTILINE)


class _Guard:
    """Refuses a join that would put two names the user keeps apart into one entity; with `noted`
    (the notes' own names), also one that would put two notes into one (a guess must not)."""

    def __init__(
        self, names: _UnionFind, apart: list[list[str]], noted: frozenset[str] = frozenset()
    ) -> None:
        self.names = names
        self.apart = apart
        self.noted = {names.find(key) for key in noted if key in names.parent}
        """The roots holding a note's own name (kept up to date by `joined`)."""

    def refusal(self, a: str, b: str) -> str | None:
        """Why `a` and `b` may not be joined, or None."""
        roots = {self.names.find(a), self.names.find(b)}
        for group in self.apart:
            found = [self.names.find(k) for k in group if k in self.names.parent]
            if len({r for r in found if r in roots}) > 1:
                return "kept apart by a correction"
        if len(roots & self.noted) > 1:
            return "each has a note of its own"
        return None

    def joined(self, roots: set[str], root: str) -> None:
        """`roots` are one now, under `root`."""
        if self.noted and roots & self.noted:
            self.noted -= roots
            self.noted.add(root)


def _apply(resolution: Resolution, guard: _Guard, edges: Sequence[Edge]) -> None:
    """Join names edge by edge, in a fixed order, and remember why."""
    names = resolution.names
    for _, a, b, reason in edges:
        if names.find(a) == names.find(b):
            continue
        refused = guard.refusal(a, b)
        if refused is not None:
            resolution.joins[f"apart:{a}"].append(Join(a, b, refused))
            continue
        roots = {names.find(a), names.find(b)}
        names.union(a, b)
        guard.joined(roots, names.find(a))
        if reason:
            resolution.joins[f"edge:{a}"].append(Join(a, b, reason))


def _roots(mentions: Sequence[_Mention], names: _UnionFind) -> dict[str, str]:
    """The name root of every mentioned name, found once per name (mentions repeat a few names)."""
    # In mention order, as finding them one mention at a time would add them to the union-find.
    return {key: names.find(key) for key in dict.fromkeys(mention.key for mention in mentions)}


def _per_name(counts: Mapping[tuple[str, str], int]) -> dict[str, Counter[str]]:
    """Per name, the counts of each value it was mentioned with, from the counts of (name, value)."""
    # Counted at C speed: the same counts, in the same order, as one mention at a time.
    per_name: dict[str, Counter[str]] = defaultdict(Counter)
    for (key, value), count in counts.items():
        per_name[key][value] = count
    return per_name


def _classes(
    typed: Iterable[tuple[str, str]], roots: Mapping[str, str], *, guesses: bool = False
) -> dict[str, set[str]]:
    """The type classes each name root was mentioned with (`typed`: each name with each type it was
    mentioned as, once); with `guesses`, those guessed from wording for a root mentioned with no
    stated type (they keep no two names apart)."""
    classes: dict[str, set[str]] = defaultdict(set)
    guessed_classes: dict[str, set[str]] = defaultdict(set)
    for key, entity_type in typed:
        kind = type_class(entity_type)
        if kind:
            (guessed_classes if guessed(entity_type) else classes)[roots[key]].add(kind)
    if guesses:
        for root, kinds in guessed_classes.items():
            if root not in classes:
                classes[root] = kinds
    return classes


def _compatible(names: _UnionFind, classes: Mapping[str, set[str]], a: str, b: str) -> bool:
    """Types agree when one side is untyped or they share a kind."""
    kinds_a, kinds_b = classes.get(names.find(a), set()), classes.get(names.find(b), set())
    return not kinds_a or not kinds_b or bool(kinds_a & kinds_b)


def _suffix_edges(
    spellings: Mapping[str, Counter[str]], names: _UnionFind, classes: Mapping[str, set[str]]
) -> list[Edge]:
    """ "Marlin firmware" is Marlin when Marlin is known: the last word only said what kind it is.

    That kind must be one the head is known as, if it has a type: "Manhattan Project" is no place.
    """
    edges = []
    unnamed: dict[str, list[str]] = defaultdict(list)  # a company's name without its legal forms
    for key in spellings:
        head, _, last = key.rpartition(" ")
        # Legal forms may come two at a time: "Initech Pty Ltd" is Initech.
        while (
            head
            and last in _LEGAL_FORMS
            and head not in spellings
            and head.rpartition(" ")[2] in _LEGAL_FORMS
        ):
            head, _, last = head.rpartition(" ")
        if (
            last in _KIND_SUFFIXES
            and head in spellings
            and not head.isdigit()
            and len(head) > 1
            and _compatible(names, classes, key, head)
            and _kind_fits(last, classes.get(names.find(head), set()))
        ):
            edges.append((3, head, key, f"the same name with “{key[len(head) + 1 :]}”"))
        elif last in _LEGAL_FORMS and head and head not in spellings and len(head) > 1:
            unnamed[head].append(key)
        first, _, rest = key.partition(" ")
        if first in _KIND_PREFIXES and rest in spellings and not rest.isdigit() and len(rest) > 1:
            kinds = classes.get(names.find(key), set()) | classes.get(names.find(rest), set())
            if kinds == {first}:
                # "Project Falcon" is Falcon, as "the Falcon project" is, where the notes know one of
                # them as a project and neither as anything else (not "Project Gutenberg" and the
                # editor Gutenberg, nor the book "Project Hail Mary" and the film "Hail Mary").
                edges.append((3, rest, key, f"the same name with “{first}” before it"))
    # "Acme Ltd" and "Acme Limited" with no bare "Acme": one company all the same.
    for keys in unnamed.values():
        edges.extend(_to_the_first(keys, names, classes, "the same name with another legal form"))
    return edges


def _to_the_first(
    keys: Iterable[str], names: _UnionFind, classes: Mapping[str, set[str]], reason: str
) -> list[Edge]:
    """Joins of names one rule reads as one (the first in code-point order with each other), where
    their types agree."""
    first, *others = sorted(keys)
    return [(3, first, other, reason) for other in others if _compatible(names, classes, first, other)]


def _accent_edges(
    spellings: Mapping[str, Counter[str]], names: _UnionFind, classes: Mapping[str, set[str]]
) -> list[Edge]:
    """ "Ana López" is Ana Lopez, "José" Jose: one name written with and without its accents, when
    the types agree (fuzzy spelling never joins people, nor short names)."""
    by_bare: dict[str, list[str]] = defaultdict(list)
    for key in spellings:
        if not key.isascii():
            bare = unicodedata.normalize("NFD", key)
            bare = unicodedata.normalize("NFC", "".join(c for c in bare if not unicodedata.combining(c)))
            if bare != key:
                by_bare[bare].append(key)
    edges: list[Edge] = []
    for bare, keys in sorted(by_bare.items()):
        named = [bare, *keys] if bare in spellings else keys
        edges.extend(_to_the_first(named, names, classes, "the same name without its accents"))
    return edges


def _well_known_edges(
    spellings: Mapping[str, Counter[str]], names: _UnionFind, classes: Mapping[str, set[str]]
) -> list[Edge]:
    """ "Postgres" is PostgreSQL, "K8s" Kubernetes: a thing's well-known other name, when both are
    named and their types agree ("Mongo" the person is no MongoDB)."""
    return [
        (3, name, other, "a well-known other name of it")
        for name, other in WELL_KNOWN_NAMES
        if name in spellings and other in spellings and _compatible(names, classes, name, other)
    ]


def _kind_fits(suffix: str, kinds: set[str]) -> bool:
    """Whether a kind suffix ("firmware", "inc", "project") may name a thing of these kinds."""
    implied = "organization" if suffix in _LEGAL_FORMS else type_class(suffix)
    return not kinds or implied is None or implied in kinds


def _stated_aliases(
    drafts: Sequence[DraftMentions], mentions: Sequence[_Mention]
) -> tuple[list[Edge], list[tuple[str, str]]]:
    """The aliases the drafts state, as joins, and those refused: one whose two names another chunk
    mentions as two things ("Klipper runs on Python" is no alias of Python for Klipper)."""
    stated = [(edge, own) for own, edges, _ in drafts for edge in edges]
    if not stated:
        return [], []
    chunks: dict[str, set[int]] = defaultdict(set)
    for mention in mentions:
        chunks[mention.key].add(mention.chunk)
    kept: list[Edge] = []
    refused: list[tuple[str, str]] = []
    for edge, own in stated:
        _, a, b, _ = edge
        stating = {mention.chunk for mention in own}
        if (chunks.get(a, set()) & chunks.get(b, set())) - stating:
            refused.append((a, b))
        else:
            kept.append(edge)
    return kept, sorted(set(refused))


def _unambiguous_aliases(
    edges: Sequence[Edge], titled: AbstractSet[str], spelling_of: Mapping[str, str]
) -> tuple[list[Edge], list[tuple[str, str, str]]]:
    """The edges but those of an alias two names both claim, and (name, alias, why) for each of those.

    `aliases: [Tom]` on Tom Becker's note and on Tom Ito's names neither of them: it would make one
    person of two, each written down on purpose. So does a first name two full names are shown by
    (`[[Aisha Silva|Aisha]]`, `[[Aisha Moreau|Aisha]]`): two people who share it. An alias stated
    otherwise joins as it is (two spellings a model gives the same short name are one thing).
    """
    claims: dict[str, set[str]] = defaultdict(set)
    for _, name, alias, reason in edges:
        # A file name (no reason) is the note itself, no alias.
        if reason and (name in titled or (name != alias and name.split(" ", 1)[0] == alias)):
            claims[alias].add(name)
    contested = {alias: sorted(names) for alias, names in claims.items() if len(names) > 1}
    if not contested:
        return list(edges), []
    kept = [
        edge
        for edge in edges
        if not (edge[3] and edge[1] in claims.get(edge[2], ()) and edge[2] in contested)
    ]
    ambiguous: list[tuple[str, str, str]] = []
    for alias, names in sorted(contested.items()):
        spelled = ", ".join(sorted(spelling_of.get(name, name) for name in names))
        what = "notes" if all(name in titled for name in names) else "names"
        why = f"an alias of {len(names)} {what} ({spelled}): it means none of them"
        ambiguous.extend((name, alias, why) for name in names)
    return kept, ambiguous


def _cooccurring(mentions: Sequence[_Mention], roots: Mapping[str, str]) -> dict[str, set[int]]:
    """Per name root, the chunks that mention it: two names met in one chunk are two things."""
    chunks: dict[str, set[int]] = defaultdict(set)
    for mention in mentions:
        chunks[roots[mention.key]].add(mention.chunk)
    return chunks


def _titled(sources: Sequence[Source]) -> frozenset[str]:
    """The names of the notes themselves: each is a thing of its own, written down on purpose."""
    return frozenset(
        key for source in sources if source.kind in NOTE_KINDS and (key := normalize_name(source.title))
    )


def _fuzzy_edges(
    spellings: Mapping[str, Counter[str]],
    names: _UnionFind,
    classes: Mapping[str, set[str]],
    cooccur: Mapping[str, set[int]],
    people: Mapping[str, set[str]],
) -> list[Edge]:
    """Near-identical long names of compatible types, one of them rare; never people (`people`: the
    classes guesses count in) or different numbers."""
    from rapidfuzz.distance import Levenshtein
    from rapidfuzz.fuzz import ratio
    from rapidfuzz.process import extract

    blocks: dict[str, list[str]] = defaultdict(list)
    for key in sorted(spellings, key=lambda k: (len(k), k)):
        if len(key) >= FUZZY_MIN_LENGTH and "person" not in people.get(names.find(key), ()):
            # A misspelling seldom touches both ends of a long name: names that share their first two
            # or their last two letters are the only ones compared.
            # Names differing in a number are never one (Postgres 15, Postgres 16): numbers split blocks too.
            numbers = " ".join(_DIGITS.findall(key))
            blocks[f"^{key[:2]} {numbers}"].append(key)
            blocks[f"${key[-2:]} {numbers}"].append(key)
    pairs: dict[tuple[str, str], float] = {}
    for keys in blocks.values():
        lengths = [len(k) for k in keys]
        for a in keys:
            # Queries are names the text mentions rarely; a note title no text mentions is no typo.
            if not 0 < sum(spellings[a].values()) <= RARE_MENTIONS:
                continue
            # The ratio cannot reach the cutoff past this length difference: compare only names in reach.
            low_end = bisect_left(lengths, len(a) * FUZZY_MIN_SCORE / (200 - FUZZY_MIN_SCORE))
            high_end = bisect_right(lengths, len(a) * (200 - FUZZY_MIN_SCORE) / FUZZY_MIN_SCORE)
            found = extract(a, keys[low_end:high_end], scorer=ratio, score_cutoff=FUZZY_MIN_SCORE, limit=None)
            for b, score, _ in found:
                if b != a:
                    pairs[(min(a, b), max(a, b))] = score
    edges = []
    for (low, high), score in sorted(pairs.items()):
        if (
            names.find(low) != names.find(high)
            and _compatible(names, classes, low, high)
            and not (cooccur.get(names.find(low), set()) & cooccur.get(names.find(high), set()))
        ):
            edits = Levenshtein.distance(low, high)
            edges.append((4, low, high, f"spelled alike ({score:.0f}% similar, {edits} edit(s))"))
    return edges


def _first_name_edges(
    spellings: Mapping[str, Counter[str]],
    names: _UnionFind,
    classes: Mapping[str, set[str]],
    notes: Sequence[NoteNames],
    sources: Sequence[Source],
    cooccur: Mapping[str, set[int]],
    met: AbstractSet[str],
    resolution: Resolution,
) -> list[Edge]:
    """ "Ana" in one note is Ana Lopez of another when she is the only person the notes name Ana.

    The first name is one word mentioned as a person only, with no longer name and no note of its
    own ("people/Tom.md" is someone the writer keeps apart), and no note's writer. The full name
    is a person's written with that word first ("Marie-Claire" is another first name) that the
    writer keeps a note on, or met (`met`: "Had lunch with Olivia Chen"), or that one chunk names
    beside the first name ("Met [[Kim]] today. Kim Nguyen works at UCL." introduces her): a film
    star a note names is no friend of the same first name. Another such name which may be a
    person's (a person's or an untyped one) leaves it ambiguous. The first names that had a full
    name to weigh are noted in `resolution`: a rebuild naming one anew resolves again
    (`_moved_within`).
    """

    def root_of(key: str) -> str:
        return names.known_root(key) or key  # never adds a name to the forest

    writers = {normalize_name(source.writer) for source in sources if source.writer}
    first_names: dict[str, str] = {}
    for key, counts in spellings.items():
        if " " not in key and len(key) > 1 and key.isalpha() and key not in writers and any(counts.values()):
            root = root_of(key)
            if classes.get(root) == {"person"}:
                first_names[key] = root
    if not first_names:
        return []
    noted = {normalize_name(title) for _, kind, title, _, _ in notes if kind in NOTE_KINDS}
    people = {
        root_of(key)
        for _, kind, title, _, about in notes
        if kind in NOTE_KINDS and type_class(about or _UNTYPED) == "person" and (key := normalize_name(title))
    }
    longer: set[str] = set()  # roots holding a name of more than one word
    full: dict[str, dict[str, str]] = defaultdict(dict)  # first name -> root -> the full name
    for key in spellings:
        first, space, rest = key.partition(" ")
        if not space:
            continue
        root = root_of(key)
        longer.add(root)
        kinds = classes.get(root, set())
        if (
            first in first_names
            and rest.count(" ") < 3
            and (not kinds or "person" in kinds)
            and any(normalize_name(spelling.split()[0]) == first for spelling in spellings[key])
        ):
            full[first][root] = min(key, full[first].get(root, key))
    edges = []
    weighed = set()
    for first, root in sorted(first_names.items()):
        found = [item for item in full.get(first, {}).items() if item[0] != root]
        if not found:
            continue
        weighed.add(first)
        if root in longer or len(found) != 1 or first in noted:
            continue
        ((other, name),) = found
        if other in people or (
            "person" in classes.get(other, set())
            and (other in met or not cooccur.get(root, set()).isdisjoint(cooccur.get(other, ())))
        ):
            edges.append((5, name, first, "the first name of the only person the notes name so"))
    resolution.first_names = frozenset(weighed)
    return edges


_NOT_CALLED_SO = frozenset(
    [
        "will",
        "mark",
        "may",
        "june",
        "april",
        "august",
        "grace",
        "rose",
        "max",
        "bill",
        "sue",
        "pat",
        "art",
        "faith",
        "hope",
        "joy",
        "amber",
        "summer",
        "autumn",
        "jack",
        "frank",
        "bob",
        "rob",
        "dawn",
        "eve",
        "iris",
        "ivy",
        "lily",
        "ruby",
        "pearl",
        "holly",
        "heather",
        "jasmine",
        "olive",
        "violet",
        "hazel",
        "daisy",
        "penny",
        "sandy",
        "rusty",
        "drew",
        "chase",
        "grant",
        "hunter",
        "wade",
        "miles",
        "sky",
        "river",
        "rain",
        "storm",
        "dean",
        "don",
        "ray",
        "gene",
        "guy",
        "bud",
        "chip",
        "georgia",
        "paris",
        "chelsea",
        "florence",
        "sydney",
        "austin",
        "dallas",
        "jordan",
        "victoria",
        "adelaide",
        "savannah",
        "phoenix",
        "madison",
        "brooklyn",
        "lincoln",
        "orlando",
        "carolina",
        "virginia",
        "charlotte",
        "houston",
        "denver",
        "aspen",
        "berkeley",
        "regina",
        "mercedes",
        "tesla",
        "ford",
        "dell",
        "harley",
        "jaguar",
        "chanel",
        "julia",
        "kim",
        "lee",
        "long",
        "young",
        "king",
        "page",
        "price",
        "cash",
        "rich",
        "sunny",
    ]
)
"""First names that are words, places or brands as often: no alias of a person's note."""


def _people_first_names(
    spellings: dict[str, Counter[str]],
    types: Mapping[str, Counter[str]],
    notes: Sequence[NoteNames],
    sources: Sequence[Source],
) -> list[tuple[str, str]]:
    """ "Had lunch with Ana." is Ana Lopez when `people/Ana Lopez.md` is the one person's note whose
    name, or any name the notes know, starts with "Ana", and "Ana" names nothing else (a mention of it
    with no type, "Spoke to Ana", is hers): each such note's name and its first name,
    known as a name of its own (an alias) from here on. Not a first name that is as often a word, a
    place or a brand ("Will", "Georgia", "Mercedes"), nor the writer's."""
    starting: dict[str, list[str]] = defaultdict(list)
    for key in spellings:
        first, space, _ = key.partition(" ")
        if space:
            starting[first].append(key)
    writers = {normalize_name(source.writer) for source in sources if source.writer}
    pairs = []
    for _, kind, title, _, about in notes:
        key = normalize_name(title)
        first, space, rest = key.partition(" ")
        if (
            kind in NOTE_KINDS
            and space
            and rest.count(" ") < 3
            and type_class(about or _UNTYPED) == "person"
            and first.isalpha()
            and len(first) > 2
            and (first not in spellings or _no_other_kind(types.get(first, Counter())))
            and first not in writers
            and first not in _NOT_CALLED_SO
            and starting.get(first) == [key]
            and normalize_name(title.split()[0]) == first  # not "Marie-Claire Dubois"
        ):
            pairs.append((key, first))
    for key, first in pairs:  # known as a spelling, counted by no mention
        spellings[first][_most_spelled(spellings[key]).split()[0]] += 0
    return sorted(pairs)


def _no_other_kind(entity_types: Iterable[str]) -> bool:
    """Whether mentions of these types say no kind at all ("Spoke to Ana": hers, if her note's name
    starts so; a mention as a person is for rule 7 to weigh)."""
    return all(type_class(t) is None for t in entity_types)


_TITLES = frozenset(["dr", "mr", "mrs", "ms", "mx", "prof"])


def _title_surnames(spellings: dict[str, Counter[str]]) -> list[tuple[str, str]]:
    """ "Reid said the scan looks fine" is Dr. Reid when nobody else is titled Reid: each titled name
    and its surname, known as a name of its own (an alias) from here on. Not Mr. and Mrs. Smith, nor a
    surname the notes name on its own (a friend Grant is no Dr. Grant)."""
    by_surname: dict[str, list[str]] = defaultdict(list)
    for key in spellings:
        title, space, surname = key.partition(" ")
        if space and title in _TITLES and surname.isalpha():
            by_surname[surname].append(key)
    pairs = []
    for surname, keys in sorted(by_surname.items()):
        # A name the notes use already may be someone else's ("Grant works at Arup": a friend Grant).
        if len(keys) == 1 and surname not in spellings:
            spellings[surname][_most_spelled(spellings[keys[0]]).split(None, 1)[-1]] += 0  # an alias
            pairs.append((keys[0], surname))
    return pairs


def _attach_full_names(resolution: Resolution) -> None:
    """A person joined to a first name is shown by the full name, unless a note names it otherwise."""
    for root, full in resolution.full_names.items():
        group = resolution.groups.get(root)
        if group is not None:
            group.full_name = resolution.spelling_of.get(full, full)


@record
class _Gathered:
    """One name root's mentions gathered into entity groups (one per kind when homonyms share it)."""

    root: str
    mentions: list[_Mention]
    groups: dict[str, EntityGroup]
    """Per entity key, the group as gathered: nothing is written to it afterwards."""
    split: tuple[dict[str, str], str] | None
    joins: dict[str, Join]

    def put(self, resolution: Resolution) -> None:
        """Add these entities to a resolution, each a group of its own to attach notes and corrections to."""
        for key, group in self.groups.items():
            resolution.groups[key] = EntityGroup(
                group.spellings, group.types, group.descriptions, group.evidence, homonym=group.homonym
            )
        if self.split is not None:
            resolution.split[self.root] = self.split
        for key, join in self.joins.items():
            resolution.joins[key].append(join)


def _group(
    resolution: Resolution,
    mentions: Sequence[_Mention],
    sources: Sequence[Source],
    last: Mapping[str, _Gathered] | None = None,
) -> dict[str, _Gathered]:
    """Gather mentions per name root, one entity per kind when homonyms share the root.

    `last` is what the last pass gathered: a root mentioned by the very same mentions (or equal
    ones) as then is gathered as then. Returns what this pass gathered.
    """
    roots = _roots(mentions, resolution.names)
    by_root: dict[str, list[_Mention]] = defaultdict(list)
    for mention in mentions:
        by_root[roots[mention.key]].append(mention)
    gathered: dict[str, _Gathered] = {}
    for root, found in by_root.items():
        kept = last.get(root) if last is not None else None
        # Kept mentions are the very objects of last pass: the lists compare by identity first.
        done = gathered[root] = kept if kept is not None and kept.mentions == found else _gather(root, found)
        done.put(resolution)
    _attach_notes(resolution, sources, by_root)
    _attach_joins(resolution)
    return gathered


def _gather(root: str, found: list[_Mention]) -> _Gathered:
    """One name root's entity groups: one, or one per kind of its homonyms, each saying its type.

    Types of no known kind are one kind among themselves: "device" and "printer" both say what the
    Ender 3 is, while "organization" and "food" make two Apples.
    """
    # Read per type, not per mention: a name is mentioned as few types, and often.
    types = Counter(map(_TYPE, found))
    kind_of = _kinds(types)
    kinds: Counter[str] = Counter()
    for entity_type, count in types.items():
        # A guessed type never splits a name: "Went for a walk with Bella" is the dog of `pets/Bella.md`.
        if (kind := kind_of(entity_type)) and not guessed(entity_type):
            kinds[kind] += count
    if len(kinds) < 2:
        return _Gathered(root, found, {root: _made(found)}, None, {})
    default = min(kinds.items(), key=lambda item: (-item[1], item[0]))[0]
    by_class = {kind: f"{root}{HOMONYM_SEPARATOR}{kind}" for kind in kinds}
    groups = {}
    for kind in kinds:
        own = [m for m in found if (k if (k := kind_of(m.entity_type)) in kinds else default) == kind]
        group = groups[by_class[kind]] = _made(own)
        # Every kind says its type: a plain name for the kind mentioned most would move from one
        # entity to the other (and the user's notes on its page with it) as mention counts change.
        group.homonym = True
    listed = sorted(kinds)
    joins = {}
    for kind in listed:
        others = ", ".join(k for k in listed if k != kind)
        joins[by_class[kind]] = Join(
            root, root, f"kept apart from the {others} of the same name: the types differ"
        )
    return _Gathered(root, found, groups, (by_class, by_class[default]), joins)


_KNOWN_KINDS = frozenset(_TYPE_CLASSES.values())


def _kinds(types: Counter[str]) -> Callable[[str], str | None]:
    """Each mention's kind for telling homonyms apart (`types`: how often each type is mentioned): its
    type's class, where the type has a known one; else the most mentioned of the other types, for all."""
    other: Counter[str] = Counter()
    for entity_type, count in types.items():
        if (kind := type_class(entity_type)) and kind not in _KNOWN_KINDS:
            other[kind] += count
    if len(other) < 2:
        return type_class
    shared = min(other.items(), key=lambda item: (-item[1], item[0]))[0]

    def kind_of(entity_type: str) -> str | None:
        kind = type_class(entity_type)
        return kind if kind is None or kind in _KNOWN_KINDS else shared

    return kind_of


def _made(mentions: Sequence[_Mention]) -> EntityGroup:
    """The group of these mentions."""
    group = EntityGroup()
    # Counted at C speed: the same counts, in the same order, as one mention at a time.
    group.spellings.update(map(_SPELLING, mentions))
    group.types.update(map(_TYPE, mentions))
    group.descriptions.extend((m.evidence, m.description) for m in mentions if m.description)
    group.evidence.update(map(_EVIDENCE, mentions))
    return group


def _attach_notes(
    resolution: Resolution, sources: Sequence[Source], by_root: Mapping[str, list[_Mention]]
) -> None:
    """An entity with a note of its own takes the note's title and frontmatter aliases."""
    for source in sorted(sources, key=lambda s: s.path):
        key = normalize_name(source.title)
        if not key or source.kind not in NOTE_KINDS:
            continue
        root = resolution.names.find(key)
        if root not in by_root:
            continue
        if root in resolution.split:
            # Homonyms: the note is the entity its own chunks mention under its title.
            own = [m for m in by_root[root] if m.key == key and m.evidence.path == source.path]
            target = resolution.key_of(source.title, own[0].entity_type if own else None)
        else:
            target = root
        group = resolution.groups.get(target or "")
        if group is None:
            continue
        if group.note_title is None:
            group.note_title = source.title
            group.note_type = note_type(source.meta, source.title, source.path)
        # An alias the user keeps apart from the note names another entity, not this one.
        group.note_aliases.update(
            alias
            for alias in note_aliases(source.meta)
            if resolution.key_of_normalized(normalize_name(alias)) in (target, None)
        )


def _attach_stated_aliases(resolution: Resolution, drafts: Sequence[DraftMentions]) -> None:
    """An alias a draft states (`[[Klipper|Klipper Fw]]`) is an alias of the entity it joined."""
    for _, _, spelled in drafts:
        for alias_key, alias, name, entity_type in spelled:
            target = resolution.key_of(name, entity_type)
            group = resolution.groups.get(target or "")
            # Kept apart from it (a correction), the alias names another entity.
            if group is not None and resolution.key_of_normalized(alias_key) in (target, None):
                group.stated_aliases.add(alias)


def _attach_joins(resolution: Resolution) -> None:
    """File each join under the entity it made, for ontology.md."""
    raw = {k: v for k, v in resolution.joins.items() if k.startswith(("edge:", "apart:"))}
    for name in raw:
        del resolution.joins[name]
    for name, joins in raw.items():
        key = resolution.key_of_normalized(name.split(":", 1)[1])
        if key is None:
            continue
        resolution.joins[key].extend(joins)


def make_entity(entity_id: str, group: EntityGroup, named_in: AbstractSet[Evidence] = frozenset()) -> Entity:
    """The entity record: title, type, first description, aliases from every other spelling.

    `named_in` are the lines of nodes that name it besides its mentions': its evidence too.
    """
    title = group.title()
    entity_type = group.entity_type()
    if group.descriptions:
        description = min(
            group.descriptions, key=lambda d: (d[0].path, d[0].line_start, d[0].pointer or "", d[1])
        )[1]
    else:
        description = f"{title} ({entity_type.replace('_', ' ')})."
    folded_title = title.casefold()
    spellings = {plain_text(s) for s in (*group.spellings, *group.note_aliases, *group.stated_aliases)}
    if group.title_override and group.note_title:
        spellings.add(plain_text(group.note_title))
    aliases = sorted(
        {s for s in spellings if s and s.casefold() != folded_title}, key=lambda s: (s.casefold(), s)
    )
    return Entity(
        id=entity_id,
        title=title,
        entity_type=entity_type,
        # A description of nothing printable says what the entity is, as one with none does.
        description=plain_text(description) or f"{title} ({entity_type.replace('_', ' ')}).",
        aliases=tuple(_dedupe_casefold(aliases)),
        evidence=tuple(sorted(group.evidence.union(named_in), key=evidence_order)),
    )


def _dedupe_casefold(values: Iterable[str]) -> list[str]:
    seen: set[str] = set()
    kept = []
    for value in values:
        if value.casefold() not in seen:
            seen.add(value.casefold())
            kept.append(value)
    return kept
