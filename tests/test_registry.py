"""The registry every extension point keeps its specs in."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from skillshelf.errors import UsageError
from skillshelf.registry import Registry, check_name


@dataclass(frozen=True, slots=True, kw_only=True)
class Thing:
    name: str


def test_names_keep_registration_order_and_a_wrong_name_gets_the_closest() -> None:
    things = Registry("thing", [Thing(name="alpha"), Thing(name="beta")], unknown_code="TH001")
    assert things.names() == ("alpha", "beta") and "beta" in things and "gamma" not in things
    with pytest.raises(UsageError) as caught:
        things.get("alpah")
    assert caught.value.code == "TH001" and caught.value.hint.startswith('did you mean "alpha"?')


def test_a_spec_registered_for_a_block_is_gone_after_it_even_on_error() -> None:
    things = Registry("thing", [Thing(name="alpha")], taken_code="TH002")
    with pytest.raises(RuntimeError), things.registered(Thing(name="temp")):
        assert things.names() == ("alpha", "temp")
        raise RuntimeError("boom")
    assert things.names() == ("alpha",)
    with pytest.raises(UsageError) as taken:
        things.register(Thing(name="alpha"))
    assert taken.value.code == "TH002"


def test_names_are_plain_lowercase_words() -> None:
    check_name("thing", "a-b_c9")
    for bad in ("", "9lives", "Upper", "two words", "all"):
        with pytest.raises(UsageError):
            check_name("thing", bad, reserved=("all",))
