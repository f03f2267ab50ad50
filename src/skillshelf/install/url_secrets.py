"""Secrets in an install source URL stay out of the lock file and out of messages.

A token pasted into the URL (``https://x-access-token:TOKEN@github.com/o/r.git``), a
``?token=...`` or a signed download's signature is used for the one fetch it was typed for.
What is recorded (the lock file, which a project commits) and shown is the URL without it,
and every query parameter that carries a secret left out (a placeholder in its place would be
sent to the server as if it were the credential).

The user part: in an SSH URL (``ssh://git@host/r.git``, git's ``git@host:o/r.git``) the user
name is an account, never a secret (SSH signs in with a key), so only a password is dropped.
In a URL of every other scheme (``https``, ``http``, ``git+https``...) the whole user part is
dropped, a plain user name included: a token there has no shape to tell it from a name
(GitHub's classic 40 hexadecimal digits, Azure DevOps' 52 characters, any random string), so
``https://alice@host/r.git`` is recorded and shown as ``https://host/r.git`` and ``IS130``
says the URL held a credential. ``update`` of a git source then has git's credential helper
supply the user (``git config credential.https://host.username alice``). :func:`secret_parts` names
what was left out, which the lock records: ``update`` fetches a git source through git's own
credentials (a credential helper, SSH), and says that a download needs its token again.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from skillshelf.diagnostics import Severity, diagnostic

__all__ = [
    "REDACTED",
    "SECRET_NOT_RECORDED",
    "scrubbed",
    "secret_parts",
    "text_without_secrets",
    "without_secrets",
]

REDACTED = "[REDACTED_SECRET]"

#: The note for a source URL that held a user part, a password or a token (see above).
SECRET_NOT_RECORDED = diagnostic(
    "IS130",
    Severity.WARNING,
    "the source URL holds a user part (a name, password or token) or a token in its query: it was "
    "used for this fetch only, and the lock file and messages show the URL without it",
    "for `skillshelf update`, let git find the credentials and user name itself (a credential helper "
    "such as `gh auth setup-git`, `git config credential.https://HOST.username NAME`, or an SSH URL); a "
    "download is updated by installing it again with the URL that holds the token (--force)",
)

# query parameters that carry a credential whatever their value looks like (signed URLs of
# S3, GCS and Azure; OAuth and API tokens)
_SECRET_PARAM = re.compile(
    r"token|secret|passw|pwd|signature|^sig$|credential|api[-_]?key|^key$|auth|^code$|session",
    re.IGNORECASE,
)

# a URL with a scheme inside other text: it runs to a space, a quote or an angle bracket
_URL_IN_TEXT = re.compile(r"[A-Za-z][A-Za-z0-9+.-]{0,30}://[^\s\"'<>]+")


def without_secrets(url: str) -> str:
    """``url`` without its user part (an SSH URL's password only) and secret query parameters;
    ``url`` itself when it holds none (and for what is not a URL with a scheme)."""
    return _split(url)[0]


def text_without_secrets(text: str) -> str:
    """``text`` (a source, a lock key, any text a lock file holds) without the secrets of the
    URLs in it: the whole of it when it is one URL (:func:`without_secrets`), else each URL it
    holds; ``text`` itself when none holds a secret."""
    whole = without_secrets(text)
    if whole != text or "://" not in text:
        return whole
    return _URL_IN_TEXT.sub(lambda found: without_secrets(found.group()), text)


def secret_parts(url: str) -> tuple[str, ...]:
    """What :func:`without_secrets` leaves out of ``url``: the user part's ``password`` (or its
    ``token in the user part``, or the ``user part`` itself), then each secret query parameter's name."""
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
        netloc, dropped = _without_user(parts.scheme, user, host)
    query, left_out = _safe_query(parts.query)
    if not dropped and not left_out:
        return url, ()
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment)), (*dropped, *left_out)


def _without_user(scheme: str, user: str, host: str) -> tuple[str, tuple[str, ...]]:
    """The netloc ``user@host`` without its secret part, and that part's name."""
    name, colon, _ = user.partition(":")
    if _keeps_user_name(scheme):
        return (f"{name}@{host}", ("password",)) if colon else (f"{user}@{host}", ())
    if colon:
        return host, ("password",)
    return host, ("token in the user part" if _is_token(name) else "user part",)


def _keeps_user_name(scheme: str) -> bool:
    """Whether a URL of ``scheme`` names an account in its user part (SSH), not a credential."""
    return scheme.lower() in {"ssh", "git+ssh", "ssh+git", "sftp"}


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
    replaced, as typed and as percent-encoded: a password, a secret query value and a user
    name that is a token (:func:`_is_token`, or long and random-looking) wherever they are; a
    plain user name only where the URL spells it (``alice@host``), since as a word it is
    often a common one (``skills``)."""
    from urllib.parse import unquote

    parts = urlsplit(secret_url)
    text = text.replace(secret_url, without_secrets(secret_url))
    user = "" if _keeps_user_name(parts.scheme) else parts.netloc.rpartition("@")[0]
    name = user.partition(":")[0]
    secrets = [parts.password or "", user if ":" in user else ""]
    secrets += [value for key, value in parse_qsl(parts.query) if value and _SECRET_PARAM.search(key)]
    if name and (_is_token(name) or _random_looking(unquote(name))):
        secrets.append(name)
    for secret in sorted(filter(None, set(secrets)), key=len, reverse=True):
        for form in _forms(secret):
            text = text.replace(f"{form}@", f"{REDACTED}@")
            if len(secret) >= 4:
                text = text.replace(form, REDACTED)
    host = _host_as_typed(parts.netloc)
    for form in _forms(name) if name else ():
        text = text.replace(f"{form}@{host}", f"{REDACTED}@{host}")
    from skillshelf.memory.redact import redact_secrets

    return redact_secrets(text)


def _host_as_typed(netloc: str) -> str:
    """The host of ``netloc`` as typed (its case kept), without the user part and the port."""
    host = netloc.rpartition("@")[2]
    if host.startswith("["):
        return host.partition("]")[0] + "]"
    return host.partition(":")[0]


def _forms(secret: str) -> set[str]:
    """``secret`` as typed, percent-encoded and decoded."""
    from urllib.parse import quote, unquote

    return {secret, quote(secret, safe=""), quote(secret), unquote(secret)}


def _random_looking(name: str) -> bool:
    """Whether a URL's user name looks like a token rather than an account name: long, or
    fairly long with letters and digits mixed (GitHub's classic 40 hexadecimal digits)."""
    mixed = any(c.isdigit() for c in name) and any(c.isalpha() for c in name)
    return len(name) >= 32 or (len(name) >= 16 and mixed)
