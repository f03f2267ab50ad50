"""The page server's answers to HEAD, to methods it does not take and to requests it cannot read."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from ui_helpers import Served

from testkit import IsolatedHome


@pytest.fixture
def served(tmp_path: Path, isolated_home: IsolatedHome) -> Iterator[Served]:
    box = Served(tmp_path)
    yield box
    box.close()


def _assert_guarded(response: httpx.Response) -> None:
    assert "default-src 'none'" in response.headers["content-security-policy"]
    assert response.headers["referrer-policy"] == "no-referrer"
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["cache-control"] == "no-store"


@pytest.mark.parametrize("method", ["PUT", "DELETE", "OPTIONS", "PATCH", "TRACE"])
@pytest.mark.parametrize(("path", "allow"), [("/", "GET, HEAD"), ("/api/memory/forget", "POST")])
def test_a_method_the_page_does_not_take_gets_405_as_json_with_allow(
    served: Served, method: str, path: str, allow: str
) -> None:
    response = served.page.http.request(method, path, params={"token": served.page.token}, content=b"{}")
    assert response.status_code == 405 and response.headers["allow"] == allow
    assert response.headers["content-type"].startswith("application/json")
    assert response.json()["error"] == "SV435" and method in response.json()["message"]
    _assert_guarded(response)


def test_a_method_http_does_not_define_gets_501_as_json(served: Served) -> None:
    response = served.page.http.request("BREW", "/")
    assert response.status_code == 501 and response.json()["error"] == "SV435"
    assert "BREW" in response.json()["message"]
    _assert_guarded(response)


def test_a_request_line_the_server_cannot_read_gets_its_status_as_json(served: Served) -> None:
    with socket.create_connection(("127.0.0.1", served.server.port), timeout=30) as sock:
        sock.sendall(b"GET /" + b"a" * 70_000 + b" HTTP/1.1\r\n\r\n")
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 414 ") and b"default-src 'none'" in head
    assert json.loads(body)["error"] == "SV400"


@pytest.mark.parametrize("path", ["/", "/static/app.js", "/api/overview"])
def test_head_is_get_without_the_body(served: Served, path: str) -> None:
    params = {"token": served.page.token}
    got = served.page.http.get(path, params=params)
    head = served.page.http.head(path, params=params)
    assert (head.status_code, head.content) == (200, b"")
    assert head.headers["content-length"] == str(len(got.content))
    assert head.headers["content-type"] == got.headers["content-type"]
    _assert_guarded(head)


def test_head_of_the_event_stream_answers_its_headers_and_ends(served: Served) -> None:
    head = served.page.http.head("/api/events", params={"token": served.page.token}, timeout=30)
    assert head.status_code == 200 and head.headers["content-type"].startswith("text/event-stream")
    assert head.content == b""


def test_head_without_the_token_is_refused_like_get(served: Served) -> None:
    head = served.page.http.head("/api/overview")
    assert head.status_code == 403 and head.content == b""
    _assert_guarded(head)


@pytest.mark.parametrize("path", ["/api/overview", "/api/budget", "/", "/api/events"])
def test_a_post_to_a_get_route_gets_405_with_allow_get_and_head(served: Served, path: str) -> None:
    response = served.page.post(path, {})
    assert response.status_code == 405 and response.headers["allow"] == "GET, HEAD"
    assert response.json()["error"] == "SV435"
    _assert_guarded(response)


def test_a_get_of_the_post_route_gets_405_with_allow_post(served: Served) -> None:
    response = served.page.get("/api/memory/forget")
    assert response.status_code == 405 and response.headers["allow"] == "POST"


def test_a_chunked_post_gets_411_saying_the_body_must_come_whole(served: Served) -> None:
    port = served.server.port
    request = (
        f"POST /api/memory/forget HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        f"X-Skillshelf-Token: {served.page.token}\r\nOrigin: http://127.0.0.1:{port}\r\n"
        "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
        "2\r\n{}\r\n0\r\n\r\n"
    )
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(request.encode("ascii"))
        data = b""
        while chunk := sock.recv(65536):  # the server closes: the chunks are never read as a request
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 411 ") and b"Connection: close" in head
    answer = json.loads(body)
    assert answer["error"] == "SV434" and "Content-Length" in answer["message"]
    assert "chunks" in answer["message"]


def test_a_window_out_of_range_gets_a_fix_that_names_a_window_in_tokens(served: Served) -> None:
    answer = served.page.get("/api/budget", window="-1").json()
    assert answer["error"] == "SV400" and "window=0" not in answer["fix"]
    assert "leave window out" in answer["fix"]


def test_every_error_answer_and_refusal_carries_a_fix(served: Served) -> None:
    page = served.page
    answers = {
        "body not an object": page.post("/api/memory/forget", ["not", "an", "object"]),
        "unknown GET path": page.get("/api/nothing"),
        "unknown POST path": page.post("/api/nothing", {}),
        "body too big": page.post("/api/memory/forget", {"x": "a" * 70_000}),
        "no token": page.get("/api/overview", token=False),
        "other origin": page.post("/api/memory/forget", {}, headers={"Origin": "http://evil.example"}),
        "not json": page.post("/api/memory/forget", {}, headers={"Content-Type": "text/plain"}),
        "wrong host": page.http.get("/", headers={"Host": "evil.example"}),
        "a method http does not define": page.http.request("BREW", "/"),
    }
    for why, response in answers.items():
        answer = response.json()
        assert response.status_code >= 400 and answer["error"].startswith("SV"), why
        assert isinstance(answer.get("fix"), str) and answer["fix"], why
