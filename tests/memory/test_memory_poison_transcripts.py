"""Bad transcripts never stop a run: a file in no known shape is a coded diagnostic, a bad line
is skipped and counted, odd values (wrong JSON types, deep nesting, NUL, lone surrogates) are
read as far as they make sense, and every other session is still extracted."""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from memory_helpers import ScriptedModel, run_cli, write_skillshelf_transcript

from skillshelf.env import Env
from skillshelf.memory.phase1 import build_stage1_prompt
from skillshelf.memory.runner import project_of
from skillshelf.memory.service import RunOptions, run_memory
from skillshelf.memory.settings import MemorySettings
from skillshelf.memory.store import open_store
from skillshelf.memory.transcripts import read_transcript

OLD = time.time() - 10 * 3600
DEEP = b"[" * 200_000 + b"]" * 200_000
CLAUDE_HEAD = {"type": "user", "sessionId": "c-1", "cwd": "/w", "timestamp": "2026-01-01T00:00:00Z"}


def _settings(model: ScriptedModel) -> MemorySettings:
    return MemorySettings().with_overrides(
        extract_model="openai:small", consolidation_model="openai:big", base_url=model.url + "/v1"
    )


def _write(path: Path, data: bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    import os

    os.utime(path, (OLD, OLD))
    return path


def _lines(*objects: object) -> bytes:
    return b"".join(json.dumps(o).encode() + b"\n" for o in objects)


@pytest.fixture
def project(isolated_home: Any) -> Path:
    folder = isolated_home.home / "proj"
    folder.mkdir()
    return folder


@pytest.mark.parametrize(
    "poison",
    [b'{"type": ["x"]}\n', DEEP + b"\n", b'{"sessionId": {"a": 1}, "type": {"b": 2}}\n'],
    ids=["type-is-a-list", "deep-nesting", "odd-types"],
)
def test_a_file_in_no_known_shape_is_a_diagnostic_and_the_run_goes_on(
    project: Path, tmp_path: Path, scripted_model: ScriptedModel, store_url: str, poison: bytes
) -> None:
    folder = tmp_path / "sessions"
    bad = _write(folder / "a-bad.jsonl", poison)
    write_skillshelf_transcript(folder / "b-good.jsonl", session_id="good", cwd=project, task="t", mtime=OLD)
    env = Env.for_test(cwd=project, home=project.parent)
    options = RunOptions(sessions=(folder,), db=store_url, phase="1")
    report = run_memory(env, _settings(scripted_model), options)
    assert report.outcomes == {"extracted": 1} and report.unreadable == [str(bad)]
    [problem] = report.problems
    assert problem.code == "ME104" and problem.fix and problem.path == bad


def test_two_files_of_one_session_use_the_newer_and_name_the_other_once(
    project: Path, tmp_path: Path, scripted_model: ScriptedModel, store_url: str
) -> None:
    folder = tmp_path / "sessions"
    older = write_skillshelf_transcript(
        folder / "a.jsonl", session_id="same", cwd=project, task="old", mtime=OLD
    )
    newer = write_skillshelf_transcript(folder / "b.jsonl", session_id="same", cwd=project, task="new")
    import os

    os.utime(newer, (OLD + 60, OLD + 60))
    env = Env.for_test(cwd=project, home=project.parent)
    registered, problems = [], []
    for _ in range(3):  # the later runs: nothing new, the copy not named again
        report = run_memory(
            env, _settings(scripted_model), RunOptions(sessions=(folder,), db=store_url, phase="1")
        )
        registered.append(report.registered)
        problems.append([(p.code, p.path) for p in report.problems])
        assert not report.unreadable and all(str(newer) in p.message for p in report.problems)
    assert problems == [[("ME107", older)], [], []]
    assert registered == [1, 0, 0]
    with open_store(store_url) as store:
        kept = store.session("same")
    assert kept is not None and kept.path == str(newer)


def test_the_dry_run_over_poison_files_reports_them_and_exits_0(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project)
    folder = tmp_path / "sessions"
    _write(folder / "a.jsonl", b'{"type": ["x"]}\n')
    _write(folder / "b.jsonl", DEEP + b"\n")
    write_skillshelf_transcript(folder / "c.jsonl", session_id="ok", cwd=project, task="use pnpm", mtime=OLD)
    argv = ["memory", "run", "--sessions", str(folder), "--dry-run", "--json", "--min-idle-hours", "0"]
    code, out, err = run_cli(capsys, *argv, "--model", "openai:x", "--base-url", "http://127.0.0.1:9/v1")
    assert code == 0, err
    report = json.loads(out)
    assert [d["session_id"] for d in report["dry_run"]] == ["ok"]
    assert sorted(Path(p["path"]).name for p in report["problems"]) == ["a.jsonl", "b.jsonl"]
    assert {p["code"] for p in report["problems"]} == {"ME104"} and "internal error" not in err


@pytest.mark.parametrize(
    "lines",
    [
        [CLAUDE_HEAD | {"message": {"role": "user", "content": "fix the build"}}, {"type": ["user"], "x": 1}],
        [
            CLAUDE_HEAD | {"message": {"role": "user", "content": "fix the build"}},
            CLAUDE_HEAD | {"message": {"role": ["user"], "content": [{"type": ["text"], "text": 5}]}},
            CLAUDE_HEAD | {"type": "assistant", "message": {"content": [{"type": "tool_use", "input": 7}]}},
        ],
        [
            {"type": "session_meta", "payload": {"id": "x-1", "cwd": ["w"], "git": {"branch": ["b"]}}},
            {
                "type": "response_item",
                "payload": {"type": "message", "role": "user", "content": "fix the build"},
            },
            {"type": "response_item", "payload": {"type": ["message"], "content": {"a": 1}}},
            {"type": "response_item", "payload": {"type": "function_call", "arguments": [1, {"x": None}]}},
            {"type": "response_item", "payload": {"type": "function_call_output", "output": [{"text": 3}]}},
            {"type": "session_meta", "payload": {"source": {"subagent": ["x"]}}, "timestamp": [1]},
        ],
        [
            {"type": "session_meta", "ts": "2026-01-01T00:00:00Z", "cwd": "/w", "id": ["i"], "origin": {}},
            {"type": "message", "ts": 1e300, "cwd": {"a": 1}, "role": "user", "text": "fix the build"},
            {"type": "tool_call", "ts": "x", "id": [1], "name": {"n": 1}, "arguments": "not an object"},
            {"type": "tool_result", "ts": float("inf"), "output": {"deep": [[[]]]}, "is_error": "yes"},
        ],
    ],
    ids=["claude-type-list", "claude-odd-blocks", "codex-odd-payloads", "skillshelf-odd-values"],
)
def test_odd_values_inside_a_known_format_are_read_not_fatal(tmp_path: Path, lines: list[object]) -> None:
    path = _write(tmp_path / "s.jsonl", _lines(*lines) + b'{"type": "message", "text": ' + DEEP + b"}\n")
    session = read_transcript(path)
    assert session is not None and session.first_user_message == "fix the build"
    assert session.skipped_lines == 1  # the deeply nested line
    system, user = build_stage1_prompt(session, token_limit=10_000)
    assert "fix the build" in user and system


def test_nul_and_lone_surrogates_in_the_first_message_are_stored_on_both_backends(
    project: Path, tmp_path: Path, scripted_model: ScriptedModel, store_url: str
) -> None:
    folder = tmp_path / "sessions"
    head = b'{"type":"session_meta","ts":"2026-01-01T00:00:00Z","cwd":"' + str(project).encode() + b'","id":'
    _write(
        folder / "nul.jsonl",
        head
        + b'"nul"}\n{"type":"message","ts":"2026-01-01T00:00:01Z","role":"user","text":"fix\\u0000it"}\n',
    )
    _write(
        folder / "sur.jsonl",
        head + b'"sur"}\n{"type":"message","ts":"2026-01-01T00:00:01Z","role":"user","text":"a\\ud800b"}\n',
    )
    env = Env.for_test(cwd=project, home=project.parent)
    report = run_memory(
        env, _settings(scripted_model), RunOptions(sessions=(folder,), db=store_url, phase="1")
    )
    assert report.outcomes == {"extracted": 2} and not report.problems
    with open_store(store_url) as store:
        nul, sur = store.session("nul"), store.session("sur")
    assert nul is not None and nul.first_user_message == "fix\ufffdit"
    assert sur is not None and sur.first_user_message == "a\ufffdb"


_KEYS = st.sampled_from(
    ["type", "payload", "message", "content", "role", "text", "cwd", "id", "output", "arguments", "name"]
    + ["input", "source", "git", "timestamp", "ts", "sessionId", "isSidechain", "isMeta", "tool_use_id"]
)
_TEXT = st.one_of(
    st.text(max_size=12),
    st.sampled_from(["user", "assistant", "message", "tool_use", "tool_result", "text", "\x00", "\ud800x"]),
    st.sampled_from(["function_call", "function_call_output", "response_item", "session_meta", "/w"]),
)
_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | _TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_KEYS, inner, max_size=5),
    max_leaves=25,
)
_HEADS = [
    b'{"type":"session_meta","payload":{"id":"f","cwd":"/w"}}\n',
    b'{"type":"user","sessionId":"f","cwd":"/w","message":{"role":"user","content":"hi"}}\n',
    b'{"type":"session_meta","ts":"2026-01-01T00:00:00Z","cwd":"/w","id":"f"}\n',
]


@settings(max_examples=300, deadline=None)
@given(head=st.sampled_from(_HEADS), lines=st.lists(st.dictionaries(_KEYS, _VALUES, max_size=6), max_size=8))
def test_any_json_lines_after_a_known_header_never_crash_the_read_path(
    head: bytes, lines: list[dict[str, object]]
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "x.jsonl"
        path.write_bytes(head + b"".join(json.dumps(line).encode() + b"\n" for line in lines))
        session = read_transcript(path)
        assert session is not None
        assert isinstance(session.first_user_message, str)
        project_of(session.cwd)
        system, user = build_stage1_prompt(session, token_limit=2000)
        user.encode("utf-8")  # what goes to the model is valid UTF-8
