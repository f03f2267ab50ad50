"""Providers: a reply without an assistant message is a failed call (AG003), not a crash."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from skillshelf.agent.providers import AnthropicProvider, OpenAIChatProvider
from skillshelf.errors import ModelCallError
from skillshelf.llm import ModelRef


class _Replying:
    """An SdkClient stand-in that returns one fixed reply."""

    def __init__(self, provider: str, reply: Any) -> None:
        self.ref = ModelRef(provider=provider, name="m")  # type: ignore[arg-type]
        self.reply = reply

    def create(self, **request: Any) -> Any:
        return self.reply


def _openai(reply: Any) -> OpenAIChatProvider:
    provider = OpenAIChatProvider(
        "m", base_url="http://127.0.0.1:9/v1", api_key="x", max_tokens=10, timeout=1
    )
    provider._client = _Replying("openai", reply)  # type: ignore[assignment]
    return provider


def _anthropic(reply: Any) -> AnthropicProvider:
    provider = AnthropicProvider("m", base_url="http://127.0.0.1:9", api_key="x", max_tokens=10, timeout=1)
    provider._client = _Replying("anthropic", reply)  # type: ignore[assignment]
    return provider


@pytest.mark.parametrize(
    "reply", [SimpleNamespace(choices=[]), SimpleNamespace(choices=None), SimpleNamespace()]
)
def test_an_openai_reply_without_choices_is_a_failed_call_with_a_hint(reply: Any) -> None:
    with pytest.raises(ModelCallError) as caught:
        _openai(reply).complete(system="s", history=(), tools=())
    assert caught.value.code == "AG003" and "choices" in str(caught.value) and caught.value.hint


@pytest.mark.parametrize("reply", [SimpleNamespace(content=None), SimpleNamespace()])
def test_an_anthropic_reply_without_content_blocks_is_a_failed_call(reply: Any) -> None:
    with pytest.raises(ModelCallError) as caught:
        _anthropic(reply).complete(system="s", history=(), tools=())
    assert caught.value.code == "AG003" and "content" in str(caught.value)


def test_an_anthropic_reply_with_no_blocks_is_an_empty_answer() -> None:
    message = _anthropic(SimpleNamespace(content=[])).complete(system="s", history=(), tools=())
    assert message.text == "" and message.tool_calls == ()
