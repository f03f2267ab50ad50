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


@pytest.mark.parametrize(
    ("context", "parts"),
    [
        ("token: {}XXXX", ["ghp_" + r(32)]),
        ("export OPENAI_API_KEY={}**** # rotate later", ["sk-proj-" + r(40)]),
        ("Authorization: Bearer {}...", [r(40)]),
        ('api_key: "{}"', [r(20), r(20)]),
    ],
)
def test_a_token_masked_or_cut_in_part_is_still_redacted(context: str, parts: list[str]) -> None:
    out = redact(context.format("...".join(parts))).text
    assert not any(part in out for part in parts)


@pytest.mark.parametrize(
    "text",
    [
        "token: sk-proj-abcd...wxyz",
        "aws_access_key_id = AKIA" + r(9, string.ascii_uppercase + string.digits) + "EXAMPLE",
        "OPENAI_API_KEY=sk-" + "x" * 40,
        "password: ********",
        "api_key = <your key>...",
    ],
)
def test_a_stand_in_with_a_marker_is_left_alone(text: str) -> None:
    assert redact(text).text == text


@pytest.mark.parametrize(
    "text",
    [
        "SECRET_KEY = '{}'".format(r(8, "abcdefghijklmnopqrstuvwxyz0123456789") + "$" + r(14) + "(" + r(26)),
        "SECRET_KEY = '({}'".format(r(49, "abcdefghijklmnopqrstuvwxyz0123456789!@#$%^&*-_=+")),
        f"password: 'hv#{r(6, string.ascii_lowercase)}!j8gx)(ben'",
        "export DJANGO_SECRET_KEY='{}'".format(r(12) + "$(" + r(12)),
    ],
)
def test_a_secret_with_a_parenthesis_is_not_taken_for_code(text: str) -> None:
    out = redact(text).text
    assert REDACTED in out and text.split("'")[1] not in out


@pytest.mark.parametrize(
    "text",
    [
        'token = getenv("API_TOKEN")',
        "PASSWORD=$(cat /run/secrets/db)",
        'api_key = "0x$(openssl rand -hex 32)"',
        "password = hash_password(password)",
        "token = CancellationToken::new()",
        "secret = this.#readSecret(name)",
    ],
)
def test_a_call_or_a_command_substitution_is_code_not_a_secret(text: str) -> None:
    assert redact(text).text == text


@pytest.mark.parametrize(
    "context",
    [
        "DB_PASS={}",
        "export SMTP_PASS='{}'",
        "auth: {{ user: 'me@example.org', pass: '{}' }}",
        '{{"pass": "{}"}}',
        '{{"smtpPass": "{}"}}',
        "$cred = ConvertTo-SecureString '{}' -AsPlainText -Force",
        "ssh-keygen -t ed25519 -N '{}' -f deploy_key",
        "openssl enc -aes-256-cbc -k {} -in backup.tar -out backup.enc",
        "db.internal:5432:*:app:{}",
        "localhost:5432:app:app:{}\r\n*:*:*:postgres:other\r\n",
    ],
)
def test_passwords_in_more_places_are_redacted(context: str) -> None:
    secret = r(20)
    out = redact(context.format(secret)).text
    assert secret not in out and REDACTED in out


def test_a_hex_private_key_is_redacted_where_it_is_called_one() -> None:
    key = r(64, "0123456789abcdef")
    assert key not in redact(f"my wallet private key is 0x{key}").text
    assert redact(f"commit {key} of the private repo").text == f"commit {key} of the private repo"


@pytest.mark.parametrize(
    "text",
    [
        "bypass = something_long",
        "pass: 3 of 5 tests",
        "    few_shot_pass: str, few_shot_fail: str,",
        "ssh-keygen -t ed25519 -N '' -f deploy_key",
        "$c = ConvertTo-SecureString $plain -AsPlainText -Force",
        "12:30:45:00:abcd",
        "fe80:0:0:0:1:2:3:4",
    ],
)
def test_look_alikes_of_the_newer_password_places_stay(text: str) -> None:
    assert redact(text).text == text


@pytest.mark.parametrize(
    ("key", "secret"),
    [
        ("pass", True),
        ("smtpPass", True),
        ("db-pass", True),
        ("bypass", False),
        ("compass", False),
        ("passes", False),
    ],
)
def test_a_json_key_named_pass_names_a_secret(key: str, secret: bool) -> None:
    from skillshelf.memory.redact.jsonl import is_secret_key

    assert is_secret_key(key) is secret


@pytest.mark.parametrize(
    "argv",
    [
        ["gh", "auth", "login", "--with-token", "{}"],
        ["docker", "login", "-u", "me", "-p", "{}", "registry.example.org"],
        ["mysql", "-uroot", "-p{}", "app"],
        ["curl", "-u", "admin:{}", "https://ci.example.org/api"],
        ["sshpass", "-p", "{}", "ssh", "deploy@10.0.0.7"],
    ],
)
def test_a_secret_in_a_command_given_as_a_json_array_is_redacted(argv: list[str]) -> None:
    secret = r(20)
    line = json.dumps({"type": "exec", "command": [a.format(secret) for a in argv], "cwd": "/srv"})
    out = redact(line)
    assert secret not in out.text and json.loads(out.text)["cwd"] == "/srv"
    assert {f.kind for f in out.findings} <= {"cli-password-option", "cli-user-password"} and out.findings


def test_a_json_array_of_ordinary_arguments_stays() -> None:
    line = json.dumps(
        {"command": ["python", "-m", "http.server", "-p", "8080"], "tags": ["alpha-tag-name", "b"]}
    )
    assert redact(line).text == line


@pytest.mark.parametrize(
    "sentence",
    [
        "the db password is {}, use it for the migration",
        "my api key is {}.",
        "The wifi password was {} until Monday",
        "the deploy token was reset to `{}` yesterday",
        "I reset the token to {} this morning",
        "so I changed the db password to '{} 9!' for now",
    ],
)
def test_a_secret_told_in_a_sentence_is_redacted(sentence: str) -> None:
    secret = r(12)
    out = redact(sentence.format(secret)).text
    assert secret not in out and REDACTED in out


@pytest.mark.parametrize(
    "sentence",
    [
        "the password is stored in the vault",
        "Password is required",
        "The token is short-lived and JWT-based.",
        "the secret is $DB_PASSWORD",
        "The password is at least 12 characters long",
        "the api key is in ~/.config/app/key",
    ],
)
def test_a_sentence_about_a_secret_without_one_stays(sentence: str) -> None:
    assert redact(sentence).text == sentence


@pytest.mark.parametrize(
    "context",
    [
        '{{"auths": {{"ghcr.io": {{"auth": "{}"}}}}}}',
        'cat ~/.docker/config.json\n{{\n  "auths": {{\n    "ghcr.io": {{\n      "auth": "{}"\n'
        "    }}\n  }}\n}}",
        "//registry.npmjs.org/:_auth={}\nemail=me@example.org",
    ],
)
def test_basic_credentials_under_an_auth_key_are_redacted(context: str) -> None:
    import base64

    encoded = base64.b64encode(f"me:{r(12)}".encode()).decode()
    out = redact(context.format(encoded)).text
    assert encoded not in out and encoded.rstrip("=") not in out


@pytest.mark.parametrize(
    "text",
    ['auth: "required"', "Auth: NavigatorScreenParams<AuthStackParamList>;", '{"auth": {"type": "bearer"}}'],
)
def test_an_auth_key_without_credentials_stays(text: str) -> None:
    assert redact(text).text == text


@pytest.mark.parametrize("password", ["abc123", r(16)])
def test_a_password_set_before_a_command_leaves_the_command(password: str) -> None:
    line = f"PGPASSWORD={password} psql -h db.internal -U app -c 'select 1'"
    assert redact(line).text == f"PGPASSWORD={REDACTED} psql -h db.internal -U app -c 'select 1'"


def test_a_password_with_spaces_on_a_config_line_is_redacted_whole() -> None:
    assert redact("SMTP_PASS=abcd efgh ijkl mnop").text == f"SMTP_PASS={REDACTED}"


def test_a_quoted_secret_in_a_sentence_is_redacted_to_its_closing_quote() -> None:
    said = f"I set the password to '{r(8)} {r(4)}!' for the demo"
    assert redact(said).text == f"I set the password to '{REDACTED}' for the demo"
