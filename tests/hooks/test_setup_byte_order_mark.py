"""`skillshelf setup claude` on a settings file saved with a UTF-8 byte-order mark, which Claude
Code 2.1.197 reads and runs the hooks of: setup adds its hooks after the mark (kept, as in
Codex's config.toml), `--remove` gives the file back byte for byte, and `--status` and the hook
blockers read the file as Claude Code does."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from hooks_helpers import COMMAND, set_up

from skillshelf.env import Env
from skillshelf.hooks import jsonedit, jsonfile
from skillshelf.hooks.claude import hook_blockers
from skillshelf.hooks.status import setup_status

BOM = "\ufeff"


def _project(box: Any) -> tuple[Path, Env, Path]:
    repo = box.home / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / ".claude").mkdir()
    env = Env.for_test(cwd=repo, home=box.home, codex_home=box.codex_home)
    return repo, env, repo / ".claude" / "settings.local.json"


def _status(env: Env) -> Any:
    return next(r for r in setup_status(env, command=COMMAND) if (r.agent, r.scope) == ("claude", "project"))


def test_setup_and_remove_work_on_a_settings_file_with_a_byte_order_mark(isolated_home: Any) -> None:
    _repo, env, settings = _project(isolated_home)
    original = BOM + '{"permissions": {"allow": ["Bash(ls:*)"]}}\n'
    settings.write_bytes(original.encode("utf-8"))

    set_up(env, isolated_home, "claude")
    text = settings.read_bytes().decode("utf-8")
    assert text.startswith(BOM + '{"permissions"')
    assert "UserPromptSubmit" in json.loads(text.removeprefix(BOM))["hooks"]
    assert not set_up(env, isolated_home, "claude").changed
    row = _status(env)
    assert row.runs and row.current and "UserPromptSubmit" in row.events

    set_up(env, isolated_home, "claude", remove=True)
    assert settings.read_bytes() == original.encode("utf-8")


def test_remove_works_after_an_editor_saved_the_settings_with_a_byte_order_mark(isolated_home: Any) -> None:
    _repo, env, settings = _project(isolated_home)
    original = '{"permissions": {"allow": ["Bash(ls:*)"]}}\n'
    settings.write_text(original, encoding="utf-8")
    set_up(env, isolated_home, "claude")
    settings.write_bytes(BOM.encode("utf-8") + settings.read_bytes())

    set_up(env, isolated_home, "claude", remove=True)
    assert settings.read_bytes() == (BOM + original).encode("utf-8")


def test_disable_all_hooks_in_a_settings_file_with_a_byte_order_mark_is_seen(isolated_home: Any) -> None:
    _repo, env, settings = _project(isolated_home)
    managed = isolated_home.home / "managed"
    managed.mkdir()
    env = dataclasses.replace(env, claude_managed_dir=managed)
    settings.write_bytes((BOM + '{"disableAllHooks": true}').encode("utf-8"))
    assert hook_blockers(env) == ["disableAllHooks is set in the local settings"]


def test_a_leading_byte_order_mark_is_kept_by_json_edits() -> None:
    text = BOM + '{\n  "a": [1]\n}\n'
    root = jsonedit.parse(text)
    member = root.member("a")
    assert member is not None
    added = jsonedit.append_item(text, member.node, 2)
    assert added.startswith(BOM + "{")
    assert json.loads(added.removeprefix(BOM)) == {"a": [1, 2]}
    assert jsonfile.is_empty_document(BOM + "{}\n")
