"""Sensitivity levels, and what a relation's predicate alone reveals of the people it relates.

A node's sensitivity is its extractor's (and its note's floor's); a relation has none of its own in
the vault. What its predicate says decides part of it: "Sam takes Sertraline" is health, "Sam is a
child of Linda" family, "Sam owes Dana" money, wherever it was written. The sharing cut
(`share.restrict`) and its proof (`check --max-sensitivity`) both ask this module, so they agree.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from kgvault.records import Evidence

LEVELS = ("public", "private", "confidential")
RANK = {level: rank for rank, level in enumerate(LEVELS)}

_PRIVATE_PREDICATES = frozenset(
    {
        "takes",
        "married_to",
        "partner_of",
        "child_of",
        "parent_of",
        "sibling_of",
        "diagnosed_with",
        "allergic_to",
    }
)
"""The table's predicates about someone's health, family or partner (patterns.py): `takes` a medicine,
`married_to`, …; a note's own properties keep their key as predicate, and the words below read those."""


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_PRIVATE_WORDS = _words(
    """diagnosed diagnosis allergic allergy allergies prescribed prescription medication medications
    owes owed lent borrowed loan loans debt debts salary mortgage"""
)
"""Words of a property's own name that tell health or money (`diagnosed_with`, `allergic_to`,
`medications`, `owes`, `salary`); not words a hierarchy, a plant's family, a client's `partner`, a
game's `treatment` or an invoice's `paid_by` use too."""

_WORD = re.compile(r"[a-z]+")


def predicate_sensitivity(predicate: str) -> str:
    """`private` for a predicate about health, family or partners, or money; `public` otherwise."""
    name = predicate.casefold()
    if name in _PRIVATE_PREDICATES or not _PRIVATE_WORDS.isdisjoint(_WORD.findall(name)):
        return "private"
    return "public"


def label_predicate(label: str) -> str:
    """The predicate a relation's label reads (`child of` → `child_of`), as pages show only labels."""
    return "_".join(_WORD.findall(label.casefold()))


def above(sensitivity: str, level: str) -> bool:
    """Whether `sensitivity` is more than a vault shared at `level` may hold."""
    return RANK.get(sensitivity, len(LEVELS)) > RANK[level]


_DRAFT_ITEM = re.compile(r"^(?P<draft>(?:/\d+)?)/(?:nodes|relations)/\d+$")


def pointer_chunk(pointer: str) -> str:
    """What a left-out node's or relation's JSON pointer taints, as a chunk of a note would: a
    kgvault draft's node or relation its whole draft (`/1/nodes/0` → `/1`, whose entities and
    relations it gave), any other item itself and what lies under it (a Mnemon insight
    `/insights/0` and its `/entities/…`)."""
    found = _DRAFT_ITEM.match(pointer)
    return found.group("draft") if found else pointer


class Tainted:
    """The places left-out nodes and relations came from: a piece of evidence there is not shared."""

    def __init__(self, evidence: Iterable[Evidence], whole: Iterable[str] = ()) -> None:
        self.whole = frozenset(whole)
        """Sources nothing of which is shared (a note whose floor is above the level)."""
        self.lines: dict[str, list[tuple[int, int]]] = {}
        self.pointers: dict[str, set[str]] = {}
        for e in evidence:
            if e.pointer is not None:
                self.pointers.setdefault(e.path, set()).add(pointer_chunk(e.pointer))
            else:
                self.lines.setdefault(e.path, []).append((e.line_start, e.line_end))

    def holds(self, evidence: Evidence) -> bool:
        if evidence.path in self.whole:
            return True
        if evidence.pointer is not None:
            tainted = self.pointers.get(evidence.path, ())
            if any(evidence.pointer == p or evidence.pointer.startswith(p + "/") for p in tainted):
                return True
        return any(
            start <= evidence.line_end and evidence.line_start <= end
            for start, end in self.lines.get(evidence.path, ())
        )
