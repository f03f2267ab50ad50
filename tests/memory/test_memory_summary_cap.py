"""`memory.summary_token_cap`: the cap on the memory summary put in the model's context, read
from the config as the memory commands check it (2,500 tokens by default, as Codex's read path)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from skillshelf.config import load_config
from skillshelf.context_model import DEFAULT_MEMORY_TOKENS
from skillshelf.env import Env
from skillshelf.errors import UsageError
from skillshelf.memory.layout import memory_project, project_scope, scope_dir
from skillshelf.memory.read import memory_summary_for, summary_token_cap
from skillshelf.memory.settings import DEFAULT_SUMMARY_TOKEN_CAP, MemorySettings


def _env(box: Any, tmp_path: Path) -> Env:
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True, exist_ok=True)
    return Env.for_test(cwd=project, home=box.home)


def _cap(env: Env, *overrides: str) -> int:
    return summary_token_cap(load_config(env, overrides=overrides))


def test_the_summary_cap_is_2500_tokens_by_default_for_context_and_the_memory_settings() -> None:
    assert DEFAULT_SUMMARY_TOKEN_CAP == 2500
    assert MemorySettings().summary_token_cap == DEFAULT_SUMMARY_TOKEN_CAP == DEFAULT_MEMORY_TOKENS


def test_summary_token_cap_is_read_from_the_config(isolated_home: Any, tmp_path: Path) -> None:
    env = _env(isolated_home, tmp_path)
    assert _cap(env) == 2500
    (env.dirs.config / "config.toml").parent.mkdir(parents=True, exist_ok=True)
    (env.dirs.config / "config.toml").write_text("[memory]\nsummary_token_cap = 800\n", encoding="utf-8")
    assert _cap(env) == 800
    assert _cap(env, "memory.summary_token_cap=1200") == 1200  # -c wins over the file


def test_a_whole_summary_token_cap_written_as_a_float_is_taken(isolated_home: Any, tmp_path: Path) -> None:
    env = _env(isolated_home, tmp_path)
    assert _cap(env, "memory.summary_token_cap=640.0") == 640
    assert _cap(env, "memory.summary_token_cap=100") == 100
    assert _cap(env, "memory.summary_token_cap=100000") == 100_000


@pytest.mark.parametrize(
    ("given", "code"),
    [('"lots"', "ME022"), ("true", "ME022"), ("300.5", "ME029"), ("5", "ME027"), ("10000000", "ME027")],
)
def test_a_summary_token_cap_out_of_range_or_not_a_whole_number_is_the_memory_commands_error(
    isolated_home: Any, tmp_path: Path, given: str, code: str
) -> None:
    env = _env(isolated_home, tmp_path)
    with pytest.raises(UsageError) as raised:
        _cap(env, f"memory.summary_token_cap={given}")
    assert raised.value.code == code and "summary_token_cap" in raised.value.message and raised.value.hint
    seen: list[UsageError] = []
    config = load_config(env, overrides=[f"memory.summary_token_cap={given}"])
    assert summary_token_cap(config, on_bad=seen.append) == DEFAULT_SUMMARY_TOKEN_CAP
    assert [e.code for e in seen] == [code]


def test_the_summary_is_cut_in_the_middle_to_the_cap(isolated_home: Any, tmp_path: Path) -> None:
    env = _env(isolated_home, tmp_path)
    folder = scope_dir(env.dirs.data, project_scope(memory_project(env.project_root)))
    folder.mkdir(parents=True)
    lines = [f"- fact {n}: the build runs with make check and the docs with make docs" for n in range(2000)]
    (folder / "memory_summary.md").write_text("\n".join(lines), encoding="utf-8")
    whole = memory_summary_for(env, setting="project")
    assert whole is not None and whole.truncated and 2400 < whole.tokens <= 2520
    small = memory_summary_for(env, setting="project", token_cap=300)
    assert small is not None and small.tokens <= 320 and small.text.startswith(lines[0])
    assert small.text.endswith(lines[-1])
