"""Token estimates and fitting texts into a token budget."""

from __future__ import annotations

import os

from hypothesis import given
from hypothesis import strategies as st

from skillshelf.tokens import approx_tokens, whole_or_listed


def _render(whole: list[str], listed: list[str]) -> str:
    return "\n\n".join(["INTRO", *whole, *(["\n".join(["LIST", *listed])] if listed else [])])


def test_a_token_is_four_utf8_bytes_rounded_up() -> None:
    assert [approx_tokens(t) for t in ("", "abcd", "abcde", "é")] == [0, 1, 2, 1]


@given(
    items=st.lists(st.tuples(st.text(max_size=80), st.text(min_size=1, max_size=10)), max_size=8),
    cap=st.integers(min_value=0, max_value=120),
)
def test_what_fits_stays_within_the_cap_in_order_and_a_text_that_fits_is_never_only_listed(
    items: list[tuple[str, str]], cap: int
) -> None:
    out = whole_or_listed(items, cap, intro="INTRO", list_intro="LIST")
    assert out == "" or approx_tokens(out) <= cap
    if out and items and items[0][0] and approx_tokens(_render([items[0][0]], [])) <= cap:
        assert out.startswith(f"INTRO\n\n{items[0][0]}")  # the first item whole when it fits alone


def test_an_item_past_the_cap_is_listed_and_one_that_fits_neither_way_is_left_out() -> None:
    items = [("A" * 40, "- a"), ("B" * 400, "- b"), ("C" * 8, "- " + "c" * 400)]
    assert whole_or_listed(items, 30, intro="INTRO", list_intro="LIST") == _render(
        ["A" * 40, "C" * 8], ["- b"]
    )
    assert whole_or_listed(items, 1, intro="INTRO", list_intro="LIST") == ""


def test_an_undecodable_byte_of_a_path_counts_as_the_replacement_character_codex_writes() -> None:
    path = os.fsdecode(b"/srv/bad\xffdir/SKILL.md")
    assert approx_tokens(path) == approx_tokens(path.replace("\udcff", "\ufffd"))
