"""`skillshelf serve` over stdio answers every line a client waits on, even one the SDK refuses."""

from __future__ import annotations

import json
import queue
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from serve_helpers import make_skill_tree, stdio_server, stop

from skillshelf.serve.stdio import line_error

pytestmark = pytest.mark.usefixtures("isolated_home")

SURROGATE_CALL = (
    '{"jsonrpc":"2.0","id":2,"method":"tools/call",'
    '"params":{"name":"load_skill","arguments":{"name":"\\ud800"}}}'
)


class _Wire:
    """A raw line-by-line client over a `skillshelf serve` subprocess."""

    def __init__(self, proc: subprocess.Popen[str]) -> None:
        self.proc = proc
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def answer(self) -> Any:
        """The next line the server writes (a failure, not a hang, when none comes)."""
        try:
            return json.loads(self.lines.get(timeout=30))
        except queue.Empty:
            raise AssertionError("the server left the request unanswered") from None


@pytest.fixture
def wire(tmp_path: Path, isolated_home: object) -> Iterator[_Wire]:
    root = make_skill_tree(tmp_path)
    proc = stdio_server(root, tmp_path)
    client = _Wire(proc)
    hello = {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"},
    }
    try:
        client.send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello}))
        client.send('{"jsonrpc": "2.0", "method": "notifications/initialized"}')
        assert client.answer()["id"] == 1
        yield client
    finally:
        stop(proc)


def test_a_request_holding_a_lone_surrogate_gets_sv400_with_its_id_and_serving_goes_on(wire: _Wire) -> None:
    wire.send(SURROGATE_CALL)
    answer = wire.answer()
    assert answer["id"] == 2 and answer["error"]["code"] == -32602
    assert answer["error"]["message"].startswith(
        "SV400: the value at params.arguments.name holds '\\ud800' at position 0"
    )
    assert answer["error"]["data"]["code"] == "SV400"
    wire.send('{"jsonrpc":"2.0","id":3,"method":"tools/list"}')
    assert wire.answer()["id"] == 3


def test_a_line_that_is_not_json_gets_a_parse_error_with_a_null_id(wire: _Wire) -> None:
    wire.send("hello world")
    answer = wire.answer()
    assert answer["id"] is None and answer["error"]["code"] == -32700
    assert answer["error"]["message"].startswith("Parse error: ")
    wire.send('{"jsonrpc":"2.0","id":"no-method"}')
    assert wire.answer() == {
        "jsonrpc": "2.0",
        "id": "no-method",
        "error": {"code": -32600, "message": "Invalid Request: not a JSON-RPC 2.0 request"},
    }
    wire.send('{"jsonrpc":"2.0","id":4,"method":"tools/list"}')
    assert wire.answer()["id"] == 4


@pytest.mark.parametrize(
    "line",
    [
        "",
        "   ",
        '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
        '{"jsonrpc":"2.0","id":"1.5","method":"tools/list"}',
        '{"jsonrpc":"2.0","method":"notifications/initialized","params":{"id":true}}',
        '{"jsonrpc":"2.0","method":"notifications/x","params":{"a":"\\ud800"}}',  # never answered
        '{"jsonrpc":"2.0","id":9,"result":{"a":"\\ud800"}}',  # a response: never answered
    ],
)
def test_lines_the_sdk_takes_or_jsonrpc_never_answers_pass_through(line: str) -> None:
    assert line_error(line) is None


@pytest.mark.parametrize(
    ("line", "request_id", "code", "start"),
    [
        ("[" * 100_000, None, -32700, "Parse error: "),
        ("{", None, -32700, "Parse error: "),
        ('{"jsonrpc":"2.0","id":"\\udc00","method":"x"}', None, -32600, "Invalid Request: a lone"),
        ('{"jsonrpc":"2.0","id":4,"method":"\\ud800"}', 4, -32600, "SV400: the value at method holds"),
        ('{"jsonrpc":"2.0","id":"k","method":"x","params":{"\\ud800":1}}', "k", -32602, "SV400: the key at"),
        ('{"jsonrpc":"2.0","id":7,"method":42}', 7, -32600, "Invalid Request: not a JSON-RPC"),
        ("[1, 2]", None, -32600, "Invalid Request: not a JSON-RPC"),
        *(  # the SDK takes a request with such an id for a notification, which it never answers
            (
                f'{{"jsonrpc":"2.0","id":{bad},"method":"tools/list"}}',
                None,
                -32600,
                "Invalid Request: a request's id",
            )
            for bad in ("true", "1.5", "1.0", "[1]", "{}", "null", '{"\\u0069d":1}')
        ),
        ('{"jsonrpc":"2.0","\\u0069d":false,"method":"x"}', None, -32600, "Invalid Request: a request's id"),
    ],
)
def test_lines_the_sdk_would_drop_unanswered_get_an_error(
    line: str, request_id: object, code: int, start: str
) -> None:
    error = line_error(line)
    assert error is not None and error.id == request_id
    assert error.error.code == code and error.error.message.startswith(start)
