"""The hook server: one warm process that answers the hooks of one user.

An agent runs ``skillshelf hook EVENT`` as a whole process on every prompt, and most of such a
process goes to starting Python and loading skillshelf, numpy and the models: the same work
every turn. The server does it once; a hook that finds it hands its call over
(:mod:`skillshelf.cli.hook_client`) and prints the answer, and a hook that does not find it
does the work itself, as before, and starts one (``skillshelf hook-server start``, detached,
when ``[hooks] server`` is on and ``SKILLSHELF_HOOK_SERVER`` is not ``0``).

- **Same answers.** Each call carries the hook's environment and folder, and the server answers
  with :func:`~skillshelf.hooks.runner.run_hook` over ``Env.from_environ`` of them: nothing below
  the CLI reads the process environment, so the server's own never leaks in. Skills, config and
  memory are read afresh for each call (through their on-disk caches), so an edit counts at once.
- **Only this user.** The socket's folder is 0700 (:mod:`.address`); on Linux the caller's uid
  is checked as well (``SO_PEERCRED``).
- **One server per address**: its lock file is held (``flock``) for the server's whole life.
- **It leaves** after ``[hooks] server_idle_minutes`` without a hook call (``status`` does not
  count), when its socket file is removed or replaced or its state folder is gone, when the
  package's source files change (an upgrade: a hook call then gets ``no``, never old code),
  after answering a hook whose config says ``[hooks] server = false``, after a call that ran
  past its deadline (its work goes on in a thread that may hold locks; the next hook starts a
  fresh server), on SIGTERM or SIGINT and on ``skillshelf hook-server stop``.
- **It finishes what it took.** Leaving, it stops listening and gives up its address at once (a
  new server may start), then answers the calls in flight before it exits (each is over by its
  own deadline; :data:`DRAIN_SECONDS` at most): a hook never loses its time to a server that left.

Wire format (protocol 1): the hook sends one JSON line (``protocol``, ``event``, ``agent``,
``deadline``, ``cwd``, ``environ``), then its stdin bytes, then shuts its side down; the server
answers ``ok`` and a newline followed by the answer bytes, or ``no`` and a newline when it
declines the call (the hook then answers by itself). ``{"protocol": 1, "command": "status"}``
and ``"stop"`` get one JSON line.
"""

from __future__ import annotations

import fcntl
import json
import os
import resource
import signal
import socket
import struct
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skillshelf.dirs import open_private, private_dir
from skillshelf.env import Env
from skillshelf.errors import UsageError, reason
from skillshelf.hooks.address import ServerAddress, code_id, server_address
from skillshelf.hooks.claims import prune_claims
from skillshelf.hooks.deadlines import MAX_DEADLINE
from skillshelf.hooks.hooklog import write_log_line
from skillshelf.hooks.source_files import SourceFiles

__all__ = ["DRAIN_SECONDS", "MAX_HEADER_BYTES", "PROTOCOL", "ServerState", "serve"]

PROTOCOL = 1
MAX_HEADER_BYTES = 1024 * 1024
POLL_SECONDS = 1.0
SOURCE_POLLS = 10  # an idle server looks at the package's files every tenth poll (and before a call)
READ_SECONDS = 10.0  # a caller that sends nothing for this long is dropped
AGENTS = ("codex", "claude")
#: How long a leaving server waits for its calls in flight: no hook waits longer for its answer
#: (the longest deadline, and the hand-over's second beyond it).
DRAIN_SECONDS = MAX_DEADLINE + 1.0


@dataclass(slots=True)
class ServerState:
    """What the running server knows about itself (mutable: updated by its threads)."""

    address: ServerAddress
    idle_seconds: float
    started: float = field(default_factory=time.time)
    last_call: float = field(default_factory=time.monotonic)
    calls: int = 0
    busy: int = 0
    stopping: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)
    drained: threading.Condition = field(init=False)  # on ``lock``: notified when ``busy`` drops to 0
    source: SourceFiles = field(default_factory=SourceFiles.of)  # the code it runs, as it started

    def __post_init__(self) -> None:
        self.drained = threading.Condition(self.lock)

    def call_done(self, *, hook_call: bool) -> None:
        """One call in flight fewer; a hook call counts as use (resets the idle clock)."""
        with self.drained:
            self.busy -= 1
            if hook_call:
                self.last_call = time.monotonic()
            if not self.busy:
                self.drained.notify_all()

    def drain(self, seconds: float) -> bool:
        """Wait until no call is in flight, ``seconds`` at most; whether none is."""
        with self.drained:
            return self.drained.wait_for(lambda: not self.busy, timeout=seconds)

    def status(self) -> dict[str, Any]:
        """Answered while the status call itself counts as busy: another call makes it 0."""
        with self.lock:
            idle = 0.0 if self.busy > 1 else time.monotonic() - self.last_call
            return {
                "pid": os.getpid(),
                "started": round(self.started, 3),
                "code": code_id(),
                "socket": str(self.address.socket),
                "calls": self.calls,
                "idle_s": round(idle, 1),
                "idle_limit_s": self.idle_seconds,
                "peak_rss_kb": _peak_rss_kb(),
            }


OnReady = Callable[[ServerState], None] | None
Identity = tuple[int, int] | None  # a socket file's device and inode


def serve(env: Env, *, idle_seconds: float, on_ready: OnReady = None) -> bool:
    """Serve hooks for ``env``'s state folder until a reason to leave (module docstring).
    False when another server already holds the address.

    Raises:
        UsageError: no safe socket path (SV101), the socket cannot be bound (SV102) or the lock
            file cannot be opened (SV103).
    """
    address = server_address(env.dirs.state, env.environ)
    if address is None:
        raise UsageError(
            "no safe place for the hook server's socket",
            hint="set TMPDIR to a folder of yours, or SKILLSHELF_STATE_DIR to a shorter path",
            code="SV101",
        )
    private_dir(address.folder, tighten=True)
    held = _take_lock(address.lock)
    if held is None:
        return False
    try:
        state = _listen(address, env.dirs.state, idle_seconds, on_ready)
    finally:
        os.close(held)  # the address is free: a new server may start while these calls finish
    state.drain(DRAIN_SECONDS)
    return True


def _listen(address: ServerAddress, state_dir: Path, idle_seconds: float, on_ready: OnReady) -> ServerState:
    """Take calls at ``address`` until a reason to leave; its socket and info file are gone
    when this returns, and the calls it took may still be in flight."""
    listener = _bind(address.socket)
    identity = _socket_identity(address.socket)
    state = ServerState(address=address, idle_seconds=idle_seconds)
    try:
        _write_info(state)
        _stop_on_signals(state)
        if on_ready is not None:
            on_ready(state)
        _accept_loop(listener, state, state_dir, identity)
    finally:
        _remove_own_socket(listener, address.socket, identity)
        address.info.unlink(missing_ok=True)
    return state


def _take_lock(path: Path) -> int | None:
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | os.O_CLOEXEC, 0o600)
    except OSError as exc:
        raise UsageError(
            f"the hook server's lock file {path} cannot be opened: {reason(exc)}",
            hint="remove it (a link or a folder in its place); it is recreated",
            code="SV103",
        ) from exc
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd


def _bind(path: Path) -> socket.socket:
    """Listen at ``path``; a file left there by a server that died is replaced (the lock says
    no server is alive)."""
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        path.unlink(missing_ok=True)
        old_mask = os.umask(0o177)
        try:
            listener.bind(str(path))
        finally:
            os.umask(old_mask)
        listener.listen(16)
    except OSError as exc:
        listener.close()
        raise UsageError(
            f"the hook server cannot listen at {path}: {reason(exc)}",
            hint="check that the folder is yours and writable",
            code="SV102",
        ) from exc
    listener.settimeout(POLL_SECONDS)
    return listener


def _write_info(state: ServerState) -> None:
    with open_private(state.address.info, "w") as out:
        out.write(json.dumps(state.status()) + "\n")


def _stop_on_signals(state: ServerState) -> None:
    if threading.current_thread() is not threading.main_thread():
        return
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: state.stopping.set())


def _accept_loop(listener: socket.socket, state: ServerState, state_dir: Path, identity: Identity) -> None:
    polls, looked = 0, time.monotonic()
    while not state.stopping.is_set():
        if time.monotonic() - looked >= POLL_SECONDS:  # every second, however often calls come
            looked, polls = time.monotonic(), polls + 1
            if _time_to_leave(state, identity) or (polls % SOURCE_POLLS == 0 and state.source.changed()):
                return
        try:
            conn, _ = listener.accept()
        except TimeoutError:
            continue
        except OSError:
            if state.stopping.is_set():
                return
            raise
        with state.lock:
            state.busy += 1
        threading.Thread(target=_answer, args=(conn, state, state_dir), daemon=True).start()


def _time_to_leave(state: ServerState, identity: Identity) -> bool:
    """Idle too long, the socket file removed or replaced, or the state folder gone."""
    with state.lock:
        idle = not state.busy and time.monotonic() - state.last_call > state.idle_seconds
    return idle or _socket_identity(state.address.socket) != identity or not state.address.folder.is_dir()


def _socket_identity(path: Path) -> Identity:
    try:
        info = os.lstat(path)
    except OSError:
        return None
    return info.st_dev, info.st_ino


def _remove_own_socket(listener: socket.socket, path: Path, identity: Identity) -> None:
    """Close, and remove the socket file unless another server has bound it since."""
    listener.close()
    if identity is not None and _socket_identity(path) == identity:
        path.unlink(missing_ok=True)


def _answer(conn: socket.socket, state: ServerState, state_dir: Path) -> None:
    """Answer one call. Only a hook call counts as use: ``status`` and ``stop`` calls, and
    calls it declines, leave the idle clock running (a status poll never keeps it alive)."""
    caller: Env | None = None
    try:
        with conn:
            conn.settimeout(READ_SECONDS)
            if not _same_user(conn):
                return
            reply, caller = _reply(_read_call(conn), state, state_dir)
            conn.sendall(reply)
        if caller is not None:
            prune_claims(state_dir)  # bounded, once the answer is sent
        if caller is not None and not _still_wanted(caller):
            state.stopping.set()
    except (OSError, ValueError, RecursionError):
        return  # the hook gave up or sent garbage: it answers by itself
    finally:
        state.call_done(hook_call=caller is not None)


def _same_user(conn: socket.socket) -> bool:
    option = getattr(socket, "SO_PEERCRED", None)
    if option is None:
        return True  # the socket's 0700 folder is the guard
    _pid, uid, _gid = struct.unpack("3i", conn.getsockopt(socket.SOL_SOCKET, option, struct.calcsize("3i")))
    return bool(uid == os.getuid())


def _read_call(conn: socket.socket) -> tuple[dict[str, Any], bytes]:
    """(header, stdin bytes). Raises ValueError on a malformed or oversized call."""
    from skillshelf.hooks.payload import MAX_INPUT_BYTES

    limit = MAX_HEADER_BYTES + MAX_INPUT_BYTES + 1
    chunks: list[bytes] = []
    size = 0
    while chunk := conn.recv(1 << 16):
        chunks.append(chunk)
        size += len(chunk)
        if size > limit:
            raise ValueError("call too large")
    data = b"".join(chunks)
    line, newline, raw = data.partition(b"\n")
    if not newline or len(line) > MAX_HEADER_BYTES:
        raise ValueError("no header line")
    header = json.loads(line)
    if not isinstance(header, dict) or header.get("protocol") != PROTOCOL:
        raise ValueError("another protocol")
    return header, raw


def _reply(
    call: tuple[dict[str, Any], bytes], state: ServerState, state_dir: Path
) -> tuple[bytes, Env | None]:
    """The reply to one call, and the caller's environment when it was a hook call."""
    header, raw = call
    command = header.get("command", "hook")
    if command == "status":
        return json.dumps(state.status()).encode() + b"\n", None
    if command == "stop":
        state.stopping.set()
        return json.dumps({"stopping": True, "pid": os.getpid()}).encode() + b"\n", None
    env = _caller_env(header, state_dir)
    if env is None or command != "hook":
        return _declined(state_dir, header, "a malformed call, a folder that is gone or another state folder")
    if state.source.changed():  # an upgrade or an edit: the hook answers with the new code
        state.stopping.set()
        return _declined(state_dir, header, "skillshelf's source files changed; the server leaves")
    from skillshelf.hooks.runner import run_hook

    agent, event, deadline = header["agent"], header["event"], header["deadline"]
    run = run_hook(agent, event, raw, env=env, state_dir=state_dir, deadline=deadline, served=True)
    with state.lock:
        state.calls += 1
    if run.timed_out:  # its worker runs on and may hold locks: a fresh server is started instead
        state.stopping.set()
    return b"ok\n" + run.answer, env


def _declined(state_dir: Path, header: Mapping[str, Any], why: str) -> tuple[bytes, None]:
    """``no`` (the hook answers by itself), and a line in the hook log that says why."""
    call = " ".join(str(header.get(key))[:40] for key in ("agent", "event") if header.get(key))
    write_log_line(state_dir, f"{call or 'a call'} declined by the hook server: {why}")
    return b"no\n", None


def _still_wanted(env: Env) -> bool:
    """False once the caller's config turns the server off (``[hooks] server = false``): the
    server answers that call, then leaves."""
    from skillshelf.config import load_config
    from skillshelf.hooks.settings import HookSettings

    try:
        return HookSettings.from_config(load_config(env)).server
    except Exception:  # a config that cannot be read now is the hook's problem, reported there
        return True


def _caller_env(header: Mapping[str, Any], state_dir: Path) -> Env | None:
    """The hook's environment, or None for a call this server should not answer (a malformed
    header, a folder that is gone, or a caller whose state folder is another)."""
    environ, cwd, deadline = header.get("environ"), header.get("cwd"), header.get("deadline")
    if header.get("agent") not in AGENTS or not isinstance(header.get("event"), str):
        return None
    if not isinstance(environ, dict) or not all(isinstance(v, str) for v in environ.values()):
        return None
    if deadline is not None and (
        isinstance(deadline, bool) or not isinstance(deadline, int | float) or deadline < 0
    ):
        return None
    if not isinstance(cwd, str) or not os.path.isdir(cwd):
        return None
    env = Env.from_environ(environ, cwd=Path(cwd))
    return env if env.dirs.state == state_dir else None


def _peak_rss_kb() -> int:
    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
