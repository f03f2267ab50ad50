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


def _has_python_tests(workspace: Path) -> bool:
    if (workspace / "pytest.ini").is_file() or (workspace / "tests").is_dir():
        return True
    text = read_project_file(workspace / "pyproject.toml")
    if not text:
        return False
    try:
        pyproject = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError):
        return False
    tool = pyproject.get("tool")
    return isinstance(tool, dict) and "pytest" in tool
