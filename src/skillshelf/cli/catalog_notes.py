"""The catalog report for people, and its warning as a coded finding (`catalog`, `context`).

The renderer makes the warning, with its code and fix, when the model gets less than every skill
(:class:`skillshelf.skills.catalog.report.CatalogWarning`); its report carries them as data
(``warning_code``, ``warning_message``, ``warning_fix``), turned here into a
:class:`~skillshelf.diagnostics.Diagnostic`:

* ``SK380`` the catalog is over its budget: skills were left out, listed by name only, or their
  descriptions shortened (the fix: a larger budget, fewer skills, or per-task suggestions);
* ``SK381`` there is no catalog at all: ``skills.include_instructions = false`` (skillshelf's
  config, else Codex's) keeps the list of skills from the model.
"""

from __future__ import annotations

from collections.abc import Mapping

from skillshelf.diagnostics import Diagnostic, Severity

__all__ = ["catalog_warning", "print_catalog_report"]


def catalog_warning(report: Mapping[str, object]) -> Diagnostic | None:
    """The report's warning (``CatalogReport.to_dict``: its code, message and fix) as a finding,
    ``SK380`` or ``SK381``; None when the catalog holds every skill whole."""
    code, message, fix = (report.get(key) for key in ("warning_code", "warning_message", "warning_fix"))
    if not (isinstance(code, str) and code and isinstance(message, str) and isinstance(fix, str)):
        return None
    return Diagnostic(code=code, severity=Severity.WARNING, message=message, fix=fix)


def print_catalog_report(report: Mapping[str, object], found: int) -> None:
    """One dim summary line, the skills the budget cut, and the coded warning, on stderr (plain
    click: no rich import); ``found``: the skills found, for a report of no catalog at all."""
    import click

    from skillshelf.cli.output import print_diagnostics, printable
    from skillshelf.skills.catalog.report import cut_summary

    if not report:
        click.echo(click.style(f"{found} skill(s) found, none listed", dim=True), err=True)
        return
    budget_info = report.get("budget")
    budget = ""
    if isinstance(budget_info, dict):
        used, limit, unit = budget_info.get("used"), budget_info.get("limit"), budget_info.get("unit")
        if isinstance(used, int) and isinstance(limit, int):
            budget = f"; {used:,} of {limit:,} {unit} used"
    summary = (
        f"catalog: {report.get('included')} of {report.get('total')} skill(s) listed, "
        f"{report.get('omitted')} omitted, "
        f"{report.get('truncated_chars')} description character(s) cut{budget}"
    )
    click.echo(click.style(summary, dim=True), err=True)
    for line in cut_summary(report):
        click.echo(click.style(printable(line), dim=True), err=True)
    warning = catalog_warning(report)
    if warning is not None:
        print_diagnostics([warning])
