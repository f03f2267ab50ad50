"""A skill's description as Claude Code reads it (its YAML, JavaScript's ``String()``, the body's
first line) beside Codex's reading, which stays as it was. What Claude Code 2.1.197 shows was
measured with ``claude-oracle``; ``test_claude_listing_oracle.py`` checks these cases against it."""

from __future__ import annotations

from pathlib import Path

import pytest
from skill_tree_helpers import repo_root

from skillshelf.diagnostics import Severity
from skillshelf.skills.model import RootOrigin
from skillshelf.skills.parse import ParsedSkill, parse_skill_text
from skillshelf.skills.parse_identity import claude_first_line

CODEX = repo_root(Path("/r/skills"))
CLAUDE = repo_root(Path("/r/.claude/skills"), origin=RootOrigin.CLAUDE_PROJECT)


def parse(text: str, *, claude: bool = True) -> ParsedSkill:
    return parse_skill_text(text, path=Path("/r/skills/demo/SKILL.md"), root=CLAUDE if claude else CODEX)


def shown(frontmatter: str, body: str = "body line\nsecond\n") -> str:
    parsed = parse(f"---\n{frontmatter}\n---\n{body}")
    assert parsed.skill is not None, parsed.diagnostics
    return parsed.skill.description


@pytest.mark.parametrize(
    "frontmatter",
    [
        "description: [a]",
        "description: ! [a]",
        "description: !!str [a]",
        "description: {a: 1}",
        "description: ! {a: 1}",
        "description: !!set {a}",
        "description:\n  - a",
        "description:\n  - first item\n  - second item",
        "description:\n  a:\n    b: c",
        "description:\n  - a: 1\n    b: 2",
        "description: []",
        "description: {}",
    ],
)
def test_claude_code_lists_a_collection_description_with_the_first_line_of_the_body(
    frontmatter: str,
) -> None:
    parsed = parse(f"---\n{frontmatter}\n---\nbody line\nsecond\n")
    assert parsed.skill is not None and parsed.skill.description == "body line"
    (note,) = [d for d in parsed.diagnostics if d.code == "SK127"]
    assert note.severity is Severity.WARNING and note.field == "description"
    assert note.line == (3 if "\n" in frontmatter else 2)  # where the value starts
    assert "Claude Code shows the first line of the body ('body line')" in note.message
    assert "one line of text" in note.fix
    assert not any(d.severity is Severity.ERROR for d in parsed.diagnostics)


def test_codex_still_drops_a_sequence_description_and_repairs_a_flow_mapping() -> None:
    dropped = parse("---\ndescription: [a]\n---\nbody\n", claude=False)
    assert dropped.skill is None and [d.code for d in dropped.diagnostics] == ["SK110"]
    repaired = parse("---\nname: m\ndescription: {a: 1}\n---\nbody\n", claude=False)
    assert repaired.skill is not None and repaired.skill.description == "{a: 1}"
    assert [d.code for d in repaired.diagnostics] == ["SK105"]
    assert shown_codex("description: 1.50") == "1.50"


def shown_codex(frontmatter: str) -> str:
    parsed = parse(f"---\nname: demo\n{frontmatter}\n---\nbody\n", claude=False)
    assert parsed.skill is not None, parsed.diagnostics
    return parsed.skill.description


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("42", "42"),
        ("1.50", "1.5"),
        ("1e3", "1000"),
        ("1E+2", "100"),
        ("1.0", "1"),
        (".5", "0.5"),
        ("-0", "0"),
        ("+1", "1"),
        ("017", "17"),
        ("0x1F", "31"),
        ("-0x1F", "-31"),
        ("0o17", "15"),
        ("0xFFFFFFFFFFFFFFFF", "18446744073709552000"),
        ("0x10000000000000000", "0x10000000000000000"),
        ("12345678901234567890", "12345678901234567000"),
        ("1e16", "10000000000000000"),
        ("1e21", "1e+21"),
        ("0.000001", "0.000001"),
        ("1e-7", "1e-7"),
        ("123.456e5", "12345600"),
        ("1e400", "Infinity"),
        (".inf", "Infinity"),
        ("-.Inf", "-Infinity"),
        (".nan", "NaN"),
        ("+.nan", "+.nan"),
        ("true", "true"),
        ("TRUE", "true"),
        ("False", "false"),
        ("fAlse", "fAlse"),
        ("yes", "yes"),
        ("1_000", "1_000"),
        ("0b101", "0b101"),
        ("0X1F", "0X1F"),
        ("2024-01-01", "2024-01-01"),
        ("12:30:00", "12:30:00"),
        ("'1.50'", "1.50"),
        ("! 1.50", "1.50"),
        ("! 1e3", "1e3"),
        ("!!str 1e3", "1e3"),
        ("!custom 1.50", "1.50"),
        ("!!float 1.50", "1.5"),
        ("!!null abc", "abc"),
        ("!!str ~", "~"),
        ("!!timestamp 2024-01-01", "2024-01-01"),
        ("&anchor 1.50", "1.5"),
        ("1.50 # a comment", "1.5"),
    ],
)
def test_claude_code_shows_a_scalar_description_as_javascript_prints_it(value: str, expected: str) -> None:
    assert shown(f"description: {value}") == expected


def test_a_number_claude_code_prints_otherwise_than_it_is_written_is_noted_with_a_quoted_fix() -> None:
    parsed = parse("---\ndescription: 1.50\n---\nbody\n")
    (note,) = [d for d in parsed.diagnostics if d.code == "SK128"]
    assert "Claude Code shows '1.5'" in note.message and note.fix.endswith('description: "1.50"')
    assert not [d for d in parse("---\ndescription: 42\n---\n").diagnostics if d.code == "SK128"]


@pytest.mark.parametrize(
    "value", ["", "~", "null", "NULL", "!!null ~", "''", "'   '", '"\ufeff"', '" \ufeff "']
)
def test_a_null_or_blank_description_gives_way_to_the_body(value: str) -> None:
    assert shown(f"description: {value}") == "body line"


@pytest.mark.parametrize("value", ['"\x85"', "\x85", '" \x85 "'])
def test_a_description_of_whitespace_javascript_does_not_trim_is_shown(value: str) -> None:
    assert shown(f"description: {value}") == "\x85"


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("# Heading\ntext\n", "Heading"),
        ("\n\n\n  text  \n", "text"),
        ("```python\nprint(1)\n```\n", "```python"),
        ("#tag\ntext\n", "#tag"),
        ("#\ntext\n", "#"),
        ("## Title ##\n", "Title ##"),
        ("####### seven\n", "seven"),
        ("#\tTabbed heading\n", "Tabbed heading"),
        ("#   spaced   out  \n", "spaced   out"),
        ("- item\n", "- item"),
        ("first\r\nsecond\r\n", "first"),
        ("\u00a0\u00a0nb\n", "nb"),
        ("# a\rb\n", "# a\rb"),
        ("#\u2028x\n", "x"),
        ("\x85x\n", "\x85x"),
        ("a" * 100 + "\n", "a" * 100),
        ("a" * 101 + "\n", "a" * 97 + "..."),
        ("# " + "a" * 100, "a" * 100),
        ("\U0001f600" * 60, "\U0001f600" * 48 + "\ufffd..."),
        ("", None),
        ("  \n\n", None),
    ],
)
def test_the_first_line_of_the_body_is_chosen_as_claude_code_chooses_it(
    body: str, expected: str | None
) -> None:
    assert claude_first_line(body) == expected


def test_a_description_that_is_a_collection_over_an_empty_body_is_the_placeholder_skill() -> None:
    parsed = parse("---\ndescription: [a]\nwhen_to_use: when x\n---\n  \n")
    assert parsed.skill is not None and parsed.skill.description == "Skill"
    assert parsed.skill.claude.when_to_use == "when x"
    assert "the placeholder 'Skill' (the body is empty too)" in str(parsed.diagnostics)
    empty = parse("---\nname: x\n---\n")
    assert empty.skill is not None and empty.skill.description == "Skill"
    assert [d.severity for d in empty.diagnostics if d.code == "SK125"] == [Severity.WARNING]


def test_of_a_description_written_twice_claude_code_shows_the_last() -> None:
    assert shown("description: [a]\ndescription: text") == "text"
    parsed = parse("---\ndescription: text\ndescription: [a]\n---\nbody\n")
    assert parsed.skill is not None and parsed.skill.description == "body"
    dup = [d for d in parsed.diagnostics if d.code == "SK110"]
    assert [d.severity for d in dup] == [Severity.WARNING] and "shows the last one ('body')" in dup[0].message


@pytest.mark.parametrize(
    "frontmatter",
    [
        "name: [a]\ndescription: ok",
        "description: ok\nmetadata: text",
        "description: ok\nmetadata:\n  short-description: [a]",
        "name: a\nname: b\ndescription: ok",
        "description: ok\n? [a]\n: b",
    ],
)
def test_a_field_only_codex_cannot_type_warns_and_claude_code_lists_the_skill(frontmatter: str) -> None:
    parsed = parse(f"---\n{frontmatter}\n---\nbody\n")
    assert parsed.skill is not None and parsed.skill.description == "ok"
    (note,) = [d for d in parsed.diagnostics if d.code == "SK110"]
    assert note.severity is Severity.WARNING and "Claude Code lists the skill anyway" in note.message
    assert parse(f"---\n{frontmatter}\n---\nbody\n", claude=False).skill is None
