"""Secret redaction in the shapes people paste: masked and cut tokens, keys with code-like
characters, passwords under more keys and commands, argument arrays in JSON lines, secrets said
in sentences, and the look-alikes each of those must leave alone."""

from __future__ import annotations

import base64
import json
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from redact_cases import r

from skillshelf.memory.phase1 import parse_stage1_reply
from skillshelf.memory.redact import REDACTED, redact
from skillshelf.memory.redact.jsonl import is_secret_key


@pytest.mark.parametrize(
    ("context", "parts"),
    [
        ("token: {}XXXX", ["ghp_" + r(32)]),
        ("export OPENAI_API_KEY={}**** # rotate later", ["sk-proj-" + r(40)]),
        ("Authorization: Bearer {}...", [r(40)]),
        ("password={}***a", [r(10)]),
        ('password = "xxxx{}"', [r(10)]),
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
        "password: p***w0rd",
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
        "PW={} ./deploy.sh",
        "DB_PW={}",
        "pw: {}",
        "export PGPASS={}",
        "creds: alice:{}",
        "plink -ssh deploy@host -pw {}",
        'os.environ["DB_PASSWORD"] = "{}"',
        "ENV['SECRET_KEY_BASE'] = '{}'",
        'variable "db_password" {{\n  type    = string\n  default = "{}"\n}}',
        "ENCRYPTION_KEY={}",
        'const SIGNING_KEY = "{}";',
        '{{"hmacKey": "{}"}}',
        "MAPBOX_KEY={}",
        "export WIDGET_VENDOR_KEY='{}'",
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
        'const [password, setPassword] = useState<string>("");',
        "self.vault[token] = encrypted_record_for_card",
        "pw = getpass.getpass()",
        'variable "db_password" {\n  type      = string\n  sensitive = true\n}',
        "SORT_KEY=created_at",
        "CACHE_KEY=user:profile:v2",
        "PARTITION_KEY=tenant_id_2024",
        "PRIMARY_KEY=id",
        "REDIS_KEY_PREFIX=myapp2024Cache",
        "git push origin master:main",
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
        "my password for the server is {}",
        "the password for admin@db01 is {}.",
        "the root password on prod was {}",
        "The token for the staging api is {}, it expires Friday",
    ],
)
def test_a_secret_said_with_what_it_is_for_is_redacted(sentence: str) -> None:
    secret = r(12)
    assert redact(sentence.format(secret)).text == sentence.format(REDACTED)


@pytest.mark.parametrize(
    "sentence",
    [
        "the password is stored in the vault",
        "Password is required",
        "The token is short-lived and JWT-based.",
        "the secret is $DB_PASSWORD",
        "The password is at least 12 characters long",
        "the api key is in ~/.config/app/key",
        "the password for this account is hashed with bcrypt.",
        "The password for the admin user is required.",
        "the token for each request is short-lived",
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


@pytest.mark.parametrize(
    "sentence",
    [
        "The password {} works for the db.",
        "use password {} for the db",
        "logged in with password {}",
        "the password for the staging db: {}",
        "Passphrase '{}' unlocks the key",
        "the api key `{}` goes in the header",
        "rotate the token {}, it leaked",
        "DB_PASSWORD {} (from the vault)",
        "pwd {}!",
    ],
)
def test_a_credential_right_after_the_name_of_a_secret_is_redacted(sentence: str) -> None:
    secret = r(14)
    out = redact(sentence.format(secret))
    assert out.text == sentence.format(REDACTED)
    assert [f.kind for f in out.findings] == ["prose-secret"]


def test_a_phase1_reply_that_names_a_password_in_prose_is_stored_redacted() -> None:
    secret = r(15)
    said = f"The password {secret} works for the db."
    reply = json.dumps({"raw_memory": f"### Task 1\n- {said}", "rollout_summary": said, "rollout_slug": "db"})

    result = parse_stage1_reply(reply)

    assert result is not None and secret not in repr(result)
    assert result.raw_memory == f"### Task 1\n- The password {REDACTED} works for the db."


@pytest.mark.parametrize("secret", ["hunter2!" + r(4, string.ascii_lowercase), "Summer#2024", "S3cr3t#pw"])
def test_a_credential_with_a_symbol_after_a_password_is_redacted(secret: str) -> None:
    assert redact(f"log in with password {secret} now").text == f"log in with password {REDACTED} now"


@pytest.mark.parametrize(
    "text",
    [
        "the password field",
        "password reset flow",
        "enter your password",
        "password123 is a bad example",
        "the password password123 is a bad example",
        "a password Summer2024 is guessed first",
        "kubectl get secret my-secret-v2 -o yaml",
        "open the Password Manager2 app",
        "Token *oauth2.Token",
        "password VARCHAR(255) NOT NULL",
        "the api key ANTHROPIC_API_KEY",
        "the token o200k_base",
        "token v1alpha1 and secret v1beta1",
        "token 0x" + r(40, "0123456789abcdefABCDEF") + " on mainnet",
        "send the token ${GITHUB_TOKEN} along",
        "password $DB_PASSWORD",
        "cd $(pwd)/build2 && pwd -P",
        "- **Token Efficiency**: never load it twice",
        "**API Key Required:** Get one from the console",
        "pass v2Config to it",
        "the password <your-Password1>",
    ],
)
def test_a_word_after_the_name_of_a_secret_that_is_no_credential_stays(text: str) -> None:
    assert redact(text).text == text


def test_an_option_named_token_stays_the_command_lines_finding() -> None:
    token = r(20)
    assert [f.kind for f in redact(f"tool list --page-token {token}").findings] == ["cli-password-option"]


def test_an_option_of_many_parts_ending_in_a_secret_word_is_found_and_a_dashed_run_is_not() -> None:
    secret = r(16)
    line = f"deploy --org-prod-eu-db-admin-bind-password {secret}"
    assert [f.kind for f in redact(line).findings] == ["cli-password-option"]
    dashed = "sk-" * 5000 + "pwd-0a-" * 500
    assert redact(dashed).text == dashed


_CREDENTIAL = st.tuples(
    st.text(string.ascii_lowercase, min_size=3, max_size=8),
    st.text(string.ascii_uppercase, min_size=1, max_size=4),
    st.text(string.digits, min_size=1, max_size=4),
    st.text("!@#$%^&+=~", max_size=2),
).map(lambda parts: parts[1] + parts[0] + parts[2] + parts[3] + parts[0][::-1])


@settings(max_examples=80, deadline=None)
@given(
    st.sampled_from(["password", "Passwd", "passphrase", "secret", "secret key", "API key", "token"]),
    _CREDENTIAL,
)
def test_any_credential_after_its_name_is_redacted(name: str, secret: str) -> None:
    assert redact(f"I used the {name} {secret} for it.").text == f"I used the {name} {REDACTED} for it."


_PROSE_WORD = st.text(string.ascii_letters, min_size=1, max_size=14) | st.builds(
    lambda word, n: word + str(n),
    st.text(string.ascii_lowercase, min_size=1, max_size=10),
    st.integers(0, 9999),
)


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(["password", "secret", "token", "api key", "pwd"]), st.lists(_PROSE_WORD, max_size=6))
def test_words_and_numbered_names_after_the_name_of_a_secret_stay(name: str, words: list[str]) -> None:
    text = " ".join(["the", name, *words, "works."])
    assert redact(text).text == text
