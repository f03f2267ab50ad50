"""check_arguments: a tool call's arguments against the JSON Schema its tool advertises."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillshelf.errors import UsageError
from skillshelf.serve.arguments import check_arguments, is_integer
from skillshelf.serve.skill_tools import SEARCH_SKILLS, SKILL_TOOLS, SkillTool
from testkit import installed

SEARCH = SEARCH_SKILLS.parameters


def _problem(tool: SkillTool, args: dict[str, Any]) -> UsageError:
    with pytest.raises(UsageError) as raised:
        check_arguments(tool.name, tool.parameters, args)
    assert raised.value.code == "SV400" and raised.value.exit_code == 2
    return raised.value


@pytest.mark.parametrize(
    ("top_k", "message"),
    [
        (0, "argument 'top_k' must be at least 1"),
        (-3, "argument 'top_k' must be at least 1"),
        (1000, "argument 'top_k' must be at most 50"),
        (1e308, "argument 'top_k' must be at most 50"),
        (10**5000, "argument 'top_k' must be at most 50"),  # past int()'s digit limit for str()
        (2.5, "argument 'top_k' must be an integer, not a number"),
        ("5", "argument 'top_k' must be an integer, not a string"),
        (True, "argument 'top_k' must be an integer, not a boolean"),
        ("\u00b2", "argument 'top_k' must be an integer, not a string"),
        (math.nan, "argument 'top_k' must be an integer, not NaN"),
        (math.inf, "argument 'top_k' must be an integer, not Infinity"),
        ([5], "argument 'top_k' must be an integer, not an array"),
    ],
    ids=["0", "-3", "1000", "1e308", "10**5000", "2.5", "'5'", "true", "superscript-2", "nan", "inf", "[5]"],
)
def test_a_value_outside_the_schema_is_refused_naming_the_argument_and_its_rule(
    top_k: Any, message: str
) -> None:
    error = _problem(SEARCH_SKILLS, {"query": "fill a form", "top_k": top_k})
    assert error.message == message
    assert error.hint == (
        "search_skills takes query (a string; required), top_k (an integer from 1 to 50; optional, default 5)"
    )


@pytest.mark.parametrize("top_k", [1, 50, 5.0, None])
def test_a_value_the_schema_allows_passes_and_null_stands_for_left_out(top_k: Any) -> None:
    args = {"query": "fill a form", "top_k": top_k}
    assert check_arguments("search_skills", SEARCH, args) == args


def test_every_problem_of_a_call_is_named_at_once() -> None:
    error = _problem(SEARCH_SKILLS, {"top_k": 0, "extra": 1, "more": 2})
    assert error.message == (
        "arguments 'extra', 'more' are not ones this tool takes; "
        "argument 'query' is missing; argument 'top_k' must be at least 1"
    )
    assert _problem(SEARCH_SKILLS, {"query": None}).message == "argument 'query' is null"


def test_a_huge_unknown_argument_name_is_quoted_short() -> None:
    error = _problem(SEARCH_SKILLS, {"query": "x", "k" * 100_000: 1})
    assert len(error.message) < 100 and error.message.endswith("is not one this tool takes")


def _wrong_value(prop: dict[str, Any]) -> Any:
    return 7 if prop["type"] == "string" else "7"


@pytest.mark.parametrize("tool", SKILL_TOOLS, ids=lambda t: t.name)
def test_every_registered_tool_refuses_extra_arguments_and_wrong_types(tool: SkillTool) -> None:
    properties: dict[str, Any] = dict(tool.parameters["properties"])
    valid = {key: 1 if prop["type"] == "integer" else "pdf-forms" for key, prop in properties.items()}
    assert check_arguments(tool.name, tool.parameters, valid) == valid
    assert _problem(tool, {**valid, "extra": 1}).message == "argument 'extra' is not one this tool takes"
    for key, prop in properties.items():
        error = _problem(tool, {**valid, key: _wrong_value(prop)})
        assert error.message.startswith(f"argument {key!r} must be ") and tool.name in error.hint
    for key in tool.parameters.get("required", ()):
        rest = {k: v for k, v in valid.items() if k != key}
        assert _problem(tool, rest).message == f"argument {key!r} is missing"


def test_a_schema_keyword_the_check_does_not_read_is_a_bug_not_a_pass() -> None:
    schema = {"type": "object", "properties": {"path": {"type": "string", "pattern": "^[a-z]+$"}}}
    for args in ({"path": "x"}, {}):  # whether or not the call gives the argument
        with pytest.raises(ValueError, match="pattern"):
            check_arguments("t", schema, args)


def test_integers_are_json_schema_integers() -> None:
    assert [is_integer(v) for v in (3, 3.0, -0.0, 10**40)] == [True] * 4
    assert [is_integer(v) for v in (True, 3.5, math.nan, math.inf, "3", None)] == [False] * 6


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6,
)
KEYS = st.sampled_from(["name", "path", "query", "top_k", "cursor", "limit", "extra", ""])


@settings(max_examples=300, deadline=None)
@given(tool=st.sampled_from(SKILL_TOOLS), args=st.dictionaries(KEYS, JSON_VALUES, max_size=4))
def test_the_check_agrees_with_a_json_schema_validator_on_every_tool(
    tool: SkillTool, args: dict[str, Any]
) -> None:
    jsonschema = installed("jsonschema", "jsonschema (installed with mcp)")
    required = set(tool.parameters.get("required", ()))
    # null for an optional argument is "left out" (OpenAI's strict mode): the validator gets it left out
    reference = {
        k: v
        for k, v in args.items()
        if v is not None or k in required or k not in tool.parameters["properties"]
    }
    expected = jsonschema.Draft202012Validator(dict(tool.parameters)).is_valid(reference)
    try:
        check_arguments(tool.name, tool.parameters, args)
    except UsageError:
        assert not expected
    else:
        assert expected
