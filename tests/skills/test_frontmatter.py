"""Frontmatter splitting, whitespace collapsing and Codex's YAML repair."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from skill_tree_helpers import vectors

from skillshelf.skills.frontmatter import (
    FrontmatterSplit,
    YamlDocument,
    YamlFailure,
    collapse_whitespace,
    load_yaml,
    mapping_pairs,
    null_mismatch,
    raw_scalar,
    repair_frontmatter,
    split_frontmatter,
)


def test_frontmatter_is_split_at_delimiter_lines() -> None:
    split = split_frontmatter("---\nname: a\ndescription: b\n---\n# Body\ntext\n")
    assert isinstance(split, FrontmatterSplit)
    assert split.yaml_text == "name: a\ndescription: b"
    assert split.body == "# Body\ntext\n"
    assert split.closing_line == 4
    assert not split.closing_indented


def test_crlf_line_endings_are_accepted() -> None:
    split = split_frontmatter("---\r\nname: a\r\ndescription: b\r\n---\r\nbody\r\n")
    assert isinstance(split, FrontmatterSplit)
    assert split.yaml_text == "name: a\ndescription: b"


def test_byte_order_mark_is_not_trimmed_like_codex() -> None:
    assert split_frontmatter("\ufeff---\nname: a\n---\n") == "missing"


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("# no frontmatter\n", "missing"),
        ("\n---\nname: a\n---\n", "missing"),
        ("---\nname: a\n", "unclosed"),
        ("---", "unclosed"),
        ("---\n---\n", "empty"),
    ],
)
def test_files_without_usable_delimiters_say_why(text: str, reason: str) -> None:
    assert split_frontmatter(text) == reason


def test_indented_delimiter_closes_a_block_scalar_early() -> None:
    split = split_frontmatter("---\ndescription: |\n  line\n  ---\n  more\n---\n")
    assert isinstance(split, FrontmatterSplit)
    assert split.yaml_text == "description: |\n  line"
    assert split.closing_indented


def test_trailing_whitespace_after_the_closing_delimiter_is_not_an_early_close() -> None:
    split = split_frontmatter("--- \nname: a\n---  \t\nbody\n")
    assert isinstance(split, FrontmatterSplit)
    assert split.yaml_text == "name: a" and split.body == "body\n"
    assert not split.closing_indented


def test_whitespace_collapses_like_rust_split_whitespace() -> None:
    assert collapse_whitespace("  a\u00a0 b\n\tc\u3000d  ") == "a b c d"
    # U+001C is whitespace for Python's str.split() but not for Rust
    assert collapse_whitespace("a\x1cb") == "a\x1cb"


def _repair_vector() -> dict[str, object]:
    return next(v for v in vectors("parser") if "lines" in v["input"])


def test_repair_rewrites_lines_as_codex_does() -> None:
    vector = _repair_vector()
    for line, expected in zip(vector["input"]["lines"], vector["expected"]["rewritten"], strict=True):  # type: ignore[index]
        repaired = repair_frontmatter(line)
        if str(expected).startswith("(unchanged"):
            assert repaired is None, line
        else:
            assert repaired is not None and repaired[0] == expected, line


def test_repair_leaves_block_scalar_bodies_alone() -> None:
    text = "description: |-\n  Build for AWS: ECS\nargument-hint: <duration: e.g. 7d>"
    repaired = repair_frontmatter(text)
    assert repaired == ("description: |-\n  Build for AWS: ECS\nargument-hint: '<duration: e.g. 7d>'", (2,))


def test_repair_returns_none_when_nothing_changes() -> None:
    assert repair_frontmatter("name: a\nbad: 'quoted: fine'\nurl:http://x\nlist: [a, b]") is None


def test_repair_quotes_flow_scalars_that_do_not_parse() -> None:
    assert repair_frontmatter("name: a\ndescription: [unclosed, but fine") == (
        "name: a\ndescription: '[unclosed, but fine'",
        (1,),
    )


def test_repair_keeps_the_comment_after_the_quoted_value() -> None:
    assert repair_frontmatter("description: Build for AWS: ECS # note") == (
        "description: 'Build for AWS: ECS' # note",
        (0,),
    )


def test_yaml_errors_carry_a_line() -> None:
    failure = load_yaml("name: a\ndescription: b: c\n")
    assert isinstance(failure, YamlFailure)
    assert failure.line == 1


def test_yaml_with_control_characters_fails_cleanly() -> None:
    assert isinstance(load_yaml("name: a\x00b\n"), YamlFailure)


def test_deeply_nested_yaml_fails_cleanly() -> None:
    result = load_yaml("a: " + "[" * 5000 + "]" * 5000)
    assert isinstance(result, YamlDocument | YamlFailure)


def test_dates_stay_text() -> None:
    doc = load_yaml("when: 2024-13-45\nother: 2024-01-02\n")
    assert isinstance(doc, YamlDocument)
    assert doc.value == {"when": "2024-13-45", "other": "2024-01-02"}


yaml_lines = st.lists(
    st.text(alphabet=st.sampled_from(list("ab :#'\"|>-[]{}@` \t\n\r")), max_size=30), max_size=12
).map("\n".join)


@settings(max_examples=300, deadline=None)
@given(yaml_lines)
def test_repair_is_idempotent(text: str) -> None:
    once = repair_frontmatter(text)
    repaired = once[0] if once is not None else text
    assert repair_frontmatter(repaired) is None


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_splitting_and_loading_never_raise(text: str) -> None:
    split = split_frontmatter(text)
    if isinstance(split, FrontmatterSplit):
        load_yaml(split.yaml_text)
        repair_frontmatter(split.yaml_text)


def test_a_control_character_is_named_with_its_line_in_one_line() -> None:
    failure = load_yaml("name: a\ndescription: b\x80c\n")
    assert isinstance(failure, YamlFailure)
    assert failure.message == "character U+0080 at line 2: control characters are not allowed"
    assert failure.line == 1


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("x: !custom text", "text"),
        ("x: !<tag:example.com,2000:x> v", "v"),
        ("x: !!python/object:os.system ls", "ls"),
        ("x: !!python/object/apply:os.system [echo]", ["echo"]),
        ("x: !!python/name:os.system", ""),
        ("x: !!int abc", "abc"),
        ("x: !!bool maybe", "maybe"),
        ("x: !!float abc", "abc"),
        ("x: !!binary '###'", "###"),
        ("x: !!set {a, b}", {"a": None, "b": None}),
        ("x: !!set [a, b]", ["a", "b"]),
        ("x: !!omap [a: 1]", [{"a": 1}]),
        ("x: !!pairs [a]", ["a"]),
        ("x: !!map [a]", ["a"]),
        ("x: !!seq {a: b}", {"a": "b"}),
        ("x: !!str [a]", ["a"]),
        ("x: !meta\n  short-description: s", {"short-description": "s"}),
        ("x: &a !c v\ny: *a", "v"),
    ],
)
def test_tags_never_fail_a_document_and_give_the_value_by_its_kind(text: str, value: object) -> None:
    doc = load_yaml(text)
    assert isinstance(doc, YamlDocument), doc
    assert isinstance(doc.value, dict) and doc.value["x"] == value


def test_standard_tags_that_fit_their_value_still_convert_it() -> None:
    doc = load_yaml("a: !!int 12\nb: !!float 1.5\nc: !!bool yes\nd: !!str 12\ne: !!null x\n")
    assert isinstance(doc, YamlDocument)
    assert doc.value == {"a": 12, "b": 1.5, "c": True, "d": "12", "e": None}


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("x: ~", None),
        ("x: !!null ~", None),
        ("x: !!null 'abc'", "abc"),
        ("x: !custom ~", "~"),
        ("x: ! ~", "~"),
        ("x: ! null", "null"),
        ("x: !!bool ~", "~"),
        ("x: !!int null", "null"),
        ("x: !!str ~", "~"),
        ("x: '~'", "~"),
    ],
)
def test_a_plain_null_is_absent_unless_another_tag_makes_it_text(text: str, value: str | None) -> None:
    doc = load_yaml(text)
    assert isinstance(doc, YamlDocument)
    ((_, node),) = mapping_pairs(doc.node)
    assert raw_scalar(node) == value


@pytest.mark.parametrize(
    ("text", "refused"), [("x: !!null abc", True), ("x: !!null ~", False), ("x: abc", False)]
)
def test_a_null_tag_on_text_is_told_apart(text: str, refused: bool) -> None:
    doc = load_yaml(text)
    assert isinstance(doc, YamlDocument)
    ((_, node),) = mapping_pairs(doc.node)
    assert null_mismatch(node) is refused
