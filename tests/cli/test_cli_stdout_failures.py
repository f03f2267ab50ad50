"""Where stdout goes wrong: a reader that leaves (exit 0), a full disk or a closed stdout (a coded
I/O error, never an internal one), NO_COLOR on a terminal; real processes, real pipes."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from pathlib import Path

import pytest

from testkit import IsolatedHome, missing

SCRIPT = "import sys; from skillshelf.cli.entry import main; sys.exit(main())"  # the console script
CLICK = "import sys; from skillshelf.cli.main import main; sys.exit(main())"  # every command via click


@pytest.fixture(autouse=True)
def _work(tmp_path: Path, isolated_home: IsolatedHome, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each command runs in a folder of its own, the home isolated."""
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)


def command(args: list[str], *, via: str = SCRIPT) -> list[str]:
    return [sys.executable, "-c", via, *args]


def closed_stdout(args: list[str], *, via: str = SCRIPT, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """The command run with its stdout closed (``>&-``)."""
    return subprocess.run(
        ["bash", "-c", '"$@" >&-', "bash", *command(args, via=via)],
        input=stdin,
        capture_output=True,
        encoding="utf-8",
        timeout=120,
        check=False,
    )


def to_full_disk(args: list[str], *, via: str = SCRIPT, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """The command run with its stdout on a disk with no space left (``/dev/full``)."""
    if not Path("/dev/full").exists():
        missing("/dev/full (a device whose writes fail with ENOSPC)")
    with open("/dev/full", "w", encoding="utf-8") as full:
        return subprocess.run(
            command(args, via=via),
            input=stdin,
            stdout=full,
            stderr=subprocess.PIPE,
            encoding="utf-8",
            timeout=120,
            check=False,
        )


WRITERS = [
    ["list", "--json"],
    ["list"],
    ["catalog"],
    ["config", "show", "--json"],
    ["config", "show"],
    ["search", "pdf"],
    ["context", "fill a pdf form"],
    ["memory", "status"],
    ["redact"],
]


@pytest.mark.parametrize("args", WRITERS, ids=" ".join)
def test_output_to_a_full_disk_is_a_coded_io_error(args: list[str]) -> None:
    done = to_full_disk(args, stdin="token=abc\n")
    assert done.returncode == 1, done.stderr
    assert "skillshelf: error SS007: cannot write the output: No space left on device" in done.stderr
    assert "internal error" not in done.stderr and "Exception ignored" not in done.stderr


@pytest.mark.parametrize("args", WRITERS, ids=" ".join)
def test_a_closed_stdout_is_a_coded_io_error(args: list[str]) -> None:
    done = closed_stdout(args, stdin="token=abc\n")
    assert done.returncode == 1, done.stderr
    assert "skillshelf: error SS007: cannot write the output: stdout is closed" in done.stderr
    assert "internal error" not in done.stderr and "Exception ignored" not in done.stderr


@pytest.mark.parametrize("via", [SCRIPT, CLICK], ids=["lean", "click"])
def test_the_hook_exits_0_with_its_stdout_closed(via: str) -> None:
    done = closed_stdout(["hook", "UserPromptSubmit"], via=via, stdin="{}")
    assert done.returncode == 0, done.stderr
    assert "error" not in done.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["context", "fill a pdf form"],
        ["config", "show"],
        ["list"],
        ["list", "--json"],
        ["redact"],
        ["--help"],
    ],
    ids=" ".join,
)
def test_a_reader_that_left_the_pipe_ends_the_command_with_exit_0(args: list[str]) -> None:
    proc = subprocess.Popen(
        command(args),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        encoding="utf-8",
    )
    assert proc.stdout is not None
    proc.stdout.close()  # the only reader leaves before a byte is written: every write is EPIPE
    _, err = proc.communicate("token=abc\n" * 1000, timeout=120)
    assert proc.returncode == 0, err
    assert "error" not in err and "Exception ignored" not in err


def _terminal_output(args: list[str], environ: dict[str, str]) -> str:
    """What the command writes on a terminal (stdout and stderr on one pseudo-terminal)."""
    import pty

    primary, secondary = pty.openpty()
    with os.fdopen(primary, "rb") as reader:
        proc = subprocess.Popen(command(args), stdout=secondary, stderr=secondary, env=environ)
        os.close(secondary)
        chunks = []
        while True:
            try:
                chunk = os.read(reader.fileno(), 65536)
            except OSError as exc:  # EIO: the terminal's other side is closed
                assert exc.errno == errno.EIO
                break
            if not chunk:
                break
            chunks.append(chunk)
        proc.wait(timeout=120)
    return b"".join(chunks).decode("utf-8", "replace")


@pytest.mark.parametrize(
    "args",
    [["validate", "{root}"], ["list", "--root", "{root}"], ["config", "show", "-c", "x=1"]],
    ids=" ".join,
)
def test_no_color_leaves_the_colours_out_of_every_line_on_a_terminal(tmp_path: Path, args: list[str]) -> None:
    skill = tmp_path / "skills" / "bad"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: Not A Name\n---\n", encoding="utf-8")
    args = [arg.format(root=skill.parent) for arg in args]
    environ = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    coloured = _terminal_output(args, environ)
    plain = _terminal_output(args, {**environ, "NO_COLOR": "1"})
    assert "\x1b[33m" in coloured or "\x1b[31m" in coloured  # the check itself sees colours
    assert not any(f"\x1b[{n}m" in plain for n in range(30, 38)), plain
    assert ("warning" in plain or "error" in plain) and "Traceback" not in plain


def test_chat_whose_prompt_cannot_be_written_says_so_instead_of_exiting_0() -> None:
    """``input()`` flushes its prompt and drops the error; the failure is still said at the end."""
    args = ["chat", "--model", "openai:x", "--base-url", "http://127.0.0.1:9/v1", "--no-transcript"]
    environ = {**os.environ, "OPENAI_API_KEY": "x"}
    if not Path("/dev/full").exists():
        missing("/dev/full (a device whose writes fail with ENOSPC)")
    with open("/dev/full", "w", encoding="utf-8") as full:
        done = subprocess.run(
            command(args, via=CLICK),
            input="exit\n",
            stdout=full,
            stderr=subprocess.PIPE,
            encoding="utf-8",
            timeout=120,
            check=False,
            env=environ,
        )
    assert done.returncode == 1, done.stderr
    assert "error SS007: cannot write the output: No space left on device" in done.stderr


MCP_LINES = (
    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",'
    '"capabilities":{},"clientInfo":{"name":"t","version":"1"}}}\n'
)


def test_the_mcp_server_on_a_full_disk_is_a_coded_io_error_and_exits_0_when_the_client_left() -> None:
    done = to_full_disk(["serve", "--no-watch"], via=CLICK, stdin=MCP_LINES)
    assert done.returncode == 1, done.stderr
    assert "error SS007: cannot write the output: No space left on device" in done.stderr
    assert "internal error" not in done.stderr
    proc = subprocess.Popen(
        command(["serve", "--no-watch"], via=CLICK),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        encoding="utf-8",
    )
    assert proc.stdout is not None
    proc.stdout.close()  # the client stops reading: the answer's write is EPIPE
    _, err = proc.communicate(MCP_LINES, timeout=120)
    assert proc.returncode == 0, err
    assert "internal error" not in err
