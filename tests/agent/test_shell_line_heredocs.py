"""Here-documents and redirection targets in a bash line read without running it: the body is data,
skipped as bash skips it; what bash would expand or cannot end leaves the line unread."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from skillshelf.agent.shell_line import last_command, simple_commands


def commands_of(line: str) -> list[tuple[str, ...]]:
    found = simple_commands(line)
    assert isinstance(found, list), found
    return [command.words for command in found]


@pytest.mark.parametrize(
    "line",
    [
        "cat > notes.txt <<EOF\nrm -rf src\n> other.txt\nEOF\ntouch ran",
        "cat > notes.txt <<'EOF'\n$(rm -rf src) `ls`\nEOF\ntouch ran",
        'cat > notes.txt <<"EOF"\n$(rm -rf src)\nEOF\ntouch ran',
        "cat > notes.txt <<\\EOF\n`rm -rf src`\nEOF\ntouch ran",
        "cat > notes.txt <<-EOF\n\trm -rf src\n\tEOF\ntouch ran",
        "cat <<A > one.txt; cat <<B > two.txt\nrm -rf src\nA\nrm -rf src\nB\ntouch ran",
        "cat <<EOF > notes.txt # a comment\nrm x\nEOF\ntouch ran",
        "cat > notes.txt <<EOF\nx\nE\\\nOF\ntouch ran\nEOF\ntouch ran2",
        "cat > notes.txt <<-EOF\n\tx\n\tE\\\n\tOF\ntouch no\nEOF\ntouch ran",
        "cat > notes.txt <<'EOF'\nE\\\nOF\ntouch no\nEOF\ntouch ran",
        "cat > notes.txt <<EOF\n  EOF\nEOF \nEOF\ntouch ran",
    ],
)
def test_the_commands_read_after_a_here_document_are_those_bash_runs(line: str, tmp_path: Path) -> None:
    subprocess.run(["bash", "-c", line], cwd=tmp_path, capture_output=True, check=False)
    ran = sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("ran") or p.name == "no")
    read = sorted(words[1] for words in commands_of(line) if words[0] == "touch")
    assert read == ran and ran
    assert (tmp_path / "src").exists() is False and not (tmp_path / "other.txt").exists()


def test_a_here_document_into_a_file_is_a_write_and_its_delimiter_no_word() -> None:
    found = simple_commands("pytest && cat > /etc/x <<EOF\necho $HOME > y\nEOF")
    assert isinstance(found, list) and [c.words for c in found] == [("pytest",), ("cat",)]
    assert found[1].writes and found[1].redirected


def test_a_here_document_read_on_stdin_writes_nothing() -> None:
    found = simple_commands("python3 - <<'EOF'\nopen('x', 'w')\nEOF")
    assert isinstance(found, list) and len(found) == 1
    assert found[0].redirected and not found[0].writes and found[0].words == ("python3", "-")


@pytest.mark.parametrize(
    ("line", "why"),
    [
        ("cat > x <<EOF\n$(rm -rf src)\nEOF", "a command substitution"),
        ("cat > x <<EOF\n`rm -rf src`\nEOF", "a command substitution"),
        ("cat > x <<-EOF\n\t$(rm -rf src)\n\tEOF\npytest", "a command substitution"),
        ("cat > x <<EOF\nno end", "a here-document whose delimiter line never comes"),
        ("cat > x <<EOF", "a here-document whose delimiter line never comes"),
        ("cat > x <<EOF\nEOF \n", "a here-document whose delimiter line never comes"),
        ("cat > x <<", "a here-document without a delimiter"),
        ("cat > x <<$(rm y)\nx\n", "a command substitution"),
    ],
)
def test_a_here_document_bash_would_expand_a_substitution_in_or_not_end_is_not_read(
    line: str, why: str
) -> None:
    found = simple_commands(line)
    assert isinstance(found, str) and why in found
    assert last_command(line) is None


def test_the_command_after_a_here_document_ends_the_line() -> None:
    found = last_command("make <<EOF\nx; echo $?\nEOF\necho $?")
    assert found is not None and found[0] == ("\n",) and found[1].words == ("echo", "$?")


def test_a_here_string_is_an_input_redirection() -> None:
    found = simple_commands('grep x <<< "$text" && pytest')
    assert isinstance(found, list) and [c.words for c in found] == [("grep", "x"), ("pytest",)]
    assert found[0].redirected and not found[0].writes


@pytest.mark.parametrize(
    "target", ["/dev/../work/p/calc.py", "/dev/shm/x", "/dev//../etc/x", "/dev/sda", "/dev/fd/../x"]
)
def test_a_redirection_to_a_file_through_dev_is_a_write(target: str) -> None:
    found = simple_commands(f"echo hi > {target}")
    assert isinstance(found, list) and found[0].writes


@pytest.mark.parametrize("target", ["/dev/null", "/dev/stderr", "/dev/fd/2", "/dev/tty"])
def test_a_redirection_to_a_device_is_no_write(target: str) -> None:
    found = simple_commands(f"echo hi > {target}")
    assert isinstance(found, list) and found[0].redirected and not found[0].writes
