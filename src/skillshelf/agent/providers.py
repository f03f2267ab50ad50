"""Model adapters: the neutral history in, one assistant message out.

``openai:NAME`` uses the official ``openai`` SDK's Chat Completions, so any OpenAI-compatible
server works through ``base_url`` (Ollama, vLLM, llama.cpp); ``anthropic:NAME`` uses the
official ``anthropic`` SDK's Messages API. Both SDKs are extras (``skillshelf[agent]``) and are
imported only when a provider is made.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Protocol

from skillshelf.agent.history import AssistantMessage, Message, ToolCall, ToolResults, UserMessage
from skillshelf.errors import ConfigError, ModelCallError, UsageError
from skillshelf.memory.settings import ModelRef, parse_model_ref
from skillshelf.serve.schemas import ToolSpec, to_anthropic, to_openai

__all__ = [
    "AnthropicProvider",
    "ModelSpec",
    "OpenAIChatProvider",
    "Provider",
    "make_provider",
    "parse_model_spec",
]

PROVIDERS = ("openai", "anthropic")


class Provider(Protocol):
    """One call: system text, history and tools in; the assistant's next message out."""

    model: str

    def complete(
        self, *, system: str, history: Sequence[Message], tools: Sequence[ToolSpec]
    ) -> AssistantMessage: ...


ModelSpec = ModelRef
"""``PROVIDER:NAME``: the same value the memory settings use for their models."""


def parse_model_spec(text: str) -> ModelSpec:
    """``PROVIDER:NAME`` (``openai:gpt-5.4-mini``, ``anthropic:claude-sonnet-4-5``); unlike the
    memory settings, the provider must be written out."""
    hint = f"use one of {', '.join(p + ':MODEL' for p in PROVIDERS)}, e.g. `--model openai:gpt-5.4-mini`"
    if ":" not in text:
        raise UsageError(f"model {text!r} is not of the form PROVIDER:NAME", hint=hint, code="AG001")
    try:
        return parse_model_ref(text)
    except ConfigError as exc:
        raise UsageError(f"model {text!r} is not of the form PROVIDER:NAME", hint=hint, code="AG001") from exc


def make_provider(
    spec: ModelSpec,
    *,
    base_url: str | None = None,
    api_key: str | None = None,
    max_tokens: int = 4096,
    timeout: float = 120.0,
) -> Provider:
    """Build the adapter for ``spec``; a missing SDK is a usage error that names the extra."""
    if spec.provider == "openai":
        return OpenAIChatProvider(
            spec.name, base_url=base_url, api_key=api_key, max_tokens=max_tokens, timeout=timeout
        )
    return AnthropicProvider(
        spec.name, base_url=base_url, api_key=api_key, max_tokens=max_tokens, timeout=timeout
    )


def _missing_sdk(package: str) -> UsageError:
    return UsageError(
        f"the `{package}` package is not installed",
        hint="install the agent extra: pip install 'skillshelf[agent]'",
        code="AG002",
    )


def _call_failed(exc: Exception, model: str) -> ModelCallError:
    return ModelCallError(
        f"the model call to {model!r} failed: {type(exc).__name__}: {exc}",
        hint="check --base-url, the API key variable and the model name; `skillshelf run --help` lists them",
        code="AG003",
    )


class OpenAIChatProvider:
    """Chat Completions with function tools."""

    def __init__(
        self, model: str, *, base_url: str | None, api_key: str | None, max_tokens: int, timeout: float
    ) -> None:
        try:
            import openai
        except ImportError as exc:
            raise _missing_sdk("openai") from exc
        self.model = model
        self.max_tokens = max_tokens
        self._client = openai.OpenAI(
            base_url=base_url, api_key=api_key or "not-needed", timeout=timeout, max_retries=2
        )

    def complete(
        self, *, system: str, history: Sequence[Message], tools: Sequence[ToolSpec]
    ) -> AssistantMessage:
        kwargs: dict[str, Any] = {"model": self.model, "messages": self._messages(system, history)}
        if tools:
            kwargs["tools"] = to_openai(tools, api="chat")
        try:
            response = self._client.chat.completions.create(**kwargs)
        except Exception as exc:
            raise _call_failed(exc, self.model) from exc
        message = response.choices[0].message
        calls = tuple(
            ToolCall(id=c.id, name=c.function.name, arguments=_json_object(c.function.arguments))
            for c in (message.tool_calls or ())
            if getattr(c, "function", None) is not None
        )
        return AssistantMessage(text=message.content or "", tool_calls=calls)

    @staticmethod
    def _messages(system: str, history: Sequence[Message]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = [{"role": "system", "content": system}]
        for message in history:
            if isinstance(message, UserMessage):
                out.append({"role": "user", "content": message.text})
            elif isinstance(message, AssistantMessage):
                entry: dict[str, Any] = {"role": "assistant", "content": message.text or None}
                if message.tool_calls:
                    entry["tool_calls"] = [
                        {
                            "id": c.id,
                            "type": "function",
                            "function": {"name": c.name, "arguments": json.dumps(dict(c.arguments))},
                        }
                        for c in message.tool_calls
                    ]
                out.append(entry)
            else:
                out += [
                    {"role": "tool", "tool_call_id": o.call_id, "content": o.output} for o in message.outputs
                ]
                if message.notes:
                    out.append({"role": "user", "content": "\n\n".join(message.notes)})
        return out


class AnthropicProvider:
    """Messages API with client tools."""

    def __init__(
        self, model: str, *, base_url: str | None, api_key: str | None, max_tokens: int, timeout: float
    ) -> None:
        try:
            import anthropic
        except ImportError as exc:
            raise _missing_sdk("anthropic") from exc
        self.model = model
        self.max_tokens = max_tokens
        self._client = anthropic.Anthropic(
            base_url=base_url, api_key=api_key or "not-needed", timeout=timeout, max_retries=2
        )

    def complete(
        self, *, system: str, history: Sequence[Message], tools: Sequence[ToolSpec]
    ) -> AssistantMessage:
        kwargs: dict[str, Any] = {
            "model": self.model,
            "system": system,
            "max_tokens": self.max_tokens,
            "messages": self._messages(history),
        }
        if tools:
            kwargs["tools"] = to_anthropic(tools)
        try:
            response = self._client.messages.create(**kwargs)
        except Exception as exc:
            raise _call_failed(exc, self.model) from exc
        texts = [b.text for b in response.content if b.type == "text"]
        calls = tuple(
            ToolCall(id=b.id, name=b.name, arguments=dict(b.input) if isinstance(b.input, dict) else {})
            for b in response.content
            if b.type == "tool_use"
        )
        return AssistantMessage(text="\n".join(texts), tool_calls=calls)

    @staticmethod
    def _messages(history: Sequence[Message]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for message in history:
            if isinstance(message, UserMessage):
                out.append({"role": "user", "content": message.text})
            elif isinstance(message, AssistantMessage):
                blocks: list[dict[str, Any]] = (
                    [{"type": "text", "text": message.text}] if message.text else []
                )
                blocks += [
                    {"type": "tool_use", "id": c.id, "name": c.name, "input": dict(c.arguments)}
                    for c in message.tool_calls
                ]
                out.append(
                    {"role": "assistant", "content": blocks or [{"type": "text", "text": "(no text)"}]}
                )
            elif isinstance(message, ToolResults):
                results: list[dict[str, Any]] = [
                    {
                        "type": "tool_result",
                        "tool_use_id": o.call_id,
                        "content": o.output,
                        "is_error": o.is_error,
                    }
                    for o in message.outputs
                ]
                results += [{"type": "text", "text": note} for note in message.notes]
                out.append({"role": "user", "content": results})
        return out


def _json_object(text: str | None) -> dict[str, Any]:
    """Tool arguments as a dict; malformed JSON becomes ``{"_raw": text}`` for the tool to report."""
    if not text:
        return {}
    try:
        value = json.loads(text)
    except ValueError:
        return {"_raw": text}
    return value if isinstance(value, dict) else {"_raw": text}
