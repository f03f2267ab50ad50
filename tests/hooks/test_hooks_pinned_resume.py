"""A resumed session gets the pinned skills its conversation does not hold (pinned since it
started, or before skillshelf's hooks were set up), read from the transcript the hook input
names, in the shapes the real Codex and Claude Code write; and nothing when that file cannot
be read."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from hooks_helpers import hook_input, make_project, write_config, write_skill

from skillshelf.env import Env
from skillshelf.hooks import events, pinned
from skillshelf.hooks.payload import parse_input
from skillshelf.hooks.pinned import PINNED_INTRO, held_in_transcript
from skillshelf.workspace import Workspace

AGENTS = ["codex", "claude"]


def _pin(*names: str) -> str:
    return "".join(f'[[skills.config]]\nname = "{name}"\nmode = "pinned"\n' for name in names)


def _start(env: Env, agent: str, source: str, transcript: Path | str | None = None) -> str:
    fields: dict[str, Any] = {"source": source}
    if transcript is not None:
        fields["transcript_path"] = str(transcript)
    inp = parse_input(hook_input("SessionStart", env, **fields), "SessionStart")
    return events.session_start(agent, inp, env, lambda args: None)  # type: ignore[arg-type]


def _context_line(agent: str, text: str) -> dict[str, Any]:
    """A ``SessionStart`` answer as the agent keeps it: Claude Code's attachment, Codex's
    developer message."""
    if agent == "claude":
        attachment = {"type": "hook_additional_context", "content": [text], "hookEvent": "SessionStart"}
        return {"type": "attachment", "attachment": attachment, "sessionId": "sess-1", "isSidechain": False}
    content = [{"type": "input_text", "text": text}]
    return {"type": "response_item", "payload": {"type": "message", "role": "developer", "content": content}}


def _turn(agent: str, prompt: str) -> list[dict[str, Any]]:
    if agent == "claude":
        message = {"role": "user", "content": prompt}
        reply = {"role": "assistant", "content": [{"type": "text", "text": "OK"}]}
        return [
            {"type": "user", "message": message, "sessionId": "sess-1"},
            {"type": "assistant", "message": reply, "sessionId": "sess-1"},
        ]
    user = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": prompt}]}
    reply = {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "OK"}]}
    return [{"type": "response_item", "payload": user}, {"type": "response_item", "payload": reply}]


def _compaction(agent: str) -> dict[str, Any]:
    if agent == "claude":
        return {"type": "system", "subtype": "compact_boundary", "content": "Conversation compacted"}
    return {"type": "compacted", "payload": {"message": "Summary: the user wanted release notes."}}


def _transcript(env: Env, agent: str, *lines: dict[str, Any], ascii_only: bool = False) -> Path:
    """A session file of ``agent`` under ``env``'s home: its first line, then ``lines``."""
    if agent == "claude":
        first: dict[str, Any] = {"type": "queue-operation", "operation": "enqueue", "sessionId": "sess-1"}
        path = env.home / ".claude" / "projects" / "p" / "sess-1.jsonl"
    else:
        first = {"type": "session_meta", "payload": {"id": "sess-1", "cwd": str(env.cwd)}}
        path = env.codex_home / "sessions" / "rollout-sess-1.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "".join(json.dumps(line, ensure_ascii=ascii_only) + "\n" for line in (first, *lines))
    path.write_text(text, encoding="utf-8")
    return path


def _resumed(env: Env, agent: str, *lines: dict[str, Any], ascii_only: bool = False) -> str:
    """The resume's answer for a transcript holding ``lines``."""
    return _start(env, agent, "resume", _transcript(env, agent, *lines, ascii_only=ascii_only))


RELEASE_NOTES = "STEPS-OF-release-notes"


@pytest.mark.parametrize("agent", AGENTS)
def test_a_resume_carries_a_skill_pinned_since_the_session_started(isolated_home: Any, agent: str) -> None:
    env = make_project(isolated_home)
    transcript = _transcript(env, agent, *_turn(agent, "write the release notes"))
    write_config(env, _pin("release-notes"))
    text = _start(env, agent, "resume", transcript)
    assert text.startswith(PINNED_INTRO) and text.count(RELEASE_NOTES) == 1


@pytest.mark.parametrize("agent", AGENTS)
def test_a_resume_of_a_session_that_started_with_the_pin_carries_nothing(
    isolated_home: Any, agent: str
) -> None:
    env = make_project(isolated_home, config=_pin("release-notes"))
    started = _context_line(agent, _start(env, agent, "startup"))
    assert _resumed(env, agent, *_turn(agent, "go")).count(RELEASE_NOTES) == 1
    assert _resumed(env, agent, started, *_turn(agent, "go")) == ""


@pytest.mark.parametrize("agent", AGENTS)
def test_a_resume_carries_only_the_pinned_skills_the_conversation_lacks(
    isolated_home: Any, agent: str
) -> None:
    env = make_project(isolated_home, config=_pin("release-notes"))
    started = _start(env, agent, "startup")
    transcript = _transcript(env, agent, _context_line(agent, started), *_turn(agent, "go"))
    write_config(env, _pin("release-notes", "pdf-forms"))
    text = _start(env, agent, "resume", transcript)
    assert text.startswith(PINNED_INTRO) and text.count("STEPS-OF-pdf-forms") == 1
    assert RELEASE_NOTES not in text and "release-notes" not in text


def test_a_skill_the_conversation_got_by_its_line_is_not_named_again(isolated_home: Any) -> None:
    env = make_project(isolated_home, config=_pin("release-notes", "huge-checklist"))
    huge = write_skill(env.cwd / ".agents" / "skills", "huge-checklist", "Check the release.")
    huge.write_text(huge.read_text(encoding="utf-8") + "a step of the checklist\n" * 2000, encoding="utf-8")
    started = _start(env, "claude", "startup")
    assert started.endswith(f"- huge-checklist: {huge}")
    assert _resumed(env, "claude").endswith(f"- huge-checklist: {huge}")
    assert _resumed(env, "claude", _context_line("claude", started)) == ""


def test_a_skill_codex_injected_for_a_mention_counts_as_held(isolated_home: Any) -> None:
    """Codex injects a ``$name`` mention's skill as the same ``<skill>`` fragment, in a user message."""
    env = make_project(isolated_home, config=_pin("release-notes"))
    (skill,) = Workspace.open(env).skills.pinned
    body = skill.path.read_text(encoding="utf-8")
    fragment = f"<skill>\n<name>release-notes</name>\n<path>{skill.path}</path>\n{body}\n</skill>"
    assert (
        _resumed(env, "codex", *_turn("codex", f"$release-notes at {skill.path}")).count(RELEASE_NOTES) == 1
    )
    assert _resumed(env, "codex", *_turn("codex", fragment)) == ""


@pytest.mark.parametrize("agent", AGENTS)
def test_a_copy_before_a_compaction_counts_as_held(isolated_home: Any, agent: str) -> None:
    """Codex compacting as a resume starts runs the resume's hook before the compaction's
    answer (which carries the pinned skills again) is in its rollout."""
    env = make_project(isolated_home, config=_pin("release-notes"))
    started = _context_line(agent, _start(env, agent, "startup"))
    assert _resumed(env, agent, _compaction(agent)).count(RELEASE_NOTES) == 1
    assert _resumed(env, agent, started, _compaction(agent)) == ""


def test_a_path_json_writes_with_escapes_is_found(isolated_home: Any) -> None:
    """A writer may escape every non-ASCII character (``\\u00f8``) where the path has one."""
    project = isolated_home.home / "prøj"
    write_skill(project / ".agents" / "skills", "release-notes", "Write release notes.")
    (project / ".git").mkdir()
    env = make_project(isolated_home, config=_pin("release-notes"))
    env = Env.for_test(cwd=project, home=env.home, codex_home=env.codex_home, dirs=env.dirs)
    started = _start(env, "claude", "startup")
    assert "prøj" in started
    transcript = _transcript(env, "claude", _context_line("claude", started), ascii_only=True)
    assert b"pr\\u00f8j" in transcript.read_bytes()
    assert _start(env, "claude", "resume", transcript) == ""
    assert _resumed(env, "claude", *_turn("claude", "go"), ascii_only=True).count(RELEASE_NOTES) == 1


def test_a_long_line_before_the_block_does_not_hide_it(isolated_home: Any) -> None:
    """A tool output of megabytes is clipped as it streams; the lines after it are still read."""
    env = make_project(isolated_home, config=_pin("release-notes"))
    started = _context_line("codex", _start(env, "codex", "startup"))
    huge = {"type": "response_item", "payload": {"type": "function_call_output", "output": "x" * (3 << 20)}}
    assert _resumed(env, "codex", huge).count(RELEASE_NOTES) == 1
    assert _resumed(env, "codex", huge, started) == ""


def _fifo(folder: Path) -> Path:
    path = folder / "fifo.jsonl"
    os.mkfifo(path)
    return path


def _binary(folder: Path) -> Path:
    path = folder / "binary.jsonl"
    path.write_bytes(bytes(range(256)) * 64)
    return path


def _other_format(folder: Path) -> Path:
    path = folder / "other.jsonl"
    path.write_text('{"event": "start"}\n{"event": "prompt", "text": "hello"}\n', encoding="utf-8")
    return path


def _link_to_fifo(folder: Path) -> Path:
    link = folder / "link.jsonl"
    link.symlink_to(_fifo(folder))
    return link


HOSTILE = {
    "missing": lambda folder: folder / "gone.jsonl",
    "a folder": lambda folder: folder,
    "a FIFO": _fifo,
    "a link to a FIFO": _link_to_fifo,
    "binary": _binary,
    "another format": _other_format,
    "relative": lambda folder: Path("sess-1.jsonl"),
    "empty": lambda folder: "",
    "a NUL byte": lambda folder: f"{folder}/a\x00b.jsonl",
    "a lone surrogate": lambda folder: f"{folder}/a\ud800b.jsonl",
}


@pytest.mark.parametrize("kind", sorted(HOSTILE))
@pytest.mark.parametrize("agent", AGENTS)
def test_a_transcript_that_cannot_be_read_gets_nothing_on_resume(
    isolated_home: Any, agent: str, kind: str
) -> None:
    env = make_project(isolated_home, config=_pin("release-notes"))
    folder = isolated_home.home / "transcripts"
    folder.mkdir()
    assert _resumed(env, agent).count(RELEASE_NOTES) == 1  # what a transcript read gets
    assert _start(env, agent, "resume", HOSTILE[kind](folder)) == ""


def test_a_transcript_over_the_cap_is_not_read(isolated_home: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    env = make_project(isolated_home)
    transcript = _transcript(env, "codex", *_turn("codex", "notes " * 200))
    write_config(env, _pin("release-notes"))
    assert RELEASE_NOTES in _start(env, "codex", "resume", transcript)
    monkeypatch.setattr(pinned, "MAX_SCANNED_BYTES", transcript.stat().st_size - 1)
    assert _start(env, "codex", "resume", transcript) == ""


def test_a_link_to_a_transcript_is_followed(isolated_home: Any) -> None:
    """An agent's own folder may be a link (``~/.claude`` on another disk)."""
    env = make_project(isolated_home)
    transcript = _transcript(env, "claude", *_turn("claude", "go"))
    link = isolated_home.home / "link.jsonl"
    link.symlink_to(transcript)
    write_config(env, _pin("release-notes"))
    assert _start(env, "claude", "resume", link).count(RELEASE_NOTES) == 1


def test_held_in_transcript_names_the_held_skills_by_path(isolated_home: Any) -> None:
    env = make_project(isolated_home, config=_pin("release-notes", "pdf-forms"))
    found = Workspace.open(env).skills.pinned
    block = pinned.pinned_block(found[:1], "codex")
    transcript = _transcript(env, "codex", _context_line("codex", block.text))
    assert held_in_transcript(str(transcript), found) == frozenset({found[0].path})


def test_a_pinned_skill_in_a_linked_folder_is_held_by_the_real_path_its_fragment_names(
    isolated_home: Any,
) -> None:
    """Codex's own ``$name`` and skillshelf's fragment name a linked skill folder's real ``SKILL.md``."""
    env = make_project(isolated_home, config=_pin("linked"))
    real = write_skill(isolated_home.home / "elsewhere", "linked", "Linked from elsewhere.")
    (env.cwd / ".agents" / "skills" / "linked").symlink_to(real.parent, target_is_directory=True)
    [skill] = Workspace.open(env).skills.pinned
    block = pinned.pinned_block([skill], "codex")
    assert f"<path>{real}</path>" in block.text
    transcript = _transcript(env, "codex", _context_line("codex", block.text))
    assert held_in_transcript(str(transcript), [skill]) == frozenset({skill.path})
    linked = block.text.replace(
        f"<path>{real}</path>", f"<path>{skill.path}</path>"
    )  # as fragments once named it
    earlier = _transcript(env, "codex", _context_line("codex", linked))
    assert held_in_transcript(str(earlier), [skill]) == frozenset({skill.path})
