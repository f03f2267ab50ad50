"""Budgets of the skills catalog: Codex 0.171.0's sizing rules and how text is charged."""

from __future__ import annotations

import pytest

from skillshelf.errors import UsageError
from skillshelf.skills.catalog import CharBudget, TokenBudget, default_budget


def test_budget_is_two_percent_of_the_context_window_in_tokens() -> None:
    assert default_budget(200_000) == TokenBudget(4_000)
    assert default_budget(30_000) == TokenBudget(600)
    assert default_budget(400_000) == TokenBudget(8_000)


def test_tiny_windows_still_get_one_token() -> None:
    assert default_budget(99) == TokenBudget(1)
    assert default_budget(100) == TokenBudget(2)


def test_unknown_or_zero_window_gets_eight_thousand_characters() -> None:
    assert default_budget(None) == CharBudget(8_000)
    assert default_budget(0) == CharBudget(8_000)
    assert default_budget(-5) == CharBudget(8_000)


def test_huge_windows_stop_adding_budget_at_codex_cap() -> None:
    # Measured with codex-oracle: 872,000 tokens -> 17,440; 1M and 2M -> 17,440 as well.
    assert default_budget(872_000) == TokenBudget(17_440)
    assert default_budget(1_000_000) == TokenBudget(17_440)
    assert default_budget(2_000_000) == TokenBudget(17_440)
    assert default_budget(871_000) == TokenBudget(17_420)


def test_explicit_token_budget_wins_over_the_window_and_is_capped_at_ten_thousand() -> None:
    assert default_budget(None, max_context_tokens=5_000) == TokenBudget(5_000)
    assert default_budget(400_000, max_context_tokens=300) == TokenBudget(300)
    assert default_budget(0, max_context_tokens=20_000) == TokenBudget(10_000)


def test_zero_token_budget_is_refused_like_codex_refuses_it() -> None:
    with pytest.raises(UsageError) as caught:
        default_budget(200_000, max_context_tokens=0)
    assert caught.value.code == "SS002"
    assert "unset" in caught.value.hint


@pytest.mark.parametrize("bad", [-1, 1.5, "10", True])
def test_budgets_refuse_values_that_are_not_counts(bad: object) -> None:
    with pytest.raises(UsageError) as caught:
        CharBudget(bad)  # type: ignore[arg-type]
    assert caught.value.code == "SS002"
    with pytest.raises(UsageError):
        TokenBudget(bad)  # type: ignore[arg-type]


def test_characters_are_code_points_and_tokens_are_four_utf8_bytes() -> None:
    text = "a\U0001f4a1é"  # 3 code points, 1 + 4 + 2 = 7 bytes
    assert CharBudget(10).cost(text) == 3
    assert TokenBudget(10).cost(text) == 2
    assert TokenBudget(10).cost("") == 0
    assert TokenBudget(10).cost("abcd") == 1
    assert TokenBudget(10).cost("abcde") == 2


def test_budgets_describe_themselves_for_people() -> None:
    assert CharBudget(8_000).describe() == "8,000 characters"
    assert TokenBudget(4_000).describe() == "4,000 tokens"
    assert TokenBudget(10).with_limit(-3) == TokenBudget(0)
