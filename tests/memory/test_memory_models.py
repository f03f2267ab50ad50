"""The openai and anthropic SDK clients against a real loopback server."""

from __future__ import annotations

import pytest
from memory_helpers import ScriptedModel

from skillshelf.errors import ModelCallError
from skillshelf.memory.models import CallBudget, build_client, parse_json_reply
from skillshelf.memory.phase1 import STAGE1_SCHEMA


def test_openai_requests_carry_schema_effort_and_limits(scripted_model: ScriptedModel) -> None:
    scripted_model.reply = lambda body, n: '{"ok": true}'
    client = build_client(
        "openai:gpt-test",
        base_url=scripted_model.url + "/v1",
        api_key="k",
        max_output_tokens=123,
        timeout_s=10,
    )
    assert client.complete(system="sys", user="hi", schema=STAGE1_SCHEMA, effort="low") == '{"ok": true}'
    object_mode = build_client(
        "openai:gpt-test",
        base_url=scripted_model.url + "/v1",
        api_key="k",
        max_output_tokens=5,
        timeout_s=10,
        json_mode="object",
    )
    object_mode.complete(system="s", user="u", schema=STAGE1_SCHEMA, effort=None)
    first, second = (r["body"] for r in scripted_model.requests)
    assert first["model"] == "gpt-test" and first["max_completion_tokens"] == 123
    assert first["reasoning_effort"] == "low"
    assert first["response_format"]["json_schema"]["schema"] == STAGE1_SCHEMA
    assert first["messages"] == [{"role": "system", "content": "sys"}, {"role": "user", "content": "hi"}]
    assert second["response_format"] == {"type": "json_object"} and "reasoning_effort" not in second


def test_anthropic_requests_use_the_messages_api(scripted_model: ScriptedModel) -> None:
    client = build_client(
        "anthropic:claude-test", base_url=scripted_model.url, api_key="k", max_output_tokens=77, timeout_s=10
    )
    assert parse_json_reply(client.complete(system="sys", user="hi", schema=None, effort=None))
    (request,) = scripted_model.requests
    assert request["path"].startswith("/v1/messages")
    assert request["body"]["system"] == "sys" and request["body"]["max_tokens"] == 77


def test_unreachable_servers_and_budgets() -> None:
    client = build_client(
        "openai:x",
        base_url="http://127.0.0.1:9/v1",
        api_key="k",
        max_output_tokens=5,
        timeout_s=2,
        max_retries=0,
    )
    with pytest.raises(ModelCallError) as info:
        client.complete(system="s", user="u", schema=None, effort=None)
    assert info.value.code == "ME030"
    budget = CallBudget(2)
    assert [budget.take() for _ in range(3)] == [True, True, False] and budget.remaining == 0
    with pytest.raises(ModelCallError):
        parse_json_reply("no json here")
    with pytest.raises(ModelCallError) as deep:  # a reply nested past json's recursion limit
        parse_json_reply('{"a": ' + "[" * 100_000 + "]" * 100_000 + "}")
    assert deep.value.code == "ME033"
