"""Token estimates. Codex approximates a token as 4 UTF-8 bytes; we use the same rule so that
budgets line up with the reference agent."""

from __future__ import annotations

__all__ = ["BYTES_PER_TOKEN", "approx_tokens"]

BYTES_PER_TOKEN = 4


def approx_tokens(text: str) -> int:
    """``ceil(utf8_bytes / 4)``: Codex's ``approx_token_count``."""
    return -(-len(text.encode("utf-8")) // BYTES_PER_TOKEN)
