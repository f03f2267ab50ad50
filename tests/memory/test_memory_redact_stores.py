"""Secret redaction of what secret stores are given (every value of ``kubectl create secret
generic``, ``fly secrets set``; a value fed on stdin to ``wrangler secret put``), of environment
entries named for a secret (``- name: DB_PASSWORD`` then ``value: X``), and of a user and a
password said together in prose; and the look-alikes each must leave alone."""

from __future__ import annotations

import pytest
from redact_cases import r

from skillshelf.memory.redact import REDACTED, redact


@pytest.mark.parametrize(
    "template",
    [
        "kubectl create secret generic app --from-literal=api={} --from-literal=signing={}",
        "kubectl -n prod create secret generic app --from-literal='user={}' --from-literal=\"pw={}\" "
        "--from-file=ca.crt",
        "fly secrets set SESSION={} STRIPE={} -a app",
        "flyctl secrets set --stage A={} B={}",
        "doppler secrets set STRIPE={} OTHER={}",
    ],
)
def test_every_value_a_secret_store_sets_is_redacted(template: str) -> None:
    first, second = r(16), r(20)
    assert redact(template.format(first, second)).text == template.format(REDACTED, REDACTED)


def test_a_secret_store_takes_many_values_each_redacted() -> None:
    secrets = [r(12) for _ in range(8)]
    command = "kubectl create secret generic app " + " ".join(
        f"--from-literal=k{n}={secret}" for n, secret in enumerate(secrets)
    )
    out = redact(command).text
    assert not any(secret in out for secret in secrets)
    assert out.count(REDACTED) == 8 and "--from-literal=k7=" in out


@pytest.mark.parametrize(
    "template",
    [
        'dotnet user-secrets set "Stripe:Key" "{}"',
        "mc alias set local http://localhost:9000 minio {}",
        "mc config host add s3 https://s3.amazonaws.com AKIAEXAMPLEKEY {}",
        "wrangler secret put API_TOKEN <<< {}",
        "echo -n {} | gh secret set DEPLOY_KEY",
        "printf '%s' {} | docker secret create db_pw -",
        "printf '%s\\n' '{}' | vercel env add SECRET production",
        "echo {} | flyctl secrets import",
    ],
)
def test_a_value_given_to_a_secret_store_is_redacted(template: str) -> None:
    secret = r(16)
    assert redact(template.format(secret)).text == template.format(REDACTED)


@pytest.mark.parametrize(
    "text",
    [
        "kubectl create configmap app --from-literal=LOG_LEVEL=debug",
        "kubectl create secret generic x --from-literal=signing=SIGNING_KEY",
        "fly secrets set FOO=$FOO BAR=${BAR}",
        "fly secrets list",
        "mc alias set local http://localhost:9000 ACCESS_KEY SECRET_KEY",
        "echo $TOKEN | wrangler secret put API_TOKEN",
        "printf 'hello\\n' | gh secret list",
    ],
)
def test_look_alikes_of_secret_store_commands_stay(text: str) -> None:
    assert redact(text).text == text


@pytest.mark.parametrize(
    "template",
    [
        "login: alice / {}",
        "login is alice/{}",
        "creds are deploy@example.com / {}.",
        "user alice, pass {}",
        "username deploy password {}",
        "user: bob and password: '{}'",
    ],
)
def test_a_user_and_password_said_together_are_redacted(template: str) -> None:
    secret = r(12) + "7"
    assert redact(template.format(secret)).text == template.format(REDACTED)


@pytest.mark.parametrize(
    "text",
    [
        "login: src/app/Login2.tsx",
        "login: user/password",
        "the login page: app/Login2.tsx needs a fix",
        "user admin, password reset link sent",
        "user count, pass 3 of 5",
        "username foo password ${DB_PASSWORD}",
        "creds are alice / <password>",
        "the credentials are in ~/.aws/credentials",
        "Login screens / v2 design",
    ],
)
def test_look_alikes_of_a_spoken_user_and_password_stay(text: str) -> None:
    assert redact(text).text == text


@pytest.mark.parametrize(
    "template",
    [
        "env:\n  - name: DB_PASSWORD\n    value: {}\n  - name: REGION\n    value: eu-west-1",
        '- name: API_TOKEN\n  value: "{}"',
        "- name: STRIPE_SECRET\n  value: {}  # live",
        'containerDefinitions: [{{"name": "API_TOKEN", "value": "{}"}}, {{"name": "B", "value": "c"}}]',
        "Your new password is: {}",
        "Here is your API key: {}",
    ],
)
def test_a_secret_named_on_the_line_before_or_said_with_a_colon_is_redacted(template: str) -> None:
    secret = r(16)
    assert redact(template.format(secret)).text == template.format(REDACTED)


@pytest.mark.parametrize(
    "text",
    [
        "- name: DB_PASSWORD\n  valueFrom:\n    secretKeyRef:\n      name: db",
        '- name: TOKEN_TTL\n  value: "3600"',
        "- name: API_TOKEN\n  value: ${API_TOKEN}",
        "- name: DB_PASSWORD\n  value: PASSWORD",
        "the API key: see the dashboard",
        "Access token: expires in 3600s",
        "The password is: at least 12 chars",
    ],
)
def test_look_alikes_of_named_values_stay(text: str) -> None:
    assert redact(text).text == text
