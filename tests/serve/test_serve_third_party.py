"""Real third-party MCP clients (Claude Code, Codex) using `skillshelf serve`, driven offline by
model-standin: the scripted model asks for the tool calls, the CLI runs them against our server,
and the next model request in the log holds what our server answered."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from serve_helpers import QUIET, make_skill_tree, serve_args

from skillshelf.env import Env
from skillshelf.serve.instructions import server_instructions
from skillshelf.serve.loading import open_library
from skillshelf.workspace import WorkspaceOptions
from testkit import agent_cli

pytestmark = [pytest.mark.oracle, pytest.mark.usefixtures("isolated_home")]


def _server_entry(root: Path) -> dict[str, Any]:
    return {"command": sys.executable, "args": serve_args(root)}


def _tool_results(requests: list[dict[str, Any]]) -> list[str]:
    out = []
    for body in requests:
        last = (body.get("messages") or [{}])[-1]
        for block in last.get("content", []) if isinstance(last.get("content"), list) else []:
            if block.get("type") == "tool_result":
                content = block["content"]
                out.append(content if isinstance(content, str) else json.dumps(content))
    return out


def _claude_print(
    claude: Path, tmp_path: Path, root: Path, standin: Any, *args: str
) -> subprocess.CompletedProcess[str]:
    """``claude -p ARGS`` in a fresh project folder, with skillshelf as its MCP server and the
    standin as its model; asserted to exit 0."""
    project = tmp_path / "project"
    project.mkdir()
    config = json.dumps({"mcpServers": {"skillshelf": _server_entry(root)}})
    env = dict(os.environ, ANTHROPIC_BASE_URL=standin.url, ANTHROPIC_API_KEY="sk-ant-test", **QUIET)
    return _run([str(claude), "-p", *args[:1], "--mcp-config", config, *args[1:]], project, env)


def _run(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """A real agent CLI run to its end (at most 3 minutes), asserted to exit 0."""
    proc = subprocess.run(
        args, cwd=cwd, env=env, capture_output=True, text=True, encoding="utf-8", timeout=180, check=False
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc


def test_claude_code_searches_and_loads_a_skill_through_skillshelf_serve(
    tmp_path: Path, isolated_home: Any, model_standin: Any
) -> None:
    claude = agent_cli("claude")
    root = make_skill_tree(tmp_path)
    standin = model_standin(
        [
            {
                "tool_call": {
                    "name": "mcp__skillshelf__search_skills",
                    "arguments": {"query": "fill in a PDF form"},
                }
            },
            {"tool_call": {"name": "mcp__skillshelf__load_skill", "arguments": {"name": "pdf-forms"}}},
            {
                "tool_call": {
                    "name": "mcp__skillshelf__read_skill_file",
                    "arguments": {"name": "pdf-forms", "path": "../secret.txt"},
                }
            },
            {"text": "Done with the form."},
        ]
    )
    tools = [
        "mcp__skillshelf__search_skills",
        "mcp__skillshelf__load_skill",
        "mcp__skillshelf__read_skill_file",
    ]
    proc = _claude_print(
        claude, tmp_path, root, standin, "Fill in the PDF form claim.pdf", "--allowedTools", *tools
    )
    assert "Done with the form." in proc.stdout

    requests = [r["body"] for r in standin.requests() if r["path"].startswith("/v1/messages")]
    offered = {t["name"] for t in requests[0]["tools"] if t["name"].startswith("mcp__skillshelf__")}
    assert offered == {
        f"mcp__skillshelf__{n}" for n in ("search_skills", "load_skill", "read_skill_file", "list_skills")
    }
    first = json.dumps(requests[0])
    assert (
        "Skills beyond those your Skill tool lists" in first and "pdf-forms: Fill in" in first
    )  # instructions
    search, load, escape = _tool_results(requests)[:3]
    assert json.loads(search)["results"][0]["name"] == "pdf-forms"
    assert "<name>pdf-forms</name>" in load and "Run scripts/fill.py" in load and "- scripts/fill.py" in load
    assert "SS403" in escape and "hunter2" not in escape


def test_codex_lists_and_reads_skills_through_skillshelf_serve(
    tmp_path: Path, isolated_home: Any, model_standin: Any
) -> None:
    """Codex puts MCP tools in a namespace, and a namespaced call cannot be scripted through
    model-standin (its function_call items carry no namespace); Codex's own resource tools
    reach our server without one, so the skill is listed and loaded as an MCP resource."""
    codex = agent_cli("codex")
    root = make_skill_tree(tmp_path)
    standin = model_standin(
        [
            {"tool_call": {"name": "list_mcp_resources", "arguments": {"server": "skillshelf"}}},
            {
                "tool_call": {
                    "name": "read_mcp_resource",
                    "arguments": {"server": "skillshelf", "uri": "skill://pdf-forms/SKILL.md"},
                }
            },
            {
                "tool_call": {
                    "name": "read_mcp_resource",
                    "arguments": {"server": "skillshelf", "uri": "skill://pdf-forms/..%2F..%2Fsecret.txt"},
                }
            },
            {"text": "Done with the form."},
        ]
    )
    codex_home: Path = isolated_home.codex_home
    codex_home.mkdir(parents=True, exist_ok=True)
    entry = _server_entry(root)
    (codex_home / "config.toml").write_text(
        'model_provider = "standin"\nmodel = "gpt-5"\n[model_providers.standin]\nname = "standin"\n'
        f'base_url = "{standin.url}/v1"\nwire_api = "responses"\nenv_key = "OPENAI_API_KEY"\n'
        f"[mcp_servers.skillshelf]\ncommand = {json.dumps(entry['command'])}\n"
        f"args = {json.dumps(entry['args'])}\nstartup_timeout_sec = 60\n[features]\n"
        "tool_search_always_defer_mcp_tools = false\n",
        encoding="utf-8",
    )
    project = tmp_path / "project"
    project.mkdir()
    env = dict(os.environ, OPENAI_API_KEY="sk-test", CODEX_HOME=str(codex_home))
    _run([str(codex), "exec", "--skip-git-repo-check", "Fill in the PDF form claim.pdf"], project, env)

    requests = [r["body"] for r in standin.requests() if r["path"].startswith("/v1/responses")]
    # Codex does not wait for MCP servers before its first model request; later requests carry them
    namespace = next(t for t in requests[-1]["tools"] if t.get("name") == "mcp__skillshelf")
    assert {t["name"].rsplit("__", 1)[-1] for t in namespace["tools"]} == {
        "search_skills",
        "load_skill",
        "read_skill_file",
        "list_skills",
    }
    assert "pdf-forms" in namespace["description"]  # server instructions with the catalog
    served = open_library(
        Env.from_os(cwd=project), WorkspaceOptions(extra_roots=(root,), include_builtin=False)
    )
    assert namespace["description"] == server_instructions(served.tools).strip()  # whole: Codex cuts none
    outputs = [item["output"] for item in requests[-1]["input"] if item.get("type") == "function_call_output"]
    listed, loaded, escape = outputs[0], outputs[1], outputs[2]
    assert "skill://pdf-forms/scripts/fill.py" in listed
    assert "Run scripts/fill.py" in loaded
    assert "hunter2" not in escape and "SS403" in escape


def test_claude_code_hands_the_model_the_whole_request_typed_after_a_skill_prompt(
    tmp_path: Path, isolated_home: Any, model_standin: Any
) -> None:
    """Claude Code pairs the typed words with a prompt's declared arguments by position, so the
    prompt it is offered declares none and names the command's arguments, which it keeps whole."""
    claude = agent_cli("claude")
    root = make_skill_tree(tmp_path)
    standin = model_standin([{"text": "Done."}])
    _claude_print(claude, tmp_path, root, standin, "/mcp__skillshelf__pdf-forms fill claim.pdf with my name")
    requests = [r["body"] for r in standin.requests() if r["path"].startswith("/v1/messages")]
    texts = [block.get("text", "") for block in requests[-1]["messages"][0]["content"]]
    assert any("<command-args>fill claim.pdf with my name</command-args>" in t for t in texts)
    prompt = next(t for t in texts if "<name>pdf-forms</name>" in t)
    assert prompt.endswith(
        "Use the skill pdf-forms for the request typed with this command (its arguments), "
        "or for the task at hand when there is none."
    )
