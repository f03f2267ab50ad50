"""A small layered package on disk for the archlint tests."""

from __future__ import annotations

import textwrap
from pathlib import Path

CONFIG = """
[project]
name = "shop"

[tool.skillshelf.archlint]
root = "src/shop"
layers = [
  ["errors", "types"],
  ["core"],
  ["adapters"],
  ["cli"],
]
"""


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


def make_project(base: Path, *, config: str = CONFIG) -> Path:
    """A package ``shop`` whose imports all respect the layers; returns the package folder."""
    write(base / "pyproject.toml", config)
    pkg = base / "src" / "shop"
    write(pkg / "__init__.py", '"""shop"""\n')
    write(pkg / "errors.py", "class ShopError(Exception):\n    pass\n")
    write(pkg / "types.py", "from shop.errors import ShopError\n\nPrice = int\n")
    write(pkg / "core" / "__init__.py", "from .orders import place\n")
    write(
        pkg / "core" / "orders.py",
        "from ..types import Price\nfrom shop import errors\n\ndef place(p: Price) -> None:\n    pass\n",
    )
    write(pkg / "adapters" / "__init__.py", "")
    write(pkg / "adapters" / "db.py", "import shop.core.orders\nfrom shop.core import orders\n")
    write(pkg / "cli" / "__init__.py", "")
    write(
        pkg / "cli" / "main.py",
        "import json\nimport click  # third party: ignored\nfrom shop.adapters import db\n",
    )
    return pkg
