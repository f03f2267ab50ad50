"""`skillshelf memory ...` and a configuration it cannot fully read: a skipped layer or ``-c`` is
reported as `context` reports it (stderr, ``problems`` in ``--json``, exit 1 after the output);
a setting it cannot use and an empty search are usage errors (exit 2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillshelf.env import Env
from testkit import IsolatedHome
from testkit import run_cli as cli

BROKEN = '[memory]\nscope = "global"\n\n[hooks]\nmemory_tokens = 20O\n'


@pytest.fixture(autouse=True)
def _work(tmp_path: Path, isolated_home: IsolatedHome, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder outside any repository, as the cwd; no system config layer."""
    monkeypatch.setenv("SKILLSHELF_SYSTEM_CONFIG_DIR", str(tmp_path / "no-system"))
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    return work


def _broken_config() -> Path:
    config = Env.from_os().dirs.config / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(BROKEN, encoding="utf-8")
    return config


@pytest.mark.parametrize(
    "argv",
    [
        ["memory", "status"],
        ["memory", "run", "--dry-run"],
        ["memory", "recover"],
        ["memory", "search", "make check"],
        ["memory", "prune"],
        ["memory", "show"],
    ],
)
def test_a_memory_command_reports_a_skipped_config_layer_and_exits_1(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    config = _broken_config()
    code, _, err = cli(argv, capsys)
    assert code == 1 and f"{config}:5: error CF100: TOML syntax error" in err, err
    assert "layer skipped" in err and "Traceback" not in err


def test_the_json_of_run_and_status_carries_the_skipped_layer(capsys: pytest.CaptureFixture[str]) -> None:
    _broken_config()
    code, out, _ = cli(["memory", "status", "--json"], capsys)
    status = json.loads(out)
    assert code == 1 and [p["code"] for p in status["problems"]] == ["CF100"]
    assert status["scope_setting"] == "project"  # what the run uses, the finding says why
    code, out, _ = cli(["memory", "run", "--dry-run", "--json"], capsys)
    assert code == 1 and [p["code"] for p in json.loads(out)["problems"]] == ["CF100"]


@pytest.mark.parametrize(
    "argv", [["memory", "run", "--dry-run"], ["memory", "status"], ["memory", "recover"]]
)
def test_an_override_that_cannot_be_read_is_reported_as_cf108(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = cli([*argv, "-c", "notakv"], capsys)
    assert code == 1 and "error CF108: cannot read override 'notakv'" in err, err


def test_a_dry_run_with_nothing_to_send_prints_no_run_figures(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(["memory", "run", "--dry-run"], capsys)
    assert code == 0 and "0 prompt(s) would be sent" in out
    assert "phase 1:" not in out and "model calls" not in out


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["--model", "foo:bar"], "ME020"),
        (["-c", "memory.scope=bogus"], "ME023"),
        (["-c", "memory.nosuchkey=1"], "ME021"),
        (["-c", "memory.min_idle_hours=abc"], "ME022"),
        (["--db", "mysql://x"], "ME015"),
        (["-c", "memory.consolidation_model=true"], "ME020"),
        (["-c", "memory.base_url=12"], "ME019"),
        (["--base-url", "ftp://x"], "ME042"),
    ],
)
def test_memory_run_exits_2_for_bad_arguments_or_settings(
    args: list[str], code: str, capsys: pytest.CaptureFixture[str]
) -> None:
    exit_code, _, err = cli(["memory", "run", "--dry-run", *args], capsys)
    assert exit_code == 2 and f"error {code}:" in err, err


def test_a_setting_in_the_config_file_that_cannot_be_used_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    config = Env.from_os().dirs.config / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    for table, error in (
        ('scope = "everywhere"', "ME023"),
        ("extract_model = 12", "ME020"),
        ("base_url = 12", "ME019"),
        ('base_url = "not a url"', "ME042"),
    ):
        config.write_text(f"[memory]\n{table}\n", encoding="utf-8")
        for argv in (["memory", "run", "--dry-run"], ["memory", "status"]):
            code, _, err = cli(argv, capsys)
            assert code == 2 and f"error {error}:" in err, (table, err)


@pytest.mark.parametrize("query", ["", "   ", "\n\t"])
def test_memory_search_refuses_an_empty_query_as_a_usage_error(
    query: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = cli(["memory", "search", query], capsys)
    assert code == 2 and "error ME018: the query is empty" in err, err
