"""`skillshelf redact` on input read piece by piece: the same output as whole where the pieces
meet, bounded memory, output before the input ends."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from click.testing import CliRunner
from redact_cases import CASES, left, openssh_keys, r, words

from skillshelf.cli.main import cli
from skillshelf.memory.redact import redact
from skillshelf.memory.redact.stream import pieces, redact_stream

PASSWORD = "Pw-" + r(14)


def _log(lines: int = 400) -> str:
    """A session log: prose lines with every kind of secret the cases know, one per line."""
    return "".join((words(6) if i % 3 else CASES[i % len(CASES)][1]) + "\n" for i in range(lines))


def _streamed(text: str, size: int) -> tuple[str, list[Any]]:
    parts = list(redact_stream(io.BytesIO(text.encode("utf-8", "surrogateescape")), size=size))
    return "".join(p.text for p in parts), [f for p in parts for f in p.findings]


def test_pieces_are_whole_lines_of_about_the_given_size() -> None:
    data = b"".join(f"line {i}\n".encode() for i in range(1000)) + b"no newline at the end"
    got = list(pieces(io.BytesIO(data), size=500))
    assert b"".join(got) == data and all(p.endswith(b"\n") for p in got[:-1])
    assert all(500 <= len(p) < 520 for p in got[:-2])
    assert list(pieces(io.BytesIO(b"x" * 100), size=10, max_line=30)) == [b"x" * 30] * 3 + [b"x" * 10]


def test_a_log_read_in_small_pieces_is_redacted_as_it_is_whole() -> None:
    text = _log()
    whole = redact(text)
    for size in (1, 97, 4096):
        streamed, findings = _streamed(text, size)
        assert streamed == whole.text
        assert [(f.kind, f.start, f.end) for f in findings] == [
            (f.kind, f.start, f.end) for f in whole.findings
        ]
    assert not left(whole.text, [s for _, _, secret in CASES for s in secret])


def test_a_private_key_cut_by_a_piece_boundary_goes_in_both_pieces(tmp_path: Path) -> None:
    key = openssh_keys(tmp_path / "keys", 1)[1]  # an RSA key: 27 lines
    text = f"{words(5)}\ncat ~/.ssh/id_rsa\n{key}{words(5)}\n"
    middle = text.index(key) + len(key) // 2
    cut = text.index("\n", middle) + 1
    streamed, _ = _streamed(text, size=cut)  # the first piece ends inside the key
    assert streamed.count("\n") == text.count("\n")
    assert not left(streamed, ["".join(key.strip().splitlines()[1:-1])])


def test_a_secret_revealed_in_one_piece_is_replaced_where_a_later_piece_repeats_it() -> None:
    text = f"mysql -u root -p{PASSWORD} shop\n" + words(40) + "\n" + f"then I typed {PASSWORD} again\n"
    streamed, findings = _streamed(text, size=20)
    assert PASSWORD not in streamed and [f.kind for f in findings][-1] == "repeated-secret"


def test_the_first_piece_is_redacted_before_the_rest_of_the_input_is_read() -> None:
    class EndlessInput(io.RawIOBase):
        def __init__(self) -> None:
            self.sent = 0

        def readable(self) -> bool:
            return True

        def readinto(self, buffer: Any) -> int:
            line = f"export GITHUB_TOKEN=ghp_{r(36)}\n".encode()
            buffer[: len(line)] = line
            self.sent += len(line)
            return len(line)

    source = EndlessInput()
    first = next(redact_stream(io.BufferedReader(source), size=10_000))
    assert "ghp_" not in first.text and first.text.count("[REDACTED_SECRET]") >= 150
    assert source.sent < 100_000


def test_the_command_streams_a_large_input_and_keeps_every_line() -> None:
    line = f"{words(8)}\n".encode()
    lines = 5 * 1024 * 1024 // len(line) + 1  # past 4 MB pieces whatever the words' lengths
    data = f"curl -u admin:{PASSWORD} https://ci.example/api\n".encode() + line * lines
    data += f"the admin password is still {PASSWORD}\n".encode() + b"\xff\xfe raw bytes\n"
    assert len(data) > 5 * 1024 * 1024
    result = CliRunner().invoke(cli, ["redact", "--report"], input=data, catch_exceptions=False)
    assert result.exit_code == 0
    out = result.stdout_bytes
    assert out.count(b"\n") == data.count(b"\n") and PASSWORD.encode() not in out
    assert out.endswith(b"\xff\xfe raw bytes\n") and "repeated-secret: 1" in result.stderr
