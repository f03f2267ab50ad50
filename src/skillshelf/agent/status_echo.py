"""A trailing ``echo $?``: the command at the end of a line that prints the exit status of the
commands before it (``pytest; echo "exit: $?"``), and that status read back from the output.

:func:`status_echo` takes a command as written (:class:`~skillshelf.agent.shell_line.Command`)
and gives the text it prints around the number (:class:`StatusEcho`), or ``None`` when it is
not such a command. It is one of

- ``echo [-n|-e|-E...] ARG...`` whose arguments hold ``$?`` (or ``${?}``) once, unquoted or in
  double quotes, among literal text (``echo $?``, ``echo "exit: $?"``, ``echo EXIT=$?``,
  ``echo exit code: $?``);
- ``printf FORMAT`` whose format holds ``$?`` once and no ``%`` (``printf "$?\\n"``), or
  ``printf FORMAT $?`` whose format holds one ``%d``, ``%i``, ``%u`` or ``%s`` and no other
  ``%`` (``printf 'exit=%d\\n' "$?"``);

with no redirection, no other expansion (``$HOME``), no backslash (but a printf format's final
``\\n``s), no newline, and no unquoted ``* ? [ ] { } ~`` (globs, braces, a tilde) in its literal
text, so what it prints is known but for the number.

:func:`trailing_echo` finds such a command at the end of a whole line, after ``;`` or a newline,
whatever comes before (``make build; echo $?``, ``make | tail -3; echo $?``: what it prints is
the status the line would have exited with without it). After a background job (``make & echo
$?``, ``make &`` and ``echo $?`` on the next line) ``$?`` is 0 whatever the job does: such an
echo is marked ``background`` and no status is read from it. After ``||`` (``make || echo $?``)
the echo runs only when what came before it failed, and the line then exits 0 either way: such
an echo is marked ``on_failure``, and the status is the one it printed, or 0 when the output's
last line is not its text around a number from 1 to 255 (it did not run); unknown when that line
only ends with such a text (a failure's output left without a final newline, the echo after it).

:func:`read_status` reads the status from the last line of the call's output, which must be
the echo's text around a number from 0 to 255 written plainly (``0``, ``17``; not ``017``),
exactly: the check's own output cannot pass for it, as the echo runs last and its line is the
last one. Trailing blanks are not compared (the tool output is right-stripped). The status is
unknown (``None``, with why) when the echo follows a background job, when the line's own status
is not 0 (the echo did not run or failed: a timeout), when the output was cut right before its
last line (the line may be the end of a longer one; :func:`~skillshelf.agent.tool_io.run_clipped`
keeps the output's end, and marks a cut with a line ``... [N bytes of output cut] ...``), or when
the last line is not the echo's text around such a number. The output must end as the command's
did (a clip keeps the end, as :mod:`~skillshelf.agent.tool_io` does).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from skillshelf.agent.shell_line import Command, last_command

__all__ = ["StatusEcho", "read_status", "status_echo", "trailing_echo"]

_EXPANSIONS = ("${?}", "$?")
_UNQUOTED_SPECIAL = frozenset("$\\*?[]{}~\n")
_ECHO_FLAGS = re.compile(r"-[neE]+")
_CONVERSION = re.compile(r"%[disu]")
_STATUS = r"(0|[1-9][0-9]{0,2})"
_CUT_LINE = re.compile(r"\.\.\. \[[0-9]+ bytes of output cut\] \.\.\.")
#: What may stand between the commands before a trailing echo and the echo: list and background
#: separators, the end of a subshell (``(make); echo $?``).
_BEFORE_ECHO = frozenset({";", "\n", "&", ")"})

# A word as written, read as its literal text and the status expansion (None) in order.
_Parts = list[str | None]


@dataclass(frozen=True, slots=True, kw_only=True)
class StatusEcho:
    """A command that prints the status of the commands before it: ``before`` the number, then
    the number, then ``after`` (``echo "exit: $?"``: ``"exit: "`` and ``""``). ``background``: the
    commands before it end in ``&``, so the ``$?`` it prints is 0 and says nothing of them.
    ``on_failure``: it follows ``||``, and runs only when they failed."""

    before: str
    after: str
    background: bool = False
    on_failure: bool = False

    def describe(self) -> str:
        return f"{self.before}<status>{self.after}".strip() or "<status>"


def status_echo(command: Command) -> StatusEcho | None:
    """What ``command`` prints around the status it echoes, or ``None`` when it is no such command."""
    if command.redirected or not command.raw:
        return None
    head, args = command.raw[0], command.raw[1:]
    if head == "echo":
        return _echo(args, command.words[1:])
    if head == "printf":
        return _printf(args)
    return None


def trailing_echo(line: str) -> StatusEcho | None:
    """The status echo that ends ``line`` after ``;``, a newline, a background ``&`` or ``||``,
    whatever comes before it (see the module docstring); ``None`` when the line does not end in one, or
    cannot be read into tokens (a command substitution, a here-document)."""
    found = last_command(line)
    if found is None:
        return None
    operators, command = found
    echo = status_echo(command)
    if echo is not None and operators in (("||",), (")", "||")):
        return replace(echo, on_failure=True)
    if echo is None or not operators or not _BEFORE_ECHO.issuperset(operators) or operators == (")",):
        return None
    return replace(echo, background="&" in operators)


def _echo(args: Sequence[str], words: Sequence[str]) -> StatusEcho | None:
    """``args`` as written, ``words`` without their quotes (a quoted ``"-n"`` is an option too)."""
    i = 0
    while i < len(args) and _ECHO_FLAGS.fullmatch(words[i]):
        i += 1
    printed: _Parts = []
    for n, arg in enumerate(args[i:]):
        parts = _parts(arg)
        if parts is None:
            return None
        printed += [" ", *parts] if n else parts
    return _split(printed, backslashes=False)


def _printf(args: Sequence[str]) -> StatusEcho | None:
    if not args or args[0].startswith("-") or len(args) > 2:
        return None
    form = _parts(args[0])
    if form is None:
        return None
    if len(args) == 1:
        split = _split(form, backslashes=True)
        return None if split is None or "%" in split.before + split.after else split
    if _parts(args[1]) != [None] or None in form:
        return None
    text = "".join(part for part in form if part is not None)
    conversions = list(_CONVERSION.finditer(text))
    if len(conversions) != 1 or text.count("%") != 1:
        return None
    at = conversions[0]
    return _split([text[: at.start()], None, text[at.end() :]], backslashes=True)


def _split(parts: _Parts, *, backslashes: bool) -> StatusEcho | None:
    """The literal text before and after the one expansion; a printf format's final ``\\n``s
    are taken off (``backslashes``), any other backslash makes it no status echo."""
    if parts.count(None) != 1:
        return None
    at = parts.index(None)
    before = "".join(part for part in parts[:at] if part is not None)
    after = "".join(part for part in parts[at + 1 :] if part is not None)
    if backslashes:
        while after.endswith("\\n"):
            after = after[:-2]
    if "\\" in before + after or "\n" in before + after:
        return None
    return StatusEcho(before=before, after=after)


def _parts(raw: str) -> _Parts | None:
    """A word as written: its literal text and the ``$?`` expansions in order; ``None`` for a
    word that holds another expansion, an escape or an unquoted glob, brace or tilde."""
    parts: _Parts = []
    i = 0
    while i < len(raw):
        expansion = next((e for e in _EXPANSIONS if raw.startswith(e, i)), None)
        if expansion is not None:
            parts.append(None)
            i += len(expansion)
        elif raw[i] == "'":
            close = raw.find("'", i + 1)
            if close < 0:
                return None
            parts.append(raw[i + 1 : close])
            i = close + 1
        elif raw[i] == '"':
            quoted = _double_quoted(raw, i + 1)
            if quoted is None:
                return None
            inner, i = quoted
            parts += inner
        elif raw[i] in _UNQUOTED_SPECIAL:
            return None
        else:
            parts.append(raw[i])
            i += 1
    return parts


def _double_quoted(raw: str, start: int) -> tuple[_Parts, int] | None:
    """The parts of a double-quoted string opened before ``start``, and the index past it. A
    backslash is kept as written (``"\\n"`` is two characters, for printf), but for one that
    escapes ``$``, ``"``, ``\\`` or a backquote, which makes the word no status echo."""
    parts: _Parts = []
    i = start
    while i < len(raw) and raw[i] != '"':
        expansion = next((e for e in _EXPANSIONS if raw.startswith(e, i)), None)
        if expansion is not None:
            parts.append(None)
            i += len(expansion)
        elif raw[i] in "$`" or (raw[i] == "\\" and raw[i + 1 : i + 2] in ('"', "\\", "$", "`", "\n")):
            return None
        else:
            parts.append(raw[i])
            i += 1
    return (parts, i + 1) if i < len(raw) else None


def read_status(echo: StatusEcho, line_status: int, output: str | None) -> tuple[int | None, str | None]:
    """The status ``echo`` printed on the last line of ``output``, or ``None`` and why it cannot be
    read (see the module docstring)."""
    shown = f"`{echo.describe()}`"
    if echo.background:
        return None, f"its echo {shown} follows a background job (`&`), whose status `$?` does not hold"
    if line_status != 0:
        return (
            None,
            f"the line exited {line_status} (its echo did not run, or failed), so no {shown} can be read",
        )
    if output is None:
        return None, f"no output was handed over to read its echo's {shown} from"
    lines = output.rstrip().split("\n")
    if len(lines) > 1 and _CUT_LINE.fullmatch(lines[-2]):
        return None, f"the output was cut right before its last line, so {shown} cannot be read whole"
    pattern = re.escape(echo.before) + _STATUS + re.escape(echo.after.rstrip())
    found = re.fullmatch(pattern, lines[-1])
    if echo.on_failure:  # it printed a failure's status, or did not run: what came before passed
        if found is not None and 0 < int(found.group(1)) <= 255:
            return int(found.group(1)), None
        tail = re.search(
            re.escape(echo.before) + "([0-9]+)" + re.escape(echo.after.rstrip()) + "$", lines[-1]
        )
        if tail is not None and int(tail.group(1)):  # the echo's text after output left without a newline
            return None, f"the last line of the output ends as its echo's {shown} but holds more"
        return 0, None
    if found is None or int(found.group(1)) > 255:
        return None, f"the last line of the output is not its echo's {shown} with a status from 0 to 255"
    return int(found.group(1)), None
