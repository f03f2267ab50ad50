"""`skillshelf redact` over 30 token formats in transcript lines (raw, in a real Codex rollout record
and in a real Claude Code record): JWT-shaped tokens with non-JSON payloads, passwords with
``$``, quotes, spaces and ``@``, passwords on command lines. No 8-char piece of a secret is
left; look-alikes (commit hashes, UUIDs, digests, prose, code) come back byte for byte."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from redact_cases import CASES, FORMS, LOOK_ALIKES, codex_record, left, r

from skillshelf.memory.redact import REDACTED, redact, redact_secrets, redact_value


def _redact_cli(text: str) -> str:
    proc = subprocess.run(
        [sys.executable, "-m", "skillshelf.cli.main", "redact"],
        input=text.encode("utf-8"),
        capture_output=True,
        check=True,
        timeout=120,
    )
    return proc.stdout.decode("utf-8")


def test_the_list_holds_thirty_formats() -> None:
    assert len({name for name, _, _ in CASES}) >= 30


@pytest.mark.parametrize("form", FORMS)
def test_no_piece_of_any_token_survives_the_command(form: str) -> None:
    lines = [FORMS[form](line) for _, line, _ in CASES]
    out = _redact_cli("".join(line + "\n" for line in lines)).split("\n")
    assert len(out) == len(lines) + 1 and out[-1] == ""
    for (name, line, pieces), got in zip(CASES, out, strict=False):
        assert left(got, pieces) == [], (name, line, got)
        assert REDACTED in got, name
        if form != "raw":
            json.loads(got)  # still a valid transcript record


@pytest.mark.parametrize(("name", "line", "pieces"), CASES, ids=[c[0] for c in CASES])
def test_each_token_is_redacted_in_place(name: str, line: str, pieces: tuple[str, ...]) -> None:
    out = redact_secrets(line)
    assert left(out, pieces) == []
    assert redact_secrets(out) == out  # idempotent
    head = line[: line.index(pieces[0])]
    head = re.sub(r"(?:[A-Za-z0-9_-]+\.)+$", "", head)  # a dotted token (v1.<run>) goes whole
    assert out.startswith(head), (name, out)  # what comes before the secret stays


@pytest.mark.parametrize("form", FORMS)
def test_look_alikes_come_back_unchanged(form: str) -> None:
    text = "".join(FORMS[form](line) + "\n" for line in LOOK_ALIKES)
    assert _redact_cli(text) == text


def test_a_value_ends_at_an_escaped_line_break_and_the_next_lines_stay() -> None:
    secret = r(16)
    record = json.dumps({"output": f"password={secret}\nnext line stays\nand this one"})
    out = redact_secrets(record)
    assert json.loads(out)["output"] == f"password={REDACTED}\nnext line stays\nand this one"
    raw = f"password={secret}\\nnext line stays"  # JSON-escaped text outside a JSON line
    assert redact_secrets(raw) == f"password={REDACTED}\\nnext line stays"


def test_json_inside_json_strings_is_redacted_and_stays_valid() -> None:
    secret = r(15)
    arguments = json.dumps({"cmd": ["bash", "-lc", f"mysql -u root -p{secret} app"], "workdir": "/srv"})
    record = json.dumps(
        {"type": "response_item", "payload": {"type": "function_call", "arguments": arguments}}
    )
    out = redact_secrets(record)
    inner = json.loads(json.loads(out)["payload"]["arguments"])
    assert inner["cmd"][2] == f"mysql -u root -p{REDACTED} app" and inner["workdir"] == "/srv"
    assert secret not in out


def test_a_json_line_without_secrets_is_returned_byte_for_byte() -> None:
    line = '{"a": "caf\\u00e9", "b": [1, 2.50, true, null], "c": "line\\nbreak", "d":"tight"}'
    assert redact_secrets(line) == line


def test_secret_fields_are_redacted_whatever_their_value_looks_like() -> None:
    record = {
        "password": "correct horse battery staple",
        "apiKey": r(10),
        "X-Api-Key": r(12),
        "pwd": "/srv/app",
    }
    out = json.loads(redact_secrets(json.dumps(record)))
    assert out == {"password": REDACTED, "apiKey": REDACTED, "X-Api-Key": REDACTED, "pwd": "/srv/app"}
    assert redact_value({"args": {"token": r(20)}, "n": 3}) == {"args": {"token": REDACTED}, "n": 3}


def test_the_value_of_a_name_value_pair_named_for_a_secret_is_redacted() -> None:
    secret, other = r(16), r(16)
    task = {"environment": [{"name": "DB_HOST", "value": other}, {"name": "API_TOKEN", "value": secret}]}
    assert json.loads(redact_secrets(json.dumps(task))) == {
        "environment": [{"name": "DB_HOST", "value": other}, {"name": "API_TOKEN", "value": REDACTED}]
    }
    parameter = {"Parameter": {"Name": "/prod/db/password", "Type": "SecureString", "Value": secret}}
    assert json.loads(redact_secrets(json.dumps(parameter)))["Parameter"]["Value"] == REDACTED
    # the name of another object does not count
    apart = {"environment": [{"name": "API_TOKEN"}, {"name": "region", "value": other}]}
    assert json.loads(redact_secrets(json.dumps(apart))) == apart


def test_findings_point_at_the_string_that_held_the_secret() -> None:
    secret = "ghp_" + r(36)
    line = json.dumps({"type": "message", "text": f"use {secret} now"})
    (finding,) = redact(line).findings
    assert finding.kind == "github-token" and secret in line[finding.start : finding.end]


LINE = st.one_of(
    st.sampled_from([line for _, line, _ in CASES] + LOOK_ALIKES),
    st.sampled_from([line for _, line, _ in CASES]).map(codex_record),
    st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\n"), max_size=80),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(LINE, min_size=1, max_size=12))
def test_every_input_line_is_one_output_line(lines: list[str]) -> None:
    text = "\n".join(lines)
    out = redact_secrets(text)
    assert out.count("\n") == text.count("\n")
    for before, after in zip(text.split("\n"), out.split("\n"), strict=True):
        if before.startswith("{") and before.endswith("}"):
            try:
                json.loads(before)
            except ValueError:
                continue
            json.loads(after)
