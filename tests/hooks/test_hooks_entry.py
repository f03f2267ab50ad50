"""The console script answers `skillshelf hook EVENT` without click, exactly as click would."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hooks_helpers import context_text, hook_input, make_project, run_python

from skillshelf.cli.blas import THREAD_VARIABLES
from skillshelf.cli.entry import lean_hook_args
from skillshelf.hooks.runner import log_path
from testkit import missing

ENTRY = "import sys\nfrom skillshelf.cli.entry import main\nsys.exit(main())"
CLICK_SEEN = (
    "import sys\nfrom skillshelf.cli.entry import main\nmain()\n"
    "sys.stderr.write('click loaded' if 'click' in sys.modules else 'no click')"
)


def _run(
    code: list[str], args: list[str], cwd: Path, stdin: bytes = b"", **env: str
) -> tuple[int, bytes, bytes]:
    done = run_python([*code, *args], cwd, stdin, **env)
    return done.returncode, done.stdout, done.stderr


def _entry(args: list[str], cwd: Path, stdin: bytes = b"", **env: str) -> tuple[int, bytes, bytes]:
    return _run(["-c", ENTRY], args, cwd, stdin, **env)


def _click(args: list[str], cwd: Path, stdin: bytes = b"", **env: str) -> tuple[int, bytes, bytes]:
    return _run(["-m", "skillshelf.cli.main"], args, cwd, stdin, **env)


def test_a_plain_hook_call_is_answered_without_loading_click(isolated_home: Any) -> None:
    env = make_project(isolated_home)
    stdin = hook_input("UserPromptSubmit", env, prompt="write the release notes")
    code, out, err = _run(
        ["-c", CLICK_SEEN], ["hook", "UserPromptSubmit", "--agent", "codex"], env.cwd, stdin
    )
    assert (code, err) == (0, b"no click")
    assert "- release-notes: " in context_text(out)


def test_the_lean_answer_is_the_click_commands_answer(isolated_home: Any) -> None:
    env = make_project(isolated_home)
    prompt = "plan a database schema migration"
    args = ["hook", "UserPromptSubmit", "--agent=codex", "--deadline", "0"]
    lean = _entry(args, env.cwd, hook_input("UserPromptSubmit", env, prompt=prompt))
    assert lean == _click(args, env.cwd, hook_input("UserPromptSubmit", env, prompt=prompt))
    assert lean[0] == 0 and "- db-migrations: " in context_text(lean[1])


@pytest.mark.parametrize(
    ("args", "environ"),
    [
        (["hook", "--help"], {}),
        (["hook", "-h"], {}),
        (["hook"], {}),
        (["hook", "UserPromptSubmit", "--agent", "bogus"], {}),
        (["hook", "UserPromptSubmit", "--deadline", "-1"], {}),
        (["hook", "UserPromptSubmit", "--deadline"], {}),
        (["hook", "UserPromptSubmit", "Stop"], {}),
        (["hook", "UserPromptSubmit", "--nope"], {}),
        (["hook", "UserPromptSubmit"], {"SKILLSHELF_HOOK_DEADLINE": "soon"}),
        (["--help"], {}),
        (["hok", "UserPromptSubmit"], {}),
    ],
)
def test_help_and_usage_errors_are_clicks_own(
    isolated_home: Any, args: list[str], environ: dict[str, str]
) -> None:
    cwd = isolated_home.home
    lean = _entry(args, cwd, **environ)
    assert lean == _click(args, cwd, **environ)
    assert lean[1] or lean[2]  # help on stdout or an error on stderr, never silence


@pytest.mark.parametrize(
    "args",
    [
        ["hook", "UserPromptSubmit", "--nope"],
        ["hook", "UserPromptSubmit", "--agent", "bogus"],
        ["hook", "UserPromptSubmit", "Stop"],
        ["hook"],
    ],
)
def test_a_hook_command_line_that_cannot_be_read_still_exits_0(isolated_home: Any, args: list[str]) -> None:
    # Claude Code reads exit 2 from UserPromptSubmit as "block this prompt"
    code, out, err = _entry(args, isolated_home.home, b"{}")
    assert code == 0 and not out and b"error SS002" in err


@pytest.mark.parametrize("deadline", ["nan", "inf", "-1", "soon", "1e999"])
def test_a_deadline_that_is_no_number_of_seconds_still_answers(isolated_home: Any, deadline: str) -> None:
    env = make_project(isolated_home)
    stdin = hook_input("UserPromptSubmit", env, prompt="write the release notes")
    args = ["hook", "UserPromptSubmit", "--agent", "codex"]
    code, out, err = _entry(args, env.cwd, stdin, SKILLSHELF_HOOK_DEADLINE=deadline)
    assert code == 0 and "- release-notes: " in context_text(out)
    assert b"warning SS002: the hook deadline" in err


@pytest.mark.parametrize(
    ("args", "environ", "expected"),
    [
        (["UserPromptSubmit"], {}, ("UserPromptSubmit", "claude", None)),
        (["Stop", "--agent", "codex"], {}, ("Stop", "codex", None)),
        (["--agent=claude", "SessionEnd", "--deadline=1.5"], {}, ("SessionEnd", "claude", 1.5)),
        (["warm", "--deadline", "0"], {"SKILLSHELF_HOOK_DEADLINE": "3"}, ("warm", "claude", 0.0)),
        (["UserPromptSubmit"], {"SKILLSHELF_HOOK_DEADLINE": "3"}, ("UserPromptSubmit", "claude", 3.0)),
        (["UserPromptSubmit"], {"SKILLSHELF_HOOK_DEADLINE": ""}, ("UserPromptSubmit", "claude", None)),
    ],
)
def test_plain_hook_arguments_are_read_as_click_reads_them(
    args: list[str], environ: dict[str, str], expected: tuple[str, str, float | None]
) -> None:
    assert lean_hook_args(args, environ) == expected


@pytest.mark.parametrize(
    ("args", "environ"),
    [
        ([], {}),
        (["--help"], {}),
        (["UserPromptSubmit", "-h"], {}),
        (["UserPromptSubmit", "--agent", "codex", "--agent", "claude"], {}),
        (["UserPromptSubmit", "--agent"], {}),
        (["UserPromptSubmit", "--agent", "gemini"], {}),
        (["UserPromptSubmit", "--deadline", "1e3"], {}),
        (["UserPromptSubmit", "--deadline=-2"], {}),
        (["UserPromptSubmit"], {"SKILLSHELF_HOOK_DEADLINE": "nan"}),
        (["UserPromptSubmit", "--", "Stop"], {}),
        (["UserPromptSubmit", "Stop"], {}),
    ],
)
def test_anything_else_is_left_to_click(args: list[str], environ: dict[str, str]) -> None:
    assert lean_hook_args(args, environ) is None


def test_the_console_script_is_the_lean_entry_point() -> None:
    import tomllib

    from testkit import REPO

    scripts = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]
    assert scripts["skillshelf"] == "skillshelf.cli.entry:main"


BLAS_SEEN = (
    "import os, sys\nfrom skillshelf.cli.entry import main\nmain()\n"
    "from threadpoolctl import threadpool_info\n"
    "threads = sorted({p['num_threads'] for p in threadpool_info() if p['user_api'] == 'blas'})\n"
    "sys.stderr.write(f\"{threads} {os.environ.get('OPENBLAS_NUM_THREADS', '-')}\")"
)


def test_the_lean_hook_loads_blas_on_one_thread_and_leaves_the_environment_as_it_was(
    isolated_home: Any,
) -> None:
    try:
        import threadpoolctl  # noqa: F401
    except ImportError:
        missing("threadpoolctl (in the semantic extra) is not installed")
    env = make_project(isolated_home)
    stdin = hook_input("UserPromptSubmit", env, prompt="write the release notes")
    args = ["hook", "UserPromptSubmit", "--agent", "codex"]
    environ = {k: v for k, v in os.environ.items() if k not in THREAD_VARIABLES}
    done = subprocess.run(
        [sys.executable, "-c", BLAS_SEEN, *args],
        input=stdin,
        cwd=env.cwd,
        capture_output=True,
        env=environ,
        timeout=120,
    )
    assert done.stderr == b"[1] -" and "- release-notes: " in context_text(done.stdout)
    stdin = hook_input("UserPromptSubmit", env, prompt="write the release notes")  # the next turn
    _, _, err = _run(["-c", BLAS_SEEN], args, env.cwd, stdin, OPENBLAS_NUM_THREADS="2")
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    assert err == f"[{min(2, cores)}] 2".encode()  # OpenBLAS takes no more threads than cores


def test_an_endless_stdin_is_refused_after_the_input_limit_and_answered_empty(isolated_home: Any) -> None:
    env = make_project(isolated_home)
    with open("/dev/zero", "rb") as endless:
        done = subprocess.run(
            [sys.executable, "-c", ENTRY, "hook", "UserPromptSubmit", "--deadline", "0"],
            stdin=endless,
            cwd=env.cwd,
            capture_output=True,
            timeout=60,  # read whole, /dev/zero never ends
            check=False,
        )
    assert (done.returncode, done.stdout) == (0, b"")
    log = log_path(env.dirs.state).read_text(encoding="utf-8")
    assert "over the" in log.splitlines()[-1] and "byte limit" in log.splitlines()[-1]
