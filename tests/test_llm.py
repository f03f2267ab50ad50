"""The one SDK layer under the memory pipeline's and the agent's model calls."""

from __future__ import annotations

import sys

import pytest

from skillshelf.agent.providers import ModelSpec, make_provider
from skillshelf.errors import ConfigError, ModelCallError, UsageError
from skillshelf.llm import ErrorCodes, ModelRef, SdkClient, key_or_none, parse_model_ref, sdk_installed
from skillshelf.memory.models import build_client

CODES = ErrorCodes(missing="XX001", failed="XX002", extra="agent", hint="look at the server")
UNREACHABLE = "http://127.0.0.1:9/v1"  # the discard port: nothing listens there


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_failed_call_is_a_model_call_error_with_the_callers_code(provider: str) -> None:
    ref = parse_model_ref(f"{provider}:m")
    client = SdkClient(ref, base_url=UNREACHABLE, api_key=None, timeout_s=2, codes=CODES, max_retries=0)
    with pytest.raises(ModelCallError) as caught:
        client.create(max_tokens=5, messages=[{"role": "user", "content": "hi"}])
    assert caught.value.code == "XX002" and caught.value.hint == "look at the server"
    assert f"{provider}:m" in str(caught.value)


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_missing_sdk_names_each_callers_code_and_extra(
    provider: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, provider, None)  # import of it raises ImportError
    with pytest.raises(UsageError) as layer:
        SdkClient(
            ModelRef(provider=provider, name="m"), base_url=None, api_key=None, timeout_s=1, codes=CODES
        )  # type: ignore[arg-type]
    assert layer.value.code == "XX001" and "skillshelf[agent]" in (layer.value.hint or "")
    with pytest.raises(UsageError) as memory:
        build_client(f"{provider}:m", base_url=None, api_key=None, max_output_tokens=5, timeout_s=1)
    assert memory.value.code == "ME032" and f"skillshelf[{provider}]" in (memory.value.hint or "")
    with pytest.raises(UsageError) as agent:
        make_provider(ModelSpec(provider=provider, name="m"))  # type: ignore[arg-type]
    assert agent.value.code == "AG002" and "skillshelf[agent]" in (agent.value.hint or "")


def test_model_refs_default_to_openai_and_refuse_unknown_providers() -> None:
    assert parse_model_ref("gpt-x") == ModelRef(provider="openai", name="gpt-x")
    assert str(parse_model_ref("anthropic: claude-x ")) == "anthropic:claude-x"
    for bad in ("mistral:large", "openai:", "anthropic:  "):
        with pytest.raises(ConfigError) as caught:
            parse_model_ref(bad)
        assert caught.value.code == "ME020"
    assert sdk_installed(parse_model_ref("openai:x")) and sdk_installed(parse_model_ref("anthropic:x"))


@pytest.mark.parametrize("blank", ["", " ", "\t\n"])
def test_a_blank_key_to_the_providers_api_is_the_callers_no_key_error(blank: str) -> None:
    codes = ErrorCodes(missing="XX001", failed="XX002", no_key="XX005")
    ref = parse_model_ref("anthropic:m")
    with pytest.raises(UsageError) as caught:
        SdkClient(ref, base_url=None, api_key=blank, timeout_s=1, codes=codes)
    assert caught.value.code == "XX005" and "ANTHROPIC_API_KEY" in caught.value.message
    with pytest.raises(UsageError) as named:
        SdkClient(ref, base_url=None, api_key=blank, timeout_s=1, codes=codes, key_variable="MY_KEY")
    assert "MY_KEY" in named.value.message and "MY_KEY" in (named.value.hint or "")


def test_a_blank_key_is_no_key_to_a_base_url_or_a_caller_without_a_no_key_code() -> None:
    assert key_or_none("") is None and key_or_none("  ") is None and key_or_none("sk-1") == "sk-1"
    ref = parse_model_ref("openai:m")
    SdkClient(
        ref,
        base_url=UNREACHABLE,
        api_key="",
        timeout_s=1,
        codes=ErrorCodes(missing="A", failed="B", no_key="C"),
    )
    SdkClient(ref, base_url=None, api_key="", timeout_s=1, codes=CODES)
