"""The command line: help with examples, lazy imports, clear usage errors, documented commands."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from kgvault.cli import main

from .conftest import ROOT, SAMPLE

HEAVY_MODULES = (
    "jinja2",
    "markdown_it",
    "pydantic",
    "yaml",
    "litellm",
    "frontmatter",
    "watchdog",
    "kgvault.build",
)


def _commands() -> dict[str, click.Command]:
    assert isinstance(main, click.Group)
    return dict(main.commands)


def test_every_command_has_help_with_an_example() -> None:
    for name in ["", *_commands()]:
        args = [name, "--help"] if name else ["--help"]
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 0
        assert "Example" in result.output and "kgvault " in result.output, name


def test_help_imports_no_heavy_module() -> None:
    code = (
        "import sys; from kgvault.cli import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        f"print([m for m in {HEAVY_MODULES!r} if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == "[]"


def test_missing_notes_folder_is_a_usage_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["build", str(tmp_path / "nope"), "-o", str(tmp_path / "v")])
    assert result.exit_code == 2
    assert "does not exist" in result.output
    assert not (tmp_path / "v").exists()


def test_unknown_config_key_is_a_usage_error(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "kgvault.toml").write_text('colour = "blue"\n', "utf-8")
    result = CliRunner().invoke(main, ["build", str(notes), "-o", str(tmp_path / "v")])
    assert result.exit_code == 2
    assert "colour" in result.output


def test_config_file_sets_the_output(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.md").write_text("# A\n\nAtlas uses Postgres.\n", "utf-8")
    (notes / "kgvault.toml").write_text('vault = "../from-config"\n', "utf-8")
    result = CliRunner().invoke(main, ["build", str(notes), "--json"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "from-config" / "index.md").is_file()


def test_a_settings_path_from_the_home_folder_means_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.md").write_text("# A\n\nAtlas uses Postgres.\n", "utf-8")
    (notes / "kgvault.toml").write_text('vault = "~/kg"\n', "utf-8")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    result = CliRunner().invoke(main, ["build", str(notes), "-q"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "home" / "kg" / "index.md").is_file()
    assert not (Path.cwd() / "~").exists()


def test_dry_run_writes_nothing(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    result = CliRunner().invoke(main, ["build", str(SAMPLE), "-o", str(vault), "--dry-run", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["files"]["written"] > 0
    assert not vault.exists()


def test_human_summary_names_the_vault(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["build", str(SAMPLE), "-o", str(tmp_path / "vault")])
    assert result.exit_code == 0, result.output
    assert "written" in result.output and "episodic" in result.output


def test_every_command_is_documented() -> None:
    docs = (ROOT / "docs" / "cli.md").read_text("utf-8")
    for name, command in _commands().items():
        assert f"kgvault {name}" in docs, name
        for param in command.params:
            for option in getattr(param, "opts", []):
                if option.startswith("--"):
                    assert option in docs, f"{name} {option} is not documented"


def test_config_adds_functional_predicates(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "Dana.md").write_text("---\ndate: 2025-01-10\n---\ndrives:: [[Golf]]\n", "utf-8")
    (notes / "2025-05-02.md").write_text("---\ntitle: Dana\n---\ndrives:: [[Tesla]]\n", "utf-8")

    def ends() -> dict[str, str | None]:
        lines = (tmp_path / "v" / "relations.jsonl").read_text("utf-8").splitlines()
        return {json.loads(x)["to"]: json.loads(x)["invalid_at"] for x in lines}

    result = CliRunner().invoke(main, ["build", str(notes), "-o", str(tmp_path / "v"), "-q"])
    assert result.exit_code == 0, result.output
    assert ends() == {"golf": None, "tesla": None}
    (notes / "kgvault.toml").write_text('functional_predicates = ["drives"]\n', "utf-8")
    result = CliRunner().invoke(main, ["build", str(notes), "-o", str(tmp_path / "v"), "-q"])
    assert result.exit_code == 0, result.output
    assert ends() == {"golf": "2025-05-02", "tesla": None}
    assert "| `drives` | drives | 2 | yes |" in (tmp_path / "v" / "ontology.md").read_text("utf-8")


@pytest.mark.parametrize(
    ("setting", "said"),
    [
        ('functional_predicates = "drives"', ["functional_predicates", "snake_case"]),
        ('timezone = "Mars/Olympus_Mons"', ["Mars/Olympus_Mons", "IANA"]),
        # NaN passes every comparison: as a cap it would cap nothing; as a pause it would crash a retry.
        ("max_cost = nan", ["max_cost", "must be a number", "nan"]),
        ("backoff = inf", ["backoff", "≤ 600", "inf"]),
        ("timeout = nan", ["timeout", "nan"]),
        ("retries = 1100", ["retries", "at most 100"]),
        ('output = "a"\nvault = "b"', ["sets `vault` a second time"]),
        ('vault = "~nosuchuserxyz/kg"', ["cannot find the home folder '~nosuchuserxyz'"]),
    ],
)
def test_a_bad_setting_is_a_usage_error_that_says_what_to_write(
    tmp_path: Path, setting: str, said: list[str]
) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "kgvault.toml").write_text(setting + "\n", "utf-8")
    result = CliRunner().invoke(main, ["build", str(notes), "-o", str(tmp_path / "v")])
    assert result.exit_code == 2
    assert all(words in result.output for words in said)


def _episode_days(vault: Path) -> list[str]:
    """The `timestamp` of every episodic page."""
    return sorted(
        line.removeprefix("timestamp: ")
        for page in (vault / "episodic").glob("*.md")
        for line in page.read_text("utf-8").splitlines()
        if line.startswith("timestamp: ")
    )


def test_config_timezone_dates_zoned_and_epoch_times_where_the_user_lives(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    # 02:30 UTC on the 15th is the evening of the 14th in California.
    (notes / "chat.jsonl").write_text(
        '{"role": "user", "text": "I fixed the bike at the park today.", "timestamp": 1710469800}\n', "utf-8"
    )
    (notes / "shed.md").write_text(
        "---\ndate: 2024-03-15T01:00:00Z\n---\nI repainted the shed today.\n", "utf-8"
    )
    (notes / "naive.md").write_text(
        "---\ndate: 2024-03-20T23:30:00\n---\nI planted the tomatoes today.\n", "utf-8"
    )
    vault = tmp_path / "v"
    build = ["build", str(notes), "-o", str(vault), "-q"]
    assert CliRunner().invoke(main, build).exit_code == 0
    assert _episode_days(vault) == ["2024-03-15", "2024-03-15", "2024-03-20"]
    (notes / "kgvault.toml").write_text('timezone = "America/Los_Angeles"\n', "utf-8")
    result = CliRunner().invoke(main, build)
    assert result.exit_code == 0, result.output
    # The cache knew the drafts by the time zone too; a naive time is the wall clock already.
    assert _episode_days(vault) == ["2024-03-14", "2024-03-14", "2024-03-20"]
    clean = tmp_path / "clean"
    assert CliRunner().invoke(main, ["build", str(notes), "-o", str(clean), "-q"]).exit_code == 0
    assert _episode_days(clean) == _episode_days(vault)


def test_check_says_what_it_cannot_check_and_refuses_what_is_no_vault(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.md").write_text("---\ndate: 2025-03-12\n---\nFixed the heater today.\n", "utf-8")
    vault = tmp_path / "vault"
    assert CliRunner().invoke(main, ["build", str(notes), "-o", str(vault), "-q"]).exit_code == 0
    runner = CliRunner()
    plain = runner.invoke(main, ["check", str(notes)])
    assert plain.exit_code == 2 and "is not a kgvault vault" in plain.stderr
    (notes / "index.md").write_text("# My index\n", "utf-8")  # an Obsidian vault's own index
    theirs = runner.invoke(main, ["check", str(notes)])
    assert theirs.exit_code == 2 and "is not a kgvault vault" in theirs.stderr
    (notes / "index.md").unlink()
    missing = runner.invoke(main, ["check", str(vault), "--notes", str(tmp_path / "nosuch")])
    assert missing.exit_code == 2 and "notes folder" in missing.stderr
    notes.rename(tmp_path / "moved")
    gone = runner.invoke(main, ["check", str(vault)])
    assert gone.exit_code == 0 and "coverage and evidence are not checked" in gone.stderr


def test_max_cost_nan_on_the_command_line_is_refused(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    result = CliRunner().invoke(main, ["build", str(notes), "-o", str(tmp_path / "v"), "--max-cost", "nan"])
    assert result.exit_code == 2
    assert "max_cost" in result.output and "nan" in result.output


def test_a_config_that_is_no_regular_file_says_so(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    result = CliRunner().invoke(
        main, ["build", str(notes), "-o", str(tmp_path / "v"), "--config", "/dev/null"]
    )
    assert result.exit_code == 2
    assert "is not a regular file" in result.output


def test_a_settings_path_that_is_a_folder_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "notes" / "kgvault.toml").mkdir(parents=True)
    result = CliRunner().invoke(main, ["build", str(tmp_path / "notes"), "-o", str(tmp_path / "vault")])
    assert result.exit_code == 2 and "kgvault.toml is not a file" in result.stderr
    assert not (tmp_path / "vault").exists()


def test_ctrl_c_exits_130(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import kgvault.build

    def interrupted(*_args: object, **_kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(kgvault.build, "build", interrupted)
    (tmp_path / "notes").mkdir()
    result = CliRunner().invoke(main, ["build", str(tmp_path / "notes"), "-o", str(tmp_path / "vault")])
    assert result.exit_code == 130 and "interrupted" in result.stderr


def _one_note(tmp_path: Path, text: str = "# A\n\nAtlas uses Postgres.\n") -> Path:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.md").write_text(text, "utf-8")
    return notes


@pytest.mark.parametrize(
    ("template", "says"),
    [
        (b"{{ 1/0 }}", "node.md.j2: ZeroDivisionError: division by zero"),
        (
            b"{{ undefined_thing.attr }}",
            "node.md.j2: 'undefined_thing' is undefined",
        ),
        (
            b"{{ node.title ",
            "node.md.j2, line 1: unexpected end of template, expected 'end of print statement'",
        ),
        (b"\xff\xfe not text", "a template: node.md.j2 is not UTF-8 text (byte 0 cannot be read)"),
    ],
)
def test_a_template_that_fails_while_rendering_is_a_usage_error(
    tmp_path: Path, template: bytes, says: str
) -> None:
    notes = _one_note(tmp_path, "# A\n\nAtlas uses Postgres.\n\nFixed the heater on 2025-03-12.\n")
    (tmp_path / "tpl").mkdir()
    (tmp_path / "tpl" / "node.md.j2").write_bytes(template)
    args = ["build", str(notes), "-o", str(tmp_path / "vault"), "--templates", str(tmp_path / "tpl")]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2, result.output
    assert f"cannot render {says}; fix the template or remove it" in result.stderr


def test_quiet_still_lists_the_problems(tmp_path: Path) -> None:
    notes = _one_note(tmp_path)
    (notes / "kgvault.corrections.yaml").write_text("merge: [[a\n", "utf-8")
    result = CliRunner().invoke(main, ["build", str(notes), "-o", str(tmp_path / "vault"), "-q"])
    assert result.exit_code == 0 and result.stdout == ""
    assert "kgvault.corrections.yaml" in result.stderr and "1 problem(s)" in result.stderr


def test_a_bad_value_from_the_environment_names_the_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    notes = _one_note(tmp_path)
    monkeypatch.setenv("KGVAULT_USER_NAME", " ")
    result = CliRunner().invoke(main, ["build", str(notes), "-o", str(tmp_path / "vault")])
    assert result.exit_code == 2
    assert "the environment variable KGVAULT_USER_NAME: `user_name` must be a name" in result.stderr


def test_model_options_without_a_model_are_said_to_do_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("KGVAULT_MODEL", raising=False)
    notes = _one_note(tmp_path)
    args = ["build", str(notes), "-o", str(tmp_path / "vault"), "--llm-link", "--jobs", "8"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0
    assert "note: --jobs, --llm-link only change(s) a build with a model" in result.stderr
    quiet = CliRunner().invoke(main, ["build", str(notes), "-o", str(tmp_path / "vault")])
    assert "note:" not in quiet.stderr


def test_get_takes_a_pages_path_and_says_how_to_find_what_it_lacks(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    assert CliRunner().invoke(main, ["build", str(SAMPLE), "-o", str(vault), "-q"]).exit_code == 0
    page = next((vault / "episodic").glob("*.md"))
    by_path = CliRunner().invoke(main, ["get", "--vault", str(vault), "--node", f"episodic/{page.name}"])
    assert by_path.exit_code == 0 and f"(episodic/{page.name})" in by_path.stdout
    missing = CliRunner().invoke(main, ["get", "--vault", str(vault), "--node", "klipper"])
    assert missing.exit_code == 2 and "--entity NAME" in missing.stderr
    both = CliRunner().invoke(main, ["get", "--vault", str(vault), "--node", "a", "--tag", "b"])
    assert both.exit_code == 2 and "one thing at a time" in both.stderr


@pytest.mark.skipif(sys.platform != "linux", reason="a file name of any bytes is a Linux file system's")
def test_folders_whose_names_are_no_utf8_build_and_rebuild(tmp_path: Path) -> None:
    notes = Path(os.fsdecode(bytes(tmp_path) + b"/notes\xff"))
    notes.mkdir()
    (notes / "a.md").write_text("# A\n\nAtlas uses Postgres.\n", "utf-8")
    vault = Path(os.fsdecode(bytes(tmp_path) + b"/vault\xfe"))
    for _ in range(2):
        result = CliRunner().invoke(main, ["build", str(notes), "-o", str(vault), "--json"])
        assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["files"]["written"] == 0


def test_the_progress_bar_counts_the_stages_that_are_over() -> None:
    """It says 100% when the build is done, not when its last stage begins."""
    from kgvault.cli import _StageBar

    class Bar:
        def __init__(self) -> None:
            self.position, self.label = 0, ""

        def update(self, steps: int) -> None:
            self.position += steps

        def __exit__(self, *exc: object) -> None:
            pass

    stages = _StageBar(enabled=False)
    bar = stages.bar = Bar()
    seen = []
    for name in ("reading sources", "chunking", "extracting", "linking", "rendering", "writing", "indexing"):
        stages.stage(name)
        seen.append(bar.position)
    stages.stage("linking with the model")  # a stage of its own: named, not counted
    assert seen == [0, 1, 2, 3, 4, 5, 6] and bar.label == "linking with the model"
    stages.__exit__(None, None, None)
    assert bar.position == len(_StageBar.STAGES)


def test_a_template_that_overrides_nothing_is_reported(tmp_path: Path) -> None:
    notes = _one_note(tmp_path)
    templates = tmp_path / "tpl"
    templates.mkdir()
    (templates / "nodes.md.j2").write_text("{{ body }}\n", "utf-8")  # misspelled: node.md.j2
    (templates / "node.md.j2").write_text('{% include "part.j2" %}\n', "utf-8")
    (templates / "part.j2").write_text("{{ body }}\n", "utf-8")  # used by another of yours
    args = ["build", str(notes), "-o", str(tmp_path / "vault"), "--templates", str(templates), "--json"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    said = [p["path"] for p in json.loads(result.stdout)["problems"] if "changes nothing" in p["message"]]
    assert said == [str(templates / "nodes.md.j2")]


def test_pages_your_templates_make_that_break_the_vault_contract_are_reported(tmp_path: Path) -> None:
    from kgvault.check import check_vault
    from kgvault.layout import packaged_templates

    notes = _one_note(tmp_path)
    templates = tmp_path / "tpl"
    shutil.copytree(packaged_templates(), templates)  # ours, as they are: nothing to say
    args = ["build", str(notes), "-o", str(tmp_path / "vault"), "--templates", str(templates), "--json"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["problems"] == []
    (templates / "kgvault.base.j2").write_text("not: [valid\n", "utf-8")
    (templates / "ontology.md.j2").write_text("---\nfoo: [\n---\nx\n", "utf-8")
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    said = {(p["path"], p["message"].split(":", 1)[0]) for p in json.loads(result.stdout)["problems"]}
    vault = tmp_path / "vault"
    assert said == {
        (str(vault / "kgvault.base"), "made by your template kgvault.base.j2"),
        (str(vault / "ontology.md"), "made by your template ontology.md.j2"),
    }
    # What the build said is what `kgvault check` finds.
    assert {p.path for p in check_vault(vault)} == {"kgvault.base", "ontology.md"}
    # A later build that rewrites neither page says so again.
    note = next(notes.glob("*.md"))
    note.write_text(note.read_text("utf-8") + "\nFixed the kettle today.\n", "utf-8")
    result = CliRunner().invoke(main, args)
    report = json.loads(result.stdout)
    assert report["files"]["written"] > 0
    again = {(p["path"], p["message"].split(":", 1)[0]) for p in report["problems"]}
    assert again == said


def test_a_misspelled_setting_is_named_with_the_one_meant(tmp_path: Path) -> None:
    notes = _one_note(tmp_path)
    (notes / "kgvault.toml").write_text("max_chunk_char = 300\n", "utf-8")
    result = CliRunner().invoke(main, ["build", str(notes), "-o", str(tmp_path / "vault")])
    assert result.exit_code == 2
    assert "unknown key 'max_chunk_char'; did you mean 'max_chunk_chars'?" in result.stderr


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["build", "", "-o", "vault"], "Invalid value for 'NOTES': is empty; give a path"),
        (["build", "notes", "-o", ""], "Invalid value for '-o' / '--output': is empty; give a path"),
        (["search", "klipper", "--vault", ""], "Invalid value for '--vault': is empty; give a path"),
        (["check", ""], "Invalid value for 'VAULT': is empty; give a path"),
    ],
)
def test_an_empty_path_is_a_usage_error_not_the_current_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], says: str
) -> None:
    """An unset variable (`kgvault build "$NOTES"`) must not build or read the current folder."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "notes").mkdir()
    (tmp_path / "stray.md").write_text("I work at Acme.\n", encoding="utf-8")
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2 and says in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes", "stray.md"]


def test_recall_says_what_is_wrong_with_the_vault_it_was_given(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    _one_note(tmp_path)
    assert CliRunner().invoke(main, ["build", str(tmp_path / "notes"), "-o", str(vault), "-q"]).exit_code == 0

    def said(*args: str) -> str:
        result = CliRunner().invoke(main, list(args))
        assert result.exit_code == 2, result.output
        return result.stderr

    assert "the query is empty" in said("search", "  ", "--vault", str(vault))
    missing = str(tmp_path / "nowhere")
    assert f"{missing} is not found; give the vault's folder (--vault)" in said("tags", "--vault", missing)
    (vault / ".kgvault" / "state" / "search.sqlite").write_bytes(b"not a database at all")
    damaged = said("search", "klipper", "--vault", str(vault))
    assert "has a damaged search index" in damaged and "rebuild the vault" in damaged


@pytest.mark.parametrize("inside", ["entities", ".kgvault", "sources/deeper"])
def test_a_vault_inside_another_kgvault_vault_is_refused(tmp_path: Path, inside: str) -> None:
    notes = _one_note(tmp_path)
    vault = tmp_path / "vault"
    assert CliRunner().invoke(main, ["build", str(notes), "-o", str(vault), "-q"]).exit_code == 0
    before = sorted(str(p.relative_to(vault)) for p in vault.rglob("*"))
    result = CliRunner().invoke(main, ["build", str(notes), "-o", str(vault / inside)])
    assert result.exit_code == 2
    assert f"lies inside {vault.resolve()}, a vault kgvault built" in result.stderr
    assert sorted(str(p.relative_to(vault)) for p in vault.rglob("*")) == before


def test_check_and_build_give_one_advice_for_a_damaged_manifest(tmp_path: Path) -> None:
    notes = _one_note(tmp_path)
    vault = tmp_path / "vault"
    assert CliRunner().invoke(main, ["build", str(notes), "-o", str(vault), "-q"]).exit_code == 0
    (vault / ".kgvault" / "manifest.json").write_text("{ not json", encoding="utf-8")
    checked = CliRunner().invoke(main, ["check", str(vault)])
    built = CliRunner().invoke(main, ["build", str(notes), "-o", str(vault)])
    assert checked.exit_code == 1 and built.exit_code == 2
    for said in (checked.output, built.stderr):
        assert "restore it (from version control, a backup), or" in said and "--force" in said
    assert CliRunner().invoke(main, ["build", str(notes), "-o", str(vault), "--force", "-q"]).exit_code == 0
    assert CliRunner().invoke(main, ["check", str(vault)]).exit_code == 0


def test_a_notes_folder_with_nothing_to_read_is_said_to_hold_no_notes(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    (notes / ".hidden").mkdir(parents=True)
    (notes / ".hidden" / "a.md").write_text("Atlas uses Postgres.\n", encoding="utf-8")
    (notes / "photo.png").write_bytes(b"\x89PNG\r\n")
    result = CliRunner().invoke(main, ["build", str(notes), "-o", str(tmp_path / "vault")])
    assert result.exit_code == 0
    assert f"note: no notes found in {notes} (kgvault reads .md, .markdown, .txt" in result.stderr
    (notes / "a.md").write_text("Atlas uses Postgres.\n", encoding="utf-8")
    again = CliRunner().invoke(main, ["build", str(notes), "-o", str(tmp_path / "vault")])
    assert again.exit_code == 0 and "no notes found" not in again.stderr


def test_tags_of_a_vault_without_any_say_so(tmp_path: Path) -> None:
    notes = _one_note(tmp_path, "Atlas uses Postgres.\n")
    vault = tmp_path / "vault"
    assert CliRunner().invoke(main, ["build", str(notes), "-o", str(vault), "-q"]).exit_code == 0
    result = CliRunner().invoke(main, ["tags", "--vault", str(vault)])
    assert result.exit_code == 0 and result.stdout == ""
    assert "no tags: no node of this vault has one" in result.stderr


def test_a_settings_file_that_cannot_be_read_says_why_and_what_to_do(tmp_path: Path) -> None:
    notes = _one_note(tmp_path)
    (notes / "kgvault.toml").write_bytes(b'user_name = "Ren\xe9"\n')  # Latin-1, not UTF-8
    own = CliRunner().invoke(main, ["build", str(notes), "-o", str(tmp_path / "vault")])
    assert own.exit_code == 2
    assert (
        "not UTF-8 text (byte 16 cannot be read); save it as UTF-8, or pass another with --config"
        in own.stderr
    )
    given = tmp_path / "settings.toml"
    given.write_text("vault = \n", "utf-8")
    named = CliRunner().invoke(
        main, ["build", str(notes), "-o", str(tmp_path / "vault"), "--config", str(given)]
    )
    assert named.exit_code == 2 and "; fix the file" in named.stderr and "--config" not in named.stderr
