"""`skillshelf ui` as a user runs it: a process that prints the page's URL and serves it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import httpx
from ui_helpers import make_tree, start_ui

from skillshelf.cli.main import COMMANDS
from testkit import IsolatedHome


def _start(args: list[str], cwd: Path) -> tuple[subprocess.Popen[str], str]:
    return start_ui(args, cwd, dict(os.environ))


def test_ui_prints_a_loopback_url_with_a_token_and_serves_the_page_until_interrupted(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    project, root = make_tree(tmp_path)
    proc, url = _start(["--port", "0", "--root", str(root), "--no-builtin", "--no-watch"], project)
    try:
        page = httpx.get(url, timeout=60, trust_env=False)
        assert page.status_code == 200 and "skillshelf" in page.text
        base, token = url.split("/?token=")
        overview = httpx.get(
            f"{base}/api/overview", params={"token": token}, timeout=60, trust_env=False
        ).json()
        assert overview["skills"] == 5 and overview["roots"][-1] == str(root)
        assert httpx.get(f"{base}/api/overview", timeout=60, trust_env=False).status_code == 403
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            _, err = proc.communicate(timeout=30)
        finally:
            proc.kill()
    assert proc.returncode == 130, err  # Ctrl-C's exit status
    assert "stopped" in err and "Traceback" not in err


def test_two_runs_get_two_different_tokens(tmp_path: Path, isolated_home: IsolatedHome) -> None:
    project, root = make_tree(tmp_path)
    urls = []
    for _ in range(2):
        proc, url = _start(["--root", str(root), "--no-builtin", "--no-watch"], project)
        try:
            proc.send_signal(signal.SIGINT)
            proc.communicate(timeout=30)
        finally:
            proc.kill()
        urls.append(url.split("token=")[1])
    assert urls[0] != urls[1] and all(len(t) >= 32 for t in urls)


def test_a_port_in_use_is_an_error_with_a_fix(tmp_path: Path, isolated_home: IsolatedHome) -> None:
    import socket

    project, root = make_tree(tmp_path)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "skillshelf.cli.main", "ui", "--port", str(port), "--root", str(root)],
            cwd=project,
            capture_output=True,
            text=True,
            encoding="utf-8",
            timeout=120,
            check=False,
        )
    assert done.returncode == 2
    assert "error SV410" in done.stderr and "fix:" in done.stderr


def test_ui_is_a_command_of_the_lazy_table() -> None:
    assert COMMANDS["ui"][:2] == ("skillshelf.cli.ui_cmd", "ui")


def test_a_config_layer_skipped_at_start_is_reported_on_stderr(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    project, root = make_tree(tmp_path)
    isolated_home.write_user_config("[catalog\n")
    proc, _ = _start(["--root", str(root), "--no-builtin", "--no-watch"], project)
    try:
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert "error CF100" in err and "fix:" in err
