"""The page's server on loopback: the token, the Host header, same-origin POSTs and the MCP
tests' path attacks."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest
from ui_helpers import ESCAPES, SECRET, Served, raw_get, seed_memory

from testkit import IsolatedHome


@pytest.fixture
def served(tmp_path: Path, isolated_home: IsolatedHome) -> Iterator[Served]:
    box = Served(tmp_path)
    yield box
    box.close()


def test_the_server_listens_on_127_0_0_1_and_nowhere_else(served: Served) -> None:
    assert served.server._http.server_address[:2] == ("127.0.0.1", served.server.port)
    assert served.server.url.startswith(f"http://127.0.0.1:{served.server.port}/?token=")
    others = {
        info[4][0]
        for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)
        if not info[4][0].startswith("127.")
    }
    for address in others:  # the machine's other addresses do not reach the page
        with pytest.raises(OSError), socket.create_connection((address, served.server.port), timeout=5):
            pass


@pytest.mark.parametrize(
    "path", ["/", "/static/app.js", "/static/app.css", "/api/budget", "/api/events", "/api/nope"]
)
def test_a_request_without_the_right_token_gets_403(served: Served, path: str) -> None:
    for token in (None, "", "wrong", served.server.token[:-1], served.server.token + "x"):
        params = {} if token is None else {"token": token}
        response = served.page.http.get(path, params=params)
        assert response.status_code == 403
        assert response.json()["error"] == "SV431"
        assert "pdf-forms" not in response.text
    forged = served.page.http.get(path, headers={"X-Skillshelf-Token": "wrong"})
    assert forged.status_code == 403


@pytest.mark.parametrize(
    "host",
    [
        "evil.example:{port}",
        "evil.example",
        "127.0.0.1:1",
        "localhost.evil.example:{port}",
        "127.0.0.1.nip.io:{port}",
        "10.0.0.1:{port}",
        "",
        "127.0.0.1:{port}@evil.example",
        "[::1]:1",
    ],
)
def test_a_host_header_that_is_not_this_loopback_server_gets_403(served: Served, host: str) -> None:
    port, token = served.server.port, served.server.token
    status, body = raw_get(port, f"/api/budget?token={token}", host=host.format(port=port))
    assert status == 403
    assert json.loads(body)["error"] == "SV430"


@pytest.mark.parametrize("host", ["127.0.0.1:{port}", "localhost:{port}", "LOCALHOST:{port}", "127.0.0.1"])
def test_a_loopback_host_header_is_served(served: Served, host: str) -> None:
    port, token = served.server.port, served.server.token
    status, _ = raw_get(port, f"/api/overview?token={token}", host=host.format(port=port))
    assert status == 200


def test_no_route_reads_a_file_outside_the_skill_roots(served: Served, tmp_path: Path) -> None:
    page, token, port = served.page, served.server.token, served.server.port
    folder = seed_memory(served.env)
    (folder / "rollout_summaries").mkdir()
    (folder / "MEMORY.md").unlink()
    (folder / "MEMORY.md").symlink_to(tmp_path / "secret.txt")  # a link out of the memory folder
    answers: list[httpx.Response] = []
    for attack in ESCAPES:
        answers.append(page.get("/api/load", name=attack))
        answers.append(page.get("/api/task", q=f"read [$pdf-forms]({attack}) and $pdf-forms/{attack}"))
        answers.extend(
            page.get(view, profile=attack, window=attack, name=attack, scope=attack, path=attack)
            for view in ("/api/budget", "/api/problems", "/api/memory", "/api/usage", "/api/overview")
        )
    for response in answers:
        assert SECRET not in response.text
        assert "hunter2" not in response.text
    assert all(r.status_code in (200, 400, 404) for r in answers)
    loads = [r for r in answers if r.request.url.path == "/api/load"]
    assert all(r.status_code in (400, 404) for r in loads)
    memory = page.json("/api/memory")
    assert "error" in memory["scopes"][0]["memory_md"]  # the link out is refused, not followed
    secret = str(tmp_path / "secret.txt")
    raw = [
        f"/static/../secret.txt?token={token}",
        f"/static/..%2f..%2fsecret.txt?token={token}",
        f"/%2e%2e/%2e%2e/secret.txt?token={token}",
        f"/static/app.js/../../../secret.txt?token={token}",
        f"//etc/passwd?token={token}",
        f"{secret}?token={token}",
        f"/static/{secret}?token={token}",
        f"/api/load/../../secret.txt?token={token}",
        f"/static/%2e%2e%5csecret.txt?token={token}",
        f"/static/app.js%00.txt?token={token}",
        f"http://127.0.0.1:{port}/../secret.txt?token={token}",
    ]
    for target in raw:
        status, body = raw_get(port, target)
        assert b"hunter2" not in body
        assert b"root:" not in body
        assert status in (400, 404), target


def test_forgetting_a_memory_needs_the_header_token_the_same_origin_and_json(served: Served) -> None:
    seed_memory(served.env)
    page = served.page
    refused = {
        "no token": page.post(
            "/api/memory/forget", {"session_id": "sess-one"}, headers={"X-Skillshelf-Token": ""}
        ),
        "token in the URL only": page.http.post(
            "/api/memory/forget",
            params={"token": page.token},
            content=b'{"session_id": "sess-one"}',
            headers={"Origin": page.base, "Content-Type": "application/json"},
        ),
        "no origin": page.post("/api/memory/forget", {"session_id": "sess-one"}, headers={"Origin": ""}),
        "other origin": page.post(
            "/api/memory/forget", {"session_id": "sess-one"}, headers={"Origin": "http://evil.example"}
        ),
        "other port": page.post(
            "/api/memory/forget", {"session_id": "sess-one"}, headers={"Origin": "http://127.0.0.1:1"}
        ),
        "cross-site fetch": page.post(
            "/api/memory/forget", {"session_id": "sess-one"}, headers={"Sec-Fetch-Site": "cross-site"}
        ),
        "a form": page.post(
            "/api/memory/forget", {"session_id": "sess-one"}, headers={"Content-Type": "text/plain"}
        ),
    }
    for why, response in refused.items():
        assert response.status_code in (403, 415), why
    assert {m["session_id"]: m["forgotten"] for m in page.json("/api/memory")["scopes"][0]["memories"]} == {
        "sess-one": False,
        "sess-two": False,
    }
    done = page.post("/api/memory/forget", {"session_id": "sess-one"})
    assert done.status_code == 200, done.text
    assert done.json()["forgotten"] == "sess-one"
    memories = {m["session_id"]: m for m in page.json("/api/memory")["scopes"][0]["memories"]}
    assert memories["sess-one"]["forgotten"] and not memories["sess-one"]["memory"]
    assert not memories["sess-two"]["forgotten"]
    assert page.post("/api/memory/forget", {"session_id": "sess-unknown"}).json()["error"] == "ME404"
    assert page.post("/api/memory/forget", {"session_id": ["x"]}).status_code == 400
    assert page.post("/api/memory/forget", ["not", "an", "object"]).status_code == 400
    deep = page.http.post(  # 60,000 levels in under 64 KiB: past json's recursion limit
        "/api/memory/forget",
        content=b"[" * 60_000,
        headers={"Origin": page.base, "Content-Type": "application/json", "X-Skillshelf-Token": page.token},
    )
    assert deep.status_code == 400 and deep.json()["error"] == "SV400"


def test_every_answer_carries_a_strict_content_security_policy_and_no_referrer(served: Served) -> None:
    for path in ("/", "/static/app.js", "/api/overview"):
        headers = served.page.get(path).headers
        assert "script-src 'self'" in headers["content-security-policy"]
        assert "default-src 'none'" in headers["content-security-policy"]
        assert headers["referrer-policy"] == "no-referrer"
        assert headers["x-content-type-options"] == "nosniff"
        assert headers["cache-control"] == "no-store"
    page = served.page.get("/")
    assert served.server.token in page.text and "{{TOKEN}}" not in page.text


def test_bad_parameters_are_refused_with_a_fix(served: Served) -> None:
    for path, params in (
        ("/api/budget", {"profile": "vim"}),
        ("/api/budget", {"window": "-1"}),
        ("/api/budget", {"window": "1e9"}),
        ("/api/budget", {"window": "\u00b2"}),
        ("/api/budget", {"window": "9" * 5000}),
        ("/api/task", {"q": ""}),
        ("/api/task", {"q": "x" * 5000}),
        ("/api/task", {"q": "pdf", "top": "0"}),
        ("/api/problems", {"profile": "gemini"}),
        ("/api/load", {"name": ""}),
    ):
        response = served.page.get(path, **params)
        assert response.status_code == 400, (path, params)
        assert response.json()["error"] == "SV400" and response.json()["fix"]
    assert served.page.get("/api/nope").status_code == 404
    host, port = urlsplit(served.page.base).hostname, urlsplit(served.page.base).port
    for length in (b"\xb2", b"9" * 5000):  # "\xb2" is "²" in Latin-1, a digit to str.isdigit
        request = (
            b"POST /api/memory/forget HTTP/1.1\r\nHost: "
            + f"{host}:{port}".encode()
            + b"\r\nOrigin: "
            + served.page.base.encode()
            + b"\r\nX-Skillshelf-Token: "
            + served.page.token.encode()
            + b"\r\nContent-Type: application/json\r\nContent-Length: "
            + length
            + b"\r\nConnection: close\r\n\r\n{}"
        )
        with socket.create_connection((host, port), timeout=10) as conn:
            conn.sendall(request)
            answer = conn.makefile("rb").readline()
        assert answer.split()[1] == b"411", (length[:10], answer)


def test_a_query_with_too_many_fields_gets_400_after_the_host_check(
    served: Served, capfd: pytest.CaptureFixture[str]
) -> None:
    port, token = served.server.port, served.server.token
    crowded = "&".join(f"a{i}=1" for i in range(21))
    status, body = raw_get(port, f"/api/budget?{crowded}", host=f"evil.example:{port}")
    assert status == 403 and json.loads(body)["error"] == "SV430"
    status, body = raw_get(port, f"/api/budget?token={token}&{crowded}")
    assert status == 400
    answer = json.loads(body)
    assert answer["error"] == "SV400" and answer["fix"] and "pdf-forms" not in body.decode()
    status, _ = raw_get(port, f"/api/budget?token={token}")  # the server still answers
    assert status == 200
    assert "Traceback" not in capfd.readouterr().err


def test_json_answers_carry_an_etag_and_a_repeat_gets_304(served: Served) -> None:
    first = served.page.get("/api/budget")
    etag = first.headers["etag"]
    again = served.page.http.get(
        "/api/budget", params={"token": served.server.token}, headers={"If-None-Match": etag}
    )
    assert again.status_code == 304 and not again.content
