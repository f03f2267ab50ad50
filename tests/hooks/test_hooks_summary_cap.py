"""The SessionStart answer's memory summary is cut to `memory.summary_token_cap` when that is
below the room the answer leaves; a cap that cannot be used leaves the default and a line in the
hook log (a hook never fails)."""

from __future__ import annotations

from typing import Any

from hooks_helpers import hook_input, make_project

from skillshelf.env import Env
from skillshelf.hooks import events
from skillshelf.hooks.answer import CONTEXT_TOKEN_LIMIT
from skillshelf.hooks.hooklog import log_path
from skillshelf.hooks.payload import parse_input
from skillshelf.memory.layout import project_scope, scope_dir
from skillshelf.tokens import approx_tokens

LINES = [f"- fact {n}: the build runs with make check and the docs with make docs" for n in range(2000)]


def _start(box: Any, config: str) -> tuple[Env, str]:
    env = make_project(box, config=config)
    folder = scope_dir(box.data / "skillshelf", project_scope(env.project_root))
    folder.mkdir(parents=True)
    (folder / "memory_summary.md").write_text("\n".join(LINES), encoding="utf-8")
    inp = parse_input(hook_input("SessionStart", env, source="startup"), "SessionStart")
    return env, events.session_start("claude", inp, env, lambda args: None)


def test_session_start_cuts_the_memory_summary_to_summary_token_cap(isolated_home: Any) -> None:
    _, text = _start(isolated_home, "[hooks]\nsuggestions = false\n[memory]\nsummary_token_cap = 300\n")
    summary = text.removeprefix(f"{events.SUMMARY_INTRO}\n\n")
    assert summary.startswith(LINES[0]) and summary.endswith(LINES[-1])
    assert 290 <= approx_tokens(summary) <= 320


def test_a_summary_token_cap_above_the_answers_room_leaves_the_room(isolated_home: Any) -> None:
    _, text = _start(isolated_home, "[hooks]\nsuggestions = false\n[memory]\nsummary_token_cap = 50000\n")
    assert CONTEXT_TOKEN_LIMIT["claude"] - 40 <= approx_tokens(text) <= CONTEXT_TOKEN_LIMIT["claude"]


def test_a_bad_summary_token_cap_is_logged_and_the_summary_still_comes(isolated_home: Any) -> None:
    env, text = _start(isolated_home, '[hooks]\nsuggestions = false\n[memory]\nsummary_token_cap = "x"\n')
    assert text.startswith(events.SUMMARY_INTRO) and approx_tokens(text) <= CONTEXT_TOKEN_LIMIT["claude"]
    log = log_path(env.dirs.state).read_text(encoding="utf-8")
    assert "ME022" in log and "summary_token_cap" in log


def test_a_memory_setting_out_of_range_starts_no_run_and_the_answer_still_comes(isolated_home: Any) -> None:
    from skillshelf.memory.queue import QueuedSession, enqueue

    env = make_project(isolated_home, config="[hooks]\nsuggestions = false\n[memory]\nconcurrency = 1000\n")
    transcript = isolated_home.home / "t.jsonl"
    transcript.write_text("{}\n", encoding="utf-8")
    enqueue(env.dirs.state, QueuedSession(path=transcript, agent="claude", session_id="s1"))
    folder = scope_dir(isolated_home.data / "skillshelf", project_scope(env.project_root))
    folder.mkdir(parents=True)
    (folder / "memory_summary.md").write_text(LINES[0], encoding="utf-8")
    started: list[list[str]] = []
    inp = parse_input(hook_input("SessionStart", env, source="startup"), "SessionStart")
    text = events.session_start("claude", inp, env, started.append)
    assert LINES[0] in text and not any("memory" in args for args in started)
    log = log_path(env.dirs.state).read_text(encoding="utf-8")
    assert "memory run not started" in log and "ME027" in log
