"""How much room the skills catalog may take, and how text is charged against it.

Codex 0.171.0 (measured with ``codex-oracle``) sizes the catalog as follows:

* ``skills.max_context_tokens = N`` (N > 0) -> ``N`` tokens, at most 10,000;
* else a known context window ``W > 0`` -> 2 % of ``W`` in tokens (at least 1), at most
  17,440 tokens: Codex's default model takes no window above 872,000 tokens (its
  ``max_context_window``; other models have their own cap or none, see
  :mod:`~skillshelf.skills.catalog.window`, which also finds the window of the model);
* else (unknown or 0) -> 8,000 characters.

A token is Codex's approximation: ``ceil(utf8_bytes / 4)``. A character is one Unicode code
point. Only the skill entries (and, for the Codex format, what its roots table adds) are
charged; the intro prose is free.
"""

from __future__ import annotations

from dataclasses import dataclass

from skillshelf.errors import UsageError
from skillshelf.tokens import BYTES_PER_TOKEN

__all__ = [
    "DEFAULT_CHAR_BUDGET",
    "MAX_CONFIGURED_TOKENS",
    "MAX_WINDOW_TOKENS",
    "WINDOW_PERCENT",
    "Budget",
    "CharBudget",
    "TokenBudget",
    "default_budget",
]

DEFAULT_CHAR_BUDGET = 8_000
"""Characters when the context window is unknown or 0."""
WINDOW_PERCENT = 2
"""Share of the context window given to the catalog."""
MAX_CONFIGURED_TOKENS = 10_000
"""Cap on an explicit ``skills.max_context_tokens``."""
MAX_WINDOW_TOKENS = 17_440
"""Cap on the window-derived budget of Codex's default model (2 % of its 872,000-token maximum)."""


def _check_limit(value: int, what: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise UsageError(
            f"the catalog budget must be a whole number of {what}, not {value!r}",
            hint=f"give the budget as an integer number of {what}",
        )
    if value < 0:
        raise UsageError(
            f"the catalog budget cannot be negative ({value} {what})",
            hint=f"give 0 or more {what}; 0 lists no skill at all",
        )


@dataclass(frozen=True, slots=True)
class CharBudget:
    """A budget in characters (Unicode code points)."""

    chars: int

    def __post_init__(self) -> None:
        _check_limit(self.chars, "characters")

    @property
    def limit(self) -> int:
        return self.chars

    @property
    def unit(self) -> str:
        return "chars"

    def cost(self, text: str) -> int:
        """What ``text`` costs against this budget."""
        return len(text)

    def cost_from_counts(self, chars: int, utf8_bytes: int) -> int:
        """The cost of a text of ``chars`` code points and ``utf8_bytes`` bytes."""
        return chars

    def with_limit(self, limit: int) -> CharBudget:
        """The same kind of budget with another limit."""
        return CharBudget(max(0, limit))

    def describe(self) -> str:
        return f"{self.chars:,} characters"


@dataclass(frozen=True, slots=True)
class TokenBudget:
    """A budget in approximate tokens (``ceil(utf8_bytes / 4)``, as Codex counts)."""

    tokens: int

    def __post_init__(self) -> None:
        _check_limit(self.tokens, "tokens")

    @property
    def limit(self) -> int:
        return self.tokens

    @property
    def unit(self) -> str:
        return "tokens"

    def cost(self, text: str) -> int:
        """What ``text`` costs against this budget."""
        return -(-len(text.encode("utf-8")) // BYTES_PER_TOKEN)

    def cost_from_counts(self, chars: int, utf8_bytes: int) -> int:
        """The cost of a text of ``chars`` code points and ``utf8_bytes`` bytes."""
        return -(-utf8_bytes // BYTES_PER_TOKEN)

    def with_limit(self, limit: int) -> TokenBudget:
        """The same kind of budget with another limit."""
        return TokenBudget(max(0, limit))

    def describe(self) -> str:
        return f"{self.tokens:,} tokens"


Budget = CharBudget | TokenBudget


def default_budget(context_window: int | None, *, max_context_tokens: int | None = None) -> Budget:
    """The budget Codex 0.171.0 gives the catalog for a model with ``context_window`` tokens.

    ``max_context_tokens`` is Codex's ``skills.max_context_tokens``: when it is set it wins
    over the window and is capped at 10,000 tokens (0 is refused, as Codex refuses it). A window
    of ``None`` or ``<= 0`` means unknown: 8,000 characters.
    """
    if max_context_tokens is not None:
        _check_limit(max_context_tokens, "tokens")
        if max_context_tokens == 0:
            raise UsageError(
                "skills.max_context_tokens must be at least 1 (Codex refuses 0 too)",
                hint="leave it unset to use 2% of the context window, or give a positive number",
            )
        return TokenBudget(min(max_context_tokens, MAX_CONFIGURED_TOKENS))
    if context_window is not None and not isinstance(context_window, bool) and context_window > 0:
        return TokenBudget(min(max(1, context_window * WINDOW_PERCENT // 100), MAX_WINDOW_TOKENS))
    return CharBudget(DEFAULT_CHAR_BUDGET)
