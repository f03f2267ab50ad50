"""How long a hook waits for its work before it answers empty.

Deadlines stay well under the timeouts ``setup`` writes into the agents' configuration
(10 s, 3 s for ``SessionEnd``), so the agent never has to kill the hook. Past the deadline the
hook still waits a little for its event's essential step (``ESSENTIAL_SECONDS``: the memory
queue's entry of ``Stop`` / ``SessionEnd``, the session's durable record); only the rest of
the work is given up. Light (no imports): the hook's client side reads it before it knows
whether it will do the work itself.
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = [
    "DEADLINES",
    "DEFAULT_DEADLINE",
    "ESSENTIAL_SECONDS",
    "MAX_DEADLINE",
    "MAX_DEADLINES",
    "work_limit",
]

DEADLINES: Mapping[str, float] = {"SessionEnd": 2.0, "Stop": 2.0}
DEFAULT_DEADLINE = 5.0
#: A deadline asked for is kept a second under the timeout ``setup`` gives the agent (10 s; 3 s
#: for SessionEnd, which Codex clamps to 3 s anyway).
MAX_DEADLINES: Mapping[str, float] = {"SessionEnd": 2.0}
MAX_DEADLINE = 9.0
#: How long past its deadline (or, when none was left, at all) a hook waits for the essential
#: step of these events (``hooks.events.ESSENTIAL``): half of the second each deadline keeps
#: under the agent's timeout, and under the second a hook gives the hook server beyond it.
ESSENTIAL_SECONDS: Mapping[str, float] = {"SessionEnd": 0.5, "Stop": 0.5}


def work_limit(event: str, asked: float | None) -> float:
    """Seconds to wait for the work (0: as long as it takes). A warm-up is never cut short, even
    when it inherits ``SKILLSHELF_HOOK_DEADLINE`` from the hook that started it."""
    if event == "warm" or asked == 0:
        return 0.0
    if asked is None:
        return DEADLINES.get(event, DEFAULT_DEADLINE)
    return min(asked, MAX_DEADLINES.get(event, MAX_DEADLINE))
