"""The whole pipeline: real Codex and Claude Code transcripts -> Phase 1 -> Phase 2 -> a memory
folder whose summary `skillshelf context` shows; model calls go to real loopback servers."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from memory_helpers import ScriptedModel, default_reply, write_skillshelf_transcript

from skillshelf.env import Env
from skillshelf.memory.inspect import memory_status
from skillshelf.memory.layout import project_scope, scope_dir
from skillshelf.memory.read import memory_skill_roots, memory_summary_for, search_memory
from skillshelf.memory.service import RunOptions, run_memory
from skillshelf.memory.settings import MemorySettings
from skillshelf.memory.store import open_store
from testkit import git_worktrees

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts"
FAKE_TOKEN_PREFIX = "ghp_R8x2Lq9"


def _install_fixtures(home: Path, codex_home: Path) -> list[Path]:
    """Copy the real transcripts where Codex and Claude Code keep them (mtimes kept)."""
    placed = []
    for src in sorted((FIXTURES / "codex").glob("*.jsonl")):
        target = codex_home / "sessions" / "2026" / "11" / "29" / src.name
        target.parent.mkdir(parents=True, exist_ok=True)
        placed.append(Path(shutil.copy2(src, target)))
    for src in sorted((FIXTURES / "claude").glob("*.jsonl")):
        target = home / ".claude" / "projects" / "-tmp-project" / src.name
        target.parent.mkdir(parents=True, exist_ok=True)
        placed.append(Path(shutil.copy2(src, target)))
    old = time.time() - 7 * 3600
    for path in placed:
        import os

        os.utime(path, (old, old))
    return placed


def _settings(url: str, provider: str = "openai", **kw: Any) -> MemorySettings:
    return MemorySettings().with_overrides(
        extract_model=f"{provider}:small", consolidation_model=f"{provider}:big", base_url=url, **kw
    )


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_real_transcripts_become_a_memory_summary_in_context(
    isolated_home: Any, model_standin: Any, provider: str
) -> None:
    placed = _install_fixtures(isolated_home.home, isolated_home.codex_home)
    stage1 = {
        "text": json.dumps(
            {
                "raw_memory": "- tests run with make check",
                "rollout_summary": "Runs tests",
                "rollout_slug": "tests",
            }
        )
    }
    files = {
        "MEMORY.md": "# Task Group: tests\n- make check\n",
        "memory_summary.md": "## User preferences\n- Remember: make check runs the tests.\n",
    }
    standin = model_standin([stage1] * len(placed) + [{"text": json.dumps({"files": files, "delete": []})}])
    env = Env.for_test(cwd=isolated_home.home, home=isolated_home.home, codex_home=isolated_home.codex_home)
    settings = _settings(
        standin.url + ("/v1" if provider == "openai" else ""), provider, scope="global", concurrency=1
    )

    report = run_memory(env, settings, RunOptions())

    assert report.claimed == len(placed) == 4
    assert report.outcomes == {"extracted": 4}
    assert [c.status for c in report.consolidation] == ["consolidated"]
    requests = standin.requests()
    assert len(requests) == 5
    assert all(
        r["path"].endswith("/messages" if provider == "anthropic" else "/chat/completions") for r in requests
    )
    sent = json.dumps(requests)
    assert "Deploy preview with token" in sent  # the real task text reached the model...
    assert FAKE_TOKEN_PREFIX not in sent  # ...but its GitHub token did not
    assert "skills_instructions" not in sent  # developer messages are left out
    summary = memory_summary_for(env, setting=settings.scope)  # "global": written and read
    assert summary is not None and "make check runs the tests" in summary.text
    folder = summary.folder
    assert len(list((folder / "rollout_summaries").glob("*.md"))) == 4
    assert (folder / "raw_memories.md").read_text(encoding="utf-8").count("## Thread `") == 4
    with open_store(None, data_dir=Env.from_os().dirs.data) as store:
        assert FAKE_TOKEN_PREFIX not in json.dumps([r.to_dict() for r in store.outputs()])
    for path in isolated_home.data.rglob("*"):  # the database (and its WAL) and the memory folder
        assert not path.is_file() or FAKE_TOKEN_PREFIX.encode() not in path.read_bytes(), path


def test_context_command_shows_the_memory_summary(
    isolated_home: Any, scripted_model: ScriptedModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = isolated_home.home / "work" / "shop"
    (project / ".git").mkdir(parents=True)
    state = isolated_home.state / "skillshelf" / "transcripts"
    write_skillshelf_transcript(
        state / "a.jsonl",
        session_id="11111111-1111-4111-8111-111111111111",
        cwd=project,
        task="Run the tests; we always use make check here.",
        mtime=time.time() - 7 * 3600,
    )
    env = Env.for_test(cwd=project, home=isolated_home.home, codex_home=isolated_home.codex_home)
    report = run_memory(env, _settings(scripted_model.url + "/v1"), RunOptions())
    assert report.outcomes == {"extracted": 1} and report.consolidation[0].status == "consolidated"
    assert (
        memory_skill_roots(env, setting="project")
        and (memory_skill_roots(env, setting="project")[0] / "run-tests" / "SKILL.md").is_file()
    )

    from skillshelf.cli.main import cli

    monkeypatch.chdir(project)
    result = CliRunner().invoke(
        cli, ["context", "run tests", "--json", "--no-suggestions"], catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    assert "tests run with make check" in result.output

    other = Env.for_test(cwd=isolated_home.home, home=isolated_home.home, codex_home=isolated_home.codex_home)
    assert (
        memory_summary_for(other, setting="project") is None
    )  # scoped to the project: nothing leaks elsewhere

    hits = search_memory(env, "make check", setting="project")
    assert hits and hits[0].path.name in ("MEMORY.md", "memory_summary.md") or hits[0].session_id
    with open_store(None, data_dir=Env.from_os().dirs.data) as store:
        assert store.outputs()[0].usage_count >= 1


def _project_sessions(box: Any) -> tuple[Path, Path, Env]:
    """A project, a folder for its session transcripts, and the Env that works in it."""
    project = box.home / "proj"
    project.mkdir()
    env = Env.for_test(cwd=project, home=box.home, codex_home=box.codex_home)
    return project, box.state / "t", env


def _session(folder: Path, project: Path, i: int, task: str) -> None:
    write_skillshelf_transcript(
        folder / f"{i}.jsonl", session_id=f"s{i}", cwd=project, task=task, mtime=time.time() - 8 * 3600
    )


def test_second_run_does_nothing_and_forget_removes_the_memory(
    isolated_home: Any, scripted_model: ScriptedModel
) -> None:
    project, folder, env = _project_sessions(isolated_home)
    for i in range(3):
        _session(folder, project, i, f"task {i}: prefer make check")
    settings = _settings(scripted_model.url + "/v1")
    first = run_memory(env, settings, RunOptions(sessions=(folder,)))
    assert first.outcomes == {"extracted": 3} and first.model_calls == 4
    second = run_memory(env, settings, RunOptions(sessions=(folder,)))
    assert second.claimed == 0 and second.consolidation == [] and second.model_calls == 0

    from skillshelf.memory.read import record_citations

    reply = (
        "done.\n<oai-mem-citation>\n<citation_entries>\nMEMORY.md:1-2|note=[tests]\n</citation_entries>\n"
        "<rollout_ids>\ns2\ns2\nunknown\n</rollout_ids>\n</oai-mem-citation>"
    )
    assert record_citations(reply, data_dir=Env.from_os().dirs.data, setting="project") == ["s2", "unknown"]
    with open_store(None, data_dir=Env.from_os().dirs.data) as store:
        assert {r.session_id: r.usage_count for r in store.outputs()} == {"s0": 0, "s1": 0, "s2": 1}
        assert store.forget("s1", now_ms=int(time.time() * 1000))
    third = run_memory(env, settings, RunOptions(sessions=(folder,)))
    assert third.claimed == 0
    assert [(c.status, c.selected, c.removed) for c in third.consolidation] == [("consolidated", 2, 1)]
    summaries = list((third.consolidation[0].folder / "rollout_summaries").glob("*.md"))
    assert len(summaries) == 2
    assert "s1" not in (third.consolidation[0].folder / "raw_memories.md").read_text(encoding="utf-8")


def test_budget_dry_run_and_no_signal_gate(isolated_home: Any, scripted_model: ScriptedModel) -> None:
    project = isolated_home.home / "p"
    project.mkdir()
    folder = isolated_home.state / "t"
    for i in range(4):
        write_skillshelf_transcript(
            folder / f"{i}.jsonl",
            session_id=f"b{i}",
            cwd=project,
            task=f"what is {i} + {i}? my key is sk-proj-{'Zq8' * 10}",
            mtime=time.time() - 9 * 3600,
        )
    env = Env.for_test(cwd=project, home=isolated_home.home, codex_home=isolated_home.codex_home)
    dry = run_memory(env, _settings(scripted_model.url + "/v1"), RunOptions(sessions=(folder,), dry_run=True))
    assert (
        len(dry.dry_run) == 4 and scripted_model.requests == [] and {d["phase"] for d in dry.dry_run} == {1}
    )
    assert all(
        "sk-proj-" not in str(d["prompt"]) and "[REDACTED_SECRET]" in str(d["prompt"]) for d in dry.dry_run
    )

    scripted_model.reply = lambda body, n: json.dumps(
        {"raw_memory": "", "rollout_summary": "", "rollout_slug": ""}
    )
    report = run_memory(
        env, _settings(scripted_model.url + "/v1", max_model_calls=2), RunOptions(sessions=(folder,))
    )
    assert report.claimed == 2 and report.outcomes == {"no_output": 2} and report.model_calls == 2
    assert report.consolidation == []  # nothing kept, nothing to consolidate
    rest = run_memory(env, _settings(scripted_model.url + "/v1"), RunOptions(sessions=(folder,)))
    assert rest.claimed == 2 and len(scripted_model.requests) == 4

    scripted_model.reply = default_reply
    with open_store(None, data_dir=Env.from_os().dirs.data) as store:
        store.enqueue(rest.consolidation[0].scope if rest.consolidation else "project:" + str(project), 1)
    preview = run_memory(
        env, _settings(scripted_model.url + "/v1"), RunOptions(sessions=(folder,), dry_run=True)
    )
    assert [d["phase"] for d in preview.dry_run] == [2] and "selected inputs this run: 0" in str(
        preview.dry_run[0]
    )
    assert len(scripted_model.requests) == 4


def test_bad_model_reply_fails_the_job_with_backoff(
    isolated_home: Any, scripted_model: ScriptedModel
) -> None:
    project = isolated_home.home / "p"
    project.mkdir()
    folder = isolated_home.state / "t"
    write_skillshelf_transcript(
        folder / "x.jsonl", session_id="x1", cwd=project, task="hello there", mtime=time.time() - 9 * 3600
    )
    scripted_model.reply = lambda body, n: "I cannot produce JSON today"
    env = Env.for_test(cwd=project, home=isolated_home.home, codex_home=isolated_home.codex_home)
    report = run_memory(env, _settings(scripted_model.url + "/v1"), RunOptions(sessions=(folder,)))
    assert report.outcomes == {"failed": 1} and report.failed
    assert report.errors and "ME033" in report.errors[0]
    with open_store(None, data_dir=Env.from_os().dirs.data) as store:
        job = store.job("memory_stage1", "x1")
    assert job is not None and job["status"] == "error" and job["retry_remaining"] == 2
    assert str(job["last_error"]).startswith("ME033")
    again = run_memory(env, _settings(scripted_model.url + "/v1"), RunOptions(sessions=(folder,)))
    assert again.claimed == 0  # in backoff


def _one_session(box: Any, session_id: str) -> tuple[Path, Path, Env]:
    """A project, a folder with one old session in it ("use make check"), and an Env there."""
    project = box.home / "p"
    project.mkdir()
    folder = box.state / "t"
    write_skillshelf_transcript(
        folder / "x.jsonl",
        session_id=session_id,
        cwd=project,
        task="use make check",
        mtime=time.time() - 9 * 3600,
    )
    return project, folder, Env.for_test(cwd=project, home=box.home, codex_home=box.codex_home)


def test_a_memory_folder_that_is_a_file_fails_phase2_into_backoff(
    isolated_home: Any, scripted_model: ScriptedModel
) -> None:
    project, folder, env = _one_session(isolated_home, "f1")
    first = run_memory(env, _settings(scripted_model.url + "/v1"), RunOptions(sessions=(folder,), phase="1"))
    assert first.outcomes == {"extracted": 1}
    target = scope_dir(Env.from_os().dirs.data, project_scope(project))
    target.parent.mkdir(parents=True)
    target.write_text("not a folder", encoding="utf-8")
    report = run_memory(env, _settings(scripted_model.url + "/v1"), RunOptions(sessions=(folder,), phase="2"))
    assert [c.status for c in report.consolidation] == ["failed"] and report.failed
    assert target.read_text(encoding="utf-8") == "not a folder"
    again = run_memory(env, _settings(scripted_model.url + "/v1"), RunOptions(sessions=(folder,), phase="2"))
    assert [c.status for c in again.consolidation] == ["backoff"]  # said, not retried at once
    assert scripted_model.count("You maintain a folder of memories") == 0


def test_a_memory_md_too_long_for_the_prompt_is_not_rewritten_by_a_direct_consolidation(
    isolated_home: Any, scripted_model: ScriptedModel
) -> None:
    project, folder, env = _one_session(isolated_home, "m1")
    settings = _settings(scripted_model.url + "/v1", consolidator="direct", context_window=2000)
    assert run_memory(env, settings, RunOptions(sessions=(folder,), phase="1")).outcomes == {"extracted": 1}
    memory_dir = scope_dir(Env.from_os().dirs.data, project_scope(project))
    memory_dir.mkdir(parents=True)
    filler = "".join(f"- note {i}: the deploy script reads DEPLOY_ENV\n" for i in range(60))
    handbook = f"# Task Group: deploy\n{filler}- only here: staging runs on port 8443\n{filler}"
    (memory_dir / "MEMORY.md").write_text(handbook, encoding="utf-8")

    report = run_memory(env, settings, RunOptions(sessions=(folder,), phase="2"))

    [outcome] = report.consolidation
    assert outcome.status == "consolidated" and outcome.consolidator == "direct"
    assert (memory_dir / "MEMORY.md").read_text(encoding="utf-8") == handbook
    assert "tests run with make check" in (memory_dir / "memory_summary.md").read_text(encoding="utf-8")
    assert outcome.kept and "MEMORY.md kept as it was" in outcome.kept[0]
    assert outcome.to_dict()["kept"] == list(outcome.kept)
    sent = json.dumps(scripted_model.requests[-1])
    assert "too long to show whole" in sent and "only here: staging" not in sent


def test_a_memory_file_edited_during_the_model_call_is_not_overwritten(
    isolated_home: Any, scripted_model: ScriptedModel
) -> None:
    project, folder, env = _project_sessions(isolated_home)
    settings = _settings(scripted_model.url + "/v1")
    _session(folder, project, 0, "task 0")
    memory = run_memory(env, settings, RunOptions(sessions=(folder,))).consolidation[0].folder / "MEMORY.md"
    mended = memory.read_text(encoding="utf-8") + "- the staging host is db-2, not db-1 (mended by hand)\n"

    def edit_while_consolidating(body: dict[str, Any], n: int) -> str:
        if "You maintain a folder of memories" in json.dumps(body):
            memory.write_text(mended, encoding="utf-8")  # the person saves while the model works
        return default_reply(body, n)

    scripted_model.reply = edit_while_consolidating
    _session(folder, project, 1, "task 1")
    second = run_memory(env, settings, RunOptions(sessions=(folder,))).consolidation[0]
    assert (
        second.status == "edited_meanwhile" and "MEMORY.md changed while the model worked" in second.kept[0]
    )
    assert memory.read_text(encoding="utf-8") == mended

    scripted_model.reply = default_reply
    third = run_memory(env, settings, RunOptions(sessions=(folder,))).consolidation[0]
    assert (third.status, third.selected, third.added) == ("consolidated", 2, 1)
    assert scripted_model.count("mended by hand") >= 1  # the next prompt was built from the edit


def test_sessions_in_git_worktrees_share_their_projects_memories(
    isolated_home: Any, scripted_model: ScriptedModel
) -> None:
    """Agents make a worktree for each task: what a session in one taught is in the memory
    summary of the main checkout and of every other worktree, and a reset from a worktree
    clears the project's."""
    main, folder = isolated_home.home / "proj", isolated_home.state / "t"
    worktrees = [isolated_home.home / "wt1", main / ".claude" / "worktrees" / "wt2"]
    git_worktrees(main, *worktrees)
    for i, worktree in enumerate(worktrees):
        _session(folder, worktree, i, f"task {i}: prefer make check")
    env = Env.for_test(cwd=worktrees[0], home=isolated_home.home, codex_home=isolated_home.codex_home)

    report = run_memory(env, _settings(scripted_model.url + "/v1"), RunOptions(sessions=(folder,)))

    assert report.outcomes == {"extracted": 2}
    assert [c.folder for c in report.consolidation] == [
        scope_dir(env.dirs.data, project_scope(main.resolve()))
    ]
    for cwd in (main, *worktrees):
        here = Env.for_test(cwd=cwd, home=isolated_home.home, codex_home=isolated_home.codex_home)
        summary = memory_summary_for(here, setting="project")
        assert summary is not None and summary.path.parent == report.consolidation[0].folder

    from skillshelf.memory.control import reset_memories

    reset_memories(
        Env.for_test(cwd=worktrees[1], home=isolated_home.home, codex_home=isolated_home.codex_home)
    )
    assert (
        memory_summary_for(
            Env.for_test(cwd=main, home=isolated_home.home, codex_home=isolated_home.codex_home),
            setting="project",
        )
        is None
    )


def test_a_transcript_deleted_after_it_was_found_is_closed_without_a_failure_or_a_model_call(
    isolated_home: Any, scripted_model: ScriptedModel
) -> None:
    project = isolated_home.home / "proj"
    project.mkdir()
    env = Env.for_test(cwd=project, home=isolated_home.home, codex_home=isolated_home.codex_home)
    path = write_skillshelf_transcript(
        env.dirs.state / "transcripts" / "gone.jsonl", session_id="gone", cwd=project, task="make check"
    )
    settings = _settings(scripted_model.url + "/v1")
    assert run_memory(env, settings, RunOptions(phase="1")).claimed == 0  # found, not idle yet
    path.unlink()
    eager = settings.with_overrides(min_idle_hours=0, retry_delay_seconds=0, max_model_calls=1)
    report = run_memory(env, eager, RunOptions(phase="1"))
    assert report.outcomes == {"gone": 1} and not report.failed and report.errors == []
    assert report.model_calls == 0 and scripted_model.requests == []
    assert run_memory(env, eager, RunOptions(phase="1")).claimed == 0  # closed for good
    with open_store(None, data_dir=env.dirs.data) as store:
        status = memory_status(store, eager, now_ms=int(time.time() * 1000))
    assert [(s["id"], s["state"]) for s in status["session_list"]] == [("gone", "gone")]
