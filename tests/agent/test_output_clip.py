"""A long command output is redacted before it is cut, and cut between lines or words, never
inside a UTF-8 character: no part of a secret that straddles the cut reaches the model."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from skillshelf.agent.folder_tools import MAX_OUTPUT_CHARS, FolderTools
from skillshelf.agent.output_clip import clipped_text
from skillshelf.agent.shell_env import REDACTED, redacted_parts
from skillshelf.agent.stripped_values import StrippedValues

TOKEN = "ghp_Zq8Lk2Pd9aQxwJalrXUtnFEMIK7mB3vY6cR1"
HALF = MAX_OUTPUT_CHARS // 2


def _bash(root: Path, script: str, stripped: StrippedValues | None = None) -> str:
    (root / "gen.py").write_text(script, encoding="utf-8")
    tools = FolderTools(root, stripped=stripped or StrippedValues())
    return tools.execute("bash", {"command": "python3 gen.py"}).text


@pytest.mark.parametrize("offset", [-30, -20, -5, 0, 5, 20])
def test_a_token_straddling_the_tail_cut_leaves_no_part_of_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, offset: int
) -> None:
    monkeypatch.chdir(tmp_path)
    script = (
        "import sys\n"
        "sys.stdout.write('x' * 20000 + '\\n')\n"
        f"sys.stdout.write('token: {TOKEN}' + '\\n' + 'y' * ({HALF} + {offset}) + '\\n')\n"
    )
    text = _bash(tmp_path, script)
    assert "bytes of output cut" in text
    assert not re.search(r"[A-Za-z0-9]*mB3vY6cR1|Zq8Lk2", text)


def test_a_token_straddling_the_head_cut_leaves_no_part_of_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    script = f"import sys\nsys.stdout.write('a' * ({HALF} - 10) + ' {TOKEN} ' + 'b ' * 20000)\n"
    text = _bash(tmp_path, script)
    head = text.split("\n... [")[0]
    assert not any(TOKEN[i : i + 6] in head for i in range(len(TOKEN) - 5))


def test_a_left_out_value_straddling_the_cut_leaves_no_part_of_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    value = "my-internal-gateway-key-0001"
    script = f"import sys\nsys.stdout.write('x' * 40000 + '{value}' + 'z' * ({HALF} - 10))\n"
    text = _bash(tmp_path, script, StrippedValues.of([value]))
    assert "gateway" not in text and "0001" not in text


def test_the_cut_never_splits_a_multibyte_character(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    text = _bash(tmp_path, "import sys\nsys.stdout.write('x' + 'é' * 50000 + 'y')\n")
    assert "\ufffd" not in text and "bytes of output cut" in text


def test_the_cut_falls_between_lines_and_counts_the_bytes_left_out() -> None:
    data = b"".join(f"line {i:06d}\n".encode() for i in range(10_000))  # 12 bytes a line
    keep = 1000 // 2 + 4096
    text = clipped_text(data[:keep], data[-keep:], len(data), 1000)
    head, rest = text.split("\n... [", 1)
    count, tail = rest.split(" bytes of output cut] ...\n")
    assert head.endswith("\n") and tail.startswith("line ") and tail.endswith("\n")
    assert all(re.fullmatch(r"line \d{6}", line) for line in (head + tail).splitlines())
    assert int(count) == len(data) - len(head.encode()) - len(tail.encode())
    assert len(head) <= 500 and len(tail) <= 500


def test_a_short_output_is_cleaned_whole() -> None:
    data = f"password: hunter2hunter\n{TOKEN}\n".encode()
    text = clipped_text(data, b"", len(data), 1000, redacted_parts)
    assert text == f"password: {REDACTED}\n{REDACTED}\n"


def test_a_secret_whose_context_is_cut_away_is_scrubbed_where_it_stands_bare() -> None:
    secret = "Hx9-correct-horse-2024"  # no format of its own: found by its context only
    data = (
        "w " * 400 + f"mysql -u root -p{secret} app " + "w " * 3000 + f"tail-{secret} " + "v " * 200
    ).encode()
    keep = 1000 // 2 + 4096
    text = clipped_text(data[:keep], data[-keep:], len(data), 1000, redacted_parts)
    assert "mysql" not in text and "tail-" in text and secret not in text
