"""Options given to a group before the name of the command that takes them.

``skillshelf --json --top 3 search pdf`` or ``skillshelf --json memory show``: click stops at
the first option the group does not take. The usage error then says where that option goes,
and its fix is the whole command line with every such option (its values too: ``--top 3``,
``--top=3``, ``-c KEY=VALUE``, ``-cKEY=VALUE``) moved after the name of the command that takes
it, the deepest command of the line that does (``memory show``, not ``memory``). Options a group
takes itself stay where they are.

The line is read twice: first with a guess of which options take a value (an option its group
does not take takes the next word when that word is no option and names no command), which
finds the commands; then with the values those commands' options take. When the two readings
find other commands, the line is not rewritten and click's own message stands.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from dataclasses import dataclass

import click

__all__ = ["misplaced_option"]


@dataclass(frozen=True, slots=True, kw_only=True)
class _Level:
    """A command of the line: the root group, or one named at ``at`` in the arguments."""

    command: click.Command
    path: str  # as click shows it: "skillshelf memory show"
    at: int  # where its name is in the arguments (-1: the root, which no argument names)


@dataclass(frozen=True, slots=True, kw_only=True)
class _Given:
    """One option given to a group, with its values: ``args[start:stop]``."""

    name: str  # "--top", "-c"
    start: int
    stop: int
    level: int  # the group it was given to, an index of the levels


# (the levels read so far, the option's word, the words after it) -> how many are its values
_Arity = Callable[[list[_Level], str, list[str]], int]


def _option(command: click.Command, ctx: click.Context, name: str) -> click.Option | None:
    params = command.get_params(ctx)
    return next(
        (p for p in params if isinstance(p, click.Option) and name in (*p.opts, *p.secondary_opts)), None
    )


def _values(option: click.Option) -> int:
    return 0 if option.is_flag or option.count else option.nargs


def _name_of(word: str) -> str:
    """``--top=3`` -> ``--top``; ``-cKEY=VALUE`` -> ``-c``."""
    return word.partition("=")[0] if word.startswith("--") else word[:2]


def _attached(word: str) -> bool:
    """Whether the option's value is in its own word (``--top=3``, ``-cKEY=VALUE``)."""
    return "=" in word if word.startswith("--") else len(word) > 2


def _is_option(word: str) -> bool:
    return word.startswith("-") and word != "-"


def _read(ctx: click.Context, args: list[str], arity: _Arity) -> tuple[list[_Level], list[_Given]] | None:
    """The commands the line names and the options given to its groups before a command's name,
    an option's values counted by ``arity``; None when a group is given a word that names none of
    its commands, or ``--``, or no command at all."""
    root = ctx.find_root()
    levels = [_Level(command=root.command, path=root.info_name or "skillshelf", at=-1)]
    given: list[_Given] = []
    i = 0
    while isinstance(levels[-1].command, click.Group) and i < len(args):
        word = args[i]
        if word == "--":
            return None
        if _is_option(word):
            stop = i + 1 + (0 if _attached(word) else arity(levels, word, args[i + 1 :]))
            given.append(_Given(name=_name_of(word), start=i, stop=stop, level=len(levels) - 1))
            i = stop
            continue
        command = levels[-1].command.get_command(ctx, word)
        if command is None:
            return None
        levels.append(_Level(command=command, path=f"{levels[-1].path} {word}", at=i))
        i += 1
    return (levels, given) if len(levels) > 1 else None


def _target(levels: list[_Level], ctx: click.Context, name: str, level: int) -> _Level | None:
    """The deepest command after group ``level`` that takes option ``name``; None when that
    group takes it itself (it is in its place) or no command of the line does."""
    if _option(levels[level].command, ctx, name) is not None:
        return None
    later = reversed(levels[level + 1 :])
    return next((command for command in later if _option(command.command, ctx, name) is not None), None)


def _guess(ctx: click.Context) -> _Arity:
    """The first reading's values: a group's own option's, else the next word when it is no
    option and names none of the group's commands."""

    def arity(levels: list[_Level], word: str, rest: list[str]) -> int:
        group = levels[-1].command
        own = _option(group, ctx, _name_of(word))
        if own is not None:
            return _values(own)
        names = group.list_commands(ctx) if isinstance(group, click.Group) else []
        return 1 if rest and not _is_option(rest[0]) and rest[0] not in names else 0

    return arity


def _known(ctx: click.Context, found: list[_Level]) -> _Arity:
    """The second reading's values: those of the option of the command it goes to (``found``
    by the first reading), else as guessed."""
    guess = _guess(ctx)

    def arity(levels: list[_Level], word: str, rest: list[str]) -> int:
        name, level = _name_of(word), len(levels) - 1
        if level >= len(found):  # read otherwise than the first time: _line gives up
            return guess(levels, word, rest)
        target = _target(found, ctx, name, level)
        option = _option(target.command if target else found[level].command, ctx, name)
        return _values(option) if option is not None else guess(levels, word, rest)

    return arity


def _line(ctx: click.Context, args: list[str]) -> tuple[list[_Level], list[_Given]] | None:
    """The line read as the module's docstring says."""
    first = _read(ctx, args, _guess(ctx))
    if first is None:
        return None
    again = _read(ctx, args, _known(ctx, first[0]))
    if again is None or [level.path for level in again[0]] != [level.path for level in first[0]]:
        return None
    return again


def _quoted(names: list[str]) -> str:
    return ", ".join(repr(name) for name in names)


def misplaced_option(exc: click.UsageError, args: list[str]) -> tuple[str, str] | None:
    """``(message, fix)`` for an option given to a group before the name of a command that takes
    it (``skillshelf --json list``): the fix is the command line with every such option after the
    name of its command. None for any other error (click's message and its guess then stand)."""
    ctx = exc.ctx
    if not isinstance(exc, click.NoSuchOption) or ctx is None or not isinstance(ctx.command, click.Group):
        return None
    line = _line(ctx, args)
    if line is None:
        return None
    levels, given = line
    failed = next(
        (g for g in given if g.name == exc.option_name and levels[g.level].path == ctx.command_path), None
    )
    target = _target(levels, ctx, failed.name, failed.level) if failed is not None else None
    if failed is None or target is None:
        return None
    moved, stray = _sorted(ctx, levels, given)
    message = (
        f"No such option {exc.option_name!r} for `{ctx.command_path}`: it is an option of "
        f"`{target.path}`, so it goes after the command's name{_others(levels, moved, failed, target)}"
    )
    if stray:
        message += f"; no command of this line takes {_quoted(stray)}"
        return message, f"run `{levels[-1].path} --help` to see the options it takes"
    return message, f"run `{_moved(args, levels, moved)}`"


def _sorted(
    ctx: click.Context, levels: list[_Level], given: list[_Given]
) -> tuple[dict[int, list[_Given]], list[str]]:
    """The options to move, by where their command's name is, and the options no command of
    the line takes (the options a group takes itself are neither)."""
    moved: dict[int, list[_Given]] = {}
    stray: list[str] = []
    for g in given:
        to = _target(levels, ctx, g.name, g.level)
        if to is not None:
            moved.setdefault(to.at, []).append(g)
        elif _option(levels[g.level].command, ctx, g.name) is None:
            stray.append(g.name)
    return moved, stray


def _others(levels: list[_Level], moved: dict[int, list[_Given]], failed: _Given, target: _Level) -> str:
    """What the message says of the other options moved: ``, as '--top' does``, ``; '--db' goes
    after `skillshelf memory show```."""
    text = ""
    same = [g.name for g in moved[target.at] if g is not failed]
    if same:
        text += f", as {_quoted(same)} {'does' if len(same) == 1 else 'do'}"
    paths = {level.at: level.path for level in levels}
    for at, options in moved.items():
        if at != target.at:
            verb = "goes" if len(options) == 1 else "go"
            text += f"; {_quoted([g.name for g in options])} {verb} after `{paths[at]}`"
    return text


def _moved(args: list[str], levels: list[_Level], moved: dict[int, list[_Given]]) -> str:
    """The command line with each moved option (and its values) right after its command's name."""
    taken = {i for options in moved.values() for g in options for i in range(g.start, g.stop)}
    words = [levels[0].path]
    for i, word in enumerate(args):
        if i not in taken:
            words.append(word)
        for g in moved.get(i, []):
            words.extend(args[g.start : g.stop])
    return shlex.join(words)
