"""Helpers for the memory tests: a scripted model server on loopback (OpenAI Chat Completions
and Anthropic Messages, with per-request latency and replies chosen from the request), a
writer for small skillshelf transcripts, a session put through Phase 1 in a store
(:func:`extracted`) and a consolidator that writes fixed files (:class:`FixedConsolidator`)."""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from skillshelf.memory.consolidation_run import Phase2Outcome, run_phase2_scope
from skillshelf.memory.consolidator import ConsolidationOutcome
from skillshelf.memory.models import CallBudget, JsonModel
from skillshelf.memory.phase2 import Consolidation
from skillshelf.memory.redact.echoes import NO_SECRETS, KnownSecrets
from skillshelf.memory.settings import MemorySettings
from skillshelf.memory.store import SessionRow, Store
from skillshelf.memory.store.base import ClaimLimits
from skillshelf.memory.transcripts.model import Item, Session

STAGE1_REPLY = {
    "raw_memory": "---\ndescription: test runner\n---\n### Task 1\n- tests run with make check",
    "rollout_summary": "Test runs\n## Task 1\n- Outcome: success\n- use make check",
    "rollout_slug": "test-runs",
}


def default_reply(body: dict[str, Any], n: int) -> str:
    """Phase-1 prompts get a memory naming the request number; consolidation gets files."""
    text = json.dumps(body)
    if "You maintain a folder of memories" in text:
        return json.dumps(
            {
                "files": {
                    "MEMORY.md": f"# Task Group: tests\nscope: project\n- run make check (request {n})\n",
                    "memory_summary.md": f"## User preferences\n- tests run with make check (request {n})\n",
                    "skills/run-tests/SKILL.md": (
                        "---\nname: run-tests\ndescription: Run this project's tests.\n---\nmake check\n"
                    ),
                },
                "delete": [],
            }
        )
    return json.dumps({**STAGE1_REPLY, "raw_memory": STAGE1_REPLY["raw_memory"] + f" (request {n})"})


class ScriptedModel:
    """Records every request; ``reply(body, n)`` makes the answer; ``delay(body)`` seconds first."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.reply: Callable[[dict[str, Any], int], str] = default_reply
        self.delay: Callable[[dict[str, Any]], float] = lambda body: 0.0
        self.lock = threading.Lock()
        self.server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        assert self.server is not None
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def count(self, needle: str) -> int:
        with self.lock:
            return sum(needle in json.dumps(r) for r in self.requests)

    def wait_for(self, needle: str, n: int, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while self.count(needle) < n:
            assert time.monotonic() < deadline, f"only {self.count(needle)} requests with {needle!r}"
            time.sleep(0.02)


def handler_for(model: ScriptedModel) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: object) -> None:
            pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
            with model.lock:
                model.requests.append({"path": self.path, "body": body})
                n = len(model.requests)
            time.sleep(model.delay(body))
            text = model.reply(body, n)
            if "/messages" in self.path:
                out: dict[str, Any] = {
                    "id": f"msg_{n}",
                    "type": "message",
                    "role": "assistant",
                    "model": "m",
                    "content": [{"type": "text", "text": text}],
                    "stop_reason": "end_turn",
                    "stop_sequence": None,
                    "usage": {"input_tokens": 1, "output_tokens": 1},
                }
            else:
                out = {
                    "id": f"c{n}",
                    "object": "chat.completion",
                    "created": 0,
                    "model": "m",
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": text},
                            "finish_reason": "stop",
                        }
                    ],
                }
            data = json.dumps(out).encode()
            try:
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except OSError:
                pass

    return Handler


def run_cli(capsys: Any, *argv: str) -> tuple[int, str, str]:
    """``skillshelf ARGV`` through the real entry point (testkit's ``run_cli``, argv spread)."""
    from testkit import run_cli as run

    return run(list(argv), capsys)


def write_skillshelf_transcript(
    path: Path, *, session_id: str, cwd: Path, task: str, mtime: float | None = None
) -> Path:
    """A small transcript in skillshelf's own format (what the reference agent writes)."""
    from skillshelf.memory.transcripts.skillshelf import TranscriptWriter

    with TranscriptWriter(path, session_id=session_id, cwd=cwd) as writer:
        writer.message("user", task)
        writer.tool_call("call_1", "shell", {"cmd": "make check"})
        writer.tool_result("call_1", "42 passed")
        writer.message("assistant", "All tests pass with make check.")
    if mtime is not None:
        os.utime(path, (mtime, mtime))
    return path


def user_session(folder: Path, text: str) -> Session:
    """A Codex session in ``folder`` holding one user message."""
    return Session(
        id="s",
        source="codex",
        path=folder / "r.jsonl",
        cwd=folder,
        started_at=None,
        ended_at=None,
        items=(Item(kind="message", role="user", parts=(text,)),),
    )


def write_claude_transcript(
    path: Path, *, session_id: str, cwd: Path | str, turns: list[str], sidechain: bool = False
) -> Path:
    """A Claude Code session file: ``turns`` alternate user and assistant messages; ``sidechain``
    marks them as a sub-agent's, as Claude Code does in ``<sid>/subagents/agent-*.jsonl``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [
        {
            "type": role,
            "isSidechain": sidechain,
            "sessionId": session_id,
            "cwd": str(cwd),
            "timestamp": f"2026-01-01T00:00:{n:02d}Z",
            "message": {"role": role, "content": text},
        }
        for n, (role, text) in enumerate(zip(("user", "assistant") * len(turns), turns, strict=False))
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


DAY_MS = 86_400_000


def extracted(
    store: Store,
    session_id: str,
    at_ms: int,
    *,
    scope: str,
    memory: str,
    summary: str | None = None,
    slug: str | None = None,
) -> None:
    """Register a Codex session of ``/w`` at ``at_ms`` and put it through Phase 1 into ``scope``
    with ``memory`` as its raw memory (and, unless ``summary`` is given, its rollout summary)."""
    row = SessionRow(
        id=session_id,
        source="codex",
        path=f"/t/{session_id}.jsonl",
        cwd="/w",
        project="/w",
        updated_at_ms=at_ms,
        first_user_message="task",
    )
    store.register_sessions([row], at_ms)
    limits = ClaimLimits(min_idle_ms=0, max_age_ms=10_000 * DAY_MS, running_cap=100)
    (claim,) = store.claim_stage1(worker_id="w", now_ms=at_ms, lease_ms=DAY_MS, limits=limits, limit=1)
    assert store.mark_stage1_succeeded(
        claim,
        scope=scope,
        raw_memory=memory,
        rollout_summary=memory if summary is None else summary,
        rollout_slug=slug,
        now_ms=at_ms,
    )


class FixedConsolidator:
    """A consolidator that writes MEMORY.md and memory_summary.md naming ``text``; ``during``
    runs while it "calls the model"."""

    name = "fake"

    def __init__(self, text: str, during: Callable[[], object] | None = None) -> None:
        self.text = text
        self.during = during

    def consolidate(
        self,
        prompt: str,
        memory_dir: Path,
        *,
        init: bool,
        effort: str | None,
        budget: CallBudget | None = None,
        known: KnownSecrets = NO_SECRETS,
    ) -> ConsolidationOutcome:
        if self.during is not None:
            self.during()
        files = dict.fromkeys(("MEMORY.md", "memory_summary.md"), f"{self.text}\n")
        return ConsolidationOutcome(consolidation=Consolidation(files=files, delete=()), consolidator="fake")


def no_model() -> JsonModel:
    """A model factory for runs that must call no model."""
    raise AssertionError("no model is called")


def fixed_phase2(
    store: Store,
    folder: Path,
    text: str,
    *,
    scope: str,
    now_ms: int,
    take_over: bool = False,
    during: Callable[[], object] | None = None,
) -> Phase2Outcome:
    """One Phase 2 run of ``scope`` into ``folder`` at ``now_ms`` whose consolidation writes
    ``text`` (:class:`FixedConsolidator`), calling no model."""
    return run_phase2_scope(
        scope,
        folder,
        store=store,
        model_factory=no_model,
        settings=MemorySettings(),
        clock=lambda: now_ms / 1000,
        worker_id="w",
        budget=CallBudget(None),
        consolidator_factory=lambda: FixedConsolidator(text, during),
        take_over=take_over,
    )
