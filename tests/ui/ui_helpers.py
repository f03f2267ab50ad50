"""Helpers shared by the ui tests: a skill tree, a seeded memory store and usage log, a client
for the page's server, and the MCP tests' list of path attacks."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from skillshelf.env import Env
from skillshelf.serve.ui import UiOptions, UiServer
from skillshelf.workspace import WorkspaceOptions
from testkit import REPO, run_cli

__all__ = [
    "Served",
    "ESCAPES",
    "SECRET",
    "Page",
    "make_tree",
    "raw_get",
    "start_ui",
    "seed_memory",
    "seed_usage",
    "write_skill",
]

SECRET = "the password is hunter2"


def _serve_helpers() -> Any:
    spec = importlib.util.spec_from_file_location(
        "ui_serve_helpers", REPO / "tests" / "serve" / "serve_helpers.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_SERVE = _serve_helpers()
ESCAPES: list[str] = list(_SERVE.ESCAPES)
"""The MCP tests' path attacks (``leak.md`` is a symlink to a secret beside the skills)."""
write_skill = _SERVE.write_skill
"""``write_skill(root, name, description, body, *, extra="")``: the MCP tests' skill writer."""
BODY = "# Body\nDo the thing.\n"


def make_tree(base: Path) -> tuple[Path, Path]:
    """A project (a git repo folder) and a skills root beside it holding: PDF and release-note
    skills, a name held twice (``helper``, in two sub-folders), a file without frontmatter,
    and a secret next to the root with a symlink to it inside a skill (for escape attempts)."""
    project = base / "project"
    (project / ".git").mkdir(parents=True)
    root = base / "skills"
    pdf = write_skill(
        root,
        "pdf-forms",
        "Fill in and flatten PDF forms with pypdf; use for any PDF form task.",
        "# PDF forms\nRun scripts/fill.py with the field values.\n",
    )
    (pdf / "scripts").mkdir()
    (pdf / "scripts" / "fill.py").write_text("print('filling')\n", encoding="utf-8")
    write_skill(root, "release-notes", "Write release notes from a git log, grouped by change type.", BODY)
    write_skill(root, "video-trim", "Trim and cut video clips with ffmpeg: start, end, re-encode.", BODY)
    write_skill(root / "a", "helper", "Background notes about the build, copy A.", BODY)
    write_skill(root / "b", "helper", "Background notes about the build, copy B.", BODY)
    broken = root / "broken"
    broken.mkdir()
    (broken / "SKILL.md").write_text("no frontmatter here\n", encoding="utf-8")
    (base / "secret.txt").write_text(SECRET + "\n", encoding="utf-8")
    (pdf / "leak.md").symlink_to(base / "secret.txt")
    return project, root


NOW_MS = 1_900_000_000_000


def seed_memory(env: Env, *, sessions: tuple[str, ...] = ("sess-one", "sess-two")) -> Path:
    """Memories of ``sessions`` for ``env``'s project (each cited once more than the last) and
    its memory folder's summary and MEMORY.md; returns the folder."""
    from skillshelf.memory.layout import project_scope, scope_dir
    from skillshelf.memory.store import SessionRow, open_store
    from skillshelf.memory.store.base import ClaimLimits

    scope = project_scope(env.project_root)
    with open_store(None, data_dir=env.dirs.data) as store:
        store.register_sessions(
            [
                SessionRow(
                    id=sid,
                    source="codex",
                    path=f"/transcripts/{sid}.jsonl",
                    cwd=str(env.cwd),
                    project=str(env.project_root),
                    updated_at_ms=NOW_MS - 1000 * i,
                    first_user_message="run the tests",
                )
                for i, sid in enumerate(sessions)
            ],
            NOW_MS,
        )
        limits = ClaimLimits(min_idle_ms=0, max_age_ms=10**15, running_cap=100)
        for claim in store.claim_stage1(
            worker_id="t", now_ms=NOW_MS, lease_ms=3_600_000, limits=limits, limit=10
        ):
            store.mark_stage1_succeeded(
                claim,
                scope=scope,
                raw_memory=f"- tests run with make check ({claim.session_id})",
                rollout_summary=f"Test runs in {claim.session_id}",
                rollout_slug="test-runs",
                now_ms=NOW_MS,
            )
        for i, sid in enumerate(sessions):
            store.record_usage([sid] * (i + 1), now_ms=NOW_MS)
    folder = scope_dir(env.dirs.data, scope)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "memory_summary.md").write_text(
        "## Preferences\n- tests run with make check\n", encoding="utf-8"
    )
    (folder / "MEMORY.md").write_text("# Task Group: tests\n- run make check\n", encoding="utf-8")
    return folder


def seed_usage(env: Env, turns: list[tuple[str, dict[str, list[str]], str]]) -> None:
    """Usage log events: per turn (turn id, candidates per selector, the path the model loaded)."""
    from skillshelf.select.usage import UsageStore

    store = UsageStore.in_state_dir(env.dirs.state)
    for turn, candidates, loaded in turns:
        store.record_turn(turn, candidates, now=time.time())
        store.record_load(loaded, turn=turn, now=time.time())


class Page:
    """A client of a running page server (token and Host added unless told otherwise)."""

    def __init__(self, port: int, token: str) -> None:
        self.port = port
        self.token = token
        self.base = f"http://127.0.0.1:{port}"
        self.http = httpx.Client(base_url=self.base, timeout=120, trust_env=False)

    def get(self, route: str, *, token: bool = True, **params: Any) -> httpx.Response:
        if token:
            params["token"] = self.token
        return self.http.get(route, params=params)

    def json(self, route: str, **params: Any) -> Any:
        response = self.get(route, **params)
        assert response.status_code == 200, response.text
        return response.json()

    def post(self, path: str, body: object, *, headers: dict[str, str] | None = None) -> httpx.Response:
        sent = {
            "X-Skillshelf-Token": self.token,
            "Origin": self.base,
            "Content-Type": "application/json",
            **(headers or {}),
        }
        return self.http.post(
            path, content=json.dumps(body).encode(), headers={k: v for k, v in sent.items() if v}
        )

    def close(self) -> None:
        self.http.close()


def start_ui(args: list[str], cwd: Path, environ: dict[str, str]) -> tuple[subprocess.Popen[str], str]:
    """``skillshelf ui ARGS`` started in ``cwd``; (the process, the URL it printed)."""
    import re

    proc = subprocess.Popen(
        [sys.executable, "-m", "skillshelf.cli.main", "ui", *args],
        cwd=cwd,
        env=environ,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    match = re.search(r"open (http://127\.0\.0\.1:\d+/\?token=[\w-]+)$", line.strip())
    if match is None:
        proc.kill()
        raise AssertionError(f"no URL in {line!r}: {proc.communicate()[1]}")
    return proc, match.group(1)


def raw_get(port: int, target: str, *, host: str | None = None) -> tuple[int, bytes]:
    """Send ``GET target`` exactly as written (no URL normalisation); (status, body)."""
    import socket

    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        request = (
            f"GET {target} HTTP/1.1\r\nHost: {f'127.0.0.1:{port}' if host is None else host}\r\n"
            "Connection: close\r\n\r\n"
        )
        sock.sendall(request.encode("utf-8", "surrogateescape"))
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split(b" ", 2)[1]), body


class Served:
    """A page server over :func:`make_tree` (built-in skills left out), and a client for it."""

    def __init__(self, tmp_path: Path, *, semantic: bool | None = False, watch: bool = False) -> None:
        self.project, self.root = make_tree(tmp_path)
        self.env = Env.from_os(cwd=self.project)
        options = UiOptions(
            workspace=WorkspaceOptions(extra_roots=(self.root,), include_builtin=False), semantic=semantic
        )
        self.server = UiServer(self.env, options, watch=watch).start()
        self.page = Page(self.server.port, self.server.token)

    def cli(self, capsys: pytest.CaptureFixture[str], *args: str, roots: bool = True) -> Any:
        """``skillshelf ARGS --json`` (over this tree unless ``roots`` is False), in the project,
        through the real entry point: its JSON answer."""
        old = Path.cwd()
        os.chdir(self.project)
        try:
            extra = ["--root", str(self.root), "--no-builtin"] if roots else []
            code, out, err = run_cli([*args, *extra, "--json"], capsys)
        finally:
            os.chdir(old)
        assert code in (0, 1), err
        return json.loads(out)

    def close(self) -> None:
        self.page.close()
        self.server.close()
