"""The exported frozen values behave as values: they hash, so they go in sets and cache keys."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import pytest

import skillshelf
from skillshelf import ContextOptions, Env, Workspace, WorkspaceOptions, build_context
from skillshelf.errors import UsageError
from skillshelf.serve.schemas import to_openai
from skillshelf.serve.tools import SkillTools


def _project(tmp_path: Path) -> Env:
    home, project = tmp_path / "home", tmp_path / "home" / "proj"
    (project / ".git").mkdir(parents=True)
    skill = project / ".agents" / "skills" / "release-notes"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: release-notes\ndescription: Draft release notes from merged changes.\n"
        "metadata:\n  owners: [docs, release]\n  extra: {depth: {of: [1, 2]}}\n---\n# Release notes\n",
        encoding="utf-8",
    )
    config = home / ".codex" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(
        "[skills]\nmax_catalog_tokens = 4000\n[tables.nested]\nlist = [1, 2]\n", encoding="utf-8"
    )
    return Env.for_test(cwd=project, home=home)


def _frozen_values(value: object, seen: set[int]) -> Iterator[object]:
    """Every frozen dataclass instance reachable from ``value`` through fields and tuples."""
    if id(value) in seen:
        return
    seen.add(id(value))
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        if type(value).__dataclass_params__.frozen:  # type: ignore[attr-defined]
            yield value
        for field in dataclasses.fields(value):
            yield from _frozen_values(getattr(value, field.name), seen)
    elif isinstance(value, tuple | list):
        for item in value:
            yield from _frozen_values(item, seen)


def test_every_frozen_value_a_workspace_and_a_context_hold_can_be_hashed(tmp_path: Path) -> None:
    env = _project(tmp_path)
    workspace = Workspace.open(env, WorkspaceOptions(include_builtin=False))
    result = build_context(env, "draft the release notes", ContextOptions(include_builtin=False))
    tools = SkillTools(workspace.skills.loadable)
    load = tools.load_skill("release-notes")
    roots: list[object] = [env, workspace.config, workspace.modes, workspace.skills, result, load]
    roots.extend(tools.tool_specs(include_listing=True))
    values = [v for root in roots for v in _frozen_values(root, set())]
    classes = {name: getattr(skillshelf, name) for name in skillshelf.__all__}
    exported = {
        name for v in values for name, cls in classes.items() if isinstance(cls, type) and isinstance(v, cls)
    }
    assert {"Env", "Config", "ContextResult", "Skill", "ModedSkills", "ToolSpec", "ToolResult"} <= exported
    for value in values:
        assert hash(value) == hash(value), type(value).__name__


def test_equal_values_hash_equal_though_their_mappings_are_left_out_of_the_hash(tmp_path: Path) -> None:
    env = _project(tmp_path)
    first = Workspace.open(env, WorkspaceOptions(include_builtin=False))
    second = Workspace.open(env, WorkspaceOptions(include_builtin=False))
    (skill,), (again,) = first.skills.listed, second.skills.listed
    assert skill == again and hash(skill) == hash(again)
    assert len({skill, again}) == 1
    other = dataclasses.replace(skill, frontmatter={"name": "release-notes"})
    assert other != skill and len({skill, other}) == 2


@pytest.mark.parametrize(
    ("values", "named"),
    [
        ({"profile": "bogus"}, "profile"),
        ({"suggestion_tokens": -1}, "suggestion_tokens"),
        ({"memory_tokens": "400"}, "memory_tokens"),
        ({"memory_tokens": True}, "memory_tokens"),
    ],
)
def test_context_options_refuse_a_value_they_would_silently_misread(
    values: dict[str, object], named: str
) -> None:
    with pytest.raises(UsageError, match=named) as raised:
        ContextOptions(**values)  # type: ignore[arg-type]
    assert raised.value.code == "SS002" and raised.value.hint


def test_openai_tool_definitions_refuse_an_unknown_api_format() -> None:
    specs = SkillTools(()).tool_specs()
    assert to_openai(specs, api="chat")[0]["type"] == "function"
    with pytest.raises(UsageError, match="'nope'") as raised:
        to_openai(specs, api="nope")  # type: ignore[arg-type]
    assert "responses" in raised.value.hint
