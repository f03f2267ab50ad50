"""`skillshelf memory ...` and `skillshelf redact` as users run them."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest
from memory_helpers import ScriptedModel, run_cli, write_claude_transcript, write_skillshelf_transcript

from skillshelf.env import Env
from skillshelf.memory.store import SessionRow, open_store

_run = run_cli


def test_run_status_show_search_forget_prune_reset(
    project: Path, isolated_home: Any, scripted_model: ScriptedModel, capsys: pytest.CaptureFixture[str]
) -> None:
    sessions = isolated_home.home / "t"
    for i in range(2):
        write_skillshelf_transcript(
            sessions / f"{i}.jsonl",
            session_id=f"cli-{i}",
            cwd=project,
            task=f"task {i}: tests use make check",
            mtime=time.time() - 3600,
        )
    code, out, err = _run(
        capsys,
        "memory",
        "run",
        "--sessions",
        str(sessions),
        "--model",
        "openai:small",
        "--base-url",
        scripted_model.url + "/v1",
        "--min-idle-hours",
        "0.5",
        "--json",
    )
    assert code == 0, err
    report = json.loads(out)
    assert report["claimed"] == 2 and report["phase1"] == {"extracted": 2}
    assert report["phase2"][0]["status"] == "consolidated" and report["model_calls"] == 3

    code, out, _ = _run(capsys, "memory", "status", "--json")
    status = json.loads(out)
    assert code == 0 and status["scopes"][0]["outputs"] == 2
    assert status["recent_runs"][0]["report"]["model_calls"] == 3  # the run's report as an object

    code, out, _ = _run(capsys, "memory", "status")
    assert code == 0 and "memories" in out and "none yet" not in out

    code, out, _ = _run(capsys, "memory", "show")
    assert code == 0 and "tests run with make check" in out
    code, out, _ = _run(capsys, "memory", "show", "cli-0", "--json")
    assert code == 0 and json.loads(out)["session_id"] == "cli-0"

    code, out, _ = _run(capsys, "memory", "search", "make check", "--json")
    assert code == 0 and json.loads(out)

    code, out, _ = _run(capsys, "memory", "forget", "cli-1", "--json")
    assert code == 0 and json.loads(out)["forgotten"] == "cli-1"
    code, _, err = _run(capsys, "memory", "forget", "nobody")
    assert code == 1 and "ME404" in err

    code, out, _ = _run(capsys, "memory", "prune", "--json")
    assert code == 0 and json.loads(out) == {"pruned": 0}

    code, out, _ = _run(capsys, "memory", "reset", "--yes", "--json")
    assert code == 0 and json.loads(out)["rows"] == 2
    code, _, err = _run(capsys, "memory", "show")
    assert code == 1 and "ME405" in err


def test_dry_run_prints_the_prompt_and_calls_nothing(
    project: Path, isolated_home: Any, scripted_model: ScriptedModel, capsys: pytest.CaptureFixture[str]
) -> None:
    sessions = isolated_home.home / "t"
    write_skillshelf_transcript(
        sessions / "a.jsonl",
        session_id="dry",
        cwd=project,
        task="remember pnpm",
        mtime=time.time() - 7 * 3600,
    )
    code, out, err = _run(
        capsys,
        "memory",
        "run",
        "--sessions",
        str(sessions),
        "--dry-run",
        "--base-url",
        scripted_model.url + "/v1",
    )
    assert code == 0, err
    assert "remember pnpm" in out and "nothing was claimed or called" in out
    assert scripted_model.requests == []


def test_bad_options_give_codes_not_tracebacks(
    project: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, _, err = _run(capsys, "memory", "run", "--model", "mistral:large", "--phase", "1")
    assert code == 2 and "ME020" in err and "Traceback" not in err
    code, _, err = _run(capsys, "memory", "run", "--sessions", str(tmp_path / "missing"))
    assert code == 2 and "does not exist" in err
    code, _, err = _run(capsys, "memory", "status", "--db", "mysql://x@y/z")
    assert code == 2 and "ME015" in err
    code, _, err = _run(capsys, "memory", "status", "--db", "postgresql://nobody@127.0.0.1:1/none")
    assert code == 1 and "ME010" in err
    garbage = tmp_path / "garbage.sqlite"
    garbage.write_bytes(b"this is not a database" * 100)
    code, _, err = _run(capsys, "memory", "status", "--db", str(garbage))
    assert code == 1 and err.count("ME01") == 1 and "Traceback" not in err
    assert "move it away" in err  # damaged, not a permissions problem
    assert garbage.read_bytes().startswith(b"this is not a database")  # never overwritten
    blocker = tmp_path / "file"
    blocker.write_text("x", encoding="utf-8")
    code, _, err = _run(capsys, "memory", "recover", "--db", str(blocker / "state.sqlite"))
    assert code == 1 and "ME010" in err and "writable" in err and "move it away" not in err


@pytest.mark.parametrize(
    "argv", [["status"], ["show", "some-session"], ["search", "make check"]], ids=lambda a: a[0]
)
def test_a_read_only_command_names_a_missing_database_and_makes_nothing(
    project: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path, argv: list[str]
) -> None:
    typo = tmp_path / "typo" / "path.sqlite"
    code, out, err = _run(capsys, "memory", *argv, "--db", str(typo))
    assert code == 1 and f"error ME043: memory database {typo} does not exist" in err, err
    assert "fix: check the --db path" in err and "sessions:" not in out
    assert not typo.parent.exists()


def test_read_only_commands_make_no_default_database(
    project: Path, isolated_home: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    for argv in (["status"], ["search", "make check"], ["show", "some-session"]):
        _run(capsys, "memory", *argv)
    assert not (Env.from_os().dirs.data / "memory").exists()


@pytest.mark.parametrize("dry_run", [False, True])
def test_a_fifo_or_folder_in_place_of_the_database_is_me010_not_a_hang(
    project: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path, dry_run: bool
) -> None:
    fifo, folder = tmp_path / "fifo.sqlite", tmp_path / "folder.sqlite"
    os.mkfifo(fifo)  # SQLite opening it for reading would wait for a writer forever
    folder.mkdir()
    for db in (fifo, folder):
        args = ["memory", "run", "--dry-run"] if dry_run else ["memory", "status"]
        code, _, err = _run(capsys, *args, "--db", str(db))
        assert code == 1 and "ME010" in err and "not a regular file" in err, err
        assert "move it away" in err


def test_a_failed_job_is_printed_with_its_own_fix(
    project: Path, isolated_home: Any, scripted_model: ScriptedModel, capsys: pytest.CaptureFixture[str]
) -> None:
    sessions = isolated_home.home / "t"
    write_skillshelf_transcript(
        sessions / "0.jsonl", session_id="bad-0", cwd=project, task="a task", mtime=time.time() - 3600
    )
    scripted_model.reply = lambda body, n: json.dumps({"unexpected": True})
    model = ["--model", "openai:small", "--base-url", scripted_model.url + "/v1"]
    code, _, err = _run(capsys, "memory", "run", "--sessions", str(sessions), "--min-idle-hours", "0", *model)
    assert code == 1 and "failed bad-0: ME034" in err
    assert "(fix: use a model that follows the JSON schema)" in err and "API key" not in err


def test_status_of_a_fresh_store_says_there_are_no_memories_yet(
    project: Path, isolated_home: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _run(capsys, "memory", "status")
    assert code == 0 and "sessions: none" in out
    assert "memories: none yet" in out and "memory run" in out and "┏" not in out


def test_a_run_that_finds_no_transcripts_says_where_it_looked(
    project: Path, isolated_home: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _run(capsys, "memory", "run", "--dry-run")
    env = Env.from_os()
    assert code == 0 and "no transcripts found" in err
    assert str(env.codex_home / "sessions") in err and str(env.home / ".claude" / "projects") in err
    code, out, err = _run(capsys, "memory", "run", "--dry-run", "--json")
    assert str(env.home / ".claude" / "projects") in json.loads(out)["searched"]
    code, out, err = _run(capsys, "memory", "run", "--dry-run", "--queued")
    assert code == 0 and "hooks queued none" in err


def test_memory_settings_come_from_the_config_file(
    project: Path, isolated_home: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    config = Env.from_os().dirs.config / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        '[memory]\nextract_model = "anthropic:claude-haiku-x"\nmin_idle_hours = 0\n', encoding="utf-8"
    )
    sessions = isolated_home.home / "t"
    write_skillshelf_transcript(sessions / "a.jsonl", session_id="cfg", cwd=project, task="remember pnpm")
    code, out, err = _run(capsys, "memory", "run", "--sessions", str(sessions), "--dry-run", "--json")
    assert code == 0, err
    assert [d["model"] for d in json.loads(out)["dry_run"]] == ["anthropic:claude-haiku-x"]
    config.write_text("[memory]\nmax_rollouts = 3\n", encoding="utf-8")
    code, _, err = _run(capsys, "memory", "run", "--dry-run")
    assert code == 2 and "ME021" in err


@pytest.mark.parametrize("key", [None, "", "  "])
def test_a_run_without_an_api_key_stops_before_claiming_anything(
    project: Path,
    isolated_home: Any,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    key: str | None,
) -> None:
    for variable in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(variable, raising=False)
    if key is not None:  # set but blank: no key either
        monkeypatch.setenv("OPENAI_API_KEY", key)
    sessions = isolated_home.home / "t"
    write_skillshelf_transcript(
        sessions / "a.jsonl", session_id="nokey", cwd=project, task="remember uv", mtime=time.time() - 3600
    )
    args = ("memory", "run", "--sessions", str(sessions), "--min-idle-hours", "0", "--model", "openai:small")
    code, _, err = _run(capsys, *args)
    assert code == 2 and "ME028" in err and "OPENAI_API_KEY is not set" in err
    code, out, _ = _run(capsys, "memory", "status", "--json")
    assert code == 0 and not json.loads(out)["recent_runs"]
    code, out, err = _run(capsys, *args, "--dry-run")
    assert code == 0 and "remember uv" in out, err


def test_a_run_with_nothing_to_do_needs_no_api_key(
    project: Path, isolated_home: Any, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for variable in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(variable, raising=False)
    code, _, err = _run(capsys, "memory", "run")
    assert code == 0 and "ME028" not in err and "no transcripts found" in err
    sessions = isolated_home.home / "t"
    write_skillshelf_transcript(sessions / "a.jsonl", session_id="busy", cwd=project, task="remember uv")
    code, out, err = _run(capsys, "memory", "run", "--sessions", str(sessions), "--json")
    assert code == 0 and "ME028" not in err, err  # still active: nothing is due yet
    assert json.loads(out)["claimed"] == 0
    code, _, err = _run(capsys, "memory", "run", "--sessions", str(sessions), "--min-idle-hours", "0")
    assert code == 2 and "ME028" in err


def test_a_transcripts_terminal_escapes_are_shown_not_sent_by_dry_run_and_show(
    project: Path, isolated_home: Any, scripted_model: ScriptedModel, capsys: pytest.CaptureFixture[str]
) -> None:
    hostile = "evil\x1b]0;PWNED\x07\x1b[2J"
    path = write_claude_transcript(
        isolated_home.home / "t" / "s.jsonl", session_id=hostile, cwd=project, turns=["remember pnpm"]
    )
    os.utime(path, (time.time() - 7 * 3600,) * 2)
    code, out, err = _run(
        capsys,
        "memory",
        "run",
        "--sessions",
        str(path),
        "--dry-run",
        "--base-url",
        scripted_model.url + "/v1",
    )
    assert code == 0, err
    assert "\x1b" not in out and "\x07" not in out and "evil\\x1b]0;PWNED\\x07" in out
    with open_store(None, data_dir=Env.from_os().dirs.data) as store:
        store.register_sessions(
            [
                SessionRow(
                    id=hostile, source="claude", path=str(path), cwd="/p", project="/p", updated_at_ms=1
                )
            ],
            1,
        )
        store.execute_for_tests(
            "INSERT INTO stage1_outputs (session_id, scope, source_updated_at_ms, raw_memory, "
            "rollout_summary, generated_at_ms) VALUES (?, ?, 1, 'm', 's', 1)",
            (hostile, f"project:/p/{hostile}"),
        )
    code, out, err = _run(capsys, "memory", "show", hostile)
    assert code == 0, err
    assert "\x1b" not in out and "\x07" not in out and out.startswith("# evil\\x1b]0;PWNED")


def test_prune_keeps_memories_for_the_configured_number_of_days(
    isolated_home: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    from skillshelf.memory.store.records import ClaimLimits

    day_ms = 86_400_000
    now_ms = int(time.time() * 1000)
    with open_store(None, data_dir=Env.from_os().dirs.data) as store:
        store.register_sessions(
            [
                SessionRow(
                    id="old",
                    source="codex",
                    path="/t/old.jsonl",
                    cwd="/w",
                    project="/w",
                    updated_at_ms=now_ms - 45 * day_ms,
                    first_user_message="task",
                )
            ],
            now_ms=now_ms,
        )
        limits = ClaimLimits(min_idle_ms=0, max_age_ms=10_000 * day_ms, running_cap=10)
        (claim,) = store.claim_stage1(worker_id="w", now_ms=now_ms, lease_ms=60_000, limits=limits, limit=1)
        store.mark_stage1_succeeded(
            claim, scope="/w", raw_memory="raw", rollout_summary="sum", rollout_slug="s", now_ms=now_ms
        )
        consolidation = store.claim_phase2("/w", worker_id="w", now_ms=now_ms, lease_ms=60_000)
        assert consolidation.token and consolidation.watermark is not None
        store.mark_phase2_succeeded(
            "/w", consolidation.token, completed_watermark=consolidation.watermark, selected=[], now_ms=now_ms
        )
    isolated_home.write_user_config("[memory]\nmax_unused_days = 60\n")
    code, out, _ = _run(capsys, "memory", "prune", "--json")
    assert code == 0 and json.loads(out) == {"pruned": 0}  # 45 days unused, 60 allowed
    code, out, _ = _run(capsys, "memory", "prune", "--max-unused-days", "30", "--json")
    assert code == 0 and json.loads(out) == {"pruned": 1}


@pytest.mark.parametrize(
    ("retry_base_ms", "failures", "said"),
    [(3_600_000, 1, "waiting out the backoff"), (0, 3, "no retries left"), (0, 1, None)],
)
def test_a_phase_2_run_prints_no_phase_1_line_and_says_a_consolidation_held_back(
    project: Path,
    isolated_home: Any,
    scripted_model: ScriptedModel,
    capsys: pytest.CaptureFixture[str],
    retry_base_ms: int,
    failures: int,
    said: str | None,
) -> None:
    from skillshelf.memory.store import CONSOLIDATE

    with open_store(None, data_dir=Env.from_os().dirs.data) as store:
        store.enqueue("/w", 5)
        for _ in range(failures):
            now = int(time.time() * 1000) - 1000  # with no delay, the retry time has passed
            claim = store.claim_phase2("/w", worker_id="w", now_ms=now, lease_ms=60_000)
            assert claim.token is not None
            store.mark_failed(
                CONSOLIDATE, "/w", claim.token, reason="boom", now_ms=now, retry_base_ms=retry_base_ms
            )
    model = ["--model", "openai:small", "--base-url", scripted_model.url + "/v1"]
    code, out, err = _run(capsys, "memory", "run", "--phase", "2", *model)
    assert code == 0 and "phase 1:" not in out and "phase 2: /w: " in out, (out, err)
    assert ("not run" not in out) if said is None else (f"phase 2: /w: not run: {said}" in out)
