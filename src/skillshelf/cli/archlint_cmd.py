"""``skillshelf lint-arch [PATH]``: import layering and size limits, each finding with a FIX."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from skillshelf.cli.output import echo_json
from skillshelf.diagnostics import Severity

__all__ = ["lint_arch"]


@click.command("lint-arch")
@click.argument("path", required=False, type=click.Path(path_type=Path))
@click.option(
    "--config",
    "config_file",
    type=click.Path(path_type=Path, dir_okay=False),
    help="pyproject.toml or archlint.toml to use.",
)
@click.option(
    "--lazy-imports",
    type=click.Choice(["error", "warning", "ignore"]),
    default=None,
    help="How to treat imports inside functions (default: the config's, else error).",
)
@click.option("--strict", is_flag=True, help="Exit 1 on warnings too.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def lint_arch(
    path: Path | None, config_file: Path | None, lazy_imports: str | None, strict: bool, as_json: bool
) -> None:
    """Check that imports only go down the declared layers, and files and functions stay small."""
    from skillshelf.archlint import lint_path
    from skillshelf.env import current_folder

    report = lint_path(path, cwd=current_folder(), config_file=config_file, lazy_imports=lazy_imports)  # type: ignore[arg-type]
    if as_json:
        echo_json(report)
    else:
        colours = {Severity.ERROR: "red", Severity.WARNING: "yellow", Severity.INFO: "cyan"}
        for diag in report.diagnostics:
            where = f"{diag.path}:{diag.line}" if diag.line is not None else str(diag.path)
            label = click.style(diag.severity.value.upper(), fg=colours[diag.severity], bold=True)
            click.echo(f"{where}: {label} {diag.code}: {diag.message}")
            click.echo(f"  FIX: {diag.fix}")
        summary = (
            f"{report.errors} errors, {report.warnings} warnings in {report.files} files "
            f"({report.imports} imports)"
        )
        click.echo(summary, err=bool(report.diagnostics))
    if report.errors or (strict and report.warnings):
        sys.exit(1)
