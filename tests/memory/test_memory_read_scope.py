"""What agents read from memory follows `memory.scope`: only the scope the setting writes now.

After a switch between project and global, the other kind's memory folder stays on disk as it
was (until `memory prune --other-scopes`), but its summary, its lines and its skills reach no
agent: not `context`, not the hooks, not `memory show`/`search`, not the memory skill roots,
and citations of its sessions count no use."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from memory_helpers import run_cli

from skillshelf.config import load_config
from skillshelf.env import Env
from skillshelf.hooks import events
from skillshelf.hooks.payload import parse_input
from skillshelf.memory.layout import GLOBAL_SCOPE, memory_project, project_scope, scope_dir
from skillshelf.memory.read import memory_folders_for, memory_summary_for, record_citations, search_memory
from skillshelf.memory.store import SessionRow, open_store
from skillshelf.serve.ui.memory_view import memory_view
from skillshelf.workspace import Workspace, WorkspaceOptions

PROJECT_FACT = "the project deploys with make ship"
GLOBAL_FACT = "the user prefers tabs everywhere"


@dataclass(frozen=True)
class Scopes:
    env: Env
    project: Path  # this project's memory folder
    global_: Path  # the global memory folder

    def files(self) -> dict[Path, bytes]:
        """Every file of both memory folders, with its bytes."""
        return {
            p: p.read_bytes() for root in (self.project, self.global_) for p in root.rglob("*") if p.is_file()
        }


def _fill(folder: Path, *, summary: str | None, line: str, skill: str, thread: str) -> None:
    folder.mkdir(parents=True)
    if summary is not None:
        (folder / "memory_summary.md").write_text(f"## Preferences\n- {summary}\n", encoding="utf-8")
    (folder / "MEMORY.md").write_text(
        f"# Task Group: quokka\n- {line} (thread_id={thread})\n", encoding="utf-8"
    )
    skill_dir = folder / "skills" / skill
    skill_dir.mkdir(parents=True)
    (skill_dir / "SKILL.md").write_text(
        f"---\nname: {skill}\ndescription: The {skill} skill, written by consolidation.\n---\n# {skill}\n",
        encoding="utf-8",
    )


def _scopes(box: Any, monkeypatch: pytest.MonkeyPatch, *, project_summary: bool) -> Scopes:
    folder = box.home / "proj"
    (folder / ".git").mkdir(parents=True)
    monkeypatch.chdir(folder)
    env = Env.from_os()
    project = scope_dir(env.dirs.data, project_scope(memory_project(env.project_root)))
    global_ = scope_dir(env.dirs.data, GLOBAL_SCOPE)
    _fill(
        project,
        summary=PROJECT_FACT if project_summary else None,
        line="quokka builds run with make quokka",
        skill="remembered-release",
        thread="p1",
    )
    _fill(global_, summary=GLOBAL_FACT, line="quokka style is tabs", skill="remembered-style", thread="g1")
    return Scopes(env=env, project=project, global_=global_)


@pytest.fixture
def to_global(isolated_home: Any, monkeypatch: pytest.MonkeyPatch) -> Scopes:
    """Both folders written; memory.scope switched from project to global."""
    scopes = _scopes(isolated_home, monkeypatch, project_summary=True)
    isolated_home.write_user_config('[memory]\nscope = "global"\n')
    return scopes


@pytest.fixture
def to_project(isolated_home: Any, monkeypatch: pytest.MonkeyPatch) -> Scopes:
    """memory.scope switched from global back to project (the default) before the project's
    first consolidation: the project folder has no summary yet, the global one has."""
    return _scopes(isolated_home, monkeypatch, project_summary=False)


def _context_memory(capsys: pytest.CaptureFixture[str]) -> str:
    code, out, err = run_cli(capsys, "context", "--json", "--no-builtin", "--no-suggestions", "ship it")
    assert code == 0, err
    return "".join(p["text"] for p in json.loads(out)["parts"] if p["name"] == "memory")


def test_after_a_switch_to_global_agents_get_the_global_summary_not_the_projects(
    to_global: Scopes, capsys: pytest.CaptureFixture[str]
) -> None:
    before = to_global.files()

    memory = _context_memory(capsys)
    code, out, _ = run_cli(capsys, "memory", "show", "--json")

    assert GLOBAL_FACT in memory and PROJECT_FACT not in memory
    assert code == 0 and json.loads(out)["scope"] == GLOBAL_SCOPE and GLOBAL_FACT in json.loads(out)["text"]
    in_context = memory_view(to_global.env, load_config(to_global.env))["in_context"]
    assert isinstance(in_context, dict) and in_context["scope"] == GLOBAL_SCOPE  # the ui's badge
    assert to_global.files() == before  # the project's memories stay on disk, unread


def test_after_a_switch_back_to_project_the_global_summary_is_no_fallback(
    to_project: Scopes, capsys: pytest.CaptureFixture[str]
) -> None:
    before = to_project.files()

    memory = _context_memory(capsys)
    code, _, err = run_cli(capsys, "memory", "show")

    assert memory == ""
    assert code != 0 and "ME405" in err and str(to_project.global_) not in err
    assert memory_summary_for(to_project.env, setting="project") is None
    assert memory_summary_for(to_project.env, setting="global") is not None  # switching back reads it
    assert to_project.files() == before


def test_memory_show_names_the_global_scope_when_it_has_no_summary_yet(
    to_global: Scopes, capsys: pytest.CaptureFixture[str]
) -> None:
    (to_global.global_ / "memory_summary.md").unlink()

    code, _, err = run_cli(capsys, "memory", "show")

    assert code != 0 and "ME405" in err and "no global memory summary yet" in err
    assert str(to_global.global_) in err and str(to_global.project) not in err


def test_memory_search_finds_only_the_lines_of_the_scope_written(
    to_global: Scopes, capsys: pytest.CaptureFixture[str]
) -> None:
    before = to_global.files()

    code, out, _ = run_cli(capsys, "memory", "search", "quokka", "--no-usage", "--json")

    assert code == 0
    assert {Path(h["path"]).parent for h in json.loads(out)} == {to_global.global_}
    project_hits = search_memory(to_global.env, "quokka", setting="project", record_usage=False)
    assert {h.path.parent for h in project_hits} == {to_global.project}
    assert to_global.files() == before


def test_memory_written_skills_come_only_from_the_scope_written(to_global: Scopes) -> None:
    opened = Workspace.open(to_global.env, WorkspaceOptions(include_builtin=False, use_cache=False))

    assert opened.memory_roots == (to_global.global_ / "skills",)
    assert {s.name for s in opened.skills.loadable} == {"remembered-style"}


def test_the_session_start_and_prompt_hooks_follow_the_scope_written(to_global: Scopes) -> None:
    env = to_global.env
    raw = {
        "session_id": "sess-1",
        "cwd": str(env.cwd),
        "hook_event_name": "SessionStart",
        "source": "startup",
    }
    start = parse_input(json.dumps(raw).encode(), "SessionStart")
    prompt = parse_input(
        json.dumps({**raw, "hook_event_name": "UserPromptSubmit", "prompt": "quokka style builds"}).encode(),
        "UserPromptSubmit",
    )

    summary = events.session_start("claude", start, env, lambda args: None)
    lines = events.user_prompt_submit("claude", prompt, env, lambda args: None)

    assert GLOBAL_FACT in summary and PROJECT_FACT not in summary
    assert "quokka style is tabs" in lines and "make quokka" not in lines


def test_a_setting_memory_run_refuses_reads_no_folder(to_global: Scopes) -> None:
    assert memory_folders_for(to_global.env, setting="Global") == []
    assert memory_summary_for(to_global.env, setting="") is None


def test_citations_count_a_use_only_for_sessions_of_the_scope_written(isolated_home: Any) -> None:
    data = Env.from_os().dirs.data
    with open_store(None, data_dir=data) as store:
        store.register_sessions(
            [
                SessionRow(id=i, source="codex", path=f"/{i}.jsonl", cwd="", project="", updated_at_ms=1)
                for i in ("p1", "g1")
            ],
            1,
        )
        for session, scope in (("p1", "project:/w"), ("g1", GLOBAL_SCOPE)):
            store.execute_for_tests(
                "INSERT INTO stage1_outputs (session_id, scope, source_updated_at_ms, raw_memory, "
                f"rollout_summary, generated_at_ms) VALUES ('{session}', '{scope}', 1, 'r', 's', 1)"
            )
    reply = "done\n<oai-mem-citation>\n<rollout_ids>\np1\ng1\n</rollout_ids>\n</oai-mem-citation>"

    assert record_citations(reply, data_dir=data, setting="global") == ["p1", "g1"]

    with open_store(None, data_dir=data) as store:
        assert {r.session_id: r.usage_count for r in store.outputs()} == {"p1": 0, "g1": 1}
