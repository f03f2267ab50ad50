"""The MCP server on stdin/stdout: the SDK's stdio transport, reading lines checked first.

The SDK's reader drops a line its validation refuses without a word, so a client waiting for
the answer to it waits forever. Each line is checked before the SDK reads it
(:func:`line_error`), and one the SDK would drop while a client waits gets the JSON-RPC error
of :mod:`skillshelf.serve.jsonrpc_check` (the HTTP transport's too), written by the SDK's own
writer (one whole line per message).

Notifications, responses and blank lines are never answered (JSON-RPC answers neither), so
those still go to the SDK, which ignores them. While serving, fd 0 points at the null device
(as the SDK does when it opens stdin itself), so a child process never reads the client's bytes.

At the end of stdin the SDK cancels the requests still running and answers none of them, so a
client that writes its requests and closes the pipe (``printf ... | skillshelf serve``) would
lose them. The SDK sees the end of stdin only once every request read before it is answered
(:class:`Unanswered`, whose answers the server's write stream reports), or cancelled by the
client, or :data:`DRAIN_SECONDS` have passed; with none in flight serving ends at once.

Ctrl-C (SIGINT) cancels the serving at once, stdin's read included (:meth:`CheckedLines.readline`),
and :func:`run_stdio` raises ``KeyboardInterrupt``; the thread left blocked in that read is not
waited for, so the caller ends the process without joining it.
"""

from __future__ import annotations

import errno
import io
import os
import sys
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager, suppress
from types import TracebackType
from typing import IO, Any, BinaryIO

import anyio
import mcp.types as types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.server.lowlevel.server import Server
from mcp.shared.dispatcher import coerce_request_id
from mcp.shared.jsonrpc_dispatcher import cancelled_request_id_from_params
from mcp.shared.message import SessionMessage

from skillshelf.errors import StdoutFailed
from skillshelf.serve.jsonrpc_check import Refusal, checked
from skillshelf.serve.warming import MODELS_WAIT_SECONDS

__all__ = ["DRAIN_SECONDS", "OPEN_ENDED", "CheckedLines", "Unanswered", "line_error", "run_stdio"]

DRAIN_SECONDS = MODELS_WAIT_SECONDS + 20.0
"""How long serving goes on after stdin ends for the requests read before it, still unanswered:
long enough for a first search, which may build the index and then wait for the embedding
models (:data:`~skillshelf.serve.warming.MODELS_WAIT_SECONDS`) before it answers."""
OPEN_ENDED = frozenset({"subscriptions/listen"})
"""Requests answered only when the connection ends (a subscription's stream), never waited for."""


def line_error(line: str) -> types.JSONRPCError | None:
    """The error a client gets for ``line`` when the SDK would drop it unanswered; None when the
    line goes to the SDK as it is (valid, or a message JSON-RPC never answers)."""
    result = _line_check(line)
    return result.error if isinstance(result, Refusal) else None


def _line_check(line: str) -> types.JSONRPCMessage | Refusal | None:
    """The message ``line`` holds for the SDK, the refusal a client waits on instead, or None
    for a line the SDK cannot read and JSON-RPC never answers (blank, a bad notification)."""
    if not line.strip():
        return None
    result = checked(line)
    return None if isinstance(result, Refusal) and not result.awaited else result


class Unanswered:
    """The requests read from stdin the server has not answered yet, counted by id as the SDK
    correlates ids (``"7"`` and ``7`` are one; a repeated id counts each time)."""

    def __init__(self) -> None:
        self._ids: Counter[types.RequestId | None] = Counter()
        self._changed = anyio.Event()

    def read(self, message: types.JSONRPCMessage) -> None:
        """Count a request (not an :data:`OPEN_ENDED` one); a client's ``notifications/cancelled``
        settles the one it names, which the SDK then leaves unanswered."""
        if isinstance(message, types.JSONRPCRequest) and message.method not in OPEN_ENDED:
            self.asked(message.id)
        elif isinstance(message, types.JSONRPCNotification) and message.method == "notifications/cancelled":
            named = cancelled_request_id_from_params(message.params)
            if named is not None:
                self._settle(named)

    def asked(self, request_id: types.RequestId | None) -> None:
        """Count a message awaiting the answer with ``request_id``."""
        self._ids[_key(request_id)] += 1

    def answered(self, message: types.JSONRPCMessage) -> None:
        """Settle the request ``message`` answers, if it is an answer."""
        if isinstance(message, types.JSONRPCResponse | types.JSONRPCError):
            self._settle(message.id)

    def _settle(self, request_id: types.RequestId | None) -> None:
        key = _key(request_id)
        if self._ids[key] > 0:
            self._ids[key] -= 1
            if not self._ids[key]:
                del self._ids[key]
            self._changed.set()
            self._changed = anyio.Event()

    async def drained(self, seconds: float) -> bool:
        """Wait until every counted request is settled (True) or ``seconds`` pass (False)."""
        with anyio.move_on_after(seconds):
            while self._ids:
                await self._changed.wait()
        return not self._ids


def _key(request_id: types.RequestId | None) -> types.RequestId | None:
    return None if request_id is None else coerce_request_id(request_id)


class _AnswerWatch:
    """The SDK's write stream, reporting each answer sent on it to :class:`Unanswered`."""

    def __init__(self, inner: Any, unanswered: Unanswered) -> None:
        self._inner = inner
        self._unanswered = unanswered

    async def send(self, item: SessionMessage) -> None:
        await self._inner.send(item)
        self._unanswered.answered(item.message)

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> _AnswerWatch:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()


class CheckedLines(anyio.AsyncFile[str]):
    """stdin's lines for the SDK, each checked first: one the SDK would drop unanswered is
    answered here through the SDK's write stream (:meth:`answer_on`) and not passed on. The
    lines end only once the requests among them are answered (:attr:`unanswered`), at most
    ``drain`` seconds after stdin ends."""

    def __init__(self, fp: IO[str], *, drain: float = DRAIN_SECONDS) -> None:
        super().__init__(fp)
        self.unanswered = Unanswered()
        self._drain = drain
        self._answers: MemoryObjectSendStream[types.JSONRPCError]
        self._pending: MemoryObjectReceiveStream[types.JSONRPCError]
        self._answers, self._pending = anyio.create_memory_object_stream[types.JSONRPCError](100)

    async def readline(self) -> str:
        """stdin's next line, read in a worker thread that a cancellation leaves behind: a read
        blocked on a client that sends nothing would otherwise hold Ctrl-C's way out (asyncio
        cancels the serving task on SIGINT) until the next line or the end of stdin."""
        return await anyio.to_thread.run_sync(
            self.wrapped.readline, abandon_on_cancel=True, limiter=self.limiter
        )

    async def __aiter__(self) -> AsyncIterator[str]:
        async with self._answers:
            while line := await self.readline():
                result = _line_check(line)
                if isinstance(result, Refusal):
                    self.unanswered.asked(result.error.id)
                    await self._answers.send(result.error)
                    continue
                if result is not None:
                    self.unanswered.read(result)
                yield line
        await self.unanswered.drained(self._drain)

    async def answer_on(self, write_stream: Any) -> None:
        """Send each error reply to the client on ``write_stream`` (the one the server writes
        its own answers to), until stdin ends or the stream closes."""
        async with self._pending:
            async for error in self._pending:
                try:
                    await write_stream.send(SessionMessage(error))
                except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                    return
                self.unanswered.answered(error)


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
    """Serve ``server`` on stdin/stdout until the client closes the pipe; Ctrl-C (or SIGTERM
    under :func:`skillshelf.cli.interrupt.sigterm_as_interrupt`) raises ``KeyboardInterrupt``,
    with stdin's reading thread maybe still blocked (see the module)."""
    from mcp.server.stdio import stdio_server

    async def main() -> None:
        with _claimed_stdin() as buffer:
            lines = CheckedLines(_UnownedText(buffer, encoding="utf-8", errors="replace"))
            async with (
                stdio_server(stdin=lines) as (read_stream, write_stream),
                anyio.create_task_group() as group,
            ):
                group.start_soon(lines.answer_on, write_stream)
                watched = _AnswerWatch(write_stream, lines.unanswered)
                await server.run(read_stream, watched, server.create_initialization_options())
                group.cancel_scope.cancel()

    try:
        anyio.run(main)
    except ExceptionGroup as group:
        raise _output_error(group) or group from None


_OUTPUT_ERRNOS = frozenset({errno.EPIPE, errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EBADF})


def _output_error(group: BaseExceptionGroup[BaseException]) -> StdoutFailed | None:
    """A write to stdout that failed inside the server's task group (the SDK writes descriptor
    1 itself), as the command line reports it (a closed pipe: exit 0; else ``SS007``); None for
    any other error."""
    for inner in group.exceptions:
        if isinstance(inner, BaseExceptionGroup):
            found = _output_error(inner)
            if found is not None:
                return found
        elif isinstance(inner, OSError) and inner.errno in _OUTPUT_ERRNOS:
            return StdoutFailed(inner)
    return None
