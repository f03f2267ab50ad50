"""The repeat guard: a model that makes the same tool call and gets the same result again and
again is in a loop no note will break (it reads ``a.py`` forever, or runs ``false`` forever),
or is polling something that has not happened yet (a server starting in the background).

:class:`RepeatGuard` counts each (tool, arguments, result) since the last change to the project
it saw (an edit through a file tool, or files a command changed; a command whose effect cannot
be told counts as a change). From the :data:`NOTE_AT`-th identical call with an identical
result on, the tool result carries a harness note for the model (wait longer between checks,
or change approach); the :data:`MAX_IDENTICAL_CALLS`-th stops the task (``stopped:
"repeating"``), where the turn limit would have let it run on. A call whose result changed, or
any change seen in between, starts the count again, so re-reading a file after editing it, or
re-running the tests after a fix, is never a repeat; a poll that takes the note's advice (a
longer ``sleep``) is another call, with a count of its own. A call the doom-loop guard already
gives a note (the same command failing again) gets that note alone.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["MAX_IDENTICAL_CALLS", "NOTE_AT", "Repeat", "RepeatGuard"]

#: The identical call (same tool, same arguments, same result, no change seen in between) that
#: gets the first note: the first is the call, the second may be a model checking again, the
#: third means that checking again is not working.
NOTE_AT = 3
#: The identical call that stops a task: the note at :data:`NOTE_AT` leaves the model as many
#: calls again to act on it (poll less often, or do something else), so the sixth is a loop.
MAX_IDENTICAL_CALLS = 6


@dataclass(frozen=True, slots=True)
class Repeat:
    """A repeated call: ``stop`` and why (for the user), or a note for the model."""

    count: int
    stop: bool
    text: str


class RepeatGuard:
    """Counts identical calls with identical results; ``limit`` 0 turns the guard off."""

    def __init__(self, limit: int = MAX_IDENTICAL_CALLS, note_at: int = NOTE_AT) -> None:
        self.limit = limit
        self.note_at = note_at
        self._seen: Counter[str] = Counter()

    def on_change(self) -> None:
        """The project changed: earlier results may no longer hold, so nothing is a repeat yet."""
        self._seen.clear()

    def on_result(self, name: str, arguments: Mapping[str, Any], output: str) -> Repeat | None:
        """Count one call: from the note's count on a :class:`Repeat` (a note, or at the limit
        the stop), else ``None``."""
        if self.limit <= 0:
            return None
        key = hashlib.sha256(
            json.dumps([name, dict(arguments), output], sort_keys=True, default=str).encode(
                "utf-8", errors="surrogatepass"
            )
        ).hexdigest()
        self._seen[key] += 1
        count = self._seen[key]
        shown = json.dumps(dict(arguments), sort_keys=True, default=str, ensure_ascii=False)
        shown = shown if len(shown) <= 100 else shown[:97] + "..."
        if count >= self.limit:
            return Repeat(
                count,
                True,
                f"`{name}` {shown} gave the same result {count} times, with no change to the "
                "project seen in between",
            )
        if count < self.note_at:
            return None
        return Repeat(
            count,
            False,
            f"Harness note: `{name}` {shown} gave the same result {count} times in a row, with no change "
            "to the project seen in between. If you are waiting for something (a server, a background "
            "job), wait longer before you check again (e.g. `sleep 10` first) or check something else; "
            f"otherwise change your approach. At {self.limit} identical results the task stops.",
        )
