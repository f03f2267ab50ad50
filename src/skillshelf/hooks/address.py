"""Where the hook server listens, worked out the same way by the server and by each hook.

Light on purpose (only ``os``, ``stat``, ``sys`` and ``zlib``): the hook reads it before it
knows whether it will need anything else.

The socket, its lock and its info file live in ``<state dir>/hooks/`` (0700), named after the
code that serves (:func:`code_id`: the version, the interpreter and the package's folder), so a
hook never talks to a server of another installation. A Unix socket path has at most 107 bytes;
when the state folder is deeper than that allows, the socket alone goes to
``$TMPDIR/skillshelf-<uid>/`` (``/tmp`` when unset), which must be a real folder of this user's
with no access for others, or the hook does without a server.
"""

from __future__ import annotations

import os
import stat
import sys
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

__all__ = ["MAX_SOCKET_PATH", "SERVER_ENV", "ServerAddress", "code_id", "server_address", "server_off"]

MAX_SOCKET_PATH = 100  # bytes; sun_path holds 108 with its NUL (104 on macOS)
PACKAGE_DIR = Path(__file__).resolve().parents[1]
SERVER_ENV = "SKILLSHELF_HOOK_SERVER"  # 0 / false / off / no: hooks neither use nor start a server


def server_off(environ: Mapping[str, str]) -> bool:
    """Whether the environment turns the hook server off."""
    return environ.get(SERVER_ENV, "").strip().lower() in ("0", "false", "off", "no")


def code_id() -> str:
    """The version with a checksum of the interpreter and the package's folder."""
    from skillshelf.version import __version__

    where = f"{sys.executable}\0{PACKAGE_DIR}".encode("utf-8", "surrogateescape")
    return f"{__version__}-{zlib.adler32(where):08x}"


@dataclass(frozen=True, slots=True, kw_only=True)
class ServerAddress:
    """The files of one hook server."""

    socket: Path
    lock: Path  # held (flock) by the running server for its whole life
    info: Path  # JSON: pid, start time, code id, socket

    @property
    def folder(self) -> Path:
        return self.lock.parent


def server_address(state_dir: Path, environ: Mapping[str, str]) -> ServerAddress | None:
    """The server's files for ``state_dir``; None when no safe socket path exists (or the
    system has no Unix sockets and ``flock``)."""
    if os.name != "posix":
        return None
    folder = state_dir / "hooks"
    name = f"server-{code_id()}"
    socket = folder / f"{name}.sock"
    if len(os.fsencode(socket)) > MAX_SOCKET_PATH:
        spare = _private_tmp(environ)
        if spare is None:
            return None
        tag = zlib.adler32(os.fsencode(state_dir))
        socket = spare / f"{tag:08x}-{name}.sock"
        if len(os.fsencode(socket)) > MAX_SOCKET_PATH:
            return None
    return ServerAddress(socket=socket, lock=folder / f"{name}.lock", info=folder / f"{name}.json")


def _private_tmp(environ: Mapping[str, str]) -> Path | None:
    """``$TMPDIR/skillshelf-<uid>``, created 0700; None unless it is a folder (not a link) that
    this user owns and nobody else may enter."""
    if not hasattr(os, "getuid"):
        return None
    base = environ.get("TMPDIR") or "/tmp"
    folder = Path(base) / f"skillshelf-{os.getuid()}"
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
        info = os.lstat(folder)
    except OSError:
        return None
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o077:
        return None
    return folder
