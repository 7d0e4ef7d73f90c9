"""Tests for the corrections file loader: each section, line numbers, problems, dedupe and file handling."""

from __future__ import annotations

import codecs
import os
from pathlib import Path

import pytest

from kgvault import corrections as corrections_module
from kgvault.corrections import (
    Correction,
    Corrections,
    load_corrections,
)
from kgvault.layout import CORRECTIONS_FILE
from kgvault.records import Problem

EXAMPLE = """\
# kgvault.corrections.yaml
merge:
  - [Marlin, Marlin firmware]
keep_apart:
  - [Jon Smith, John Smith]
rename:
  Ender3: Ender 3 Pro
retype:
  Apple: organization
hide:
  - Tried PLA at 200 C
confirm:
  - Postgres 16 runs in production
"""


def write(root: Path, content: str | bytes) -> Path:
    """Write the corrections file (text as UTF-8, or raw bytes) at the notes root."""
    path = root / CORRECTIONS_FILE
    path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    return path


def load(root: Path, content: str | bytes) -> tuple[Corrections, list[Problem]]:
    write(root, content)
    return load_corrections(root)


def messages(problems: list[Problem]) -> list[str]:
    return [problem.message for problem in problems]


# --- each action ---------------------------------------------------------------------------------


def test_the_documented_example_reads_every_action_with_its_line(tmp_path: Path) -> None:
    corrections, problems = load(tmp_path, EXAMPLE)
    assert problems == []
    assert corrections.items == (
        Correction("merge", ("Marlin", "Marlin firmware"), None, 3),
        Correction("keep_apart", ("Jon Smith", "John Smith"), None, 5),
        Correction("rename", ("Ender3",), "Ender 3 Pro", 7),
        Correction("retype", ("Apple",), "organization", 9),
        Correction("hide", ("Tried PLA at 200 C",), None, 11),
        Correction("confirm", ("Postgres 16 runs in production",), None, 13),
    )


def test_of_returns_one_action_in_file_order(tmp_path: Path) -> None:
    corrections, _ = load(tmp_path, "hide:\n  - B\nmerge:\n  - [x, y]\nhide:\n  - A\n")
    assert [c.targets for c in corrections.of("hide")] == [("B",), ("A",)]
    assert [c.targets for c in corrections.of("merge")] == [("x", "y")]
    assert corrections.of("rename") == ()


def test_describe_says_what_each_correction_does(tmp_path: Path) -> None:
    corrections, _ = load(tmp_path, EXAMPLE)
    assert [c.describe() for c in corrections.items] == [
        "merge Marlin + Marlin firmware",
        "keep apart Jon Smith / John Smith",
        "rename Ender3 → Ender 3 Pro",
        "retype Apple → organization",
        "hide “Tried PLA at 200 C”",
        "confirm “Postgres 16 runs in production”",
    ]


def test_merge_keeps_more_than_two_names_in_order(tmp_path: Path) -> None:
    corrections, problems = load(tmp_path, "merge:\n  - [Marlin, marlin-fw, Marlin firmware]\n")
    assert problems == []
    assert corrections.of("merge")[0].targets == ("Marlin", "marlin-fw", "Marlin firmware")


def test_block_style_items_start_on_their_first_entry_line(tmp_path: Path) -> None:
    text = "merge:\n  - - Marlin\n    - Marlin firmware\n  - - Cura\n    - UltiMaker Cura\n"
    corrections, problems = load(tmp_path, text)
    assert problems == []
    assert [(c.targets, c.line) for c in corrections.items] == [
        (("Marlin", "Marlin firmware"), 2),
        (("Cura", "UltiMaker Cura"), 4),
    ]


def test_references_are_stripped_and_inner_whitespace_collapsed(tmp_path: Path) -> None:
    text = 'rename:\n  "  Ender3  ": "Ender\\t3   Pro"\nhide:\n  - >\n    Tried PLA\n    at 200 C\n'
    corrections, problems = load(tmp_path, text)
    assert problems == []
    assert corrections.of("rename")[0].targets == ("Ender3",)
    assert corrections.of("rename")[0].value == "Ender 3 Pro"
    assert corrections.of("hide")[0].targets == ("Tried PLA at 200 C",)


def test_numbers_and_dates_are_names_as_written(tmp_path: Path) -> None:
    text = "merge:\n  - [2025, 1.10, 2024-05-01]\nrename:\n  42: 0x1F\n"
    corrections, problems = load(tmp_path, text)
    assert problems == []
    assert corrections.of("merge")[0].targets == ("2025", "1.10", "2024-05-01")
    assert corrections.of("rename")[0].targets == ("42",)
    assert corrections.of("rename")[0].value == "0x1F"


def test_retype_converts_spaces_hyphens_and_case_to_snake_case(tmp_path: Path) -> None:
    text = "retype:\n  Apple: Organization\n  Ender 3: 3D-printer model\n  Cura: Software  -  Project\n"
    corrections, problems = load(tmp_path, text)
    assert [(c.targets[0], c.value) for c in corrections.items] == [
        ("Apple", "organization"),
        ("Cura", "software_project"),
    ]
    assert len(problems) == 1
    assert problems[0].line == 3
    assert "3D-printer model" in problems[0].message
    assert "snake_case" in problems[0].message


@pytest.mark.parametrize("value", ["org!", "_org", "org_", "école"])
def test_retype_rejects_values_that_are_not_snake_case(tmp_path: Path, value: str) -> None:
    corrections, problems = load(tmp_path, f'retype:\n  Apple: "{value}"\n')
    assert corrections.items == ()
    assert [(p.line, "like organization" in p.message) for p in problems] == [(2, True)]


def test_empty_sections_are_no_corrections(tmp_path: Path) -> None:
    text = "merge:\nkeep_apart: []\nrename: {}\nretype:\nhide:\nconfirm: []\n"
    assert load(tmp_path, text) == (Corrections(), [])


# --- duplicates -----------------------------------------------------------------------------------


def test_identical_items_are_kept_once(tmp_path: Path) -> None:
    text = (
        "merge:\n  - [Marlin, Marlin firmware]\n  - [Marlin,  Marlin firmware]\n"
        "hide:\n  - Tried PLA\n  - Tried PLA\n"
        "rename:\n  Ender3: Ender 3 Pro\nrename:\n  Ender3: Ender 3 Pro\n"
    )
    corrections, problems = load(tmp_path, text)
    assert [(c.action, c.line) for c in corrections.items] == [("merge", 2), ("hide", 5), ("rename", 8)]
    # Only the repeated section is worth a word; the repeated items are silently dropped.
    assert [p.line for p in problems] == [9]


def test_keep_apart_in_either_order_is_one_item_but_merge_order_matters(tmp_path: Path) -> None:
    text = "keep_apart:\n  - [Jon, John]\n  - [John, Jon]\nmerge:\n  - [A, B]\n  - [B, A]\n"
    corrections, problems = load(tmp_path, text)
    assert problems == []
    assert [c.targets for c in corrections.of("keep_apart")] == [("Jon", "John")]
    # The first name's title survives a merge, so [B, A] is a different request.
    assert [c.targets for c in corrections.of("merge")] == [("A", "B"), ("B", "A")]


def test_a_name_repeated_inside_one_item_counts_once(tmp_path: Path) -> None:
    corrections, problems = load(tmp_path, "merge:\n  - [Marlin, Marlin, Cura]\n  - [Solo, Solo]\n")
    assert corrections.of("merge")[0].targets == ("Marlin", "Cura")
    assert len(corrections.items) == 1
    assert [p.line for p in problems] == [3]
    assert "at least two different entity names" in problems[0].message


def test_a_second_different_rename_of_one_name_is_a_problem(tmp_path: Path) -> None:
    text = "rename:\n  Ender3: Ender 3 Pro\n  Ender3: Ender 3 V2\nretype:\n  Apple: company\n  Apple: fruit\n"
    corrections, problems = load(tmp_path, text)
    assert [(c.action, c.value) for c in corrections.items] == [
        ("rename", "Ender 3 Pro"),
        ("retype", "company"),
    ]
    assert [p.line for p in problems] == [3, 6]
    assert "line 2" in problems[0].message
    assert "Ender 3 V2" in problems[0].message


def test_aliases_repeating_an_item_or_a_section_are_read_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    names = ", ".join(f"n{i}" for i in range(5000))
    hidden = ", ".join(f"h{i}" for i in range(5000))
    repeats = 50_000
    text = (
        f"x: [&big [{names}], &titles [{hidden}]]\nmerge:\n"
        + "  - *big\n" * repeats
        + "hide: *titles\n" * 5000
    )
    read: list[str] = []
    real = corrections_module._reference

    def reading(node, what):  # type: ignore[no-untyped-def]
        read.append(what)
        return real(node, what)

    monkeypatch.setattr(corrections_module, "_reference", reading)
    corrections, problems = load(tmp_path, text)
    # Each name is read once: reading every alias again would be 250 million names for merge alone.
    assert len(read) <= 10_000 + 10
    assert len(corrections.of("merge")) == 1
    assert len(corrections.of("merge")[0].targets) == 5000
    assert len(corrections.of("hide")) == 5000
    assert problems[0].line == 1  # the unknown section `x`
    assert len(problems) == 1 + 4999  # and each repeated `hide` key


# --- malformed items and sections -----------------------------------------------------------------


def test_merge_item_with_one_name_is_skipped_and_others_still_load(tmp_path: Path) -> None:
    text = "merge:\n  - [Marlin, Marlin firmware]\n  - [Cura]\n  - [PLA, polylactic acid]\n"
    corrections, problems = load(tmp_path, text)
    assert [c.line for c in corrections.items] == [2, 4]
    assert problems == [
        Problem(
            CORRECTIONS_FILE,
            3,
            "merge item 2 needs at least two different entity names, like [Marlin, Marlin firmware]; skipped",
        )
    ]


@pytest.mark.parametrize(
    ("item", "expected"),
    [
        ("Marlin", 'not the text "Marlin"'),
        ("{Marlin: firmware}", "not a `key: value` pair"),
        ("[Marlin, [a, b]]", "entry 2 is a list, not a name"),
        ("[Marlin, ~]", "entry 2 is empty"),
        ('[Marlin, "  "]', "entry 2 is empty"),
        ("[Marlin, yes]", 'put it in quotes ("yes")'),
        ("[Marlin, !!binary aGVsbG8=]", "tag !!binary"),
    ],
)
def test_malformed_keep_apart_items_are_skipped_with_a_reason(
    tmp_path: Path, item: str, expected: str
) -> None:
    corrections, problems = load(tmp_path, f"keep_apart:\n  - [A, B]\n  - {item}\n")
    assert [c.targets for c in corrections.items] == [("A", "B")]
    assert len(problems) == 1
    assert problems[0].line == 3
    assert problems[0].message.startswith("keep_apart item 2")
    assert expected in problems[0].message


def test_booleans_and_nulls_are_not_names(tmp_path: Path) -> None:
    text = "hide:\n  - true\n  - 'true'\n  - null\n  -\nconfirm:\n  - No\n"
    corrections, problems = load(tmp_path, text)
    assert [c.targets for c in corrections.items] == [("true",)]
    assert [(p.line, p.message.split(" ")[0]) for p in problems] == [
        (2, "hide"),
        (4, "hide"),
        (5, "hide"),
        (7, "confirm"),
    ]
    assert "true/false" in problems[0].message
    assert "is empty" in problems[1].message


def test_a_title_with_colon_space_gets_a_quoting_hint(tmp_path: Path) -> None:
    corrections, problems = load(tmp_path, "hide:\n  - Tried PLA: at 200 C\n")
    assert corrections.items == ()
    assert "put a name that contains “: ” in quotes" in problems[0].message


def test_bad_rename_entries_are_skipped_with_their_line(tmp_path: Path) -> None:
    text = "rename:\n  Ender3:\n  ? [a, b]\n  : c\n  Cura: [x]\n  Prusa: MK4\n"
    corrections, problems = load(tmp_path, text)
    assert corrections.items == (Correction("rename", ("Prusa",), "MK4", 6),)
    assert [p.line for p in problems] == [2, 3, 5]
    assert 'rename "Ender3": the new title is empty' in problems[0].message
    assert "the name before the colon is a list" in problems[1].message
    assert 'rename "Cura": the new title is a list' in problems[2].message


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("merge: Marlin\n", "`merge` must be a list of lists of entity names"),
        ("hide: {a: b}\n", "`hide` must be a list of node titles"),
        ("rename:\n  - Ender3: Ender 3 Pro\n", "remove the `- ` in front of each line"),
        ("retype: organization\n", "`retype` must be a mapping of entity name to entity type"),
    ],
)
def test_a_section_of_the_wrong_shape_is_skipped(tmp_path: Path, text: str, expected: str) -> None:
    corrections, problems = load(tmp_path, text + "confirm:\n  - Postgres 16\n")
    assert corrections.items == (Correction("confirm", ("Postgres 16",), None, len(text.splitlines()) + 2),)
    assert len(problems) == 1
    assert expected in problems[0].message
    assert "section skipped" in problems[0].message


def test_unknown_section_names_the_allowed_ones_and_others_still_load(tmp_path: Path) -> None:
    corrections, problems = load(tmp_path, "merge:\n  - [A, B]\nkeep-apart:\n  - [C, D]\nalias:\n  X: Y\n")
    assert [c.action for c in corrections.items] == ["merge"]
    assert [p.line for p in problems] == [3, 5]
    assert "unknown section `keep-apart` (did you mean `keep_apart`?)" in problems[0].message
    for problem in problems:
        assert "merge, keep_apart, rename, retype, hide, confirm" in problem.message


def test_a_repeated_section_is_read_and_reported(tmp_path: Path) -> None:
    corrections, problems = load(tmp_path, "hide:\n  - A\nhide:\n  - B\n")
    assert [c.targets for c in corrections.items] == [("A",), ("B",)]
    assert [p.line for p in problems] == [3]
    assert "first on line 1" in problems[0].message


# --- whole-file problems --------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["", "\n\n", "# only a comment\n# and another\n", "---\n", "---\n...\n"])
def test_an_empty_or_comment_only_file_is_no_corrections(tmp_path: Path, text: str) -> None:
    assert load(tmp_path, text) == (Corrections(), [])


def test_a_missing_file_is_no_corrections(tmp_path: Path) -> None:
    assert load_corrections(tmp_path) == (Corrections(), [])
    assert load_corrections(tmp_path / "no such folder") == (Corrections(), [])


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("merge:\n  - [Marlin, Marlin firmware\nhide:\n  - x\n", 3),
        ("hide:\n  - a\n - b\n", 3),
        ("hide: [a]\n---\nhide: [b]\n", 2),
        ("hide:\n  - a\x07b\n", 2),
        ("hide: [*nowhere]\n", 1),
    ],
)
def test_invalid_yaml_is_one_problem_and_no_corrections(tmp_path: Path, text: str, line: int) -> None:
    corrections, problems = load(tmp_path, text)
    assert corrections == Corrections()
    assert len(problems) == 1
    assert problems[0].path == CORRECTIONS_FILE
    assert problems[0].line == line
    assert problems[0].message.endswith("; no corrections were applied")


def test_deeply_nested_yaml_is_a_problem_not_a_crash(tmp_path: Path) -> None:
    corrections, problems = load(tmp_path, "merge: " + "[" * 50_000 + "]" * 50_000 + "\n")
    assert corrections == Corrections()
    assert len(problems) == 1


@pytest.mark.parametrize(("text", "kind"), [("- [A, B]\n", "a list"), ("merge Marlin\n", "the text")])
def test_a_top_level_that_is_not_a_mapping_is_a_problem(tmp_path: Path, text: str, kind: str) -> None:
    corrections, problems = load(tmp_path, text)
    assert corrections == Corrections()
    assert len(problems) == 1
    assert f"must hold sections such as `merge:` and `rename:`, not {kind}" in problems[0].message


def test_arbitrary_python_tags_are_never_constructed(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    text = f"hide:\n  - !!python/object/apply:os.system ['touch {marker}']\n  - Fine\n"
    corrections, problems = load(tmp_path, text)
    assert not marker.exists()
    assert [c.targets for c in corrections.items] == [("Fine",)]
    assert "YAML tag !!python/object/apply:os.system (remove the tag)" in problems[0].message


def test_tagged_collections_are_not_read_as_lists(tmp_path: Path) -> None:
    corrections, problems = load(tmp_path, "merge:\n  - !!set {A, B}\n  - [C, D]\n")
    assert [c.targets for c in corrections.items] == [("C", "D")]
    assert "YAML tag !!set" in problems[0].message


# --- encodings and file kinds ---------------------------------------------------------------------


def test_a_utf8_byte_order_mark_and_crlf_are_tolerated(tmp_path: Path) -> None:
    raw = codecs.BOM_UTF8 + EXAMPLE.replace("\n", "\r\n").encode("utf-8")
    corrections, problems = load(tmp_path, raw)
    assert problems == []
    assert [c.line for c in corrections.items] == [3, 5, 7, 9, 11, 13]


def test_non_ascii_names_are_kept(tmp_path: Path) -> None:
    corrections, problems = load(tmp_path, "merge:\n  - [Zoë, Zoe]\nrename:\n  東京: 東京都\n")
    assert problems == []
    assert [c.describe() for c in corrections.items] == ["merge Zoë + Zoe", "rename 東京 → 東京都"]


def test_undecodable_bytes_are_a_problem(tmp_path: Path) -> None:
    corrections, problems = load(tmp_path, b"hide:\n  - caf\xe9\n")
    assert corrections == Corrections()
    assert [(p.line, "save it as UTF-8" in p.message) for p in problems] == [(2, True)]


def test_utf16_is_a_problem_that_says_to_save_as_utf8(tmp_path: Path) -> None:
    corrections, problems = load(tmp_path, "hide:\n  - x\n".encode("utf-16"))
    assert corrections == Corrections()
    assert len(problems) == 1
    assert "UTF-16" in problems[0].message


def test_a_folder_named_like_the_file_is_a_problem(tmp_path: Path) -> None:
    (tmp_path / CORRECTIONS_FILE).mkdir()
    corrections, problems = load_corrections(tmp_path)
    assert corrections == Corrections()
    assert [(p.path, "is a folder" in p.message) for p in problems] == [(CORRECTIONS_FILE, True)]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_a_named_pipe_is_a_problem_and_is_not_opened(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / CORRECTIONS_FILE)
    corrections, problems = load_corrections(tmp_path)  # would hang if opened
    assert corrections == Corrections()
    assert "not a regular file" in problems[0].message


def test_an_unreadable_file_is_a_problem(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, EXAMPLE)

    def refuse(*args: object, **kwargs: object) -> None:
        raise PermissionError(13, "Permission denied")

    # chmod 000 does not stop root, so the denial is simulated where the module opens the file.
    monkeypatch.setattr(corrections_module, "open", refuse, raising=False)
    corrections, problems = load_corrections(tmp_path)
    assert corrections == Corrections()
    assert [p.message for p in problems] == [
        "cannot read the corrections file (Permission denied); check its permissions; "
        "no corrections were applied"
    ]


def test_a_symlink_inside_the_notes_root_is_followed(tmp_path: Path) -> None:
    (tmp_path / "settings").mkdir()
    (tmp_path / "settings" / "corrections.yaml").write_text(EXAMPLE, "utf-8")
    (tmp_path / CORRECTIONS_FILE).symlink_to(Path("settings") / "corrections.yaml")
    corrections, problems = load_corrections(tmp_path)
    assert problems == []
    assert len(corrections.items) == 6


def test_a_symlink_outside_the_notes_root_is_not_followed(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    outside = tmp_path / "elsewhere.yaml"
    outside.write_text(EXAMPLE, "utf-8")
    (notes / CORRECTIONS_FILE).symlink_to(outside)
    corrections, problems = load_corrections(notes)
    assert corrections == Corrections()
    assert len(problems) == 1
    assert "outside the notes root" in problems[0].message


def test_a_broken_symlink_is_a_problem(tmp_path: Path) -> None:
    (tmp_path / CORRECTIONS_FILE).symlink_to(tmp_path / "gone.yaml")
    corrections, problems = load_corrections(tmp_path)
    assert corrections == Corrections()
    assert "broken symbolic link" in problems[0].message


def test_a_notes_root_reached_through_a_symlink_still_reads_its_file(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    write(real, EXAMPLE)
    (tmp_path / "link").symlink_to(real)
    corrections, problems = load_corrections(tmp_path / "link")
    assert problems == []
    assert len(corrections.items) == 6


def test_the_example_in_the_docs_loads_without_problems(tmp_path: Path) -> None:
    docs = (Path(__file__).resolve().parent.parent / "docs" / "corrections.md").read_text("utf-8")
    example = docs.split("```yaml\n", 1)[1].split("```", 1)[0]
    corrections, problems = load(tmp_path, example)
    assert problems == []
    assert {c.action for c in corrections.items} == {
        "merge",
        "keep_apart",
        "rename",
        "retype",
        "hide",
        "confirm",
    }
