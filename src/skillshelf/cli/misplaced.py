"""Options given to a group before the name of the command that takes them.

``skillshelf --json --top 3 search pdf`` or ``skillshelf --json memory show``: click stops at
the first option the group does not take. The usage error then says where that option goes,
and its fix is the whole command line with every such option (its values too: ``--top 3``,
``--top=3``, ``-c KEY=VALUE``, ``-cKEY=VALUE``) moved after the name of the command that takes
it, the deepest command of the line that does (``memory show``, not ``memory``). Options a group
takes itself stay where they are. An option no command of the line takes is named with the
commands that do take it (``--top``: ``eval``, ``search``) and left out of the fix; an option
no command takes at all sends the user to the command's ``--help`` instead (a typo, most likely).

The line is read twice: first with a guess of which options take a value (an option its group
does not take takes the next word when that word is no option and names no command), which
finds the commands; then with the values those commands' options take. When the two readings
find other commands, the line is not rewritten and click's own message stands. A word after
an option that names a command may be that command's name or the option's value: of the
readings each choice gives, the one with the fewest options no command of the line takes is
kept (then the one closest to the guess). So ``skillshelf --json --root validate search pdf``
runs ``search`` in the folder ``validate`` (read as a command, ``validate`` takes no ``--root``),
and ``skillshelf --root list --json list`` runs ``list`` in the folder ``list``.
"""

from __future__ import annotations

import itertools
import shlex
from collections.abc import Callable
from dataclasses import dataclass

import click

__all__ = ["Misplaced", "misplaced_option"]

_OWNERS_SHOWN = 3  # the commands named as taking an option no command of the line takes
_MOST_CHOICES = 6  # words read either way: 2**6 readings at most (a line has one or two)


@dataclass(frozen=True, slots=True, kw_only=True)
class Misplaced:
    """What the usage error says, and the command the line runs."""

    message: str
    fix: str
    runs: str  # as click shows it: "skillshelf memory show"
    takes_json: bool  # whether that command takes --json


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


_Line = tuple[list[_Level], list[_Given]]

# (the levels read so far, where the option's word is in the arguments) -> how many are its values
_Arity = Callable[[list[_Level], int], int]


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


def _read(ctx: click.Context, args: list[str], arity: _Arity) -> _Line | None:
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
            stop = i + 1 + (0 if _attached(word) else arity(levels, i))
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


def _stray(levels: list[_Level], ctx: click.Context, g: _Given) -> bool:
    """Whether no command of the line takes option ``g``: neither its group nor a later one."""
    return (
        _option(levels[g.level].command, ctx, g.name) is None
        and _target(levels, ctx, g.name, g.level) is None
    )


def _guess(ctx: click.Context, args: list[str], valued: frozenset[int]) -> _Arity:
    """The first reading's values: a group's own option's, else the next word when it is no
    option and names none of the group's commands (or the option is at one of ``valued``)."""

    def arity(levels: list[_Level], i: int) -> int:
        group = levels[-1].command
        own = _option(group, ctx, _name_of(args[i]))
        if own is not None:
            return _values(own)
        after = args[i + 1 : i + 2]
        if not after or _is_option(after[0]):
            return 0
        names = group.list_commands(ctx) if isinstance(group, click.Group) else []
        return 1 if i in valued or after[0] not in names else 0

    return arity


def _known(ctx: click.Context, args: list[str], found: list[_Level], valued: frozenset[int]) -> _Arity:
    """The second reading's values: those of the option of the command it goes to (``found``
    by the first reading), else as guessed."""
    guess = _guess(ctx, args, valued)

    def arity(levels: list[_Level], i: int) -> int:
        name, level = _name_of(args[i]), len(levels) - 1
        if level >= len(found):  # read otherwise than the first time: _settled gives up
            return guess(levels, i)
        target = _target(found, ctx, name, level)
        option = _option(target.command if target else found[level].command, ctx, name)
        return _values(option) if option is not None else guess(levels, i)

    return arity


def _settled(ctx: click.Context, args: list[str], valued: frozenset[int]) -> _Line | None:
    """The line read twice, the words after the options at ``valued`` read as their values."""
    first = _read(ctx, args, _guess(ctx, args, valued))
    if first is None:
        return None
    again = _read(ctx, args, _known(ctx, args, first[0], valued))
    if again is None or [level.path for level in again[0]] != [level.path for level in first[0]]:
        return None
    return again


def _line(ctx: click.Context, args: list[str]) -> _Line | None:
    """The line read as the module's docstring says: of the readings with each choice of the
    words after options read as values or as commands' names, the one with the fewest options no
    command of the line takes, then with the fewest such words read as values (the guess's)."""
    choices = _value_or_name(ctx, args)
    best: tuple[tuple[int, int], _Line] | None = None
    for count in range(len(choices) + 1):
        for valued in itertools.combinations(choices, count):
            line = _settled(ctx, args, frozenset(valued))
            if line is None:
                continue
            score = (sum(_stray(line[0], ctx, g) for g in line[1]), count)
            if best is None or score < best[0]:
                best = (score, line)
    return best[1] if best is not None else None


def _value_or_name(ctx: click.Context, args: list[str]) -> list[int]:
    """Where the options are (the first few) whose next word, naming a command of a group the
    line names, may be either the option's value or that command's name."""
    root = ctx.find_root().command
    groups: list[click.Group] = [root] if isinstance(root, click.Group) else []
    names: set[str] = set()
    for group in groups:  # grows: the groups the line's words name, below the root
        listed = group.list_commands(ctx)
        names.update(listed)
        for word in set(args) & set(listed):
            command = group.get_command(ctx, word)
            if isinstance(command, click.Group) and command not in groups:
                groups.append(command)
    words = args[: args.index("--")] if "--" in args else args
    return [
        i
        for i, word in enumerate(words[:-1])
        if _is_option(word) and not _attached(word) and words[i + 1] in names
    ][:_MOST_CHOICES]


def _quoted(names: list[str]) -> str:
    return ", ".join(repr(name) for name in names)


def _runs_alone(command: click.Command) -> bool:
    """Whether the line can end at ``command`` (a group needs a subcommand, unless it runs alone)."""
    return not isinstance(command, click.Group) or command.invoke_without_command


def misplaced_option(exc: click.UsageError, args: list[str]) -> Misplaced | None:
    """The message and fix for an option given to a group before the name of a command
    (``skillshelf --json list``): the fix is the command line with every such option after the
    name of its command. None for any other error (click's message and its guess then stand),
    and for an option no command takes at all when no other option moves (``--nosuch list``)."""
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
    if failed is None:
        return None
    moved, strays = _sorted(ctx, levels, given)
    target = _target(levels, ctx, failed.name, failed.level)
    owners = {g.name: _taking(ctx, g.name) for g in strays}
    if target is None and (not _runs_alone(levels[-1].command) or not (moved or owners.get(failed.name))):
        return None
    message = f"No such option {exc.option_name!r} for `{ctx.command_path}`: "
    if target is not None:
        message += f"it is an option of `{target.path}`, so it goes after the command's name"
    else:
        message += f"no command of this line takes it{_taken_by(owners[failed.name])}"
    message += _others(levels, moved, failed, target)
    others = [g for g in strays if g is not failed]
    if others:
        named = ", ".join(f"{g.name!r}{_taken_by(owners[g.name])}" for g in others)
        message += f"; no command of this line takes {named}"
    runs = levels[-1]
    if all(_droppable(args, g, owners[g.name]) for g in strays):
        fix = f"run `{_moved(args, levels, moved, strays)}`"
        if strays:
            fix += f" (without {_quoted([shlex.join(args[g.start : g.stop]) for g in strays])})"
    else:
        fix = f"run `{runs.path} --help` to see the options it takes"
    json = _option(runs.command, ctx, "--json") is not None
    return Misplaced(message=message, fix=fix, runs=runs.path, takes_json=json)


def _droppable(args: list[str], g: _Given, owners: list[tuple[str, click.Option]]) -> bool:
    """Whether an option no command of the line takes can be left out of the fix: some command
    takes it (no typo), read with as many values as one of those commands' (no word misread)."""
    read = 1 if _attached(args[g.start]) else g.stop - g.start - 1
    return any(read == _values(option) for _, option in owners)


def _sorted(
    ctx: click.Context, levels: list[_Level], given: list[_Given]
) -> tuple[dict[int, list[_Given]], list[_Given]]:
    """The options to move, by where their command's name is, and the options no command of
    the line takes (the options a group takes itself are neither)."""
    moved: dict[int, list[_Given]] = {}
    strays: list[_Given] = []
    for g in given:
        to = _target(levels, ctx, g.name, g.level)
        if to is not None:
            moved.setdefault(to.at, []).append(g)
        elif _option(levels[g.level].command, ctx, g.name) is None:
            strays.append(g)
    return moved, strays


def _taking(ctx: click.Context, name: str) -> list[tuple[str, click.Option]]:
    """The commands of the whole command tree (not hidden) that take option ``name``, as click
    shows them, with the option; the tree's modules are imported (only on this error's path)."""
    root = ctx.find_root()
    taking: list[tuple[str, click.Option]] = []
    stack = [(root.command, root.info_name or "skillshelf")]
    while stack:  # a few levels deep; a stack keeps the walk flat all the same
        command, path = stack.pop()
        option = _option(command, ctx, name) if command is not root.command else None
        if option is not None:
            taking.append((path, option))
        if isinstance(command, click.Group):
            for sub in command.list_commands(ctx):
                found = command.get_command(ctx, sub)
                if found is not None and not found.hidden:
                    stack.append((found, f"{path} {sub}"))
    return sorted(taking, key=lambda pair: pair[0])


def _taken_by(owners: list[tuple[str, click.Option]]) -> str:
    """`` (an option of `skillshelf eval`, `skillshelf search`)``, the first few; ``""`` for none."""
    paths = [path for path, _ in owners]
    if not paths:
        return ""
    shown = ", ".join(f"`{path}`" for path in paths[:_OWNERS_SHOWN])
    more = f" and {len(paths) - _OWNERS_SHOWN} more" if len(paths) > _OWNERS_SHOWN else ""
    return f" (an option of {shown}{more})"


def _others(
    levels: list[_Level], moved: dict[int, list[_Given]], failed: _Given, target: _Level | None
) -> str:
    """What the message says of the other options moved: ``, as '--top' does``, ``; '--db' goes
    after `skillshelf memory show```."""
    text = ""
    same = [g.name for g in moved[target.at] if g is not failed] if target is not None else []
    if same:
        text += f", as {_quoted(same)} {'does' if len(same) == 1 else 'do'}"
    paths = {level.at: level.path for level in levels}
    for at, options in moved.items():
        if target is None or at != target.at:
            verb = "goes" if len(options) == 1 else "go"
            text += f"; {_quoted([g.name for g in options])} {verb} after `{paths[at]}`"
    return text


def _moved(
    args: list[str], levels: list[_Level], moved: dict[int, list[_Given]], left_out: list[_Given]
) -> str:
    """The command line with each moved option (and its values) right after its command's name,
    and the options of ``left_out`` left out."""
    taken = {
        i
        for g in (*left_out, *(g for options in moved.values() for g in options))
        for i in range(g.start, g.stop)
    }
    words = [levels[0].path]
    for i, word in enumerate(args):
        if i not in taken:
            words.append(word)
        for g in moved.get(i, []):
            words.extend(args[g.start : g.stop])
    return shlex.join(words)
