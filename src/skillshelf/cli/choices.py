"""Options whose choices come from a registry (catalog formats, selectors), read when the
command runs, so that a format or selector registered after import is offered as well."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import click

__all__ = ["RegistryChoice", "catalog_options"]


class RegistryChoice(click.Choice[str]):
    """A :class:`click.Choice` over ``names()``, asked afresh at every use."""

    def __init__(self, names: Callable[[], Sequence[str]]) -> None:
        self._names = names
        super().__init__(())

    @property
    def choices(self) -> tuple[str, ...]:
        return tuple(self._names())

    @choices.setter
    def choices(self, _value: Sequence[str]) -> None:
        """click.Choice sets its fixed choices here; ours come from ``names``."""


def _format_names() -> Sequence[str]:
    from skillshelf.skills.catalog import format_names

    return format_names()


def _format_help() -> str:
    from skillshelf.skills.catalog import catalog_formats

    return "; ".join(f"{spec.name}: {spec.help}" for spec in catalog_formats())


def catalog_options(func: Any) -> Any:
    """``--format`` (the catalog formats registered) and the budget options of the catalog."""
    func = click.option(
        "--budget-chars", type=click.IntRange(min=1), help="An explicit budget in characters."
    )(func)
    func = click.option(
        "--budget-tokens",
        type=click.IntRange(min=1),
        help="An explicit budget in tokens (like skills.max_context_tokens).",
    )(func)
    func = click.option(
        "--context-window",
        type=click.IntRange(min=0),
        help="The model's context window in tokens (the catalog gets 2%).",
    )(func)
    return click.option(
        "--format",
        "catalog_format",
        type=RegistryChoice(_format_names),
        default=None,
        help=f"The catalog format (default: catalog.format from config, else codex). {_format_help()}.",
    )(func)
