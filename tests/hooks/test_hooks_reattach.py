"""After the agent compacts the conversation, SessionStart puts back the skills the session loaded."""

from __future__ import annotations

from typing import Any

from hooks_helpers import context_text, hook_input, make_project, write_config

from skillshelf.env import Env
from skillshelf.hooks.payload import parse_input
from skillshelf.hooks.reattach import REATTACH_INTRO, loaded_in_session, reattach_text
from skillshelf.hooks.runner import run_hook
from skillshelf.select.usage import UsageStore


def _load(env: Env, name: str, turn: str) -> str:
    path = str(env.cwd / ".agents" / "skills" / name / "SKILL.md")
    UsageStore.in_state_dir(env.dirs.state).record_load(path, turn=turn, project=str(env.cwd), via="read")
    return path


def _compacted(env: Env, **fields: Any) -> bytes:
    return hook_input("SessionStart", env, source="compact", **fields)


def test_the_loads_of_one_session_come_newest_first_each_once() -> None:
    events = [
        {"type": "load", "turn": "s1:t1", "path": "/a/SKILL.md"},
        {"type": "load", "turn": "s2:t1", "path": "/other/SKILL.md"},
        {"type": "turn", "turn": "s1:t2", "candidates": {}},
        {"type": "load", "turn": "s1:t2", "path": "/b/SKILL.md"},
        {"type": "load", "turn": "s1", "path": "/a/SKILL.md"},
        {"type": "load", "turn": "s10:t1", "path": "/s10/SKILL.md"},
        {"type": "load", "turn": ["s1"], "path": "/bad/SKILL.md"},
    ]
    assert loaded_in_session(events, "s1") == ["/a/SKILL.md", "/b/SKILL.md"]


def test_a_compacted_session_gets_its_loaded_skills_back_and_the_first_start_gets_none(
    isolated_home: Any,
) -> None:
    env = make_project(isolated_home)
    _load(env, "pdf-forms", "sess-1:turn-1")
    _load(env, "db-migrations", "other-session:turn-1")
    answer = run_hook("claude", "SessionStart", _compacted(env), env=env, state_dir=env.dirs.state).answer
    text = context_text(answer)
    assert text.startswith(REATTACH_INTRO) and "STEPS-OF-pdf-forms" in text
    assert "db-migrations" not in text
    startup = hook_input("SessionStart", env, source="startup")
    assert (
        context_text(run_hook("claude", "SessionStart", startup, env=env, state_dir=env.dirs.state).answer)
        == ""
    )


def test_skills_past_the_cap_are_named_with_their_path_and_a_removed_one_is_left_out(
    isolated_home: Any,
) -> None:
    env = make_project(isolated_home)
    older = _load(env, "release-notes", "sess-1:turn-1")
    _load(env, "pdf-forms", "sess-1:turn-2")
    gone = _load(env, "db-migrations", "sess-1:turn-3")
    (env.cwd / ".agents" / "skills" / "db-migrations" / "SKILL.md").unlink()
    inp = parse_input(_compacted(env), "SessionStart")
    roomy = reattach_text(inp, env, token_cap=2400)
    assert roomy.index("STEPS-OF-pdf-forms") < roomy.index("STEPS-OF-release-notes") and gone not in roomy
    tight = reattach_text(inp, env, token_cap=len(roomy) // 4 - 20)  # room for one skill whole
    assert "STEPS-OF-pdf-forms" in tight and "STEPS-OF-release-notes" not in tight
    assert tight.endswith(f"read each SKILL.md again before you use it):\n- release-notes: {older}")
    assert reattach_text(inp, env, token_cap=10) == ""


def test_nothing_is_put_back_when_usage_is_not_recorded(isolated_home: Any) -> None:
    env = make_project(isolated_home)
    _load(env, "pdf-forms", "sess-1:turn-1")
    write_config(env, "[hooks]\nusage = false\n")
    answer = run_hook("claude", "SessionStart", _compacted(env), env=env, state_dir=env.dirs.state).answer
    assert REATTACH_INTRO not in context_text(answer)


def test_a_skill_the_prompt_mentioned_is_put_back_after_a_compaction(isolated_home: Any) -> None:
    env = make_project(isolated_home)
    prompt = hook_input("UserPromptSubmit", env, prompt="use $release-notes for v2")
    run_hook("codex", "UserPromptSubmit", prompt, env=env, state_dir=env.dirs.state)
    answer = run_hook("codex", "SessionStart", _compacted(env), env=env, state_dir=env.dirs.state).answer
    assert "STEPS-OF-release-notes" in context_text(answer)
