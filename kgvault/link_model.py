"""Pass 2 with a model (`--llm-link`): what the rules left undecided, asked once and cached.

Rules first: pass 2 runs as always, then only what it left open goes to the model — the tags it
left flat (to be filed under the tree's existing paths) and pairs of entity names alike enough to
be one thing but too far apart for the rules (a rapidfuzz ratio from 80 to 92, the same kind of
thing, no people). When there is nothing left, no request is made. The answers become a tag
hint per tag and a merge per pair, which the pure link function takes like the user's corrections;
they are listed in `ontology.md` as advised by the model. Answers are cached like extraction's.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path
from typing import Any

from rapidfuzz.fuzz import ratio

from kgvault.corrections import Correction
from kgvault.extract.llm import LLM_CACHE_DIR, AnswerCache, LlmSettings, LlmStats, ModelClient, ModelFailure
from kgvault.names import normalize_name
from kgvault.records import Graph, Problem
from kgvault.resolve import FUZZY_MIN_LENGTH, FUZZY_MIN_SCORE, type_class
from kgvault.tags import is_segment

AMBIGUOUS_MIN_SCORE = 80.0
"""Entity names at least this alike (and under FUZZY_MIN_SCORE) are asked about."""
MAX_PAIRS = 200
MAX_TAGS = 300
_VERSION = "link@1"
_TAGS_SYSTEM = """You file tags into an existing tag tree of a knowledge graph.
Tags are lowercase, words joined by `_`, levels joined by `/`.
You get the tree's paths with the number of nodes under each, and the flat tags nobody filed.
For each flat tag, answer the existing path it belongs under (its parent), or null when none fits.
Only use paths from the tree. Answer one JSON object and nothing else:
{"parents": {"<flat tag>": "<existing/path>" or null}}"""
_PAIRS_SYSTEM = """You decide whether two names in a knowledge graph mean the same thing.
Each pair gives two entity names with their types. Answer only the pairs that are certainly one
thing spelled two ways (a typo, a plural, an abbreviation); leave out the rest.
Answer one JSON object and nothing else: {"same": [["<name>", "<name>"], ...]}"""


@dataclass(frozen=True, slots=True)
class Advice:
    """What the model advised: a parent path per flat tag, and entity pairs to merge."""

    tag_hints: dict[str, str]
    merges: tuple[Correction, ...]
    problems: tuple[Problem, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.tag_hints or self.merges)


def open_questions(graph: Graph) -> tuple[list[tuple[str, int]], list[tuple[str, str, str, str]]]:
    """What the rules left open: flat tags (with counts) and ambiguous entity pairs (names, types)."""
    counts = dict(graph.tag_counts)
    parents = {path.rpartition("/")[0] for path in counts if "/" in path}
    nested = any("/" in path for path in counts)
    flat = (
        [(tag, n) for tag, n in graph.tag_counts if "/" not in tag and tag not in parents] if nested else []
    )
    entities = [e for e in graph.entities if len(normalize_name(e.title)) >= FUZZY_MIN_LENGTH]
    pairs = []
    for a, b in combinations(sorted(entities, key=lambda e: e.id), 2):
        kind = type_class(a.entity_type)
        if kind == "person" or kind != type_class(b.entity_type):  # people are never guessed alike
            continue
        score = ratio(normalize_name(a.title), normalize_name(b.title))
        if AMBIGUOUS_MIN_SCORE <= score < FUZZY_MIN_SCORE:
            pairs.append((a.title, a.entity_type, b.title, b.entity_type))
    return flat[:MAX_TAGS], pairs[:MAX_PAIRS]


def advise(graph: Graph, settings: LlmSettings, vault: Path, stats: LlmStats) -> Advice:
    """Ask the model about what the rules left open; nothing is asked when nothing is open."""
    flat, pairs = open_questions(graph)
    if not flat and not pairs:
        return Advice({}, ())
    cache = AnswerCache(vault / LLM_CACHE_DIR, writable=not settings.dry_run)
    problems: list[Problem] = []
    hints: dict[str, str] = {}
    merges: list[Correction] = []
    if flat:
        tree = [(path, n) for path, n in graph.tag_counts if "/" in path or path not in dict(flat)]
        question = {"tree": dict(tree), "flat": dict(flat)}
        answer = _ask(_TAGS_SYSTEM, question, settings, cache, stats, problems)
        known = {path for path, _ in tree}
        parents = answer.get("parents")
        for tag, parent in parents.items() if isinstance(parents, dict) else ():
            if (
                tag in question["flat"]
                and isinstance(parent, str)
                and parent in known
                and tag not in parent.split("/")
                and all(map(is_segment, parent.split("/")))
            ):
                hints[tag] = parent
    if pairs:
        question_pairs = [[a, a_type, b, b_type] for a, a_type, b, b_type in pairs]
        answer = _ask(_PAIRS_SYSTEM, {"pairs": question_pairs}, settings, cache, stats, problems)
        asked = {frozenset((a.casefold(), b.casefold())): (a, b) for a, _, b, _ in pairs}
        same = answer.get("same")
        for pair in same if isinstance(same, list) else ():
            if isinstance(pair, list) and len(pair) == 2 and all(isinstance(name, str) for name in pair):
                found = asked.get(frozenset(name.casefold() for name in pair))
                if found is not None:
                    merges.append(Correction("merge", found, by_model=True))
    return Advice(hints, tuple(sorted(set(merges), key=lambda c: c.targets)), tuple(problems))


def _ask(
    system: str,
    question: dict[str, Any],
    settings: LlmSettings,
    cache: AnswerCache,
    stats: LlmStats,
    problems: list[Problem],
) -> dict[str, Any]:
    """One cached question; a failure is a problem and no advice, never a failed build."""
    text = json.dumps(question, ensure_ascii=False, sort_keys=True)
    key = hashlib.sha256(json.dumps([settings.model, _VERSION, system, text]).encode("utf-8")).hexdigest()
    cached = None if settings.refresh else cache.get(key)
    if cached is not None:
        stats.cache_hits += 1
        return dict(cached["draft"])
    if settings.dry_run:
        stats.prompt_tokens += (len(system) + len(text)) // 4
        return {}
    try:
        answer = ModelClient(settings, system, stats).ask(text)
        data = json.loads(answer.strip().removeprefix("```json").removeprefix("```").removesuffix("```"))
    except (ModelFailure, ValueError) as error:
        with stats._lock:
            stats.failed += 1
        problems.append(
            Problem("", None, f"--llm-link: the model gave no usable advice ({error}); rules only")
        )
        return {}
    if not isinstance(data, dict):
        return {}
    cache.put(key, {"draft": data, "model": settings.model})
    return data
