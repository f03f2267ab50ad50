"""Secrets in source code and markup that no key names: string literals passed to a call that
takes a password or a signing key (``smtp.login(user, "X")``, ``new NetworkCredential("svc",
"X")``, ``jwt.sign(payload, "X")``, ``setPassword("X")``), user and password pairs (``auth=("u",
"X")``), XML elements and ``key``/``value`` attributes named for a secret
(``<password>X</password>``, ``<add key="ApiKey" value="X" />``), and the ``name``/``value``
entries of an environment list (``- name: DB_PASSWORD`` then ``value: X``).

Only the literal is redacted. Values from variables or the environment are code and stay.
"""

from __future__ import annotations

import re

from skillshelf.memory.redact.rule import Rule, argument_rule

__all__ = ["CODE_RULES"]

_PREFIX = r"(?:[bBrRuU]{1,2}|@)?"  # b"...", r'...', C#'s @"..."
# The secret: a string literal (escapes kept as written).
_STRING = _PREFIX + r"(?:\"(?P<dq>(?:[^\"\\\r\n]|\\.){1,200})\"|'(?P<sq>(?:[^'\\\r\n]|\\.){1,200})')"
_STRING_GROUPS = ("dq", "sq")
# An argument before it: another literal, or an expression without commas or parentheses.
_ARGUMENT = _PREFIX + r"(?:\"(?:[^\"\\\r\n]|\\.)*\"|'(?:[^'\\\r\n]|\\.)*'|[^\s,()\"'`][^,()\r\n\"'`]{0,80}?)"
_SEP = r"[ \t]*,[ \t]*"
# Calls whose second argument is a password: logins (any case), and the credential classes of
# common libraries, found by the "Auth" or "Credential" 5 to 16 characters into their names.
_LOGINS = ("login", "log_in", "signin", "sign_in", "authenticate", "auth")  # auth: MongoDB's db.auth(u, X)
_CREDENTIAL_CLASSES = (
    r"(?:NetworkCredential|HTTP(?:Basic|Digest|Proxy)Auth|BasicAuth|DigestAuth|UsernamePasswordAuthenticationToken"
    r"|PasswordAuthentication|(?:UsernamePassword|Password|Basic|BasicAWS|AwsBasic|Simple|Plain|Static)Credentials?)"
)
_CALL_ARGUMENTS = r"(?:\.create|\.of|::new)?[ \t]*\([ \t]*" + _ARGUMENT + _SEP + _STRING + r"[ \t]*[,)]"
_SECRET_SETTERS = (  # any case: setPassword, set_password, withToken, SetApiKey
    r"(?:set|with)_?(?:password|passwd|secret|api_?key|token|auth_?token|access_?token|client_?secret|credentials?)"
)
_SECRET_TAG = (
    r"(?i:password|passwd|passphrase|secret|token|api[_-]?key|private[_-]?key|access[_-]?key"
    r"|secret[_-]?key|client[_-]?secret)"
)


def _call(
    kind: str, anchors: tuple[str, ...], pattern: str, *, flags: int = 0, back: tuple[int, int] = (0, 0)
) -> Rule:
    """A string literal a call takes; the pattern starts ``back`` chars before one of ``anchors``."""
    return argument_rule(kind, "code", _STRING_GROUPS, pattern, anchors=anchors, back=back, flags=flags)


CODE_RULES: tuple[Rule, ...] = (
    _call(  # smtp.login(user, "X"), client.LogIn("u", "X")
        "call-password",
        _LOGINS,
        r"\b(?:" + "|".join(_LOGINS) + r")" + _CALL_ARGUMENTS,
        flags=re.IGNORECASE,
    ),
    _call(  # new NetworkCredential("svc", "X"), HTTPBasicAuth("u", "X")
        "call-password",
        ("Auth", "Credential"),
        r"\b" + _CREDENTIAL_CLASSES + _CALL_ARGUMENTS,
        back=(4, 16),
    ),
    _call(  # jwt.sign(payload, "X"), crypto.createHmac("sha256", "X")
        "call-signing-key",
        ("jwt.", "JWT.", "Jwt.", "jsonwebtoken.", "createHmac"),
        r"\b(?:(?:jwt|JWT|Jwt|jsonwebtoken)\.(?:sign|verify|encode|decode)|createHmac)[ \t]*\([ \t]*"
        + _ARGUMENT
        + _SEP
        + _STRING,
    ),
    _call(  # hmac.new(b"X", msg, sha256)
        "call-signing-key",
        ("hmac.new", "HMAC.new"),
        r"\b(?:hmac|HMAC)\.new[ \t]*\([ \t]*" + _STRING,
    ),
    _call(  # setPassword("X"), .with_token("X")
        "call-password",
        ("set", "with"),
        r"\b" + _SECRET_SETTERS + r"[ \t]*\([ \t]*" + _STRING + r"[ \t]*\)",
        flags=re.IGNORECASE,
    ),
    _call(  # builder.username("u").password("X")
        "call-password",
        (".password", ".passwd"),
        r"\.(?:password|passwd)[ \t]*\([ \t]*" + _STRING + r"[ \t]*\)",
    ),
    _call(  # requests.get(url, auth=("u", "X")), Elasticsearch(basic_auth=("u", "X"))
        "auth-pair",
        ("auth", "basic_auth", "http_auth", "proxy_auth"),
        r"\b(?:auth|basic_auth|http_auth|proxy_auth)[ \t]*=[ \t]*[(\[][ \t]*"
        + _ARGUMENT
        + _SEP
        + _STRING
        + r"[ \t]*[)\]]",
    ),
    Rule(  # Terraform: variable "db_password" { default = "X" }
        kind="key-value-secret",
        category="assignment",
        group="dq",
        min_len=4,
        anchors=("variable",),
        pattern=(
            r"\bvariable[ \t]+\"[^\"\r\n]*"
            + _SECRET_TAG
            + r"[^\"\r\n]*\"[ \t]*\{[^{}]{0,400}?\bdefault[ \t]*=[ \t]*"
            r"\"(?P<dq>(?:[^\"\\\r\n]|\\.)+)\""
        ),
    ),
    # environments as lists: - name: DB_PASSWORD / value: X (Kubernetes), {"name": "API_TOKEN", "value": "X"}
    Rule(
        kind="key-value-secret",
        category="assignment",
        group=("dq", "sq", "v"),
        min_len=6,
        vet="argument",
        anchors=("name",),
        pattern=(
            r"\bname\"?[ \t]*:[ \t]*[\"']?[\w.-]*"
            + _SECRET_TAG
            + r"[\w.-]*[\"']?[ \t]*(?:,[ \t]*|\r?\n[ \t]*(?:-[ \t]+)?)\"?value\"?[ \t]*:[ \t]*"
            r"(?:\"(?P<dq>(?:[^\"\\\r\n]|\\.)+)\"|'(?P<sq>[^'\r\n]+)'"
            r"|(?P<v>[^\s\"'#{}\[\]][^\r\n]*?)[ \t]*(?=[ \t]#|\r?\n|$))"  # bare (YAML): to the line's end
        ),
    ),
    Rule(  # <password>X</password>, <ns:apiKey>X</ns:apiKey>; not <maxTokens>4096</maxTokens>
        kind="xml-secret",
        category="assignment",
        group="v",
        min_len=6,
        needles=("</",),
        pattern=(
            r"<(?P<tag>(?![Mm]ax|[Mm]in|[Nn]um|[Cc]ount|[Tt]otal)(?:[\w.-]*:)?[\w.-]*?" + _SECRET_TAG + r"s?)"
            r"(?:[ \t][^<>\r\n]*)?>(?P<v>[^<>\r\n]{1,200}?)</(?P=tag)>"
        ),
    ),
    Rule(  # <add key="ApiKey" value="X" />
        kind="xml-secret",
        category="assignment",
        group="v",
        min_len=4,
        vet="argument",
        anchors=("key", "name"),
        pattern=(
            r"\b(?:key|name)[ \t]*=[ \t]*\"[^\"\r\n]*?"
            + _SECRET_TAG
            + r"[^\"\r\n]*\"[ \t]+value[ \t]*=[ \t]*"
            r"\"(?P<v>[^\"\r\n]+)\""
        ),
    ),
)
