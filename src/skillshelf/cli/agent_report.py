"""What `skillshelf run` and `chat` print about a message's result: the final answer (through
:func:`~skillshelf.cli.output.echo_text`, so a model's escape sequences never reach a terminal),
why it stopped when it stopped before one, the harness's events, the state of the check."""

from __future__ import annotations

from typing import Any

import click

from skillshelf.cli.output import echo_json, echo_text, literal, shown, stderr_console

__all__ = ["STOPS", "error_line", "exit_status", "print_json", "print_result"]

#: Why a message stopped before a final answer, as the user reads it (`--json`: "stopped").
STOPS: dict[str, str] = {
    "max_turns": "the turn limit was reached before a final answer (raise --max-turns)",
    "cut_off": "the model's reply was cut off at its output limit, so it is no final answer "
    "(ask for less at a time)",
    "empty": "the model replied with neither text nor a tool call",
    "refused": "the model refused (its reply is printed above)",
    "repeating": "the model kept making the same call with the same result, after a note to wait "
    "longer or change approach",
}


def exit_status(result: Any) -> int:
    """0 for a final answer the check (if one was needed) stands behind; 1 for every other
    stop (the turn limit, a reply that is no answer, a loop, or a check that did not pass after
    the last edit)."""
    if result.stopped != "answer":
        return 1
    return 1 if result.check.required and result.check.unverified else 0


def print_json(result: Any) -> None:
    echo_json(
        {
            "final_text": result.final_text,
            "stopped": result.stopped,
            "stop_detail": result.stop_detail,
            "model_calls": result.model_calls,
            "tool_calls": result.tool_calls,
            "transcript": result.transcript,
            "events": [{"kind": e.kind, "detail": e.detail} for e in result.events],
            "check": result.check.to_dict(),
        }
    )


def print_result(result: Any) -> None:
    """The final answer (or the last text) on stdout, the rest on stderr."""
    if result.final_text or result.stopped == "answer":
        echo_text(result.final_text)
    console = stderr_console()
    for event in result.events:
        console.print(f"[dim]{event.kind}: {literal(event.detail.splitlines()[0])}[/dim]", highlight=False)
    if result.stopped in STOPS:
        detail = f": {literal(result.stop_detail)}" if result.stop_detail else ""
        console.print(f"[yellow]stopped: {STOPS[result.stopped]}{detail}[/yellow]", highlight=False)
    check = result.check
    if check.required and check.unverified:
        if check.status != "failed":
            how = (
                f"was not run after the last edit: {check.reason}"
                if check.reason
                else "was not run after the last edit"
            )
        elif check.exit_code is None:
            how = f"counts as failed: {check.reason}" if check.reason else "failed"
        else:
            how = f"failed (exit code {check.exit_code})"
        console.print(f"[yellow]not verified: `{literal(check.command)}` {how}[/yellow]", highlight=False)
    if result.transcript:
        console.print(f"[dim]transcript: {literal(result.transcript)}[/dim]")


def error_line(exc: Any) -> None:
    """A coded error on stderr, as ``cli/main.py`` prints one, for a session that goes on."""
    click.echo(f"skillshelf: error {exc.code}: {shown(exc.message)}", err=True)
    if exc.hint:
        click.echo(f"  fix: {shown(exc.hint)}", err=True)
