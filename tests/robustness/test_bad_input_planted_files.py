"""Files a project (or a user's own mistake) can plant where skillshelf reads: a FIFO or a huge
file in place of the install lock, a query file or an agent's settings, and TOML or JSON nested
thousands of levels deep. Each is a coded message with a fix, never a hang or a crash, and the
rest of the command's work goes on.

A FIFO named ``.skillshelf-lock.json`` hung ``list``, ``update`` and ``remove``; one named
``.claude/settings.json`` hung ``setup``; ``eval --queries /dev/zero`` never ended; a project
``.skillshelf/config.toml``, ``$CODEX_HOME/config.toml`` or ``.claude/settings.json`` nested
50,000 levels deep ended ``context``, ``config show``, ``deps`` and ``setup`` in an internal error.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from bad_input_helpers import assert_no_crash, assert_reported, run_cli, run_process, write_skill

from skillshelf.install.lock import LOCK_FILE_NAME

DEEP_TOML = "a = " + "[" * 50_000 + "\n"
DEEP_JSON = '{"a":' * 50_000 + "1" + "}" * 50_000


def _project_skill(work: Path) -> Path:
    return write_skill(work / ".agents" / "skills" / "notes", "notes")


@pytest.mark.parametrize("command", [["list"], ["update"], ["remove", "notes"]])
def test_a_fifo_in_place_of_the_lock_file_is_reported_not_waited_on(work: Path, command: list[str]) -> None:
    _project_skill(work)
    os.mkfifo(work / ".agents" / "skills" / LOCK_FILE_NAME)  # no writer: a blocking read hangs
    code, out, err = run_process(command, cwd=work)
    assert code is not None, "the command hung on the FIFO"
    text = (out + err).decode()
    assert "IS401" in text and "not a regular file" in text, text
    assert "internal error" not in text


def test_a_lock_file_past_its_size_cap_is_reported(work: Path) -> None:
    _project_skill(work)
    lock = work / ".agents" / "skills" / LOCK_FILE_NAME
    with open(lock, "wb") as handle:  # sparse: costs no disk
        handle.write(b'{"skills": {}}')
        handle.truncate(64 * 1024 * 1024)
    result = run_cli(["update"], cwd=work)
    assert_reported(result, code="IS401")
    assert "larger than" in result.text


@pytest.mark.parametrize("content", ["fifo", "device", "deep"])
def test_eval_refuses_an_unreadable_or_too_deep_query_file_with_se302(
    work: Path, tmp_path: Path, content: str
) -> None:
    queries = tmp_path / "queries.jsonl"
    if content == "fifo":
        os.mkfifo(queries)
    elif content == "device":
        queries = Path("/dev/zero")  # endless: read whole, it never ends
    else:
        queries.write_text("[" * 100_000 + "\n", encoding="utf-8")
    code, out, err = run_process(["eval", "--queries", str(queries)], cwd=work)
    assert code == 2, (code, out, err)
    assert b"SE302" in err and b"fix:" in err, err


def test_a_project_config_nested_too_deeply_is_a_cf100_finding_and_context_still_runs(work: Path) -> None:
    _project_skill(work)
    (work / ".skillshelf").mkdir()
    (work / ".skillshelf" / "config.toml").write_text(DEEP_TOML, encoding="utf-8")
    for command in (["context", "release notes"], ["config", "show"], ["deps"]):
        result = run_cli(command, cwd=work)
        assert_no_crash(result)
        if command[0] != "deps":
            assert "CF100" in result.codes and "nested too deeply" in result.text, result.text
    assert "notes" in run_cli(["context", "release notes"], cwd=work).out


def test_a_codex_config_nested_too_deeply_leaves_every_command_working(
    work: Path, isolated_home: Any
) -> None:
    _project_skill(work)
    isolated_home.codex_home.mkdir(parents=True, exist_ok=True)
    (isolated_home.codex_home / "config.toml").write_text(DEEP_TOML, encoding="utf-8")
    for command in (["context", "release notes"], ["instructions"], ["deps"], ["list"]):
        assert_no_crash(run_cli(command, cwd=work))
    deps = run_cli(["deps"], cwd=work)
    assert "IS501" in deps.codes and "nested too deeply" in deps.text
    setup = run_cli(["setup", "codex", "--scope", "user", "--dry-run"], cwd=work)
    assert_reported(setup, code="HK111")


def _plant(settings: Path, planted: str) -> None:
    settings.parent.mkdir(exist_ok=True)
    if planted == "fifo":
        os.mkfifo(settings)
    else:
        settings.write_text(DEEP_JSON, encoding="utf-8")


@pytest.mark.parametrize(("planted", "code"), [("deep", "HK101"), ("fifo", "HK120")])
def test_setup_reports_an_agent_settings_file_it_cannot_read(work: Path, planted: str, code: str) -> None:
    settings = work / ".claude" / "settings.local.json"
    _plant(settings, planted)
    rc, out, err = run_process(["setup", "claude", "--dry-run"], cwd=work)
    assert rc == 1, (rc, out, err)
    assert code.encode() in err and b"fix:" in err, err
    rc, out, err = run_process(["setup", "--status"], cwd=work)
    assert rc == 0, (rc, out, err)
    assert f"cannot read {settings}".encode() in out or b"nested deeper" in out, out


@pytest.mark.parametrize("planted", ["deep", "fifo"])
def test_a_shared_settings_file_setup_does_not_edit_cannot_stop_or_hang_it(work: Path, planted: str) -> None:
    _plant(work / ".claude" / "settings.json", planted)
    for argv in (["setup", "claude", "--dry-run"], ["setup", "--status"]):
        rc, out, err = run_process(argv, cwd=work)
        assert rc == 0 and b"Traceback" not in err, (argv, rc, out, err)
