"""`deps --write` configures a skill's MCP servers where Codex reads them ($CODEX_HOME/config.toml),
never in a file no agent reads; Claude Code gets the `claude mcp add` line of each server. The
real Codex and Claude Code CLIs read what these give."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from pathlib import Path

import pytest
from install_helpers import skill_declaring as _skill

from skillshelf.errors import ConfigError
from skillshelf.install.deps import claude_add_command, deps_report, write_missing
from skillshelf.skills.model import ToolDependency
from testkit import agent_cli

HTTP = ToolDependency(type="mcp", value="docs", url="https://mcp.example.com/docs")
STDIO = ToolDependency(
    type="mcp", value="files", transport="stdio", command="npx -y @acme/files-mcp --root ."
)
NO_COMMAND = ToolDependency(type="mcp", value="nothing", transport="stdio")


def _agent_env(home: Path, codex_home: Path) -> dict[str, str]:
    keep = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "TMPDIR")}
    return {**keep, "HOME": str(home), "CODEX_HOME": str(codex_home)}


def test_a_server_only_in_skillshelfs_own_config_is_missing_and_says_no_agent_reads_it(
    tmp_path: Path,
) -> None:
    ours = tmp_path / "skillshelf.toml"
    ours.write_text('[mcp_servers.docs]\nurl = "https://mcp.example.com/docs"\n', encoding="utf-8")
    (tmp_path / "codex").mkdir()
    report = deps_report(
        [_skill("writer", HTTP)], user_config=ours, codex_config=tmp_path / "codex" / "config.toml"
    )
    [entry] = report.entries
    assert entry.status == "missing" and entry.configured_as == ()
    assert str(ours) in entry.note and "no agent reads" in entry.note and "Codex" in entry.note
    written = write_missing(report)
    assert written.written == ("docs",) and written.entries[0].configured_as == ("codex:docs",)


def test_write_without_codexs_folder_is_is506_and_makes_nothing(tmp_path: Path) -> None:
    codex = tmp_path / "no-codex" / "config.toml"
    report = deps_report([_skill("writer", HTTP)], user_config=tmp_path / "none.toml", codex_config=codex)
    with pytest.raises(ConfigError) as caught:
        write_missing(report)
    assert caught.value.code == "IS506" and "nothing was written" in caught.value.message
    assert "claude mcp add" in (caught.value.hint or "")
    assert not codex.parent.exists()


def test_each_usable_server_has_its_claude_mcp_add_line() -> None:
    report = deps_report(
        [_skill("both", HTTP, STDIO, NO_COMMAND)],
        user_config=Path("/nonexistent/a.toml"),
        codex_config=Path("/nonexistent/b.toml"),
    )
    lines = {e.dependency.name: e.to_dict()["claude_add"] for e in report.entries}
    assert lines == {
        "docs": "claude mcp add --transport http --scope user docs https://mcp.example.com/docs",
        "files": "claude mcp add --scope user files -- npx -y @acme/files-mcp --root .",
        "nothing": None,
    }


def test_codex_lists_the_servers_write_added_to_its_config(tmp_path: Path) -> None:
    codex = agent_cli("codex")
    codex_home = tmp_path / "home" / ".codex"
    codex_home.mkdir(parents=True)
    config = codex_home / "config.toml"
    config.write_text('# mine\nmodel = "gpt-5"\n', encoding="utf-8")
    report = deps_report(
        [_skill("both", HTTP, STDIO)], user_config=tmp_path / "none.toml", codex_config=config
    )
    assert write_missing(report).written == ("docs", "files")
    proc = subprocess.run(
        [str(codex), "mcp", "list", "--json"],
        env=_agent_env(tmp_path / "home", codex_home),
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
        check=True,
    )
    listed = {s["name"]: s["transport"] for s in json.loads(proc.stdout)}
    assert listed["docs"]["type"] == "streamable_http" and listed["docs"]["url"] == HTTP.url
    assert listed["files"]["type"] == "stdio" and listed["files"]["command"] == "npx"
    assert listed["files"]["args"] == ["-y", "@acme/files-mcp", "--root", "."]
    assert config.read_text(encoding="utf-8").startswith('# mine\nmodel = "gpt-5"\n')


def test_claude_code_configures_the_servers_from_the_lines_given(tmp_path: Path) -> None:
    claude = agent_cli("claude")
    home = tmp_path / "home"
    home.mkdir()
    report = deps_report(
        [_skill("both", HTTP, STDIO)], user_config=tmp_path / "a.toml", codex_config=tmp_path / "b.toml"
    )
    for entry in report.entries:
        line = claude_add_command(entry.dependency)
        assert line is not None
        subprocess.run(
            [str(claude), *shlex.split(line)[1:]],
            cwd=home,
            env=_agent_env(home, home / ".codex"),
            capture_output=True,
            timeout=120,
            check=True,
        )
    servers = json.loads((home / ".claude.json").read_text(encoding="utf-8"))["mcpServers"]
    assert servers["docs"] == {"type": "http", "url": HTTP.url}
    assert servers["files"]["command"] == "npx" and servers["files"]["args"] == [
        "-y",
        "@acme/files-mcp",
        "--root",
        ".",
    ]
