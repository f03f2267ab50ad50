"""`skillshelf serve` over stdio, driven by the official MCP client in a subprocess."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import mcp.types as types
import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError
from serve_helpers import ESCAPES, make_skill_tree, serve_args, stdio_server, stop, write_skill

pytestmark = pytest.mark.usefixtures("isolated_home")

EXPECTED_TOOLS = {"search_skills", "load_skill", "read_skill_file", "list_skills"}


@pytest.fixture
def root(tmp_path: Path, isolated_home: object) -> Path:
    return make_skill_tree(tmp_path)


def _params(root: Path, cwd: Path, *extra: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable, args=serve_args(root, *extra), env=dict(os.environ), cwd=str(cwd)
    )


def _run(
    params: StdioServerParameters,
    body: Callable[[Client], Awaitable[Any]],
    *,
    mode: str = "auto",
    handler: Any = None,
) -> Any:
    async def main() -> Any:
        with anyio.fail_after(60):
            async with Client(params, mode=mode, message_handler=handler) as client:
                return await body(client)

    return anyio.run(main)


def _text(result: types.CallToolResult) -> str:
    return "\n".join(block.text for block in result.content if isinstance(block, types.TextContent))


def test_client_sees_four_tools_and_the_catalog_in_instructions(root: Path, tmp_path: Path) -> None:
    async def body(client: Client) -> None:
        tools = (await client.list_tools()).tools
        assert {t.name for t in tools} == EXPECTED_TOOLS
        assert all(t.annotations and t.annotations.read_only_hint for t in tools)
        instructions = client.instructions or ""
        assert "load_skill" in instructions
        assert "pdf-forms" in instructions and "release-notes" in instructions
        caps = client.server_capabilities
        assert caps.prompts and caps.prompts.list_changed
        assert caps.resources and caps.resources.list_changed

    _run(_params(root, tmp_path), body, mode="legacy")


def test_search_load_and_read_work_through_the_tools(root: Path, tmp_path: Path) -> None:
    async def body(client: Client) -> None:
        found = await client.call_tool("search_skills", {"query": "fill in a PDF form", "top_k": 2})
        assert not found.is_error
        assert found.structured_content["results"][0]["name"] == "pdf-forms"

        loaded = await client.call_tool("load_skill", {"name": "pdf-forms"})
        text = _text(loaded)
        assert "<name>pdf-forms</name>" in text and "Run scripts/fill.py" in text
        assert "- scripts/fill.py" in text and "- references/fields.md" in text

        ref = await client.call_tool("read_skill_file", {"name": "pdf-forms", "path": "references/fields.md"})
        assert _text(ref).startswith("# Field names")
        logo = await client.call_tool("read_skill_file", {"name": "pdf-forms", "path": "assets/logo.png"})
        assert "(image/png, " in _text(logo) and "base64" in _text(logo)
        assert loaded.structured_content is None  # the model reads the text, not a JSON copy

        typo = await client.call_tool("load_skill", {"name": "pdf-form"})
        assert typo.is_error and "SK404" in _text(typo) and "pdf-forms" in _text(typo)

        first = await client.call_tool("list_skills", {"limit": 2})
        assert first.structured_content["total"] == 3 and first.structured_content["next_cursor"] == "2"
        rest = await client.call_tool("list_skills", {"cursor": "2"})
        assert len(rest.structured_content["skills"]) == 1 and rest.structured_content["next_cursor"] is None

    _run(_params(root, tmp_path, "--no-watch"), body)


_OUT_OF_SCHEMA = [
    (0, "must be at least 1"),
    (-3, "must be at least 1"),
    (2.5, "must be an integer, not a number"),
    ("5", "must be an integer, not a string"),
    (1000, "must be at most 50"),
    (1e308, "must be at most 50"),
    (True, "must be an integer, not a boolean"),
    ("\u00b2", "must be an integer, not a string"),
]


def test_every_advertised_tool_refuses_what_its_schema_does_not_allow(root: Path, tmp_path: Path) -> None:
    async def body(client: Client) -> None:
        for top_k, rule in _OUT_OF_SCHEMA:
            result = await client.call_tool("search_skills", {"query": "pdf form", "top_k": top_k})
            assert result.is_error and _text(result).startswith(f"error SV400: argument 'top_k' {rule}")
            assert "fix: search_skills takes query" in _text(result)
        empty = await client.call_tool("search_skills", {"query": ""})
        assert empty.is_error and _text(empty).startswith("error SV400: argument 'query' is empty")
        tools = (await client.list_tools()).tools
        assert {t.name for t in tools} == EXPECTED_TOOLS
        for tool in tools:
            schema = tool.input_schema
            assert schema["additionalProperties"] is False
            valid = {k: 1 if p["type"] == "integer" else "pdf-forms" for k, p in schema["properties"].items()}
            extra = await client.call_tool(tool.name, {**valid, "extra": 1})
            assert extra.is_error and "argument 'extra' is not one this tool takes" in _text(extra), tool.name
            for key, prop in schema["properties"].items():
                wrong = await client.call_tool(
                    tool.name, {**valid, key: [] if prop["type"] == "string" else "1"}
                )
                assert wrong.is_error and f"SV400: argument {key!r} must be " in _text(wrong), (
                    tool.name,
                    key,
                )

    _run(_params(root, tmp_path, "--no-watch"), body)


def test_numbers_the_sdk_client_cannot_send_are_refused_as_they_arrive_on_the_wire(
    root: Path, tmp_path: Path
) -> None:
    # the SDK client sends NaN and the infinities as null (left out): a client that writes the
    # literals JSON has no number for, and floats, is driven by hand
    proc = stdio_server(root, tmp_path)
    assert proc.stdin is not None and proc.stdout is not None
    hello = {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"},
    }
    try:
        proc.stdin.write(
            json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello}) + "\n"
        )
        proc.stdin.write('{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
        proc.stdin.flush()
        assert json.loads(proc.stdout.readline())["id"] == 0
        wire = [("NaN", "an integer, not NaN"), ("-Infinity", "an integer, not Infinity")]
        wire += [("1e400", "an integer, not Infinity"), ("1e308", "at most 50"), ("0.0", "at least 1")]
        for n, (literal, rule) in enumerate(wire, 1):
            params = {"name": "search_skills", "arguments": {"query": "pdf form", "top_k": "TOP_K"}}
            call = json.dumps({"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": params})
            proc.stdin.write(call.replace('"TOP_K"', literal) + "\n")
            proc.stdin.flush()
            answer = json.loads(proc.stdout.readline())
            assert answer["id"] == n and answer["result"]["isError"] is True, literal
            assert f"SV400: argument 'top_k' must be {rule}\n" in answer["result"]["content"][0]["text"]
    finally:
        stop(proc)


def test_skill_files_are_resources_and_user_invocable_skills_are_prompts(root: Path, tmp_path: Path) -> None:
    async def body(client: Client) -> None:
        uris = {str(r.uri) for r in (await client.list_resources()).resources}
        assert {
            "skill://pdf-forms/SKILL.md",
            "skill://pdf-forms/scripts/fill.py",
            "skill://pdf-forms/assets/logo.png",
            "skill://release-notes/SKILL.md",
        } <= uris
        assert "skill://pdf-forms/leak.md" not in uris  # a symlink out of the folder is never listed
        templates = (await client.list_resource_templates()).resource_templates
        assert [t.uri_template for t in templates] == ["skill://{name}/{+path}"]

        read = await client.read_resource("skill://pdf-forms/references/fields.md")
        content = read.contents[0]
        assert isinstance(content, types.TextResourceContents) and content.text.startswith("# Field names")
        blob = (await client.read_resource("skill://pdf-forms/assets/logo.png")).contents[0]
        assert isinstance(blob, types.BlobResourceContents)

        prompts = {p.name: p for p in (await client.list_prompts()).prompts}
        assert set(prompts) == {"pdf-forms", "release-notes"}  # internal-helper is not user-invocable
        assert (
            prompts["release-notes"].arguments
            and prompts["release-notes"].arguments[0].description == "VERSION"
        )
        got = await client.get_prompt("release-notes", {"arguments": "v1.2.0"})
        message = got.messages[0].content
        assert isinstance(message, types.TextContent)
        assert "<name>release-notes</name>" in message.text and "v1.2.0" in message.text

    _run(_params(root, tmp_path, "--no-watch"), body)


def test_every_path_escape_attempt_is_refused(root: Path, tmp_path: Path) -> None:
    async def body(client: Client) -> None:
        for path in ESCAPES:
            result = await client.call_tool("read_skill_file", {"name": "pdf-forms", "path": path})
            text = _text(result)
            assert result.is_error, path
            assert "hunter2" not in text and ("SS403" in text or "SV400" in text), (path, text)
        for uri in (
            "skill://pdf-forms/..%2Fsecret.txt",
            "skill://pdf-forms/leak.md",
            "skill://pdf-forms/%2Fetc%2Fpasswd",
            "file:///etc/passwd",
            "skill://nope/SKILL.md",
        ):
            with pytest.raises(MCPError) as info:
                await client.read_resource(uri)
            assert "hunter2" not in str(info.value)

    _run(_params(root, tmp_path, "--no-watch"), body)


def test_a_skill_folder_swapped_for_a_symlink_after_start_is_not_read_through(
    root: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    (outside / "references").mkdir(parents=True)
    (outside / "references" / "fields.md").write_text("the password is hunter2\n", encoding="utf-8")

    async def body(client: Client) -> None:
        first = await client.call_tool(
            "read_skill_file", {"name": "pdf-forms", "path": "references/fields.md"}
        )
        assert not first.is_error
        os.rename(root / "pdf-forms", tmp_path / "aside")
        os.symlink(outside, root / "pdf-forms")
        result = await client.call_tool(
            "read_skill_file", {"name": "pdf-forms", "path": "references/fields.md"}
        )
        assert result.is_error and "SS403" in _text(result) and "hunter2" not in _text(result)
        with pytest.raises(MCPError) as info:
            await client.read_resource("skill://pdf-forms/references/fields.md")
        assert "hunter2" not in str(info.value)
        uris = {str(r.uri) for r in (await client.list_resources()).resources}
        assert not any(uri.startswith("skill://pdf-forms/") for uri in uris)

    _run(_params(root, tmp_path, "--no-watch"), body)


def test_a_new_skill_on_disk_reaches_a_handshake_era_client(root: Path, tmp_path: Path) -> None:
    seen: list[Any] = []
    changed = anyio.Event()

    async def handler(message: Any) -> None:
        seen.append(message)
        if isinstance(message, types.PromptListChangedNotification):
            changed.set()

    async def body(client: Client) -> None:
        before = {p.name for p in (await client.list_prompts()).prompts}
        assert "deploy-checklist" not in before
        await anyio.sleep(0.5)  # let the watcher start
        write_skill(root, "deploy-checklist", "Steps to check before a deploy.", "# Deploy\nRun the tests.\n")
        with anyio.fail_after(20):
            await changed.wait()
        after = {p.name for p in (await client.list_prompts()).prompts}
        assert "deploy-checklist" in after
        assert any(isinstance(m, types.ResourceListChangedNotification) for m in seen)
        loaded = await client.call_tool("load_skill", {"name": "deploy-checklist"})
        assert "Run the tests." in _text(loaded)

    _run(_params(root, tmp_path), body, mode="legacy", handler=handler)


def test_a_removed_skill_reaches_a_listening_modern_client(root: Path, tmp_path: Path) -> None:
    async def body(client: Client) -> None:
        assert client.protocol_version == "2026-07-28"
        async with client.listen(prompts_list_changed=True, resources_list_changed=True) as sub:
            await anyio.sleep(0.5)
            (root / "release-notes" / "SKILL.md").unlink()
            with anyio.fail_after(20):
                async for _event in sub:
                    break
        names = {p.name for p in (await client.list_prompts()).prompts}
        assert names == {"pdf-forms"}

    _run(_params(root, tmp_path), body)


def test_a_skills_folder_created_after_start_is_picked_up(tmp_path: Path, isolated_home: object) -> None:
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    changed = anyio.Event()

    async def handler(message: Any) -> None:
        if isinstance(message, types.PromptListChangedNotification):
            changed.set()

    async def body(client: Client) -> None:
        assert (await client.list_prompts()).prompts == []
        await anyio.sleep(0.5)
        write_skill(
            project / ".agents" / "skills", "fresh-skill", "A skill in a folder made later.", "# Fresh\n"
        )
        with anyio.fail_after(20):
            await changed.wait()
        names = {p.name for p in (await client.list_prompts()).prompts}
        assert names == {"fresh-skill"}

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "skillshelf.cli.main", "serve", "--no-builtin"],
        env=dict(os.environ),
        cwd=str(project),
    )
    _run(params, body, mode="legacy", handler=handler)
