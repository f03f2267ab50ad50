"""`deps --write` adds servers without changing any other key, and never an untrusted project's."""

from __future__ import annotations

import dataclasses
import tomllib
from pathlib import Path

import pytest

from skillshelf.errors import ConfigError
from skillshelf.install.deps import DepsReport, DepStatus, McpDependency, write_missing


def _report(config: Path, *, trusted: bool = True, name: str = "helper") -> DepsReport:
    dep = McpDependency(
        skill="s",
        skill_path=config.parent / "s" / "SKILL.md",
        name=name,
        transport="stdio",
        command="tool --flag 'two words'",
    )
    if not trusted:
        dep = dataclasses.replace(dep, trusted=False)
    return DepsReport(entries=(DepStatus(dependency=dep, status="missing"),), config_file=config)


@pytest.mark.parametrize(
    "text",
    [
        'mcp_servers.a.url = "https://a"\nmemory.enabled = false\n',
        "skills.builtin = false\nmemory.enabled = false\n",
        '[mcp_servers.a]\nurl = "https://a"\n\n[memory]\nenabled = false\n',
        "# only a comment, no newline at the end",
        "",
    ],
)
def test_write_adds_the_server_and_changes_no_other_key(tmp_path: Path, text: str) -> None:
    config = tmp_path / "config.toml"
    config.write_text(text, encoding="utf-8")
    before = tomllib.loads(text)
    report = write_missing(_report(config))
    after = tomllib.loads(config.read_text(encoding="utf-8"))
    assert report.written == ("helper",)
    servers = after.pop("mcp_servers")
    assert servers.pop("helper") == {"command": "tool", "args": ["--flag", "two words"]}
    assert servers == before.pop("mcp_servers", {})
    assert after == before


def test_an_inline_servers_table_gets_the_server_as_one_of_its_entries(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('mcp_servers = { a = { url = "https://a" } }\n', encoding="utf-8")
    assert write_missing(_report(config)).written == ("helper",)
    text = config.read_text(encoding="utf-8")
    assert (
        text.startswith('mcp_servers = { a = { url = "https://a" }, helper = {')
        and "[mcp_servers" not in text
    )
    data = tomllib.loads(text)
    assert data["mcp_servers"] == {
        "a": {"url": "https://a"},
        "helper": {"command": "tool", "args": ["--flag", "two words"]},
    }


def test_an_untrusted_projects_server_is_left_out_unless_allowed(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text("# mine\n", encoding="utf-8")
    refused = write_missing(_report(config, trusted=False))
    assert refused.written == () and [d.code for d in refused.diagnostics] == ["IS505"]
    assert "tool --flag" in refused.diagnostics[0].message and refused.diagnostics[0].fix
    assert config.read_text(encoding="utf-8") == "# mine\n"
    assert refused.entries[0].to_dict()["trusted"] is False
    allowed = write_missing(_report(config, trusted=False), allow_untrusted=True)
    assert allowed.written == ("helper",)
    assert "helper" in tomllib.loads(config.read_text(encoding="utf-8"))["mcp_servers"]


def test_write_waits_for_another_edit_of_the_config_and_reports_cf113_past_the_wait(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from skillshelf.config import edit_text
    from skillshelf.fileio import folder_lock

    monkeypatch.setattr(edit_text, "EDIT_WAIT", 0.1)
    config = tmp_path / "config.toml"
    config.write_text("memory.enabled = false\n", encoding="utf-8")
    with folder_lock(tmp_path), pytest.raises(ConfigError) as info:
        write_missing(_report(config))
    assert info.value.code == "CF113"
    assert config.read_text(encoding="utf-8") == "memory.enabled = false\n"
    assert write_missing(_report(config)).written == ("helper",)


def test_only_untrusted_servers_are_refused_as_untrusted_where_codex_has_no_folder(tmp_path: Path) -> None:
    config = tmp_path / "no-codex" / "config.toml"
    refused = write_missing(_report(config, trusted=False))
    assert refused.written == () and [d.code for d in refused.diagnostics] == ["IS505"]
    assert not config.parent.exists()
    with pytest.raises(ConfigError) as info:
        write_missing(_report(config, trusted=False), allow_untrusted=True)
    assert info.value.code == "IS506" and not config.parent.exists()
