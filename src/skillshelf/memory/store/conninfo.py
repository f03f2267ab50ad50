"""libpq's ``keyword=value`` connection strings (``host=db port=5432 user=app dbname=mem``),
which ``--db`` takes for PostgreSQL as psycopg does, beside ``postgresql://`` URLs.

A string is read by libpq's own grammar (``conninfo_parse`` in libpq's ``fe-connect.c``): a
keyword runs to ``=`` or a space; a value that starts with ``'`` runs to the next unescaped
``'``, any other value to the next space; ``\\`` takes the character after it as it is, in
both. So ``password=Sup3r'Secret9`` and ``password=a://b`` are values like any other.
A string is one when the whole of it parses so and at least one keyword is libpq's
(:data:`LIBPQ_KEYWORDS`): ``notes=1.sqlite``, ``./host=db`` and ``data/x=1`` (keywords libpq
does not know) are file names; libpq itself reports an unknown keyword beside a known one.
What is shown of one has the values of its secret keywords masked, whatever their length or
quoting, before the usual redaction.
"""

from __future__ import annotations

import re
from typing import NamedTuple

__all__ = ["LIBPQ_KEYWORDS", "broken_conninfo", "is_conninfo", "shown_conninfo", "shown_database"]

LIBPQ_KEYWORDS = frozenset(
    {
        "application_name",
        "channel_binding",
        "client_encoding",
        "connect_timeout",
        "dbname",
        "fallback_application_name",
        "gssdelegation",
        "gssencmode",
        "gsslib",
        "host",
        "hostaddr",
        "keepalives",
        "keepalives_count",
        "keepalives_idle",
        "keepalives_interval",
        "krbsrvname",
        "load_balance_hosts",
        "max_protocol_version",
        "min_protocol_version",
        "oauth_client_id",
        "oauth_client_secret",
        "oauth_issuer",
        "oauth_scope",
        "options",
        "passfile",
        "password",
        "port",
        "replication",
        "require_auth",
        "requirepeer",
        "scram_client_key",
        "scram_server_key",
        "service",
        "ssl_max_protocol_version",
        "ssl_min_protocol_version",
        "sslcert",
        "sslcertmode",
        "sslcompression",
        "sslcrl",
        "sslcrldir",
        "sslkey",
        "sslkeylogfile",
        "sslmode",
        "sslnegotiation",
        "sslpassword",
        "sslrootcert",
        "sslsni",
        "target_session_attrs",
        "tcp_user_timeout",
        "user",
    }
)
"""libpq's connection keywords (``PQconndefaults()`` of libpq 18, which psycopg's
``pq.Conninfo.get_defaults()`` lists; an older libpq knows a subset and says which it does
not). libpq's keywords are lower case, and it refuses any other."""

SECRET_KEYWORDS = frozenset(
    {"password", "sslpassword", "oauth_client_secret", "scram_client_key", "scram_server_key"}
)
"""The keywords whose values are secrets: those libpq shows as ``*`` (``dispchar``) and the
SCRAM keys; matched in any case, so a mistyped ``PASSWORD=`` is masked too."""

_SPACE = " \t\n\v\f\r"  # C's isspace() in the C locale, which libpq uses
_MAX_CHARS = 4096  # a connection string is one line a person wrote
_SECRET_START = re.compile(rf"(?i)(?:^|[{_SPACE}])(?:{'|'.join(sorted(SECRET_KEYWORDS))})[{_SPACE}]*=")


class _Pair(NamedTuple):
    keyword: str
    value: str
    start: int  # where the value is written in the text, its quotes included
    end: int


class _Unparsed(ValueError):
    """libpq would refuse the string; ``pairs`` are those read before the fault."""

    def __init__(self, reason: str, pairs: list[_Pair]) -> None:
        super().__init__(reason)
        self.pairs = pairs


def _skip_space(text: str, at: int) -> int:
    while at < len(text) and text[at] in _SPACE:
        at += 1
    return at


def _value(text: str, at: int, pairs: list[_Pair]) -> tuple[str, int]:
    """The value that starts at ``at`` (escapes undone) and where the text after it starts."""
    quoted = at < len(text) and text[at] == "'"
    chars, at = [], at + quoted
    while at < len(text):
        char = text[at]
        if char == "\\":
            chars.append(text[at + 1 : at + 2])
            at += 2
        elif quoted and char == "'":
            return "".join(chars), at + 1
        elif not quoted and char in _SPACE:
            return "".join(chars), at
        else:
            chars.append(char)
            at += 1
    if quoted:
        raise _Unparsed("a quoted value has no closing '", pairs)
    return "".join(chars), at


def _parse(text: str) -> list[_Pair]:
    """Each ``keyword=value`` of ``text`` by libpq's grammar; :class:`_Unparsed` where libpq
    would stop."""
    pairs: list[_Pair] = []
    at = _skip_space(text, 0)
    while at < len(text):
        name_end = at
        while name_end < len(text) and text[name_end] != "=" and text[name_end] not in _SPACE:
            name_end += 1
        equals = _skip_space(text, name_end)
        if equals >= len(text) or text[equals] != "=":
            raise _Unparsed(f"no '=' after the keyword {text[at:name_end]!r}", pairs)
        start = _skip_space(text, equals + 1)
        value, end = _value(text, start, pairs)
        pairs.append(_Pair(text[at:name_end], value, start, end))
        at = _skip_space(text, end)
    return pairs


def _pairs(text: str) -> list[_Pair] | None:
    """The pairs of ``text`` when it is a connection string (module docstring), else None."""
    if len(text) > _MAX_CHARS or "=" not in text:
        return None
    try:
        pairs = _parse(text)
    except _Unparsed:
        return None
    return pairs if any(pair.keyword in LIBPQ_KEYWORDS for pair in pairs) else None


def is_conninfo(text: str) -> bool:
    """Whether ``text`` is a libpq ``keyword=value`` connection string (module docstring)."""
    return _pairs(text) is not None


def broken_conninfo(text: str) -> str | None:
    """Why libpq cannot read ``text``, when it starts as a connection string (its first keyword
    is libpq's, then ``=``) but is none: a SQLite file must not be named after it (its password
    would be the file's name)."""
    if len(text) > _MAX_CHARS or "=" not in text:
        return None
    try:
        _parse(text)
    except _Unparsed as unparsed:
        first = text.lstrip(_SPACE).split("=", 1)[0].rstrip(_SPACE)
        return str(unparsed) if first in LIBPQ_KEYWORDS else None
    return None


def shown_conninfo(text: str) -> str:
    """``text`` with the values of its secret keywords replaced (all that follows one, when
    libpq could not read the string; ``text`` as it is when it has none)."""
    from skillshelf.memory.redact import REDACTED

    if "=" not in text:
        return text
    try:
        pairs, cut = _parse(text), len(text)
    except _Unparsed as unparsed:
        pairs, cut = unparsed.pairs, len(text)
        tail_from = pairs[-1].end if pairs else 0
        if found := _SECRET_START.search(text, tail_from):
            cut = found.end()
    out, last = [], 0
    for pair in pairs:
        if pair.keyword.lower() in SECRET_KEYWORDS:
            out += [text[last : pair.start], REDACTED]
            last = pair.end
    tail = text[last:cut] + (REDACTED if cut < len(text) else "")
    return "".join([*out, tail])


def shown_database(name: str) -> str:
    """How a message names the database ``name`` (a path, a URL or a connection string): its
    password masked and every secret redacted, so no message, report or run log holds one."""
    from skillshelf.memory.redact import redact_secrets

    return redact_secrets(shown_conninfo(name))
