"""The warnings of `enable` / `disable` as coded findings, with a fix each.

:func:`skillshelf.config.mode_check.mode_warnings` says in words why an entry just written does
not decide its skill's mode; here each becomes a :class:`~skillshelf.diagnostics.Diagnostic`:

* ``CF109`` the file written is not in effect (an untrusted project, project config not
  allowed): the finding `list` and `context` give for that file, with its fix (trust the
  project, or ask for project config);
* ``CF123`` another entry, or a requirement, still decides the skill's mode (or the file is not
  read from here);
* ``CF124`` an entry of Codex's own ``config.toml`` still disables it for Codex.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from skillshelf.diagnostics import Diagnostic, Severity

__all__ = ["mode_diagnostic"]

_FIX = re.compile(
    r"; (?=(?:remove it from that list there|run `skillshelf |edit or remove that entry|set `enabled))"
)
"""Where the fix starts in a warning of ``mode_warnings`` (after its last ``; ``)."""

_SHOW = "run `skillshelf config show` to see the config files read from here and the entries that match"


def mode_diagnostic(warning: str, written: Path, found: Sequence[Diagnostic]) -> Diagnostic:
    """``warning`` (of ``mode_warnings`` for the entry written to ``written``) as a coded finding;
    ``found``: the config's findings, whose ``CF109`` for ``written`` gives the fix of a file not in
    effect."""
    if warning.startswith(f"{written} is not in effect: "):
        off = next((d for d in found if d.code == "CF109" and _same(d.path, written)), None)
        cut = [m.start() for m in _FIX.finditer(warning)] if off is not None else []
        return Diagnostic(
            code="CF109",
            severity=Severity.WARNING,
            message=warning[: cut[-1]] if cut else warning,  # its fix is the finding's, said once
            fix=off.fix if off is not None else _SHOW,
            path=written,
        )
    cut = [m.start() for m in _FIX.finditer(warning)]
    message, fix = (warning[: cut[-1]], warning[cut[-1] + 2 :]) if cut else (warning, _SHOW)
    codex = warning.startswith("Codex itself")
    return Diagnostic(
        code="CF124" if codex else "CF123",
        severity=Severity.WARNING,
        message=message,
        fix=fix,
        path=None if codex else written,
    )


def _same(path: Path | None, written: Path) -> bool:
    """Whether ``path`` names the file ``written`` (as the config loader spells it, or as given)."""
    from skillshelf.config.trust import canonical

    return path is not None and canonical(path) == canonical(written)
