"""The memory summary in `skillshelf context` is cut to `memory.summary_token_cap` (2,500 tokens
without it); `ContextOptions.memory_tokens`, when given, wins; a cap that is not a whole number
stops the command with the memory commands' error."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from skillshelf.cli.main import cli
from skillshelf.context import ContextOptions, build_context
from skillshelf.env import Env
from skillshelf.errors import UsageError
from skillshelf.memory.layout import memory_project, project_scope, scope_dir
from testkit import run_cli

OPTIONS = ContextOptions(include_builtin=False, use_cache=False)
LINES = [f"- fact {n}: the build runs with make check and the docs with make docs" for n in range(2000)]


def _project(tmp_path: Path, home: Path, config: str = "") -> Env:
    """A git project with a long memory summary (about 17,000 tokens) and a user config."""
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    env = Env.for_test(cwd=project, home=home)
    folder = scope_dir(env.dirs.data, project_scope(memory_project(env.project_root)))
    folder.mkdir(parents=True)
    (folder / "memory_summary.md").write_text("\n".join(LINES), encoding="utf-8")
    env.dirs.config.mkdir(parents=True, exist_ok=True)
    (env.dirs.config / "config.toml").write_text(config, encoding="utf-8")
    return env


def _memory_tokens(env: Env, options: ContextOptions = OPTIONS) -> int:
    part = build_context(env, "", options).part("memory")
    assert part is not None and part.text.startswith(LINES[0]) and part.text.endswith(LINES[-1])
    return part.tokens


def test_context_cuts_the_memory_summary_to_summary_token_cap(tmp_path: Path, isolated_home: Any) -> None:
    env = _project(tmp_path, isolated_home.home, "[memory]\nsummary_token_cap = 400\n")
    assert 390 <= _memory_tokens(env) <= 420


def test_without_summary_token_cap_the_summary_keeps_its_2500_token_cap(
    tmp_path: Path, isolated_home: Any
) -> None:
    env = _project(tmp_path, isolated_home.home)
    assert 2490 <= _memory_tokens(env) <= 2520


def test_memory_tokens_given_to_context_wins_over_summary_token_cap(
    tmp_path: Path, isolated_home: Any
) -> None:
    env = _project(tmp_path, isolated_home.home, "[memory]\nsummary_token_cap = 400\n")
    given = ContextOptions(include_builtin=False, use_cache=False, memory_tokens=1000)
    assert 990 <= _memory_tokens(env, given) <= 1020
    override = ContextOptions(
        include_builtin=False, use_cache=False, config_overrides=("memory.summary_token_cap=900",)
    )
    assert 890 <= _memory_tokens(env, override) <= 920  # -c over the file


def test_a_summary_token_cap_that_is_not_a_number_stops_context_with_me022(
    tmp_path: Path, isolated_home: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    env = _project(tmp_path, isolated_home.home, '[memory]\nsummary_token_cap = "big"\n')
    with pytest.raises(UsageError) as raised:
        build_context(env, "", OPTIONS)
    assert raised.value.code == "ME022"
    assert build_context(env, "", ContextOptions(include_builtin=False, memory=False)).part("memory") is None
    monkeypatch.chdir(env.cwd)
    code, _, err = run_cli(["context", "--no-builtin"], capsys)
    assert code == 2 and "error ME022" in err and "summary_token_cap" in err and "fix:" in err
    assert "Traceback" not in err


def test_context_json_shows_the_summary_cut_to_the_cap(
    tmp_path: Path, isolated_home: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = _project(tmp_path, isolated_home.home)
    monkeypatch.chdir(env.cwd)
    done = CliRunner().invoke(
        cli, ["context", "--no-builtin", "--json", "-c", "memory.summary_token_cap=300"]
    )
    assert done.exit_code == 0, done.output
    (memory,) = [p for p in json.loads(done.stdout)["parts"] if p["name"] == "memory"]
    assert 290 <= memory["tokens"] <= 320
