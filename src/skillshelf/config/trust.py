"""Project trust: a project's own config takes effect only once the user trusts the project.

Trust is written by ``skillshelf trust`` in the user layer, Codex style::

    [projects."/home/me/src/app"]
    trust_level = "trusted"      # or "untrusted"

The entry for the project root, or the nearest of its ancestors that has one, decides; in a
linked git worktree without one, the main checkout's (or its nearest ancestor's) decides, as
Codex trusts a worktree by its main checkout (agents make worktrees for every task). Only
the system and user layers are read for trust: a project cannot trust itself, so a
``[projects]`` table in a project or ``-c`` layer is reported and ignored.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from skillshelf.config.layers import ConfigLayer, LayerKind
from skillshelf.fileio import resolve_path
from skillshelf.gitrepo import main_checkout

__all__ = ["TrustDecision", "canonical", "decide_trust"]

TRUST_LAYERS = frozenset({LayerKind.SYSTEM, LayerKind.USER})


@dataclass(frozen=True, slots=True, kw_only=True)
class TrustDecision:
    """Whether the project at ``root`` is trusted, and why."""

    root: Path
    trusted: bool
    reason: str
    entry: Path | None = None

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


def _entries(layers: Sequence[ConfigLayer]) -> dict[Path, tuple[str, str]]:
    found: dict[Path, tuple[str, str]] = {}
    for layer in layers:
        if layer.kind not in TRUST_LAYERS or not layer.active:
            continue
        projects = layer.values.get("projects")
        if not isinstance(projects, dict):
            continue
        for key, entry in projects.items():
            level = entry.get("trust_level") if isinstance(entry, dict) else None
            if isinstance(level, str):
                found[canonical(Path(key))] = (level, layer.label)
    return found


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
                    root=root, trusted=True, reason=f"trusted in the {label} layer{where}", entry=folder
                )
            return TrustDecision(
                root=root,
                trusted=False,
                entry=folder,
                reason=f"marked untrusted in the {label} layer{where}; "
                f"run `skillshelf trust {_quoted(root)}`",
            )
    return TrustDecision(
        root=root,
        trusted=False,
        reason=f"project not trusted; run `skillshelf trust {_quoted(root)}` to let its config take effect",
    )


def _quoted(path: Path) -> str:
    """``path`` as a shell word: a command shown for pasting runs nothing hidden in a folder name."""
    return shlex.quote(str(path))
