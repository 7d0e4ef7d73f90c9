"""A plain `pip install .` (not editable) into a fresh venv carries its templates and builds a vault."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from .conftest import ROOT, SAMPLE


def test_a_fresh_venv_with_a_plain_install_builds_a_vault(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    # Dependencies come from the package index (or pip's cache): a missing one fails here.
    subprocess.run([*pip, str(ROOT)], check=True, cwd=tmp_path)
    where = subprocess.run(
        [str(venv / "bin" / "python"), "-c", "import kgvault.layout as t; print(t.packaged_templates())"],
        check=True,
        capture_output=True,
        text=True,
        cwd=tmp_path,
    ).stdout
    assert str(venv) in where, "templates must come from the installed package, not the source tree"
    vault = tmp_path / "vault"
    subprocess.run(
        [str(venv / "bin" / "kgvault"), "build", str(SAMPLE), "-o", str(vault), "-q"],
        check=True,
        cwd=tmp_path,
    )
    assert (vault / "index.md").is_file() and list((vault / "entities").glob("*.md"))
