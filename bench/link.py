"""Benchmark pass 2 (`kgvault.link.link`) on synthetic drafts: from scratch and after one changed draft.

Usage:
    python bench/link.py [N ...] [--seed S] [--repeat R] [--profile] [--json]

For each N (default 20000), generate a seeded set of N chunk drafts as pass 1 would hand them over
(`Extraction` records with matching `Source` and `Chunk` records, about 4 chunks per source), then
measure in this process:

1. from scratch: `link(sources, extractions)` over all N drafts;
2. one changed draft: one draft gets a new proposition (a node title and body) and one entity mention
   spelled as another entity, and pass 2 takes it in. When `kgvault.link` offers an incremental API
   (`LinkState.build(sources, extractions)`, `state.update(changed_sources, changed_extractions,
   removed_paths) -> Graph`, `state.graph`), the state is built once, untimed, and only `update` is
   timed: it gets the changed source and all of that source's extractions, as a rebuild would after
   the file was saved. Each repetition then restores the original draft, untimed. Without that API,
   a full `link()` over the changed list is timed and labelled "full relink".

Inputs are made before the clock starts; interpreter start-up and imports are not timed. The cyclic
garbage collector is off during each timed call, as in `kgvault.build.build` (and a collection runs
before it, so one run's garbage does not land on the next). Each measurement runs R times; the table
shows the minimum and the median. With --profile, one more from-scratch call runs under cProfile and
the top 25 functions by cumulative and by own time are printed (to stderr with --json).
Target (the issue): pass 2 over 20,000 drafts under 2 s from scratch and under 0.1 s for one change.
Nothing touches the network.
"""

from __future__ import annotations

import argparse
import cProfile
import datetime as dt
import gc
import hashlib
import io
import json
import os
import platform
import pstats
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from pools import (  # the benchmarks' word pools, beside this script
    ADJECTIVES,
    CITIES,
    CODENAMES,
    CONCEPT_QUALIFIERS,
    CONCEPTS,
    DURATIONS,
    FIRST_NAMES,
    LAST_NAMES,
    ORG_SUFFIXES,
    PLACE_KINDS,
    PURPOSES,
    SOFTWARE_PARTS,
    TASKS,
    THINGS,
    words,
)

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # this checkout's kgvault, even when not installed

import kgvault.link  # noqa: E402
from kgvault.extract import Extraction  # noqa: E402
from kgvault.extract.draft import Draft  # noqa: E402
from kgvault.records import Chunk, Graph, Source  # noqa: E402

DEFAULT_N = 20_000
TARGET_N = 20_000
TARGET_FROM_SCRATCH_S = 2.0
TARGET_ONE_CHANGE_S = 0.1
CHUNKS_PER_SOURCE = 4
ENTITIES_PER_DRAFT = 3 / 20
"""Size of the entity vocabulary per draft: 3,000 names for 20,000 drafts."""
TAGS = 500
EXTRACTOR = "bench@1"
FIRST_DAY = dt.date(2019, 1, 1)

# --------------------------------------------------------------------------------------------
# Word pools.


SOFTWARE = words(
    """
    Redis, Kafka, Dagster, Airflow, Klipper, Marlin, SQLite, DuckDB, Terraform, Kubernetes, Docker,
    Grafana, Prometheus, Nginx, FastAPI, Django, React, Obsidian, Zotero, Home Assistant, OctoPrint,
    Ansible, Elasticsearch, RabbitMQ, Snowflake, dbt, Jupyter, Neovim, Tailscale
    """
)
VERSIONED = [("Postgres", ("14", "15", "16")), ("Python", ("3.10", "3.11", "3.12")), ("Debian", ("11", "12"))]
"""`Postgres 15` and `Postgres 16` are versions of one thing: pass 2 lets the newer one supersede."""
SOFTWARE_SUFFIXES = words("firmware, app, server, plugin")
DEVICE_KINDS = words("printer, NAS, laptop, router, Pi, server, phone")
TAG_ROOTS = words(
    """
    work, 3d_printing, garden, reading, idea, todo, health, travel, cooking, finance, learning, home,
    music, meeting, project, person, review, writing, homelab, family, research, admin, hobby, sport,
    journal
    """
)
TAG_LEAVES = words(
    """
    firmware, infra, planning, bug, review, hiring, voron, tomato, book, ops, release, incident, budget,
    recipe, trip, run, note, question, decision, backup, network, printer, plant, paper, course, song,
    tax, insurance, repair, deploy, design, metric, draft, goal, habit, contact, idea, tool, query, log
    """
)
PROSE = [
    "The main idea is to keep the moving parts few and the failure modes boring.",
    "Worth revisiting when there is more time to think it through.",
    "Open questions remain about the long-term ownership of the reports.",
    "Most of the effort goes into the edge cases rather than the happy path.",
    "A simpler version would probably be good enough for now.",
    "Nothing urgent, but it keeps coming back.",
    "The numbers look reasonable, though the sample is small.",
    "Hard to say whether this is a trend or just noise.",
    "Better to write it down now than to forget it by next week.",
    "More context would help before deciding anything.",
]
HEADINGS = words("Log, Notes, Decisions, Open questions, Follow-ups, Ideas, Status, Links")


# --------------------------------------------------------------------------------------------
# The synthetic drafts.


@dataclass(frozen=True, slots=True)
class Name:
    """One entity of the vocabulary and the ways drafts spell it."""

    name: str
    kind: str  # person, project, software, device, organization, place, concept
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Inputs:
    """What pass 1 hands to pass 2, plus one changed draft to take in."""

    sources: list[Source]
    extractions: list[Extraction]
    changed_source: Source
    changed_extractions: list[Extraction]
    """Every extraction of the changed source: one of them carries the changed draft."""
    original_extractions: list[Extraction]
    """The same extractions before the change (to restore the incremental state between repetitions)."""


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _zipf(count: int, exponent: float = 0.9) -> list[float]:
    """Cumulative Zipf-like weights: a few items are everywhere, most are rare."""
    total, cumulative = 0.0, []
    for rank in range(count):
        total += 1.0 / (rank + 1) ** exponent
        cumulative.append(total)
    return cumulative


class Corpus:
    """A deterministic generator of N drafts with their chunks and sources."""

    def __init__(self, n: int, seed: int) -> None:
        self.n = n
        self.rng = random.Random(seed)
        self.sources_wanted = max(1, round(n / CHUNKS_PER_SOURCE))
        # About one daily note every other day: a vault of 5,000 notes spans some seven years.
        self.span_days = max(60, self.sources_wanted // 2)
        self.names = self._vocabulary(max(40, round(n * ENTITIES_PER_DRAFT)))
        self.by_kind: dict[str, list[Name]] = {}
        for name in self.names:
            self.by_kind.setdefault(name.kind, []).append(name)
        self.rng.shuffle(self.names)
        self.name_weights = _zipf(len(self.names))
        self.kind_weights = {kind: _zipf(len(names)) for kind, names in self.by_kind.items()}
        self.tags = self._tags(TAGS)
        self.tag_weights = _zipf(len(self.tags), 1.0)
        # Propositions said again and again on different dates: what consolidation feeds on.
        self.recurring = [self._recurring_title() for _ in range(max(10, n // 40))]
        self.recurring_weights = _zipf(len(self.recurring), 0.7)
        self.timelines: dict[tuple[str, str], list[tuple[int, Name]]] = {}
        self.said_on: dict[dt.date, list[dict[str, Any]]] = {}

    # -- vocabulary -------------------------------------------------------------------------

    def _vocabulary(self, total: int) -> list[Name]:
        rng = self.rng
        shares = {
            "person": 0.30,
            "project": 0.14,
            "software": 0.18,
            "device": 0.08,
            "organization": 0.12,
            "place": 0.08,
        }
        counts = {kind: max(3, round(total * share)) for kind, share in shares.items()}
        counts["concept"] = max(3, total - sum(counts.values()))
        makers: dict[str, Callable[[], str]] = {
            "person": lambda: f"{rng.choice(FIRST_NAMES)} {rng.choice(LAST_NAMES)}",
            "project": lambda: rng.choice(
                [rng.choice(CODENAMES), f"{rng.choice(ADJECTIVES)} {rng.choice(CODENAMES)}"]
            ),
            "software": lambda: rng.choice(
                [rng.choice(SOFTWARE), "".join(rng.choice(part) for part in SOFTWARE_PARTS)]
            ),
            "device": lambda: f"{rng.choice(CODENAMES)} {rng.choice(DEVICE_KINDS)}",
            "organization": lambda: f"{rng.choice([*CODENAMES, *LAST_NAMES])} {rng.choice(ORG_SUFFIXES)}",
            "place": lambda: rng.choice(
                [rng.choice(CITIES), f"{rng.choice(PLACE_KINDS)} {rng.choice(CODENAMES)}"]
            ),
            "concept": lambda: rng.choice(
                [rng.choice(CONCEPTS), f"{rng.choice(CONCEPT_QUALIFIERS)} {rng.choice(CONCEPTS)}"]
            ),
        }
        taken: set[str] = set()
        raw: list[tuple[str, str]] = []
        for base, versions in VERSIONED:
            for version in versions:
                taken.add(f"{base} {version}".casefold())
                raw.append((f"{base} {version}", "software"))
        for kind, count in counts.items():
            made = 0
            attempts = 0
            while made < count:
                name = makers[kind]()
                attempts += 1
                if attempts > 20 * count:  # pools exhausted: disambiguate with a number
                    name = f"{name} {attempts}"
                if name.casefold() not in taken:
                    taken.add(name.casefold())
                    raw.append((name, kind))
                    made += 1
        # Aliases only where they stay unambiguous: `Dana K.` must not join two people.
        wanted: dict[str, list[str]] = {}
        for name, kind in raw:
            for alias in self._alias_candidates(name, kind):
                wanted.setdefault(alias.casefold(), []).append(name)
        return [
            Name(
                name,
                kind,
                tuple(
                    alias
                    for alias in self._alias_candidates(name, kind)
                    if alias.casefold() not in taken and len(wanted[alias.casefold()]) == 1
                ),
            )
            for name, kind in raw
        ]

    @staticmethod
    def _alias_candidates(name: str, kind: str) -> list[str]:
        words = name.split()
        if kind == "person" and len(words) == 2:
            return [f"{words[0]} {words[1][0]}.", "".join(w[0] for w in words)]
        if kind == "project":
            return [f"Project {name}"]
        if kind == "organization" and len(words) == 2:
            return [words[0]]
        if kind == "software" and len(words) == 1 and len(name) > 5:
            return [name.lower()[:4]]
        if kind == "place" and len(words) == 2 and words[0] not in PLACE_KINDS:
            return ["".join(w[0] for w in words)]
        return []

    def _tags(self, count: int) -> list[str]:
        """About 500 tags: roots, nested `root/leaf` paths and plural spellings of some of them."""
        rng = self.rng
        tags = list(dict.fromkeys([*TAG_ROOTS, *TAG_LEAVES]))
        nested = [f"{root}/{leaf}" for root in TAG_ROOTS for leaf in TAG_LEAVES]
        rng.shuffle(nested)
        for tag in nested:
            if len(tags) >= count:
                break
            tags.append(tag)
            if rng.random() < 0.15 and len(tags) < count:
                tags.append(tag + "s")  # `work/bug` and `work/bugs`: both occur in real vaults
        rng.shuffle(tags)
        return tags

    def _recurring_title(self) -> str:
        rng = self.rng
        person = rng.choice(FIRST_NAMES) + " " + rng.choice(LAST_NAMES)
        return rng.choice(
            [
                f"Weekly sync with {person} on {rng.choice(CODENAMES)}",
                f"Ran the {rng.choice(CODENAMES)} backup",
                f"Watered the {rng.choice(['tomatoes', 'raised beds', 'herbs', 'lemon tree'])}",
                f"Cleaned the {rng.choice(CODENAMES)} {rng.choice(DEVICE_KINDS)}",
                f"Reviewed {rng.choice(TASKS)} with {person}",
                f"Went running along {rng.choice(PLACE_KINDS)} {rng.choice(CODENAMES)}",
            ]
        )

    # -- picking ----------------------------------------------------------------------------

    def pick(self, kind: str | None = None) -> Name:
        if kind is None:
            return self.rng.choices(self.names, cum_weights=self.name_weights)[0]
        return self.rng.choices(self.by_kind[kind], cum_weights=self.kind_weights[kind])[0]

    def tag(self) -> str:
        return self.rng.choices(self.tags, cum_weights=self.tag_weights)[0]

    def spell(self, name: Name) -> tuple[str, list[str]]:
        """How one draft names the entity: mostly as is, sometimes by alias, in another case, with a
        suffix (`Klipper firmware`) or a typo; returns the spelling and the aliases the draft lists."""
        rng = self.rng
        roll = rng.random()
        text = name.name
        if roll < 0.08 and name.aliases:
            return rng.choice(name.aliases), []
        if roll < 0.14:
            text = text.lower() if rng.random() < 0.8 else text.upper()
        elif roll < 0.18 and name.kind in ("software", "device"):
            suffixed = f"{text} {rng.choice(SOFTWARE_SUFFIXES)}"
            return suffixed, [text] if rng.random() < 0.5 else []
        elif roll < 0.20 and len(text) > 5:
            i = rng.randrange(1, len(text) - 2)
            typo = text[:i] + text[i + 1] + text[i] + text[i + 2 :]
            if typo.casefold() != text.casefold():
                return typo, []
        aliases = list(name.aliases) if name.aliases and rng.random() < 0.3 else []
        return text, aliases

    def _about(self, named: list[Name]) -> Name:
        """An entity for a node: one the chunk already named, or a new one."""
        return self.rng.choice(named) if named and self.rng.random() < 0.6 else self.pick()

    def value_on(self, subject: Name, predicate: str, kind: str, day: int) -> Name:
        """The value a functional predicate has on a day: each subject changes it a few times."""
        key = (subject.name, predicate)
        timeline = self.timelines.get(key)
        if timeline is None:
            rng = self.rng
            starts = sorted(rng.randrange(self.span_days) for _ in range(rng.randint(1, 4)))
            timeline = [(start, self.pick(kind)) for start in starts]
            self.timelines[key] = timeline
        current = timeline[0][1]
        for start, value in timeline:
            if start <= day:
                current = value
        return current

    # -- one draft --------------------------------------------------------------------------

    def draft(self, day: dt.date, source_tags: list[str], structural: bool) -> dict[str, Any]:
        """One chunk's raw draft: nodes, entity mentions and relations that support each other."""
        rng = self.rng
        mentions: dict[str, dict[str, Any]] = {}
        named: list[Name] = []
        spelled: dict[str, str] = {}  # a chunk keeps to one spelling of a thing it names twice

        def mention(entity: Name) -> str:
            if entity.name in spelled:
                return spelled[entity.name]
            spelling, aliases = self.spell(entity)
            entry = mentions.setdefault(
                spelling.casefold(),
                {"name": spelling, "entity_type": entity.kind, "aliases": aliases, "description": ""},
            )
            if rng.random() < 0.1:
                entry["entity_type"] = "concept"  # the extractor could not tell
            if rng.random() < 0.15:
                entry["description"] = f"{entity.name}, a {entity.kind} that comes up in the notes."
            spelled[entity.name] = str(entry["name"])
            named.append(entity)
            return spelled[entity.name]

        if structural:  # a frontmatter block: the properties name an entity or two and say nothing
            for _ in range(rng.choice((0, 1, 1, 2))):
                mention(self.pick())
            return {"episode_name": "", "entities": list(mentions.values())}

        nodes: list[dict[str, Any]] = []
        relations: list[dict[str, Any]] = []
        offset = (day - FIRST_DAY).days
        for _ in range(rng.choices((0, 1, 2), weights=(20, 55, 25))[0]):
            self._relation(day, offset, mention, nodes, relations)
        for _ in range(max(0, rng.choices((1, 2, 3, 4), weights=(15, 35, 35, 15))[0] - len(nodes) // 2)):
            nodes.append(self._node(day, mention, named))
        for node in nodes:
            node.setdefault("tags", sorted({*source_tags, *(self.tag() for _ in range(rng.randint(0, 1)))}))
        return {
            "episode_name": f"{day.isoformat()} log",
            "reference_time": day,
            "nodes": nodes,
            "entities": list(mentions.values()),
            "relations": relations,
        }

    def _relation(
        self,
        day: dt.date,
        offset: int,
        mention: Callable[[Name], str],
        nodes: list[dict[str, Any]],
        relations: list[dict[str, Any]],
    ) -> None:
        """One relation and the node stating it (same chunk: the node asserts it for pass 2)."""
        rng = self.rng
        predicate, subject_kind, object_kind, functional = rng.choice(
            [
                ("runs", "device", "software", True),
                ("lives_in", "person", "place", True),
                ("works_for", "person", "organization", True),
                ("works_at", "person", "organization", True),  # a synonym pass 2 folds into works_for
                ("uses", "project", "software", False),
                ("part_of", "project", "organization", False),
                ("member_of", "person", "organization", False),
                ("depends_on", "project", "project", False),
                ("located_in", "organization", "place", True),
            ]
        )
        subject = self.pick(subject_kind)
        if functional and rng.random() > 0.02:  # a few statements contradict the timeline
            target = self.value_on(subject, predicate, object_kind, offset)
        else:
            target = self.pick(object_kind)
        if predicate == "uses" and rng.random() < 0.15:
            base, versions = rng.choice(VERSIONED)
            version = versions[min(len(versions) - 1, offset * len(versions) // self.span_days)]
            target = next(n for n in self.by_kind["software"] if n.name == f"{base} {version}")
        if subject.name.casefold() == target.name.casefold():
            return
        start, end = mention(subject), mention(target)
        if start.casefold() == end.casefold():
            return
        label = predicate.replace("_", " ")
        statement = f"{start} {label} {end}"
        relations.append(
            {
                "subject": start,
                "predicate": predicate,
                "label": label,
                "object": end,
                "statement": statement + ".",
                "confidence": rng.choice((0.7, 0.8, 0.9, 0.9, 1.0)),
                "supporting_text": statement if rng.random() < 0.5 else None,
                "valid_at": day if functional else None,
            }
        )
        stated: dict[str, Any] = {"title": statement, "body": rng.choice(PROSE), "entities": [start, end]}
        if functional:
            stated |= {"memory_layer": "episodic", "type": "state", "timestamp": day, "valid_from": day}
        else:
            stated |= {"memory_layer": "semantic", "type": "fact"}
        nodes.append(stated | {"confidence": rng.choice(("medium", "high"))})

    def _node(self, day: dt.date, mention: Callable[[Name], str], named: list[Name]) -> dict[str, Any]:
        """One node; its entities are, more often than not, things the chunk already named."""
        rng = self.rng
        roll = rng.random()
        if roll < 0.06 and self.said_on.get(day):  # said again the same day (daily note and meeting note)
            return dict(rng.choice(self.said_on[day]))
        if roll < 0.18:
            title = rng.choices(self.recurring, cum_weights=self.recurring_weights)[0]
            node = {"memory_layer": "episodic", "type": "observation", "title": title, "timestamp": day}
            node["body"] = f"Took {rng.choice(DURATIONS)}."
            node["confidence"] = rng.choice(("medium", "high", "high"))
            self.said_on.setdefault(day, []).append(node)
            return node
        if roll < 0.65:
            a_text = mention(self._about(named))
            if rng.random() < 0.6:  # most events name one thing
                template = rng.choice(["Fixed the {thing} in {a}", "Started on {task} for {a}"])
                b_text = a_text
            else:
                template = rng.choice(
                    ["Met {a} about {b}", "Decided to move {a} to {b}", "{a} is blocked on {b}"]
                )
                b_text = mention(self._about(named))
            title = template.format(a=a_text, b=b_text, thing=rng.choice(THINGS), task=rng.choice(TASKS))
            kind = "decision" if title.startswith("Decided") else "observation"
            body = f"Took {rng.choice(DURATIONS)}. {rng.choice(PROSE)}"
            if rng.random() < 0.3:
                body += f" {self.pick().name} might help."  # an unlinked mention for the mention index
            node = {"memory_layer": "episodic", "type": kind, "title": title, "body": body, "timestamp": day}
            node |= {
                "entities": list(dict.fromkeys([a_text, b_text])),
                "importance": rng.choice((None, 2, 3)),
            }
            self.said_on.setdefault(day, []).append(node)
            return node
        if roll < 0.85:
            thing = self.pick(rng.choice(("software", "device", "project")))
            thing_text = mention(thing)
            title = f"{thing.name} is good for {rng.choice(PURPOSES)}"
            return {"memory_layer": "semantic", "type": "fact", "title": title, "entities": [thing_text]}
        concept = self.pick("concept")
        concept_text = mention(concept)
        return {
            "memory_layer": "semantic",
            "type": rng.choice(("concept", "concept", "procedure")),
            "title": concept.name[:1].upper() + concept.name[1:],
            "body": rng.choice(PROSE),
            "entities": [concept_text],
            "sensitivity": rng.choice(("private", "public")),
        }

    # -- sources and chunks -----------------------------------------------------------------

    def make(self) -> tuple[list[Source], list[Extraction]]:
        """N extractions over about N/4 sources, in source and chunk order as pass 1 returns them."""
        rng = self.rng
        sources: list[Source] = []
        extractions: list[Extraction] = []
        days = list(range(self.span_days))
        rng.shuffle(days)
        daily_days = iter(sorted(days))
        left = self.n
        titles: set[str] = set()
        while left > 0:
            chunks = min(left, rng.randint(2, 6))
            left -= chunks
            roll = rng.random()
            meta: dict[str, Any] = {}
            if roll < 0.4:
                day = FIRST_DAY + dt.timedelta(days=next(daily_days, rng.randrange(self.span_days)))
                folder, title = "daily", day.isoformat()
            else:
                day = FIRST_DAY + dt.timedelta(days=rng.randrange(self.span_days))
                if roll < 0.6:
                    folder, title = "meetings", f"{day.isoformat()} {rng.choice(CODENAMES)} sync"
                elif roll < 0.85:
                    folder, title = "work", f"{self.pick('project').name} {rng.choice(HEADINGS).lower()}"
                    meta = {"date": day.isoformat(), "tags": [self.tag()]}
                else:  # a note about an entity: its title and aliases name the entity (pass 2 joins them)
                    entity = self.pick()
                    folder, title = "contacts" if entity.kind == "person" else "topics", entity.name
                    meta = {"aliases": list(entity.aliases), "tags": [entity.kind]}
            while title.casefold() in titles:
                title = f"{title} {rng.randint(2, 99)}"
            titles.add(title.casefold())
            path = f"{folder}/{title}.md"
            source_tags = sorted({self.tag(), *meta.get("tags", [])})
            made, text = self._chunks(path, day, source_tags, chunks, bool(meta))
            front = ["---", *(f"{k}: {json.dumps(v, ensure_ascii=False)}" for k, v in meta.items()), "---"]
            full = "\n".join(front) + "\n" + text if meta else text
            sources.append(
                Source(
                    id=path,
                    path=path,
                    kind="markdown",
                    title=title,
                    meta=meta,
                    reference_time=day if folder in ("daily", "meetings") or "date" in meta else None,
                    text=full,
                    body_line=len(front) + 1 if meta else 1,
                    sha256=_sha(full),
                    frontmatter_lines=(1, len(front)) if meta else None,
                )
            )
            extractions.extend(made)
        return sources, extractions

    def _chunks(
        self, path: str, day: dt.date, source_tags: list[str], count: int, frontmatter: bool
    ) -> tuple[list[Extraction], str]:
        rng = self.rng
        out: list[Extraction] = []
        lines: list[str] = []
        line = 1
        for index in range(count):
            structural = frontmatter and index == 0
            if structural:
                # The frontmatter chunk: its lines are the `---` block, before the body text.
                raw = self.draft(day, source_tags, structural=True)
                text, start = "---\n---", 1
            else:
                if index > 0 and rng.random() < 0.3:  # a dated heading moves the day on
                    day = day + dt.timedelta(days=rng.randint(1, 20))
                raw = self.draft(day, source_tags, structural=False)
                text = "\n".join(
                    [f"## {rng.choice(HEADINGS)}", ""]
                    + [f"- {n['title']}. {n.get('body', '')}".rstrip() for n in raw["nodes"]]
                    + [""]
                )
                start = line
                lines.append(text)
                line += text.count("\n") + 1
            end = start + text.count("\n")
            chunk = Chunk(
                source_path=path,
                index=index,
                kind="frontmatter" if structural else "section",
                heading_path=() if structural else (path.rsplit("/", 1)[-1][:-3],),
                line_start=start,
                line_end=end,
                text=text,
                reference_time=day,
                sha256=_sha(text),
            )
            out.append(Extraction(chunk=chunk, draft=Draft.model_validate(raw), extractor=EXTRACTOR))
        return out, "\n".join(lines)

    def change_one(self, sources: list[Source], extractions: list[Extraction]) -> Inputs:
        """Give one draft a new proposition and one entity mention spelled as another entity."""
        rng = self.rng
        candidates = [
            i
            for i, x in enumerate(extractions)
            if x.draft.nodes and x.draft.entities and not x.draft.relations
        ]
        at = rng.choice(candidates)
        old = extractions[at]
        draft = old.draft
        newcomer = self.pick()
        entities = list(draft.entities)
        entities[0] = entities[0].model_copy(update={"name": newcomer.name, "aliases": []})
        title = f"Tried the {rng.choice(CONCEPT_QUALIFIERS)} {rng.choice(CONCEPTS)} idea on {newcomer.name}"
        node = draft.nodes[0].model_copy(
            update={"title": title, "body": "A new proposition, said once.", "entities": [newcomer.name]}
        )
        new_draft = draft.model_copy(update={"nodes": [node, *draft.nodes[1:]], "entities": entities})
        text = old.chunk.text + f"\n- {title}."
        chunk = replace(old.chunk, text=text, sha256=_sha(text))
        new = replace(old, chunk=chunk, draft=new_draft)
        path = chunk.source_path
        source_at = next(i for i, s in enumerate(sources) if s.path == path)
        source = sources[source_at]
        full = source.text + f"\n- {title}."
        changed_source = replace(source, text=full, sha256=_sha(full))
        original = [x for x in extractions if x.chunk.source_path == path]
        changed = [new if x is old else x for x in original]
        return Inputs(
            sources=sources,
            extractions=extractions,
            changed_source=changed_source,
            changed_extractions=changed,
            original_extractions=original,
        )


def generate(n: int, seed: int) -> Inputs:
    """N seeded drafts with their sources, and one of them changed."""
    corpus = Corpus(n, seed)
    sources, extractions = corpus.make()
    return corpus.change_one(sources, extractions)


# --------------------------------------------------------------------------------------------
# Measurements


def timed(call: Callable[[], Any]) -> tuple[float, Any]:
    """Seconds one call takes with the cyclic collector off, as during a build."""
    gc.collect()
    collecting = gc.isenabled()
    gc.disable()
    try:
        started = time.perf_counter()
        result = call()
        seconds = time.perf_counter() - started
    finally:
        if collecting:
            gc.enable()
    return seconds, result


def incremental_api() -> Any | None:
    """`kgvault.link.LinkState` when it has `build` and `update`, else None (duck-typed)."""
    state = getattr(kgvault.link, "LinkState", None)
    if state is not None and hasattr(state, "build") and hasattr(state, "update"):
        return state
    return None


@dataclass(slots=True)
class Row:
    n: int
    sources: int
    nodes_per_draft: float
    mentions_per_draft: float
    relations_per_draft: float
    from_scratch_min_s: float
    from_scratch_median_s: float
    one_change_min_s: float
    one_change_median_s: float
    mode: str
    """`incremental (LinkState.update)` or `full relink (no incremental API)`."""
    matches_full_relink: bool | None
    """Whether the incremental graph equals a full `link()` of the changed inputs (None without the API)."""
    episodic: int
    semantic: int
    consolidated: int
    entities: int
    relations: int
    conflicts: int
    tags: int
    from_scratch_target_met: bool
    one_change_target_met: bool


def _replaced(inputs: Inputs) -> tuple[list[Source], list[Extraction]]:
    """The full input lists with the changed source and its extractions in place."""
    path = inputs.changed_source.path
    sources = [inputs.changed_source if s.path == path else s for s in inputs.sources]
    by_index = {x.chunk.index: x for x in inputs.changed_extractions}
    extractions = [by_index[x.chunk.index] if x.chunk.source_path == path else x for x in inputs.extractions]
    return sources, extractions


def measure(n: int, seed: int, repeat: int, say: Callable[[str], None]) -> tuple[Row, Inputs]:
    started = time.perf_counter()
    inputs = generate(n, seed)
    drafts = [x.draft for x in inputs.extractions]
    say(
        f"N={n}: {len(inputs.sources)} sources, {len(drafts)} drafts generated in "
        f"{time.perf_counter() - started:.1f} s (not timed); linking from scratch"
    )
    scratch: list[float] = []
    graph: Graph | None = None
    for _ in range(repeat):
        seconds, graph = timed(lambda: kgvault.link.link(inputs.sources, inputs.extractions))
        scratch.append(seconds)
    assert graph is not None
    say(f"N={n}: from scratch {min(scratch):.3f} s; one changed draft")

    changed_sources, changed_extractions = _replaced(inputs)
    api = incremental_api()
    one: list[float] = []
    matches: bool | None = None
    state = api.build(inputs.sources, inputs.extractions) if api is not None else None
    if state is not None and hasattr(state, "graph"):
        mode = "incremental (LinkState.update)"
        for attempt in range(repeat):
            seconds, updated = timed(
                lambda: state.update([inputs.changed_source], inputs.changed_extractions, [])
            )
            one.append(seconds)
            if attempt == 0:
                _, full = timed(lambda: kgvault.link.link(changed_sources, changed_extractions))
                matches = updated == full and state.graph == full
            original = next(s for s in inputs.sources if s.path == inputs.changed_source.path)
            state.update([original], inputs.original_extractions, [])  # back to the start, untimed
    else:
        mode = "full relink (no incremental API)"
        for _ in range(repeat):
            seconds, _ = timed(lambda: kgvault.link.link(changed_sources, changed_extractions))
            one.append(seconds)
    say(f"N={n}: one change {min(one):.3f} s ({mode})")

    layers = [node.memory_layer for node in graph.nodes]
    row = Row(
        n=len(inputs.extractions),
        sources=len(inputs.sources),
        nodes_per_draft=round(sum(len(d.nodes) for d in drafts) / len(drafts), 2),
        mentions_per_draft=round(sum(len(d.entities) for d in drafts) / len(drafts), 2),
        relations_per_draft=round(sum(len(d.relations) for d in drafts) / len(drafts), 2),
        from_scratch_min_s=round(min(scratch), 4),
        from_scratch_median_s=round(statistics.median(scratch), 4),
        one_change_min_s=round(min(one), 4),
        one_change_median_s=round(statistics.median(one), 4),
        mode=mode,
        matches_full_relink=matches,
        episodic=layers.count("episodic"),
        semantic=layers.count("semantic"),
        consolidated=sum(1 for node in graph.nodes if node.derived_from),
        entities=len(graph.entities),
        relations=len(graph.relations),
        conflicts=len(graph.conflicts),
        tags=len(graph.tag_counts),
        from_scratch_target_met=min(scratch) < TARGET_FROM_SCRATCH_S,
        one_change_target_met=min(one) < TARGET_ONE_CHANGE_S,
    )
    return row, inputs


def profile(inputs: Inputs, top: int = 25) -> str:
    """cProfile of one from-scratch link(): the top functions by cumulative and by own time."""
    profiler = cProfile.Profile()
    timed(lambda: profiler.runcall(kgvault.link.link, inputs.sources, inputs.extractions))
    out = io.StringIO()
    for order in ("cumulative", "tottime"):
        out.write(f"--- top {top} by {order} ---\n")
        pstats.Stats(profiler, stream=out).strip_dirs().sort_stats(order).print_stats(top)
    return out.getvalue()


def table(rows: Sequence[Row]) -> str:
    lines = [
        "| N drafts | sources | from scratch s (min / median) | one change s (min / median) | mode |",
        "|---:|---:|---:|---:|---|",
    ]
    for r in rows:
        check = "" if r.matches_full_relink is None else f"; equals full relink: {r.matches_full_relink}"
        lines.append(
            f"| {r.n} | {r.sources} | {r.from_scratch_min_s:.3f} / {r.from_scratch_median_s:.3f} "
            f"| {r.one_change_min_s:.4f} / {r.one_change_median_s:.4f} | {r.mode}{check} |"
        )
    return "\n".join(lines)


def output_table(rows: Sequence[Row]) -> str:
    """What the inputs held and what pass 2 made of them: the work behind the time."""
    lines = [
        "| N drafts | nodes/draft | mentions/draft | relations/draft | episodic | semantic "
        "| consolidated | entities | relations | conflicts | tags |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        cells = [
            r.n,
            r.nodes_per_draft,
            r.mentions_per_draft,
            r.relations_per_draft,
            r.episodic,
            r.semantic,
            r.consolidated,
            r.entities,
            r.relations,
            r.conflicts,
            r.tags,
        ]
        lines.append("| " + " | ".join(str(c) for c in cells) + " |")
    return "\n".join(lines)


def verdict(rows: Sequence[Row]) -> str:
    target = (
        f"Target at N={TARGET_N}: from scratch < {TARGET_FROM_SCRATCH_S} s, "
        f"one changed draft < {TARGET_ONE_CHANGE_S} s"
    )
    at = [r for r in rows if r.n == TARGET_N]
    if not at:
        return f"{target} (not measured in this run)."
    row = at[0]

    def met(ok: bool) -> str:
        return "met" if ok else "NOT met"

    return (
        f"{target}: from scratch {met(row.from_scratch_target_met)} ({row.from_scratch_min_s:.3f} s), "
        f"one change {met(row.one_change_target_met)} ({row.one_change_min_s:.4f} s, {row.mode})."
    )


def machine() -> dict[str, Any]:
    return {
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "n",
        type=int,
        nargs="*",
        metavar="N",
        help=f"number of drafts (several N give several rows) [{DEFAULT_N}]",
    )
    parser.add_argument("--seed", type=int, default=1, help="generator seed [1]")
    parser.add_argument("--repeat", type=int, default=3, help="time each measurement R times [3]")
    parser.add_argument(
        "--profile",
        action="store_true",
        help="profile one more from-scratch call and print the top functions",
    )
    parser.add_argument("--json", action="store_true", help="print the numbers as JSON instead of a table")
    args = parser.parse_args(argv)
    sizes = args.n or [DEFAULT_N]
    if any(n < 1 for n in sizes) or args.repeat < 1:
        parser.error("N and --repeat must be at least 1")

    def say(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    rows: list[Row] = []
    profiles: list[str] = []
    for n in sizes:
        row, inputs = measure(n, args.seed, args.repeat, say)
        rows.append(row)
        if args.profile:
            say(f"N={n}: profiling from scratch")
            profiles.append(f"=== cProfile of link() from scratch, N={row.n} ===\n{profile(inputs)}")
        del inputs
    if args.json:
        for text in profiles:
            print(text, file=sys.stderr)
        print(
            json.dumps(
                {
                    "seed": args.seed,
                    "repeat": args.repeat,
                    "machine": machine(),
                    "target": {
                        "n": TARGET_N,
                        "from_scratch_s": TARGET_FROM_SCRATCH_S,
                        "one_change_s": TARGET_ONE_CHANGE_S,
                    },
                    "rows": [asdict(r) for r in rows],
                },
                indent=2,
                ensure_ascii=False,
            )
        )
    else:
        info = machine()
        print(table(rows))
        print()
        print(output_table(rows))
        print()
        print(verdict(rows))
        print(
            f"Python {info['python']} on {info['platform']}, {info['cpus']} CPUs; seed {args.seed}; "
            f"best and median of {args.repeat}; gc off during each timed call."
        )
        for text in profiles:
            print()
            print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
