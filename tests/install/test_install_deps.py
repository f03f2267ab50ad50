"""MCP servers that skills declare: configured in Codex's config.toml or not, and --write adds them
there, keeping the user's file intact."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from install_helpers import skill_declaring as _skill

from skillshelf.errors import ConfigError, SkillNotFoundError
from skillshelf.install.deps import deps_report, write_missing
from skillshelf.skills.model import ToolDependency

HTTP = ToolDependency(type="mcp", value="docs", url="https://mcp.example.com/docs", description="Docs search")
STDIO = ToolDependency(
    type="mcp", value="files", transport="stdio", command="npx -y @acme/files-mcp --root ."
)
OTHER = ToolDependency(type="env_var", value="API_KEY")
BROKEN = ToolDependency(type="MCP", value="nothing", transport="stdio")
SSE = ToolDependency(type="mcp", value="old-style", transport="sse", url="https://mcp.example.com/sse")

USER_CONFIG = """# my codex settings
model = "gpt-5"   # keep this comment

[mcp_servers.existing]
url = "https://mcp.example.com/existing"
"""


def test_status_of_each_declared_server(tmp_path: Path) -> None:
    user = tmp_path / "config.toml"
    codex = tmp_path / "codex.toml"
    user.write_text(USER_CONFIG, encoding="utf-8")
    codex.write_text('[mcp_servers.my-docs]\nurl = "https://mcp.example.com/docs"\n', encoding="utf-8")
    clash = ToolDependency(type="mcp", value="existing", url="https://elsewhere.example.com/")
    skills = [_skill("writer", HTTP, OTHER), _skill("filer", STDIO, BROKEN, SSE), _skill("clasher", clash)]
    report = deps_report(skills, user_config=user, codex_config=codex)
    status = {(e.dependency.skill, e.dependency.name): (e.status, e.configured_as) for e in report.entries}
    assert status == {
        ("writer", "docs"): ("configured", ("codex:my-docs",)),
        ("filer", "files"): ("missing", ()),
        ("filer", "nothing"): ("invalid", ()),
        ("filer", "old-style"): ("invalid", ()),
        ("clasher", "existing"): ("missing", ()),  # skillshelf's table is no agent's
    }
    assert report.config_file == codex
    only = deps_report(skills, user_config=user, codex_config=codex, name="writer")
    assert [e.dependency.name for e in only.entries] == ["docs"]


def test_write_adds_missing_servers_to_codexs_config_and_keeps_comments(tmp_path: Path) -> None:
    user = tmp_path / "config.toml"
    user.write_text(USER_CONFIG, encoding="utf-8")
    report = write_missing(
        deps_report([_skill("filer", STDIO)], user_config=tmp_path / "none.toml", codex_config=user)
    )
    assert report.written == ("files",)
    assert [e.status for e in report.entries] == ["configured"]
    text = user.read_text(encoding="utf-8")
    assert text.startswith(USER_CONFIG.rstrip("\n"))
    assert "# keep this comment" in text
    data = tomllib.loads(text)
    assert data["mcp_servers"]["files"] == {
        "command": "npx",
        "args": ["-y", "@acme/files-mcp", "--root", "."],
    }
    again = deps_report([_skill("filer", STDIO)], user_config=tmp_path / "none.toml", codex_config=user)
    assert [e.status for e in again.entries] == ["configured"] and again.entries[0].configured_as == (
        "codex:files",
    )
    assert write_missing(again).written == ()
    assert user.read_text(encoding="utf-8") == text


def test_write_creates_codexs_config_file_when_missing(tmp_path: Path) -> None:
    user = tmp_path / "cfg" / "config.toml"
    user.parent.mkdir()
    write_missing(
        deps_report([_skill("writer", HTTP)], user_config=tmp_path / "none.toml", codex_config=user)
    )
    assert tomllib.loads(user.read_text(encoding="utf-8"))["mcp_servers"]["docs"] == {
        "url": "https://mcp.example.com/docs"
    }


def test_broken_config_is_reported_and_never_written(tmp_path: Path) -> None:
    user = tmp_path / "config.toml"
    broken = "[mcp_servers.a\nurl = 1\n"
    user.write_text(broken, encoding="utf-8")
    report = deps_report([_skill("writer", HTTP)], user_config=tmp_path / "none.toml", codex_config=user)
    assert [d.code for d in report.diagnostics] == ["IS501"]
    assert report.diagnostics[0].line == 1
    with pytest.raises(ConfigError) as caught:
        write_missing(report)
    assert caught.value.code == "IS503"
    assert str(user) in caught.value.message
    assert user.read_text(encoding="utf-8") == broken


def test_codex_style_whole_command_counts_as_configured_and_one_server_per_endpoint(tmp_path: Path) -> None:
    codex = tmp_path / "codex.toml"
    codex.write_text(
        '[mcp_servers.files-by-codex]\ncommand = "npx -y @acme/files-mcp --root ."\n', encoding="utf-8"
    )
    user = tmp_path / "config.toml"
    user.write_text('[mcp_servers.ours]\nurl = "https://mcp.example.com/search"\n', encoding="utf-8")
    twin_a = ToolDependency(type="mcp", value="search-a", url="https://mcp.example.com/search")
    twin_b = ToolDependency(type="mcp", value="search-b", url=" https://mcp.example.com/search ")
    report = deps_report(
        [_skill("filer", STDIO), _skill("twins", twin_a, twin_b)], user_config=user, codex_config=codex
    )
    assert [(e.dependency.name, e.status) for e in report.entries] == [
        ("files", "configured"),
        ("search-a", "missing"),
        ("search-b", "missing"),
    ]
    written = write_missing(report)
    assert written.written == ("search-a",)
    assert [e.status for e in written.entries] == ["configured"] * 3
    assert list(tomllib.loads(codex.read_text(encoding="utf-8"))["mcp_servers"]) == [
        "files-by-codex",
        "search-a",
    ]


def test_a_name_no_skill_or_server_has_is_not_found_with_the_closest_names(tmp_path: Path) -> None:
    skills = [_skill("writer", HTTP), _skill("plain")]
    kwargs = {"user_config": tmp_path / "none.toml", "codex_config": tmp_path / "none2.toml"}
    with pytest.raises(SkillNotFoundError) as caught:
        deps_report(skills, name="writter", **kwargs)
    assert caught.value.code == "SK404" and caught.value.close == ("writer",)
    assert deps_report(skills, name="plain", **kwargs).entries == ()  # a skill that declares none
    assert [e.dependency.skill for e in deps_report(skills, name="docs", **kwargs).entries] == ["writer"]
