"""Names shared by tests: paths to ../shared, the isolated-home record and a raw zip writer.

Import from here (``from testkit import CORPORA``), never from ``conftest``: with several
conftest.py files in the tree, ``import conftest`` is ambiguous.
"""

from __future__ import annotations

import os
import warnings
import zipfile
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


def zip_with(path: Path, entries: list[tuple[str, bytes, int | None]]) -> Path:
    """A zip whose entries are (name, data, unix mode or None) written verbatim."""
    with zipfile.ZipFile(path, "w") as zf:
        for name, data, mode in entries:
            info = zipfile.ZipInfo(name)
            if mode is not None:
                info.external_attr = (mode & 0xFFFF) << 16
                info.create_system = 3
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # duplicate names are written on purpose
                zf.writestr(info, data)
    return path
