"""`skillshelf serve`: the MCP server over stdio or streamable HTTP."""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import click

from skillshelf.cli.output import check_roots, source_options
from skillshelf.errors import UsageError

__all__ = ["serve"]

TOKEN_VARIABLE = "SKILLSHELF_MCP_TOKEN"


def _check_token(token: str | None) -> None:
    """Refuse a token given empty (``--token ""``, ``SKILLSHELF_MCP_TOKEN=``, often a variable
    that was never set), which would otherwise serve without authentication."""
    # click reads an empty variable as no value at all, so the variable is looked at here
    given = token if token is not None else os.environ.get(TOKEN_VARIABLE)
    if given is not None and not given.strip():
        raise UsageError(
            f"the bearer token is empty (--token or {TOKEN_VARIABLE})",
            hint=f"pass a non-empty --token, or leave out --token and unset {TOKEN_VARIABLE} to serve "
            "without authentication",
            code="SV400",
        )


@click.command("serve")
@click.option(
    "--transport",
    type=click.Choice(["stdio", "http"]),
    default="stdio",
    show_default=True,
    help="stdio for a client that starts the server; http for a long-running server.",
)
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind (http only).")
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=8765,
    show_default=True,
    help="Port to bind (http only; 0 picks a free one).",
)
@click.option(
    "--root",
    "roots",
    multiple=True,
    type=click.Path(),
    callback=check_roots,
    help="An extra folder to scan for skills (repeatable; a missing one is an error, SK202).",
)
@source_options
@click.option("--no-watch", is_flag=True, help="Do not watch skill folders for changes.")
@click.option(
    "--token",
    envvar=TOKEN_VARIABLE,
    default=None,
    help="Require 'Authorization: Bearer TOKEN' on every HTTP request (env SKILLSHELF_MCP_TOKEN).",
)
@click.option(
    "--no-semantic",
    is_flag=True,
    help="Rank search_skills without the embedding models even when an extra installs them.",
)
@click.option(
    "--client",
    type=click.Choice(["auto", "generic", "claude"]),
    default="auto",
    show_default=True,
    help="Shape the instructions for a client: claude fits Claude Code's 2,048-character cap and "
    "leaves out the skills it lists itself; auto is claude when Claude Code started the server.",
)
def serve(
    transport: str,
    host: str,
    port: int,
    roots: tuple[Path, ...],
    no_builtin: bool,
    no_cache: bool,
    no_watch: bool,
    token: str | None,
    no_semantic: bool,
    client: str,
) -> None:
    """Serve the skills found here over MCP: four tools, the catalog as instructions, every
    skill file as a resource, user-invocable skills as prompts."""
    with _stopped_quietly(transport):
        from concurrent.futures import ThreadPoolExecutor

        from skillshelf.env import Env
        from skillshelf.serve.loading import open_library
        from skillshelf.workspace import WorkspaceOptions

        if transport == "http":
            _check_token(token)
        env = Env.from_os()
        with ThreadPoolExecutor(max_workers=1) as pool:
            # discovery runs while the MCP SDK is being imported (the two dominate start-up)
            options = WorkspaceOptions(
                extra_roots=tuple(p.absolute() for p in roots),
                include_builtin=not no_builtin,
                use_cache=not no_cache,
            )
            pending = pool.submit(open_library, env, options, semantic=not no_semantic)
            from skillshelf.serve.instructions import client_for
            from skillshelf.serve.mcp_server import ServeOptions, build_server, run_stdio

            library = pending.result()
        from skillshelf.skills.walk import ScanLimits
        from skillshelf.skills.walk_limits import limits_from_environ

        limits, _ = limits_from_environ(env.environ, ScanLimits())  # discovery's, for the watcher
        shape = client_for(client, env.environ, transport)
        server = build_server(
            library, ServeOptions(watch=not no_watch, scan_limits=limits, client=shape, env=env)
        )
        problems = len(library.discovery.diagnostics) if library.discovery else 0
        if problems:
            click.echo(
                f"skillshelf: {problems} problem(s) in skill files were skipped or repaired "
                "(see `skillshelf validate`)",
                err=True,
            )
        count = len(library.tools.names())
        skills = "1 skill" if count == 1 else f"{count} skills"
        if transport == "stdio":
            click.echo(f"skillshelf: serving {skills} over MCP on stdio", err=True)
            run_stdio(server)
            # the process ends here: its objects go with it, and freezing them spares the interpreter's
            # collections at exit (over a second for the MCP SDK's models)
            gc.freeze()
            return
        from skillshelf.serve.http import run_http

        def announce(url: str) -> None:
            click.echo(f"skillshelf: serving {skills} over MCP at {url}", err=True)
            sys.stderr.flush()

        run_http(server, host=host, port=port, token=token, announce=announce)


@contextmanager
def _stopped_quietly(transport: str) -> Iterator[None]:
    """Over stdio, a signal is the client stopping its server, no failure to report: exit 130 or
    143 at once, saying nothing (``leave_interrupted``); over HTTP Ctrl-C is left to ``main``."""
    try:
        yield
    except KeyboardInterrupt as stop:
        if transport != "stdio":
            raise
        from skillshelf.cli.interrupt import exit_code_of, leave_interrupted

        leave_interrupted(exit_code_of(stop))
