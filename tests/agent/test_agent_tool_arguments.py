"""Tool arguments that are JSON but no object: both wire formats hand them on as sent, the tools
say which type they got, and different bad calls stay different calls for the repeat guard."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from provider_standins import anthropic_replying, openai_replying

from skillshelf.agent.folder_tools import FolderTools
from skillshelf.agent.history import AssistantMessage, ToolCall, ToolOutput, ToolResults
from skillshelf.agent.loop import Agent
from skillshelf.agent.providers import AnthropicProvider, OpenAIChatProvider
from skillshelf.agent.skill_reads import agent_fix
from skillshelf.errors import SkillNotFoundError
from skillshelf.serve.schemas import error_result
from skillshelf.serve.tools import SkillTools


def _openai_call(arguments: str) -> Any:
    function = SimpleNamespace(name="bash", arguments=arguments)
    message = SimpleNamespace(
        content=None, refusal=None, tool_calls=[SimpleNamespace(id="c1", function=function)]
    )
    return SimpleNamespace(choices=[SimpleNamespace(message=message, finish_reason="tool_calls")])


def _anthropic_call(value: object) -> Any:
    block = SimpleNamespace(type="tool_use", id="c1", name="bash", input=value)
    return SimpleNamespace(content=[block], stop_reason="tool_use")


def test_openai_arguments_that_are_a_json_string_reach_the_tool_as_sent_and_are_played_back_so() -> None:
    provider = openai_replying(_openai_call('"ls -la"'))
    reply = provider.complete(system="s", history=(), tools=())
    (call,) = reply.tool_calls
    assert call.arguments == {"_raw": '"ls -la"'}
    played = OpenAIChatProvider._messages("s", [reply])[1]["tool_calls"][0]["function"]["arguments"]
    assert played == '"ls -la"'


@pytest.mark.parametrize("value", ["ls -la", ["ls"], None, 3])
def test_anthropic_input_that_is_no_object_reaches_the_tool_as_its_json(value: object) -> None:
    provider = anthropic_replying(_anthropic_call(value))
    reply = provider.complete(system="s", history=(), tools=())
    (call,) = reply.tool_calls
    assert call.arguments == {"_raw": json.dumps(value)}
    played = AnthropicProvider._messages([reply])[0]["content"][0]
    assert played["type"] == "tool_use" and played["input"] == {}


class _Calls:
    """A provider that makes ``calls`` one a reply, then answers; keeps the last history."""

    model = "scripted"

    def __init__(self, calls: Sequence[ToolCall]) -> None:
        self.calls = list(calls)
        self.history: list[Any] = []

    def complete(self, *, system: str, history: Sequence[Any], tools: Sequence[Any]) -> AssistantMessage:
        self.history = list(history)
        return (
            AssistantMessage(tool_calls=(self.calls.pop(0),)) if self.calls else AssistantMessage(text="ok")
        )

    def outputs(self) -> list[ToolOutput]:
        return [o for m in self.history if isinstance(m, ToolResults) for o in m.outputs]


def test_different_bad_arguments_each_say_their_type_and_are_no_repeated_call(tmp_path: Path) -> None:
    raws = ['"ls -la"', '["ls"]', "null"]
    calls = [ToolCall(id=f"c{n}", name="bash", arguments={"_raw": raw}) for n, raw in enumerate(raws)]
    provider = _Calls(calls)
    agent = Agent(provider=provider, system_prompt="t", skill_tools=None, folder_tools=FolderTools(tmp_path))
    result = agent.send("list the files")
    texts = [o.output for o in provider.outputs()]
    assert [t.split(":")[1].strip() for t in texts] == [
        "arguments must be a JSON object, got a string",
        "arguments must be a JSON object, got an array",
        "arguments must be a JSON object, got null",
    ]
    assert all(o.is_error for o in provider.outputs()) and result.events == ()


def test_a_skill_tool_given_a_json_string_says_it_must_be_an_object(tmp_path: Path) -> None:
    provider = _Calls([ToolCall(id="c1", name="load_skill", arguments={"_raw": '"deploy"'})])
    agent = Agent(
        provider=provider, system_prompt="t", skill_tools=SkillTools(()), folder_tools=FolderTools(tmp_path)
    )
    agent.send("deploy")
    (output,) = provider.outputs()
    assert output.is_error and 'arguments must be a JSON object, got a string: "deploy"' in output.output
    assert '{"name": "SKILL-NAME"}' in output.output


def test_an_unknown_skill_hint_names_the_catalog_where_search_skills_is_not_offered() -> None:
    result = error_result(SkillNotFoundError("nope", available=(), where_listed="call `list_skills`"))
    fitted = agent_fix(result, {"load_skill", "read_file"})
    assert "list_skills" not in fitted.text and "system prompt" in fitted.text
    assert "search_skills" not in fitted.text and fitted.is_error and "SK404" in fitted.text
    assert agent_fix(result, {"search_skills"}).text.count("search_skills") == 1
