"""skillshelf.archlint: ``lint-arch``, import layering and size limits with a FIX for each finding.

Layers are declared in config (``[tool.skillshelf.archlint]`` of ``pyproject.toml`` or
``.skillshelf/archlint.toml``), lowest first; a module may import its own layer or lower ones.
Files are read with :mod:`ast`; nothing is imported.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from skillshelf.archlint.check import ArchReport, lint_package
from skillshelf.archlint.config import ArchConfig, Level, find_config, parse_config
from skillshelf.errors import NotFoundError, UsageError

__all__ = ["ArchConfig", "ArchReport", "find_config", "lint_package", "lint_path", "parse_config"]


def _package_root(target: Path, config: ArchConfig) -> Path:
    root = config.root.absolute() if config.root is not None else None
    if root is not None and (target == root or root in target.parents):
        return root
    folder = target if target.is_dir() else target.parent
    while (folder.parent / "__init__.py").is_file():
        folder = folder.parent
    return folder


def _must_exist(target: Path) -> None:
    if not target.exists():
        raise NotFoundError(
            f"{target.absolute()} does not exist",
            hint="pass the folder of the package to check",
            code="AR012",
        )


def lint_path(
    path: Path | None,
    *,
    cwd: Path,
    config_file: Path | None = None,
    lazy_imports: Level | None = None,
) -> ArchReport:
    """Lint ``path`` (default: the config's ``root``) with the nearest config above it."""
    start = (cwd / path) if path is not None else cwd
    if path is not None:
        _must_exist(start)  # before the config search, which would fail first outside a project
    config = find_config(start, explicit=config_file)
    if lazy_imports is not None:
        config = dataclasses.replace(config, lazy_imports=lazy_imports)
    if path is None:
        if config.root is None:
            raise UsageError(
                "no PATH given and the archlint config has no `root`",
                hint="pass the package folder, e.g. src/mypkg",
            )
        start = config.root
    target = start.absolute()
    _must_exist(target)
    if target.is_file() and target.suffix != ".py":
        raise UsageError(
            f"{target} is not a Python file or folder", hint="pass a package folder or a .py file"
        )
    root = _package_root(target, config)
    only = None if target == root else target
    return lint_package(root, config, only=only)
