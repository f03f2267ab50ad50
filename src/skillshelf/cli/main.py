"""The `skillshelf` command: a lazy click group.

Each area owns one module under ``skillshelf.cli`` with its commands; this file only maps
command names to ``module:attribute`` and turns :class:`~skillshelf.errors.SkillshelfError`
into a message and an exit code in one place (0 ok, 1 problems found / failure, 2 usage); a
failed write to stdout is one too (:class:`StdoutFailed`: exit 0 when the reader left the pipe).
Commands are imported only when invoked, so ``skillshelf --help`` stays fast.
"""

from __future__ import annotations

import errno
import importlib
import io
import os
import sys
from typing import Any

import click

from skillshelf.cli.blas import one_blas_thread
from skillshelf.cli.interrupt import exit_code_of, leave_interrupted, sigterm_as_interrupt
from skillshelf.errors import SkillshelfError, StdoutFailed

# name -> (module, attribute, one-line help shown by `skillshelf --help`)
COMMANDS: dict[str, tuple[str, str, str]] = {
    "context": (
        "skillshelf.cli.context_cmd",
        "context",
        "What the model would get for TASK here (the main job).",
    ),
    "list": ("skillshelf.cli.skills_cmds", "list_cmd", "List the skills found here."),
    "validate": (
        "skillshelf.cli.skills_cmds",
        "validate",
        "Check skills against the spec, Codex or Claude Code.",
    ),
    "catalog": ("skillshelf.cli.skills_cmds", "catalog", "Print the budgeted skills catalog the model sees."),
    "load": ("skillshelf.cli.load_cmd", "load", "Load one skill as the model would get it."),
    "search": ("skillshelf.cli.select_cmds", "search", "Rank skills against a query."),
    "eval": ("skillshelf.cli.select_cmds", "eval_cmd", "Measure skill selection on a query file."),
    "stats": ("skillshelf.cli.select_cmds", "stats", "Per-selector hit rates over real usage."),
    "instructions": ("skillshelf.cli.config_cmds", "instructions", "Print the AGENTS.md / CLAUDE.md layers."),
    "config": ("skillshelf.cli.config_cmds", "config", "Show skillshelf's merged configuration."),
    "trust": ("skillshelf.cli.config_cmds", "trust", "Trust a project so its config takes effect."),
    "untrust": ("skillshelf.cli.config_cmds", "untrust", "Stop trusting a project."),
    "enable": ("skillshelf.cli.mode_cmds", "enable", "Enable a skill (edits the config layer)."),
    "disable": ("skillshelf.cli.mode_cmds", "disable", "Disable a skill (edits the config layer)."),
    "install": (
        "skillshelf.cli.install_cmds",
        "install",
        "Install skills from a folder, git URL or archive.",
    ),
    "update": ("skillshelf.cli.manage_cmds", "update", "Update installed skills from their sources."),
    "remove": ("skillshelf.cli.manage_cmds", "remove", "Remove installed skills."),
    "deps": ("skillshelf.cli.install_cmds", "deps", "MCP servers that skills declare."),
    "serve": ("skillshelf.cli.serve_cmds", "serve", "Run the MCP server."),
    "ui": ("skillshelf.cli.ui_cmd", "ui", "A local page: what the model sees, what was cut and why."),
    "run": ("skillshelf.cli.agent_cmds", "run", "Run the reference agent on one task."),
    "chat": ("skillshelf.cli.agent_cmds", "chat", "Chat with the reference agent."),
    "lint-arch": ("skillshelf.cli.archlint_cmd", "lint_arch", "Check import layering and size limits."),
    "memory": ("skillshelf.cli.memory_cmds", "memory", "Distil agent sessions into memories."),
    "setup": ("skillshelf.cli.hook_cmds", "setup", "Set skillshelf up inside Codex or Claude Code (hooks)."),
    "hook": ("skillshelf.cli.hook_cmds", "hook", "Answer one Codex / Claude Code hook call (stdin JSON)."),
    "hook-server": ("skillshelf.cli.hook_server_cmds", "hook_server", "The warm process that answers hooks."),
    "redact": ("skillshelf.cli.memory_cmds", "redact", "Redact secrets from stdin to stdout."),
}


class LazyGroup(click.Group):
    """A group whose subcommands are imported on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        entry = COMMANDS.get(cmd_name)
        if entry is None:
            return None
        module_name, attribute, _ = entry
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name and exc.name.startswith("skillshelf"):
                return None
            raise
        command = getattr(module, attribute, None)
        return command if isinstance(command, click.Command) else None

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, COMMANDS[name][2]) for name in sorted(COMMANDS)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="skillshelf")
def cli() -> None:
    """skillshelf: the knowledge layer for coding agents.

    Finds Agent Skills where Codex and Claude Code look, renders the budgeted catalog the
    model sees, ranks skills against the task, layers AGENTS.md and config, serves it all
    over MCP, and distils agent sessions into memories.
    """


_CLICK_CODES: dict[type[click.ClickException], str] = {click.FileError: "SS005"}


def _shown(text: str) -> str:
    """An error line as printed: capped in length, control characters made visible."""
    from skillshelf.cli.output import shown

    return shown(text)


def _did_you_mean(exc: click.UsageError) -> str:
    """`` Did you mean 'list'?`` for a mistyped subcommand of any group, else ``""``."""
    import re

    typed = re.fullmatch(r"No such command '(.*)'\.", exc.format_message())
    if typed is None or exc.ctx is None or not isinstance(exc.ctx.command, click.Group):
        return ""
    import difflib  # only for a mistyped command

    names = exc.ctx.command.list_commands(exc.ctx)
    close = difflib.get_close_matches(typed.group(1), names, n=3, cutoff=0.6)
    return f" Did you mean {' or '.join(repr(name) for name in close)}?" if close else ""


_JSON_ERROR_COMMANDS = frozenset({"memory", "install", "update", "remove", "run"})
"""The commands that, given ``--json``, print every fatal error on stdout as a JSON object."""


def _show_usage_error(exc: click.UsageError, args: list[str]) -> None:
    """Click's usage line, then the error with a code and a fix, like every other error; a
    command of :data:`_JSON_ERROR_COMMANDS` given ``--json`` prints it on stdout too, as a JSON
    object, as it prints every other fatal error (an option before the command's name: the
    command the line runs, given ``--json`` anywhere before ``--``, when it takes ``--json``)."""
    ctx = exc.ctx
    if ctx is not None:
        click.echo(ctx.get_usage(), err=True)
    command = ctx.command_path if ctx is not None else "skillshelf"
    message = f"{exc.format_message()}{_did_you_mean(exc)}"
    fix = f"run `{command} --help` to see the arguments and options it takes"
    from skillshelf.cli.misplaced import misplaced_option

    misplaced = misplaced_option(exc, args)
    takes_json = True  # click's own errors: the command click was reading
    if misplaced is not None:  # the command the line runs, wherever its options were given
        message, fix, command = misplaced.message, misplaced.fix, misplaced.runs
        takes_json = misplaced.takes_json
    click.echo(f"skillshelf: error SS002: {_shown(message)}", err=True)
    click.echo(f"  fix: {fix}", err=True)
    options = args[: args.index("--")] if "--" in args else args
    if set(command.split()[1:2]) & _JSON_ERROR_COMMANDS and takes_json and "--json" in options:
        from skillshelf.cli.output import echo_json

        echo_json({"error": "UsageError", "code": "SS002", "message": message, "fix": fix})


def _agent_hook(ctx: click.Context | None) -> bool:
    """Whether the command line is ``skillshelf hook ...``, which an agent runs: it exits 0
    whatever its arguments (Claude Code reads exit 2 from ``UserPromptSubmit`` as "block this
    prompt", so a hook written by a newer skillshelf must not stop the user's every prompt)."""
    return ctx is not None and ctx.command_path.split()[1:2] == ["hook"]


class _GuardedStdout(io.RawIOBase):
    """File descriptor 1 for ``sys.stdout``: a failed write raises :class:`StdoutFailed` once;
    what is written after that is dropped (the failure has been reported)."""

    def __init__(self, *, is_open: bool) -> None:
        super().__init__()
        self._open = is_open
        self.failed: OSError | None = None  # the first failed write's error
        self.reported = False  # that failure has been said (or the process left for it)

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return 1

    def isatty(self) -> bool:
        return self._open and os.isatty(1)

    def write(self, data: Any) -> int:
        if self.failed:
            return len(data)
        try:
            if not self._open:
                raise OSError(errno.EBADF, "stdout is closed")
            return os.write(1, data)  # a short write is BufferedWriter's to finish
        except OSError as exc:
            self.failed = exc
            raise StdoutFailed(exc) from exc


def _guard_stdout() -> bool:
    """Put :class:`_GuardedStdout` under ``sys.stdout`` when it is the process's own (not a
    test's capture), with its encoding; a closed descriptor 1 gets ``/dev/null``, so that no file
    opened later takes its number (and a child process's output). False when it left
    ``sys.stdout`` alone."""
    original = sys.stdout
    if original is not None and original is not sys.__stdout__:
        return False
    if original is None:
        spare = os.open(os.devnull, os.O_WRONLY)
        if spare != 1:
            os.dup2(spare, 1)
            os.close(spare)
    else:
        original.flush()
    raw = _GuardedStdout(is_open=original is not None)
    sys.stdout = io.TextIOWrapper(
        io.BufferedWriter(raw),
        encoding=original.encoding if original is not None else "utf-8",
        errors=original.errors if original is not None else "strict",
        line_buffering=original.line_buffering if original is not None else False,
        write_through=original.write_through if original is not None else False,  # python -u
    )
    return True


def _guarded_raw() -> _GuardedStdout | None:
    raw = getattr(getattr(sys.stdout, "buffer", None), "raw", None)
    return raw if isinstance(raw, _GuardedStdout) else None


def _output_failed(exc: StdoutFailed) -> None:
    """Exit 0 on a closed pipe (the reader has all it wanted: ``| head``); any other write error
    is a coded message, exit 1."""
    raw = _guarded_raw()
    if raw is not None:
        raw.reported = True
    if exc.error.errno == errno.EPIPE:
        sys.exit(0)
    if exc.error.errno == errno.EBADF:
        message = "cannot write the output: stdout is closed"
        hint = "run the command with its output open (not `>&-`); to drop the output, `>/dev/null`"
    else:
        from skillshelf.errors import reason

        message = f"cannot write the output: {reason(exc.error)}"
        hint = "send the output where it can be written (free some space, or another file or a pipe)"
    click.echo(f"skillshelf: error SS007: {_shown(message)}", err=True)
    click.echo(f"  fix: {hint}", err=True)
    sys.exit(1)


def main(argv: list[str] | None = None) -> Any:
    """Console-script entry point: one place where errors become messages and exit codes."""
    one_blas_thread()
    guarded = _guard_stdout()
    try:
        return _main(argv)
    finally:
        if guarded:
            _finish_stdout()


def _finish_stdout() -> None:
    """Flush the guarded stdout (its failure reported like any other write's); writes after this
    (the interpreter's own flush at exit) can only be dropped."""
    try:
        sys.stdout.flush()
    except StdoutFailed as exc:
        _output_failed(exc)
    raw = _guarded_raw()
    if raw is not None and raw.failed is not None and not raw.reported:
        _output_failed(StdoutFailed(raw.failed))  # a failure some code swallowed (input()'s flush)


def _main(argv: list[str] | None) -> Any:
    # NO_COLOR (no-color.org): click.echo then drops the styles of every command's lines, as rich
    # drops its colours by itself
    extra: dict[str, Any] = {"color": False} if os.environ.get("NO_COLOR") else {}
    try:
        with sigterm_as_interrupt():  # SIGTERM takes Ctrl-C's way out (exit 143)
            return cli.main(args=argv, prog_name="skillshelf", standalone_mode=False, **extra)
    except StdoutFailed as exc:
        _output_failed(exc)
    except SkillshelfError as exc:
        click.echo(f"skillshelf: error {exc.code}: {_shown(exc.message)}", err=True)
        if exc.hint:
            click.echo(f"  fix: {_shown(exc.hint)}", err=True)
        sys.exit(exc.exit_code)
    except click.exceptions.Abort as exc:  # click's word for Ctrl-C or SIGTERM (and EOF at a prompt)
        click.echo("Aborted.", err=True)
        leave_interrupted(exit_code_of(exc.__cause__ or exc))
    except click.exceptions.NoArgsIsHelpError as exc:
        exc.show()
        sys.exit(2)
    except click.UsageError as exc:
        _show_usage_error(exc, sys.argv[1:] if argv is None else argv)
        sys.exit(0 if _agent_hook(exc.ctx) else 2)
    except click.ClickException as exc:
        click.echo(
            f"skillshelf: error {_CLICK_CODES.get(type(exc), 'SS001')}: {_shown(exc.format_message())}",
            err=True,
        )
        click.echo("  fix: check the path and its permissions", err=True)
        sys.exit(exc.exit_code)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except BrokenPipeError:
        sys.exit(0)
    except KeyboardInterrupt as exc:
        leave_interrupted(exit_code_of(exc))
    except ExceptionGroup as group:  # a task group's (the MCP server's stdio writer)
        failed = _stdout_failure(group)
        if failed is None:
            report_internal_error(group)
        else:
            _output_failed(failed)
    except Exception as exc:  # a bug: say so plainly; the traceback is one variable away
        report_internal_error(exc)


def _stdout_failure(group: BaseExceptionGroup[BaseException]) -> StdoutFailed | None:
    """The first :class:`StdoutFailed` in ``group`` (nested groups searched), else None."""
    for inner in group.exceptions:
        if isinstance(inner, StdoutFailed):
            return inner
        if isinstance(inner, BaseExceptionGroup):
            found = _stdout_failure(inner)
            if found is not None:
                return found
    return None


def report_internal_error(exc: Exception) -> None:
    """Say that ``exc`` is a bug and exit 1 (``SKILLSHELF_DEBUG`` set: re-raise it instead);
    call from an ``except`` block."""
    if os.environ.get("SKILLSHELF_DEBUG"):
        raise exc
    click.echo(f"skillshelf: internal error: {type(exc).__name__}: {exc}", err=True)
    click.echo(
        "  fix: this is a bug in skillshelf; rerun with SKILLSHELF_DEBUG=1 to see the traceback "
        "and report it",
        err=True,
    )
    sys.exit(1)


if __name__ == "__main__":
    sys.exit(main())  # as the console script does: a command's ``ctx.exit(code)`` is returned
