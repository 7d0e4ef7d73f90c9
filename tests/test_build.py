"""End to end: build sample_vault and real vaults, and hold the build to the vault contract."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest

from kgvault.check import check_vault
from kgvault.layout import MARKER

from .conftest import ROOT, SAMPLE, SHARED_DATA, notes_with, run_build, tree_bytes, tree_digest, triples

REPORT_KEYS = {"sources", "chunks", "nodes", "entities", "relations", "files", "llm", "problems", "seconds"}


def test_sample_builds_into_a_vault_the_checker_accepts(
    sample_vault_built: tuple[Path, dict[str, object]],
) -> None:
    vault, report = sample_vault_built
    assert set(report) == REPORT_KEYS
    assert set(report["files"]) == {"written", "unchanged", "removed", "kept", "orphaned"}  # type: ignore[arg-type]
    assert set(report["llm"]) == {  # type: ignore[arg-type]
        "calls", "cache_hits", "failed", "prompt_tokens", "completion_tokens", "cost_usd"
    }  # fmt: skip
    assert check_vault(vault, notes=SAMPLE) == []
    for folder in ("episodic", "semantic", "entities", "sources"):
        assert list((vault / folder).glob("*.md")), f"no {folder} pages"
    relations = (vault / "relations.jsonl").read_text("utf-8").splitlines()
    assert relations and all(json.loads(line)["evidence"] for line in relations)
    nodes = report["nodes"]
    assert isinstance(nodes, dict) and nodes["episodic"] > 0 and nodes["semantic"] > 0


def test_every_list_item_of_a_page_is_its_own_line(
    sample_vault_built: tuple[Path, dict[str, object]],
) -> None:
    vault, _ = sample_vault_built
    for page in vault.rglob("*.md"):
        for line in page.read_text("utf-8").splitlines():
            if line.startswith("- "):
                assert "]]- " not in line and ") - [[" not in line, f"{page.name}: {line}"


def test_every_source_has_a_summary_covering_all_its_lines(
    sample_vault_built: tuple[Path, dict[str, object]],
) -> None:
    vault, report = sample_vault_built
    summaries = list((vault / "sources").glob("*-summary.md"))
    assert len(summaries) == report["sources"]
    # The checker verifies coverage line by line; make sure it really saw every summary's table.
    for page in summaries:
        assert "| lines | result |" in page.read_text("utf-8")


def test_ignored_and_hidden_notes_stay_out(sample_vault_built: tuple[Path, dict[str, object]]) -> None:
    vault, _ = sample_vault_built
    text = "\n".join(p.read_text("utf-8") for p in vault.rglob("*.md"))
    assert "Bambu Lab" not in text  # only in drafts/, which .kgvaultignore excludes
    assert "Hidden Link" not in text  # only inside a %% comment %%


def test_secrets_are_masked_and_their_nodes_confidential(
    sample_vault_built: tuple[Path, dict[str, object]],
) -> None:
    vault, _ = sample_vault_built
    # Every file, the search index (SQLite, binary) included.
    everything = b"\n".join(p.read_bytes() for p in vault.rglob("*") if p.is_file())
    for secret in ("sk-test-51HfakeKEYabcdefghijklmnop1234", "dana.kim@example.com", "415 555 0199"):
        assert secret.encode("utf-8") not in everything
    contacts = [
        p
        for p in vault.glob("*/*.md")
        if 'source_input: "[[sources/people-contacts-summary|' in p.read_text("utf-8")
    ]
    assert contacts and any("sensitivity: confidential" in p.read_text("utf-8") for p in contacts)


def test_sources_are_byte_identical_after_a_build(sample_copy: Path, tmp_path: Path) -> None:
    before = tree_digest(sample_copy)
    run_build(sample_copy, tmp_path / "vault")
    assert tree_digest(sample_copy) == before


def _build_in_subprocess(notes: Path, vault: Path, seed: str) -> None:
    env = {**os.environ, "PYTHONHASHSEED": seed}
    subprocess.run(
        [sys.executable, "-m", "kgvault", "build", str(notes), "-o", str(vault), "-q"],
        check=True,
        env=env,
        cwd=notes,
    )


def test_builds_are_byte_identical_across_paths_and_hash_seeds(tmp_path: Path) -> None:
    first_notes = tmp_path / "a" / "notes"
    second_notes = tmp_path / "elsewhere" / "deeper" / "my notes"
    for notes in (first_notes, second_notes):
        shutil.copytree(SAMPLE, notes)
        # Draft files too: their items cite JSON pointers, which order what the lines leave tied.
        drafts = Path(__file__).parent / "fixtures" / "drafts"
        shutil.copytree(drafts / "notes", notes / "notes")
        for name in ("memory_draft.json", "mini_graph.json", "agent_draft.json"):
            shutil.copy(drafts / name, notes / "notes" / name)
    _build_in_subprocess(first_notes, tmp_path / "v1", "0")
    _build_in_subprocess(second_notes, tmp_path / "v2", "1")
    first, second = tree_bytes(tmp_path / "v1"), tree_bytes(tmp_path / "v2")
    assert first.keys() == second.keys()
    assert [p for p in first if first[p] != second[p]] == []


def test_a_rebuild_without_changes_rewrites_nothing(sample_copy: Path, tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    run_build(sample_copy, vault)
    stamps = {
        p: p.stat().st_mtime_ns for p in vault.rglob("*") if p.is_file() and ".kgvault/state" not in str(p)
    }
    report = run_build(sample_copy, vault)
    assert report["files"] == {"written": 0, "unchanged": report["files"]["unchanged"], "removed": 0,  # type: ignore[index]
                               "kept": 0, "orphaned": 0}  # fmt: skip
    assert {p: p.stat().st_mtime_ns for p in stamps} == stamps


def test_user_region_and_user_files_survive_a_rebuild(sample_copy: Path, tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    run_build(sample_copy, vault)
    entity = vault / "entities" / "klipper.md"
    entity.write_text(entity.read_text("utf-8") + "My own thought about Klipper.\n", "utf-8")
    mine = vault / "my-own-note.md"
    mine.write_text("# Mine\n\n[[nowhere]]\n", "utf-8")
    (sample_copy / "printing" / "Klipper.md").write_text(
        (sample_copy / "printing" / "Klipper.md").read_text("utf-8") + "\nKlipper supports input shaping.\n",
        "utf-8",
    )
    run_build(sample_copy, vault)
    text = entity.read_text("utf-8")
    assert text.endswith(f"{MARKER}\nMy own thought about Klipper.\n")
    assert mine.read_text("utf-8") == "# Mine\n\n[[nowhere]]\n"
    assert check_vault(vault, notes=sample_copy) == []


def test_deleting_a_note_removes_exactly_its_generated_pages(sample_copy: Path, tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    run_build(sample_copy, vault)
    before = set(tree_bytes(vault))
    (sample_copy / "voyages" / "lyon.md").unlink()
    report = run_build(sample_copy, vault)
    after = set(tree_bytes(vault))
    assert not after - before
    gone = before - after
    assert "sources/voyages-lyon-summary.md" in gone
    assert report["files"]["removed"] == len(gone)  # type: ignore[index]
    fresh = tmp_path / "fresh"
    run_build(sample_copy, fresh)
    assert set(tree_bytes(fresh)) == after
    assert check_vault(vault, notes=sample_copy) == []


HOSTILE_NAMES = [
    "..%2F..%2Fescape", "a:b", "#hash", "pipe|name", "x" * 120 + "é" * 60, "CON", "nul.backup",
    "😀🎉", "Case", "case", "caret^[brackets]", "trailing dot.",
]  # fmt: skip


def test_hostile_names_give_valid_unique_files_inside_the_vault(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    (notes / "sub").mkdir(parents=True)
    for index, name in enumerate(HOSTILE_NAMES):
        folder = notes / "sub" if index % 2 else notes
        (folder / f"{name}.md").write_text(
            f'---\naliases: ["../{name}", "/etc/{name}"]\n---\n# {name}\n\n'
            f"Today I met [[{name}]] and [[../../{name}|{name}]] about [[CON]].\n",
            "utf-8",
        )
    # NUL, `/` and 300-byte names cannot be file names here, but titles and aliases carry them.
    (notes / "evil.md").write_text(
        '---\ntitle: "ni\\0l/../..\\\\x:y|z#^[]%"\n'
        f'aliases: ["{"ü" * 150}", "CON", "..", "/", "\\t"]\n---\n'
        "Today I met [[evil]] and [[CON]] and [[..]] and [[/]].\n",
        "utf-8",
    )
    for name in ("Same", "same", "SAME"):  # names differing only in case, in one folder
        (notes / "sub" / f"{name}.md").write_text(
            f"---\naliases: [{name}]\n---\nI met [[{name}]] today.\n", "utf-8"
        )
    vault = tmp_path / "out" / "vault"
    before = {p for p in tmp_path.rglob("*") if notes not in p.parents}
    run_build(notes, vault)
    after = {p for p in tmp_path.rglob("*") if notes not in p.parents}
    outside = [p for p in after - before if not (p == vault or vault in p.parents or p in vault.parents)]
    assert outside == [], "written outside the vault"
    summaries = sorted(p.name for p in (vault / "sources").glob("sub-same*"))
    assert len(summaries) == 3 and "sub-same-summary.md" in summaries
    evil = (vault / "sources" / "evil-summary.md").read_text("utf-8")
    assert 'title: "nil/../..' in evil  # the NUL-bearing title arrives cleaned
    for page in vault.rglob("*"):
        # Machine-local state holds the search index, a binary SQLite file: pages and text files only.
        if page.is_file() and ".kgvault/state/" not in page.relative_to(vault).as_posix():
            text = page.read_bytes().decode("utf-8")
            assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f]", text), page
    files = [p for p in (tmp_path / "out").rglob("*") if p.is_file()]
    assert all(vault.resolve() in p.resolve().parents for p in files)
    stems = [p.stem.casefold() for p in vault.rglob("*.md")]
    assert len(stems) == len(set(stems))
    assert check_vault(vault, notes=notes) == []


def test_a_folder_inside_an_existing_vault(tmp_path: Path) -> None:
    outer = tmp_path / "MyVault"
    (outer / ".obsidian").mkdir(parents=True)
    (outer / ".obsidian" / "app.json").write_text("{}", "utf-8")
    (outer / "Klipper.md").write_text("my own klipper page\n", "utf-8")
    vault = outer / "kg"
    run_build(SAMPLE, vault)
    assert not (vault / ".obsidian").exists()
    assert (outer / ".obsidian" / "app.json").read_text("utf-8") == "{}"
    assert (outer / "Klipper.md").read_text("utf-8") == "my own klipper page\n"
    assert not (vault / "entities" / "klipper.md").exists()  # the user's Klipper.md keeps the basename
    assert "[[kg/entities/" in (vault / "index.md").read_text("utf-8")
    assert check_vault(vault, notes=SAMPLE) == []


@pytest.mark.parametrize(
    ("name", "entity"), [(unicodedata.normalize("NFD", "Tomás.md"), "tomás.md"), ("Tomás.MD", "tomás.md")]
)
def test_a_note_named_in_decomposed_unicode_or_upper_case_keeps_its_basename(
    tmp_path: Path, name: str, entity: str
) -> None:
    """Found by fuzzing: macOS names files in NFD, and `.MD` is a note to Obsidian too; such a
    `Tomás` took no part in our ids."""
    outer = tmp_path / "MyVault"
    (outer / ".obsidian").mkdir(parents=True)
    notes = outer / "notes"
    notes.mkdir()
    (notes / name).write_text("Tomás works at Acme.\n", "utf-8")
    (notes / "b.md").write_text("[[Tomás]] works at Acme.\n", "utf-8")
    vault = outer / "kg"
    run_build(notes, vault)
    assert not (vault / "entities" / entity).exists()
    assert check_vault(vault, notes=notes) == []


def test_an_existing_vault_s_root_keeps_its_notes_basenames(tmp_path: Path) -> None:
    vault = tmp_path / "MyVault"
    (vault / ".obsidian").mkdir(parents=True)
    (vault / "Klipper.md").write_text("my own klipper page\n", "utf-8")
    (vault / "Notes").mkdir()
    (vault / "Notes" / "Index.md").write_text("my own index\n", "utf-8")
    report = run_build(SAMPLE, vault)
    assert (vault / "Klipper.md").read_text("utf-8") == "my own klipper page\n"
    assert not (vault / "entities" / "klipper.md").exists()  # the user's Klipper.md keeps the basename
    assert "[[entities/" in (vault / "index.md").read_text("utf-8")  # no prefix: the vault is the root
    clashes = [p for p in report["problems"] if "also named 'index'" in p["message"]]  # type: ignore[union-attr]
    assert len(clashes) == 1
    assert run_build(SAMPLE, vault)["files"]["written"] == 0  # type: ignore[index]


@pytest.mark.parametrize(
    ("settings", "content"),
    [
        (".obsidian/templates.json", '{"folder": "Blueprints"}'),
        (".obsidian/plugins/templater-obsidian/data.json", '{"templates_folder": "Blueprints/"}'),
    ],
)
def test_obsidian_templates_give_no_knowledge(tmp_path: Path, settings: str, content: str) -> None:
    notes = tmp_path / "notes"
    (notes / settings).parent.mkdir(parents=True)
    (notes / settings).write_text(content, "utf-8")
    (notes / "Blueprints").mkdir()
    (notes / "Blueprints" / "Post Template.md").write_text(
        '---\nauthor: "[[Me]]"\ncreated: {{date}}\n---\nFixed the {{title}} printer today.\n', "utf-8"
    )
    (notes / "day.md").write_text(
        '---\ndate: 2025-03-12\nauthor: "[[Dana]]"\n---\nFixed the printer today.\n', "utf-8"
    )
    vault = tmp_path / "vault"
    report = run_build(notes, vault)
    assert report["sources"] == 2
    assert not (vault / "entities" / "me.md").exists() and (vault / "entities" / "dana.md").exists()
    summary = (vault / "sources" / "blueprints-post-template-summary.md").read_text("utf-8")
    assert "nothing: a template (Obsidian's templates folder)" in summary
    assert [p.name for p in (vault / "episodic").glob("*.md")] == ["fixed-the-printer-today.md"]
    assert check_vault(vault, notes=notes) == []
    (notes / settings).write_text(content.replace("Blueprints", "Elsewhere"), "utf-8")  # no longer templates
    run_build(notes, vault)
    assert (vault / "entities" / "me.md").exists()


def test_a_templates_folder_at_any_depth_and_a_placeholder_name_are_templates_without_settings(
    tmp_path: Path,
) -> None:
    """Obsidian's settings are often not synced with the notes: the usual folder name still tells."""
    notes = tmp_path / "notes"
    template = '---\nproject: "[[Atlas]]"\n---\n# {{title}}\n\nI moved to Lisbon today.\n'
    for path in (
        "Templates/Meeting.md",
        "_templates/Daily.md",
        "Meetings/{{title}}.md",
        "dungeon23/templates/Week.md",
    ):
        (notes / path).parent.mkdir(parents=True, exist_ok=True)
        (notes / path).write_text(template, "utf-8")
    (notes / "Projects").mkdir()
    (notes / "Projects" / "Templates of letters.md").write_text("I moved to Oslo today.\n", "utf-8")
    (notes / "kgvault.toml").write_text('user_name = "Alex"\n', "utf-8")
    vault = tmp_path / "vault"
    run_build(notes, vault)
    assert triples(vault) == [("alex", "lives_in", "oslo")]
    assert not (vault / "entities" / "atlas.md").exists()


def test_golden_sample_vault(sample_vault_built: tuple[Path, dict[str, object]]) -> None:
    """Compare the whole output tree with tests/golden/sample_vault (KGVAULT_UPDATE_GOLDEN=1 rewrites it)."""
    vault, _ = sample_vault_built
    golden = ROOT / "tests" / "golden" / "sample_vault"
    actual = tree_bytes(vault)
    if os.environ.get("KGVAULT_UPDATE_GOLDEN"):
        shutil.rmtree(golden, ignore_errors=True)
        for rel, data in actual.items():
            (golden / rel).parent.mkdir(parents=True, exist_ok=True)
            (golden / rel).write_bytes(data)
    expected = tree_bytes(golden)
    assert sorted(actual) == sorted(expected)
    assert [p for p in actual if actual[p] != expected[p]] == []


REAL_VAULTS = SHARED_DATA / "real-vaults"


@pytest.mark.parametrize("name", ["kepano-obsidian", "ttrpg-share"])
def test_real_vaults_build_and_pass_the_checker(name: str, tmp_path: Path) -> None:
    import yaml

    from kgvault.sources import read_sources

    notes = REAL_VAULTS / name
    assert notes.is_dir(), f"missing test data {notes}"
    before = tree_digest(notes)
    vault = tmp_path / "vault"
    report = run_build(notes, vault)
    assert check_vault(vault, notes=notes) == []
    assert tree_digest(notes) == before
    problem_paths = {p["path"] for p in report["problems"]}  # type: ignore[attr-defined,index]
    sources, _ = read_sources(notes)
    assert report["sources"] == len(sources)
    # Every Markdown file whose frontmatter YAML does not parse is in the problems list.
    for path in sorted(notes.rglob("*.md")):
        rel = path.relative_to(notes).as_posix()
        if rel.startswith(".") or "/." in rel:
            continue
        raw = path.read_bytes()
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError:
            assert rel in problem_paths, f"{rel} has undecodable bytes but is not reported"
        text = raw.decode("utf-8", errors="replace").replace("\r\n", "\n").lstrip("\ufeff")
        if not text.startswith("---\n") or "\n---" not in text[3:]:
            continue
        block = text[4 : text.index("\n---", 3)]
        try:
            yaml.safe_load(block)
        except yaml.YAMLError:
            assert rel in problem_paths, f"{rel} has broken YAML but is not reported"


def test_no_draft_is_alive_while_pages_are_rendered(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Drafts are a build's largest records: pass 2 is their last user, so render must find none alive."""
    import gc

    import kgvault.render
    from kgvault.extract.draft import Draft

    alive: list[int] = []
    original = kgvault.render.render

    def counting(*args: object, **kwargs: object) -> kgvault.render.Pages:
        alive.append(sum(isinstance(thing, Draft) for thing in gc.get_objects()))
        return original(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(kgvault.render, "render", counting)
    report = run_build(SAMPLE, tmp_path / "vault")
    assert report["chunks"] and alive and alive[0] == 0


def test_switching_the_printer_twice_supersedes_the_first_switch(tmp_path: Path) -> None:
    notes, vault = tmp_path / "notes", tmp_path / "vault"
    notes.mkdir()
    (notes / "2025-03-12.md").write_text("Switched the printer from Marlin to Klipper today.\n", "utf-8")
    (notes / "2025-06-01.md").write_text(
        "Switched the printer from Klipper to RepRapFirmware today.\n", "utf-8"
    )
    run_build(notes, vault)
    lines = [json.loads(line) for line in (vault / "relations.jsonl").read_text("utf-8").splitlines()]
    assert {(r["from"], r["to"], r["valid_at"], r["invalid_at"]) for r in lines} == {
        ("printer", "marlin", None, "2025-03-12"),
        ("printer", "klipper", "2025-03-12", "2025-06-01"),
        ("printer", "reprapfirmware", "2025-06-01", None),
    }
    first = (vault / "episodic" / "switched-the-printer-from-marlin-to-klipper-today.md").read_text("utf-8")
    assert "superseded_by:" in first and "switched-the-printer-from-klipper-to-reprapfirmware-today" in first
    assert check_vault(vault, notes=notes) == []


def test_a_consolidated_state_is_superseded_with_the_episodes_it_was_made_from(tmp_path: Path) -> None:
    notes, vault = tmp_path / "notes", tmp_path / "vault"
    notes.mkdir()
    for day in ("01", "02", "03"):
        (notes / f"2025-05-{day}.md").write_text(f"# 2025-05-{day}\n\nThe Voron runs Marlin.\n", "utf-8")
    (notes / "2025-06-01.md").write_text("Switched the Voron from Marlin to Klipper today.\n", "utf-8")
    run_build(notes, vault)
    fact = (vault / "semantic" / "the-voron-runs-marlin.md").read_text("utf-8")
    assert "derived_from:" in fact
    assert 'superseded_by:\n  - "[[episodic/switched-the-voron-from-marlin-to-klipper-today|' in fact
    voron = (vault / "entities" / "voron.md").read_text("utf-8")
    assert "- [[semantic/the-voron-runs-marlin|The Voron runs Marlin.]] (superseded)" in voron
    assert check_vault(vault, notes=notes) == []
    # While one of its episodes still holds, so does the consolidated node.
    (notes / "2025-07-01.md").write_text("# 2025-07-01\n\nThe Voron runs Marlin.\n", "utf-8")
    run_build(notes, vault)
    assert "superseded_by" not in (vault / "semantic" / "the-voron-runs-marlin.md").read_text("utf-8")


def test_a_property_your_notes_hold_as_a_list_is_not_declared_as_ours(tmp_path: Path) -> None:
    """Obsidian keeps one type per property name in a vault: kgvault must not retype yours."""
    outer = tmp_path / "vault"
    (outer / ".obsidian").mkdir(parents=True)
    (outer / "Catan.md").write_text("---\ntype: [board-game]\n---\nA game about trading.\n", "utf-8")
    (outer / "Log.md").write_text("---\ndate: 2025-03-12\n---\nFixed the Ender 3 heater today.\n", "utf-8")
    report = run_build(outer, outer / "kg")
    declared = json.loads((outer / ".obsidian" / "types.json").read_text("utf-8"))["types"]
    assert "type" not in declared and declared["memory_layer"] == "text"
    said = [(p["path"], p["message"]) for p in report["problems"]]  # type: ignore[union-attr]
    assert any(path == "Catan.md" and "property `type` as a list" in m for path, m in said), said


def test_a_property_declared_with_another_type_is_reported_and_left(tmp_path: Path) -> None:
    outer = tmp_path / "vault"
    (outer / ".obsidian").mkdir(parents=True)
    (outer / ".obsidian" / "types.json").write_text('{"types": {"confidence": "number"}}', "utf-8")
    (outer / "Log.md").write_text("---\ndate: 2025-03-12\n---\nFixed the Ender 3 heater today.\n", "utf-8")
    report = run_build(outer, outer / "kg")
    declared = json.loads((outer / ".obsidian" / "types.json").read_text("utf-8"))["types"]
    assert declared["confidence"] == "number" and declared["memory_layer"] == "text"
    said = [(p["path"], p["message"]) for p in report["problems"]]  # type: ignore[union-attr]
    assert any(
        path == str((outer / ".obsidian" / "types.json").resolve())
        and "declares the property `confidence` as number" in message
        for path, message in said
    ), said


def test_markdown_links_and_path_wikilinks_to_notes_lead_to_their_entity_pages(tmp_path: Path) -> None:
    from .conftest import notes_with

    notes, vault = notes_with(
        tmp_path,
        {
            "rules/agile.md": "# Agile\n\nA trait of light weapons.\n",
            "rules/strength.md": "# Strength\n\nHow strong you are.\n",
            "weapons.md": "**[Agile](rules/agile.md):** The attack penalty of this weapon is lower.\n\n"
            "Damage rolls still use [[rules/strength|Strength]], as the ![chart](img/chart.png) shows.\n",
        },
    )
    run_build(notes, vault)
    bodies = "\n".join(page.read_text("utf-8") for page in vault.glob("semantic/*.md"))
    assert "**[[entities/agile|Agile]]:** The attack penalty" in bodies
    assert "still use [[entities/strength|Strength]], as the chart shows." in bodies
    assert "rules/agile.md" not in bodies and "img/chart.png" not in bodies
    assert check_vault(vault, notes=notes) == []


def test_the_keys_and_categories_of_a_note_give_its_entities_their_types(tmp_path: Path) -> None:
    from .conftest import notes_with

    notes, vault = notes_with(
        tmp_path,
        {
            "Well Made.md": "---\ncategories:\n  - '[[Podcasts]]'\nhost:\n  - '[[Steph Ango]]'\n"
            "manufacturer: '[[Nintendo]]'\n---\nA show about making things.\n",
            # A game's `maker` is often its designer, a person: no type from that key.
            "Catan.md": "---\ncategories:\n  - '[[Board games]]'\nmaker: '[[Klaus Teuber]]'\n---\n"
            "A game about trading.\n",
            "Klaus Teuber.md": "---\ncategories:\n  - '[[People]]'\n---\nA designer.\n",
        },
    )
    run_build(notes, vault)
    types = {
        page.stem: re.search(r"^entity_type: (.+)$", page.read_text("utf-8"), re.M).group(1)  # type: ignore[union-attr]
        for page in vault.glob("entities/*.md")
    }
    # Not `host`: a podcast's host is a person, a printer's (`host:: Raspberry Pi 3`) a computer.
    assert {k: types[k] for k in ("well-made", "nintendo", "catan", "klaus-teuber")} == {
        "well-made": "podcast",
        "nintendo": "organization",
        "catan": "game",
        "klaus-teuber": "person",
    }


def test_a_daily_note_s_fields_are_its_writer_s_and_the_day_is_no_entity(tmp_path: Path) -> None:
    notes, vault = notes_with(
        tmp_path,
        {
            "2024-05-05.md": '---\npeople: ["[[Dana Kim]]"]\n---\n'
            "met:: [[Sam Lee]]\nlocation:: [[Lisbon]]\n\n"
            "- Finished [[Deep Work]] [rating:: 4] on the train.\n"
            "- Spent the evening reading `= this.file.name` and [[Dune]].[^1]\n\n[^1]: A gift from Sam.\n"
        },
    )
    run_build(notes, vault)
    names = {page.stem for page in (vault / "entities").glob("*.md")}
    assert "2024-05-05" not in names and {"dana-kim", "sam-lee", "lisbon"} <= names
    assert triples(vault) == []  # whose day it is, nobody said
    titles = sorted(
        line.split(": ", 1)[1].strip('"')
        for page in vault.glob("episodic/*.md")
        for line in page.read_text("utf-8").splitlines()
        if line.startswith("title: ")
    )
    # No field, Dataview query nor footnote mark in what the day's statements say.
    assert titles == ["Finished Deep Work on the train.", "Spent the evening reading and Dune."]
    (notes / "kgvault.toml").write_text('user_name = "Alex"\n', "utf-8")
    run_build(notes, vault)
    assert sorted(triples(vault)) == [
        ("alex", "location", "lisbon"),
        ("alex", "met", "sam-lee"),
        ("alex", "people", "dana-kim"),  # a journal's `people` lists whom the day names, not whom it met
    ]


def test_a_meetings_first_name_is_its_attendee_not_another_of_that_name(tmp_path: Path) -> None:
    notes, vault = notes_with(
        tmp_path,
        {
            "Family.md": "- My sister Anna lives in York.\n",
            "Meetings/2025-05-20 Budget review.md": "---\ndate: 2025-05-20\n"
            'attendees: ["[[Anna Kowalski]]"]\n---\n- Anna walked through the cloud spend.\n',
            "kgvault.toml": 'user_name = "Sam Carter"\n',
        },
    )
    run_build(notes, vault)
    sister = (vault / "entities" / "anna.md").read_text("utf-8")
    colleague = (vault / "entities" / "anna-kowalski.md").read_text("utf-8")
    assert "anna-walked-through-the-cloud-spend" in colleague
    assert "anna-walked-through-the-cloud-spend" not in sister


def test_a_links_shown_first_name_is_no_mention_of_another_of_that_name(tmp_path: Path) -> None:
    # Two Aishas shown by first name, and a bare [[Aisha]] of its own elsewhere.
    notes, vault = notes_with(
        tmp_path,
        {
            "daily/2025-05-20.md": "[[Aisha Silva|Aisha]] and I paired on the budget.\n",
            "daily/2025-05-21.md": "[[Aisha Moreau|Aisha]] reviewed the backup script.\n",
            "daily/2025-05-22.md": "Had lunch with [[Aisha]] at the ramen place.\n",
        },
    )
    run_build(notes, vault)
    bare = (vault / "entities" / "aisha.md").read_text("utf-8")
    assert "had-lunch-with-aisha" in bare
    assert "paired-on-the-budget" not in bare and "reviewed-the-backup-script" not in bare
    assert "paired-on-the-budget" in (vault / "entities" / "aisha-silva.md").read_text("utf-8")


@pytest.mark.parametrize("name", ["Kindle clippings.md", "My Clippings.txt"])
def test_a_kindle_s_clippings_are_the_book_s_words_and_their_marks_no_words(
    tmp_path: Path, name: str
) -> None:
    clippings = (
        "Project Hail Mary (Andy Weir)\n"
        "- Your Highlight on Location 1540-1541 | Added on Saturday, December 16, 2023 11:40:19 PM\n\n"
        "I moved to San Diego and started teaching middle school science.\n==========\n"
        "The Power Broker (Robert A. Caro)\n"
        "- Your Note on page 219 | Location 3310 | Added on Monday, January 8, 2024 10:14:02 PM\n\n"
        "I moved to Leeds in 2021 because of this book.\n==========\n"
    )
    front = "---\ncreated: 2024-01-09\n---\n" if name.endswith(".md") else ""
    notes, vault = notes_with(tmp_path, {name: front + clippings, "kgvault.toml": 'user_name = "Sam Lee"\n'})
    run_build(notes, vault)
    assert triples(vault) == [("sam-lee", "lives_in", "leeds")]  # the reader's note, not the highlight
    assert not [p.name for p in (vault / "episodic").glob("your-*.md")]


def test_a_link_s_note_says_what_it_is_not_the_verb_before_it(tmp_path: Path) -> None:
    """ "works at [[Atlas]]" guesses a company; Atlas's own note says a project: one entity, the project."""
    notes, vault = notes_with(
        tmp_path,
        {
            "Projects/Atlas.md": "---\ntype: project\n---\nAtlas is our internal search service.\n",
            "Daily/2025-03-12.md": "Olivia works at [[Atlas]] now.\nAna works at [[Globex]] now.\n",
        },
    )
    run_build(notes, vault)
    pages = sorted(p.name for p in (vault / "entities").glob("*.md"))
    assert [p for p in pages if p.startswith("atlas")] == ["atlas.md"]
    assert "entity_type: project" in (vault / "entities" / "atlas.md").read_text("utf-8")
    # A link no note types keeps what the verb guessed.
    assert "entity_type: organization" in (vault / "entities" / "globex.md").read_text("utf-8")
    assert ("olivia", "works_for", "atlas") in triples(vault)
