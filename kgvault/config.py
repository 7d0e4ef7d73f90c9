"""Settings: defaults, then kgvault.toml at the notes root (or --config), then environment, then flags."""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any


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


_KEYS = {f.name for f in fields(Settings)} - {"notes"}
_PATH_KEYS = {"vault", "templates"}
_ENV = {"KGVAULT_MODEL": "model", "KGVAULT_API_BASE": "api_base"}


def load_settings(notes: Path, config: Path | None = None, **flags: Any) -> Settings:
    """Resolve settings for a build of `notes`; flags that are None do not override anything."""
    if not notes.is_dir():
        raise ConfigError(f"notes folder {notes} does not exist or is not a folder")
    values: dict[str, Any] = {"vault": Path("vault")}
    config_path = config or notes / "kgvault.toml"
    if config is not None and not config.is_file():
        raise ConfigError(f"config file {config} does not exist")
    if config_path.is_file():
        values.update(_read_toml(config_path))
    for variable, key in _ENV.items():
        if os.environ.get(variable):
            values[key] = os.environ[variable]
    values.update({k: v for k, v in flags.items() if v is not None})
    unknown = set(values) - _KEYS
    if unknown:
        raise ConfigError(f"unknown setting(s): {', '.join(sorted(unknown))}")
    settings = Settings(notes=notes, **values)
    return replace(settings, vault=Path(settings.vault))


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        data = tomllib.loads(path.read_text("utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise ConfigError(f"{path}: {error}; fix the file or pass --config") from error
    values: dict[str, Any] = {}
    for key, value in data.items():
        name = key.replace("-", "_")
        if name == "output":
            name = "vault"
        if name not in _KEYS:
            raise ConfigError(f"{path}: unknown key {key!r} (known: {', '.join(sorted(_KEYS))})")
        values[name] = (path.parent / value) if name in _PATH_KEYS and isinstance(value, str) else value
    return values
