"""The agent's context window and output limit: config keys and options, the compaction point they
give, and the limit each wire format sends."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from click.testing import CliRunner

from skillshelf.agent.loop import AgentSettings
from skillshelf.agent.providers import AnthropicProvider, OpenAIChatProvider
from skillshelf.agent.session import AgentOptions, compaction_threshold, open_agent
from skillshelf.cli.main import cli
from skillshelf.config import load_config
from skillshelf.context import ContextOptions
from skillshelf.env import Env
from skillshelf.errors import UsageError
from skillshelf.llm import ModelRef


class _Recording:
    def __init__(self, provider: str, reply: Any) -> None:
        self.ref = ModelRef(provider=provider, name="m")  # type: ignore[arg-type]
        self.reply = reply
        self.requests: list[dict[str, Any]] = []

    def create(self, **request: Any) -> Any:
        self.requests.append(request)
        return self.reply


_OPENAI_TEXT = SimpleNamespace(
    choices=[
        SimpleNamespace(
            message=SimpleNamespace(content="hi", refusal=None, tool_calls=None), finish_reason="stop"
        )
    ]
)
_ANTHROPIC_TEXT = SimpleNamespace(content=[SimpleNamespace(type="text", text="hi")], stop_reason="end_turn")


def _sent(provider: Any, kind: str, reply: Any) -> dict[str, Any]:
    client = _Recording(kind, reply)
    provider._client = client
    provider.complete(system="s", history=(), tools=())
    return client.requests[0]


@pytest.mark.parametrize(("limit", "sent"), [(None, 4096), (32_000, 32_000)])
def test_anthropic_calls_send_the_output_limit_set_or_4096(limit: int | None, sent: int) -> None:
    provider = AnthropicProvider("m", base_url=None, api_key="x", max_tokens=limit, timeout=1)
    assert _sent(provider, "anthropic", _ANTHROPIC_TEXT)["max_tokens"] == sent


@pytest.mark.parametrize(
    ("base_url", "limit", "key"),
    [(None, None, None), (None, 900, "max_completion_tokens"), ("http://127.0.0.1:9/v1", 900, "max_tokens")],
)
def test_openai_calls_send_an_output_limit_only_when_set(
    base_url: str | None, limit: int | None, key: str | None
) -> None:
    provider = OpenAIChatProvider("m", base_url=base_url, api_key="x", max_tokens=limit, timeout=1)
    request = _sent(provider, "openai", _OPENAI_TEXT)
    sent = {k: v for k, v in request.items() if k in ("max_tokens", "max_completion_tokens")}
    assert sent == ({} if key is None else {key: limit})


def test_without_a_window_compaction_starts_where_it_always_did() -> None:
    assert compaction_threshold(None, None, 5000) == AgentSettings().compact_at_tokens == 120_000


def test_a_window_moves_compaction_below_it_less_the_output_and_the_fixed_prompt() -> None:
    assert compaction_threshold(32_000, None, 3000) == (32_000 - 4096 - 3000) * 9 // 10
    assert compaction_threshold(32_000, 1000, 3000) == (32_000 - 1000 - 3000) * 9 // 10


def test_a_window_the_output_limit_fills_is_a_usage_error_with_a_code() -> None:
    with pytest.raises(UsageError) as caught:
        compaction_threshold(8192, 8000, 500)
    assert caught.value.code == "AG008" and "--context-window" in caught.value.hint


def _env(tmp_path: Path, config: str) -> Env:
    env = Env.for_test(cwd=tmp_path, home=tmp_path / "home")
    env.dirs.config.mkdir(parents=True, exist_ok=True)
    (env.dirs.config / "config.toml").write_text(config, encoding="utf-8")
    return env


def _options(**values: Any) -> AgentOptions:
    return AgentOptions(
        model="anthropic:standin",
        api_key="x",
        base_url="http://127.0.0.1:9",
        context=ContextOptions(include_builtin=False, suggestions=False, memory=False),
        write_transcript=False,
        record_usage=False,
        **values,
    )


def test_the_config_keys_set_the_compaction_point_and_the_output_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    env = _env(tmp_path, "[agent]\ncontext_window = 16000\nmax_output_tokens = 2000\n")
    agent = open_agent(env, _options())
    assert 0 < agent.settings.compact_at_tokens < (16_000 - 2000) * 9 // 10
    assert agent.provider.max_tokens == 2000  # type: ignore[attr-defined]


def test_the_options_win_over_the_config_keys(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    env = _env(tmp_path, "[agent]\ncontext_window = 16000\nmax_output_tokens = 2000\n")
    agent = open_agent(env, _options(context_window=200_000, max_output_tokens=8000))
    assert agent.settings.compact_at_tokens > 150_000
    assert agent.provider.max_tokens == 8000  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("line", "key"),
    [("context_window = 100", "context_window"), ("max_output_tokens = 0", "max_output_tokens")],
)
def test_an_agent_token_setting_out_of_range_is_refused_with_its_line(
    tmp_path: Path, line: str, key: str
) -> None:
    env = _env(tmp_path, f"[agent]\n{line}\n")
    config = load_config(env)
    (diag,) = [d for d in config.diagnostics if d.code == "CF102"]
    assert (diag.field, diag.line) == (f"agent.{key}", 2) and diag.fix
    assert config.get(f"agent.{key}") is None


@pytest.mark.parametrize(("option", "value"), [("--context-window", "100"), ("--max-output-tokens", "0")])
def test_run_refuses_a_token_option_out_of_range(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, option: str, value: str
) -> None:
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["run", "x", "--model", "openai:m", option, value])
    assert result.exit_code == 2 and option in result.output and "is not in the range" in result.output
