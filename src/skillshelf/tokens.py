"""Token estimates. Codex approximates a token as 4 UTF-8 bytes; we use the same rule so that
budgets line up with the reference agent."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["BYTES_PER_TOKEN", "approx_tokens", "whole_or_listed"]

BYTES_PER_TOKEN = 4


def approx_tokens(text: str) -> int:
    """``ceil(utf8_bytes / 4)``: Codex's ``approx_token_count`` (a lone surrogate, an undecodable
    byte of a path, counts the 3 bytes of the U+FFFD Codex writes for it)."""
    return -(-len(text.encode("utf-8", "surrogatepass")) // BYTES_PER_TOKEN)


def whole_or_listed(items: Sequence[tuple[str, str]], token_cap: int, *, intro: str, list_intro: str) -> str:
    """``intro``, then each item's ``text`` (``(text, line)`` pairs, most wanted first) while the
    whole stays within ``token_cap`` tokens, then the ``line`` of each item past that under
    ``list_intro`` (an item that fits neither way is left out); ``""`` when nothing fits."""

    def render(whole: list[str], listed: list[str]) -> str:
        return "\n\n".join([intro, *whole, *(["\n".join([list_intro, *listed])] if listed else [])])

    whole: list[str] = []
    listed: list[str] = []
    for text, line in items:
        if text and approx_tokens(render([*whole, text], listed)) <= token_cap:
            whole.append(text)
        elif approx_tokens(render(whole, [*listed, line])) <= token_cap:
            listed.append(line)
    return render(whole, listed) if whole or listed else ""
