"""Helpers for the install tests: skill folders, local git repositories, hostile archives."""

from __future__ import annotations

import dataclasses
import io
import os
import stat
import subprocess
import tarfile
from pathlib import Path
from types import MappingProxyType
from typing import Any

from skillshelf.env import Env
from skillshelf.install.git import GitRunner
from skillshelf.skills.model import RootOrigin, Scope, Skill, ToolDependency
from testkit import run_skillshelf, tar_with, zip_with


def write_skill(folder: Path, name: str, description: str = "", body: str = "", *, extra: str = "") -> Path:
    """A valid skill folder (``description`` defaults to one naming the skill)."""
    folder.mkdir(parents=True, exist_ok=True)
    text = description or f"Helps with {name.replace('-', ' ')} tasks in this test suite."
    (folder / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: {text}\n{extra}---\n{body or '# ' + name}\n", encoding="utf-8"
    )
    return folder


def git_env(home: Path) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", os.defpath),
        "HOME": str(home),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "Test Author",
        "GIT_AUTHOR_EMAIL": "author@example.invalid",
        "GIT_COMMITTER_NAME": "Test Author",
        "GIT_COMMITTER_EMAIL": "author@example.invalid",
        "LC_ALL": "C",
    }


def git(repo: Path, *args: str) -> str:
    """Run git in ``repo`` with an isolated config; return stdout."""
    proc = subprocess.run(
        ["git", *args],
        cwd=repo,
        env=git_env(repo.parent),
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=False,
    )
    assert proc.returncode == 0, f"git {' '.join(args)}: {proc.stderr}"
    return proc.stdout.strip()


def init_repo(repo: Path) -> Path:
    repo.mkdir(parents=True, exist_ok=True)
    git(repo, "init", "--quiet", "--initial-branch", "main")
    return repo


def commit_all(repo: Path, message: str) -> str:
    git(repo, "add", "--all")
    git(repo, "commit", "--quiet", "-m", message)
    return git(repo, "rev-parse", "HEAD")


run_cli = run_skillshelf  # ``skillshelf ARGS`` from ``cwd`` as its own process


def make_env(tmp_path: Path, home: Path, *, cwd: Path | None = None) -> Env:
    """An Env with a real PATH (git must be found) rooted in ``tmp_path``."""
    base = Env.for_test(cwd=cwd or tmp_path, home=home)
    environ = {"HOME": str(home), "PATH": os.environ.get("PATH", os.defpath)}
    return dataclasses.replace(base, environ=MappingProxyType(environ))


SKILL_MD = (
    b"---\nname: zipped\ndescription: A skill that arrives in a zip archive for tests.\n---\n# zipped\n"
)
SYMLINK = stat.S_IFLNK | 0o777
REGULAR = stat.S_IFREG | 0o644


def tree(folder: Path) -> list[str]:
    """Every path under ``folder`` (relative, sorted), for 'nothing was written' checks."""
    if not folder.exists():
        return []
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*"))


_TAR_COMPRESSION = {".tar": "", ".tar.gz": "gz", ".tgz": "gz", ".tar.bz2": "bz2", ".tar.xz": "xz"}


def archive_with(path: Path, entries: list[tuple[str, bytes, int | None]]) -> Path:
    """A tar when ``path`` ends with a tar suffix (``.tar.gz``, ``.tgz``...), else a zip."""
    for suffix, compression in _TAR_COMPRESSION.items():
        if path.name.endswith(suffix):
            return tar_with(path, entries, compression)
    return zip_with(path, entries)


def github_tarball(path: Path, top: str, files: dict[str, bytes]) -> Path:
    """A .tar.gz shaped like GitHub's "Source code (tar.gz)" download (``git archive``): a pax
    global header naming the commit, then one top folder holding ``files``."""
    header = {"comment": "0123456789abcdef0123456789abcdef01234567"}
    with tarfile.open(path, "w:gz", format=tarfile.PAX_FORMAT, pax_headers=header) as tf:
        folder = tarfile.TarInfo(f"{top}/")
        folder.type, folder.mode = tarfile.DIRTYPE, 0o775
        tf.addfile(folder)
        for name, data in files.items():
            info = tarfile.TarInfo(f"{top}/{name}")
            info.size, info.mode = len(data), 0o664
            tf.addfile(info, io.BytesIO(data))
    return path


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class CountingGit(GitRunner):
    """A GitRunner that notes each clone and ``ls-remote`` it makes."""

    calls: list[str] = dataclasses.field(default_factory=list)

    def clone(self, url: str, dest: Path, **kwargs: Any) -> str:
        self.calls.append("clone")
        return GitRunner.clone(self, url, dest, **kwargs)

    def remote_commit(self, url: str, ref: str | None) -> str | None:
        self.calls.append("ls-remote")
        return GitRunner.remote_commit(self, url, ref)


def skill_declaring(name: str, *deps: ToolDependency) -> Skill:
    """A user skill ``name`` (no file behind it) that declares ``deps``: the input of ``deps``."""
    return Skill(
        name=name,
        description="d",
        path=Path(f"/skills/{name}/SKILL.md"),
        root=Path("/skills"),
        scope=Scope.USER,
        origin=RootOrigin.EXTRA,
        dependencies=deps,
    )
