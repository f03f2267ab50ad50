"""The user's own hook beside skillshelf's in a project's ``.codex/hooks.json`` still runs in
the real Codex 0.171.0 after ``setup codex`` again, from another install path, and after
``--remove`` (which shifts the user's group: its trust moves to the new key)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

from agent_cli_helpers import E2E_MARKS, run_codex, small_repo, standin_codex_home

from skillshelf.hooks import tomlblock
from skillshelf.hooks.agents import HookSpec
from skillshelf.hooks.codex import trust_hash

pytestmark = E2E_MARKS


def _setup(repo: Path, path: str, *args: str) -> None:
    """``skillshelf setup codex`` with ``PATH`` as given (which decides the hook command)."""
    command = [sys.executable, "-m", "skillshelf.cli.main", "setup", "codex", "--scope", "project", *args]
    env = {**os.environ, "PATH": path}
    done = subprocess.run(command, cwd=repo, env=env, capture_output=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr.decode()


def _commands(hooks_file: Path) -> list[str]:
    data = json.loads(hooks_file.read_text(encoding="utf-8"))
    return [h["command"] for groups in data["hooks"].values() for g in groups for h in g["hooks"]]


def test_the_users_own_codex_hook_keeps_running_through_setup_and_remove(
    agent_clis: Any, isolated_home: Any, model_standin: Any
) -> None:
    repo, _skill, _marker = small_repo(isolated_home, ".agents/skills")
    standin = model_standin([{"text": "OK"}])
    config = standin_codex_home(isolated_home, standin.url, repo)
    ran = isolated_home.home / "user-hook-ran"
    user = HookSpec(event="UserPromptSubmit", command=f"touch {ran}", timeout=5)
    hooks_file = repo / ".codex" / "hooks.json"

    def runs() -> bool:
        ran.unlink(missing_ok=True)
        run_codex(agent_clis.codex, repo, "hello")
        return ran.exists()

    with_venv = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', os.defpath)}"
    _setup(repo, with_venv)
    data = json.loads(hooks_file.read_text(encoding="utf-8"))
    data["hooks"]["UserPromptSubmit"].append(user.group())
    hooks_file.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    # accepted in Codex: it writes the entry after the last hooks.state table, in our block
    key = f"{hooks_file}:user_prompt_submit:1:0"
    text = config.read_text(encoding="utf-8")
    at = text.index(tomlblock.END)
    entry = f'\n[hooks.state."{key}"]\ntrusted_hash = "{trust_hash(user)}"\n'
    config.write_text(text[:at] + entry + text[at:], encoding="utf-8")
    assert runs()

    first = _commands(hooks_file)
    _setup(repo, os.pathsep.join(("/usr/bin", "/bin")))  # no skillshelf on PATH: `python -m`
    assert _commands(hooks_file) != first  # skillshelf's hooks now name another command
    assert runs()

    _setup(repo, with_venv, "--remove")
    assert json.loads(hooks_file.read_text(encoding="utf-8")) == {
        "hooks": {"UserPromptSubmit": [user.group()]}
    }
    state = tomllib.loads(config.read_text(encoding="utf-8"))["hooks"]["state"]
    assert state == {key.replace(":1:0", ":0:0"): {"trusted_hash": trust_hash(user)}}
    assert runs()


def test_a_hook_the_user_put_before_skillshelfs_takes_no_trust_from_it(
    agent_clis: Any, isolated_home: Any, model_standin: Any
) -> None:
    """The user's group put first after setup: setup again gives skillshelf's trust to its
    hook's new key and leaves the user's untrusted (Codex skips it until accepted); `--remove`
    then leaves only the trust the user accepted."""
    repo, _skill, _marker = small_repo(isolated_home, ".agents/skills")
    standin = model_standin([{"text": "OK"}, {"text": "OK"}, {"text": "OK"}])
    config = standin_codex_home(isolated_home, standin.url, repo)
    before = config.read_text(encoding="utf-8")
    ran = isolated_home.home / "user-hook-ran"
    user = HookSpec(event="UserPromptSubmit", command=f"touch {ran}", timeout=5)
    hooks_file = repo / ".codex" / "hooks.json"
    log = isolated_home.state / "skillshelf" / "hooks" / "hooks.log"

    def runs() -> tuple[bool, int]:
        """Whether the user's hook ran, and how many prompt hooks skillshelf answered."""
        ran.unlink(missing_ok=True)
        run_codex(agent_clis.codex, repo, "hello")
        lines = log.read_text(encoding="utf-8").splitlines() if log.exists() else []
        return ran.exists(), sum(" UserPromptSubmit " in line for line in lines)

    with_venv = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', os.defpath)}"
    _setup(repo, with_venv)
    data = json.loads(hooks_file.read_text(encoding="utf-8"))
    data["hooks"]["UserPromptSubmit"].insert(0, user.group())
    hooks_file.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    _setup(repo, with_venv)
    key = f"{hooks_file}:user_prompt_submit:0:0"
    assert key not in tomllib.loads(config.read_text(encoding="utf-8"))["hooks"]["state"]
    assert runs() == (False, 1)

    text = config.read_text(encoding="utf-8")  # accepted in Codex: an entry in our block
    at = text.index(tomlblock.END)
    entry = f'\n[hooks.state."{key}"]\ntrusted_hash = "{trust_hash(user)}"\n'
    config.write_text(text[:at] + entry + text[at:], encoding="utf-8")
    assert runs() == (True, 2)

    _setup(repo, with_venv, "--remove")
    assert config.read_text(encoding="utf-8") == before + entry
    assert runs() == (True, 2)
