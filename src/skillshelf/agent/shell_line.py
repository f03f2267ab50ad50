"""Reading a bash line without running it: its tokens (words without their quotes, operators,
redirections) and the simple commands of a list joined by ``&&``, ``;`` and newlines
(:func:`simple_commands`: each :class:`Command` with its words as read and as written), or, as a
string, the construct that makes it something else (a pipeline, ``||``, a subshell, a
substitution, a here-document...: :data:`WHY_OPERATOR`); and the command that ends any line that
reads into tokens, with the operators before it (:func:`last_command`: ``make | tail; echo $?``)."""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["WHY_OPERATOR", "Command", "last_command", "simple_commands"]

_REDIRECT = re.compile(r"&>>?|>>|>\||>&(?:[0-9]+-?|-)?|<&(?:[0-9]+-?|-)?|<<<|<<-?|<>|>|<")
_OPERATORS = ("&&", "||", "|&", ";;", "|", ";", "&", "(", ")", "\n")
WHY_OPERATOR = {
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


# A token is ("word", text without its quotes, the word as written), ("op", operator, operator) or
# ("redirect", operator, operator).
_Token = tuple[str, str, str]


class _Word:
    """The word being read: its text, whether any of it was quoted, and where it stands in the line."""

    def __init__(self, line: str) -> None:
        self.line = line
        self.parts: list[str] = []
        self.started = self.quoted = False
        self.start = self.stop = 0

    def add(self, text: str, start: int, stop: int, *, quoted: bool = False) -> None:
        """Adds ``text``, read from ``line[start:stop]``."""
        if not self.started:
            self.start = start
        self.parts.append(text)
        self.stop = stop
        self.started = True
        self.quoted = self.quoted or quoted

    def is_fd(self) -> bool:
        """An unquoted number right before ``>``: the file descriptor of a redirection."""
        text = "".join(self.parts)
        return self.started and not self.quoted and text.isascii() and text.isdigit()

    def end(self, tokens: list[_Token]) -> None:
        if self.started:
            tokens.append(("word", "".join(self.parts), self.line[self.start : self.stop]))
        self.parts.clear()
        self.started = self.quoted = False


def _split(line: str) -> list[_Token] | str:
    """The line's tokens, or (a string) the construct that makes it not a plain command."""
    tokens: list[_Token] = []
    word = _Word(line)
    i = 0
    while i < len(line):
        quoted = _quoted(line, i)
        if isinstance(quoted, str):
            return quoted
        if quoted is not None:
            word.add(quoted[0], i, quoted[1], quoted=True)
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
                word = _Word(line)
            word.end(tokens)
            tokens.append(("redirect", match.group(), match.group()))
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
        word.add(run.group(), i, run.end())
        return run.end()
    operator = next((op for op in _OPERATORS if line.startswith(op, i)), None)
    if operator is None:
        word.add(char, i, i + 1)
        return i + 1
    word.end(tokens)
    tokens.append(("op", operator, operator))
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


@dataclass(frozen=True, slots=True, kw_only=True)
class Command:
    """A simple command of a list: ``op``, the operator before it (``""`` first); ``words``
    without their quotes; ``raw``, the same words as written (``"exit: $?"``); ``writes``: a
    redirection writes a file (not a device); ``redirected``: it has any redirection."""

    op: str
    words: tuple[str, ...]
    raw: tuple[str, ...]
    writes: bool = False
    redirected: bool = False


def simple_commands(line: str) -> list[Command] | str:
    """The simple commands of a list joined by ``&&``, ``;`` and newlines, redirections taken off;
    or why the line is not such a list."""
    tokens = _split(line)
    return tokens if isinstance(tokens, str) else _commands(tokens)


def last_command(line: str) -> tuple[tuple[str, ...], Command] | None:
    """The simple command that ends ``line`` (a final ``;`` or newline aside), whatever comes
    before it, and the operators right before it, in order (``(";",)`` in ``make; echo $?``,
    ``("&", "\\n")`` in ``make &`` and ``echo $?`` on the next line, ``()`` when it is the line's
    only command); ``None`` when the line cannot be read into tokens (a substitution, a
    here-document, an unclosed quote) or does not end in a simple command (``make &``, ``(make)``)."""
    tokens = _split(line)
    if isinstance(tokens, str):
        return None
    while tokens and tokens[-1][0] == "op" and tokens[-1][1] in (";", "\n"):
        tokens.pop()
    start = len(tokens)
    while start and tokens[start - 1][0] != "op":
        start -= 1
    tail = _commands(tokens[start:])
    if not isinstance(tail, list) or len(tail) != 1:
        return None
    first = start
    while first and tokens[first - 1][0] == "op":
        first -= 1
    return tuple(text for _, text, _ in tokens[first:start]), tail[0]


def _commands(tokens: list[_Token]) -> list[Command] | str:
    """The simple commands of tokens joined by ``&&``, ``;`` and newlines; or why they are not."""
    commands: list[Command] = []
    words: list[tuple[str, str]] = []
    op, writes, redirected, target = "", False, False, None
    for kind, text, raw in tokens:
        if target is not None:  # the redirection's file: written to unless it is a device
            writes, target = writes or (">" in target and not text.startswith("/dev/")), None
        elif kind == "redirect":
            target = None if re.search(r"&(?:[0-9]+-?|-)$", text) else text
            redirected = True
        elif kind == "word":
            words.append((text, raw))
        elif text not in ("&&", ";", "\n"):
            return WHY_OPERATOR[text]
        elif words:
            commands.append(_command(op, words, writes, redirected))
            words, writes, redirected, op = [], False, False, text
        elif text != "\n":  # a blank line is no command; `&&` or `;` needs one before it
            return f"no command before `{text}`"
    if target is not None:
        return "a redirection without a target"
    if words:
        commands.append(_command(op, words, writes, redirected))
    elif op == "&&":
        return "no command after `&&`"
    return commands


def _command(op: str, words: list[tuple[str, str]], writes: bool, redirected: bool) -> Command:
    return Command(
        op=op,
        words=tuple(text for text, _ in words),
        raw=tuple(raw for _, raw in words),
        writes=writes,
        redirected=redirected,
    )
