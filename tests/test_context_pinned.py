"""A pinned skill the task mentions: its body is in the context once, where the context holds it."""

from __future__ import annotations

from pathlib import Path

from skillshelf.context import ContextOptions, build_context, prepare_context, turn_parts
from skillshelf.dirs import UserDirs
from skillshelf.env import Env
from skillshelf.hooks.turn import prompt_turn
from testkit import IsolatedHome

SKILLS = {
    "release-notes": "Write release notes from merged pull requests and tags. Use when preparing a release.",
    "pdf-forms": "Fill, flatten and extract fields of PDF forms. Use when a task involves PDF form fields.",
}
PINNED = '[[skills.config]]\nname = "release-notes"\nmode = "pinned"\n'
TASK = "use $release-notes and $pdf-forms for the v2.0 release notes"
OPTIONS = ContextOptions(include_builtin=False, use_cache=False)


def _project(tmp_path: Path, home: Path) -> Env:
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    for name, description in SKILLS.items():
        folder = project / ".agents" / "skills" / name
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: {description}\n---\n# {name}\nSTEPS-OF-{name}\n",
            encoding="utf-8",
        )
    config = UserDirs.under(home).config
    config.mkdir(parents=True, exist_ok=True)
    (config / "config.toml").write_text(PINNED, encoding="utf-8")
    return Env.for_test(cwd=project, home=home)


def test_a_mentioned_pinned_skill_is_in_the_context_once(tmp_path: Path, isolated_home: IsolatedHome) -> None:
    result = build_context(_project(tmp_path, isolated_home.home), TASK, OPTIONS)
    assert result.text.count("STEPS-OF-release-notes") == 1
    assert "STEPS-OF-release-notes" in result.part("pinned").text  # type: ignore[union-attr]
    mentioned = result.part("mentioned")
    assert mentioned is not None and "STEPS-OF-pdf-forms" in mentioned.text
    assert not any("release-notes" in source for source in mentioned.sources)
    assert result.part("suggestions") is None  # neither is suggested: one is pinned, one loaded
    assert sorted(s.name for s in result.mentioned) == ["pdf-forms", "release-notes"]


def test_the_turn_loads_nothing_for_a_pinned_mention_when_the_pinned_part_is_there(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    prepared = prepare_context(_project(tmp_path, isolated_home.home), OPTIONS)
    turn = turn_parts(prepared, "$release-notes for v2.0")
    assert turn.loaded == () and turn.part("mentioned") is None
    assert [s.name for s in turn.in_context] == ["release-notes"]
    assert [s.name for s in turn.mentioned] == ["release-notes"]


def test_a_turn_without_an_agent_s_session_answer_loads_a_mentioned_pinned_skill(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    """No agent named: no ``SessionStart`` answer carried the pinned skills (a hook names its
    agent: tests/hooks/test_hooks_pinned.py)."""
    turn = prompt_turn(_project(tmp_path, isolated_home.home), "$release-notes for v2.0")
    assert [item.skill.name for item in turn.loaded] == ["release-notes"]
    assert "STEPS-OF-release-notes" in turn.loaded[0].fragment
