"""Options whose choices come from a registry: the catalog formats and the selectors. Their
choices and their help are read when the command runs or prints its help, so that a format or
selector registered after import is offered and listed as well."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import click

__all__ = ["RegistryChoice", "catalog_options", "selector_option"]

F = TypeVar("F", bound=Callable[..., Any])


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


class RegistryHelpOption(click.Option):
    """A :class:`click.Option` whose help is ``help_text()``, asked afresh each time it is shown."""

    def __init__(self, *args: Any, help_text: Callable[[], str], **kwargs: Any) -> None:
        self._help_text = help_text
        super().__init__(*args, **kwargs)

    def get_help_record(self, ctx: click.Context) -> tuple[str, str] | None:
        self.help = self._help_text()
        return super().get_help_record(ctx)


def _format_names() -> Sequence[str]:
    from skillshelf.skills.catalog import CATALOG_FORMATS

    return CATALOG_FORMATS.names()


def _format_help() -> str:
    from skillshelf.skills.catalog import CATALOG_FORMATS

    return "; ".join(f"{spec.name}: {spec.help}" for spec in CATALOG_FORMATS)


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
        cls=RegistryHelpOption,
        help_text=lambda: (
            f"The catalog format (default: catalog.format from config, else codex). {_format_help()}."
        ),
    )(func)


def selector_option(*, default: str, with_all: bool) -> Callable[[F], F]:
    """``--selector``: a name of the selector registry (checked by the library: ``SE001``), with
    each selector's line of help; ``with_all`` offers ``all`` too (every one that can run here)."""
    prefix = "A selector, or `all` (every one that can run here)" if with_all else "The ranking to use"

    def help_text() -> str:
        from skillshelf.select.registry import SELECTORS

        return f"{prefix}. " + "; ".join(f"{spec.name}: {spec.help}" for spec in SELECTORS) + "."

    return click.option(
        "--selector",
        metavar="NAME",
        default=default,
        show_default=True,
        cls=RegistryHelpOption,
        help_text=help_text,
    )
