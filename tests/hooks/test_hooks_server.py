"""The hook server answers hooks warm, exactly as the hook would have, and never strands one.

Servers here are real processes (`skillshelf hook-server start`), reached through the console
script's hook path; each test stops what it started.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hooks_helpers import context_text, hook_input, make_project, run_python, wait_for, write_skill

from skillshelf.cli.hook_client import PROTOCOL, TIMED_OUT, ask_server, server_call
from skillshelf.hooks.address import MAX_SOCKET_PATH, server_address
from skillshelf.memory.queue import queued

ENTRY = "import sys\nfrom skillshelf.cli.entry import main\nsys.exit(main())"
HOOK = ["hook", "UserPromptSubmit", "--agent", "codex"]


SERVER_ON = "SKILLSHELF_HOOK_SERVER"


def _environ(**extra: str) -> dict[str, str]:
    return {**os.environ, SERVER_ON: "1", **extra}


def _hook(cwd: Path, stdin: bytes, **extra: str) -> tuple[int, bytes]:
    done = run_python(["-c", ENTRY, *HOOK], cwd, stdin, **{SERVER_ON: "1", **extra})
    return done.returncode, done.stdout


def _status(**extra: str) -> dict[str, Any] | None:
    reply = server_call({"protocol": PROTOCOL, "command": "status"}, b"", environ=_environ(**extra), wait=5)
    return None if reply in (None, TIMED_OUT) else json.loads(reply or b"{}")


def _log_lines(env: Any) -> list[str]:
    path = env.dirs.state / "hooks" / "hooks.log"
    return path.read_text(encoding="utf-8").splitlines() if path.exists() else []


def _setup_status(cwd: Path, **extra: str) -> dict[str, Any]:
    done = run_python(
        ["-m", "skillshelf.cli.main", "setup", "--status", "--json"], cwd, **{SERVER_ON: "1", **extra}
    )
    assert done.returncode == 0, done.stderr
    return dict(json.loads(done.stdout))


def _start_in_foreground(cwd: Path) -> subprocess.CompletedProcess[bytes]:
    return run_python(["-m", "skillshelf.cli.main", "hook-server", "start"], cwd, **{SERVER_ON: "1"})


def _stop() -> None:
    server_call({"protocol": PROTOCOL, "command": "stop"}, b"", environ=_environ(), wait=5)


@pytest.fixture
def server(isolated_home: Any) -> Iterator[Any]:
    """A project and a running server for it (started from the project folder)."""
    env = make_project(isolated_home)
    process = subprocess.Popen(
        [sys.executable, "-m", "skillshelf.cli.main", "hook-server", "start"],
        cwd=env.cwd,
        env=_environ(),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        wait_for(_status)
        yield env, process
    finally:
        _stop()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            raise


def test_a_hook_hands_its_call_to_the_server_and_prints_the_answer_it_would_give(server: Any) -> None:
    env, _ = server
    stdin = hook_input("UserPromptSubmit", env, prompt="write the release notes for the tag")
    code, served = _hook(env.cwd, stdin)
    assert code == 0 and "- release-notes: " in context_text(served)
    assert _log_lines(env)[-1].endswith("(server)")
    assert _status()["calls"] == 1  # type: ignore[index]
    assert _setup_status(env.cwd)["hook_server"]["state"] == "running"
    assert _setup_status(env.cwd, SKILLSHELF_HOOK_SERVER="0")["hook_server"] == {"state": "off"}
    stdin = hook_input("UserPromptSubmit", env, prompt="write the release notes for the tag")
    code, alone = _hook(env.cwd, stdin, SKILLSHELF_HOOK_SERVER="0")
    assert (code, alone) == (0, served)
    assert not _log_lines(env)[-1].endswith("(server)")


def test_the_server_answers_from_the_callers_environment_and_folder(server: Any, tmp_path: Path) -> None:
    env, _ = server
    quiet = tmp_path / "quiet-config"
    (quiet / "skillshelf").mkdir(parents=True)
    (quiet / "skillshelf" / "config.toml").write_text(
        "[hooks]\nsuggestions = false\nmemory = false\n", encoding="utf-8"
    )
    stdin = hook_input("UserPromptSubmit", env, prompt="write the release notes for the tag")
    assert _hook(env.cwd, stdin, XDG_CONFIG_HOME=str(quiet)) == (0, b"")
    assert _log_lines(env)[-1].endswith("(server)")
    other = env.home / "other"
    (other / ".git").mkdir(parents=True)
    write_skill(other / ".agents" / "skills", "kube-rollout", "Roll out Kubernetes deployments safely.")
    stdin = hook_input("UserPromptSubmit", env, prompt="roll out kubernetes safely", cwd=str(other))
    code, out = _hook(other, stdin)
    assert code == 0 and "- kube-rollout: " in context_text(out)


def test_a_skill_added_while_the_server_runs_counts_at_the_next_prompt(server: Any) -> None:
    env, _ = server
    stdin = hook_input("UserPromptSubmit", env, prompt="rotate the tls certificates of the ingress")
    assert "cert-rotation" not in context_text(_hook(env.cwd, stdin)[1])
    write_skill(
        env.cwd / ".agents" / "skills", "cert-rotation", "Rotate TLS certificates of ingress controllers."
    )
    stdin = hook_input("UserPromptSubmit", env, prompt="rotate the tls certificates of the ingress")
    code, out = _hook(env.cwd, stdin)
    assert code == 0 and "- cert-rotation: " in context_text(out)
    assert _log_lines(env)[-1].endswith("(server)")


def test_garbage_through_the_server_is_a_valid_empty_answer_and_the_server_lives_on(server: Any) -> None:
    env, _ = server
    assert _hook(env.cwd, b"\x00not json{") == (0, b"")
    assert "error" in _log_lines(env)[-1] and _log_lines(env)[-1].endswith("(server)")
    address = server_address(env.dirs.state, _environ())
    assert address is not None
    junk_calls = (b"", b"{}\n", b'{"protocol": 99}\n', b"x" * 100_000, b'{"protocol": 1, "agent": 3}\n')
    for junk in (*junk_calls, b"[" * 60_000 + b"\n"):
        with socket.socket(socket.AF_UNIX) as conn:
            conn.connect(str(address.socket))
            conn.sendall(junk)
            conn.shutdown(socket.SHUT_WR)
            assert conn.recv(100) in (b"", b"no\n")
    stdin = hook_input("UserPromptSubmit", env, prompt="plan a database schema migration")
    code, out = _hook(env.cwd, stdin)
    assert code == 0 and "- db-migrations: " in context_text(out)


def test_a_server_turned_off_in_the_config_answers_that_hook_and_leaves(server: Any) -> None:
    env, process = server
    (env.dirs.config / "config.toml").parent.mkdir(parents=True, exist_ok=True)
    (env.dirs.config / "config.toml").write_text("[hooks]\nserver = false\n", encoding="utf-8")
    stdin = hook_input("UserPromptSubmit", env, prompt="write the release notes for the tag")
    code, out = _hook(env.cwd, stdin)
    assert code == 0 and "- release-notes: " in context_text(out)
    assert _log_lines(env)[-1].endswith("(server)")
    assert process.wait(timeout=30) == 0
    _hook(env.cwd, stdin)
    assert not _log_lines(env)[-1].endswith("(server)")
    assert not (env.dirs.state / "hooks" / "spawned-hook-server-start").exists()


def test_a_call_past_its_deadline_gets_the_empty_answer_and_the_server_leaves(server: Any) -> None:
    env, process = server
    stdin = hook_input("UserPromptSubmit", env, prompt="write the release notes for the tag")
    done = subprocess.run(
        [sys.executable, "-c", ENTRY, *HOOK, "--deadline", "0.001"],
        input=stdin,
        cwd=env.cwd,
        env=_environ(),
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert (done.returncode, done.stdout) == (0, b"")
    assert " timeout " in _log_lines(env)[-1] and _log_lines(env)[-1].endswith("(server)")
    assert process.wait(timeout=30) == 0


def test_a_session_end_the_server_answers_past_its_deadline_still_queues_the_session(server: Any) -> None:
    env, _ = server
    stdin = hook_input("SessionEnd", env, session_id="served-late", reason="exit")
    done = run_python(
        ["-c", ENTRY, "hook", "SessionEnd", "--agent", "claude", "--deadline", "0.001"],
        env.cwd,
        stdin,
        **{SERVER_ON: "1"},
    )
    assert (done.returncode, done.stdout) == (0, b"") and _log_lines(env)[-1].endswith("(server)")
    assert [q.session_id for q in queued(env.dirs.state)] == ["served-late"]


def test_a_second_server_steps_aside_and_stop_ends_the_first(server: Any) -> None:
    env, process = server
    second = _start_in_foreground(env.cwd)
    assert second.returncode == 0 and b"already running" in second.stderr
    address = server_address(env.dirs.state, _environ())
    assert address is not None and address.socket.exists()
    _stop()
    assert process.wait(timeout=30) == 0
    assert not address.socket.exists() and not address.info.exists()
    assert _status() is None
    assert _setup_status(env.cwd)["hook_server"] == {"state": "stopped"}


def test_a_hook_without_a_server_answers_itself_and_starts_one(isolated_home: Any) -> None:
    env = make_project(isolated_home)
    stdin = hook_input("UserPromptSubmit", env, prompt="write the release notes for the tag")
    try:
        code, out = _hook(env.cwd, stdin)
        assert code == 0 and "- release-notes: " in context_text(out)
        assert not _log_lines(env)[-1].endswith("(server)")
        wait_for(_status)
        stdin = hook_input("UserPromptSubmit", env, prompt="write the release notes for the tag")
        assert _hook(env.cwd, stdin) == (0, out)
        assert _log_lines(env)[-1].endswith("(server)")
    finally:
        _stop()


def test_with_the_server_turned_off_a_hook_neither_uses_nor_starts_one(isolated_home: Any) -> None:
    env = make_project(isolated_home, config="[hooks]\nserver = false\n")
    stdin = hook_input("UserPromptSubmit", env, prompt="write the release notes for the tag")
    assert _hook(env.cwd, stdin)[0] == 0
    assert not (env.dirs.state / "hooks" / "spawned-hook-server-start").exists()
    _hook(env.cwd, stdin, SKILLSHELF_HOOK_SERVER="0")
    assert not (env.dirs.state / "hooks" / "spawned-hook-server-start").exists()
    time.sleep(1)
    assert _status() is None


def test_the_server_leaves_when_idle_and_when_its_socket_file_goes(isolated_home: Any) -> None:
    env = make_project(isolated_home)
    start = [sys.executable, "-m", "skillshelf.cli.main", "hook-server", "start"]
    idle = subprocess.Popen([*start, "--idle-minutes", "0.03"], cwd=env.cwd, env=_environ())
    assert idle.wait(timeout=60) == 0
    address = server_address(env.dirs.state, _environ())
    assert address is not None and not address.socket.exists()
    orphan = subprocess.Popen(start, cwd=env.cwd, env=_environ())
    try:
        wait_for(_status)
        address.socket.unlink()
        assert orphan.wait(timeout=30) == 0
    finally:
        if orphan.poll() is None:
            orphan.kill()
            orphan.wait()


def test_status_calls_neither_read_as_use_nor_keep_the_server_alive(isolated_home: Any) -> None:
    env = make_project(isolated_home)
    start = [sys.executable, "-m", "skillshelf.cli.main", "hook-server", "start", "--idle-minutes", "0.05"]
    server = subprocess.Popen(start, cwd=env.cwd, env=_environ())
    try:
        wait_for(_status)
        time.sleep(1.0)
        status = _status()
        assert status is not None and status["idle_s"] >= 1.0  # its own call is not counted as busy
        deadline = time.monotonic() + 30
        while server.poll() is None and time.monotonic() < deadline:
            _status()  # polling the status every 0.2 s must not hold it past its 3 s
            time.sleep(0.2)
        assert server.poll() == 0
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()


def test_a_dead_servers_socket_file_is_passed_by_and_replaced(isolated_home: Any) -> None:
    env = make_project(isolated_home)
    address = server_address(env.dirs.state, _environ())
    assert address is not None
    address.folder.mkdir(parents=True, exist_ok=True)
    with socket.socket(socket.AF_UNIX) as dead:
        dead.bind(str(address.socket))  # bound, never listening: a server that died
    stdin = hook_input("UserPromptSubmit", env, prompt="fill in the fields of this pdf form")
    try:
        code, out = _hook(env.cwd, stdin)
        assert code == 0 and "- pdf-forms: " in context_text(out)
        assert wait_for(_status)["pid"] > 0
    finally:
        _stop()


def test_the_socket_sits_in_the_state_folder_or_in_a_private_temporary_one(tmp_path: Path) -> None:
    short = Path("/tmp") / f"ss-{os.getpid()}"
    near = server_address(short, {})
    assert near is not None and near.socket.parent == short / "hooks"
    deep = tmp_path / ("d" * 80) / "state"
    spare = Path(tempfile.mkdtemp(prefix="ss", dir="/tmp"))
    try:
        far = server_address(deep, {"TMPDIR": str(spare)})
        assert far is not None and far.lock.parent == deep / "hooks"
        assert far.socket.parent == spare / f"skillshelf-{os.getuid()}"
        assert len(os.fsencode(far.socket)) <= MAX_SOCKET_PATH
        assert (far.socket.parent.stat().st_mode & 0o777) == 0o700
        assert server_address(deep, {"TMPDIR": str(tmp_path / "missing")}) is None
    finally:
        shutil.rmtree(spare)


def test_a_shared_or_linked_temporary_folder_is_not_used(tmp_path: Path) -> None:
    deep = tmp_path / ("d" * 80) / "state"
    loose = tmp_path / "loose"
    (loose / f"skillshelf-{os.getuid()}").mkdir(parents=True)
    (loose / f"skillshelf-{os.getuid()}").chmod(0o755)
    assert server_address(deep, {"TMPDIR": str(loose)}) is None
    linked = tmp_path / "linked"
    linked.mkdir()
    (tmp_path / "elsewhere").mkdir(mode=0o700)
    (linked / f"skillshelf-{os.getuid()}").symlink_to(tmp_path / "elsewhere")
    assert server_address(deep, {"TMPDIR": str(linked)}) is None


def test_a_link_in_place_of_the_lock_file_is_refused_with_a_code(isolated_home: Any) -> None:
    env = make_project(isolated_home)
    address = server_address(env.dirs.state, _environ())
    assert address is not None
    address.folder.mkdir(parents=True, exist_ok=True)
    target = isolated_home.home / "precious.txt"
    target.write_text("keep me", encoding="utf-8")
    address.lock.symlink_to(target)
    done = _start_in_foreground(env.cwd)
    assert done.returncode != 0 and b"SV103" in done.stderr and b"Traceback" not in done.stderr
    assert target.read_text(encoding="utf-8") == "keep me"


@contextlib.contextmanager
def _fake_server(tmp_path: Path, reply: bytes | None) -> Iterator[dict[str, str]]:
    """A listener at the address a hook with the given environment looks for: it answers
    ``reply`` to each call once the call is read (None: never answers)."""
    environ = {"HOME": str(tmp_path), "SKILLSHELF_STATE_DIR": str(tmp_path / "st"), "TMPDIR": "/tmp"}
    address = server_address(tmp_path / "st", environ)
    assert address is not None
    address.socket.parent.mkdir(parents=True, exist_ok=True)
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(address.socket))
    listener.listen(4)

    def answer() -> None:
        conn, _ = listener.accept()
        while conn.recv(1 << 16):
            pass
        if reply is not None:
            conn.sendall(reply)
            conn.close()
        else:
            time.sleep(5)

    threading.Thread(target=answer, daemon=True).start()
    try:
        with listener:
            yield environ
    finally:
        address.socket.unlink()


@pytest.mark.parametrize(
    ("reply", "expected"),
    [(b'ok\n{"a": 1}', b'{"a": 1}'), (b"ok\n", b""), (b"no\n", None), (b"", None), (None, b"")],
)
def test_what_the_hook_prints_for_each_kind_of_server_reply(
    tmp_path: Path, reply: bytes | None, expected: bytes | None
) -> None:
    """An answer is printed as it is; a declined or broken call is answered by the hook itself
    (None); a server past the deadline gets the late hook's empty answer."""
    with _fake_server(tmp_path, reply) as environ:
        got = ask_server("UserPromptSubmit", "codex", 0.2, b"{}", environ=environ, cwd=tmp_path)
    assert got == expected


def test_no_server_is_asked_when_it_is_turned_off_or_for_a_warm_up(tmp_path: Path) -> None:
    with _fake_server(tmp_path, b"ok\nX") as environ:
        off = {**environ, "SKILLSHELF_HOOK_SERVER": "off"}
        assert ask_server("UserPromptSubmit", "codex", 1, b"{}", environ=off, cwd=tmp_path) is None
        assert ask_server("warm", "codex", 1, b"", environ=environ, cwd=tmp_path) is None
        assert ask_server("UserPromptSubmit", "codex", 1, b"{}", environ=environ, cwd=tmp_path) == b"X"
