"""Bad input on the command line: install/update/remove, memory, redact, eval, serve, agent, lint-arch."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from bad_input_helpers import (
    assert_no_crash,
    assert_reported,
    codex_config,
    run_cli,
    run_process,
    write_skill,
)

from skillshelf.memory.store import open_store
from testkit import zip_with

# -- install / update / remove ---------------------------------------------------------------------

GOOD = b"---\nname: zz\ndescription: A skill from an archive.\n---\nbody\n"


@pytest.mark.parametrize(
    ("entries", "code"),
    [
        ([("zz/SKILL.md", GOOD, None), ("../../evil.txt", b"pwned", None)], "IS201"),
        ([("zz/SKILL.md", GOOD, None), ("/tmp/skillshelf-evil.txt", b"pwned", None)], "IS202"),
        ([("zz/SKILL.md", GOOD, None), ("zz/fifo", b"", 0o010644)], "IS203"),
        ([("zz/SKILL.md", GOOD, None), ("zz/link", b"/etc/passwd", 0o120777)], "IS204"),
        (
            [("zz/SKILL.md", GOOD, None), ("zz/up", b"../../..", 0o120777), ("zz/up/evil.txt", b"x", None)],
            "IS204",
        ),
        ([("readme.txt", b"no skill here", None)], "IS310"),
    ],
    ids=["zip-slip", "absolute", "fifo", "symlink-out", "symlink-dir", "no-skill"],
)
def test_install_refuses_hostile_archives_and_writes_nothing(
    work: Path, tmp_path: Path, isolated_home: Any, entries: list[tuple[str, bytes, int | None]], code: str
) -> None:
    archive = zip_with(tmp_path / "bad.zip", entries)
    user_dirs = (isolated_home.cache, isolated_home.data, isolated_home.config, isolated_home.state)
    before = sorted(p for p in tmp_path.rglob("*") if not any(p.is_relative_to(d) for d in user_dirs))
    result = run_cli(["install", str(archive)], cwd=work)
    assert_reported(result, exit_codes=(1,), code=code)
    assert sorted(p for p in tmp_path.rglob("*") if not any(p.is_relative_to(d) for d in user_dirs)) == before
    assert not Path("/tmp/skillshelf-evil.txt").exists()
    installed = Path(isolated_home.home) / ".agents" / "skills"  # where the install would have gone
    assert not installed.exists() or not any(p.name == "zz" for p in installed.iterdir())


@pytest.mark.parametrize(
    "content", [b"", b"this is not a zip", b"PK\x03\x04truncated"], ids=["empty", "text", "truncated"]
)
def test_install_of_a_broken_zip_says_so(work: Path, tmp_path: Path, content: bytes) -> None:
    (tmp_path / "broken.zip").write_bytes(content)
    assert_reported(
        run_cli(["install", str(tmp_path / "broken.zip")], cwd=work), exit_codes=(1,), code="IS200"
    )


def test_install_from_nothing_or_with_a_hostile_name(work: Path, tmp_path: Path) -> None:
    assert_reported(run_cli(["install", str(tmp_path / "missing")], cwd=work), exit_codes=(1,), code="IS101")
    assert_reported(run_cli(["install", ""], cwd=work), exit_codes=(1,), code="IS101")
    assert_reported(run_cli(["install", "gh:"], cwd=work), exit_codes=(1,), code="IS101")
    write_skill(tmp_path / "good", "good")
    for name in ("../../x", "a/b", "..", "x\ny"):
        assert_reported(
            run_cli(["install", str(tmp_path / "good"), "--name", name], cwd=work), exit_codes=(2,)
        )


@pytest.fixture
def deep_tree(tmp_path: Path) -> Iterator[Path]:
    """``deep/d/d/.../d/SKILL.md`` 1,100 folders deep (built and removed with folder descriptors, without
    recursion, so neither PATH_MAX nor the recursion limit of shutil.rmtree gets in the way)."""
    base = tmp_path / "deep"
    base.mkdir()
    fds = [os.open(base, os.O_RDONLY)]
    for _ in range(1100):
        os.mkdir("d", dir_fd=fds[-1])
        fds.append(os.open("d", os.O_RDONLY, dir_fd=fds[-1]))
    handle = os.open("SKILL.md", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fds[-1])
    os.write(handle, b"---\nname: deep\ndescription: very deep\n---\n")
    os.close(handle)
    try:
        yield base
    finally:
        os.unlink("SKILL.md", dir_fd=fds[-1])
        for above, below in zip(reversed(fds[:-1]), reversed(fds[1:]), strict=True):
            os.close(below)
            os.rmdir("d", dir_fd=above)
        os.close(fds[0])


def test_install_from_a_very_deep_folder_fails_cleanly(work: Path, deep_tree: Path) -> None:
    assert_reported(run_cli(["install", str(deep_tree)], cwd=work), exit_codes=(1,), code="IS312")


def test_validate_and_list_on_a_very_deep_folder(work: Path, deep_tree: Path) -> None:
    checked = run_cli(["validate", str(deep_tree)], cwd=work)
    assert_no_crash(checked)
    assert "SK359" in checked.codes  # the walk stopped at its depth limit, and says so
    listed = run_cli(["list", "--no-builtin", "--root", str(deep_tree)], cwd=work)
    assert_no_crash(listed)
    assert listed.code == 0


def _installed_good_with_lock(work: Path, tmp_path: Path, isolated_home: Any, lock_text: bytes) -> Path:
    """Install ``good``, then replace its lock file with ``lock_text``; the lock's path."""
    write_skill(tmp_path / "good", "good")
    assert run_cli(["install", str(tmp_path / "good")], cwd=work).code == 0
    lock = Path(isolated_home.home) / ".agents" / "skills" / ".skillshelf-lock.json"
    assert lock.exists()
    lock.write_bytes(lock_text)
    return lock


def test_a_corrupt_lock_file_stops_changes_and_is_kept(
    work: Path, tmp_path: Path, isolated_home: Any
) -> None:
    lock = _installed_good_with_lock(work, tmp_path, isolated_home, b'{"version": 1, "skills": {"good": ')
    for args in (["update"], ["remove", "good"], ["install", str(tmp_path / "good"), "--force"]):
        assert_reported(run_cli(args, cwd=work), exit_codes=(1,), code="IS401")
    assert lock.read_bytes() == b'{"version": 1, "skills": {"good": '
    assert (lock.parent / "good" / "SKILL.md").exists()


def test_a_malformed_lock_entry_is_reported_and_neither_acted_on_nor_lost(
    work: Path, tmp_path: Path, isolated_home: Any
) -> None:
    lock = _installed_good_with_lock(work, tmp_path, isolated_home, b'{"version": 1, "skills": {"good": 5}}')
    updated = run_cli(["update"], cwd=work)
    assert_no_crash(updated)
    assert updated.code == 0 and "IS403" in updated.codes
    assert_reported(run_cli(["remove", "good"], cwd=work), exit_codes=(1,), code="IS404")
    assert lock.read_bytes() == b'{"version": 1, "skills": {"good": 5}}'
    assert (lock.parent / "good" / "SKILL.md").exists()


def _skill_needing_a_server(root: Path) -> None:
    """``root/needs-server``: a skill whose agents/openai.yaml declares an MCP server."""
    skill = root / "needs-server"
    write_skill(skill, "needs-server")
    (skill / "agents").mkdir()
    (skill / "agents" / "openai.yaml").write_text(
        "dependencies:\n  tools:\n    - type: mcp\n      value: srv\n      transport: streamable_http\n"
        "      url: https://example.com/mcp\n",
        encoding="utf-8",
    )


@pytest.mark.parametrize(
    ("content", "code"),
    [(b"# keep\n[skills\n", "IS503"), (b"mcp_servers = 5\n", "IS502"), (b"\xff\xfe", "IS504")],
    ids=["syntax", "not-a-table", "not-utf8"],
)
def test_deps_write_never_touches_a_config_it_cannot_read(
    work: Path, tmp_path: Path, isolated_home: Any, content: bytes, code: str
) -> None:
    _skill_needing_a_server(tmp_path / "skills")
    path = codex_config(isolated_home)
    path.write_bytes(content)
    result = run_cli(["deps", "--write", "--no-builtin", "--root", str(tmp_path / "skills")], cwd=work)
    assert_reported(result, exit_codes=(1,), code=code)
    assert path.read_bytes() == content


def test_deps_write_hint_names_the_encoding_problem_not_permissions(
    work: Path, tmp_path: Path, isolated_home: Any
) -> None:
    _skill_needing_a_server(tmp_path / "skills")
    codex_config(isolated_home).write_bytes(b"# caf\xe9\n")
    result = run_cli(["deps", "--write", "--no-builtin", "--root", str(tmp_path / "skills")], cwd=work)
    assert_reported(result, exit_codes=(1,), code="IS504")
    assert "UTF-8" in result.err and "permissions" not in result.err


def test_update_and_remove_of_unknown_names(work: Path) -> None:
    for args in (["remove", "../../etc"], ["remove", ""], ["update", "nothing-here"]):
        assert_reported(run_cli(args, cwd=work), exit_codes=(1,), code="IS404")


# -- memory, redact, eval, serve, agent, lint-arch ---------------------------------------------------------


def test_memory_run_on_a_missing_sessions_path_fails(work: Path, tmp_path: Path) -> None:
    result = run_cli(
        [
            "memory",
            "run",
            "--dry-run",
            "--sessions",
            str(tmp_path / "missing.jsonl"),
            "--db",
            str(tmp_path / "state.sqlite"),
        ],
        cwd=work,
    )
    assert_reported(result, exit_codes=(2,))
    assert "missing.jsonl" in result.err


def test_memory_run_on_broken_jsonl_says_what_is_wrong(work: Path, tmp_path: Path) -> None:
    sessions = tmp_path / "broken.jsonl"
    sessions.write_bytes(b'{"a":1}\n{broken\n\xff\xfe\n[1,2]\n"str"\n\n')
    result = run_cli(
        ["memory", "run", "--dry-run", "--sessions", str(sessions), "--db", str(tmp_path / "s.sqlite")],
        cwd=work,
    )
    assert_no_crash(result)
    assert result.codes and "fix:" in result.text and str(sessions) in result.text
    assert (
        result.code == 0 and "ME104" in result.codes
    )  # a skipped file is a warning; the run itself completed


def test_memory_run_does_not_hang_on_a_fifo_in_a_sessions_folder(work: Path, tmp_path: Path) -> None:
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    os.mkfifo(sessions / "rollout-1.jsonl")
    code, _, err = run_process(
        ["memory", "run", "--dry-run", "--sessions", str(sessions), "--db", str(tmp_path / "s.sqlite")],
        cwd=work,
        timeout=6,
    )
    assert code is not None, "skillshelf memory run hung on the FIFO"
    assert code == 0 and b"ME105" in err and b"rollout-1.jsonl" in err and b"fix:" in err


def test_memory_commands_on_a_database_that_is_not_one(work: Path, tmp_path: Path) -> None:
    bogus = tmp_path / "bogus.db"
    bogus.write_bytes(os.urandom(4096))
    for args in (
        ["memory", "status"],
        ["memory", "run", "--dry-run", "--sessions", str(bogus)],
        ["memory", "prune"],
    ):
        assert_reported(run_cli([*args, "--db", str(bogus)], cwd=work), exit_codes=(1,), code="ME010")
    assert_reported(
        run_cli(["memory", "status", "--db", str(tmp_path)], cwd=work), exit_codes=(1,), code="ME010"
    )


def test_memory_dry_run_creates_no_folder_and_no_database(work: Path, tmp_path: Path) -> None:
    sessions = tmp_path / "broken.jsonl"
    sessions.write_bytes(b'{"a":1}\n')
    db = tmp_path / "missing" / "x.db"
    result = run_cli(["memory", "run", "--dry-run", "--sessions", str(sessions), "--db", str(db)], cwd=work)
    assert_no_crash(result)
    assert result.code == 0 and not db.parent.exists()


def test_memory_dry_run_leaves_an_existing_database_byte_for_byte(work: Path, tmp_path: Path) -> None:
    db = tmp_path / "s.sqlite"
    open_store(str(db)).close()  # makes the database (no memory command but `run` does)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.name.startswith("s.sqlite")}
    assert before  # the database is there to be left alone
    sessions = tmp_path / "rollout.jsonl"
    sessions.write_bytes(b'{"type":"session_meta","payload":{"id":"x","cwd":"/tmp"}}\n')
    result = run_cli(["memory", "run", "--dry-run", "--sessions", str(sessions), "--db", str(db)], cwd=work)
    assert_no_crash(result)
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.name.startswith("s.sqlite")} == before


@pytest.mark.parametrize("value", ["-3", "-0.5", '"many"', "true"])
def test_memory_rejects_a_negative_or_non_numeric_call_budget(work: Path, tmp_path: Path, value: str) -> None:
    result = run_cli(
        [
            "memory",
            "run",
            "--dry-run",
            "-c",
            f"memory.max_model_calls={value}",
            "--db",
            str(tmp_path / "s.sqlite"),
        ],
        cwd=work,
    )
    assert_reported(result, exit_codes=(1, 2))
    assert {"ME022", "ME027"} & set(result.codes), result.codes
    assert not (tmp_path / "s.sqlite").exists()


@pytest.mark.parametrize(
    "setting",
    [
        "lease_seconds=inf",
        "heartbeat_seconds=inf",
        "retry_delay_seconds=inf",
        "max_age_days=nan",
        "concurrency=nan",
    ],
)
def test_memory_rejects_an_infinite_or_nan_setting(work: Path, tmp_path: Path, setting: str) -> None:
    # TOML writes inf and nan bare; a time in milliseconds cannot be infinite
    result = run_cli(
        ["memory", "run", "--dry-run", "-c", f"memory.{setting}", "--db", str(tmp_path / "s.sqlite")],
        cwd=work,
    )
    assert_reported(result, exit_codes=(1, 2))
    assert {"ME022", "ME027"} & set(result.codes), result.codes


@pytest.mark.parametrize(
    "args",
    [
        ["memory", "prune", "--max-unused-days", "nan"],
        ["memory", "prune", "--max-unused-days", "inf"],
        ["memory", "run", "--dry-run", "--sessions", ".", "--min-idle-hours", "nan"],
        ["hook-server", "start", "--idle-minutes", "nan"],
    ],
)
def test_an_infinite_or_nan_number_on_the_command_line_is_a_usage_error(work: Path, args: list[str]) -> None:
    result = run_cli(args, cwd=work)
    assert_reported(result, exit_codes=(2,))
    assert "SS002" in result.codes and "finite number" in result.err, result.err


def test_memory_config_that_is_not_a_table(work: Path, tmp_path: Path) -> None:
    result = run_cli(
        ["memory", "run", "--dry-run", "-c", "memory=5", "--db", str(tmp_path / "s.sqlite")], cwd=work
    )
    assert_reported(result, exit_codes=(1, 2))


def test_redact_survives_binary_stdin(work: Path) -> None:
    data = bytes(range(256)) * 64 + b" key AKIAQWERTYUIOPASDFGH end"
    code, out, err = run_process(["redact"], cwd=work, stdin=data)
    assert code == 0 and b"Traceback" not in err and b"internal error" not in err
    assert b"AKIAQWERTYUIOPASDFGH" not in out and out.endswith(b" end")


def test_redact_passes_non_utf8_bytes_through_unchanged(work: Path) -> None:
    data = b"caf\xe9 \x00\x01\xff binary tail\n"
    code, out, _ = run_process(["redact"], cwd=work, stdin=data)
    assert code == 0 and out == data


@pytest.mark.parametrize(
    ("lines", "code"),
    [
        (b'{"query": "x", "relevant": ["skills/good"]}\nnot json\n', "SE302"),
        (b"\xff\xfe\x00\x01", "SE302"),
        (b"", "SE304"),
    ],
    ids=["bad-line", "binary", "empty"],
)
def test_eval_rejects_malformed_query_files(work: Path, tmp_path: Path, lines: bytes, code: str) -> None:
    write_skill(tmp_path / "skills" / "good", "good")
    (tmp_path / "q.jsonl").write_bytes(lines)
    result = run_cli(
        ["eval", "--queries", str(tmp_path / "q.jsonl"), "--root", str(tmp_path / "skills")], cwd=work
    )
    assert_reported(result, exit_codes=(1, 2), code=code)


def test_eval_with_a_missing_query_file(work: Path, tmp_path: Path) -> None:
    write_skill(tmp_path / "skills" / "good", "good")
    result = run_cli(
        ["eval", "--queries", str(tmp_path / "missing.jsonl"), "--root", str(tmp_path / "skills")], cwd=work
    )
    assert_reported(result, exit_codes=(1, 2), code="SE301")


@pytest.mark.parametrize(
    "args",
    [
        ["serve", "--port", "abc"],
        ["serve", "--port", "99999"],
        ["serve", "--port", "-1"],
        ["serve", "--transport", "x"],
        ["catalog", "--budget-tokens", "0"],
        ["list", "--bogus"],
        ["no-such-command"],
        ["validate", "--profile", "nope"],
        ["load"],
    ],
)
def test_click_usage_errors_carry_a_code_and_a_fix(work: Path, args: list[str]) -> None:
    result = run_cli(args, cwd=work)
    assert_reported(result, exit_codes=(2,), code="SS002")
    assert "--help" in result.err


def test_serve_with_a_missing_root_is_a_usage_error(work: Path, tmp_path: Path) -> None:
    code, _, err = run_process(
        ["serve", "--root", str(tmp_path / "missing"), "--no-builtin", "--no-watch"], cwd=work, timeout=30
    )
    assert code == 2 and b"SK202" in err and b"fix:" in err and b"Traceback" not in err


def test_serve_on_an_address_that_is_not_there(work: Path) -> None:
    code, _, err = run_process(
        ["serve", "--transport", "http", "--host", "256.1.1.1", "--port", "1", "--no-watch", "--no-builtin"],
        cwd=work,
        timeout=60,
    )
    assert code == 2 and b"SV410" in err and b"fix:" in err and b"Traceback" not in err


@pytest.mark.parametrize("model", ["bogus", "openai:", ":", "nope:thing"])
def test_run_with_a_malformed_model(work: Path, model: str) -> None:
    result = run_cli(["run", "task", "--model", model, "--base-url", "http://127.0.0.1:9"], cwd=work)
    assert_reported(result, exit_codes=(2,), code="AG001")


def test_run_without_a_model(work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SKILLSHELF_MODEL", raising=False)
    assert_reported(run_cli(["run", "task"], cwd=work), exit_codes=(2,), code="AG004")


def test_lint_arch_on_missing_and_binary_inputs(work: Path, tmp_path: Path) -> None:
    assert_reported(run_cli(["lint-arch", str(tmp_path / "missing")], cwd=work), exit_codes=(1, 2))
    (tmp_path / "bin.toml").write_bytes(b"\xff\xfe\x00")
    result = run_cli(["lint-arch", "--config", str(tmp_path / "bin.toml")], cwd=work)
    assert_reported(result, exit_codes=(1, 2), code="AR010")
