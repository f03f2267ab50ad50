"""The model Claude Code runs with and the room its skill listing gets (the budgets are checked
against the real CLI in test_claude_listing_oracle.py)."""

from __future__ import annotations

import pytest

from skillshelf.skills.claude_models import canonical_model, model_room


@pytest.mark.parametrize(
    ("model", "family"),
    [
        ("claude-sonnet-4-5-20250929", "claude-sonnet-4-5"),
        ("us.anthropic.claude-sonnet-4-5-20250929-v1:0", "claude-sonnet-4-5"),
        ("claude-opus-4-8[1m]", "claude-opus-4-8"),
        ("claude-opus-4-20250514", "claude-opus-4-0"),
        ("Claude-Haiku-4-5", "claude-haiku-4-5"),
        ("my-gateway-model-20240101", "my-gateway-model"),
    ],
)
def test_a_model_id_is_known_by_its_family(model: str, family: str) -> None:
    assert canonical_model(model) == family


@pytest.mark.parametrize(
    ("named", "environ", "room"),
    [
        (None, {}, ("claude-opus-4-8", 1_000_000, 3)),
        ("sonnet", {}, ("claude-sonnet-5", 1_000_000, 3)),
        ("haiku", {}, ("claude-haiku-4-5", 200_000, 4)),
        ("claude-sonnet-4-5", {}, ("claude-sonnet-4-5", 200_000, 4)),
        ("claude-sonnet-4-5[1m]", {}, ("claude-sonnet-4-5", 1_000_000, 4)),
        ("opus[1m]", {"ANTHROPIC_DEFAULT_OPUS_MODEL": "claude-opus-4-6"}, ("claude-opus-4-6", 1_000_000, 4)),
        ("haiku", {"ANTHROPIC_MODEL": "claude-opus-4-7"}, ("claude-opus-4-7", 1_000_000, 3)),
        (None, {"CLAUDE_CODE_DISABLE_1M_CONTEXT": "1"}, ("claude-opus-4-8", 200_000, 3)),
        (None, {"ANTHROPIC_BASE_URL": "http://127.0.0.1:9"}, ("claude-opus-4-8", 1_000_000, 3)),
        ("sonnet", {"ANTHROPIC_BASE_URL": "http://127.0.0.1:9"}, ("claude-sonnet-5", 200_000, 3)),
        ("sonnet", {"ANTHROPIC_BASE_URL": "https://api.anthropic.com/v1"}, ("claude-sonnet-5", 1_000_000, 3)),
        ("local-llm", {"CLAUDE_CODE_MAX_CONTEXT_TOKENS": "64000"}, ("local-llm", 64_000, 3)),
        ("claude-sonnet-4-5", {"CLAUDE_CODE_MAX_CONTEXT_TOKENS": "64000"}, ("claude-sonnet-4-5", 200_000, 4)),
        (
            "claude-sonnet-4-5",
            {"CLAUDE_CODE_MAX_CONTEXT_TOKENS": "64000", "DISABLE_COMPACT": "1"},
            ("claude-sonnet-4-5", 64_000, 4),
        ),
    ],
)
def test_the_room_follows_the_model_its_aliases_and_the_environment(
    named: str | None, environ: dict[str, str], room: tuple[str, int, int]
) -> None:
    found = model_room(named, environ)
    assert (found.model, found.window, found.chars_per_token) == room
