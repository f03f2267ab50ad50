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


def _user_dir(kind: str) -> Path:
    """``SKILLSHELF_<KIND>_DIR``, else ``$XDG_<KIND>_HOME/skillshelf``, else platformdirs' ``user_<kind>_dir``."""
    found = _override(f"SKILLSHELF_{kind.upper()}_DIR") or _xdg(f"XDG_{kind.upper()}_HOME")
    if found is not None:
        return found
    import platformdirs

    return Path(getattr(platformdirs, f"user_{kind}_dir")(APP, appauthor=False))


def user_cache_dir() -> Path:
    """Parsed-skill cache, search index. ``SKILLSHELF_CACHE_DIR`` overrides."""
    return _user_dir("cache")


def user_data_dir() -> Path:
    """Built-in skills, installed skills, memory database. ``SKILLSHELF_DATA_DIR`` overrides."""
    return _user_dir("data")


def user_config_dir() -> Path:
    """The user config layer (``config.toml``). ``SKILLSHELF_CONFIG_DIR`` overrides."""
    return _user_dir("config")


def user_state_dir() -> Path:
    """Agent transcripts, usage statistics. ``SKILLSHELF_STATE_DIR`` overrides."""
    return _user_dir("state")
