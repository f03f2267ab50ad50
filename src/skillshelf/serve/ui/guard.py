"""Who may talk to the page's server: pure checks on a request's headers, before any route runs.

* ``Host`` must name this machine's loopback (``127.0.0.1``, ``localhost``, ``[::1]``) and, when
  it has a port, the server's: a page on another site that rebinds its DNS name to 127.0.0.1
  sends its own name, and is refused. A loopback name without a port passes (what a client
  sends for port 80; no other site can send it).
* Every request carries the token printed at start-up (``?token=`` in the URL, or the
  ``X-Skillshelf-Token`` header the page's script sends); the comparison is constant-time.
* A POST (the only one forgets a memory) must also come from the page itself: the token in
  the header (never the URL), ``Origin`` equal to the server's own origin, no ``Sec-Fetch-Site``
  other than ``same-origin``, and a JSON body (which a cross-site form cannot send).
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from urllib.parse import urlsplit

from skillshelf.serve.http import is_loopback

__all__ = ["TOKEN_HEADER", "Denial", "check_host", "check_same_origin", "check_token"]

TOKEN_HEADER = "X-Skillshelf-Token"


@dataclass(frozen=True, slots=True, kw_only=True)
class Denial:
    """Why a request is refused: the HTTP status, a stable code, a message and the fix."""

    status: int
    code: str
    message: str
    fix: str

    def to_dict(self) -> dict[str, object]:
        return {"error": self.code, "message": self.message, "fix": self.fix}


def check_host(host: str | None, port: int) -> Denial | None:
    """None when ``host`` (the ``Host`` header) is a loopback name or address, with our port or
    none."""
    refused = Denial(
        status=403,
        code="SV430",
        message=f"the Host header must be 127.0.0.1:{port} or localhost:{port}",
        fix="open the URL `skillshelf ui` printed (http://127.0.0.1:PORT/?token=...)",
    )
    if not host or any(ch.isspace() or ch in "/\\@?#" for ch in host):
        return refused
    try:
        parts = urlsplit(f"//{host}")
        name, given = parts.hostname, parts.port
    except ValueError:
        return refused
    if not name or not is_loopback(name) or (given is not None and given != port):
        return refused
    return None


def check_token(given: str | None, expected: str) -> Denial | None:
    """None when ``given`` is the server's token."""
    if given and hmac.compare_digest(given.encode("utf-8", "surrogatepass"), expected.encode("utf-8")):
        return None
    return Denial(
        status=403,
        code="SV431",
        message="missing or wrong token",
        fix="open the URL `skillshelf ui` printed (it ends in ?token=...), or send its token in the "
        f"{TOKEN_HEADER} header",
    )


def check_same_origin(
    *, host: str, origin: str | None, fetch_site: str | None, content_type: str | None
) -> Denial | None:
    """None when a POST comes from the page served at ``host`` itself, as JSON."""
    if origin != f"http://{host}" or (fetch_site is not None and fetch_site != "same-origin"):
        return Denial(
            status=403,
            code="SV432",
            message="changes are only accepted from the skillshelf page itself (same origin)",
            fix="make the change on the page `skillshelf ui` serves, in the tab it opened",
        )
    if (content_type or "").split(";", 1)[0].strip().lower() != "application/json":
        return Denial(
            status=415,
            code="SV433",
            message="the request body must be JSON",
            fix="send the body as application/json (Content-Type: application/json)",
        )
    return None
