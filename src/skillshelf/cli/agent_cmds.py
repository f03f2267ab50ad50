"""`skillshelf run TASK` and `skillshelf chat`: the reference agent."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import click

from skillshelf.cli.agent_report import error_line, exit_status, print_json, print_result
from skillshelf.cli.interrupt import Terminated
from skillshelf.cli.output import TEXT, FiniteFloat, echo_json, print_run_findings, root_options
from skillshelf.config.schema import MAX_TOKENS_SETTING, MIN_CONTEXT_WINDOW
from skillshelf.errors import ModelCallError, SkillshelfError, UsageError
from skillshelf.llm import KEY_VARIABLES

__all__ = ["agent_options", "chat", "exit_status", "run"]


def agent_options(func: Any) -> Any:
    """Options shared by `run` and `chat`."""
    func = root_options(func)
    func = click.option(
        "--model",
        envvar="SKILLSHELF_MODEL",
        help="PROVIDER:NAME, e.g. openai:gpt-5.4-mini or anthropic:claude-sonnet-4-5 (env SKILLSHELF_MODEL).",
    )(func)
    func = click.option(
        "--base-url",
        envvar="SKILLSHELF_BASE_URL",
        help="An OpenAI-compatible or Anthropic endpoint (Ollama, vLLM, llama.cpp...).",
    )(func)
    func = click.option(
        "--check",
        "check_command",
        help="The command that verifies the work (default, or when blank: found "
        "from the project: .ci/run, pytest, npm test, cargo test...).",
    )(func)
    func = click.option("--max-turns", type=click.IntRange(1, 500), default=40, show_default=True)(func)
    func = click.option(
        "--timeout",
        type=FiniteFloat(1, 3600),
        default=120.0,
        show_default=True,
        help="Seconds one model call may take (each call is tried 3 times).",
    )(func)
    func = click.option(
        "--context-window",
        type=click.IntRange(MIN_CONTEXT_WINDOW, MAX_TOKENS_SETTING),
        help="The model's window in tokens: the history is compacted to fit it, less the output "
        "limit (default: agent.context_window; without one, compaction past 120,000 tokens).",
    )(func)
    func = click.option(
        "--max-output-tokens",
        type=click.IntRange(1, MAX_TOKENS_SETTING),
        help="Most tokens one reply may take (default: agent.max_output_tokens; without one, 4096 "
        "for anthropic and the server's own for openai).",
    )(func)
    func = click.option("--no-transcript", is_flag=True, help="Do not write a transcript.")(func)
    func = click.option(
        "--shadow-metrics",
        is_flag=True,
        help="Record every selector's candidates per turn "
        "(see `skillshelf stats`; also `agent.shadow_metrics = true` in config).",
    )(func)
    return func


def _options(
    *,
    model: str | None,
    base_url: str | None,
    check_command: str | None,
    max_turns: int,
    timeout: float,
    roots: tuple[Path, ...],
    no_builtin: bool,
    no_cache: bool,
    no_transcript: bool,
    origin: str,
    shadow_metrics: bool = False,
    context_window: int | None = None,
    max_output_tokens: int | None = None,
) -> Any:
    """The agent's options from the values of :func:`agent_options` (and where it runs from)."""
    from skillshelf.agent.guards import GuardSettings
    from skillshelf.agent.providers import parse_model_spec
    from skillshelf.agent.session import AgentOptions
    from skillshelf.context import ContextOptions

    if not model:
        raise UsageError(
            "no model is set", hint="pass --model PROVIDER:NAME or set SKILLSHELF_MODEL", code="AG004"
        )
    spec = parse_model_spec(model)
    if base_url is not None:
        _check_base_url(base_url)
    api_key = os.environ.get(KEY_VARIABLES[spec.provider])
    if api_key is None and base_url is None:
        raise UsageError(
            f"{KEY_VARIABLES[spec.provider]} is not set",
            hint=f"export {KEY_VARIABLES[spec.provider]}=..., or point --base-url at a local server",
            code="AG005",
        )
    return AgentOptions(
        model=model,
        base_url=base_url,
        api_key=api_key,
        timeout=timeout,
        max_turns=max_turns,
        origin=origin,  # type: ignore[arg-type]
        context=ContextOptions(
            extra_roots=tuple(p.absolute() for p in roots),
            include_builtin=not no_builtin,
            use_cache=not no_cache,
        ),
        guards=GuardSettings(check_command=(check_command or "").strip() or None),
        write_transcript=not no_transcript,
        shadow_metrics=shadow_metrics,
        context_window=context_window,
        max_output_tokens=max_output_tokens,
    )


def _check_base_url(url: str) -> None:
    """An ``http://`` or ``https://`` URL with a host, or a usage error before any call."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 (a port that is no number raises here)
    except ValueError:
        parts = None
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
        raise UsageError(
            f"--base-url {url!r} is not an http:// or https:// URL",
            hint="give the server's URL, e.g. --base-url http://127.0.0.1:11434/v1",
            code="AG007",
        )


@click.command("run")
@click.argument("task", type=TEXT)
@agent_options
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def run(task: str, as_json: bool, **values: Any) -> None:
    """Run the reference agent once on TASK in this folder and print its final answer
    (`-`: read TASK from stdin).

    The agent's bash commands run without the variables whose names hold KEY,
    SECRET or TOKEN (any case), and what they print is redacted before the model
    reads it.

    \b
    Exit status:
      0  the agent gave a final answer ("stopped": "answer"), and the check passed or
         no check was needed
      1  the agent did not finish ("stopped" says why): the turn limit ("max_turns";
         raise --max-turns); a reply cut off at the model's output limit ("cut_off"),
         empty ("empty") or a refusal ("refused", its text printed); the same call
         giving the same result a 6th time, no change seen between ("repeating"); or
         the model call failed (AG003; with --json its error is on stdout too)
      1  the agent changed files and the check (--check, or the one found in the
         project) did not pass after its last edit, whatever the final answer says
         (`--json` gives the check's state under "check")
      2  usage: an empty TASK, no --model, no API key, a --base-url that is no
         http(s) URL, a context window too small for the output limit (AG008)
    """
    from skillshelf.agent.loop import require_task
    from skillshelf.agent.session import open_agent
    from skillshelf.env import Env

    try:
        require_task(task)
        options = _options(origin="run", **values)
        agent = open_agent(Env.from_os(), options)
        print_run_findings(agent.findings)
        result = _send(agent, task)
    except SkillshelfError as exc:
        if as_json:
            echo_json(exc.to_dict())
        raise
    if as_json:
        print_json(result)
    else:
        print_result(result)
    sys.exit(exit_status(result))


@click.command("chat")
@agent_options
def chat(**values: Any) -> None:
    """Chat with the reference agent (type `exit` or press Ctrl-D to leave).

    A failed model call is printed with its code and the prompt returns; Ctrl-C during
    a message cancels that message and the prompt returns (Ctrl-C at the prompt
    leaves). The exit status is that of the last message, as for `skillshelf run`: 1
    when it did not end in a final answer (the turn limit, a reply cut off, empty or
    refused, a repeating call, a failed model call), or when the check did not pass
    after the agent's last edit, or when it was cancelled; 0 otherwise (also when no
    message was sent).
    """
    from skillshelf.agent.session import open_agent
    from skillshelf.env import Env

    options = _options(origin="chat", **values)
    agent = open_agent(Env.from_os(), options)
    print_run_findings(agent.findings)
    status = 0
    while True:
        try:
            line = input("skillshelf >> ")
        except EOFError:
            click.echo()
            break
        if line.strip().lower() in {"exit", "quit", "q"}:
            break
        if not line.strip():
            continue
        status = _chat_turn(agent, line)
    sys.exit(status)


def _send(agent: Any, task: str) -> Any:
    """``agent.send(task)``; after a failed model call or an interrupt the turn is closed (its open
    tool calls answered, so a chat can go on) and the transcript says why it stopped."""
    try:
        return agent.send(task)
    except ModelCallError as exc:
        agent.cancel_turn(f"stopped: error {exc.code}: {exc.message}")
        raise
    except KeyboardInterrupt as exc:
        agent.cancel_turn("stopped: terminated" if isinstance(exc, Terminated) else "stopped: interrupted")
        raise


def _chat_turn(agent: Any, line: str) -> int:
    """One message of a chat, its exit status; a failed call or Ctrl-C ends the message only."""
    try:
        result = _send(agent, line)
    except ModelCallError as exc:
        error_line(exc)
        return 1
    except KeyboardInterrupt as exc:
        if isinstance(exc, Terminated):  # SIGTERM ends the session (exit 143)
            raise
        click.echo("\ncancelled: the message was stopped (Ctrl-C at the prompt leaves)", err=True)
        return 1
    print_result(result)
    return exit_status(result)
