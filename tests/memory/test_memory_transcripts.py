"""Reading Codex, Claude Code and skillshelf transcripts into one session model."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from memory_helpers import write_claude_transcript

from skillshelf.env import Env
from skillshelf.memory.transcripts import (
    TRANSCRIPT_FORMATS,
    Session,
    TranscriptFormat,
    default_transcript_roots,
    find_transcripts,
    read_transcript,
)
from skillshelf.memory.transcripts.skillshelf import TranscriptWriter, transcript_path

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts"


def test_real_codex_rollouts_are_read_with_meta_and_items() -> None:
    sessions = [read_transcript(p) for p in sorted((FIXTURES / "codex").glob("*.jsonl"))]
    assert len(sessions) >= 2
    for session in sessions:
        assert session is not None and session.source == "codex" and session.skipped_lines == 0
        assert session.cwd is not None and session.origin == "exec" and not session.subagent
        kinds = [(i.kind, i.role) for i in session.items]
        assert ("tool_call", "assistant") in kinds and ("tool_result", "tool") in kinds
        assert kinds[-1] == ("message", "assistant")
        assert session.first_user_message and not session.first_user_message.startswith(
            "<environment_context>"
        )
        assert session.started_at is not None and session.ended_at is not None


def test_real_claude_sessions_are_read_without_attachments() -> None:
    sessions = [read_transcript(p) for p in sorted((FIXTURES / "claude").glob("*.jsonl"))]
    assert len(sessions) >= 2
    for session in sessions:
        assert session is not None and session.source == "claude" and session.cwd is not None
        assert [i.kind for i in session.items] == ["message", "tool_call", "tool_result", "message"]
        assert session.items[1].name == "Bash" and session.items[1].call_id == session.items[2].call_id
        assert "skill_listing" not in json.dumps([i.to_dict() for i in session.items])


def test_broken_and_truncated_lines_are_counted_not_fatal(tmp_path: Path) -> None:
    src = sorted((FIXTURES / "codex").glob("*.jsonl"))[0]
    target = tmp_path / src.name
    lines = src.read_text(encoding="utf-8").splitlines()
    broken = [lines[0], "{not json", "\x00\x01binary", *lines[1:], lines[-1][: len(lines[-1]) // 2]]
    target.write_text("\n".join(broken), encoding="utf-8")
    session = read_transcript(target)
    original = read_transcript(src)
    assert session is not None and original is not None
    assert session.skipped_lines == 3 and len(session.items) == len(original.items)


def test_unknown_files_empty_files_and_folders_are_handled(tmp_path: Path) -> None:
    (tmp_path / "notes.jsonl").write_text('{"hello": 1}\n', encoding="utf-8")
    (tmp_path / "empty.jsonl").write_text("", encoding="utf-8")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "loop").symlink_to(tmp_path, target_is_directory=True)
    shutil.copy(sorted((FIXTURES / "claude").glob("*.jsonl"))[0], tmp_path / "sub" / "c.jsonl")
    found = find_transcripts([tmp_path, tmp_path / "missing"])
    assert sorted(p.name for p in found) == ["c.jsonl", "empty.jsonl", "notes.jsonl"]
    assert read_transcript(tmp_path / "notes.jsonl") is None
    assert read_transcript(tmp_path / "empty.jsonl") is None


def test_skillshelf_transcripts_round_trip(tmp_path: Path) -> None:
    path = transcript_path(tmp_path, "abc")
    assert path.parent.parent.parent.parent == tmp_path / "transcripts"
    with TranscriptWriter(path, session_id="abc", cwd=tmp_path, origin="run", git_branch="main") as writer:
        writer.message("developer", "injected rules")
        writer.message("user", "fix the build")
        writer.tool_call("c1", "load_skill", {"name": "ci"})
        writer.tool_result("c1", "loaded", is_error=False)
        writer.message("assistant", "done")
    with path.open("a", encoding="utf-8") as handle:
        handle.write('{"type": "message", "ts": "2026')  # a crash mid-line
    session = read_transcript(path)
    assert session is not None and session.source == "skillshelf" and session.id == "abc"
    assert session.git_branch == "main" and session.cwd == tmp_path and session.skipped_lines == 1
    assert [i.kind for i in session.items] == ["message", "message", "tool_call", "tool_result", "message"]
    assert session.first_user_message == "fix the build"
    assert json.loads(session.items[2].text) == {"name": "ci"}


def test_subagent_sessions_are_marked(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    with TranscriptWriter(path, session_id="sub", cwd=tmp_path, origin="subagent") as writer:
        writer.message("user", "consolidate")
    session = read_transcript(path)
    assert session is not None and session.subagent


@settings(max_examples=40, deadline=None)
@given(st.lists(st.binary(max_size=80), max_size=12))
def test_any_bytes_never_crash_the_readers(chunks: list[bytes]) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "x.jsonl"
        path.write_bytes(
            b'{"type":"session_meta","ts":"2026-01-01T00:00:00Z","cwd":"/w","id":"i"}\n' + b"\n".join(chunks)
        )
        session = read_transcript(path)
        assert session is not None and session.id == "i"


def _aider_format() -> TranscriptFormat:
    def read(path: Path) -> Session:
        return Session(id=path.stem, source="aider", path=path, cwd=None, started_at=None, ended_at=None)

    return TranscriptFormat(
        name="aider",
        sniff=lambda first: first.get("tool") == "aider",
        read=read,
        roots=lambda env, state_dir: (env.home / ".aider" / "sessions",),
    )


def test_a_registered_format_is_sniffed_read_and_searched(tmp_path: Path) -> None:
    path = tmp_path / "chat.jsonl"
    path.write_text(json.dumps({"tool": "aider"}) + "\n", encoding="utf-8")
    assert read_transcript(path) is None
    formats = (*TRANSCRIPT_FORMATS, _aider_format())
    session = read_transcript(path, formats=formats)
    assert session is not None and session.source == "aider"
    env = Env.for_test(cwd=tmp_path, home=tmp_path / "home")
    roots = default_transcript_roots(env, tmp_path / "state", formats=formats)
    assert roots[-1] == tmp_path / "home" / ".aider" / "sessions"
    assert roots[:-1] == default_transcript_roots(env, tmp_path / "state")


def test_every_registered_format_reads_sessions_under_its_own_name(tmp_path: Path) -> None:
    names = [fmt.name for fmt in TRANSCRIPT_FORMATS]
    assert sorted(names) == ["claude", "codex", "skillshelf"] and len(set(names)) == len(names)
    with TranscriptWriter(tmp_path / "own.jsonl", session_id="s1", cwd=tmp_path) as writer:
        writer.message("user", "hello")
    samples = {
        "codex": sorted((FIXTURES / "codex").glob("*.jsonl"))[0],
        "claude": sorted((FIXTURES / "claude").glob("*.jsonl"))[0],
        "skillshelf": tmp_path / "own.jsonl",
    }
    for fmt in TRANSCRIPT_FORMATS:
        session = read_transcript(samples[fmt.name], formats=(fmt,))
        assert session is not None and session.source == fmt.name


def test_a_rollout_without_its_meta_line_is_still_read_as_codex(tmp_path: Path) -> None:
    path = tmp_path / "old.jsonl"
    lines = [
        {"id": "abc", "timestamp": "2025-01-01T00:00:00Z", "instructions": ""},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "fix it"}]},
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    session = read_transcript(path)
    assert session is not None and session.source == "codex" and session.first_user_message == "fix it"


def test_a_claude_subagent_file_is_keyed_apart_from_its_parent_session(tmp_path: Path) -> None:
    sid = "11111111-2222-3333-4444-555555555555"
    folder = tmp_path / ".claude" / "projects" / "-work"
    parent = write_claude_transcript(
        folder / f"{sid}.jsonl", session_id=sid, cwd=tmp_path, turns=["remember make check", "ok"]
    )
    child = write_claude_transcript(
        folder / sid / "subagents" / "agent-abc.jsonl",
        session_id=sid,  # Claude Code repeats the parent's id in a sub-agent's lines
        cwd=tmp_path,
        turns=["list files", "done"],
        sidechain=True,
    )
    main, sub = read_transcript(parent), read_transcript(child)
    assert main is not None and (main.id, main.subagent) == (sid, False)
    assert sub is not None and (sub.id, sub.subagent) == (f"{sid}/agent-abc", True)


def test_a_lone_surrogate_in_a_tool_argument_is_written_as_an_escape_and_read_back(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    with TranscriptWriter(path, session_id="abc", cwd=tmp_path) as writer:
        writer.tool_call("c1", "read_skill_file", {"name": "pdf", "path": "refs/\ud800.md"})
        writer.tool_result("c1", "error SV400: not valid Unicode", is_error=True)
    lines = path.read_text(encoding="utf-8").splitlines()
    assert json.loads(lines[1])["arguments"]["path"] == "refs/\ud800.md"
    assert json.loads(lines[2])["is_error"] is True
