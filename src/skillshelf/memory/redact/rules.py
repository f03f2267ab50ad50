"""The secret formats :mod:`skillshelf.memory.redact` knows, as regular expressions.

Known token formats (:mod:`.formats`) are matched whole. Rules with a ``group`` redact only
that part: the value of an assignment (``password = ...``, quoted or not), a secret said in a
sentence, or the body of a private key (the ``BEGIN``/``END`` lines stay, so a reader still sees
that a key was there). Command lines are :mod:`.rules_shell`'s, source code and markup
:mod:`.rules_code`'s.
"""

from __future__ import annotations

import re

from skillshelf.memory.redact.formats import TOKEN_FORMATS
from skillshelf.memory.redact.rule import Rule
from skillshelf.memory.redact.rules_code import CODE_RULES
from skillshelf.memory.redact.rules_env import ENV_RULES
from skillshelf.memory.redact.rules_shell import SHELL_RULES

__all__ = ["KEY_WORDS", "KEY_WORD_STARTS", "RULES"]

KEY_WORDS = (
    r"api[_-]?key|apikey|api[_-]?secret|access[_-]?key(?:[_-]?id)?|secret[_-]?access[_-]?key|secret[_-]?key(?:[_-]?base)?"
    r"|client[_-]?secret|auth[_-]?token|access[_-]?token|refresh[_-]?token|private[_-]?key|token|secret"
    r"|password|passwd|pwd|passphrase|credentials?|creds|pgpass"
    r"|(?<=[_.-])pass"  # DB_PASS, smtp.pass; not bypass
    r"|(?<![A-Za-z0-9])pw"  # PW=, DB_PW=
    r"|(?:encryption|signing|master|hmac|licen[cs]e)[_-]?key"
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
    "pw",
    "cred",
    "pgpass",
    "encryption",
    "signing",
    "master",
    "hmac",
    "licen",
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
    r"(?:" + _QUOTED + r"|(?![\"'`])(?P<v>(?:[^\s\"'`,;\\&]|&(?![\w.\[\]-]+=)|\\(?![nrt\"'\\])"
    r"|[\"'`](?![\s,;:)}\]\\]|\Z)){8,}))"
)
# A secret said in a sentence: the word for it, and a value with a digit, a symbol or a capital
# inside (so "the password is stored in the vault" says none)
_SAID_SECRET = r"(?:password|passwd|passphrase|pass ?code|pin|api[ _-]?key|access[ _-]?token|token|secret)"
# what the secret is for, between its word and "is": "the password for the staging db is X"
_SAID_FOR = (
    r"(?:\s+(?:for|on|of|at|to)\s+(?:(?:the|my|our|your|a|this|that)\s+)?[\w@.:/-]+"
    r"(?:\s+(?:account|server|box|user|db|database|host|machine|vm|instance|site|app|api|cluster|router|wifi))?)?"
)
_SAID_SHAPE = r"(?:\d|[^\w\s\"'`.,;:!?()\[\]{}<>-]|(?-i:[a-z][A-Z]))"
_SAID_VALUE = (  # quoted (to its closing quote) or bare (sentence punctuation after it left out)
    r"(?:(?P<q>[\"'`])(?P<qv>(?=[^\"'`\r\n]*?" + _SAID_SHAPE + r")[^\"'`\r\n]{1,200}?)(?P=q)"
    r"|(?P<v>(?=[^\s\"'`]*?" + _SAID_SHAPE + r")[^\s\"'`]*?[^\s\"'`.,;:!?)\]])(?=[.,;:!?)\]]*(?:\s|$)))"
)
# A user name said beside a password, and the password: one word, no "/" (``login: src/app/Login2.tsx``
# is a path); a ``!`` at its end is the password's (``user bob pass Hunter2!``), other punctuation the
# sentence's
_SAID_USER = r"[\"'`]?[\w.@+-]{1,64}[\"'`]?"
_PAIR_VALUE = (
    r"(?:(?P<q>[\"'`])(?P<qv>(?=[^\"'`\r\n]*?" + _SAID_SHAPE + r")[^\"'`\r\n]{1,200}?)(?P=q)"
    r"|(?P<v>(?=[^\s\"'`/]*?" + _SAID_SHAPE + r")[^\s\"'`/]*[^\s\"'`.,;:?)\]/])(?=[.,;:?)\]]*(?:\s|$)))"
)
# A credential-shaped word right after the name of a secret ("login with password X"): vetted by
# ``looks_like_credential`` (values.py), markdown emphasis after it left out ("**Token Sprawl**:");
# ``pass`` alone is not such a name ("pass v2Config to it"), an option (``--page-token X``) is
# :mod:`.rules_shell`'s
_NAMED_SECRET = r"(?:password|passwd|passphrase|pwd|secret(?:[ _-]?key)?|api[ _-]?key|apikey|token)"
_NAMED_VALUE = (
    r"(?:(?P<q>[\"'`])(?P<qv>[^\s\"'`]{8,128})(?P=q)"
    r"|(?P<v>[^\s\"'`]{7,127}[^\s\"'`.,;:!?)\]*~])(?=[.,;:!?)\]*~]*(?:\s|$)))"
)
# A token said after its name and a colon: token characters with a digit, no URL, no markup
_TOKEN_SAID = r"(?=[\w+/=.-]*\d)[\w+/=.-]*[\w+/=]"
# A lower-case word said to be a password ("the password is swordfish."): quoted, or alone at the
# end of a sentence and none of the words that say something about a password ("is required.")
_PLAIN_WORDS = (
    "also|still|then|just|only|never|always|very|quite|really|probably|likely|definitely|already|actually"
    "|simply|usually|often|sometimes|mine|yours|ours|theirs|this|that|what|which|where|there|here|both|either"
    "|neither|some|same|none|null|true|false|correct|incorrect|wrong|right|valid|invalid|empty|blank|weak"
    "|strong|short|long|good|fine|okay|secure|insecure|safe|unsafe|hidden|public|private|random|unique"
    "|temporary|stale|known|unknown|gone|ready|plain|plaintext|cleartext|unset|sent|kept|lost|taken|shown"
    "|given|written|broken|stolen|chosen|forgotten|much|more|less|enough|like|into|with|without|over|again"
    "|back|down|away|simple|easy|hard|default|reset|mandatory|compulsory|case|fixed|secret|confidential"
    "|something|anything|nothing|whatever|different"
)
_PLAIN_SAID = (
    r"(?:(?P<q>[\"'`])(?P<qv>(?-i:[a-z]{4,32}))(?P=q)"
    r"|(?P<v>(?!(?:"
    + _PLAIN_WORDS
    + r")\b)(?![a-z]+(?:ed|ing|ly|able|ible|ful|less|ous|ive|ent|ant|al|ic|ion|ness)\b)"
    r"(?-i:[a-z]{4,32}))(?=[.,;!?]|[ \t]*(?:\r?\n|\\n|$)))"
)
_BASE64_VALUE = r"(?=[A-Za-z0-9+/]*(?-i:[0-9A-Z+/]))[A-Za-z0-9+/]{12,}={0,2}"
_NL = r"(?:\r?\n|\\r\\n|\\n)"  # a line break, real or JSON-escaped
_PEM_MARK = r"(?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
_PEM_LINE = (
    r"[ \t]*(?:[A-Za-z0-9+/=]+[ \t]*(?=\r?\n|\\[rn]|-----|[\"'`,}\]]|\Z)|[A-Za-z][A-Za-z-]*:[^\r\n\\]*)?"
)

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


_CONTEXT_RULES: tuple[Rule, ...] = (
    # --- generic shapes ---------------------------------------------------------------------
    Rule(  # JWT, JWS and JWE: a base64 JSON header, then any segments (payloads need not be JSON)
        kind="jwt",
        category="token",
        needles=("eyJ",),
        pattern=r"\beyJ[A-Za-z0-9_-]{8,2048}\.[A-Za-z0-9_-]{2,}(?:\.[A-Za-z0-9_-]*){0,3}={0,2}",
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
        pattern=r"\b(?:set-)?cookie[\"']?[ \t]*:[ \t]*(?P<v>[^\s\"'=;]{1,256}=[^\r\n\"']{6,})",
    ),
    Rule(
        kind="key-value-secret",
        category="assignment",
        group=("dq", "sq", "eq", "v"),
        flags=re.IGNORECASE,
        anchors=KEY_WORD_STARTS,
        pattern=r"(?:"
        + KEY_WORDS
        + r")\b(?:\\?[\"']\]?)?[ \t]*(?::=|=>|:|=)[ \t]*"
        + _ASSIGNED,  # env["KEY"] = X
    ),
    Rule(  # MAPBOX_KEY=X: an environment name ending in _KEY, a value of letters in both cases and digits
        kind="key-value-secret",
        category="assignment",
        group="v",
        anchors=("_KEY",),
        pattern=(
            r"(?<=[A-Z0-9])_KEY[\"']?[ \t]*(?::=|[:=])[ \t]*[\"']?"
            r"(?P<v>(?=[\w+/=-]{0,200}[a-z])(?=[\w+/=-]{0,200}[A-Z])(?=[\w+/=-]{0,200}\d)[\w+/=-]{12,256}!*)"
            r"(?![\w+/=.:!-])"
        ),
    ),
    Rule(  # a bare ``pass`` key: after ``=`` any value (``?user=bob&pass=X``), after ``:`` a quoted one
        kind="key-value-secret",  # (``auth: {user, pass: "..."}``); "pass: 3 of 5" is no secret
        category="assignment",
        group=("dq", "sq", "eq", "v"),
        flags=re.IGNORECASE,
        anchors=("pass",),
        pattern=r"(?<![\w.-])pass(?:\\?[\"'])?[ \t]*(?::=|=>|=|:(?=[ \t]*\\?[\"']))[ \t]*" + _ASSIGNED,
    ),
    Rule(  # ... or after ``:`` only a credential: "pass: 3 of 5", "first pass: tokenization"
        kind="key-value-secret",
        category="assignment",
        group="v",
        flags=re.IGNORECASE,
        vet="credential",
        anchors=("pass",),
        pattern=r"(?<![\w.-])pass[ \t]*:[ \t]*(?P<v>[^\s\"'`,;)}\]]{8,128})(?=$|[\s,;\"'`)}\]])",
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
            + r"s?"
            + _SAID_FOR
            + r"\s+(?:is|was|should be|will be|(?:is |was |got )?(?:set|changed|reset) to):?"
            r"\s+" + _SAID_VALUE
        ),
    ),
    Rule(  # "Here is your API key: Xk29dLq0pZ": a name of two words, a colon and a token-like value
        kind="prose-secret",
        category="assignment",
        group=("qv", "v"),
        flags=re.IGNORECASE,
        min_len=8,
        anchors=("api", "access", "auth", "refresh", "secret", "private"),
        pattern=(
            r"\b(?:api|access|auth|refresh|secret|private)[ \t](?:key|token)s?[ \t]*:[ \t]*"
            r"(?:(?P<q>[\"'`])(?P<qv>"
            + _TOKEN_SAID
            + r")(?P=q)|(?P<v>"
            + _TOKEN_SAID
            + r")(?=[.,;)]?(?:\s|$)))"
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
    Rule(  # "login: alice / Xk29dLq0pZ", "creds are alice/Xk29dLq0pZ": a user and a password together
        kind="prose-secret",
        category="assignment",
        group=("qv", "v"),
        flags=re.IGNORECASE,
        min_len=6,
        anchors=("login", "cred"),
        pattern=r"\b(?:logins?|creds|credentials?)(?:[ \t]+(?:are|is))?[ \t]*[:=]?[ \t]*"
        + _SAID_USER
        + r"[ \t]*/[ \t]*"
        + _PAIR_VALUE,
    ),
    Rule(  # "user alice, pass Xk29dLq0pZ", "username deploy password Xk29dLq0pZ"
        kind="prose-secret",
        category="assignment",
        group=("qv", "v"),
        flags=re.IGNORECASE,
        min_len=6,
        anchors=("user",),
        pattern=(
            r"\buser(?:name)?[ \t]*[:=]?[ \t]+" + _SAID_USER + r"[ \t]*[,;]?[ \t]+(?:and[ \t]+)?"
            r"(?:pass(?:word)?|passwd|pw|pwd)[ \t]*[:=]?[ \t]*" + _PAIR_VALUE
        ),
    ),
    Rule(  # "the password Hunter2Secret99 works", "log in with password X", "the password for the db: X"
        kind="prose-secret",
        category="assignment",
        group=("qv", "v"),
        flags=re.IGNORECASE,
        min_len=8,
        vet="credential",
        anchors=("pass", "pwd", "secret", "token", "api"),
        pattern=r"(?<![A-Za-z0-9-])" + _NAMED_SECRET + r"(?:" + _SAID_FOR + r"[ \t]*:)?[ \t]+" + _NAMED_VALUE,
    ),
    Rule(  # "the password is swordfish.": a lower-case word alone, at the end of a sentence
        kind="prose-secret",
        category="assignment",
        group=("qv", "v"),
        flags=re.IGNORECASE,
        min_len=4,
        anchors=("pass", "pw", "set", "reset", "change", "update"),
        pattern=(
            r"\b(?:(?:password|passwd|passphrase|pass ?code|pwd)s?" + _SAID_FOR + r"\s+"
            r"(?:is|was|(?:is |was )?(?:set|changed|reset) to)"
            r"|(?:set|reset|changed?|updated?)\s+(?:(?:the|my|our|your|their|a|new)\s+){0,2}(?:[\w-]+\s+){0,2}?"
            r"(?:password|passwd|passphrase|pwd)s?\s+to)\s+" + _PLAIN_SAID
        ),
    ),
    Rule(  # SQL: WITH PASSWORD 'X', IDENTIFIED [WITH plugin] BY 'X', PASSWORD('X'); not 'password': x
        kind="sql-password",
        category="assignment",
        group="sq",
        flags=re.IGNORECASE,
        min_len=4,
        anchors=("password", "identified"),
        pattern=(
            r"\b(?:password|identified(?:[ \t]+with[ \t]+\w+)?[ \t]+by)(?:[ \t]+|[ \t]*\([ \t]*)"
            r"'(?P<sq>(?:[^'\\\r\n]|''|\\.)+)'"
        ),
    ),
    Rule(
        kind="netrc-password",
        category="assignment",
        group="v",
        needles=("machine",),
        pattern=r"\bmachine\s+\S+(?:\s+(?:login|account|port)\s+\S+)*\s+password\s+(?P<v>\S+?)(?=[\"'`]?(?:\s|$))",
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
)

RULES: tuple[Rule, ...] = _KEY_RULES + TOKEN_FORMATS + _CONTEXT_RULES + SHELL_RULES + CODE_RULES + ENV_RULES
