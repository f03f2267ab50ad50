"""A short left-out value is scrubbed only as a whole word (``_`` counts as part of a word), and
a letters-only stand-in (``test``, ``EMPTY``) is not scrubbed at all: it protects nothing."""

from __future__ import annotations

import pytest

from skillshelf.agent.shell_env import REDACTED
from skillshelf.agent.stripped_values import StrippedValues, worth_scrubbing

PYTEST_OUTPUT = "===== test session starts =====\ntests/test_api.py::test_login PASSED\nEMPTY_LIST = []\n"


@pytest.mark.parametrize("value", ["test", "EMPTY", "dummy", "none", "sk", "Nothing"])
def test_a_letters_only_stand_in_key_is_not_scrubbed(value: str) -> None:
    assert not worth_scrubbing(value)
    assert StrippedValues.of(["test", "EMPTY", "dummy"]).scrub(PYTEST_OUTPUT) == PYTEST_OUTPUT


@pytest.mark.parametrize("value", ["pw42", "k3y!", "abcdefgh", "hunter2"])
def test_a_short_value_with_a_digit_or_symbol_or_eight_letters_is_scrubbed(value: str) -> None:
    assert worth_scrubbing(value)
    assert StrippedValues.of([value]).scrub(f"key {value}.") == f"key {REDACTED}."


def test_a_short_value_is_not_scrubbed_out_of_an_identifier() -> None:
    values = StrippedValues.of(["pw42"])
    text = "tests/pw42_api.py::test_pw42 PW_pw42 pw42"
    assert values.scrub(text) == f"tests/pw42_api.py::test_pw42 PW_pw42 {REDACTED}"
