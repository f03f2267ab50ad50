"""``skills.include_instructions = false``: the server and the API tools give the model no skills
list, as ``skillshelf context`` gives it no catalog, while a skill is still loaded by name."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import mcp.types as types
import pytest
from mcp import Client
from serve_helpers import write_skill

from skillshelf.env import Env
from skillshelf.serve.library import SkillLibrary
from skillshelf.serve.loading import open_library
from skillshelf.serve.mcp_server import ServeOptions, build_server
from skillshelf.serve.tools import SkillTools
from skillshelf.serve.unlisted import UNLISTED_NOTE
from skillshelf.workspace import WorkspaceOptions

LIST_OFF = "[skills]\ninclude_instructions = false\n"
DESCRIPTION = "Deploy this project to the staging cluster."


def _library(tmp_path: Path, isolated_home: Any) -> SkillLibrary:
    skills = tmp_path / "skills"
    write_skill(skills, "stage-deploy", DESCRIPTION, "# Deploy\nRun make deploy.\n")
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    env = Env.for_test(cwd=project, home=isolated_home.home)
    return open_library(env, WorkspaceOptions(extra_roots=(skills,), include_builtin=False, use_cache=False))


def _switch_off_in(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(LIST_OFF, encoding="utf-8")
    return path


def _skillshelf_config(isolated_home: Any) -> Path:
    return Path(isolated_home.config, "skillshelf", "config.toml")


def _codex_config(isolated_home: Any) -> Path:
    return Path(isolated_home.home, ".codex", "config.toml")


@pytest.mark.parametrize("config", [_skillshelf_config, _codex_config], ids=["skillshelf", "codex"])
def test_the_switch_in_either_config_withholds_the_catalog_and_list_skills_names_where_it_is_set(
    tmp_path: Path, isolated_home: Any, config: Any
) -> None:
    where = _switch_off_in(config(isolated_home))
    tools = _library(tmp_path, isolated_home).tools
    assert tools.withheld is not None and str(where) in tools.withheld
    assert tools.catalog() == ""
    prompt = tools.system_prompt()
    assert prompt.endswith(UNLISTED_NOTE) and "stage-deploy" not in prompt and DESCRIPTION not in prompt
    listed = tools.dispatch("list_skills", {})
    assert listed.is_error and listed.data["code"] == "SV406" and "stage-deploy" not in listed.text
    assert str(where) in listed.text
    loaded = tools.dispatch("load_skill", {"name": "stage-deploy"})
    assert not loaded.is_error and "Run make deploy." in loaded.text


def test_the_server_gives_no_catalog_and_no_resource_list_but_loads_reads_and_searches_by_name(
    tmp_path: Path, isolated_home: Any
) -> None:
    _switch_off_in(_skillshelf_config(isolated_home))
    library = _library(tmp_path, isolated_home)

    async def main() -> dict[str, Any]:
        with anyio.fail_after(60):
            async with Client(build_server(library, ServeOptions(watch=False)), mode="legacy") as client:
                read = (await client.read_resource("skill://stage-deploy/SKILL.md")).contents[0]
                assert isinstance(read, types.TextResourceContents)
                return {
                    "instructions": client.instructions or "",
                    "resources": (await client.list_resources()).resources,
                    "listed": await client.call_tool("list_skills", {}),
                    "loaded": await client.call_tool("load_skill", {"name": "stage-deploy"}),
                    "found": await client.call_tool("search_skills", {"query": "deploy to staging"}),
                    "read": read.text,
                    "prompts": [p.name for p in (await client.list_prompts()).prompts],
                }

    got = anyio.run(main)
    assert "stage-deploy" not in got["instructions"] and DESCRIPTION not in got["instructions"]
    assert "No list of them is given here" in got["instructions"]
    assert got["resources"] == [] and got["listed"].is_error
    assert not got["loaded"].is_error and "Run make deploy." in got["read"]
    assert got["found"].structured_content["results"][0]["name"] == "stage-deploy"
    assert got["prompts"] == ["stage-deploy"]  # a prompt is the user's to invoke, as `$name` in Codex


def test_with_the_switch_left_on_the_skills_are_listed_and_a_reason_given_withholds_them(
    tmp_path: Path, isolated_home: Any
) -> None:
    tools = _library(tmp_path, isolated_home).tools
    assert tools.withheld is None and f"stage-deploy: {DESCRIPTION}" in tools.catalog()
    assert DESCRIPTION in tools.system_prompt() and not tools.dispatch("list_skills", {}).is_error
    withheld = SkillTools(tools.skills, withheld="skills.include_instructions = false")
    assert DESCRIPTION not in withheld.system_prompt() and withheld.dispatch("list_skills", {}).is_error
