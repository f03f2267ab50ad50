"""How the loop stops short of a final answer: a reply that is no answer (cut off, empty,
refused), the repeat guard, and what it does when the project is too big to watch."""

from __future__ import annotations

import functools
import json
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from skillshelf.agent import change_watch
from skillshelf.agent.folder_tools import FolderTools
from skillshelf.agent.guards import GuardSettings
from skillshelf.agent.history import AssistantMessage, Message, ReplyEnding
from skillshelf.agent.loop import Agent, AgentSettings
from skillshelf.agent.providers import ModelSpec, make_provider
from skillshelf.agent.repeat_guard import MAX_IDENTICAL_CALLS, NOTE_AT, RepeatGuard
from skillshelf.agent.shell_effects import TreeWatch
from skillshelf.serve.schemas import ToolSpec


class _Scripted:
    """A provider whose replies are given in advance."""

    model = "scripted"

    def __init__(self, replies: Sequence[AssistantMessage]) -> None:
        self.replies = list(replies)

    def complete(
        self, *, system: str, history: Sequence[Message], tools: Sequence[ToolSpec]
    ) -> AssistantMessage:
        return self.replies.pop(0)


_GUARDS = GuardSettings()


def _agent(provider: Any, workspace: Path, guards: GuardSettings = _GUARDS) -> Agent:
    return Agent(
        provider=provider,
        system_prompt="You are a test agent.",
        skill_tools=None,
        folder_tools=FolderTools(workspace),
        settings=AgentSettings(max_turns=10, guards=guards),
    )


def _standin_agent(standin: Any, workspace: Path, guards: GuardSettings = _GUARDS) -> Agent:
    spec = ModelSpec(provider="openai", name="standin")
    return _agent(make_provider(spec, base_url=standin.url + "/v1", api_key="x"), workspace, guards)


def _call(tool: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_call": {"name": tool, "arguments": arguments}}


@pytest.mark.parametrize(
    ("ending", "text"), [("cut_off", "The notes are as fol"), ("empty", ""), ("refused", "I can't help.")]
)
def test_a_reply_that_is_no_answer_stops_the_task_with_its_own_reason(
    tmp_path: Path, ending: ReplyEnding, text: str
) -> None:
    answered: list[str] = []
    agent = _agent(_Scripted([AssistantMessage(text=text, ending=ending)]), tmp_path)
    agent.on_answer = answered.append
    result = agent.send("write the notes")
    assert (result.stopped, result.final_text, result.model_calls) == (ending, text, 1)
    assert answered == []  # not taken for an answer


def test_the_same_call_with_the_same_result_stops_the_task_as_a_loop(
    tmp_path: Path, model_standin: Any
) -> None:
    (tmp_path / "a.py").write_text("x = 1\n", encoding="utf-8")
    standin = model_standin([_call("read_file", path="a.py")])
    result = _standin_agent(standin, tmp_path).send("look at a.py")
    assert result.stopped == "repeating" and result.model_calls == MAX_IDENTICAL_CALLS
    assert "read_file" in result.stop_detail and "a.py" in result.stop_detail
    assert "nothing changed" not in result.stop_detail


def test_a_repeated_poll_is_told_to_wait_longer_before_the_task_stops(
    tmp_path: Path, model_standin: Any
) -> None:
    poll = _call("bash", command="cat server.up 2>/dev/null || echo 'not up yet'")
    standin = model_standin([poll] * (MAX_IDENTICAL_CALLS - 1) + [{"text": "it never came up"}])
    result = _standin_agent(standin, tmp_path, GuardSettings(require_checks=False)).send(
        "wait for the server"
    )
    assert result.stopped == "answer"
    notes = [e.detail for e in result.events if e.kind == "doom_loop"]
    assert len(notes) == MAX_IDENTICAL_CALLS - NOTE_AT
    assert f"same result {NOTE_AT} times" in notes[0] and "wait longer" in notes[0]
    assert "wait longer" in json.dumps(standin.requests()[NOTE_AT]["body"])


def test_a_call_repeated_after_an_edit_is_no_loop(tmp_path: Path, model_standin: Any) -> None:
    (tmp_path / "a.py").write_text("x = 1\n", encoding="utf-8")
    read = _call("read_file", path="a.py")
    edit = _call("bash", command="echo 'y = 2' >> a.py")
    standin = model_standin([read, read, read, edit, read, read, read, {"text": "done"}])
    result = _standin_agent(standin, tmp_path, GuardSettings(require_checks=False)).send("look at a.py")
    assert result.stopped == "answer" and result.final_text == "done"


def test_the_repeat_guard_counts_only_identical_results() -> None:
    guard = RepeatGuard(limit=3)
    assert guard.on_result("bash", {"command": "date"}, "Mon") is None
    assert guard.on_result("bash", {"command": "date"}, "Tue") is None
    assert guard.on_result("bash", {"command": "date"}, "Mon") is None
    stop = guard.on_result("bash", {"command": "date"}, "Mon")
    assert stop is not None and stop.stop
    assert RepeatGuard(limit=0).on_result("bash", {"command": "date"}, "Mon") is None


def test_the_repeat_guard_notes_the_third_identical_result_and_stops_later() -> None:
    guard = RepeatGuard()
    seen = [guard.on_result("bash", {"command": "date"}, "Mon") for _ in range(MAX_IDENTICAL_CALLS)]
    assert seen[: NOTE_AT - 1] == [None] * (NOTE_AT - 1)
    assert all(r is not None and not r.stop for r in seen[NOTE_AT - 1 : -1])
    assert seen[-1] is not None and seen[-1].stop and NOTE_AT < MAX_IDENTICAL_CALLS


def test_a_project_too_big_to_watch_says_so_and_the_check_must_run_after_bash(
    tmp_path: Path, model_standin: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    _too_big_to_walk(tmp_path, monkeypatch)
    (tmp_path / "m.py").write_text("x = 1\n", encoding="utf-8")
    standin = model_standin([_call("bash", command="sed -i s/1/2/ m.py"), {"text": "done"}])
    result = _standin_agent(standin, tmp_path, GuardSettings(check_command="false")).send("edit m.py")
    assert [e.kind for e in result.events] == ["unwatched", "send_back"]
    assert result.check.status == "not_run" and result.check.unverified
    sent_back = json.dumps(standin.requests()[-1]["body"])
    assert "Harness check before finishing: files may have changed" in sent_back
    assert "you changed files" not in sent_back


def _too_big_to_walk(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(change_watch, "TreeWatch", functools.partial(TreeWatch, max_entries=5))
    for i in range(10):
        (root / f"f{i}.txt").write_text("", encoding="utf-8")


def _git_repo(root: Path) -> None:
    subprocess.run(["git", "init", "-q", str(root)], check=True)


def test_in_a_git_repository_too_big_to_walk_a_read_only_command_is_no_edit(
    tmp_path: Path, model_standin: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    _git_repo(tmp_path)
    _too_big_to_walk(tmp_path, monkeypatch)
    script = [
        _call("bash", command="git log --oneline -1; git status --short; ls"),
        {"text": "A data folder."},
    ]
    standin = model_standin(script)
    result = _standin_agent(standin, tmp_path, GuardSettings(check_command="false")).send("what is here?")
    assert result.stopped == "answer" and result.model_calls == 2
    assert result.check.status == "no_edits" and result.events == ()


def test_in_a_git_repository_too_big_to_walk_an_edit_through_bash_is_seen(
    tmp_path: Path, model_standin: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    _git_repo(tmp_path)
    _too_big_to_walk(tmp_path, monkeypatch)
    (tmp_path / "m.py").write_text("x = 1\n", encoding="utf-8")
    standin = model_standin([_call("bash", command="sed -i s/1/2/ m.py"), {"text": "done"}])
    result = _standin_agent(standin, tmp_path, GuardSettings(check_command="false")).send("edit m.py")
    assert [e.kind for e in result.events] == ["send_back"]
    assert "you changed files (`sed -i s/1/2/ m.py` changed m.py)" in result.events[0].detail


def test_in_a_git_repository_too_big_to_walk_an_edit_inside_a_nested_repository_may_have_changed_files(
    tmp_path: Path, model_standin: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    _git_repo(tmp_path)
    _too_big_to_walk(tmp_path, monkeypatch)
    _git_repo(tmp_path / "lib")  # git status lists it as one folder, whatever changes inside
    (tmp_path / "lib" / "x.txt").write_text("v=1\n", encoding="utf-8")
    standin = model_standin([_call("bash", command="printf 'v=2\\n' > lib/x.txt"), {"text": "done"}])
    result = _standin_agent(standin, tmp_path, GuardSettings(check_command="false")).send("edit lib")
    assert result.check.status == "not_run" and result.check.unverified


def test_the_git_watch_runs_git_with_the_bash_tools_environment_and_no_fsmonitor(tmp_path: Path) -> None:
    _git_repo(tmp_path)
    leak = tmp_path / "leak.txt"
    subprocess.run(
        ["git", "-C", str(tmp_path), "config", "core.fsmonitor", f"env > {leak}; false #"], check=True
    )
    watch = change_watch.GitWatch(tmp_path, environ={"PATH": "/usr/bin:/bin", "KEPT": "1"})
    assert watch.snapshot() is not None
    assert not leak.exists()  # the project's config names no command the harness runs
    seen = tmp_path / "seen.txt"
    subprocess.run(["git", "-C", str(tmp_path), "config", "alias.st", f"!env > {seen}"], check=True)
    assert watch._git("st") is not None
    assert "KEPT=1" in seen.read_text(encoding="utf-8") and "OPENAI_API_KEY" not in seen.read_text(
        encoding="utf-8"
    )
