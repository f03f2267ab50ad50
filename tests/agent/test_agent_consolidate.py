"""The consolidation agent: file tools only, writes confined to the memory files, run against a
real loopback model server in both wire formats."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from skillshelf.agent.consolidate import AgentConsolidator, choose_consolidator
from skillshelf.agent.folder_tools import FolderTools
from skillshelf.env import Env
from skillshelf.errors import ModelCallError, PathEscapeError, UsageError
from skillshelf.memory.models import CallBudget
from skillshelf.memory.phase2 import is_writable_memory_path
from skillshelf.memory.settings import MemorySettings

SUMMARY = "## User preferences\n- Tests run with make check.\n"
HANDBOOK = "# Task Group: tests\nscope: project\n## Task 1\n### rollout_summary_files\n- thread_id=t-1\n"
SKILL = "---\nname: run-tests\ndescription: Run this project's tests.\n---\nRun `make check`.\n"


def _call(tool: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_call": {"name": tool, "arguments": arguments}}


def _bodies(standin: Any) -> list[str]:
    return [json.dumps(r["body"]) for r in standin.requests()]


def _memory_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "memories" / "proj-1234"
    (folder / "rollout_summaries").mkdir(parents=True)
    (folder / "rollout_summaries" / "2026-11-29T10-00-00-abcd-tests.md").write_text(
        "thread_id: t-1\n\nRan the tests with make check.\n", encoding="utf-8"
    )
    (folder / "raw_memories.md").write_text(
        "# Raw Memories\n\n## Thread `t-1`\n- make check\n", encoding="utf-8"
    )
    return folder


def _consolidator(standin: Any, provider: str, tmp_path: Path, **kw: Any) -> AgentConsolidator:
    base = standin.url + "/v1" if provider == "openai" else standin.url
    return AgentConsolidator(
        model=f"{provider}:standin",
        base_url=base,
        api_key="x",
        state_dir=tmp_path / "state",
        temp_dir=tmp_path,
        **kw,
    )


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_agent_writes_memory_files_with_tools_in_a_staged_copy(
    tmp_path: Path, model_standin: Any, provider: str
) -> None:
    standin = model_standin(
        [
            _call("read_file", path="raw_memories.md"),
            _call("write_file", path="memory_summary.md", content=SUMMARY),
            _call("write_file", path="MEMORY.md", content=HANDBOOK),
            _call("write_file", path="skills/run-tests/SKILL.md", content=SKILL),
            _call(
                "edit_file",
                path="MEMORY.md",
                old_text="scope: project",
                new_text="scope: project\napplies_to: cwd=/repo",
            ),
            {"text": "Wrote the summary, the handbook and one skill."},
        ]
    )
    folder = _memory_dir(tmp_path)
    before = _snapshot(folder)

    outcome = _consolidator(standin, provider, tmp_path).consolidate(
        "Mode: INIT\n...", folder, init=True, effort=None
    )

    files = outcome.consolidation.files
    assert set(files) == {"memory_summary.md", "MEMORY.md", "skills/run-tests/SKILL.md"}
    assert files["memory_summary.md"] == SUMMARY and files["skills/run-tests/SKILL.md"] == SKILL
    assert "applies_to: cwd=/repo" in files["MEMORY.md"] and outcome.consolidation.delete == ()
    assert outcome.model_calls == 6 and outcome.consolidator == "agent" and outcome.refused == ()
    assert _snapshot(folder) == before  # the runner applies it, after re-checking ownership
    assert not list(tmp_path.glob("skillshelf-consolidate-*"))  # the staged copy is gone
    bodies = _bodies(standin)
    assert "make check" in bodies[1]  # read_file saw the staged raw memories
    first = standin.requests()[0]["body"]
    names = sorted(t.get("name") or t["function"]["name"] for t in first["tools"])
    assert names == [
        "edit_file",
        "read_file",
        "write_file",
    ]  # no bash, no skill tools, nothing on the network
    assert outcome.transcript is not None
    meta = json.loads(outcome.transcript.read_text(encoding="utf-8").splitlines()[0])
    assert meta["origin"] == "subagent" and meta["cwd"] == str(folder)


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_writes_outside_the_allow_list_and_bash_are_refused_and_reported(
    tmp_path: Path, model_standin: Any, provider: str
) -> None:
    folder = _memory_dir(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    (folder / "skills").mkdir()
    (folder / "skills" / "evil").symlink_to(outside, target_is_directory=True)
    (folder / "memory_summary.md").symlink_to(outside / "summary.md")
    attempts = [
        _call("write_file", path="../outside/escape.txt", content="x"),
        _call("write_file", path=str(outside / "absolute.txt"), content="x"),
        _call("write_file", path="skills/evil/SKILL.md", content="x"),
        _call("write_file", path="memory_summary.md", content="x"),
        _call("write_file", path="raw_memories.md", content="x"),
        _call(
            "edit_file",
            path="rollout_summaries/2026-11-29T10-00-00-abcd-tests.md",
            old_text="make",
            new_text="x",
        ),
        _call("write_file", path="notes.txt", content="x"),
        _call("bash", command=f"touch {outside}/bash.txt"),
        _call("load_skill", name="anything"),
    ]
    standin = model_standin(
        [
            *attempts,
            _call("write_file", path="MEMORY.md", content=HANDBOOK),
            _call("write_file", path="skills/ok/SKILL.md", content=SKILL),
            {"text": "done"},
        ]
    )

    outcome = _consolidator(standin, provider, tmp_path).consolidate(
        "Mode: INCREMENTAL", folder, init=False, effort=None
    )

    bodies = _bodies(standin)
    expected = [
        "not a plain relative path",
        "not a plain relative path",
        "through the symlink skills/evil",
        "through the symlink memory_summary.md",
        "writing 'raw_memories.md' is not allowed",
        "is not allowed",
        "writing 'notes.txt' is not allowed",
        "there is no tool named 'bash'",
        "there is no tool named 'load_skill'",
    ]
    for n, needle in enumerate(expected, start=1):
        assert needle in bodies[n], (n, needle)
    assert list(outside.iterdir()) == []
    assert len(outcome.refused) == len(attempts)
    assert set(outcome.consolidation.files) == {"MEMORY.md", "skills/ok/SKILL.md"}


def test_final_answer_json_carries_deletions_and_files_from_models_without_tool_use(
    tmp_path: Path, model_standin: Any
) -> None:
    folder = _memory_dir(tmp_path)
    (folder / "skills" / "old").mkdir(parents=True)
    (folder / "skills" / "old" / "SKILL.md").write_text(SKILL, encoding="utf-8")
    (folder / "MEMORY.md").write_text(HANDBOOK, encoding="utf-8")
    reply = {"files": {"memory_summary.md": SUMMARY}, "delete": ["skills/old"]}
    standin = model_standin([{"text": "Removed a stale skill.\n" + json.dumps(reply)}])

    outcome = _consolidator(standin, "openai", tmp_path).consolidate(
        "Mode: INCREMENTAL", folder, init=False, effort=None
    )

    assert outcome.consolidation.files == {"memory_summary.md": SUMMARY}
    assert outcome.consolidation.delete == ("skills/old",)


def test_deleting_outside_the_memory_files_discards_the_consolidation(
    tmp_path: Path, model_standin: Any
) -> None:
    standin = model_standin([{"text": json.dumps({"delete": ["../../etc/passwd"]})}])
    with pytest.raises(PathEscapeError):
        _consolidator(standin, "openai", tmp_path).consolidate(
            "Mode: INCREMENTAL", _memory_dir(tmp_path), init=False, effort=None
        )


def test_init_without_both_main_files_fails_and_an_unfinished_agent_fails(
    tmp_path: Path, model_standin: Any
) -> None:
    standin = model_standin([_call("write_file", path="MEMORY.md", content=HANDBOOK), {"text": "done"}])
    with pytest.raises(ModelCallError) as missing:
        _consolidator(standin, "anthropic", tmp_path).consolidate(
            "Mode: INIT", _memory_dir(tmp_path), init=True, effort=None
        )
    assert missing.value.code == "ME037"

    looping = model_standin([_call("read_file", path="raw_memories.md")])
    consolidator = _consolidator(looping, "openai", tmp_path, max_turns=3)
    with pytest.raises(ModelCallError) as unfinished:
        consolidator.consolidate("Mode: INIT", _memory_dir(tmp_path / "again"), init=True, effort=None)
    assert unfinished.value.code == "ME038" and "3 model calls" in unfinished.value.message
    assert len(looping.requests()) == 3

    budget = CallBudget(5)
    budget.take()
    with pytest.raises(ModelCallError) as spent:
        _consolidator(looping, "openai", tmp_path, max_turns=10).consolidate(
            "Mode: INIT", _memory_dir(tmp_path / "third"), init=True, effort=None, budget=budget
        )
    assert spent.value.code == "ME041" and budget.used == 5
    assert len(looping.requests()) == 3 + 4  # one call per unit of budget left, then it stops


def test_workspace_allow_list_and_tool_subset(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "skills" / "a").mkdir(parents=True)
    tools = FolderTools(
        root,
        allowed=("read_file", "write_file", "edit_file"),
        writable=is_writable_memory_path,
        writable_rule="memory files only",
    )
    assert tools.names() == ("read_file", "write_file", "edit_file")
    assert "not available here" in tools.execute("bash", {"command": "true"}).text
    ok = tools.execute("write_file", {"path": "skills/a/SKILL.md", "content": "x"})
    assert not ok.is_error and ok.edited == (root / "skills" / "a" / "SKILL.md").resolve()
    for path in (
        "skills\\a\\SKILL.md",
        "skills/A/SKILL.md",
        "./../root/MEMORY.md",
        "~/MEMORY.md",
        "skills/a",
    ):
        result = tools.execute("write_file", {"path": path, "content": "x"})
        assert result.is_error and "memory files only" in result.text, path
    assert tools.execute("read_file", {"path": "skills/a/SKILL.md"}).text == "x"  # reads are not limited
    with pytest.raises(ValueError, match="unknown workspace tools"):
        FolderTools(root, allowed=("rm",))
    assert FolderTools(root).names() == ("bash", "read_file", "write_file", "edit_file")


def test_choose_consolidator_follows_the_setting_and_the_installed_sdk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = Env.for_test(cwd=tmp_path, home=tmp_path)
    settings = MemorySettings()
    assert choose_consolidator(env, settings.with_overrides(consolidator="direct")) is None
    factory = choose_consolidator(env, settings)
    assert factory is not None and factory().name == "agent"
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "openai" else real(name, *a)
    )
    assert choose_consolidator(env, settings) is None  # auto falls back to the direct call
    with pytest.raises(UsageError) as error:
        choose_consolidator(env, settings.with_overrides(consolidator="agent"))
    assert error.value.code == "ME039"
