"""Names shared by tests: paths to ../shared, missing components, the isolated-home record and
raw zip and tar writers.

Import from here (``from testkit import CORPORA``), never from ``conftest``: with several
conftest.py files in the tree, ``import conftest`` is ambiguous.

A test that needs something outside the project (``../shared``, npm, PostgreSQL, a reference
CLI) calls :func:`missing` when it is not there: outside CI the test is skipped with a reason
that names what is missing; under ``CI=true`` it fails, so a green CI has run every test.
"""

from __future__ import annotations

import errno
import importlib
import io
import json
import os
import shutil
import stat
import subprocess
import sys
import tarfile
import warnings
import zipfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, NoReturn

import pytest

REPO = Path(__file__).resolve().parents[1]


def shared_folder(repo: Path, environ: Mapping[str, str]) -> Path:
    """``$SKILLSHELF_SHARED`` (a relative one taken from the folder pytest was started in, since
    tests run commands in other folders), else ``../shared`` beside the project; in a git worktree
    whose own parent has none, the one beside the main checkout (the same project, checked out
    twice)."""
    if environ.get("SKILLSHELF_SHARED"):
        return Path(environ["SKILLSHELF_SHARED"]).resolve()
    beside = repo.parent / "shared"
    dot_git = repo / ".git"
    if beside.exists() or not dot_git.is_file():
        return beside
    gitdir = Path(dot_git.read_text(encoding="utf-8", errors="replace").partition("gitdir:")[2].strip())
    if gitdir.parent.name != "worktrees":  # not <main checkout>/.git/worktrees/<name>
        return beside
    return gitdir.parents[2].parent / "shared"


SHARED = shared_folder(REPO, os.environ)
TOOLS = SHARED / "tools"
CORPORA = SHARED / "corpora"
BENCHMARKS = SHARED / "benchmarks"
REFERENCE = SHARED / "reference"


def in_ci() -> bool:
    """True when the ``CI`` variable says so (``true``/``1``/``yes``, as CI services set it)."""
    return os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}


def missing(what: str) -> NoReturn:
    """A component this test needs is not there: a skip naming it, or a failure under ``CI=true``."""
    if in_ci():
        pytest.fail(f"{what} (CI=true: every test must run, so a missing component is a failure)")
    pytest.skip(what)


def installed(module: str, what: str) -> ModuleType:
    """``import module`` of a third-party package, or :func:`missing` naming ``what`` provides it.

    Never for skillshelf's own modules: an ImportError there is a bug to see, not a skip.
    """
    assert not module.startswith("skillshelf"), "import our own modules plainly"
    try:
        return importlib.import_module(module)
    except ImportError:
        missing(f"{module} is not installed ({what})")


def shared_path(relative: str) -> Path:
    """``SHARED / relative``, or :func:`missing` when it is not there."""
    path = SHARED / relative
    if not path.exists():
        missing(f"{path} is not available (it comes from ../shared beside the project)")
    return path


def reference_vectors(file_name: str, area: str | None = None) -> list[dict[str, Any]]:
    """The vectors of ``../shared/reference/FILE_NAME`` (those of ``area`` only, when given).

    :func:`missing` when the file is not there, and a failure when it holds no vector of
    ``area``: a test that compares against vectors must never pass having compared nothing.
    """
    data: list[dict[str, Any]] = json.loads(shared_path(f"reference/{file_name}").read_text(encoding="utf-8"))
    chosen = data if area is None else [v for v in data if v.get("area") == area]
    if not chosen:
        pytest.fail(f"{REFERENCE / file_name} has no vector of area {area!r}")
    return chosen


@dataclass(frozen=True)
class IsolatedHome:
    home: Path
    codex_home: Path
    cache: Path
    data: Path
    config: Path
    state: Path

    def write_user_config(self, text: str) -> Path:
        """Write skillshelf's user config file (``$XDG_CONFIG_HOME/skillshelf/config.toml``)."""
        path = self.config / "skillshelf" / "config.toml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path


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


_TAR_TYPES = {
    stat.S_IFDIR: tarfile.DIRTYPE,
    stat.S_IFCHR: tarfile.CHRTYPE,
    stat.S_IFBLK: tarfile.BLKTYPE,
    stat.S_IFIFO: tarfile.FIFOTYPE,
}


def tar_with(path: Path, entries: list[tuple[str, bytes, int | None]], compression: str = "gz") -> Path:
    """A tar (``compression`` "", "gz", "bz2" or "xz") of the entries of :func:`zip_with`, written
    verbatim: a mode's file type picks the entry type (a symlink's data is its target), no mode is
    a regular file (a folder if the name ends with '/')."""
    with tarfile.open(path, f"w:{compression}") as tf:
        for name, data, mode in entries:
            info = tarfile.TarInfo(name)
            kind = stat.S_IFMT(mode) if mode is not None else (stat.S_IFDIR if name.endswith("/") else 0)
            info.mode = mode & 0o7777 if mode is not None else 0o644
            if kind == stat.S_IFLNK:
                info.type, info.linkname = tarfile.SYMTYPE, data.decode("utf-8")
            info.type = _TAR_TYPES.get(kind, info.type)
            if info.type == tarfile.REGTYPE:
                info.size = len(data)
            tf.addfile(info, io.BytesIO(data) if info.type == tarfile.REGTYPE else None)
    return path


def run_skillshelf(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``skillshelf ARGS`` run from ``cwd`` as its own process of this interpreter, as a user
    runs it (the errors printed by its entry point, the environment as the test set it)."""
    return subprocess.run(
        [sys.executable, "-m", "skillshelf.cli.main", *args],
        cwd=cwd,
        env=dict(os.environ),
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
        check=False,
    )


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """The real entry point, in this process and the cwd: (exit code, stdout, stderr)."""
    from skillshelf.cli.main import main

    try:
        code = int(main(args) or 0)  # click returns the code of ctx.exit(); the script exits with it
    except SystemExit as exc:
        code = int(exc.code or 0)
    out = capsys.readouterr()
    return code, out.out, out.err


def count_walks(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The roots discovery walks afresh from now on (a root whose cached walk is reused is not
    listed); fresh folder timestamps are trusted, so a test waits a clock tick instead."""
    import skillshelf.skills.discover as discover_module
    import skillshelf.skills.walk_cache as walk_cache
    from skillshelf.skills.walk import walk_root

    calls: list[str] = []

    def counting(root: str, **kw: Any) -> Any:
        calls.append(root)
        return walk_root(root, **kw)

    monkeypatch.setattr(discover_module, "walk_root", counting)
    monkeypatch.setattr(walk_cache, "_RACY_NS", 0)
    return calls


GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main"]


def git_worktrees(main: Path, *worktrees: Path) -> Path:
    """A real repository at ``main`` holding one commit of whatever is there (a file is added
    when there is nothing), with each of ``worktrees`` added as a linked worktree; ``main``."""
    main.mkdir(parents=True, exist_ok=True)
    if not any(main.iterdir()):
        (main / "README.md").write_text("x\n", encoding="utf-8")
    for args in (
        ["init", "-q", str(main)],
        ["-C", str(main), "add", "."],
        ["-C", str(main), "commit", "-qm", "x"],
    ):
        subprocess.run([*GIT, *args], check=True, capture_output=True, timeout=60)
    for worktree in worktrees:
        subprocess.run(
            [*GIT, "-C", str(main), "worktree", "add", "-q", str(worktree)],
            check=True,
            capture_output=True,
            timeout=60,
        )
    return main


_REAL_HOME = Path(os.environ.get("HOME") or Path.home())
_AGENT_CLIS = {
    "claude": ("CLAUDE_ORACLE_CACHE", "claude-oracle", "2.1.197", "@anthropic-ai/claude-code"),
    "codex": ("CODEX_ORACLE_CACHE", "codex-oracle", "0.171.0", "@openai/codex"),
}


def pin_oracle_caches() -> None:
    """Point ``codex-oracle`` and ``claude-oracle`` at one install of their CLI under the real
    home's cache (unless their variables are set): they install into ``$HOME/.cache``, and a test
    that moves HOME would otherwise have npm install the CLI again for each call."""
    for env_var, folder, version, _package in _AGENT_CLIS.values():
        os.environ.setdefault(env_var, str(_REAL_HOME / ".cache" / folder / version))


def agent_cli(name: str) -> Path:
    """The pinned CLI the oracles use (installed with npm into their cache on first use, by one
    test process at a time)."""
    import fcntl

    env_var, folder, version, package = _AGENT_CLIS[name]
    cache = Path(os.environ.get(env_var) or _REAL_HOME / ".cache" / folder / version)
    binary = cache / "node_modules" / ".bin" / name
    if binary.exists():
        return binary
    cache.mkdir(parents=True, exist_ok=True)
    with open(cache.parent / f".{cache.name}.lock", "w", encoding="utf-8") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        _install_agent_cli(cache, binary, package, version)
    return binary


def _install_agent_cli(cache: Path, binary: Path, package: str, version: str) -> None:
    if not binary.exists():
        if shutil.which("npm") is None:
            missing("npm is not available, so the reference CLIs cannot be installed")
        proc = subprocess.run(
            ["npm", "install", "--silent", "--no-audit", "--no-fund", f"{package}@{version}"],
            cwd=cache,
            capture_output=True,
            text=True,
            encoding="utf-8",
            timeout=600,
            check=False,
        )
        if proc.returncode != 0 or not binary.exists():
            missing(f"could not install {package}@{version} with npm: {proc.stderr.strip()[-300:]}")


def deny_below(monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    """As for a folder of mode 000 (root reads it anyway): a stat, lstat or open of anything in it
    fails with EACCES."""
    top = os.fspath(folder) + os.sep

    def denying(real: Callable[..., object]) -> Callable[..., object]:
        def call(path: object, *args: object, **kwargs: object) -> object:
            if isinstance(path, str | bytes | os.PathLike) and os.fsdecode(os.fspath(path)).startswith(top):
                raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), os.fspath(path))
            return real(path, *args, **kwargs)

        return call

    for name in ("stat", "lstat", "open"):
        monkeypatch.setattr(os, name, denying(getattr(os, name)))


def bound_by_file_modes() -> list[str]:
    """The command prefix that runs a process as file modes bind it: for root, ``setpriv``
    without the capabilities that let it read and search any folder; nothing for another user."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        missing("setpriv (util-linux), to drop root's right to read and search any folder")
    return [setpriv, "--bounding-set=-dac_override,-dac_read_search"]
