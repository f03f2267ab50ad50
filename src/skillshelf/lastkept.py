"""The one value of a kind that a long-lived process keeps between calls.

The hook server and the agent open the parsed-skill cache and build the search index at every
prompt; keeping the last result lets the next call skip the work while nothing changed. A
one-shot command (``skillshelf context``, a hook answered without the server) uses each once,
and a kept value would only give the garbage collector more to walk at exit, so nothing is kept
before a process's second use. One value per kind bounds the memory whatever the number of
projects or cache folders; the caller checks that the kept value still fits before using it.
"""

from __future__ import annotations

import threading
from typing import Generic, TypeVar

__all__ = ["LastKept"]

T = TypeVar("T")


class LastKept(Generic[T]):
    """The last value stored, from the second :meth:`use` on; safe across threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._uses = 0
        self._value: T | None = None

    def use(self) -> T | None:
        """Count one use and return the value kept (None when there is none)."""
        with self._lock:
            self._uses += 1
            return self._value

    def peek(self) -> T | None:
        """The value kept, without counting a use."""
        with self._lock:
            return self._value

    def keep(self, value: T | None) -> None:
        """Keep ``value`` in place of the last one once this process has used it twice; ``None``
        forgets it."""
        with self._lock:
            if value is None or self._uses > 1:
                self._value = value

    @property
    def keeping(self) -> bool:
        """Whether :meth:`keep` keeps values (the second use has come)."""
        with self._lock:
            return self._uses > 1
