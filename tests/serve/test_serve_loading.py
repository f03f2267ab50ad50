"""What a server serves follows the config: skill modes, extra roots, and project trust."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from serve_helpers import write_skill

from skillshelf.env import Env
from skillshelf.serve.loading import open_library
from skillshelf.workspace import WorkspaceOptions

NO_BUILTIN = WorkspaceOptions(include_builtin=False, use_cache=False)


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    write_skill(
        project / ".agents" / "skills", "project-deploy", "Deploy this project to staging.", "# Deploy\n"
    )
    return project


def _user_config(isolated_home: Any, text: str) -> None:
    folder = isolated_home.config / "skillshelf"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.toml").write_text(text, encoding="utf-8")


def test_modes_decide_what_is_served_and_listed(tmp_path: Path, isolated_home: Any) -> None:
    extra = tmp_path / "extra"
    for name in ("kept", "gone", "quiet", "terse"):
        write_skill(extra, name, f"The {name} skill does {name} things.", f"# {name}\n")
    _user_config(
        isolated_home,
        "\n".join(
            f'[[skills.config]]\nname = "{name}"\nmode = "{mode}"\n'
            for name, mode in (("gone", "disabled"), ("quiet", "manual"), ("terse", "name-only"))
        ),
    )
    env = Env.for_test(cwd=_project(tmp_path), home=isolated_home.home)
    library = open_library(
        env, WorkspaceOptions(extra_roots=(extra,), include_builtin=False, use_cache=False)
    )
    tools = library.tools
    assert "gone" not in tools.names() and tools.dispatch("load_skill", {"name": "gone"}).is_error
    assert not tools.dispatch("load_skill", {"name": "quiet"}).is_error  # manual: loadable, not listed
    catalog = tools.catalog()
    assert "kept: The kept skill" in catalog and "quiet" not in catalog
    assert "terse" in catalog and "terse things" not in catalog


def test_skills_of_an_untrusted_project_are_served_marked(tmp_path: Path, isolated_home: Any) -> None:
    project = _project(tmp_path)
    env = Env.for_test(cwd=project, home=isolated_home.home)
    tools = open_library(env, NO_BUILTIN).tools
    skill = tools.get("project-deploy")
    assert skill.trusted is False
    loaded = tools.dispatch("load_skill", {"name": "project-deploy"})
    assert loaded.text.startswith("Note: this skill comes from a project folder that is not trusted")

    _user_config(isolated_home, f'[projects."{project}"]\ntrust_level = "trusted"\n')
    trusted = open_library(env, NO_BUILTIN).tools
    assert trusted.get("project-deploy").trusted is True
    assert trusted.dispatch("load_skill", {"name": "project-deploy"}).text.startswith("<skill>")


def test_search_skills_follows_the_select_settings_of_the_config(tmp_path: Path, isolated_home: Any) -> None:
    extra = tmp_path / "extra"
    for name, text in (
        ("pdf-merge", "Merge, split and rotate PDF files."),
        ("csv-clean", "Clean messy CSV files: delimiters, encodings, headers."),
        ("pdf-forms", "Fill in PDF forms and read their fields."),
    ):
        write_skill(extra, name, text, f"# {name}\n\n{text}\n")
    options = WorkspaceOptions(extra_roots=(extra,), include_builtin=False, use_cache=False)
    env = Env.for_test(cwd=_project(tmp_path), home=isolated_home.home)

    def found() -> list[str]:
        result = open_library(env, options).tools.dispatch("search_skills", {"query": "merge two pdf files"})
        return [row["name"] for row in result.data["results"]]

    assert found()[:1] == ["pdf-merge"]
    _user_config(isolated_home, "[select]\nmin_confidence = 100\n")
    assert found() == []  # nothing is that certain: the served search suggests what context would
    _user_config(isolated_home, "[select]\nmin_confidence = 0\n")
    assert found()[:1] == ["pdf-merge"]


def test_search_and_list_offer_only_what_the_catalog_lists_manual_skills_load_by_name(
    tmp_path: Path, isolated_home: Any
) -> None:
    extra = tmp_path / "extra"
    for name, text in (
        ("secret-ops", "Rotate production database credentials and kubernetes secrets."),
        ("vault-notes", "Rotate vault secrets and database passwords on a schedule."),
        ("table-format", "Format markdown tables."),
        ("gone", "Rotate kubernetes secrets and database credentials by hand."),
    ):
        write_skill(extra, name, text, f"# {name}\n\n{text}\n")
    _user_config(
        isolated_home,
        "[select]\nmin_confidence = 0\n"
        + "".join(
            f'[[skills.config]]\nname = "{name}"\nmode = "{mode}"\n'
            for name, mode in (("secret-ops", "manual"), ("vault-notes", "name-only"), ("gone", "disabled"))
        ),
    )
    env = Env.for_test(cwd=_project(tmp_path), home=isolated_home.home)
    options = WorkspaceOptions(extra_roots=(extra,), include_builtin=False, use_cache=False)
    tools = open_library(env, options).tools

    found = tools.dispatch("search_skills", {"query": "rotate database credentials kubernetes secrets"})
    names = [row["name"] for row in found.data["results"]]
    assert names[:1] == ["vault-notes"] and "secret-ops" not in names and "gone" not in names
    assert "secret-ops" not in found.text
    listed = tools.dispatch("list_skills", {})
    assert [row["name"] for row in listed.data["skills"]] == ["project-deploy", "table-format", "vault-notes"]
    assert listed.data["total"] == 3 and "secret-ops" not in listed.text
    assert "\n- vault-notes\n" in listed.text + "\n"  # name-only: listed as the catalog lists it
    assert "Rotate production" in tools.dispatch("load_skill", {"name": "secret-ops"}).text


def test_a_manual_skill_is_not_in_the_resource_list_a_model_browses_but_reads_by_uri_and_is_a_prompt(
    tmp_path: Path, isolated_home: Any
) -> None:
    import anyio
    import mcp.types as types
    from mcp import Client

    from skillshelf.serve.mcp_server import ServeOptions, build_server

    extra = tmp_path / "extra"
    for name in ("kept", "quiet", "terse"):
        write_skill(extra, name, f"The {name} skill does {name} things.", f"# {name}\n")
    _user_config(
        isolated_home,
        '[[skills.config]]\nname = "quiet"\nmode = "manual"\n'
        '[[skills.config]]\nname = "terse"\nmode = "name-only"\n',
    )
    env = Env.for_test(cwd=_project(tmp_path), home=isolated_home.home)
    library = open_library(
        env, WorkspaceOptions(extra_roots=(extra,), include_builtin=False, use_cache=False)
    )

    async def body(client: Client) -> tuple[list[str], str, list[str]]:
        listed = [str(r.uri) for r in (await client.list_resources()).resources]
        read = (await client.read_resource("skill://quiet/SKILL.md")).contents[0]
        assert isinstance(read, types.TextResourceContents)
        prompts = [p.name for p in (await client.list_prompts()).prompts]
        return listed, read.text, prompts

    async def main() -> tuple[list[str], str, list[str]]:
        with anyio.fail_after(60):
            async with Client(build_server(library, ServeOptions(watch=False)), mode="legacy") as client:
                return await body(client)

    listed, text, prompts = anyio.run(main)
    assert "skill://kept/SKILL.md" in listed and "skill://terse/SKILL.md" in listed
    assert not any(uri.startswith("skill://quiet/") for uri in listed)  # a model browses this list
    assert "The quiet skill does quiet things." in text  # still read by URI, as load_skill loads it
    assert "quiet" in prompts  # a prompt is the user's to invoke: a manual skill is one


def test_the_served_catalog_keeps_to_the_unknown_window_budget_or_the_configs_when_smaller(
    tmp_path: Path, isolated_home: Any
) -> None:
    from skillshelf.serve.loading import workspace_tools
    from skillshelf.skills.catalog.budget import DEFAULT_CHAR_BUDGET
    from skillshelf.workspace import Workspace

    extra = tmp_path / "extra"
    for i in range(40):
        write_skill(extra, f"wide-{i:02}", f"Skill {i}: " + "plan, check and verify the work. " * 30, "# b\n")
    env = Env.for_test(cwd=_project(tmp_path), home=isolated_home.home)
    options = WorkspaceOptions(extra_roots=(extra,), include_builtin=False, use_cache=False)

    def listed_chars(catalog: str) -> int:
        return sum(len(line) for line in catalog.splitlines() if line.startswith("- "))

    served = open_library(env, options).tools.catalog()
    assert 0 < listed_chars(served) <= DEFAULT_CHAR_BUDGET
    api = workspace_tools(Workspace.open(env, options)).catalog()  # the model's budget: Codex's default
    assert listed_chars(api) > DEFAULT_CHAR_BUDGET
    _user_config(isolated_home, "[catalog]\nbudget_tokens = 500\n")
    smaller = open_library(env, options).tools.catalog()
    assert 0 < listed_chars(smaller) <= 500 * 4 < listed_chars(served)
