"""Environment-style assignments whose variable name says it holds a secret.

``MY_SECRET_VALUE=hunter2hunter``, ``export STRIPE_SECRET=whsec_abcdefghijkl``,
``OPENAI_API_KEY=sk-test`` and a ``.env`` or compose line ``DB_PASSWORD: X``: a name in
capitals with ``SECRET``, ``TOKEN``, ``PASSWORD``, ``PASSWD``, ``API_KEY``, ``ACCESS_KEY``,
``PRIVATE_KEY`` or ``CREDENTIAL(S)`` as a whole part (between underscores or at an end), then
``=`` or ``:`` and a space, then a value of 6 characters or more.

The name is the evidence here, so the value is not held to the shape tests of the general
``key = value`` rule (which lets ``my-internal-gateway-key-0001`` pass as a stand-in, and a
snake_case value as code). What stays: a value that is a reference (``$VAR``, ``${VAR}``,
``$(cmd)``, ``<token>``, ``{{ secret }}``), a number shorter than 10 digits (vetted by
:func:`~.values.is_env_secret_value`:
(``TOKEN_LIMIT=409600``), a file path (``PASSWORD_FILE=/run/secrets/db``), a word that
describes a setting (``SECRET_BACKEND=disabled``, ``GITHUB_TOKEN: required``) and a value
already redacted). Names must be in capitals: ``key=value`` and ``token=...`` in prose or code
are the other rules' business.
"""

from __future__ import annotations

from skillshelf.memory.redact.rule import Rule

__all__ = ["ENV_NAME_PARTS", "ENV_RULES"]

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

_NAME = r"(?:(?<=_)|(?<![A-Za-z0-9_$.-]))(?:" + "|".join(ENV_NAME_PARTS) + r")(?:_[A-Z0-9]{1,40}){0,8}"
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
        pattern=_NAME + r"(?:=|:[ \t]+)" + _VALUE,
    ),
)
