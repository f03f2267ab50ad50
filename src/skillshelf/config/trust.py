"""Project trust: a project's own config takes effect only once the user trusts the project.

Trust is written by ``skillshelf trust`` in the user layer, Codex style::

    [projects."/home/me/src/app"]
    trust_level = "trusted"      # or "untrusted"

The entry for the project root, or the nearest of its ancestors that has one, decides; in a
linked git worktree without one, the main checkout's (or its nearest ancestor's) decides, as
Codex trusts a worktree by its main checkout (agents make worktrees for every task). Only
the system and user layers are read for trust: a project cannot trust itself, so a
``[projects]`` table in a project or ``-c`` layer is reported and ignored. A key that is not an
absolute path (``[projects."."]``, ``"src/app"``) would name another folder from each cwd: it
matches nothing, as in Codex's own ``[projects]`` (0.171.0, checked with codex-oracle), and is
reported (``CF119``, :func:`relative_keys`).
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from skillshelf.config.layers import ConfigLayer, LayerKind, with_fix
from skillshelf.config.tomlmap import dotted_key
from skillshelf.diagnostics import Diagnostic, Severity
from skillshelf.fileio import resolve_path
from skillshelf.gitrepo import main_checkout

__all__ = ["TrustDecision", "canonical", "decide_trust", "relative_keys", "trust_command"]

TRUST_LAYERS = frozenset({LayerKind.SYSTEM, LayerKind.USER})


@dataclass(frozen=True, slots=True, kw_only=True)
class TrustDecision:
    """Whether the project at ``root`` is trusted, why (``cause``), and for an untrusted one the
    command that trusts it (``fix``); :attr:`reason` says both as one sentence."""

    root: Path
    trusted: bool
    cause: str
    fix: str | None = None
    entry: Path | None = None

    @property
    def reason(self) -> str:
        """The cause, then the fix when there is one (``marked untrusted ...; run ...``)."""
        return with_fix(self.cause, self.fix)

    def to_dict(self) -> dict[str, object]:
        return {
            "root": str(self.root),
            "trusted": self.trusted,
            "reason": self.reason,
            "entry": str(self.entry) if self.entry else None,
        }


def canonical(path: Path) -> Path:
    """An absolute path with symlinks resolved where possible."""
    try:
        return resolve_path(path.expanduser())
    except OSError:
        return path.expanduser().absolute()


def _absolute(key: str) -> Path | None:
    """The folder a ``[projects]`` key names: an absolute path; None for any other key, which
    would name a different folder from each cwd (``~/src`` too: Codex does not expand it)."""
    path = Path(key)
    return path if path.is_absolute() else None


def _tables(layers: Sequence[ConfigLayer]) -> list[tuple[ConfigLayer, dict[str, object]]]:
    """The ``[projects]`` tables of the active system and user layers."""
    return [
        (layer, projects)
        for layer in layers
        if layer.kind in TRUST_LAYERS
        and layer.active
        and isinstance(projects := layer.values.get("projects"), dict)
    ]


def _entries(layers: Sequence[ConfigLayer]) -> dict[Path, tuple[str, str]]:
    found: dict[Path, tuple[str, str]] = {}
    for layer, projects in _tables(layers):
        for key, entry in projects.items():
            level = entry.get("trust_level") if isinstance(entry, dict) else None
            folder = _absolute(key)
            if isinstance(level, str) and folder is not None:
                found[canonical(folder)] = (level, layer.label)
    return found


def relative_keys(layers: Sequence[ConfigLayer]) -> list[Diagnostic]:
    """``CF119`` for each ``[projects]`` key of the system and user layers that is not an
    absolute path: it trusts (or distrusts) nothing."""
    return [
        Diagnostic(
            code="CF119",
            severity=Severity.WARNING,
            message=f"[projects] key {key!r} is not an absolute path, so it matches no project "
            "(it would name a different folder from each folder skillshelf runs in)",
            fix="remove the entry and run `skillshelf trust DIR` in the project (it writes the "
            "absolute path of its root)",
            path=layer.path,
            line=layer.line_of(("projects", key)),
            field=dotted_key(("projects", key)),
        )
        for layer, projects in _tables(layers)
        for key in projects
        if _absolute(key) is None
    ]


def _entry_for(folder: Path, root: Path, main: Path) -> str:
    """Where the deciding entry is, said after the layer's name ("" for the root's own)."""
    if folder == root:
        return ""
    if root.is_relative_to(folder):
        return f" (entry for its parent {folder})"
    return f" (entry for {folder}: this worktree's main checkout is {main})"


def decide_trust(root: Path, layers: Sequence[ConfigLayer]) -> TrustDecision:
    """Trust for the project at ``root`` from the system and user layers."""
    root = canonical(root)
    entries = _entries(layers)
    main = main_checkout(root)
    chain = [root, *root.parents, *((main, *main.parents) if main != root else ())]
    for folder in chain:
        if folder in entries:
            level, label = entries[folder]
            where = _entry_for(folder, root, main)
            if level == "trusted":
                return TrustDecision(
                    root=root, trusted=True, cause=f"trusted in the {label} layer{where}", entry=folder
                )
            return TrustDecision(
                root=root,
                trusted=False,
                entry=folder,
                cause=f"marked untrusted in the {label} layer{where}",
                fix=f"run `{trust_command(root)}`",
            )
    return TrustDecision(
        root=root,
        trusted=False,
        cause="project not trusted",
        fix=f"run `{trust_command(root)}` to let its config take effect",
    )


def trust_command(root: Path) -> str:
    """The command that trusts ``root``, its path one shell word: a command shown for pasting runs
    nothing hidden in a folder name."""
    return f"skillshelf trust {shlex.quote(str(root))}"
