"""`skillshelf run TASK` and `skillshelf chat`: the reference agent."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import click

from skillshelf.cli.output import TEXT, echo_json, literal, print_run_findings, root_options, stderr_console
from skillshelf.errors import UsageError
from skillshelf.llm import KEY_VARIABLES


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
        help="The command that verifies the work (default: found "
        "from the project: .ci/run, pytest, npm test, cargo test...).",
    )(func)
    func = click.option("--max-turns", type=click.IntRange(1, 500), default=40, show_default=True)(func)
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
    roots: tuple[Path, ...],
    no_builtin: bool,
    no_cache: bool,
    no_transcript: bool,
    origin: str,
    shadow_metrics: bool = False,
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
        max_turns=max_turns,
        origin=origin,  # type: ignore[arg-type]
        context=ContextOptions(
            extra_roots=tuple(p.absolute() for p in roots),
            include_builtin=not no_builtin,
            use_cache=not no_cache,
        ),
        guards=GuardSettings(check_command=check_command),
        write_transcript=not no_transcript,
        shadow_metrics=shadow_metrics,
    )


@click.command("run")
@click.argument("task", type=TEXT)
@agent_options
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def run(task: str, as_json: bool, **values: Any) -> None:
    """Run the reference agent once on TASK in this folder and print its final answer
    (`-`: read TASK from stdin).

    \b
    Exit status:
      0  the agent gave a final answer ("stopped": "answer"), and the check passed or
         no check was needed
      1  the agent did not finish: the turn limit stopped it before a final answer
         ("stopped": "max_turns"; raise --max-turns), or the model call failed
      1  the agent changed files and the check (--check, or the one found in the
         project) did not pass after its last edit, whatever the final answer says
         (`--json` gives the check's state under "check")
      2  usage: an empty TASK, no --model, no API key
    """
    from skillshelf.agent.loop import require_task
    from skillshelf.agent.session import open_agent
    from skillshelf.env import Env

    require_task(task)
    options = _options(origin="run", **values)
    agent = open_agent(Env.from_os(), options)
    print_run_findings(agent.findings)
    result = agent.send(task)
    if as_json:
        echo_json(
            {
                "final_text": result.final_text,
                "stopped": result.stopped,
                "model_calls": result.model_calls,
                "tool_calls": result.tool_calls,
                "transcript": result.transcript,
                "events": [{"kind": e.kind, "detail": e.detail} for e in result.events],
                "check": result.check.to_dict(),
            }
        )
    else:
        click.echo(result.final_text)
        _report(result)
    sys.exit(exit_status(result))


def exit_status(result: Any) -> int:
    """0 for a final answer the check (if one was needed) stands behind; 1 for every other
    stop (the turn limit, or a check that did not pass after the last edit)."""
    if result.stopped != "answer":
        return 1
    return 1 if result.check.required and result.check.unverified else 0


def _report(result: Any) -> None:
    console = stderr_console()
    for event in result.events:
        console.print(f"[dim]{event.kind}: {literal(event.detail.splitlines()[0])}[/dim]")
    if result.stopped == "max_turns":
        console.print("[yellow]stopped: the turn limit was reached (raise --max-turns)[/yellow]")
    check = result.check
    if check.required and check.unverified:
        if check.status != "failed":
            how = "was not run after the last edit"
        elif check.exit_code is None:
            how = f"counts as failed: {check.reason}" if check.reason else "failed"
        else:
            how = f"failed (exit code {check.exit_code})"
        console.print(f"[yellow]not verified: `{literal(check.command)}` {how}[/yellow]", highlight=False)
    if result.transcript:
        console.print(f"[dim]transcript: {literal(result.transcript)}[/dim]")


@click.command("chat")
@agent_options
def chat(**values: Any) -> None:
    """Chat with the reference agent (type `exit` or press Ctrl-D to leave).

    The exit status is that of the last message, as for `skillshelf run`: 1 when the turn
    limit stopped it before a final answer, or when the check did not pass after the
    agent's last edit; 0 otherwise (also when no message was sent).
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
        result = agent.send(line)
        click.echo(result.final_text)
        _report(result)
        status = exit_status(result)
    sys.exit(status)
