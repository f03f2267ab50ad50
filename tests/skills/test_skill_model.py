"""The skill model's values as a library user builds them."""

from __future__ import annotations

from pathlib import Path

import pytest

import skillshelf
from skillshelf.errors import UsageError


def test_a_root_takes_the_values_of_its_scope_and_origin_and_parses_skills() -> None:
    root = skillshelf.SkillRoot(path=Path("/x"), scope="repo", origin="agents-repo")  # type: ignore[arg-type]
    assert root.scope is skillshelf.Scope.REPO and root.origin is skillshelf.RootOrigin.AGENTS_REPO
    parsed = skillshelf.parse_skill_text(
        "---\nname: a\ndescription: b\n---\n", path=Path("/x/a/SKILL.md"), root=root
    )
    assert parsed.skill is not None and parsed.skill.scope is skillshelf.Scope.REPO


@pytest.mark.parametrize(
    ("scope", "origin", "named"), [("bogus", "agents-repo", "'repo'"), ("repo", 3, "'extra'")]
)
def test_a_root_with_an_unknown_scope_or_origin_is_a_usage_error_naming_the_values(
    scope: object, origin: object, named: str
) -> None:
    with pytest.raises(UsageError) as raised:
        skillshelf.SkillRoot(path=Path("/x"), scope=scope, origin=origin)  # type: ignore[arg-type]
    assert raised.value.code == "SS002" and named in (raised.value.hint or "")
