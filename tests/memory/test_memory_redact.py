"""Secret redaction: real token formats go, look-alikes stay, Codex's own cases still hold."""

from __future__ import annotations

import json
import random
import string
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillshelf.memory.redact import REDACTED, RULES, redact, redact_secrets, scan_secrets
from testkit import reference_vectors

_rng = random.Random(20260501)
ALNUM = string.ascii_letters + string.digits
LOWER_HEX = "0123456789abcdef"


def r(n: int, alphabet: str = ALNUM) -> str:
    """Random characters (tokens are built at run time: no secret-shaped literals in the repo)."""
    while True:
        value = "".join(_rng.choice(alphabet) for _ in range(n))
        if alphabet != ALNUM or (any(c.isdigit() for c in value) and any(c.isupper() for c in value)):
            return value


PEM = (
    "-----BEGIN RSA PRIVATE KEY-----\n"
    + "\n".join(r(64, ALNUM + "+/") for _ in range(4))
    + "\n-----END RSA PRIVATE KEY-----"
)
JWT = "eyJ" + r(20, ALNUM + "_-") + ".eyJ" + r(40, ALNUM + "_-") + "." + r(43, ALNUM + "_-")

# (kind, category, text around the secret, the secret itself)
SECRETS: list[tuple[str, str, str]] = [
    ("openai-key", "model-provider", "sk-" + r(48)),
    ("openai-project-key", "model-provider", "sk-proj-" + r(40, ALNUM + "_-") + r(20)),
    ("anthropic-key", "model-provider", "sk-ant-api03-" + r(93, ALNUM + "_-") + "AA"),
    ("huggingface-token", "model-provider", "hf_" + r(34)),
    ("groq-key", "model-provider", "gsk_" + r(52)),
    ("replicate-token", "model-provider", "r8_" + r(37)),
    ("perplexity-key", "model-provider", "pplx-" + r(48)),
    ("xai-key", "model-provider", "xai-" + r(80)),
    ("aws-access-key-id", "cloud", "AKIA" + r(16, string.ascii_uppercase + string.digits)),
    ("aws-secret-access-key", "cloud", r(40, ALNUM + "/+")),
    ("google-api-key", "cloud", "AIza" + r(35, ALNUM + "_-")),
    ("google-oauth-secret", "cloud", "GOCSPX-" + r(28)),
    ("azure-account-key", "cloud", r(86, ALNUM + "+/") + "=="),
    ("digitalocean-token", "cloud", "dop_v1_" + r(64, LOWER_HEX)),
    ("alibaba-access-key", "cloud", "LTAI" + r(20)),
    ("github-token", "vcs", "ghp_" + r(36)),
    ("github-token", "vcs", "gho_" + r(36)),
    ("github-fine-grained-pat", "vcs", "github_pat_" + r(22) + "_" + r(59)),
    ("gitlab-token", "vcs", "glpat-" + r(20, ALNUM + "_-")),
    ("bitbucket-app-password", "vcs", "ATBB" + r(32)),
    ("slack-token", "chat", "xoxb-" + r(11, string.digits) + "-" + r(13, string.digits) + "-" + r(24)),
    (
        "slack-webhook",
        "chat",
        "https://hooks.slack.com/services/T"
        + r(8, string.ascii_uppercase)
        + "/B"
        + r(10, string.ascii_uppercase)
        + "/"
        + r(24),
    ),
    (
        "discord-webhook",
        "chat",
        "https://discord.com/api/webhooks/" + r(18, string.digits) + "/" + r(68, ALNUM + "_-"),
    ),
    ("discord-bot-token", "chat", "M" + r(25) + "." + r(6) + "." + r(38)),
    ("telegram-bot-token", "chat", r(10, string.digits) + ":AA" + r(33, ALNUM + "_-")),
    ("stripe-key", "payment", "sk_live_" + r(24)),
    ("stripe-key", "payment", "rk_test_" + r(32)),
    ("stripe-webhook-secret", "payment", "whsec_" + r(32)),
    ("square-token", "payment", "sq0atp-" + r(22, ALNUM + "_-")),
    ("braintree-token", "payment", "access_token$production$" + r(16, LOWER_HEX) + "$" + r(32, LOWER_HEX)),
    ("shopify-token", "payment", "shpat_" + r(32, LOWER_HEX)),
    ("npm-token", "package-registry", "npm_" + r(36)),
    ("pypi-token", "package-registry", "pypi-AgEIcHlwaS5vcmc" + r(60, ALNUM + "_-")),
    ("rubygems-key", "package-registry", "rubygems_" + r(48, LOWER_HEX)),
    ("nuget-key", "package-registry", "oy2" + r(43, string.ascii_lowercase + string.digits)),
    ("dockerhub-pat", "package-registry", "dckr_pat_" + r(27, ALNUM + "_-")),
    ("sendgrid-key", "saas", "SG." + r(22, ALNUM + "_-") + "." + r(43, ALNUM + "_-")),
    ("twilio-api-key", "saas", "SK" + r(32, LOWER_HEX)),
    ("mailgun-key", "saas", "key-" + r(32, LOWER_HEX)),
    ("openrouter-key", "saas", "sk-or-v1-" + r(64, LOWER_HEX)),
    ("databricks-token", "saas", "dapi" + r(32, LOWER_HEX)),
    ("pulumi-token", "saas", "pul-" + r(40, LOWER_HEX)),
    ("supabase-token", "saas", "sbp_" + r(40, LOWER_HEX)),
    ("sentry-token", "saas", "sntryu_" + r(64, LOWER_HEX)),
    ("grafana-token", "saas", "glsa_" + r(32) + "_" + r(8, LOWER_HEX)),
    ("postman-key", "saas", "PMAK-" + r(24, LOWER_HEX) + "-" + r(34, LOWER_HEX)),
    ("newrelic-key", "saas", "NRAK-" + r(27, string.ascii_uppercase + string.digits)),
    ("age-secret-key", "saas", "AGE-SECRET-KEY-1" + r(58, "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L")),
    ("hashicorp-vault-token", "saas", "hvs." + r(90, ALNUM + "_-")),
    ("jwt", "token", JWT),
    ("pem-private-key", "key", PEM),
]

CONTEXTS = {
    "aws-secret-access-key": "aws_secret_access_key = {}",
    "azure-account-key": (
        "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey={};EndpointSuffix=core.windows.net"
    ),
}

LOOK_ALIKES = [
    "commit 3f2a9c1e5b7d4f6a8c0e2b4d6f8a0c2e4b6d8f0a fixed it",
    "short sha 3f2a9c1 and a sha256 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "request id 123e4567-e89b-42d3-a456-426614174000",
    "export OPENAI_API_KEY=${OPENAI_API_KEY}",
    "api_key: <your-api-key>",
    "token = YOUR_TOKEN_HERE",
    "OPENAI_API_KEY=sk-xxxxxxxxxxxxxxxxxxxxxxxxxxxx",
    "aws docs use AKIAIOSFODNN7EXAMPLE as the access key id",
    "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "password: ********",
    "token = tokenizer.next_token()",
    "password = get_password_from_vault",
    "see https://github.com/openai/codex/blob/main/codex-rs/core/src/memories/phase1.rs",
    "path /usr/lib/python3.11/site-packages/skillshelf/memory/transcripts/codex.py",
    "postgresql://localhost:5432/app and https://example.com/a:b",
    'api_key: "short"',
    "the token_limit is 150000 and the secret_sauce_enabled flag",
    "Bearer tokens are described in RFC 6750",
]


@pytest.mark.parametrize(
    ("kind", "category", "secret"), SECRETS, ids=[f"{k}-{i}" for i, (k, _, _) in enumerate(SECRETS)]
)
def test_every_known_format_is_redacted(kind: str, category: str, secret: str) -> None:
    text = "before " + CONTEXTS.get(kind, "{}").format(secret) + " after"
    result = redact(text)
    assert secret not in result.text
    assert REDACTED in result.text and result.text.startswith("before ") and result.text.endswith(" after")
    assert kind in {f.kind for f in result.findings}
    assert any(rule.kind == kind and rule.category == category for rule in RULES)


def test_the_list_covers_at_least_thirty_formats_in_every_category() -> None:
    kinds = {k for k, _, _ in SECRETS}
    assert len(kinds) >= 30
    assert {"cloud", "vcs", "chat", "payment", "package-registry", "model-provider"} <= {
        c for _, c, _ in SECRETS
    }


@pytest.mark.parametrize("text", LOOK_ALIKES)
def test_look_alikes_stay_untouched(text: str) -> None:
    assert redact_secrets(text) == text, scan_secrets(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "postgresql://app:" + "S3cr3tPassw0rd" + "@db.internal:5432/prod",
            "postgresql://app:[REDACTED_SECRET]@db.internal:5432/prod",
        ),
        (
            "mongodb+srv://root:hunter2x@cluster0.mongodb.net/db",
            "mongodb+srv://root:[REDACTED_SECRET]@cluster0.mongodb.net/db",
        ),
        (
            "Server=tcp:db;Database=app;User Id=sa;Password=Xy9$kLm2q;",
            "Server=tcp:db;Database=app;User Id=sa;Password=[REDACTED_SECRET];",
        ),
        ('{"client_secret": "a8f3Kq92LmZx"}', '{"client_secret": "[REDACTED_SECRET]"}'),
        ("GITHUB_TOKEN=abcdef1234567890", "GITHUB_TOKEN=[REDACTED_SECRET]"),
        ("Authorization: Basic dXNlcjpwYXNzd29yZA==", "Authorization: Basic [REDACTED_SECRET]"),
    ],
)
def test_credentials_in_urls_connection_strings_and_assignments(text: str, expected: str) -> None:
    assert redact_secrets(text) == expected


def test_high_entropy_strings_are_redacted_but_words_are_not() -> None:
    blob = r(40, ALNUM + "+/")
    assert redact_secrets(f"value {blob} end") == f"value {REDACTED} end"
    assert redact(f"value {blob} end", high_entropy=False).text == f"value {blob} end"
    assert (
        redact_secrets("ThisIsAVeryLongCamelCaseIdentifierName2") == "ThisIsAVeryLongCamelCaseIdentifierName2"
    )


@pytest.mark.parametrize("alphabet", [ALNUM, ALNUM + "+/", ALNUM + "-_"])
@pytest.mark.parametrize("length", [64, 180, 600])
def test_a_long_random_token_is_redacted_though_it_holds_a_run_of_letters(alphabet: str, length: int) -> None:
    rng = random.Random(f"{alphabet}{length}")  # fixed tokens: the test never depends on the draw
    for _ in range(20):
        half = (length - 12) // 2
        head, tail = ("".join(rng.choice(alphabet) for _ in range(n)) for n in (half, length - half - 12))
        token = f"{head}K7qwertzui7K{tail}"  # one run of 8 lower-case letters, as in a word
        assert redact_secrets(f"token {token} end") == f"token {REDACTED} end"


@pytest.mark.parametrize(
    "text",
    [
        '"integrity": "sha512-' + "Zq8mP2vX9kL4rT7w" * 5 + 'q4ew==",',
        "https://data.example.gov/efservice/TRI_RELEASE_QTY/STATE_ABBR/TX/REPORTING_YEAR/2022/rows/0:24/JSON",
        "skills/koba42corp/sage-wallet/sub-skills/sage-options/SKILL.md\tok\tyes\nskills/koba42corp/x",
    ],
)
def test_digests_and_long_paths_of_words_are_no_secrets(text: str) -> None:
    assert redact_secrets(text) == text


def test_codex_sanitizer_cases_hold() -> None:
    vectors = reference_vectors("codex-memory-vectors.json", "phase1.redaction")
    derived = next(v for v in vectors if "outputs" in v["expected"])
    assert derived["input"]["inputs"], "the sanitizer vector lists no input"
    for text, expected in zip(derived["input"]["inputs"], derived["expected"]["outputs"], strict=True):
        assert redact_secrets(text) == expected
    item = next(v for v in vectors if "item" in v["input"])
    out = redact_secrets(json.dumps(item["input"]["item"]))
    assert (
        item["expected"]["serialized_contains"] in out
        and item["expected"]["serialized_not_contains"] not in out
    )


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=300), st.sampled_from([(k, s) for k, _, s in SECRETS]))
def test_no_known_secret_survives_whatever_surrounds_it(noise: str, kind_secret: tuple[str, str]) -> None:
    kind, secret = kind_secret
    out = redact_secrets(noise + " " + CONTEXTS.get(kind, "{}").format(secret) + "\n" + noise)
    assert secret not in out
    assert redact_secrets(out) == out  # idempotent


def test_redact_command_reads_stdin_and_reports(tmp_path: Path) -> None:
    secret = "ghp_" + r(36)
    proc = subprocess.run(
        [sys.executable, "-m", "skillshelf.cli.main", "redact", "--report"],
        input=f"token {secret}\nplain line\n",
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=True,
    )
    assert proc.stdout == "token [REDACTED_SECRET]\nplain line\n"
    assert "github-token: 1" in proc.stderr


@pytest.mark.parametrize(
    ("context", "secret"),
    [
        ("Authorization: Bearer {}", "MY-0000000011111111223456789ABCa"),
        ("mysql -u root -p{} app", "my_Secret2024"),
        ("password: {}", "my-s3cret-Pass"),
        ("export OPENAI_API_KEY={}", "my-proj-8fK2mQ9xLw3vR7tY1pZ4sN6b"),
        ("token = {}", "YOUR_T0KEN_9f8e7d"),
    ],
)
def test_a_secret_that_starts_like_a_stand_in_is_still_redacted(context: str, secret: str) -> None:
    assert secret not in redact(context.format(secret)).text


@pytest.mark.parametrize(
    "text",
    [
        "api_key: your-api-key",
        "token = MY_TOKEN_HERE",
        "secret: your_secret",
        "aws_secret_access_key = your_s3_secret_key",
        "curl 'https://api.example.org/v1/series?api_key=YOUR_KEY&format=json'",
        "password: your-32-char-password-here",
    ],
)
def test_a_stand_in_made_of_words_is_left_alone(text: str) -> None:
    assert redact(text).text == text
