"""Skills configured as pinned: the SessionStart answer carries them, and a prompt that mentions
one whose body the session holds whole loads nothing more for it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hooks_helpers import context_text, hook_input, make_project, write_skill

from skillshelf.env import Env
from skillshelf.hooks import events
from skillshelf.hooks.answer import CONTEXT_TOKEN_LIMIT
from skillshelf.hooks.payload import parse_input
from skillshelf.hooks.pinned import PINNED_INTRO, pinned_block
from skillshelf.hooks.reattach import REATTACH_INTRO
from skillshelf.hooks.runner import run_hook
from skillshelf.hooks.turn import prompt_turn
from skillshelf.memory.layout import project_scope, scope_dir
from skillshelf.select.usage import UsageStore
from skillshelf.tokens import approx_tokens
from skillshelf.workspace import Workspace

PIN_RELEASE_NOTES = '[[skills.config]]\nname = "release-notes"\nmode = "pinned"\n'


def _pin(*names: str) -> str:
    return "".join(f'[[skills.config]]\nname = "{name}"\nmode = "pinned"\n' for name in names)


def _start(env: Env, agent: str = "claude", source: str = "startup") -> str:
    inp = parse_input(hook_input("SessionStart", env, source=source), "SessionStart")
    return events.session_start(agent, inp, env, lambda args: None)  # type: ignore[arg-type]


def _prompt(env: Env, prompt: str, agent: str = "claude") -> str:
    raw = hook_input("UserPromptSubmit", env, prompt=prompt)
    return context_text(run_hook(agent, "UserPromptSubmit", raw, env=env, state_dir=env.dirs.state).answer)  # type: ignore[arg-type]


def _big_skill(env: Env, name: str, lines: int) -> Path:
    """A skill whose body is ``lines`` lines long, in the project's ``.agents/skills``."""
    path = write_skill(env.cwd / ".agents" / "skills", name, f"Do the {name} steps for the release.")
    body = "".join(
        f"{name.upper()}-STEP-{i} follow this step of the checklist with care\n" for i in range(lines)
    )
    path.write_text(path.read_text(encoding="utf-8") + body, encoding="utf-8")
    return path


def _summary(box: Any, env: Env, text: str) -> None:
    folder = scope_dir(box.data / "skillshelf", project_scope(env.project_root))
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "memory_summary.md").write_text(text, encoding="utf-8")


@pytest.mark.parametrize("agent", ["codex", "claude"])
@pytest.mark.parametrize("source", ["startup", "clear", "compact", ""])
def test_a_session_start_carries_the_pinned_skills_body(isolated_home: Any, agent: str, source: str) -> None:
    env = make_project(isolated_home, config=PIN_RELEASE_NOTES)
    text = _start(env, agent, source)
    assert text.startswith(PINNED_INTRO) and text.count("STEPS-OF-release-notes") == 1
    assert "STEPS-OF-pdf-forms" not in text


def test_a_resumed_session_gets_no_second_copy(isolated_home: Any) -> None:
    """The resumed conversation may hold the first answer's copy already: a resume whose
    transcript cannot be read (none was written here) adds nothing (test_hooks_pinned_resume.py
    reads the transcripts)."""
    env = make_project(isolated_home, config=PIN_RELEASE_NOTES)
    for agent in ("codex", "claude"):
        assert "STEPS-OF-release-notes" in _start(env, agent, "startup")
        assert _start(env, agent, "resume") == ""


def test_the_memory_summary_gets_the_room_the_pinned_skills_leave(isolated_home: Any) -> None:
    env = make_project(isolated_home, config=PIN_RELEASE_NOTES)
    big = "## Preferences\n" + "".join(
        f"- remembered fact number {i} about this project\n" for i in range(800)
    )
    _summary(isolated_home, env, big)
    text = _start(env, "claude")
    assert text.startswith(PINNED_INTRO) and "STEPS-OF-release-notes" in text
    assert text.index("STEPS-OF-release-notes") < text.index(events.SUMMARY_INTRO)
    assert approx_tokens(text) <= CONTEXT_TOKEN_LIMIT["claude"]


def test_pinned_skills_past_the_cap_are_named_with_a_line_to_read_them(isolated_home: Any) -> None:
    env = make_project(isolated_home, config=_pin("release-notes", "huge-checklist"))
    huge = _big_skill(env, "huge-checklist", 400)
    text = _start(env, "codex")
    assert "STEPS-OF-release-notes" in text and "HUGE-CHECKLIST-STEP-0" not in text
    assert text.endswith(f"read each SKILL.md before you use it):\n- huge-checklist: {huge}")
    assert approx_tokens(text) <= CONTEXT_TOKEN_LIMIT["codex"]


def test_a_compaction_puts_back_the_session_s_skills_after_the_pinned_ones_each_once(
    isolated_home: Any,
) -> None:
    env = make_project(isolated_home, config=PIN_RELEASE_NOTES)
    store = UsageStore.in_state_dir(env.dirs.state)
    for name in ("pdf-forms", "release-notes"):
        path = str(env.cwd / ".agents" / "skills" / name / "SKILL.md")
        store.record_load(path, turn="sess-1:turn-1", project=str(env.cwd), via="read")
    text = _start(env, "claude", "compact")
    assert text.startswith(PINNED_INTRO) and text.count("STEPS-OF-release-notes") == 1
    assert (
        text.index("STEPS-OF-release-notes") < text.index(REATTACH_INTRO) < text.index("STEPS-OF-pdf-forms")
    )


@pytest.mark.parametrize("agent", ["codex", "claude"])
def test_a_prompt_that_mentions_a_pinned_skill_held_whole_loads_nothing_more(
    isolated_home: Any, agent: str
) -> None:
    """Claude Code cannot load a skill of ``.agents/skills`` itself, so the hook would add its
    body; the session's start carried it already. The mention is not recorded as a load either:
    the next compaction puts the skill back once, as a pinned one."""
    env = make_project(isolated_home, config=PIN_RELEASE_NOTES)
    assert "STEPS-OF-release-notes" in _start(env, agent)
    text = _prompt(env, "use $release-notes and $pdf-forms for v2", agent)
    assert "STEPS-OF-release-notes" not in text
    assert ("STEPS-OF-pdf-forms" in text) is (agent == "claude")
    loads = [e["path"] for e in UsageStore.in_state_dir(env.dirs.state).events() if e.get("type") == "load"]
    assert [Path(str(p)).parent.name for p in loads] == ["pdf-forms"]


def test_a_mentioned_pinned_skill_that_did_not_fit_whole_is_loaded_by_the_prompt(isolated_home: Any) -> None:
    """``zz-checklist`` comes after ``release-notes`` and does not fit beside it at the start; a
    prompt's answer (no suggestions, no room kept for memory lines) has room for it alone."""
    config = _pin("release-notes", "zz-checklist") + "[hooks]\nsuggestions = false\nmemory_tokens = 0\n"
    env = make_project(isolated_home, config=config)
    _big_skill(env, "zz-checklist", 135)
    start = _start(env, "claude")
    assert "STEPS-OF-release-notes" in start and "ZZ-CHECKLIST-STEP-0" not in start
    text = _prompt(env, "use $zz-checklist and $release-notes now")
    assert "ZZ-CHECKLIST-STEP-0" in text and "STEPS-OF-release-notes" not in text


def test_the_start_and_the_prompt_hook_agree_on_which_pinned_skills_are_whole(isolated_home: Any) -> None:
    env = make_project(isolated_home, config=_pin("release-notes", "zz-checklist", "pdf-forms"))
    _big_skill(env, "zz-checklist", 135)
    block = pinned_block(Workspace.open(env).skills.pinned, "codex")
    assert sorted(s.name for s in block.whole) == ["pdf-forms", "release-notes"]
    turn = prompt_turn(env, "$release-notes $zz-checklist $pdf-forms", agent="codex")
    assert sorted(s.name for s in turn.turn.in_context) == ["pdf-forms", "release-notes"]
    assert [item.skill.name for item in turn.loaded] == ["zz-checklist"]


def test_a_session_start_under_an_unreadable_system_config_pins_nothing_and_logs_why(
    isolated_home: Any,
) -> None:
    from skillshelf.hooks.hooklog import log_path

    env = make_project(isolated_home, config=PIN_RELEASE_NOTES)
    env.system_config_dir.mkdir(parents=True)
    (env.system_config_dir / "config.toml").write_text("[requirements\n", encoding="utf-8")
    assert "STEPS-OF-release-notes" not in _start(env)
    assert "skills withheld: CF118" in log_path(env.dirs.state).read_text(encoding="utf-8")
