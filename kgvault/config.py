"""Settings: defaults, then kgvault.toml at the notes root (or --config), then environment, then flags."""

from __future__ import annotations

import difflib
import math
import os
import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, fields
from datetime import UTC, tzinfo
from pathlib import Path
from typing import Any

from kgvault.layout import MANIFEST


class ConfigError(ValueError):
    """A settings file or value the user must fix."""


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything a build needs to know, fully resolved."""

    notes: Path
    vault: Path
    templates: Path | None = None
    model: str | None = None
    api_base: str | None = None
    jobs: int = 4
    force: bool = False
    dry_run: bool = False
    max_chunk_chars: int = 3000
    max_file_bytes: int = 20_000_000
    functional_predicates: tuple[str, ...] = ()
    """Predicates with one current value, added to the built-in ones (`lives_in`, `runs`, …)."""
    timeout: float = 60.0
    """Seconds one model request may take."""
    retries: int = 3
    """Extra attempts of a model request after a rate limit, a server error or a timeout."""
    backoff: float = 1.0
    """Seconds before the first retry of a model request; doubled for each next one."""
    max_cost: float | None = None
    """Stop sending model requests once this many US dollars are spent."""
    refresh: bool = False
    """Ask the model again even for chunks whose answer is cached."""
    strict: bool = False
    """A chunk the model could not extract makes the build exit 1."""
    llm_link: bool = False
    """After the rules, ask the model to file flat tags and judge near-identical entity names."""
    llm_confidential: bool = False
    """Send notes marked `sensitivity: confidential` to the model too (else they are extracted offline)."""
    max_sensitivity: str | None = None
    """Build a vault without anything above this level (`public` or `private`), to share it."""
    user_name: str | None = None
    """Who you are: the user of a chat export (`User` when unset), and the "I" of your notes that
    name no `author` (nobody's when unset: "I work at Acme" then relates no one)."""
    timezone: str | None = None
    """The IANA time zone (`Europe/Paris`) zoned and epoch times are dated in; UTC when unset."""

    @property
    def zone(self) -> tzinfo:
        """The time zone times are dated in (`timezone`, else UTC)."""
        return _zone(self.timezone) if self.timezone else UTC


_KEYS = {f.name for f in fields(Settings)} - {"notes"}
_PATH_KEYS = {"vault", "templates"}
_BOOL_KEYS = {"force", "dry_run", "refresh", "strict", "llm_link", "llm_confidential"}
_FLOAT_KEYS = {"timeout": 0.1, "max_cost": 0.0, "backoff": 0.0}
_FLOAT_MAX = {"timeout": 3600.0, "backoff": 600.0}
"""Seconds beyond which a model call's wait or a retry's pause is a mistake, not a setting."""
_INT_KEYS = {"jobs": 1, "max_chunk_chars": 200, "max_file_bytes": 1, "retries": 0}
MAX_RETRIES = 100
MAX_JOBS = 64
"""Model requests in flight at once, at most (the `--jobs` flag's range too)."""
_SNAKE_CASE = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)*")
_ENV = {"KGVAULT_MODEL": "model", "KGVAULT_API_BASE": "api_base", "KGVAULT_USER_NAME": "user_name"}


def load_settings(notes: Path, config: Path | None = None, **flags: Any) -> Settings:
    """Resolve settings for a build of `notes`; flags that are None do not override anything."""
    if not notes.is_dir():
        what = "is a file, not a folder" if notes.exists() else "does not exist"
        raise ConfigError(f"notes folder {notes} {what}")
    values: dict[str, Any] = {"vault": Path("vault")}
    config_path = config or notes / "kgvault.toml"
    if config is not None and not config.is_file():
        what = "is not a regular file (a TOML file is needed)" if config.exists() else "does not exist"
        raise ConfigError(f"config file {config} {what}")
    if config_path.exists() and not config_path.is_file():
        raise ConfigError(f"{config_path} is not a file; the settings file must be a TOML file")
    origins: dict[str, str] = {}  # where a value came from, when not the settings file: for errors
    if config_path.is_file():
        values.update(_read_toml(config_path, given=config is not None))
    for variable, key in _ENV.items():
        if os.environ.get(variable):
            values[key] = os.environ[variable]
            origins[key] = f"the environment variable {variable}"
    for key, value in flags.items():
        if value is not None:
            values[key] = value
            origins[key] = f"--{key.replace('_', '-')}"
    unknown = set(values) - _KEYS
    if unknown:
        raise ConfigError(f"unknown setting(s): {', '.join(sorted(unknown))}")
    settings = Settings(notes=notes, **_checked(values, lambda key: origins.get(key, str(config_path))))
    _check_folders(settings)
    return settings


def _home_path(value: str | Path, where: str) -> Path:
    """A path as written, `~/kg` in the home folder (`~ana/kg` in Ana's)."""
    try:
        return Path(value).expanduser()
    except RuntimeError:  # no home folder to be found, or no such user
        head = str(value).split("/", 1)[0]
        raise ConfigError(
            f"{where}: cannot find the home folder {head!r} names; write the whole path"
        ) from None


def _checked(values: dict[str, Any], origin_of: Callable[[str], str]) -> dict[str, Any]:
    """Check every value's type, so `force = "false"` is an error rather than a surprise; an error
    names where the value came from (`origin_of(key)`)."""
    checked: dict[str, Any] = {}
    for key, value in values.items():
        origin = origin_of(key)
        if key in _PATH_KEYS:
            if not isinstance(value, str | Path):
                raise ConfigError(f"{origin}: `{key}` must be a path, not {value!r}")
            value = _home_path(value, f"{origin}: `{key}`")
        elif key in _BOOL_KEYS and not isinstance(value, bool):
            raise ConfigError(f"{origin}: `{key}` must be true or false, not {value!r}")
        elif key in _INT_KEYS and (
            not isinstance(value, int) or isinstance(value, bool) or value < _INT_KEYS[key]
        ):
            raise ConfigError(f"{origin}: `{key}` must be a whole number ≥ {_INT_KEYS[key]}, not {value!r}")
        elif key == "jobs" and value > MAX_JOBS:
            raise ConfigError(f"{origin}: `jobs` must be at most {MAX_JOBS}, not {value!r}")
        elif key == "retries" and value > MAX_RETRIES:
            raise ConfigError(f"{origin}: `retries` must be at most {MAX_RETRIES}, not {value!r}")
        elif key in _FLOAT_KEYS and (
            not isinstance(value, int | float)
            or isinstance(value, bool)
            or not math.isfinite(value)  # NaN passes every comparison: `max_cost = nan` would be no cap
            or value < _FLOAT_KEYS[key]
            or value > _FLOAT_MAX.get(key, math.inf)
        ):
            most = f" and ≤ {_FLOAT_MAX[key]:g}" if key in _FLOAT_MAX else ""
            raise ConfigError(f"{origin}: `{key}` must be a number ≥ {_FLOAT_KEYS[key]}{most}, not {value!r}")
        elif key in ("model", "api_base", "user_name", "timezone") and not isinstance(value, str):
            raise ConfigError(f"{origin}: `{key}` must be text, not {value!r}")
        elif key == "max_sensitivity" and value not in ("public", "private", "confidential"):
            raise ConfigError(
                f"{origin}: `max_sensitivity` must be public, private or confidential, not {value!r}"
            )
        elif key == "user_name" and not value.strip():
            raise ConfigError(f"{origin}: `user_name` must be a name, not empty")
        elif key == "timezone":
            _zone(value, origin)
        elif key == "functional_predicates":
            value = _predicates(value, origin)
        checked[key] = value
    templates = checked.get("templates")
    if templates is not None and not templates.is_dir():
        raise ConfigError(f"templates folder {templates} does not exist")
    return checked


def _zone(name: str, origin: str | None = None) -> tzinfo:
    """The time zone an IANA name names; a ConfigError that says what to write otherwise."""
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as error:
        where = f"{origin}: " if origin else ""
        raise ConfigError(
            f'{where}`timezone` must be an IANA time zone name like "Europe/Paris" or "UTC", not {name!r} '
            "(without a time zone database on this system, `pip install tzdata` provides one)"
        ) from error


def _predicates(value: Any, origin: str) -> tuple[str, ...]:
    """A list of snake_case predicate names, as relations.jsonl writes them."""
    if not isinstance(value, list | tuple) or not all(
        isinstance(v, str) and _SNAKE_CASE.fullmatch(v) for v in value
    ):
        raise ConfigError(
            f"{origin}: `functional_predicates` must be a list of snake_case names, "
            f'like ["owns", "drives"], not {value!r}'
        )
    return tuple(sorted(set(value)))


def _check_folders(settings: Settings) -> None:
    """Refuse a vault that is the notes folder or holds it: the build would read its own output."""
    notes, vault = settings.notes.resolve(), settings.vault.resolve()
    if vault == notes:
        raise ConfigError(
            f"the vault {settings.vault} is the notes folder itself; choose another vault folder "
            "(-o, or `vault` in kgvault.toml)"
        )
    if vault in notes.parents:
        raise ConfigError(
            f"the notes folder {settings.notes} lies inside the vault {settings.vault}; "
            "choose a vault folder outside it (a vault inside the notes folder is fine)"
        )
    if vault.exists() and not vault.is_dir():
        raise ConfigError(f"the vault {settings.vault} is a file, not a folder")
    if (notes / MANIFEST).is_file():
        raise ConfigError(
            f"the notes folder {settings.notes} is a vault kgvault built (it holds {MANIFEST}); "
            "were the folders swapped? Run: kgvault build NOTES -o VAULT"
        )
    # Pages among another vault's pages would be that vault's stale pages, and its name clashes.
    outer = next((folder for folder in vault.parents if (folder / MANIFEST).is_file()), None)
    if outer is not None:
        raise ConfigError(
            f"the vault {settings.vault} lies inside {outer}, a vault kgvault built; "
            "choose a vault folder outside it"
        )


def _read_toml(path: Path, given: bool = False) -> dict[str, Any]:
    """The settings a TOML file holds; `given` when --config named it (else it is the notes' own)."""
    elsewhere = "" if given else ", or pass another with --config"
    try:
        data = tomllib.loads(path.read_text("utf-8"))
    except UnicodeDecodeError as error:
        raise ConfigError(
            f"{path}: not UTF-8 text (byte {error.start} cannot be read); save it as UTF-8{elsewhere}"
        ) from error
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise ConfigError(f"{path}: {error}; fix the file{elsewhere}") from error
    values: dict[str, Any] = {}
    for key, value in data.items():
        name = key.replace("-", "_")
        if name == "output":
            name = "vault"
        if name not in _KEYS:
            close = difflib.get_close_matches(name, [*_KEYS, "output"], n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise ConfigError(
                f"{path}: unknown key {key!r}{hint} (known: {', '.join(sorted(_KEYS))}, and output for vault)"
            )
        if name in values:  # `output` and `vault`, `max-chunk-chars` and `max_chunk_chars`
            raise ConfigError(f"{path}: {key!r} sets `{name}` a second time; keep one of them")
        # A path is relative to the settings file, unless it starts at the home folder (`~/kg`).
        values[name] = (
            (path.parent / _home_path(value, f"{path}: `{key}`"))
            if name in _PATH_KEYS and isinstance(value, str)
            else value
        )
    return values
