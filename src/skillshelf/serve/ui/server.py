"""The page's HTTP server: the standard library's threading server on 127.0.0.1 only.

Each request passes :mod:`skillshelf.serve.ui.guard` (loopback ``Host``, the token, and for a
POST the same-origin checks) before a route runs; a GET's query is read only after the ``Host``
check, and one of more than :data:`MAX_QUERY_FIELDS` fields gets a 400; every answer carries a strict
Content-Security-Policy (only the page's own script and style), ``no-referrer`` (the token is
in the URL) and ``no-store``. JSON answers have an ``ETag`` (``If-None-Match`` gives 304).
``HEAD`` is a GET without the body; PUT, DELETE and the other methods HTTP defines get 405 with
``Allow`` (so does a POST to a GET route, and a GET of the POST route), a method it does not
define 501, a POST body not sent whole with its ``Content-Length`` 411, and a request the
standard library cannot read its status: all as JSON with the same headers.
``/api/events`` is a server-sent event stream that says when the skills changed; the watch
(:mod:`skillshelf.serve.ui.watcher`) runs in its own thread. Before each API request the
settings files are looked at (:meth:`UiState.refresh <skillshelf.serve.ui.state.UiState.refresh>`),
so an answer never comes from a config, or a trust, that changed since.
"""

from __future__ import annotations

import hashlib
import json
import logging
import secrets
import threading
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from skillshelf.env import Env
from skillshelf.errors import (
    FileAccessError,
    NotFoundError,
    RequiredSkillError,
    SkillshelfError,
    UsageError,
)
from skillshelf.serve.http import bind_socket
from skillshelf.serve.schemas import whole_number
from skillshelf.serve.ui import guard, routes
from skillshelf.serve.ui.state import UiOptions, UiState
from skillshelf.serve.ui.watcher import UiWatcher

__all__ = ["HOST", "UiServer", "json_body"]

log = logging.getLogger(__name__)

HOST = "127.0.0.1"
MAX_BODY = 64 * 1024
MAX_QUERY_FIELDS = 20
EVENT_PING_S = 15.0
_SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; "
    "connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Resource-Policy": "same-origin",
    "Cache-Control": "no-store",
}
_STATUS = {UsageError: 400, NotFoundError: 404, RequiredSkillError: 409, FileAccessError: 409}
_GET_PATHS = frozenset({*routes.STATIC, *routes.GET_ROUTES, "/api/events"})
_OPEN_THE_PAGE = f"open the URL `skillshelf ui` printed; the API answers {', '.join(routes.GET_ROUTES)}"
_WATCH_STOPPED = "event: watch\ndata: stopped\n\n"
"""Sent once the skill folders are no longer watched: the page stops saying "live"."""
_WHOLE_BODY = "send the body whole, as JSON, with its Content-Length"


class UiServer:
    """The server for one folder: :meth:`start` (a background thread) or :meth:`serve_forever`."""

    def __init__(
        self, env: Env, options: UiOptions | None = None, *, port: int = 0, watch: bool = True
    ) -> None:
        self.state = UiState(env, options)
        if not watch:
            self.state.watching = False
        self.token = secrets.token_urlsafe(24)
        self._static: dict[str, bytes] = {}
        sock = bind_socket(HOST, port)
        self.port: int = sock.getsockname()[1]
        self._http = _Http(self, sock)
        self._watch = watch
        self._watcher: UiWatcher | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """The page's address, token included."""
        return f"http://{HOST}:{self.port}/?token={self.token}"

    def serve_forever(self) -> None:
        """Serve (and watch) until :meth:`close` is called from another thread or interrupted."""
        try:
            if self._watch and self._watcher is None:
                self._watcher = UiWatcher(self.state)
                self._watcher.start()
            self._http.serve_forever(poll_interval=0.2)
        finally:
            self.close()

    def start(self) -> UiServer:
        """Serve from a daemon thread; returns at once."""
        self._thread = threading.Thread(target=self.serve_forever, name="skillshelf-ui", daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        """Stop serving and watching; wakes every open event stream."""
        self.state.close()
        if self._watcher is not None:
            self._watcher.stop()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._http.shutdown()
            self._thread.join(timeout=10)
            self._thread = None
        self._http.server_close()

    def __enter__(self) -> UiServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def static(self, name: str) -> bytes:
        data = self._static.get(name)
        if data is None:
            data = self._static[name] = routes.static_file(name)
        return data


def _query(query: str) -> dict[str, str] | None:
    """A GET's query fields (the last of a repeated name wins), or None past
    :data:`MAX_QUERY_FIELDS`."""
    try:
        return dict(parse_qsl(query, keep_blank_values=True, max_num_fields=MAX_QUERY_FIELDS))
    except ValueError:
        return None


def json_body(data: object) -> bytes:
    """``data`` as compact UTF-8 JSON. A path with a byte that is not UTF-8 reaches here as a lone
    surrogate (Python's ``surrogateescape``), which UTF-8 cannot encode: such a character becomes
    U+FFFD, as ``validate --json`` writes it, so the reply still goes out."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass").decode("utf-8", "replace").encode("utf-8")


def _has_body(headers: Mapping[str, str]) -> bool:
    """Whether a request says a body follows its headers (a length, or chunks)."""
    return headers.get("Content-Length", "0") != "0" or headers.get("Transfer-Encoding") is not None


class _Http(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False

    def __init__(self, ui: UiServer, sock: Any) -> None:
        super().__init__((HOST, ui.port), _Handler, bind_and_activate=False)
        self.socket.close()
        self.socket = sock
        self.server_address = sock.getsockname()
        self.server_name, self.server_port = HOST, ui.port
        self.ui = ui


class _Handler(BaseHTTPRequestHandler):
    server: _Http
    protocol_version = "HTTP/1.1"
    server_version = "skillshelf-ui"
    sys_version = ""
    _body_read = False

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("%s " + format, self.address_string(), *args)

    # -- entry points ----------------------------------------------------------------------
    def do_GET(self) -> None:
        self._body_read = False
        url = urlsplit(self.path)
        if self._wrong_host():
            return
        params = _query(url.query)
        if params is None:
            message = f"the query has more than {MAX_QUERY_FIELDS} fields"
            self._json(
                400, {"error": "SV400", "message": message, "fix": "send only the fields the API reads"}
            )
            return
        if self._wrong_token(params.get("token") or self.headers.get(guard.TOKEN_HEADER)):
            return
        ui = self.server.ui
        if url.path in routes.STATIC:
            name, content_type = routes.STATIC[url.path]
            body = ui.static(name)
            if name == "index.html":
                body = body.replace(b"{{TOKEN}}", ui.token.encode("ascii"))
            self._send(200, body, content_type)
        elif url.path == "/api/events":
            self._events(params)
        elif url.path in routes.GET_ROUTES:
            self._json_call(lambda: routes.GET_ROUTES[url.path](ui.state, params))
        elif url.path in routes.POST_ROUTES:
            self._not_allowed()
        else:
            self._error(404, "SV404", f"no page or API at {url.path!r}", _OPEN_THE_PAGE)

    def do_HEAD(self) -> None:
        """GET's answer without its body (for the event stream: its headers only)."""
        self.do_GET()

    def do_POST(self) -> None:
        self._body_read = False
        url = urlsplit(self.path)
        if url.path in _GET_PATHS:
            self._not_allowed()
            return
        if self._wrong_host() or self._wrong_token(self.headers.get(guard.TOKEN_HEADER)):
            return
        denial = guard.check_same_origin(
            host=self.headers.get("Host", ""),
            origin=self.headers.get("Origin"),
            fetch_site=self.headers.get("Sec-Fetch-Site"),
            content_type=self.headers.get("Content-Type"),
        )
        if denial is not None:
            self._denied(denial)
            return
        handler = routes.POST_ROUTES.get(url.path)
        if handler is None:
            self._error(404, "SV404", f"no API at {url.path!r}", f"POST to {', '.join(routes.POST_ROUTES)}")
            return
        body = self._body()
        if body is not None:
            self._json_call(lambda: handler(self.server.ui.state, body))

    def _not_allowed(self) -> None:
        """405 with the methods the path answers, after the Host check."""
        self._body_read = False
        if self._wrong_host():
            return
        path = urlsplit(self.path).path
        allow = "POST" if path in routes.POST_ROUTES else "GET, HEAD"
        data = {
            "error": "SV435",
            "message": f"{self.command} is not a method {path!r} answers",
            "fix": f"send {allow.replace(', ', ' or ')}",
        }
        self._json(405, data, {"Allow": allow})

    do_PUT = do_DELETE = do_PATCH = do_OPTIONS = do_TRACE = do_CONNECT = _not_allowed

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """What the standard library refuses itself (a request it cannot read, a method no
        ``do_`` answers) as JSON with the security headers, not its HTML page; the connection
        closes."""
        phrase = self.responses.get(code, ("error",))[0]
        fix = "send GET, HEAD or POST" if code == 501 else "send a well-formed HTTP/1.1 request"
        data = {"error": "SV435" if code == 501 else "SV400", "message": message or phrase, "fix": fix}
        self._json(code, data, {"Connection": "close"})

    # -- checks ----------------------------------------------------------------------------
    def _wrong_host(self) -> bool:
        """Send a 403 and say so when the Host is not this server's loopback address."""
        denial = guard.check_host(self.headers.get("Host"), self.server.ui.port)
        if denial is not None:
            self._denied(denial)
            return True
        return False

    def _wrong_token(self, token: str | None) -> bool:
        """Send a 403 and say so when the token is wrong."""
        denial = guard.check_token(token, self.server.ui.token)
        if denial is not None:
            self._denied(denial)
            return True
        return False

    def _body(self) -> Mapping[str, Any] | None:
        if self.headers.get("Transfer-Encoding") is not None:
            message = (
                "a body in chunks (Transfer-Encoding) is not accepted: send it whole, with its Content-Length"
            )
            self._error(411, "SV434", message, _WHOLE_BODY)
            return None
        length = whole_number(self.headers.get("Content-Length", ""))
        if length is None:
            self._error(411, "SV434", "the Content-Length header is missing or not a number", _WHOLE_BODY)
            return None
        if length > MAX_BODY:
            message = f"the body is over {MAX_BODY // 1024} KiB"
            self._error(413, "SV434", message, "send a smaller JSON object")
            return None
        data = self.rfile.read(length)
        self._body_read = True
        try:
            body = json.loads(data or b"{}")
        except (ValueError, RecursionError):
            body = None
        if not isinstance(body, dict):
            self._error(
                400,
                "SV400",
                "the body must be a JSON object",
                'send a JSON object, such as {"session_id": "..."}',
            )
            return None
        return body

    # -- answers ---------------------------------------------------------------------------
    def _json_call(self, call: Any) -> None:
        """Answer with ``call()`` over the state, reopened first if a settings file changed."""
        try:
            self.server.ui.state.refresh()
            data = call()
        except SkillshelfError as exc:
            status = next((s for kind, s in _STATUS.items() if isinstance(exc, kind)), 500)
            self._json(status, {"error": exc.code, "message": exc.message, "fix": exc.hint})
            return
        except Exception as exc:  # a bug: say so, keep serving, never send a traceback
            log.exception("ui route %s failed", self.path.split("?", 1)[0])
            self._json(500, {"error": "SV500", "message": f"internal error: {type(exc).__name__}"})
            return
        self._json(200, data)

    def _json(self, status: int, data: object, headers: Mapping[str, str] = {}) -> None:
        body = json_body(data)
        etag = '"' + hashlib.blake2b(body, digest_size=12).hexdigest() + '"'
        if status == 200 and self.headers.get("If-None-Match") == etag:
            self._send(304, b"", None, {"ETag": etag})
            return
        self._send(status, body, "application/json; charset=utf-8", {**headers, "ETag": etag})

    def _error(self, status: int, code: str, message: str, fix: str) -> None:
        self._json(status, {"error": code, "message": message, "fix": fix})

    def _denied(self, denial: guard.Denial) -> None:
        self._json(denial.status, denial.to_dict())

    def _send(
        self, status: int, body: bytes, content_type: str | None, headers: Mapping[str, str] = {}
    ) -> None:
        self.send_response(status)
        request = getattr(self, "headers", None)  # None when the request line could not be read
        unread = request is not None and not self._body_read and _has_body(request)
        if unread and "Connection" not in headers:
            self.send_header("Connection", "close")  # an unread body would be taken for the next request
        if content_type:
            self.send_header("Content-Type", content_type)
        for key, value in {**_SECURITY_HEADERS, **headers}.items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if body and self.command != "HEAD":
            self.wfile.write(body)

    def _events(self, params: Mapping[str, str]) -> None:
        """Server-sent events: ``change`` with the new snapshot version whenever skills change."""
        state = self.server.ui.state
        self.close_connection = True
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        for key, value in _SECURITY_HEADERS.items():
            self.send_header(key, value)
        self.end_headers()
        if self.command == "HEAD":
            return
        version, watching = state.snapshot.version, True
        try:
            self._event(f"retry: 2000\nevent: hello\ndata: {version}\n\n")
            while not state.closed:
                if watching and not state.watching:
                    self._event(_WATCH_STOPPED)
                    watching = False
                now = state.wait_for_change(version, EVENT_PING_S, watching)
                if state.closed:
                    break
                if now != version:
                    self._event(f"event: change\ndata: {now}\n\n")
                elif watching == state.watching:
                    self._event(": ping\n\n")
                version = now
        except (BrokenPipeError, ConnectionResetError, TimeoutError):
            return

    def _event(self, text: str) -> None:
        self.wfile.write(text.encode("utf-8"))
        self.wfile.flush()
