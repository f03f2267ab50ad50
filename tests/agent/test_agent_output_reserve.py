"""The context window check (AG008) and the compaction point keep free only the output limit the
provider's requests carry: Anthropic's 4096 unless set, nothing for OpenAI unless set."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from skillshelf.agent.session import AgentOptions, compaction_threshold, open_agent, output_reserve
from skillshelf.context import ContextOptions
from skillshelf.env import Env
from skillshelf.errors import UsageError


def _options(model: str, **values: Any) -> AgentOptions:
    return AgentOptions(
        model=model,
        api_key="x",
        base_url="http://127.0.0.1:9/v1",
        context=ContextOptions(include_builtin=False, suggestions=False, memory=False),
        write_transcript=False,
        record_usage=False,
        **values,
    )


@pytest.mark.parametrize(
    ("provider", "limit", "reserved"),
    [("openai", None, 0), ("openai", 900, 900), ("anthropic", None, 4096), ("anthropic", 900, 900)],
)
def test_the_output_reserved_is_the_limit_the_provider_sends(
    provider: str, limit: int | None, reserved: int
) -> None:
    assert output_reserve(provider, limit) == reserved


def test_an_openai_agent_without_an_output_limit_fits_a_small_window(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    env = Env.for_test(cwd=tmp_path, home=tmp_path / "home")
    agent = open_agent(env, _options("openai:m", context_window=2048))
    assert 2048 // 8 <= agent.settings.compact_at_tokens < 2048


@pytest.mark.parametrize(
    ("model", "values"),
    [
        ("anthropic:m", {"context_window": 2048}),
        ("openai:m", {"context_window": 2048, "max_output_tokens": 4096}),
    ],
)
def test_a_window_the_sent_output_limit_fills_is_refused_with_ag008(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, model: str, values: dict[str, int]
) -> None:
    monkeypatch.chdir(tmp_path)
    env = Env.for_test(cwd=tmp_path, home=tmp_path / "home")
    with pytest.raises(UsageError) as caught:
        open_agent(env, _options(model, **values))
    assert caught.value.code == "AG008" and "4,096 output tokens" in str(caught.value)


def test_ag008_without_an_output_limit_names_no_output_tokens() -> None:
    with pytest.raises(UsageError) as caught:
        compaction_threshold(2048, 0, 2000)
    assert caught.value.code == "AG008" and "output tokens" not in str(caught.value)
    assert "--max-output-tokens" not in (caught.value.hint or "")
