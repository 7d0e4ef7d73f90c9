"""`kgvault check` finds each hand-broken vault's problem (issue 9): one row per checker rule.

The sample vault is built once (the session fixture `sample_vault_built`); each row copies it, breaks
exactly one thing, records the new hash of any generated part it touched in the manifest (so that
"edited by hand" is reported only where that is the point), and expects exactly the listed problems:
their paths and a fragment of each message, nothing else. A few breaks are reported twice by design
(a basename clash names both files; a non-list `aliases` is both not a list and not the declared
type); those rows list both.

That every vault the suite builds passes the checker is asserted where the vaults are built: the
sample vault and the real vaults (`../shared/data/real-vaults/*`) in tests/test_build.py
(`test_sample_builds_into_a_vault_the_checker_accepts`, `test_real_vaults_build_and_pass_the_checker`,
and after rebuilds and edits), hostile folders in tests/test_hostile.py. Here the untouched copy is
checked once more as the control for every row.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from kgvault.check import check_vault
from kgvault.cli import main
from kgvault.layout import MANIFEST, MARKER, PENDING_MANIFEST

from .conftest import SAMPLE

EPISODE = "episodic/chose-dagster-over-airflow.md"
STATE = "episodic/the-ender-3-runs-marlin-2-1-2.md"
FACT = "semantic/atlas-uses-postgres-16.md"
ENTITY = "entities/klipper.md"
SUMMARY = "sources/printing-klipper-summary.md"
RELATIONS = "relations.jsonl"
TYPES = ".obsidian/types.json"
BASE = "kgvault.base"


class Vault:
    """A private copy of the built sample vault, with the edits a row needs."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def read(self, rel: str) -> str:
        return (self.root / rel).read_text("utf-8")

    def write(self, rel: str, text: str, *, rehash: bool = True) -> None:
        """Write a file; with `rehash`, record its generated part's new hash in the manifest."""
        self.write_bytes(rel, text.encode("utf-8"))
        if rehash:
            self.own(rel)

    def write_bytes(self, rel: str, data: bytes) -> None:
        """Write a file of the copy; the copy's files are hard links, so first unlink the old one."""
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.unlink(missing_ok=True)
        path.write_bytes(data)

    def edit(self, rel: str, old: str, new: str, *, rehash: bool = True) -> None:
        """Replace the first `old` (which must be there) with `new`."""
        text = self.read(rel)
        assert old in text, f"{old!r} not in {rel}"
        self.write(rel, text.replace(old, new, 1), rehash=rehash)

    def manifest(self) -> dict[str, object]:
        data: dict[str, object] = json.loads(self.read(MANIFEST))
        return data

    def files(self) -> dict[str, str]:
        files = self.manifest()["files"]
        assert isinstance(files, dict)
        return files

    def save_manifest(self, files: dict[str, str], **extra: object) -> None:
        data = {"version": 1, "files": dict(sorted(files.items())), **extra}
        self.write(MANIFEST, json.dumps(data, indent=2, ensure_ascii=False) + "\n", rehash=False)

    def own(self, rel: str) -> None:
        """List a file in the manifest with the hash of its generated part, as a build would."""
        data = (self.root / rel).read_bytes()
        if rel.endswith(".md"):
            text = data.decode("utf-8", errors="replace")
            at = text.find(MARKER)
            if at >= 0:
                end = text.find("\n", at)
                data = (text if end < 0 else text[: end + 1]).encode("utf-8")
        files = self.files()
        files[rel] = hashlib.sha256(data).hexdigest()
        self.save_manifest(files)

    def disown(self, rel: str) -> None:
        files = self.files()
        del files[rel]
        self.save_manifest(files)

    def relations(self) -> list[dict[str, object]]:
        return [json.loads(line) for line in self.read(RELATIONS).splitlines()]

    def save_relations(self, lines: list[str]) -> None:
        self.write(RELATIONS, "".join(line + "\n" for line in lines))


def _compact(edge: dict[str, object]) -> str:
    return json.dumps(edge, ensure_ascii=False, separators=(",", ":"))


def _change_edge(number: int, **changes: object) -> Callable[[Vault], None]:
    """Change fields of relations.jsonl line `number` (1-based), keeping the line compact."""

    def mutate(vault: Vault) -> None:
        edges = vault.relations()
        edges[number - 1].update(changes)
        vault.save_relations([_compact(edge) for edge in edges])

    return mutate


def _relabel_second_of_a_predicate(vault: Vault) -> None:
    """Give the second line of a predicate used twice another label than the first."""
    edges = vault.relations()
    seen: set[object] = set()
    for edge in edges:
        if edge["relation"] in seen:
            edge["label"] = f"{edge['label']} again"
            break
        seen.add(edge["relation"])
    vault.save_relations([_compact(edge) for edge in edges])


def _swap_first_lines(vault: Vault) -> None:
    lines = vault.read(RELATIONS).splitlines()
    lines[0], lines[1] = lines[1], lines[0]
    vault.save_relations(lines)


def _duplicate_first_line(vault: Vault) -> None:
    lines = vault.read(RELATIONS).splitlines()
    vault.save_relations([lines[0], *lines])


def _replace_first_line(text: str) -> Callable[[Vault], None]:
    def mutate(vault: Vault) -> None:
        lines = vault.read(RELATIONS).splitlines()
        vault.save_relations([text, *lines[1:]])

    return mutate


def _reorder_first_line_keys(vault: Vault) -> None:
    lines = vault.read(RELATIONS).splitlines()
    edge = json.loads(lines[0])
    vault.save_relations([_compact(dict(reversed(list(edge.items())))), *lines[1:]])


def _spaced_first_line(vault: Vault) -> None:
    lines = vault.read(RELATIONS).splitlines()
    vault.save_relations([json.dumps(json.loads(lines[0]), ensure_ascii=False), *lines[1:]])


def _no_final_newline(vault: Vault) -> None:
    vault.write(RELATIONS, vault.read(RELATIONS).rstrip("\n"))


def _home_frontmatter(block: str) -> Callable[[Vault], None]:
    """Give index.md (a page that needs no properties) a frontmatter block: one break, one problem."""

    def mutate(vault: Vault) -> None:
        vault.write("index.md", block + vault.read("index.md"))

    return mutate


def _user_file(name: str, text: str = "my own note\n") -> Callable[[Vault], None]:
    """Put a file of the user's (not in the manifest) into the vault."""

    def mutate(vault: Vault) -> None:
        vault.write_bytes(name, text.encode("utf-8"))

    return mutate


def _owned_file(rel: str, text: str) -> Callable[[Vault], None]:
    """Put a file into the vault and list it in the manifest as kgvault's."""

    def mutate(vault: Vault) -> None:
        vault.write(rel, text)

    return mutate


def _manifest(change: Callable[[dict[str, object]], None]) -> Callable[[Vault], None]:
    def mutate(vault: Vault) -> None:
        data = vault.manifest()
        change(data)
        vault.write(MANIFEST, json.dumps(data, indent=2, ensure_ascii=False) + "\n", rehash=False)

    return mutate


def _files(change: Callable[[dict[str, str]], None]) -> Callable[[dict[str, object]], None]:
    def mutate(data: dict[str, object]) -> None:
        files = data["files"]
        assert isinstance(files, dict)
        change(files)
        data["files"] = dict(sorted(files.items()))

    return mutate


def _unsorted(data: dict[str, object]) -> None:
    files = data["files"]
    assert isinstance(files, dict)
    data["files"] = dict(reversed(list(files.items())))


def _indent_four(vault: Vault) -> None:
    vault.write(MANIFEST, json.dumps(vault.manifest(), indent=4) + "\n", rehash=False)


def _pending(vault: Vault) -> None:
    vault.write_bytes(PENDING_MANIFEST, (vault.root / MANIFEST).read_bytes())


def _drop_required(vault: Vault) -> None:
    (vault.root / BASE).unlink()
    vault.disown(BASE)


def _declare_type(name: str, kind: str) -> Callable[[Vault], None]:
    def mutate(vault: Vault) -> None:
        data = json.loads(vault.read(TYPES))
        data["types"][name] = kind
        vault.write(TYPES, json.dumps(data, indent=2) + "\n", rehash=False)

    return mutate


def _bad_types(vault: Vault) -> None:
    """A types.json with a type Obsidian does not know, listed in the manifest: kgvault never lists its
    `.obsidian/` files, so the checker looks at them only when a manifest claims them."""
    data = json.loads(vault.read(TYPES))
    data["types"]["extra"] = "bogus"
    vault.write(TYPES, json.dumps(data, indent=2) + "\n")


def _edit(rel: str, old: str, new: str, *, rehash: bool = True) -> Callable[[Vault], None]:
    def mutate(vault: Vault) -> None:
        vault.edit(rel, old, new, rehash=rehash)

    return mutate


def _transform(rel: str, change: Callable[[str], str]) -> Callable[[Vault], None]:
    def mutate(vault: Vault) -> None:
        vault.write(rel, change(vault.read(rel)))

    return mutate


def _append_bytes(rel: str, data: bytes) -> Callable[[Vault], None]:
    def mutate(vault: Vault) -> None:
        vault.write_bytes(rel, (vault.root / rel).read_bytes() + data)

    return mutate


CANVAS = {
    "nodes": [
        {
            "id": "a",
            "type": "file",
            "file": "entities/klipper.md",
            "x": 0,
            "y": 0,
            "width": 100,
            "height": 50,
        },
        {"id": "b", "type": "text", "text": "hi", "x": 0, "y": 90, "width": 100, "height": 50},
    ],
    "edges": [{"id": "e", "fromNode": "a", "toNode": "b"}],
}


def _canvas(change: Callable[[dict[str, list[dict[str, object]]]], None]) -> Callable[[Vault], None]:
    def mutate(vault: Vault) -> None:
        data = json.loads(json.dumps(CANVAS))
        change(data)
        vault.write("map.canvas", json.dumps(data, indent=2) + "\n")

    return mutate


Mutation = Callable[[Vault], None]
Expected = list[tuple[str, str]]
M, P = MANIFEST, PENDING_MANIFEST
SHA = "0" * 64

RULES: list[tuple[str, Mutation, Expected]] = [
    # -- frontmatter (rules 1-2) --------------------------------------------------------------
    (
        "rule 1: frontmatter not at byte 0",
        _home_frontmatter("\n---\nx: 1\n---\n"),
        [("index.md", "frontmatter must start at byte 0")],
    ),
    (
        "rule 1: frontmatter never closed",
        _home_frontmatter("---\nx: 1\n"),
        [("index.md", "frontmatter is never closed")],
    ),
    (
        "rule 2: frontmatter is not YAML",
        _home_frontmatter("---\nx: [1\n---\n"),
        [("index.md", "frontmatter is not valid YAML")],
    ),
    (
        "rule 2: frontmatter is not a mapping",
        _home_frontmatter("---\n- a\n---\n"),
        [("index.md", "frontmatter must be a YAML mapping")],
    ),
    (
        "rule 2: duplicate property",
        _edit(EPISODE, "language: en\n", "language: en\nlanguage: en\n"),
        [(EPISODE, "duplicate property `language`")],
    ),
    (
        "property name is not text",
        _home_frontmatter("---\n1: x\n---\n"),
        [("index.md", "property names must be plain text")],
    ),
    # -- property values (rules 3-8) ----------------------------------------------------------
    (
        "rule 3: nested mapping",
        _home_frontmatter("---\nx:\n  a: 1\n---\n"),
        [("index.md", "`x` is a nested mapping")],
    ),
    (
        "rule 3: list item is a list",
        _edit(ENTITY, "  - Klipper firmware", "  - [Klipper, firmware]"),
        [(ENTITY, "`aliases` items must be single values")],
    ),
    (
        "rule 4: aliases in flow style",
        _edit(ENTITY, "aliases:\n  - Klipper firmware", "aliases: [Klipper firmware]"),
        [(ENTITY, "`aliases` must be a YAML block list")],
    ),
    (
        "rule 4: aliases not a list",
        _edit(ENTITY, "aliases:\n  - Klipper firmware", "aliases: Klipper firmware"),
        [
            (ENTITY, "`aliases` must be a YAML block list, not a single value"),
            (ENTITY, "`aliases` is text here but .obsidian/types.json declares aliases (rule 7)"),
        ],
    ),
    (
        "rule 4: list items not indented by two",
        _edit(ENTITY, "aliases:\n  - Klipper", "aliases:\n- Klipper"),
        [(ENTITY, "list items must be indented by two spaces")],
    ),
    (
        "empty list item",
        _edit(ENTITY, "  - Klipper firmware", "  -"),
        [(ENTITY, "`aliases` has an empty item")],
    ),
    (
        "rule 5: tag with #",
        _edit(EPISODE, "  - work/atlas", '  - "#work/atlas"'),
        [(EPISODE, "tag '#work/atlas' must not start with #")],
    ),
    (
        "rule 5: tag with a space",
        _edit(EPISODE, "  - work/atlas", "  - work atlas"),
        [(EPISODE, "tag 'work atlas' must not contain spaces")],
    ),
    (
        "rule 5: tag of digits",
        _edit(EPISODE, "  - work/atlas", "  - 2025"),
        [(EPISODE, "must not be all digits")],
    ),
    (
        "rule 5: tag with an empty level",
        _edit(EPISODE, "  - work/atlas", "  - work//atlas"),
        [(EPISODE, "has an empty /-segment")],
    ),
    (
        "rule 5: tag with other characters",
        _edit(EPISODE, "  - work/atlas", "  - work.atlas"),
        [(EPISODE, "may use only letters (with their combining marks), digits, _, - and /")],
    ),
    (
        "rule 5: uppercase tag",
        _edit(EPISODE, "  - work/atlas", "  - Work/Atlas"),
        [(EPISODE, "must be lowercase")],
    ),
    (
        "rule 6: impossible date",
        _edit(EPISODE, "timestamp: 2025-02-17", "timestamp: 2025-02-30"),
        [(EPISODE, "`timestamp` must be a YYYY-MM-DD date, not '2025-02-30'")],
    ),
    (
        "rule 6: date-time with a space",
        _home_frontmatter("---\nwhen: 2025-02-17 10:00:00\n---\n"),
        [("index.md", "write dates as YYYY-MM-DD and date-times as YYYY-MM-DDTHH:MM:SS")],
    ),
    (
        "rule 7: type other than types.json declares",
        _declare_type("valid_to", "number"),
        [(STATE, "`valid_to` is date here but .obsidian/types.json declares number (rule 7)")],
    ),
    (
        "rule 8: multi-line value",
        _edit(EPISODE, "title: Chose Dagster over Airflow.", "title: |\n  Chose Dagster\n  over Airflow."),
        [(EPISODE, "`title` must be a single-line value")],
    ),
    (
        "rule 8: unquoted wikilink in a property",
        _home_frontmatter("---\nsee: see [[entities/klipper|Klipper]]\n---\n"),
        [("index.md", "wikilinks inside properties must be quoted strings")],
    ),
    (
        "YAML tag Obsidian cannot read",
        _home_frontmatter("---\nx: !custom y\n---\n"),
        [("index.md", "uses the YAML tag !custom")],
    ),
    (
        "null property",
        _edit(EPISODE, "language: en\n", "language:\n"),
        [(EPISODE, "`language` has no value")],
    ),
    # -- names (rules 9-10) -------------------------------------------------------------------
    ("rule 9: forbidden character", _user_file("a#b.md"), [("a#b.md", "name contains #")]),
    ("rule 9: Windows reserved name", _user_file("CON.md"), [("CON.md", "is a reserved Windows name")]),
    ("rule 9: trailing dot", _user_file("draft."), [("draft.", "ends with a space or a dot")]),
    ("rule 9: not NFC", _user_file("e\u0301te.md"), [("e\u0301te.md", "is not in Unicode NFC form")]),
    ("rule 9: control character", _user_file("a\x01b.md"), [("a\x01b.md", "contains control characters")]),
    (
        "rule 9: longer than 200 bytes",
        _user_file("x" * 198 + ".md"),
        [("x" * 198 + ".md", "longer than 200")],
    ),
    (
        "rule 10: basename clash after casefold",
        _user_file("KLIPPER.md"),
        [
            ("KLIPPER.md", "basename is not unique after casefold"),
            (ENTITY, "basename is not unique after casefold"),
        ],
    ),
    # -- links (rules 11-14) ------------------------------------------------------------------
    (
        "rule 11: dangling body wikilink",
        _edit(ENTITY, "[[sources/voyages-lyon-summary|", "[[sources/nowhere-summary|"),
        [(ENTITY, "wikilink [[sources/nowhere-summary]] does not resolve")],
    ),
    (
        "rule 11: dangling property wikilink",
        _edit(EPISODE, '"[[sources/work-decision-log-summary|', '"[[sources/nowhere-summary|'),
        [(EPISODE, "wikilink [[sources/nowhere-summary]] does not resolve")],
    ),
    (
        "rule 12: unescaped pipe in a table",
        _edit(
            SUMMARY,
            "## Coverage\n",
            "| a | b |\n| --- | --- |\n| [[entities/klipper|Klipper]] | x |\n\n## Coverage\n",
        ),
        [(SUMMARY, "escape its pipe as `\\|` (rule 12)")],
    ),
    (
        "rule 13: block id",
        _edit(FACT, "Atlas uses Postgres 16.\n\n", "Atlas uses Postgres 16. ^bad_id\n\n"),
        [(FACT, "block id ^bad_id may use only")],
    ),
    (
        "rule 13: block reference",
        _edit(FACT, "## Sources\n", "See [[entities/klipper#^bad_id|Klipper]].\n\n## Sources\n"),
        [(FACT, "block reference #^bad_id may use only")],
    ),
    (
        "rule 14: relation without its body link",
        _edit(ENTITY, "- [[entities/ender-3|Ender 3]] runs this (since 2025-03-22)\n", ""),
        [(ENTITY, "no body wikilink to entities/ender-3 for the incoming relation `runs`")],
    ),
    # -- relations.jsonl ----------------------------------------------------------------------
    ("relations: unsorted lines", _swap_first_lines, [(RELATIONS, "lines are not sorted")]),
    ("relations: invalid JSON", _replace_first_line("{not json"), [(RELATIONS, "not valid JSON")]),
    ("relations: keys out of order", _reorder_first_line_keys, [(RELATIONS, "keys must be exactly")]),
    ("relations: not compact", _spaced_first_line, [(RELATIONS, "not compact JSON")]),
    ("relations: duplicate triple", _duplicate_first_line, [(RELATIONS, "duplicate triple")]),
    ("relations: one predicate, two labels", _relabel_second_of_a_predicate, [(RELATIONS, "has label")]),
    (
        "relations: predicate not snake_case",
        _change_edge(1, relation="Project"),
        [(RELATIONS, "`relation` 'Project' is not a snake_case predicate")],
    ),
    (
        "relations: end without an entity page",
        _change_edge(1, to="nowhere"),
        [
            (RELATIONS, "`to` 'nowhere' has no page entities/nowhere.md"),
            ("entities/atlas-decision-log.md", "no body wikilink to entities/nowhere"),
        ],
    ),
    (
        "relations: confidence out of range",
        _change_edge(1, confidence=1.5),
        [(RELATIONS, "`confidence` 1.5 must be a number in [0, 1]")],
    ),
    (
        "relations: date format",
        _change_edge(2, valid_at="2025/05/02"),
        [(RELATIONS, "`valid_at` '2025/05/02' must be null or a YYYY-MM-DD date")],
    ),
    (
        "relations: invalid_at before valid_at",
        _change_edge(2, invalid_at="2025-01-01"),
        [(RELATIONS, "`invalid_at` is before `valid_at`")],
    ),
    (
        "relations: evidence past the end of its source",
        _change_edge(2, evidence=["work/atlas-setup.md#L35-L9999"]),
        [(RELATIONS, "ends after the last line")],
    ),
    (
        "relations: evidence in a missing file",
        _change_edge(2, evidence=["work/nope.md#L1-L2"]),
        [(RELATIONS, "no file work/nope.md under the notes folder")],
    ),
    (
        "relations: no evidence",
        _change_edge(2, evidence=[]),
        [(RELATIONS, "`evidence` must be a non-empty list")],
    ),
    (
        "relations: no final newline",
        _no_final_newline,
        [(RELATIONS, "the last line must end with a newline")],
    ),
    # -- node pages ---------------------------------------------------------------------------
    (
        "node: required property missing",
        _edit(EPISODE, "confidence: medium\n", ""),
        [(EPISODE, "required property `confidence` is missing")],
    ),
    (
        "node: property of another kind",
        _edit(EPISODE, "language: en\n", "language: en\nentity_type: thing\n"),
        [(EPISODE, "`entity_type` is not a property of episodic nodes")],
    ),
    (
        "node: semantic node with a speaker",
        _edit(FACT, "confidence: high\n", "attributed_to: alex\nconfidence: high\n"),
        [(FACT, "`attributed_to` is not a property of semantic nodes")],
    ),
    (
        "node: properties out of order",
        _edit(
            EPISODE,
            "type: decision\ntitle: Chose Dagster over Airflow.\n",
            "title: Chose Dagster over Airflow.\ntype: decision\n",
        ),
        [(EPISODE, "`title` is out of order")],
    ),
    (
        "node: id is not the file name",
        _edit(EPISODE, "id: chose-dagster-over-airflow", "id: chose-dagster"),
        [(EPISODE, "`id` 'chose-dagster' does not match the file name")],
    ),
    (
        "node: episodic node made public",
        _edit(EPISODE, "sensitivity: private", "sensitivity: public"),
        [(EPISODE, "`sensitivity` is 'public'; expected confidential | private")],
    ),
    (
        "node: wrong memory layer",
        _edit(EPISODE, "memory_layer: episodic", "memory_layer: semantic"),
        [(EPISODE, "`memory_layer` is 'semantic'; expected episodic")],
    ),
    (
        "node: empty title",
        _edit(EPISODE, "title: Chose Dagster over Airflow.", 'title: ""'),
        [(EPISODE, "`title` is empty")],
    ),
    (
        "node: validity on a decision",
        _edit(EPISODE, "language: en\n", "language: en\nvalid_from: 2025-02-17\n"),
        [(EPISODE, "`valid_from` belongs to nodes of type state only")],
    ),
    (
        "node: validity ends before it starts",
        _edit(STATE, "valid_to: 2025-03-22", "valid_from: 2025-04-01\nvalid_to: 2025-03-22"),
        [(STATE, "`valid_to` is before `valid_from`")],
    ),
    (
        "node: importance out of range",
        _edit(
            EPISODE,
            '  - "[[entities/dagster|Dagster]]"\n',
            '  - "[[entities/dagster|Dagster]]"\nimportance: 9\n',
        ),
        [(EPISODE, "`importance` must be between 1 and 5")],
    ),
    (
        "node: source_input to the wrong folder",
        _edit(
            EPISODE,
            '"[[sources/work-decision-log-summary|Atlas decision log]]"',
            '"[[entities/dagster|Dagster]]"',
        ),
        [(EPISODE, "`source_input` must link to a page in sources/")],
    ),
    (
        "node: entity that is not a link",
        _edit(EPISODE, '  - "[[entities/dagster|Dagster]]"', "  - Dagster"),
        [(EPISODE, "`entities` must hold quoted wikilinks")],
    ),
    # -- entity pages -------------------------------------------------------------------------
    (
        "entity: type not snake_case",
        _edit(ENTITY, "entity_type: software", "entity_type: Software"),
        [(ENTITY, "`entity_type` 'Software' is not lowercase snake_case")],
    ),
    (
        "entity: empty description",
        _edit(ENTITY, "description: Klipper (software).", 'description: ""'),
        [(ENTITY, "`description` is empty")],
    ),
    (
        "entity: missing aliases",
        _edit(ENTITY, "aliases:\n  - Klipper firmware\n", ""),
        [(ENTITY, "required property `aliases` is missing")],
    ),
    (
        "entity: property of another kind",
        _edit(ENTITY, "entity_type: software\n", "entity_type: software\ntimestamp: 2025-01-01\n"),
        [(ENTITY, "`timestamp` is not a property of entity pages")],
    ),
    (
        "entity: evidence past the end of its source",
        _edit(ENTITY, '"printing/Klipper.md#L1-L6"', '"printing/Klipper.md#L1-L999"'),
        [(ENTITY, "evidence 'printing/Klipper.md#L1-L999' ends after the last line (18)")],
    ),
    (
        "entity: evidence outside the notes",
        _edit(ENTITY, '"printing/Klipper.md#L1-L6"', '"../Klipper.md#L1-L6"'),
        [(ENTITY, "must name a path relative to the notes root")],
    ),
    (
        "entity: evidence that is not a reference",
        _edit(ENTITY, '"printing/Klipper.md#L1-L6"', "42"),
        [(ENTITY, "`sources` items must be `path#Lstart-Lend`")],
    ),
    (
        "entity: no Overview",
        _edit(ENTITY, "## Overview\n", ""),
        [(ENTITY, "entity page has no `## Overview` section")],
    ),
    # -- summary pages and coverage -----------------------------------------------------------
    (
        "coverage: lines in no range",
        _edit(SUMMARY, "| 7-18 |", "| 7-17 |"),
        [(SUMMARY, "lines 18-18 of printing/Klipper.md are in no coverage range")],
    ),
    (
        "coverage: range past the end",
        _edit(SUMMARY, "| 7-18 |", "| 7-99 |"),
        [(SUMMARY, "coverage range 7-99 ends after the last line (18)")],
    ),
    (
        "coverage: overlapping ranges",
        _edit(SUMMARY, "| 1-6 |", "| 1-7 |"),
        [(SUMMARY, "coverage range 7-18 overlaps the range before it")],
    ),
    (
        "coverage: range that is not start-end",
        _edit(SUMMARY, "| 7-18 | 1 node, 2 entities |\n", "| 7-18 | 1 node, 2 entities |\n| x | y |\n"),
        [(SUMMARY, "coverage range 'x' is not `start-end`")],
    ),
    (
        "coverage: a pointer row of a note (only a JSON file's rows may be pointers)",
        _edit(SUMMARY, "| 7-18 | 1 node, 2 entities |\n", "| 7-18 | 1 node, 2 entities |\n| /0 | y |\n"),
        [(SUMMARY, "coverage range '/0' is not `start-end`")],
    ),
    (
        "coverage: row without a result",
        _edit(SUMMARY, "| 1-6 | 1 entity |", "| 1-6 |  |"),
        [(SUMMARY, "must say what its lines produced")],
    ),
    (
        "coverage: no table",
        _edit(SUMMARY, "| lines | result |", "| range | result |"),
        [(SUMMARY, "summary page has no coverage table")],
    ),
    (
        "coverage: no delimiter row",
        _edit(SUMMARY, "| lines | result |\n| --- | --- |\n", "| lines | result |\n"),
        [(SUMMARY, "the coverage table has no delimiter row")],
    ),
    (
        "summary: tags without summary",
        _edit(SUMMARY, "tags:\n  - summary", "tags:\n  - other"),
        [(SUMMARY, "`tags` of a summary page must contain `summary`")],
    ),
    (
        "summary: absolute source_document",
        _edit(SUMMARY, "source_document: printing/Klipper.md", "source_document: /etc/passwd"),
        [(SUMMARY, "`source_document` '/etc/passwd' must be a path relative to the notes root")],
    ),
    (
        "summary: source_document not in the notes",
        _edit(SUMMARY, "source_document: printing/Klipper.md", "source_document: printing/Nope.md"),
        [(SUMMARY, "source_document printing/Nope.md not found under the notes folder")],
    ),
    (
        "summary: wrong type",
        _edit(SUMMARY, "type: summary", "type: entity"),
        [(SUMMARY, "`type` is 'entity'; expected summary")],
    ),
    # -- ownership: manifest, marker, encoding ------------------------------------------------
    (
        "manifest: hash does not match",
        _manifest(_files(lambda f: f.update({ENTITY: SHA}))),
        [(ENTITY, f"generated part edited by hand (its hash differs from {MANIFEST})")],
    ),
    (
        "generated part edited by hand",
        _edit(ENTITY, "Klipper (software).\n\n-", "Klipper, my favourite.\n\n-", rehash=False),
        [(ENTITY, "generated part edited by hand")],
    ),
    ("manifest: keys not sorted", _manifest(_unsorted), [(M, "`files` keys are not sorted")]),
    ("manifest: not indented by two", _indent_four, [(M, "not written deterministically")]),
    (
        "manifest: unknown key",
        _manifest(lambda d: d.update(built="today")),
        [(M, "must hold exactly the keys")],
    ),
    ("manifest: unknown version", _manifest(lambda d: d.update(version=2)), [(M, "unknown version 2")]),
    (
        "manifest: entry outside the vault",
        _manifest(_files(lambda f: f.update({"../x.md": SHA}))),
        [(M, "entry '../x.md' is not a relative posix path inside the vault")],
    ),
    (
        "manifest: entry without a digest",
        _manifest(_files(lambda f: f.update({ENTITY: "xyz"}))),
        [(M, f"entry '{ENTITY}' has no sha256 hex digest")],
    ),
    (
        "manifest: listed file missing",
        _manifest(_files(lambda f: f.update({"entities/ghost.md": SHA}))),
        [("entities/ghost.md", f"listed in {MANIFEST} but missing")],
    ),
    ("manifest: interrupted build", _pending, [(P, "a build was interrupted")]),
    ("required file missing", _drop_required, [(BASE, "missing: every kgvault vault has it")]),
    ("required file not owned", lambda v: v.disown("index.md"), [("index.md", f"not listed in {MANIFEST}")]),
    ("marker line missing", _edit(ENTITY, MARKER + "\n", ""), [(ENTITY, f"the line `{MARKER}` is missing")]),
    (
        "byte-order mark",
        _transform(ENTITY, lambda t: "\ufeff" + t),
        [(ENTITY, "starts with a byte-order mark")],
    ),
    (
        "CR line endings",
        _transform(ENTITY, lambda t: t.replace("\n", "\r\n")),
        [(ENTITY, "has CR line endings")],
    ),
    ("not UTF-8", _append_bytes(ENTITY, b"my notes \xff\n"), [(ENTITY, "not valid UTF-8")]),
    (
        "owned page outside the layout",
        _owned_file("notes/mine.md", f"# Mine\n\n{MARKER}\n"),
        [("notes/mine.md", "owned page outside the vault layout")],
    ),
    # -- Obsidian's files, Bases, Canvas (rules 15-17) ----------------------------------------
    (
        "rule 15: app.json written",
        _owned_file(".obsidian/app.json", "{}\n"),
        [(".obsidian/app.json", "kgvault must never write Obsidian's app.json")],
    ),
    (
        "rule 15: types.json with unknown types",
        _bad_types,
        [(TYPES, "`types` must map property names to Obsidian property types")],
    ),
    ("rule 16: .base not YAML", _transform(BASE, lambda t: t + "views: [\n"), [(BASE, "not valid YAML")]),
    (
        "rule 16: .base unknown key",
        _transform(BASE, lambda t: t + "extra: 1\n"),
        [(BASE, "unknown top-level key `extra`")],
    ),
    (
        "rule 16: .base view type",
        _transform(BASE, lambda t: t.replace("type: table", "type: grid", 1)),
        [(BASE, "view 1 `type` must be one of")],
    ),
    (
        "rule 17: canvas file node to a missing file",
        _canvas(lambda c: c["nodes"][0].update(file="entities/nowhere.md")),
        [("map.canvas", "file 'entities/nowhere.md' does not exist (rule 17)")],
    ),
    (
        "rule 17: canvas edge to a missing node",
        _canvas(lambda c: c["edges"][0].update(toNode="zz")),
        [("map.canvas", "`toNode` 'zz' is not a node (rule 17)")],
    ),
    (
        "rule 17: canvas coordinates",
        _canvas(lambda c: c["nodes"][1].update(x=1.5)),
        [("map.canvas", "`x` must be an integer (rule 17)")],
    ),
]


@pytest.fixture
def vault(sample_vault_built: tuple[Path, dict[str, object]], tmp_path: Path) -> Vault:
    """A private copy of the built sample vault (without its cache and machine-local state).

    The copy's files are hard links to the built vault's (fast); Vault.write_bytes unlinks before writing.
    """
    built, _ = sample_vault_built
    copy = tmp_path / "vault"
    shutil.copytree(built, copy, ignore=shutil.ignore_patterns("cache", "state"), copy_function=os.link)
    return Vault(copy)


def test_the_untouched_copy_passes(vault: Vault) -> None:
    assert check_vault(vault.root, notes=SAMPLE) == []


def test_the_table_has_a_row_per_rule() -> None:
    assert len(RULES) >= 15
    assert len({name for name, _, _ in RULES}) == len(RULES)


@pytest.mark.parametrize(("mutate", "expected"), [pytest.param(m, e, id=n) for n, m, e in RULES])
def test_one_break_is_reported_exactly(vault: Vault, mutate: Mutation, expected: Expected) -> None:
    mutate(vault)
    problems = check_vault(vault.root, notes=SAMPLE)
    found = [(p.path, p.message) for p in problems]
    unmatched = [
        (path, fragment)
        for path, fragment in expected
        if not any(p == path and fragment in message for p, message in found)
    ]
    assert unmatched == [], f"not reported: {unmatched}; reported: {found}"
    assert len(problems) == len(expected), f"reported more than expected: {found}"


def test_the_built_vault_is_left_intact(sample_vault_built: tuple[Path, dict[str, object]]) -> None:
    """The rows edit hard-linked copies: the shared build must still pass (run after them)."""
    built, _ = sample_vault_built
    assert check_vault(built, notes=SAMPLE) == []


def test_the_marker_line_repeated_in_the_users_notes_is_no_problem(vault: Vault) -> None:
    # A user who pastes a page's end into their notes repeats the marker: the first one still ends
    # the generated part, and builds keep the rest as the user's.
    _append_bytes(ENTITY, f"my notes\n{MARKER}\nmore notes\n".encode())(vault)
    assert check_vault(vault.root, notes=SAMPLE) == []


def test_the_check_command_exits_1_and_names_the_problem(vault: Vault) -> None:
    vault.edit(EPISODE, "timestamp: 2025-02-17", "timestamp: 2025-02-30")
    result = CliRunner().invoke(main, ["check", str(vault.root), "--notes", str(SAMPLE), "--json"])
    assert result.exit_code == 1, result.output
    problems = json.loads(result.stdout)
    assert [(p["path"], "2025-02-30" in p["message"]) for p in problems] == [(EPISODE, True)]
