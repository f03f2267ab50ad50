"""Model calls for the memory pipeline, through :mod:`skillshelf.llm` (the official ``openai``
and ``anthropic`` SDKs).

``openai:NAME`` speaks Chat Completions to any OpenAI-compatible base URL (JSON-schema
response format, ``reasoning_effort`` when an effort is set); ``anthropic:NAME`` speaks the
Messages API. Both return the reply text; :func:`parse_json_reply` reads a JSON object out of
it (bare, or inside a code fence). SDK imports happen only when a client is built.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from skillshelf.env import Env
from skillshelf.errors import ModelCallError, UsageError
from skillshelf.llm import BASE_URL_VARIABLES, KEY_VARIABLES, ErrorCodes, SdkClient, key_or_none
from skillshelf.memory.settings import MemorySettings, ModelRef, parse_model_ref

__all__ = [
    "CallBudget",
    "JsonModel",
    "ModelClient",
    "build_client",
    "model_endpoint",
    "model_factories",
    "require_keys",
    "parse_json_reply",
]


class JsonModel(Protocol):
    """What the phases need: one call, system + user text in, reply text out."""

    @property
    def ref(self) -> ModelRef: ...

    def complete(
        self, *, system: str, user: str, schema: Mapping[str, Any] | None, effort: str | None
    ) -> str: ...


class CallBudget:
    """A thread-safe cap on model calls in one run (None: no cap)."""

    def __init__(self, limit: int | None) -> None:
        self.limit = limit
        self.used = 0
        self._lock = threading.Lock()

    def take(self) -> bool:
        with self._lock:
            if self.limit is not None and self.used >= self.limit:
                return False
            self.used += 1
            return True

    def give_back(self) -> None:
        """Return one call taken for a job that made none."""
        with self._lock:
            self.used = max(0, self.used - 1)

    @property
    def remaining(self) -> int | None:
        return None if self.limit is None else max(0, self.limit - self.used)


CODES = ErrorCodes(
    missing="ME032",
    failed="ME030",
    hint="check --base-url, the API key variable and the model name",
    timeout_hint="the server did not answer within memory.request_timeout_s (a limit on each attempt; "
    "the SDK makes up to 3): try again later, or raise it (-c memory.request_timeout_s=SECONDS)",
)


@dataclass(frozen=True, slots=True, kw_only=True)
class ModelClient:
    """One configured model: provider, name, base URL, output cap and timeout."""

    ref: ModelRef
    base_url: str | None
    api_key: str | None
    max_output_tokens: int
    timeout_s: float
    _client: SdkClient
    json_mode: str = "schema"  # schema | object | off (for OpenAI-compatible servers without json_schema)

    def complete(
        self, *, system: str, user: str, schema: Mapping[str, Any] | None, effort: str | None
    ) -> str:
        try:
            if self.ref.provider == "anthropic":
                response = self._client.create(
                    system=system,
                    max_tokens=self.max_output_tokens,
                    messages=[{"role": "user", "content": user}],
                )
            else:
                response = self._client.create(**self._openai_request(system, user, schema, effort))
        except ModelCallError as exc:
            if isinstance(exc.__cause__, json.JSONDecodeError):  # a body cut off or garbled on its way
                raise self._not_api_json(
                    f"{type(exc.__cause__).__name__}: {exc.__cause__}", cut_off=True
                ) from exc.__cause__
            raise
        try:
            return self._reply_text(response)
        except ModelCallError:
            raise
        except Exception as exc:  # a reply the SDK parsed but that lacks what it should hold
            raise self._client.failed(exc) from exc

    def _openai_request(
        self, system: str, user: str, schema: Mapping[str, Any] | None, effort: str | None
    ) -> dict[str, Any]:
        request: dict[str, Any] = {
            "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}],
            "max_completion_tokens": self.max_output_tokens,
        }
        if self.json_mode == "object":
            request["response_format"] = {"type": "json_object"}
        elif schema is not None and self.json_mode == "schema":
            request["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "memory", "schema": dict(schema), "strict": True},
            }
        if effort:
            request["reasoning_effort"] = effort
        return request

    def _not_api_json(self, detail: str, *, cut_off: bool) -> ModelCallError:
        """ME044: a body that is not the API's JSON (``cut_off``: JSON that broke off, as a dropped
        connection or a proxy leaves it, rather than some other text)."""
        base_url_hint = (
            "check --base-url (memory.base_url): it must be the API root of the model server "
            "(for OpenAI-compatible servers often ending in /v1), not a web page or a proxy's error page"
        )
        return ModelCallError(
            f"the server for {self.ref} answered with something that is not the API's JSON: {detail}",
            code="ME044",
            hint=f"the answer broke off on its way: try again later (a failed job is retried after "
            f"its backoff); if it keeps happening, {base_url_hint}"
            if cut_off
            else base_url_hint,
        )

    def _reply_text(self, response: Any) -> str:
        if not hasattr(response, "content" if self.ref.provider == "anthropic" else "choices"):
            # the SDK hands back the body as text when it is not JSON
            raise self._not_api_json(repr(str(response)[:120]), cut_off=False)
        if self.ref.provider == "anthropic":
            return "".join(getattr(block, "text", "") for block in response.content if block.type == "text")
        if not response.choices:
            raise ModelCallError(
                f"{self.ref} returned no choices", code="ME031", hint="try again or another model"
            )
        return str(response.choices[0].message.content or "")


def build_client(
    model: str,
    *,
    base_url: str | None,
    api_key: str | None,
    max_output_tokens: int,
    timeout_s: float,
    max_retries: int = 2,
    json_mode: str = "schema",
) -> ModelClient:
    """A client for ``PROVIDER:NAME`` (``api_key`` None: a placeholder, for a local server)."""
    ref = parse_model_ref(model)
    client = SdkClient(
        ref, base_url=base_url, api_key=api_key, timeout_s=timeout_s, codes=CODES, max_retries=max_retries
    )
    return ModelClient(
        ref=ref,
        base_url=base_url,
        api_key=api_key,
        max_output_tokens=max_output_tokens,
        timeout_s=timeout_s,
        _client=client,
        json_mode=json_mode,
    )


_FENCE = re.compile(r"```(?:json)?\s*(\{.*\})\s*```", re.DOTALL)


def parse_json_reply(text: str) -> dict[str, Any]:
    """The JSON object in a model reply (bare or fenced); ModelCallError when there is none."""
    candidates = [text.strip()]
    fenced = _FENCE.search(text)
    if fenced:
        candidates.append(fenced.group(1))
    start, end = text.find("{"), text.rfind("}")
    if 0 <= start < end:
        candidates.append(text[start : end + 1])
    for candidate in candidates:
        try:
            value = json.loads(candidate)
        except (ValueError, RecursionError):
            continue
        if isinstance(value, dict):
            return value
    raise ModelCallError(
        "the model did not answer with a JSON object",
        code="ME033",
        hint="use a model that follows JSON instructions, or retry later",
    )


def model_endpoint(env: Env, settings: MemorySettings, model: str) -> tuple[str | None, str | None]:
    """(base URL, API key) for ``model``: settings first, then the provider's usual variables in ``env``."""
    provider = parse_model_ref(model).provider
    key_var = settings.api_key_env or KEY_VARIABLES[provider]
    base = settings.base_url or env.environ.get(BASE_URL_VARIABLES[provider]) or None
    return base, key_or_none(env.environ.get(key_var))


def require_keys(env: Env, settings: MemorySettings, models: Iterable[str]) -> None:
    """Refuse, before any job is claimed, a model on its provider's own API with no key set (each
    call would fail, and each failed job wait out a backoff).

    Raises:
        UsageError: (ME028) naming the variable to set.
    """
    for model in dict.fromkeys(models):
        base, key = model_endpoint(env, settings, model)
        if key is None and base is None:
            variable = settings.api_key_env or KEY_VARIABLES[parse_model_ref(model).provider]
            raise UsageError(
                f"{variable} is not set, so the memory model {model} cannot be called",
                hint=f"export {variable}=..., or point --base-url (memory.base_url) at a server that needs "
                "no key; --dry-run shows the prompts without a model",
                code="ME028",
            )


def model_factories(
    env: Env, settings: MemorySettings
) -> tuple[Callable[[], JsonModel], Callable[[], JsonModel]]:
    """(Phase-1 model, Phase-2 model) builders; API keys come from ``env``, never os.environ."""

    def make(model: str) -> Callable[[], JsonModel]:
        def build() -> JsonModel:
            base, key = model_endpoint(env, settings, model)
            return build_client(
                model,
                base_url=base,
                api_key=key,
                max_output_tokens=settings.max_output_tokens,
                timeout_s=settings.request_timeout_s,
                json_mode=settings.json_mode,
            )

        return build

    return make(settings.extract_model), make(settings.consolidation_model)
