"""The MCP server's instructions shaped for the client: Claude Code gets the skills it does not
list itself within its 2,048-character cap; other clients the whole budgeted catalog."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from serve_helpers import QUIET, write_skill

from skillshelf.env import Env
from skillshelf.serve.instructions import (
    CLAUDE_HEAD,
    CLAUDE_INSTRUCTIONS_CAP,
    INSTRUCTIONS_HEAD,
    client_for,
    js_length,
    server_instructions,
)
from skillshelf.serve.loading import open_library
from skillshelf.workspace import WorkspaceOptions
from testkit import agent_cli

LONG = "Handle {n} work end to end: plan it, check every input, write the result and verify it twice. " * 3
CLAUDE_OWN = [f"claude-own-{i}" for i in range(6)]
OTHERS = [f"agents-skill-{i}" for i in range(8)]


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    for name in CLAUDE_OWN:
        write_skill(project / ".claude" / "skills", name, LONG.format(n=name), "# body\n")
    for name in OTHERS:
        write_skill(project / ".agents" / "skills", name, LONG.format(n=name), "# body\n")
    return project


def _env(project: Path) -> Env:
    return Env.from_os(cwd=project)


def test_auto_is_claude_only_for_a_stdio_server_that_claude_code_started() -> None:
    assert client_for("auto", {"CLAUDECODE": "1"}, "stdio") == "claude"
    assert client_for("auto", {"CLAUDECODE": "1"}, "http") == "generic"
    assert client_for("auto", {}, "stdio") == "generic"
    assert client_for("claude", {}, "http") == "claude"
    assert client_for("generic", {"CLAUDECODE": "1"}, "stdio") == "generic"


@pytest.mark.usefixtures("isolated_home")
def test_claude_instructions_fit_the_cap_and_leave_out_the_skills_claude_code_lists(tmp_path: Path) -> None:
    env = _env(_project(tmp_path))
    tools = open_library(env).tools
    text = server_instructions(tools, client="claude", env=env)
    assert len(text) <= CLAUDE_INSTRUCTIONS_CAP
    assert text.startswith(CLAUDE_HEAD)
    assert all(f"- {name}:" in text for name in OTHERS)
    assert not any(name in text for name in CLAUDE_OWN)
    generic = server_instructions(tools, env=env)
    assert generic.startswith(INSTRUCTIONS_HEAD) and all(f"- {name}:" in generic for name in CLAUDE_OWN)
    assert len(generic) > CLAUDE_INSTRUCTIONS_CAP


@pytest.mark.usefixtures("isolated_home")
def test_claude_instructions_say_so_when_claude_code_lists_every_skill(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    write_skill(project / ".claude" / "skills", "only-mine", "Mine alone.", "# body\n")
    env = _env(project)
    tools = open_library(env, WorkspaceOptions(include_builtin=False)).tools
    text = server_instructions(tools, client="claude", env=env)
    assert "only-mine" not in text and "lists already" in text


@pytest.mark.oracle
@pytest.mark.usefixtures("isolated_home")
def test_claude_code_gets_the_whole_catalog_of_skills_it_does_not_list(
    tmp_path: Path, model_standin: Any
) -> None:
    claude = agent_cli("claude")
    project = _project(tmp_path)
    standin = model_standin([{"text": "ok"}])
    server = {"command": sys.executable, "args": ["-m", "skillshelf.cli.main", "serve", "--no-builtin"]}
    env = dict(os.environ, ANTHROPIC_BASE_URL=standin.url, ANTHROPIC_API_KEY="sk-ant-test", **QUIET)
    proc = subprocess.run(
        [str(claude), "-p", "hi", "--mcp-config", json.dumps({"mcpServers": {"skillshelf": server}})],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=180,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    bodies = [json.dumps(r["body"]) for r in standin.requests() if r["path"].startswith("/v1/messages")]
    first = next((body for body in bodies if CLAUDE_HEAD[:40] in body), "")
    assert first, f"no request held the server's instructions: {proc.stdout + proc.stderr}"
    start = first.index(CLAUDE_HEAD[:40])
    served = first[start : first.find("claude-own-", start)]
    assert all(f"- {name}:" in served for name in OTHERS), served
    assert "[truncated]" not in served


@pytest.mark.usefixtures("isolated_home")
def test_claude_instructions_stay_within_the_cap_for_hundreds_of_skills(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    for i in range(300):
        write_skill(project / ".agents" / "skills", f"skill-number-{i:03}", LONG.format(n=i), "# body\n")
    env = _env(project)
    text = server_instructions(open_library(env).tools, client="claude", env=env)
    assert len(text) <= CLAUDE_INSTRUCTIONS_CAP and text.startswith(CLAUDE_HEAD) and "- skill-number-" in text


@pytest.mark.usefixtures("isolated_home")
def test_the_claude_cap_counts_as_javascript_does_two_units_for_an_emoji(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    for i in range(8):
        write_skill(project / ".agents" / "skills", f"emo-{i}", "Party task " + "\U0001f389" * 60, "# body\n")
    env = _env(project)
    text = server_instructions(open_library(env).tools, client="claude", env=env)
    assert js_length(text) <= CLAUDE_INSTRUCTIONS_CAP and "- emo-7:" in text
    assert js_length("a\U0001f389") == 3
