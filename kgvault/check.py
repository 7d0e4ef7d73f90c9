"""Check a built vault against the vault contract (DESIGN §3) and Obsidian's rules (OBSIDIAN.md 1-17).

The checker reads every file once and never raises on a broken vault: each defect
becomes a `Problem` whose path is relative to the vault. Pages kgvault owns (those in
`.kgvault/manifest.json`) are checked for fields, links and their generated part; the
user's own files only for the rules that concern the whole vault (names, basenames).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import re
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any

import yaml

from kgvault.layout import MANIFEST, MARKER, PENDING_MANIFEST, TABLE_DELIMITER
from kgvault.names import is_word_char
from kgvault.records import Evidence, Problem
from kgvault.sensitivity import RANK, Tainted, above, label_predicate, predicate_sensitivity
from kgvault.sources import decode_text

"""The line that ends the generated part of every page kgvault writes."""
REQUIRED_FILES = ("index.md", "ontology.md", "relations.jsonl", "kgvault.base")
RELATIONS = "relations.jsonl"
RELATION_KEYS = (
    "from", "relation", "label", "to", "statement", "confidence", "valid_at", "invalid_at", "evidence",
)  # fmt: skip

# libyaml is about fifteen times faster than pure Python, which keeps 20,000 pages in seconds.
_YAML_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

_TAG_PREFIX = "tag:yaml.org,2002:"
_STR, _INT, _FLOAT = _TAG_PREFIX + "str", _TAG_PREFIX + "int", _TAG_PREFIX + "float"
_BOOL, _NULL, _TIMESTAMP = _TAG_PREFIX + "bool", _TAG_PREFIX + "null", _TAG_PREFIX + "timestamp"
_SCALAR_TAGS = frozenset({_STR, _INT, _FLOAT, _BOOL, _NULL, _TIMESTAMP})

_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_DATETIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}")
_SHA256 = re.compile(r"[0-9a-f]{64}")
_SNAKE_CASE = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)*")
_WIKILINK = re.compile(r"!?\[\[([^\[\]\n]*)\]\]")
_PROPERTY_LINK = re.compile(r"\[\[([^\[\]|#]+)(#[^\[\]|]*)?(\|[^\[\]]*)?\]\]")
_UNESCAPED_PIPE = re.compile(r"(?<!\\)\|")
_ALIAS_PIPE = re.compile(r"\\?\|")
_PIPE = re.compile(r"\|")
# Source file names may hold `#` and line breaks: the reference is whatever follows the last `#L`, or,
# after a JSON file's name, a `#/` pointer (a folder `x#` holds `x#/a.md`, a path, not file + pointer).
_LINE_EVIDENCE = re.compile(r"(?P<path>.+)#L(?P<start>\d+)-L(?P<end>\d+)", re.DOTALL)
# kgvault writes pointers in their URI fragment form (RFC 6901 section 6): nothing but these characters
# and %XX escapes, so a `|`, a line break or a backtick in a key never reaches a table, a line or a span.
_POINTER = re.compile(r"(?:/(?:[A-Za-z0-9._~!$&'()*+,;=:@-]|%[0-9A-Fa-f]{2})*)+")
_POINTER_EVIDENCE = re.compile(rf"(?P<path>.+?\.(?i:jsonl?))#(?P<pointer>{_POINTER.pattern})", re.DOTALL)
_BLOCK_ID = re.compile(r"(?:^|\s)\^([\w-]+)$")
_VALID_BLOCK_ID = re.compile(r"[A-Za-z0-9-]+")
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
_BACKTICKS = re.compile(r"`+")
_LINE_RANGE = re.compile(r"(\d+)-(\d+)")

_FORBIDDEN_NAME_CHARS = frozenset('/\\:*?"<>|#^[]%')
_RESERVED_NAMES = frozenset(
    {"CON", "PRN", "AUX", "NUL"} | {f"COM{i}" for i in range(1, 10)} | {f"LPT{i}" for i in range(1, 10)}
)
_MAX_NAME_BYTES = 200

# Node properties in the order DESIGN §3 fixes; `occurred_at` has no place in that list, so any is accepted.
_NODE_ORDER = (
    "id", "memory_layer", "type", "title", "tags", "timestamp", "sensitivity", "attributed_to",
    "confidence", "origin", "source_input", "language", "valid_from", "valid_to", "entities",
    "superseded_by", "conflicts_with", "derived_from", "causes", "precedes", "related_to",
    "importance", "aliases",
)  # fmt: skip
_NODE_LINK_FIELDS = ("superseded_by", "conflicts_with", "derived_from", "causes", "precedes", "related_to")
_NODE_REQUIRED = (
    "id", "memory_layer", "type", "title", "tags", "sensitivity", "confidence", "origin", "source_input",
)  # fmt: skip
_EPISODIC_KEYS = frozenset(_NODE_ORDER) | {"occurred_at"}
_SEMANTIC_KEYS = _EPISODIC_KEYS - {"attributed_to", "valid_from", "valid_to"}
_ENTITY_KEYS = ("type", "id", "title", "entity_type", "description", "aliases", "sources")
_SUMMARY_KEYS = ("type", "id", "title", "source_document", "reference_time", "tags")
_SUMMARY_REQUIRED = ("type", "id", "title", "source_document", "tags")
_NODE_ENUMS: dict[str, dict[str, frozenset[str]]] = {
    "episodic": {
        "type": frozenset({"observation", "decision", "state"}),
        "sensitivity": frozenset({"private", "confidential"}),
    },
    "semantic": {
        "type": frozenset({"fact", "concept", "procedure"}),
        "sensitivity": frozenset({"public", "private", "confidential"}),
    },
}
_SHARED_ENUMS = {
    "confidence": frozenset({"low", "medium", "high"}),
    "origin": frozenset({"stated", "inferred"}),
}

# The YAML shape each known property must have, on every page kgvault owns.
_FIELD_SHAPES = {
    **dict.fromkeys(
        ("id", "memory_layer", "type", "title", "sensitivity", "attributed_to", "confidence", "origin",
         "source_input", "language", "entity_type", "description", "source_document"),
        "text",
    ),
    **dict.fromkeys(("timestamp", "valid_from", "valid_to", "reference_time"), "date"),
    "occurred_at": "datetime",
    "importance": "integer",
    **dict.fromkeys(
        ("tags", "aliases", "cssclasses", "entities", "sources", *_NODE_LINK_FIELDS), "list"
    ),
}  # fmt: skip
_TEXT_LISTS = frozenset({"aliases", "cssclasses"})
_LINK_LIST_FOLDERS = {
    "entities": ("entities",),
    **dict.fromkeys(_NODE_LINK_FIELDS, ("episodic", "semantic")),
}

# Which value kinds each Obsidian property type (`.obsidian/types.json`) displays correctly.
_COMPATIBLE_KINDS = {
    "text": frozenset({"text", "date", "datetime"}),
    "multitext": frozenset({"list"}),
    "tags": frozenset({"list"}),
    "aliases": frozenset({"list"}),
    "number": frozenset({"number"}),
    "checkbox": frozenset({"checkbox"}),
    "date": frozenset({"date"}),
    "datetime": frozenset({"datetime"}),
}

_BASE_KEYS = frozenset({"filters", "formulas", "properties", "views"})
_BASE_VIEW_KEYS = frozenset({"type", "name", "filters", "order", "sort", "groupBy", "limit"})
_BASE_VIEW_TYPES = frozenset({"table", "cards", "list", "map"})
_BASE_DIRECTIONS = frozenset({"ASC", "DESC"})
_CANVAS_NODE_TYPES = frozenset({"text", "file", "link", "group"})
_CANVAS_SIDES = frozenset({"top", "right", "bottom", "left"})
_CANVAS_ENDS = frozenset({"none", "arrow"})

_PAGE_FOLDERS = {"episodic": "episodic", "semantic": "semantic", "entities": "entity", "sources": "summary"}


SENSITIVITY_LEVELS = ("public", "private", "confidential")


def check_vault(
    vault: Path, *, notes: Path | None = None, max_sensitivity: str | None = None
) -> list[Problem]:
    """Check a built vault against the vault contract and Obsidian's rules; return every problem, sorted.

    With `max_sensitivity`, a node page or a relation above that level is a problem too: the proof
    that a vault built to be shared (`build --max-sensitivity`) holds nothing more private.
    """
    root = Path(vault)
    if not root.is_dir():
        return [Problem(".", None, f"vault folder {root} not found")]
    problems = []
    if notes is not None and not Path(notes).is_dir():
        problems.append(
            Problem(".", None, f"notes folder {notes} not found; coverage and evidence not checked")
        )
        notes = None
    checker = _VaultChecker(root.resolve(), Path(notes).resolve() if notes is not None else None)
    checker.run()
    problems.extend(checker.problems)
    if max_sensitivity is not None:
        problems.extend(_above(root, max_sensitivity, notes))
    return sorted(set(problems), key=lambda p: (p.path, p.line or 0, p.message))


def check_written(vault: Path, paths: Iterable[str]) -> list[Problem]:
    """Check these files kgvault just wrote, each on its own (its frontmatter, its kind's fields,
    its links, a `.base` file's views): the rules that need the whole vault are `check_vault`'s."""
    checker = _VaultChecker(Path(vault).resolve(), None)
    checker.has_manifest = False
    for path in sorted(paths):
        checker.owned[path] = None  # just written: no hand edit to look for
        try:
            checker._check_owned_file(path)
        except Exception as exc:  # a checker bug must not fail a build
            checker.report(path, None, f"could not be checked ({type(exc).__name__}: {exc})")
    return sorted(set(checker.problems), key=lambda p: (p.path, p.line or 0, p.message))


_SENSITIVITY_LINE = re.compile(r"^sensitivity:[ \t]*(\S+)[ \t]*$", re.MULTILINE)


def _above(vault: Path, level: str, notes: Path | None) -> list[Problem]:
    """Node pages, relations and relation lines of pages that reveal more than `level`."""
    return [*_nodes_above(vault, level), *_relations_above(vault, level, notes), *_lines_above(vault, level)]


def _nodes_above(vault: Path, level: str) -> list[Problem]:
    """Node pages whose sensitivity is above `level`."""
    allowed = SENSITIVITY_LEVELS[: SENSITIVITY_LEVELS.index(level) + 1]
    problems = []
    for folder in ("episodic", "semantic"):
        for page in sorted((vault / folder).glob("*.md")):
            try:
                head = page.read_text("utf-8").split("\n---\n", 1)[0]
            except (OSError, UnicodeDecodeError):
                continue
            found = _SENSITIVITY_LINE.search(head)
            if found is not None and found.group(1).strip("'\"") not in allowed:
                line = head.count("\n", 0, found.start()) + 1
                rel = page.relative_to(vault).as_posix()
                problems.append(
                    Problem(
                        rel,
                        line,
                        f"sensitivity {found.group(1)} is above {level}, the most this vault may hold",
                    )
                )
    return problems


def _relations_above(vault: Path, level: str, notes: Path | None) -> list[Problem]:
    """Lines of relations.jsonl that reveal more than `level` (docs/security.md, "Sharing a vault"):
    by their predicate (`takes`, `child_of`), by citing lines that gave such a relation too, or (with
    the notes) by citing a note whose `sensitivity:` floor is above the level."""
    try:
        text = (vault / RELATIONS).read_text("utf-8")
    except (OSError, UnicodeDecodeError):
        return []
    edges = []
    for number, line in enumerate(text.split("\n"), start=1):
        try:
            edge = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(edge, dict) and isinstance(edge.get("relation"), str):
            refs = edge["evidence"] if isinstance(edge.get("evidence"), list) else []
            cited = [e for ref in refs if isinstance(ref, str) and (e := _evidence(ref)) is not None]
            edges.append((number, edge, predicate_sensitivity(edge["relation"]), cited))
    # A note's properties each say one thing (as `share.restrict` reads them): a private `spouse:` takes no
    # other property with it. A range from a file's first line is its properties' (or its whole text's).
    told = Tainted(
        e
        for _, _, sensitivity, cited in edges
        if above(sensitivity, level)
        for e in cited
        if e.pointer is not None or e.line_start > 1
    )
    floors: dict[str, str | None] = {}
    problems = []
    for number, edge, sensitivity, cited in edges:
        name = f"relation `{edge['relation']}` ({edge.get('from')} → {edge.get('to')})"
        floor = max(
            (f for e in cited if (f := _floor(notes, e.file(), floors)) is not None),
            key=RANK.__getitem__,
            default=None,
        )
        if above(sensitivity, level):
            why = f"is {sensitivity} by its predicate"
        elif any(told.holds(e) for e in cited):
            why = "cites lines that gave a private relation too"
        elif floor is not None and above(floor, level):
            why = f"cites a note marked `sensitivity: {floor}`"
        else:
            continue
        problems.append(
            Problem(RELATIONS, number, f"{name} {why}: above {level}, the most this vault may hold")
        )
    return problems


def _evidence(ref: str) -> Evidence | None:
    """A `path#Lstart-Lend` or `file#/pointer` reference as evidence, to compare places."""
    lines = _LINE_EVIDENCE.fullmatch(ref)
    if lines is not None:
        return Evidence(lines.group("path"), int(lines.group("start")), int(lines.group("end")))
    pointer = _POINTER_EVIDENCE.fullmatch(ref)
    if pointer is not None:
        return Evidence(pointer.group("path"), 0, 0, pointer.group("pointer"))
    return None


def _floor(notes: Path | None, path: str, floors: dict[str, str | None]) -> str | None:
    """The `sensitivity:` a note's frontmatter sets (`private`, `confidential`), read once per note."""
    if notes is None or not _is_relative_posix(path):
        return None
    if path not in floors:
        floors[path] = None
        try:
            text = decode_text(path, (notes / path).read_bytes(), [])
        except OSError:
            text = None
        lines = (text or "").split("\n")
        if lines[0].strip() == "---":
            end = next((i for i, line in enumerate(lines[1:], start=1) if line.strip() in ("---", "...")), 0)
            found = _SENSITIVITY_LINE.search("\n".join(lines[1:end]))
            value = found.group(1).strip("'\"").lower() if found is not None else ""
            floors[path] = value if value in ("private", "confidential") else None
    return floors[path]


_RELATIONS_HEADING = "## Relations"


def _lines_above(vault: Path, level: str) -> list[Problem]:
    """Relation lines of entity and node pages whose label reads a predicate above `level`:
    "- takes [[entities/sertraline|Sertraline]]", "- [[entities/sam|Sam]] child of this"."""
    problems = []
    for folder in ("entities", "episodic", "semantic"):
        for page in sorted((vault / folder).glob("*.md")):
            try:
                lines = page.read_text("utf-8").split("\n")
            except (OSError, UnicodeDecodeError):
                continue
            lines = lines[: lines.index(MARKER)] if MARKER in lines else lines  # the generated part
            if _RELATIONS_HEADING not in lines:
                continue
            start = lines.index(_RELATIONS_HEADING) + 1
            for number, line in enumerate(lines[start:], start=start + 1):
                if line.startswith("## "):
                    break
                label = _relation_label(line)
                if label and above(sensitivity := predicate_sensitivity(label_predicate(label)), level):
                    problems.append(
                        Problem(
                            page.relative_to(vault).as_posix(),
                            number,
                            f"relation `{label}` is {sensitivity} by its predicate: above {level}, "
                            "the most this vault may hold",
                        )
                    )
    return problems


_PERIOD = re.compile(r"\s*\((?:since|until) [^()]*\)$")


def _relation_label(line: str) -> str | None:
    """The label of a page's relation line: an entity's `- LABEL [[to]]` and `- [[from]] LABEL this`,
    a node's `- [[from]] LABEL [[to]]`."""
    if not line.startswith("- "):
        return None
    parts = _WIKILINK.split(line[2:])
    # split() keeps each link's target among the parts: text, target, text, target, text.
    texts = parts[::2]
    if len(texts) < 2:
        return None
    if texts[0].strip():
        return texts[0].strip()
    label = _PERIOD.sub("", texts[1]).strip()
    return label.removesuffix(" this").strip() if len(texts) == 2 else label


@dataclass(slots=True)
class _Property:
    """One frontmatter property with the YAML node it was composed from."""

    name: str
    line: int
    """1-based line of the property name in the page."""
    node: yaml.Node


class _VaultChecker:
    """Walk one vault once and collect its problems."""

    def __init__(self, vault: Path, notes: Path | None) -> None:
        self.vault = vault
        self.notes = notes
        self.problems: list[Problem] = []
        enclosing = _enclosing_obsidian_vault(vault)
        self.enclosing = enclosing
        self.link_root = enclosing or vault
        """Wikilinks are relative to the Obsidian vault the folder belongs to."""
        self.prefix = "" if enclosing is None else vault.relative_to(enclosing).as_posix() + "/"
        self.files: set[str] = set()
        """Every file Obsidian sees, relative to the link root."""
        self.vault_files: set[str] = set()
        """Every file Obsidian sees in this vault, relative to the vault."""
        self.owned: dict[str, str | None] = {}
        """Files kgvault owns, with the recorded hash of their generated part (None without a manifest)."""
        self.has_manifest = False
        self.entity_links: dict[str, set[str]] = {}
        """Per entity page, its generated body's link targets (relative to the link root, no `.md`)."""
        self.property_kinds: defaultdict[str, list[tuple[str, str, int]]] = defaultdict(list)
        self.relations_text: str | None = None
        self.source_lines: dict[str, list[str] | None] = {}

    def report(self, path: str, line: int | None, message: str) -> None:
        """Record one problem."""
        self.problems.append(Problem(path, line, message))

    def run(self) -> None:
        """Run every check, reading each file once."""
        self._walk()
        self._read_manifest()
        self._check_required_files()
        for path in sorted(self.owned):
            try:
                self._check_owned_file(path)
            except Exception as exc:  # a checker bug must not hide the other problems
                self.report(path, None, f"could not be checked ({type(exc).__name__}: {exc})")
        self._check_property_types()
        if self.relations_text is not None:
            self._check_relations(self.relations_text)

    # -- the file tree: names (rules 9-10) ------------------------------------------------------

    def _walk(self) -> None:
        """List the files Obsidian sees; check names here and basenames across the Obsidian vault."""
        basenames: defaultdict[str, list[tuple[str, bool]]] = defaultdict(list)
        if self.enclosing is not None:
            self._scan(self.enclosing, inside=False, basenames=basenames)
        self._scan(self.vault, inside=True, basenames=basenames)
        for paths in basenames.values():
            if len(paths) < 2:
                continue
            for path, inside in paths:
                if not inside:
                    continue
                others = ", ".join(sorted(other for other, _ in paths if other != path))
                self.report(
                    path[len(self.prefix) :],
                    None,
                    f"basename is not unique after casefold (also {others}); links cannot tell them apart",
                )

    def _scan(self, root: Path, *, inside: bool, basenames: defaultdict[str, list[tuple[str, bool]]]) -> None:
        """Walk one tree without following symlinks or entering hidden folders (Obsidian ignores them)."""
        top = str(root)
        skip = str(self.vault) if not inside else None
        for dirpath, dirnames, filenames in os.walk(top):
            rel_dir = dirpath[len(top) + 1 :].replace(os.sep, "/")
            kept = []
            for name in dirnames:
                if name.startswith(".") or os.path.join(dirpath, name) == skip:
                    if inside:
                        self._check_name(f"{rel_dir}/{name}" if rel_dir else name, name)
                    continue
                kept.append(name)
            dirnames[:] = sorted(kept)
            for name in kept:
                if inside:
                    self._check_name(f"{rel_dir}/{name}" if rel_dir else name, name)
            for name in filenames:
                rel = f"{rel_dir}/{name}" if rel_dir else name
                if inside:
                    self._check_name(rel, name)
                    self.vault_files.add(rel)
                    rel = self.prefix + rel
                self.files.add(rel)
                if name.lower().endswith(".md"):
                    key = unicodedata.normalize("NFC", name[:-3]).casefold()
                    basenames[key].append((rel, inside))

    def _check_name(self, path: str, name: str) -> None:
        """Apply rule 9 to one file or folder name."""
        problem = _name_problem(name)
        if problem:
            self.report(path, None, f"name {problem} (Obsidian and other systems reject it)")

    # -- ownership: the manifest ---------------------------------------------------------------

    def _read_manifest(self) -> None:
        """Read `.kgvault/manifest.json`; without a usable one, treat the contract's layout as owned."""
        if (self.vault / PENDING_MANIFEST).exists():
            self.report(
                PENDING_MANIFEST, None, "a build was interrupted; run `kgvault build` again to finish it"
            )
        path = self.vault / MANIFEST
        if not path.is_file():
            self.report(
                MANIFEST, None, "missing: cannot tell kgvault's files from the user's; rebuild the vault"
            )
            self._own_by_layout()
            return
        try:
            text = path.read_text(encoding="utf-8")
            data = json.loads(text)
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            # As `build` says: it refuses to guess which pages are its own until then.
            self.report(
                MANIFEST,
                None,
                f"unreadable ({exc}); restore it (from version control, a backup), or rebuild with "
                "--force to take back every page that carries kgvault's marker line",
            )
            self._own_by_layout()
            return
        files = data.get("files") if isinstance(data, dict) else None
        if not isinstance(data, dict) or not isinstance(files, dict):
            self.report(MANIFEST, None, 'must be a JSON object {"version": 1, "files": {path: sha256}}')
            self._own_by_layout()
            return
        self.has_manifest = True
        if set(data) != {"version", "files"}:
            self.report(MANIFEST, None, "must hold exactly the keys `version` and `files`")
        version = data.get("version")
        if version != 1 or isinstance(version, bool):
            self.report(MANIFEST, None, f"unknown version {version!r} (expected 1)")
        if list(files) != sorted(files):
            self.report(MANIFEST, None, "`files` keys are not sorted")
        if text not in (
            json.dumps(data, indent=2, ensure_ascii=False) + "\n",
            json.dumps(data, indent=2) + "\n",
        ):
            self.report(
                MANIFEST, None, "not written deterministically (JSON with indent 2 and a trailing newline)"
            )
        for key, digest in files.items():
            if not _is_relative_posix(key):
                self.report(MANIFEST, None, f"entry {key!r} is not a relative posix path inside the vault")
                continue
            if not isinstance(digest, str) or not _SHA256.fullmatch(digest):
                self.report(MANIFEST, None, f"entry {key!r} has no sha256 hex digest")
                self.owned[key] = None
                continue
            self.owned[key] = digest

    def _own_by_layout(self) -> None:
        """Own what the contract's layout names, so a vault without a manifest is still checked."""
        for path in self.vault_files:
            if _page_kind(path) is not None or path in REQUIRED_FILES:
                self.owned[path] = None

    def _check_required_files(self) -> None:
        """Report a contract file that is missing or not owned."""
        for name in REQUIRED_FILES:
            if not (self.vault / name).is_file():
                if name not in self.owned:  # a listed but missing file is reported with the manifest entries
                    self.report(name, None, "missing: every kgvault vault has it; rebuild the vault")
            elif self.has_manifest and name not in self.owned:
                self.report(name, None, f"not listed in {MANIFEST}: kgvault does not own it")

    def _check_owned_file(self, path: str) -> None:
        """Check one owned file: it exists, its generated part is intact, its content follows its rules."""
        if path.startswith(".obsidian/"):
            self._check_obsidian_file(path)
        try:
            with open(os.path.join(self.vault, path), "rb") as file:
                data = file.read()
            text = data.decode("utf-8")
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            self.report(path, None, f"listed in {MANIFEST} but missing; rebuild the vault")
            return
        except OSError as exc:
            self.report(path, None, f"unreadable ({exc})")
            return
        except UnicodeDecodeError as exc:
            self.report(path, None, f"not valid UTF-8 ({exc.reason} at byte {exc.start})")
            return
        is_page = path.endswith(".md")
        generated: bytes | None = data
        if is_page:
            markers = _marker_offsets(text)
            if not markers:
                self.report(path, None, f"the line `{MARKER}` is missing")
                generated = None
            else:
                # The first marker ends the generated part; another one below it is the user's text
                # (builds keep it there as it is).
                end = text.find("\n", markers[0])
                generated = (text if end < 0 else text[: end + 1]).encode("utf-8")
        recorded = self.owned[path]
        # Obsidian rewrites its own settings when the user changes a property type: that is no hand edit.
        hand_edited = generated is not None and hashlib.sha256(generated).hexdigest() != recorded
        if recorded is not None and hand_edited and not path.startswith(".obsidian/"):
            self.report(path, None, f"generated part edited by hand (its hash differs from {MANIFEST})")
        if is_page:
            self._check_page(path, text)
        elif path == RELATIONS:
            self.relations_text = text
        elif path.endswith(".base"):
            self._check_base(path, text)
        elif path.endswith(".canvas"):
            self._check_canvas(path, text)

    def _check_obsidian_file(self, path: str) -> None:
        """Apply rule 15 to a file kgvault claims under `.obsidian/`."""
        name = path.rsplit("/", 1)[-1]
        if name == "app.json" or name.startswith("workspace"):
            self.report(path, None, "kgvault must never write Obsidian's app.json or workspace files")
        if self.enclosing is not None:
            self.report(path, None, "inside an existing Obsidian vault kgvault must not create .obsidian/")
        if name.endswith(".json") and (self.vault / path).is_file():
            try:
                data = json.loads((self.vault / path).read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
                self.report(path, None, f"not valid JSON ({exc})")
                return
            if not isinstance(data, dict):
                self.report(path, None, "must be a JSON object")
            elif name == "types.json":
                types = data.get("types")
                known = isinstance(types, dict) and all(
                    isinstance(kind, str) and kind in _COMPATIBLE_KINDS for kind in types.values()
                )
                if not known:
                    self.report(path, None, "`types` must map property names to Obsidian property types")

    # -- pages: frontmatter (rules 1-8) and the contract's fields ----------------------------

    def _check_page(self, path: str, text: str) -> None:
        """Check one owned page: frontmatter, fields of its kind, body links."""
        if text.startswith("\ufeff"):
            self.report(path, 1, "starts with a byte-order mark; properties must start at byte 0 with `---`")
            text = text[1:]
        if "\r" in text:
            self.report(path, None, "has CR line endings; kgvault writes LF only")
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        lines = text.split("\n")
        kind = _page_kind(path)
        properties, body_start = self._parse_frontmatter(path, lines, required=kind not in (None, "home"))
        generated_end = lines.index(MARKER) if MARKER in lines else len(lines)
        for prop in properties.values():
            self._check_property(path, prop)
        if kind is None:
            self.report(
                path, None, "owned page outside the vault layout (episodic/, semantic/, entities/, sources/)"
            )
        elif kind in ("episodic", "semantic"):
            self._check_node(path, properties, kind)
        elif kind == "entity":
            self._check_entity(path, properties, lines, body_start, generated_end)
        elif kind == "summary":
            self._check_summary(path, properties, lines, body_start, generated_end)
        links = self._scan_body(path, lines, body_start, generated_end)
        # Keep only what later checks need: holding every page's YAML nodes makes the GC crawl.
        if kind == "entity":
            self.entity_links[path] = links

    def _parse_frontmatter(
        self, path: str, lines: list[str], *, required: bool
    ) -> tuple[dict[str, _Property], int]:
        """Compose the frontmatter; return its properties in file order and the body's first line index."""
        if not lines or lines[0] != "---":
            first = next((line for line in lines if line.strip()), "")
            if first.strip() == "---":
                self.report(path, None, "frontmatter must start at byte 0 with `---` and a newline (rule 1)")
            elif required:
                self.report(path, 1, "has no frontmatter; this kind of page needs properties")
            return {}, 0
        close = next((i for i in range(1, len(lines)) if lines[i] == "---"), None)
        if close is None:
            self.report(path, 1, "frontmatter is never closed by a `---` line (rule 1)")
            return {}, 0
        if close == len(lines) - 1:
            self.report(
                path, close + 1, "the closing `---` of the frontmatter must end with a newline (rule 1)"
            )
        try:
            root = yaml.compose("\n".join(lines[1:close]) + "\n", Loader=_YAML_LOADER)
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            line = mark.line + 2 if mark is not None else 1
            detail = getattr(exc, "problem", None) or str(exc)
            self.report(path, line, f"frontmatter is not valid YAML: {detail} (rule 2)")
            return {}, close + 1
        if root is None:
            return {}, close + 1
        if not isinstance(root, yaml.MappingNode):
            self.report(path, 2, "frontmatter must be a YAML mapping of properties (rule 2)")
            return {}, close + 1
        properties: dict[str, _Property] = {}
        for key, value in root.value:
            line = key.start_mark.line + 2
            if not isinstance(key, yaml.ScalarNode) or key.tag != _STR:
                self.report(path, line, "property names must be plain text")
                continue
            if key.value in properties:
                self.report(path, line, f"duplicate property `{key.value}` (rule 2)")
                continue
            properties[key.value] = _Property(key.value, line, value)
        return properties, close + 1

    def _check_property(self, path: str, prop: _Property) -> None:
        """Apply rules 3-8 and the known field shapes to one property; record its kind for rule 7."""
        node, name = prop.node, prop.name
        shape = _FIELD_SHAPES.get(name)
        if isinstance(node, yaml.MappingNode):
            self.report(
                path, prop.line, f"`{name}` is a nested mapping; Obsidian properties cannot nest (rule 3)"
            )
            return
        if isinstance(node, yaml.SequenceNode):
            self._check_list(path, prop)
            if shape not in (None, "list"):
                self.report(path, prop.line, f"`{name}` must be {_SHAPE_NAMES[shape]}, not a list")
            self.property_kinds[name].append(("list", path, prop.line))
            return
        if not isinstance(node, yaml.ScalarNode):
            return
        if node.tag == _NULL:
            self.report(path, prop.line, f"`{name}` has no value; omit null properties")
            return
        self._check_scalar(path, prop.line, name, node)
        kind = _scalar_kind(node)
        value = node.value
        if shape == "list":
            self.report(path, prop.line, f"`{name}` must be a YAML block list, not a single value (rule 4)")
        elif shape == "text" and node.tag != _STR:
            self.report(path, prop.line, f"`{name}` must be text; quote the value {value!r}")
        elif shape == "date" and not _is_date(value):
            self.report(path, prop.line, f"`{name}` must be a YYYY-MM-DD date, not {value!r} (rule 6)")
        elif shape == "datetime" and not _is_datetime(value):
            self.report(path, prop.line, f"`{name}` must be YYYY-MM-DDTHH:MM:SS, not {value!r} (rule 6)")
        elif shape == "integer" and node.tag != _INT:
            self.report(path, prop.line, f"`{name}` must be a whole number, not {value!r}")
        self.property_kinds[name].append((kind, path, prop.line))

    def _check_list(self, path: str, prop: _Property) -> None:
        """Check a list property: block style, two-space items, scalar items, and tags (rules 3-5)."""
        node = prop.node
        assert isinstance(node, yaml.SequenceNode)
        items: list[yaml.Node] = node.value
        if node.flow_style and items:
            self.report(path, prop.line, f"`{prop.name}` must be a YAML block list (`key:` then `  - item`)")
        elif items and node.start_mark.column != 2:
            self.report(path, prop.line, f"`{prop.name}` list items must be indented by two spaces")
        for item in items:
            line = item.start_mark.line + 2
            if not isinstance(item, yaml.ScalarNode):
                self.report(
                    path, line, f"`{prop.name}` items must be single values, not lists or mappings (rule 3)"
                )
                continue
            if item.tag == _NULL:
                self.report(path, line, f"`{prop.name}` has an empty item")
                continue
            self._check_scalar(path, line, prop.name, item)
            if prop.name == "tags":
                problem = _tag_problem(item.value)
                if problem is None and item.tag != _STR:
                    problem = "must be text"
                if problem:
                    self.report(path, line, f"tag {item.value!r} {problem} (rule 5)")
            elif prop.name in _TEXT_LISTS and item.tag != _STR:
                self.report(path, line, f"`{prop.name}` items must be text; quote {item.value!r}")

    def _check_scalar(self, path: str, line: int, name: str, node: yaml.ScalarNode) -> None:
        """Check one scalar: single line, quoted wikilinks that resolve, date formats (rules 6, 8, 11)."""
        value: str = node.value
        plain = node.style in (None, "")
        if node.style in ("|", ">") or node.start_mark.line != node.end_mark.line:
            self.report(path, line, f"`{name}` must be a single-line value (rule 8)")
        if node.tag not in _SCALAR_TAGS:
            self.report(path, line, f"`{name}` uses the YAML tag {node.tag}, which Obsidian cannot read")
        # Known properties have a fixed shape, checked (and reported once) by _check_property.
        unknown_date = name not in _FIELD_SHAPES and node.tag == _TIMESTAMP
        if unknown_date and not (_is_date(value) or _is_datetime(value)):
            self.report(
                path,
                line,
                f"`{name}`: write dates as YYYY-MM-DD and date-times as YYYY-MM-DDTHH:MM:SS (rule 6)",
            )
        if "[[" in value:
            if plain:
                self.report(
                    path, line, f"`{name}`: wikilinks inside properties must be quoted strings (rule 8)"
                )
            for match in _WIKILINK.finditer(value):
                self._resolve_link(path, line, match.group(1).split("|", 1)[0], set())

    def _check_node(self, path: str, props: dict[str, _Property], layer: str) -> None:
        """Check an episodic or semantic node's fields against DESIGN §3."""
        required = (*_NODE_REQUIRED, "timestamp") if layer == "episodic" else _NODE_REQUIRED
        self._require(path, props, required)
        allowed = _EPISODIC_KEYS if layer == "episodic" else _SEMANTIC_KEYS
        for name, prop in props.items():
            if name not in allowed:
                self.report(path, prop.line, f"`{name}` is not a property of {layer} nodes")
        ordered = [name for name in props if name in _NODE_ORDER]
        expected = sorted(ordered, key=_NODE_ORDER.index)
        if ordered != expected:
            wrong = next(a for a, b in zip(ordered, expected, strict=True) if a != b)
            order = ", ".join(_NODE_ORDER)
            self.report(path, props[wrong].line, f"`{wrong}` is out of order; node properties go: {order}")
        self._check_id(path, props)
        self._check_enum(path, props, "memory_layer", frozenset({layer}))
        for name, values in {**_NODE_ENUMS[layer], **_SHARED_ENUMS}.items():
            self._check_enum(path, props, name, values)
        if _text(props, "title") == "":
            self.report(path, props["title"].line, "`title` is empty")
        node_type = _text(props, "type")
        for name in ("valid_from", "valid_to"):
            if name in props and layer == "episodic" and node_type != "state":
                self.report(path, props[name].line, f"`{name}` belongs to nodes of type state only")
        start, end = _text(props, "valid_from"), _text(props, "valid_to")
        if start and end and _is_date(start) and _is_date(end) and end < start:
            self.report(path, props["valid_to"].line, "`valid_to` is before `valid_from`")
        importance = props.get("importance")
        value = _text(props, "importance")
        if (
            importance
            and importance.node.tag == _INT
            and not (value and value.isdigit() and 1 <= int(value) <= 5)
        ):
            self.report(path, importance.line, "`importance` must be between 1 and 5")
        source_input = props.get("source_input")
        if source_input is not None:
            self._check_link_value(path, source_input.line, "source_input", source_input.node, ("sources",))
        for name, folders in _LINK_LIST_FOLDERS.items():
            links = props.get(name)
            if links and isinstance(links.node, yaml.SequenceNode):
                for item in links.node.value:
                    self._check_link_value(path, item.start_mark.line + 2, name, item, folders)

    def _check_entity(
        self, path: str, props: dict[str, _Property], lines: list[str], start: int, end: int
    ) -> None:
        """Check an entity page's fields and its Overview section."""
        self._require(path, props, _ENTITY_KEYS)
        for name, prop in props.items():
            if name not in _ENTITY_KEYS:
                self.report(path, prop.line, f"`{name}` is not a property of entity pages")
        self._check_enum(path, props, "type", frozenset({"entity"}))
        self._check_id(path, props)
        entity_type = _text(props, "entity_type")
        if entity_type is not None and not _SNAKE_CASE.fullmatch(entity_type):
            self.report(
                path, props["entity_type"].line, f"`entity_type` {entity_type!r} is not lowercase snake_case"
            )
        for name in ("title", "description"):
            if _text(props, name) == "":
                self.report(path, props[name].line, f"`{name}` is empty")
        sources = props.get("sources")
        if sources and isinstance(sources.node, yaml.SequenceNode):
            for item in sources.node.value:
                if isinstance(item, yaml.ScalarNode) and item.tag == _STR:
                    self._check_evidence(path, item.start_mark.line + 2, item.value)
                elif isinstance(item, yaml.ScalarNode) and item.tag != _NULL:
                    self.report(path, item.start_mark.line + 2, "`sources` items must be `path#Lstart-Lend`")
        if "## Overview" not in lines[start:end]:
            self.report(path, None, "entity page has no `## Overview` section")

    def _check_summary(
        self, path: str, props: dict[str, _Property], lines: list[str], start: int, end: int
    ) -> None:
        """Check a source summary page's fields and its coverage table."""
        self._require(path, props, _SUMMARY_REQUIRED)
        for name, prop in props.items():
            if name not in _SUMMARY_KEYS:
                self.report(path, prop.line, f"`{name}` is not a property of summary pages")
        self._check_enum(path, props, "type", frozenset({"summary"}))
        self._check_id(path, props)
        tags = props.get("tags")
        if tags and isinstance(tags.node, yaml.SequenceNode) and "summary" not in _item_values(tags.node):
            self.report(path, tags.line, "`tags` of a summary page must contain `summary`")
        document = _text(props, "source_document")
        if document is not None and not _is_relative_posix(_split_pointer(document)[0]):
            self.report(
                path,
                props["source_document"].line,
                f"`source_document` {document!r} must be a path relative to the notes root",
            )
            document = None
        self._check_coverage(path, lines, start, end, document)

    def _require(self, path: str, props: dict[str, _Property], names: tuple[str, ...]) -> None:
        """Report each required property that is absent."""
        for name in names:
            if name not in props:
                self.report(path, 1 if props else None, f"required property `{name}` is missing")

    def _check_id(self, path: str, props: dict[str, _Property]) -> None:
        """`id` must equal the file's basename without `.md`."""
        value = _text(props, "id")
        stem = path.rsplit("/", 1)[-1][:-3]
        if value is not None and value != stem:
            self.report(path, props["id"].line, f"`id` {value!r} does not match the file name {stem!r}")

    def _check_enum(self, path: str, props: dict[str, _Property], name: str, values: frozenset[str]) -> None:
        """Report a property whose value is not one of the allowed ones."""
        prop = props.get(name)
        if prop is None or not isinstance(prop.node, yaml.ScalarNode) or prop.node.tag == _NULL:
            return
        if prop.node.value not in values:
            allowed = " | ".join(sorted(values))
            self.report(path, prop.line, f"`{name}` is {prop.node.value!r}; expected {allowed}")

    def _check_link_value(
        self, path: str, line: int, name: str, node: yaml.Node, folders: tuple[str, ...]
    ) -> None:
        """A link property must be one quoted wikilink to a page in one of `folders`."""
        match = _PROPERTY_LINK.fullmatch(node.value) if isinstance(node, yaml.ScalarNode) else None
        if match is None:
            self.report(path, line, f"`{name}` must hold quoted wikilinks `[[folder/id|Title]]`")
            return
        target = match.group(1).strip().removesuffix(".md")
        inside = target[len(self.prefix) :] if target.startswith(self.prefix) else None
        parts = inside.split("/") if inside is not None else []
        if len(parts) != 2 or parts[0] not in folders:
            where = " or ".join(f"{self.prefix}{folder}/" for folder in folders)
            self.report(path, line, f"`{name}` must link to a page in {where}, not [[{match.group(1)}]]")

    def _export_file(self, document: str | None) -> str | None:
        """The JSON file a `source_document` points into (`x.json#/3`); None when it names a whole file."""
        if document is None:
            return None
        file, pointer = _split_pointer(document)
        # A note in a folder named like a JSON file (`x.json#/a.md`) splits the same way: the notes tell.
        if pointer is None or (self.notes is not None and self._source_path(document).is_file()):
            return None
        return file

    def _check_coverage(
        self, path: str, lines: list[str], start: int, end: int, document: str | None
    ) -> None:
        """Check the coverage table; with the notes at hand, check it covers the source's every line."""
        header = next((i for i in range(start, end) if _table_cells(lines[i]) == ["lines", "result"]), None)
        if header is None:
            self.report(path, None, "summary page has no coverage table `| lines | result |`")
            return
        if header + 1 >= end or not TABLE_DELIMITER.fullmatch(lines[header + 1]):
            self.report(path, header + 1, "the coverage table has no delimiter row `| --- | --- |`")
            return
        export = self._export_file(document)
        # A JSON file read whole as one chat (Telegram, Messenger, Discord, Slack) has rows of pointers too.
        whole_json = export is None and document is not None and document.lower().endswith(".json")
        ranges: list[tuple[int, int, int]] = []
        index = header + 2
        while index < end and lines[index].strip().startswith("|"):
            line = index + 1
            cells = _table_cells(lines[index]) or []
            index += 1
            if len(cells) != 2:
                self.report(path, line, "a coverage row has exactly two cells: lines and result")
                continue
            if not cells[1]:
                self.report(path, line, "a coverage row must say what its lines produced or why nothing")
            match = _LINE_RANGE.fullmatch(cells[0])
            if match is None:
                if export is None and not (whole_json and _POINTER.fullmatch(cells[0])):
                    self.report(path, line, f"coverage range {cells[0]!r} is not `start-end`")
                elif not _POINTER.fullmatch(cells[0]):
                    self.report(path, line, f"coverage row {cells[0]!r} is not a JSON pointer in URI form")
                continue
            first, last = int(match.group(1)), int(match.group(2))
            if first < 1 or last < first:
                self.report(path, line, f"coverage range {cells[0]} is empty or starts before line 1")
                continue
            ranges.append((first, last, line))
        ranges.sort()
        for (_, previous_end, _), (first, last, line) in itertools.pairwise(ranges):
            if first <= previous_end:
                self.report(path, line, f"coverage range {first}-{last} overlaps the range before it")
        if self.notes is None or document is None:
            return
        if export is None and whole_json and not ranges:
            export = document  # a chat read whole: its rows are pointers, its lines not what they count
        if export is not None:
            if not self._source_path(export).is_file():
                self.report(path, header + 1, f"source_document {document} not found under the notes folder")
            return
        source = self._read_source(document)
        if source is None:
            self.report(path, header + 1, f"source_document {document} not found under the notes folder")
            return
        total = len(source)
        covered = bytearray(total + 2)
        for first, last, line in ranges:
            if last > total:
                self.report(
                    path,
                    line,
                    f"coverage range {first}-{last} ends after the last line ({total}) of {document}",
                )
            for number in range(first, min(last, total) + 1):
                covered[number] = 1
        body_from = _frontmatter_end(source) + 1
        run_start: int | None = None
        for number in range(body_from, total + 2):
            missing = number <= total and not covered[number] and source[number - 1].strip() != ""
            if missing and run_start is None:
                run_start = number
            elif not missing and run_start is not None:
                span = f"{run_start}-{number - 1}"
                self.report(path, header + 1, f"lines {span} of {document} are in no coverage range")
                run_start = None

    # -- bodies: links (rules 11-13) -----------------------------------------------------------

    def _scan_body(self, path: str, lines: list[str], start: int, end: int) -> set[str]:
        """Check the generated body's wikilinks, table pipes and block ids; return the link targets."""
        targets: set[str] = set()
        fence: str | None = None
        in_table = False
        for index in range(start, end):
            line = lines[index]
            fence_match = _FENCE.match(line)
            if fence is not None:
                if fence_match:
                    run = fence_match.group(1)
                    if (
                        run[0] == fence[0]
                        and len(run) >= len(fence)
                        and not line[fence_match.end() :].strip()
                    ):
                        fence = None
                continue
            if fence_match and (fence_match.group(1)[0] == "~" or "`" not in line[fence_match.end() :]):
                fence = fence_match.group(1)
                continue
            if not line.strip():
                in_table = False
            elif (
                not in_table
                and "|" in line
                and index + 1 < end
                and "|" in lines[index + 1]
                and TABLE_DELIMITER.fullmatch(lines[index + 1])
            ):
                in_table = True
            if "`" in line:
                line = _strip_code_spans(line)
            if "[[" in line:
                for match in _WIKILINK.finditer(line):
                    inner = match.group(1)
                    if in_table and _UNESCAPED_PIPE.search(inner):
                        self.report(
                            path,
                            index + 1,
                            f"[[{inner}]] is in a table row: escape its pipe as `\\|` (rule 12)",
                        )
                    target = (_ALIAS_PIPE if in_table else _PIPE).split(inner, maxsplit=1)[0]
                    self._resolve_link(path, index + 1, target, targets)
            if "^" in line:
                block = _BLOCK_ID.search(line.rstrip())
                if block and not _VALID_BLOCK_ID.fullmatch(block.group(1)):
                    self.report(
                        path,
                        index + 1,
                        f"block id ^{block.group(1)} may use only A-Z, a-z, 0-9 and - (rule 13)",
                    )
        return targets

    def _resolve_link(self, path: str, line: int, raw: str, targets: set[str]) -> None:
        """Check that one wikilink target names an existing file, relative to the link root."""
        target, _, fragment = raw.partition("#")
        if fragment.startswith("^") and not _VALID_BLOCK_ID.fullmatch(fragment[1:]):
            self.report(path, line, f"block reference #{fragment} may use only A-Z, a-z, 0-9 and - (rule 13)")
        target = target.strip()
        if not target:
            return
        targets.add(target.removesuffix(".md"))
        if target in self.files or target + ".md" in self.files or self._exists_on_disk(target):
            return
        root = "the vault" if self.enclosing is None else "the enclosing Obsidian vault"
        self.report(
            path,
            line,
            f"wikilink [[{raw}]] does not resolve: no file {target}.md relative to {root} (rule 11)",
        )

    def _exists_on_disk(self, target: str) -> bool:
        """Look a missed target up on disk, for files behind symlinked folders the walk did not enter."""
        parts = target.split("/")
        if any(part.startswith(".") or not part for part in parts) or "\\" in target:
            return False
        full = self.link_root / target
        return full.is_file() or full.with_name(full.name + ".md").is_file()

    # -- relations.jsonl (rule 14) -------------------------------------------------------------

    def _check_relations(self, text: str) -> None:
        """Check every edge line: exact shape, values, order, existing entities, and matching body links."""
        labels: dict[str, tuple[str, int]] = {}
        previous: tuple[str, str, str] | None = None
        lines = text.split("\n")
        if lines[-1] == "":
            lines.pop()
        elif text:
            self.report(RELATIONS, len(lines), "the last line must end with a newline")
        for number, line in enumerate(lines, start=1):
            edge = self._parse_relation(line, number)
            if edge is None:
                continue
            source, relation, label, target = edge["from"], edge["relation"], edge["label"], edge["to"]
            if isinstance(relation, str) and isinstance(label, str):
                first = labels.setdefault(relation, (label, number))
                if first[0] != label:
                    self.report(
                        RELATIONS,
                        number,
                        f"`{relation}` has label {label!r} here but {first[0]!r} on line {first[1]}",
                    )
            if not (isinstance(source, str) and isinstance(relation, str) and isinstance(target, str)):
                continue
            key = (source, relation, target)
            if previous is not None and key == previous:
                self.report(
                    RELATIONS, number, f"duplicate triple ({source}, {relation}, {target}); merge them"
                )
            elif previous is not None and key < previous:
                self.report(
                    RELATIONS, number, "lines are not sorted by (from, relation, to) in code-point order"
                )
            previous = key
            self._check_relation_links(number, source, relation, target)

    def _parse_relation(self, line: str, number: int) -> dict[str, Any] | None:
        """Parse and check one line of relations.jsonl; return its fields when its keys are right."""
        try:
            pairs = json.loads(line, object_pairs_hook=lambda items: items)
        except json.JSONDecodeError as exc:
            self.report(RELATIONS, number, f"not valid JSON ({exc.msg})")
            return None
        if not isinstance(pairs, list) or not all(isinstance(pair, tuple) for pair in pairs):
            self.report(RELATIONS, number, "each line must be one JSON object")
            return None
        keys = tuple(key for key, _ in pairs)
        if keys != RELATION_KEYS:
            self.report(
                RELATIONS, number, "keys must be exactly " + ",".join(RELATION_KEYS) + " in that order"
            )
            return None
        edge: dict[str, Any] = dict(pairs)
        if json.dumps(edge, ensure_ascii=False, separators=(",", ":")) != line:
            self.report(RELATIONS, number, "not compact JSON (separators `,` `:`, no spaces, non-ASCII kept)")
        for name in ("from", "to"):
            value = edge[name]
            if not isinstance(value, str) or not value:
                self.report(RELATIONS, number, f"`{name}` must be an entity id")
            elif f"entities/{value}.md" not in self.vault_files:
                self.report(RELATIONS, number, f"`{name}` {value!r} has no page entities/{value}.md")
        if edge["from"] == edge["to"]:
            self.report(RELATIONS, number, "`from` and `to` are the same entity")
        if not isinstance(edge["relation"], str) or not _SNAKE_CASE.fullmatch(edge["relation"]):
            self.report(RELATIONS, number, f"`relation` {edge['relation']!r} is not a snake_case predicate")
        for name in ("label", "statement"):
            value = edge[name]
            if not isinstance(value, str) or not value.strip() or "\n" in value:
                self.report(RELATIONS, number, f"`{name}` must be non-empty single-line text")
        confidence = edge["confidence"]
        if (
            isinstance(confidence, bool)
            or not isinstance(confidence, int | float)
            or not 0 <= confidence <= 1
        ):
            self.report(RELATIONS, number, f"`confidence` {confidence!r} must be a number in [0, 1]")
        for name in ("valid_at", "invalid_at"):
            value = edge[name]
            if value is not None and not (isinstance(value, str) and _is_date(value)):
                self.report(RELATIONS, number, f"`{name}` {value!r} must be null or a YYYY-MM-DD date")
        valid_at, invalid_at = edge["valid_at"], edge["invalid_at"]
        dated = isinstance(valid_at, str) and isinstance(invalid_at, str)
        if dated and _is_date(valid_at) and _is_date(invalid_at) and invalid_at < valid_at:
            self.report(RELATIONS, number, "`invalid_at` is before `valid_at`")
        evidence = edge["evidence"]
        if not isinstance(evidence, list) or not evidence:
            self.report(RELATIONS, number, "`evidence` must be a non-empty list")
        else:
            for ref in evidence:
                if isinstance(ref, str):
                    self._check_evidence(RELATIONS, number, ref)
                else:
                    self.report(RELATIONS, number, f"evidence {ref!r} must be a string `path#Lstart-Lend`")
        return edge

    def _check_relation_links(self, number: int, source: str, relation: str, target: str) -> None:
        """Rule 14: the subject's page links to the object's, and (DESIGN §3) the object's back."""
        for here, there, direction in ((source, target, "outgoing"), (target, source, "incoming")):
            links = self.entity_links.get(f"entities/{here}.md")
            if links is not None and f"{self.prefix}entities/{there}" not in links:
                self.report(
                    f"entities/{here}.md",
                    None,
                    f"no body wikilink to {self.prefix}entities/{there} for the {direction} "
                    f"relation `{relation}` (relations.jsonl line {number})",
                )

    # -- evidence and sources (needs the notes) ------------------------------------------------

    def _check_evidence(self, path: str, line: int, ref: str) -> None:
        """Check one `path#Lstart-Lend` or `path#/pointer` reference; with the notes, that it exists."""
        lines_match = _LINE_EVIDENCE.fullmatch(ref)
        pointer_match = None if lines_match else _POINTER_EVIDENCE.fullmatch(ref)
        match = lines_match or pointer_match
        if match is None:
            self.report(path, line, f"evidence {ref!r} is not `path#Lstart-Lend` or `path#/json/pointer`")
            return
        source = match.group("path")
        if not _is_relative_posix(source):
            self.report(path, line, f"evidence {ref!r} must name a path relative to the notes root")
            return
        if lines_match:
            first, last = int(lines_match.group("start")), int(lines_match.group("end"))
            if first < 1 or last < first:
                self.report(path, line, f"evidence {ref!r} has an empty line range")
                return
        if self.notes is None:
            return
        if pointer_match:
            if not self._source_path(source).is_file():
                self.report(path, line, f"evidence {ref!r}: no file {source} under the notes folder")
            return
        lines = self._read_source(source)
        if lines is None:
            self.report(path, line, f"evidence {ref!r}: no file {source} under the notes folder")
        elif last > len(lines):
            self.report(path, line, f"evidence {ref!r} ends after the last line ({len(lines)}) of {source}")

    def _source_path(self, relative: str) -> Path:
        """Locate a source: imported drafts live in the vault, everything else under the notes root."""
        if relative.startswith(".kgvault/drafts/"):
            return self.vault / relative
        assert self.notes is not None
        return self.notes / relative

    def _read_source(self, relative: str) -> list[str] | None:
        """Return a source's lines as the sources stage numbers them (same decoding, LF), cached."""
        if relative not in self.source_lines:
            try:
                raw = self._source_path(relative).read_bytes()
            except OSError:
                self.source_lines[relative] = None
            else:
                # The build reported what is wrong with the bytes; a binary file gave it no line at all.
                text = decode_text(relative, raw, []) or ""
                lines = text.split("\n")
                if lines[-1] == "":
                    lines.pop()
                self.source_lines[relative] = lines
        return self.source_lines[relative]

    # -- vault-wide property types (rule 7) ----------------------------------------------------

    def _check_property_types(self) -> None:
        """One property name, one type: as `.obsidian/types.json` declares it, else as most pages use it."""
        declared = self._declared_types()
        for name, seen in sorted(self.property_kinds.items()):
            want = declared.get(name)
            allowed = _COMPATIBLE_KINDS.get(want) if isinstance(want, str) else None
            if allowed is not None:
                for kind, path, line in seen:
                    if kind not in allowed:
                        self.report(
                            path,
                            line,
                            f"`{name}` is {kind} here but .obsidian/types.json declares {want} (rule 7)",
                        )
                continue
            counts = Counter(kind for kind, _, _ in seen)
            if len(counts) < 2:
                continue
            main = min(counts, key=lambda kind: (-counts[kind], kind))
            for kind, path, line in seen:
                if kind != main:
                    self.report(
                        path,
                        line,
                        f"`{name}` is {kind} here but {main} on {counts[main]} other page(s); "
                        "one property name must have one type (rule 7)",
                    )

    def _declared_types(self) -> dict[str, Any]:
        """Read the property types Obsidian stores for the vault, if it has any."""
        try:
            data = json.loads((self.link_root / ".obsidian" / "types.json").read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError):
            return {}
        types = data.get("types") if isinstance(data, dict) else None
        return types if isinstance(types, dict) else {}

    # -- Obsidian Bases and Canvas (rules 16-17) -----------------------------------------------

    def _check_base(self, path: str, text: str) -> None:
        """Rule 16: a .base file is YAML with filters, formulas, properties and views."""
        try:
            data = yaml.load(text, Loader=_YAML_LOADER)
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            detail = getattr(exc, "problem", None) or str(exc)
            self.report(
                path, mark.line + 1 if mark is not None else None, f"not valid YAML: {detail} (rule 16)"
            )
            return
        if not isinstance(data, dict):
            self.report(path, None, "must be a YAML mapping (rule 16)")
            return
        for key in sorted(set(map(str, data)) - _BASE_KEYS):
            self.report(path, None, f"unknown top-level key `{key}` (rule 16)")
        if "filters" in data:
            self._check_base_filter(path, data["filters"], "filters")
        for key in ("formulas", "properties"):
            value = data.get(key)
            if value is not None and not isinstance(value, dict):
                self.report(path, None, f"`{key}` must be a mapping (rule 16)")
        formulas = data.get("formulas")
        if isinstance(formulas, dict) and not all(isinstance(v, str) for v in formulas.values()):
            self.report(path, None, "each formula must be a string expression (rule 16)")
        views = data.get("views")
        if views is None:
            return
        if not isinstance(views, list):
            self.report(path, None, "`views` must be a list (rule 16)")
            return
        for position, view in enumerate(views, start=1):
            self._check_base_view(path, view, f"view {position}")

    def _check_base_view(self, path: str, view: Any, where: str) -> None:
        """Check one view of a .base file."""
        if not isinstance(view, dict):
            self.report(path, None, f"{where} must be a mapping (rule 16)")
            return
        for key in sorted(set(map(str, view)) - _BASE_VIEW_KEYS):
            self.report(path, None, f"{where} has unknown key `{key}` (rule 16)")
        if not _is_one_of(view.get("type"), _BASE_VIEW_TYPES):
            self.report(
                path, None, f"{where} `type` must be one of {', '.join(sorted(_BASE_VIEW_TYPES))} (rule 16)"
            )
        if not isinstance(view.get("name"), str) or not view["name"]:
            self.report(path, None, f"{where} needs a `name` (rule 16)")
        if "filters" in view:
            self._check_base_filter(path, view["filters"], f"{where} filters")
        order = view.get("order")
        if order is not None and not (isinstance(order, list) and all(isinstance(o, str) for o in order)):
            self.report(path, None, f"{where} `order` must be a list of property names (rule 16)")
        sort = view.get("sort")
        if sort is not None and not (isinstance(sort, list) and all(_is_base_sort(item) for item in sort)):
            self.report(path, None, f"{where} `sort` must be a list of {{property, direction}} (rule 16)")
        if "groupBy" in view and not _is_base_sort(view["groupBy"]):
            self.report(path, None, f"{where} `groupBy` must be {{property, direction}} (rule 16)")
        limit = view.get("limit")
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
            self.report(path, None, f"{where} `limit` must be a positive whole number (rule 16)")

    def _check_base_filter(self, path: str, value: Any, where: str) -> None:
        """A filter is an expression string, or one of and/or/not holding a list of filters."""
        if isinstance(value, str):
            return
        if not isinstance(value, dict) or len(value) != 1 or next(iter(value)) not in ("and", "or", "not"):
            self.report(
                path, None, f"{where}: a filter is a string or one of and/or/not with a list (rule 16)"
            )
            return
        operator, items = next(iter(value.items()))
        if not isinstance(items, list):
            self.report(path, None, f"{where}: `{operator}` must hold a list of filters (rule 16)")
            return
        for item in items:
            self._check_base_filter(path, item, where)

    def _check_canvas(self, path: str, text: str) -> None:
        """Rule 17: a .canvas file is JSON Canvas 1.0 whose file nodes and edge ends exist."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            self.report(path, exc.lineno, f"not valid JSON ({exc.msg}) (rule 17)")
            return
        if not isinstance(data, dict):
            self.report(path, None, "must be a JSON Canvas object with `nodes` and `edges` (rule 17)")
            return
        nodes, edges = data.get("nodes", []), data.get("edges", [])
        if not isinstance(nodes, list) or not isinstance(edges, list):
            self.report(path, None, "`nodes` and `edges` must be lists (rule 17)")
            return
        ids: set[str] = set()
        node_ids: set[str] = set()
        for node in nodes:
            ident = self._check_canvas_item(path, node, ids, "node")
            if ident is None:
                continue
            node_ids.add(ident)
            kind = node.get("type")
            if not _is_one_of(kind, _CANVAS_NODE_TYPES):
                self.report(path, None, f"node {ident!r}: `type` must be text, file, link or group (rule 17)")
            for name in ("x", "y", "width", "height"):
                value = node.get(name)
                if isinstance(value, bool) or not isinstance(value, int):
                    self.report(path, None, f"node {ident!r}: `{name}` must be an integer (rule 17)")
            required = {"text": "text", "file": "file", "link": "url"}.get(str(kind))
            if required and not isinstance(node.get(required), str):
                self.report(path, None, f"node {ident!r}: a {kind} node needs `{required}` (rule 17)")
            elif kind == "file" and not (node["file"] in self.files or self._exists_on_disk(node["file"])):
                self.report(path, None, f"node {ident!r}: file {node['file']!r} does not exist (rule 17)")
        for edge in edges:
            ident = self._check_canvas_item(path, edge, ids, "edge")
            if ident is None:
                continue
            for end in ("fromNode", "toNode"):
                if not _is_one_of(edge.get(end), node_ids):
                    self.report(
                        path, None, f"edge {ident!r}: `{end}` {edge.get(end)!r} is not a node (rule 17)"
                    )
            for name, allowed in (
                ("fromSide", _CANVAS_SIDES),
                ("toSide", _CANVAS_SIDES),
                ("fromEnd", _CANVAS_ENDS),
                ("toEnd", _CANVAS_ENDS),
            ):
                if name in edge and not _is_one_of(edge[name], allowed):
                    self.report(
                        path, None, f"edge {ident!r}: `{name}` {edge[name]!r} is not allowed (rule 17)"
                    )
            if "label" in edge and not isinstance(edge["label"], str):
                self.report(path, None, f"edge {ident!r}: `label` must be text (rule 17)")

    def _check_canvas_item(self, path: str, item: Any, ids: set[str], what: str) -> str | None:
        """Check that a canvas node or edge is an object with a unique string id; return the id."""
        if not isinstance(item, dict) or not isinstance(item.get("id"), str) or not item["id"]:
            self.report(path, None, f"every {what} must be an object with a string `id` (rule 17)")
            return None
        ident: str = item["id"]
        if ident in ids:
            self.report(path, None, f"{what} id {ident!r} is not unique (rule 17)")
        ids.add(ident)
        return ident


_SHAPE_NAMES = {"text": "text", "date": "a YYYY-MM-DD date", "datetime": "a date-time", "integer": "a number"}


def _enclosing_obsidian_vault(vault: Path) -> Path | None:
    """Return the nearest ancestor folder holding `.obsidian/`, the Obsidian vault this folder lives in."""
    for parent in vault.parents:
        if (parent / ".obsidian").is_dir():
            return parent
    return None


def _page_kind(path: str) -> str | None:
    """Tell a page's kind from where the contract's layout puts it."""
    if path in ("index.md", "ontology.md"):
        return "home"
    parts = path.split("/")
    if len(parts) == 2 and parts[1].endswith(".md"):
        return _PAGE_FOLDERS.get(parts[0])
    return None


def _name_problem(name: str) -> str | None:
    """Say what is wrong with a file or folder name under rule 9, or None."""
    categories = {unicodedata.category(char) for char in name}
    if "Cs" in categories:
        return "is not valid UTF-8"
    bad = sorted({char for char in name if char in _FORBIDDEN_NAME_CHARS})
    if bad:
        return f"contains {' '.join(bad)}"
    if "Cc" in categories:
        return "contains control characters"
    if name.endswith((" ", ".")):
        return "ends with a space or a dot"
    if name.split(".", 1)[0].rstrip(" ").upper() in _RESERVED_NAMES:
        return "is a reserved Windows name"
    if not unicodedata.is_normalized("NFC", name):
        return "is not in Unicode NFC form"
    if len(name.encode("utf-8")) > _MAX_NAME_BYTES:
        return f"is longer than {_MAX_NAME_BYTES} UTF-8 bytes"
    return None


def _tag_problem(tag: str) -> str | None:
    """Say what is wrong with a tag under rule 5 (and DESIGN's lowercase tags), or None."""
    if tag.startswith("#"):
        return "must not start with #"
    if any(char.isspace() for char in tag):
        return "must not contain spaces"
    if not all(is_word_char(char) or char in "_-/" for char in tag):
        return "may use only letters (with their combining marks), digits, _, - and /"
    if "" in tag.split("/"):
        return "has an empty /-segment"
    if all(char.isdigit() or char == "/" for char in tag):
        return "must not be all digits"
    if tag != tag.lower():
        return "must be lowercase"
    return None


def _scalar_kind(node: yaml.ScalarNode) -> str:
    """Name the Obsidian type a scalar value would get: text, number, checkbox, date or datetime."""
    tag, value = node.tag, node.value
    if tag in (_INT, _FLOAT):
        return "number"
    if tag == _BOOL:
        return "checkbox"
    if tag in (_STR, _TIMESTAMP):
        if _DATE.fullmatch(value):
            return "date"
        if _DATETIME.fullmatch(value) or tag == _TIMESTAMP:
            return "datetime"
    return "text"


def _item_values(node: yaml.SequenceNode) -> set[str]:
    """Return the raw text of a list's scalar items."""
    return {item.value for item in node.value if isinstance(item, yaml.ScalarNode)}


def _text(props: dict[str, _Property], name: str) -> str | None:
    """Return a property's raw scalar text, or None when absent or not a scalar."""
    prop = props.get(name)
    if prop is None or not isinstance(prop.node, yaml.ScalarNode) or prop.node.tag == _NULL:
        return None
    value: str = prop.node.value
    return value


def _is_date(value: str) -> bool:
    """Tell whether a string is a real date written YYYY-MM-DD."""
    if not _DATE.fullmatch(value):
        return False
    try:
        date.fromisoformat(value)
    except ValueError:
        return False
    return True


def _is_datetime(value: str) -> bool:
    """Tell whether a string is a real date-time written YYYY-MM-DDTHH:MM:SS."""
    if not _DATETIME.fullmatch(value):
        return False
    try:
        datetime.fromisoformat(value)
    except ValueError:
        return False
    return True


def _split_pointer(document: str) -> tuple[str, str | None]:
    """Split `file.json#/pointer` into the file and the pointer; any other `#/` belongs to the path."""
    match = _POINTER_EVIDENCE.fullmatch(document)
    return (match.group("path"), match.group("pointer")) if match else (document, None)


def _is_relative_posix(path: str) -> bool:
    """Tell whether a path is relative, posix, and stays inside its root."""
    # A backslash is a character of a file name on posix systems (`a\\b.md`), not a separator.
    if not path or path.startswith("/"):
        return False
    return all(part not in ("", ".", "..") for part in path.split("/"))


def _is_one_of(value: object, allowed: frozenset[str] | set[str]) -> bool:
    """Tell whether a value read from YAML or JSON is one of the allowed strings (lists are not hashable)."""
    return isinstance(value, str) and value in allowed


def _is_base_sort(item: Any) -> bool:
    """Tell whether a .base sort or groupBy entry is {property, direction}."""
    return (
        isinstance(item, dict)
        and isinstance(item.get("property"), str)
        and _is_one_of(item.get("direction", "ASC"), _BASE_DIRECTIONS)
        and set(item) <= {"property", "direction"}
    )


def _table_cells(line: str) -> list[str] | None:
    """Split a Markdown table row into stripped cells (escaped pipes stay in their cell), or None."""
    row = line.strip()
    if not row.startswith("|"):
        return None
    row = row[1:]
    if row.endswith("|") and not row.endswith("\\|"):
        row = row[:-1]
    return [cell.strip() for cell in _UNESCAPED_PIPE.split(row)]


def _strip_code_spans(line: str) -> str:
    """Blank out inline code spans (a backtick run closed by a run of the same length)."""
    runs = list(_BACKTICKS.finditer(line))
    pieces: list[str] = []
    position = index = 0
    while index < len(runs):
        opener = runs[index]
        closer = next(
            (j for j in range(index + 1, len(runs)) if len(runs[j].group()) == len(opener.group())), None
        )
        if closer is None:
            index += 1
            continue
        pieces.append(line[position : opener.start()])
        pieces.append(" ")
        position = runs[closer].end()
        index = closer + 1
    pieces.append(line[position:])
    return "".join(pieces)


def _marker_offsets(text: str) -> list[int]:
    """Return where each line that is exactly the marker (CR allowed) starts in the text."""
    offsets = []
    start = text.find(MARKER)
    while start >= 0:
        end = start + len(MARKER)
        starts_line = start == 0 or text[start - 1] == "\n"
        ends_line = end == len(text) or text.startswith(("\n", "\r\n"), end) or text[end:] == "\r"
        if starts_line and ends_line:
            offsets.append(start)
        start = text.find(MARKER, end)
    return offsets


def _frontmatter_end(lines: list[str]) -> int:
    """Return the 1-based line closing a source's leading frontmatter block, or 0 when it has none."""
    if not lines or lines[0].rstrip() != "---":
        return 0
    for index in range(1, len(lines)):
        if lines[index].rstrip() in ("---", "..."):
            return index + 1
    return 0
