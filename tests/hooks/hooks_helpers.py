"""Shared by the hooks tests: a small project with skills, and hook input as the agents write it."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from skillshelf.dirs import UserDirs
from skillshelf.env import Env
from skillshelf.errors import FileAccessError
from skillshelf.hooks import setup_apply

SKILLS = {
    "pdf-forms": "Fill, flatten and extract fields of PDF forms. Use when a task involves PDF form fields.",
    "release-notes": "Write release notes from merged pull requests and tags. Use when preparing a release.",
    "db-migrations": "Plan and write safe database schema migrations with rollbacks.",
}


def write_skill(root: Path, name: str, description: str) -> Path:
    folder = root / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "scripts").mkdir(exist_ok=True)
    (folder / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: {description}\n---\n# {name}\nSTEPS-OF-{name}\n", encoding="utf-8"
    )
    return folder / "SKILL.md"


def box_dirs(box: Any) -> UserDirs:
    """skillshelf's folders under the isolated XDG folders: what ``Env.from_os`` finds there, so
    a hook run in a subprocess and one run here share them."""
    return UserDirs(
        cache=box.cache / "skillshelf",
        data=box.data / "skillshelf",
        config=box.config / "skillshelf",
        state=box.state / "skillshelf",
    )


def make_project(box: Any, *, config: str = "") -> Env:
    """``home/proj`` (a git root) with :data:`SKILLS` in ``.agents/skills`` and an optional user config."""
    project = box.home / "proj"
    (project / ".git").mkdir(parents=True)
    for name, description in SKILLS.items():
        write_skill(project / ".agents" / "skills", name, description)
    env = Env.for_test(cwd=project, home=box.home, codex_home=box.codex_home, dirs=box_dirs(box))
    if config:
        write_config(env, config)
    return env


def write_config(env: Env, text: str) -> None:
    """``text`` as the user config layer of ``env``."""
    env.dirs.config.mkdir(parents=True, exist_ok=True)
    (env.dirs.config / "config.toml").write_text(text, encoding="utf-8")


_TURNS: dict[str, int] = {}  # the prompts asked so far under each test's home
_TOOL_CALLS = itertools.count(1)


def hook_input(event: str, env: Env, **fields: Any) -> bytes:
    """What Claude Code writes on a hook's stdin (Codex's carries ``turn_id`` instead of
    ``prompt_id`` and a few more fields). As in a session, each ``UserPromptSubmit`` starts a
    new turn (``turn-1``, ``turn-2``... under ``env``'s home), the other events belong to the
    latest one, and each ``PostToolUse`` names its own tool call: a hook answers a call once."""
    home = str(env.home)
    if event == "UserPromptSubmit":
        _TURNS[home] = _TURNS.get(home, 0) + 1
    data = {
        "session_id": "sess-1",
        "transcript_path": str(env.home / ".claude" / "projects" / "p" / "sess-1.jsonl"),
        "cwd": str(env.cwd),
        "prompt_id": f"turn-{_TURNS.get(home, 1)}",
        "permission_mode": "default",
        "hook_event_name": event,
        **({"tool_use_id": f"toolu_{next(_TOOL_CALLS)}"} if event == "PostToolUse" else {}),
        **fields,
    }
    return json.dumps(data).encode()


def context_text(answer: bytes) -> str:
    """The additionalContext of an answer ("" for the empty answer)."""
    if not answer:
        return ""
    data = json.loads(answer)
    return str(data["hookSpecificOutput"]["additionalContext"])


def run_python(
    args: list[str], cwd: Path, stdin: bytes = b"", **env: str
) -> subprocess.CompletedProcess[bytes]:
    """``python ARGS`` in ``cwd``, ``env`` over this process's environment, output captured."""
    return subprocess.run(
        [sys.executable, *args],
        input=stdin,
        cwd=cwd,
        capture_output=True,
        timeout=120,
        env={**os.environ, **env},
        check=False,
    )


#: The skillshelf the setup tests' hooks name: this venv's console script, a program that exists
#: (``setup --status`` says hooks whose program is gone do not run).
COMMAND = [str(Path(sys.executable).with_name("skillshelf"))]


def set_up(env: Env, box: Any, agent: str, scope: str = "project", **kw: Any) -> Any:
    """``plan_setup`` with :data:`COMMAND`, applied; the plan."""
    from skillshelf.hooks.setup import apply_setup, plan_setup

    plan = plan_setup(env, agent, scope, command=COMMAND, state_dir=env.dirs.state, **kw)  # type: ignore[arg-type]
    apply_setup(plan, state_dir=env.dirs.state)
    return plan


def wait_for(check: Any, seconds: float = 60, step: float = 0.05) -> Any:
    """``check()``'s first true value, tried every ``step`` seconds for up to ``seconds``."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        found = check()
        if found:
            return found
        time.sleep(step)
    raise AssertionError("waited in vain")


def codex_project(box: Any) -> tuple[Path, Env, Path]:
    """A git repository under ``box``'s HOME and a Codex config.toml holding one setting."""
    repo = box.home / "repo"
    (repo / ".git").mkdir(parents=True)
    env = Env.for_test(cwd=repo, home=box.home, codex_home=box.codex_home)
    box.codex_home.mkdir()
    config = box.codex_home / "config.toml"
    config.write_text('model = "gpt-5"\n', encoding="utf-8")
    return repo, env, config


def failing_write_to(monkeypatch: pytest.MonkeyPatch, target: Path) -> None:
    """Setup's writes of ``target`` fail (SS005); its other writes go through."""
    write = setup_apply._write

    def failing(path: Path, text: str) -> None:
        if path == target:
            raise FileAccessError(f"cannot write {path}: Operation not permitted", hint="", code="SS005")
        write(path, text)

    monkeypatch.setattr(setup_apply, "_write", failing)
