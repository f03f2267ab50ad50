"""``skillshelf ui``: a local page that shows what the model sees, what was cut and why.

::

    browser ── GET /?token=T ──────────────→ static/index.html, app.js, app.css (in the package)
            ── GET /api/<view>?token=T ────→ routes ─→ budget · task · problems · memory · usage
            ── GET /api/events?token=T ────→ "change" when the watcher reloads the skills
            ── POST /api/memory/forget ────→ the only write (token header, same origin, JSON)
                       │
            guard: Host is loopback + our port, the token, same-origin POSTs
                       │
            UiState: Workspace.open(env, options) once, again on every change of a skill
                     folder (watcher.py: serve.watch) or of a settings file (stamps.py)
                     └─ every view calls the library the CLI calls: prepare_context/turn_parts
                        (context, catalog), select.service.search (search), validate_paths
                        (validate), UsageStore.stats (stats), the memory store (memory show/forget)

The server binds 127.0.0.1 only (:mod:`skillshelf.serve.ui.server`); nothing is fetched from
the network, and no route takes a file path.
"""

from __future__ import annotations

from skillshelf.serve.ui.server import UiServer
from skillshelf.serve.ui.state import UiOptions, UiState

__all__ = ["UiOptions", "UiServer", "UiState"]
