"""`replaced`: `dataclasses.replace` through slot setters, with the same results and errors."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from skillshelf.skills.model import RootOrigin, Scope, Skill
from skillshelf.skills.slots import replaced


def _skill() -> Skill:
    return Skill(
        name="pdf",
        description="PDF forms",
        path=Path("/r/pdf/SKILL.md"),
        root=Path("/r"),
        scope=Scope.REPO,
        origin=RootOrigin.EXTRA,
    )


def test_a_replaced_copy_equals_what_dataclasses_replace_gives() -> None:
    skill = _skill()
    for changes in ({"trusted": False}, {"name": "kit:pdf", "real_path": Path("/x/SKILL.md")}, {}):
        copy = replaced(skill, **changes)
        assert copy == dataclasses.replace(skill, **changes) and copy is not skill
        assert type(copy) is Skill
    assert skill.trusted and skill.name == "pdf"  # the original is untouched


def test_an_unknown_field_is_refused_as_dataclasses_replace_refuses_it() -> None:
    with pytest.raises(TypeError):
        replaced(_skill(), colour="red")


def test_a_class_with_post_init_goes_through_its_init() -> None:
    @dataclasses.dataclass(frozen=True, slots=True)
    class Checked:
        value: int

        def __post_init__(self) -> None:
            if self.value < 0:
                raise ValueError("negative")

    assert replaced(Checked(1), value=2) == Checked(2)
    with pytest.raises(ValueError):
        replaced(Checked(1), value=-1)
