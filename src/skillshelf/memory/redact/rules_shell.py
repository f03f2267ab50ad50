"""Secrets on command lines: password options (``--password X``, ``mysql -pX``, ``curl -u
user:X``), passwords a command takes as a positional argument (``htpasswd -b FILE USER X``,
``net user NAME X``), values of ``config set`` commands whose key names a secret, every value
a secret store's command sets (``kubectl create secret generic --from-literal=K=X``, ``fly
secrets set K=X``), and secrets piped or fed into a command that reads one on standard input
(``echo X | docker login --password-stdin``, ``wrangler secret put NAME <<< X``).

Every rule redacts the argument only; the command stays readable.
"""

from __future__ import annotations

import re
from typing import Any

from skillshelf.memory.redact.rule import FLAG_LEAD, Rule, argument_rule

__all__ = ["SHELL_RULES"]

# The value of a command-line option: quoted, or a bare word.
_ARG = r"(?:\"(?P<dq>[^\"\r\n]+)\"|'(?P<sq>[^'\r\n]+)'|(?![-\"'`])(?P<v>[^\s\"'`;|&<>]+))"
_ARG_GROUPS = ("dq", "sq", "v")
# printf's format before the value: printf '%s\n' X | ...
_FORMAT = r"(?:(?:\"[^\"\r\n%]*%[^\"\r\n]*\"|'[^'\r\n%]*%[^'\r\n]*'|%\S*)[ \t]+)?"
# The rest of one command, at most 400 chars: an unbounded scan from each of many command names
# on one long line (minified output, a hostile transcript) would take quadratic time.
_REST = r"[^\r\n|;&]{0,400}?"
_COMMAND_TAIL = r"\b" + _REST + r"[ \t]"  # the rest of a command up to an option
_WORD = r"(?:\"[^\"\r\n]*\"|'[^'\r\n]*'|(?![-/])[^\s\"'`;|&<>]+)"  # one positional argument
# the end of a command: a line end, an operator, a redirection, or ``net user``'s /add
_END = r"(?=[ \t]*(?:$|[\r\n;|&)<>]|\d>|/add\b|/y\b))"
# What reads a secret on standard input: an option that says so, ``sudo -S``, ``passwd``.
_READS_STDIN = (
    r"(?:--(?:password|passwd|pass|token|secret|api-key)-stdin\b|--with-token\b"
    r"|\bsudo(?:[ \t]+-[A-Za-z]+)*?[ \t]+-[A-Za-z]*S\b|\bchpasswd\b|\bpasswd\b"
    # secret stores that take the value on stdin when it is not on the command line
    r"|\bwrangler[ \t]+(?:pages[ \t]+)?secret[ \t]+put\b|\bvercel[ \t]+env[ \t]+add\b"
    r"|\bgh[ \t]+secret[ \t]+set\b"
    r"|\b(?:docker|podman)[ \t]+secret[ \t]+create\b|\b(?:fly|flyctl)[ \t]+secrets[ \t]+import\b)"
)
# The keys of a ``config set`` that name a secret. Narrower than the assignment key words:
# ``credential.helper store`` and ``auth-type legacy`` are no secrets.
_SECRET_SETTING = (
    r"[\w./:@-]*(?:password|passwd|token|secret|api[_-]?key|apikey|access[_-]?key|private[_-]?key"
    r"|_auth|[_.-]pass)[\w.-]*"
)

_SECRET_SETTING_ANY_CASE = r"(?i:" + _SECRET_SETTING + r")"


def _command_rule(kind: str, pattern: str, **speed: Any) -> Rule:
    """A secret argument of a command, which ``pattern`` finds in its ``dq``, ``sq`` or ``v`` group;
    ``speed``: the rule's ``needles``, ``anchors``, ``back`` and ``flags``."""
    return argument_rule(kind, "command-line", _ARG_GROUPS, pattern, **speed)


def _command_password(command: str, option: str, **speed: Any) -> Rule:
    """The password given to ``command`` as ``option`` (``mysql ... -pX``, ``sshpass -p X``)."""
    return _command_rule("cli-password-option", command + _COMMAND_TAIL + option + _ARG, **speed)


def _numbered_arg(number: int) -> str:
    """``_ARG`` with its groups numbered (``dq2``, ``sq2``, ``v2``), for a rule that takes several."""
    return (
        _ARG.replace("(?P<dq>", f"(?P<dq{number}>")
        .replace("(?P<sq>", f"(?P<sq{number}>")
        .replace("(?P<v>", f"(?P<v{number}>")
    )


_MAX_STORED = 8  # values of one secret store's command that are found
_STORED_KEY = r"[A-Za-z_][\w.-]*="


def _stored_value(item: str, number: int) -> str:
    """The ``number``th value of a secret store's command: ``item`` (an option, or nothing) and
    ``KEY=X``, with ``X`` quoted or bare, or the whole ``'KEY=X'`` quoted."""
    whole = r"[\"']" + _STORED_KEY + rf"(?P<w{number}>[^\"'\r\n]+)[\"']"
    return _REST + r"[ \t]" + item + r"(?:" + _STORED_KEY + _numbered_arg(number) + r"|" + whole + r")"


def _store_values(command: str, item: str, **speed: Any) -> Rule:
    """Every value ``command``, a secret store's, sets (``--from-literal=a=X --from-literal=b=Y``),
    up to ``_MAX_STORED``; 6 chars or more (``KEY=value`` in a usage line is no secret)."""
    values = [_stored_value(item, number) for number in range(1, _MAX_STORED + 1)]
    return Rule(
        kind="cli-secret-store",
        category="command-line",
        group=tuple(f"{g}{n}" for n in range(1, _MAX_STORED + 1) for g in ("dq", "sq", "v", "w")),
        each=True,
        min_len=6,
        vet="argument",
        pattern=command + values[0] + "".join(f"(?:{value})?" for value in values[1:]),
        **speed,
    )


def _positional_password(pattern: str, **speed: Any) -> Rule:
    """A password given as a positional argument: ``pattern`` leads up to it."""
    return _command_rule("cli-password-argument", pattern + _ARG + _END, **speed)


_OPTION_RULES: tuple[Rule, ...] = (
    _command_rule(
        "cli-password-option",
        (
            FLAG_LEAD + r"--?(?:[a-z0-9]+[-_]){0,8}(?:password|passwd|passphrase|pass|pwd|token|secret"
            r"|api[-_]?key|apikey|auth[-_]?token|access[-_]?token|access[-_]?key|secret[-_]?key"
            r"|client[-_]?secret|[a-z]*storepass|[a-z]*keypass|bearer|pw)(?:=|[ \t]+)" + _ARG
        ),
    ),
    _command_password(
        r"\b(?:mysql(?:dump|admin|import|show|check|sh|binlog)?|mariadb(?:-dump|-admin|-import|-show)?)",
        r"-p",
        needles=("mysql", "mariadb"),
    ),
    _command_password(r"\bsshpass", r"-p[ \t]*", needles=("sshpass",)),
    _command_password(  # found from its "login", 3 to 20 chars after the command's start
        r"\b(?:docker|podman|nerdctl|buildah|skopeo|oras|helm[ \t]{1,4}registry|az|oc|cf)[ \t]{1,4}login",
        r"-p[ \t]+",
        anchors=("login",),
        back=(3, 20),
    ),
    _command_password(r"\bredis-cli", r"-a[ \t]+", needles=("redis-cli",)),
    _command_password(r"\bssh-keygen", r"-N[ \t]*", needles=("ssh-keygen",)),  # -N '': no passphrase
    _command_password(r"\bopenssl", r"-k[ \t]+", needles=("openssl",)),
    _command_password(r"\bgh[ \t]+secret[ \t]+set", r"(?:-b|--body)(?:=|[ \t]+)", needles=("secret set",)),
    _command_password(r"\bmongo(?:sh)?", r"-p[ \t]+", anchors=("mongo",)),
    _command_password(r"\btwine", r"-p[ \t]+", anchors=("twine",)),
    _command_password(r"\bsqlcmd", r"-P[ \t]*", needles=("sqlcmd",)),
    _command_password(r"\bldap[a-z]+", r"-w[ \t]+", needles=("ldap",)),  # the bind password
    _command_password(r"\b(?:zip|unzip|zipcloak)", r"-P[ \t]+", anchors=("zip", "unzip")),
    _command_password(r"\b7z[az]?", r"-p", needles=("7z",)),
    _command_password(r"\b[a-z0-9-]{0,8}freerdp3?", r"/p:", needles=("freerdp",)),  # xfreerdp, sdl-freerdp
    _command_password(r"\bopenssl", r"-pass(?:in|out|word)?[ \t]+pass:", needles=("pass:",)),
    _command_rule(  # smbclient //host/share -U user%X
        "cli-user-password",
        r"\b(?:smbclient|rpcclient|smbmap|smbcacls)"
        + _COMMAND_TAIL
        + r"(?:-U|--user)(?:=|[ \t]*)"
        + r"(?:\"[^\"\r\n%]*%(?P<dq>[^\"\r\n]+)\"|'[^'\r\n%]*%(?P<sq>[^'\r\n]+)'"
        + r"|(?![-\"'])[^\s\"'%]*%(?P<v>[^\s\"'`;|&<>]+))",
        anchors=("smbclient", "rpcclient", "smbmap", "smbcacls"),
    ),
    _command_rule(
        "cli-password-option",
        r"\bConvertTo-SecureString[ \t]+(?:-String[ \t]+)?" + _ARG,
        anchors=("convertto-securestring",),
        flags=re.IGNORECASE,
    ),
    _command_rule(
        "cli-user-password",
        (
            r"\bcurl"
            + _COMMAND_TAIL
            + r"(?:-u|--user)(?:=|[ \t]*)"
            + r"(?:\"[^\"\r\n:]*:(?P<dq>[^\"\r\n]+)\"|'[^'\r\n:]*:(?P<sq>[^'\r\n]+)'"
            + r"|(?![-\"'])[^\s\"':]*:(?P<v>[^\s\"'`;|&<>]+))"
        ),
        needles=("curl",),
    ),
)

_ARGUMENT_RULES: tuple[Rule, ...] = (
    # htpasswd -b[c] FILE USER PASSWORD, htpasswd -nb USER PASSWORD
    _positional_password(
        r"\bhtpasswd(?:[ \t]+-[A-Za-z]+)*?[ \t]+-[A-Za-z]*b[A-Za-z]*(?:[ \t]+-[A-Za-z]+)*(?:[ \t]+"
        + _WORD
        + r"){1,2}[ \t]+",
        needles=("htpasswd",),
    ),
    _positional_password(
        r"\b(?:net|NET)[ \t]+(?:user|USER)[ \t]+" + _WORD + r"[ \t]+(?![*/])",
        needles=("net user", "NET USER"),
    ),
    _positional_password(r"\bmysqladmin" + _COMMAND_TAIL + r"password[ \t]+", needles=("mysqladmin",)),
    _positional_password(
        r"\brabbitmqctl(?:[ \t]+-\S+)*[ \t]+(?:add_user|change_password)[ \t]+" + _WORD + r"[ \t]+",
        needles=("rabbitmqctl",),
    ),
    Rule(  # vault login s.TOKEN, vault login token=s.TOKEN: the shape says it (s.X reads like code)
        kind="cli-password-argument",
        category="command-line",
        group="v",
        vet="key",
        needles=("vault",),
        pattern=r"\bvault[ \t]+login(?:[ \t]+-\S+)*[ \t]+(?:token=)?(?P<v>(?:hv)?[sbr]\.[A-Za-z0-9_-]{20,})"
        + _END,
    ),
    # setx API_KEY "X" (Windows)
    _positional_password(
        r"\b(?:setx|SETX)[ \t]+" + _SECRET_SETTING_ANY_CASE + r"[ \t]+", anchors=("setx", "SETX")
    ),
    # poetry config http-basic.REPO USER PASSWORD
    _positional_password(
        r"\bpoetry[ \t]+config[ \t]+http-basic\.\S+[ \t]+" + _WORD + r"[ \t]+", needles=("http-basic.",)
    ),
    _command_rule(  # aws configure set aws_secret_access_key X, npm config set //host/:_authToken X
        "cli-config-secret",
        (
            r"\b(?:aws[ \t]{1,2}configure|(?:npm|yarn|pnpm|git|poetry|pip|conda|gcloud)[ \t]{1,2}config)"
            r"(?:[ \t]+set)?"
            r"(?:[ \t]+--?[\w-]+(?:=\S+)?)*[ \t]+" + _SECRET_SETTING + r"[ \t]+" + _ARG + _END
        ),
        anchors=("config",),
        back=(4, 8),  # "git config" ... "gcloud  config"
        flags=re.IGNORECASE,
    ),
)

_STORE_RULES: tuple[Rule, ...] = (
    _store_values(
        r"\bkubectl\b" + _REST + r"[ \t]create[ \t]+secret[ \t]+generic\b",
        r"--from-literal[= ]",
        needles=("--from-literal",),
    ),
    _store_values(
        r"\b(?:fly|flyctl|doppler)[ \t]+secrets[ \t]+set\b", r"(?:--?[\w-]+[ \t]+)?", needles=("secrets set",)
    ),
    # dotnet user-secrets set "Stripe:Key" X
    _positional_password(
        r"\bdotnet[ \t]+user-secrets[ \t]+set[ \t]+" + _WORD + r"[ \t]+", needles=("user-secrets",)
    ),
    # mc alias set NAME URL ACCESS_KEY SECRET_KEY (mc config host add, before)
    _positional_password(
        r"\bmc[ \t]+(?:alias[ \t]+set|config[ \t]+host[ \t]+add)(?:[ \t]+" + _WORD + r"){3}[ \t]+",
        anchors=("mc",),
    ),
)

_STDIN_RULES: tuple[Rule, ...] = (
    _command_rule(  # echo X | docker login --password-stdin; printf 'X\n' | sudo -S ...
        "cli-password-stdin",
        (
            r"\b(?:echo|printf)(?:[ \t]+-[neE]+)*[ \t]+"
            + _FORMAT
            + _ARG
            + r"[ \t]*\|[ \t]*(?="
            + _REST
            + _READS_STDIN
            + ")"
        ),
        anchors=("echo", "printf"),
    ),
    _command_rule(  # gh auth login --with-token <<< X
        "cli-password-stdin",
        _READS_STDIN + r"[^\r\n|;&<]{0,400}<<<[ \t]*" + _ARG,
        needles=("<<<",),
    ),
)

SHELL_RULES: tuple[Rule, ...] = _OPTION_RULES + _ARGUMENT_RULES + _STORE_RULES + _STDIN_RULES
