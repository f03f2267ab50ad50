"""Fixtures for the end-to-end hook tests: the real, pinned Codex and Claude Code CLIs.

The CLIs are the ones ``../shared/tools/codex-oracle`` and ``claude-oracle`` use, pinned
releases from npm in the real home's ``~/.cache`` (``testkit.agent_cli`` installs a missing
one, one test process at a time). Outside CI a missing ``../shared`` or npm skips the test,
naming what is missing; under ``CI=true`` it fails.
"""

from __future__ import annotations

import fcntl
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest
from agent_cli_helpers import warm_vectors

from testkit import CORPORA, TOOLS, agent_cli, missing


def require(ok: bool, what: str) -> None:
    """:func:`testkit.missing` naming ``what`` unless ``ok``."""
    if not ok:
        missing(f"{what} is not available")


@dataclass(frozen=True)
class AgentCLIs:
    codex: Path
    claude: Path
    standin: Path
    corpora: Path


@pytest.fixture(scope="session")
def agent_clis() -> AgentCLIs:
    """Paths of the pinned CLIs, model-standin and the corpora (installs the CLIs if needed)."""
    require(TOOLS.is_dir(), f"../shared/tools ({TOOLS})")
    require(CORPORA.is_dir(), f"../shared/corpora ({CORPORA})")
    require(shutil.which("npm") is not None, "npm (to install the pinned Codex and Claude Code CLIs)")
    return AgentCLIs(
        codex=agent_cli("codex"),
        claude=agent_cli("claude"),
        standin=TOOLS / "model-standin",
        corpora=CORPORA,
    )


@pytest.fixture
def patient_hooks(monkeypatch: pytest.MonkeyPatch) -> None:
    """CI runs the end-to-end tests beside other tests on two cores, where the agent's own
    start-up competes with the hook: give the prompt hook most of the 10 s the agents allow it."""
    monkeypatch.setenv("SKILLSHELF_HOOK_DEADLINE", "9")


@pytest.fixture(scope="session")
def corpora_vectors(agent_clis: AgentCLIs, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """skillshelf's model vector caches (``<cache>/index/select/*-vectors.bin``) for the corpora,
    made once per test run by a ``search`` there, for tests to copy into their own cache folder:
    ranking 980 skills cold encodes each with every installed model (about 20 s of CPU with
    MiniLM), which a test of what the agent is shown need not pay, nor race against the hook's
    deadline. Shared by the test processes of one run (the first one to ask makes it, under a
    lock)."""
    shared = tmp_path_factory.getbasetemp()
    if "PYTEST_XDIST_WORKER" in os.environ:
        shared = shared.parent  # one run's folder, above each worker's own
    box = shared / "corpora-vectors"
    with open(shared / "corpora-vectors.lock", "w", encoding="utf-8") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (box / "made").exists():
            shutil.rmtree(box, ignore_errors=True)
            warm_vectors(box, agent_clis.corpora)
            (box / "made").touch()
    return box / "cache" / "skillshelf" / "index" / "select"
