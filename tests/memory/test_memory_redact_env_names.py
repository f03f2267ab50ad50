"""The env-secret rule reads a name as a secret's only when a secret word ends it, and leaves
values that are references, code, paths or plain URLs: setting names, file names and code stay."""

from __future__ import annotations

import pytest

from skillshelf.memory.redact import redact
from skillshelf.memory.redact.matching import Views, rule_matches
from skillshelf.memory.redact.rules_env import ENV_RULES
from skillshelf.memory.redact.values import is_env_secret_value


def _env_findings(text: str) -> list[str]:
    """The values the env-secret rule alone would redact in ``text`` (other rules judge
    ``key: value`` on their own)."""
    found = (
        text[a:b] for rule in ENV_RULES for m in rule_matches(rule, Views(text)) for a, b in rule.spans(m)
    )
    return [value for value in found if is_env_secret_value(value)]


@pytest.mark.parametrize(
    "line",
    [
        "API_KEY_HEADER=X-Api-Key",
        "CSRF_TOKEN_HEADER=X-CSRFToken",
        "OAUTH_TOKEN_URL=https://login.microsoftonline.com/common/oauth2/v2.0/token",
        "PASSWORD_HASHER=argon2id",
        "PASSWORD_POLICY=strict",
        "SECRET_BACKEND=kubernetes",
        "TOKEN_STORE=keyring",
        "SECRET_NAME=prod-db-password",
        "SECRET_ARN=arn:aws:secretsmanager:eu-west-1:123456789012:secret:prod-db",
        "SECRET_VERSION=latest",
        "TOKEN_FORMAT=jwt-rs256",
        "TOKEN_CACHE_DIR=.cache/tokens",
        "PASSWORD_FILE=secrets/db.txt",
        "CREDENTIALS_FILE=x.json",
        "CREDENTIALS_FILE=service-account.json",
        "API_KEY_ENV=OPENAI_API_KEY",
        "API_KEY_NAME=openai_api_key",
        "TOKEN_AUDIENCE=api://default",
        "TOKEN_LIMIT=1234567890123",
        "ACCESS_TOKEN_LIFETIME=timedelta(minutes=5)",
        'print(f"TOKEN={token}")',
    ],
)
def test_env_settings_paths_and_code_named_like_secrets_stay(line: str) -> None:
    assert redact(line).text == line


@pytest.mark.parametrize(
    "line",
    [
        "GOOGLE_CREDENTIALS=service-account.json",
        "DB_PASSWORD=secrets/db.txt",
        "DB_PASSWORD=./run/db",
        "AUTH_TOKEN=https://login.acme.io/oauth2/v2.0/token",
        "SESSION_SECRET=timedelta(minutes=5)",
        "APP_TOKEN=prefix-$HOME/token",
        'APP_TOKEN="{token}"',
        "GITHUB_TOKEN=${{ secrets.GITHUB_TOKEN }}",
    ],
)
def test_env_values_that_are_paths_urls_references_or_calls_are_not_env_secrets(line: str) -> None:
    assert _env_findings(line) == []


@pytest.mark.parametrize(
    "line", ["see SECRET: description here.", "TOKEN: required-for-login", "PASSWORD: hunter2x"]
)
def test_a_name_that_is_one_secret_word_counts_only_before_an_equals_sign(line: str) -> None:
    assert _env_findings(line) == []
