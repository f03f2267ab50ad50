"""What a bash call did: whether its line is a run of the check whose exit status stands for the
check's, and which project files it changed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from skillshelf.agent.shell_effects import TreeWatch, changed_paths, check_run, reported_status


@pytest.mark.parametrize(
    ("line", "check"),
    [
        ("python3 test_calc.py", None),
        ("python3 test_calc.py 2>&1", None),
        ("python3 test_calc.py > run.log 2>&1", None),
        ("pytest -q < /dev/null", None),
        ("cd src && tox -e lint", "tox -e lint"),
        ("cd src && CI=1 timeout 60 tox -e lint -- -x", "tox -e lint"),
        ("source .venv/bin/activate && env PYTHONHASHSEED=0 python -m pytest -q", None),
        ("time -p uv run python -m pytest tests/test_x.py", None),
        ("python3 -c 'import a'", "python3 -c 'import a'"),
        ("make check  # all of it", "make check"),
        ("npx jest", None),
        ("bash .ci/run", None),
        ("python3 test_calc.py | cat", "python3 test_calc.py | cat"),  # the configured line as given
        ("python3 test_calc.py && echo ok", None),
        ("pytest && echo ok", "python -m pytest"),
        ("cd x && pytest", "python -m pytest"),
        ("cd x; pytest", "python -m pytest"),
        ("pip install -e . && python -m pytest -q && echo ok", "python -m pytest"),
        ("sed -i s/-/+/ calc.py && python3 test_calc.py", None),
        ("pytest tests/a; pytest tests/b", None),
        ("make check;", "make check"),
        ("cd src &&\n  tox -e lint", "tox -e lint"),
    ],
)
def test_a_line_whose_exit_status_stands_for_the_checks_counts(line: str, check: str | None) -> None:
    assert check_run(line, check).counts


@pytest.mark.parametrize(
    ("line", "why"),
    [
        ("python3 test_calc.py 2>&1 | tail -3", "a pipeline (`|`)"),
        ("python3 test_calc.py |& tee log", "a pipeline (`|&`)"),
        ("python3 test_calc.py || true", "an `||` list"),
        ("python3 test_calc.py||true", "an `||` list"),
        ("python3 test_calc.py; echo done", "a `;` list"),
        ("python3 test_calc.py; echo $?; echo done", "a `;` list"),
        ("cd x && python3 test_calc.py; ls; echo $?", "a `;` list"),
        ("python3 test_calc.py\necho done", "several lines"),
        ("python3 test_calc.py &", "a background job"),
        ("(python3 test_calc.py)", "a subshell"),
        ("! python3 test_calc.py", "a negation"),
        ("echo $(python3 test_calc.py)", "a command substitution"),
        ('echo "`python3 test_calc.py`"', "a command substitution"),
        ("python3 test_calc.py &&", "no command after `&&`"),
        ("&& python3 test_calc.py", "no command before `&&`"),
        ("! python3 test_calc.py && echo ok", "a negation"),
        ("python3 test_calc.py <<EOF\nx", "a here-document whose delimiter line never comes"),
        ("python3 test_calc.py <<EOF\n$(make)\nEOF", "a command substitution"),
        ("python3 test_calc.py " + "-q " * 4000, "more than 10000 characters"),
    ],
)
def test_a_line_that_runs_the_check_inside_something_else_does_not_count_and_says_why(
    line: str, why: str
) -> None:
    run = check_run(line, "python3 test_calc.py")
    assert not run.counts and run.mentions
    assert run.why is not None and why in run.why


@pytest.mark.parametrize(
    "line",
    [
        "cat test_calc.py",
        "echo pytest",
        "bash -c 'pytest || true'",
        "python3 calc.py",
        "grep -r pytest .",
        "echo pytest && ls",
        "cd tests && grep -n pytest conftest.py; echo done",
        "echo 'pytest && echo ok' > notes.txt && cat notes.txt",
    ],
)
def test_commands_that_only_name_a_test_are_not_runs_of_it(line: str) -> None:
    run = check_run(line, "python -m pytest")
    assert not run.counts and not check_run(line, None).counts


@pytest.mark.parametrize(
    ("line", "before", "after"),
    [
        ("cd x && CI=1 pytest 2>&1 > run.log && echo ok", False, False),
        ("source .venv/bin/activate && pytest; pytest -x && cat run.log", False, False),
        ("sed -i s/-/+/ calc.py && pytest", True, False),
        ("pytest && git apply fix.patch", False, True),
        ("pytest && echo ok > notes.txt", False, True),
        ("pytest && echo ok > /dev/null", False, False),
    ],
)
def test_a_counted_line_says_whether_its_other_commands_may_have_changed_files(
    line: str, before: bool, after: bool
) -> None:
    run = check_run(line, None)
    assert run.counts and (run.edits_before, run.edits_after) == (before, after)


@pytest.mark.parametrize(
    ("line", "output", "exit_code"),
    [
        ("pytest; echo $?", "exit code 0\n===== 3 passed =====\n0", 0),
        ("pytest; echo $?", "exit code 0\n===== 1 failed =====\n1", 1),
        ('pytest -q; echo "exit: $?"', "exit code 0\n1 failed\nexit: 1", 1),
        ("npm test; echo EXIT=$?", "exit code 0\n> vitest\nEXIT=0", 0),
        ("python -m pytest 2>&1; echo $?", "exit code 0\n5", 5),
        ("cd x && pytest; echo $?", "exit code 0\n0", 0),
        ("cd x && pytest && echo ok; echo $?", "exit code 0\nok\n0", 0),
        ("pytest\necho $?\n", "exit code 0\n2", 2),
        ("pytest; printf 'exit=%d\\n' \"$?\"", "exit code 0\nexit=0", 0),
        ("python3 test_calc.py > run.log 2>&1; echo 'status:' $?;", "exit code 0\nstatus: 1", 1),
    ],
)
def test_a_check_followed_by_an_echo_of_its_status_counts_with_the_status_it_printed(
    line: str, output: str, exit_code: int
) -> None:
    assert check_run(line, "python3 test_calc.py").counts
    run = check_run(line, "python3 test_calc.py", exit_code=0, output=output)
    assert run.counts and (run.exit_code, run.why) == (exit_code, None)


def test_a_plain_check_line_takes_the_line_status_as_the_checks() -> None:
    run = check_run("pytest -x", None, exit_code=3, output="exit code 3\n0")
    assert run.counts and (run.exit_code, run.why) == (3, None)


@pytest.mark.parametrize(
    ("exit_code", "output", "why"),
    [
        (0, "exit code 0\n1 passed exit: 0", "not its echo's `exit: <status>`"),
        (0, "exit code 0\nexit: 0x", "not its echo's"),
        (0, None, "no output was handed over"),
        (124, "error: timed out after 120 s\nexit: 0", "the line exited 124"),
        (0, "exit code 0\nexit: 0\n... [900 bytes of output cut] ...\nexit: 0", "the output was cut"),
    ],
)
def test_an_echoed_status_that_cannot_be_read_is_a_failed_check_that_says_why(
    exit_code: int, output: str | None, why: str
) -> None:
    run = check_run('pytest; echo "exit: $?"', None, exit_code=exit_code, output=output)
    assert run.counts and run.exit_code is None
    assert run.why is not None and why in run.why


@pytest.mark.parametrize(
    ("line", "why", "reported"),
    [
        ("pytest | tail -3; echo $?", "a pipeline (`|`)", 3),  # the line's status, not the check's
        ("pytest || true; echo $?", "an `||` list", 3),
        ("pytest &\necho $?", "a background job", None),
        ("(pytest); echo $?", "a subshell", 3),
        ("! pytest; echo $?", "a negation", 3),
        ("pytest; echo $?; echo done", "a `;` list", 0),
        ("pytest; echo $? > status.txt", "a `;` list", 0),
        ("pytest; echo $? $?", "a `;` list", 0),
        ('pytest; echo "$HOME $?"', "a `;` list", 0),
        ("pytest; echo '$?'", "a `;` list", 0),
        ("pytest; echo done", "a `;` list", 0),
        ("pytest && echo $? || true", "an `||` list", 0),
    ],
)
def test_a_status_echo_does_not_make_other_lines_count(line: str, why: str, reported: int | None) -> None:
    run = check_run(line, None, exit_code=0, output="exit code 0\n3")
    assert not run.counts and run.mentions and run.exit_code == reported
    assert run.why is not None and why in run.why


@pytest.mark.parametrize(
    ("line", "line_status", "output", "reported"),
    [
        ('pytest; echo "exit: $?"', 0, "exit code 0\n1 failed\nexit: 1", 1),
        ('pytest; echo "exit: $?"', 0, "exit code 0\n3 passed\nexit: 0", 0),
        ('pytest; echo "exit: $?"', 0, "exit code 0\n1 passed", None),  # unreadable: a failed check
        ("pytest -x", 2, "exit code 2\n0", 2),
        ("pytest; echo done", 0, "exit code 0\n1 failed\ndone", 0),  # not counted: the line's own
        ("ls missing; echo $?", 0, "exit code 0\n2", 2),  # no check on the line: what it printed
        ("make build; echo $?", 0, "exit code 0\nmake: *** [build] Error 2\n2", 2),
        ("make build; echo $?", 0, "exit code 0\nok\n0", 0),
        ('cargo build 2>&1 | tail -5; echo "exit: $?"', 0, "exit code 0\nerror[E0308]\nexit: 101", 101),
        ("make build\necho $?\n", 0, "exit code 0\n2", 2),
        ("make build; echo $?", 0, "exit code 0\nmake: *** [build] Error 2", None),  # unreadable
        ("make build; echo $?", 124, "error: timed out after 120 s", None),
        ("make build && echo $?", 2, "exit code 2\nmake: *** [build] Error 2", 2),  # the line's own
        ("make build & echo $?", 0, "exit code 0\n0", None),  # `$?` of a background job says nothing
        ("make build &\necho $?", 0, "exit code 0\n0", None),
        ("pytest &\necho $?", 0, "exit code 0\n0", None),
        ("sleep 1 & ; echo $?", 2, "exit code 2\nbash: syntax error near unexpected token `;'", None),
        ("make & wait $!; echo $?", 0, "exit code 0\n2", 2),  # `wait` hands the job's status over
    ],
)
def test_the_reported_status_is_the_echoed_one_on_a_line_that_prints_it_else_the_lines(
    line: str, line_status: int, output: str, reported: int | None
) -> None:
    run = check_run(line, "python -m pytest", exit_code=line_status, output=output)
    assert reported_status(run, line_status) == reported


_COMMANDS = st.sampled_from(
    [
        "pytest",
        "python -m pytest -q 2>&1",
        "npm test",
        "python3 test_calc.py > log",
        "echo $?",
        'echo "exit: $?"',
        "printf '%d\\n' $?",
        "cd x",
        "echo ok",
        "tail -3",
    ]
)
_JOINS = st.sampled_from(["&&", ";", "\n", "|", "||", "|&"])


@given(
    commands=st.lists(_COMMANDS, min_size=2, max_size=6),
    joins=st.lists(_JOINS, min_size=5, max_size=5),
    bad=st.sampled_from(["|", "||", "|&"]),
    at=st.integers(min_value=0, max_value=4),
)
def test_no_line_with_a_pipeline_or_an_or_list_counts(
    commands: list[str], joins: list[str], bad: str, at: int
) -> None:
    joins = joins[: len(commands) - 1]
    joins[at % len(joins)] = bad
    assume(not (joins[-1] == "||" and "$?" in commands[-1]))  # a final `|| echo $?` is a status echo
    line = commands[0] + "".join(f" {op} {command}" for op, command in zip(joins, commands[1:], strict=True))
    for check in (None, "python -m pytest"):
        assert not check_run(line, check, exit_code=0, output="exit code 0\nexit: 0\n0").counts, line


def test_a_configured_check_counts_with_more_arguments_but_not_as_another_word() -> None:
    assert check_run("make check V=1", "make check").counts
    assert not check_run("make check-nothing", "make check").counts
    assert not check_run("make", "make check").counts


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_the_watch_sees_files_changed_added_and_removed(tmp_path: Path) -> None:
    _write(tmp_path / "calc.py", "a - b\n")
    _write(tmp_path / "pkg" / "old.py", "x\n")
    watch = TreeWatch(tmp_path)
    before = watch.snapshot()
    _write(tmp_path / "calc.py", "a + b\n")  # the same size: the time stamp tells
    stamp = os.stat(tmp_path / "calc.py").st_mtime_ns
    os.utime(tmp_path / "calc.py", ns=(stamp + 10**9, stamp + 10**9))
    (tmp_path / "pkg" / "old.py").unlink()
    _write(tmp_path / "pkg" / "new.py", "y\n")
    assert watch.changed_since(before) == ("calc.py", "pkg/new.py", "pkg/old.py")
    assert watch.changed_since(watch.snapshot()) == ()


def test_caches_and_tool_state_a_run_writes_are_not_watched(tmp_path: Path) -> None:
    _write(tmp_path / "calc.py", "a\n")
    _write(tmp_path / "venv" / "pyvenv.cfg", "home = /usr/bin\n")  # a virtual environment by its marker
    watch = TreeWatch(tmp_path)
    before = watch.snapshot()
    for name in (
        *(".pytest_cache/v/x", "__pycache__/calc.pyc", "node_modules/m/i.js", ".git/index", "c.pyc"),
        *(".mypy_cache/3.12/calc.json", ".ruff_cache/0.6/x", ".hypothesis/examples/x", ".tox/py/log"),
        *(".coverage", ".coverage.host.12.34", ".eslintcache", ".venv/lib/site.py", ".idea/workspace.xml"),
        *("src/.pytest_cache/v/x", "venv/lib/python3.12/site-packages/m.py", "env/.cache/x"),
    ):
        _write(tmp_path / name, "generated\n")
    assert watch.changed_since(before) == ()


def test_hidden_project_files_are_watched_but_not_what_a_test_run_writes(tmp_path: Path) -> None:
    _write(tmp_path / "calc.py", "def add(a, b):\n    return a + b\n")
    _write(tmp_path / "test_calc.py", "from calc import add\n\ndef test_add():\n    assert add(2, 2) == 4\n")
    watch = TreeWatch(tmp_path)
    before = watch.snapshot()
    run = [sys.executable, "-m", "pytest", "-q", "-p", "cacheprovider", "test_calc.py"]
    subprocess.run(
        run, cwd=tmp_path, capture_output=True, check=True, env={**os.environ, "PYTHONDONTWRITEBYTECODE": ""}
    )
    assert (tmp_path / ".pytest_cache").is_dir()
    assert watch.changed_since(before) == ()
    hidden = (".github/workflows/ci.yml", ".eslintrc.json", ".env.example", "src/.config.py", ".coveragerc")
    for name in (*hidden, ".vscode/settings.json"):
        _write(tmp_path / name, "edited\n")
    assert watch.changed_since(before) == tuple(sorted((*hidden, ".vscode/settings.json")))


def test_a_tree_past_the_cap_turns_the_watch_off_instead_of_guessing(tmp_path: Path) -> None:
    for i in range(5):
        _write(tmp_path / f"f{i}.py", "x\n")
    watch = TreeWatch(tmp_path, max_entries=3)
    assert watch.snapshot() is None and watch.off
    assert watch.changed_since(None) == ()
    assert TreeWatch(tmp_path, max_entries=5).snapshot() is not None


def test_a_walk_out_of_time_turns_the_watch_off(tmp_path: Path) -> None:
    for i in range(300):
        _write(tmp_path / f"f{i}.py", "x\n")
    ticks = iter(range(1_000_000))
    watch = TreeWatch(tmp_path, max_seconds=0.5, clock=lambda: float(next(ticks)))
    assert watch.snapshot() is None and watch.off


def test_changed_paths_compares_two_snapshots() -> None:
    before = {"a": (1, 1, 1), "b": (1, 1, 1)}
    after = {"a": (1, 2, 1), "c": (1, 1, 1)}
    assert changed_paths(before, after) == ("a", "b", "c")
    assert changed_paths(before, dict(before)) == ()
