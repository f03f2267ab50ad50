"""Model adapters: the neutral history in, one assistant message out.

``openai:NAME`` uses the official ``openai`` SDK's Chat Completions, so any OpenAI-compatible
server works through ``base_url`` (Ollama, vLLM, llama.cpp); ``anthropic:NAME`` uses the
official ``anthropic`` SDK's Messages API, both through :mod:`skillshelf.llm`. Both SDKs are
extras (``skillshelf[agent]``) and are imported only when a provider is made.

Each reply says how it ended (:data:`~skillshelf.agent.history.ReplyEnding`): cut off at the
output limit, refused (the refusal's text as the reply's text), or empty, none of which the loop
takes as a final answer. A failed call's hint fits the failure: a rate limit (HTTP 429) asks
to wait, a server error (5xx) to try again later, a timeout names ``--timeout``; anything else
points at ``--base-url``, the key and the model name.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Protocol

from skillshelf.agent.history import (
    AssistantMessage,
    Message,
    ReplyEnding,
    ToolCall,
    ToolResults,
    UserMessage,
)
from skillshelf.errors import ConfigError, ModelCallError, UsageError
from skillshelf.llm import PROVIDERS, ErrorCodes, ModelRef, SdkClient, parse_model_ref
from skillshelf.serve.schemas import ToolSpec, to_anthropic, to_openai

__all__ = [
    "AnthropicProvider",
    "ModelSpec",
    "OpenAIChatProvider",
    "Provider",
    "make_provider",
    "parse_model_spec",
]

CODES = ErrorCodes(
    missing="AG002",
    failed="AG003",
    extra="agent",
    hint="check --base-url, the API key variable and the model name; `skillshelf run --help` lists them",
    timeout_hint="the server did not answer in time (each call is tried 3 times): try again later, "
    "or allow it longer with --timeout SECONDS",
)


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


def _client(
    provider: str, model: str, base_url: str | None, api_key: str | None, timeout: float
) -> SdkClient:
    ref = ModelRef(provider=provider, name=model)  # type: ignore[arg-type]
    return SdkClient(ref, base_url=base_url, api_key=api_key, timeout_s=timeout, codes=CODES)


class OpenAIChatProvider:
    """Chat Completions with function tools."""

    def __init__(
        self, model: str, *, base_url: str | None, api_key: str | None, max_tokens: int, timeout: float
    ) -> None:
        self.model = model
        self.max_tokens = max_tokens
        self._client = _client("openai", model, base_url, api_key, timeout)

    def complete(
        self, *, system: str, history: Sequence[Message], tools: Sequence[ToolSpec]
    ) -> AssistantMessage:
        kwargs: dict[str, Any] = {"messages": self._messages(system, history)}
        if tools:
            kwargs["tools"] = to_openai(tools, api="chat")
        response = _create(self._client, kwargs)
        choices = getattr(response, "choices", None)
        message = getattr(choices[0], "message", None) if isinstance(choices, list) and choices else None
        if message is None:
            raise _malformed(
                self._client, "it holds no choice with a message (`choices` is empty or missing)"
            )
        calls = tuple(
            ToolCall(id=c.id, name=c.function.name, arguments=_json_object(c.function.arguments))
            for c in (message.tool_calls or ())
            if getattr(c, "function", None) is not None
        )
        refusal = getattr(message, "refusal", None)
        refusal = refusal if isinstance(refusal, str) and refusal.strip() else ""
        text = message.content if isinstance(message.content, str) else ""
        finish = getattr(choices[0], "finish_reason", None)  # type: ignore[index]
        refused = bool(refusal) or finish == "content_filter"
        return _reply(refusal or text, calls, cut=finish == "length", refused=refused)

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
        self.model = model
        self.max_tokens = max_tokens
        self._client = _client("anthropic", model, base_url, api_key, timeout)

    def complete(
        self, *, system: str, history: Sequence[Message], tools: Sequence[ToolSpec]
    ) -> AssistantMessage:
        kwargs: dict[str, Any] = {
            "system": system,
            "max_tokens": self.max_tokens,
            "messages": self._messages(history),
        }
        if tools:
            kwargs["tools"] = to_anthropic(tools)
        response = _create(self._client, kwargs)
        content = getattr(response, "content", None)
        if not isinstance(content, list):
            raise _malformed(self._client, "its `content` is not a list of blocks")
        texts = [b.text for b in content if getattr(b, "type", None) == "text"]
        calls = tuple(
            ToolCall(id=b.id, name=b.name, arguments=dict(b.input) if isinstance(b.input, dict) else {})
            for b in content
            if getattr(b, "type", None) == "tool_use"
        )
        stop = getattr(response, "stop_reason", None)
        cut = stop in ("max_tokens", "model_context_window_exceeded")
        return _reply("\n".join(texts), calls, cut=cut, refused=stop == "refusal")

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


def _create(client: SdkClient, request: dict[str, Any]) -> Any:
    """``client.create(**request)``; a failed call's hint fitted to an HTTP status that says
    the request was fine but the server would not answer it now (429, 5xx)."""
    try:
        return client.create(**request)
    except ModelCallError as exc:
        status = getattr(exc.__cause__, "status_code", None)
        if status == 429:
            hint = "the server is limiting the rate of calls (HTTP 429): wait a while, then run again"
        elif isinstance(status, int) and status >= 500:
            hint = f"the server failed (HTTP {status}): try again later"
        else:
            raise
        raise ModelCallError(exc.message, hint=hint, code=exc.code) from exc.__cause__


def _reply(text: str, calls: tuple[ToolCall, ...], *, cut: bool, refused: bool) -> AssistantMessage:
    """The reply, with how it ended: refused before cut off before empty."""
    ending: ReplyEnding = "end"
    if refused:
        ending = "refused"
    elif cut:
        ending = "cut_off"
    elif not calls and not text.strip():
        ending = "empty"
    return AssistantMessage(text=text, tool_calls=calls, ending=ending)


def _malformed(client: SdkClient, problem: str) -> ModelCallError:
    """A reply the SDK accepted but that carries no assistant message: a failed call, as an HTTP
    error or a body that is not JSON is."""
    return ModelCallError(
        f"the call to {client.ref} returned a reply the agent cannot use: {problem}",
        hint="the server answered without a message (a content filter, or a server error it "
        "reported as a reply): try again, or " + CODES.hint,
        code=CODES.failed,
    )


def _json_object(text: str | None) -> dict[str, Any]:
    """Tool arguments as a dict; malformed JSON becomes ``{"_raw": text}`` for the tool to report."""
    if not text:
        return {}
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return {"_raw": text}
    return value if isinstance(value, dict) else {"_raw": text}
