"""libpq's ``keyword=value`` connection strings (``host=db port=5432 user=app dbname=mem``),
which ``--db`` takes for PostgreSQL as psycopg does, beside ``postgresql://`` URLs.

A string is read as one when it is nothing but ``keyword = value`` pairs (a value bare, with
backslash escapes, or in single quotes, as libpq parses it) and at least one keyword is libpq's,
so a file named ``notes=1.sqlite`` is still a file; a file whose name reads as a connection
string is written ``./name``. What is shown of one has its password's value masked, whatever
its length or quoting, before the usual redaction.
"""

from __future__ import annotations

import re

__all__ = ["is_conninfo", "shown_conninfo", "shown_database"]

LIBPQ_KEYWORDS = frozenset(
    {
        "host",
        "hostaddr",
        "port",
        "dbname",
        "user",
        "password",
        "passfile",
        "service",
        "sslmode",
        "sslrootcert",
        "sslcert",
        "sslkey",
        "connect_timeout",
        "application_name",
        "options",
        "target_session_attrs",
        "require_auth",
        "channel_binding",
        "gssencmode",
        "client_encoding",
    }
)
"""libpq's connection keywords a connection string is told by (PostgreSQL's "Parameter Key
Words"); the others psycopg passes on too, and libpq refuses an unknown one."""

_VALUE = r"(?:'(?:[^'\\]|\\.)*'|(?:[^\s'\\]|\\.)*)"
_PAIR = re.compile(rf"\s*([A-Za-z_]\w*)\s*=\s*({_VALUE})")
_MAX_CHARS = 4096  # a connection string is one line a person wrote


def _pairs(text: str) -> list[tuple[str, str, int, int]] | None:
    """``(keyword, value, value start, value end)`` of each pair, or None when ``text`` is not
    only pairs."""
    if len(text) > _MAX_CHARS or "=" not in text or "://" in text:
        return None
    pairs, at = [], 0
    while at < len(text.rstrip()):
        found = _PAIR.match(text, at)
        if found is None or found.end() == at:
            return None
        pairs.append((found.group(1).lower(), found.group(2), found.start(2), found.end(2)))
        at = found.end()
        if at < len(text) and not text[at].isspace():
            return None  # a value ends at a space
    return pairs


def is_conninfo(text: str) -> bool:
    """Whether ``text`` is a libpq ``keyword=value`` connection string (module docstring)."""
    pairs = _pairs(text)
    return bool(pairs) and any(key in LIBPQ_KEYWORDS for key, *_ in pairs or ())


def shown_conninfo(text: str) -> str:
    """``text`` with the value of its ``password`` keyword replaced (``text`` as it is when it
    is no connection string)."""
    from skillshelf.memory.redact import REDACTED

    pairs = _pairs(text)
    if not pairs:
        return text
    out, last = [], 0
    for key, _value, start, end in pairs:
        if key == "password":
            out += [text[last:start], REDACTED]
            last = end
    return "".join([*out, text[last:]])


def shown_database(name: str) -> str:
    """How a message names the database ``name`` (a path, a URL or a connection string): its
    password masked and every secret redacted, so no message, report or run log holds one."""
    from skillshelf.memory.redact import redact_secrets

    return redact_secrets(shown_conninfo(name))
