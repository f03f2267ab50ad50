"""Model providers whose SDK client is a stand-in that returns one fixed reply."""

from __future__ import annotations

from typing import Any

from skillshelf.agent.providers import AnthropicProvider, OpenAIChatProvider
from skillshelf.llm import ModelRef


class Replying:
    """An SdkClient stand-in that returns one fixed reply."""

    def __init__(self, provider: str, reply: Any) -> None:
        self.ref = ModelRef(provider=provider, name="m")  # type: ignore[arg-type]
        self.reply = reply

    def create(self, **request: Any) -> Any:
        return self.reply


def openai_replying(reply: Any) -> OpenAIChatProvider:
    """The OpenAI chat provider, its every call answered with ``reply``."""
    provider = OpenAIChatProvider(
        "m", base_url="http://127.0.0.1:9/v1", api_key="x", max_tokens=10, timeout=1
    )
    provider._client = Replying("openai", reply)  # type: ignore[assignment]
    return provider


def anthropic_replying(reply: Any) -> AnthropicProvider:
    """The Anthropic provider, its every call answered with ``reply``."""
    provider = AnthropicProvider("m", base_url="http://127.0.0.1:9", api_key="x", max_tokens=10, timeout=1)
    provider._client = Replying("anthropic", reply)  # type: ignore[assignment]
    return provider
