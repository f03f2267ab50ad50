"""`skillshelf run` / `chat` when a message does not end in a final answer, when the model call
fails or is cancelled, and what of the user's environment the model can see."""

from __future__ import annotations

import http.server
import json
import os
import random
import socket
import string
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from skillshelf.cli.main import cli
from skillshelf.errors import UsageError

_rng = random.Random(20261207)


def _secret(n: int) -> str:
    """Random letters and digits (built at run time: no secret-shaped literals)."""
    return "".join(_rng.choice(string.ascii_letters + string.digits) for _ in range(n - 2)) + "Q7"


def _model(url: str) -> list[str]:
    return ["--model", "openai:standin", "--base-url", url, "--no-builtin"]


@pytest.fixture
def refusing_server() -> Iterator[str]:
    """A Chat Completions server whose every reply is a refusal; its /v1 URL."""

    class Refusing(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length", 0)))
            message = {"role": "assistant", "content": None, "refusal": "I can't help with that."}
            choice = {"index": 0, "message": message, "finish_reason": "stop"}
            body = json.dumps({"id": "c", "object": "chat.completion", "model": "m", "choices": [choice]})
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body.encode())

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Refusing)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def _closed_port_url() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{probe.getsockname()[1]}/v1"


@pytest.mark.usefixtures("isolated_home")
def test_a_refusal_is_shown_and_exits_1_not_taken_for_an_answer(
    tmp_path: Path, refusing_server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["run", "write notes", *_model(refusing_server)])
    assert result.exit_code == 1, result.output
    assert "I can't help with that." in result.stdout and "stopped: the model refused" in result.stderr
    result = CliRunner().invoke(cli, ["run", "write notes", *_model(refusing_server), "--json"])
    outcome = json.loads(result.stdout)
    assert outcome["stopped"] == "refused" and outcome["final_text"] == "I can't help with that."


@pytest.mark.usefixtures("isolated_home")
def test_the_model_never_sees_a_secret_of_the_user_s_environment(
    tmp_path: Path, model_standin: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    key, aws = "sk-proj-" + _secret(48), _secret(40)
    monkeypatch.setenv("OPENAI_API_KEY", key)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", aws)
    printed = "sk-proj-" + _secret(48)
    (tmp_path / ".env").write_text(f"OPENAI_API_KEY={printed}\n", encoding="utf-8")
    script = [{"tool_call": {"name": "bash", "arguments": {"command": "env; cat .env"}}}, {"text": "done"}]
    standin = model_standin(script)
    result = CliRunner().invoke(cli, ["run", "show the environment", *_model(standin.url + "/v1")])
    assert result.exit_code == 0, result.output
    sent = json.dumps(standin.requests()[1]["body"])
    assert "PATH=" in sent  # the environment is there, less its secrets
    assert key not in sent and aws not in sent and "AWS_SECRET_ACCESS_KEY" not in sent
    assert printed not in sent


def test_a_final_answer_reaches_a_terminal_with_its_escape_sequences_made_visible(
    tmp_path: Path, isolated_home: Any, model_standin: Any
) -> None:
    standin = model_standin([{"text": "answer \x1b]0;PWNED\x07 \x1b[2J done"}])
    leader, follower = os.openpty()
    args = [sys.executable, "-m", "skillshelf.cli.main", "run", "say done", *_model(standin.url + "/v1")]
    proc = subprocess.run(
        args, cwd=tmp_path, stdout=follower, stderr=subprocess.DEVNULL, timeout=120, check=False
    )
    os.close(follower)
    shown = b""
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the pty is closed once the process is gone
            break
        if not chunk:
            break
        shown += chunk
    os.close(leader)
    assert proc.returncode == 0
    assert b"\x1b]0;" not in shown and b"\x1b[2J" not in shown
    assert b"answer \\x1b]0;PWNED\\x07 \\x1b[2J done" in shown


def test_run_json_prints_a_failed_model_call_on_stdout_and_the_transcript_records_it(
    tmp_path: Path, isolated_home: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["run", "go", *_model(_closed_port_url()), "--json", "--timeout", "5"])
    assert result.exit_code == 1
    error = json.loads(result.stdout)
    assert error["code"] == "AG003" and error["fix"]
    [transcript] = isolated_home.state.rglob("*.jsonl")
    assert "error AG003" in transcript.read_text(encoding="utf-8").splitlines()[-1]


@pytest.mark.parametrize("url", ["notaurl", "ftp://127.0.0.1/v1", "http://", "http://127.0.0.1:port/v1"])
@pytest.mark.usefixtures("isolated_home")
def test_a_base_url_that_is_no_http_url_is_a_usage_error_before_any_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, url: str
) -> None:
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["run", "go", *_model(url)])
    assert isinstance(result.exception, UsageError) and result.exception.code == "AG007"
    assert result.exception.exit_code == 2


@pytest.mark.usefixtures("isolated_home")
def test_chat_keeps_the_session_after_a_failed_model_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    args = ["chat", *_model(_closed_port_url()), "--timeout", "5"]
    result = CliRunner().invoke(cli, args, input="first\nsecond\n")
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert result.stderr.count("error AG003") == 2  # the second message was read and tried too
    assert result.exit_code == 1


@pytest.mark.usefixtures("isolated_home")
def test_ctrl_c_during_a_chat_message_cancels_it_and_the_prompt_returns(
    tmp_path: Path, model_standin: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    interrupt = {"tool_call": {"name": "bash", "arguments": {"command": "kill -INT $PPID; sleep 30"}}}
    standin = model_standin([interrupt, {"text": "Here they are."}])
    result = CliRunner().invoke(cli, ["chat", *_model(standin.url + "/v1")], input="stop me\nlist files\n")
    assert result.exit_code == 0, result.output
    assert "cancelled" in result.stderr and "Here they are." in result.stdout
    second = json.dumps(standin.requests()[1]["body"])
    assert "the user cancelled this turn" in second  # the open call was answered


@pytest.mark.usefixtures("isolated_home")
def test_run_warns_the_user_of_a_mention_that_loads_no_skill(
    tmp_path: Path, model_standin: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / ".agents" / "skills" / "release-notes"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        "---\nname: release-notes\ndescription: Write release notes.\n---\nSteps.\n", encoding="utf-8"
    )
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    standin = model_standin([{"text": "Done."}])
    result = CliRunner().invoke(cli, ["run", "use $release-note for v2", *_model(standin.url + "/v1")])
    assert result.exit_code == 0, result.output
    assert "mention: SK420" in result.stderr and "release-notes" in result.stderr
    assert "SK420" not in json.dumps(standin.requests()[0]["body"])


@pytest.mark.usefixtures("isolated_home")
def test_a_blank_check_is_no_check_command(
    tmp_path: Path, model_standin: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    standin = model_standin([{"text": "Done."}])
    args = ["run", "say done", *_model(standin.url + "/v1"), "--check", "   ", "--json"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["check"]["command"] is None  # none found in this folder either
