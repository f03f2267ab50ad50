"""A mentioned skill too long for the prompt hook's answer reaches the model by name and path,
with a line telling it to read the file, as a pinned skill that does not fit does."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hooks_helpers import context_text, hook_input, make_project, write_skill

from skillshelf.env import Env
from skillshelf.hooks.runner import run_hook
from skillshelf.hooks.turn import MENTION_LIST_INTRO
from skillshelf.select.usage import UsageStore

LINE = "release notes guidance line, keep it short and clear\n"


def _long_skill(env: Env, name: str = "notes") -> Path:
    """An 11.7 KB skill where Claude Code reads skills (its body does not fit 2,400 tokens)."""
    skill = env.cwd / ".claude" / "skills" / name / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text(
        f"---\nname: {name}\ndescription: Drafts release notes\n---\n{LINE * 220}", encoding="utf-8"
    )
    return skill


def _answer(env: Env, prompt: str, agent: str = "claude") -> str:
    raw = hook_input("UserPromptSubmit", env, prompt=prompt)
    run = run_hook(agent, "UserPromptSubmit", raw, env=env, state_dir=env.dirs.state, deadline=0)  # type: ignore[arg-type]
    return context_text(run.answer)


def test_a_mentioned_skill_too_long_to_include_is_named_with_its_path(isolated_home: Any) -> None:
    env = make_project(isolated_home)
    skill = _long_skill(env)
    text = _answer(env, "use $notes to draft release notes for v2")
    assert f"{MENTION_LIST_INTRO}\n- notes: {skill}" in text
    assert LINE not in text
    loads = [e for e in UsageStore.in_state_dir(env.dirs.state).events() if e["type"] == "load"]
    assert loads == []  # not loaded until the model reads it


def test_the_mentioned_skills_that_fit_come_whole_and_the_others_by_path(isolated_home: Any) -> None:
    env = make_project(isolated_home)
    skill = _long_skill(env)
    small = write_skill(env.cwd / ".claude" / "skills", "changelog", "Keeps the changelog.")
    text = _answer(env, "use $notes and $changelog for v2")
    assert "STEPS-OF-changelog" in text and f"- notes: {skill}" in text
    assert text.index("STEPS-OF-changelog") < text.index(MENTION_LIST_INTRO)
    loads = [e["path"] for e in UsageStore.in_state_dir(env.dirs.state).events() if e["type"] == "load"]
    assert loads == [str(small)]


def test_a_long_skill_the_agent_loads_itself_is_not_named_again(isolated_home: Any) -> None:
    env = make_project(isolated_home)
    _long_skill(env)
    assert MENTION_LIST_INTRO not in _answer(env, "/notes draft release notes for v2")
