"""Token estimates. Codex approximates a token as 4 UTF-8 bytes; we use the same rule so that
budgets line up with the reference agent."""

from __future__ import annotations

from collections.abc import Callable, Sequence

__all__ = ["BYTES_PER_TOKEN", "approx_tokens", "whole_or_listed"]

BYTES_PER_TOKEN = 4


def approx_tokens(text: str) -> int:
    """``ceil(utf8_bytes / 4)``: Codex's ``approx_token_count``."""
    return -(-len(text.encode("utf-8")) // BYTES_PER_TOKEN)


def whole_or_listed(
    items: Sequence[tuple[str, str]], token_cap: int, render: Callable[[list[str], list[str]], str]
) -> str:
    """``render(whole, listed)`` for ``items`` (``(text, line)`` pairs, most wanted first): each
    item's ``text`` while the rendering stays within ``token_cap`` tokens, else its ``line``
    (an item that fits neither way is left out); ``""`` when nothing fits."""
    whole: list[str] = []
    listed: list[str] = []
    for text, line in items:
        if text and approx_tokens(render([*whole, text], listed)) <= token_cap:
            whole.append(text)
        elif approx_tokens(render(whole, [*listed, line])) <= token_cap:
            listed.append(line)
    return render(whole, listed) if whole or listed else ""
