"""The memory queue the agents' Stop / SessionEnd hooks fill, and `memory run` draining it."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path
from typing import Any

from memory_helpers import ScriptedModel, write_claude_transcript, write_skillshelf_transcript

from skillshelf.env import Env
from skillshelf.hooks import events
from skillshelf.hooks.payload import HookInput
from skillshelf.memory.inspect import memory_status
from skillshelf.memory.queue import QueuedSession, dequeue, enqueue, queue_dir, queued
from skillshelf.memory.runner import project_of
from skillshelf.memory.service import RunOptions, run_memory
from skillshelf.memory.settings import MemorySettings
from skillshelf.memory.store import open_store
from testkit import git_worktrees


def _settings(url: str) -> MemorySettings:
    return MemorySettings().with_overrides(
        extract_model="openai:small", consolidation_model="openai:big", base_url=url
    )


def _project(box: Any) -> tuple[Path, Env]:
    project = box.home / "proj"
    project.mkdir()
    return project, Env.for_test(cwd=project, home=box.home, codex_home=box.codex_home)


def _fresh_transcript(state: Path, project: Path, name: str) -> Path:
    """A session that ended a moment ago: far inside the 6 h idle window."""
    return write_skillshelf_transcript(
        state / "elsewhere" / f"{name}.jsonl",
        session_id=name,
        cwd=project,
        task=f"{name}: tests run with make check",
    )


def test_queueing_a_transcript_twice_keeps_one_entry_with_the_latest_details(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    enqueue(tmp_path, QueuedSession(path=path, agent="claude", session_id="s", ended=False))
    enqueue(tmp_path, QueuedSession(path=path, agent="claude", session_id="s", ended=True))
    entries = queued(tmp_path)
    assert [(e.path, e.ended, e.agent) for e in entries] == [(path, True, "claude")]
    assert entries[0].queued_at > 0
    assert dequeue(tmp_path, [path, tmp_path / "never-queued.jsonl"]) == 1
    assert queued(tmp_path) == []


def test_damaged_and_misfiled_entries_are_dropped_not_fatal(tmp_path: Path) -> None:
    enqueue(tmp_path, QueuedSession(path=tmp_path / "good.jsonl"))
    folder = queue_dir(tmp_path)
    (folder / "broken.json").write_text("{not json", encoding="utf-8")
    (folder / "deep.json").write_text("[" * 100_000, encoding="utf-8")
    (folder / "other.json").write_text(json.dumps({"path": str(tmp_path / "x.jsonl")}), encoding="utf-8")
    (folder / "nopath.json").write_text(json.dumps({"agent": "codex"}), encoding="utf-8")
    assert [e.path.name for e in queued(tmp_path)] == ["good.jsonl"]
    assert sorted(p.name for p in folder.iterdir()) == [next(folder.glob("*.json")).name]


def test_memory_run_extracts_a_queued_session_at_once_and_takes_it_off_the_queue(
    isolated_home: Any, scripted_model: ScriptedModel
) -> None:
    project, env = _project(isolated_home)
    settings = _settings(scripted_model.url + "/v1")
    queued_path = _fresh_transcript(isolated_home.state, project, "queued")
    _fresh_transcript(isolated_home.state, project, "not-queued")
    state = env.dirs.state

    before = run_memory(env, settings, RunOptions(sessions=(queued_path.parent,), phase="1"))
    assert before.claimed == 0  # fresh sessions wait for the idle window...

    enqueue(state, QueuedSession(path=queued_path, agent="codex", session_id="queued", ended=True))
    report = run_memory(env, settings, RunOptions(phase="1"))  # ...unless a hook queued them
    assert report.outcomes == {"extracted": 1}
    assert (report.queued, report.dequeued) == (1, 1)
    assert report.to_dict()["queue"] == {"queued": 1, "done": 1}
    assert queued(state) == []
    with open_store(None, data_dir=env.dirs.data) as store:
        assert [o.session_id for o in store.outputs()] == ["queued"]


def test_a_queued_session_whose_extraction_fails_stays_queued_for_the_next_run(
    isolated_home: Any, scripted_model: ScriptedModel
) -> None:
    project, env = _project(isolated_home)
    state = env.dirs.state
    path = _fresh_transcript(isolated_home.state, project, "s1")
    enqueue(state, QueuedSession(path=path))
    scripted_model.reply = lambda body, n: "not json at all"
    report = run_memory(env, _settings(scripted_model.url + "/v1"), RunOptions(phase="1", queued_only=True))
    assert report.outcomes == {"failed": 1} and report.dequeued == 0
    assert [e.path for e in queued(state)] == [path]


def test_a_queued_file_that_is_gone_or_not_a_transcript_leaves_the_queue(
    isolated_home: Any, scripted_model: ScriptedModel
) -> None:
    project, env = _project(isolated_home)
    state = env.dirs.state
    junk = isolated_home.state / "junk.jsonl"
    junk.write_text("hello\n", encoding="utf-8")
    enqueue(state, QueuedSession(path=isolated_home.state / "gone.jsonl"))
    enqueue(state, QueuedSession(path=junk))
    report = run_memory(env, _settings(scripted_model.url + "/v1"), RunOptions(queued_only=True))
    assert report.claimed == 0 and report.dequeued == 2 and queued(state) == []
    assert scripted_model.requests == []


def test_memory_run_with_queued_only_leaves_the_usual_folders_alone(
    isolated_home: Any, scripted_model: ScriptedModel
) -> None:
    project, env = _project(isolated_home)
    old = time.time() - 8 * 3600
    write_skillshelf_transcript(
        env.dirs.state / "transcripts" / "old.jsonl",
        session_id="old",
        cwd=project,
        task="an idle session in the usual folder",
        mtime=old,
    )
    report = run_memory(env, _settings(scripted_model.url + "/v1"), RunOptions(queued_only=True, phase="1"))
    assert report.files == 0 and report.claimed == 0
    full = run_memory(env, _settings(scripted_model.url + "/v1"), RunOptions(phase="1"))
    assert full.outcomes == {"extracted": 1}


def test_a_queued_claude_session_that_spawned_a_subagent_is_extracted_before_it_leaves_the_queue(
    isolated_home: Any, scripted_model: ScriptedModel
) -> None:
    project, env = _project(isolated_home)
    sid = "11111111-2222-3333-4444-555555555555"
    folder = env.home / ".claude" / "projects" / "-proj"
    write_claude_transcript(
        folder / sid / "subagents" / "agent-abc.jsonl",
        session_id=sid,
        cwd=project,
        turns=["subagent task: list files", "files listed"],
        sidechain=True,
    )
    parent = write_claude_transcript(
        folder / f"{sid}.jsonl", session_id=sid, cwd=project, turns=["remember: run make check", "ok"]
    )
    enqueue(env.dirs.state, QueuedSession(path=parent, agent="claude", session_id=sid, ended=True))
    report = run_memory(env, _settings(scripted_model.url + "/v1"), RunOptions(phase="1"))
    assert report.outcomes == {"extracted": 1} and queued(env.dirs.state) == []
    with open_store(None, data_dir=env.dirs.data) as store:
        assert [o.session_id for o in store.outputs()] == [sid]
        again = run_memory(env, _settings(scripted_model.url + "/v1"), RunOptions(phase="1"))
        assert again.registered == 0  # each file keeps its own row: nothing flips between them
        row = store.session(sid)
        assert row is not None and row.path == str(parent)


def test_a_session_queued_in_a_worktree_counts_for_its_main_checkout_after_the_worktree_is_removed(
    isolated_home: Any, scripted_model: ScriptedModel
) -> None:
    main, worktree = isolated_home.home / "repo", isolated_home.home / "repo-task"
    git_worktrees(main, worktree)
    env = Env.for_test(cwd=main, home=isolated_home.home, codex_home=isolated_home.codex_home)
    transcript = write_claude_transcript(
        env.home / ".claude" / "projects" / "-repo-task" / "s1.jsonl",
        session_id="s1",
        cwd=worktree,
        turns=["remember: run make check", "ok"],
    )
    stop_hook = HookInput(event="Stop", session_id="s1", transcript_path=str(transcript), cwd=str(worktree))
    events.stop("claude", stop_hook, env, lambda *args: None)
    subprocess.run(["git", "-C", str(main), "worktree", "remove", str(worktree)], check=True, timeout=60)
    report = run_memory(env, _settings(scripted_model.url + "/v1"), RunOptions(phase="1"))
    assert report.outcomes == {"extracted": 1}
    with open_store(None, data_dir=env.dirs.data) as store:
        row = store.session("s1")
        assert row is not None and row.project == project_of(main)


def test_a_dry_run_shows_the_queued_sessions_the_run_would_take_and_leaves_the_queue_as_it_is(
    isolated_home: Any,
) -> None:
    project, env = _project(isolated_home)
    state = env.dirs.state
    path = _fresh_transcript(isolated_home.state, project, "ended")
    enqueue(state, QueuedSession(path=path, agent="claude", session_id="ended", ended=True))
    (queue_dir(state) / "broken.json").write_text("{not json", encoding="utf-8")
    settings = _settings("http://127.0.0.1:9/v1")  # never called
    entries = sorted(p.name for p in queue_dir(state).iterdir())

    only_queued = run_memory(env, settings, RunOptions(phase="1", dry_run=True, queued_only=True))
    assert [d["session_id"] for d in only_queued.dry_run] == ["ended"] and only_queued.queued == 1
    usual = run_memory(env, settings, RunOptions(phase="1", dry_run=True))
    assert [d["session_id"] for d in usual.dry_run] == ["ended"]
    assert usual.skipped == []  # not "too recent": its agent said the session ended
    assert sorted(p.name for p in queue_dir(state).iterdir()) == entries
    assert not (env.dirs.data / "memory").exists()  # a dry run writes no database either


def test_status_shows_a_queued_session_as_queued_for_the_next_run_not_as_too_recent(
    isolated_home: Any,
) -> None:
    project, env = _project(isolated_home)
    state = env.dirs.state
    path = _fresh_transcript(isolated_home.state, project, "ended")
    run_memory(env, _settings("http://127.0.0.1:9/v1"), RunOptions(sessions=(path,), phase="1"))
    with open_store(None, data_dir=env.dirs.data) as store:
        before = memory_status(store, MemorySettings(), now_ms=int(time.time() * 1000), queue=queued(state))
        assert before["session_states"] == {"too_recent": 1} and before["queued"] == 0
        enqueue(state, QueuedSession(path=path, agent="claude", session_id="ended", ended=True))
        after = memory_status(store, MemorySettings(), now_ms=int(time.time() * 1000), queue=queued(state))
    assert after["session_states"] == {"queued": 1} and after["queued"] == 1
    [row] = after["session_list"]
    assert row["state"] == "queued" and "next run extracts it" in row["reason"]
