"""`deps --write` and a Codex config whose ``mcp_servers`` is an inline table: the servers go
inside it, and when no edit is faithful the hint's text, done as it says, gives a valid file."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from install_helpers import skill_declaring

from skillshelf.config.edit_text import tomlkit_document
from skillshelf.errors import ConfigError
from skillshelf.install.deps import deps_report, write_missing
from skillshelf.skills.model import ToolDependency

HTTP = ToolDependency(type="mcp", value="docs", url="https://mcp.example.com/docs")
STDIO = ToolDependency(type="mcp", value="files", transport="stdio", command="npx -y @acme/files 'two words'")
ADDED = {
    "docs": {"url": "https://mcp.example.com/docs"},
    "files": {"command": "npx", "args": ["-y", "@acme/files", "two words"]},
}

# A valid file tomlkit refuses ("rules" already exists): only a text edit could change it.
TOMLKIT_REFUSES = (
    '\n[[notify.rules]]\nevent = "done"\n\n[tui]\ntheme = "dark"\n\n'
    '[notify.rules.sound]\nfile = "bell.wav"\n\n[[notify.rules]]\nevent = "error"\n'
)


def _write(tmp_path: Path, text: str) -> Path:
    config = tmp_path / "config.toml"
    config.write_text(text, encoding="utf-8")
    report = write_missing(
        deps_report(
            [skill_declaring("filer", HTTP, STDIO)], user_config=tmp_path / "none.toml", codex_config=config
        )
    )
    assert report.written == ("docs", "files")
    return config


@pytest.mark.parametrize(
    "text",
    [
        'model = "gpt-5"\nmcp_servers = { foo = { command = "x" } } # mine\nmodel_reasoning_effort = "hi"\n',
        "mcp_servers = {}\n\n[tui]\ntheme = 'dark'\n",
        '"mcp_servers" = { foo.command = "x", foo.args = ["a"] }\r\n[profiles.work]\r\nmodel = "o3"\r\n',
    ],
)
def test_write_puts_the_servers_inside_an_inline_mcp_servers_table_and_changes_no_other_key(
    tmp_path: Path, text: str
) -> None:
    before = tomllib.loads(text)
    config = _write(tmp_path, text)
    written = config.read_text(encoding="utf-8")
    after = tomllib.loads(written)
    assert after.pop("mcp_servers") == {**before.pop("mcp_servers"), **ADDED}
    assert after == before
    assert "[mcp_servers" not in written and len(written.splitlines()) == len(text.splitlines())
    assert ("# mine" in written) == ("# mine" in text)


def _hint(config: Path) -> str:
    original = config.read_text(encoding="utf-8")
    assert tomlkit_document(original) is None, "tomlkit reads this file now: use one it refuses"
    with pytest.raises(ConfigError) as caught:
        _write(config.parent, original)
    assert caught.value.code == "CF112"
    assert config.read_text(encoding="utf-8") == original  # nothing was written
    hint = caught.value.hint or ""
    assert hint.startswith("add it by hand: ")
    return hint


@pytest.mark.parametrize(
    "servers", ['mcp_servers = { foo = { url = "https://foo.example" } }', "mcp_servers = {}"]
)
def test_the_by_hand_hint_for_an_inline_table_gives_entries_to_write_inside_its_braces(
    tmp_path: Path, servers: str
) -> None:
    text = f'model = "gpt-5"\n{servers}\nmodel_reasoning_effort = "high"\n{TOMLKIT_REFUSES}'
    config = tmp_path / "config.toml"
    config.write_text(text, encoding="utf-8")
    hint = _hint(config)
    lead, entries = hint.splitlines()[:2]
    assert lead.endswith("after its last entry and a comma (none when it is empty):")
    inner = servers[servers.index("{") + 1 : servers.rindex("}")].strip()
    done = text.replace(
        servers, "mcp_servers = { " + ", ".join([*filter(None, [inner]), entries.strip()]) + " }"
    )
    before, after = tomllib.loads(text), tomllib.loads(done)
    assert after.pop("mcp_servers") == {**before.pop("mcp_servers"), **ADDED}
    assert after == before


def test_the_by_hand_hint_for_an_inline_table_also_gives_the_tables_once_it_is_turned_into_tables(
    tmp_path: Path,
) -> None:
    servers = 'mcp_servers = { foo = { url = "https://foo.example" } }'
    text = f'model = "gpt-5"\n{servers}\nmodel_reasoning_effort = "high"\n{TOMLKIT_REFUSES}'
    config = tmp_path / "config.toml"
    config.write_text(text, encoding="utf-8")
    hint = _hint(config)
    how, block = hint.split("and add after them:\n")
    assert "take the `mcp_servers = { ... }` line out" in how and "at the end of the file" in how
    tables = text.replace(servers + "\n", "") + '\n[mcp_servers.foo]\nurl = "https://foo.example"\n'
    done = tables + "\n" + block
    before, after = tomllib.loads(text), tomllib.loads(done)
    assert after.pop("mcp_servers") == {**before.pop("mcp_servers"), **ADDED}
    assert after == before
