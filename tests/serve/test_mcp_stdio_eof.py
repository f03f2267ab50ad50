"""`skillshelf serve` over stdio answers every request read before the client closes stdin."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import mcp.types as types
import pytest
from serve_helpers import make_skill_tree, serve_args

from skillshelf.serve.stdio import Unanswered

pytestmark = pytest.mark.usefixtures("isolated_home")

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "pipe", "version": "0"},
    },
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def _call(request_id: int | str, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    params = {"name": tool, "arguments": arguments}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


def _piped(root: Path, cwd: Path, lines: list[str]) -> list[dict[str, Any]]:
    """What `skillshelf serve` writes for ``lines`` written at once, stdin closed right after."""
    done = subprocess.run(
        [sys.executable, *serve_args(root, "--no-watch")],
        cwd=cwd,
        input="".join(line + "\n" for line in lines),
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def test_tool_calls_piped_after_the_handshake_are_answered_when_stdin_closes_at_once(tmp_path: Path) -> None:
    root = make_skill_tree(tmp_path)
    calls = [_call(n, "load_skill", {"name": "pdf-forms"}) for n in (6, 7, 8)]
    lines = [json.dumps(m) for m in (INITIALIZE, INITIALIZED, *calls)]
    for _run in range(3):  # the answers raced the end of stdin: most runs lost some
        answers = {answer["id"]: answer for answer in _piped(root, tmp_path, lines)}
        assert sorted(answers) == [1, 6, 7, 8]
        assert "<name>pdf-forms</name>" in answers[8]["result"]["content"][0]["text"]


def test_every_request_and_refused_line_before_the_end_of_stdin_gets_its_answer(tmp_path: Path) -> None:
    root = make_skill_tree(tmp_path)
    lines = [
        json.dumps(INITIALIZE),
        json.dumps(INITIALIZED),
        json.dumps(_call("s", "search_skills", {"query": "fill in a PDF form"})),
        json.dumps(_call(7, "load_skill", {"name": "nope"})),
        '{"jsonrpc":"2.0","id":8,"method":"tools/list"}',
        '{"jsonrpc":"2.0","id":true,"method":"tools/list"}',
    ]
    answers = _piped(root, tmp_path, lines)
    by_id = {json.dumps(answer["id"]): answer for answer in answers}
    assert sorted(by_id) == ['"s"', "1", "7", "8", "null"]
    assert by_id['"s"']["result"]["structuredContent"]["results"][0]["name"] == "pdf-forms"
    assert by_id["7"]["result"]["isError"]
    assert by_id["null"]["error"]["code"] == -32600


def _request(request_id: int | str, method: str = "tools/list") -> types.JSONRPCRequest:
    return types.JSONRPCRequest(jsonrpc="2.0", id=request_id, method=method)


def test_requests_are_settled_by_their_answer_or_their_cancellation_as_the_sdk_correlates_ids() -> None:
    async def main() -> bool:
        unanswered = Unanswered()
        unanswered.read(_request("7"))
        unanswered.read(_request(7))
        unanswered.read(_request(8))
        unanswered.answered(types.JSONRPCResponse(jsonrpc="2.0", id=7, result={}))
        unanswered.answered(
            types.JSONRPCError(jsonrpc="2.0", id="7", error=types.ErrorData(code=1, message=""))
        )
        cancel = {"requestId": "8", "reason": "user"}
        unanswered.read(
            types.JSONRPCNotification(jsonrpc="2.0", method="notifications/cancelled", params=cancel)
        )
        with anyio.fail_after(30):
            return await unanswered.drained(60)

    assert anyio.run(main)


def test_a_subscription_answered_only_when_the_connection_ends_is_not_waited_for() -> None:
    async def main() -> bool:
        unanswered = Unanswered()
        unanswered.read(_request(3, "subscriptions/listen"))
        with anyio.fail_after(30):
            return await unanswered.drained(60)

    assert anyio.run(main)


def test_a_request_left_unanswered_holds_the_end_of_serving_no_longer_than_the_bound() -> None:
    async def main() -> bool:
        unanswered = Unanswered()
        unanswered.read(_request(1))
        unanswered.answered(types.JSONRPCResponse(jsonrpc="2.0", id=2, result={}))  # another id
        with anyio.fail_after(30):
            return await unanswered.drained(0.01)

    assert not anyio.run(main)
