"""No secret at rest: a full memory run over real Codex and Claude Code transcripts that hold
secrets (an OpenSSH key and the 30 token formats, in the task text, commands and tool output),
with a model that copies every secret into its answers, leaves no 8-char piece of them in the
database, its WAL, the memory folder, the consolidation agent's transcript, the usage log or
any request the model received; every state file is 0600 in a 0700 folder."""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import time
from pathlib import Path
from typing import Any

import pytest
from redact_cases import CASES, FIXTURES, left
from redact_cases import openssh_keys as generate_keys

from skillshelf.env import Env
from skillshelf.memory.redact import REDACTED
from skillshelf.memory.service import RunOptions, run_memory
from skillshelf.memory.settings import MemorySettings
from skillshelf.memory.store import open_store
from skillshelf.memory.transcripts.skillshelf import TranscriptWriter

SECRET_LINES = [line for _, line, _ in CASES]
PIECES = [piece for _, _, pieces in CASES for piece in pieces]
VALUES = [  # the secrets alone: a cookie's names are not secret
    value
    for kind, _, pieces in CASES
    for piece in pieces
    for value in (re.findall(r"=([^;]+)", piece) if kind == "cookie-header" else [piece])
]


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _private(root: Path) -> list[str]:
    """Files under ``root`` that are not 0600 and folders that are not 0700."""
    wrong = []
    for path in [root, *root.rglob("*")]:
        want = 0o700 if path.is_dir() else 0o600
        if _mode(path) != want:
            wrong.append(f"{path.relative_to(root)}: {oct(_mode(path))}")
    return wrong


def _leaks(root: Path, pieces: list[str], skip: tuple[Path, ...] = ()) -> dict[str, list[str]]:
    found = {}
    for path in sorted(root.rglob("*")):
        if path.is_file() and not any(path.is_relative_to(s) for s in skip):
            text = path.read_bytes().decode("utf-8", errors="replace")
            if hits := left(text, pieces):
                found[str(path.relative_to(root))] = hits[:3]
    return found


def _with_secrets(text: str, key: str) -> str:
    return text + "\n" + "\n".join(SECRET_LINES) + "\n$ cat ~/.ssh/id_ed25519\n" + key


def _codex_copy(src: Path, target: Path, key: str) -> None:
    """A real Codex rollout with the secrets in the task, a command and its output."""
    out = []
    for line in src.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        payload = record.get("payload", {})
        if payload.get("type") == "message" and payload.get("role") == "user":
            for part in payload["content"]:
                if not part["text"].startswith("<"):
                    part["text"] = _with_secrets(part["text"], key)
        elif payload.get("type") == "function_call":
            payload["arguments"] = json.dumps({"cmd": SECRET_LINES[14]})  # mysql -p<secret>
        elif payload.get("type") == "function_call_output":
            payload["output"] = _with_secrets(payload["output"], key)
        out.append(json.dumps(record))
    target.write_text("\n".join(out) + "\n", encoding="utf-8")


def _claude_copy(src: Path, target: Path, key: str) -> None:
    """A real Claude Code session with the secrets in the prompt, a command and its result."""
    out = []
    for line in src.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        content = record.get("message", {}).get("content")
        if record.get("type") == "user" and isinstance(content, str):
            record["message"]["content"] = _with_secrets(content, key)
        elif isinstance(content, list):
            for block in content:
                if block.get("type") == "tool_result":
                    block["content"] = _with_secrets(str(block["content"]), key)
                elif block.get("type") == "tool_use":
                    block["input"]["command"] = SECRET_LINES[12]  # curl -u admin:<secret>
        out.append(json.dumps(record, ensure_ascii=False))
    target.write_text("\n".join(out) + "\n", encoding="utf-8")


def _place_sessions(home: Any, key: str) -> list[Path]:
    placed = []
    for src in sorted((FIXTURES / "codex").glob("*.jsonl")):
        target = home.codex_home / "sessions" / "2026" / "11" / "29" / src.name
        target.parent.mkdir(parents=True, exist_ok=True)
        _codex_copy(src, target, key)
        placed.append(target)
    for src in sorted((FIXTURES / "claude").glob("*.jsonl")):
        target = home.home / ".claude" / "projects" / "-tmp-project" / src.name
        target.parent.mkdir(parents=True, exist_ok=True)
        _claude_copy(src, target, key)
        placed.append(target)
    old = time.time() - 7 * 3600
    for path in placed:
        os.utime(path, (old, old))
    return placed


def _env(home: Any) -> Env:
    return Env.for_test(cwd=home.home, home=home.home, codex_home=home.codex_home)


def _settings(url: str, *, concurrency: int) -> MemorySettings:
    return MemorySettings().with_overrides(
        extract_model="openai:small",
        consolidation_model="openai:big",
        base_url=url + "/v1",
        scope="global",
        concurrency=concurrency,
    )


def _script(sessions: int, key: str) -> list[dict[str, Any]]:
    """Replies that copy every secret: Phase 1 answers, then the consolidation agent's tool calls."""
    leaked = "\n".join(SECRET_LINES) + "\n" + key
    stage1 = {
        "raw_memory": "---\ndescription: deploys\n---\n### Task 1\n" + leaked,
        "rollout_summary": "Deploys\n## Task 1\n" + leaked,
        "rollout_slug": CASES[0][2][0][:60],
    }
    return [{"text": json.dumps(stage1)}] * sessions + [
        {
            "tool_call": {
                "name": "write_file",
                "arguments": {"path": "MEMORY.md", "content": "# Deploys\n" + leaked},
            }
        },
        {"tool_call": {"name": "write_file", "arguments": {"path": "memory_summary.md", "content": leaked}}},
        {"text": "Wrote both files. " + SECRET_LINES[6]},
    ]


def test_a_memory_run_stores_no_secret_and_keeps_state_private(
    isolated_home: Any, model_standin: Any, tmp_path: Path
) -> None:
    from skillshelf.agent.consolidate import AgentConsolidator

    key = generate_keys(tmp_path / "keys", per_type=1)[0]
    shutil.rmtree(tmp_path / "keys")
    pieces = [*PIECES, "".join(key.strip().splitlines()[1:-1])]
    placed = _place_sessions(isolated_home, key)
    sessions = len(placed)
    standin = model_standin(_script(sessions, key))
    env, settings = _env(isolated_home), _settings(standin.url, concurrency=1)

    def consolidator() -> AgentConsolidator:
        return AgentConsolidator(
            model="openai:big", base_url=standin.url + "/v1", api_key="x", state_dir=env.dirs.state
        )

    store = open_store(None, data_dir=env.dirs.data)  # held open, so the WAL is still there to be read
    try:
        report = run_memory(env, settings, RunOptions(), store=store, consolidator=consolidator)
        assert report.outcomes == {"extracted": sessions} and report.errors == []
        assert [(c.status, c.consolidator) for c in report.consolidation] == [("consolidated", "agent")]
        data = env.dirs.data
        assert (data / "memory" / "state.sqlite-wal").is_file()
        assert _leaks(data, pieces) == {}  # database, WAL, memory folder
        assert _leaks(env.dirs.state, pieces) == {}  # the consolidation agent's transcript
        script = tuple(tmp_path.glob("standin-script-*"))  # the model's answers, secrets and all
        sessions_folders = (isolated_home.codex_home / "sessions", isolated_home.home / ".claude")
        assert _leaks(tmp_path, pieces, skip=(*sessions_folders, *script)) == {}  # requests, all else
        assert _private(data / "memory") == [] and _private(data / "memories") == []
        assert _private(env.dirs.state / "transcripts") == []
    finally:
        store.close()
    assert _leaks(data, pieces) == {}
    folder = next((data / "memories").iterdir())
    assert REDACTED in (folder / "MEMORY.md").read_text(encoding="utf-8")
    assert REDACTED in (folder / "raw_memories.md").read_text(encoding="utf-8")
    requests = json.dumps(standin.requests())
    assert "Run the unit tests" in requests and REDACTED in requests  # the task went, its secrets did not
    with open_store(None, data_dir=data) as again:
        rows = [again.session(i) for i in again.session_ids_for_paths([str(p) for p in placed])]
    assert len(rows) == 4 and all(row and REDACTED in row.first_user_message for row in rows)


def _bare_script(sessions: int, key: str, consolidator: str) -> list[dict[str, Any]]:
    """Replies that repeat each secret bare, out of the context any rule knows it by: Phase 1
    answers, then the consolidation's files (one JSON reply, or the agent's tool calls)."""
    body = key.strip().splitlines()[1:-1]
    bare = "\n".join(f"- remember {value} for later" for value in [*VALUES, *body])
    stage1 = {"raw_memory": "---\ndescription: deploys\n---\n### Task 1\n" + bare, "rollout_summary": bare}
    files = {"MEMORY.md": "# Deploys\n" + bare, "memory_summary.md": bare}
    replies = [{"text": json.dumps({**stage1, "rollout_slug": VALUES[8]})}] * sessions
    if consolidator == "direct":
        return [*replies, {"text": json.dumps({"files": files, "delete": []})}]
    writes = [
        {"tool_call": {"name": "write_file", "arguments": {"path": path, "content": text}}}
        for path, text in files.items()
    ]
    return [*replies, *writes, {"text": "Wrote both files:\n" + bare}]


@pytest.mark.parametrize("consolidator", ["direct", "agent"])
def test_secrets_a_model_repeats_bare_are_scrubbed_before_they_are_stored(
    isolated_home: Any, model_standin: Any, tmp_path: Path, consolidator: str
) -> None:
    from skillshelf.agent.consolidate import AgentConsolidator

    key = generate_keys(tmp_path / "keys", per_type=1)[0]
    shutil.rmtree(tmp_path / "keys")
    pieces = [*VALUES, "".join(key.strip().splitlines()[1:-1])]
    sessions = len(_place_sessions(isolated_home, key))
    standin = model_standin(_bare_script(sessions, key, consolidator))
    env = _env(isolated_home)

    def agent() -> AgentConsolidator:
        url = standin.url + "/v1"
        return AgentConsolidator(model="openai:big", base_url=url, api_key="x", state_dir=env.dirs.state)

    factory = agent if consolidator == "agent" else None
    report = run_memory(env, _settings(standin.url, concurrency=2), RunOptions(), consolidator=factory)
    assert report.outcomes == {"extracted": sessions} and report.errors == []
    assert [(c.status, c.consolidator) for c in report.consolidation] == [("consolidated", consolidator)]
    assert _leaks(env.dirs.data, pieces) == {}  # database, memory folder
    assert _leaks(env.dirs.state, pieces) == {}  # the consolidation agent's transcript
    requests = standin.requests()[sessions:]  # the consolidation's
    assert requests and left(json.dumps(requests), pieces) == [] and "remember" in json.dumps(requests)
    memory = next((env.dirs.data / "memories").iterdir()) / "MEMORY.md"
    assert f"- remember {REDACTED} for later" in memory.read_text(encoding="utf-8")


def test_transcripts_are_written_redacted_and_private(isolated_home: Any, tmp_path: Path) -> None:
    secret, task = CASES[8][2][0], CASES[8][1]  # a quoted passphrase
    path = tmp_path / "state" / "transcripts" / "2026" / "12" / "01" / "t.jsonl"
    with TranscriptWriter(path, session_id="s1", cwd=tmp_path) as writer:
        writer.message("user", task)
        writer.tool_call("c1", "bash", {"command": CASES[14][1], "env": {"DB_TOKEN": CASES[3][2][0]}})
        writer.tool_result("c1", "\n".join(SECRET_LINES))
    text = path.read_text(encoding="utf-8")
    assert left(text, PIECES) == [] and secret not in text
    assert all(json.loads(line) for line in text.splitlines())
    assert _mode(path) == 0o600
    assert [_mode(p) for p in (path.parent, path.parent.parent, path.parent.parent.parent)] == [0o700] * 3


def test_an_existing_database_and_its_wal_become_private(isolated_home: Any, tmp_path: Path) -> None:
    db = tmp_path / "old" / "state.sqlite"
    db.parent.mkdir()
    for name in ("state.sqlite", "state.sqlite-wal"):
        (db.parent / name).touch(mode=0o644)
        os.chmod(db.parent / name, 0o644)
    (db.parent / "state.sqlite-wal").unlink()
    folder_mode = _mode(db.parent)
    with open_store(f"sqlite:///{db}") as store:
        store.register_sessions([], 0)
        assert _mode(db) == 0o600
        assert [_mode(p) for p in db.parent.glob("state.sqlite-*")] == [0o600, 0o600]
    assert _mode(db.parent) == folder_mode  # a folder the user named keeps its mode
    data = tmp_path / "data" / "skillshelf"
    with open_store(None, data_dir=data):
        assert _private(data / "memory") == [] and _mode(data) == 0o700


def test_the_usage_log_is_private(isolated_home: Any) -> None:
    from skillshelf.select.usage import UsageStore

    store = UsageStore.in_state_dir(isolated_home.state / "skillshelf")
    store.record_turn("t1", {"bm25": ["a/SKILL.md"]}, project="p")
    assert _mode(store.path) == 0o600 and _mode(store.path.parent) == 0o700
    os.chmod(store.path, 0o644)
    store.record_load("a/SKILL.md", turn="t1", project="p")
    assert _mode(store.path) == 0o600


@pytest.mark.parametrize("older", [True, False])
def test_memory_folders_are_private(isolated_home: Any, tmp_path: Path, older: bool) -> None:
    from skillshelf.memory.phase2 import Consolidation, apply_consolidation, sync_artifacts

    root = tmp_path / "memories" / "proj-1"
    if older:  # a folder an older version made with the default mode
        root.mkdir(parents=True, mode=0o755)
        os.chmod(root, 0o755)
    sync_artifacts(root, [])
    apply_consolidation(
        root, Consolidation(files={"MEMORY.md": "# m\n", "skills/run-tests/SKILL.md": "x\n"}, delete=())
    )
    assert _private(root) == []


def test_the_hooks_log_and_the_memory_queue_are_private(tmp_path: Path) -> None:
    from skillshelf.hooks.runner import log_path, run_hook
    from skillshelf.memory.queue import QueuedSession, enqueue

    home = tmp_path / "home"
    env = Env.for_test(cwd=tmp_path, home=home)
    run_hook("claude", "PreCompact", b"{}", env=env, state_dir=env.dirs.state)
    entry = enqueue(env.dirs.state, QueuedSession(path=tmp_path / "s.jsonl", agent="claude"))
    for path in (log_path(env.dirs.state), entry):
        assert _mode(path) == 0o600 and _mode(path.parent) == 0o700, path
