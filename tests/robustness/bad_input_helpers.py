"""Helpers for the bad-input sweep: run the real entry point, check how a failure is reported.

The CLI is run through :func:`skillshelf.cli.main.main` (where errors become messages and exit
codes), inside click's stream isolation, so a test sees exactly what a user would see; commands
that may block or must write raw bytes run as a real process with a timeout instead.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from click.testing import CliRunner

SKILLSHELF = Path(sys.executable).parent / "skillshelf"  # the console script of the running venv
TRACEBACK = "Traceback (most recent call last)"
INTERNAL = "internal error"
CODE = re.compile(r"\b(?:error|warning|info) ([A-Z]{2}\d{3})\b")


@dataclass(frozen=True)
class Outcome:
    """What one command printed and how it exited."""

    code: int
    out: str
    err: str

    @property
    def text(self) -> str:
        return self.out + self.err

    @property
    def codes(self) -> list[str]:
        """Every diagnostic / error code printed (``error SK104``, ``warning CF102`` ...)."""
        return CODE.findall(self.text)


def run_cli(args: Sequence[str], *, cwd: Path, stdin: str | bytes | None = None) -> Outcome:
    """Run ``skillshelf ARGS`` in-process through the real entry point, from ``cwd``."""
    from skillshelf.cli.main import main

    runner = CliRunner()
    old = Path.cwd()
    os.chdir(cwd)
    try:
        with runner.isolation(input=stdin) as (out, err, _):
            try:
                returned = main(list(args))  # what the console script passes to sys.exit
                code = returned if isinstance(returned, int) else 0
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            sys.stdout.flush()
            sys.stderr.flush()
            return Outcome(
                code, out.getvalue().decode("utf-8", "replace"), err.getvalue().decode("utf-8", "replace")
            )
    finally:
        os.chdir(old)


def run_process(
    args: Sequence[str], *, cwd: Path, stdin: bytes | None = None, timeout: float = 20
) -> tuple[int | None, bytes, bytes]:
    """Run the installed ``skillshelf`` as a process; exit code None when it had to be killed."""
    env = {k: v for k, v in os.environ.items() if k != "SKILLSHELF_DEBUG"}
    try:
        proc = subprocess.run(
            [str(SKILLSHELF), *args],
            cwd=cwd,
            input=stdin,
            capture_output=True,
            timeout=timeout,
            env=env,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        return None, exc.stdout or b"", exc.stderr or b""
    return proc.returncode, proc.stdout, proc.stderr


def assert_no_crash(result: Outcome) -> None:
    """Never a traceback, never the catch-all 'internal error' of cli/main.py."""
    assert TRACEBACK not in result.text, result.text[-3000:]
    assert INTERNAL not in result.err, result.err[-3000:]


def assert_reported(result: Outcome, *, exit_codes: Sequence[int] = (1, 2), code: str | None = None) -> None:
    """A clean failure: the exit code, a coded message and a `fix:` hint, no crash."""
    assert_no_crash(result)
    assert result.code in exit_codes, (result.code, result.text[-3000:])
    assert result.codes, f"no coded message in: {result.text[-3000:]}"
    assert "fix:" in result.text or "FIX:" in result.text, result.text[-3000:]
    if code is not None:
        assert code in result.codes, (code, result.codes, result.text[-3000:])


def write_skill(
    folder: Path, name: str, description: str = "Turns merged pull requests into release notes."
) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "SKILL.md"
    path.write_text(
        f"---\nname: {name}\ndescription: {description}\n---\n# {name}\n\nDo it step by step.\n",
        encoding="utf-8",
    )
    return path


def write_bytes_skill(root: Path, folder: str, data: bytes) -> Path:
    path = root / folder / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def billion_laughs() -> bytes:
    lines = ["---", "name: laughs", 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    prev = "a"
    for key in "bcdefghi":
        lines.append(f"{key}: &{key} [" + ",".join([f"*{prev}"] * 9) + "]")
        prev = key
    lines += ["description: *i", "---", ""]
    return "\n".join(lines).encode()


def sparse_skill(path: Path, size: int) -> Path:
    """A SKILL.md of ``size`` bytes that costs no disk: valid frontmatter, then a hole."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as handle:
        handle.write(b"---\nname: huge\ndescription: far too long\n---\n")
        handle.truncate(size)
    return path


# name -> (SKILL.md bytes, the code validate must report)
BROKEN_SKILLS: dict[str, tuple[bytes, str]] = {
    "broken-yaml": (b"---\nname: broken-yaml\ndescription: [unclosed\n  foo: : :\n---\nbody\n", "SK104"),
    "only-dashes": (b"---\n", "SK102"),
    "empty-frontmatter": (b"---\n---\nbody\n", "SK103"),
    "bom": (b"\xef\xbb\xbf---\nname: bom\ndescription: has a byte-order mark\n---\nbody\n", "SK112"),
    "nul-bytes": (b"---\nname: nul-bytes\ndescription: a nul\x00 byte\n---\nbo\x00dy\n", "SK104"),
    "bad-utf8": (b"---\nname: bad-utf8\ndescription: bad \xff\xfe bytes\n---\nbody \xc3\x28\n", "SK115"),
    "binary": (b"\x00\x01\x02\x89PNG\r\n\x1a\n" + bytes(range(256)) * 8, "SK114"),
    "yaml-list": (b"---\n- a\n- b\n---\n", "SK106"),
    "python-tag": (
        b'---\nname: python-tag\ndescription: !!python/object/apply:os.system ["echo pwned"]\n---\n',
        "SK110",  # a tag builds no object: the value is the list it is written as
    ),
    "wrong-types": (b"---\nname: wrong-types\ndescription: {a: 1}\nmetadata: 5\n---\n", "SK110"),
    "laughs": (billion_laughs(), "SK110"),
}


def user_config(isolated_home: Any) -> Path:
    folder = Path(isolated_home.config) / "skillshelf"
    folder.mkdir(parents=True, exist_ok=True)
    return folder / "config.toml"


def codex_config(isolated_home: Any) -> Path:
    """Codex's config.toml, the file `deps --write` edits (its folder made: Codex is set up)."""
    folder = Path(isolated_home.codex_home)
    folder.mkdir(parents=True, exist_ok=True)
    return folder / "config.toml"


def codes(diagnostics: Any) -> list[str]:
    return [d.code for d in diagnostics]


def assert_coded(diagnostics: Any) -> None:
    """Every finding names a code and says what to do."""
    for diag in diagnostics:
        assert diag.code and diag.fix, diag
