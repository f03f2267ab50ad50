"""Secrets in an install source URL stay out of the lock file and out of messages.

A token pasted into the URL (``https://x-access-token:TOKEN@github.com/o/r.git``), a
``?token=...`` or a signed download's signature is used for the one fetch it was typed for.
What is recorded (the lock file, which a project commits) and shown is the URL without it:
the password of the user part dropped, secret query values replaced with ``[REDACTED_SECRET]``.
``update`` then fetches through git's own credentials (a credential helper, SSH).
"""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

__all__ = ["REDACTED", "scrubbed", "without_secrets"]

REDACTED = "[REDACTED_SECRET]"
# query parameters that carry a credential whatever their value looks like (signed URLs of
# S3, GCS and Azure; OAuth and API tokens)
_SECRET_PARAM = re.compile(
    r"token|secret|passw|pwd|signature|^sig$|credential|api[-_]?key|^key$|auth|^code$|session",
    re.IGNORECASE,
)


def without_secrets(url: str) -> str:
    """``url`` without the password of its user part and with secret query values redacted;
    ``url`` itself when it holds none (and for what is not a URL with a scheme)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    if not parts.scheme or not parts.netloc:
        return url
    netloc = parts.netloc
    if parts.password is not None:
        user, _, host = netloc.rpartition("@")
        netloc = f"{user.partition(':')[0]}@{host}"
    query = _safe_query(parts.query)
    if netloc == parts.netloc and query == parts.query:
        return url
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def _safe_query(query: str) -> str:
    if not query:
        return query
    from skillshelf.memory.redact import redact_secrets

    pairs = parse_qsl(query, keep_blank_values=True)
    safe = [
        (name, REDACTED if value and _SECRET_PARAM.search(name) else redact_secrets(value))
        for name, value in pairs
    ]
    return query if safe == pairs else urlencode(safe, safe="[]")


def scrubbed(text: str, secret_url: str) -> str:
    """``text`` (an error message that may quote ``secret_url``) with that URL's secrets
    replaced, as typed and as percent-encoded."""
    from urllib.parse import quote

    parts = urlsplit(secret_url)
    secrets = [parts.password or ""]
    secrets += [value for name, value in parse_qsl(parts.query) if value and _SECRET_PARAM.search(name)]
    for secret in sorted((s for s in secrets if len(s) >= 4), key=len, reverse=True):
        for form in {secret, quote(secret, safe=""), quote(secret)}:
            text = text.replace(form, REDACTED)
    from skillshelf.memory.redact import redact_secrets

    return redact_secrets(text)
