"""Claude Code's own reading of a frontmatter: its repair of YAML that fails, the frontmatter it
ignores whole (and lists the skill anyway), and ``when_to_use`` as JavaScript prints it. What
Claude Code 2.1.197 shows was measured with ``claude-oracle``; ``test_claude_listing_oracle.py``
checks these cases against it. Codex's reading stays as it was."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from skill_tree_helpers import repo_root

from skillshelf.diagnostics import Severity
from skillshelf.skills.claude_reading import claude_repair, claude_split, claude_yaml
from skillshelf.skills.claude_view import listed_description
from skillshelf.skills.frontmatter import YamlDocument, YamlFailure
from skillshelf.skills.model import RootOrigin
from skillshelf.skills.parse import ParsedSkill, parse_skill_text
from skillshelf.skills.parse_identity import JS_SPACE

CODEX = repo_root(Path("/r/skills"))
CLAUDE = repo_root(Path("/r/.claude/skills"), origin=RootOrigin.CLAUDE_PROJECT)
PLUGIN = repo_root(Path("/r/kit/skills"), origin=RootOrigin.CLAUDE_PLUGIN)


def parse(text: str, *, claude: bool = True) -> ParsedSkill:
    return parse_skill_text(text, path=Path("/r/skills/demo/SKILL.md"), root=CLAUDE if claude else CODEX)


@pytest.mark.parametrize(
    ("frontmatter", "body", "shown", "code"),
    [
        ("description: -", "Body dash line\n", "Body dash line", "SK104"),
        ("name: x\ndescription: -\nwhen_to_use: when dash", "Body\n", "Body", "SK104"),
        ('description: "unbalanced', "Body\n", "Body", "SK104"),
        ('description: ok text\ntitle: "unbalanced', "Body\n", "Body", "SK104"),
        ("description: good desc\n  bad: indent", "Body\n", "Body", "SK104"),
        ("description:\tfoo bar\n\tx: y", "Body\n", "Body", "SK104"),
        ('description: "a" b', "Body\n", "Body", "SK104"),
        ("- a\n- b", "Body list\n", "Body list", "SK106"),
        ("just text", "Body scalar\n", "Body scalar", "SK106"),
        ("42", "\n## Heading here\n", "Heading here", "SK106"),
        ('description: "x', "", "Skill", "SK104"),
    ],
)
def test_claude_code_lists_a_skill_whose_frontmatter_it_cannot_read_with_the_first_line_of_the_body(
    frontmatter: str, body: str, shown: str, code: str
) -> None:
    parsed = parse(f"---\n{frontmatter}\n---\n{body}")
    assert parsed.skill is not None and parsed.skill.name == "demo"
    assert parsed.skill.description == shown and parsed.skill.claude.when_to_use is None
    (note,) = [d for d in parsed.diagnostics if d.code == code]
    assert note.severity is Severity.WARNING and not any(d.code == "SK125" for d in parsed.diagnostics)
    assert f"lists the skill as 'demo' (its folder) with {shown!r}" in note.message
    assert "ignores the whole frontmatter" in note.message and "quote values" in note.fix
    assert not any(d.severity is Severity.ERROR for d in parsed.diagnostics)
    codex = parse(f"---\n{frontmatter}\n---\n{body}", claude=False)
    assert codex.skill is None and [d.severity for d in codex.diagnostics if d.code == code] == [
        Severity.ERROR
    ]


def test_a_frontmatter_claude_code_ignores_takes_disable_model_invocation_with_it() -> None:
    parsed = parse('---\ndescription: "x\ndisable-model-invocation: true\n---\nBody\n')
    assert parsed.skill is not None and not parsed.skill.claude.disable_model_invocation


def test_a_plugins_skill_whose_frontmatter_claude_code_ignores_is_said_to_be_unlisted() -> None:
    parsed = parse_skill_text(
        '---\ndescription: "x\n---\nBody\n', path=Path("/r/kit/skills/demo/SKILL.md"), root=PLUGIN
    )
    (note,) = [d for d in parsed.diagnostics if d.code == "SK104"]
    assert "does not list this plugin's skill 'demo'" in note.message


@pytest.mark.parametrize(
    ("frontmatter", "shown", "when_to_use"),
    [
        ("\tdescription: tabbed", "tabbed", None),
        ("description: *missing", "*missing", None),
        ("description: [a, b", "[a, b", None),
        ('description: a\\b: c "q"', 'a\\b: c "q"', None),
        ("description:\ta: b", "a: b", None),
        ("description: [a, b]\nwhen_to_use: x: y", "Body", "x: y"),
        ("description: ok: fine\nwhen_to_use: when: now", "ok: fine", "when: now"),
    ],
)
def test_claude_code_repairs_yaml_its_own_way(frontmatter: str, shown: str, when_to_use: str | None) -> None:
    parsed = parse(f"---\n{frontmatter}\n---\nBody\n")
    assert parsed.skill is not None and parsed.skill.description == shown
    assert parsed.skill.claude.when_to_use == when_to_use
    repaired = [d for d in parsed.diagnostics if d.code == "SK105"]
    assert len(repaired) == 1 and "Claude Code repairs it" in repaired[0].message


def test_claude_code_s_repair_hint_fits_the_value_it_quoted() -> None:
    indicator = parse("---\nname: demo\ntitle: x: y\ndescription: @handle start\n---\nBody\n")
    (note,) = [d for d in indicator.diagnostics if d.code == "SK105"]
    assert note.fix.startswith(
        'quote values that start with a YAML indicator (`@`), e.g. `description: "@handle'
    )
    assert "and values that contain `: `" in note.fix


@pytest.mark.parametrize(
    "frontmatter", ["description: fine\nk2: a: b", "description: fine\nmeta:\n  x: a: b"]
)
def test_a_value_only_codex_repairs_makes_claude_code_ignore_the_frontmatter(frontmatter: str) -> None:
    parsed = parse(f"---\n{frontmatter}\n---\nBody\n")
    assert parsed.skill is not None and parsed.skill.description == "Body"
    assert [d.severity for d in parsed.diagnostics if d.code == "SK104"] == [Severity.WARNING]
    codex = parse(f"---\n{frontmatter}\n---\nBody\n", claude=False)
    assert codex.skill is not None and codex.skill.description == "fine"


def test_a_line_with_a_carriage_return_is_not_repaired_by_claude_code() -> None:
    parsed = parse("---\r\ndescription: a: b\r\n---\r\nBody crlf\r\n")
    assert parsed.skill is not None and parsed.skill.description == "Body crlf"
    assert claude_repair("description: a: b\r")[1] == ()
    assert claude_repair("description: a: b") == ('description: "a: b"', (0,))


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("[a]", "a"),
        ("[a, b]", "a,b"),
        ("1.50", "1.5"),
        ("{a: 1}", "[object Object]"),
        ("~", None),
        ("true", "true"),
        ("yes", "yes"),
        ("2024-01-01", "2024-01-01"),
        ("[[a, b], c, 0x1F, ~, {k: v}]", "a,b,c,31,,[object Object]"),
        ("[1e3, -0.0, .inf]", "1000,0,Infinity"),
        ("[]", ""),
        ('"  x  y  "', "  x  y  "),
        ("\n  - first\n  - second", "first,second"),
    ],
)
def test_claude_code_shows_when_to_use_as_javascript_prints_it(value: str, expected: str | None) -> None:
    parsed = parse(f"---\ndescription: d\nwhen_to_use: {value}\n---\nBody\n")
    assert parsed.skill is not None and parsed.skill.claude.when_to_use == expected
    notes = [d for d in parsed.diagnostics if d.field == "when_to_use"]
    collection = value.lstrip()[:1] in "[{-"
    assert [d.code for d in notes] == (["SK120"] if collection else [])
    assert all(f"Claude Code shows it as {expected!r}" in d.message for d in notes)


def test_claude_code_reads_when_to_use_and_not_when_hyphen_to_use() -> None:
    parsed = parse("---\ndescription: d\nwhen-to-use: hyphen\n---\nBody\n")
    assert parsed.skill is not None and parsed.skill.claude.when_to_use is None
    codex = parse("---\ndescription: d\nwhen-to-use: hyphen\n---\nBody\n", claude=False)
    assert codex.skill is not None and codex.skill.claude.when_to_use == "hyphen"


@pytest.mark.parametrize(
    ("text", "shown", "when_to_use", "body", "line"),
    [
        (
            "---\ndescription: use --- as a separator\n---\nBody\n",
            "use",
            None,
            "as a separator\n---\nBody\n",
            2,
        ),
        ("---\ndescription: a---b\n---\nBody\n", "a", None, "b\n---\nBody\n", 2),
        ('---\ndescription: "use --- here"\n---\nBody\n', 'here"', None, 'here"\n---\nBody\n', 2),
        (
            "---\ndescription: |\n  one --- two\n  three\n---\nBody\n",
            "one",
            None,
            "two\n  three\n---\nBody\n",
            3,
        ),
        ("---\ndescription: d\nwhen_to_use: a --- b\n---\nBody\n", "d", "a", "b\n---\nBody\n", 3),
        ("---\ndescription: d\n---x: y\n---\nBody\n", "d", None, "x: y\n---\nBody\n", 3),
        ("---\r\ndescription: a---b\r\n---\r\nBody\r\n", "a", None, "b\r\n---\r\nBody\r\n", 2),
        ("---\ndescription: d\n\nbody with a---b dash\n", "b dash", None, "b dash\n", 4),
    ],
    ids=["mid-line", "in-a-word", "quoted", "block", "when-to-use", "line-start", "crlf", "unclosed"],
)
def test_claude_code_ends_the_frontmatter_at_the_first_dashes_anywhere(
    text: str, shown: str, when_to_use: str | None, body: str, line: int
) -> None:
    parsed = parse(text)
    assert parsed.skill is not None and parsed.skill.description == shown and parsed.body == body
    assert parsed.skill.claude.when_to_use == when_to_use
    (note,) = [d for d in parsed.diagnostics if d.code == "SK129"]
    assert note.severity is Severity.WARNING and note.line == line
    assert f"at the `---` inside line {line}" in note.message and "quoting it" in note.fix
    codex = parse(text, claude=False)  # Codex reads on to a `---` line
    assert codex.body != body and not any(d.code == "SK129" for d in codex.diagnostics)


def test_claude_code_finds_no_frontmatter_that_does_not_start_the_file() -> None:
    parsed = parse(" ---\ndescription: ok\n---\nBody\n")
    assert parsed.skill is not None and parsed.skill.description == "---"
    (note,) = [d for d in parsed.diagnostics if d.code == "SK129"]
    assert note.line == 1 and "finds no frontmatter" in note.message
    codex = parse(" ---\ndescription: ok\n---\nBody\n", claude=False)
    assert codex.skill is not None and codex.skill.description == "ok"


@pytest.mark.parametrize(
    ("text", "shown", "body"),
    [
        ("---\n---\nBody line\n", "Body line", "Body line\n"),
        ("---\ndescription: ok\n---   \n\n\n  Body\n", "ok", "Body\n"),
        ("---\ndescription: ok\n  ---\nBody\n", "ok", "Body\n"),
    ],
    ids=["empty", "blank-lines-after", "indented-closing"],
)
def test_a_frontmatter_both_agents_end_at_a_dashes_line_gets_no_split_warning(
    text: str, shown: str, body: str
) -> None:
    parsed = parse(text)
    assert parsed.skill is not None and parsed.skill.description == shown and parsed.body == body
    assert not any(d.code == "SK129" for d in parsed.diagnostics)


def test_claude_split_keeps_the_files_text_for_the_repair_and_its_lines() -> None:
    split = claude_split("---\n\n\r\nk: a: b\r\nx: 1---\r\nBody")  # blank lines open it too
    assert split is not None and (split.first_line, split.closing_line, split.own_line) == (4, 5, False)
    assert split.raw_yaml == "k: a: b\r\nx: 1" and split.yaml_text == "k: a: b\nx: 1"
    assert split.body == "Body" and claude_split("---x\n---\n") is None


@pytest.mark.parametrize(
    ("frontmatter", "code", "listed"),
    [
        ("name: demo", "SK125", False),
        ("description: [a]", "SK127", False),
        ("description: ~\nwhen_to_use: when x", "SK125", True),
        ("description: [a]\nwhen_to_use: when x", "SK127", True),
    ],
)
def test_a_plugins_skill_without_a_description_is_said_to_be_unlisted_unless_it_has_when_to_use(
    frontmatter: str, code: str, listed: bool
) -> None:
    parsed = parse_skill_text(
        f"---\n{frontmatter}\n---\nBody\n", path=Path("/r/kit/skills/demo/SKILL.md"), root=PLUGIN
    )
    (note,) = [d for d in parsed.diagnostics if d.code == code]
    unlisted = "does not list this plugin's skill" in note.message
    assert unlisted is not listed and ("first line of the body ('Body')" in note.message) is listed


@settings(max_examples=300, deadline=None)
@given(st.booleans(), st.text(alphabet="-\n\r \ta:\u2028", max_size=30))
def test_claude_split_finds_what_claude_codes_regex_finds(opened: bool, rest: str) -> None:
    text = "---" * opened + rest
    reference = re.match(f"---[{JS_SPACE}]*\n([\\s\\S]*?)---[{JS_SPACE}]*\n?", text)
    split = claude_split(text)
    assert (split is None) == (reference is None)
    if split is not None and reference is not None:
        assert split.body == text[reference.end() :]
        assert split.raw_yaml in (reference.group(1), reference.group(1).rpartition("\n")[0])


def test_claude_split_is_linear_in_a_long_run_of_blank_lines() -> None:
    assert claude_split("---" + "\n" * 400_000 + "x") is None
    split = claude_split("---" + " \n" * 400_000 + "k: v\n---\n")
    assert split is not None and split.yaml_text == "k: v"


@pytest.mark.parametrize(
    ("value", "hidden", "warned"),
    [
        ("true", True, False),
        ("True", True, False),
        ('"true"', True, False),
        ("yes", False, True),
        ("on", False, True),
        ("1", False, False),
        ("false", False, False),
        ('"yes"', False, True),
    ],
)
def test_claude_code_hides_a_skill_for_true_alone(value: str, hidden: bool, warned: bool) -> None:
    parsed = parse(f"---\ndescription: d\ndisable-model-invocation: {value}\n---\nBody\n")
    assert parsed.skill is not None and parsed.skill.claude.disable_model_invocation is hidden
    notes = [d for d in parsed.diagnostics if "does not hide the skill in Claude Code" in d.message]
    assert bool(notes) is warned
    assert all(d.code == "SK120" and d.line == 3 and d.severity is Severity.WARNING for d in notes)


@pytest.mark.parametrize(
    ("frontmatter", "shown", "when_to_use"),
    [
        ("description: , it might predict", ", it might predict", None),
        ("description: ,", ",", None),
        ("description: ,x # c", ",x", None),
        ("description: , #c", ",", None),
        ("description: , c\nwhen_to_use: , w", ", c", ", w"),
        ("description: d\n,k: v", "d", None),
        ("description: ! , x", ", x", None),
        ("description: [a, b]\nwhen_to_use: , w", "Body", ", w"),
        ("description:\n  - , a\n  - b", "Body", None),
    ],
)
def test_a_comma_outside_a_flow_collection_starts_a_plain_value_for_claude_code(
    frontmatter: str, shown: str, when_to_use: str | None
) -> None:
    parsed = parse(f"---\n{frontmatter}\n---\nBody\n")
    assert parsed.skill is not None and parsed.skill.description == shown
    assert parsed.skill.claude.when_to_use == when_to_use
    assert not any(d.code in ("SK104", "SK105") for d in parsed.diagnostics)
    assert parse(f"---\n{frontmatter}\n---\nBody\n", claude=False).skill is None  # Codex: invalid YAML


def test_claude_code_repairs_a_frontmatter_whose_other_line_fails_and_reads_a_leading_comma() -> None:
    parsed = parse("---\ndescription: , a\nwhen_to_use: x: y\n---\nBody\n")
    assert parsed.skill is not None and parsed.skill.description == ", a"
    assert parsed.skill.claude.when_to_use == "x: y"
    assert [d.line for d in parsed.diagnostics if d.code == "SK105"] == [3]


@pytest.mark.parametrize(
    ("frontmatter", "listed", "when_to_use"),
    [
        ("description: a\x80b", "a\x80b", None),
        ("description: \x80ab", "\x80ab", None),
        ("description: a\x9fb", "a\x9fb", None),
        ("description: a\x01b", "a\x01b", None),
        ("description: a\x0bb", "a\x0bb", None),
        ("description: \x7f", "\x7f", None),
        ("description: 1\x80", "1\x80", None),
        ('description: "a\ufffeb"', "a\ufffeb", None),
        ("description: 'a\x8db'", "a\x8db", None),
        ('description: "\x01"', "\x01", None),
        ("description: |\n  a\x80b", "a\x80b", None),
        ("description: a \x85 b", "a \x85 b", None),
        ("description: ab\x85", "ab\x85", None),
        ('description: "a\x85b"', "a\x85b", None),
        ("description:\n  a\n  \x85b", "a \x85b", None),
        ("description:\n  a\n  \u2028b", "a \u2028b", None),
        ("description: d # x\x85when_to_use: w", "d", None),
        ("description: d\nk\x01: v\nwhen_to_use: w\x80", "d", "w\x80"),
        ("description: a\x80 [b\nwhen_to_use: w", "a\x80 [b", "w"),
        ("description: [a\x80]\nwhen_to_use: x: y", "Body", "x: y"),
    ],
)
def test_claude_code_reads_control_characters_as_characters_and_nel_as_no_line_break(
    frontmatter: str, listed: str, when_to_use: str | None
) -> None:
    parsed = parse(f"---\n{frontmatter}\n---\nBody\n")
    assert parsed.skill is not None and listed_description(parsed.skill) == listed
    assert parsed.skill.claude.when_to_use == when_to_use
    assert not any(d.code == "SK104" for d in parsed.diagnostics)


@pytest.mark.parametrize(
    ("frontmatter", "shown", "when_to_use", "hidden"),
    [
        ("description: a\x00b\nwhen_to_use: w", "a", None, False),
        ("when_to_use: w\x00x\ndescription: d", "Body", "w", False),
        ("description: d\x00\ndisable-model-invocation: true", "d", None, False),
        ('description: "a\x00b"\nwhen_to_use: w', "Body", None, False),
        ("description: a: b\x00\nwhen_to_use: w", "Body", None, False),
    ],
)
def test_claude_code_reads_the_frontmatter_up_to_its_first_nul(
    frontmatter: str, shown: str, when_to_use: str | None, hidden: bool
) -> None:
    parsed = parse(f"---\n{frontmatter}\n---\nBody\n")
    assert parsed.skill is not None and parsed.skill.description == shown
    assert parsed.skill.claude.when_to_use == when_to_use
    assert parsed.skill.claude.disable_model_invocation is hidden


def test_codex_still_refuses_a_control_character_claude_code_reads() -> None:
    codex = parse("---\ndescription: a\x80b\n---\nBody\n", claude=False)
    assert codex.skill is None and [d.code for d in codex.diagnostics] == ["SK104"]
    nel = parse('---\ndescription: "a\x85b"\n---\nBody\n', claude=False)
    assert nel.skill is not None and nel.skill.description == "a b"


def test_claude_yaml_gives_back_control_characters_in_keys_anchored_and_recursive_values() -> None:
    loaded = claude_yaml("k\x01: &x [a\x80, *x]\nj: *x")
    assert isinstance(loaded, YamlDocument) and isinstance(loaded.value, dict)
    items = loaded.value["k\x01"]
    assert items[0] == "a\x80" and items[1] is items and loaded.value["j"] is items
    assert isinstance(claude_yaml("k: \U000f0080\x80"), YamlFailure)  # a stand-in already


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=",[]{}:#!&*-? \n\tab\x00\x01\x80\x85\u2028\ufeff\U000f0085", max_size=40))
def test_claude_yaml_never_raises(text: str) -> None:
    claude_yaml(text)
