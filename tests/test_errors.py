"""The error tree's helpers: the words an error puts into a message that names its own file."""

from __future__ import annotations

import errno
import json

import pytest

from skillshelf.errors import reason
from skillshelf.fileio import NotRegularFile


def test_reason_gives_an_os_errors_words_without_errno_or_path() -> None:
    error = NotRegularFile(errno.EINVAL, "not a regular file", "/tmp/x.json")
    assert reason(error) == "not a regular file"
    assert reason(OSError("no strerror here")) == "no strerror here"


def test_reason_names_deep_nesting_and_keeps_a_parsers_own_message() -> None:
    with pytest.raises(RecursionError) as deep:
        json.loads("[" * 100_000)
    assert reason(deep.value) == "nested too deeply"
    with pytest.raises(ValueError) as bad:
        json.loads("{oops")
    assert reason(bad.value) == str(bad.value)
