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
from skillshelf.agent.tool_arguments import RAW_KEY, raw_call_arguments, raw_of
from skillshelf.config.schema import DEFAULT_MAX_OUTPUT_TOKENS
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
    no_key="AG005",  # a blank key is no key, as `run` treats an unset one
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
    memory settings, the provider must be written out. A provider that is not one of
    :data:`~skillshelf.llm.PROVIDERS` is named as unknown; a local server's name (``ollama:``)
    gets the ``openai:NAME --base-url`` form that reaches it."""
    known = ", ".join(PROVIDERS)
    hint = f"use one of {', '.join(p + ':MODEL' for p in PROVIDERS)}, e.g. `--model openai:gpt-5.4-mini`"
    provider, sep, name = text.partition(":")
    if not sep or not provider.strip() or not name.strip():
        raise UsageError(f"model {text!r} is not of the form PROVIDER:NAME", hint=hint, code="AG001")
    if provider not in PROVIDERS:
        port = _LOCAL_SERVERS.get(provider.strip().lower())
        if port is not None:
            hint = (
                f"{provider} serves the OpenAI API: use `--model openai:{name.strip()} "
                f"--base-url http://localhost:{port}/v1`"
            )
        else:
            hint = (
                f"use one of {', '.join(p + ':MODEL' for p in PROVIDERS)}; for a server with an "
                "OpenAI-compatible API (Ollama, vLLM, llama.cpp...), `--model openai:NAME --base-url "
                "http://localhost:11434/v1` (its URL)"
            )
        raise UsageError(
            f"unknown model provider {provider!r} in {text!r}; known: {known}", hint=hint, code="AG001"
        )
    try:
        return parse_model_ref(text)
    except ConfigError as exc:
        raise UsageError(f"model {text!r} is not of the form PROVIDER:NAME", hint=hint, code="AG001") from exc


#: Local model servers that speak the OpenAI API, with the port each listens on by default.
_LOCAL_SERVERS = {"ollama": 11434, "vllm": 8000, "llamacpp": 8080, "llama.cpp": 8080, "lmstudio": 1234}


def make_provider(
    spec: ModelSpec,
    *,
    base_url: str | None = None,
    api_key: str | None = None,
    max_tokens: int | None = None,
    timeout: float = 120.0,
) -> Provider:
    """Build the adapter for ``spec``; a missing SDK is a usage error that names the extra.
    ``max_tokens``: the output limit of one reply (``None``: 4096 for Anthropic, whose API needs
    one; the server's own for OpenAI)."""
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
    """Chat Completions with function tools. An output limit is sent only when one is set: as
    ``max_completion_tokens`` to OpenAI (whose reasoning models refuse ``max_tokens``), as
    ``max_tokens`` to a ``base_url`` (Ollama, LM Studio and older vLLM know only that one)."""

    def __init__(
        self, model: str, *, base_url: str | None, api_key: str | None, max_tokens: int | None, timeout: float
    ) -> None:
        self.model = model
        self.max_tokens = max_tokens
        self._limit_key = "max_tokens" if base_url else "max_completion_tokens"
        self._client = _client("openai", model, base_url, api_key, timeout)

    def complete(
        self, *, system: str, history: Sequence[Message], tools: Sequence[ToolSpec]
    ) -> AssistantMessage:
        kwargs: dict[str, Any] = {"messages": self._messages(system, history)}
        if self.max_tokens is not None:
            kwargs[self._limit_key] = self.max_tokens
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
            ToolCall(id=c.id, name=c.function.name, arguments=raw_call_arguments(c.function.arguments))
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
                            "function": {"name": c.name, "arguments": _arguments_text(c)},
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
    """Messages API with client tools; ``max_tokens`` (which the API requires) 4096 unless set."""

    def __init__(
        self, model: str, *, base_url: str | None, api_key: str | None, max_tokens: int | None, timeout: float
    ) -> None:
        self.model = model
        self.max_tokens = DEFAULT_MAX_OUTPUT_TOKENS if max_tokens is None else max_tokens
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
            ToolCall(id=b.id, name=b.name, arguments=_input_arguments(b.input))
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
                    {"type": "tool_use", "id": c.id, "name": c.name, "input": _input_object(c)}
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


def _arguments_text(call: ToolCall) -> str:
    """A call's arguments as the model sent them: JSON text (arguments that were no JSON object
    are played back as their own text, not as the ``_raw`` wrapper)."""
    raw = raw_of(call.arguments)
    return raw if raw is not None else json.dumps(dict(call.arguments))


def _input_arguments(value: object) -> dict[str, Any]:
    """A ``tool_use`` block's input as arguments; an input that is no object is ``{"_raw": its
    JSON}``, so the tool reports its type and two different ones are two different calls."""
    if isinstance(value, dict):
        return dict(value)
    return {RAW_KEY: json.dumps(value, ensure_ascii=False, default=str)}


def _input_object(call: ToolCall) -> dict[str, Any]:
    """A call's arguments as a ``tool_use`` input, which the Messages API takes only as an
    object: arguments that were none are played back as ``{}`` (the tool's error result says
    what they were)."""
    return {} if raw_of(call.arguments) is not None else dict(call.arguments)
