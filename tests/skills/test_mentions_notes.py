"""What a mention that loads nothing is told: `unselected_mentions` names each `$name` or link
of a task that selects no skill, and why."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from skillshelf.skills.mentions import select_mentioned, unselected_mentions
from skillshelf.skills.model import RootOrigin, Scope, Skill


def make_skill(name: str, path: str, origin: RootOrigin = RootOrigin.AGENTS_REPO) -> Skill:
    return Skill(
        name=name,
        description=f"{name} does things",
        path=Path(path),
        root=Path("/p"),
        scope=Scope.REPO,
        origin=origin,
    )


SKILLS = [
    make_skill("pdf-forms", "/p/.agents/skills/pdf-forms/SKILL.md"),
    make_skill("dupe", "/p/.agents/skills/dupe/SKILL.md"),
    make_skill("dupe", "/p/.agents/skills/x/dupe/SKILL.md"),
    make_skill("home", "/p/.agents/skills/home/SKILL.md"),
]


def notes_for(task: str, *, cwd: Path | None = None) -> list[tuple[str, str, str]]:
    chosen = select_mentioned(SKILLS, [task], agent="codex")
    found = unselected_mentions(SKILLS, task, chosen, agent="codex", cwd=cwd)
    return [(d.code, d.message, d.fix) for d in found]


def test_an_unknown_skill_name_is_noted_with_the_closest_name() -> None:
    [(code, message, fix)] = notes_for("use $pdf-form now")
    assert code == "SK420" and "$pdf-form" in message and "nothing is loaded" in message
    assert "did you mean $pdf-forms?" in fix


def test_a_shared_name_is_noted_with_a_link_that_picks_one() -> None:
    [(code, message, fix)] = notes_for("use $dupe")
    assert code == "SK421" and "2 skills are named 'dupe'" in message
    assert fix == "link the one you mean: [$dupe](/p/.agents/skills/dupe/SKILL.md)"


def test_a_skill_named_like_an_environment_variable_is_noted() -> None:
    [(code, message, _)] = notes_for("fix $home dir")
    assert code == "SK422" and "$HOME" in message
    assert [c for c, _, _ in notes_for("fix [$home](/p/.agents/skills/home/SKILL.md)")] == ["SK422"]
    assert notes_for("echo $PATH and $TERM") == []  # no skill of those names


def test_a_link_to_a_skill_folder_is_noted_with_the_skill_md_link() -> None:
    [(code, message, fix)] = notes_for("fill [$pdf-forms](/p/.agents/skills/pdf-forms)")
    assert code == "SK423" and "nothing is loaded" in message
    assert fix == "link [$pdf-forms](/p/.agents/skills/pdf-forms/SKILL.md)"
    [(_, _, relative)] = notes_for("fill [$pdf-forms](.agents/skills/pdf-forms/SKILL.md)", cwd=Path("/p"))
    assert relative == fix
    [(code, message, _)] = notes_for("fill [$pdf-forms](/elsewhere/SKILL.md)")
    assert code == "SK423" and "no skill's SKILL.md" in message


def test_a_link_to_a_linked_skill_folder_is_noted_with_the_link_that_loads_it() -> None:
    skill = replace(make_skill("lnk", "/p/.agents/skills/lnk/SKILL.md"), real_path=Path("/real/lnk/SKILL.md"))
    for link in ("/real/lnk/SKILL.md", "/p/.agents/skills/lnk/SKILL.md"):
        task = f"use [$lnk]({link})"
        assert unselected_mentions([skill], task, select_mentioned([skill], [task])) == []
    task = "use [$lnk](/real/lnk)"
    [note] = unselected_mentions([skill], task, select_mentioned([skill], [task]))
    assert note.code == "SK423" and note.fix == "link [$lnk](/p/.agents/skills/lnk/SKILL.md)"


@pytest.mark.parametrize(
    "task",
    [
        "costs $5 or $12.50",
        "run $(pwd) and ${HOME}",
        "export $FOO_BAR and $CamelCase",
        "use $pdf-forms",
        "use [$pdf-forms](/p/.agents/skills/pdf-forms/SKILL.md) and $pdf-forms",
        "use [$pdf-forms](/p/.agents/skills/x/../pdf-forms/SKILL.md)",
        "nothing here",
        "why does `for f in $files; do echo $f; done` skip files?",
        "fix the PHP: echo $user_name;",
        "simplify the LaTeX $x^2 + y^2$",
        "my $count = 0; $total += $count",
    ],
)
def test_what_is_no_skill_name_or_loads_gets_no_note(task: str) -> None:
    assert notes_for(task) == []


def test_a_name_with_a_colon_after_it_is_noted_with_the_skill_it_meant() -> None:
    [(code, message, fix)] = notes_for("use $pdf-forms: fill the fields")
    assert code == "SK420" and "$pdf-forms:" in message and fix.startswith("did you mean $pdf-forms?")


def test_names_the_caller_explains_are_skipped() -> None:
    chosen = select_mentioned(SKILLS, ["$beta"], agent="codex")
    assert unselected_mentions(SKILLS, "$beta", chosen, skip={"beta"}) == []
