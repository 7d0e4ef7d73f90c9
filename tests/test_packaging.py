"""A plain (non-editable) install must carry its templates and build a vault."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from .conftest import ROOT, SAMPLE


def test_wheel_contains_templates_and_builds_a_vault(tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), str(ROOT)],
        check=True,
        capture_output=True,
    )
    (wheel,) = wheels.glob("kgvault-*.whl")
    site = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(site), str(wheel)],
        check=True,
        capture_output=True,
    )
    assert (site / "kgvault" / "templates" / "node.md.j2").is_file()
    # Run from an unrelated folder with only the installed copy first on the path, never the source tree.
    env = {**os.environ, "PYTHONPATH": str(site)}
    probe = "import kgvault, kgvault.templating as t; print(kgvault.__file__, t.packaged_templates())"
    where = subprocess.run(
        [sys.executable, "-c", probe], check=True, capture_output=True, text=True, env=env, cwd=tmp_path
    ).stdout
    assert str(site) in where and str(ROOT / "templates") not in where
    vault = tmp_path / "vault"
    subprocess.run(
        [sys.executable, "-m", "kgvault", "build", str(SAMPLE), "-o", str(vault), "-q"],
        check=True,
        env=env,
        cwd=tmp_path,
    )
    assert (vault / "index.md").is_file() and list((vault / "entities").glob("*.md"))
