"""Environment-style assignments whose name says they hold a secret (``NAME=VALUE``, ``NAME: VALUE``)
are redacted whatever the value's shape; settings under such names, references and stand-ins stay."""

from __future__ import annotations

import pytest

from skillshelf.memory.redact import REDACTED, redact


@pytest.mark.parametrize(
    ("line", "secret"),
    [
        ("MY_SECRET_VALUE=hunter2hunter", "hunter2hunter"),
        ("OPENAI_API_KEY=sk-test", "sk-test"),
        ("ANTHROPIC_API_KEY=my-internal-gateway-key-0001", "my-internal-gateway-key-0001"),
        ("export STRIPE_SECRET=whsec_abcdefghijkl", "whsec_abcdefghijkl"),
        ("  DB_PASSWORD: hunter2x", "hunter2x"),
        ('GITHUB_TOKEN="ghx_abc123"', "ghx_abc123"),
        ("AWS_ACCESS_KEY_ID=abcdef123", "abcdef123"),
        ("GOOGLE_CREDENTIALS=opaque-value", "opaque-value"),
        ("SMTP_PASSWD=letmein;echo done", "letmein"),
        ("DJANGO_SECRET_KEY=abc(def#ghi!jk", "abc(def#ghi!jk"),
        ("SECRET_KEY=opaque-value-1", "opaque-value-1"),
        ("SECRET_KEY: opaque-value-1", "opaque-value-1"),
        ("TOKEN=opaque-value-1", "opaque-value-1"),
        ("GITHUB_TOKEN_VALUE=ghx_abc123", "ghx_abc123"),
        ("DB_PASSWORD=Te7$dCyUm", "Te7$dCyUm"),
        ("HOOK_TOKEN=https://hooks.acme.io/services/T0A1B2/XkQ9zLmP4wRt", "XkQ9zLmP4wRt"),
        ("API_TOKEN=https://acme.io/cb?key=opaque-value-1", "opaque-value-1"),
    ],
)
def test_an_env_assignment_named_for_a_secret_is_redacted(line: str, secret: str) -> None:
    out = redact(line).text
    assert secret not in out and REDACTED in out
    assert out.split("=")[0].split(":")[0] == line.split("=")[0].split(":")[0]  # the name stays


@pytest.mark.parametrize(
    "line",
    [
        "TOKEN_LIMIT=4096",
        "TOKEN_LIMIT=409600",
        "MAX_TOKENS=100000",
        "key=value",
        "token=abcdef",
        "PASSWORD_FILE=/run/secrets/db",
        "API_KEY=${OPENAI_API_KEY}",
        "SECRET_BACKEND=disabled",
        "OPENAI_API_KEY=sk-xxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        "OPENAI_API_KEY=your-api-key",
        "AWS_SECRETS=abcdefgh12",  # SECRETS is no whole part named for a secret here
        f"DB_PASSWORD={REDACTED}",
    ],
)
def test_env_look_alikes_stay(line: str) -> None:
    assert redact(line).text == line
