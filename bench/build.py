"""Benchmark `kgvault build` against the floor of reading and parsing the same notes.

Usage:
    python bench/build.py N [N ...] [--seed S] [--keep DIR] [--repeat R] [--tmpdir DIR] [--stages]
                          [--watch-samples K] [--json]

For each N, generate a seeded synthetic corpus of N Markdown notes (daily notes, project notes,
meeting notes, people with aliases, topic pages, a glossary per ~100 notes), then measure on that
corpus, each in a fresh Python subprocess:

1. the floor: read every file, `frontmatter.loads` it and parse it with markdown-it-py
   (wall time including interpreter start and imports);
2. `python -m kgvault build CORPUS -o VAULT --json -q` into a clean vault (wall time, peak RSS);
3. the same command again, a no-op rebuild (wall time, files written: should be 0);
4. a one-note-edit rebuild: append one sentence that yields an episodic page
   ("Fixed the zqedit widget on the bench today.") to the first daily note (`daily/*.md` in sorted
   order), then the same command again (wall time, files written); the page must appear;
5. watch latency: start `python -m kgvault watch CORPUS -o VAULT --debounce 200`, wait for its
   first line, then K times (--watch-samples, default 20; 0 skips this) append
   "Fixed the zqw{i}x widget today." to a daily note and time from the closed file to the moment
   `VAULT/episodic/*zqw{i}x*` exists (debounce included; polled every 5 ms for the page's expected
   name `fixed-the-zqw{i}x-widget-today.md`, every 100 ms for the glob); a note whose name carries
   no date (`--corpus` without daily notes) gets "... widget on 2024-03-12." instead, since
   "today" dates nothing there. Sample i edits the
   daily note after the one of sample i - 1 in sorted order (cycling; sample 0 the second), so
   every sample edits another note. The next sample waits for the watcher's line of that rebuild
   and 0.3 s more, so rebuilds never overlap. Reported: median, min and max; SIGINT stops it.

Wall time is perf_counter from spawn to reap. Peak memory and CPU time (user + system) come
from the rusage `os.wait4` returns for that child alone (Linux reports ru_maxrss in KiB).
An unmeasured warm-up run on 10 notes byte-compiles the imports of both children first (with
PYTHONDONTWRITEBYTECODE unset for it, so the bytecode is written where the environment sets it).
With --corpus DIR (an existing notes folder, only ever read) floor, clean build and no-op run on
DIR itself; edits and watch run on a copy of it (without .git) in the work folder, built once,
unmeasured, into a vault of its own first. Its "daily notes" are `daily/*.md`, else notes named
YYYY-MM-DD.md anywhere, else any note.
Targets (issue): full build ≤ 2.5 × floor, no-op ≤ 0.3 s, one edit ≤ 0.5 s and watch latency
≤ 0.5 s median at N=2000; no-op ≤ 2 s at N=20000. All wall times include interpreter start-up.
Nothing touches the network; temporary folders are removed unless --keep.
See docs/performance.md.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
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

TARGET_RATIO = 2.5
TARGET_N = 2000
TARGET_NOOP_S = 0.3
TARGET_EDIT_S = 0.5
TARGET_WATCH_S = 0.5
"""Median watch latency, debounce included."""
TARGET_LARGE_N = 20000
TARGET_LARGE_NOOP_S = 2.0
WATCH_DEBOUNCE_MS = 200
WATCH_SAMPLE_TIMEOUT = 120.0
WATCH_POLL = 0.005
GLOB_EVERY = 20
"""Polls between globs for a watch sample's page when its expected name is not there (100 ms)."""
WATCH_PAUSE = 0.3
"""Seconds of quiet after a sample's rebuild line before the next sample."""
EDIT_SENTENCE = "\nFixed the zqedit widget on the bench today.\n"
EDIT_GLOB = "*zqedit*"
SUBPROCESS_TIMEOUT = 900.0
REPO = Path(__file__).resolve().parent.parent
"""Children run here, so `python -m kgvault` is this checkout's kgvault even when not installed."""

FLOOR_SCRIPT = """
import sys
from pathlib import Path

import frontmatter
from markdown_it import MarkdownIt

md = MarkdownIt("commonmark")
count = 0
for path in sorted(Path(sys.argv[1]).rglob("*.md")):
    text = path.read_text("utf-8")
    try:
        frontmatter.loads(text)
    except Exception:
        pass
    md.parse(text)
    count += 1
print(count)
"""

# With --stages: one more clean build, in-process, timing each stage through build()'s progress callback.
STAGES_SCRIPT = """
import json
import sys
import time
from pathlib import Path

started = time.perf_counter()
from kgvault.build import build
from kgvault.config import load_settings

marks = [("imports", started), ("settings", time.perf_counter())]
settings = load_settings(Path(sys.argv[1]), None, vault=Path(sys.argv[2]))
build(settings, progress=lambda stage: marks.append((stage, time.perf_counter())))
marks.append(("end", time.perf_counter()))
print(json.dumps({a: round(tb - ta, 3) for (a, ta), (_, tb) in zip(marks, marks[1:])}))
"""

# --------------------------------------------------------------------------------------------
# Word pools.


SOFTWARE = words(
    """
    Postgres, Redis, Kafka, Dagster, Airflow, Klipper, Marlin, SQLite, DuckDB, Terraform, Kubernetes,
    Docker, Grafana, Prometheus, Nginx, FastAPI, Django, React, Obsidian, Zotero, Home Assistant,
    OctoPrint, Ansible, Elasticsearch, RabbitMQ, Snowflake, dbt, Jupyter, Neovim, Tailscale
    """
)
ROLES = words("Engineer, Designer, Manager, Friend, Neighbour")
FOLDERS = words("work, printing, garden, research, home, side-projects")
TOPIC_FOLDERS = words("reading, reference, contacts")
TAGS = words(
    """
    work, 3d_printing, garden, reading, idea, todo, health, travel, cooking, finance, learning, home,
    music
    """
)
SUBTAGS = words("firmware, infra, planning, bugs, review, hiring, voron, tomatoes, books, ops")
ASPECTS = words(
    """
    plan, architecture, retro, backlog, runbook, design notes, roadmap, open questions, migration,
    postmortem, budget, kickoff, status, benchmarks, risks
    """
)
FEELINGS = words(
    """
    Tired but happy., Good day overall., Slow start., Felt productive., Too many meetings., Quiet day.,
    Weather was awful., Long day.
    """
)
CODE_SNIPPETS = [
    ("bash", "{sw} --version\nmake test\n"),
    ("sql", "select count(*)\nfrom events\nwhere created_at > now() - interval '1 day';\n"),
    ("yaml", "service: {slug}\nreplicas: 2\nimage: {slug}:latest\n"),
    (
        "python",
        "def retry(fn, attempts=3):\n    for _ in range(attempts):\n        try:\n"
        "            return fn()\n        except TimeoutError:\n            pass\n",
    ),
    ("ini", "[printer]\nkinematics: corexy\nmax_velocity: 300\n"),
]


@dataclass(frozen=True, slots=True)
class Entity:
    name: str
    kind: str  # person, project, software, organization, place, concept
    aliases: tuple[str, ...] = ()


PROSE = [
    "The main idea is to keep the moving parts few and the failure modes boring.",
    "Worth revisiting when there is more time to think it through.",
    "Open questions remain about the long-term ownership of the reports.",
    "It is unclear how much of this should be automated at all.",
    "The usual trade-off between speed and safety applies here as well.",
    "Most of the effort goes into the edge cases rather than the happy path.",
    "A simpler version would probably be good enough for now.",
    "There is a lot of reading left to do on the subject.",
    "Nothing urgent, but it keeps coming back.",
    "The numbers look reasonable, though the sample is small.",
    "Good enough as a first pass; the details can wait.",
    "Hard to say whether this is a trend or just noise.",
    "The documentation is thin in this area, as usual.",
    "Better to write it down now than to forget it by next week.",
    "The rest of the list can wait until after the release.",
    "More context would help before deciding anything.",
]


class Corpus:
    """A deterministic generator of a synthetic notes folder."""

    def __init__(self, n: int, seed: int, dense: bool = False) -> None:
        self.n = n
        self.rng = random.Random(seed)
        # Share of sentences that state an event or a fact; the rest is ordinary prose that yields
        # nothing. 0.25 gives about the pages per note of sample_vault (6.5), itself three times
        # denser than the real vaults in shared/data (2.1 and 2.4); dense notes state something
        # in every sentence (18.5 pages per note), a stress test.
        self.statement_share = 1.0 if dense else 0.25
        self.entities = self._entities(max(24, n // 10))
        self.by_kind: dict[str, list[Entity]] = {}
        for entity in self.entities:
            self.by_kind.setdefault(entity.kind, []).append(entity)
        # Zipf-like popularity: a few entities are linked from everywhere, most from a few notes.
        order = list(self.entities)
        self.rng.shuffle(order)
        self.popular = order
        self.weights = [1.0 / (rank + 1) ** 0.8 for rank in range(len(order))]
        self.titles: set[str] = set()

    # -- entity pool ------------------------------------------------------------------------

    def _unique(self, make: Any, count: int, taken: set[str]) -> list[str]:
        names: list[str] = []
        attempts = 0
        while len(names) < count:
            name = make()
            attempts += 1
            if attempts > 50 * count:  # pools exhausted: disambiguate with a number
                name = f"{name} {attempts}"
            if name not in taken:
                taken.add(name)
                names.append(name)
        return names

    def _entities(self, total: int) -> list[Entity]:
        rng = self.rng
        taken: set[str] = set()
        shares = {"person": 0.30, "project": 0.15, "software": 0.22, "organization": 0.10, "place": 0.10}
        counts = {kind: max(2, round(total * share)) for kind, share in shares.items()}
        counts["concept"] = max(2, total - sum(counts.values()))
        out: list[Entity] = []
        for name in self._unique(
            lambda: f"{rng.choice(FIRST_NAMES)} {rng.choice(LAST_NAMES)}", counts["person"], taken
        ):
            first = name.split()[0]
            aliases = (first,) if rng.random() < 0.7 else (first, name.split()[0][0] + name.split()[1][0])
            out.append(Entity(name, "person", aliases))
        for name in self._unique(
            lambda: (
                "Project "
                + (
                    rng.choice(CODENAMES)
                    if rng.random() < 0.6
                    else f"{rng.choice(ADJECTIVES)} {rng.choice(CODENAMES)}"
                )
            ),
            counts["project"],
            taken,
        ):
            out.append(Entity(name, "project", (name.removeprefix("Project "),)))
        real = list(SOFTWARE)
        rng.shuffle(real)

        def software() -> str:
            if real:
                return real.pop()
            return rng.choice(SOFTWARE_PARTS[0]) + rng.choice(SOFTWARE_PARTS[1])

        out += [Entity(name, "software") for name in self._unique(software, counts["software"], taken)]
        out += [
            Entity(name, "organization")
            for name in self._unique(
                lambda: f"{rng.choice(CODENAMES)} {rng.choice(ORG_SUFFIXES)}", counts["organization"], taken
            )
        ]
        cities = list(CITIES)
        rng.shuffle(cities)

        def place() -> str:
            if cities:
                return cities.pop()
            return f"{rng.choice(PLACE_KINDS)} {rng.choice(CODENAMES)}"

        out += [Entity(name, "place") for name in self._unique(place, counts["place"], taken)]
        concepts = list(CONCEPTS)
        rng.shuffle(concepts)

        def concept() -> str:
            if concepts:
                return concepts.pop()
            return f"{rng.choice(CONCEPT_QUALIFIERS)} {rng.choice(CONCEPTS)}"

        out += [Entity(name, "concept") for name in self._unique(concept, counts["concept"], taken)]
        return out

    def pick(self, kind: str | None = None) -> Entity:
        if kind is None:
            return self.rng.choices(self.popular, weights=self.weights)[0]
        return self.rng.choice(self.by_kind[kind])

    def pick_other(self, kind: str, other: Entity) -> Entity:
        """An entity of `kind` that is not `other` (when there is one)."""
        pool = self.by_kind[kind]
        choice = self.rng.choice(pool)
        return pool[(pool.index(choice) + 1) % len(pool)] if choice == other and len(pool) > 1 else choice

    def ref(self, entity: Entity, link: float = 0.6) -> str:
        """The entity as a wikilink (sometimes piped to an alias) or as plain text."""
        rng = self.rng
        if rng.random() >= link:
            return entity.aliases[0] if entity.aliases and rng.random() < 0.5 else entity.name
        if entity.aliases and rng.random() < 0.25:
            return f"[[{entity.name}|{entity.aliases[0]}]]"
        return f"[[{entity.name}]]"

    def tag(self) -> str:
        rng = self.rng
        tag = rng.choice(TAGS)
        return f"{tag}/{rng.choice(SUBTAGS)}" if rng.random() < 0.4 else tag

    # -- text -------------------------------------------------------------------------------

    def past(self) -> str:
        rng = self.rng
        r = self.ref
        p, sw = self.pick("person"), self.pick("software")
        sw2 = self.pick_other("software", sw)
        proj = self.pick("project")
        templates = [
            lambda: f"Fixed the {rng.choice(THINGS)} in {r(sw)} after {rng.choice(DURATIONS)}.",
            lambda: f"We decided to use {r(sw)} for {r(proj)}, mostly because the team already knows it.",
            lambda: f"I prefer {r(sw)} over {sw2.name} for {rng.choice(PURPOSES)}.",
            lambda: f"Met {r(p)} to talk about {r(proj)} and the next milestone.",
            lambda: f"Spent {rng.choice(DURATIONS)} on {rng.choice(TASKS)} for {r(proj)}.",
            lambda: f"{r(p)} and I paired on {rng.choice(TASKS)}; it went better than expected.",
            lambda: f"Switched {r(proj)} from {sw2.name} to {r(sw)}.",
            lambda: f"Ran into the {rng.choice(THINGS)} with {r(sw)} again.",
            lambda: f"Called {r(p)} about {r(self.pick('concept'))}.",
            lambda: f"Finally read up on {r(self.pick('concept'))} and wrote a short summary.",
            lambda: f"Visited {r(self.pick('organization'))} in {r(self.pick('place'))} with {r(p)}.",
            lambda: f"We agreed that {r(p)} owns {rng.choice(TASKS)} from now on.",
            lambda: f"I think {sw.name} is a better fit than {sw2.name} here, but I am not sure yet.",
            lambda: f"Shipped the first version of {rng.choice(TASKS)} for {r(proj)}.",
        ]
        return rng.choice(templates)()

    def fact(self) -> str:
        rng = self.rng
        r = self.ref
        p, sw = self.pick("person"), self.pick("software")
        sw2 = self.pick_other("software", sw)
        proj, org, place = self.pick("project"), self.pick("organization"), self.pick("place")
        short = proj.aliases[0] if proj.aliases else proj.name
        templates = [
            lambda: f"{short} uses {r(sw)}.",
            lambda: f"{r(p)} works at {r(org)}.",
            lambda: f"{p.name} lives in {r(place)}.",
            lambda: f"{sw.name} runs on {r(sw2)}.",
            lambda: f"{r(org)} is based in {place.name}.",
            lambda: f"{r(proj)} depends on {r(sw)} and {sw2.name}.",
            lambda: f"{r(p)} leads {r(proj)}.",
            lambda: f"The staging database for {short} is {sw.name}.",
        ]
        return rng.choice(templates)()

    def statement(self, facts: float) -> str:
        """One sentence: an event or a fact, or (as most sentences in real notes) plain prose."""
        rng = self.rng
        if rng.random() >= self.statement_share:
            return rng.choice(PROSE)
        return self.fact() if rng.random() < facts else self.past()

    def paragraph(self, sentences: tuple[int, int] = (3, 7), facts: float = 0.25) -> str:
        rng = self.rng
        parts = [self.statement(facts) for _ in range(rng.randint(*sentences))]
        if rng.random() < 0.35:
            parts.append(f"#{self.tag()}")
        if rng.random() < 0.15:
            parts.append(rng.choice(FEELINGS))
        return " ".join(parts)

    def bullets(self) -> str:
        rng = self.rng
        items = []
        for _ in range(rng.randint(2, 6)):
            roll = rng.random()
            if roll < 0.3:
                items.append(
                    f"- [ ] Follow up with {self.ref(self.pick('person'), 0.8)} about {rng.choice(TASKS)}"
                )
            elif roll < 0.45:
                items.append(f"- [x] {self.statement(0.0)}")
            elif roll < 0.7:
                items.append(f"- {self.statement(1.0)}")
            else:
                items.append(f"- {self.statement(0.0)}")
        return "\n".join(items)

    def steps(self) -> str:
        rng = self.rng
        verbs = ["Install", "Configure", "Restart", "Back up", "Check the logs of", "Update", "Test"]
        lines = [
            f"{i}. {rng.choice(verbs)} {self.ref(self.pick('software'), 0.3)} for {rng.choice(TASKS)}."
            for i in range(1, rng.randint(3, 6) + 1)
        ]
        return "\n".join(lines)

    def code(self) -> str:
        lang, body = self.rng.choice(CODE_SNIPPETS)
        sw = self.pick("software").name
        return (
            f"```{lang}\n{body.format(sw=sw.lower().replace(' ', '-'), slug=sw.lower().replace(' ', '_'))}```"
        )

    def frontmatter(self, fields: dict[str, Any]) -> str:
        lines = ["---"]
        for key, value in fields.items():
            if isinstance(value, list):
                lines.append(f"{key}: [{', '.join(_yaml_item(v) for v in value)}]")
            else:
                lines.append(f"{key}: {_yaml_item(value)}")
        lines.append("---")
        return "\n".join(lines)

    def title(self, wanted: str) -> str:
        name, k = wanted, 2
        while name in self.titles:
            name, k = f"{wanted} {k}", k + 1
        self.titles.add(name)
        return name

    # -- notes ------------------------------------------------------------------------------

    def daily(self, day: dt.date, prev: dt.date | None, nxt: dt.date | None) -> str:
        rng = self.rng
        out: list[str] = []
        if rng.random() < 0.6:
            out.append(
                self.frontmatter({"tags": ["daily", *sorted({self.tag() for _ in range(rng.randint(0, 2))})]})
            )
        if prev and nxt and rng.random() < 0.3:
            out.append(f"Previous: [[{prev.isoformat()}]] · Next: [[{nxt.isoformat()}]]")
        out.append(f"# {day.isoformat()}")
        for _ in range(rng.randint(3, 7)):
            roll = rng.random()
            if roll < 0.12:
                out.append(
                    f"## {rng.choice(['Work', 'Evening', 'Printing', 'Garden', 'Reading', 'Errands'])}"
                )
            elif roll < 0.27:
                out.append(self.bullets())
            elif roll < 0.3:
                out.append(self.steps())
            out.append(self.paragraph())
        if rng.random() < 0.05:
            out.append(self.code())
        return "\n\n".join(out) + "\n"

    def project(self, folder: str, name: str, proj: Entity, day: dt.date) -> str:
        rng = self.rng
        owner = self.pick("person")
        fields: dict[str, Any] = {
            "title": name,
            "tags": sorted({folder.replace("-", "_"), self.tag()}),
            "date": day.isoformat(),
            "project": f"[[{proj.name}]]",
        }
        if rng.random() < 0.4:
            fields["status"] = rng.choice(["active", "paused", "done", "idea"])
        if rng.random() < 0.3:
            fields["owner"] = f"[[{owner.name}]]"
        if rng.random() < 0.2:
            fields["aliases"] = [name.lower()]
        out = [self.frontmatter(fields), f"# {name}"]
        out.append(
            "\n".join(
                [f"uses:: [[{self.pick('software').name}]]" for _ in range(rng.randint(0, 2))]
                + ([f"owner:: [[{owner.name}]]"] if rng.random() < 0.5 else [])
                + ([f"status:: {rng.choice(['active', 'blocked', 'review'])}"] if rng.random() < 0.3 else [])
            )
            or self.fact()
        )
        out.append(self.paragraph(facts=0.5))
        sections = ["Goals", "Context", "Decisions", "Setup", "Open questions", "Log", "Notes"]
        for heading in rng.sample(sections, rng.randint(3, 5)):
            out.append(f"## {heading}")
            if heading == "Setup":
                out.append(self.steps())
            elif heading in ("Goals", "Open questions"):
                out.append(self.bullets())
            elif heading == "Decisions":
                out.append(
                    " ".join(
                        f"We decided to {d}."
                        for d in rng.sample(
                            [
                                f"use {self.ref(self.pick('software'))} for {rng.choice(PURPOSES)}",
                                f"move {rng.choice(TASKS)} to {self.ref(self.pick('person'))}",
                                "cut the scope of the first release",
                                f"drop {self.pick('software').name}",
                                "meet every second Tuesday",
                            ],
                            rng.randint(1, 3),
                        )
                    )
                )
            else:
                out.append(self.paragraph(facts=0.35))
            if rng.random() < 0.12:
                out.append(self.code())
        return "\n\n".join(out) + "\n"

    def meeting(self, name: str, day: dt.date, proj: Entity) -> str:
        rng = self.rng
        attendees = [self.pick("person") for _ in range(rng.randint(2, 4))]
        out = [
            self.frontmatter(
                {
                    "date": day.isoformat(),
                    "tags": ["meeting", self.tag()],
                    "attendees": [f"[[{a.name}]]" for a in attendees],
                    "project": f"[[{proj.name}]]",
                }
            ),
            f"# {name}",
            "## Notes",
            self.paragraph(),
            self.bullets(),
            "## Decisions",
            f"We decided to {rng.choice(['ship on Friday', 'postpone the migration', 'hire a contractor'])}. "
            f"{self.ref(attendees[0])} will write it up.",
            "## Action items",
            "\n".join(f"- [ ] {self.ref(a, 0.8)}: {rng.choice(TASKS)}" for a in attendees),
        ]
        return "\n\n".join(out) + "\n"

    def person(self, entity: Entity, day: dt.date) -> str:
        rng = self.rng
        org, place = self.pick("organization"), self.pick("place")
        out = [
            self.frontmatter(
                {
                    "title": entity.name,
                    "aliases": list(entity.aliases),
                    "date": day.isoformat(),
                    "tags": ["people", self.tag()],
                }
            ),
            f"# {entity.name}",
            f"works_at:: [[{org.name}]]\nrole:: {rng.choice(ROLES)}",
            f"{entity.name} lives in {self.ref(place)}. {entity.name} works at {org.name}.",
            "## Background",
            self.paragraph(facts=0.4),
        ]
        if rng.random() < 0.6:
            out += [
                "## Relations",
                "\n".join(
                    f"- {rng.choice(['leads', 'works on', 'advises'])} [[{self.pick('project').name}]]"
                    for _ in range(rng.randint(1, 3))
                ),
            ]
        if rng.random() < 0.5:
            out += ["## Log", self.bullets()]
        return "\n\n".join(out) + "\n"

    def topic(self, entity: Entity, day: dt.date) -> str:
        rng = self.rng
        fields: dict[str, Any] = {"title": entity.name, "tags": [entity.kind, self.tag()]}
        if rng.random() < 0.5:
            fields["date"] = day.isoformat()
        if rng.random() < 0.3:
            fields["related"] = [f"[[{self.pick().name}]]" for _ in range(2)]
        out = [self.frontmatter(fields), f"# {entity.name}"]
        if entity.kind == "concept":
            name = entity.name[0].upper() + entity.name[1:]
            out.append(f"{name} is a technique I keep running into in {self.ref(self.pick())}.")
        else:
            out.append(self.fact())
        for heading in rng.sample(
            ["Overview", "How I use it", "Gotchas", "Links", "History"], rng.randint(3, 4)
        ):
            out += [
                f"## {heading}",
                self.bullets() if heading in ("Gotchas", "Links") else self.paragraph(facts=0.5),
            ]
        if entity.kind == "software" and rng.random() < 0.3:
            out += ["## Install", self.steps(), self.code()]
        return "\n\n".join(out) + "\n"

    def glossary(self, k: int) -> str:
        rng = self.rng
        out = [
            self.frontmatter({"title": f"Glossary {k}", "tags": ["glossary"]}),
            f"# Glossary {k}",
            "Terms I keep having to look up. #glossary",
        ]
        for heading in rng.sample(["Printing", "Data", "Infra", "Garden", "General"], 2):
            out.append(f"## {heading}")
            items = []
            for entity in rng.sample(self.by_kind["concept"] + self.by_kind["software"], 6):
                quality = rng.choice(CONCEPT_QUALIFIERS)
                article = "an" if quality[0] in "aeiou" else "a"
                definition = (
                    f"{article} {quality} way to deal with the {rng.choice(THINGS)}, "
                    f"see {self.ref(self.pick_other('software', entity))}"
                )
                items.append(
                    f"- **{entity.name}**: {definition[0].upper()}{definition[1:]}."
                    if rng.random() < 0.6
                    else f"- {entity.name} — {definition}."
                )
            out.append("\n".join(items))
        return "\n\n".join(out) + "\n"

    # -- the whole corpus -------------------------------------------------------------------

    def files(self) -> list[tuple[str, str]]:
        """(relative path, text) for exactly N notes, in a deterministic order."""
        rng, n = self.rng, self.n
        start = dt.date(2023, 1, 1)
        glossaries = max(1, n // 100) if n >= 50 else 0
        people = min(round(0.12 * n), len(self.by_kind["person"]))
        topics_pool = [e for e in self.entities if e.kind in ("software", "organization", "place", "concept")]
        topics = min(round(0.13 * n), len(topics_pool))
        meetings = round(0.12 * n)
        daily = round(0.40 * n)
        projects = max(0, n - glossaries - people - topics - meetings - daily)
        span = max(730, int(daily * 1.15))
        days = sorted(rng.sample(range(span), daily))
        day_list = [start + dt.timedelta(days=d) for d in days]
        out: list[tuple[str, str]] = []

        def any_day() -> dt.date:
            return start + dt.timedelta(days=rng.randrange(span))

        for i, day in enumerate(day_list):
            prev = day_list[i - 1] if i else None
            nxt = day_list[i + 1] if i + 1 < len(day_list) else None
            self.titles.add(day.isoformat())
            out.append((f"daily/{day.isoformat()}.md", self.daily(day, prev, nxt)))
        for entity in self.by_kind["person"][:people]:
            self.titles.add(entity.name)
            out.append((f"people/{entity.name}.md", self.person(entity, any_day())))
        for entity in rng.sample(topics_pool, topics):
            self.titles.add(entity.name)
            folder = {"software": "tools", "place": "places", "concept": "ideas"}.get(
                entity.kind, rng.choice(TOPIC_FOLDERS)
            )
            out.append((f"{folder}/{entity.name}.md", self.topic(entity, any_day())))
        for i in range(projects):
            proj = self.pick("project")
            folder = FOLDERS[hash_index(proj.name, len(FOLDERS))]
            wanted = (
                proj.name
                if i < len(self.by_kind["project"]) and proj.name not in self.titles
                else f"{proj.aliases[0]} {rng.choice(ASPECTS)}"
            )
            name = self.title(wanted)
            out.append((f"{folder}/{name}.md", self.project(folder, name, proj, any_day())))
        for _ in range(meetings):
            proj, day = self.pick("project"), any_day()
            name = self.title(f"{day.isoformat()} {proj.aliases[0]} sync")
            out.append((f"meetings/{name}.md", self.meeting(name, day, proj)))
        for k in range(1, glossaries + 1):
            out.append((f"glossary/Glossary {k}.md", self.glossary(k)))
        while len(out) < n:  # tiny N: top up with project notes
            proj = self.pick("project")
            name = self.title(f"{proj.aliases[0]} {rng.choice(ASPECTS)}")
            out.append((f"work/{name}.md", self.project("work", name, proj, any_day())))
        return out[:n]


def hash_index(text: str, size: int) -> int:
    """A bucket for a string that does not depend on PYTHONHASHSEED (unlike hash())."""
    return sum(text.encode("utf-8")) % size


def _yaml_item(value: Any) -> str:
    text = str(value)
    if text.startswith("[[") or any(c in text for c in ":#,[]{}") or text != text.strip():
        return json.dumps(text, ensure_ascii=False)
    return text


def generate(folder: Path, n: int, seed: int, dense: bool = False) -> int:
    """Write N notes under `folder`; return the total size in bytes."""
    total = 0
    for rel, text in Corpus(n, seed, dense).files():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        data = text.encode("utf-8")
        path.write_bytes(data)
        total += len(data)
    return total


# --------------------------------------------------------------------------------------------
# Measurements


@dataclass(slots=True)
class Run:
    seconds: float
    cpu_s: float
    """User + system CPU time of the child (less sensitive than wall time to a busy machine)."""
    returncode: int
    peak_mb: float
    stdout: str
    stderr: str


def run_child(argv: Sequence[str], cwd: Path, env: Mapping[str, str] | None = None) -> Run:
    """Run one child process; wall time, and its own peak RSS from wait4 (not RUSAGE_CHILDREN's max)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        proc = subprocess.Popen(
            list(argv), cwd=cwd, stdout=out, stderr=err, stdin=subprocess.DEVNULL, env=env
        )
        deadline = started + SUBPROCESS_TIMEOUT
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() > deadline:
                proc.kill()
                pid, status, usage = os.wait4(proc.pid, 0)
                break
            time.sleep(0.002)
        seconds = time.perf_counter() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        # Linux reports ru_maxrss in KiB, macOS in bytes.
        scale = 1024 * 1024 if sys.platform == "darwin" else 1024
        return Run(
            seconds,
            usage.ru_utime + usage.ru_stime,
            proc.returncode,
            usage.ru_maxrss / scale,
            out.read().decode("utf-8", "replace"),
            err.read().decode("utf-8", "replace"),
        )


@dataclass(slots=True)
class Row:
    n: int
    corpus_kb: float
    floor_s: float
    build_s: float
    ratio: float
    peak_mb: float
    noop_s: float
    noop_written: int
    edit_s: float
    """Wall time of the rebuild after appending one sentence to one note."""
    edit_written: int
    watch_median_s: float | None
    """Watch latency, append to page on disk, debounce included (None: not measured)."""
    watch_min_s: float | None
    watch_max_s: float | None
    watch_samples: int
    floor_cpu_s: float
    build_cpu_s: float
    cpu_ratio: float
    sources: int
    chunks: int
    episodic: int
    semantic: int
    entities: int
    relations: int
    written: int
    stages: dict[str, float]
    """Seconds per pipeline stage of a separate clean build (only with --stages)."""


DATED_NAME = re.compile(r"\d{4}-\d{2}-\d{2}\.md")
"""A daily note's file name: its date is the reference time of "today"."""


class BenchError(RuntimeError):
    """A child process failed: the numbers would mean nothing."""


def _check(run: Run, what: str) -> None:
    if run.returncode != 0:
        tail = "\n".join(run.stderr.strip().splitlines()[-15:])
        raise BenchError(f"{what} failed with exit code {run.returncode}:\n{tail}")


def daily_notes(corpus: Path) -> list[Path]:
    """The notes to append to: `daily/*.md`, else notes named YYYY-MM-DD.md anywhere, else any note."""
    found = sorted(corpus.glob("daily/*.md"))
    if not found:
        notes = sorted(p for p in corpus.rglob("*.md") if not any(part.startswith(".") for part in p.parts))
        found = [p for p in notes if DATED_NAME.fullmatch(p.name)] or notes
    if not found:
        raise BenchError(f"no note to edit in {corpus}")
    return found


def episode(note: Path, word: str) -> tuple[str, str]:
    """A sentence naming `word` that yields an episodic page in this note, and that page's file name."""
    if note.parent.name == "daily" or DATED_NAME.fullmatch(note.name):
        return f"Fixed the {word} widget today.", f"fixed-the-{word}-widget-today.md"
    # "Today" in a note that carries no date in its name dates nothing: say the date.
    return f"Fixed the {word} widget on 2024-03-12.", f"fixed-the-{word}-widget-on-2024-03-12.md"


def append(note: Path, text: str) -> None:
    """Append `text` to a note; the file is closed on return."""
    with note.open("a", encoding="utf-8") as handle:
        handle.write(text)


def watch_latency(
    corpus: Path, vault: Path, notes: Sequence[Path], samples: int, workdir: Path
) -> list[float]:
    """Seconds from each append to the page in the vault, under `kgvault watch` (see the docstring)."""
    out_path, err_path = workdir / "watch.out", workdir / "watch.err"
    command = [sys.executable, "-m", "kgvault", "watch", str(corpus), "-o", str(vault)]
    command += ["--debounce", str(WATCH_DEBOUNCE_MS)]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    episodic = vault / "episodic"
    with out_path.open("wb") as out, err_path.open("wb") as err:
        proc = subprocess.Popen(command, cwd=REPO, stdout=out, stderr=err, stdin=subprocess.DEVNULL, env=env)

    def lines() -> list[str]:
        return out_path.read_text("utf-8", "replace").splitlines()

    def failed(what: str) -> BenchError:
        tail = "\n".join(err_path.read_text("utf-8", "replace").strip().splitlines()[-15:])
        return BenchError(f"kgvault watch: {what}\n{tail}")

    def wait_lines(count: int, deadline: float) -> list[str]:
        """Wait until stdout has `count` lines; fail on a dead watcher, a failed build or the deadline."""
        while True:
            seen = lines()
            if any("build failed" in line for line in seen):
                raise failed(next(line for line in seen if "build failed" in line))
            if len(seen) >= count:
                return seen
            if proc.poll() is not None:
                raise failed(f"exited with code {proc.returncode}")
            if time.perf_counter() > deadline:
                raise failed(f"no rebuild line {count} within the timeout")
            time.sleep(WATCH_POLL)

    latencies: list[float] = []
    try:
        first = wait_lines(1, time.perf_counter() + SUBPROCESS_TIMEOUT)
        if " start: " not in first[0]:
            raise failed(f"unexpected first line {first[0]!r}")
        time.sleep(WATCH_PAUSE)
        seen = len(lines())
        for i in range(samples):
            sentence, page = episode(notes[(i + 1) % len(notes)], f"zqw{i}x")
            append(notes[(i + 1) % len(notes)], f"\n{sentence}\n")
            started = time.perf_counter()
            deadline = started + WATCH_SAMPLE_TIMEOUT
            pattern = f"*zqw{i}x*"
            # The page's expected name is cheap to test every poll; listing the folder for the glob
            # costs ~7 ms at N=2000 (CPU taken from the watcher), so only every GLOB_EVERY-th poll.
            expected = episodic / page
            polls = 0
            while not (expected.exists() or (polls % GLOB_EVERY == 0 and any(episodic.glob(pattern)))):
                polls += 1
                if proc.poll() is not None:
                    raise failed(f"exited with code {proc.returncode}")
                if time.perf_counter() > deadline:
                    raise BenchError(
                        f"watch sample {i}: no {episodic / pattern} after {WATCH_SAMPLE_TIMEOUT:.0f} s"
                    )
                time.sleep(WATCH_POLL)
            latencies.append(time.perf_counter() - started)
            wait_lines(seen + 1, deadline)  # this rebuild's line: it is over
            time.sleep(WATCH_PAUSE)
            seen = len(lines())  # a straggling second rebuild, if any, is over too
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
    return latencies


def measure(
    n: int,
    seed: int,
    workdir: Path,
    repeat: int,
    stages: bool,
    say: Any,
    dense: bool = False,
    existing: Path | None = None,
    watch_samples: int = 20,
) -> Row:
    vault = workdir / "vault"
    if existing is None:
        corpus = workdir / "corpus"
        corpus.mkdir(parents=True)
        say(f"N={n}: generating corpus in {corpus}")
        size = generate(corpus, n, seed, dense)
    else:  # a real notes folder, only ever read
        corpus = existing
        size = sum(p.stat().st_size for p in corpus.rglob("*.md"))
    py = sys.executable
    floors: list[Run] = []
    for _ in range(repeat):
        floor = run_child([py, "-c", FLOOR_SCRIPT, str(corpus)], REPO)
        _check(floor, "floor")
        if existing is not None:
            n = int(floor.stdout.strip())
        elif floor.stdout.strip() != str(n):
            raise BenchError(f"floor read {floor.stdout.strip()} files, expected {n}")
        floors.append(floor)
    fastest = min(floors, key=lambda f: f.seconds)
    say(f"N={n}: floor {fastest.seconds:.2f} s; building")
    command = [py, "-m", "kgvault", "build", str(corpus), "-o", str(vault), "--json", "-q"]
    builds: list[Run] = []
    for _ in range(repeat):
        shutil.rmtree(vault, ignore_errors=True)
        build = run_child(command, REPO)
        _check(build, "kgvault build")
        builds.append(build)
    best = min(builds, key=lambda b: b.seconds)
    report = json.loads(best.stdout)
    say(f"N={n}: build {best.seconds:.2f} s; no-op rebuild")
    noop = run_child(command, REPO)
    _check(noop, "kgvault build (no-op)")
    noop_report = json.loads(noop.stdout)
    stage_times: dict[str, float] = {}
    if stages:
        say(f"N={n}: timing stages (one more clean build, before the edits)")
        staged = run_child([py, "-c", STAGES_SCRIPT, str(corpus), str(workdir / "vault-stages")], REPO)
        _check(staged, "staged build")
        stage_times = json.loads(staged.stdout.strip().splitlines()[-1])
    edit_corpus, edit_vault = corpus, vault
    if existing is not None:  # never write into a real notes folder: edit a copy, built once unmeasured
        edit_corpus, edit_vault = workdir / "corpus-copy", workdir / "vault-copy"
        say(f"N={n}: copying the notes to {edit_corpus} for the edit and watch measurements")
        shutil.copytree(corpus, edit_corpus, symlinks=True, ignore=shutil.ignore_patterns(".git"))
        copy_command = [py, "-m", "kgvault", "build", str(edit_corpus), "-o", str(edit_vault), "--json", "-q"]
        _check(run_child(copy_command, REPO), "kgvault build (copy)")
    edit_command = [py, "-m", "kgvault", "build", str(edit_corpus), "-o", str(edit_vault), "--json", "-q"]
    notes = daily_notes(edit_corpus)
    say(f"N={n}: no-op {noop.seconds:.3f} s; one-note-edit rebuild ({notes[0].relative_to(edit_corpus)})")
    append(notes[0], EDIT_SENTENCE)
    edit = run_child(edit_command, REPO)
    _check(edit, "kgvault build (one edit)")
    edit_report = json.loads(edit.stdout)
    if not any((edit_vault / "episodic").glob(EDIT_GLOB)):
        raise BenchError(f"the edit made no page {edit_vault / 'episodic' / EDIT_GLOB}")
    latencies: list[float] = []
    if watch_samples:
        say(f"N={n}: edit {edit.seconds:.3f} s; watch latency, {watch_samples} samples")
        latencies = watch_latency(edit_corpus, edit_vault, notes, watch_samples, workdir)
        say(f"N={n}: watch latency median {statistics.median(latencies):.3f} s")
    floor_s = fastest.seconds
    floor_cpu = min(f.cpu_s for f in floors)
    build_cpu = min(b.cpu_s for b in builds)
    return Row(
        n=n,
        corpus_kb=round(size / 1024, 1),
        floor_s=round(floor_s, 3),
        build_s=round(best.seconds, 3),
        ratio=round(best.seconds / floor_s, 2),
        peak_mb=round(max(b.peak_mb for b in builds), 1),
        noop_s=round(noop.seconds, 3),
        noop_written=int(noop_report["files"]["written"]),
        edit_s=round(edit.seconds, 3),
        edit_written=int(edit_report["files"]["written"]),
        watch_median_s=round(statistics.median(latencies), 3) if latencies else None,
        watch_min_s=round(min(latencies), 3) if latencies else None,
        watch_max_s=round(max(latencies), 3) if latencies else None,
        watch_samples=len(latencies),
        floor_cpu_s=round(floor_cpu, 3),
        build_cpu_s=round(build_cpu, 3),
        cpu_ratio=round(build_cpu / floor_cpu, 2),
        sources=int(report["sources"]),
        chunks=int(report["chunks"]),
        episodic=int(report["nodes"]["episodic"]),
        semantic=int(report["nodes"]["semantic"]),
        entities=int(report["entities"]),
        relations=int(report["relations"]),
        written=int(report["files"]["written"]),
        stages=stage_times,
    )


def warm_up(say: Any, tmpdir: Path | None) -> None:
    """Run floor and build once on a tiny corpus, unmeasured: byte-compile and cache the imports of both."""
    say("warming up (byte-compiling imports)")
    # Written even where PYTHONDONTWRITEBYTECODE is set (as in some sandboxes): an installed
    # kgvault has its bytecode, as the floor's libraries in site-packages have theirs.
    compiling = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    with tempfile.TemporaryDirectory(prefix="kgvault-bench-warm-", dir=tmpdir) as tmp:
        corpus, vault = Path(tmp) / "corpus", Path(tmp) / "vault"
        corpus.mkdir()
        generate(corpus, 10, 0)
        _check(run_child([sys.executable, "-c", FLOOR_SCRIPT, str(corpus)], REPO, compiling), "floor")
        command = [sys.executable, "-m", "kgvault", "build", str(corpus), "-o", str(vault), "--json", "-q"]
        _check(run_child(command, REPO, compiling), "kgvault build")


def table(rows: Sequence[Row]) -> str:
    lines = [
        "| N | corpus KB | floor s | full build s | ratio build/floor | peak MB | no-op rebuild s "
        "| files written on no-op | one-edit rebuild s | files written on edit | watch latency median s "
        "| CPU ratio build/floor |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        watch = "–" if r.watch_median_s is None else f"{r.watch_median_s:.3f}"
        lines.append(
            f"| {r.n} | {r.corpus_kb:.0f} | {r.floor_s:.2f} | {r.build_s:.2f} | {r.ratio:.2f} "
            f"| {r.peak_mb:.0f} | {r.noop_s:.2f} | {r.noop_written} | {r.edit_s:.2f} | {r.edit_written} "
            f"| {watch} | {r.cpu_ratio:.2f} |"
        )
    return "\n".join(lines)


def watch_table(rows: Sequence[Row]) -> str:
    """Watch latency per N: append to the page on disk, debounce included."""
    lines = [
        "| N | watch samples | median s | min s | max s | debounce ms |",
        "|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        if r.watch_samples:
            lines.append(
                f"| {r.n} | {r.watch_samples} | {r.watch_median_s:.3f} | {r.watch_min_s:.3f} "
                f"| {r.watch_max_s:.3f} | {WATCH_DEBOUNCE_MS} |"
            )
    return "\n".join(lines)


def output_table(rows: Sequence[Row]) -> str:
    """What each full build produced: the work behind the time."""
    lines = [
        "| N | chunks | episodic | semantic | entities | relations | files written |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        cells = [r.n, r.chunks, r.episodic, r.semantic, r.entities, r.relations, r.written]
        lines.append("| " + " | ".join(str(c) for c in cells) + " |")
    return "\n".join(lines)


def stages_table(rows: Sequence[Row]) -> str:
    """Seconds per stage of the --stages build (the stage names are build()'s progress messages)."""
    names = list(dict.fromkeys(name for r in rows for name in r.stages))
    lines = ["| N | " + " | ".join(names) + " |", "|---:|" + "---:|" * len(names)]
    for r in rows:
        lines.append(f"| {r.n} | " + " | ".join(f"{r.stages.get(name, 0.0):.2f}" for name in names) + " |")
    return "\n".join(lines)


def verdict(rows: Sequence[Row]) -> str:
    """One line per target of the issue: met, NOT met, or not measured in this run."""

    def line(target: str, n: int, value: Any, limit: float, detail: Any) -> str:
        at = [r for r in rows if r.n == n]
        measured = value(at[0]) if at else None
        if measured is None:
            return f"Target: {target} at N={n} (not measured in this run)."
        met = "met" if measured <= limit else "NOT met"
        return f"Target: {target} at N={n}: {met} ({detail(at[0])})."

    return "\n".join(
        [
            line(
                f"full build ≤ {TARGET_RATIO} × floor",
                TARGET_N,
                lambda r: r.ratio,
                TARGET_RATIO,
                lambda r: f"wall-time ratio {r.ratio:.2f}; CPU-time ratio {r.cpu_ratio:.2f}",
            ),
            line(
                f"no-op rebuild ≤ {TARGET_NOOP_S} s",
                TARGET_N,
                lambda r: r.noop_s,
                TARGET_NOOP_S,
                lambda r: f"{r.noop_s:.2f} s; floor {r.floor_s:.2f} s",
            ),
            line(
                f"one-edit rebuild ≤ {TARGET_EDIT_S} s",
                TARGET_N,
                lambda r: r.edit_s,
                TARGET_EDIT_S,
                lambda r: f"{r.edit_s:.2f} s, {r.edit_written} files written; floor {r.floor_s:.2f} s",
            ),
            line(
                f"watch latency ≤ {TARGET_WATCH_S} s median",
                TARGET_N,
                lambda r: r.watch_median_s,
                TARGET_WATCH_S,
                lambda r: (
                    f"median {r.watch_median_s:.3f} s, min {r.watch_min_s:.3f} s, "
                    f"max {r.watch_max_s:.3f} s over {r.watch_samples} samples"
                ),
            ),
            line(
                f"no-op rebuild ≤ {TARGET_LARGE_NOOP_S} s",
                TARGET_LARGE_N,
                lambda r: r.noop_s,
                TARGET_LARGE_NOOP_S,
                lambda r: f"{r.noop_s:.2f} s; floor {r.floor_s:.2f} s",
            ),
        ]
    )


def machine() -> dict[str, Any]:
    return {
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "peak_memory": "ru_maxrss of the build child from os.wait4 (MiB)",
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "n", type=int, nargs="*", metavar="N", help="number of notes (several N give several rows)"
    )
    parser.add_argument("--seed", type=int, default=0, help="corpus seed [0]")
    parser.add_argument(
        "--keep",
        type=Path,
        metavar="DIR",
        help="keep corpora and vaults in DIR/N/{corpus,vault} instead of a temporary folder",
    )
    parser.add_argument(
        "--repeat", type=int, default=1, help="run floor and clean build R times and keep the fastest [1]"
    )
    parser.add_argument(
        "--tmpdir",
        type=Path,
        metavar="DIR",
        help="make the temporary folders in DIR (e.g. /dev/shm to take the disk out) [system temp]",
    )
    parser.add_argument(
        "--stages", action="store_true", help="also time each pipeline stage in one more clean build"
    )
    parser.add_argument(
        "--corpus",
        type=Path,
        metavar="DIR",
        help="measure an existing notes folder (only read) instead of a synthetic corpus",
    )
    parser.add_argument(
        "--dense",
        action="store_true",
        help="every sentence states an event or a fact (about 18 pages per note; a stress test)",
    )
    parser.add_argument(
        "--watch-samples",
        type=int,
        default=20,
        metavar="K",
        help="watch latency samples per N; 0 skips the watch measurement [20]",
    )
    parser.add_argument("--json", action="store_true", help="print the numbers as JSON instead of a table")
    args = parser.parse_args(argv)
    if bool(args.n) == bool(args.corpus):
        parser.error("give either N (a synthetic corpus) or --corpus DIR (an existing notes folder)")
    if any(n < 1 for n in args.n) or args.repeat < 1:
        parser.error("N and --repeat must be at least 1")
    if args.watch_samples < 0:
        parser.error("--watch-samples must be at least 0")
    if args.tmpdir and not args.tmpdir.is_dir():
        parser.error(f"--tmpdir {args.tmpdir} is not a folder")
    where = str((args.keep or args.tmpdir or Path(tempfile.gettempdir())).resolve())

    def say(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    rows: list[Row] = []
    try:
        warm_up(say, args.tmpdir)
        if args.corpus:
            with tempfile.TemporaryDirectory(prefix="kgvault-bench-corpus-", dir=args.tmpdir) as tmp:
                rows.append(
                    measure(
                        0,
                        args.seed,
                        Path(tmp),
                        args.repeat,
                        args.stages,
                        say,
                        existing=args.corpus.resolve(),
                        watch_samples=args.watch_samples,
                    )
                )
        for n in args.n:
            if args.keep:
                workdir = args.keep.resolve() / str(n)
                if workdir.exists():
                    parser.error(f"{workdir} already exists; remove it or choose another --keep folder")
                workdir.mkdir(parents=True)
                rows.append(
                    measure(
                        n,
                        args.seed,
                        workdir,
                        args.repeat,
                        args.stages,
                        say,
                        args.dense,
                        None,
                        args.watch_samples,
                    )
                )
                say(f"N={n}: kept corpus and vault in {workdir}")
            else:
                with tempfile.TemporaryDirectory(prefix=f"kgvault-bench-{n}-", dir=args.tmpdir) as tmp:
                    rows.append(
                        measure(
                            n,
                            args.seed,
                            Path(tmp),
                            args.repeat,
                            args.stages,
                            say,
                            args.dense,
                            None,
                            args.watch_samples,
                        )
                    )
    except BenchError as error:
        say(str(error))
        return 1
    if args.json:
        print(
            json.dumps(
                {
                    "seed": args.seed,
                    "dense": args.dense,
                    "repeat": args.repeat,
                    "folder": where,
                    "machine": machine(),
                    "watch_samples": args.watch_samples,
                    "watch_debounce_ms": WATCH_DEBOUNCE_MS,
                    "target": {
                        "n": TARGET_N,
                        "max_ratio": TARGET_RATIO,
                        "max_noop_s": TARGET_NOOP_S,
                        "max_edit_s": TARGET_EDIT_S,
                        "max_watch_median_s": TARGET_WATCH_S,
                        "large_n": TARGET_LARGE_N,
                        "large_max_noop_s": TARGET_LARGE_NOOP_S,
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
        if any(r.watch_samples for r in rows):
            print(watch_table(rows))
            print()
        if any(r.stages for r in rows):
            print(stages_table(rows))
            print()
        print(verdict(rows))
        print(
            f"Python {info['python']} on {info['platform']}, {info['cpus']} CPUs; seed {args.seed}; "
            f"{args.corpus or ('dense' if args.dense else 'realistic') + ' synthetic'} notes; "
            f"corpora and vaults under {where}."
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
