"""The ``[memory]`` settings: counts are whole numbers, durations have a ceiling the store fits."""

from __future__ import annotations

import time
from typing import Any

import pytest
from memory_helpers import ScriptedModel, run_cli, write_skillshelf_transcript

from skillshelf.env import Env
from skillshelf.errors import UsageError
from skillshelf.memory.service import RunOptions, run_memory
from skillshelf.memory.settings import MemorySettings, read_memory_settings
from skillshelf.memory.store import STAGE1, open_store


@pytest.mark.parametrize(
    "key", ["max_rollouts_per_run", "max_raw_memories", "concurrency", "max_model_calls", "max_output_tokens"]
)
def test_a_fractional_count_is_a_usage_error_naming_the_setting(key: str) -> None:
    with pytest.raises(UsageError) as info:
        MemorySettings.from_mapping({key: 2.5})
    assert info.value.code == "ME029" and f"memory.{key}" in (info.value.hint or "")


def test_a_whole_count_written_as_a_float_is_taken_as_that_integer() -> None:
    settings = MemorySettings.from_mapping({"max_rollouts_per_run": 3.0, "max_raw_memories": 1e3})
    assert (settings.max_rollouts_per_run, settings.max_raw_memories) == (3, 1000)
    assert type(settings.max_rollouts_per_run) is int and type(settings.max_raw_memories) is int


def test_durations_at_their_ceiling_fit_the_store_and_past_it_are_refused() -> None:
    settings = MemorySettings().with_overrides(
        lease_seconds=30 * 86_400, retry_delay_seconds=30 * 86_400, heartbeat_seconds=86_400
    )
    assert settings.lease_seconds == settings.retry_delay_seconds == 30 * 86_400
    for key in ("lease_seconds", "retry_delay_seconds", "heartbeat_seconds", "request_timeout_s"):
        with pytest.raises(UsageError) as info:
            MemorySettings().with_overrides(**{key: 1e17})
        assert info.value.code == "ME027" and f"memory.{key}" in (info.value.hint or "")


def test_a_fractional_count_in_the_config_stops_the_run_with_a_config_code_not_a_database_one(
    isolated_home: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    config = Env.from_os().dirs.config / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("[memory]\nmax_rollouts_per_run = 2.5\n", encoding="utf-8")
    code, _, err = run_cli(capsys, "memory", "run", "--phase", "1", "--model", "openai:m")
    assert code != 0 and "ME029" in err and "ME013" not in err and "damaged" not in err


def test_a_run_with_durations_at_their_ceiling_extracts_and_leaves_no_lease_behind(
    isolated_home: Any, scripted_model: ScriptedModel
) -> None:
    project = isolated_home.home / "proj"
    project.mkdir()
    env = Env.for_test(cwd=project, home=isolated_home.home, codex_home=isolated_home.codex_home)
    path = write_skillshelf_transcript(
        isolated_home.home / "t" / "s.jsonl",
        session_id="s",
        cwd=project,
        task="tests run with make check",
        mtime=time.time() - 3600,
    )
    settings = MemorySettings().with_overrides(
        extract_model="openai:m",
        base_url=scripted_model.url + "/v1",
        min_idle_hours=0,
        lease_seconds=30 * 86_400,
        retry_delay_seconds=30 * 86_400,
    )
    report = run_memory(env, settings, RunOptions(sessions=(path,), phase="1"))
    assert report.outcomes == {"extracted": 1}
    with open_store(None, data_dir=env.dirs.data) as store:
        job = store.job(STAGE1, "s")
        assert job and job["status"] == "done" and store.running_leases() == []


@pytest.mark.parametrize(
    ("values", "code"),
    [
        ({"extract_model": "foo:bar"}, "ME020"),
        ({"scope": "bogus"}, "ME023"),
        ({"min_idle_hours": "abc"}, "ME022"),
        ({"json_mode": "yaml"}, "ME025"),
        ({"extract_model": 12}, "ME020"),
        ({"consolidation_model": True}, "ME020"),
        ({"base_url": 12}, "ME019"),
        ({"api_key_env": 3}, "ME019"),
        ({"api_key_env": "A=B"}, "ME019"),
        ({"extract_effort": ["low"]}, "ME019"),
        ({"base_url": "not a url"}, "ME042"),
        ({"base_url": "ftp://x"}, "ME042"),
        ({"base_url": "http://"}, "ME042"),
        ({"base_url": "http://[x"}, "ME042"),
    ],
)
def test_a_setting_that_cannot_be_used_is_a_usage_error_exit_2(values: dict[str, Any], code: str) -> None:
    with pytest.raises(UsageError) as info:
        MemorySettings().with_overrides(**values)
    assert info.value.code == code and info.value.exit_code == 2


def test_an_unknown_key_is_a_usage_error_exit_2() -> None:
    with pytest.raises(UsageError) as info:
        MemorySettings.from_mapping({"nosuchkey": 1})
    assert info.value.code == "ME021" and info.value.exit_code == 2


def test_the_settings_come_with_the_config_findings_of_a_skipped_layer_and_override(
    isolated_home: Any,
) -> None:
    env = Env.from_os()
    config = env.dirs.config / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('[memory]\nscope = "global"\n\n[hooks]\nmemory_tokens = 20O\n', encoding="utf-8")
    settings, findings = read_memory_settings(env, overrides=("notakv",))
    assert settings.scope == "project"  # the layer asking for global was skipped...
    codes = {d.code: d for d in findings}
    assert codes["CF100"].path == config and codes["CF100"].line == 5  # ...and says so
    assert "CF108" in codes


@pytest.mark.parametrize("url", ["http://127.0.0.1:8000/v1", "HTTPS://api.example.com", "http://[::1]:9/v1"])
def test_an_http_or_https_base_url_with_a_host_is_taken(url: str) -> None:
    assert MemorySettings().with_overrides(base_url=url).base_url == url
