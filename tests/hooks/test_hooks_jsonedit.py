"""In-place JSON edits: adding then taking out gives back the original bytes."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillshelf.hooks import jsonedit

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**6), 10**6),
    st.text(max_size=12),
    st.floats(allow_nan=False, width=32),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
layouts = st.sampled_from(
    [
        {"indent": None},
        {"indent": 2},
        {"indent": 4},
        {"indent": "\t"},
        {"indent": None, "separators": (",", ":")},
        {"indent": 2, "ensure_ascii": False},
    ]
)


def _render(value: object, layout: dict[str, object], tail: str) -> str:
    return json.dumps(value, **layout) + tail  # type: ignore[arg-type]


@settings(max_examples=150, deadline=None)
@given(
    st.dictionaries(st.text(max_size=8), values, max_size=5),
    layouts,
    st.sampled_from(["", "\n", "\n\n"]),
    values,
)
def test_adding_a_member_and_taking_it_out_gives_back_the_same_bytes(
    doc: dict[str, object], layout: dict[str, object], tail: str, new: object
) -> None:
    text = _render(doc, layout, tail)
    root = jsonedit.parse(text)
    added = jsonedit.add_member(text, root, "skillshelf-new", new)
    parsed = json.loads(added)
    assert (
        parsed["skillshelf-new"] == new and {k: v for k, v in parsed.items() if k != "skillshelf-new"} == doc
    )
    after = jsonedit.parse(added)
    assert jsonedit.remove_member(added, after, len(after.members) - 1) == text


@settings(max_examples=150, deadline=None)
@given(st.lists(values, min_size=1, max_size=5), layouts, values)
def test_appending_an_item_and_taking_it_out_gives_back_the_same_bytes(
    items: list[object], layout: dict[str, object], new: object
) -> None:
    text = _render({"list": items, "after": 1}, layout, "\n")
    array = jsonedit.parse(text).member("list")
    assert array is not None
    added = jsonedit.append_item(text, array.node, new)
    assert json.loads(added)["list"] == [*items, new]
    again = jsonedit.parse(added).member("list")
    assert again is not None
    assert jsonedit.remove_item(added, again.node, len(items)) == text


def test_new_content_follows_the_files_indent_and_line_ends() -> None:
    text = '{\r\n\t"a": 1\r\n}\r\n'
    added = jsonedit.add_member(text, jsonedit.parse(text), "b", {"c": [1]})
    assert added == '{\r\n\t"a": 1,\r\n\t"b": {\r\n\t\t"c": [\r\n\t\t\t1\r\n\t\t]\r\n\t}\r\n}\r\n'


def test_removing_the_first_of_several_items_keeps_the_layout_of_the_rest() -> None:
    text = '[\n  {"x": 1},\n  {"y": 2}\n]'
    assert jsonedit.remove_item(text, jsonedit.parse(text), 0) == '[\n  {"y": 2}\n]'


def test_spans_and_duplicate_keys_are_read_like_a_json_reader_does() -> None:
    text = '{"a": 1, "a": [true, "x"], "b": {"c": null}}'
    root = jsonedit.parse(text)
    assert root.plain() == json.loads(text)
    member = root.member("a")
    assert member is not None and text[member.node.start : member.node.end] == '[true, "x"]'
    assert member.node.depth == 1 and member.node.items[1].depth == 2


@pytest.mark.parametrize("text", ["", "{", '{"a" 1}', '{"a": 1,}', "[1 2]", "{} {}", '{"a": tru}', "{1: 2}"])
def test_text_that_is_not_one_json_value_is_refused(text: str) -> None:
    with pytest.raises(jsonedit.JsonEditError):
        jsonedit.parse(text)


def test_json_nested_past_the_depth_cap_is_refused_not_recursed_into() -> None:
    at_cap = "[" * (jsonedit.MAX_DEPTH + 1) + "]" * (jsonedit.MAX_DEPTH + 1)
    assert jsonedit.parse(at_cap).plain() == json.loads(at_cap)
    too_deep = '{"a":' * 50_000 + "1" + "}" * 50_000
    with pytest.raises(jsonedit.JsonEditError, match="nested deeper than"):
        jsonedit.parse(too_deep)
