"""``skillshelf hook-server start|stop|status``: the warm process behind the hooks
(:mod:`skillshelf.hooks.server`)."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Mapping
from typing import Any

import click

from skillshelf.cli.output import FiniteFloat
from skillshelf.env import Env

__all__ = ["ask_server_status", "hook_server"]


@click.group("hook-server")
def hook_server() -> None:
    """The warm process that answers Codex's and Claude Code's hooks.

    A hook that finds no server answers by itself and starts one in the background (set
    `[hooks] server = false`, or SKILLSHELF_HOOK_SERVER=0, to do without). The server answers
    as the hook would, from the hook's own environment and folder; it leaves after
    `[hooks] server_idle_minutes` (30) without a hook, or when skillshelf is upgraded.
    """


@hook_server.command("start")
@click.option(
    "--idle-minutes",
    type=FiniteFloat(min=0, min_open=True),
    default=None,
    help="Leave after this long without a hook (default: [hooks] server_idle_minutes, 30).",
)
def start(idle_minutes: float | None) -> None:
    """Serve hooks in the foreground until idle (the hooks start it detached themselves)."""
    from skillshelf.config import load_config
    from skillshelf.hooks.server import serve
    from skillshelf.hooks.settings import HookSettings

    env = Env.from_os()
    minutes = idle_minutes or HookSettings.from_config(load_config(env)).server_idle_minutes

    def ready(state: Any) -> None:
        click.echo(f"hook server {os.getpid()} listening at {state.address.socket}", err=True)
        threading.Thread(target=_warm, args=(env,), name="warm-up", daemon=True).start()

    if not serve(env, idle_seconds=minutes * 60, on_ready=ready):
        click.echo("a hook server is already running for these folders", err=True)


def _warm(env: Env) -> None:
    """Load the models and the index of the folder that started the server (beside the first
    calls), so that its first hook is answered warm; a failure is only reported."""
    from skillshelf.errors import SkillshelfError
    from skillshelf.hooks.turn import warm_index

    try:
        warm_index(env)
    except SkillshelfError as exc:
        click.echo(f"warning: no warm-up ({exc.code}: {exc.message})", err=True)
    except OSError as exc:
        click.echo(f"warning: no warm-up ({exc})", err=True)


@hook_server.command("stop")
def stop() -> None:
    """Stop the running hook server (the next hook answers by itself and starts a new one)."""
    reply = _ask("stop", os.environ)
    click.echo("stopped the hook server" if reply is not None else "no hook server is running")


@hook_server.command("status")
@click.option("--json", "as_json", is_flag=True, help="Print JSON for programs.")
def status(as_json: bool) -> None:
    """Whether a hook server is running, since when, and how many hooks it answered."""
    reply = ask_server_status()
    if as_json:
        click.echo(json.dumps({"running": reply is not None, **(reply or {})}, indent=2))
        return
    if reply is None:
        click.echo("no hook server is running")
        return
    click.echo(
        f"hook server {reply['pid']} at {reply['socket']}: {reply['calls']} hooks answered, "
        f"idle {reply['idle_s']:g} s of {reply['idle_limit_s']:g} s, peak memory "
        f"{reply['peak_rss_kb'] // 1024} MB, code {reply['code']}"
    )


def ask_server_status() -> dict[str, Any] | None:
    """The running server's status, None when none answers."""
    return _ask("status", os.environ)


def _ask(command: str, environ: Mapping[str, str]) -> dict[str, Any] | None:
    from skillshelf.cli.hook_client import PROTOCOL, TIMED_OUT, server_call

    reply = server_call({"protocol": PROTOCOL, "command": command}, b"", environ=environ, wait=5.0)
    if reply is None or reply == TIMED_OUT:
        return None
    try:
        data = json.loads(reply)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None
