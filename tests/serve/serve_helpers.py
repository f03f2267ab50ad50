"""Helpers shared by the serve tests: a skill tree on disk and a `skillshelf serve` subprocess."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx

ESCAPES = [
    "../secret.txt",
    "../../secret.txt",
    "scripts/../../secret.txt",
    "/etc/passwd",
    "leak.md",
    "..\\secret.txt",
    "~/secret.txt",
    "scripts/\x00x",
    "/proc/self/environ",
    "C:\\secret.txt",
    "",
]
"""Paths that try to leave a skill folder (leak.md is a symlink to the secret beside it)."""

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(40))


#: The environment of a real Claude Code run in a test: quiet, offline, waiting for MCP servers.
QUIET = {
    "DISABLE_TELEMETRY": "1",
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    "DISABLE_AUTOUPDATER": "1",
    # wait for MCP servers before the first model request, even on a slow, busy machine
    "MCP_CONNECTION_NONBLOCKING": "false",
    "MCP_TIMEOUT": "60000",
    "MCP_CONNECT_TIMEOUT_MS": "60000",
}


def write_skill(root: Path, name: str, description: str, body: str, *, extra: str = "") -> Path:
    folder = root / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: {description}\n{extra}---\n{body}\n", encoding="utf-8"
    )
    return folder


def make_skill_tree(base: Path) -> Path:
    """Three skills under ``base/skills`` and a secret file beside them (for escape attempts)."""
    root = base / "skills"
    alpha = write_skill(
        root,
        "pdf-forms",
        "Fill in and flatten PDF forms with pypdf; use for any PDF form task.",
        "# PDF forms\nRun scripts/fill.py with the field values.\n",
    )
    (alpha / "scripts").mkdir()
    (alpha / "scripts" / "fill.py").write_text("print('filling')\n", encoding="utf-8")
    (alpha / "references").mkdir()
    (alpha / "references" / "fields.md").write_text("# Field names\nname, date\n", encoding="utf-8")
    (alpha / "assets").mkdir()
    (alpha / "assets" / "logo.png").write_bytes(PNG)
    write_skill(
        root,
        "release-notes",
        "Write release notes from a git log, grouped by change type.",
        "# Release notes\nGroup commits as Added, Changed, Fixed.\n",
        extra="argument-hint: VERSION\n",
    )
    write_skill(
        root,
        "internal-helper",
        "Background knowledge about the build system, loaded by the model only.",
        "# Build system\nThe build uses make.\n",
        extra="user-invocable: false\n",
    )
    (base / "secret.txt").write_text("the password is hunter2\n", encoding="utf-8")
    (alpha / "leak.md").symlink_to(base / "secret.txt")
    return root


def serve_args(root: Path, *extra: str) -> list[str]:
    return ["-m", "skillshelf.cli.main", "serve", "--root", str(root), "--no-builtin", *extra]


def stdio_server(root: Path, cwd: Path) -> subprocess.Popen[str]:
    """``skillshelf serve`` over stdio for the skills under ``root``, driven by hand (text pipes;
    stderr dropped)."""
    return subprocess.Popen(
        [sys.executable, *serve_args(root, "--no-watch")],
        cwd=cwd,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        encoding="utf-8",
    )


def _drain(stream: Any) -> None:
    for _line in stream:
        pass


def start_http(
    root: Path, cwd: Path, *extra: str, env: dict[str, str] | None = None
) -> tuple[subprocess.Popen[str], str, list[str]]:
    """Start `skillshelf serve --transport http --port 0`; return (process, MCP URL, stderr lines so far)."""
    proc = subprocess.Popen(
        [sys.executable, *serve_args(root, "--transport", "http", "--port", "0", *extra)],
        cwd=cwd,
        env=env or dict(os.environ),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
    )
    assert proc.stderr is not None
    deadline = time.monotonic() + 30
    lines: list[str] = []
    while time.monotonic() < deadline:
        line = proc.stderr.readline()
        if not line:
            break
        lines.append(line)
        match = re.search(r"at (http://\S+)", line)
        if match:
            threading.Thread(target=_drain, args=(proc.stderr,), daemon=True).start()  # keep the pipe empty
            return proc, match.group(1), lines
    proc.kill()
    raise AssertionError("the HTTP server did not start:\n" + "".join(lines))


def stop(proc: subprocess.Popen[str] | subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


MCP_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
"""What an MCP client sends with a POST to the streamable HTTP transport."""
INITIALIZE = (
    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",'
    '"capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}'
)


def post_mcp(url: str, body: str | bytes, **headers: str) -> httpx.Response:
    """One POST to a served MCP endpoint, with :data:`MCP_HEADERS` (``headers`` added or replacing)."""
    return httpx.post(url, content=body, headers={**MCP_HEADERS, **headers}, timeout=30)
