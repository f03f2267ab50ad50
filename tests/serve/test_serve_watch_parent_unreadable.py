"""A skill root whose parent folder cannot be searched for a while (a permission change) cannot be
looked at, listed or watched; its skills come back on their own once the parent can be searched
again, and later changes are seen, in `skillshelf serve` as it runs (bound by file modes).

Each case waits until the server has settled with the parent unreadable (it noted a folder it
cannot read, or its watch gave up), past the 3 s a watch takes to give up on failures in a row."""

from __future__ import annotations

import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import anyio
import mcp.types as types
import pytest
from mcp import Client
from serve_helpers import serve_args, stop, write_skill

import testkit

pytestmark = pytest.mark.usefixtures("isolated_home")

SETTLED = re.compile(r"SV210: the (skill )?folder .* cannot be read now|stopped following changes")
WAIT_S = 30.0


def _names(result: types.CallToolResult) -> set[str]:
    data = result.structured_content or {}
    return {row["name"] for row in data.get("skills", [])}


def _start(args: list[str], cwd: Path, lines: list[str]) -> tuple[subprocess.Popen[str], str]:
    """The server over HTTP, bound by file modes, once it says where it listens; its stderr lines
    keep arriving in ``lines``."""
    command = [*testkit.bound_by_file_modes(), sys.executable, *args, "--transport", "http", "--port", "0"]
    proc = subprocess.Popen(
        command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, encoding="utf-8"
    )
    assert proc.stderr is not None
    url, deadline = "", time.monotonic() + WAIT_S
    while not url and time.monotonic() < deadline and (line := proc.stderr.readline()):
        lines.append(line)
        if match := re.search(r"at (http://\S+)", line):
            url = match.group(1)
    if not url:
        stop(proc)
        raise AssertionError("the server did not start:\n" + "".join(lines))
    threading.Thread(target=lambda: lines.extend(proc.stderr or ()), daemon=True).start()
    return proc, url


@pytest.mark.parametrize("where", ["given", "in-project"])
def test_a_skill_root_whose_parent_is_unreadable_for_a_while_has_its_skills_back_and_follows_changes(
    tmp_path: Path, where: str
) -> None:
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    if where == "given":  # a --root: watched whatever discovery finds there
        root, given = tmp_path / "shelf" / "skills", tmp_path / "shelf" / "skills"
    else:  # a root discovery finds (Codex's): watched through its parent while it is missing
        root, given = project / ".agents" / "skills", tmp_path / "none"
        given.mkdir()
    parent = root.parent
    write_skill(root, "kept", "A skill whose parent folder is unreadable for a while.", "Body.")
    lines: list[str] = []
    proc, url = _start(serve_args(given), project, lines)

    async def listed(client: Client) -> set[str]:
        return _names(await client.call_tool("list_skills", {}))

    async def main() -> None:
        async with Client(url, mode="legacy") as client:
            assert await listed(client) == {"kept"}
            parent.chmod(0)
            write_skill(root, "second", "Written while the parent cannot be searched.", "Body.")
            with anyio.fail_after(WAIT_S):
                while await listed(client):  # the watch saw the change and reloaded without them
                    await anyio.sleep(0.05)
            with anyio.fail_after(WAIT_S):
                while not any(SETTLED.search(line) for line in lines):
                    await anyio.sleep(0.05)
            parent.chmod(0o755)  # no watch sees this
            with anyio.move_on_after(WAIT_S):
                while await listed(client) != {"kept", "second"}:
                    await anyio.sleep(0.1)
            assert await listed(client) == {"kept", "second"}, "".join(lines)
            write_skill(root, "third", "Written once the parent can be searched again.", "Body.")
            with anyio.move_on_after(WAIT_S):
                while "third" not in await listed(client):
                    await anyio.sleep(0.1)
            assert await listed(client) == {"kept", "second", "third"}, "".join(lines)

    try:
        anyio.run(main)
    finally:
        parent.chmod(0o755)
        stop(proc)
    assert not any("stopped following changes" in line for line in lines), "".join(lines)
