"""`skillshelf redact` over freshly generated OpenSSH private keys (ed25519, RSA, ECDSA), raw, in
JSON lines, JSON-escaped in broken lines and split over two records: no 8-char piece of any key
body is left, the BEGIN/END lines stay, and every input line is one output line."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import pytest
from redact_cases import BEGIN, key_body, left
from redact_cases import openssh_keys as generate_keys


@pytest.fixture(scope="module")
def openssh_keys(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    keys = generate_keys(tmp_path_factory.mktemp("keys"), per_type=20)  # 60 keys
    assert len(keys) == 60 and all(k.startswith(BEGIN) for k in keys)
    return keys


def _left(output: str, keys: list[str]) -> list[str]:
    """The 8-char pieces of key bodies still in ``output``."""
    return left(output, [key_body(key) for key in keys])


def _redact_cli(text: str, *extra: str) -> str:
    proc = subprocess.run(
        [sys.executable, "-m", "skillshelf.cli.main", "redact", *extra],
        input=text.encode("utf-8"),
        capture_output=True,
        check=True,
        timeout=300,
    )
    return proc.stdout.decode("utf-8")


def test_no_piece_of_a_raw_key_survives(openssh_keys: list[str]) -> None:
    text = "".join(f"$ cat ~/.ssh/id_{n}\n{key}done {n}\n" for n, key in enumerate(openssh_keys))
    out = _redact_cli(text)
    assert _left(out, openssh_keys) == []
    assert out.count("\n") == text.count("\n")
    assert out.count(BEGIN) == 60 and "done 59\n" in out


def test_no_piece_of_a_key_in_json_lines_survives(openssh_keys: list[str]) -> None:
    records = [
        {"type": "function_call_output", "call_id": f"call_{n}", "output": f"cat ~/.ssh/id\n{key}"}
        for n, key in enumerate(openssh_keys)
    ]
    text = "".join(json.dumps(r) + "\n" for r in records)
    out = _redact_cli(text)
    assert _left(out, openssh_keys) == []
    lines = out.splitlines()
    assert len(lines) == 60
    for line, record in zip(lines, records, strict=True):
        parsed = json.loads(line)
        assert parsed["call_id"] == record["call_id"]
        assert parsed["output"].startswith(f"cat ~/.ssh/id\n{BEGIN}\n[REDACTED_SECRET]\n")


def test_no_piece_of_a_json_escaped_key_in_broken_lines_survives(openssh_keys: list[str]) -> None:
    # a truncated JSON line (the last line of a crashed session) is no JSON: the escaped text is scanned
    text = "".join(json.dumps({"output": key})[:-2] + "\n" for key in openssh_keys)
    out = _redact_cli(text)
    assert _left(out, openssh_keys) == []
    assert out.count("\n") == 60


def test_a_key_split_over_two_records_stays_two_records(openssh_keys: list[str]) -> None:
    rng = random.Random(7)
    text = ""
    for key in openssh_keys:
        cut = rng.randrange(len(BEGIN) + 2, len(key) - 40)  # anywhere in the body, mid-line too
        text += json.dumps({"output": key[:cut]}) + "\n" + json.dumps({"output": key[cut:]}) + "\n"
    out = _redact_cli(text)
    assert _left(out, openssh_keys) == []
    lines = out.splitlines()
    assert len(lines) == 120
    assert all("output" in json.loads(line) for line in lines)


def test_the_library_finds_every_key_line(openssh_keys: list[str]) -> None:
    from skillshelf.memory.redact import redact

    for key in openssh_keys:
        for text in (key, json.dumps({"output": key}), key.replace("\n", "\r\n")):
            result = redact(text)
            assert _left(result.text, [key]) == [], text
            assert {f.kind for f in result.findings} == {"pem-private-key"}


def test_report_names_the_key(openssh_keys: list[str]) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "skillshelf.cli.main", "redact", "--report"],
        input=openssh_keys[0],
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=True,
    )
    assert "pem-private-key: 1" in proc.stderr
