"""Secrets in an install source URL stay out of the lock file and out of messages.

A token pasted into the URL (``https://x-access-token:TOKEN@github.com/o/r.git``), a
``?token=...`` or a signed download's signature is used for the one fetch it was typed for.
What is recorded (the lock file, which a project commits) and shown is the URL without it:
the password of the user part dropped (the whole user part when it is itself a token the
redactor knows), secret query values replaced with ``[REDACTED_SECRET]``.
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
    user, at, host = netloc.rpartition("@")
    if at:
        name = user.partition(":")[0]
        netloc = host if _is_token(name) else f"{name}@{host}"
    query = _safe_query(parts.query)
    if netloc == parts.netloc and query == parts.query:
        return url
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def _is_token(user_name: str) -> bool:
    """Whether a URL's user name is a credential (``https://ghp_...@github.com/...``: GitHub
    and GitLab take a token there): one the redactor's rules know."""
    from urllib.parse import unquote

    from skillshelf.memory.redact import redact_secrets

    name = unquote(user_name)
    return bool(name) and redact_secrets(name) != name


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
    if parts.username and _is_token(parts.username):
        secrets.append(parts.username)
    secrets += [value for name, value in parse_qsl(parts.query) if value and _SECRET_PARAM.search(name)]
    for secret in sorted((s for s in secrets if len(s) >= 4), key=len, reverse=True):
        for form in {secret, quote(secret, safe=""), quote(secret)}:
            text = text.replace(form, REDACTED)
    from skillshelf.memory.redact import redact_secrets

    return redact_secrets(text)
