"""A usage error (a bad option or argument) is reported like every other error: a code (SS002),
the message and a fix; a command that prints its fatal errors as JSON with ``--json`` prints this
one that way too, on stdout."""

from __future__ import annotations

import json

import pytest

from testkit import IsolatedHome
from testkit import run_cli as cli


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["memory", "run", "--sessions", "/nonexistent/sessions", "--json"], "--sessions"),
        (["memory", "status", "--limit", "x", "--json"], "--limit"),
        (["memory", "run", "--max-calls", "-1", "--json"], "--max-calls"),
        (["memory", "status", "--json", "--no-such-option"], "--no-such-option"),
        (["update", "--json", "--no-such-option"], "--no-such-option"),
        (["remove", "--json"], "--pack"),
        (["install", "--json"], "SOURCE"),
        (["run", "--json", "--no-such-option"], "--no-such-option"),
        (["run", "go", "--json", "--timeout", "nan"], "finite"),
    ],
    ids=lambda v: " ".join(v) if isinstance(v, list) else v,
)
def test_a_usage_error_with_json_is_printed_on_stdout_too(
    args: list[str], named: str, capsys: pytest.CaptureFixture[str], isolated_home: IsolatedHome
) -> None:
    code, out, err = cli(args, capsys)
    assert code == 2 and "error SS002" in err
    printed = json.loads(out)
    assert printed["code"] == "SS002" and named in printed["message"] and "--help" in printed["fix"]
