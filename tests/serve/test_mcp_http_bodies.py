"""`skillshelf serve --transport http` answers a body the SDK refuses as stdio answers the line."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from serve_helpers import INITIALIZE, MCP_HEADERS, make_skill_tree, post_mcp, start_http, stop

from skillshelf.serve.jsonrpc_check import refusal

pytestmark = pytest.mark.usefixtures("isolated_home")

SURROGATE_CALL = (
    '{"jsonrpc":"2.0","id":2,"method":"tools/call",'
    '"params":{"name":"load_skill","arguments":{"name":"\\ud800"}}}'
)


@pytest.fixture
def url(tmp_path: Path, isolated_home: object) -> Iterator[str]:
    proc, address, _log = start_http(make_skill_tree(tmp_path), tmp_path, "--no-watch")
    yield address
    stop(proc)


def test_a_request_holding_a_lone_surrogate_gets_400_with_sv400_and_its_id_after_the_host_checks(
    url: str,
) -> None:
    response = post_mcp(url, SURROGATE_CALL)
    assert response.status_code == 400
    assert response.headers["content-type"] == "application/json"
    assert "mcp-session-id" not in response.headers  # no session is opened for it
    answer = response.json()
    assert answer["jsonrpc"] == "2.0" and answer["id"] == 2
    assert answer["error"]["code"] == -32602
    assert answer["error"]["message"].startswith(
        "SV400: the value at params.arguments.name holds '\\ud800' at position 0"
    )
    assert answer["error"]["data"]["code"] == "SV400" and answer["error"]["data"]["fix"]
    with httpx.stream("POST", url, content=INITIALIZE, headers=MCP_HEADERS, timeout=30) as opened:
        assert opened.status_code == 200 and opened.headers["mcp-session-id"]
    port = url.rsplit(":", 1)[1].split("/")[0]  # the rebinding guard still answers first
    assert post_mcp(url, SURROGATE_CALL, Host=f"evil.example:{port}").status_code == 421
    assert post_mcp(url, SURROGATE_CALL, Origin="http://evil.example").status_code == 403


@pytest.mark.parametrize(
    ("body", "code", "start"),  # a body that is no JSON gets -32700 from the SDK as from stdio
    [
        ('{"jsonrpc":"2.0","idx":3}', -32600, "Invalid Request: not a JSON-RPC 2.0 request"),
        ('{"jsonrpc":"2.0","method":"notifications/x","params":{"a":"\\udc00"}}', -32602, "SV400: "),
        *(  # the SDK took these for notifications and asked for a session
            (
                f'{{"jsonrpc":"2.0","id":{bad},"method":"initialize","params":{{}}}}',
                -32600,
                "Invalid Request: ",
            )
            for bad in ("{}", "true", "1.5", "[1]", "null")
        ),
    ],
)
def test_a_body_the_sdk_refuses_gets_400_with_the_error_stdio_gives(
    url: str, body: str | bytes, code: int, start: str
) -> None:
    response = post_mcp(url, body)
    assert response.status_code == 400
    answer = response.json()
    assert answer["id"] is None and answer["error"]["code"] == code
    assert answer["error"]["message"].startswith(start)
    assert "validation error" not in response.text.lower() and "hex escape" not in response.text


def test_a_bad_body_naming_an_unknown_session_gets_the_sdks_404_so_the_client_starts_again(url: str) -> None:
    response = post_mcp(url, "xx", **{"mcp-session-id": "nope"})
    assert response.status_code == 404
    with httpx.stream("POST", url, content=INITIALIZE, headers=MCP_HEADERS, timeout=30) as opened:
        session = opened.headers["mcp-session-id"]
    known = post_mcp(url, "xx", **{"mcp-session-id": session})  # a session it holds: the body is checked
    assert known.status_code == 400 and known.json()["error"]["code"] == -32700


def test_a_bearer_token_is_checked_before_the_body(tmp_path: Path, isolated_home: object) -> None:
    proc, url, _log = start_http(make_skill_tree(tmp_path), tmp_path, "--no-watch", "--token", "t0ken")
    try:
        assert post_mcp(url, SURROGATE_CALL).status_code == 401
        assert post_mcp(url, SURROGATE_CALL, Authorization="Bearer t0ken").json()["error"]["code"] == -32602
    finally:
        stop(proc)


def test_bytes_that_are_no_utf8_are_a_parse_error_and_valid_bodies_are_taken() -> None:
    broken = refusal(b'{"jsonrpc":"2.0","id":1,"method":"\xff"}')
    assert broken is not None and broken.error.error.code == -32700 and broken.awaited
    assert refusal(INITIALIZE.encode()) is None
    notification = refusal('{"jsonrpc":"2.0","method":"x","params":{"a":"\\ud800"}}')
    assert notification is not None and not notification.awaited
    assert notification.error.id is None and notification.error.error.message.startswith("SV400: ")
