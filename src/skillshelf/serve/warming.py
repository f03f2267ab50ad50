"""The embedding models' vectors for ``search_skills``, built in a thread beside the index.

The first build of a large library's vectors can take longer than an MCP client waits for a
tool call, so a search waits for them at most :data:`MODELS_WAIT_SECONDS`, then ranks without
them and says so (:data:`WARMING_NOTE`); the build goes on, the searches after that one do not
wait again, and they rank with the models once the build is done. A model that fails to load
or build costs the ranking its signal, never the search.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from skillshelf.errors import SkillshelfError

if TYPE_CHECKING:
    from skillshelf.select.index import SkillIndex
    from skillshelf.select.semantic import SemanticIndex

__all__ = ["MODELS_WAIT_SECONDS", "WARMING_NOTE", "ModelVectors", "installed_models"]

log = logging.getLogger(__name__)

MODELS_WAIT_SECONDS = 10.0
"""How long a search waits for the embedding models' vectors before it answers with the base
ranking. MCP clients give up on a tool call past a deadline (Codex's ``tool_timeout_sec``, 60 s
by default), and the first build of a large library's vectors can take longer than that (860
skills with MiniLM and WordLlama, cold caches, two busy cores: 47 to 67 s). So a search waits
this long at most, leaving the index's own build and the answer well inside the deadline."""
WARMING_NOTE = (
    "(The embedding models are still warming up, so this is the base ranking, without them, as "
    "`skillshelf search --no-semantic` ranks; the same search in a minute ranks with the models "
    "too.)"
)

Builder = Callable[["SkillIndex"], "SemanticIndex | None"]


class ModelVectors:
    """The models' vectors of one index, built once by ``build`` in a daemon thread
    (:meth:`start`); :meth:`ready` waits for them a bounded time."""

    def __init__(self, build: Builder) -> None:
        self._build = build
        self._done = threading.Event()
        self.semantic: SemanticIndex | None = None  # set once the build is done (None: no models)

    def start(self, index: SkillIndex | None) -> None:
        """Build the vectors of ``index`` in a thread; None (no models wanted, nothing to rank):
        done at once, without them."""
        if index is None:
            self._done.set()
            return
        threading.Thread(target=self._run, args=(index,), name="skillshelf models", daemon=True).start()

    def ready(self, timeout: float | None = None) -> bool:
        """Whether the build is done (or will not be: no models, a build that failed), waiting at
        most ``timeout`` seconds for it (None: until it is); False before :meth:`start`."""
        return self._done.wait(timeout)

    def _run(self, index: SkillIndex) -> None:
        try:
            self.semantic = self._build(index)
        except Exception:  # a bug in a model: logged, the ranking goes on without it
            log.exception("search_skills goes on without the embedding models")
        finally:
            self._done.set()


def installed_models(cache_dir: Path | None) -> Builder:
    """The builder of the installed models' vectors (:func:`~skillshelf.select.service.semantic_for`),
    cached in ``cache_dir``; a model that fails to load gives None, with a warning."""

    def build(index: SkillIndex) -> SemanticIndex | None:
        from skillshelf.select.service import semantic_for

        try:
            return semantic_for(index, mode=None, cache_dir=cache_dir) if len(index) else None
        except (SkillshelfError, OSError, ValueError) as exc:
            log.warning("search_skills goes on without the embedding models: %s", exc)
            return None

    return build
