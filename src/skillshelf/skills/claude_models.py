"""The model Claude Code runs with, and the room its skill listing gets from it.

Claude Code 2.1.197 gives its skill listing ``skillListingBudgetFraction`` of the model's
context window, counted in characters at the model's characters per token. Read from the
pinned CLI's code and checked with ``claude-oracle`` (``tests/skills/test_claude_listing_oracle.py``):

- The model is ``ANTHROPIC_MODEL``, else ``model`` in the settings, else the default
  (:data:`DEFAULT_MODEL`, Opus with its 1M window). The aliases ``sonnet``, ``opus``,
  ``haiku``, ``fable``, ``best`` and ``opusplan`` stand for :data:`ALIASES` unless an
  ``ANTHROPIC_DEFAULT_*_MODEL`` names another.
- A model id is known by the family it contains (``us.anthropic.claude-sonnet-4-5-20250929-v1:0``
  is ``claude-sonnet-4-5``).
- The window is 1,000,000 tokens for a name ending in ``[1m]``, and for the models that have
  it natively (:data:`NATIVE_1M`) when Claude Code talks to Anthropic's API (no
  ``ANTHROPIC_BASE_URL``, or one on ``api.anthropic.com``), unless
  ``CLAUDE_CODE_DISABLE_1M_CONTEXT`` is set; else 200,000. ``CLAUDE_CODE_MAX_CONTEXT_TOKENS``
  sets it when ``DISABLE_COMPACT`` is set, or for a model that is not Claude.
- The models of :data:`FOUR_CHARS` count 4 characters a token, the newer ones 3.

Not followed: a window raised by a beta header of an SDK caller, and providers (Bedrock,
Vertex, a gateway) whose 1M support differs by model; a first-party account is assumed.
"""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass

from skillshelf.skills.claude_settings import claude_flag

__all__ = ["ALIASES", "DEFAULT_MODEL", "ModelRoom", "canonical_model", "model_room"]

DEFAULT_MODEL = "claude-opus-4-8[1m]"
ALIASES: Mapping[str, tuple[str, str]] = {
    "sonnet": ("ANTHROPIC_DEFAULT_SONNET_MODEL", "claude-sonnet-5"),
    "opusplan": ("ANTHROPIC_DEFAULT_SONNET_MODEL", "claude-sonnet-5"),  # outside plan mode
    "opus": ("ANTHROPIC_DEFAULT_OPUS_MODEL", "claude-opus-4-8"),
    "best": ("ANTHROPIC_DEFAULT_OPUS_MODEL", "claude-opus-4-8"),
    "haiku": ("ANTHROPIC_DEFAULT_HAIKU_MODEL", "claude-haiku-4-5"),
    "fable": ("ANTHROPIC_DEFAULT_FABLE_MODEL", "claude-fable-5"),
}
"""Alias -> (the variable that names its model, the model it stands for without one)."""
NATIVE_1M = frozenset(
    {"claude-sonnet-5", "claude-opus-4-7", "claude-opus-4-8", "claude-fable-5"}
    | {"claude-mythos-5", "claude-mythos-preview"}
)
FOUR_CHARS = frozenset(
    {
        *("claude-3-opus", "claude-3-sonnet", "claude-3-haiku", "claude-3-5-sonnet", "claude-3-5-haiku"),
        *("claude-3-7-sonnet", "claude-opus-4-0", "claude-opus-4-1", "claude-opus-4-5", "claude-opus-4-6"),
        *("claude-sonnet-4-0", "claude-sonnet-4-5", "claude-sonnet-4-6", "claude-haiku-4-5"),
    }
)
WINDOW_1M = 1_000_000
WINDOW_DEFAULT = 200_000
_FAMILIES: tuple[tuple[str, str], ...] = (
    *((name, name) for name in ("claude-fable-5", "claude-mythos-5")),
    *((f"claude-opus-4-{n}", f"claude-opus-4-{n}") for n in (8, 7, 6, 5, 1)),
    (r"claude-opus-4(?!-\d(?!\d))", "claude-opus-4-0"),
    *((name, name) for name in ("claude-sonnet-5", "claude-sonnet-4-6", "claude-sonnet-4-5")),
    (r"claude-sonnet-4(?!-\d(?!\d))", "claude-sonnet-4-0"),
    *(
        (name, name)
        for name in (
            *("claude-haiku-4-5", "claude-3-7-sonnet", "claude-3-5-sonnet", "claude-3-5-haiku"),
            *("claude-3-opus", "claude-3-sonnet", "claude-3-haiku"),
        )
    ),
)
_ONE_M = re.compile(r"\[1m\]", re.IGNORECASE)


@dataclass(frozen=True, slots=True, kw_only=True)
class ModelRoom:
    """The model as named (``named``, ``None``: the default), the model it stands for, its
    context window in tokens and its characters per token."""

    named: str | None
    model: str
    window: int
    chars_per_token: int


def canonical_model(model: str) -> str:
    """The family of a model id, as Claude Code knows it (``[1m]`` and a date left off)."""
    lowered = _ONE_M.sub("", model).strip().lower()
    for pattern, family in _FAMILIES:
        if re.search(pattern, lowered):
            return family
    return re.sub(r"-\d{8}$", "", lowered)


def model_room(named: str | None, environ: Mapping[str, str]) -> ModelRoom:
    """The room Claude Code's listing takes its budget from, for the model ``named`` (the
    settings' ``model``; ``ANTHROPIC_MODEL`` in ``environ`` comes first)."""
    chosen = environ.get("ANTHROPIC_MODEL") or named or None
    model = _resolved_alias(chosen or DEFAULT_MODEL, environ)
    family = canonical_model(model)
    return ModelRoom(
        named=chosen,
        model=family,
        window=_window(model, family, environ),
        chars_per_token=4 if family.replace(".", "-").replace("_", "-") in FOUR_CHARS else 3,
    )


def _resolved_alias(model: str, environ: Mapping[str, str]) -> str:
    bare = _ONE_M.sub("", model).strip().lower()
    if bare not in ALIASES:
        return model
    variable, default = ALIASES[bare]
    target = environ.get(variable) or default
    return target + "[1m]" if _ONE_M.search(model) and not _ONE_M.search(target) else target


def _window(model: str, family: str, environ: Mapping[str, str]) -> int:
    limit = _positive(environ.get("CLAUDE_CODE_MAX_CONTEXT_TOKENS"))
    if limit and environ.get("DISABLE_COMPACT"):
        return limit
    one_m = _ONE_M.search(model) is not None or (family in NATIVE_1M and _anthropic_api(environ))
    if one_m and not claude_flag(environ, "CLAUDE_CODE_DISABLE_1M_CONTEXT"):
        return WINDOW_1M
    if limit and not family.startswith("claude-"):
        return limit
    return WINDOW_DEFAULT


def _anthropic_api(environ: Mapping[str, str]) -> bool:
    """Whether requests go to Anthropic's own API (a proxy's models get the plain window)."""
    url = environ.get("ANTHROPIC_BASE_URL")
    if not url or environ.get("_CLAUDE_CODE_ASSUME_FIRST_PARTY_BASE_URL"):
        return True
    try:
        return urllib.parse.urlsplit(url).netloc.lower() == "api.anthropic.com"
    except ValueError:
        return False


def _positive(value: str | None) -> int | None:
    try:
        number = int(value or "")
    except ValueError:
        return None
    return number if number > 0 else None
