"""What a bash call did, as the completion guard sees it: did its line run the project's check
(so that the line's exit status, or the status it prints, stands for the check's), and which
project files did it change?

:func:`check_run` reads a shell line without running it. A line is a list of simple commands
joined by ``&&``, ``;`` or newlines; it counts as a run of the check when one of them is the
check (a configured check, the front of it followed by more arguments, or a command that looks
like a test run: ``pytest``, ``npm test``, ``python3 test_calc.py``...; a command that only
names one, ``echo pytest`` or ``grep pytest f``, is not) and nothing after it but ``&&``: the
line then exits 0 only when the check passed (``cd x && pytest``, ``pip install -e . && pytest
&& echo ok``; a failure elsewhere on it reads as a failed check, which is the safe side). Around
each command:

- variable assignments (``CI=1 pytest``), ``env NAME=VALUE``, ``timeout DURATION``, ``time``;
- redirections (``2>&1``, ``> log``, ``< /dev/null``).

Such a line may end with ``;`` (or a newline) and one ``echo`` or ``printf`` that prints the
status of what came before it, ``$?``, among literal text and nothing else (``pytest; echo $?``,
``npm test; echo "exit: $?"``, ``cd x && pytest 2>&1; echo EXIT=$?``; the forms are
:mod:`~skillshelf.agent.status_echo`'s). The line's own status is then the echo's, so the check's
is read from the last line of the call's output, which must be the echo's text around a number,
exactly (:attr:`CheckRun.exit_code`); when it cannot be read (the line did not exit 0, the output
was cut before that line, the line is something else) the run counts as a failed check and
:attr:`CheckRun.why` says why. The echo may also follow ``||`` (``pytest || echo $?``): it runs
only when the check failed, so an output whose last line is not its text around a failure's
status is a pass (a passing check whose own last line looks like the echo's reads as a failure,
the safe side).

A here-document's body is data (``cat > calc.py <<'EOF'`` writes a file; one bash would run a
substitution in, or that does not end, leaves the line unread); a redirection into ``/dev``
writes a file unless it names a device (:mod:`~skillshelf.agent.shell_line`).

Any other line that ends in such an echo after ``;`` or a newline reports the status it printed
too, whatever it ran (``make build; echo $?``, ``cargo build 2>&1 | tail -5; echo $?``: the
status the line would have exited with without the echo), or an unknown one (``None``) when it
cannot be read, or when the echo follows a background job (``make build & echo $?``, whose
``$?`` is 0 whatever the build does): :attr:`CheckRun.exit_code`, :func:`reported_status`.

Otherwise a check followed by ``;`` or a newline (``pytest; echo done``: the status is the last
command's), a pipeline (``| tail -3``), ``||`` (``|| true``), a background ``&``, a subshell, a
negation (``!``), a command or process substitution (in a here-document's body too) make the
line not count,
as does a line of more than :data:`MAX_LINE_CHARS` characters (a script, not a run of the check);
:class:`CheckRun` says so (``mentions``, ``why``) when the line looked like it ran the check, and
whether other commands on a counted line may have changed files before or after the check
(``edits_before``, ``edits_after``: not ``cd``, ``export``, ``source .venv/bin/activate``,
assignments, nor ``echo``, ``cat`` and the like without an output redirection).

:class:`TreeWatch` notices edits made through the shell (``sed -i``, ``git apply``, a script) by
comparing a snapshot of the project's files before and after a call: (size, mtime_ns, inode) of
every file and symlink beneath the root, without following symlinks. Hidden files and folders
are the project's too (``.github/workflows/ci.yml``, ``.eslintrc.json``, ``.env.example``); not
looked at are the folders of version control, virtual environments (``.venv``, or any folder
holding ``pyvenv.cfg``), tool caches and state a run writes (:data:`SKIPPED_FOLDERS`:
``.pytest_cache``, ``.mypy_cache``, ``.tox``, ``.hypothesis``, ``.cache``, ``.idea``'s IDE
state...; ``.vscode`` and ``.github`` hold settings a project commits, and are looked at), the
usual generated folders (``__pycache__``, ``node_modules``, ``target``, ``build``, ``dist``,
``*.egg-info``), and the data and cache files a run leaves (:data:`SKIPPED_FILES`:
``.coverage`` and ``.coverage.*``, ``.eslintcache``, ``*.pyc``...; ``.coveragerc`` is looked at),
so what a check writes as it runs is not an edit. A walk stops after ``max_entries`` entries or
``max_seconds`` seconds, so a huge tree cannot stall the loop; a walk that stops is incomplete,
cannot be compared, and turns the watch off for good (one capped walk per call is paid at most
once). A file rewritten within the file system's timestamp granularity with the same size and
inode is not seen.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from skillshelf.agent.shell_line import WHY_OPERATOR, Command, simple_commands
from skillshelf.agent.status_echo import StatusEcho, read_status, status_echo, trailing_echo

__all__ = [
    "MAX_LINE_CHARS",
    "MAX_WATCH_ENTRIES",
    "MAX_WATCH_SECONDS",
    "CheckRun",
    "TreeWatch",
    "changed_paths",
    "check_run",
    "reported_status",
]

MAX_WATCH_ENTRIES = 20_000
MAX_WATCH_SECONDS = 0.5
#: Folders whose files are tool state, caches or generated, never the project's own: version
#: control, virtual environments, what test runners, linters and builds write as they run.
SKIPPED_FOLDERS = frozenset(
    {
        *("__pycache__", "node_modules", "target", "build", "dist"),
        *(".git", ".hg", ".svn", ".bzr", ".jj", ".venv", ".direnv", ".idea"),
        *(".tox", ".nox", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".pytype", ".pyre", ".hypothesis"),
        *(".benchmarks", ".ipynb_checkpoints", ".eggs", ".cache", ".gradle", ".nyc_output"),
        *(".next", ".nuxt", ".turbo", ".parcel-cache", ".svelte-kit", ".angular", ".terraform"),
    }
)
#: Files a run writes beside the project's own: coverage data (also ``.coverage.HOST.PID...``),
#: linters' and test runners' caches, the mypy daemon's state, Finder's.
SKIPPED_FILES = frozenset(
    {
        *(".coverage", ".eslintcache", ".stylelintcache", ".phpunit.result.cache", ".rspec_status"),
        *(".testmondata", ".noseids", ".dmypy.json", ".DS_Store", ".git"),
    }
)
VENV_MARKER = "pyvenv.cfg"  # a folder holding it is a virtual environment, whatever its name

#: Commands that look like a project's tests, matched at the start of the command (after a runner).
_CHECK_RE = re.compile(
    "|".join(
        (
            r"(?:\S*/)?(?:py\.test|pytest)(?!\S)",
            r"(?:npm|pnpm|yarn|bun)(?: run)? test(?!\S)",
            r"(?:cargo|go|deno|dotnet|mix) test(?!\S)",
            r"make (?:test|check)(?!\S)",
            r"(?:\S*/)?(?:tox|nox|ctest|rspec|jest|vitest|mocha|phpunit|unittest)(?!\S)",
            r"(?:\S*/)?\.ci/run(?!\S)",
            r"mvn (?:test|verify)(?!\S)",
            r"(?:\S*/)?gradlew? test(?!\S)",
            r"(?:\S*/)?(?:test_[\w.-]+|[\w.-]+_test)\.(?:py|sh|rb|js|ts|go)(?!\S)",
            r"(?:\S*/)?[\w.-]+\.(?:test|spec)\.(?:js|ts|jsx|tsx|mjs|cjs)(?!\S)",
        )
    )
)
#: Programs that run the next word (``python3 test_calc.py``, ``npx jest``, ``uv run pytest``).
_RUNNER_RE = re.compile(r"(?:python|pypy)[0-9.]*|node|bash|sh|zsh|ruby|perl|npx|bunx|uvx|pipx")
_RUNNER_PAIR_RE = re.compile(
    r"(?:uv|poetry|pipenv|hatch|pdm|rye|conda|coverage|bun) run|(?:npm|pnpm|yarn) exec|(?:pnpm|yarn) dlx"
)
#: Runner options whose next word is code, not a file to run (``bash -c "pytest || true"``).
_CODE_OPTIONS = frozenset({"-c", "-e", "--eval", "-p", "--print"})
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
MAX_LINE_CHARS = 10_000  # a longer line (a script, a here-document) is not read as a run of the check


#: Commands that change no file unless redirected into one (``echo ok``, ``cat log``).
_INERT = frozenset({"echo", "printf", "true", ":", "pwd", "ls", "cat", "head", "tail", "wc", "date", "sleep"})


@dataclass(frozen=True, slots=True, kw_only=True)
class CheckRun:
    """How a shell line relates to the project's check: ``counts`` when its exit status (or the
    status printed by its trailing ``echo $?``, ``echo``) stands for the check's; else
    ``mentions`` when the check shows up in a line that does not run it so, and ``why``: what the
    line has that stops it (``a pipeline (`|`)...``). On a counted line, ``edits_before`` /
    ``edits_after``: other commands before / after the (last) check may have changed files.
    ``echo``: the status echo that ends the line, counted or not (``make build; echo $?``);
    ``exit_code``, when :func:`check_run` was given the line's: the status the line reports, the
    one its echo printed or else the line's own; on a counted line the check's, ``None`` when the
    echo's could not be read (``why`` says why), a failed check; on another line ``None`` when the
    echo's could not be read or follows a background job (``why`` stays what stops it counting)."""

    counts: bool
    mentions: bool = False
    why: str | None = None
    edits_before: bool = False
    edits_after: bool = False
    echo: StatusEcho | None = None
    exit_code: int | None = None


def check_run(
    line: str, check_command: str | None = None, *, exit_code: int | None = None, output: str | None = None
) -> CheckRun:
    """Whether ``line`` is a run of ``check_command`` (or of anything that looks like a project's
    tests) whose exit status stands for the check's; see the module docstring. Given the line's
    ``exit_code`` (and its ``output``), the run has the ``exit_code`` the line reports: the
    line's, or the one a trailing ``echo $?`` printed; ``None`` when that cannot be read (on a
    counted line ``why`` says why: a failed check)."""
    run = _line_run(line, check_command)
    if not run.counts and len(line) <= MAX_LINE_CHARS:
        run = replace(run, echo=trailing_echo(line))
    if exit_code is None:
        return run
    if run.echo is None:
        return replace(run, exit_code=exit_code)
    status, why = read_status(run.echo, exit_code, output)
    return replace(run, exit_code=status, why=why if run.counts else run.why)


def reported_status(run: CheckRun, line_status: int) -> int | None:
    """The status a line reports for what it ran, which every guard that reads a bash call's
    status reads: on a line that ends in a status echo (``pytest; echo $?``, ``make build; echo
    $?``), the status it printed (``None`` when that could not be read, or the echo follows a
    background job; on a counted line a failed check; ``run`` is then :func:`check_run`'s answer
    given ``line_status`` and the output), else the line's own ``line_status`` (which on a counted
    line is the check's)."""
    return run.exit_code if run.echo is not None else line_status


def _line_run(line: str, check_command: str | None) -> CheckRun:
    text, check = _normalise(line), _normalise(check_command or "")
    if check and text == check:  # the configured check exactly as given, whatever its shape
        return CheckRun(counts=True)
    check_words = _one_command(simple_commands(check_command)) if check_command else None
    too_long = f"more than {MAX_LINE_CHARS} characters"
    commands = simple_commands(line, or_last=True) if len(line) <= MAX_LINE_CHARS else too_long
    if isinstance(commands, list):
        echo = _ending_echo(commands)
        if echo is None and commands[-1].op == "||":
            commands = WHY_OPERATOR["||"]
    if isinstance(commands, list):
        listed = commands[:-1] if echo else commands
        runs = [i for i, command in enumerate(listed) if _is_run(command.words, check_words)]
        if runs:
            return _run_in_list(listed, runs, echo)
        if not any(c.words[:1] == ("!",) and _is_run(c.words[1:], check_words) for c in commands):
            return CheckRun(counts=False)
        commands = "a negation (`!`), which inverts its exit code"
    mentions = bool(check and check in text) or _mentions_check(text[:MAX_LINE_CHARS])
    return CheckRun(counts=False, mentions=mentions, why=commands if mentions else None)


def _ending_echo(commands: list[Command]) -> StatusEcho | None:
    """The status echo that ends a list after ``;``, a newline or ``||`` (marked ``on_failure``)."""
    last = commands[-1]
    echo = status_echo(last) if len(commands) > 1 and last.op in (";", "\n", "||") else None
    return replace(echo, on_failure=True) if echo is not None and last.op == "||" else echo


def _is_run(words: Sequence[str], check_words: tuple[str, ...] | None) -> bool:
    words = _unwrapped(words)
    if check_words and words[: len(check_words)] == check_words:
        return True
    return bool(words) and _looks_like_check(words)


def _run_in_list(commands: list[Command], runs: list[int], echo: StatusEcho | None) -> CheckRun:
    """A list whose commands ``runs`` are checks: counted when only ``&&`` follows the last one
    (``echo``: then a trailing ``; echo $?`` prints the list's status)."""
    last = runs[-1]
    after = commands[last + 1 :]
    ended = next((command.op for command in after if command.op != "&&"), None)
    if ended is not None:
        return CheckRun(counts=False, mentions=True, why=WHY_OPERATOR[ended])
    before = [command for i, command in enumerate(commands[:last]) if i not in runs]
    return CheckRun(
        counts=True,
        edits_before=not all(map(_inert, before)),
        edits_after=not all(map(_inert, after)),
        echo=echo,
    )


def _normalise(command: str) -> str:
    return " ".join(command.split())


def _one_command(commands: list[Command] | str) -> tuple[str, ...] | None:
    """The words of a configured check that is one command, maybe after ``cd DIR &&`` and the like."""
    if not isinstance(commands, list) or not commands:
        return None
    *prefixes, last = commands
    return _unwrapped(last.words) if all(_harmless_prefix(c.words) for c in prefixes) else None


def _inert(command: Command) -> bool:
    """Whether a command changes no file: a harmless prefix, or ``echo`` and the like not redirected."""
    words = _unwrapped(command.words) or command.words
    return _harmless_prefix(words) or (not command.writes and os.path.basename(words[0]) in _INERT)


def _harmless_prefix(words: Sequence[str]) -> bool:
    """``cd DIR``, ``export NAME=VALUE``, ``source .venv/bin/activate``, assignments alone."""
    if not words:
        return False
    head, args = words[0], words[1:]
    if head in ("cd", "pushd"):
        return len(args) <= 1
    if head == "export":
        return all(_ASSIGNMENT.match(arg) or arg.isidentifier() for arg in args)
    if head in ("source", "."):
        return len(args) == 1 and os.path.basename(args[0]) in ("activate", "activate.sh")
    return all(_ASSIGNMENT.match(word) for word in words)


def _unwrapped(words: Sequence[str]) -> tuple[str, ...]:
    """``words`` without leading assignments, ``env``, ``time [-p]`` and ``timeout DURATION``."""
    i = 0
    while i < len(words):
        word = words[i]
        if _ASSIGNMENT.match(word) or word == "env":
            i += 1
        elif word == "time":
            i += 2 if tuple(words[i + 1 : i + 2]) == ("-p",) else 1
        elif word == "timeout":
            i += 1
            while i < len(words) and words[i].startswith("-"):
                i += 2 if words[i] in ("-s", "-k", "--signal", "--kill-after") else 1
            i += 1  # the duration
        else:
            break
    return tuple(words[i:])


def _looks_like_check(words: Sequence[str]) -> bool:
    """The command is a test run: a known test command, possibly behind runners and their options."""
    i = 0
    while i < len(words):
        if _CHECK_RE.match(" ".join(words[i : i + 6])):
            return True
        base = os.path.basename(words[i])
        if _RUNNER_RE.fullmatch(base):
            i += 1
        elif i + 1 < len(words) and _RUNNER_PAIR_RE.fullmatch(f"{base} {words[i + 1]}"):
            i += 2
        else:
            return False
        while i < len(words) and words[i].startswith("-") and words[i] not in _CODE_OPTIONS:
            i += 1
    return False


def _mentions_check(text: str) -> bool:
    """Whether a test command shows up anywhere in ``text``, operators and quotes read as spaces."""
    words = re.sub(r"[;&|()`<>{}!\"'$]", " ", text).split()
    return any(_looks_like_check(words[i : i + 8]) for i in range(len(words)))


# -- edits through the shell ----------------------------------------------------------------------
Snapshot = Mapping[str, tuple[int, int, int]]


def changed_paths(before: Snapshot, after: Snapshot) -> tuple[str, ...]:
    """The files added, removed or changed between two snapshots, sorted."""
    return tuple(sorted(path for path in before.keys() | after.keys() if before.get(path) != after.get(path)))


class TreeWatch:
    """Snapshots of the project's files beneath ``root``, capped (see the module docstring)."""

    def __init__(
        self,
        root: Path,
        *,
        max_entries: int = MAX_WATCH_ENTRIES,
        max_seconds: float = MAX_WATCH_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.root = root
        self.max_entries = max_entries
        self.max_seconds = max_seconds
        self.clock = clock
        self.off = False  # a walk hit a cap: the tree is too big to watch

    def snapshot(self) -> Snapshot | None:
        """The files now, or ``None`` when the watch is off (this walk or an earlier one was capped)."""
        if self.off:
            return None
        files: dict[str, tuple[int, int, int]] = {}
        deadline = self.clock() + self.max_seconds
        seen = 0
        stack = [(os.fspath(self.root), "")]
        while stack:
            folder, prefix = stack.pop()
            try:
                with os.scandir(folder) as listing:
                    entries = []
                    for entry in listing:
                        seen += 1
                        if seen > self.max_entries or (seen % 256 == 0 and self.clock() > deadline):
                            self.off = True
                            return None
                        entries.append(entry)
            except OSError:
                continue  # an unreadable folder is left out of both walks
            if prefix and any(entry.name == VENV_MARKER for entry in entries):
                continue
            for entry in entries:
                if _skipped_file(entry.name):
                    continue
                if entry.is_dir(follow_symlinks=False):
                    if entry.name not in SKIPPED_FOLDERS and not entry.name.endswith(".egg-info"):
                        stack.append((entry.path, f"{prefix}{entry.name}/"))
                    continue
                try:
                    info = entry.stat(follow_symlinks=False)
                except OSError:
                    continue  # removed meanwhile
                files[prefix + entry.name] = (info.st_size, info.st_mtime_ns, info.st_ino)
        return files

    def changed_since(self, before: Snapshot | None) -> tuple[str, ...]:
        """The files changed since ``before`` (none when either walk was incomplete)."""
        if before is None:
            return ()
        after = self.snapshot()
        return () if after is None else changed_paths(before, after)


def _skipped_file(name: str) -> bool:
    """Compiled Python and the files of :data:`SKIPPED_FILES` (``.coveragerc`` is the project's)."""
    return name.endswith((".pyc", ".pyo")) or name in SKIPPED_FILES or name.startswith(".coverage.")
