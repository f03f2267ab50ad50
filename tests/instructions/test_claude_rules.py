"""Which ``.claude/rules`` files Claude Code loads at start: the globs of their front matter
``paths``, read as Claude Code reads them."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillshelf.env import Env
from skillshelf.instructions import load_instructions
from skillshelf.instructions.claude_rules import MAX_EXPANDED_GLOBS, rule_paths, split_globs

ALWAYS = (
    *("null", "~", "[]", "0", "-0", "0.0", ".nan", "1", "false", "true", "True", "{}", '""', '" "'),
    *('", "', '"**"', '"**/**"', '"/**"', '"  **  "', '"**,**"', '"**/**, **"', '"{**,**}"', '"{**,}"'),
    *('"{,**}/**"', '[""]', '["**"]', '[["**"]]', "[[[]]]", "[1, 2]", "[null, '**']", ">\n  **"),
)
CONDITIONAL = (
    *('"*"', '["*"]', '"**/*"', '"src/**"', '"**/"', '"./**"', '"**/**/**"', '"{}"', '"x{}"', "yes"),
    *("on", '"0"', "!!str 1", '"{**,src}"', '"{a,b}/**"', '"**}"', '"{**"', '["**", "src/**"]'),
    *("|\n  src/**,\n  **", "[**]", "[a: b"),
)


def _rule(value: str) -> str:
    return f"---\npaths: {value}\n---\nRULE\n"


@pytest.mark.parametrize("value", ALWAYS)
def test_paths_that_match_everything_or_are_empty_leave_the_rule_always_on(value: str) -> None:
    assert not rule_paths(_rule(value)).conditional


@pytest.mark.parametrize("value", CONDITIONAL)
def test_paths_naming_other_globs_make_the_rule_conditional(value: str) -> None:
    assert rule_paths(_rule(value)).conditional


def test_globs_are_split_trimmed_expanded_and_lose_a_trailing_double_star() -> None:
    """Only a first ``{...}`` group is expanded, to its first ``}``, then again in each result:
    ``{lib,{x,y}}`` is ``lib}``, ``x`` and ``y}``, as in Claude Code."""
    paths = rule_paths(_rule('" src/{a, b}/** ,{lib,{x,y}}, docs/**/** "'))
    assert paths.globs == ("src/a", "src/b", "lib}", "x", "y}", "docs/**")
    assert list(split_globs("{a,b}x\ny")) == ["{a,b}x\ny"]  # what follows the group has no line break


def test_the_last_paths_counts_and_a_file_without_front_matter_is_always_on() -> None:
    assert rule_paths('---\npaths: "**"\npaths: src/**\n---\nR\n').conditional
    assert not rule_paths('---\npaths: src/**\npaths: "**"\n---\nR\n').conditional
    assert not rule_paths("no front matter\n").conditional
    assert rule_paths("---\r\npaths: src/**\r\n---\r\nR\r\n").conditional


def test_front_matter_that_is_not_yaml_even_repaired_is_no_front_matter() -> None:
    paths = rule_paths("---\npaths: src/**\n  bad: [\n---\nR\n")
    assert not paths.conditional and paths.yaml_problem


@pytest.mark.parametrize("value", ['"' + "{a,b}" * 40 + '"', '"' + "{,}" * 40 + '"', "&a [*a, '**']"])
def test_paths_that_would_expand_without_end_are_answered_at_once(value: str) -> None:
    paths = rule_paths(_rule(value))
    assert len(paths.globs) <= MAX_EXPANDED_GLOBS
    assert paths.conditional == (value[0] == '"')


def test_a_rule_is_loaded_or_left_out_by_its_paths(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    rules = repo / ".claude" / "rules"
    rules.mkdir(parents=True)
    (repo / ".git").mkdir()
    (rules / "always.md").write_text(_rule('"**"'), encoding="utf-8")
    (rules / "empty.md").write_text(_rule('[""]'), encoding="utf-8")
    (rules / "src.md").write_text(_rule('"src/**"'), encoding="utf-8")
    (rules / "broken.md").write_text("---\npaths: src/**\n  bad: [\n---\nBROKEN\n", encoding="utf-8")

    result = load_instructions(Env.for_test(cwd=repo, home=tmp_path / "home"), profile="claude")

    assert sorted(layer.path.name for layer in result.included) == ["always.md", "broken.md", "empty.md"]
    [left_out] = [layer for layer in result.layers if not layer.included]
    assert left_out.path.name == "src.md" and "paths" in (left_out.reason or "")
    assert [d.path.name for d in result.diagnostics if d.code == "IN114" and d.path] == ["broken.md"]
