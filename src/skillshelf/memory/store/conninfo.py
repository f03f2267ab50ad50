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

A URL (``postgresql://user:password@host/db?password=...``) is shown with the password of its
user part and the values of its secret query parameters masked by position, not by shape, so a
password of one character (or none: ``user:@host``) is masked as a long one is. The user part
runs to the last ``@`` before the query (or, when that is later, before the first ``/``), so
a password with ``@``, ``/`` or ``?`` written as it is (not percent-encoded) is masked whole
whichever way a reader splits it. A driver's error quotes the string it refused, or a part of it
(libpq: ``invalid percent-encoded token: "..."``): :func:`scrubbed_error` takes the secrets out.
"""

from __future__ import annotations

import re
from typing import NamedTuple

__all__ = [
    "LIBPQ_KEYWORDS",
    "broken_conninfo",
    "is_conninfo",
    "scrubbed_error",
    "shown_conninfo",
    "shown_database",
    "shown_url",
]

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
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")
_SHORT_SECRET = 4  # a shorter secret is taken out of an error only where it is quoted whole
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


def _user_part_end(text: str, start: int) -> int:
    """Where the user part of the URL whose authority starts at ``start`` ends (its ``@``), or -1
    (module docstring)."""
    query = text.find("?", start)
    path = text.find("/", start)
    before_query = text.rfind("@", start, len(text) if query < 0 else query)
    before_path = text.rfind("@", start, len(text) if path < 0 else path)
    return max(before_query, before_path)


def _url_secrets(text: str) -> list[tuple[int, int]]:
    """Where the password and the secret query values of ``text`` are written, when it is a URL
    (an empty one too: an empty span), in order, none overlapping."""
    scheme = _SCHEME.match(text)
    if scheme is None:
        return []
    start, spans = scheme.end(), []
    at = _user_part_end(text, start) if not text.startswith("/", start) else -1
    colon = text.find(":", start, at) if at >= 0 else -1
    if colon >= 0:
        spans.append((colon + 1, at))
    for query in {text.find("?", start), text.find("?", max(at, start))} - {-1}:
        spans += _query_secrets(text, query + 1)
    merged: list[tuple[int, int]] = []
    for begin, end in sorted(spans):
        if merged and begin <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((begin, end))
    return merged


def _query_secrets(text: str, offset: int) -> list[tuple[int, int]]:
    """Where the values of the secret keywords of the query that starts at ``offset`` are."""
    from urllib.parse import unquote

    spans = []
    for piece in text[offset:].split("&"):
        key, equals, _ = piece.partition("=")
        if equals and unquote(key).strip(_SPACE).lower() in SECRET_KEYWORDS:
            spans.append((offset + len(key) + 1, offset + len(piece)))
        offset += len(piece) + 1
    return spans


def shown_url(text: str) -> str:
    """``text`` (a URL) with its password and the values of its secret query parameters masked,
    whatever their length, an empty one included (module docstring); other text as it is."""
    from skillshelf.memory.redact import REDACTED

    out, last = [], 0
    for start, end in _url_secrets(text):
        out += [text[last:start], REDACTED]
        last = end
    return "".join([*out, text[last:]])


def _secrets_of(name: str) -> set[str]:
    """The secrets ``name`` (a URL or a connection string) holds: as written and as read."""
    from urllib.parse import unquote

    found = {name[start:end] for start, end in _url_secrets(name)}
    try:
        pairs = _parse(name) if "=" in name else []
    except _Unparsed as unparsed:
        pairs = unparsed.pairs
    found |= {name[p.start : p.end] for p in pairs if p.keyword.lower() in SECRET_KEYWORDS}
    found |= {p.value for p in pairs if p.keyword.lower() in SECRET_KEYWORDS}
    return {form for secret in found for form in (secret, unquote(secret)) if form}


def scrubbed_error(message: str, name: str) -> str:
    """``message`` (a driver's error about the database ``name``) with ``name`` as
    :func:`shown_database` shows it and each secret of ``name`` masked: everywhere when it is
    4 characters or longer, else where the message quotes it whole (``"x"``), so a short
    password does not take letters out of the words around it."""
    from skillshelf.memory.redact import REDACTED, redact_secrets

    text = message.replace(name, shown_database(name)) if name else message
    for secret in sorted(_secrets_of(name), key=len, reverse=True):
        if len(secret) >= _SHORT_SECRET:
            text = text.replace(secret, REDACTED)
        else:
            text = text.replace(f'"{secret}"', f'"{REDACTED}"').replace(f"'{secret}'", f"'{REDACTED}'")
    return redact_secrets(text)


def shown_database(name: str) -> str:
    """How a message names the database ``name`` (a path, a URL or a connection string): its
    password masked and every secret redacted, so no message, report or run log holds one."""
    from skillshelf.memory.redact import redact_secrets

    return redact_secrets(shown_url(shown_conninfo(name)))
