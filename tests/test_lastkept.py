"""LastKept: one value per kind, kept from a process's second use on."""

from __future__ import annotations

from skillshelf.lastkept import LastKept


def test_a_process_that_uses_it_once_keeps_nothing() -> None:
    kept: LastKept[str] = LastKept()
    assert kept.use() is None and not kept.keeping
    kept.keep("first build")
    assert kept.peek() is None


def test_from_the_second_use_on_the_last_value_is_kept_until_forgotten() -> None:
    kept: LastKept[str] = LastKept()
    kept.use()
    assert kept.use() is None and kept.keeping
    kept.keep("a")
    kept.keep("b")
    assert kept.peek() == "b" and kept.use() == "b"
    kept.keep(None)
    assert kept.peek() is None
