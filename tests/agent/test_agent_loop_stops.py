"""How the loop stops short of a final answer: a reply that is no answer (cut off, empty,
refused), the repeat guard, and what it does when the project is too big to watch."""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from skillshelf.agent import loop
from skillshelf.agent.folder_tools import FolderTools
from skillshelf.agent.guards import GuardSettings
from skillshelf.agent.history import AssistantMessage, Message, ReplyEnding
from skillshelf.agent.loop import Agent, AgentSettings
from skillshelf.agent.providers import ModelSpec, make_provider
from skillshelf.agent.repeat_guard import MAX_IDENTICAL_CALLS, RepeatGuard
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
    assert guard.on_result("bash", {"command": "date"}, "Mon") is not None
    assert RepeatGuard(limit=0).on_result("bash", {"command": "date"}, "Mon") is None


def test_a_project_too_big_to_watch_says_so_and_the_check_must_run_after_bash(
    tmp_path: Path, model_standin: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(loop, "TreeWatch", functools.partial(TreeWatch, max_entries=5))
    for i in range(10):
        (tmp_path / f"f{i}.txt").write_text("", encoding="utf-8")
    (tmp_path / "m.py").write_text("x = 1\n", encoding="utf-8")
    standin = model_standin([_call("bash", command="sed -i s/1/2/ m.py"), {"text": "done"}])
    result = _standin_agent(standin, tmp_path, GuardSettings(check_command="false")).send("edit m.py")
    assert [e.kind for e in result.events] == ["unwatched", "send_back"]
    assert result.check.status == "not_run" and result.check.unverified
    assert "Harness check before finishing" in json.dumps(standin.requests()[-1]["body"])
