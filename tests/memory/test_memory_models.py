"""The openai and anthropic SDK clients against a real loopback server."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from memory_helpers import ScriptedModel

from skillshelf.errors import ModelCallError
from skillshelf.memory.models import CallBudget, build_client, parse_json_reply
from skillshelf.memory.phase1 import STAGE1_SCHEMA


def test_openai_requests_carry_schema_effort_and_limits(scripted_model: ScriptedModel) -> None:
    scripted_model.reply = lambda body, n: '{"ok": true}'
    client = build_client(
        "openai:gpt-test",
        base_url=scripted_model.url + "/v1",
        api_key="k",
        max_output_tokens=123,
        timeout_s=10,
    )
    assert client.complete(system="sys", user="hi", schema=STAGE1_SCHEMA, effort="low") == '{"ok": true}'
    object_mode = build_client(
        "openai:gpt-test",
        base_url=scripted_model.url + "/v1",
        api_key="k",
        max_output_tokens=5,
        timeout_s=10,
        json_mode="object",
    )
    object_mode.complete(system="s", user="u", schema=STAGE1_SCHEMA, effort=None)
    first, second = (r["body"] for r in scripted_model.requests)
    assert first["model"] == "gpt-test" and first["max_completion_tokens"] == 123
    assert first["reasoning_effort"] == "low"
    assert first["response_format"]["json_schema"]["schema"] == STAGE1_SCHEMA
    assert first["messages"] == [{"role": "system", "content": "sys"}, {"role": "user", "content": "hi"}]
    assert second["response_format"] == {"type": "json_object"} and "reasoning_effort" not in second


def test_anthropic_requests_use_the_messages_api(scripted_model: ScriptedModel) -> None:
    client = build_client(
        "anthropic:claude-test", base_url=scripted_model.url, api_key="k", max_output_tokens=77, timeout_s=10
    )
    assert parse_json_reply(client.complete(system="sys", user="hi", schema=None, effort=None))
    (request,) = scripted_model.requests
    assert request["path"].startswith("/v1/messages")
    assert request["body"]["system"] == "sys" and request["body"]["max_tokens"] == 77


def test_unreachable_servers_and_budgets() -> None:
    client = build_client(
        "openai:x",
        base_url="http://127.0.0.1:9/v1",
        api_key="k",
        max_output_tokens=5,
        timeout_s=2,
        max_retries=0,
    )
    with pytest.raises(ModelCallError) as info:
        client.complete(system="s", user="u", schema=None, effort=None)
    assert info.value.code == "ME030"
    budget = CallBudget(2)
    assert [budget.take() for _ in range(3)] == [True, True, False] and budget.remaining == 0
    with pytest.raises(ModelCallError):
        parse_json_reply("no json here")
    with pytest.raises(ModelCallError) as deep:  # a reply nested past json's recursion limit
        parse_json_reply('{"a": ' + "[" * 100_000 + "]" * 100_000 + "}")
    assert deep.value.code == "ME033"


@pytest.fixture
def html_server() -> Iterator[str]:
    """A server that answers every request 200 with an HTML page, as a proxy's error page does."""

    class Page(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length", 0)))
            body = b"<html>bad gateway</html>"
            self.send_response(200)
            self.send_header("content-type", "text/html")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Page)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("model", ["openai:x", "anthropic:x"])
def test_a_reply_that_is_not_the_apis_json_says_so(html_server: str, model: str) -> None:
    client = build_client(model, base_url=html_server + "/v1", api_key="k", max_output_tokens=5, timeout_s=5)
    with pytest.raises(ModelCallError) as info:
        client.complete(system="s", user="u", schema=None, effort=None)
    assert info.value.code == "ME044" and "not the API's JSON" in info.value.message
    assert "bad gateway" in info.value.message and "--base-url" in (info.value.hint or "")


def test_a_timeout_has_its_own_hint(scripted_model: ScriptedModel) -> None:
    scripted_model.delay = lambda body: 1.0
    client = build_client(
        "openai:x",
        base_url=scripted_model.url + "/v1",
        api_key="k",
        max_output_tokens=5,
        timeout_s=0.2,
        max_retries=0,
    )
    with pytest.raises(ModelCallError) as info:
        client.complete(system="s", user="u", schema=None, effort=None)
    assert info.value.code == "ME030" and "APITimeoutError" in info.value.message
    assert "memory.request_timeout_s" in (info.value.hint or "")
