"""Which budget the catalog gets when none is given: the window of the model, as Codex finds it.

Codex 0.171.0 (measured with ``codex-oracle`` and catalogs of made-up models given through its
``model_catalog_json`` setting; ``tests/skills/test_catalog_window_oracle.py``) sizes the
catalog from the model's context window:

* the model is ``model`` from its config, else its *default model*: the entry of its model
  catalog with the lowest ``priority`` among those listed (``visibility = "list"``) and usable
  through the API (``supported_in_api``), the first one on a tie;
* its window is ``model_context_window`` when set, else the catalog's ``context_window``, in
  both cases at most the catalog's ``max_context_window`` when the entry has one;
* a model its catalog does not list gets 272,000 tokens, and at most 272,000 tokens;
* a window of ``0`` (or a catalog entry without one) is unknown: 8,000 characters;
* the catalog gets 2 % of the window (``skills.max_context_tokens`` wins over all of it).

The catalog Codex reads is ``model_catalog_json`` when set, else the one built into its binary
(or fetched when online), which skillshelf does not read: then the default model's window is
the one of Codex 0.171.0's built-in default, 500,000 tokens (at most 872,000), and a named
model is taken as one the catalog does not list (``--context-window`` or
``catalog.context_window`` set the window when that is wrong). The chosen budget always says
where it came from (:attr:`BudgetChoice.source`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from skillshelf.skills.catalog.budget import (
    DEFAULT_CHAR_BUDGET,
    MAX_CONFIGURED_TOKENS,
    WINDOW_PERCENT,
    Budget,
    CharBudget,
    TokenBudget,
    default_budget,
)

__all__ = [
    "BUILTIN_DEFAULT_MAX_WINDOW",
    "BUILTIN_DEFAULT_WINDOW",
    "UNLISTED_MODEL_WINDOW",
    "BudgetChoice",
    "ModelInfo",
    "choose_budget",
    "model_window",
]

BUILTIN_DEFAULT_WINDOW = 500_000
"""Codex 0.171.0's default model without a readable catalog (no ``model``: a 10,000-token catalog)."""
BUILTIN_DEFAULT_MAX_WINDOW = 872_000
"""...and the most ``model_context_window`` can give it (the 17,440-token cap of budget.py)."""
UNLISTED_MODEL_WINDOW = 272_000
"""Window and cap of a model missing from Codex's catalog (``model = "o3"``: 5,440 tokens)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ModelInfo:
    """One entry of a Codex model catalog: what sizes the catalog and picks the default."""

    slug: str
    context_window: int | None = None
    max_context_window: int | None = None
    priority: int = 0
    pickable: bool = True  # listed and usable through the API: may be the default model


@dataclass(frozen=True, slots=True, kw_only=True)
class BudgetChoice:
    """A catalog budget and, in words, where it came from."""

    budget: Budget
    source: str
    window: int | None = None
    model: str | None = None

    def to_dict(self) -> dict[str, object]:
        return {
            "limit": self.budget.limit,
            "unit": self.budget.unit,
            "source": self.source,
            "window": self.window,
            "model": self.model,
        }


def _default_model(catalog: Sequence[ModelInfo]) -> ModelInfo | None:
    candidates = [m for m in catalog if m.pickable]
    return min(candidates, key=lambda m: m.priority) if candidates else None


def model_window(
    model: str | None, catalog: Sequence[ModelInfo] | None, configured: tuple[int, str] | None = None
) -> tuple[int | None, str, str | None]:
    """``(window, how it was found, model slug)`` for Codex's ``model`` (``None``: its default).

    ``catalog`` is Codex's model catalog when it could be read (``None`` otherwise);
    ``configured`` is ``(model_context_window, where it was set)`` when it is set.
    """
    entry: ModelInfo | None = None
    if catalog is not None:
        entry = (
            _default_model(catalog) if model is None else next((m for m in catalog if m.slug == model), None)
        )
    if entry is not None:
        window, cap, what = entry.context_window, entry.max_context_window, f"the window of {entry.slug}"
    elif model is None:
        window, cap = BUILTIN_DEFAULT_WINDOW, BUILTIN_DEFAULT_MAX_WINDOW
        what = "the window of Codex's default model"
    else:
        window, cap = UNLISTED_MODEL_WINDOW, UNLISTED_MODEL_WINDOW
        where = (
            "Codex's model catalog" if catalog is not None else "any Codex model catalog skillshelf can read"
        )
        what = f"Codex's window for a model missing from its catalog: {model} is not in {where}"
    slug = entry.slug if entry is not None else model
    if configured is not None:
        window, what = configured[0], configured[1]
    if window is not None and cap is not None and window > cap:
        window, what = cap, f"{what}, at most {cap:,} for {slug or 'the default model'}"
    return window, what, slug


def _window_budget(window: int | None, what: str, model: str | None) -> BudgetChoice:
    if window is None or window <= 0:
        budget = CharBudget(DEFAULT_CHAR_BUDGET)
        return BudgetChoice(
            budget=budget, source=f"{budget.describe()}: the context window is unknown ({what})"
        )
    return BudgetChoice(
        budget=TokenBudget(max(1, window * WINDOW_PERCENT // 100)),
        source=f"{WINDOW_PERCENT}% of the {window:,}-token context window ({what})",
        window=window,
        model=model,
    )


def choose_budget(
    *,
    chars: tuple[int, str] | None = None,
    tokens: tuple[int, str] | None = None,
    window: tuple[int, str] | None = None,
    model: str | None = None,
    catalog: Sequence[ModelInfo] | None = None,
) -> BudgetChoice:
    """The catalog budget, first match wins: characters, tokens, a window, else the model's.

    Each of ``chars``, ``tokens`` and ``window`` is ``(value, where it was set)``. ``window``
    plays Codex's ``model_context_window``: the cap of the model (``model``, looked up in
    ``catalog``, see :func:`model_window`) still applies.
    """
    if chars is not None:
        return BudgetChoice(budget=CharBudget(chars[0]), source=f"{chars[0]:,} characters ({chars[1]})")
    if tokens is not None:
        budget = default_budget(None, max_context_tokens=tokens[0])
        capped = "" if budget.limit == tokens[0] else f", at most {MAX_CONFIGURED_TOKENS:,}"
        return BudgetChoice(budget=budget, source=f"{budget.describe()} ({tokens[1]}{capped})")
    return _window_budget(*model_window(model, catalog, window))
