"""The I/O under the agent's folder tools: a command's output streamed and clipped, atomic writes.

* :func:`run_clipped` runs ``bash -c`` in its own process group and reads the combined
  output as it comes, keeping only the first and the last ``limit // 2`` bytes (and a margin
  beyond each, for the redaction; :mod:`~skillshelf.agent.output_clip` cuts them): a command
  printing 400 MB holds about ``limit`` bytes here (it held the whole output, then 1.19 GB of
  resident memory, when it was buffered before clipping). On timeout the whole group is
  killed; a child left running in the background (holding the pipe open) no longer keeps
  the agent waiting once bash itself has exited. An exception while it runs (Ctrl-C, the
  CLI's SIGTERM as a ``KeyboardInterrupt``) kills the group too before it propagates: the
  command runs in its own session, so Ctrl-C at the terminal never reaches it. ``env``: the
  command's whole environment (``None``: this process's).
* :func:`write_atomic` writes bytes that were already encoded (an encoding failure can no
  longer leave an emptied file) to a temporary file beside the target, then renames it into
  place, keeping the target's permission bits. The rename gives the path a new inode: hard
  links to the old file keep the old content, which is what an editor's safe save does too.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import signal
import subprocess
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from skillshelf import fileio
from skillshelf.agent.output_clip import MARGIN, Cleaner, clipped_text

__all__ = ["CommandRun", "run_clipped", "write_atomic"]

_CHUNK = 1 << 16
_POLL_SECONDS = 0.25  # how often a silent command is checked for having exited
#: After bash exits, output still arriving (from a child left running in the background,
#: which keeps the pipe open) is read for this long, then the command counts as finished.
_DRAIN_SECONDS = 1.0


@dataclass(frozen=True, slots=True, kw_only=True)
class CommandRun:
    """What one command printed (clipped) and how it ended; ``exit_code`` None = timed out."""

    output: str
    exit_code: int | None
    total_bytes: int


class _Clipper:
    """Head and tail of a byte stream (``limit // 2`` bytes each and a margin of
    :data:`~skillshelf.agent.output_clip.MARGIN`), with the count of all bytes."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.keep = max(1, limit // 2) + MARGIN
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    def feed(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = self.keep - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        self.tail += chunk
        if len(self.tail) > self.keep:
            del self.tail[: len(self.tail) - self.keep]

    def text(self, clean: Cleaner | None) -> str:
        if clean is None:
            return clipped_text(bytes(self.head), bytes(self.tail), self.total, self.limit)
        return clipped_text(bytes(self.head), bytes(self.tail), self.total, self.limit, clean)


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(OSError):
        os.killpg(proc.pid, signal.SIGKILL)


def run_clipped(
    command: str,
    *,
    cwd: Path,
    timeout: float,
    limit: int,
    env: Mapping[str, str] | None = None,
    clean: Cleaner | None = None,
) -> CommandRun:
    """Run ``bash -c command`` in ``cwd`` (no stdin) with ``env``; stdout and stderr as one
    clipped text (:func:`~skillshelf.agent.output_clip.clipped_text`), each kept part through
    ``clean`` (the redaction) before the cut."""
    clip = _Clipper(limit)
    proc = subprocess.Popen(
        ["bash", "-c", command],
        cwd=cwd,
        env=None if env is None else dict(env),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    assert proc.stdout is not None
    deadline = time.monotonic() + timeout
    timed_out = False
    try:
        with selectors.DefaultSelector() as selector:
            selector.register(proc.stdout, selectors.EVENT_READ)
            while True:
                now = time.monotonic()
                if now >= deadline:
                    timed_out = proc.poll() is None
                    break
                if proc.poll() is not None:
                    deadline = min(deadline, now + _DRAIN_SECONDS)
                if not selector.select(min(deadline - now, _POLL_SECONDS)):
                    continue
                chunk = os.read(proc.stdout.fileno(), _CHUNK)
                if not chunk:
                    break
                clip.feed(chunk)
    except BaseException:  # Ctrl-C, SIGTERM (a KeyboardInterrupt) or an error: the command goes too
        _kill_group(proc)
        raise
    finally:
        if timed_out:
            _kill_group(proc)
        proc.stdout.close()
        code = proc.wait()
    return CommandRun(output=clip.text(clean), exit_code=None if timed_out else code, total_bytes=clip.total)


def write_atomic(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` in one rename, on disk before it, keeping its permission
    bits (``rwx`` for user, group, others; a new file gets ``0o666`` less the umask, as ``open``
    would give it)."""
    fileio.write_atomic(path, data, mode="umask", keep_mode=True, sync=True, prefix=f".{path.name}.")
