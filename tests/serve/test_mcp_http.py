"""`skillshelf serve --transport http` in a subprocess, driven by the official MCP client."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import mcp.types as types
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from serve_helpers import ESCAPES, make_skill_tree, serve_args, start_http, stop, write_skill

from skillshelf.serve.http import normalise_host, url_host
from testkit import missing

pytestmark = pytest.mark.usefixtures("isolated_home")


@pytest.fixture
def root(tmp_path: Path, isolated_home: object) -> Path:
    return make_skill_tree(tmp_path)


@pytest.fixture
def http_server(root: Path, tmp_path: Path) -> Iterator[str]:
    proc, url, _log = start_http(root, tmp_path)
    yield url
    stop(proc)


def _text(result: types.CallToolResult) -> str:
    return "\n".join(block.text for block in result.content if isinstance(block, types.TextContent))


def test_http_server_binds_loopback_and_serves_tools_resources_and_prompts(http_server: str) -> None:
    assert http_server.startswith("http://127.0.0.1:") and http_server.endswith("/mcp")

    async def main() -> None:
        with anyio.fail_after(60):
            async with Client(http_server) as client:
                assert {t.name for t in (await client.list_tools()).tools} == {
                    "search_skills",
                    "load_skill",
                    "read_skill_file",
                    "list_skills",
                }
                found = await client.call_tool("search_skills", {"query": "release notes from git log"})
                assert found.structured_content["results"][0]["name"] == "release-notes"
                loaded = await client.call_tool("load_skill", {"name": "release-notes"})
                assert "Group commits as Added" in _text(loaded)
                for path in ESCAPES:
                    escape = await client.call_tool("read_skill_file", {"name": "pdf-forms", "path": path})
                    assert escape.is_error and "hunter2" not in _text(escape), path
                uris = {str(r.uri) for r in (await client.list_resources()).resources}
                assert "skill://pdf-forms/scripts/fill.py" in uris
                assert {p.name for p in (await client.list_prompts()).prompts} == {
                    "pdf-forms",
                    "release-notes",
                }

    anyio.run(main)


def test_change_on_disk_reaches_clients_over_http_and_updates_the_catalog(
    root: Path, http_server: str
) -> None:
    changed = anyio.Event()

    async def handler(message: Any) -> None:
        if isinstance(message, types.PromptListChangedNotification):
            changed.set()

    async def main() -> None:
        with anyio.fail_after(60):
            async with Client(http_server, mode="legacy", message_handler=handler) as client:
                await client.list_prompts()
                await anyio.sleep(0.5)
                write_skill(root, "db-migrations", "Write reversible database migrations.", "# Migrations\n")
                with anyio.fail_after(20):
                    await changed.wait()
                assert "db-migrations" in {p.name for p in (await client.list_prompts()).prompts}
            async with Client(http_server) as newcomer:  # a client arriving later gets the new catalog
                assert "db-migrations" in (newcomer.instructions or "")

    anyio.run(main)


def test_bearer_token_is_required_when_set(root: Path, tmp_path: Path) -> None:
    env = dict(os.environ, SKILLSHELF_MCP_TOKEN="s3cret-token")
    proc, url, _log = start_http(root, tmp_path, "--no-watch", env=env)
    try:
        body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
        for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": "s3cret-token"}):
            response = httpx.post(url, json=body, headers=headers, timeout=10)
            assert response.status_code == 401
            assert response.headers["www-authenticate"].startswith("Bearer")

        async def main() -> None:
            import httpx2

            async with (
                httpx2.AsyncClient(headers={"Authorization": "Bearer s3cret-token"}) as http,
                Client(streamable_http_client(url, http_client=http)) as client,
            ):
                assert len((await client.list_tools()).tools) == 4

        anyio.run(main)
    finally:
        stop(proc)


def test_port_in_use_gives_a_clear_error(root: Path, tmp_path: Path) -> None:
    proc, url, _log = start_http(root, tmp_path, "--no-watch")
    try:
        port = url.rsplit(":", 1)[1].split("/")[0]
        clash = subprocess.run(
            [sys.executable, *serve_args(root, "--transport", "http", "--port", port)],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            encoding="utf-8",
            timeout=60,
        )
        assert clash.returncode == 2
        assert "SV410" in clash.stderr and "Traceback" not in clash.stderr
    finally:
        stop(proc)


@pytest.mark.parametrize(
    ("args", "variable"),
    [(("--token", ""), None), (("--token", "  "), None), ((), ""), ((), " "), (("--token", ""), "set")],
)
def test_an_empty_token_is_a_usage_error_not_a_server_without_authentication(
    root: Path, tmp_path: Path, args: tuple[str, ...], variable: str | None
) -> None:
    env = {k: v for k, v in os.environ.items() if k != "SKILLSHELF_MCP_TOKEN"}
    if variable is not None:
        env["SKILLSHELF_MCP_TOKEN"] = variable
    run = subprocess.run(
        [sys.executable, *serve_args(root, "--transport", "http", "--port", "0", "--host", "0.0.0.0", *args)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=60,
    )
    assert run.returncode == 2, run.stderr
    assert "error SV400: the bearer token is empty" in run.stderr
    assert "serving" not in run.stderr and "Traceback" not in run.stderr


def test_non_loopback_bind_without_token_warns(root: Path, tmp_path: Path) -> None:
    proc, url, log = start_http(root, tmp_path, "--no-watch", "--host", "0.0.0.0")
    stop(proc)
    assert url.startswith("http://0.0.0.0:")
    assert any("SV420" in line and "--token" in line for line in log)


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "0"},
    },
}


def _initialize_status(url: str, headers: dict[str, str]) -> int:
    accept = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    body = json.dumps(INITIALIZE)
    with httpx.stream("POST", url, content=body, headers={**accept, **headers}, timeout=10) as response:
        return response.status_code


def _bindable(address: str) -> None:
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    try:
        with socket.socket(family) as probe:
            probe.bind((address, 0))
    except OSError:
        missing(f"a loopback address {address} to bind")


@pytest.mark.parametrize(
    ("host", "shown"),
    [
        ("[::1]", "[::1]"),
        ("0:0:0:0:0:0:0:1", "[::1]"),
        ("127.0.0.2", "127.0.0.2"),
        ("LocalHost", "localhost"),
    ],
)
def test_every_spelling_of_a_loopback_host_is_guarded_against_dns_rebinding(
    root: Path, tmp_path: Path, host: str, shown: str
) -> None:
    _bindable(normalise_host(host))
    proc, url, log = start_http(root, tmp_path, "--no-watch", "--host", host)
    try:
        assert re.fullmatch(rf"http://{re.escape(shown)}:\d+/mcp", url), url
        assert not any("SV420" in line for line in log)
        port = url.rsplit(":", 1)[1].split("/")[0]
        assert _initialize_status(url, {}) == 200
        as_given = f"{url_host(host.strip('[]'))}:{port}"  # the address as the user wrote it
        assert _initialize_status(url, {"Host": as_given}) == 200
        assert _initialize_status(url, {"Host": f"evil.example:{port}"}) == 421
        assert _initialize_status(url, {"Origin": "http://evil.example"}) == 403
        assert _initialize_status(url, {"Origin": f"http://{shown}:{port}"}) == 200
    finally:
        stop(proc)


@pytest.mark.parametrize(
    ("host", "bound"),
    [("[::1]", "::1"), ("0:0:0:0:0:0:0:1", "::1"), ("127.0.0.2", "127.0.0.2"), ("LOCALHOST", "localhost")],
)
def test_a_host_is_bound_and_shown_in_one_canonical_spelling(host: str, bound: str) -> None:
    assert normalise_host(host) == bound
    assert url_host(bound) == (f"[{bound}]" if ":" in bound else bound)


@pytest.mark.parametrize(
    ("header", "allowed"),
    [
        ("Bearer s3cret", True),
        ("bearer s3cret", True),
        ("BEARER s3cret", True),
        ("Bearer  s3cret", True),
        ("Bearer s3cret ", True),
        ("Bearer S3CRET", False),
        ("Basic s3cret", False),
        ("Bearers3cret", False),
        ("s3cret", False),
    ],
)
def test_the_bearer_scheme_is_matched_in_any_case_and_the_token_exactly(header: str, allowed: bool) -> None:
    from skillshelf.serve.http import BearerTokenMiddleware

    reached: list[bool] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        reached.append(True)

    async def send(message: Any) -> None:
        pass

    async def receive() -> Any:
        return {}

    middleware = BearerTokenMiddleware(app, "s3cret")
    scope = {"type": "http", "headers": [(b"authorization", header.encode())]}
    anyio.run(middleware, scope, receive, send)
    assert bool(reached) is allowed


def test_a_page_on_another_loopback_port_gets_no_cors_so_a_browser_cannot_reach_the_mcp_layer(
    http_server: str,
) -> None:
    page = {"Origin": "http://localhost:3000"}
    preflight = httpx.options(
        http_server,
        headers={
            **page,
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "content-type",
        },
        timeout=10,
    )
    assert preflight.status_code == 405  # the browser then never sends its application/json POST
    assert not any(name.startswith("access-control-") for name in preflight.headers)
    for simple in ("text/plain", "application/x-www-form-urlencoded"):  # no preflight for these
        refused = httpx.post(
            http_server, content=json.dumps(INITIALIZE), headers={**page, "Content-Type": simple}, timeout=10
        )
        assert refused.status_code == 400 and "mcp-session-id" not in refused.headers
    assert _initialize_status(http_server, page) == 200  # a loopback Origin on any port is let in
    assert _initialize_status(http_server, {"Origin": "http://evil.example:3000"}) == 403
