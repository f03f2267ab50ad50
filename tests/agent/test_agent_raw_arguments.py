"""A skill tool called with arguments that were no JSON object hears so, as the folder tools do."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from skillshelf.agent.folder_tools import FolderTools
from skillshelf.agent.history import AssistantMessage, ToolCall, ToolOutput, ToolResults
from skillshelf.agent.loop import Agent, AgentSettings
from skillshelf.serve.tools import SkillTools


class _Scripted:
    """A provider that asks for ``load_skill`` with cut-off arguments, then answers."""

    model = "scripted"

    def __init__(self) -> None:
        self.outputs: list[ToolOutput] = []

    def complete(self, *, system: str, history: Sequence[Any], tools: Sequence[Any]) -> AssistantMessage:
        self.outputs = [o for m in history if isinstance(m, ToolResults) for o in m.outputs]
        if not self.outputs:
            call = ToolCall(id="c1", name="load_skill", arguments={"_raw": '{"name": "release-no'})
            return AssistantMessage(tool_calls=(call,))
        return AssistantMessage(text="done")


def test_load_skill_with_arguments_that_are_not_json_says_so(tmp_path: Path) -> None:
    provider = _Scripted()
    agent = Agent(
        provider=provider,
        system_prompt="test",
        skill_tools=SkillTools(()),
        folder_tools=FolderTools(tmp_path),
        settings=AgentSettings(),
    )
    agent.send("load it")
    (output,) = provider.outputs
    assert output.is_error and "not valid JSON" in output.output and "_raw" not in output.output
