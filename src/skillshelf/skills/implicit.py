"""Implicit skill use: which skill a shell command uses, as Codex's detector tells it.

A command uses a skill when it

- runs a script under the skill's ``scripts/`` folder with an interpreter Codex knows
  (``python``, ``python3``, ``bash``, ``zsh``, ``sh``, ``node``, ``deno``, ``ruby``, ``perl``,
  ``pwsh``; ``.exe`` suffix and case ignored) and a script extension Codex knows (``.py .sh .js
  .ts .rb .pl .ps1``), or
- reads the skill's ``SKILL.md`` with ``cat``, ``bat``/``batcat``, ``less``, ``more``,
  ``head``, ``tail``, ``nl``, ``awk '...' FILE`` or ``sed -n ... FILE``.

Commands are split on ``|``, ``||``, ``&&``, ``;``, ``&`` and new lines; ``cd DIR`` moves the
working directory for what follows; ``bash -lc "..."`` (and ``sh``/``zsh`` ``-c``) is
unwrapped. Paths are joined to the working directory and canonicalised (symlinks resolved)
before they are compared. Script runs are checked before reads, as in Codex. A skill is
reported once per turn; :meth:`ImplicitUseDetector.new_turn` starts a new turn.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Iterator, Sequence
from pathlib import Path

from skillshelf.skills.model import Skill

__all__ = ["ImplicitUseDetector", "RUNNERS", "SCRIPT_EXTENSIONS", "script_token", "split_command"]

RUNNERS = frozenset({"python", "python3", "bash", "zsh", "sh", "node", "deno", "ruby", "perl", "pwsh"})
SCRIPT_EXTENSIONS = (".py", ".sh", ".js", ".ts", ".rb", ".pl", ".ps1")
SHELLS = frozenset({"bash", "sh", "zsh", "dash"})
SEPARATORS = frozenset({"|", "||", "&&", ";", "&", "|&", ";;", "\n", "(", ")"})
REDIRECTS = frozenset({">", ">>", ">&", "&>", "&>>", ">|", "<>", "<<", "<<<", "<&"})
PAGERS = frozenset({"cat", "bat", "batcat", "less", "more"})
_HEAD_TAIL_VALUE_OPTS = frozenset({"-n", "-c", "--lines", "--bytes"})
_NL_VALUE_OPTS = frozenset({"-b", "-d", "-f", "-h", "-i", "-l", "-n", "-s", "-v", "-w"})
_AWK_VALUE_OPTS = frozenset({"-F", "-v", "-f"})
_MAX_DEPTH = 4


def split_command(command: str | Sequence[str]) -> list[str]:
    """Tokens of a command: POSIX shell words with operators as their own tokens.

    A string that shell rules cannot split (an open quote...) is split on white space, as Codex
    does. An argv list is taken as it is.
    """
    if not isinstance(command, str):
        return [str(token) for token in command]
    lexer = shlex.shlex(command, posix=True, punctuation_chars="();<>|&\n")
    lexer.whitespace = " \t\r"
    lexer.whitespace_split = True
    lexer.commenters = ""
    try:
        return list(lexer)
    except ValueError:
        return command.split()


def _segments(tokens: Sequence[str]) -> Iterator[list[str]]:
    current: list[str] = []
    for token in tokens:
        if token in SEPARATORS:
            if current:
                yield current
            current = []
        else:
            current.append(token)
    if current:
        yield current


def _strip_prefixes(words: list[str]) -> list[str]:
    """Drop ``VAR=value`` assignments and an ``env`` wrapper before the command word."""
    index = 0
    while index < len(words):
        word = words[index]
        if word == "env" or (
            "=" in word and not word.startswith(("=", "-")) and "/" not in word.split("=", 1)[0]
        ):
            index += 1
            continue
        break
    return words[index:]


def _runner(word: str) -> str:
    name = word.replace("\\", "/").rsplit("/", 1)[-1].lower()
    return name[:-4] if name.endswith(".exe") else name


def script_token(words: Sequence[str]) -> str | None:
    """The script a runner command runs (Codex's rule), or None: ``python3 -u x.py`` -> ``x.py``."""
    if not words or _runner(words[0]) not in RUNNERS:
        return None
    token = next((w for w in words[1:] if w != "--" and not w.startswith("-")), None)
    if token is None or not token.lower().endswith(SCRIPT_EXTENSIONS):
        return None
    return token


def _operands(words: Sequence[str], value_opts: frozenset[str]) -> list[str]:
    out: list[str] = []
    skip = False
    for word in words:
        if skip:
            skip = False
        elif word in value_opts:
            skip = True
        elif word == "-" or not word.startswith(("-", "+")):
            out.append(word)
    return out


def _awk_files(args: Sequence[str]) -> list[str]:
    operands: list[str] = []
    has_program_file = False
    skip = False
    for word in args:
        if skip:
            skip = False
        elif word in _AWK_VALUE_OPTS:
            has_program_file = has_program_file or word == "-f"
            skip = True
        elif not word.startswith("-"):
            operands.append(word)
    return operands if has_program_file else operands[1:]


def _sed_files(args: Sequence[str]) -> list[str]:
    quiet = any(w in {"-n", "--quiet", "--silent"} or (w.startswith("-n") and w[1:].isalpha()) for w in args)
    if not quiet:
        return []
    operands: list[str] = []
    has_script = False
    skip = False
    for word in args:
        if skip:
            skip = False
        elif word in {"-e", "-f", "--expression", "--file"}:
            has_script = True
            skip = True
        elif not word.startswith("-"):
            operands.append(word)
    return operands if has_script else operands[1:]


def read_paths(words: Sequence[str]) -> list[str]:
    """The files a read command reads (``cat a b``, ``sed -n 1,5p f``...); [] for other commands."""
    if not words:
        return []
    command = words[0].rsplit("/", 1)[-1]
    args, redirected = _split_redirects(words[1:])
    if command in PAGERS:
        files = _operands(args, frozenset())
    elif command in {"head", "tail"}:
        files = _operands(args, _HEAD_TAIL_VALUE_OPTS)
    elif command == "nl":
        files = _operands(args, _NL_VALUE_OPTS)
    elif command == "awk":
        files = _awk_files(args)
    elif command == "sed":
        files = _sed_files(args)
    else:
        return []
    return files + redirected


def _split_redirects(args: Sequence[str]) -> tuple[list[str], list[str]]:
    """(arguments without redirections, files read through ``<``); ``2>&1`` style fd numbers go too."""
    kept: list[str] = []
    inputs: list[str] = []
    index = 0
    while index < len(args):
        word = args[index]
        following = args[index + 1] if index + 1 < len(args) else None
        if word.isdigit() and following is not None and (following in REDIRECTS or following == "<"):
            index += 1
            continue
        if word in REDIRECTS or word == "<":
            if word == "<" and following is not None:
                inputs.append(following)
            index += 2
            continue
        kept.append(word)
        index += 1
    return kept, inputs


class ImplicitUseDetector:
    """Tells which enabled skill a shell command uses (hidden skills included).

    Built once per skill list: it indexes each skill's canonical ``SKILL.md`` and ``scripts/``
    folder. :meth:`detect` reports a skill once per turn.
    """

    def __init__(self, skills: Sequence[Skill], *, home: Path | None = None) -> None:
        self._home = home
        self._docs: dict[str, Skill] = {}
        self._scripts: dict[str, Skill] = {}
        for skill in skills:
            self._docs.setdefault(os.path.realpath(skill.path), skill)
            self._scripts.setdefault(os.path.realpath(skill.folder / "scripts"), skill)
        self._reported: set[str] = set()

    def new_turn(self) -> None:
        """Forget what was reported: the next turn reports every skill again."""
        self._reported.clear()

    def detect(self, command: str | Sequence[str], *, cwd: Path) -> Skill | None:
        """The first skill ``command`` uses that was not reported yet this turn, else None."""
        for skill in self.matches(command, cwd=cwd):
            key = f"{skill.scope.value}:{skill.path}:{skill.name}"
            if key not in self._reported:
                self._reported.add(key)
                return skill
        return None

    def matches(self, command: str | Sequence[str], *, cwd: Path) -> tuple[Skill, ...]:
        """Every skill ``command`` uses, script runs first, without the per-turn memory."""
        scripts: list[Skill] = []
        docs: list[Skill] = []
        self._scan(split_command(command), os.path.realpath(cwd), scripts, docs, 0)
        unique: dict[tuple[str, str], Skill] = {}
        for skill in [*scripts, *docs]:
            unique.setdefault((str(skill.path), skill.name), skill)
        return tuple(unique.values())

    def _resolve(self, workdir: str, path: str) -> str:
        if self._home is not None and (path == "~" or path.startswith("~/")):
            path = str(self._home) + path[1:]
        return os.path.realpath(os.path.join(workdir, path))

    def _scan(
        self, tokens: list[str], workdir: str, scripts: list[Skill], docs: list[Skill], depth: int
    ) -> str:
        for segment in _segments(tokens):
            words = _strip_prefixes(segment)
            if not words:
                continue
            if words[0] == "cd":
                target = next((w for w in words[1:] if not w.startswith("-")), None)
                if target is not None:
                    workdir = self._resolve(workdir, target)
                continue
            inner = _shell_script(words)
            if inner is not None:
                if depth < _MAX_DEPTH:
                    self._scan(split_command(inner), workdir, scripts, docs, depth + 1)
                continue
            self._match_segment(words, workdir, scripts, docs)
        return workdir

    def _match_segment(self, words: list[str], workdir: str, scripts: list[Skill], docs: list[Skill]) -> None:
        token = script_token(words)
        if token is not None:
            found = self._script_skill(self._resolve(workdir, token))
            if found is not None:
                scripts.append(found)
        for path in read_paths(words):
            doc = self._docs.get(self._resolve(workdir, path))
            if doc is not None:
                docs.append(doc)

    def _script_skill(self, resolved: str) -> Skill | None:
        current = resolved
        while True:
            found = self._scripts.get(current)
            if found is not None:
                return found
            parent = os.path.dirname(current)
            if parent == current:
                return None
            current = parent


def _shell_script(words: Sequence[str]) -> str | None:
    """The script of ``bash -lc "..."`` / ``sh -c "..."``, else None."""
    if len(words) < 3 or _runner(words[0]) not in SHELLS:
        return None
    for index, word in enumerate(words[1:], start=1):
        if word.startswith("-") and not word.startswith("--") and "c" in word[1:]:
            return words[index + 1] if index + 1 < len(words) else None
        if not word.startswith("-"):
            return None
    return None
