"""The catalog report for people, and its warning as a coded finding (`catalog`, `context`).

The renderer says in its report (``warning``) when the model gets less than every skill:

* ``SK380`` the catalog is over its budget: skills were left out, listed by name only, or their
  descriptions shortened (the fix: a larger budget, fewer skills, or per-task suggestions);
* ``SK381`` there is no catalog at all: ``skills.include_instructions = false`` (skillshelf's
  config, else Codex's) keeps the list of skills from the model.
"""

from __future__ import annotations

from collections.abc import Mapping

from skillshelf.diagnostics import Diagnostic, Severity

__all__ = ["catalog_warning", "print_catalog_report"]

_OVER_BUDGET_FIX = " To fit more, "
"""Where the budget warning's fix starts (:func:`skillshelf.skills.catalog.report.budget_warning`)."""

_WITHHELD = "no skills catalog: "
"""How the warning of a catalog switched off starts (:func:`skillshelf.skills.catalog.withheld_catalog`)."""


def catalog_warning(report: Mapping[str, object]) -> Diagnostic | None:
    """The report's ``warning`` (``CatalogReport.to_dict``) as ``SK380`` or ``SK381``; None when
    the catalog holds every skill whole."""
    warning = report.get("warning")
    if not isinstance(warning, str) or not warning:
        return None
    if warning.startswith(_WITHHELD):
        return Diagnostic(
            code="SK381",
            severity=Severity.WARNING,
            message=warning,
            fix="set skills.include_instructions = true where it is set (or remove it) if the model "
            "should get the list of skills",
        )
    message, cut, fix = warning.partition(_OVER_BUDGET_FIX)
    return Diagnostic(
        code="SK380",
        severity=Severity.WARNING,
        message=message,
        fix=fix.rstrip(".")
        if cut
        else "raise the budget (--context-window, --budget-tokens or skills.max_context_tokens), "
        "or turn off skills you do not use",
    )


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
