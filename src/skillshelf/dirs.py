"""skillshelf's own user folders, resolved once from the environment by ``Env.from_os``.

:class:`UserDirs` is a plain value; nothing here reads the process environment: the mapping and
the home folder come from the caller (``Env.from_os`` passes ``os.environ`` and ``$HOME``).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

__all__ = ["APP", "UserDirs"]

APP = "skillshelf"
_KINDS = ("cache", "data", "config", "state")
# Where each folder lives under the home folder on Linux when its XDG variable is unset (the XDG
# base-directory defaults, as platformdirs gives them).
_LINUX_DEFAULTS = {"cache": ".cache", "data": ".local/share", "config": ".config", "state": ".local/state"}


@dataclass(frozen=True, slots=True, kw_only=True)
class UserDirs:
    """The user folders skillshelf reads and writes.

    ``cache``: parsed-skill cache and search index. ``data``: built-in and installed skills,
    memory database and folders. ``config``: the user config layer (``config.toml``).
    ``state``: agent transcripts and the usage log.
    """

    cache: Path
    data: Path
    config: Path
    state: Path

    @classmethod
    def under(cls, home: Path) -> UserDirs:
        """The Linux default layout below ``home`` (``~/.cache/skillshelf``...): what tests isolate."""
        return cls(**{kind: home / _LINUX_DEFAULTS[kind] / APP for kind in _KINDS})

    @classmethod
    def from_environ(cls, environ: Mapping[str, str], home: Path) -> UserDirs:
        """Each folder from ``SKILLSHELF_<KIND>_DIR``, else ``$XDG_<KIND>_HOME/skillshelf``, else the
        platform's user folder (platformdirs)."""
        return cls(**{kind: _user_dir(kind, environ, home) for kind in _KINDS})


def _user_dir(kind: str, environ: Mapping[str, str], home: Path) -> Path:
    override = environ.get(f"SKILLSHELF_{kind.upper()}_DIR")
    if override:
        return Path(override)
    found = _xdg(kind, environ, home)
    if found is not None:
        return found
    import platformdirs

    return Path(getattr(platformdirs, f"user_{kind}_dir")(APP, appauthor=False))


def _xdg(kind: str, environ: Mapping[str, str], home: Path) -> Path | None:
    """On Linux: ``$XDG_<KIND>_HOME/skillshelf`` when the variable is an absolute path, the XDG
    default below ``home`` when it is unset or empty (and ``home`` is absolute); as platformdirs
    gives them.

    platformdirs (and the ``tempfile``/``shutil`` it imports) costs several milliseconds of a
    warm run; its Unix class returns exactly this in these cases. Anything else (a relative
    variable, another platform, Android) goes through platformdirs.
    """
    if sys.platform != "linux" or hasattr(sys, "getandroidapilevel") or "ANDROID_DATA" in environ:
        return None
    value = environ.get(f"XDG_{kind.upper()}_HOME", "")
    if value.startswith("/"):
        return Path(os.path.join(value, APP))
    if value.strip() or not home.is_absolute():
        return None
    return home / _LINUX_DEFAULTS[kind] / APP
