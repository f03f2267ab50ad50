"""A ``[memory]`` value out of its range is refused with ``ME027``, naming the range and a fix,
never clamped into it; the config reference lists each range, and a hook uses the defaults."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

from skillshelf.env import Env
from skillshelf.errors import UsageError
from skillshelf.memory.settings import SETTING_RANGES, MemorySettings, load_memory_settings, range_text
from testkit import run_cli

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _work(tmp_path: Path, isolated_home: Any, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder outside any repository, as the cwd; no system config layer."""
    monkeypatch.setenv("SKILLSHELF_SYSTEM_CONFIG_DIR", str(tmp_path / "no-system"))
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    return work


def _user_config(text: str) -> Path:
    config = Env.from_os().dirs.config / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(text, encoding="utf-8")
    return config


@pytest.mark.parametrize(
    ("key", "value", "words"),
    [
        ("concurrency", 1000, "from 1 to 64"),
        ("concurrency", 0, "from 1 to 64"),
        ("max_rollouts_per_run", 1000, "from 1 to 128"),
        ("min_idle_hours", 100, "from 0 to 48"),
        ("effective_context_percent", 500, "from 1 to 100"),
        ("summary_token_cap", 50, "from 100 to 100,000"),
        ("summary_token_cap", 200_000, "from 100 to 100,000"),
        ("lease_seconds", 1e17, "from 1 to 2,592,000"),
        ("max_model_calls", -1, "at least 0"),
        ("max_age_days", math.inf, "from 0 to 3,650"),
    ],
)
def test_a_value_out_of_its_range_is_me027_naming_the_range_and_a_fix(
    key: str, value: float, words: str
) -> None:
    with pytest.raises(UsageError) as info:
        MemorySettings.from_mapping({key: value})
    assert info.value.code == "ME027" and info.value.exit_code == 2
    assert words in info.value.message and key in info.value.message
    assert f"memory.{key}" in (info.value.hint or "") and words in (info.value.hint or "")


def test_each_end_of_a_range_is_taken_as_written() -> None:
    for key, (low, high) in SETTING_RANGES.items():
        ends = (low,) if high == math.inf else (low, high)
        for end in ends:
            assert getattr(MemorySettings().with_overrides(**{key: end}), key) == end, (key, end)


def test_the_config_reference_gives_each_range_in_its_row() -> None:
    doc = (ROOT / "docs" / "config.md").read_text(encoding="utf-8")
    rows = {line.split("|")[1].strip(): line for line in doc.splitlines() if line.startswith("| `memory.")}
    for key in SETTING_RANGES:
        assert range_text(key) in rows[f"`memory.{key}`"], key


@pytest.mark.parametrize(
    "argv", [["memory", "run", "--dry-run"], ["memory", "status"], ["memory", "search", "make check"]]
)
def test_a_memory_command_stops_with_exit_2_on_a_config_value_out_of_range(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    _user_config("[memory]\nconcurrency = 1000\n")
    code, out, err = run_cli(argv, capsys)
    assert code == 2 and "error ME027:" in err and "from 1 to 64" in err and "fix:" in err, err
    assert "Traceback" not in err


def test_an_option_or_override_out_of_range_stops_memory_run(capsys: pytest.CaptureFixture[str]) -> None:
    for args in (["--min-idle-hours", "100"], ["-c", "memory.effective_context_percent=500"]):
        code, _, err = run_cli(["memory", "run", "--dry-run", *args], capsys)
        assert code == 2 and "error ME027:" in err, (args, err)


def test_context_stops_on_a_summary_token_cap_out_of_range(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(["context", "--no-builtin", "-c", "memory.summary_token_cap=50"], capsys)
    assert code == 2 and "error ME027:" in err and "summary_token_cap" in err, err


def test_a_hook_loading_the_settings_hands_the_problem_over_and_gets_the_defaults() -> None:
    _user_config('[memory]\nconcurrency = 1000\nextract_model = "openai:mini"\n')
    env = Env.from_os()
    with pytest.raises(UsageError):
        load_memory_settings(env)
    seen: list[UsageError] = []
    assert load_memory_settings(env, on_bad=seen.append) == MemorySettings()
    assert [e.code for e in seen] == ["ME027"]
