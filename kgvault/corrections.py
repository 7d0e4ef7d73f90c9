"""Corrections: read `kgvault.corrections.yaml`, the user's fixes to pass 2, into typed records.

This module only parses and validates. It keeps references as the user wrote them
(whitespace tidied); the link stage matches them to entities and nodes and applies them.
Nothing here raises on bad input: whatever is wrong becomes a `Problem`.
"""

from __future__ import annotations

import codecs
import difflib
import errno
import json
import os
import re
import stat
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal, TypeGuard

import yaml

from kgvault.layout import CORRECTIONS_FILE
from kgvault.records import Problem
from kgvault.secrets import mask_secrets

MAX_BYTES = 5_000_000
"""A larger corrections file is not read: nobody writes that much by hand."""

Action = Literal["merge", "keep_apart", "rename", "retype", "hide", "confirm"]
ACTIONS: tuple[Action, ...] = ("merge", "keep_apart", "rename", "retype", "hide", "confirm")
"""The sections the file may have, in the order the docs list them."""

_ACTION_BY_NAME: dict[str, Action] = {action: action for action in ACTIONS}
_GROUP_ACTIONS = frozenset({"merge", "keep_apart"})
_MAPPING_ACTIONS = frozenset({"rename", "retype"})
_SHAPES: dict[Action, tuple[str, str]] = {
    "merge": ("a list of lists of entity names", "- [Marlin, Marlin firmware]"),
    "keep_apart": ("a list of lists of entity names", "- [Jon Smith, John Smith]"),
    "rename": ("a mapping of entity name to new title", "Ender3: Ender 3 Pro"),
    "retype": ("a mapping of entity name to entity type", "Apple: organization"),
    "hide": ("a list of node titles", "- Tried PLA at 200 C"),
    "confirm": ("a list of node titles", "- Postgres 16 runs in production"),
}
"""What each section holds and one line of it, for problem messages."""

_TAG = "tag:yaml.org,2002:"
# YAML reads plain `2025` or `2024-05-01` as a number or date, but as a name it is the text as written.
_TEXT_TAGS = frozenset(_TAG + kind for kind in ("str", "int", "float", "timestamp"))
# The vault checker's rule for `entity_type`, so a retype never produces a page it rejects.
_SNAKE_CASE = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)*")
_TYPE_SEPARATORS = re.compile(r"[\s_-]+")
_NOT_APPLIED = "no corrections were applied"


@dataclass(frozen=True, slots=True)
class Correction:
    """One line of the corrections file, kept with where it was written."""

    action: Action
    """The section it came from."""
    targets: tuple[str, ...]
    """References (title, alias or id): two or more for merge and keep_apart, else exactly one."""
    value: str | None = None
    """The new title (rename) or entity type (retype); None for the other actions."""
    line: int | None = None
    """1-based line in the corrections file where the item starts."""
    by_model: bool = False
    """Advised by a model (`--llm-link`), not written by the user."""

    def describe(self) -> str:
        """Say in one line what this correction does, as `ontology.md` lists it."""
        if self.action == "merge":
            return "merge " + " + ".join(self.targets) + (" (advised by the model)" if self.by_model else "")
        if self.action == "keep_apart":
            return "keep apart " + " / ".join(self.targets)
        if self.action in _MAPPING_ACTIONS:
            return f"{self.action} {self.targets[0]} → {self.value}"
        return f"{self.action} “{self.targets[0]}”"


@dataclass(frozen=True, slots=True)
class Corrections:
    """Every valid correction of the file, in file order, duplicates removed."""

    items: tuple[Correction, ...] = ()

    def of(self, action: Action) -> tuple[Correction, ...]:
        """Return the corrections of one action, in file order."""
        return tuple(item for item in self.items if item.action == action)


def load_corrections(notes_root: Path) -> tuple[Corrections, list[Problem]]:
    """Read the corrections file at the notes root; a missing file is no corrections."""
    problems: list[Problem] = []
    text = _read_text(Path(notes_root), problems)
    root = _compose(text, problems) if text is not None else None
    if root is None:
        return Corrections(), problems
    parser = _Parser(problems)
    parser.read_file(root)
    return Corrections(tuple(parser.items)), problems


# --- reading the file ------------------------------------------------------------------------


def _fail(problems: list[Problem], message: str, line: int | None = None) -> None:
    """Report a problem that stops the whole file from being used."""
    problems.append(Problem(CORRECTIONS_FILE, line, f"{message}; {_NOT_APPLIED}"))


def _read_text(notes_root: Path, problems: list[Problem]) -> str | None:
    """Return the decoded file, or None when it is absent or unusable (with a problem)."""
    path = notes_root / CORRECTIONS_FILE
    try:
        is_link = stat.S_ISLNK(os.lstat(path).st_mode)
    except OSError as error:
        if error.errno not in (errno.ENOENT, errno.ENOTDIR):
            _fail(problems, f"cannot inspect the corrections file ({error.strerror}); check its permissions")
        return None
    real = os.path.realpath(path)
    if is_link and not Path(real).is_relative_to(os.path.realpath(notes_root)):
        _fail(
            problems,
            "the corrections file is a symbolic link to a file outside the notes root, which is not "
            "followed; put the file itself in the notes folder",
        )
        return None
    try:
        # Checked before opening: opening a named pipe would wait forever for a writer.
        mode = os.stat(real).st_mode
        if stat.S_ISDIR(mode):
            _fail(problems, "the corrections file is a folder; remove it or replace it with a YAML file")
            return None
        if not stat.S_ISREG(mode):
            _fail(problems, "the corrections file is not a regular file; replace it with a YAML file")
            return None
        with open(real, "rb") as handle:
            raw = handle.read(MAX_BYTES + 1)
    except OSError as error:
        if is_link and error.errno in (errno.ENOENT, errno.ELOOP):
            _fail(problems, "the corrections file is a broken symbolic link; fix or remove the link")
        else:
            _fail(problems, f"cannot read the corrections file ({error.strerror}); check its permissions")
        return None
    if len(raw) > MAX_BYTES:
        _fail(
            problems, f"the corrections file is larger than {MAX_BYTES:,} bytes; keep only real corrections"
        )
        return None
    return _decode(raw, problems)


def _decode(raw: bytes, problems: list[Problem]) -> str | None:
    """Decode UTF-8, tolerating a byte order mark; None (with a problem) for anything else."""
    if raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE, codecs.BOM_UTF32_BE)):
        _fail(problems, "the corrections file is saved as UTF-16 or UTF-32; save it as UTF-8")
        return None
    raw = raw.removeprefix(codecs.BOM_UTF8)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw[: error.start].count(b"\n") + 1
        _fail(
            problems,
            f"the corrections file is not valid UTF-8 (byte 0x{raw[error.start]:02x}); save it as UTF-8",
            line,
        )
        return None


def _compose(text: str, problems: list[Problem]) -> yaml.Node | None:
    """Parse YAML into nodes (which keep line numbers); None when empty or invalid (with a problem)."""
    try:
        # Composing builds no Python objects, so no tag can run code (as safe_load guarantees).
        return yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        what = error.problem or "syntax error"
        if error.context and error.context.startswith("while") and error.context_mark is not None:
            # The context's line is often where the real mistake is, e.g. an unclosed `[`.
            what += f" {error.context} that starts on line {error.context_mark.line + 1}"
        elif error.context:  # "expected a single document in the stream, but found another document"
            what = f"{error.context}, {what}"
        line = mark.line + 1 if mark is not None else None
        _fail(problems, f"the corrections file is not valid YAML ({what}); fix it", line)
    except yaml.reader.ReaderError as error:
        line = text[: error.position].count("\n") + 1
        _fail(
            problems,
            f"the corrections file has a character YAML does not allow (U+{error.character:04X}); remove it",
            line,
        )
    except yaml.YAMLError as error:
        _fail(problems, f"the corrections file is not valid YAML ({error}); fix it")
    except RecursionError:
        _fail(problems, "the corrections file nests lists or mappings thousands deep; fix it")
    return None


# --- walking the YAML tree -------------------------------------------------------------------


class _Invalid(Exception):
    """One entry of an item is not usable; the message says what is wrong and what to do."""


def _line(node: yaml.Node) -> int:
    return int(node.start_mark.line) + 1


def _is_null(node: yaml.Node) -> bool:
    return isinstance(node, yaml.ScalarNode) and node.tag == _TAG + "null"


def _short(tag: str) -> str:
    """Write a tag the way users type it: `!!binary`, not `tag:yaml.org,2002:binary`."""
    return "!!" + tag.removeprefix(_TAG) if tag.startswith(_TAG) else tag


def _is_list(node: yaml.Node) -> TypeGuard[yaml.SequenceNode]:
    return isinstance(node, yaml.SequenceNode) and node.tag == _TAG + "seq"


def _is_mapping(node: yaml.Node) -> TypeGuard[yaml.MappingNode]:
    return isinstance(node, yaml.MappingNode) and node.tag == _TAG + "map"


def _kind(node: yaml.Node) -> str:
    """Name what a node is, for messages: the text itself for a scalar."""
    if isinstance(node, yaml.CollectionNode) and not (_is_list(node) or _is_mapping(node)):
        return f"a value with the YAML tag {_short(node.tag)} (remove the tag)"
    if _is_null(node):
        return "empty"
    if isinstance(node, yaml.ScalarNode):
        text = " ".join(str(node.value).split())
        return "the text " + json.dumps(text if len(text) <= 60 else text[:57] + "…", ensure_ascii=False)
    if isinstance(node, yaml.SequenceNode):
        return "a list"
    if len(node.value) == 1:
        # Usually a name with `: ` in it, which YAML reads as a key and a value.
        return "a `key: value` pair (put a name that contains “: ” in quotes)"
    return "a mapping"


def _reference(node: yaml.Node, what: str) -> str:
    """Return a scalar's text with whitespace tidied, or raise _Invalid saying what to write instead."""
    if not isinstance(node, yaml.ScalarNode):
        raise _Invalid(f"{what} is {_kind(node)}, not a name")
    if node.tag == _TAG + "bool":
        raise _Invalid(
            f"{what} ({node.value}) is read by YAML as true/false; "
            f'put it in quotes ("{node.value}") to use it as a name'
        )
    if node.tag != _TAG + "null" and node.tag not in _TEXT_TAGS:
        raise _Invalid(
            f"{what} has the YAML tag {_short(node.tag)}, which corrections do not use; remove the tag"
        )
    text = " ".join(str(node.value).split()) if node.tag in _TEXT_TAGS else ""
    if not text:
        raise _Invalid(f"{what} is empty; write a name there or remove it")
    return text


def _entity_type(node: yaml.Node, what: str) -> str:
    """Return an entity type in snake_case, converting `Software Project` to `software_project`."""
    written = _reference(node, what)
    entity_type = _TYPE_SEPARATORS.sub("_", written.lower())
    if not _SNAKE_CASE.fullmatch(entity_type):
        raise _Invalid(
            f"{json.dumps(written, ensure_ascii=False)} is not a snake_case entity type; "
            "use lowercase letters, digits and _, starting with a letter, like organization"
        )
    return entity_type


def _unique(names: list[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(names))


def _unknown_section(key: yaml.Node, name: str | None) -> str:
    """Say why a top-level key is not a section, naming the sections and the likely one."""
    allowed = ", ".join(ACTIONS)
    if name is None or _is_null(key):
        return f"a section name must be a word, not {_kind(key)}; the sections are {allowed}"
    guess = difflib.get_close_matches(_TYPE_SEPARATORS.sub("_", name.lower()), ACTIONS, n=1)
    hint = f" (did you mean `{guess[0]}`?)" if guess else ""
    return f"unknown section `{name}`{hint}; the sections are {allowed}"


@dataclass(slots=True)
class _Parser:
    """Walk the composed YAML section by section, keeping valid items and reporting the rest."""

    problems: list[Problem]
    items: list[Correction] = field(default_factory=list)
    seen: set[tuple[object, ...]] = field(default_factory=set)
    """Identity of every kept item, so a repeated item is kept once."""
    first_value: dict[tuple[str, str], Correction] = field(default_factory=dict)
    """The kept rename or retype of each reference, to catch a second, different one."""
    visited: set[int] = field(default_factory=set)
    """Ids of collection nodes already read: YAML aliases can repeat one node many times."""

    def problem(self, node: yaml.Node, message: str) -> None:
        self.problems.append(Problem(CORRECTIONS_FILE, _line(node), mask_secrets(message)[0]))

    def first_visit(self, node: yaml.Node) -> bool:
        if id(node) in self.visited:
            return False
        self.visited.add(id(node))
        return True

    def read_file(self, root: yaml.Node) -> None:
        """Read every known section of the top-level mapping; an empty document has none."""
        if _is_null(root):
            return
        if not _is_mapping(root):
            self.problem(
                root,
                f"the corrections file must hold sections such as `merge:` and `rename:`, "
                f"not {_kind(root)}; {_NOT_APPLIED}",
            )
            return
        first_lines: dict[str, int] = {}
        for key, value in root.value:
            name = str(key.value) if isinstance(key, yaml.ScalarNode) else None
            action = _ACTION_BY_NAME.get(name) if name is not None else None
            if action is None:
                self.problem(key, f"{_unknown_section(key, name)}; section skipped")
                continue
            if action in first_lines:
                self.problem(
                    key,
                    f"section `{action}` appears again (first on line {first_lines[action]}); "
                    "both are read here, but other YAML tools keep only the last: join them into one",
                )
            first_lines.setdefault(action, _line(key))
            self.read_section(action, value)

    def read_section(self, action: Action, node: yaml.Node) -> None:
        """Read one section, checking its shape first; an empty section is fine."""
        if _is_null(node) or not self.first_visit(node):
            return
        if action in _MAPPING_ACTIONS and _is_mapping(node):
            self.read_mapping(action, node)
        elif action in _GROUP_ACTIONS and _is_list(node):
            self.read_groups(action, node)
        elif action not in _MAPPING_ACTIONS and _is_list(node):
            self.read_list(action, node)
        else:
            shape, example = _SHAPES[action]
            hint = ""
            if action in _MAPPING_ACTIONS and _is_list(node):
                hint = " (remove the `- ` in front of each line)"
            self.problem(
                node,
                f"`{action}` must be {shape}, not {_kind(node)}{hint}; write one item per line "
                f"under it, indented, like `{example}`; section skipped",
            )

    def read_groups(self, action: Action, node: yaml.SequenceNode) -> None:
        """Read merge or keep_apart: each item is a list of at least two different references."""
        example = _SHAPES[action][1].removeprefix("- ")
        for number, item in enumerate(node.value, start=1):
            where = f"{action} item {number}"
            if not self.first_visit(item):
                continue
            if not _is_list(item):
                self.problem(
                    item,
                    f"{where} must be a list of at least two entity names, like {example}, "
                    f"not {_kind(item)}; skipped",
                )
                continue
            try:
                names = _unique(
                    [_reference(entry, f"entry {index}") for index, entry in enumerate(item.value, start=1)]
                )
            except _Invalid as error:
                self.problem(item, f"{where}: {error}; item skipped")
                continue
            if len(names) < 2:
                self.problem(
                    item, f"{where} needs at least two different entity names, like {example}; skipped"
                )
                continue
            self.add(Correction(action, names, None, _line(item)))

    def read_mapping(self, action: Action, node: yaml.MappingNode) -> None:
        """Read rename or retype: each entry maps one reference to a new title or type."""
        what = "the new title" if action == "rename" else "the entity type"
        for number, (key, value) in enumerate(node.value, start=1):
            try:
                target = _reference(key, "the name before the colon")
            except _Invalid as error:
                self.problem(key, f"{action} entry {number}: {error}; skipped")
                continue
            where = f"{action} {json.dumps(target, ensure_ascii=False)}"
            try:
                new = _reference(value, what) if action == "rename" else _entity_type(value, what)
            except _Invalid as error:
                self.problem(key, f"{where}: {error}; skipped")
                continue
            self.add(Correction(action, (target,), new, _line(key)))

    def read_list(self, action: Action, node: yaml.SequenceNode) -> None:
        """Read hide or confirm: each item is one node reference."""
        for number, item in enumerate(node.value, start=1):
            try:
                target = _reference(item, f"{action} item {number}")
            except _Invalid as error:
                self.problem(item, f"{error}; skipped")
                continue
            self.add(Correction(action, (target,), None, _line(item)))

    def add(self, correction: Correction) -> None:
        """Keep a correction unless it repeats one already kept or contradicts an earlier rename/retype.

        Its words are masked first, as a page's are: a key pasted into the file names no page and
        shows in no table, and "hide: My password is …" finds the node whose title is masked so.
        """
        correction = replace(
            correction,
            targets=tuple(mask_secrets(target)[0] for target in correction.targets),
            value=mask_secrets(correction.value)[0] if correction.value is not None else None,
        )
        action, targets = correction.action, correction.targets
        # Keeping apart is symmetric: [A, B] and [B, A] say the same thing.
        key = (action, tuple(sorted(targets)) if action == "keep_apart" else targets, correction.value)
        if key in self.seen:
            return
        if action in _MAPPING_ACTIONS:
            earlier = self.first_value.setdefault((action, targets[0]), correction)
            if earlier is not correction:
                self.problems.append(
                    Problem(
                        CORRECTIONS_FILE,
                        correction.line,
                        f"{action} {json.dumps(targets[0], ensure_ascii=False)} is given twice "
                        f"(line {earlier.line} says {json.dumps(earlier.value, ensure_ascii=False)}); "
                        f"this one ({json.dumps(correction.value, ensure_ascii=False)}) is skipped: keep one",
                    )
                )
                return
        self.seen.add(key)
        self.items.append(correction)
