"""The git command line, as the installer needs it: clone at a ref, resolve a remote ref.

Git never prompts (``GIT_TERMINAL_PROMPT=0``), runs with a timeout, and its progress lines
("Receiving objects:  45% ...") are passed to a callback so the CLI can draw a progress bar.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

from skillshelf.errors import InstallError
from skillshelf.install.files import remove_tree

__all__ = ["GitRunner", "ProgressFn", "git_url", "is_commit_id"]

ProgressFn = Callable[[str, float | None], None]
_PROGRESS = re.compile(r"([A-Za-z][A-Za-z ]+):\s+(\d{1,3})%")
_SHA = re.compile(r"^[0-9a-f]{7,40}$")
_GIT_HINT = "install git (https://git-scm.com) or put it on PATH"
#: pip's spellings of a git URL's scheme (``git+https://``; ``ssh+git://`` too), as pasted from a
#: requirements file: git has no ``git+https`` transport (it looks for ``git-remote-git+https``).
_PIP_SCHEME = re.compile(r"^(?:git\+(https?|ssh|file)|(ssh)\+git)://", re.IGNORECASE)


def git_url(url: str) -> str:
    """``url`` with a pip-style scheme (``git+https://``, ``git+http://``, ``git+ssh://``,
    ``git+file://``, ``ssh+git://``) in git's own spelling (``https://``...), else as it is."""
    match = _PIP_SCHEME.match(url)
    if match is None:
        return url
    return f"{(match.group(1) or match.group(2)).lower()}://{url[match.end() :]}"


def is_commit_id(ref: str | None) -> bool:
    """Whether ``ref`` looks like a (possibly abbreviated) commit id rather than a name."""
    return ref is not None and bool(_SHA.match(ref))


@dataclass(frozen=True, slots=True, kw_only=True)
class GitRunner:
    """Runs ``git`` with the given environment (``Env.environ``), never interactively."""

    environ: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))

    def _env(self) -> dict[str, str]:
        env = dict(self.environ)
        env.setdefault("PATH", os.defpath)
        env.update({"GIT_TERMINAL_PROMPT": "0", "GCM_INTERACTIVE": "never", "LC_ALL": "C"})
        return env

    def _git(self) -> str:
        found = shutil.which("git", path=self._env()["PATH"])
        if found is None:
            raise InstallError(
                "git is not installed, so git sources cannot be fetched", hint=_GIT_HINT, code="IS110"
            )
        return found

    def run(self, args: Sequence[str], *, cwd: Path | None = None, timeout: float = 120.0) -> str:
        """Run ``git ARGS`` and return stdout; raise :class:`InstallError` with git's message."""
        try:
            proc = subprocess.run(
                [self._git(), *args],
                cwd=cwd,
                env=self._env(),
                capture_output=True,
                text=True,
                encoding="utf-8",
                errors="replace",
                timeout=timeout,
                stdin=subprocess.DEVNULL,
                check=False,
            )
        except subprocess.TimeoutExpired as exc:
            raise InstallError(
                f"git {args[0]} took longer than {timeout:.0f} s",
                hint="check the network and retry",
                code="IS111",
            ) from exc
        if proc.returncode != 0:
            raise _git_failed(args, proc.stderr)
        return proc.stdout

    def clone(
        self,
        url: str,
        dest: Path,
        *,
        ref: str | None,
        progress: ProgressFn | None = None,
        timeout: float = 600.0,
    ) -> str:
        """Clone ``url`` into ``dest`` checked out at ``ref`` (default branch if None); return the commit."""
        if ref is not None and ref.startswith("-"):
            raise InstallError(f"bad ref {ref!r}", hint="a ref is a branch, tag or commit id", code="IS104")
        if ref is None or not is_commit_id(ref):
            branch = ["--branch", ref] if ref else []
            try:
                self._clone_streaming(
                    ["clone", "--depth", "1", *branch, "--", url, str(dest)], progress, timeout
                )
                return self._head(url, dest)
            except InstallError:
                if ref is None:
                    raise
                remove_tree(dest)
        self._clone_streaming(["clone", "--no-checkout", "--", url, str(dest)], progress, timeout)
        try:
            self.run(["checkout", "--quiet", "--detach", f"{ref}^{{commit}}"], cwd=dest)
        except InstallError as exc:
            raise InstallError(
                f"{url} has no branch, tag or commit {ref!r}",
                hint="list the refs with `git ls-remote URL` and pick one",
                code="IS104",
            ) from exc
        return self.run(["rev-parse", "HEAD^{commit}"], cwd=dest).strip()

    def _head(self, url: str, dest: Path) -> str:
        """The commit checked out in the clone ``dest`` of ``url``."""
        try:
            return self.run(["rev-parse", "HEAD^{commit}"], cwd=dest).strip()
        except InstallError:
            if self.run(["rev-list", "-n", "1", "--all"], cwd=dest).strip():
                raise
            raise InstallError(
                f"{url} has no commits yet, so there is nothing to install",
                hint="push a commit that holds the skill, or check the URL",
                code="IS113",
            ) from None

    def remote_refs(self, url: str) -> frozenset[str]:
        """The branch and tag names of the remote (``feature/x``, ``v1``)."""
        out = self.run(["ls-remote", "--heads", "--tags", "--", url], timeout=120.0)
        names = (line.partition("\t")[2].removesuffix("^{}") for line in out.splitlines())
        return frozenset(
            name.removeprefix("refs/heads/").removeprefix("refs/tags/")
            for name in names
            if name.startswith(("refs/heads/", "refs/tags/"))
        )

    def remote_commit(self, url: str, ref: str | None) -> str | None:
        """The commit ``ref`` (or the default branch) points at on the remote; None if unknown."""
        if is_commit_id(ref):
            return None
        out = self.run(["ls-remote", "--", url, ref or "HEAD"], timeout=120.0)
        found: dict[str, str] = {}
        for line in out.splitlines():
            sha, _, name = line.partition("\t")
            found[name] = sha
        if ref is None:
            return found.get("HEAD")
        for name in (f"refs/tags/{ref}^{{}}", f"refs/tags/{ref}", f"refs/heads/{ref}", ref):
            if name in found:
                return found[name]
        return None

    def _clone_streaming(self, args: list[str], progress: ProgressFn | None, timeout: float) -> None:
        cmd = [self._git(), *args[:1], "--progress", *args[1:]]
        proc = subprocess.Popen(
            cmd, env=self._env(), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        lines: list[str] = []
        reader = threading.Thread(target=_read_progress, args=(proc, lines, progress), daemon=True)
        reader.start()
        try:
            code = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired as exc:
            proc.kill()
            proc.wait()
            raise InstallError(
                f"git clone took longer than {timeout:.0f} s",
                hint="check the network and retry",
                code="IS111",
            ) from exc
        finally:
            reader.join(timeout=5)
        if code != 0:
            raise _git_failed(args, "\n".join(lines))


def _read_progress(proc: subprocess.Popen[bytes], lines: list[str], progress: ProgressFn | None) -> None:
    assert proc.stderr is not None
    buffer = b""
    while chunk := os.read(proc.stderr.fileno(), 4096):
        buffer += chunk
        *parts, buffer = re.split(rb"[\r\n]", buffer)
        for part in parts:
            _progress_line(part.decode("utf-8", "replace").strip(), lines, progress)
    _progress_line(buffer.decode("utf-8", "replace").strip(), lines, progress)


def _progress_line(line: str, lines: list[str], progress: ProgressFn | None) -> None:
    if not line:
        return
    match = _PROGRESS.search(line)
    if match is None:
        lines.append(line)
    elif progress is not None:
        progress(match.group(1).strip(), int(match.group(2)) / 100)


def _git_failed(args: Sequence[str], stderr: str) -> InstallError:
    message = " ".join(line.strip() for line in stderr.splitlines() if line.strip() and "%" not in line)[
        -600:
    ]
    lowered = message.lower()
    if "authentication" in lowered or "could not read username" in lowered or "permission denied" in lowered:
        hint = "the repository needs credentials: set up a git credential helper or an SSH key, then retry"
    elif (
        "not found" in lowered
        or "does not appear to be a git repository" in lowered
        or "does not exist" in lowered
    ):
        hint = "check the URL: git could not find a repository there"
    else:
        hint = "run the same git command by hand to see what is wrong"
    return InstallError(f"git {args[0]} failed: {message or 'no output'}", hint=hint, code="IS112")
