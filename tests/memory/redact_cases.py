"""Secrets and look-alikes shared by the redaction tests: 30 token formats as transcript lines
(built at run time from random characters: no secret-shaped literals in the repo), records of
the real Codex and Claude Code transcripts to put them in, freshly generated OpenSSH keys, and
the 8-char windows no output may hold."""

from __future__ import annotations

import base64
import json
import random
import shutil
import string
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

from testkit import missing

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts"
_rng = random.Random(20261201)
ALNUM = string.ascii_letters + string.digits
B64URL = ALNUM + "-_"


def r(n: int, alphabet: str = ALNUM) -> str:
    """Random characters with a digit, an upper and a lower case letter, each that ``alphabet``
    has (tokens are built at run time: no secret-shaped literals in the repo)."""
    kinds = [k for k in (str.isdigit, str.isupper, str.islower) if any(k(c) for c in alphabet)]
    while True:
        value = "".join(_rng.choice(alphabet) for _ in range(n))
        if all(any(k(c) for c in value) for k in kinds):
            return value


def words(n: int) -> str:
    return " ".join(
        "".join(_rng.choice(string.ascii_lowercase) for _ in range(_rng.randint(5, 9))) for _ in range(n)
    )


def b64url_json(value: dict[str, object]) -> str:
    return base64.urlsafe_b64encode(json.dumps(value).encode()).decode().rstrip("=")


HEADER = b64url_json({"alg": "HS256", "typ": "JWT"})


def _case(name: str, template: str, *secret: str) -> tuple[str, str, tuple[str, ...]]:
    """(name, line, the secret pieces that must vanish)."""
    return name, template.format(*secret), secret


CASES = [
    _case("jwt", "export SESSION_JWT={}", f"{HEADER}.{b64url_json({'sub': r(12)})}.{r(43, B64URL)}"),
    _case("jwt-opaque-payload", "token cache: {}", f"{HEADER}.{r(40, B64URL)}.{r(43, B64URL)}"),
    _case("jwt-unsigned", "echo {} | jq", f"{b64url_json({'alg': 'none'})}.{r(36, B64URL)}."),
    _case(
        "jwe",
        "got {} back",
        ".".join([b64url_json({"alg": "RSA-OAEP", "enc": "A256GCM"})] + [r(43, B64URL)] * 4),
    ),
    _case("dotted-session", 'echo "cookie session=v1.{}" | skillshelf redact', r(44)),
    _case("paseto", "Authorization header was v2.local.{}", r(64, B64URL)),
    _case("password-dollar", "password={}", "$" + r(13)),
    _case("password-quotes", "password={}", f"{r(6)}$${r(4)}\"Q'{r(3)}!"),
    _case("quoted-passphrase", "export DB_PASSWORD='{}'", words(4)),
    _case("escaped-quote", '{{"token": "{}"}}', f'{r(3)}\\"{r(16)}'),
    _case("password-at", "PGPASSWORD='{}' psql -h db -U app", f"{r(8)}@{r(6)}!"),
    _case("url-at", "git clone https://deploy:{}@github.com/acme/api.git", f"{r(10)}%40{r(8)}"),
    _case("curl-u", "curl -u admin:{} https://api.example.net/v1/items", r(14)),
    _case("curl-user-quoted", "curl -s --user 'admin:{}' https://x.example.net", f"{r(8)} {r(8)}"),
    _case("mysql-p", "mysql -h db -u root -p{} app < dump.sql", r(15)),
    _case("mysqldump-password", "mysqldump --password={} --all-databases", r(15)),
    _case("password-option", "./deploy.sh --password {} --env prod", r(15)),
    _case("token-option", "vault login -token={}", r(26)),
    _case("sshpass", "sshpass -p '{}' ssh deploy@host", f"{r(9)} {r(5)}"),
    _case("docker-login", "docker login -u bot -p {} registry.example.net", r(20)),
    _case("redis-cli", "redis-cli -h cache -a {} ping", r(18)),
    _case("netrc", "machine api.example.net login bot password {}", r(16)),
    _case("yaml-spaces", "  password: {}", words(3)),
    _case("authorization-token", "Authorization: Token {}", r(40)),
    _case("cookie-header", "Cookie: {}", f"sessionid={r(32)}; csrftoken={r(32)}"),
    _case("json-camel-field", '{{"clientSecret": "{}", "clientId": "web"}}', r(24)),
    _case("dotenv-dollar-at", 'SMTP_PASSWORD="{}"', f"{r(7)}$@{r(7)}"),
    _case("openssl-pass", "openssl enc -aes-256-cbc -pass {} -in secrets.tar", "pass:" + r(16)),
    _case("keytool-storepass", "keytool -list -keystore app.jks -storepass {}", r(14)),
    _case("escaped-json-text", 'sh -c "export PASSWORD=\\"{}\\""', f"{r(7)} {r(7)}"),
    _case("bearer-opaque", "Authorization: Bearer {}", r(30, B64URL)),
]

LOOK_ALIKES = [
    "commit 3f2a9c1e5b7d4f6a8c0e2b4d6f8a0c2e4b6d8f0a fixed it (short 3f2a9c1)",
    "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 is the digest",
    "request id 123e4567-e89b-42d3-a456-426614174000, trace 3b2f1c0e-5a4d-4e6f-8a9b-0c1d2e3f4a5b",
    "v1.2.3-14-g3f2a9c1 was tagged; see docs/api.v1.md and module.sub.name",
    "export OPENAI_API_KEY=${OPENAI_API_KEY}",
    "password: ${{ secrets.DB_PASSWORD }}",
    'curl -u "$USER:$TOKEN" https://api.example.net',
    "docker run -u 1000:1000 app && mysql -p dbname",
    "echo $PASSWORD | docker login --password-stdin registry.example.net",
    "token = tokenizer.next_token()",
    "password = get_password_from_vault",
    "PWD=/home/dev/project OLDPWD=/home/dev",
    "The session was refreshed; the password policy needs 12 characters.",
    "def check(password: str) -> bool:",
    "see https://github.com/openai/codex/blob/main/codex-rs/core/src/memories/phase1.rs",
]


def codex_record(output: str) -> str:
    """A function_call_output line of a real Codex rollout, with ``output`` in it."""
    for line in next((FIXTURES / "codex").glob("rollout-*.jsonl")).read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if record["type"] == "response_item" and record["payload"].get("type") == "function_call_output":
            record["payload"]["output"] = output
            return json.dumps(record)
    raise AssertionError("no function_call_output in the Codex fixture")


def claude_record(output: str) -> str:
    """A tool_result line of a real Claude Code session, with ``output`` in it."""
    for path in sorted((FIXTURES / "claude").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            content = record.get("message", {}).get("content")
            if (
                record.get("type") == "user"
                and isinstance(content, list)
                and content[0].get("type") == "tool_result"
            ):
                content[0]["content"] = output
                return json.dumps(record, ensure_ascii=False)
    raise AssertionError("no tool_result in the Claude Code fixtures")


FORMS: dict[str, Callable[[str], str]] = {
    "raw": lambda line: line,
    "codex": codex_record,
    "claude": claude_record,
}


def windows(secret: str, size: int = 8) -> Iterator[str]:
    yield from (secret[i : i + size] for i in range(max(1, len(secret) - size + 1)))


def left(output: str, pieces: tuple[str, ...] | list[str]) -> list[str]:
    """The 8-char windows of ``pieces`` still in ``output``."""
    return [w for piece in pieces for w in windows(piece) if w in output]


BEGIN = "-----BEGIN OPENSSH PRIVATE KEY-----"
KINDS = (
    ("ed25519", None),
    ("rsa", "2048"),
    ("rsa", "1024"),
    ("ecdsa", "256"),
    ("ecdsa", "384"),
    ("ecdsa", "521"),
)


def _ssh_keygen_keys(folder: Path, per_type: int) -> list[str]:
    keys = []
    for n in range(per_type * 3):
        kind, bits = KINDS[(n // per_type) * 2 + n % 2]
        path = folder / f"k{n}"
        args = ["ssh-keygen", "-q", "-t", kind, "-f", str(path), "-C", f"user{n}@host{n}"]
        args += ["-b", bits] if bits else []
        args += ["-N", f"pass-{n}", "-a", "2"] if n % 5 == 4 else ["-N", ""]  # some are encrypted
        subprocess.run(args, check=True, capture_output=True, timeout=120)
        keys.append(path.read_text(encoding="ascii"))
    return keys


def _cryptography_keys(per_type: int) -> list[str]:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa

    makers = (
        lambda n: ed25519.Ed25519PrivateKey.generate(),
        lambda n: rsa.generate_private_key(public_exponent=65537, key_size=2048 - 1024 * (n % 2)),
        lambda n: ec.generate_private_key((ec.SECP256R1(), ec.SECP384R1(), ec.SECP521R1())[n % 3]),
    )
    return [
        makers[n // per_type](n)
        .private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.OpenSSH, serialization.NoEncryption()
        )
        .decode("ascii")
        for n in range(per_type * 3)
    ]


def openssh_keys(folder: Path, per_type: int) -> list[str]:
    """``per_type`` ed25519, RSA and ECDSA keys from ssh-keygen, else from ``cryptography``; skipped
    (a failure under CI) when neither is there."""
    if shutil.which("ssh-keygen"):
        folder.mkdir(parents=True, exist_ok=True)
        return _ssh_keygen_keys(folder, per_type)
    try:
        return _cryptography_keys(per_type)
    except ImportError:
        missing("neither ssh-keygen nor the cryptography package is there to generate OpenSSH keys")


def key_body(key: str) -> str:
    return "".join(key.strip().splitlines()[1:-1])
