"""skillshelf's own user folders, from platformdirs (so ``XDG_*`` variables move them)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

__all__ = ["user_cache_dir", "user_config_dir", "user_data_dir", "user_state_dir"]

APP = "skillshelf"


def _override(name: str) -> Path | None:
    value = os.environ.get(name)
    return Path(value) if value else None


def _xdg(name: str) -> Path | None:
    """``$XDG_*/skillshelf`` on Linux when the variable is an absolute path, as platformdirs gives it.

    platformdirs (and the ``tempfile``/``shutil`` it imports) costs several milliseconds of a
    warm run; its Unix class returns exactly this when the variable is absolute. Anything
    else (unset or relative variable, another platform, Android) goes through platformdirs.
    """
    if sys.platform != "linux" or hasattr(sys, "getandroidapilevel") or "ANDROID_DATA" in os.environ:
        return None
    value = os.environ.get(name, "")
    return Path(os.path.join(value, APP)) if value.startswith("/") else None


def user_cache_dir() -> Path:
    """Parsed-skill cache, search index. ``SKILLSHELF_CACHE_DIR`` overrides."""
    found = _override("SKILLSHELF_CACHE_DIR") or _xdg("XDG_CACHE_HOME")
    if found is not None:
        return found
    import platformdirs

    return Path(platformdirs.user_cache_dir(APP, appauthor=False))


def user_data_dir() -> Path:
    """Built-in skills, installed skills, memory database. ``SKILLSHELF_DATA_DIR`` overrides."""
    found = _override("SKILLSHELF_DATA_DIR") or _xdg("XDG_DATA_HOME")
    if found is not None:
        return found
    import platformdirs

    return Path(platformdirs.user_data_dir(APP, appauthor=False))


def user_config_dir() -> Path:
    """The user config layer (``config.toml``). ``SKILLSHELF_CONFIG_DIR`` overrides."""
    found = _override("SKILLSHELF_CONFIG_DIR") or _xdg("XDG_CONFIG_HOME")
    if found is not None:
        return found
    import platformdirs

    return Path(platformdirs.user_config_dir(APP, appauthor=False))


def user_state_dir() -> Path:
    """Agent transcripts, usage statistics. ``SKILLSHELF_STATE_DIR`` overrides."""
    found = _override("SKILLSHELF_STATE_DIR") or _xdg("XDG_STATE_HOME")
    if found is not None:
        return found
    import platformdirs

    return Path(platformdirs.user_state_dir(APP, appauthor=False))
