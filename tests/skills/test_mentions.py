"""Mentions and selection: Codex's `$name` / `[$name](path)` rules and Claude Code's `/name`."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from skill_tree_helpers import vectors

from skillshelf.skills.mentions import extract_mentions, select_mentioned
from skillshelf.skills.model import ClaudeFields, RootOrigin, Scope, Skill, SkillPolicy


def make_skill(
    name: str,
    path: str,
    *,
    invocable: bool = True,
    hidden: bool = False,
    origin: RootOrigin = RootOrigin.EXTRA,
) -> Skill:
    return Skill(
        name=name,
        description=f"{name} does things",
        path=Path(path),
        root=Path("/tmp"),
        scope=Scope.USER,
        origin=origin,
        claude=ClaudeFields(user_invocable=invocable),
        policy=SkillPolicy(allow_implicit_invocation=not hidden),
    )


def names_of(text: str) -> set[str]:
    return set(extract_mentions(text).names)


def test_plain_and_linked_mentions_are_both_names_but_only_links_give_paths() -> None:
    mentions = extract_mentions("use $alpha and [$beta](/tmp/beta)")
    assert set(mentions.names) == {"alpha", "beta"}
    assert mentions.plain_names == ("alpha",)
    assert mentions.paths == ("/tmp/beta",)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("use $notion-research-doc please", True),
        ("($notion-research-doc)", True),
        ("$notion-research-doc.", True),
        ("$notion-research-docs", False),
        ("$notion-research-doc_extra", False),
        ("$notion-research-docx and later $notion-research-doc ", True),
        ("$" * 256 + " not-a-mention", False),
    ],
)
def test_a_name_must_end_at_a_non_name_character(text: str, expected: bool) -> None:
    assert ("notion-research-doc" in names_of(text)) is expected


def test_names_stop_at_dots_and_keep_underscores_and_plugin_colons() -> None:
    assert names_of("use $alpha.skill and $beta_extra") == {"alpha", "beta_extra"}
    assert names_of("use $slack:search and $alpha") == {"slack:search", "alpha"}


@pytest.mark.parametrize(
    ("text", "names", "paths"),
    [
        ("use $PATH and $alpha", {"alpha"}, ()),
        ("use [$HOME](/tmp/skill)", set(), ()),
        ("use $XDG_CONFIG_HOME and $beta", {"beta"}, ()),
        ("use $path and $Tmpdir", set(), ()),
    ],
)
def test_environment_variable_names_are_never_mentions(
    text: str, names: set[str], paths: tuple[str, ...]
) -> None:
    mentions = extract_mentions(text)
    assert set(mentions.names) == names
    assert mentions.paths == paths


@pytest.mark.parametrize(
    ("text", "names", "paths"),
    [
        ("[beta](/tmp/beta)", set(), ()),
        ("[$beta] /tmp/beta", {"beta"}, ()),
        ("[$beta]()", {"beta"}, ()),
        ("use [$beta]   ( /tmp/beta )", {"beta"}, ("/tmp/beta",)),
        ("[$beta](/tmp/beta", {"beta"}, ()),
    ],
)
def test_link_syntax_needs_a_non_empty_path_else_falls_back_to_a_plain_name(
    text: str, names: set[str], paths: tuple[str, ...]
) -> None:
    mentions = extract_mentions(text)
    assert set(mentions.names) == names
    assert mentions.paths == paths


def test_app_mcp_and_plugin_links_record_neither_name_nor_path_and_skill_scheme_is_stripped() -> None:
    mentions = extract_mentions(
        "[$gh](app://github) [$db](mcp://db) [$p](plugin://x) [$s](skill:///tmp/s/SKILL.md)"
    )
    assert mentions.names == ("s",)
    assert mentions.paths == ("/tmp/s/SKILL.md",)


@pytest.mark.parametrize(
    ("text", "name", "arguments"),
    [
        ("/deploy", "deploy", ""),
        ("  /deploy staging --fast", "deploy", "staging --fast"),
        ("/plugin:review the diff", "plugin:review", "the diff"),
    ],
)
def test_a_leading_slash_name_is_a_claude_code_command(text: str, name: str, arguments: str) -> None:
    command = extract_mentions(text).slash_command
    assert command is not None
    assert (command.name, command.arguments) == (name, arguments)


@pytest.mark.parametrize("text", ["/usr/bin/env python", "please /deploy", "/ deploy", "/deploy!"])
def test_paths_and_slashes_later_in_the_text_are_not_commands(text: str) -> None:
    assert extract_mentions(text).slash_command is None


def test_selection_follows_skill_list_order_not_mention_order() -> None:
    skills = [
        make_skill("beta-skill", "/tmp/beta/SKILL.md"),
        make_skill("alpha-skill", "/tmp/alpha/SKILL.md"),
    ]
    chosen = select_mentioned(skills, ["first $alpha-skill then $beta-skill"])
    assert [s.name for s in chosen] == ["beta-skill", "alpha-skill"]


def test_a_plain_name_shared_by_two_skills_selects_neither() -> None:
    skills = [make_skill("demo", "/tmp/a/SKILL.md"), make_skill("demo", "/tmp/b/SKILL.md")]
    assert select_mentioned(skills, ["use $demo and again $demo"]) == ()


def test_a_link_disambiguates_and_the_extra_plain_mention_adds_nothing() -> None:
    skills = [make_skill("demo", "/tmp/a/SKILL.md"), make_skill("demo", "/tmp/b/SKILL.md")]
    chosen = select_mentioned(skills, ["use $demo and [$demo](/tmp/b/SKILL.md)"])
    assert [s.path for s in chosen] == [Path("/tmp/b/SKILL.md")]


def test_a_link_to_an_unknown_path_selects_nothing_and_never_falls_back_to_the_name() -> None:
    skills = [make_skill("demo", "/tmp/a/SKILL.md")]
    assert select_mentioned(skills, ["use [$demo](/tmp/missing)"]) == ()


def test_the_same_link_twice_and_the_name_again_select_once() -> None:
    skills = [make_skill("alpha", "/tmp/alpha/SKILL.md")]
    chosen = select_mentioned(
        skills, ["[$alpha](/tmp/alpha/SKILL.md) and [$alpha](/tmp/alpha/SKILL.md)", "$alpha"]
    )
    assert [s.name for s in chosen] == ["alpha"]


@pytest.mark.parametrize("link", ["/tmp/alpha", "/tmp/alpha/", "/tmp/./alpha", "alpha/SKILL.md"])
def test_a_link_to_the_skill_folder_or_a_relative_one_selects_nothing_as_in_codex(link: str) -> None:
    skills = [make_skill("alpha", "/tmp/alpha/SKILL.md")]
    assert select_mentioned(skills, [f"use [$alpha]({link})"]) == ()


@pytest.mark.parametrize(
    "link", ["/tmp/alpha/./SKILL.md", "/tmp//alpha/SKILL.md", "/tmp/x/../alpha/SKILL.md"]
)
def test_a_link_to_the_skill_md_path_is_normalised_as_in_codex(link: str) -> None:
    skills = [make_skill("alpha", "/tmp/alpha/SKILL.md")]
    assert [s.name for s in select_mentioned(skills, [f"use [$alpha]({link})"])] == ["alpha"]


@pytest.mark.parametrize(
    ("link", "selects"),
    [
        ("/repo/.agents/skills/lnk/SKILL.md", True),
        ("/real/lnk/SKILL.md", True),
        ("/real/x/../lnk/SKILL.md", True),
        ("/real/lnk", False),
        ("/repo/.agents/skills/lnk", False),
    ],
)
def test_a_linked_skill_folder_is_selected_by_its_linked_or_real_skill_md_as_in_codex(
    link: str, selects: bool
) -> None:
    skill = replace(
        make_skill("lnk", "/repo/.agents/skills/lnk/SKILL.md"), real_path=Path("/real/lnk/SKILL.md")
    )
    assert select_mentioned([skill], [f"use [$x]({link})"]) == ((skill,) if selects else ())


def test_relative_links_are_joined_to_the_cwd_when_given() -> None:
    skills = [make_skill("alpha", "/work/repo/.agents/skills/alpha/SKILL.md")]
    text = "[$alpha](.agents/skills/alpha/SKILL.md)"
    assert select_mentioned(skills, [text]) == ()
    assert [s.name for s in select_mentioned(skills, [text], cwd=Path("/work/repo"))] == ["alpha"]


def test_hidden_skills_can_be_selected_by_name() -> None:
    skills = [make_skill("quiet", "/tmp/quiet/SKILL.md", hidden=True)]
    assert [s.name for s in select_mentioned(skills, ["$quiet"])] == ["quiet"]


def test_a_slash_command_selects_the_first_user_invocable_skill_after_mentions() -> None:
    skills = [
        make_skill("helper", "/tmp/h/SKILL.md"),
        make_skill("deploy", "/tmp/d1/SKILL.md", invocable=False),
        make_skill("deploy", "/tmp/d2/SKILL.md"),
    ]
    chosen = select_mentioned(skills, ["/deploy now with $helper"])
    assert [str(s.path) for s in chosen] == ["/tmp/h/SKILL.md", "/tmp/d2/SKILL.md"]
    assert select_mentioned(skills, ["run /deploy"]) == ()


@given(st.text())
def test_extracting_mentions_never_raises_and_names_use_only_name_characters(text: str) -> None:
    mentions = extract_mentions(text)
    allowed = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-:")
    assert all(name and set(name) <= allowed for name in mentions.names)
    assert set(mentions.plain_names) <= set(mentions.names)


def test_every_codex_mention_vector_with_names_and_paths_holds() -> None:
    checked = 0
    for vector in vectors("mentions"):
        given_in, expected = vector["input"], vector["expected"]
        if "text" in given_in:
            pairs = [(given_in["text"], expected)]
        elif "texts" in given_in and "results" in expected:
            pairs = list(zip(given_in["texts"], expected["results"], strict=True))
        else:
            continue
        for text, result in pairs:
            mentions = extract_mentions(text)
            assert set(mentions.names) == set(result["names"]), vector["description"]
            assert set(mentions.paths) == set(result["paths"]), vector["description"]
            checked += 1
    assert checked >= 8


def test_codex_selection_vectors_for_text_inputs_hold() -> None:
    checked = 0
    for vector in vectors("selection"):
        given_in = vector["input"]
        inputs = given_in.get("inputs", [])
        if (
            "skills" not in given_in
            or not inputs
            or any("Text" not in i for i in inputs)
            or "selected" not in vector["expected"]
        ):
            continue
        if given_in.get("disabled") or given_in.get("connector_slug_counts"):
            continue
        skills = [make_skill(name, path) for name, path in given_in["skills"]]
        chosen = select_mentioned(skills, [i["Text"] for i in inputs])
        expected = [e.split(" @ ")[0] for e in vector["expected"]["selected"]]
        assert [s.name for s in chosen] == expected, vector["description"]
        checked += 1
    assert checked >= 3


LINT_CODEX = make_skill("lint", "/p/.agents/skills/lint/SKILL.md", origin=RootOrigin.AGENTS_REPO)
LINT_CLAUDE = make_skill("lint", "/p/.claude/skills/lint/SKILL.md", origin=RootOrigin.CLAUDE_PROJECT)


def test_a_plain_name_is_counted_over_the_skills_the_agent_reads() -> None:
    skills = [LINT_CODEX, LINT_CLAUDE]
    assert select_mentioned(skills, ["use $lint now"], agent="codex") == (LINT_CODEX,)
    assert select_mentioned(skills, ["use $lint now"], agent="claude") == (LINT_CLAUDE,)
    assert select_mentioned(skills, ["use $lint now"]) == ()  # no agent: every skill counts


def test_a_name_the_agent_has_no_skill_of_is_counted_over_the_others() -> None:
    only_claude = [LINT_CLAUDE, make_skill("docs", "/x/docs/SKILL.md")]
    assert select_mentioned(only_claude, ["use $lint"], agent="codex") == (LINT_CLAUDE,)
    two_others = [LINT_CLAUDE, make_skill("lint", "/x/lint/SKILL.md")]
    assert select_mentioned(two_others, ["use $lint"], agent="codex") == ()
    two_own = [
        LINT_CODEX,
        make_skill("lint", "/q/.agents/skills/lint/SKILL.md", origin=RootOrigin.AGENTS_USER),
    ]
    assert select_mentioned([*two_own, LINT_CLAUDE], ["use $lint"], agent="codex") == ()


def test_a_slash_command_selects_the_skill_the_agent_reads_first() -> None:
    skills = [LINT_CODEX, LINT_CLAUDE]
    assert select_mentioned(skills, ["/lint now"], agent="claude") == (LINT_CLAUDE,)
    assert select_mentioned(skills, ["/lint now"], agent="codex") == (LINT_CODEX,)
