"""A warm prompt hook (every cache current) still sees each change made since the last prompt:
a SKILL.md, a skill folder, a plugin manifest, an agents/openai.yaml, the config and trust."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path
from typing import Any

import pytest
from hooks_helpers import context_text, hook_input, make_project, write_config, write_skill

from skillshelf.env import Env
from skillshelf.hooks.runner import run_hook
from testkit import count_walks

PROMPT = "fill in the PDF form fields and write the release notes"


@pytest.fixture
def walks(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    return count_walks(monkeypatch)


def settle() -> None:
    time.sleep(0.05)  # past the coarse kernel clock tick that stamps folder changes


def ask(env: Env, prompt: str = PROMPT) -> str:
    run = run_hook(
        "claude",
        "UserPromptSubmit",
        hook_input("UserPromptSubmit", env, prompt=prompt),
        env=env,
        state_dir=env.dirs.state,
    )
    assert run.status in ("ok", "empty"), run.detail
    return context_text(run.answer)


def warm_project(box: Any, walks: list[str]) -> tuple[Env, str]:
    """The test project, asked twice: the second answer comes from the caches alone."""
    env = make_project(box)
    settle()
    first = ask(env)
    walks.clear()
    again = ask(env)
    assert again == first and walks == []  # warm: no root walked again
    return env, first


def skills_root(env: Env) -> Path:
    return env.cwd / ".agents" / "skills"


def test_an_edited_skill_md_is_seen(isolated_home: Any, walks: list[str]) -> None:
    env, before = warm_project(isolated_home, walks)
    write_skill(skills_root(env), "pdf-forms", "Fill PDF form fields, now with signatures and stamps.")
    settle()
    after = ask(env)
    assert "now with signatures and stamps" in after and "now with signatures" not in before


def test_an_added_skill_folder_is_seen(isolated_home: Any, walks: list[str]) -> None:
    env, _ = warm_project(isolated_home, walks)
    redact = "redact the names in these PDF files before sharing them"
    before = ask(env, redact)
    write_skill(skills_root(env), "pdf-redaction", "Redact names and text in PDF files before sharing.")
    settle()
    after = ask(env, redact)
    assert "- pdf-redaction: " in after and "- pdf-redaction: " not in before


def test_a_removed_skill_folder_is_seen(isolated_home: Any, walks: list[str]) -> None:
    env, before = warm_project(isolated_home, walks)
    shutil.rmtree(skills_root(env) / "release-notes")
    settle()
    after = ask(env)
    assert "- release-notes: " in before and "- release-notes: " not in after


def test_a_plugin_manifest_in_a_linked_folder_and_above_it_is_seen(
    isolated_home: Any, walks: list[str]
) -> None:
    kit = isolated_home.home / "vendor" / "kit"
    write_skill(kit, "pdf-stamps", "Stamp PDF form fields with approval marks.")
    env = make_project(isolated_home)
    os.symlink(kit, skills_root(env) / "kit")
    stamps = "stamp approval marks onto a PDF"
    settle()
    assert "- pdf-stamps: " in ask(env, stamps)
    walks.clear()
    assert "- pdf-stamps: " in ask(env, stamps) and walks == []
    (kit / ".codex-plugin").mkdir()
    (kit / ".codex-plugin" / "plugin.json").write_text('{"name": "inner"}', encoding="utf-8")
    settle()
    assert "- inner:pdf-stamps: " in ask(env, stamps)
    shutil.rmtree(kit / ".codex-plugin")
    outer = isolated_home.home / "vendor" / ".claude-plugin"
    outer.mkdir()
    (outer / "plugin.json").write_text('{"name": "outer"}', encoding="utf-8")
    settle()
    assert "- outer:pdf-stamps: " in ask(env, stamps)  # a manifest above the linked folder, never listed


def test_an_openai_yaml_policy_is_seen(isolated_home: Any, walks: list[str]) -> None:
    env, before = warm_project(isolated_home, walks)
    agents = skills_root(env) / "pdf-forms" / "agents"
    agents.mkdir()
    (agents / "openai.yaml").write_text("policy:\n  products: [chatgpt]\n", encoding="utf-8")  # not Codex
    settle()
    after = ask(env)
    assert "- pdf-forms: " in before and "- pdf-forms: " not in after


def test_a_config_change_is_seen(isolated_home: Any, walks: list[str]) -> None:
    env, before = warm_project(isolated_home, walks)
    write_config(env, '[[skills.config]]\nname = "pdf-forms"\nmode = "disabled"\n')
    after = ask(env)
    assert "- pdf-forms: " in before and "- pdf-forms: " not in after


def test_trusting_the_project_is_seen(isolated_home: Any, walks: list[str]) -> None:
    env, before = warm_project(isolated_home, walks)
    write_config(env, f'[projects."{env.cwd}"]\ntrust_level = "trusted"\n')
    after = ask(env)
    assert "[untrusted project]" in before and "- pdf-forms: " in after
    assert "[untrusted project]" not in after
