"""The one layer over the official ``openai`` and ``anthropic`` SDKs, for the memory pipeline's
calls (:mod:`skillshelf.memory.models`) and the agent's (:mod:`skillshelf.agent.providers`).

``openai:NAME`` speaks Chat Completions to any OpenAI-compatible base URL (Ollama, vLLM,
llama.cpp...), ``anthropic:NAME`` the Messages API. :class:`SdkClient` builds the SDK's client
(imported only then; a missing SDK is a ``UsageError`` naming the extra) and turns every failure
of a call into a :class:`~skillshelf.errors.ModelCallError`, with the caller's codes. What goes
into a request and what is read out of the reply stays with the caller.

A new provider is one more name in :data:`PROVIDERS`, its variables in :data:`KEY_VARIABLES` and
:data:`BASE_URL_VARIABLES`, and its branch in :meth:`SdkClient.create`.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from typing import Any, Literal

from skillshelf.errors import ConfigError, ModelCallError, UsageError

__all__ = [
    "BASE_URL_VARIABLES",
    "KEY_VARIABLES",
    "PROVIDERS",
    "ErrorCodes",
    "ModelRef",
    "Provider",
    "SdkClient",
    "key_or_none",
    "parse_model_ref",
    "sdk_installed",
]

Provider = Literal["openai", "anthropic"]
PROVIDERS: tuple[Provider, ...] = ("openai", "anthropic")
KEY_VARIABLES: dict[Provider, str] = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
"""The variable each SDK reads its API key from."""
BASE_URL_VARIABLES: dict[Provider, str] = {"openai": "OPENAI_BASE_URL", "anthropic": "ANTHROPIC_BASE_URL"}
_PACKAGES: dict[Provider, str] = {"openai": "openai", "anthropic": "anthropic"}
MAX_ERROR_CHARS = 300


@dataclass(frozen=True, slots=True, kw_only=True)
class ModelRef:
    """``PROVIDER:NAME`` (``openai:gpt-5.4-mini``, ``anthropic:claude-haiku-4-5``)."""

    provider: Provider
    name: str

    def __str__(self) -> str:
        return f"{self.provider}:{self.name}"


def parse_model_ref(text: str) -> ModelRef:
    """``PROVIDER:NAME``; a bare name is an OpenAI model. Anything else raises ``ME020``."""
    provider, sep, name = text.partition(":")
    if not sep:
        provider, name = "openai", text
    if provider not in PROVIDERS or not name.strip():
        raise ConfigError(
            f"model {text!r} is not PROVIDER:NAME",
            code="ME020",
            hint="use openai:MODEL (any OpenAI-compatible server) or anthropic:MODEL",
        )
    return ModelRef(provider=provider, name=name.strip())


def sdk_installed(ref: ModelRef) -> bool:
    """Whether the SDK ``ref``'s provider needs can be imported (without importing it)."""
    return importlib.util.find_spec(_PACKAGES[ref.provider]) is not None


@dataclass(frozen=True, slots=True, kw_only=True)
class ErrorCodes:
    """The caller's codes: ``missing`` SDK (a ``UsageError``, ``extra`` the extra to install),
    ``failed`` call (a ``ModelCallError``, ``hint`` what to check), ``no_key``: an empty API key
    with no base URL (a ``UsageError``, as an unset one is to the caller)."""

    missing: str
    failed: str
    extra: str | None = None  # None: the provider's own extra
    hint: str = "check the base URL, the API key variable and the model name"
    timeout_hint: str = "the server did not answer in time: try again later, or allow it longer"
    no_key: str | None = None  # a UsageError for a blank key to the provider's own API; None: not checked


def key_or_none(value: str | None) -> str | None:
    """An API key as read from its variable: one that is empty or only whitespace is no key
    (``OPENAI_API_KEY=`` in a shell means "unset", and the provider would refuse it anyway)."""
    return value if value is not None and value.strip() else None


class SdkClient:
    """The SDK's client for one model at one endpoint (``api_key`` None: a placeholder, for a
    local server that wants none; the SDK's own variable is not read).

    A blank ``api_key`` is no key: with no ``base_url`` (the provider's own API, which would refuse
    every call after the SDK's retries), a caller with ``codes.no_key`` gets that UsageError at once,
    naming ``key_variable`` (default: the provider's variable)."""

    def __init__(
        self,
        ref: ModelRef,
        *,
        base_url: str | None,
        api_key: str | None,
        timeout_s: float,
        codes: ErrorCodes,
        max_retries: int = 2,
        key_variable: str | None = None,
    ) -> None:
        self.ref = ref
        self.codes = codes
        blank = api_key is not None and key_or_none(api_key) is None
        api_key = key_or_none(api_key)
        if blank and base_url is None and codes.no_key is not None:
            variable = key_variable or KEY_VARIABLES[ref.provider]
            raise UsageError(
                f"{variable} is set but empty, so {ref} cannot be called on its provider's API",
                hint=f"export {variable}=YOUR_KEY (or unset it and point the base URL at a server "
                "that needs no key)",
                code=codes.no_key,
            )
        package = _PACKAGES[ref.provider]
        try:
            sdk = importlib.import_module(package)
        except ImportError as exc:
            raise UsageError(
                f"the `{package}` package is not installed",
                hint=f"pip install 'skillshelf[{codes.extra or ref.provider}]'",
                code=codes.missing,
            ) from exc
        maker = sdk.Anthropic if ref.provider == "anthropic" else sdk.OpenAI
        self._client: Any = maker(
            api_key=api_key or "unset", base_url=base_url, timeout=timeout_s, max_retries=max_retries
        )

    def create(self, **request: Any) -> Any:
        """One request for this model: Chat Completions (``openai``) or Messages (``anthropic``)
        with ``request`` as its arguments; the SDK's response. Any failure: ``ModelCallError``."""
        try:
            if self.ref.provider == "anthropic":
                return self._client.messages.create(model=self.ref.name, **request)
            return self._client.chat.completions.create(model=self.ref.name, **request)
        except Exception as exc:  # the SDKs raise many types; all mean "this call failed"
            raise self.failed(exc) from exc

    def failed(self, exc: Exception) -> ModelCallError:
        """``exc``, raised while calling or reading the reply, as this caller's failed call."""
        detail = str(exc)[:MAX_ERROR_CHARS]
        timeout = type(exc).__name__ == "APITimeoutError"  # both SDKs' name, after their own retries
        return ModelCallError(
            f"the call to {self.ref} failed: {type(exc).__name__}: {detail}",
            hint=self.codes.timeout_hint if timeout else self.codes.hint,
            code=self.codes.failed,
        )
