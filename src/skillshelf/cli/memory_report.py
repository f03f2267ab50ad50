"""What `skillshelf memory run` prints for people: the run's report, the jobs recovered or
skipped, and when failed jobs are tried again."""

from __future__ import annotations

from typing import Any

import click

from skillshelf.cli.output import echo_text, printable

__all__ = ["print_recovered_and_skipped", "print_report", "retry_notes"]


def retry_notes(exhausted: list[str], failures: int) -> list[str]:
    """When the failed jobs are tried again: after a backoff, or, for those with no retries
    left, once their input changes."""
    notes = [
        f"{printable(key)}: no retries left; "
        + (
            "consolidated again once a new memory arrives"
            if key == "global" or key.startswith("project:")
            else "extracted again once its transcript changes (`touch` it to try again)"
        )
        for key in exhausted
    ]
    if failures > len(exhausted):
        others = "the other failed jobs are" if exhausted else "failed jobs are"
        notes.append(f"{others} tried again after a backoff (`skillshelf memory status`)")
    return notes


_HELD_BACK = {
    "backoff": "not run: waiting out the backoff after a failed consolidation "
    "(`skillshelf memory status` shows the error)",
    "gave_up": "not run: no retries left after failed consolidations, until a new memory arrives "
    "(`skillshelf memory status` shows the error)",
    "other_database": "not run: its memory folder holds what another memory database consolidated "
    "(ME053, below)",
}


def print_report(data: dict[str, Any], *, dry_run: bool, phase: str) -> None:
    echo = click.echo
    if not data["files"] and data["searched"]:
        echo(f"no transcripts found; looked in {', '.join(printable(p) for p in data['searched'])}", err=True)
    elif not data["files"]:
        echo("no transcripts found: the agents' hooks queued none (`skillshelf setup` adds them)", err=True)
    if dry_run:
        if data["queue"]["queued"]:
            echo(f"queued by hooks: {data['queue']['queued']} (taken without waiting for the idle window)")
        for item in data["dry_run"]:
            head = " ".join(printable(str(item[k])) for k in ("source", "session_id"))
            click.echo(f"===== {head} -> {printable(str(item['model']))} =====")
            echo_text(str(item["prompt"]))
        click.echo(f"dry run: {len(data['dry_run'])} prompt(s) would be sent; nothing was claimed or called")
        print_recovered_and_skipped(data)
        return
    phase1 = data["phase1"]
    if data["queue"]["queued"]:
        echo(f"queued by hooks: {data['queue']['queued']}, {data['queue']['done']} done with")
    echo(
        f"transcripts: {data['files']} found, {data['registered']} new or changed, "
        f"{len(data['unreadable'])} unreadable, {data['skipped_lines']} broken line(s) skipped"
    )
    if phase != "2":
        echo(
            f"phase 1: {data['claimed']} claimed, {phase1.get('extracted', 0)} extracted, "
            f"{phase1.get('no_output', 0)} with nothing to keep, {phase1.get('failed', 0)} failed, "
            f"{phase1.get('lost_lease', 0)} lost to another worker; {data['pruned']} pruned"
        )
    elif data["pruned"]:
        echo(f"pruned {data['pruned']} unused memory row(s)")
    if phase1.get("gone"):
        echo(f"phase 1: {phase1['gone']} transcript(s) deleted since they were found, closed unread")
    for item in data["phase2"]:
        _print_consolidation(item)
    budget = f" of {data['budget']}" if data["budget"] is not None else ""
    echo(f"model calls: {data['model_calls']}{budget}")
    print_recovered_and_skipped(data)


def _print_consolidation(item: dict[str, Any]) -> None:
    """One scope's line of Phase 2, and its notes."""
    echo = click.echo
    if item["status"] in _HELD_BACK:
        echo(f"phase 2: {printable(item['scope'])}: {_HELD_BACK[item['status']]}")
        return
    by = f" by the {item['consolidator']} consolidator" if item.get("consolidator") else ""
    echo(
        f"phase 2: {printable(item['scope'])}: {item['status']}{by} (selected {item['selected']}, added "
        f"{item['added']}, retained {item['retained']}, removed {item['removed']}) -> {item['folder']}"
    )
    if item.get("set_aside"):
        echo(f"  the folder another memory database consolidated: moved to {printable(item['set_aside'])}")
    for refused in item.get("refused") or ():
        echo(f"  refused tool call: {printable(str(refused))}")
    for kept in item.get("kept") or ():
        echo(f"  {printable(str(kept))}")


def print_recovered_and_skipped(data: dict[str, Any]) -> None:
    for lease in data["recovered"]:
        click.echo(f"recovered {lease['kind']} {printable(str(lease['key']))}: {lease['reason']}")
    for item in data["skipped"][:10]:
        state = item["state"].replace("_", " ")
        click.echo(f"skipped {printable(item['id'])} ({state}): {printable(str(item['reason']))}")
    if len(data["skipped"]) > 10:
        click.echo(
            f"... and {len(data['skipped']) - 10} more skipped (`skillshelf memory status` lists them)"
        )
