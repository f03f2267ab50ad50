"""`skillshelf ui`: the local page that shows what the model sees here, what was cut and why."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import click

from skillshelf.cli.output import print_diagnostics, root_options
from skillshelf.diagnostics import Severity

__all__ = ["ui"]


def _open_in_browser(url: str, folder: Path) -> None:
    """Open ``url`` through a private redirect file, so that the token does not show in the
    browser's command line (``ps``) the way a URL argument would."""
    import html
    import webbrowser

    page = folder / "open.html"
    fd = os.open(page, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(
            '<!doctype html><meta charset="utf-8"><meta http-equiv="refresh" '
            f'content="0;url={html.escape(url)}"><a href="{html.escape(url)}">Open skillshelf</a>\n'
        )
    if not webbrowser.open(page.as_uri()):
        click.echo("skillshelf: no browser could be started; open the URL above by hand", err=True)


@click.command("ui")
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=0,
    show_default=True,
    help="Port on 127.0.0.1 (0 picks a free one).",
)
@root_options
@click.option("--open", "open_browser", is_flag=True, help="Open the page in the default browser.")
@click.option("--no-watch", is_flag=True, help="Do not follow changes to the skill folders.")
@click.option(
    "--no-semantic", is_flag=True, help="Rank tasks without the embedding models even when installed."
)
def ui(
    port: int,
    roots: tuple[Path, ...],
    no_builtin: bool,
    no_cache: bool,
    open_browser: bool,
    no_watch: bool,
    no_semantic: bool,
) -> None:
    """Serve a page on 127.0.0.1 that shows what the model sees here: the context budget and
    what it cut, a task tried against the ranking, problems, memory and usage.

    The page needs the random token in the printed URL. It reads what `skillshelf context`
    reads (skill roots, config, AGENTS.md / CLAUDE.md, the memory folder) and the usage log;
    its one write is forgetting a memory, after asking. Ctrl-C stops it (exit 130), SIGTERM too
    (exit 143).
    """
    from skillshelf.cli.interrupt import exit_code_of
    from skillshelf.env import Env
    from skillshelf.serve.ui import UiOptions, UiServer
    from skillshelf.workspace import WorkspaceOptions

    options = UiOptions(
        workspace=WorkspaceOptions(
            extra_roots=tuple(p.absolute() for p in roots),
            include_builtin=not no_builtin,
            use_cache=not no_cache,
        ),
        semantic=False if no_semantic else None,
    )
    server = UiServer(Env.from_os(), options, port=port, watch=not no_watch)
    code = 0  # 130 after Ctrl-C, 143 after SIGTERM
    try:  # from the moment the URL can show: a signal may come at once
        workspace = server.state.snapshot.workspace
        print_diagnostics(d for d in workspace.config.diagnostics if d.severity is not Severity.INFO)
        click.echo(f"skillshelf ui: {len(workspace.discovery.skills)} skills; open {server.url}")
        click.echo("(the token in the URL is the key to the page; Ctrl-C stops the server)", err=True)
        sys.stdout.flush()
        with tempfile.TemporaryDirectory(prefix="skillshelf-ui-") as folder:
            if open_browser:
                _open_in_browser(server.url, Path(folder))
            server.serve_forever()
    except KeyboardInterrupt as stop:
        server.close()
        click.echo("skillshelf ui: stopped", err=True)
        code = exit_code_of(stop)
    if code:
        sys.exit(code)
