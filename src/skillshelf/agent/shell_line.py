"""Reading a bash line without running it: its tokens (words without their quotes, operators,
redirections) and the simple commands of a list joined by ``&&``, ``;`` and newlines
(:func:`simple_commands`: each :class:`Command` with its words as read and as written), or, as a
string, the construct that makes it something else (a pipeline, ``||``, a subshell, a
substitution...: :data:`WHY_OPERATOR`); and the command that ends any line that reads into
tokens, with the operators before it (:func:`last_command`: ``make | tail; echo $?``).

A here-document (``<<WORD``, ``<<-WORD``) is an input redirection whose target is its delimiter;
its body, the lines after the command's line up to the delimiter alone on a line (leading tabs
taken off for ``<<-``), is data and is skipped, as bash reads it. A body whose delimiter is not
quoted is expanded when the command runs: one holding a command substitution (``$(``, a
backquote) makes the line unread, as a substitution anywhere else does, and so does a body
whose delimiter never comes. A here-string (``<<< WORD``) is an input redirection."""

from __future__ import annotations

import posixpath
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
#: Devices a redirection may write to without writing a file (``/dev/shm/x`` is a file).
_DEVICE = re.compile(r"/dev/(?:null|zero|full|stdout|stderr|tty|random|urandom|(?:fd|pts)/[0-9]+)")
_SUBSTITUTION = "a command substitution, whose exit code is not the line's"
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
    pending: list[_HereDoc] = []  # here-documents whose bodies start after the next newline
    i = 0
    while i < len(line):
        if line[i] == "\n" and pending:
            word.end(tokens)
            tokens.append(("op", "\n", "\n"))
            past = _past_bodies(line, i + 1, pending)
            if isinstance(past, str):
                return past
            pending.clear()
            i = past
            continue
        quoted = _quoted(line, i)
        if isinstance(quoted, str):
            return quoted
        if quoted is not None:
            word.add(quoted[0], i, quoted[1], quoted=True)
            i = quoted[1]
            continue
        if line[i] == "`" or line.startswith("$(", i):
            return _SUBSTITUTION
        if line[i] in "<>" and line.startswith("(", i + 1):
            return "a process substitution"
        if line[i] == "#" and not word.started:
            newline = line.find("\n", i)
            i = len(line) if newline < 0 else newline
        elif line[i] in "<>" or line.startswith("&>", i):
            match = _REDIRECT.match(line, i)
            assert match is not None
            if word.is_fd():
                word = _Word(line)
            word.end(tokens)
            tokens.append(("redirect", match.group(), match.group()))
            i = match.end()
            if match.group() in ("<<", "<<-"):
                delimiter = _delimiter(line, i, strip_tabs=match.group() == "<<-")
                if isinstance(delimiter, str):
                    return delimiter
                pending.append(delimiter)
                tokens.append(("word", delimiter.word, line[i : delimiter.stop].strip(" \t")))
                i = delimiter.stop
        else:
            i = _plain(line, i, word, tokens)
    if pending:
        return "a here-document whose delimiter line never comes"
    word.end(tokens)
    return tokens


@dataclass(frozen=True, slots=True, kw_only=True)
class _HereDoc:
    """A here-document's delimiter (quotes taken off), whether any of it was quoted (a body
    left as written), ``strip_tabs`` (``<<-``) and the index past the delimiter in the line."""

    word: str
    quoted: bool
    strip_tabs: bool
    stop: int


def _delimiter(line: str, i: int, *, strip_tabs: bool) -> _HereDoc | str:
    """The delimiter word of a here-document whose ``<<`` ends before ``i``."""
    while i < len(line) and line[i] in " \t":
        i += 1
    parts: list[str] = []
    quoted, start = False, i
    while i < len(line) and not line[i].isspace() and line[i] not in "<>&|;()":
        if line[i] == "`" or line.startswith("$(", i):
            return _SUBSTITUTION
        found = _quoted(line, i)
        if isinstance(found, str):
            return found
        if found is None:
            parts.append(line[i])
            i += 1
        else:
            parts.append(found[0])
            quoted, i = True, found[1]
    if i == start:
        return "a here-document without a delimiter"
    return _HereDoc(word="".join(parts), quoted=quoted, strip_tabs=strip_tabs, stop=i)


def _past_bodies(line: str, start: int, pending: list[_HereDoc]) -> int | str:
    """The index past the bodies of ``pending`` here-documents, read in order from ``start``;
    or why the line cannot be read (a body that never ends, or one that runs a substitution)."""
    at = start
    for here in pending:
        while True:
            if at >= len(line):
                return "a here-document whose delimiter line never comes"
            text, at = _body_line(line, at, here)
            if text == here.word:
                break
            if not here.quoted and ("`" in text or "$(" in text):
                return _SUBSTITUTION
    return min(at, len(line))


def _body_line(line: str, at: int, here: _HereDoc) -> tuple[str, int]:
    """The body line at ``at`` as bash compares it with the delimiter, and the index past it:
    leading tabs taken off for ``<<-``; in a body left unquoted, a line ending in an odd number
    of backslashes goes on with the next one, the backslash and newline dropped."""
    parts: list[str] = []
    while True:
        newline = line.find("\n", at)
        end = len(line) if newline < 0 else newline
        text = line[at:end].lstrip("\t") if here.strip_tabs and not parts else line[at:end]
        at = end + 1
        backslashes = len(text) - len(text.rstrip("\\"))
        if here.quoted or backslashes % 2 == 0 or at > len(line):
            return "".join(parts) + text, at
        parts.append(text[:-1])


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
            return _SUBSTITUTION
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
    redirection writes a file (not a device such as ``/dev/null``); ``redirected``: it has any
    redirection (a here-document too)."""

    op: str
    words: tuple[str, ...]
    raw: tuple[str, ...]
    writes: bool = False
    redirected: bool = False


def simple_commands(line: str, *, or_last: bool = False) -> list[Command] | str:
    """The simple commands of a list joined by ``&&``, ``;`` and newlines, redirections taken off;
    or why the line is not such a list. ``or_last``: the last command may come after ``||``
    (``make || echo $?``: its :attr:`Command.op` is ``||``)."""
    tokens = _split(line)
    if isinstance(tokens, str):
        return tokens
    return _commands(tokens, or_at=_last_operator(tokens) if or_last else None)


def _last_operator(tokens: list[_Token]) -> int | None:
    """The index of the ``||`` right before the command that ends the tokens, if it is one."""
    end = len(tokens)
    while end and tokens[end - 1][0] == "op" and tokens[end - 1][1] in (";", "\n"):
        end -= 1
    start = end
    while start and tokens[start - 1][0] != "op":
        start -= 1
    return start - 1 if start < end and start and tokens[start - 1][1] == "||" else None


def last_command(line: str) -> tuple[tuple[str, ...], Command] | None:
    """The simple command that ends ``line`` (a final ``;`` or newline aside), whatever comes
    before it, and the operators right before it, in order (``(";",)`` in ``make; echo $?``,
    ``("&", "\\n")`` in ``make &`` and ``echo $?`` on the next line, ``()`` when it is the line's
    only command); ``None`` when the line cannot be read into tokens (a substitution, a
    here-document that does not end, an unclosed quote) or does not end in a simple command
    (``make &``, ``(make)``)."""
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


def _commands(tokens: list[_Token], *, or_at: int | None = None) -> list[Command] | str:
    """The simple commands of tokens joined by ``&&``, ``;`` and newlines (and the ``||`` at
    ``or_at``); or why they are not."""
    commands: list[Command] = []
    words: list[tuple[str, str]] = []
    op, writes, redirected, target = "", False, False, None
    for index, (kind, text, raw) in enumerate(tokens):
        if target is not None:  # the redirection's file: written to unless it is a device
            writes, target = (
                writes or (">" in target and not _DEVICE.fullmatch(posixpath.normpath(text))),
                None,
            )
        elif kind == "redirect":
            target = None if re.search(r"&(?:[0-9]+-?|-)$", text) else text
            redirected = True
        elif kind == "word":
            words.append((text, raw))
        elif text not in ("&&", ";", "\n") and index != or_at:
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
