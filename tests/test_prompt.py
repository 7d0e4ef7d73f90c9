"""`kgvault prompt`: the extraction rules, the draft schema, and an agent skill for one vault."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from kgvault.cli import main
from kgvault.extract.draft import SCHEMA_VERSION, Draft, validate_items
from kgvault.prompt import ENTITY_LIMIT, TAG_LIMIT, PromptChunk, extraction_prompt, read_ontology

from .conftest import SAMPLE

RULES = (
    "kgvault.draft/1",
    "`observation`",
    "`decision`",
    "`state`",
    "`fact`",
    "`concept`",
    "`procedure`",
    "**in English**",
    "**in the source language**",
    "lowercase snake_case",
    "`stated`",
    "`inferred`",
    "**never public**",
    "`confidential`",
    "**masked**",
    "`sk-…9f3a`",
    "`low`",
    "0.6 to 1.0",
    "both ends named in `entities`",
    "`label`",
    "**verbatim**",
    "Never invent a timestamp",
    "reference time",
    "that speaker's point of view",
    "`valid_at`",
    "`invalid_at`",
    "`causes`, `precedes` or `related_to`",
    "`weight`",
    "`skip_reason`",
    "at most 30 characters",
    "at most 120 characters",
    '"printing/journal.md lines 12-14"',
    "and nothing else",
)


def _invoke(*args: str) -> Any:
    return CliRunner().invoke(main, ["prompt", *args])


def _fenced(text: str, info: str) -> list[str]:
    """The contents of every ```info fenced block of a Markdown text."""
    return re.findall(rf"^```{info}\n(.*?)^```$", text, re.DOTALL | re.MULTILINE)


# --- the plain prompt --------------------------------------------------------------------------


def test_prompt_states_every_rule() -> None:
    result = _invoke()
    assert result.exit_code == 0, result.output
    for phrase in RULES:
        assert phrase in result.output, phrase
    assert 150 <= len(result.output.splitlines()) <= 250


def test_the_prompts_example_draft_validates_against_its_chunk() -> None:
    output = _invoke().output
    [chunk], [example] = _fenced(output, "text"), _fenced(output, "json")
    raw = json.loads(example)
    for chunk_text in (None, chunk):
        draft, dropped = validate_items(raw, chunk_text)
        assert dropped == []
        for kind in ("nodes", "entities", "relations", "links"):
            assert len(getattr(draft, kind)) == len(raw[kind]) > 0, kind
    assert raw["schema_version"] == SCHEMA_VERSION
    assert {node["memory_layer"] for node in raw["nodes"]} == {"episodic", "semantic"}


def test_the_plain_prompt_imports_no_pydantic() -> None:
    code = (
        "import sys; from kgvault.cli import main\n"
        "try:\n    main(['prompt'])\nexcept SystemExit:\n    pass\n"
        "print('pydantic' in sys.modules, file=sys.stderr)"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stderr.strip().splitlines()[-1] == "False"
    assert run.stdout.startswith("# Extract a kgvault draft")


def test_a_chunk_follows_the_rules_in_a_fence_it_cannot_close() -> None:
    chunk = PromptChunk("a.md lines 1-2", "2025-03-12", "Code: ```x```\nDone.")
    text = extraction_prompt(chunk)
    assert text.startswith(extraction_prompt().rstrip("\n"))
    assert text.endswith("Reference time: 2025-03-12\n\n````text\nCode: ```x```\nDone.\n````\n")


def test_a_template_folder_overrides_the_prompt(tmp_path: Path) -> None:
    (tmp_path / "prompts").mkdir()
    (tmp_path / "prompts" / "extract.md.j2").write_text("Write {{ schema_version }} drafts.\n", "utf-8")
    result = _invoke("--templates", str(tmp_path))
    assert result.exit_code == 0, result.output
    assert result.output == "Write kgvault.draft/1 drafts.\n"
    (tmp_path / "prompts" / "extract.md.j2").write_text("Write {{ schema_versoin }} drafts.\n", "utf-8")
    result = _invoke("--templates", str(tmp_path))
    assert result.exit_code == 2
    assert "cannot render prompts/extract.md.j2: 'schema_versoin' is undefined" in result.output


# --- the schema ----------------------------------------------------------------------------------


def test_schema_is_the_draft_models_without_internal_fields() -> None:
    result = _invoke("--schema")
    assert result.exit_code == 0, result.output
    schema = json.loads(result.output)
    assert schema == Draft.model_json_schema()
    assert result.output == json.dumps(schema, sort_keys=True, indent=2, ensure_ascii=False) + "\n"

    def property_names(value: object) -> set[str]:
        if isinstance(value, dict):
            found = set(value.get("properties", {})) if isinstance(value.get("properties"), dict) else set()
            return found.union(*(property_names(v) for v in value.values()))
        if isinstance(value, list):
            return set().union(*(property_names(v) for v in value))
        return set()

    names = property_names(schema)
    assert {"supporting_text", "valid_at", "links", "episode_name"} <= names
    assert "pointer" not in names and '"pointer"' not in result.output


# --- the skill -----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def built_vault(sample_vault_built: tuple[Path, dict[str, object]]) -> Path:
    return sample_vault_built[0]


def _write_skill(vault: Path, skill_dir: Path) -> str:
    result = _invoke("--skill", "-o", str(skill_dir), "--vault", str(vault))
    assert result.exit_code == 0, result.output
    assert "SKILL.md" in result.output
    return (skill_dir / "SKILL.md").read_text("utf-8")


def _frontmatter(path: Path) -> dict[str, Any]:
    text = path.read_text("utf-8")
    assert text.startswith("---\n")
    data = yaml.safe_load(text.split("---\n", 2)[1])
    assert isinstance(data, dict)
    return data


def _ontology_section(skill: str) -> str:
    return skill.split("## This vault's ontology", 1)[1].split("## Draft JSON schema", 1)[0]


def test_skill_names_the_vaults_types_predicates_and_entities(built_vault: Path, tmp_path: Path) -> None:
    skill_dir = tmp_path / "skills" / "my-Notes KG"
    skill = _write_skill(built_vault, skill_dir)
    meta = _frontmatter(skill_dir / "SKILL.md")
    assert meta["name"] == "my-notes-kg"
    assert isinstance(meta["description"], str) and 0 < len(meta["description"]) <= 1024
    ontology = _ontology_section(skill)
    edges = [json.loads(line) for line in (built_vault / "relations.jsonl").read_text("utf-8").splitlines()]
    assert edges
    for edge in edges:
        assert f"- `{edge['relation']}`: {edge['label']} (" in ontology, edge["relation"]
    types = {_frontmatter(page)["entity_type"] for page in (built_vault / "entities").glob("*.md")}
    assert {"person", "software", "project"} <= types
    for entity_type in types:
        assert f"- `{entity_type}` (" in ontology, entity_type
    for title in ("Dana Kim (person); also: Dana", "Klipper (software); also: Klipper firmware", "Voron 2.4"):
        assert f"- {title}" in ontology, title
    assert "  - `3d_printing/firmware/klipper` (" in ontology
    # The whole skill: workflow, the rules, the schema.
    assert f"kgvault import DRAFT.json -o {built_vault.resolve().as_posix()}" in skill
    assert extraction_prompt().splitlines()[5] in skill
    [schema] = _fenced(skill, "json")[1:]
    assert json.loads(schema) == Draft.model_json_schema()


def test_skill_is_byte_identical_when_written_twice(built_vault: Path, tmp_path: Path) -> None:
    first = _write_skill(built_vault, tmp_path / "kg")
    again = _write_skill(built_vault, tmp_path / "kg")
    assert first == again
    assert (tmp_path / "kg" / "SKILL.md").read_bytes() == first.encode("utf-8")


def test_a_draft_written_by_following_the_skill_validates(built_vault: Path, tmp_path: Path) -> None:
    ontology = _ontology_section(_write_skill(built_vault, tmp_path / "kg"))
    entities = {
        m["name"]: m["type"] for m in re.finditer(r"^- (?P<name>.+?) \((?P<type>[a-z_]+)\)", ontology, re.M)
    }
    predicates = dict(re.findall(r"^- `([a-z_]+)`: (.+) \(\d+\)$", ontology, re.M))
    note = (SAMPLE / "printing" / "Klipper.md").read_text("utf-8")
    quote = "the [[Voron 2.4]] from day one"
    assert quote in note
    raw: dict[str, object] = {
        "schema_version": "kgvault.draft/1",
        "episode_name": "Voron 2.4 firmware",
        "source_description": "printing/Klipper.md lines 18-18",
        "reference_time": "2025-03-22",
        "nodes": [
            {
                "memory_layer": "semantic",
                "type": "fact",
                "title": "The Voron 2.4 has run Klipper from day one",
                "body": "Both printers are on it now: the Voron 2.4 from day one.",
                "tags": ["3d_printing/firmware/klipper"],
                "sensitivity": "private",
                "confidence": "high",
                "origin": "stated",
                "language": "en",
                "entities": ["Voron 2.4", "Klipper"],
                "supporting_text": quote,
            }
        ],
        "entities": [
            {"name": "Voron 2.4", "entity_type": entities["Voron 2.4"], "supporting_text": quote},
            {"name": "Klipper", "entity_type": entities["Klipper"], "aliases": ["Klipper firmware"]},
        ],
        "relations": [
            {
                "subject": "Voron 2.4",
                "predicate": "runs",
                "label": predicates["runs"],
                "object": "Klipper firmware",
                "statement": "The Voron 2.4 runs Klipper since it was built.",
                "confidence": 0.9,
                "supporting_text": "Both printers are on it now",
            }
        ],
    }
    draft, dropped = validate_items(raw, note)
    assert dropped == []
    assert (len(draft.nodes), len(draft.entities), len(draft.relations)) == (1, 2, 1)
    raw["relations"] = [{**raw["relations"][0], "supporting_text": "The Voron runs Marlin"}]  # type: ignore[index]
    assert validate_items(raw, note)[1] == ["relations[0]: supporting_text not found in the chunk"]


def test_large_vaults_list_the_most_cited_entities_and_used_tags(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    files: dict[str, str] = {}
    for n in range(ENTITY_LIMIT + 5):
        rel = f"entities/e{n:03}.md"
        sources = "".join(f'  - "a.md#L{i}-L{i}"\n' for i in range(n % 7))
        page = f"---\ntype: entity\nid: e{n:03}\ntitle: E{n:03}\nentity_type: thing\naliases: []\nsources:\n"
        files[rel] = page + (sources or "  []\n") + "---\nbody\n"
    for n in range(TAG_LIMIT + 20):
        files[f"semantic/n{n:03}.md"] = f"---\nmemory_layer: semantic\ntags:\n  - root/t{n:03}\n---\n"
    files["semantic/not-owned.md"] = "---\ntags: [users_own]\n---\n"
    for rel, text in files.items():
        (vault / rel).parent.mkdir(parents=True, exist_ok=True)
        (vault / rel).write_text(text, "utf-8")
    owned = {rel: "0" * 64 for rel in files if rel != "semantic/not-owned.md"}
    (vault / ".kgvault").mkdir()
    (vault / ".kgvault" / "manifest.json").write_text(json.dumps({"version": 1, "files": owned}), "utf-8")
    ontology = read_ontology(vault)
    assert len(ontology.entities) == ENTITY_LIMIT and ontology.entities_left_out == 5
    # The least cited go first (here the uncited, every 7th), the last of them by name.
    titles = {e.title for e in ontology.entities}
    assert titles.isdisjoint({"E175", "E182", "E189", "E196", "E203"}) and "E174" in titles
    assert ontology.entity_types == (("thing", ENTITY_LIMIT + 5),)
    assert [t.path for t in ontology.tags][:2] == ["root", "root/t000"]
    assert len(ontology.tags) == TAG_LIMIT and ontology.tags_left_out == 21
    assert "users_own" not in {t.path for t in ontology.tags}
    skill = _write_skill(vault, tmp_path / "kg")
    assert f"The {ENTITY_LIMIT} most cited entities (5 more are not" in skill
    assert "(21 less used tags are not listed)" in skill
    assert "- none yet" in skill  # no relations.jsonl: no predicates


# --- usage errors --------------------------------------------------------------------------------


def test_skill_needs_an_output_folder() -> None:
    result = _invoke("--skill")
    assert result.exit_code == 2
    assert "--skill needs a folder" in result.output and "-o DIR" in result.output


@pytest.mark.parametrize("make", ["missing", "plain folder", "default"])
def test_skill_for_no_vault_says_to_build_first(
    make: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = tmp_path / "vault"
    args = ["--skill", "-o", str(tmp_path / "kg")]
    if make == "plain folder":
        vault.mkdir()
        (vault / "note.md").write_text("# hi\n", "utf-8")
    if make == "default":
        monkeypatch.chdir(tmp_path)
    else:
        args += ["--vault", str(vault)]
    result = _invoke(*args)
    assert result.exit_code == 2
    assert "kgvault build NOTES -o" in result.output
    assert ("not a kgvault vault" if make == "plain folder" else "does not exist") in result.output
    assert not (tmp_path / "kg").exists()


@pytest.mark.parametrize(
    "args", [["--schema", "--skill", "-o", "x"], ["-o", "x"], ["--vault", "v"], ["--schema", "--vault", "v"]]
)
def test_options_that_do_not_go_together_are_usage_errors(args: list[str]) -> None:
    result = _invoke(*args)
    assert result.exit_code == 2
    assert "--skill" in result.output
