"""A notes folder with 20 planted secrets of 16 kinds, built with the CLI: none of them is left in
the vault in clear text, the nodes they touch are confidential, and a vault built for sharing
(`--max-sensitivity`) holds none of them, not even masked.

The notes (tests/fixtures/secrets/notes) plant each secret in a different place: frontmatter
values, prose, list items, a table, a heading, a fenced block, a `.txt` note, a transcript
(frontmatter `participants`) and a JSON Lines chat log.
"""

from __future__ import annotations

import gc
import json
import re
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

from kgvault.check import check_vault
from kgvault.cli import main

from .conftest import run_build
from .llm_stub import StubLLM

NOTES = Path(__file__).resolve().parent / "fixtures" / "secrets" / "notes"
NODE_FOLDERS = ("episodic", "semantic")


@dataclass(frozen=True)
class Planted:
    name: str
    value: str
    """The secret as planted (the first place it is found in the notes by)."""
    secret: str
    """The part that must never show: no 8 characters of it in a row, in any case."""
    mask: str | None
    """Its mask when distinctive enough to find in a page (a password's `…` is not)."""


PLANTED = (
    Planted(
        "openai_key",
        "sk-proj-Zq8xV3nT6wK1mR9pL4sY7bH2cJ5dF0gA",
        "Zq8xV3nT6wK1mR9pL4sY7bH2cJ5dF0gA",
        "sk-…F0gA",
    ),
    Planted(
        "anthropic_key",
        "sk-ant-api03-Xy7Qw2Er9Ty4Ui1Op6As3Df8Gh5Jk0Lz",
        "Xy7Qw2Er9Ty4Ui1Op6As3Df8Gh5Jk0Lz",
        "sk-…k0Lz",
    ),
    Planted(
        "github_token",
        "ghp_R4nD0mT0k3nV4lu3F0rT3st1ngPurp0s3sXy",
        "R4nD0mT0k3nV4lu3F0rT3st1ngPurp0s3sXy",
        "ghp…3sXy",
    ),
    Planted("aws_key", "AKIAQ3EXAMPLE7KGV2PL", "Q3EXAMPLE7KGV2PL", "AKI…V2PL"),
    Planted(
        "slack_token",
        "xoxb-2468013579-1357924680-Q2w3E4r5T6y7U8i9O0pA",
        "2468013579-1357924680-Q2w3E4r5T6y7U8i9O0pA",
        "xox…O0pA",
    ),
    Planted(
        "google_key",
        "AIzaSyD4x7Kq2Lm9Np3Rs8Tu1Vw6Xy0Za5Bc7De",
        "SyD4x7Kq2Lm9Np3Rs8Tu1Vw6Xy0Za5Bc7De",
        "AIz…c7De",
    ),
    Planted("stripe_key", "sk_live_51Mz9QxR2vT8wY4kN7pL3sJ6hF", "51Mz9QxR2vT8wY4kN7pL3sJ6hF", "sk_…J6hF"),
    Planted(
        "jwt",
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIi",
        "eyJzdWIiOiJkYW5hIiwiaWF0IjoxNzAwMDAwMDAwfQ.Qm9ndXNTaWduYXR1cmVGb3JUZXN0czEyMzQ1Ng",
        "eyJ…Q1Ng",
    ),
    Planted(
        "private_key",
        "-----BEGIN OPENSSH PRIVATE KEY-----",
        "jlZLm4gzzxYMnigKeqxrMxBYx2xloDCVED3uhmSPvXPuV8mzrRLD8mmzrD43oeIZWMKP"
        "\nox3hH+5XJbo8kgOM+O6xxnZB5qQz7cNusuq8xD/SAWv5VaUtNYrKH2OaJtH5sQAM3dC1",
        "[private key]",
    ),
    Planted("password_value", "Tr0ub4dor&3xyz", "Tr0ub4dor&3xyz", None),
    Planted("password_prose", "Qv7!harbor-Mint-92", "Qv7!harbor-Mint-92", None),
    Planted("email", "dana.secret.kim@protonmail.example", "dana.secret.kim", "d…@protonmail.example"),
    Planted("phone", "+44 20 7946 0958", "+44 20 7946 0958", "+44 …0958"),
    Planted("iban", "DE89 3704 0044 0532 0130 00", "DE89 3704 0044 0532 0130 00", "DE…3000"),
    Planted("iban_compact", "GB82 WEST 1234 5698 7654 32", "GB82WEST12345698765432", "GB…5432"),
    Planted("card", "4539148803436467", "4539148803436467", "…6467"),
    Planted("card_spaced", "4539 1488 0343 6467", "4539 1488 0343 6467", "…6467"),
    Planted("url_password", "Sup3rS3cretPw!", "Sup3rS3cretPw!", "atlas_admin:…@db.internal.example.com"),
    Planted("token_near_key_word", "Hx7Kp2Wq9Zr4Tm6Vn1Bc8Ld3Fs", "Hx7Kp2Wq9Zr4Tm6Vn1Bc8Ld3Fs", "Hx7…d3Fs"),
    Planted(
        "token_alone", "Pk3Lz9Qw7Xc2Vb5Nm8As4Df1Gh6Jk0Tr", "Pk3Lz9Qw7Xc2Vb5Nm8As4Df1Gh6Jk0Tr", "Pk3…k0Tr"
    ),
)
SEARCH_INDEX = ".kgvault/state/search.sqlite"

KNOWN_LEAKS: dict[tuple[str, str], str] = {}
"""Leaks found and not yet fixed, by (secret, where): none now (a heading's secret was the last)."""


def _params(where: str) -> list[object]:
    params: list[object] = []
    for planted in PLANTED:
        reason = KNOWN_LEAKS.get((planted.name, where))
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        params.append(pytest.param(planted, id=planted.name, marks=marks))
    return params


def _windows(secret: str) -> set[bytes]:
    """Every 8 characters of the secret in a row, lower-cased (a search index folds case)."""
    secret = secret.lower()
    return {secret[i : i + 8].encode("utf-8") for i in range(len(secret) - 7)}


def _leaks(files: dict[str, bytes], secret: str) -> dict[str, list[str]]:
    windows = _windows(secret)
    found: dict[str, list[str]] = {}
    for rel, data in files.items():
        lowered = data.lower()
        hits = sorted(w.decode() for w in windows if w in lowered)
        if hits:
            found[rel] = hits[:3]
    return found


def _files(vault: Path) -> dict[str, bytes]:
    return {p.relative_to(vault).as_posix(): p.read_bytes() for p in sorted(vault.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    vault = tmp_path_factory.mktemp("planted") / "vault"
    report = run_build(NOTES, vault)
    assert report["problems"] == []
    return vault


def test_the_notes_plant_every_secret_and_at_least_fourteen_kinds() -> None:
    text = "\n".join(p.read_text("utf-8") for p in NOTES.rglob("*") if p.is_file())
    for planted in PLANTED:
        assert planted.value in text, planted.name
    kinds = {planted.name.removesuffix("_compact").removesuffix("_spaced") for planted in PLANTED}
    assert len(kinds) >= 14
    suffixes = {p.suffix for p in NOTES.rglob("*") if p.is_file()}
    assert suffixes == {".md", ".txt", ".jsonl"}


@pytest.mark.parametrize("planted", _params("pages"))
def test_no_planted_secret_in_clear_in_any_vault_file(built: Path, planted: Planted) -> None:
    """Pages, relations, manifest, cache and state, the search index aside (next test)."""
    files = {rel: data for rel, data in _files(built).items() if rel != SEARCH_INDEX}
    assert {".kgvault/manifest.json", "relations.jsonl", "index.md"} <= files.keys()
    assert any(rel.startswith(".kgvault/cache/") for rel in files)
    assert _leaks(files, planted.secret) == {}


@pytest.mark.parametrize("planted", _params("index"))
def test_no_planted_secret_in_clear_in_the_search_index(built: Path, planted: Planted) -> None:
    index = {SEARCH_INDEX: (built / SEARCH_INDEX).read_bytes()}
    assert _leaks(index, planted.secret) == {}


def _planted_lines() -> dict[str, dict[str, set[int]]]:
    """For each planted secret, the notes-relative files and the line numbers it is planted on."""
    where: dict[str, dict[str, set[int]]] = {}
    for path in sorted(NOTES.rglob("*")):
        if not path.is_file():
            continue
        rel = path.relative_to(NOTES).as_posix()
        lines = path.read_text("utf-8").split("\n")
        for planted in PLANTED:
            for number, line in enumerate(lines, start=1):
                if planted.value in line or planted.secret.split("\n")[0] in line:
                    where.setdefault(planted.name, {}).setdefault(rel, set()).add(number)
    return where


_SOURCE_LINE = re.compile(
    r"^- \[\[sources/(?P<summary>[^|\]]+)(?:\|[^\]]*)?\]\], lines (?P<a>\d+)-(?P<b>\d+)"
)
_SOURCE_DOCUMENT = re.compile(r"^source_document: (?P<path>.+)$", re.MULTILINE)


def _nodes(vault: Path) -> dict[str, str]:
    return {
        p.relative_to(vault).as_posix(): p.read_text("utf-8")
        for folder in NODE_FOLDERS
        for p in sorted((vault / folder).glob("*.md"))
    }


def _cited(vault: Path, page: str) -> list[tuple[str, int, int]]:
    """The (notes-relative file, first line, last line) ranges a node page's `## Sources` cite."""
    summaries: dict[str, str] = {}
    cited = []
    for line in page.split("## Sources", 1)[-1].split("\n"):
        match = _SOURCE_LINE.match(line)
        if match is None:
            continue
        summary = match.group("summary")
        if summary not in summaries:
            document = _SOURCE_DOCUMENT.search((vault / "sources" / f"{summary}.md").read_text("utf-8"))
            assert document is not None
            summaries[summary] = document.group("path").strip().strip('"')
        cited.append((summaries[summary], int(match.group("a")), int(match.group("b"))))
    return cited


def _sensitivity(page: str) -> str:
    match = re.search(r"^sensitivity: (\S+)$", page, re.MULTILINE)
    assert match is not None
    return match.group(1)


def _confidential_params() -> list[object]:
    params: list[object] = []
    for planted in PLANTED:
        marks: list[pytest.MarkDecorator] = []
        params.append(pytest.param(planted, id=planted.name, marks=marks))
    return params


@pytest.mark.parametrize("planted", _confidential_params())
def test_every_node_citing_a_planted_line_is_confidential(built: Path, planted: Planted) -> None:
    planted_on = _planted_lines()[planted.name]
    touched = {
        name: page
        for name, page in _nodes(built).items()
        if any(
            first <= number <= last
            for path, first, last in _cited(built, page)
            for number in planted_on.get(path, ())
        )
        or (planted.mask is not None and planted.mask in page)
    }
    assert {name: _sensitivity(page) for name, page in touched.items()} == dict.fromkeys(
        touched, "confidential"
    )


def test_the_masks_show_in_confidential_nodes(built: Path) -> None:
    """Not vacuous: most planted secrets yield a node, which keeps the secret's mask."""
    pages = _nodes(built)
    shown = {p.name for p in PLANTED if p.mask and any(p.mask in page for page in pages.values())}
    assert len(shown) >= 12, shown
    assert sum(_sensitivity(page) == "confidential" for page in pages.values()) >= 14


def test_the_vault_passes_the_checker(built: Path) -> None:
    assert check_vault(built, notes=NOTES) == []


def _build_shared(tmp_path: Path, level: str) -> Path:
    vault = tmp_path / f"{level}-vault"
    report = run_build(NOTES, vault, "--max-sensitivity", level)
    assert report["problems"] == []
    return vault


def _assert_shared_vault_holds_nothing_above(vault: Path, level: str) -> None:
    above = {"public": ("private", "confidential"), "private": ("confidential",)}[level]
    pages = {rel: data for rel, data in _files(vault).items() if rel.endswith(".md")}
    for rel, data in pages.items():
        for sensitivity in above:
            assert f"sensitivity: {sensitivity}".encode() not in data, rel
    shared = {**pages, "relations.jsonl": (vault / "relations.jsonl").read_bytes()}
    shared[SEARCH_INDEX] = (vault / SEARCH_INDEX).read_bytes()
    for planted in PLANTED:
        if planted.mask is not None and planted.mask != "[private key]":
            for rel, data in shared.items():
                assert planted.mask.encode("utf-8") not in data, (planted.name, rel)
        assert _leaks(_files(vault), planted.secret) == {}, planted.name
    assert check_vault(vault, notes=NOTES, max_sensitivity=level) == []
    assert check_vault(vault, notes=NOTES) == []


def test_max_sensitivity_public_leaves_no_confidential_node(tmp_path: Path) -> None:
    vault = _build_shared(tmp_path, "public")
    _assert_shared_vault_holds_nothing_above(vault, "public")
    # Not vacuous: the notes' public statement ("Klipper is a firmware for 3D printers") is kept.
    assert list((vault / "semantic").glob("*.md"))


def test_max_sensitivity_private_leaves_no_confidential_node(tmp_path: Path) -> None:
    vault = _build_shared(tmp_path, "private")
    _assert_shared_vault_holds_nothing_above(vault, "private")
    assert any((vault / "episodic").glob("*.md"))


@pytest.mark.filterwarnings("ignore::ResourceWarning")  # litellm's dropped clients (see test_llm.py)
def test_no_planted_secret_reaches_a_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With a model configured, every chunk and turn is masked before it is sent (llm.py)."""
    for variable in ("OPENAI_API_KEY", "KGVAULT_MODEL", "KGVAULT_API_BASE"):
        monkeypatch.delenv(variable, raising=False)
    notes = tmp_path / "notes"
    shutil.copytree(NOTES, notes)
    (notes / "kgvault.toml").write_text("timeout = 5\nretries = 1\nbackoff = 0.05\n", "utf-8")
    vault = tmp_path / "vault"
    try:
        with StubLLM() as stub:
            arguments = ["build", str(notes), "-o", str(vault), "--model", "openai/stub"]
            result = CliRunner().invoke(main, [*arguments, "--api-base", stub.api_base, "--json"])
            assert result.exit_code == 0, (result.output, result.exception)
            bodies = {f"request {i}": body.encode("utf-8") for i, body in enumerate(stub.raw_bodies())}
            users = stub.user_messages()
    finally:
        litellm = sys.modules.get("litellm")
        if litellm is not None:
            litellm.in_memory_llm_clients_cache.flush_cache()
        gc.collect()
    assert len(bodies) >= 5
    assert any("sk-…F0gA" in user for user in users)  # sent, masked
    for planted in PLANTED:
        assert _leaks(bodies, planted.secret) == {}, planted.name
        assert _leaks(_files(vault), planted.secret) == {}, planted.name


def test_secrets_in_draft_files_are_masked_in_builds_and_imports(tmp_path: Path) -> None:
    key, mail, token = (
        next(p for p in PLANTED if p.name == n) for n in ("openai_key", "email", "github_token")
    )
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "day.md").write_text("---\ndate: 2025-03-12\n---\nI printed a benchy.\n", "utf-8")
    insight = f"The staging key is {key.value} and the admin is {mail.value}."
    mnemon = {"schema_version": "1", "insights": [{"content": insight, "category": "fact", "importance": 4}]}
    (notes / "memory_draft.json").write_text(json.dumps(mnemon), "utf-8")
    agent = {
        "schema_version": "kgvault.draft/1",
        "nodes": [
            {
                "memory_layer": "semantic",
                "type": "fact",
                "title": "Deploy token",
                "body": f"The token is {token.value}.",
            }
        ],
    }
    (tmp_path / "agent.json").write_text(json.dumps(agent), "utf-8")
    vault = tmp_path / "vault"
    run_build(notes, vault)
    imported = CliRunner().invoke(main, ["import", str(tmp_path / "agent.json"), "-o", str(vault)])
    assert imported.exit_code == 0, imported.output
    run_build(notes, vault)
    files = _files(vault)
    assert any(rel.startswith(".kgvault/drafts/") for rel in files)  # the import kept its draft
    for planted in (key, mail, token):
        assert _leaks(files, planted.secret) == {}, planted.name
    pages = {rel: data.decode() for rel, data in files.items() if rel.startswith("semantic/")}
    masked = [page for page in pages.values() if key.mask in page or token.mask in page]  # type: ignore[operator]
    assert len(masked) == 2 and all(_sensitivity(page) == "confidential" for page in masked)


def test_secrets_in_titles_and_aliases_are_masked(tmp_path: Path) -> None:
    key, token = (next(p for p in PLANTED if p.name == n) for n in ("stripe_key", "openai_key"))
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "deploy.md").write_text(
        f"---\ntitle: Rotated key {token.value} for Atlas\naliases: [{key.value}, Deploy keys]\n---\n"
        "[[Atlas]] uses [[Redis]].\n",
        "utf-8",
    )
    conversation = {
        "title": f"debug {token.value}",
        "create_time": 1683540000.0,
        "current_node": "a",
        "mapping": {
            "u": {"id": "u", "parent": None, "children": ["a"], "message": None},
            "a": {
                "id": "a",
                "parent": "u",
                "children": [],
                "message": {
                    "author": {"role": "user"},
                    "create_time": 1683540005.0,
                    "content": {"content_type": "text", "parts": ["I adopted a cat named Miso yesterday."]},
                },
            },
        },
    }
    (notes / "conversations.json").write_text(json.dumps([conversation]), "utf-8")
    vault = tmp_path / "vault"
    run_build(notes, vault)
    files = _files(vault)
    names = {rel: rel.encode() for rel in files}  # file names count too
    for planted in (key, token):
        assert _leaks({**files, **names}, planted.secret) == {}, planted.name
