"""agents/openai.yaml: Codex's optional metadata, read fail-open."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillshelf.skills.model import SkillInterface, ToolDependency
from skillshelf.skills.openai_yaml import OpenAIMetadata, parse_openai_yaml

SKILL_DIR = Path("/s/demo")


def read(text: str):  # type: ignore[no-untyped-def]
    return parse_openai_yaml(text, path=SKILL_DIR / "agents" / "openai.yaml", skill_dir=SKILL_DIR)


def test_policy_can_hide_a_skill_from_implicit_use() -> None:
    meta, notes = read("policy:\n  allow_implicit_invocation: false\n")
    assert not meta.policy.allow_implicit_invocation and meta.policy.products == () and notes == ()


def test_empty_policy_allows_implicit_use() -> None:
    meta, _ = read("policy: {}\n")
    assert meta.policy.allow_implicit_invocation


def test_products_accept_upper_case_names() -> None:
    meta, _ = read("policy:\n  products:\n    - codex\n    - CHATGPT\n    - atlas\n")
    assert meta.policy.products == ("codex", "chatgpt", "atlas")


def test_interface_strings_are_collapsed_and_icons_resolved() -> None:
    meta, notes = read(
        'interface:\n  display_name: "UI Skill"\n  short_description: "  short    desc   "\n'
        '  icon_small: "./assets/small-400px.png"\n  icon_large: "./assets/large-logo.svg"\n'
        '  brand_color: "#3B82F6"\n  default_prompt: "  default   prompt   "\n'
    )
    assert meta.interface == SkillInterface(
        display_name="UI Skill",
        short_description="short desc",
        icon_small=SKILL_DIR / "assets" / "small-400px.png",
        icon_large=SKILL_DIR / "assets" / "large-logo.svg",
        brand_color="#3B82F6",
        default_prompt="default prompt",
    )
    assert notes == ()


def test_invalid_brand_color_is_dropped_and_empty_interface_is_absent() -> None:
    meta, notes = read('{"interface": {"brand_color": "blue"}}')
    assert meta.interface is None and [n.code for n in notes] == ["SK118"]


def test_overlong_default_prompt_is_dropped_alone() -> None:
    meta, notes = read(
        "interface:\n  display_name: UI Skill\n  icon_small: ./assets/small-400px.png\n"
        f"  default_prompt: {'x' * 1025}\n"
    )
    assert meta.interface is not None and meta.interface.default_prompt is None
    assert (
        meta.interface.display_name == "UI Skill"
        and meta.interface.icon_small == SKILL_DIR / "assets" / "small-400px.png"
    )
    assert notes[0].field == "interface.default_prompt"


def test_icons_outside_assets_or_escaping_are_dropped() -> None:
    meta, notes = read('{"interface": {"icon_small": "icon.png", "icon_large": "./assets/../logo.svg"}}')
    assert meta.interface is None and len(notes) == 2


def test_tool_dependencies_are_read_with_optional_fields() -> None:
    meta, _ = read(
        '{"dependencies":{"tools":[{"type":"mcp","value":"github","description":"GitHub MCP server",'
        '"transport":"streamable_http","url":"https://example.com/mcp"},'
        '{"type":"cli","value":"gh","description":"GitHub CLI"},'
        '{"type":"mcp","value":"local-gh","transport":"stdio","command":"gh-mcp"},{"type":"mcp"}]}}'
    )
    assert meta.dependencies == (
        ToolDependency(
            type="mcp",
            value="github",
            description="GitHub MCP server",
            transport="streamable_http",
            url="https://example.com/mcp",
        ),
        ToolDependency(type="cli", value="gh", description="GitHub CLI"),
        ToolDependency(type="mcp", value="local-gh", transport="stdio", command="gh-mcp"),
    )


def test_unusable_files_are_ignored_as_a_whole_with_a_warning() -> None:
    for text in (
        "policy: [",
        "policy:\n  products: [bogus]\n",
        "interface: 5\n",
        "policy:\n  allow_implicit_invocation: maybe\n",
        "- a\n",
    ):
        meta, notes = read(text)
        assert meta.interface is None and meta.policy.allow_implicit_invocation and meta.policy.products == ()
        assert [n.code for n in notes] == ["SK117"], text
        assert notes[0].fix


def test_alias_bombs_are_refused() -> None:
    bomb = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{c}: &{c} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}]\n"
        for p, c in zip("abcdefgh", "bcdefghi", strict=True)
    )
    meta, notes = read(bomb)
    assert [n.code for n in notes] == ["SK117"] and meta.interface is None


@pytest.mark.parametrize(
    "value", ["'false'", '"false"', "'False'", "'true'", "!!bool 'false'", "|\n    false", ">-\n    false"]
)
def test_a_quoted_or_block_boolean_makes_the_whole_file_ignored(value: str) -> None:
    meta, notes = read(
        "interface:\n  display_name: Shown\npolicy:\n  products: [chatgpt]\n"
        f"  allow_implicit_invocation: {value}\n"
    )
    assert meta == OpenAIMetadata() and [n.code for n in notes] == ["SK117"]


@pytest.mark.parametrize(
    ("value", "allowed"), [("false", False), ("FALSE", False), ("!!str false", False), ("true", True)]
)
def test_a_plain_boolean_is_read_whatever_its_tag(value: str, allowed: bool) -> None:
    meta, notes = read(f"policy:\n  allow_implicit_invocation: {value}\n")
    assert meta.policy.allow_implicit_invocation is allowed and notes == ()


def test_quoted_text_fields_are_kept_as_plain_strings() -> None:
    meta, _ = read(
        "interface:\n  display_name: 'Shown'\n  default_prompt: \"go\"\n"
        "policy:\n  products: ['codex']\n"
        "dependencies:\n  tools:\n    - {type: 'cli', value: 'gh', description: 'd'}\n"
    )
    assert meta.interface is not None and meta.policy.products == ("codex",)
    values = [meta.interface.display_name, meta.interface.default_prompt, *meta.policy.products]
    values += [meta.dependencies[0].type, meta.dependencies[0].value, meta.dependencies[0].description]
    assert values == ["Shown", "go", "codex", "cli", "gh", "d"]
    assert all(type(v) is str for v in values)  # the parsed-skill cache stores exact strings
