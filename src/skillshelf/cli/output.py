"""Shared output helpers for commands: JSON for programs, rich for people (imported lazily)."""

from __future__ import annotations

import datetime
import errno
import math
import os
import stat
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import click

from skillshelf.diagnostics import Diagnostic, Severity

__all__ = [
    "MAX_MESSAGE_CHARS",
    "TEXT",
    "FiniteFloat",
    "capped",
    "check_roots",
    "echo_json",
    "echo_rows",
    "echo_text",
    "jsonable",
    "literal",
    "print_diagnostics",
    "print_run_findings",
    "printable",
    "root_options",
    "short_path",
    "shown",
    "source_options",
    "stderr_console",
    "stdout_console",
    "stdout_is_terminal",
    "valid_text",
]


def _default(value: object) -> object:
    if isinstance(value, Path):
        return str(value)
    to_dict = getattr(value, "to_dict", None)
    if callable(to_dict):
        return to_dict()
    raise TypeError(f"cannot serialise {type(value).__name__}")


def _finite(value: object) -> object:
    """NaN and infinities (YAML's ``.nan``, ``.inf`` in a skill's metadata) as strings: JSON has no
    such numbers."""
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_finite(item) for item in value]
    return value


def echo_json(value: object) -> None:
    """Print ``value`` as indented JSON on stdout (strict JSON: no NaN or Infinity)."""
    import json  # only for --json

    try:
        text = json.dumps(value, indent=2, ensure_ascii=False, default=_default, allow_nan=False)
    except ValueError:
        plain = json.loads(json.dumps(value, ensure_ascii=False, default=_default))
        text = json.dumps(_finite(plain), indent=2, ensure_ascii=False, allow_nan=False)
    if stdout_is_terminal():  # the characters json leaves as they are but a terminal acts on
        text = text.translate(_JSON_ESCAPES)
    click.echo(valid_text(text))  # a path that is not UTF-8 would stop a strict stdout


_CONTROL = {c: f"\\x{c:02x}" for c in (*range(0x00, 0x09), *range(0x0B, 0x20), *range(0x7F, 0xA0))}
# bidirectional overrides and isolates: they reorder what a terminal shows ("Trojan Source")
_CONTROL |= {c: f"\\u{c:04x}" for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A))}
#: The same for JSON on a terminal, as JSON writes them (json itself escapes C0 only): DEL, C1
#: and the bidirectional ones; valid JSON, as these only occur inside strings
_JSON_ESCAPES = {c: f"\\u{c:04x}" for c in _CONTROL if c >= 0x7F}


#: Longest message or fix line printed whole; past it the middle is cut (a 100 KB query or
#: path echoed back in an error helps no one and floods the terminal).
MAX_MESSAGE_CHARS = 2000


def capped(text: str, limit: int = MAX_MESSAGE_CHARS) -> str:
    """``text`` with its middle cut to fit ``limit`` characters (head and tail kept)."""
    if len(text) <= limit:
        return text
    cut = len(text) - limit
    half = limit // 2
    return f"{text[:half]}[... {cut:,} characters cut ...]{text[len(text) - (limit - half) :]}"


def shown(text: str) -> str:
    """A message line for a person: :func:`capped`, then :func:`printable`."""
    return printable(capped(text))


def printable(text: str) -> str:
    """``text`` safe for a terminal: control characters (ESC, BEL, CR...) shown as ``\\xNN``,
    bidirectional overrides (U+202E...) as ``\\uNNNN``.

    Skill names, descriptions and paths come from files anyone can write; printed raw, an
    escape sequence in them could retitle the terminal or hide what follows. A byte of a path
    that is not UTF-8 becomes U+FFFD (:func:`valid_text`), which every stdout can encode.
    """
    return valid_text(text.translate(_CONTROL))


def valid_text(text: str) -> str:
    """``text`` as valid Unicode: a command-line byte that is not UTF-8 (Python keeps it as a lone
    surrogate, which every encoder refuses) becomes U+FFFD."""
    if text.isascii():
        return text
    return text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")


STDIN_TEXT_BYTES = 1 << 20
"""The most a task or query read from stdin (``-``) may hold."""


class _Text(click.ParamType[str, Any]):
    """A task or query typed on the command line, or ``-`` to read it from stdin (at most
    :data:`STDIN_TEXT_BYTES`, one trailing newline dropped), made valid Unicode
    (:func:`valid_text`)."""

    name = "text"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        if value != "-":
            return valid_text(str(value))
        data = sys.stdin.buffer.read(STDIN_TEXT_BYTES + 1)
        if len(data) > STDIN_TEXT_BYTES:
            self.fail(f"the text on stdin is over {STDIN_TEXT_BYTES:,} bytes; pass a shorter one", param, ctx)
        text = data.decode("utf-8", errors="replace").removesuffix("\n").removesuffix("\r")
        return valid_text(text)


TEXT = _Text()


class FiniteFloat(click.FloatRange):
    """A :class:`click.FloatRange` that refuses ``nan`` and ``inf``, which click reads as
    numbers (``nan`` passes every bound, since it compares false to everything)."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number.", param, ctx)
        return number


def echo_text(text: str) -> None:
    """Print text that comes from skill or instruction files (what the model gets) on stdout.

    When stdout is a terminal a person reads it, so control characters are made visible
    (:func:`printable`): an ESC sequence in a SKILL.md or AGENTS.md could retitle the window,
    clear the screen or hide what follows. When stdout is not a terminal (a pipe or a file),
    a program reads it and gets the text exactly as the model would: escape sequences
    included, which ``click.echo`` would strip from a pipe unless told ``color=True``.
    """
    if stdout_is_terminal():
        click.echo(printable(text))
    else:
        click.echo(text, color=True)


def literal(value: object) -> str:
    """``value`` as text rich prints as is: no markup (a folder may be named ``w[/]``), no control
    characters."""
    from rich.markup import escape

    return escape(printable(str(value)))


PIPE_WIDTH = 200
"""The width of tables written to a pipe or a file when ``COLUMNS`` does not say: wide enough that
a row is one line (``skillshelf list | grep pdf`` finds whole rows), where rich would take 80."""


def stdout_console() -> Any:
    from rich.console import Console

    piped = not stdout_is_terminal() and not os.environ.get("COLUMNS")
    return Console(soft_wrap=False, highlight=False, width=PIPE_WIDTH if piped else None)


def stdout_is_terminal() -> bool:
    """Whether a person reads stdout (a terminal), rather than a program (a pipe or a file); not
    when there is no stdout at all (closed)."""
    return sys.stdout is not None and sys.stdout.isatty()


_FIELD_BREAKS = str.maketrans({"\t": "\\t", "\n": "\\n"})


def echo_rows(rows: Iterable[Sequence[str]]) -> None:
    """Rows for a program on stdout: one line each, its fields separated by tabs (``cut -f``,
    ``grep``), never wrapped. Each field is :func:`printable`, its tabs and line breaks written
    ``\\t`` and ``\\n``, so a field never spills into the next one or onto a line of its own; a
    backslash of its own is written ``\\\\``, so a program can tell the two apart."""
    lines = (
        "\t".join(printable(field.replace("\\", "\\\\")).translate(_FIELD_BREAKS) for field in row)
        for row in rows
    )
    text = "\n".join(lines)
    if text:
        click.echo(text)


def stderr_console() -> Any:
    """A console for messages and progress on stderr; lines are not wrapped, so a long path stays
    whole (one line to copy)."""
    from rich.console import Console

    return Console(stderr=True, soft_wrap=True, highlight=False)


def print_diagnostics(diagnostics: Iterable[Diagnostic], *, err: bool = True) -> None:
    """One block per finding: ``path:line: severity CODE: message`` and a ``fix:`` line."""
    colours = {Severity.ERROR: "red", Severity.WARNING: "yellow", Severity.INFO: "cyan"}
    stream = sys.stderr if err else sys.stdout
    for diag in diagnostics:
        # a path is one line of valid text: a folder name may hold a line break or a byte that is not UTF-8
        # no file (a -c value, a setting read from the environment): the program's own finding
        where = "skillshelf" if diag.path is None else shown(valid_text(str(diag.path))).replace("\n", "\\n")
        if diag.line is not None and diag.path is not None:
            where += f":{diag.line}"
        sev = click.style(diag.severity.value, fg=colours[diag.severity], bold=True)
        click.echo(f"{where}: {sev} {diag.code}: {shown(diag.message)}", file=stream)
        click.echo(f"  fix: {shown(diag.fix)}", file=stream)


def jsonable(value: object) -> object:
    """A TOML value as JSON can hold it: dates and times in ISO form, paths as text."""
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    if isinstance(value, datetime.date | datetime.time):
        return value.isoformat()
    return str(value) if isinstance(value, Path) else value


RUN_NOTES = frozenset({"CF109"})
"""The infos a run still prints: a project config that is not in effect (untrusted, or project
config not allowed), whose keys would have changed the run's output."""

CODEX_CONFIG_PREFIX = "SK23"
"""The ``SK`` findings about Codex's config.toml (SK230 unreadable, SK231 a trust value, SK232 a
budget value Codex refuses), which change the run's output and are no skill file's."""


def _skill_file_finding(diagnostic: Diagnostic) -> bool:
    return diagnostic.code.startswith("SK") and not diagnostic.code.startswith(CODEX_CONFIG_PREFIX)


def run_findings(diagnostics: Sequence[Diagnostic]) -> list[Diagnostic]:
    """The findings a run shows in full (:func:`print_run_findings`): no skill file's, and no
    info but :data:`RUN_NOTES`."""
    return [
        d
        for d in diagnostics
        if not _skill_file_finding(d) and (d.severity is not Severity.INFO or d.code in RUN_NOTES)
    ]


def print_run_findings(diagnostics: Sequence[Diagnostic]) -> bool:
    """Findings of one run (``context``, ``catalog``, ``run``, ``chat``): the non-skill ones
    (config layers and Codex's config, ``-c``, instruction files) in full except infos other
    than :data:`RUN_NOTES`, since no other command shows them for this exact run; the skill
    files' errors and warnings (``SK`` codes) counted in one dim line that leaves them to
    ``list`` and ``validate`` (their infos, such as a built-in stepping aside for the user's
    skill of its name, are not news on every run). True when a non-skill finding is an error,
    so the output is not the one intended (exit 1)."""
    others = run_findings(diagnostics)
    print_diagnostics(others)
    skills = [d for d in diagnostics if _skill_file_finding(d) and d.severity is not Severity.INFO]
    if skills:
        errors = sum(1 for d in skills if d.severity is Severity.ERROR)
        click.echo(
            click.style(
                f"{len(skills)} problem(s) in skill files ({errors} error(s)); "
                "run `skillshelf validate` or `skillshelf list` for details",
                dim=True,
            ),
            err=True,
        )
    return any(d.severity is Severity.ERROR for d in others)


def check_roots(
    ctx: click.Context | None, param: click.Parameter | None, values: tuple[str, ...]
) -> tuple[Path, ...]:
    """Refuse a ``--root`` that is empty, missing or not a folder (a typo would scan nothing, silently)."""
    from skillshelf.errors import UsageError

    for value in values:
        if not value.strip():
            raise UsageError(
                "--root was given an empty path",
                code="SK202",
                hint=(
                    "pass the folder that holds your skills, e.g. --root ./skills "
                    "(check the variable you expanded)"
                ),
            )
        root = Path(value)
        try:
            info = os.stat(root)
        except OSError as exc:
            raise UsageError(
                f"--root {root}: {_root_problem(root, exc)}",
                code="SK202",
                hint=_ROOT_HINTS.get(
                    exc.errno or 0, "check the spelling of the path, or create the folder first"
                ),
            ) from exc
        if not stat.S_ISDIR(info.st_mode):
            raise UsageError(
                f"--root {root}: not a folder",
                code="SK201",
                hint=f"pass the folder that holds the skills, e.g. --root {root.parent}",
            )
    return tuple(Path(value) for value in values)


_ROOT_HINTS = {
    errno.EACCES: "pass a folder you may read, or fix the permissions of the folders on its path",
    errno.ENAMETOOLONG: "pass a shorter path (a relative one, or a symbolic link to the folder)",
    errno.ELOOP: "fix the symbolic links on the path, or pass the folder they should lead to",
}


def _root_problem(root: Path, exc: OSError) -> str:
    """Why ``--root`` cannot be used, in words."""
    if exc.errno == errno.ENOENT:
        return "a broken symbolic link" if root.is_symlink() else "no such folder"
    if exc.errno == errno.ELOOP:
        return "a loop of symbolic links"
    return exc.strerror or str(exc)


def short_path(path: Path, base: Path, home: Path) -> str:
    """``path`` relative to ``base`` when below it, else with ``~`` for the home folder, else as is."""
    for folder, prefix in ((base, ""), (home, "~/")):
        try:
            return prefix + str(path.relative_to(folder))
        except ValueError:
            continue
    return str(path)


def source_options(func: Any) -> Any:
    """``--no-builtin`` and ``--no-cache``: which skills a command reads, and through what."""
    func = click.option("--no-cache", is_flag=True, help="Do not read or write the parsed-skill cache.")(func)
    return click.option("--no-builtin", is_flag=True, help="Leave skillshelf's built-in skills out.")(func)


def root_options(func: Any) -> Any:
    """The options every skill-reading command shares: extra roots, built-ins, cache."""
    func = source_options(func)
    func = click.option(
        "--root",
        "roots",
        multiple=True,
        type=click.Path(),
        callback=check_roots,
        help="An extra folder to scan for skills (repeatable).",
    )(func)
    return func
