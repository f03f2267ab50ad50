"""What the memory pipeline does with model answers it must not take: a Phase-1 answer longer
than the output cap allows, a body that breaks off mid-JSON, and a run that stops on an error
under ``--json``."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from memory_helpers import STAGE1_REPLY, ScriptedModel, run_cli, write_skillshelf_transcript

from skillshelf.errors import ModelCallError
from skillshelf.memory.models import build_client
from skillshelf.memory.phase1 import max_reply_bytes, parse_stage1_reply
from skillshelf.memory.store import open_store


def _reply_of(raw_memory: str) -> str:
    return json.dumps({**STAGE1_REPLY, "raw_memory": raw_memory})


def test_an_answer_within_the_output_cap_is_taken() -> None:
    limit = max_reply_bytes(100)
    reply = _reply_of("- " + "a" * 100)
    reply = reply.replace('"- ', '"- ' + "b" * (limit - len(reply)), 1)
    assert len(reply.encode()) == limit
    result = parse_stage1_reply(reply, max_output_tokens=100)
    assert result is not None and result.raw_memory.endswith("a" * 100)


@pytest.mark.parametrize("text", ["a", "é"], ids=["ascii", "two-byte"])
def test_an_answer_far_over_the_output_cap_is_refused_with_a_fix(text: str) -> None:
    limit = max_reply_bytes(8000)
    reply = _reply_of("- " + text * (limit // len(text.encode()) + 1))
    with pytest.raises(ModelCallError) as caught:
        parse_stage1_reply(reply, max_output_tokens=8000)
    assert caught.value.code == "ME047" and str(limit) in caught.value.message
    assert "retried" in caught.value.hint


def test_a_run_counts_an_oversized_answer_as_a_failed_attempt_and_stores_nothing(
    project: Path, isolated_home: Any, scripted_model: ScriptedModel, capsys: pytest.CaptureFixture[str]
) -> None:
    sessions = isolated_home.home / "t"
    write_skillshelf_transcript(
        sessions / "a.jsonl", session_id="huge", cwd=project, task="tests", mtime=time.time() - 3600
    )
    huge = "- " + "A" * 3_000_000
    scripted_model.reply = lambda body, n: _reply_of(huge)
    db = isolated_home.home / "memory.sqlite"
    code, out, err = run_cli(
        capsys,
        "memory",
        "run",
        "--sessions",
        str(sessions),
        "--db",
        str(db),
        "--model",
        "openai:small",
        "--base-url",
        scripted_model.url + "/v1",
        "--min-idle-hours",
        "0",
        "--json",
    )
    report = json.loads(out)
    assert code == 1 and "ME047" in err
    assert report["phase1"] == {"failed": 1} and "ME047" in report["errors"][0]
    assert report["phase2"] == []
    with open_store(f"sqlite:///{db}") as store:
        job = store.job("memory_stage1", "huge")
        assert store.outputs() == []
    assert job is not None and job["status"] == "error" and job["retry_remaining"] == 2
    assert str(job["last_error"]).startswith("ME047")
    assert not list(isolated_home.home.rglob("raw_memories.md"))


def test_memory_run_json_prints_a_fatal_error_as_json_on_stdout(
    project: Path, isolated_home: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_cli(
        capsys, "memory", "run", "--db", "postgresql://nobody@127.0.0.1:1/none", "--json"
    )
    assert code == 1 and "ME010" in err  # stderr and the exit code as without --json
    shown = json.loads(out)
    assert shown["code"] == "ME010" and "cannot connect" in shown["message"] and shown["fix"]


@pytest.fixture
def cut_off_server() -> Iterator[str]:
    """A model server whose 200 answers break off inside the JSON body."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"

        def log_message(self, *args: object) -> None:
            pass

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length", 0)))
            data = b'{"id":"x","choices":[{"message":{"content":"{\\"raw_mem'
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def test_a_cut_off_answer_says_it_is_not_the_apis_json_and_to_retry(cut_off_server: str) -> None:
    client = build_client(
        "openai:m", base_url=cut_off_server, api_key="k", max_output_tokens=100, timeout_s=5, max_retries=0
    )
    with pytest.raises(ModelCallError) as caught:
        client.complete(system="s", user="u", schema=None, effort=None)
    assert caught.value.code == "ME044" and "not the API's JSON" in caught.value.message
    assert "try again later" in caught.value.hint and "API key" not in caught.value.hint
