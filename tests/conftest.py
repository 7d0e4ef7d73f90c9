"""Shared fixtures: paths to the sample and external data, and a helper that builds a vault."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import settings

from kgvault.cli import main

# Every property test runs the same examples on every run, so the suite and CI pass or fail the same
# way each time; HYPOTHESIS_PROFILE=explore draws new ones (a hunt for bugs: add each find as a test).
settings.register_profile("repeatable", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample_vault"
SHARED_DATA = Path(os.environ.get("KGVAULT_TEST_DATA") or ROOT.parent / "shared" / "data")
"""The external test data (real vaults, LoCoMo), read in place: beside the repository, or where
KGVAULT_TEST_DATA says. The tests that need it fail without it, saying what is missing."""
# Byte-identity covers every page and the manifest, not machine-local state or the cache (DESIGN §3).
NOT_COMPARED = (".kgvault/state/", ".kgvault/cache/")


def run_build(notes: Path, vault: Path, *extra: str) -> dict[str, object]:
    """Run `kgvault build NOTES -o VAULT --json` in-process and return the report."""
    result = CliRunner().invoke(main, ["build", str(notes), "-o", str(vault), "--json", *extra])
    assert result.exit_code == 0, result.output
    report: dict[str, object] = json.loads(result.stdout)
    return report


def notes_with(tmp_path: Path, files: dict[str, str]) -> tuple[Path, Path]:
    """A notes folder holding these files (notes-relative path → text), and where its vault goes."""
    notes = tmp_path / "notes"
    for name, text in files.items():
        (notes / name).parent.mkdir(parents=True, exist_ok=True)
        (notes / name).write_text(text, "utf-8")
    notes.mkdir(exist_ok=True)
    return notes, tmp_path / "vault"


def relations_of(vault: Path) -> list[dict[str, Any]]:
    """The vault's `relations.jsonl`, one dict per line."""
    return [json.loads(line) for line in (vault / "relations.jsonl").read_text("utf-8").splitlines()]


def triples(vault: Path) -> list[tuple[str, str, str]]:
    """Each relation of the vault as (from, relation, to), in the file's order."""
    return [(r["from"], r["relation"], r["to"]) for r in relations_of(vault)]


def assert_written_nowhere(folder: Path, values: Iterable[str], *, skip: tuple[str, ...] = ()) -> None:
    """No file under `folder` (but those under a `skip` folder) holds any value, in its bytes or its
    name, whatever the case."""
    folded = [value.casefold().encode() for value in values]
    for path in folder.rglob("*"):
        if path.is_file() and not set(skip).intersection(path.relative_to(folder).parts):
            data = (
                path.read_bytes().decode("utf-8", "replace").casefold().encode()
                + path.name.casefold().encode()
            )
            found = [value for value in folded if value in data]
            assert not found, (path, found)


def tree_bytes(folder: Path) -> dict[str, bytes]:
    """Every file under a folder by relative posix path, except machine-local state."""
    files = {}
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder).as_posix()
        if path.is_file() and not rel.startswith(NOT_COMPARED):
            files[rel] = path.read_bytes()
    return files


def tree_digest(folder: Path) -> dict[str, str]:
    """Hash of every file under a folder, hidden ones included."""
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


@pytest.fixture
def sample_copy(tmp_path: Path) -> Path:
    """A private copy of sample_vault that a test may change."""
    target = tmp_path / "notes"
    shutil.copytree(SAMPLE, target)
    return target


@pytest.fixture(scope="session")
def sample_vault_built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, object]]:
    """sample_vault built once for the read-only tests."""
    vault = tmp_path_factory.mktemp("sample") / "vault"
    return vault, run_build(SAMPLE, vault)


def record_calls(
    monkeypatch: pytest.MonkeyPatch, owner: object, name: str, note: Callable[..., str]
) -> list[str]:
    """Spy on `owner.name`: each call is recorded as `note(*its arguments)`, then made as usual."""
    calls: list[str] = []
    real = getattr(owner, name)

    def recording(*args: Any, **kwargs: Any) -> Any:
        calls.append(note(*args, **kwargs))
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, recording)
    return calls
