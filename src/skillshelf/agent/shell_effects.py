"""What a bash call did, as the completion guard sees it: did its line run the project's check on
its own (so that the line's exit status is the check's), and which project files did it change?

:func:`check_run` reads a shell line without running it. A line counts as a run of the check only
when its exit status is the check's own: the command itself (a configured check, the front of it
followed by more arguments, or a command that looks like a test run: ``pytest``, ``npm test``,
``python3 test_calc.py``...), with nothing around it but harmless wrappers:

- leading ``cd DIR &&``, ``export NAME=VALUE &&``, ``source .venv/bin/activate &&``;
- variable assignments (``CI=1 pytest``), ``env NAME=VALUE``, ``timeout DURATION``, ``time``;
- redirections (``2>&1``, ``> log``, ``< /dev/null``).

A pipeline (``| tail -3``: the status is the last command's), ``||`` (``|| true``), ``;``, a
background ``&``, a subshell, a negation (``!``), a command or process substitution, a
here-document or other commands joined by ``&&`` make the line not count, as does a line of more
than :data:`MAX_LINE_CHARS` characters (a script, not a run of the check); :class:`CheckRun`
says so (``mentions``, ``why``) when the line looked like it ran the check.

:class:`TreeWatch` notices edits made through the shell (``sed -i``, ``git apply``, a script) by
comparing a snapshot of the project's files before and after a call: (size, mtime_ns, inode) of
every file and symlink beneath the root, without following symlinks. Hidden entries (``.git``,
``.venv``, ``.pytest_cache``) and the usual generated folders (``__pycache__``, ``node_modules``,
``target``, ``build``, ``dist``) are not looked at, so caches a run writes are not edits. A walk
stops after ``max_entries`` entries or ``max_seconds`` seconds, so a huge tree cannot stall the
loop; a walk that stops is incomplete, cannot be compared, and turns the watch off for good (one
capped walk per call is paid at most once). A file rewritten within the file system's timestamp
granularity with the same size and inode is not seen.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "MAX_LINE_CHARS",
    "MAX_WATCH_ENTRIES",
    "MAX_WATCH_SECONDS",
    "CheckRun",
    "TreeWatch",
    "changed_paths",
    "check_run",
]

MAX_WATCH_ENTRIES = 20_000
MAX_WATCH_SECONDS = 0.5
SKIPPED_FOLDERS = frozenset({"__pycache__", "node_modules", "target", "build", "dist"})

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
_REDIRECT = re.compile(r"&>>?|>>|>\||>&(?:[0-9]+-?|-)?|<&(?:[0-9]+-?|-)?|<<<|<<-?|<>|>|<")
_OPERATORS = ("&&", "||", "|&", ";;", "|", ";", "&", "(", ")", "\n")
_WHY_OPERATOR = {
    "|": "a pipeline (`|`), whose exit code is its last command's",
    "|&": "a pipeline (`|&`), whose exit code is its last command's",
    "||": "an `||` list, which turns a failure into the other command's exit code",
    ";": "a `;` list, whose exit code is its last command's",
    "\n": "a list of several lines, whose exit code is the last one's",
    ";;": "a `case` item",
    "&": "a background job (`&`), whose exit code is not waited for",
    "(": "a subshell",
    ")": "a subshell",
}
_PLAIN_RUN = re.compile(r"[^\s'\"\\`$<>&|;()]+")  # characters that are a word's and nothing else
MAX_LINE_CHARS = 10_000  # a longer line (a script, a here-document) is not read as a run of the check


@dataclass(frozen=True, slots=True, kw_only=True)
class CheckRun:
    """How a shell line relates to the project's check: ``counts`` when its exit status is the
    check's own; else ``mentions`` when the check shows up in a line that is not one plain command,
    and ``why``: what the line has that the check does not (``a pipeline (`|`)...``)."""

    counts: bool
    mentions: bool = False
    why: str | None = None


def check_run(line: str, check_command: str | None = None) -> CheckRun:
    """Whether ``line`` is a run of ``check_command`` (or of anything that looks like a project's
    tests) whose exit status is the check's own; see the module docstring."""
    text, check = _normalise(line), _normalise(check_command or "")
    if check and text == check:  # the configured check exactly as given, whatever its shape
        return CheckRun(counts=True)
    check_words = _core(_split(check_command)) if check_command else None
    core = _core(_split(line)) if len(line) <= MAX_LINE_CHARS else f"more than {MAX_LINE_CHARS} characters"
    if isinstance(core, list) and core:
        if (isinstance(check_words, list) and check_words and core[: len(check_words)] == check_words) or (
            _looks_like_check(core)
        ):
            return CheckRun(counts=True)
        return CheckRun(counts=False)
    mentions = bool(check and check in text) or _mentions_check(text[:MAX_LINE_CHARS])
    why = core if isinstance(core, str) else None
    return CheckRun(counts=False, mentions=mentions, why=why if mentions else None)


def _normalise(command: str) -> str:
    return " ".join(command.split())


# -- reading a line --------------------------------------------------------------------------------
# A token is ("word", text without its quotes), ("op", operator) or ("redirect", operator).
_Token = tuple[str, str]


class _Word:
    """The word being read: its text, and whether any of it was quoted."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.started = self.quoted = False

    def add(self, text: str, *, quoted: bool = False) -> None:
        self.parts.append(text)
        self.started = True
        self.quoted = self.quoted or quoted

    def is_fd(self) -> bool:
        """An unquoted number right before ``>``: the file descriptor of a redirection."""
        text = "".join(self.parts)
        return self.started and not self.quoted and text.isascii() and text.isdigit()

    def end(self, tokens: list[_Token]) -> None:
        if self.started:
            tokens.append(("word", "".join(self.parts)))
        self.parts.clear()
        self.started = self.quoted = False


def _split(line: str) -> list[_Token] | str:
    """The line's tokens, or (a string) the construct that makes it not a plain command."""
    tokens: list[_Token] = []
    word = _Word()
    i = 0
    while i < len(line):
        quoted = _quoted(line, i)
        if isinstance(quoted, str):
            return quoted
        if quoted is not None:
            word.add(quoted[0], quoted=True)
            i = quoted[1]
            continue
        if line[i] == "`" or line.startswith("$(", i):
            return "a command substitution, whose exit code is not the line's"
        if line[i] in "<>" and line.startswith("(", i + 1):
            return "a process substitution"
        if line[i] == "#" and not word.started:
            newline = line.find("\n", i)
            i = len(line) if newline < 0 else newline
        elif line[i] in "<>" or line.startswith("&>", i):
            match = _REDIRECT.match(line, i)
            assert match is not None
            if match.group().startswith("<<"):
                return "a here-document"
            if word.is_fd():
                word = _Word()
            word.end(tokens)
            tokens.append(("redirect", match.group()))
            i = match.end()
        else:
            i = _plain(line, i, word, tokens)
    word.end(tokens)
    return tokens


def _quoted(line: str, i: int) -> tuple[str, int] | str | None:
    """A backslash escape or a quoted string at ``i``: its text and the index past it; ``None``
    for none; a string for a quote left open or a substitution inside double quotes."""
    char = line[i]
    if char == "\\":
        return ("", i + 2) if line.startswith("\n", i + 1) else (line[i + 1 : i + 2], i + 2)
    if char == "'":
        close = line.find("'", i + 1)
        return "an unclosed quote" if close < 0 else (line[i + 1 : close], close + 1)
    if char == '"':
        return _double_quoted(line, i + 1)
    return None


def _plain(line: str, i: int, word: _Word, tokens: list[_Token]) -> int:
    """Reads a blank, an operator or a character of a word at ``i``; the index past it."""
    char = line[i]
    if char.isspace() and char != "\n":
        word.end(tokens)
        return i + 1
    run = _PLAIN_RUN.match(line, i)
    if run is not None:
        word.add(run.group())
        return run.end()
    operator = next((op for op in _OPERATORS if line.startswith(op, i)), None)
    if operator is None:
        word.add(char)
        return i + 1
    word.end(tokens)
    tokens.append(("op", operator))
    return i + len(operator)


def _double_quoted(line: str, start: int) -> tuple[str, int] | str:
    """The text of a double-quoted string opened before ``start`` and the index past it."""
    out: list[str] = []
    i = start
    while i < len(line):
        char = line[i]
        if char == '"':
            return "".join(out), i + 1
        if char == "`" or line.startswith("$(", i):
            return "a command substitution, whose exit code is not the line's"
        if char == "\\" and i + 1 < len(line) and line[i + 1] in '"\\$`\n':
            if line[i + 1] != "\n":
                out.append(line[i + 1])
            i += 2
            continue
        out.append(char)
        i += 1
    return "an unclosed quote"


def _core(tokens: list[_Token] | str) -> list[str] | str:
    """The words of the one command a line runs, wrappers and redirections taken off; or why the
    line is not one command with nothing but harmless wrappers around it."""
    if isinstance(tokens, str):
        return tokens
    while tokens and tokens[-1] == ("op", "\n"):
        tokens = tokens[:-1]
    while tokens and tokens[0] == ("op", "\n"):
        tokens = tokens[1:]
    commands: list[list[str]] = [[]]
    pending_target = False
    for kind, text in tokens:
        if kind == "op":
            if text != "&&":
                return _WHY_OPERATOR[text]
            commands.append([])
        elif kind == "redirect":
            pending_target = not re.search(r"&(?:[0-9]+-?|-)$", text)
        elif pending_target:
            pending_target = False  # the redirection's file
        else:
            commands[-1].append(text)
    if pending_target:
        return "a redirection without a target"
    *prefixes, last = commands
    if not all(_harmless_prefix(words) for words in prefixes):
        return "other commands joined to it by `&&`"
    if last[:1] == ["!"]:
        return "a negation (`!`), which inverts its exit code"
    return _unwrapped(last)


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


def _unwrapped(words: list[str]) -> list[str]:
    """``words`` without leading assignments, ``env``, ``time [-p]`` and ``timeout DURATION``."""
    i = 0
    while i < len(words):
        word = words[i]
        if _ASSIGNMENT.match(word) or word == "env":
            i += 1
        elif word == "time":
            i += 2 if words[i + 1 : i + 2] == ["-p"] else 1
        elif word == "timeout":
            i += 1
            while i < len(words) and words[i].startswith("-"):
                i += 2 if words[i] in ("-s", "-k", "--signal", "--kill-after") else 1
            i += 1  # the duration
        else:
            break
    return words[i:]


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
                with os.scandir(folder) as entries:
                    for entry in entries:
                        seen += 1
                        if seen > self.max_entries or (seen % 256 == 0 and self.clock() > deadline):
                            self.off = True
                            return None
                        if entry.name.startswith(".") or entry.name.endswith((".pyc", ".pyo")):
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
            except OSError:
                continue  # an unreadable folder is left out of both walks
        return files

    def changed_since(self, before: Snapshot | None) -> tuple[str, ...]:
        """The files changed since ``before`` (none when either walk was incomplete)."""
        if before is None:
            return ()
        after = self.snapshot()
        return () if after is None else changed_paths(before, after)
