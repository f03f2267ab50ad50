"""Fixtures shared by every test package.

- ``isolated_home``: HOME, CODEX_HOME, XDG and SKILLSHELF_* folders under ``tmp_path`` so no
  test reads or writes the developer's real configuration; no hook server starts.
- ``codex_oracle`` / ``claude_oracle``: run the real CLIs from ``../shared/tools``. Without npm,
  the tools or a successful npm install the test is skipped naming what is missing, or fails
  under ``CI=true`` (``testkit.missing``). Both use one install of their CLI, under the real
  home's cache (``testkit.pin_oracle_caches``), whatever HOME a test gives them.
- ``model_standin``: a factory that starts the scripted model server on loopback.

A test run started with SIGINT ignored (a background job of a non-interactive shell) gets
Ctrl-C's usual meaning back, so the processes the tests start and interrupt, as a user's
Ctrl-C would, take SIGINT as they do in a terminal.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from testkit import (
    BENCHMARKS,
    CORPORA,
    REPO,
    SHARED,
    TOOLS,
    IsolatedHome,
    agent_cli,
    missing,
    pin_oracle_caches,
)

__all__ = ["BENCHMARKS", "CORPORA", "REPO", "SHARED", "TOOLS", "IsolatedHome"]


def pytest_configure(config: pytest.Config) -> None:
    # an ignored SIGINT is inherited through exec; a handled one is reset to the default there
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    pin_oracle_caches()  # before any test moves HOME


@pytest.fixture
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> IsolatedHome:
    home = tmp_path / "home"
    box = IsolatedHome(
        home=home,
        codex_home=home / ".codex",
        cache=home / ".cache",
        data=home / ".local" / "share",
        config=home / ".config",
        state=home / ".local" / "state",
    )  # the XDG defaults below HOME: Env.for_test(home=home) uses the same folders
    for folder in (box.home, box.cache, box.data, box.config, box.state):
        folder.mkdir(parents=True, exist_ok=True)
    monkeypatch.setenv("HOME", str(box.home))
    monkeypatch.setenv("CODEX_HOME", str(box.codex_home))
    monkeypatch.setenv("XDG_CACHE_HOME", str(box.cache))
    monkeypatch.setenv("XDG_DATA_HOME", str(box.data))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(box.config))
    monkeypatch.setenv("XDG_STATE_HOME", str(box.state))
    monkeypatch.setenv("SKILLSHELF_HOOK_SERVER", "0")  # tests that want one start it and stop it
    for name in (
        "SKILLSHELF_CACHE_DIR",
        "SKILLSHELF_DATA_DIR",
        "SKILLSHELF_CONFIG_DIR",
        "SKILLSHELF_STATE_DIR",
    ):
        monkeypatch.delenv(name, raising=False)
    return box


def _tool(name: str) -> Path:
    path = TOOLS / name
    if not path.exists():
        missing(f"{path} is not available (it comes from ../shared beside the project)")
    if shutil.which("npm") is None and name != "model-standin":
        missing("npm is not available, so the reference CLIs cannot be installed")
    return path


OracleRunner = Callable[..., dict[str, Any]]


@pytest.fixture(scope="session")
def codex_oracle() -> OracleRunner:
    """``codex_oracle(cwd, home=..., codex_home=..., config={...})`` -> the oracle's JSON."""
    tool = _tool("codex-oracle")
    agent_cli("codex")

    def run(
        cwd: Path, *, home: Path, codex_home: Path, config: dict[str, object] | None = None
    ) -> dict[str, Any]:
        args = [str(tool), "--cwd", str(cwd), "--home", str(home), "--codex-home", str(codex_home)]
        for key, value in (config or {}).items():
            args += ["-c", f"{key}={value}"]
        proc = subprocess.run(
            args, capture_output=True, text=True, encoding="utf-8", timeout=300, check=False
        )
        if proc.returncode == 3:
            missing("codex-oracle could not install Codex with npm")
        assert proc.returncode == 0, proc.stderr
        result: dict[str, Any] = json.loads(proc.stdout)
        return result

    return run


@pytest.fixture(scope="session")
def claude_oracle() -> OracleRunner:
    """``claude_oracle(cwd, home=..., environ=...)`` -> the oracle's JSON (skills_listing,
    claude_md, transcript); ``environ``: variables added to Claude Code's environment."""
    tool = _tool("claude-oracle")
    agent_cli("claude")

    def run(
        cwd: Path, *, home: Path, prompt: str = ".", environ: Mapping[str, str] | None = None
    ) -> dict[str, Any]:
        args = [str(tool), "--cwd", str(cwd), "--home", str(home), "--prompt", prompt]
        proc = subprocess.run(
            args,
            capture_output=True,
            text=True,
            encoding="utf-8",
            timeout=300,
            check=False,
            env={**os.environ, **(environ or {})},
        )
        if proc.returncode == 3:
            missing("claude-oracle could not install Claude Code with npm")
        assert proc.returncode == 0, proc.stderr
        result: dict[str, Any] = json.loads(proc.stdout)
        return result

    return run


@dataclass
class Standin:
    url: str  # http://127.0.0.1:PORT
    log: Path
    process: subprocess.Popen[bytes]

    def requests(self) -> list[dict[str, Any]]:
        if not self.log.exists():
            return []
        return [
            json.loads(line) for line in self.log.read_text(encoding="utf-8").splitlines() if line.strip()
        ]


@pytest.fixture
def model_standin(tmp_path: Path) -> Iterator[Callable[[list[dict[str, Any]]], Standin]]:
    """Start ``model-standin`` with a script of replies; stopped at teardown."""
    tool = _tool("model-standin")
    started: list[Standin] = []

    def start(script: list[dict[str, Any]]) -> Standin:
        n = len(started)
        script_file = tmp_path / f"standin-script-{n}.json"
        script_file.write_text(json.dumps(script), encoding="utf-8")
        port_file = tmp_path / f"standin-port-{n}"
        log = tmp_path / f"standin-log-{n}.jsonl"
        proc = subprocess.Popen(
            [
                sys.executable,
                str(tool),
                "--port-file",
                str(port_file),
                "--log",
                str(log),
                "--script",
                str(script_file),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while not (port_file.exists() and port_file.read_text(encoding="utf-8").strip()):
            if time.monotonic() > deadline or proc.poll() is not None:
                proc.kill()
                raise RuntimeError("model-standin did not start")
            time.sleep(0.05)
        standin = Standin(
            url=f"http://127.0.0.1:{port_file.read_text(encoding='utf-8').strip()}", log=log, process=proc
        )
        started.append(standin)
        return standin

    yield start
    for standin in started:
        standin.process.terminate()
        try:
            standin.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            standin.process.kill()
