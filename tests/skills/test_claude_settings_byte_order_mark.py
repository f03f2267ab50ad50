"""Claude Code's settings files saved with a UTF-8 byte-order mark (Windows editors write one):
Claude Code 2.1.197 reads them (checked with the real CLI: a BOM ``settings.local.json``'s hook
runs, its ``skillOverrides`` keep a skill out of ``claude-oracle``'s listing), so skillshelf
reads them too."""

from __future__ import annotations

from pathlib import Path

from skillshelf.env import Env
from skillshelf.skills.claude_settings import read_json, settings_layers, skill_overrides

BOM = b"\xef\xbb\xbf"


def test_a_settings_file_with_a_byte_order_mark_is_read(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_bytes(BOM + b'{"skillOverrides": {"pdf-forms": "off"}}\n')
    assert read_json(path) == {"skillOverrides": {"pdf-forms": "off"}}


def test_skill_overrides_of_a_local_settings_file_with_a_byte_order_mark_count(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "p"
    (project / ".claude").mkdir(parents=True)
    home.mkdir()
    (project / ".claude" / "settings.local.json").write_bytes(
        BOM + b'{"skillOverrides": {"pdf-forms": "user-invocable-only"}}'
    )
    layers = dict(settings_layers(Env.for_test(cwd=project, home=home)))
    assert skill_overrides(layers["local"]) == {"pdf-forms": "user-invocable-only"}


def test_only_a_leading_byte_order_mark_is_skipped(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_bytes(b'{"a": 1}' + BOM)
    assert read_json(path) == {}
