"""The MCP server on stdin/stdout: the SDK's stdio transport, reading lines checked first.

The SDK's reader drops a line its validation refuses without a word, so a client waiting for
the answer to it waits forever. Each line is checked before the SDK reads it
(:func:`line_error`), and one the SDK would drop while a client waits gets the JSON-RPC error
of :mod:`skillshelf.serve.jsonrpc_check` (the HTTP transport's too), written by the SDK's own
writer (one whole line per message).

Notifications, responses and blank lines are never answered (JSON-RPC answers neither), so
those still go to the SDK, which ignores them. While serving, fd 0 points at the null device
(as the SDK does when it opens stdin itself), so a child process never reads the client's bytes.
"""

from __future__ import annotations

import io
import os
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager, suppress
from typing import IO, Any, BinaryIO

import anyio
import mcp.types as types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.server.lowlevel.server import Server
from mcp.shared.message import SessionMessage

from skillshelf.serve.jsonrpc_check import refusal

__all__ = ["CheckedLines", "line_error", "run_stdio"]


def line_error(line: str) -> types.JSONRPCError | None:
    """The error a client gets for ``line`` when the SDK would drop it unanswered; None when the
    line goes to the SDK as it is (valid, or a message JSON-RPC never answers)."""
    if not line.strip():
        return None
    refused = refusal(line)
    return refused.error if refused is not None and refused.awaited else None


class CheckedLines(anyio.AsyncFile[str]):
    """stdin's lines for the SDK, each checked first: one the SDK would drop unanswered is
    answered here through the SDK's write stream (:meth:`answer_on`) and not passed on."""

    def __init__(self, fp: IO[str]) -> None:
        super().__init__(fp)
        self._answers: MemoryObjectSendStream[types.JSONRPCError]
        self._pending: MemoryObjectReceiveStream[types.JSONRPCError]
        self._answers, self._pending = anyio.create_memory_object_stream[types.JSONRPCError](100)

    async def __aiter__(self) -> AsyncIterator[str]:
        async with self._answers:
            while line := await self.readline():
                error = line_error(line)
                if error is None:
                    yield line
                else:
                    await self._answers.send(error)

    async def answer_on(self, write_stream: Any) -> None:
        """Send each error reply to the client on ``write_stream`` (the one the server writes
        its own answers to), until stdin ends or the stream closes."""
        async with self._pending:
            async for error in self._pending:
                try:
                    await write_stream.send(SessionMessage(error))
                except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                    return


class _UnownedText(io.TextIOWrapper):
    """UTF-8 text over a buffer this layer does not own: closing it leaves the buffer open."""

    def close(self) -> None:
        with suppress(ValueError):
            self.detach()


@contextmanager
def _claimed_stdin() -> Iterator[BinaryIO]:
    """The client's stdin on a private descriptor, with fd 0 on the null device meanwhile;
    stdin's own buffer where descriptors cannot be moved."""
    if sys.platform == "win32":
        yield sys.stdin.buffer
        return
    import fcntl

    try:
        private = fcntl.fcntl(0, fcntl.F_DUPFD_CLOEXEC, 3)
    except OSError:
        yield sys.stdin.buffer
        return
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(null, 0)
    finally:
        os.close(null)
    try:
        # never closed: a worker thread may still be blocked reading it when serving ends
        yield os.fdopen(private, "rb", closefd=False)
    finally:
        with suppress(OSError):
            os.dup2(private, 0)


def run_stdio(server: Server[Any]) -> None:
    """Serve ``server`` on stdin/stdout until the client closes the pipe."""
    from mcp.server.stdio import stdio_server

    async def main() -> None:
        with _claimed_stdin() as buffer:
            lines = CheckedLines(_UnownedText(buffer, encoding="utf-8", errors="replace"))
            async with (
                stdio_server(stdin=lines) as (read_stream, write_stream),
                anyio.create_task_group() as group,
            ):
                group.start_soon(lines.answer_on, write_stream)
                await server.run(read_stream, write_stream, server.create_initialization_options())
                group.cancel_scope.cancel()

    anyio.run(main)
