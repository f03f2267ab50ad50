"""`skillshelf setup claude` on a settings file saved with a UTF-8 byte-order mark, which Claude
Code 2.1.197 reads and runs the hooks of: setup adds its hooks after the mark (kept, as in
Codex's config.toml), `--remove` gives the file back byte for byte, and `--status` and the hook
blockers read the file as Claude Code does. Codex 0.171.0 cannot parse a hooks.json with the mark
(it runs none of its hooks): setup writes that file without it, and `--status` says so."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from hooks_helpers import COMMAND, codex_project, set_up

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


def _codex_status(env: Env) -> Any:
    return next(r for r in setup_status(env, command=COMMAND) if (r.agent, r.scope) == ("codex", "user"))


def test_setup_codex_writes_a_hooks_file_with_a_byte_order_mark_without_it(isolated_home: Any) -> None:
    _repo, env, _config = codex_project(isolated_home)
    hooks = isolated_home.codex_home / "hooks.json"
    original = '{\r\n  "theirs": 1\r\n}\r\n'
    hooks.write_bytes(original.encode("utf-8"))
    set_up(env, isolated_home, "codex", "user")
    without_mark = hooks.read_bytes()
    set_up(env, isolated_home, "codex", "user", remove=True)
    assert hooks.read_bytes() == original.encode("utf-8")

    hooks.write_bytes((BOM + original).encode("utf-8"))  # Codex 0.171.0 cannot parse this file
    plan = set_up(env, isolated_home, "codex", "user")
    assert hooks.read_bytes() == without_mark  # the same edit, without the mark
    assert any("byte-order mark" in note and "Codex cannot" in note for note in plan.notes)
    row = _codex_status(env)
    assert row.runs and "UserPromptSubmit" in row.events
    assert not set_up(env, isolated_home, "codex", "user").changed
    set_up(env, isolated_home, "codex", "user", remove=True)
    assert hooks.read_bytes() == original.encode("utf-8")


def test_status_says_codex_cannot_parse_a_hooks_file_with_a_byte_order_mark(isolated_home: Any) -> None:
    _repo, env, _config = codex_project(isolated_home)
    hooks = isolated_home.codex_home / "hooks.json"
    set_up(env, isolated_home, "codex", "user")
    hooks.write_bytes(BOM.encode("utf-8") + hooks.read_bytes())  # an editor saved it with a mark
    row = _codex_status(env)
    assert not row.runs
    assert any("byte-order mark" in r and "setup codex --scope user" in r for r in row.reasons)
