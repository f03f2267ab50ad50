"""A PostgreSQL URL's password is masked by where it is written, not by what it looks like: one
character, none, percent-encoded, with ``@`` in it or given as a ``?password=`` parameter, it
is never shown, in a message, ``memory status`` or the driver's own error."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest
from memory_helpers import run_cli

from skillshelf.memory.store.conninfo import scrubbed_error, shown_database, shown_url

MASK = "[REDACTED_SECRET]"


def _secret() -> str:
    return "Hunter2" + uuid.uuid4().hex[:10]


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("postgresql://u:x@127.0.0.1:1/db", f"postgresql://u:{MASK}@127.0.0.1:1/db"),
        ("postgres://u:xy@h/db", f"postgres://u:{MASK}@h/db"),
        ("postgresql://u:@h/db", f"postgresql://u:{MASK}@h/db"),
        ("postgresql://u:p%40s@h/db", f"postgresql://u:{MASK}@h/db"),
        ("postgresql://u:p@s@h/db", f"postgresql://u:{MASK}@h/db"),
        ("postgresql://u:p/s@h/db", f"postgresql://u:{MASK}@h/db"),
        ("postgresql://u:p?s@h/db", f"postgresql://u:{MASK}@h/db"),
        ("postgresql://u@h/db?password=x", f"postgresql://u@h/db?password={MASK}"),
        ("postgresql://u@h/db?password=", f"postgresql://u@h/db?password={MASK}"),
        (
            "postgresql://h/db?user=u&password=pw&sslmode=require",
            f"postgresql://h/db?user=u&password={MASK}&sslmode=require",
        ),
        ("postgresql:///db?host=/tmp&PASSWORD=x", f"postgresql:///db?host=/tmp&PASSWORD={MASK}"),
        ("postgresql://h/db?pass%77ord=x", f"postgresql://h/db?pass%77ord={MASK}"),
        ("postgresql://u:x@h?sslpassword=y", f"postgresql://u:{MASK}@h?sslpassword={MASK}"),
    ],
)
def test_a_urls_password_is_masked_whatever_its_length_or_spelling(url: str, shown: str) -> None:
    assert shown_url(url) == shown
    assert shown_database(url) == shown


@pytest.mark.parametrize(
    "url",
    [
        "postgresql://u@h/db",
        "postgresql://h:5432/db",
        "postgresql://[::1]:5432/db",
        "postgresql://h/db?application_name=a@b",
        "sqlite:////home/a:b@c/x.sqlite",
        "/home/u/state.sqlite",
    ],
)
def test_a_url_without_a_password_is_shown_as_it_is(url: str) -> None:
    assert shown_database(url) == url


@pytest.mark.parametrize(
    ("template", "error"),
    [
        ("postgresql://u:{s}%zz@h/db", 'invalid percent-encoded token: "{s}%zz"'),
        ("postgresql://u:x%zz@h/db", 'invalid percent-encoded token: "x%zz"'),
        ("postgresql://u:{s}@[::1/db", 'no "]" in URI: "postgresql://u:{s}@[::1/db"'),
        ("postgresql://u:x@[::1/db", 'no "]" in URI: "postgresql://u:x@[::1/db"'),
        ("postgresql://u@h/db?password=x&bogus=1", 'invalid URI: "postgresql://u@h/db?password=x&bogus=1"'),
        ("host=h password={s} bogus=1", 'invalid option in "host=h password={s} bogus=1"'),
    ],
)
def test_a_drivers_error_keeps_no_part_of_the_password(template: str, error: str) -> None:
    secret = _secret()
    url = template.format(s=secret)
    shown = scrubbed_error(error.format(s=secret), url)
    assert secret not in shown and "Hunter2" not in shown and MASK in shown
    assert "x%zz" not in shown and "password=x" not in shown and ":x@" not in shown


def test_a_short_password_leaves_the_words_around_it_alone() -> None:
    message = 'connection to server at "127.0.0.1", port 1 failed: Connection refused'
    assert scrubbed_error(message, "postgresql://u:e@127.0.0.1:1/db") == message


@pytest.mark.parametrize(
    "template",
    [
        "postgresql://app:{p}@127.0.0.1:1/mem?connect_timeout=2",
        "postgresql://app@127.0.0.1:1/mem?connect_timeout=2&password={p}",
        "postgresql://app:{p}%zz@127.0.0.1:1/mem?connect_timeout=2",
        "postgresql://app:{p}@[::1/mem",
    ],
)
@pytest.mark.parametrize("password", ["x", "!", "Q%21"])
def test_memory_status_never_shows_a_short_password(
    isolated_home: Any,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    template: str,
    password: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    url = template.format(p=password)
    exit_code, out, err = run_cli(capsys, "memory", "status", "--db", url)
    assert exit_code == 1 and "error ME010:" in err, err
    written = template.split("{p}")[0] + password
    assert written not in out + err and f'"{password}' not in out + err and MASK in err
