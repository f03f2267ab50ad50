"""`skillshelf memory show | search`: what agents read from memory here (the scope
``memory.scope`` writes)."""

from __future__ import annotations

import click

from skillshelf.cli.memory_admin import (
    db_option,
    errors_as_json,
    exit_if_skipped,
    json_option,
    memory_settings,
)
from skillshelf.cli.output import TEXT, echo_json, echo_text, printable
from skillshelf.env import Env

__all__ = ["search", "show"]


@click.command("show")
@click.argument("session_id", required=False)
@db_option
@json_option
@errors_as_json
def show(session_id: str | None, db: str | None, as_json: bool) -> None:
    """Show the memory summary agents read here (this project's, or the global one), or the
    memory extracted from SESSION_ID.

    The summary is a file of the memory folder; --db is checked all the same (a database it
    names must exist, ME043), as every memory command checks it."""
    from skillshelf.errors import NotFoundError

    if session_id:
        import time

        from skillshelf.memory.inspect import no_memory_note
        from skillshelf.memory.store import open_store

        env = Env.from_os()
        with open_store(db, data_dir=env.dirs.data, create=False, read_only=True) as store:
            rows = [r for r in store.outputs(session_id=session_id) if r.raw_memory or r.rollout_summary]
            if not rows:  # none, or scrubbed by `memory forget`: say why
                message, fix = no_memory_note(
                    store, memory_settings(env)[0], session_id, now_ms=int(time.time() * 1000)
                )
                raise NotFoundError(message, code="ME404", hint=fix)
        if as_json:
            echo_json(rows[0].to_dict())
            return
        click.echo(f"# {printable(rows[0].session_id)} ({printable(rows[0].scope)})\n")
        echo_text(f"{rows[0].rollout_summary}\n\n{rows[0].raw_memory}")
        return
    from skillshelf.memory.read import memory_folders_for, memory_summary_for

    env = Env.from_os()
    settings, findings = memory_settings(env)
    if db is not None:  # the summary is a file, but a named database that is missing is said
        from skillshelf.memory.store import open_store

        open_store(db, create=False, migrate=False, read_only=True).close()
    setting = settings.scope
    summary = memory_summary_for(env, setting=setting, token_cap=settings.summary_token_cap)
    if summary is None:
        folders = ", ".join(str(f) for _, f in memory_folders_for(env, setting=setting))
        whose = "global memory summary" if setting == "global" else "memory summary for this project"
        raise NotFoundError(
            f"no {whose} yet",
            code="ME405",
            hint=f"run `skillshelf memory run` (looked in {folders})",
        )
    if as_json:
        echo_json(summary.to_dict())
    else:
        echo_text(summary.text)
    exit_if_skipped(findings)


@click.command("search")
@click.argument("query", type=TEXT)
@click.option("--limit", type=click.IntRange(min=1), default=20, show_default=True)
@click.option("--no-usage", is_flag=True, help="Do not count this search as a use of the memories it finds.")
@db_option
@json_option
@errors_as_json
def search(query: str, limit: int, no_usage: bool, db: str | None, as_json: bool) -> None:
    """The quick memory pass: search MEMORY.md and the session summaries (`-`: QUERY from stdin)."""
    from skillshelf.errors import UsageError
    from skillshelf.memory.read import search_memory

    if not query.strip():
        raise UsageError(
            "the query is empty",
            hint='give words to look for, e.g. skillshelf memory search "test command"',
            code="ME018",
        )
    env = Env.from_os()
    settings, findings = memory_settings(env)
    if db and not no_usage:  # a named database that is missing is said, not made
        from skillshelf.memory.store import open_store

        open_store(db, create=False, migrate=False, read_only=True).close()
    hits = search_memory(env, query, setting=settings.scope, limit=limit, record_usage=not no_usage, db=db)
    if as_json:
        echo_json([h.to_dict() for h in hits])
    else:
        for hit in hits:
            click.echo(printable(f"{hit.path}:{hit.line}: {hit.text}"))
        if not hits:
            click.echo("no memory matches", err=True)
    exit_if_skipped(findings)
