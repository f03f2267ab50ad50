"""The repeat guard: a model that makes the same tool call and gets the same result again and
again is in a loop no note will break (it reads ``a.py`` forever, or runs ``false`` forever).

:class:`RepeatGuard` counts each (tool, arguments, result) since the last change to the project
(an edit through a file tool, or files a command changed); the :data:`MAX_IDENTICAL_CALLS`-th
identical call with an identical result stops the task (``stopped: "repeating"``), where the
turn limit would have let it run on. A call whose result changed, or any edit in between, starts
the count again, so re-reading a file after editing it, or re-running the tests after a fix, is
never a repeat.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Mapping
from typing import Any

__all__ = ["MAX_IDENTICAL_CALLS", "RepeatGuard"]

#: The identical call (same tool, same arguments, same result, nothing changed in between) that
#: stops a task: the first is the call, the next two may be a model checking again, the fourth
#: is a loop.
MAX_IDENTICAL_CALLS = 4


class RepeatGuard:
    """Counts identical calls with identical results; ``limit`` 0 turns the guard off."""

    def __init__(self, limit: int = MAX_IDENTICAL_CALLS) -> None:
        self.limit = limit
        self._seen: Counter[str] = Counter()

    def on_change(self) -> None:
        """The project changed: earlier results may no longer hold, so nothing is a repeat yet."""
        self._seen.clear()

    def on_result(self, name: str, arguments: Mapping[str, Any], output: str) -> str | None:
        """Count one call; at the limit, why the task stops (for the user), else ``None``."""
        if self.limit <= 0:
            return None
        key = hashlib.sha256(
            json.dumps([name, dict(arguments), output], sort_keys=True, default=str).encode(
                "utf-8", errors="surrogatepass"
            )
        ).hexdigest()
        self._seen[key] += 1
        count = self._seen[key]
        if count < self.limit:
            return None
        shown = json.dumps(dict(arguments), sort_keys=True, default=str, ensure_ascii=False)
        shown = shown if len(shown) <= 100 else shown[:97] + "..."
        return f"`{name}` {shown} was called {count} times with the same result, nothing changed in between"
