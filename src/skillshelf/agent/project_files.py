"""The project's own check command, found from its files (``package.json``, ``pyproject.toml``...).

These files belong to the project the agent works in, so they are read as untrusted input:
only regular files are opened (a FIFO named ``pyproject.toml`` would block ``open`` forever; it
is opened non-blocking and refused), at most :data:`MAX_PROJECT_FILE_BYTES` are read, and a
file that is not the expected shape (``tool = 5``, a JSON list, nesting deep enough to exhaust
the parser's recursion) simply does not name a check command: the agent still starts.
"""

from __future__ import annotations

import json
import os
import re
import stat
import tomllib
from pathlib import Path

__all__ = ["MAX_PROJECT_FILE_BYTES", "find_check_command", "read_project_file"]

#: Project manifests are a few kilobytes; anything past 1 MiB is not read.
MAX_PROJECT_FILE_BYTES = 1 << 20


def read_project_file(path: Path) -> str:
    """The text of the regular file ``path`` (at most the cap); ``""`` for anything else."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except (OSError, ValueError):
        return ""
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return ""
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.read(MAX_PROJECT_FILE_BYTES)
    except OSError:
        return ""
    finally:
        os.close(fd)
    return data.decode("utf-8", errors="replace")


def find_check_command(workspace: Path) -> str | None:
    """The project's checks as a user would run them, found from the files in ``workspace``."""
    if (workspace / ".ci" / "run").is_file():
        return "bash .ci/run"
    if _npm_has_test(workspace / "package.json"):
        return "npm test"
    if (workspace / "Cargo.toml").is_file():
        return "cargo test"
    if (workspace / "go.mod").is_file():
        return "go test ./..."
    if _has_python_tests(workspace):
        return "python -m pytest"
    if re.search(r"^test:", read_project_file(workspace / "Makefile"), re.M):
        return "make test"
    return None


def _npm_has_test(package_json: Path) -> bool:
    text = read_project_file(package_json)
    if not text:
        return False
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return False
    scripts = data.get("scripts") if isinstance(data, dict) else None
    return isinstance(scripts, dict) and "test" in scripts


#: pytest's own config sections in ``tox.ini`` and ``setup.cfg``.
_PYTEST_SECTION = re.compile(r"^\[(?:tool:)?pytest\]", re.M)
#: Top-level entries looked at for test files; a folder with more is not a small script project.
MAX_TOP_LEVEL_ENTRIES = 2000


def _has_python_tests(workspace: Path) -> bool:
    """pytest is configured, or there is something it collects: a ``tests`` or ``test``
    folder, a ``conftest.py``, or a ``test_*.py`` / ``*_test.py`` file at the top level (a small
    project with ``calc.py`` and ``test_calc.py``)."""
    if (workspace / "pytest.ini").is_file() or any((workspace / name).is_dir() for name in ("tests", "test")):
        return True
    if any(_PYTEST_SECTION.search(read_project_file(workspace / name)) for name in ("tox.ini", "setup.cfg")):
        return True
    if _pyproject_configures_pytest(workspace / "pyproject.toml"):
        return True
    return _has_top_level_test_file(workspace)


def _pyproject_configures_pytest(path: Path) -> bool:
    text = read_project_file(path)
    if not text:
        return False
    try:
        pyproject = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError):
        return False
    tool = pyproject.get("tool")
    return isinstance(tool, dict) and "pytest" in tool


def _has_top_level_test_file(workspace: Path) -> bool:
    try:
        with os.scandir(workspace) as entries:
            for seen, entry in enumerate(entries):
                if seen >= MAX_TOP_LEVEL_ENTRIES:
                    return False
                name = entry.name
                is_test = name == "conftest.py" or (
                    name.endswith(".py") and (name.startswith("test_") or name.endswith("_test.py"))
                )
                if is_test and entry.is_file():
                    return True
    except OSError:
        return False
    return False
