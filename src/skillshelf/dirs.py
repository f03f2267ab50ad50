"""skillshelf's own user folders, from platformdirs (so ``XDG_*`` variables move them)."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["user_cache_dir", "user_config_dir", "user_data_dir", "user_state_dir"]

APP = "skillshelf"


def _override(name: str) -> Path | None:
    value = os.environ.get(name)
    return Path(value) if value else None


def user_cache_dir() -> Path:
    """Parsed-skill cache, search index. ``SKILLSHELF_CACHE_DIR`` overrides."""
    import platformdirs

    return _override("SKILLSHELF_CACHE_DIR") or Path(platformdirs.user_cache_dir(APP, appauthor=False))


def user_data_dir() -> Path:
    """Built-in skills, installed skills, memory database. ``SKILLSHELF_DATA_DIR`` overrides."""
    import platformdirs

    return _override("SKILLSHELF_DATA_DIR") or Path(platformdirs.user_data_dir(APP, appauthor=False))


def user_config_dir() -> Path:
    """The user config layer (``config.toml``). ``SKILLSHELF_CONFIG_DIR`` overrides."""
    import platformdirs

    return _override("SKILLSHELF_CONFIG_DIR") or Path(platformdirs.user_config_dir(APP, appauthor=False))


def user_state_dir() -> Path:
    """Agent transcripts, usage statistics. ``SKILLSHELF_STATE_DIR`` overrides."""
    import platformdirs

    return _override("SKILLSHELF_STATE_DIR") or Path(platformdirs.user_state_dir(APP, appauthor=False))
