"""The specification profile's fix hints: every name they suggest passes every name rule, and a
YAML error names the file's line."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from skillshelf.skills.validate_spec import spec_diagnostics

NAME_CODES = {"SK326", "SK327", "SK328", "SK329", "SK330", "SK331", "SK332"}
# the names a fix offers: `use X`, `rename the folder to X`, `set name: X`, `e.g. X`
_SUGGESTED = re.compile(r"(?:use `|rename the folder to `|set `name: |e\.g\. `)([^`]*)`")


def name_findings(name: str, folder: str) -> list[tuple[str, str]]:
    text = f"---\nname: {name}\ndescription: Formats release notes.\n---\nbody\n"
    found = spec_diagnostics(text, path=Path("/x") / folder / "SKILL.md")
    return [(d.code, d.fix) for d in found if d.code in NAME_CODES]


def suggested(name: str, folder: str) -> list[str]:
    return [m.group(1) for _, fix in name_findings(name, folder) for m in _SUGGESTED.finditer(fix)]


@pytest.mark.parametrize(
    ("name", "folder", "fix"),
    [
        ("My Skill", "my-skill", "use `my-skill` (and rename the folder to match)"),
        ("a--b", "dbl", "set `name: dbl`"),
        ("good-name", "Bad Folder", "rename the folder to `good-name`"),
        ("a--b", "A B", "rename the folder and set `name:` to the same valid name, e.g. `a-b`"),
    ],
)
def test_name_fixes_suggest_only_valid_names(name: str, folder: str, fix: str) -> None:
    assert fix in [f for _, f in name_findings(name, folder)]


def test_a_name_too_long_for_the_rules_is_never_suggested_for_the_folder() -> None:
    fixes = [f for code, f in name_findings("b" * 70, "x" * 70) if code == "SK332"]
    assert fixes == ["rename the folder and set `name:` to the same valid name, e.g. `" + "b" * 64 + "`"]


@settings(max_examples=300, deadline=None)
@example(name="a" * 63 + " bc", folder="f")  # cut to 64 characters, the suggestion would end in `-`
@given(
    name=st.text(alphabet="aZ-_ 9é", min_size=1, max_size=70).filter(
        lambda s: s.strip() == s and ":" not in s
    ),
    folder=st.text(alphabet="aZ-_ 9", min_size=1, max_size=70).filter(lambda s: s.strip() == s),
)
def test_following_any_name_fix_leaves_no_name_finding(name: str, folder: str) -> None:
    for choice in suggested(name, folder):
        assert name_findings(choice, choice) == [], (name, folder, choice)


def test_a_yaml_error_counts_its_line_in_the_file() -> None:
    (found,) = spec_diagnostics("---\nname: q\ndescription: 'unterminated\n---\n", path=Path("/x/q/SKILL.md"))
    assert found.code == "SK322" and found.line == 3 and "at line 3 column 27" in found.message
