"""Tests for the vault checker: a hand-built valid vault passes, each single defect is reported."""

from __future__ import annotations

import builtins
import hashlib
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from kgvault import check as check_module
from kgvault.check import check_vault
from kgvault.records import Problem

if TYPE_CHECKING:
    from _pytest.mark import ParameterSet

MARKER = "%% kgvault: your notes below this line are kept %%"

EPISODE = f"""\
---
id: heating-failed-after-marlin-update
memory_layer: episodic
type: observation
title: Heating failed after the Marlin update
tags:
  - 3d_printing/firmware
  - ender_3
timestamp: 2025-03-12
sensitivity: private
attributed_to: alex
confidence: high
origin: stated
source_input: "[[sources/printing-journal-summary|Printing journal]]"
language: en
entities:
  - "[[entities/ender-3|Ender 3]]"
  - "[[entities/marlin|Marlin]]"
related_to:
  - "[[semantic/marlin-is-a-printer-firmware|Marlin is a printer firmware]]"
---
The Ender 3 showed a heating failed error after the update to Marlin 2.1.3.

## Relations
- [[entities/ender-3|Ender 3]] runs firmware [[entities/marlin|Marlin]].

## Sources
- [[sources/printing-journal-summary|Printing journal]], line 5

{MARKER}
My own thoughts link to [[Somewhere I will write later]].
"""

FACT = f"""\
---
id: marlin-is-a-printer-firmware
memory_layer: semantic
type: fact
title: Marlin is a printer firmware
tags:
  - 3d_printing/firmware
timestamp: 2025-03-12
sensitivity: public
confidence: medium
origin: stated
source_input: "[[sources/printing-journal-summary|Printing journal]]"
entities:
  - "[[entities/marlin|Marlin]]"
importance: 3
aliases: []
---
Marlin is an open-source firmware for 3D printers. ^marlin-fact

```bash
[[ -f Configuration.h ]] && echo ok
```

Inline code `[[not a link]]` is not a link either.

## Sources
- [[sources/printing-journal-summary#Coverage|Printing journal]]

{MARKER}
"""

ENDER = f"""\
---
type: entity
id: ender-3
title: Ender 3
entity_type: product
description: A 3D printer made by Creality.
aliases:
  - Ender-3
sources:
  - printing/journal.md#L5-L5
---
## Overview
A 3D printer made by Creality.

## Relations
| relation | entity |
| --- | --- |
| runs firmware | [[entities/marlin\\|Marlin]] |

## Timeline
- 2025-03-12 [[episodic/heating-failed-after-marlin-update|Heating failed after the Marlin update]]

{MARKER}
"""

MARLIN = f"""\
---
type: entity
id: marlin
title: Marlin
entity_type: software
description: An open-source firmware for 3D printers.
aliases: []
sources:
  - printing/journal.md#L5-L5
  - .kgvault/drafts/mnemon.json#/insights/0
---
## Overview
An open-source firmware for 3D printers.

## Relations
- [[entities/ender-3|Ender 3]] runs firmware Marlin

## Facts
- [[semantic/marlin-is-a-printer-firmware|Marlin is a printer firmware]]

{MARKER}
"""

SUMMARY = f"""\
---
type: summary
id: printing-journal-summary
title: Printing journal
source_document: printing/journal.md
reference_time: 2025-03-12
tags:
  - summary
---
# Printing journal

## Nodes
- [[episodic/heating-failed-after-marlin-update|Heating failed after the Marlin update]]

## Coverage
| lines | result |
| --- | --- |
| 1-3 | structural: frontmatter |
| 4-4 | structural: heading |
| 5-5 | [[episodic/heating-failed-after-marlin-update\\|Heating failed after the Marlin update]] |
| 7-7 | small talk |

{MARKER}
"""

INDEX = f"""\
# Knowledge graph

| kind | count |
| --- | --- |
| episodic | 1 |
| semantic | 1 |

## Latest episodes
- 2025-03-12 [[episodic/heating-failed-after-marlin-update|Heating failed after the Marlin update]]

## Top entities
- [[entities/ender-3|Ender 3]]
- [[entities/marlin|Marlin]]

{MARKER}
"""

ONTOLOGY = f"""\
---
title: Ontology
---
# Ontology

## Predicates
| predicate | label | count |
| --- | --- | --- |
| `runs_firmware` | runs firmware | 1 |

{MARKER}
"""

RELATION = (
    '{"from":"ender-3","relation":"runs_firmware","label":"runs firmware","to":"marlin",'
    '"statement":"The Ender 3 runs Marlin 2.1.3.","confidence":0.9,"valid_at":"2025-03-12",'
    '"invalid_at":null,"evidence":["printing/journal.md#L5-L5"]}'
)

BASE = """\
views:
  - type: table
    name: Episodes by time
    filters:
      and:
        - file.inFolder("episodic")
    order:
      - file.name
      - timestamp
    sort:
      - property: timestamp
        direction: DESC
  - type: table
    name: Facts
    filters: file.inFolder("semantic")
  - type: cards
    name: Entities
    filters: file.inFolder("entities")
    groupBy:
      property: entity_type
      direction: ASC
"""

CANVAS = {
    "nodes": [
        {
            "id": "a",
            "type": "file",
            "file": "entities/marlin.md",
            "x": 0,
            "y": 0,
            "width": 400,
            "height": 300,
        },
        {"id": "b", "type": "text", "text": "Firmware", "x": 500, "y": 0, "width": 200, "height": 100},
    ],
    "edges": [{"id": "e", "fromNode": "a", "toNode": "b", "toEnd": "arrow"}],
}

TYPES = {
    "types": {
        "aliases": "aliases",
        "tags": "tags",
        "timestamp": "date",
        "reference_time": "date",
        "title": "text",
        "importance": "number",
    }
}

OWNED = {
    "index.md": INDEX,
    "ontology.md": ONTOLOGY,
    "episodic/heating-failed-after-marlin-update.md": EPISODE,
    "semantic/marlin-is-a-printer-firmware.md": FACT,
    "entities/ender-3.md": ENDER,
    "entities/marlin.md": MARLIN,
    "sources/printing-journal-summary.md": SUMMARY,
    "relations.jsonl": RELATION + "\n",
    "kgvault.base": BASE,
    "overview.canvas": json.dumps(CANVAS, indent=2) + "\n",
    ".obsidian/types.json": json.dumps(TYPES, indent=2) + "\n",
}

USER_FILES = {
    # The user's own page: broken fields and links are none of the checker's business.
    "journal/ideas.md": "---\ntags: Not A List\n---\nSee [[Somewhere else]] and [[a|b]].\n",
    ".kgvault/drafts/mnemon.json": '{"schema_version": "1", "insights": [{"content": "Marlin"}]}\n',
}

NOTES = {
    "printing/journal.md": (
        "---\n"
        "date: 2025-03-12\n"
        "---\n"
        "# Journal\n"
        "The Ender 3 showed heating failed after updating to Marlin 2.1.3.\n"
        "\n"
        "Nice weather today.\n"
    ),
}

EPISODE_PATH = "episodic/heating-failed-after-marlin-update.md"
FACT_PATH = "semantic/marlin-is-a-printer-firmware.md"
ENDER_PATH = "entities/ender-3.md"
MARLIN_PATH = "entities/marlin.md"
SUMMARY_PATH = "sources/printing-journal-summary.md"
MANIFEST = ".kgvault/manifest.json"


def generated_part(path: str, data: bytes) -> bytes:
    """Return what the manifest hashes: a page up to its marker line, any other file whole."""
    if not path.endswith(".md"):
        return data
    marker = (MARKER + "\n").encode()
    end = data.find(b"\n" + marker)
    return data if end < 0 else data[: end + 1 + len(marker)]


def write_manifest(vault: Path, owned: list[str]) -> None:
    """Write the manifest the way kgvault's writer does."""
    files = {
        path: hashlib.sha256(generated_part(path, (vault / path).read_bytes())).hexdigest() for path in owned
    }
    manifest = {"version": 1, "files": dict(sorted(files.items()))}
    (vault / MANIFEST).parent.mkdir(parents=True, exist_ok=True)
    (vault / MANIFEST).write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def manifest_files(vault: Path) -> dict[str, str]:
    files: dict[str, str] = json.loads((vault / MANIFEST).read_text(encoding="utf-8"))["files"]
    return files


def rehash(vault: Path) -> None:
    """Recompute the manifest after a test changed an owned file on purpose."""
    write_manifest(vault, [path for path in manifest_files(vault) if (vault / path).is_file()])


def write(vault: Path, path: str, text: str, *, owned: bool = False) -> None:
    """Write a file; when owned, add it to the manifest."""
    target = vault / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(text.encode("utf-8"))
    if owned:
        write_manifest(vault, [*manifest_files(vault), path])


def edit(vault: Path, path: str, old: str, new: str, *, keep_hash: bool = True) -> None:
    """Replace the first `old` in a file; by default the manifest follows, so only the edit is wrong."""
    file = vault / path
    text = file.read_bytes().decode("utf-8")
    assert old in text, f"{old!r} not in {path}"
    file.write_bytes(text.replace(old, new, 1).encode("utf-8"))
    if keep_hash and path in manifest_files(vault):
        rehash(vault)


def remove(vault: Path, path: str, *, disown: bool = True) -> None:
    """Delete a file and, by default, its manifest entry."""
    (vault / path).unlink()
    if disown:
        write_manifest(vault, [p for p in manifest_files(vault) if p != path])


def build_vault(root: Path, *, prefix: str = "") -> Path:
    """Write the valid vault under root; links get `prefix` when it sits inside an Obsidian vault."""
    vault = root / prefix if prefix else root
    owned = dict(OWNED)
    if prefix:
        del owned[".obsidian/types.json"]  # kgvault creates no .obsidian/ inside an existing vault
    for path, text in {**owned, **USER_FILES}.items():
        if prefix:
            text = re.sub(r"\[\[(episodic|semantic|entities|sources)/", rf"[[{prefix}\1/", text)
            text = text.replace('"file": "entities/', f'"file": "{prefix}entities/')
        write(vault, path, text)
    write_manifest(vault, list(owned))
    return vault


def build_notes(root: Path) -> Path:
    for path, text in NOTES.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_bytes(text.encode("utf-8"))
    return root


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    return build_vault(tmp_path / "vault")


@pytest.fixture
def notes(tmp_path: Path) -> Path:
    return build_notes(tmp_path / "notes")


def show(problems: list[Problem]) -> str:
    return "\n".join(f"{p.path}:{p.line}: {p.message}" for p in problems) or "no problems"


def assert_reported(problems: list[Problem], path: str, fragment: str) -> None:
    assert any(p.path == path and fragment in p.message for p in problems), (
        f"expected a problem on {path} mentioning {fragment!r}, got:\n{show(problems)}"
    )


# -- the valid vault ---------------------------------------------------------------------------


def test_valid_vault_has_no_problems(vault: Path, notes: Path) -> None:
    assert check_vault(vault, notes=notes) == [], show(check_vault(vault, notes=notes))
    assert check_vault(vault) == [], show(check_vault(vault))


def test_valid_vault_inside_an_obsidian_vault_has_no_problems(tmp_path: Path, notes: Path) -> None:
    (tmp_path / "MyVault" / ".obsidian").mkdir(parents=True)
    (tmp_path / "MyVault" / "Daily" / "2025-03-12.md").parent.mkdir()
    (tmp_path / "MyVault" / "Daily" / "2025-03-12.md").write_text("Printed all day.\n", encoding="utf-8")
    vault = build_vault(tmp_path / "MyVault", prefix="kg/")
    assert check_vault(vault, notes=notes) == [], show(check_vault(vault, notes=notes))


def test_problems_are_sorted_and_unique(vault: Path) -> None:
    edit(vault, EPISODE_PATH, "type: observation", "type: fact")
    edit(vault, ENDER_PATH, "entity_type: product", "entity_type: Product Line")
    remove(vault, "kgvault.base")
    problems = check_vault(vault)
    assert problems == sorted(problems, key=lambda p: (p.path, p.line or 0, p.message))
    assert len(problems) == len(set(problems)) >= 3


def test_user_region_may_change_without_a_problem(vault: Path) -> None:
    text = (vault / EPISODE_PATH).read_text(encoding="utf-8")
    (vault / EPISODE_PATH).write_text(text + "More notes with [[Nowhere]].\n", encoding="utf-8")
    assert check_vault(vault) == []


def test_notes_checks_are_skipped_without_notes(vault: Path) -> None:
    edit(vault, SUMMARY_PATH, "| 7-7 | small talk |\n", "")
    edit(vault, "relations.jsonl", "#L5-L5", "#L5-L50")
    assert check_vault(vault) == []


# -- one defect at a time ----------------------------------------------------------------------

Mutation = Callable[[Path], object]


def edited(case_id: str, path: str, old: str, new: str, fragment: str, *, on: str = "") -> ParameterSet:
    """A case that replaces `old` by `new` in one owned file; the problem is on `on` (default: that file)."""
    return pytest.param(lambda vault: edit(vault, path, old, new), on or path, fragment, id=case_id)


def mutated(case_id: str, mutate: Mutation, path: str, fragment: str) -> ParameterSet:
    """A case made by any other change to the vault."""
    return pytest.param(mutate, path, fragment, id=case_id)


def user_file(case_id: str, name: str, fragment: str, *, on: str = "") -> ParameterSet:
    """A case that adds one of the user's own files."""
    return pytest.param(lambda vault: write(vault, name, "My own note.\n"), on or name, fragment, id=case_id)


def relations(case_id: str, *lines: str, fragment: str) -> ParameterSet:
    """A case that replaces relations.jsonl with these lines."""

    def mutate(vault: Path) -> None:
        write(vault, "relations.jsonl", "".join(line + "\n" for line in lines))
        rehash(vault)

    return pytest.param(mutate, "relations.jsonl", fragment, id=case_id)


def relation(*, order: tuple[str, ...] = (), drop: str = "", **changes: object) -> str:
    """The valid relation line with some values changed, keys moved to the front, or one key dropped."""
    edge = json.loads(RELATION)
    edge.update({key.rstrip("_"): value for key, value in changes.items()})
    edge = {**{key: edge[key] for key in order}, **edge}
    edge.pop(drop, None)
    return json.dumps(edge, ensure_ascii=False, separators=(",", ":"))


def canvas(
    case_id: str, change: Callable[[dict[str, list[dict[str, object]]]], object], fragment: str
) -> ParameterSet:
    """A case that changes the owned canvas."""

    def mutate(vault: Path) -> None:
        data = json.loads(json.dumps(CANVAS))
        change(data)
        write(vault, "overview.canvas", json.dumps(data))
        rehash(vault)

    return pytest.param(mutate, "overview.canvas", fragment, id=case_id)


def _own_missing_file(vault: Path) -> None:
    files = {**manifest_files(vault), "entities/prusa.md": "0" * 64}
    text = json.dumps({"version": 1, "files": dict(sorted(files.items()))}, indent=2) + "\n"
    (vault / MANIFEST).write_text(text, encoding="utf-8")


def _unsort_manifest(vault: Path) -> None:
    files = manifest_files(vault)
    text = json.dumps({"version": 1, "files": dict(reversed(files.items()))}, indent=2) + "\n"
    (vault / MANIFEST).write_text(text, encoding="utf-8")


def _compact_manifest(vault: Path) -> None:
    text = json.dumps({"version": 1, "files": manifest_files(vault)}) + "\n"
    (vault / MANIFEST).write_text(text, encoding="utf-8")


def _state_ends_before_it_starts(vault: Path) -> None:
    edit(vault, EPISODE_PATH, "type: observation\n", "type: state\n")
    edit(vault, EPISODE_PATH, "language: en", "language: en\nvalid_from: 2025-03-12\nvalid_to: 2025-03-01")


def _mix_property_types(vault: Path) -> None:
    edit(vault, "index.md", "# Knowledge graph", "---\nkgvault_version: 1\n---\n# Knowledge graph")
    edit(vault, "ontology.md", "title: Ontology\n", "title: Ontology\nkgvault_version: one\n")


TAG = "  - ender_3"
TIMESTAMP = "timestamp: 2025-03-12"
ONTOLOGY_TITLE = "title: Ontology"
FACT_TITLE = "title: Marlin is a printer firmware"
SUMMARY_LINK = "[[sources/printing-journal-summary|Printing journal]]"
TABLE_LINK = "[[entities/marlin\\|Marlin]]"

CASES = [
    # ownership: the manifest and the generated part
    mutated(
        "hand-edited",
        lambda v: edit(v, MARLIN_PATH, "An open-source", "A closed", keep_hash=False),
        MARLIN_PATH,
        "generated part edited by hand",
    ),
    mutated("manifest-lists-missing-file", _own_missing_file, "entities/prusa.md", "missing"),
    mutated("manifest-missing", lambda v: (v / MANIFEST).unlink(), MANIFEST, "missing"),
    mutated("manifest-not-json", lambda v: (v / MANIFEST).write_text("{"), MANIFEST, "unreadable"),
    mutated(
        "manifest-version",
        lambda v: edit(v, MANIFEST, '"version": 1', '"version": 2', keep_hash=False),
        MANIFEST,
        "unknown version 2",
    ),
    mutated(
        "manifest-absolute-path",
        lambda v: edit(v, MANIFEST, '"entities/', '"/entities/', keep_hash=False),
        MANIFEST,
        "not a relative posix path",
    ),
    mutated(
        "manifest-bad-hash",
        lambda v: edit(v, MANIFEST, '": "', '": "zz', keep_hash=False),
        MANIFEST,
        "has no sha256 hex digest",
    ),
    mutated("manifest-unsorted", _unsort_manifest, MANIFEST, "not sorted"),
    mutated("manifest-not-indented", _compact_manifest, MANIFEST, "indent 2"),
    mutated(
        "manifest-pending",
        lambda v: write(v, ".kgvault/manifest.pending.json", "{}"),
        ".kgvault/manifest.pending.json",
        "interrupted",
    ),
    edited("marker-missing", FACT_PATH, MARKER + "\n", "", MARKER + "` is missing"),
    mutated("required-file-missing", lambda v: remove(v, "kgvault.base"), "kgvault.base", "missing"),
    mutated(
        "required-file-not-owned",
        lambda v: write_manifest(v, [p for p in manifest_files(v) if p != "index.md"]),
        "index.md",
        "not listed",
    ),
    mutated(
        "owned-page-outside-layout",
        lambda v: write(v, "misc/extra.md", f"Extra.\n{MARKER}\n", owned=True),
        "misc/extra.md",
        "outside the vault layout",
    ),
    mutated(
        "manifest-not-object", lambda v: (v / MANIFEST).write_text("[]\n"), MANIFEST, "must be a JSON object"
    ),
    edited(
        "manifest-extra-key",
        MANIFEST,
        '"version": 1',
        '"version": 1,\n  "built": "today"',
        "exactly the keys",
    ),
    # rule 1
    edited("frontmatter-not-at-byte-0", EPISODE_PATH, "---\nid:", "\n---\nid:", "byte 0"),
    edited("byte-order-mark", EPISODE_PATH, "---\nid:", "\ufeff---\nid:", "byte-order mark"),
    edited("crlf", FACT_PATH, "Marlin is an open", "Marlin is\r\nan open", "CR line"),
    edited("frontmatter-unclosed", ENDER_PATH, "---\n## Overview", "## Overview", "never closed"),
    edited("frontmatter-missing", ENDER_PATH, ENDER.split("## Overview")[0], "", "no frontmatter"),
    # rule 2
    edited("yaml-invalid", EPISODE_PATH, "language: en", "language: [en", "not valid YAML"),
    edited(
        "yaml-duplicate-key", EPISODE_PATH, "language: en", "language: en\nlanguage: fr", "duplicate property"
    ),
    edited("yaml-not-mapping", "ontology.md", ONTOLOGY_TITLE, "- Ontology", "YAML mapping"),
    edited("yaml-custom-tag", "ontology.md", ONTOLOGY_TITLE, "title: !secret Ontology", "YAML tag !secret"),
    edited(
        "frontmatter-close-without-newline",
        "ontology.md",
        ONTOLOGY,
        "---\ntitle: Ontology\n---",
        "must end with a newline",
    ),
    edited(
        "property-name-not-text", "ontology.md", ONTOLOGY_TITLE, ONTOLOGY_TITLE + "\n1: one", "plain text"
    ),
    # rule 3
    edited("nested-mapping", EPISODE_PATH, "language: en", "language:\n  code: en", "nested mapping"),
    edited("nested-list-item", ENDER_PATH, "  - Ender-3", "  - - Ender-3", "single values"),
    # rule 4 and the contract's list style
    edited("tags-string", FACT_PATH, "tags:\n  - 3d_printing/firmware", "tags: 3d_printing", "block list"),
    edited("aliases-flow-list", ENDER_PATH, "aliases:\n  - Ender-3", "aliases: [Ender-3]", "block list"),
    edited("list-not-indented", ENDER_PATH, "  - Ender-3", "- Ender-3", "two spaces"),
    edited("empty-list-as-null", MARLIN_PATH, "aliases: []", "aliases:", "no value"),
    edited("alias-not-text", ENDER_PATH, "  - Ender-3", "  - 3", "items must be text"),
    # rule 5
    edited("tag-hash", EPISODE_PATH, TAG, '  - "#ender_3"', "must not start with #"),
    edited("tag-space", EPISODE_PATH, TAG, "  - ender 3", "spaces"),
    edited("tag-digits", EPISODE_PATH, TAG, '  - "2025"', "all digits"),
    edited("tag-number", EPISODE_PATH, TAG, "  - 3", "all digits"),
    edited("tag-empty-segment", EPISODE_PATH, TAG, "  - printers//ender_3", "empty /-segment"),
    edited("tag-punctuation", EPISODE_PATH, TAG, "  - ender.3", "only letters"),
    edited("tag-uppercase", EPISODE_PATH, TAG, "  - Ender_3", "lowercase"),
    edited("tag-boolean", EPISODE_PATH, TAG, "  - yes", "must be text"),
    edited("summary-tag-missing", SUMMARY_PATH, "  - summary", "  - source", "contain `summary`"),
    # rule 6
    edited("date-unpadded", EPISODE_PATH, TIMESTAMP, "timestamp: 2025-3-12", "YYYY-MM-DD"),
    edited("date-european", EPISODE_PATH, TIMESTAMP, 'timestamp: "12/03/2025"', "YYYY-MM-DD"),
    edited(
        "date-impossible",
        SUMMARY_PATH,
        "reference_time: 2025-03-12",
        "reference_time: 2025-02-30",
        "YYYY-MM-DD",
    ),
    edited(
        "datetime-with-space",
        EPISODE_PATH,
        TIMESTAMP,
        TIMESTAMP + "\noccurred_at: 2025-03-12 10:00:00",
        "YYYY-MM-DDTHH:MM:SS",
    ),
    edited(
        "datetime-zoned",
        EPISODE_PATH,
        TIMESTAMP,
        TIMESTAMP + '\noccurred_at: "2025-03-12T10:00:00Z"',
        "YYYY-MM-DDTHH:MM:SS",
    ),
    edited(
        "date-other-property",
        "ontology.md",
        ONTOLOGY_TITLE,
        ONTOLOGY_TITLE + "\nupdated: 2025-02-30",
        "write dates as YYYY-MM-DD",
    ),
    edited(
        "datetime-other-property",
        "ontology.md",
        ONTOLOGY_TITLE,
        ONTOLOGY_TITLE + "\nupdated: 2025-03-12 10:00:00",
        "date-times as YYYY-MM-DDTHH:MM:SS",
    ),
    # rule 7
    mutated(
        "property-types-differ", _mix_property_types, "ontology.md", "one property name must have one type"
    ),
    edited(
        "property-type-vs-types-json",
        FACT_PATH,
        "importance: 3",
        'importance: "3"',
        "types.json declares number",
    ),
    # rule 8
    edited(
        "multi-line-plain",
        EPISODE_PATH,
        "title: Heating failed after",
        "title: Heating failed\n  after",
        "single-line",
    ),
    edited("block-scalar", ENDER_PATH, "description: A 3D", "description: >\n  A 3D", "single-line"),
    edited(
        "unquoted-property-link",
        EPISODE_PATH,
        "attributed_to: alex",
        "attributed_to: alex [[entities/marlin]]",
        "quoted strings",
    ),
    edited(
        "property-link-unresolved",
        EPISODE_PATH,
        '[[entities/marlin|Marlin]]"',
        '[[entities/prusa|Prusa]]"',
        "does not resolve",
    ),
    edited(
        "text-property-as-list",
        "ontology.md",
        ONTOLOGY_TITLE,
        "title:\n  - Ontology",
        "must be text, not a list",
    ),
    edited("empty-list-item", ENDER_PATH, "  - Ender-3", "  -", "has an empty item"),
    # node fields (DESIGN §3)
    edited(
        "node-missing-title",
        EPISODE_PATH,
        "title: Heating failed after the Marlin update\n",
        "",
        "`title` is missing",
    ),
    edited(
        "node-missing-source-input",
        FACT_PATH,
        f'source_input: "{SUMMARY_LINK}"\n',
        "",
        "`source_input` is missing",
    ),
    edited("episode-missing-timestamp", EPISODE_PATH, TIMESTAMP + "\n", "", "`timestamp` is missing"),
    edited(
        "node-unknown-property",
        FACT_PATH,
        "aliases: []",
        "aliases: []\nmood: happy",
        "`mood` is not a property",
    ),
    edited(
        "node-key-order",
        EPISODE_PATH,
        "confidence: high\norigin: stated",
        "origin: stated\nconfidence: high",
        "out of order",
    ),
    edited(
        "node-id-mismatch",
        FACT_PATH,
        "id: marlin-is-a-printer-firmware",
        "id: marlin-fact",
        "does not match the file name",
    ),
    edited("node-title-number", FACT_PATH, FACT_TITLE, "title: 2025", "`title` must be text"),
    edited("node-title-date", FACT_PATH, FACT_TITLE, "title: 2025-03-12", "`title` must be text"),
    edited(
        "node-layer-folder", FACT_PATH, "memory_layer: semantic", "memory_layer: episodic", "`memory_layer`"
    ),
    edited("episode-type", EPISODE_PATH, "type: observation", "type: fact", "`type` is 'fact'"),
    edited("episode-public", EPISODE_PATH, "sensitivity: private", "sensitivity: public", "'public'"),
    edited("fact-type", FACT_PATH, "type: fact", "type: observation", "`type` is 'observation'"),
    edited("fact-sensitivity", FACT_PATH, "sensitivity: public", "sensitivity: secret", "'secret'"),
    edited("confidence-enum", EPISODE_PATH, "confidence: high", "confidence: very", "`confidence` is 'very'"),
    edited("origin-enum", EPISODE_PATH, "origin: stated", "origin: guessed", "`origin` is 'guessed'"),
    edited(
        "fact-attributed",
        FACT_PATH,
        "confidence: medium",
        "attributed_to: alex\nconfidence: medium",
        "`attributed_to` is not a property of semantic nodes",
    ),
    edited(
        "valid-from-on-observation",
        EPISODE_PATH,
        "language: en",
        "language: en\nvalid_from: 2025-03-12",
        "type state only",
    ),
    mutated("valid-to-before-from", _state_ends_before_it_starts, EPISODE_PATH, "before `valid_from`"),
    edited("importance-range", FACT_PATH, "importance: 3", "importance: 7", "between 1 and 5"),
    edited("importance-not-number", FACT_PATH, "importance: 3", "importance: high", "whole number"),
    edited("null-property", EPISODE_PATH, "language: en", "language:", "no value"),
    edited("source-input-folder", FACT_PATH, SUMMARY_LINK, "[[entities/marlin|Marlin]]", "page in sources/"),
    edited(
        "entities-not-links", FACT_PATH, '  - "[[entities/marlin|Marlin]]"', "  - Marlin", "quoted wikilinks"
    ),
    edited(
        "node-links-folder",
        EPISODE_PATH,
        "[[semantic/marlin-is-a-printer-firmware|",
        "[[entities/marlin|",
        "page in episodic/ or semantic/",
    ),
    edited(
        "node-title-empty",
        EPISODE_PATH,
        "title: Heating failed after the Marlin update",
        'title: ""',
        "`title` is empty",
    ),
    # entity pages
    edited("entity-type", ENDER_PATH, "type: entity", "type: concept", "`type` is 'concept'"),
    edited(
        "entity-type-snake", ENDER_PATH, "entity_type: product", "entity_type: Product Line", "snake_case"
    ),
    edited(
        "entity-missing-description",
        ENDER_PATH,
        "description: A 3D printer made by Creality.\n",
        "",
        "`description` is missing",
    ),
    edited(
        "entity-unknown-property", ENDER_PATH, "aliases:", "tags: []\naliases:", "not a property of entity"
    ),
    edited(
        "entity-sources-form",
        ENDER_PATH,
        "printing/journal.md#L5-L5",
        "printing/journal.md:5",
        "is not `path#Lstart-Lend`",
    ),
    edited("entity-sources-range", ENDER_PATH, "#L5-L5", "#L5-L4", "empty line range"),
    edited(
        "entity-sources-absolute", ENDER_PATH, "  - printing/", "  - /home/alex/", "relative to the notes"
    ),
    edited("entity-no-overview", ENDER_PATH, "## Overview", "## About", "Overview"),
    edited(
        "entity-description-empty",
        ENDER_PATH,
        "description: A 3D printer made by Creality.",
        "description: ''",
        "`description` is empty",
    ),
    edited(
        "entity-sources-number",
        ENDER_PATH,
        "  - printing/journal.md#L5-L5",
        "  - 5",
        "`sources` items must be",
    ),
    # summary pages and their coverage table
    edited("summary-type", SUMMARY_PATH, "type: summary", "type: source", "`type` is 'source'"),
    edited(
        "summary-missing-source-document",
        SUMMARY_PATH,
        "source_document: printing/journal.md\n",
        "",
        "`source_document` is missing",
    ),
    edited(
        "summary-source-document-escapes",
        SUMMARY_PATH,
        "source_document: printing/",
        "source_document: ../",
        "must be a path relative",
    ),
    edited(
        "coverage-missing", SUMMARY_PATH, "| lines | result |", "| range | outcome |", "no coverage table"
    ),
    edited("coverage-no-delimiter", SUMMARY_PATH, "| --- | --- |\n| 1-3", "| 1-3", "delimiter row"),
    edited("coverage-bad-range", SUMMARY_PATH, "| 4-4 |", "| four |", "not `start-end`"),
    edited("coverage-reversed-range", SUMMARY_PATH, "| 4-4 |", "| 4-2 |", "empty or starts before line 1"),
    edited(
        "coverage-three-cells", SUMMARY_PATH, "| 7-7 | small talk |", "| 7-7 | small | talk |", "two cells"
    ),
    edited(
        "coverage-no-result", SUMMARY_PATH, "| 7-7 | small talk |", "| 7-7 | |", "what its lines produced"
    ),
    edited("coverage-overlap", SUMMARY_PATH, "| 4-4 |", "| 3-4 |", "overlaps"),
    edited(
        "summary-unknown-property", SUMMARY_PATH, "tags:", "aliases: []\ntags:", "not a property of summary"
    ),
    # rule 11
    edited("link-unresolved", "index.md", "[[entities/ender-3|", "[[entities/ender-4|", "does not resolve"),
    edited("link-bare-alias", "index.md", "[[entities/marlin|Marlin]]", "[[Marlin]]", "does not resolve"),
    edited(
        "link-in-table",
        SUMMARY_PATH,
        "| [[episodic/heating-failed-after-marlin-update",
        "| [[episodic/heating",
        "does not resolve",
    ),
    edited(
        "embed-unresolved",
        "index.md",
        "## Top entities",
        "![[entities/marlin.png]]\n## Top entities",
        "does not resolve",
    ),
    # rule 12
    edited("table-pipe-unescaped", ENDER_PATH, TABLE_LINK, "[[entities/marlin|Marlin]]", "escape its pipe"),
    # rule 13
    edited("block-id", FACT_PATH, "^marlin-fact", "^marlin_fact", "block id"),
    edited("block-ref-link", FACT_PATH, "#Coverage|", "#^cover_age|", "block reference"),
    # rule 14
    relations(
        "relation-not-compact", json.dumps(json.loads(RELATION), ensure_ascii=False), fragment="compact"
    ),
    relations(
        "relation-ascii-escaped",
        relation(statement="Läuft mit Marlin.").replace("ä", "\\u00e4"),
        fragment="non-ASCII",
    ),
    relations("relation-key-order", relation(order=("relation",)), fragment="keys must be exactly"),
    relations("relation-key-missing", relation(drop="invalid_at"), fragment="keys must be exactly"),
    relations("relation-not-json", "{from: ender-3}", fragment="not valid JSON"),
    relations("relation-blank-line", RELATION, "", fragment="not valid JSON"),
    relations("relation-unknown-entity", relation(to="prusa"), fragment="no page entities/prusa.md"),
    relations("relation-self-loop", relation(to="ender-3"), fragment="same entity"),
    relations("relation-not-snake", relation(relation="runsFirmware"), fragment="snake_case"),
    relations("relation-empty-label", relation(label=""), fragment="`label` must be"),
    relations("relation-empty-statement", relation(statement=" "), fragment="`statement` must be"),
    relations("relation-confidence-high", relation(confidence=1.5), fragment="[0, 1]"),
    relations("relation-confidence-text", relation(confidence="high"), fragment="[0, 1]"),
    relations("relation-valid-at", relation(valid_at="12 March 2025"), fragment="YYYY-MM-DD"),
    relations("relation-invalid-at", relation(invalid_at="2025-03-12T10:00:00"), fragment="YYYY-MM-DD"),
    relations(
        "relation-invalid-before-valid", relation(invalid_at="2025-03-01"), fragment="before `valid_at`"
    ),
    relations("relation-evidence-empty", relation(evidence=[]), fragment="non-empty list"),
    relations(
        "relation-evidence-form", relation(evidence=["printing/journal.md"]), fragment="is not `path#Lstart"
    ),
    relations("relation-array", "[1, 2]", fragment="one JSON object"),
    relations("relation-from-number", relation(from_=3), fragment="`from` must be an entity id"),
    relations("relation-evidence-number", relation(evidence=[5]), fragment="must be a string"),
    relations(
        "relation-evidence-escapes", relation(evidence=["../x.md#L1-L1"]), fragment="relative to the notes"
    ),
    relations(
        "relation-unsorted",
        relation(from_="marlin", relation="runs_on", label="runs on", to="ender-3"),
        RELATION,
        fragment="not sorted",
    ),
    relations("relation-duplicate", RELATION, RELATION, fragment="duplicate triple"),
    relations(
        "relation-two-labels",
        RELATION,
        relation(from_="marlin", to="ender-3", label="uses firmware"),
        fragment="has label",
    ),
    edited("relation-no-newline", "relations.jsonl", "]}\n", "]}", "newline"),
    edited("relation-outgoing-link", ENDER_PATH, TABLE_LINK, "Marlin", "outgoing relation `runs_firmware`"),
    edited(
        "relation-incoming-link",
        MARLIN_PATH,
        "[[entities/ender-3|Ender 3]]",
        "Ender 3",
        "incoming relation `runs_firmware`",
    ),
    # rules 9-10: names, the user's files included
    user_file("name-colon", "journal/Idea: printing.md", "contains :"),
    user_file("name-hash-folder", "tags#old/note.md", "contains #", on="tags#old"),
    user_file("name-reserved", "journal/con.md", "reserved"),
    user_file("name-reserved-extension", "aux.tar.gz", "reserved"),
    user_file("name-com-port", "COM1", "reserved"),
    user_file("name-trailing-dot", "drafts./note.md", "ends with", on="drafts."),
    user_file("name-trailing-space", "note .md ", "ends with"),
    user_file("name-control-char", "bell\x07.md", "control"),
    user_file("name-not-nfc", "cafe\u0301.md", "NFC"),
    user_file("name-too-long", "é" * 101 + ".md", "200 UTF-8 bytes"),
    user_file("basename-collision", "journal/Marlin.md", "not unique"),
    user_file("basename-collision-owned", "journal/Marlin.md", "not unique", on=MARLIN_PATH),
    user_file("basename-reserved-index", "journal/INDEX.md", "not unique", on="index.md"),
    # rule 15
    mutated(
        "obsidian-workspace",
        lambda v: write(v, ".obsidian/workspace.json", "{}\n", owned=True),
        ".obsidian/workspace.json",
        "workspace",
    ),
    edited("obsidian-types-invalid", ".obsidian/types.json", '"number"', '"integer"', "property types"),
    edited("obsidian-json-invalid", ".obsidian/types.json", "{", "{{", "not valid JSON"),
    mutated(
        "obsidian-json-not-object",
        lambda v: write(v, ".obsidian/types.json", "[]\n"),
        ".obsidian/types.json",
        "must be a JSON object",
    ),
    # rule 16
    edited("base-invalid-yaml", "kgvault.base", "name: Facts", "name: [Facts", "not valid YAML"),
    edited("base-not-mapping", "kgvault.base", "views:", "- views:", "YAML mapping"),
    edited(
        "base-unknown-key",
        "kgvault.base",
        "views:",
        "sortBy: title\nviews:",
        "unknown top-level key `sortBy`",
    ),
    edited("base-views-not-list", "kgvault.base", BASE, "views: every page\n", "`views` must be a list"),
    edited("base-view-type", "kgvault.base", "type: cards", "type: grid", "`type` must be one of"),
    edited("base-view-name", "kgvault.base", "    name: Facts\n", "", "needs a `name`"),
    edited(
        "base-view-key",
        "kgvault.base",
        "    name: Facts",
        "    name: Facts\n    colour: red",
        "unknown key `colour`",
    ),
    edited("base-filter", "kgvault.base", "      and:", "      any:", "and/or/not"),
    edited(
        "base-filter-list",
        "kgvault.base",
        '      and:\n        - file.inFolder("episodic")',
        '      and: file.inFolder("episodic")',
        "must hold a list",
    ),
    edited("base-formulas", "kgvault.base", "views:", "formulas:\n  age: 3\nviews:", "formula"),
    edited("base-order", "kgvault.base", "      - file.name", "      - order: file.name", "`order`"),
    edited("base-sort", "kgvault.base", "direction: DESC", "direction: down", "`sort`"),
    edited("base-group-by", "kgvault.base", "property: entity_type", "field: entity_type", "`groupBy`"),
    edited("base-limit", "kgvault.base", "    name: Facts", "    name: Facts\n    limit: -1", "`limit`"),
    edited(
        "base-properties",
        "kgvault.base",
        "views:",
        "properties: title\nviews:",
        "`properties` must be a mapping",
    ),
    edited("base-view-not-mapping", "kgvault.base", BASE, "views:\n  - table\n", "view 1 must be a mapping"),
    # rule 17
    canvas("canvas-file-missing", lambda c: c["nodes"][0].update(file="entities/prusa.md"), "does not exist"),
    canvas("canvas-file-without-path", lambda c: c["nodes"][0].pop("file"), "needs `file`"),
    canvas("canvas-edge-end", lambda c: c["edges"][0].update(toNode="z"), "not a node"),
    canvas("canvas-float-position", lambda c: c["nodes"][1].update(x=1.5), "`x` must be an integer"),
    canvas("canvas-duplicate-id", lambda c: c["nodes"][1].update(id="a"), "not unique"),
    canvas("canvas-node-type", lambda c: c["nodes"][1].update(type="note"), "`type` must be"),
    canvas("canvas-no-id", lambda c: c["edges"][0].pop("id"), "string `id`"),
    canvas("canvas-side", lambda c: c["edges"][0].update(fromSide="middle"), "`fromSide`"),
    canvas("canvas-label", lambda c: c["edges"][0].update(label=3), "`label` must be text"),
    edited("canvas-not-json", "overview.canvas", "{", "{{", "not valid JSON"),
    edited("canvas-not-object", "overview.canvas", json.dumps(CANVAS, indent=2), "[]", "JSON Canvas object"),
    edited(
        "canvas-nodes-not-list",
        "overview.canvas",
        json.dumps(CANVAS, indent=2),
        '{"nodes": {}}',
        "must be lists",
    ),
]


@pytest.mark.parametrize(("mutate", "path", "fragment"), CASES)
def test_single_defect_is_reported(
    vault: Path, notes: Path, mutate: Mutation, path: str, fragment: str
) -> None:
    mutate(vault)
    assert_reported(check_vault(vault, notes=notes), path, fragment)


# -- with the notes folder: coverage and evidence ----------------------------------------------


def _append_to_note(vault: Path, notes: Path) -> None:
    (notes / "printing/journal.md").write_text(NOTES["printing/journal.md"] + "More.\n", encoding="utf-8")


NOTES_CASES = [
    pytest.param(
        _append_to_note,
        SUMMARY_PATH,
        "lines 8-8 of printing/journal.md are in no coverage range",
        id="uncovered-line",
    ),
    pytest.param(
        lambda v, n: edit(v, SUMMARY_PATH, "| 7-7 | small talk |\n", ""),
        SUMMARY_PATH,
        "lines 7-7",
        id="uncovered-row",
    ),
    pytest.param(
        lambda v, n: edit(v, SUMMARY_PATH, "| 7-7 |", "| 7-9 |"),
        SUMMARY_PATH,
        "ends after the last line (7)",
        id="coverage-past-end",
    ),
    pytest.param(
        lambda v, n: (n / "printing/journal.md").unlink(),
        SUMMARY_PATH,
        "not found",
        id="source-document-missing",
    ),
    pytest.param(
        lambda v, n: edit(v, "relations.jsonl", "#L5-L5", "#L5-L50"),
        "relations.jsonl",
        "ends after the last line (7)",
        id="evidence-past-end",
    ),
    pytest.param(
        lambda v, n: edit(v, ENDER_PATH, "printing/journal.md#", "printing/other.md#"),
        ENDER_PATH,
        "no file printing/other.md",
        id="evidence-file-missing",
    ),
    pytest.param(
        lambda v, n: (v / ".kgvault/drafts/mnemon.json").unlink(),
        MARLIN_PATH,
        "no file .kgvault/drafts/mnemon.json",
        id="pointer-evidence-file-missing",
    ),
]


@pytest.mark.parametrize(("mutate", "path", "fragment"), NOTES_CASES)
def test_notes_defect_is_reported(
    vault: Path, notes: Path, mutate: Callable[[Path, Path], object], path: str, fragment: str
) -> None:
    mutate(vault, notes)
    assert_reported(check_vault(vault, notes=notes), path, fragment)


def test_frontmatter_lines_of_the_source_need_no_coverage(vault: Path, notes: Path) -> None:
    edit(vault, SUMMARY_PATH, "| 1-3 | structural: frontmatter |\n", "")
    assert check_vault(vault, notes=notes) == []


def test_summary_of_an_imported_draft_reads_it_from_the_vault(vault: Path, notes: Path) -> None:
    write(vault, ".kgvault/drafts/agent.md", "# Draft\nOne line.\n")
    edit(
        vault,
        SUMMARY_PATH,
        "source_document: printing/journal.md",
        "source_document: .kgvault/drafts/agent.md",
    )
    edit(vault, SUMMARY_PATH, "| 1-3 | structural: frontmatter |\n", "")
    edit(vault, SUMMARY_PATH, "| 4-4 | structural: heading |", "| 1-1 | structural: heading |")
    edit(vault, SUMMARY_PATH, "| 5-5 |", "| 2-2 |")
    edit(vault, SUMMARY_PATH, "| 7-7 | small talk |\n", "")
    assert check_vault(vault, notes=notes) == []
    edit(vault, SUMMARY_PATH, "| 2-2 |", "| 2-3 |")
    assert_reported(check_vault(vault, notes=notes), SUMMARY_PATH, "ends after the last line (2)")


# -- inside an existing Obsidian vault ---------------------------------------------------------


@pytest.fixture
def nested(tmp_path: Path) -> Path:
    (tmp_path / "MyVault" / ".obsidian").mkdir(parents=True)
    return build_vault(tmp_path / "MyVault", prefix="kg/")


def test_nested_vault_links_are_relative_to_the_enclosing_vault(nested: Path) -> None:
    edit(nested, "index.md", "[[kg/entities/marlin|Marlin]]", "[[entities/marlin|Marlin]]")
    assert_reported(check_vault(nested), "index.md", "relative to the enclosing Obsidian vault")


def test_nested_vault_relation_links_carry_the_prefix(nested: Path) -> None:
    edit(nested, ENDER_PATH, "[[kg/entities/marlin\\|Marlin]]", "[[entities/marlin\\|Marlin]]")
    assert_reported(check_vault(nested), ENDER_PATH, "no body wikilink to kg/entities/marlin")


def test_nested_vault_basenames_are_unique_across_the_enclosing_vault(nested: Path) -> None:
    (nested.parent / "People").mkdir()
    (nested.parent / "People" / "marlin.md").write_text("A person called Marlin.\n", encoding="utf-8")
    problems = check_vault(nested)
    assert_reported(problems, MARLIN_PATH, "People/marlin.md")
    assert all(p.path != "../People/marlin.md" for p in problems)


def test_nested_vault_must_not_own_obsidian_settings(nested: Path) -> None:
    write(nested, ".obsidian/types.json", json.dumps(TYPES), owned=True)
    assert_reported(check_vault(nested), ".obsidian/types.json", "must not create .obsidian/")


# -- robustness --------------------------------------------------------------------------------


def test_missing_notes_folder_is_one_problem(vault: Path, tmp_path: Path) -> None:
    problems = check_vault(vault, notes=tmp_path / "elsewhere")
    assert [p.path for p in problems] == ["."]
    assert "notes folder" in problems[0].message


def test_missing_vault_is_a_problem(tmp_path: Path) -> None:
    assert check_vault(tmp_path / "nowhere") == [
        Problem(".", None, f"vault folder {tmp_path / 'nowhere'} not found")
    ]


def test_empty_folder_reports_missing_contract_files(tmp_path: Path) -> None:
    problems = check_vault(tmp_path)
    for path in (MANIFEST, "index.md", "ontology.md", "relations.jsonl", "kgvault.base"):
        assert_reported(problems, path, "missing")


def test_vault_without_manifest_is_still_checked_by_layout(vault: Path) -> None:
    (vault / MANIFEST).unlink()
    edit(vault, EPISODE_PATH, "type: observation", "type: fact", keep_hash=False)
    assert_reported(check_vault(vault), EPISODE_PATH, "`type` is 'fact'")


def test_broken_files_never_raise(vault: Path) -> None:
    (vault / EPISODE_PATH).write_bytes(b"---\nid: \xff\xfe\n---\n")
    (vault / FACT_PATH).write_bytes(b"---\n: : :\n\t- [\n---\n" + MARKER.encode() + b"\n")
    (vault / ENDER_PATH).write_text("---\n- a\n- b\n---\n", encoding="utf-8")
    (vault / MARLIN_PATH).write_text("---\n---\n```\n[[x]]\n", encoding="utf-8")
    (vault / SUMMARY_PATH).write_text("---\ntitle: !!python/object:os.system x\n---\n", encoding="utf-8")
    (vault / "relations.jsonl").write_text("[1, 2]\n\nnull\n{}\n", encoding="utf-8")
    (vault / "kgvault.base").write_text("views: 3\nfilters: {and: 3}\n", encoding="utf-8")
    (vault / "overview.canvas").write_text('{"nodes": [1, {"id": 2}], "edges": "x"}', encoding="utf-8")
    (vault / ".obsidian/types.json").write_text("[]", encoding="utf-8")
    (vault / "sources").rename(vault / "gone")
    problems = check_vault(vault, notes=vault / "no-notes")
    assert {p.path for p in problems} >= {
        EPISODE_PATH,
        FACT_PATH,
        ENDER_PATH,
        SUMMARY_PATH,
        "relations.jsonl",
    }
    assert_reported(problems, EPISODE_PATH, "not valid UTF-8")


def test_unexpected_value_types_never_raise(vault: Path) -> None:
    (vault / "kgvault.base").write_text(
        "views:\n  - type: [table]\n    name: [x]\n"
        "    sort:\n      - property: p\n        direction: [ASC]\n",
        encoding="utf-8",
    )
    canvas = {"nodes": [{"id": "a", "type": ["file"], "file": 3}], "edges": [{"id": "e", "fromNode": ["a"]}]}
    (vault / "overview.canvas").write_text(json.dumps(canvas), encoding="utf-8")
    (vault / ".obsidian/types.json").write_text('{"types": {"title": ["text"]}}', encoding="utf-8")
    (vault / "relations.jsonl").write_text(relation(from_=["x"], to={"a": 1}, evidence="e") + "\n")
    (vault / EPISODE_PATH).write_text("---\nimportance: 0x1F\ntype: [a]\nid: {a: 1}\n---\n" + MARKER + "\n")
    problems = check_vault(vault)
    assert not [p for p in problems if "could not be checked" in p.message], show(problems)
    for path in ("kgvault.base", "overview.canvas", ".obsidian/types.json", "relations.jsonl", EPISODE_PATH):
        assert any(p.path == path for p in problems), path


def test_unreadable_owned_file_is_a_problem(vault: Path) -> None:
    (vault / "kgvault.base").unlink()
    (vault / "kgvault.base").symlink_to("kgvault.base")  # a symlink loop: open() fails with ELOOP
    assert_reported(check_vault(vault), "kgvault.base", "unreadable")


def test_conversation_summary_needs_its_export(vault: Path, notes: Path) -> None:
    edit(vault, SUMMARY_PATH, "source_document: printing/journal.md", "source_document: chats/export.json#/0")
    assert_reported(check_vault(vault, notes=notes), SUMMARY_PATH, "chats/export.json#/0 not found")
    (notes / "chats").mkdir()
    (notes / "chats/export.json").write_text("[]", encoding="utf-8")
    assert check_vault(vault, notes=notes) == []


def test_user_files_are_checked_for_names_only(vault: Path) -> None:
    write(vault, "entities/my-own.md", "---\ntype: entity\ntags: Not a list\n---\n[[Nowhere]]\n")
    assert check_vault(vault) == []


def test_hidden_folders_are_ignored(vault: Path) -> None:
    write(vault, ".trash/marlin.md", "deleted\n")
    write(vault, ".git/objects/ab:cd", "x")
    assert check_vault(vault) == []


def test_many_pages_are_checked_in_linear_work(vault: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    count = 3000
    links = []
    for number in range(count):
        page_id = f"fact-{number:05d}"
        text = FACT.replace("marlin-is-a-printer-firmware", page_id).replace(" ^marlin-fact", "")
        write(vault, f"semantic/{page_id}.md", text)
        links.append(f"- [[semantic/{page_id}|Fact {number}]]\n")
    write(vault, "index.md", INDEX.replace("## Top entities", "".join(links) + "\n## Top entities"))
    write_manifest(vault, [*manifest_files(vault), *(f"semantic/fact-{n:05d}.md" for n in range(count))])
    opened: list[str] = []
    looked_up: list[str] = []
    real_open, real_lookup = builtins.open, check_module._VaultChecker._exists_on_disk

    def counting_open(file, *args, **kwargs):  # type: ignore[no-untyped-def]
        opened.append(str(file))
        return real_open(file, *args, **kwargs)

    def counting_lookup(self, target):  # type: ignore[no-untyped-def]
        looked_up.append(target)
        return real_lookup(self, target)

    monkeypatch.setattr(builtins, "open", counting_open)
    monkeypatch.setattr(check_module._VaultChecker, "_exists_on_disk", counting_lookup)
    problems = check_vault(vault)
    assert problems == [], show(problems[:20])
    # Linear work: every page opened once, every link found among the files walked, none on disk.
    pages = [path for path in opened if path.endswith(".md")]
    assert len(pages) == len(set(pages)) and len(pages) >= count
    assert looked_up == []
