"""Names shared by tests: paths to ../shared and the isolated-home record.

Import from here (``from testkit import CORPORA``), never from ``conftest``: with several
conftest.py files in the tree, ``import conftest`` is ambiguous.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("SKILLSHELF_SHARED", REPO.parent / "shared"))
TOOLS = SHARED / "tools"
CORPORA = SHARED / "corpora"
BENCHMARKS = SHARED / "benchmarks"


@dataclass(frozen=True)
class IsolatedHome:
    home: Path
    codex_home: Path
    cache: Path
    data: Path
    config: Path
    state: Path
