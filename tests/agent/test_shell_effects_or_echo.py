"""A status echo after ``||`` (``make || echo $?``) and lines with here-documents or writes through
``/dev``, as the doom-loop and completion guards read them."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from skillshelf.agent.guards import CompletionGuard, DoomLoopGuard
from skillshelf.agent.shell_effects import check_run, reported_status
from skillshelf.agent.status_echo import StatusEcho, read_status, trailing_echo


@pytest.mark.parametrize(
    "line",
    [
        "(exit 3) || echo $?",
        "true || echo $?",
        '(exit 2) || echo "exit: $?"',
        "(exit 4) | (exit 5) || echo EXIT=$?",
        "true && (exit 6) || printf 'status %d\\n' $?",
        "(echo out; exit 7) || echo $?",
    ],
)
def test_an_echo_after_or_reports_the_status_bash_gives_the_line_without_it(line: str) -> None:
    before = line.rpartition(" || ")[0]
    echo = trailing_echo(line)
    assert echo is not None and echo.on_failure
    expected = subprocess.run(["bash", "-c", before], capture_output=True, check=False).returncode
    run = subprocess.run(["bash", "-c", line], capture_output=True, text=True, encoding="utf-8", check=True)
    assert read_status(echo, run.returncode, run.stdout) == (expected, None)


def test_an_echo_after_or_whose_line_failed_or_whose_output_is_missing_reads_no_status() -> None:
    echo = StatusEcho(before="", after="", on_failure=True)
    assert read_status(echo, 1, "x\n1")[0] is None
    assert read_status(echo, 0, None)[0] is None
    assert read_status(echo, 0, "x\n... [10 bytes of output cut] ...\n3")[0] is None


@pytest.mark.parametrize("output", ["exit code 0\n1 failed1", "exit code 0\nFAILED: 2 errors2"])
def test_an_or_echo_run_after_output_left_without_a_newline_is_unknown_not_a_pass(output: str) -> None:
    run = check_run("pytest || echo $?", exit_code=0, output=output)
    assert run.counts and reported_status(run, 0) is None and run.why is not None
    bash = subprocess.run(
        ["bash", "-c", "printf '1 failed'; (exit 1) || echo $?"],
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=True,
    )
    assert bash.stdout == "1 failed1\n"


def test_a_passing_command_whose_last_line_looks_like_the_echo_reads_as_a_failure() -> None:
    run = check_run("pytest || echo $?", exit_code=0, output="exit code 0\n7")
    assert run.counts and reported_status(run, 0) == 7  # the safe side: a failed check


@pytest.mark.parametrize(
    ("line", "output", "status"),
    [
        ("pytest || echo $?", "exit code 0\n1 failed\n1", 1),
        ("pytest || echo $?", "exit code 0\n3 passed", 0),
        ('cd x && pytest -q || echo "exit: $?"', "exit code 0\nexit: 2", 2),
        ("pytest && echo ok || echo $?", "exit code 0\n1 passed\nok", 0),
    ],
)
def test_a_check_followed_by_an_or_echo_counts_with_the_status_it_printed(
    line: str, output: str, status: int
) -> None:
    run = check_run(line, exit_code=0, output=output)
    assert run.counts and run.echo is not None and run.echo.on_failure
    assert reported_status(run, 0) == status


@pytest.mark.parametrize(
    "line",
    ["pytest || true", "false || pytest", "false || pytest || echo $?", "pytest || echo $?; echo done"],
)
def test_an_or_that_is_not_a_final_status_echo_still_stops_a_check_counting(line: str) -> None:
    run = check_run(line)
    assert not run.counts and run.mentions and run.why is not None and "`||`" in run.why


def test_a_build_failing_behind_an_or_echo_again_and_again_gets_a_note() -> None:
    guard = DoomLoopGuard(max_repeated_failures=2)
    failed = "exit code 0\nmake: *** [Makefile:3: build] Error 2\n2"
    assert guard.on_command("make build || echo $?", 0, output=failed) is None
    assert guard.on_command("make build || echo $?", 0, output=failed) is None
    note = guard.on_command("make build || echo $?", 0, output=failed)
    assert note is not None and "`make build || echo $?` has now failed 3 times" in note
    assert guard.on_command("make build || echo $?", 0, output="exit code 0\nbuilt") is None  # resets
    assert guard.on_command("make build || echo $?", 0, output=failed) is None


def test_the_completion_guard_judges_a_check_by_its_or_echo(tmp_path: Path) -> None:
    guard = CompletionGuard(tmp_path, check_command="python -m pytest")
    guard.on_edit()
    guard.on_command("pytest || echo $?", 0, output="exit code 0\n1 failed\n1")
    assert (guard.outcome().status, guard.outcome().exit_code) == ("failed", 1)
    guard.on_edit()
    guard.on_command("pytest || echo $?", 0, output="exit code 0\n3 passed")
    assert guard.outcome().status == "passed" and guard.review_final() is None


def test_a_file_written_by_a_here_document_before_the_check_is_an_edit_it_verifies(tmp_path: Path) -> None:
    guard = CompletionGuard(tmp_path, check_command="python3 test_calc.py")
    line = "cat > calc.py <<'EOF'\ndef add(a, b):\n    return a + b\nEOF\npython3 test_calc.py"
    guard.on_command(line, 0, changed=("calc.py",))
    assert guard.outcome().status == "passed" and guard.review_final() is None
    after = "python3 test_calc.py && cat > calc.py <<EOF\nx = 1\nEOF"
    guard.on_command(after, 0, changed=("calc.py",))
    assert guard.outcome().status == "not_run"


def test_a_here_document_body_that_names_the_checks_is_no_attempt_to_run_them() -> None:
    run = check_run("cat > NOTES.md <<'EOF'\nRun pytest before you commit.\nEOF", "python -m pytest")
    assert not run.counts and not run.mentions


@pytest.mark.parametrize("target", ["/dev/../{root}/calc.py", "/dev/shm/../../{root}/calc.py"])
def test_a_write_through_dev_after_the_check_is_an_edit_after_it(tmp_path: Path, target: str) -> None:
    guard = CompletionGuard(tmp_path, check_command="python3 test_calc.py")
    line = f"python3 test_calc.py && echo 'x = 1' > {target.format(root=tmp_path)}"
    guard.on_command(line, 0, changed=("calc.py",))
    outcome = guard.outcome()
    assert outcome.status == "not_run" and outcome.reason is not None and "changed calc.py" in outcome.reason


_COMMANDS = st.sampled_from(["pytest", "npm test 2>&1", "cd x", "echo ok", "make build", "tail -3", "true"])
_JOINS = st.sampled_from(["&&", ";", "\n", "|", "||", "&"])
_ECHOES = st.sampled_from(["echo $?", 'echo "exit: $?"', "printf '%d\\n' $?"])


@given(commands=st.lists(_COMMANDS, min_size=1, max_size=5), joins=st.lists(_JOINS, min_size=4), echo=_ECHOES)
def test_a_final_or_echo_counts_a_line_exactly_when_a_final_semicolon_echo_does(
    commands: list[str], joins: list[str], echo: str
) -> None:
    head = commands[0] + "".join(f" {op} {command}" for op, command in zip(joins, commands[1:], strict=False))
    for check in (None, "python -m pytest"):
        with_or, with_semicolon = check_run(f"{head} || {echo}", check), check_run(f"{head}; {echo}", check)
        assert with_or.counts == with_semicolon.counts, head
