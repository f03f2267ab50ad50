"""Fixtures for the end-to-end hook tests: the real, pinned Codex and Claude Code CLIs.

The CLIs are the ones ``../shared/tools/codex-oracle`` and ``claude-oracle`` install from npm
into ``~/.cache``; when one is missing, its oracle is run once to install it. Outside CI a
missing ``../shared`` or npm skips the test, naming what is missing; under ``CI=true`` it fails.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from testkit import CORPORA, TOOLS, missing

CODEX_VERSION = "0.171.0"
CLAUDE_VERSION = "2.1.197"


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


def _installed(tool: str, version: str, binary: str) -> Path:
    env_name = f"{tool.upper().replace('-', '_')}_CACHE"
    cache = Path(os.environ.get(env_name) or Path.home() / ".cache" / tool / version)
    path = cache / "node_modules" / ".bin" / binary
    if path.exists():
        return path
    with tempfile.TemporaryDirectory(prefix="skillshelf-install-") as tmp:
        work = Path(tmp)
        args = [str(TOOLS / tool), "--cwd", str(work), "--home", str(work / "home")]
        if tool == "codex-oracle":
            args += ["--codex-home", str(work / "codex-home")]
        done = subprocess.run(
            args, capture_output=True, text=True, encoding="utf-8", timeout=900, check=False
        )
    require(path.exists(), f"the {binary} CLI ({tool} could not install it: {done.stderr.strip()[-300:]})")
    return path


@pytest.fixture(scope="session")
def agent_clis() -> AgentCLIs:
    """Paths of the pinned CLIs, model-standin and the corpora (installs the CLIs if needed)."""
    require(TOOLS.is_dir(), f"../shared/tools ({TOOLS})")
    require(CORPORA.is_dir(), f"../shared/corpora ({CORPORA})")
    require(shutil.which("npm") is not None, "npm (to install the pinned Codex and Claude Code CLIs)")
    return AgentCLIs(
        codex=_installed("codex-oracle", CODEX_VERSION, "codex"),
        claude=_installed("claude-oracle", CLAUDE_VERSION, "claude"),
        standin=TOOLS / "model-standin",
        corpora=CORPORA,
    )


@pytest.fixture
def patient_hooks(monkeypatch: pytest.MonkeyPatch) -> None:
    """CI runs the end-to-end tests beside other tests on two cores, where the agent's own
    start-up competes with the hook: give the prompt hook most of the 10 s the agents allow it."""
    monkeypatch.setenv("SKILLSHELF_HOOK_DEADLINE", "9")
