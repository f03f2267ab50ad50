"""`skillshelf serve` whose folder watch fails at every start once a trigger file exists (as a
broken notify backend would), so that it gives up; run as ``python watch_gives_up.py TRIGGER
SERVE-ARGS...`` by the tests of what a client is told then."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import watchfiles

from skillshelf.cli.main import main
from skillshelf.serve import watch


def _failing_awatch(trigger: Path) -> Any:
    async def awatch(*paths: Path, **options: Any) -> AsyncIterator[set[Any]]:
        while not trigger.exists():
            await anyio.sleep(0.02)
        raise ExceptionGroup("unhandled errors in a TaskGroup", [RuntimeError("the backend broke")])
        yield set()

    return awatch


if __name__ == "__main__":
    watchfiles.awatch = _failing_awatch(Path(sys.argv[1]))
    watch.RESTART_S = 0.001
    sys.argv = ["skillshelf", *sys.argv[2:]]
    sys.exit(main())
