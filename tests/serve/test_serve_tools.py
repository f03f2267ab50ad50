"""SkillTools: tool definitions per API format, the system prompt, and the dispatcher."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from serve_helpers import make_skill_tree, write_skill

from skillshelf.errors import SkillshelfError
from skillshelf.serve.mcp_server import SERVER_TOOLS
from skillshelf.serve.schemas import Tool, ToolResult
from skillshelf.serve.skill_tools import SKILL_TOOLS, SkillTool
from skillshelf.serve.tools import UNTRUSTED_NOTE, SkillTools
from skillshelf.skills.discover import discover_in

pytestmark = pytest.mark.usefixtures("isolated_home")


@pytest.fixture
def tools(tmp_path: Path, isolated_home: object) -> SkillTools:
    root = make_skill_tree(tmp_path)
    return SkillTools(discover_in([root]).skills)


def test_openai_responses_tools_are_flat_function_definitions(tools: SkillTools) -> None:
    defs = tools.openai_tools()
    assert [d["name"] for d in defs] == ["load_skill", "search_skills", "read_skill_file"]
    for d in defs:
        assert d["type"] == "function" and d["parameters"]["type"] == "object" and d["description"]
    assert defs[0]["parameters"]["required"] == ["name"]


def test_openai_chat_tools_nest_the_function(tools: SkillTools) -> None:
    defs = tools.openai_tools("chat")
    assert all(set(d) == {"type", "function"} for d in defs)
    assert defs[1]["function"]["name"] == "search_skills"
    assert defs[1]["function"]["parameters"]["properties"]["top_k"]["default"] == 5


def test_openai_strict_tools_require_every_property_and_make_optional_ones_nullable(
    tools: SkillTools,
) -> None:
    search = tools.openai_tools(strict=True)[1]
    assert search["strict"] is True
    params = search["parameters"]
    assert sorted(params["required"]) == ["query", "top_k"]
    assert params["properties"]["top_k"]["type"] == ["integer", "null"]
    assert "default" not in params["properties"]["top_k"] and params["additionalProperties"] is False
    assert "default" in tools.openai_tools()[1]["parameters"]["properties"]["top_k"]  # specs are not mutated


def test_openai_strict_tools_state_the_bounds_they_leave_out_and_take_null_for_left_out(
    tools: SkillTools,
) -> None:
    top_k = tools.openai_tools(strict=True)[1]["parameters"]["properties"]["top_k"]
    assert "minimum" not in top_k and "maximum" not in top_k
    assert top_k["description"].endswith("Takes an integer from 1 to 50. Pass null for the default (5).")
    found = tools.dispatch("search_skills", {"query": "write release notes", "top_k": None})
    assert not found.is_error and found.data["results"][0]["name"] == "release-notes"
    assert tools.dispatch("search_skills", {"query": "release notes", "top_k": 51}).data["code"] == "SV400"


def test_anthropic_tools_use_input_schema(tools: SkillTools) -> None:
    defs = tools.anthropic_tools()
    assert [set(d) for d in defs] == [{"name", "description", "input_schema"}] * 3
    assert defs[2]["input_schema"]["required"] == ["name", "path"]


def test_system_prompt_holds_the_instructions_and_the_catalog(tools: SkillTools) -> None:
    prompt = tools.system_prompt()
    assert "load_skill" in prompt and "search_skills" in prompt
    assert "pdf-forms" in prompt and "release-notes" in prompt
    assert SkillTools([]).system_prompt().endswith("(No skills are installed here.)")
    assert (
        SkillTools(tools.skills, listed=())
        .system_prompt()
        .endswith("(No skills are listed here; `load_skill` loads one by its name.)")
    )


def test_load_skill_gives_the_fragment_and_the_bundled_files(tools: SkillTools) -> None:
    result = tools.dispatch("load_skill", {"name": "pdf-forms"})
    assert not result.is_error
    assert result.text.startswith("<skill>\n<name>pdf-forms</name>")
    assert "- scripts/fill.py" in result.text and "- references/fields.md" in result.text
    assert "leak.md" not in result.text  # a symlink out of the folder is not offered
    assert result.data["files"] == ["scripts/fill.py", "references/fields.md", "assets/logo.png"]


def test_dispatch_accepts_the_json_string_the_openai_api_returns(tools: SkillTools) -> None:
    result = tools.dispatch("search_skills", json.dumps({"query": "write release notes", "top_k": 2}))
    assert not result.is_error and result.data["results"][0]["name"] == "release-notes"
    assert len(result.data["results"]) <= 2


@pytest.mark.parametrize(
    ("name", "arguments", "code"),
    [
        ("load_skill", "{not json", "SV400"),
        ("load_skill", "[1, 2]", "SV400"),
        ("load_skill", "[" * 100_000, "SV400"),  # nested past json's recursion limit
        ("load_skill", {}, "SV400"),
        ("load_skill", {"name": "pdf-form"}, "SK404"),
        ("search_skills", {"query": "   "}, "SV400"),
        ("search_skills", {"query": "pdf", "top_k": True}, "SV400"),
        ("search_skills", {"query": "pdf", "top_k": "many"}, "SV400"),
        ("search_skills", {"query": "pdf", "top_k": "2"}, "SV400"),  # a string, not an integer
        ("search_skills", {"query": "pdf", "extra": 1}, "SV400"),
        ("read_skill_file", {"name": "pdf-forms", "path": "../../secret.txt"}, "SS403"),
        ("read_skill_file", {"name": "pdf-forms", "path": "missing.md"}, "SV404"),
        ("list_skills", {"cursor": "abc"}, "SV400"),
        ("list_skills", {"cursor": "\u00b2"}, "SV400"),  # a digit to str.isdigit, not to int()
        ("list_skills", {"cursor": "9" * 5000}, "SV400"),  # past int()'s digit limit
        ("list_skills", {"limit": float("inf")}, "SV400"),
        ("list_skills", '{"limit": -Infinity}', "SV400"),
        ("search_skills", {"query": "pdf", "top_k": float("nan")}, "SV400"),
        ("delete_everything", {}, "SV400"),
    ],
)
def test_bad_calls_come_back_as_error_text_with_a_code_and_a_fix(
    tools: SkillTools, name: str, arguments: Any, code: str
) -> None:
    result = tools.dispatch(name, arguments)
    assert result.is_error
    assert result.text.startswith(f"error {code}:") and "\nfix: " in result.text
    assert result.data["code"] == code


@pytest.mark.parametrize(
    ("name", "arguments"),
    [
        ("read_skill_file", '{"name": "pdf-forms", "path": "references/\\ud800.md"}'),  # valid JSON
        ("read_skill_file", {"name": "pdf-forms", "path": "\udcff"}),
        ("load_skill", {"name": "pdf-forms\ud800"}),
        ("read_skill_file", {"name": "\ud800", "path": "SKILL.md"}),
        ("search_skills", {"query": "\ud800 fill pdf forms"}),
    ],
)
def test_a_lone_surrogate_in_any_argument_is_an_sv400_result_never_an_exception(
    tools: SkillTools, name: str, arguments: Any
) -> None:
    result = tools.dispatch(name, arguments)
    assert result.is_error and result.data["code"] == "SV400"
    assert "lone surrogate" in result.text
    json.dumps(result.to_dict(), ensure_ascii=False).encode("utf-8")  # the answer itself encodes


def _fail(_host: Any, _args: Any) -> ToolResult:
    raise RuntimeError("a bug in the tool")


BROKEN = Tool(
    name="broken",
    description="Always fails.",
    parameters={"type": "object", "properties": {}, "additionalProperties": False},
    handler=_fail,
)


def test_a_tool_that_fails_unexpectedly_is_an_sv500_result_and_is_logged(
    tools: SkillTools, caplog: pytest.LogCaptureFixture
) -> None:
    broken = SkillTools(tools.skills, tools=(*SKILL_TOOLS, BROKEN))
    with caplog.at_level("ERROR", logger="skillshelf.serve.tools"):
        result = broken.dispatch("broken", {})
    assert result.is_error and result.data["code"] == "SV500"
    assert result.text.startswith("error SV500: internal error in 'broken': RuntimeError")
    assert "\nfix: " in result.text and "a bug in the tool" not in result.text
    logged = [r for r in caplog.records if r.name == "skillshelf.serve.tools"]
    assert logged and logged[0].exc_info is not None and "broken" in logged[0].getMessage()


def test_unknown_skill_error_names_the_close_match(tools: SkillTools) -> None:
    result = tools.dispatch("load_skill", {"name": "pdf-form"})
    assert "did you mean 'pdf-forms'" in result.text
    with pytest.raises(SkillshelfError) as info:
        tools.load_skill("nothing-like-it")
    assert info.value.code == "SK404"
    assert (
        "call `list_skills`" in tools.dispatch("load_skill", {"name": "zzzzzz"}).text
    )  # a tool, not the CLI


def test_sigils_before_a_name_are_accepted(tools: SkillTools) -> None:
    assert tools.get("$pdf-forms").name == "pdf-forms"
    assert tools.get("/release-notes").name == "release-notes"


def test_list_skills_pages_through_every_skill_once(tools: SkillTools) -> None:
    seen: list[str] = []
    cursor: str | None = None
    while True:
        page = tools.dispatch("list_skills", {"limit": 1, **({"cursor": cursor} if cursor else {})})
        seen += [s["name"] for s in page.data["skills"]]
        cursor = page.data["next_cursor"]
        if cursor is None:
            break
        assert f"cursor={cursor!r}" in page.text
    assert sorted(seen) == ["internal-helper", "pdf-forms", "release-notes"]


def test_untrusted_skills_carry_a_warning_for_the_model(tools: SkillTools) -> None:
    untrusted = [dataclasses.replace(s, trusted=False) for s in tools.skills]
    library = SkillTools(untrusted)
    loaded = library.dispatch("load_skill", {"name": "pdf-forms"})
    assert loaded.text.startswith(UNTRUSTED_NOTE) and loaded.data["trusted"] is False
    file = library.dispatch("read_skill_file", {"name": "pdf-forms", "path": "references/fields.md"})
    assert file.text.startswith(UNTRUSTED_NOTE)
    found = library.dispatch("search_skills", {"query": "pdf form"})
    assert "[untrusted project]" in found.text and found.data["results"][0]["trusted"] is False


def test_search_over_no_skills_says_so(isolated_home: object) -> None:
    result = SkillTools([]).dispatch("search_skills", {"query": "anything"})
    assert not result.is_error and result.text.startswith("No skill matches")


def test_a_long_query_is_not_echoed_back_to_the_model(isolated_home: object) -> None:
    result = SkillTools([]).dispatch("search_skills", {"query": "grep " * 20_000})
    assert result.is_error and len(result.text) < 300 and "grep grep" not in result.text
    assert "grep grep" not in json.dumps(result.data)


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("load_skill", {"name": "x" * 100_000}),
        ("read_skill_file", {"name": "pdf-forms", "path": "a/" * 50_000}),
        ("list_skills", {"cursor": "z" * 100_000}),
    ],
)
def test_an_error_quotes_a_huge_argument_back_cut_short(
    tools: SkillTools, tool: str, arguments: dict[str, str]
) -> None:
    result = tools.dispatch(tool, arguments)
    assert result.is_error and len(result.text) < 1_500
    assert len(json.dumps(result.data)) < 1_500 and result.data["code"]


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)


@settings(max_examples=120, suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None)
@given(
    name=st.sampled_from(["load_skill", "search_skills", "read_skill_file", "list_skills", "other"]),
    arguments=st.dictionaries(
        st.sampled_from(["name", "path", "query", "top_k", "cursor", "limit", "x"]), JSON, max_size=4
    )
    | st.text(max_size=30),
)
def test_dispatch_never_raises_whatever_the_arguments(tools: SkillTools, name: str, arguments: Any) -> None:
    result = tools.dispatch(name, arguments)
    assert isinstance(result.text, str) and result.text
    assert "hunter2" not in result.text


def test_listing_cuts_long_descriptions_but_search_keeps_them(tmp_path: Path, isolated_home: object) -> None:
    long = "Handle very long documents carefully. " * 15
    write_skill(tmp_path / "lib", "long-doc", long.strip(), "# Long\n")
    library = SkillTools(discover_in([tmp_path / "lib"]).skills)
    listed = library.dispatch("list_skills", {})
    assert len(listed.data["skills"][0]["description"]) == 200 and listed.text.rstrip().endswith("…")
    found = library.dispatch("search_skills", {"query": "long documents"})
    assert found.data["results"][0]["description"] == long.strip()


def test_a_shadowed_name_loads_the_first_and_search_gives_the_other_by_its_path(
    tmp_path: Path, isolated_home: object
) -> None:
    first = write_skill(tmp_path / "a", "csv-report", "Build a CSV report from sales data.", "# First\n")
    second = write_skill(tmp_path / "b", "csv-report", "Build a CSV report from sales figures.", "# Second\n")
    library = SkillTools(discover_in([tmp_path / "a", tmp_path / "b"]).skills)
    found = library.dispatch("search_skills", {"query": "csv report sales"})
    loads = {r["path"]: r["load"] for r in found.data["results"]}
    assert loads == {
        str(first / "SKILL.md"): "csv-report",
        str(second / "SKILL.md"): str(second / "SKILL.md"),
    }
    assert "# First" in library.dispatch("load_skill", {"name": "csv-report"}).text
    assert "# Second" in library.dispatch("load_skill", {"name": str(second / "SKILL.md")}).text


def test_name_enum_limits_skill_names_in_the_schema(tools: SkillTools) -> None:
    load, search, read = tools.anthropic_tools(name_enum=True)
    assert load["input_schema"]["properties"]["name"]["enum"] == [
        "internal-helper",
        "pdf-forms",
        "release-notes",
    ]
    assert "enum" not in search["input_schema"]["properties"]["query"]
    assert (
        read["input_schema"]["properties"]["name"]["enum"]
        == load["input_schema"]["properties"]["name"]["enum"]
    )
    assert "enum" not in tools.openai_tools()[0]["parameters"]["properties"]["name"]  # off by default
    strict = tools.openai_tools("chat", strict=True, name_enum=True)[0]["function"]["parameters"]
    assert strict["properties"]["name"]["enum"][1] == "pdf-forms"


def test_name_enum_is_refused_for_a_large_library(tools: SkillTools) -> None:
    base = tools.skills[0]
    many = SkillTools([dataclasses.replace(base, name=f"skill-{i}") for i in range(201)])
    with pytest.raises(SkillshelfError) as info:
        many.openai_tools(name_enum=True)
    assert info.value.code == "SV400"


COUNT_SKILLS: SkillTool = Tool(
    name="count_skills",
    description="How many skills there are.",
    parameters={"type": "object", "properties": {}, "additionalProperties": False},
    handler=lambda host, _args: ToolResult(text=str(len(host.skills))),
)


def test_a_tool_registered_once_is_offered_and_dispatched_on_every_api(tmp_path: Path) -> None:
    skills = discover_in([make_skill_tree(tmp_path)]).skills
    tools = SkillTools(skills, tools=(*SKILL_TOOLS, COUNT_SKILLS))
    assert [d["name"] for d in tools.openai_tools()][-1] == "count_skills"
    assert [d["name"] for d in tools.anthropic_tools()][-1] == "count_skills"
    assert tools.dispatch("count_skills", "{}").text == str(len(skills))
    assert "count_skills" not in [d["name"] for d in SkillTools(skills).openai_tools()]


def test_the_registry_decides_what_each_surface_offers(tools: SkillTools) -> None:
    assert [t.name for t in SKILL_TOOLS] == ["load_skill", "search_skills", "read_skill_file", "list_skills"]
    assert [s.name for s in tools.tool_specs(include_listing=True)] == [t.name for t in SKILL_TOOLS]
    assert [s.name for s in tools.tool_specs()] == [t.name for t in SKILL_TOOLS if not t.mcp_only]
    assert [t.name for t in SERVER_TOOLS] == [t.name for t in SKILL_TOOLS]
    unknown = tools.dispatch("count_skills", {})
    assert unknown.is_error and unknown.text.endswith("load_skill, search_skills, read_skill_file")
