"""Helpers to build skill trees in tmp_path for the discovery and parsing tests."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from skillshelf.env import Env
from skillshelf.skills.discover import discover_in
from skillshelf.skills.model import RootOrigin, Scope, Skill, SkillRoot
from testkit import REFERENCE, IsolatedHome, reference_vectors, shared_path

VECTORS_FILE = "codex-skill-vectors.json"


def only_skill(root: Path) -> Skill:
    """The one skill discovery finds under ``root`` (asserted to be the only one)."""
    (skill,) = discover_in([root]).skills
    return skill


def skill_text(name: str | None, description: str | None = "does a thing", extra: str = "") -> str:
    lines = ["---"]
    if name is not None:
        lines.append(f"name: {name}")
    if description is not None:
        lines.append(f"description: {description}")
    if extra:
        lines.append(extra.rstrip("\n"))
    lines += ["---", "", "# Body", ""]
    return "\n".join(lines)


def write(path: Path, content: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8", newline="")
    return path


def write_skill(
    folder: Path, name: str | None, description: str | None = "does a thing", extra: str = ""
) -> Path:
    return write(folder / "SKILL.md", skill_text(name, description, extra))


GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main"]


def git(*args: str, cwd: Path | None = None) -> None:
    """Run git quietly (an identity and a branch name given, so no global config is needed)."""
    subprocess.run([*GIT, *args], cwd=cwd, check=True, capture_output=True)


def git_init(path: Path) -> Path:
    """A real repository at ``path`` (made by ``git init``, as a user would)."""
    path.mkdir(parents=True, exist_ok=True)
    git("init", "-q", str(path))
    return path


def split_catalog(text: str | None) -> tuple[list[str], list[str]]:
    """The roots table lines and the skill lines of a ``<skills_instructions>`` text."""
    roots: list[str] = []
    entries: list[str] = []
    section = None
    for line in (text or "").split("\n"):
        if line.startswith("### ") or line.startswith("</"):
            section = line
        elif section == "### Skill roots" and line.startswith("- "):
            roots.append(line)
        elif section == "### Available skills" and line.startswith("- "):
            entries.append(line)
    return roots, entries


def repo_env(tmp_path: Path, box: IsolatedHome, *, cwd: Path | None = None) -> Env:
    """An Env in the git project ``tmp_path/repo`` (made here; cwd there unless given), home in ``box``."""
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True, exist_ok=True)
    return Env.for_test(cwd=cwd or repo, home=box.home, codex_home=box.codex_home)


def repo_root(
    path: Path, scope: Scope = Scope.REPO, origin: RootOrigin = RootOrigin.AGENTS_REPO, follow: bool = True
) -> SkillRoot:
    return SkillRoot(path=path, scope=scope, origin=origin, follow_symlinks=follow)


def vectors(area: str) -> list[dict[str, Any]]:
    """Codex's skill vectors of ``area`` (a skip naming the file when ../shared is missing)."""
    return reference_vectors(VECTORS_FILE, area)


def vector_params(area: str) -> list[dict[str, Any] | None]:
    """Values to parametrize a test with the vectors of ``area``, read at collection time.

    Without ../shared there is one value, None, that the test hands to :func:`present`: the test
    is then skipped naming the missing file (a failure under CI=true), instead of the module
    failing to import or the parametrization coming out empty.
    """
    if not (REFERENCE / VECTORS_FILE).exists():
        return [None]
    return list(vectors(area))


def present(vector: dict[str, Any] | None) -> dict[str, Any]:
    """``vector``; for the None of :func:`vector_params`, a skip (or CI failure) naming the file."""
    if vector is None:
        shared_path(f"reference/{VECTORS_FILE}")
        raise AssertionError("unreachable: the vectors file exists")
    return vector
