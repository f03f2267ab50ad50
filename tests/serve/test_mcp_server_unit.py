"""The MCP server in process (official client, in-memory transport): fixed tool set, paging,
URIs, trust marks, reloads."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import mcp.types as types
import pytest
from hypothesis import given
from hypothesis import strategies as st
from mcp import Client
from mcp.shared.exceptions import MCPError
from serve_helpers import make_skill_tree, write_skill

from skillshelf.serve.library import SkillLibrary
from skillshelf.serve.mcp_server import ServeOptions, build_server, parse_skill_uri, skill_uri
from skillshelf.skills.discover import discover_in
from skillshelf.skills.model import Skill

pytestmark = pytest.mark.usefixtures("isolated_home")


def _run(server: Any, body: Callable[[Client], Awaitable[Any]]) -> Any:
    async def main() -> Any:
        with anyio.fail_after(60):
            async with Client(server, mode="legacy") as client:
                return await body(client)

    return anyio.run(main)


def _skills(tmp_path: Path) -> tuple[Skill, ...]:
    return discover_in([make_skill_tree(tmp_path)]).skills


def test_the_tool_list_is_the_same_small_set_whatever_the_number_of_skills(tmp_path: Path) -> None:
    many = tmp_path / "many"
    for i in range(300):
        write_skill(many, f"skill-{i:03}", f"Skill number {i} does task {i} with care.", f"# Skill {i}\n")

    async def tool_list(client: Client) -> list[dict[str, Any]]:
        return [
            t.model_dump(by_alias=True, mode="json", exclude_none=True)
            for t in (await client.list_tools()).tools
        ]

    empty = _run(build_server([], ServeOptions(watch=False)), tool_list)
    full = _run(build_server(discover_in([many]).skills, ServeOptions(watch=False)), tool_list)
    assert empty == full and len(full) == 4
    assert len(json.dumps(full)) < 8000


def test_resources_and_prompts_page_with_cursors(tmp_path: Path) -> None:
    server = build_server(_skills(tmp_path), ServeOptions(watch=False, resource_page=2, prompt_page=1))

    async def body(client: Client) -> tuple[list[str], list[str]]:
        uris: list[str] = []
        cursor: str | None = None
        while True:
            page = await client.session.list_resources(params=types.PaginatedRequestParams(cursor=cursor))
            assert len(page.resources) <= 2
            uris += [str(r.uri) for r in page.resources]
            cursor = page.next_cursor
            if cursor is None:
                break
        first = await client.session.list_prompts(params=types.PaginatedRequestParams())
        second = await client.session.list_prompts(
            params=types.PaginatedRequestParams(cursor=first.next_cursor)
        )
        for bad in ("not-a-cursor", "\u00b2", "9" * 5000):
            with pytest.raises(MCPError) as caught:
                await client.session.list_resources(params=types.PaginatedRequestParams(cursor=bad))
            assert caught.value.code == types.INVALID_PARAMS, (bad[:10], caught.value.message)
        return uris, [p.name for p in first.prompts + second.prompts]

    uris, prompts = _run(server, body)
    assert len(uris) == len(set(uris)) == 6  # 3 SKILL.md + fill.py, fields.md, logo.png
    assert sorted(prompts) == ["pdf-forms", "release-notes"]


def test_untrusted_skills_are_marked_in_resources_prompts_and_loads(tmp_path: Path) -> None:
    skills = [dataclasses.replace(s, trusted=False) for s in _skills(tmp_path)]

    async def body(client: Client) -> None:
        resources = (await client.list_resources()).resources
        assert all(r.meta and r.meta["skillshelf/trusted"] is False for r in resources)
        prompt = next(p for p in (await client.list_prompts()).prompts if p.name == "pdf-forms")
        assert prompt.description and prompt.description.endswith("[untrusted project]")
        got = await client.get_prompt("pdf-forms")
        text = got.messages[0].content
        assert isinstance(text, types.TextContent) and text.text.startswith(
            "Note: this skill comes from a project"
        )

    _run(build_server(skills, ServeOptions(watch=False)), body)


def test_prompt_for_a_skill_that_is_not_user_invocable_is_refused(tmp_path: Path) -> None:
    async def body(client: Client) -> None:
        with pytest.raises(MCPError, match="not user-invocable"):
            await client.get_prompt("internal-helper")
        with pytest.raises(MCPError, match="SK404"):
            await client.get_prompt("no-such-skill")

    _run(build_server(_skills(tmp_path), ServeOptions(watch=False)), body)


def test_unknown_tool_is_a_protocol_error(tmp_path: Path) -> None:
    async def body(client: Client) -> None:
        with pytest.raises(MCPError, match="unknown tool 'rm_rf'") as info:
            await client.call_tool("rm_rf", {})
        assert info.value.code == types.INVALID_PARAMS

    _run(build_server(_skills(tmp_path), ServeOptions(watch=False)), body)


def test_reload_swaps_the_skills_and_reports_prompt_changes(tmp_path: Path) -> None:
    root = make_skill_tree(tmp_path)
    library = SkillLibrary.from_discover(lambda: discover_in([root]))
    assert library.watch_paths() == (root.resolve(),)
    assert not library.reload().prompts
    write_skill(root, "new-one", "A new skill for a new task.", "# New\n")
    change = library.reload()
    assert change.prompts and change.skills
    assert "new-one" in library.tools.names()
    assert "SKILL.md" in library.files_of(library.tools.get("new-one"))


names = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=20)
paths = st.lists(
    st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="/"), min_size=1, max_size=10),
    min_size=1,
    max_size=4,
).map("/".join)


@given(name=names, path=paths)
def test_skill_uris_round_trip(name: str, path: str) -> None:
    assert parse_skill_uri(skill_uri(name, path)) == (name, path)


@pytest.mark.parametrize(
    "uri", ["file:///etc/passwd", "skill://", "skill://name", "skill://name/", "skill:///x"]
)
def test_malformed_skill_uris_are_invalid_params(uri: str) -> None:
    with pytest.raises(MCPError) as info:
        parse_skill_uri(uri)
    assert info.value.code == types.INVALID_PARAMS


def test_sessions_of_disconnected_clients_are_forgotten(tmp_path: Path) -> None:
    server = build_server(_skills(tmp_path), ServeOptions(watch=False))

    async def body(client: Client) -> int:
        await client.list_tools()
        return server.notifier.legacy_sessions

    assert _run(server, body) == 1
    assert server.notifier.legacy_sessions == 0


def test_a_folder_that_cannot_be_watched_does_not_stop_the_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    import watchfiles

    def refuse(*_args: Any, **_kwargs: Any) -> Any:
        raise OSError("inotify watch limit reached")

    monkeypatch.setattr(watchfiles, "awatch", refuse)
    root = make_skill_tree(tmp_path)
    server = build_server(SkillLibrary.from_discover(lambda: discover_in([root])), ServeOptions(watch=True))

    async def body(client: Client) -> list[str]:
        await anyio.sleep(0.2)
        return [t.name for t in (await client.list_tools()).tools]

    assert len(_run(server, body)) == 4
    assert "cannot watch skill folders" in caplog.text
