"""The one way in: `context`, `serve` and the CLI see the same workspace for the same folder."""

from __future__ import annotations

import json
import re
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from click.testing import CliRunner

from skillshelf.cli.main import cli
from skillshelf.dirs import UserDirs
from skillshelf.env import Env
from skillshelf.memory.layout import GLOBAL_SCOPE, memory_project, project_scope, scope_dir
from skillshelf.serve.loading import open_library
from skillshelf.serve.tools import SkillTools
from skillshelf.workspace import Workspace, WorkspaceOptions
from testkit import IsolatedHome


def _skill(root: Path, name: str) -> None:
    folder = root / name
    folder.mkdir(parents=True)
    text = f"---\nname: {name}\ndescription: The {name} skill, for tests of the workspace.\n---\n# {name}\n"
    (folder / "SKILL.md").write_text(text, encoding="utf-8")


@pytest.fixture
def project(isolated_home: IsolatedHome, monkeypatch: pytest.MonkeyPatch) -> Env:
    """A project with one skill of its own and one the memory pipeline wrote for each scope (only
    the project's is read under the default memory.scope)."""
    folder = isolated_home.home / "proj"
    (folder / ".git").mkdir(parents=True)
    _skill(folder / ".agents" / "skills", "deploy")
    monkeypatch.chdir(folder)
    env = Env.from_os()
    project_memory = scope_dir(env.dirs.data, project_scope(memory_project(env.project_root)))
    global_memory = scope_dir(env.dirs.data, GLOBAL_SCOPE)
    _skill(project_memory / "skills", "remembered-release")
    _skill(global_memory / "skills", "remembered-style")
    return env


def _served_names(tools: SkillTools) -> set[str]:
    names: set[str] = set()
    cursor = None
    while True:
        page = tools.dispatch("list_skills", {"cursor": cursor} if cursor else {})
        names |= {row["name"] for row in page.data["skills"]}
        if not (cursor := page.data["next_cursor"]):
            return names


def test_serve_and_context_list_the_same_skills_memory_written_ones_included(project: Env) -> None:
    result = CliRunner().invoke(cli, ["context", "--json", "--no-builtin", "--no-suggestions", "ship it"])
    assert result.exit_code == 0, result.output
    catalog = next(p for p in json.loads(result.stdout)["parts"] if p["name"] == "catalog")
    in_context = set(re.findall(r"^- ([\w:-]+): ", catalog["text"], re.M))
    served = open_library(project, WorkspaceOptions(include_builtin=False)).tools
    assert in_context == {"deploy", "remembered-release"}
    assert _served_names(served) == in_context
    assert (
        set(re.findall(r"^- ([\w:-]+): ", served.catalog(), re.M)) == in_context
    )  # the server's instructions


def test_the_memory_switch_decides_whether_memory_written_skills_are_in(project: Env) -> None:
    opened = Workspace.open(project, WorkspaceOptions(include_builtin=False, use_cache=False))
    assert {s.name for s in opened.skills.loadable} == {"deploy", "remembered-release"}
    assert set(opened.memory_roots) <= set(opened.roots) and len(opened.memory_roots) == 1
    without = Workspace.open(project, WorkspaceOptions(include_builtin=False, use_cache=False, memory=False))
    assert {s.name for s in without.skills.loadable} == {"deploy"} and without.memory_roots == ()


def test_env_from_os_resolves_every_user_folder_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, isolated_home: IsolatedHome
) -> None:
    monkeypatch.setenv("SKILLSHELF_DATA_DIR", str(tmp_path / "data-override"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))
    monkeypatch.delenv("XDG_STATE_HOME")
    env = Env.from_os(cwd=tmp_path)
    assert env.dirs == UserDirs(
        cache=tmp_path / "xdg-cache" / "skillshelf",
        data=tmp_path / "data-override",
        config=isolated_home.config / "skillshelf",
        state=isolated_home.home / ".local" / "state" / "skillshelf",
    )
    monkeypatch.setenv("SKILLSHELF_DATA_DIR", str(tmp_path / "moved-later"))
    assert env.dirs.data == tmp_path / "data-override"  # a value: later changes do not leak in


def test_env_for_test_isolates_every_folder_under_its_home(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    env = Env.for_test(cwd=tmp_path, home=tmp_path / "elsewhere")
    for folder in (env.dirs.cache, env.dirs.data, env.dirs.config, env.dirs.state, env.codex_home):
        assert folder.is_relative_to(tmp_path / "elsewhere")
    opened = Workspace.open(env)
    assert opened.index_cache_dir == env.dirs.cache / "index"
    assert (env.dirs.data / "builtin-skills").is_dir() and not any(isolated_home.data.iterdir())


def test_threads_that_ask_for_the_index_at_once_share_one_build(
    project: Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    from skillshelf.select.index import SkillIndex

    built: list[int] = []
    build = SkillIndex.build

    def slow_build(*args: object, **kwargs: object) -> SkillIndex:
        built.append(1)
        time.sleep(0.2)  # every thread reaches get() before the first build ends
        return build(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(SkillIndex, "build", staticmethod(slow_build))
    handle = Workspace.open(project, WorkspaceOptions(include_builtin=False)).index
    with ThreadPoolExecutor(4) as pool:
        indexes = list(pool.map(lambda _: handle.get(), range(4)))
    assert len(built) == 1 and all(index is indexes[0] for index in indexes)
