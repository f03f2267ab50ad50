"""Environment-style assignments whose variable name says it holds a secret.

``MY_SECRET_VALUE=hunter2hunter``, ``export STRIPE_SECRET=whsec_abcdefghijkl``,
``OPENAI_API_KEY=sk-test`` and a ``.env`` or compose line ``DB_PASSWORD: X``: a name in
capitals that ENDS with ``SECRET``, ``TOKEN``, ``PASSWORD``, ``PASSWD``, ``API_KEY``,
``ACCESS_KEY`` (``_ID`` may follow), ``PRIVATE_KEY``, ``SECRET_KEY`` or ``CREDENTIAL(S)``
(a trailing ``_VALUE`` may follow), then ``=`` or ``:`` and a space, then a value of 6
characters or more. A name that goes on past the secret word names something else
(``API_KEY_HEADER``, ``OAUTH_TOKEN_URL``, ``SECRET_NAME``, ``PASSWORD_FILE``,
``ACCESS_TOKEN_LIFETIME``). A name that is the word alone (``SECRET``, ``TOKEN``) counts only
before ``=``: ``see SECRET: description`` is prose.

The name is the evidence here, so the value is not held to the shape tests of the general
``key = value`` rule (which lets ``my-internal-gateway-key-0001`` pass as a stand-in, and a
snake_case value as code). What stays (vetted by :func:`~.values.is_env_secret_value`): a
reference (``$VAR``, ``${VAR}``, ``$(cmd)``, ``<token>``, ``{{ secret }}``, an f-string's
``{token}``), a call (``timedelta(minutes=5)``), a number shorter than 10 digits
(``TOKEN_LIMIT=409600``), a file path (``PASSWORD_FILE=/run/secrets/db``, ``secrets/db.txt``,
``key.json``), a URL with no user part and no query, a word that describes a setting
(``SECRET_BACKEND=disabled``, ``GITHUB_TOKEN: required``) and a value already redacted. Names
must be in capitals: ``key=value`` and ``token=...`` in prose or code are the other rules'
business.
"""

from __future__ import annotations

import re

from skillshelf.memory.redact.rule import Rule

__all__ = ["ENV_NAME_PARTS", "ENV_REFERENCE", "ENV_RULES", "ENV_SETTING_WORDS", "ENV_URL"]

ENV_NAME_PARTS = (
    "SECRET",
    "TOKEN",
    "PASSWORD",
    "PASSWD",
    "API_KEY",
    "ACCESS_KEY",
    "PRIVATE_KEY",
    "CREDENTIALS",
    "CREDENTIAL",
)
_MIN_VALUE = 6

#: The words that end a name of one part only: such a name counts only before ``=``.
_BARE_WORDS = ("SECRET", "TOKEN", "PASSWORD", "PASSWD", "CREDENTIALS", "CREDENTIAL")
_LAST_PARTS = "|".join((*ENV_NAME_PARTS[:4], "API_KEY", r"ACCESS_KEY(?:_ID)?", *ENV_NAME_PARTS[5:]))
# Tried where a secret word starts (the anchors): after ``X_`` (a longer name; ``=`` or ``: ``),
# or at a name's start (``SECRET_KEY``, ``API_KEY``: either; ``SECRET``, ``TOKEN``: ``=`` only).
_NAME = (
    rf"(?:(?<=[A-Z0-9]_)(?:{_LAST_PARTS}|SECRET_KEY)(?:_VALUE)?(?:=|:[ \t]+)"
    rf"|(?<![A-Za-z0-9_$.-])(?:(?:SECRET_KEY|API_KEY|ACCESS_KEY(?:_ID)?|PRIVATE_KEY)(?:_VALUE)?(?:=|:[ \t]+)"
    rf"|(?:{'|'.join(_BARE_WORDS)})(?:_VALUE)?=))"
)
#: Values that refer to another value or are code: a shell reference or substitution anywhere
#: (``$HOME/x``, ``${X}``, ``$(cmd)``; not ``$`` in a password such as ``Te7$dCy``), a template,
#: an f-string's ``{token}``, ``<token>``, ``%VAR%``, a call (``timedelta(minutes=5)``).
ENV_REFERENCE = re.compile(
    r"\$[({]|\$[A-Z_][A-Z0-9_]*(?![A-Za-z0-9])|\{\{|\{[A-Za-z_][\w.]*(?:\}|$)|^<[^>]*>$|^%[A-Za-z_]+%$"
    r"|^[A-Za-z_][\w.]{2,}\([\w.=,'\"-]*\)?$"
)
#: Words that say what a setting is, never a secret (compared in lower case).
ENV_SETTING_WORDS = frozenset(
    {
        "required",
        "optional",
        "enabled",
        "disabled",
        "default",
        "string",
        "boolean",
        "integer",
        "number",
        "unset",
        "empty",
        "secret",
        "bearer",
        "inherit",
    }
)
#: A URL with no user part (``user:pass@``) and no query or fragment (``?key=``).
ENV_URL = re.compile(r"^[a-z][a-z0-9+.-]*://[^/@?#\s]*(?P<path>/[^@?#\s]*)?$")
# A bare value runs to whitespace, a quote or ``;`` and does not end with sentence punctuation;
# a quoted one (no spaces: those are the general rule's) to its closing quote.
_VALUE = (
    r"(?:\"(?P<dq>[^\s\"]{6,256})\"|'(?P<sq>[^\s']{6,256})'"
    r"|(?P<v>[^\s\"'`;]{5,255}[^\s\"'`;,.:)\]}]))"
)


ENV_RULES: tuple[Rule, ...] = (
    Rule(
        kind="env-secret",
        category="assignment",
        group=("dq", "sq", "v"),
        anchors=ENV_NAME_PARTS,
        vet="env",
        min_len=_MIN_VALUE,
        pattern=_NAME + _VALUE,
    ),
)
