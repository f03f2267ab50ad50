"""The secret formats :mod:`skillshelf.memory.redact` knows, as regular expressions.

Known token formats (:mod:`.formats`) are matched whole. Rules with a ``group`` redact only
that part: the value of an assignment (``password = ...``, quoted or not), of a command-line
option (``--password X``, ``mysql -pX``, ``curl -u user:X``) or the body of a private key (the
``BEGIN``/``END`` lines stay, so a reader still sees that a key was there).
"""

from __future__ import annotations

import re

from skillshelf.memory.redact.formats import TOKEN_FORMATS
from skillshelf.memory.redact.rule import FLAG_LEAD, Rule

__all__ = ["KEY_WORDS", "KEY_WORD_STARTS", "RULES"]

KEY_WORDS = (
    r"api[_-]?key|apikey|api[_-]?secret|access[_-]?key(?:[_-]?id)?|secret[_-]?access[_-]?key|secret[_-]?key"
    r"|client[_-]?secret|auth[_-]?token|access[_-]?token|refresh[_-]?token|private[_-]?key|token|secret"
    r"|password|passwd|pwd|passphrase|credentials?|(?<=[_.-])pass"  # DB_PASS, smtp.pass; not bypass
)

#: The words a ``KEY_WORDS`` match starts with.
KEY_WORD_STARTS = (
    "api",
    "access",
    "secret",
    "client",
    "auth",
    "refresh",
    "private",
    "token",
    "pass",
    "pwd",
    "credential",
)

# A quoted value (the closing quote may be missing: the value then runs to the end of the line),
# a value between JSON-escaped quotes, or a bare value. A bare value runs to whitespace, ``,``
# or ``;``; it takes quotes inside it (``pa$$w0rd"Q'x!``) but stops at one that closes an
# enclosing string (a quote before whitespace, a bracket or the end) and at an escaped
# newline, tab or quote (``\n`` in JSON-escaped text).
_QUOTED = (
    r'"(?P<dq>(?:[^"\\\r\n]|\\[^\r\n]){6,})'
    r"|'(?P<sq>(?:[^'\\\r\n]|\\[^\r\n]){6,})"
    r'|\\"(?P<eq>(?:[^"\\\r\n]|\\[^"\r\n]){6,})'
)
_ASSIGNED = (
    r"(?:" + _QUOTED + r"|(?![\"'`])(?P<v>(?:[^\s\"'`,;\\]|\\(?![nrt\"'\\])|[\"'`](?![\s,;:)}\]\\]|\Z)){8,}))"
)
# The value of a command-line option: quoted, or a bare word.
_ARG = r"(?:\"(?P<dq>[^\"\r\n]+)\"|'(?P<sq>[^'\r\n]+)'|(?![-\"'`])(?P<v>[^\s\"'`;|&<>]+))"
_ARG_GROUPS = ("dq", "sq", "v")
# A secret said in a sentence: the word for it, and a value with a digit, a symbol or a capital
# inside (so "the password is stored in the vault" says none)
_SAID_SECRET = r"(?:password|passwd|passphrase|pass ?code|pin|api[ _-]?key|access[ _-]?token|token|secret)"
_SAID_SHAPE = r"(?:\d|[^\w\s\"'`.,;:!?()\[\]{}<>-]|(?-i:[a-z][A-Z]))"
_SAID_VALUE = (  # quoted (to its closing quote) or bare (sentence punctuation after it left out)
    r"(?:(?P<q>[\"'`])(?P<qv>(?=[^\"'`\r\n]*?" + _SAID_SHAPE + r")[^\"'`\r\n]{1,200}?)(?P=q)"
    r"|(?P<v>(?=[^\s\"'`]*?" + _SAID_SHAPE + r")[^\s\"'`]*?[^\s\"'`.,;:!?)\]])(?=[.,;:!?)\]]*(?:\s|$)))"
)
_BASE64_VALUE = r"(?=[A-Za-z0-9+/]*(?-i:[0-9A-Z+/]))[A-Za-z0-9+/]{12,}={0,2}"
_NL = r"(?:\r?\n|\\r\\n|\\n)"  # a line break, real or JSON-escaped
_PEM_MARK = r"(?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
_PEM_LINE = (
    r"[ \t]*(?:[A-Za-z0-9+/=]+[ \t]*(?=\r?\n|\\[rn]|-----|[\"'`,}\]]|\Z)|[A-Za-z][A-Za-z-]*:[^\r\n\\]*)?"
)
_COMMAND_TAIL = r"\b[^\r\n|;&]*?[ \t]"  # the rest of a command up to an option

_KEY_RULES: tuple[Rule, ...] = (
    # --- private keys -----------------------------------------------------------------------
    Rule(
        kind="pem-private-key",
        category="key",
        group="v",
        vet="key",
        needles=("PRIVATE KEY",),
        pattern=r"-----BEGIN " + _PEM_MARK + r"(?P<v>(?:" + _NL + _PEM_LINE + r")*)",
    ),
    Rule(
        kind="pem-private-key",
        category="key",
        group="v",
        vet="key",
        needles=("PRIVATE KEY",),
        pattern=(r"-----BEGIN " + _PEM_MARK + r"[ \t]+(?P<v>[A-Za-z0-9+/= \t]+?)[ \t]*-----END " + _PEM_MARK),
    ),
    Rule(
        kind="putty-private-key",
        category="key",
        group="v",
        vet="key",
        needles=("Private-Lines:",),
        pattern=r"Private-Lines:[ \t]*\d+(?P<v>(?:" + _NL + r"[A-Za-z0-9+/=]+)+)",
    ),
)


def _command_password(needles: tuple[str, ...], command: str, option: str) -> Rule:
    """The password given to ``command`` as ``option`` (``mysql ... -pX``, ``sshpass -p X``)."""
    return Rule(
        kind="cli-password-option",
        category="command-line",
        group=_ARG_GROUPS,
        min_len=4,
        needles=needles,
        pattern=command + _COMMAND_TAIL + option + _ARG,
    )


_CONTEXT_RULES: tuple[Rule, ...] = (
    # --- generic shapes ---------------------------------------------------------------------
    Rule(  # JWT, JWS and JWE: a base64 JSON header, then any segments (payloads need not be JSON)
        kind="jwt",
        category="token",
        needles=("eyJ",),
        pattern=r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{2,}(?:\.[A-Za-z0-9_-]*){0,3}={0,2}",
    ),
    Rule(
        kind="url-credentials",
        category="connection-string",
        group="v",
        anchors=("://",),
        back=(2, 21),
        pattern=r"\b[a-zA-Z][a-zA-Z0-9+.-]{1,20}://[^\s:/@\"'<>]*:(?P<v>[^\s@/\"'<>]{3,})@[^\s\"'<>]+",
    ),
    Rule(
        kind="connection-string-password",
        category="connection-string",
        group="v",
        flags=re.IGNORECASE,
        anchors=("password", "pwd"),
        pattern=r"\b(?:password|pwd)\s*=\s*(?P<v>(?:[^;\s\"'\\]|\\(?![nrt\"\\])){3,})(?=;|\s|$|[\"'\\])",
    ),
    Rule(
        kind="bearer-token",
        category="token",
        group="v",
        flags=re.IGNORECASE,
        anchors=("bearer",),
        pattern=r"\bBearer\s+(?P<v>[A-Za-z0-9._~+/-]{16,}=*)",
    ),
    Rule(
        kind="basic-auth",
        category="token",
        group="v",
        flags=re.IGNORECASE,
        anchors=("authorization",),
        pattern=r"\bAuthorization[\"']?\s*[:=]\s*[\"']?Basic\s+(?P<v>[A-Za-z0-9+/]{8,}={0,2})",
    ),
    Rule(  # other schemes: Token, Bot, SSWS, ApiKey ...
        kind="authorization-header",
        category="token",
        group="v",
        flags=re.IGNORECASE,
        anchors=("authorization",),
        pattern=(
            r"\bAuthorization[\"']?[ \t]*[:=][ \t]*[\"']?(?!Bearer\b|Basic\b)[A-Za-z][A-Za-z0-9_-]*[ \t]+"
            r"(?P<v>[A-Za-z0-9._~+/=-]{8,})"
        ),
    ),
    Rule(
        kind="cookie-header",
        category="token",
        group="v",
        flags=re.IGNORECASE,
        anchors=("cookie",),
        pattern=r"\b(?:set-)?cookie[\"']?[ \t]*:[ \t]*(?P<v>[^\s\"'=;]+=[^\r\n\"']{6,})",
    ),
    Rule(
        kind="key-value-secret",
        category="assignment",
        group=("dq", "sq", "eq", "v"),
        flags=re.IGNORECASE,
        anchors=KEY_WORD_STARTS,
        pattern=r"(?:" + KEY_WORDS + r")\b(?:\\?[\"'])?[ \t]*(?::|=|:=|=>)[ \t]*" + _ASSIGNED,
    ),
    Rule(  # a bare ``pass`` key (``auth: {user, pass: "..."}``) only with a quoted value: "pass: 3 of 5"
        kind="key-value-secret",
        category="assignment",
        group=("dq", "sq", "eq"),
        flags=re.IGNORECASE,
        anchors=("pass",),
        pattern=r"(?<![\w.-])pass(?:\\?[\"'])?[ \t]*(?::|=|:=|=>)[ \t]*(?:" + _QUOTED + r")",
    ),
    Rule(  # base64 of user:password under an ``auth`` key (~/.docker/config.json, .npmrc ``_auth``)
        kind="basic-auth",
        category="token",
        group=("dq", "sq", "v"),
        flags=re.IGNORECASE,
        anchors=("auth",),
        back=(0, 1),
        pattern=(
            r"(?<![\w.-])_?auth[\"']?[ \t]*[:=][ \t]*(?:\"(?P<dq>" + _BASE64_VALUE + r")\""
            r"|'(?P<sq>" + _BASE64_VALUE + r")'|(?P<v>" + _BASE64_VALUE + r")(?=$|[\s,;}\]]))"
        ),
    ),
    Rule(  # "the db password is Xk29dLq0pZ"
        kind="prose-secret",
        category="assignment",
        group=("qv", "v"),
        flags=re.IGNORECASE,
        min_len=6,
        anchors=("pass", "pin", "api", "access", "token", "secret"),
        pattern=(
            r"\b"
            + _SAID_SECRET
            + r"s?\s+(?:is|was|should be|will be|(?:is |was |got )?(?:set|changed|reset) to)"
            r"\s+" + _SAID_VALUE
        ),
    ),
    Rule(  # "I changed the db password to Xk29dLq0pZ"
        kind="prose-secret",
        category="assignment",
        group=("qv", "v"),
        flags=re.IGNORECASE,
        min_len=6,
        anchors=("set", "reset", "change", "update"),
        pattern=(
            r"\b(?:set|reset|changed?|updated?)\s+(?:(?:the|my|our|your|their|a|new)\s+){0,2}(?:[\w-]+\s+){0,2}?"
            + _SAID_SECRET
            + r"s?\s+to\s+"
            + _SAID_VALUE
        ),
    ),
    Rule(
        kind="netrc-password",
        category="assignment",
        group="v",
        needles=("machine",),
        pattern=r"\bmachine\s+\S+(?:\s+(?:login|account|port)\s+\S+)*\s+password\s+(?P<v>\S+)",
    ),
    # --- passwords on command lines ---------------------------------------------------------
    Rule(
        kind="cli-password-option",
        category="command-line",
        group=_ARG_GROUPS,
        min_len=4,
        pattern=(
            FLAG_LEAD + r"--?(?:[a-z0-9]+[-_])*(?:password|passwd|passphrase|pass|pwd|token|secret"
            r"|api[-_]?key|apikey|auth[-_]?token|access[-_]?token|access[-_]?key|secret[-_]?key"
            r"|client[-_]?secret|storepass|keypass)(?:=|[ \t]+)" + _ARG
        ),
    ),
    _command_password(
        ("mysql", "mariadb"),
        r"\b(?:mysql(?:dump|admin|import|show|check|sh|binlog)?|mariadb(?:-dump|-admin|-import|-show)?)",
        r"-p",
    ),
    _command_password(("sshpass",), r"\bsshpass", r"-p[ \t]*"),
    _command_password(
        (" login",),
        r"\b(?:docker|podman|nerdctl|buildah|skopeo|oras|helm[ \t]+registry)[ \t]+login",
        r"-p[ \t]+",
    ),
    _command_password(("redis-cli",), r"\bredis-cli", r"-a[ \t]+"),
    _command_password(("ssh-keygen",), r"\bssh-keygen", r"-N[ \t]*"),  # -N '': no passphrase
    _command_password(("openssl",), r"\bopenssl", r"-k[ \t]+"),
    Rule(
        kind="cli-password-option",
        category="command-line",
        group=_ARG_GROUPS,
        min_len=4,
        flags=re.IGNORECASE,
        anchors=("convertto-securestring",),
        pattern=r"\bConvertTo-SecureString[ \t]+(?:-String[ \t]+)?" + _ARG,
    ),
    Rule(  # a ~/.pgpass line: host:port:database:user:password
        kind="pgpass-password",
        category="assignment",
        group="v",
        min_len=4,
        flags=re.MULTILINE,
        pattern=(
            r"^[ \t]*(?:(?=[^\s:]*[A-Za-z.*])[A-Za-z0-9_.*-]+|\[[0-9A-Fa-f:.]+\])"  # host: a name, an address
            r":(?:\d{1,5}|\*):[^\s:;,]+:[^\s:;,]+:(?P<v>(?:[^\s:\\]|\\.)+)[ \t]*\r?$"
        ),
    ),
    Rule(  # "my wallet's private key is 0x<64 hex>": hex is no secret by itself (digests)
        kind="private-key-hex",
        category="key",
        group="v",
        flags=re.IGNORECASE,
        anchors=("private",),
        pattern=(
            r"\bprivate[ _-]?key\b[^\r\n]{0,30}?(?<![0-9A-Za-z])(?P<v>(?:0x)?[0-9a-f]{64})(?![0-9A-Za-z])"
        ),
    ),
    Rule(
        kind="cli-user-password",
        category="command-line",
        group=_ARG_GROUPS,
        min_len=4,
        needles=("curl",),
        pattern=(
            r"\bcurl"
            + _COMMAND_TAIL
            + r"(?:-u|--user)(?:=|[ \t]*)"
            + r"(?:\"[^\"\r\n:]*:(?P<dq>[^\"\r\n]+)\"|'[^'\r\n:]*:(?P<sq>[^'\r\n]+)'"
            + r"|(?![-\"'])[^\s\"':]*:(?P<v>[^\s\"'`;|&<>]+))"
        ),
    ),
)

RULES: tuple[Rule, ...] = _KEY_RULES + TOKEN_FORMATS + _CONTEXT_RULES
