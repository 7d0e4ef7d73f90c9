"""Tests for the sources stage: discovery, decoding, frontmatter and dating of input files."""

from __future__ import annotations

import codecs
import hashlib
import operator
import os
import re
import threading
import unicodedata
from collections.abc import Iterator
from datetime import UTC, date, datetime
from pathlib import Path

import pytest
import yaml

from kgvault import sources as sources_module
from kgvault.discover import SourceError
from kgvault.records import Problem, Source
from kgvault.sources import SourceMemory, read_sources

from .conftest import SHARED_DATA, record_calls

REAL_VAULTS = SHARED_DATA / "real-vaults"


def write(root: Path, rel_path: str, content: str | bytes) -> Path:
    """Create a file (and its folders) under root with text (UTF-8) or raw bytes."""
    path = root / rel_path
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, str):
        path.write_bytes(content.encode("utf-8"))
    else:
        path.write_bytes(content)
    return path


def paths(sources: list[Source]) -> list[str]:
    return [source.path for source in sources]


def by_path(sources: list[Source]) -> dict[str, Source]:
    return {source.path: source for source in sources}


def problems_for(problems: list[Problem], rel_path: str) -> list[Problem]:
    return [problem for problem in problems if problem.path == rel_path]


def read_with_timeout(root: Path, seconds: float = 20.0) -> tuple[list[Source], list[Problem]]:
    """Run read_sources in a thread so a loop fails the test instead of hanging the run."""
    result: list[tuple[list[Source], list[Problem]]] = []
    thread = threading.Thread(target=lambda: result.append(read_sources(root)), daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), "read_sources did not finish: a symlink loop is being followed"
    assert result, "read_sources raised"
    return result[0]


def symlink(link: Path, target: Path | str, *, is_dir: bool = False) -> None:
    try:
        link.symlink_to(target, target_is_directory=is_dir)
    except (OSError, NotImplementedError) as error:
        pytest.skip(f"cannot create symbolic links here: {error}")


# --- the root ----------------------------------------------------------------------------------


def test_missing_root_raises_source_error(tmp_path: Path) -> None:
    with pytest.raises(SourceError):
        read_sources(tmp_path / "absent")
    file_root = write(tmp_path, "note.md", "x")
    with pytest.raises(SourceError):
        read_sources(file_root)


def test_empty_root_gives_nothing(tmp_path: Path) -> None:
    assert read_sources(tmp_path) == ([], [])


# --- discovery and sorting ---------------------------------------------------------------------


def test_discovers_sources_recursively_sorted_by_code_point(tmp_path: Path) -> None:
    for rel_path in [
        "b.md",
        "B.md",
        "a.md",
        "a-b.md",
        "a/x.md",
        "a/deep/er/y.markdown",
        "loud/NOTE.MD",
        "plain.txt",
        "shout.TXT",
        "é.md",
        "z.md",
    ]:
        write(tmp_path, rel_path, "hello\n")
    write(tmp_path, "image.png", b"\x89PNG")
    write(tmp_path, "data.json", "{}")
    write(tmp_path, "notes.md.bak", "old")
    sources, problems = read_sources(tmp_path)
    # JSON is read only as a chat export or a draft file; any other JSON file is named, never read.
    assert [(p.path, p.message) for p in problems] == [
        (
            "data.json",
            "JSON file is not a chat export (ChatGPT, Claude, Telegram, Messenger, Instagram, Discord, "
            "Slack) nor a draft file "
            "(kgvault.draft/1, Mnemon, mini-context-graph); skipped",
        )
    ]
    # Code-point order: uppercase before lowercase, "-" and "." before "/", non-ASCII last.
    assert paths(sources) == [
        "B.md",
        "a-b.md",
        "a.md",
        "a/deep/er/y.markdown",
        "a/x.md",
        "b.md",
        "loud/NOTE.MD",
        "plain.txt",
        "shout.TXT",
        "z.md",
        "é.md",
    ]
    found = by_path(sources)
    assert found["loud/NOTE.MD"].kind == "markdown"
    assert found["a/deep/er/y.markdown"].kind == "markdown"
    assert found["plain.txt"].kind == "text"
    assert found["shout.TXT"].kind == "text"
    assert all(source.id == source.path for source in sources)
    assert found["loud/NOTE.MD"].title == "NOTE"


def test_order_does_not_depend_on_listing_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for rel_path in ["c.md", "a/b.md", "b/a.md", "a.md", "a/a/a.md"]:
        write(tmp_path, rel_path, "x\n")
    forward, _ = read_sources(tmp_path)

    real_scandir = os.scandir

    class ReversedListing:
        def __init__(self, path: str) -> None:
            with real_scandir(path) as listing:
                self.entries = sorted(listing, key=lambda entry: entry.name, reverse=True)

        def __enter__(self) -> Iterator[os.DirEntry[str]]:
            return iter(self.entries)

        def __exit__(self, *exc: object) -> None:
            return None

    monkeypatch.setattr(os, "scandir", ReversedListing)
    backward, _ = read_sources(tmp_path)
    assert paths(backward) == paths(forward) == ["a.md", "a/a/a.md", "a/b.md", "b/a.md", "c.md"]


def test_skips_hidden_files_hidden_folders_and_node_modules(tmp_path: Path) -> None:
    write(tmp_path, "keep.md", "x")
    write(tmp_path, ".hidden.md", "x")
    write(tmp_path, ".obsidian/workspace.md", "x")
    write(tmp_path, ".trash/deleted.md", "x")
    write(tmp_path, "sub/.git/notes.md", "x")
    write(tmp_path, "sub/.draft.md", "x")
    write(tmp_path, "sub/visible.md", "x")
    write(tmp_path, "node_modules/pkg/README.md", "x")
    write(tmp_path, "web/node_modules/pkg/README.md", "x")
    sources, problems = read_sources(tmp_path)
    assert paths(sources) == ["keep.md", "sub/visible.md"]
    assert problems == []


def test_kgvaultignore_uses_gitignore_syntax(tmp_path: Path) -> None:
    write(
        tmp_path,
        ".kgvaultignore",
        "# comment\n"
        "drafts/\n"  # a folder anywhere
        "*.tmp.md\n"
        "archive/*\n"
        "!archive/keep.md\n"  # negation re-includes a file
        "/rootonly.md\n"  # anchored at the root
        "private\n"  # a name: file or folder
        "Templates/**/*.md\n"
        "!Templates/**/keep.md\n",
    )
    for rel_path in [
        "note.md",
        "drafts/a.md",
        "deep/drafts/b.md",
        "drafts.md",
        "x.tmp.md",
        "deep/y.tmp.md",
        "archive/old.md",
        "archive/keep.md",
        "rootonly.md",
        "sub/rootonly.md",
        "private/secret.md",
        "sub/private/secret.md",
        "Templates/daily/t.md",
        "Templates/daily/keep.md",
    ]:
        write(tmp_path, rel_path, "x")
    write(tmp_path, "drafts.txt", "x")
    sources, problems = read_sources(tmp_path)
    assert paths(sources) == [
        "Templates/daily/keep.md",
        "archive/keep.md",
        "drafts.md",
        "drafts.txt",
        "note.md",
        "sub/rootonly.md",
    ]
    assert problems == []


def test_kgvaultignore_cannot_reinclude_a_file_inside_an_ignored_folder(tmp_path: Path) -> None:
    # As in git: once a folder is excluded, nothing inside it can be re-included.
    write(tmp_path, ".kgvaultignore", "old/\n!old/keep.md\n")
    write(tmp_path, "old/keep.md", "x")
    write(tmp_path, "new.md", "x")
    sources, _ = read_sources(tmp_path)
    assert paths(sources) == ["new.md"]


def test_bad_ignore_pattern_is_reported_and_the_rest_still_applies(tmp_path: Path) -> None:
    write(tmp_path, ".kgvaultignore", "skip.md\n!\n")
    write(tmp_path, "skip.md", "x")
    write(tmp_path, "keep.md", "x")
    sources, problems = read_sources(tmp_path)
    assert paths(sources) == ["keep.md"]
    assert [(problem.path, problem.line) for problem in problems] == [(".kgvaultignore", 2)]
    assert "ignore pattern" in problems[0].message


def test_output_vault_inside_the_root_is_excluded(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    write(notes, "note.md", "x")
    write(notes, "vault/episodic/a.md", "generated")
    write(notes, "vault/index.md", "generated")
    write(notes, "other/vault/kept.md", "x")
    sources, problems = read_sources(notes, exclude=[notes / "vault"])
    assert paths(sources) == ["note.md", "other/vault/kept.md"]
    assert problems == []
    # Compared as resolved paths, however the folder is spelled.
    roundabout = notes / "other" / ".." / "vault"
    sources, _ = read_sources(notes, exclude=[roundabout])
    assert paths(sources) == ["note.md", "other/vault/kept.md"]
    # Without the exclusion the vault's pages would be read.
    sources, _ = read_sources(notes)
    assert "vault/index.md" in paths(sources)


def test_exclude_outside_or_equal_to_the_root_hides_nothing(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    write(notes, "note.md", "x")
    sources, _ = read_sources(notes, exclude=[notes, tmp_path, tmp_path / "elsewhere"])
    assert paths(sources) == ["note.md"]


def test_output_vault_is_excluded_when_the_root_is_reached_through_a_link(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    write(notes, "note.md", "x")
    write(notes, "vault/index.md", "generated")
    alias = tmp_path / "alias"
    symlink(alias, notes, is_dir=True)
    sources, _ = read_sources(alias, exclude=[notes / "vault"])
    assert paths(sources) == ["note.md"]


def test_nested_kgvault_vault_is_skipped(tmp_path: Path) -> None:
    write(tmp_path, "note.md", "x")
    write(tmp_path, "old-build/.kgvault/manifest.json", "{}")
    write(tmp_path, "old-build/episodic/a.md", "generated")
    write(tmp_path, "old-build/index.md", "generated")
    # A `.kgvault` folder without a manifest is not a vault.
    write(tmp_path, "project/.kgvault/cache/x.json", "{}")
    write(tmp_path, "project/plan.md", "x")
    sources, problems = read_sources(tmp_path)
    assert paths(sources) == ["note.md", "project/plan.md"]
    assert [problem.path for problem in problems] == ["old-build"]
    assert "kgvault vault" in problems[0].message


# --- bytes and decoding --------------------------------------------------------------------------


def test_binary_file_is_skipped_with_a_problem(tmp_path: Path) -> None:
    write(tmp_path, "blob.md", b"PK\x03\x04\x00\x00binary")
    write(tmp_path, "late-nul.md", b"a" * 9000 + b"\x00")  # NUL after the first 8 KiB: text
    write(tmp_path, "ok.md", "fine")
    sources, problems = read_sources(tmp_path)
    assert paths(sources) == ["late-nul.md", "ok.md"]
    assert [(problem.path, problem.line) for problem in problems] == [("blob.md", None)]
    assert "binary" in problems[0].message
    assert "skipped" in problems[0].message


def test_utf8_bom_is_stripped(tmp_path: Path) -> None:
    write(tmp_path, "bom.md", codecs.BOM_UTF8 + "---\ntitle: Bommed\n---\nBody é\n".encode())
    sources, problems = read_sources(tmp_path)
    assert problems == []
    (source,) = sources
    assert source.text == "---\ntitle: Bommed\n---\nBody é\n"
    assert source.title == "Bommed"
    assert source.frontmatter_lines == (1, 3)
    assert source.sha256 == hashlib.sha256((tmp_path / "bom.md").read_bytes()).hexdigest()


def test_crlf_and_lone_cr_become_lf(tmp_path: Path) -> None:
    write(tmp_path, "crlf.md", b"---\r\ntitle: Windows\r\n---\r\nline one\r\nline two\r\n")
    write(tmp_path, "cr.txt", b"old\rmac\rtext")
    write(tmp_path, "mixed.md", b"a\r\nb\rc\nd")
    sources, problems = read_sources(tmp_path)
    assert problems == []
    found = by_path(sources)
    assert found["crlf.md"].text == "---\ntitle: Windows\n---\nline one\nline two\n"
    assert found["crlf.md"].meta == {"title": "Windows"}
    assert found["crlf.md"].body_line == 4
    assert found["cr.txt"].text == "old\nmac\ntext"
    assert found["mixed.md"].text == "a\nb\nc\nd"


def test_decomposed_accents_are_read_composed(tmp_path: Path) -> None:
    # As macOS may write it: "Kĩmani" as "Ki" and a combining tilde.
    decomposed = unicodedata.normalize(
        "NFD", "---\ntitle: Wambui Kĩmani\n---\nWambui Kĩmani lives in Mombasa.\n"
    )
    write(tmp_path, "Wambui.md", decomposed.encode())
    (source,), problems = read_sources(tmp_path)
    assert problems == []
    assert source.text == unicodedata.normalize("NFC", decomposed) != decomposed
    assert source.title == "Wambui Kĩmani"
    assert source.text.count("\n") == decomposed.count("\n")


def test_invalid_utf8_is_replaced_and_reported_with_its_line(tmp_path: Path) -> None:
    write(tmp_path, "latin1.md", "first\nsecond\r\nthird café\nfourth\n".encode("latin-1"))
    sources, problems = read_sources(tmp_path)
    (source,) = sources
    assert source.text == "first\nsecond\nthird caf\ufffd\nfourth\n"
    (problem,) = problems
    assert (problem.path, problem.line) == ("latin1.md", 3)
    assert "UTF-8" in problem.message
    assert "0xe9" in problem.message


def test_invalid_utf8_line_counts_lone_cr(tmp_path: Path) -> None:
    write(tmp_path, "old.txt", b"one\rtwo\rthr\xffee")
    _, problems = read_sources(tmp_path)
    assert [problem.line for problem in problems] == [3]


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
def test_utf16_with_bom_is_decoded(tmp_path: Path, codec: str) -> None:
    bom = codecs.BOM_UTF16_LE if codec == "utf-16-le" else codecs.BOM_UTF16_BE
    text = "---\r\ntitle: Wide\r\ndate: 2024-05-06\r\n---\r\nUnicode ✓ body\r\n"
    write(tmp_path, "wide.md", bom + text.encode(codec))
    sources, problems = read_sources(tmp_path)
    assert problems == []  # NUL bytes of UTF-16 do not make it binary
    (source,) = sources
    assert source.text == "---\ntitle: Wide\ndate: 2024-05-06\n---\nUnicode ✓ body\n"
    assert source.title == "Wide"
    assert source.reference_time == date(2024, 5, 6)
    assert source.body_line == 5


def test_source_bytes_are_untouched(tmp_path: Path) -> None:
    contents: dict[str, bytes] = {
        "bom.md": codecs.BOM_UTF8 + b"---\r\ntitle: x\r\n---\r\nbody\r\n",
        "latin1.md": "caf\xe9".encode("latin-1"),
        "wide.txt": codecs.BOM_UTF16_LE + "hi\r\n".encode("utf-16-le"),
        "broken.md": b"---\ncreated: {{date}}\n---\n",
        "blob.md": b"\x00\x01",
    }
    for rel_path, raw in contents.items():
        write(tmp_path, rel_path, raw)

    def snapshot() -> dict[str, tuple[str, int]]:
        return {
            path.relative_to(tmp_path).as_posix(): (
                hashlib.sha256(path.read_bytes()).hexdigest(),
                path.stat().st_mtime_ns,
            )
            for path in tmp_path.rglob("*")
        }

    before = snapshot()
    sources, _ = read_sources(tmp_path)
    assert snapshot() == before  # same files, same bytes, same times, nothing new
    for source in sources:
        assert source.sha256 == hashlib.sha256(contents[source.path]).hexdigest()


def test_file_larger_than_the_limit_is_skipped(tmp_path: Path) -> None:
    write(tmp_path, "huge.md", "x" * 2000)
    write(tmp_path, "small.md", "x" * 10)
    sources, problems = read_sources(tmp_path, max_bytes=1000)
    assert paths(sources) == ["small.md"]
    assert [problem.path for problem in problems] == ["huge.md"]
    assert "larger than" in problems[0].message


def test_unreadable_file_and_folder_are_problems(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Simulated, because permission bits do not stop root (tests may run as root in containers).
    write(tmp_path, "locked.md", "x")
    write(tmp_path, "open.md", "x")
    write(tmp_path, "closed/inside.md", "x")
    real_open, real_scandir = open, os.scandir

    def guarded_open(path: str, mode: str = "r") -> object:
        if os.path.basename(path) == "locked.md":
            raise PermissionError(13, "Permission denied")
        return real_open(path, mode)

    def guarded_scandir(path: str) -> object:
        if os.path.basename(path) == "closed":
            raise PermissionError(13, "Permission denied")
        return real_scandir(path)

    monkeypatch.setattr(sources_module, "open", guarded_open, raising=False)
    monkeypatch.setattr(os, "scandir", guarded_scandir)
    sources, problems = read_sources(tmp_path)
    assert paths(sources) == ["open.md"]
    assert [problem.path for problem in problems] == ["closed", "locked.md"]
    assert all("Permission denied" in problem.message for problem in problems)


def test_file_name_that_is_not_utf8_is_reported(tmp_path: Path) -> None:
    try:
        with open(os.path.join(os.fsencode(tmp_path), b"bad\xff.md"), "wb") as handle:
            handle.write(b"x")
    except OSError:
        pytest.skip("the file system refuses non-UTF-8 names")
    write(tmp_path, "good.md", "x")
    sources, problems = read_sources(tmp_path)
    assert paths(sources) == ["good.md"]
    assert len(problems) == 1
    assert "UTF-8" in problems[0].message
    problems[0].path.encode("utf-8")  # the reported path itself is printable


# --- frontmatter -----------------------------------------------------------------------------------


def test_good_frontmatter(tmp_path: Path) -> None:
    write(
        tmp_path,
        "note.md",
        "---\n"
        "title: My Note\n"
        "tags:\n"
        "  - a\n"
        "  - b/c\n"
        "date: 2024-03-12\n"
        "rating: 4.5\n"
        "links: ['[[Other]]']\n"
        "---\n"
        "# Heading\n"
        "Body\n",
    )
    sources, problems = read_sources(tmp_path)
    assert problems == []
    (source,) = sources
    assert source.meta == {
        "title": "My Note",
        "tags": ["a", "b/c"],
        "date": date(2024, 3, 12),
        "rating": 4.5,
        "links": ["[[Other]]"],
    }
    assert source.title == "My Note"
    assert source.frontmatter_lines == (1, 9)
    assert source.body_line == 10
    assert source.text.splitlines()[source.body_line - 1] == "# Heading"
    assert source.text.startswith("---\ntitle: My Note\n")  # text keeps the frontmatter


def test_frontmatter_closed_by_dots_and_empty_frontmatter(tmp_path: Path) -> None:
    write(tmp_path, "dots.md", "---\ntitle: Dots\n...\nbody\n")
    write(tmp_path, "empty.md", "---\n---\nbody\n")
    sources, problems = read_sources(tmp_path)
    assert problems == []
    found = by_path(sources)
    assert found["dots.md"].meta == {"title": "Dots"}
    assert found["dots.md"].body_line == 4
    assert found["empty.md"].meta == {}
    assert found["empty.md"].frontmatter_lines == (1, 2)
    assert found["empty.md"].body_line == 3


def test_frontmatter_values_become_plain_python(tmp_path: Path) -> None:
    write(
        tmp_path,
        "odd.md",
        "---\n"
        "2: two\n"
        "true: yes\n"
        "2024-01-02: a date key\n"
        "when: 2024-02-30\n"  # not a real day: kept as text, not a crash
        "at: 2024-01-02 10:30:00+02:00\n"
        "set: !!set {b, a}\n"
        "---\n",
    )
    sources, problems = read_sources(tmp_path)
    assert problems == []
    meta = sources[0].meta
    assert list(meta) == ["2", "true", "2024-01-02", "when", "at", "set"]
    assert meta["when"] == "2024-02-30"
    assert isinstance(meta["at"], datetime)
    assert meta["set"] == ["a", "b"]


def test_recursive_yaml_anchor_is_a_problem_not_a_crash(tmp_path: Path) -> None:
    write(tmp_path, "loop.md", "---\na: &x [*x]\n---\nbody\n")
    sources, problems = read_sources(tmp_path)
    assert sources[0].meta == {}
    assert [problem.path for problem in problems] == ["loop.md"]


def test_broken_yaml_is_reported_with_its_file_line(tmp_path: Path) -> None:
    write(tmp_path, "broken.md", "---\ntitle: Fine\naliases:\n- @name\n---\n# Body\n")
    sources, problems = read_sources(tmp_path)
    (source,) = sources
    assert source.meta == {}
    assert source.title == "broken"
    assert source.frontmatter_lines == (1, 5)
    assert source.body_line == 6
    (problem,) = problems
    assert (problem.path, problem.line) == ("broken.md", 4)
    assert "not valid YAML" in problem.message
    assert "read as text without properties" in problem.message


def test_template_placeholders_in_yaml_are_reported(tmp_path: Path) -> None:
    write(
        tmp_path,
        "Templates/Book.md",
        "---\ncategories:\n  - '[[Books]]'\nauthor: []\ncreated: {{date}}\n---\n## Notes\n",
    )
    write(tmp_path, "Templates/Quoted.md", "---\ncreated: '{{date}}'\n---\n")
    sources, problems = read_sources(tmp_path)
    found = by_path(sources)
    assert found["Templates/Book.md"].meta == {}
    assert found["Templates/Book.md"].body_line == 7
    assert [(problem.path, problem.line) for problem in problems] == [
        ("Templates/Book.md", 5),
        ("Templates/Quoted.md", 2),
    ]
    assert "not valid YAML" in problems[0].message
    assert "holds a template's placeholder, not a date" in problems[1].message
    # Quoted, it is valid YAML but not a date: kept as a property, reported, not used as the date.
    assert found["Templates/Quoted.md"].meta == {"created": "{{date}}"}
    assert found["Templates/Quoted.md"].reference_time is None


@pytest.mark.parametrize(("yaml_text", "what"), [("- a\n- b", "a list"), ("just words", "a string")])
def test_frontmatter_that_is_not_a_mapping(tmp_path: Path, yaml_text: str, what: str) -> None:
    write(tmp_path, "list.md", f"---\n{yaml_text}\n---\nbody\n")
    sources, problems = read_sources(tmp_path)
    (source,) = sources
    assert source.meta == {}
    assert source.body_line == yaml_text.count("\n") + 4
    (problem,) = problems
    assert problem.path == "list.md"
    assert what in problem.message
    assert "not a mapping" in problem.message


def test_unclosed_frontmatter_is_all_body(tmp_path: Path) -> None:
    write(tmp_path, "open.md", "---\ntitle: Never closed\n\n# Heading\ntext\n")
    sources, problems = read_sources(tmp_path)
    (source,) = sources
    assert source.meta == {}
    assert source.title == "open"
    assert source.body_line == 1
    assert source.frontmatter_lines is None
    assert [(problem.path, problem.line) for problem in problems] == [("open.md", 1)]
    assert "not closed" in problems[0].message


def test_frontmatter_not_on_line_one_is_text(tmp_path: Path) -> None:
    write(tmp_path, "late.md", "\n---\ntitle: Late\n---\nbody\n")
    write(tmp_path, "prose.md", "Intro\n---\ntitle: no\n---\n")
    write(tmp_path, "rule.md", "----\ntitle: no\n----\n")
    sources, problems = read_sources(tmp_path)
    assert problems == []
    for source in sources:
        assert source.meta == {}
        assert source.body_line == 1
        assert source.frontmatter_lines is None
    assert by_path(sources)["late.md"].title == "late"


def test_text_files_have_no_frontmatter(tmp_path: Path) -> None:
    write(tmp_path, "plain.txt", "---\ntitle: Not parsed\n---\n")
    sources, problems = read_sources(tmp_path)
    assert problems == []
    assert sources[0].meta == {}
    assert sources[0].title == "plain"
    assert sources[0].body_line == 1


@pytest.mark.parametrize("title_yaml", ["title: ''", "title: '   '", "title: 42", "title: [a]", "title:"])
def test_title_falls_back_to_the_file_name(tmp_path: Path, title_yaml: str) -> None:
    write(tmp_path, "folder/My File.v2.md", f"---\n{title_yaml}\n---\n")
    sources, _ = read_sources(tmp_path)
    assert sources[0].title == "My File.v2"


@pytest.mark.parametrize(
    ("frontmatter", "title"),
    [
        ("name: Ghoulish Cravings", "Ghoulish Cravings"),  # a Dataview note names its thing so
        ("title: The Title\nname: A Name", "The Title"),  # title wins
        ("name: '[[Someone]]'", "ghoulish-cravings"),  # a link names another note
        ("name: 42", "ghoulish-cravings"),
    ],
)
def test_a_name_property_titles_a_note_without_a_title(tmp_path: Path, frontmatter: str, title: str) -> None:
    write(tmp_path, "spells/ghoulish-cravings.md", f"---\n{frontmatter}\n---\nText.\n")
    sources, _ = read_sources(tmp_path)
    assert sources[0].title == title


# --- reference time --------------------------------------------------------------------------------


def test_reference_time_precedence(tmp_path: Path) -> None:
    write(tmp_path, "2020-01-01 both.md", "---\ndate: 2024-03-12\ncreated: 2023-01-01\n---\n")
    write(tmp_path, "2020-01-01 created.md", "---\ncreated: 2023-01-01\n---\n")
    write(tmp_path, "2020-01-01 name.md", "---\ntitle: x\n---\n")
    write(tmp_path, "undated.md", "---\ntitle: x\n---\n")
    write(tmp_path, "string.md", "---\ndate: '2024-07-08T23:30:00-05:00'\n---\n")  # UTC: the 9th
    write(tmp_path, "stamp.md", "---\ncreated: 2024-07-08T23:30:00-05:00\n---\n")
    write(tmp_path, "empty 2021-05-05.md", "---\ndate:\ncreated: ''\n---\n")
    sources, problems = read_sources(tmp_path)
    assert problems == []
    found = {source.path: source.reference_time for source in sources}
    assert found == {
        "2020-01-01 both.md": date(2024, 3, 12),
        "2020-01-01 created.md": date(2023, 1, 1),
        "2020-01-01 name.md": date(2020, 1, 1),
        "undated.md": None,
        "string.md": date(2024, 7, 9),
        "stamp.md": date(2024, 7, 9),
        "empty 2021-05-05.md": date(2021, 5, 5),
    }


def test_bad_frontmatter_date_is_reported_and_falls_back(tmp_path: Path) -> None:
    write(tmp_path, "n 2019-09-09.md", "---\ntitle: x\ndate: next tuesday\ncreated: 2022-02-02\n---\n")
    write(tmp_path, "m 2019-09-09.md", "---\ndate: someday\n---\n")
    sources, problems = read_sources(tmp_path)
    found = by_path(sources)
    assert found["n 2019-09-09.md"].reference_time == date(2022, 2, 2)
    assert found["m 2019-09-09.md"].reference_time == date(2019, 9, 9)
    assert [(problem.path, problem.line) for problem in problems] == [
        ("m 2019-09-09.md", 2),
        ("n 2019-09-09.md", 3),
    ]
    assert "`date` is not a date" in problems[0].message


def test_a_frontmatter_time_past_the_calendars_end_is_out_of_range_as_written(tmp_path: Path) -> None:
    write(tmp_path, "n.md", "---\ndate: 9999-12-31T23:59:59-01:00\n---\nText.\n")
    sources, problems = read_sources(tmp_path)
    assert by_path(sources)["n.md"].reference_time is None
    [problem] = problems
    assert problem.message == (
        "frontmatter `date` is out of range: in the time zone it falls outside years 1 to 9999 "
        "(9999-12-31T23:59:59-01:00); not used to date the note"
    )


def test_daily_note_file_names_give_the_reference_time(tmp_path: Path) -> None:
    write(tmp_path, "Daily/2024-03-12.md", "# Tuesday\n")
    write(tmp_path, "Daily/20240313.md", "# Wednesday\n")
    write(tmp_path, "journal/2024_03_14 standup.txt", "notes\n")
    write(tmp_path, "2024/03/notes.md", "folders are not the file name\n")
    sources, _ = read_sources(tmp_path)
    found = {source.path: source.reference_time for source in sources}
    assert found == {
        "2024/03/notes.md": None,
        "Daily/2024-03-12.md": date(2024, 3, 12),
        "Daily/20240313.md": date(2024, 3, 13),
        "journal/2024_03_14 standup.txt": date(2024, 3, 14),
    }


def test_a_date_line_at_the_top_of_the_body_dates_a_note_with_none(tmp_path: Path) -> None:
    write(tmp_path, "Call with Nadia.md", "# Call with Nadia\n\nDate: March 25, 2025\nAttendees: Omar\n")
    write(tmp_path, "Standup.md", "# Standup\nCreated: March 26, 2025 4:12 PM\n\nOmar left early.\n")
    write(tmp_path, "Sync.md", "---\ntags: [work]\n---\ndate:: 2025-03-27\n")
    write(tmp_path, "2025-03-28.md", "Date: March 1, 2020\n")  # the file name's date comes first
    write(tmp_path, "Late.md", "\n" * 20 + "Date: March 29, 2025\n")  # too far down: a line of the text
    write(tmp_path, "Plan.md", "Date: TBD, after the launch\n")
    sources, _ = read_sources(tmp_path)
    assert {source.path: source.reference_time for source in sources} == {
        "Call with Nadia.md": date(2025, 3, 25),
        "Standup.md": date(2025, 3, 26),
        "Sync.md": date(2025, 3, 27),
        "2025-03-28.md": date(2025, 3, 28),
        "Late.md": None,
        "Plan.md": None,
    }


def test_a_line_that_is_only_a_date_near_the_top_dates_a_note_with_none(tmp_path: Path) -> None:
    write(tmp_path, "Work notes.txt", "Work notes\nFebruary 24, 2025\n\nI joined the platform team.\n")
    # Not among the first three lines; a sentence, no date line; a birth date; a deadline's; a person's.
    write(tmp_path, "Plan.md", "# Plan\n\nShip it.\n\nMore.\n\nFebruary 24, 2025\n")
    write(tmp_path, "Talk.md", "February 24, 2025 was the day it all changed.\n")
    write(tmp_path, "Mum.md", "# Mum\n1958-07-12\n\nLives in Leeds.\n")
    write(tmp_path, "Grant.md", "# Grant\nDue\nJune 30, 2025\n")
    write(tmp_path, "People/Mia.md", "# Mia\n20 November 2024\n")
    sources, _ = read_sources(tmp_path)
    assert {source.path: source.reference_time for source in sources} == {
        "Work notes.txt": date(2025, 2, 24),
        "Plan.md": None,
        "Talk.md": None,
        "Mum.md": None,
        "Grant.md": None,
        "People/Mia.md": None,
    }


def test_logseq_page_properties_are_the_notes_properties(tmp_path: Path) -> None:
    write(
        tmp_path,
        "pages/Caddy.md",
        "type:: software\nalias:: Caddy server, caddy2\nicon:: 🌐\n\n- Caddy is fast.\n",
    )
    write(tmp_path, "Kept.md", "---\ntype: tool\n---\ntype:: software\n")  # frontmatter first
    write(tmp_path, "Late.md", "- Caddy is fast.\n\ntype:: software\n")  # not opening the body
    sources, _ = read_sources(tmp_path)
    meta = {source.path: source.meta for source in sources}
    assert meta["pages/Caddy.md"] == {"type": "software", "aliases": ["Caddy server", "caddy2"]}
    assert meta["Kept.md"] == {"type": "tool"}
    assert meta["Late.md"] == {}


def test_reference_time_never_comes_from_mtime(tmp_path: Path) -> None:
    path = write(tmp_path, "note.md", "no date here\n")
    stamp = datetime(2001, 2, 3, tzinfo=UTC).timestamp()
    os.utime(path, (stamp, stamp))
    sources, _ = read_sources(tmp_path)
    assert sources[0].reference_time is None


# --- symbolic links --------------------------------------------------------------------------------


def test_symlink_to_a_file_inside_the_root_is_read(tmp_path: Path) -> None:
    write(tmp_path, "real/note.md", "---\ntitle: Real\n---\nbody\n")
    symlink(tmp_path / "alias.md", Path("real/note.md"))
    sources, problems = read_sources(tmp_path)
    assert problems == []
    found = by_path(sources)
    assert sorted(found) == ["alias.md", "real/note.md"]
    assert found["alias.md"].text == found["real/note.md"].text
    assert found["alias.md"].title == "Real"


def test_symlink_to_a_hidden_folder_inside_the_root_is_followed(tmp_path: Path) -> None:
    write(tmp_path, ".stash/idea.md", "x")
    symlink(tmp_path / "ideas", Path(".stash"), is_dir=True)
    sources, problems = read_sources(tmp_path)
    assert paths(sources) == ["ideas/idea.md"]
    assert problems == []


def test_symlinks_leading_outside_the_root_are_skipped(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    outside = tmp_path / "outside"
    write(outside, "secret.md", "x")
    write(outside, "deep/more.md", "x")
    write(notes, "note.md", "x")
    symlink(notes / "linked", outside, is_dir=True)
    symlink(notes / "up", Path(".."), is_dir=True)
    symlink(notes / "secret.md", outside / "secret.md")
    sources, problems = read_with_timeout(notes)
    assert paths(sources) == ["note.md"]
    reported = {problem.path: problem.message for problem in problems}
    assert sorted(reported) == ["linked", "secret.md", "up"]
    assert "outside the notes root" in reported["linked"]
    assert "folder" in reported["linked"]
    assert "outside the notes root" in reported["secret.md"]


def test_ignored_symlink_is_not_reported(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    write(notes, ".kgvaultignore", "linked/\n")
    write(tmp_path, "outside/secret.md", "x")
    symlink(notes / "linked", tmp_path / "outside", is_dir=True)
    assert read_sources(notes) == ([], [])


def test_symlink_loop_terminates_and_is_reported(tmp_path: Path) -> None:
    write(tmp_path, "a/note.md", "x")
    symlink(tmp_path / "a" / "again", Path(".."), is_dir=True)  # to the root
    symlink(tmp_path / "a" / "self", Path("."), is_dir=True)  # to its own folder
    symlink(tmp_path / "spin.md", Path("spin.md"))  # a link to itself
    symlink(tmp_path / "ping", Path("pong"))  # two links to each other
    symlink(tmp_path / "pong", Path("ping"))
    sources, problems = read_with_timeout(tmp_path)
    assert paths(sources) == ["a/note.md"]
    reported = {problem.path: problem.message for problem in problems}
    assert sorted(reported) == ["a/again", "a/self", "ping", "pong", "spin.md"]
    assert all("loop" in message for message in reported.values())


def test_linked_folders_pointing_at_each_other_terminate(tmp_path: Path) -> None:
    write(tmp_path, ".x/one.md", "x")
    write(tmp_path, ".y/two.md", "x")
    symlink(tmp_path / ".x" / "to-y", Path("../.y"), is_dir=True)
    symlink(tmp_path / ".y" / "to-x", Path("../.x"), is_dir=True)
    symlink(tmp_path / "x", Path(".x"), is_dir=True)
    sources, _ = read_with_timeout(tmp_path)
    assert paths(sources) == ["x/one.md", "x/to-y/two.md"]


def test_folder_alias_inside_the_root_is_read_once_under_its_real_path(tmp_path: Path) -> None:
    write(tmp_path, "zettel/card.md", "x")
    symlink(tmp_path / "alias", Path("zettel"), is_dir=True)  # sorts before its target
    sources, problems = read_sources(tmp_path)
    assert paths(sources) == ["zettel/card.md"]
    assert [problem.path for problem in problems] == ["alias"]
    assert "already read" in problems[0].message


def test_broken_symlink_is_a_problem(tmp_path: Path) -> None:
    write(tmp_path, "note.md", "x")
    symlink(tmp_path / "gone.md", Path("missing.md"))
    sources, problems = read_sources(tmp_path)
    assert paths(sources) == ["note.md"]
    assert [problem.path for problem in problems] == ["gone.md"]
    assert "broken" in problems[0].message


# --- scale and real vaults ---------------------------------------------------------------------------


def test_two_thousand_notes_are_all_read(tmp_path: Path) -> None:
    body = "# Heading\n\n" + "Some words about things [[Link]] and #tag.\n" * 40
    for index in range(2000):
        write(tmp_path, f"folder{index % 20}/note {index}.md", body)
    sources, problems = read_sources(tmp_path)
    assert len(sources) == 2000
    assert problems == []


def _has_broken_yaml(path: Path) -> bool:
    """Independently decide whether a Markdown file opens with frontmatter PyYAML cannot load."""
    text = path.read_bytes().decode("utf-8-sig", errors="replace").replace("\r\n", "\n")
    lines = text.split("\n")
    if lines[0].rstrip() != "---":
        return False
    for number, line in enumerate(lines[1:], start=1):
        if line.rstrip() in ("---", "..."):
            try:
                yaml.safe_load("\n".join(lines[1:number]))
            except yaml.YAMLError:
                return True
            return False
    return False


@pytest.mark.parametrize("vault", ["kepano-obsidian", "ttrpg-share"])
def test_real_vaults_read_without_crashing(vault: str) -> None:
    root = REAL_VAULTS / vault
    assert root.is_dir(), f"missing test data {root}"
    sources, problems = read_sources(root)
    assert sources
    assert paths(sources) == sorted(paths(sources))
    # Every Markdown file outside hidden folders was read or reported.
    expected = {
        path.relative_to(root).as_posix()
        for path in root.rglob("*")
        if path.suffix.lower() in {".md", ".markdown", ".txt"}
        and not any(part.startswith(".") or part == "node_modules" for part in path.relative_to(root).parts)
    }
    assert set(paths(sources)) | {problem.path for problem in problems} >= expected
    broken = {rel_path for rel_path in expected if _has_broken_yaml(root / rel_path)}
    yaml_problems = {problem.path for problem in problems if "YAML" in problem.message}
    assert broken <= yaml_problems
    assert all(by_path(sources)[rel_path].meta == {} for rel_path in broken)
    if vault == "kepano-obsidian":
        # The Templates folder has `created: {{date}}` style placeholders.
        templated = {
            rel_path
            for rel_path in expected
            if rel_path.startswith("Templates/")
            and re.search(r"^\w+: \{\{", (root / rel_path).read_text(encoding="utf-8"), re.MULTILINE)
        }
        assert templated
        assert templated <= yaml_problems


# --- a watch's kept notes ------------------------------------------------------------------------


def settled_memory() -> SourceMemory:
    """A source memory that takes every file as saved long ago (none is racy)."""
    kept = SourceMemory()
    kept.RACY_NS = -(10**18)  # "read long after its last save", whatever the file's times
    return kept


def spy_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    return record_calls(monkeypatch, sources_module, "_read_source", lambda rel_path, *_: rel_path)


def test_a_kept_note_is_read_again_only_when_its_stats_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path, "a.md", "# A\nAlpha.\n")
    write(tmp_path, "b.md", "# B\nBeta.\n")
    reads = spy_reads(monkeypatch)
    kept = settled_memory()
    first, _ = read_sources(tmp_path, kept=kept)
    again, _ = read_sources(tmp_path, kept=kept)
    assert reads == ["a.md", "b.md"]  # the second read opened no file
    assert again == first and all(map(operator.is_, again, first))
    write(tmp_path, "b.md", "# B\nBeta, and then some.\n")
    third, problems = read_sources(tmp_path, kept=kept)
    assert reads[2:] == ["b.md"]
    assert (third, problems) == read_sources(tmp_path)
    assert "then some" in by_path(third)["b.md"].text


def test_a_note_saved_just_before_it_was_read_is_read_every_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path, "a.md", "# A\nAlpha.\n")
    reads = spy_reads(monkeypatch)
    kept = SourceMemory()  # the file was just saved: the same stats may hide a second save
    read_sources(tmp_path, kept=kept)
    read_sources(tmp_path, kept=kept)
    assert reads == ["a.md", "a.md"]


def test_kept_problems_are_reported_again_and_gone_files_forgotten(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path, "big.md", "x" * 100)
    write(tmp_path, "small.md", "# Small\n")
    kept = settled_memory()
    _, problems = read_sources(tmp_path, max_bytes=50, kept=kept)
    reads = spy_reads(monkeypatch)
    sources, again = read_sources(tmp_path, max_bytes=50, kept=kept)
    assert reads == [] and again == problems and problems_for(again, "big.md")
    (tmp_path / "small.md").unlink()
    sources, _ = read_sources(tmp_path, max_bytes=50, kept=kept)
    assert sources == [] and set(kept.files) == {"big.md"}
    # Other reading settings read every file anew.
    sources, problems = read_sources(tmp_path, max_bytes=500, kept=kept)
    assert reads == ["big.md"] and paths(sources) == ["big.md"] and problems == []
