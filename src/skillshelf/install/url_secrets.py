"""Secrets in an install source URL stay out of the lock file and out of messages.

A token pasted into the URL (``https://x-access-token:TOKEN@github.com/o/r.git``), a
``?token=...`` or a signed download's signature is used for the one fetch it was typed for.
What is recorded (the lock file, which a project commits) and shown is the URL without it:
the password of the user part dropped (the whole user part when it is itself a token the
redactor knows), and every query parameter that carries a secret left out (a placeholder in its
place would be sent to the server as if it were the credential). :func:`secret_parts` names
what was left out, which the lock records: ``update`` fetches a git source through git's own
credentials (a credential helper, SSH), and says that a download needs its token again.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

__all__ = ["REDACTED", "scrubbed", "secret_parts", "without_secrets"]

REDACTED = "[REDACTED_SECRET]"
# query parameters that carry a credential whatever their value looks like (signed URLs of
# S3, GCS and Azure; OAuth and API tokens)
_SECRET_PARAM = re.compile(
    r"token|secret|passw|pwd|signature|^sig$|credential|api[-_]?key|^key$|auth|^code$|session",
    re.IGNORECASE,
)


def without_secrets(url: str) -> str:
    """``url`` without the password of its user part and without its secret query parameters;
    ``url`` itself when it holds none (and for what is not a URL with a scheme)."""
    return _split(url)[0]


def secret_parts(url: str) -> tuple[str, ...]:
    """What :func:`without_secrets` leaves out of ``url``: the user part's ``password`` (or its
    ``token in the user part``), then the name of each secret query parameter."""
    return _split(url)[1]


def _split(url: str) -> tuple[str, tuple[str, ...]]:
    try:
        parts = urlsplit(url)
    except ValueError:
        return url, ()
    if not parts.scheme or not parts.netloc:
        return url, ()
    netloc, dropped = parts.netloc, tuple[str, ...]()
    user, at, host = netloc.rpartition("@")
    if at:
        name = user.partition(":")[0]
        token = _is_token(name)
        netloc = host if token else f"{name}@{host}"
        dropped = ("token in the user part",) if token else ("password",) if netloc != parts.netloc else ()
    query, left_out = _safe_query(parts.query)
    if not dropped and not left_out:
        return url, ()
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment)), (*dropped, *left_out)


def _is_token(user_name: str) -> bool:
    """Whether a URL's user name is a credential (``https://ghp_...@github.com/...``: GitHub
    and GitLab take a token there): one the redactor's rules know."""
    from urllib.parse import unquote

    from skillshelf.memory.redact import redact_secrets

    name = unquote(user_name)
    return bool(name) and redact_secrets(name) != name


def _safe_query(query: str) -> tuple[str, tuple[str, ...]]:
    """``query`` without its secret parameters (a secret name, or a value the redactor knows),
    and their names."""
    if not query:
        return query, ()
    from skillshelf.memory.redact import redact_secrets

    pairs = parse_qsl(query, keep_blank_values=True)
    secret = [
        bool(value) and (bool(_SECRET_PARAM.search(name)) or redact_secrets(value) != value)
        for name, value in pairs
    ]
    if not any(secret):
        return query, ()
    kept = [pair for pair, hidden in zip(pairs, secret, strict=True) if not hidden]
    left_out = tuple(dict.fromkeys(name for (name, _), hidden in zip(pairs, secret, strict=True) if hidden))
    return urlencode(kept), left_out


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
