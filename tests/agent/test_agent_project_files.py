"""Odd project files (read to find the check command) never crash or hang `skillshelf run`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from skillshelf.agent.guards import find_check_command

DEEP = 100_000


@pytest.mark.parametrize(
    ("name", "content", "expected"),
    [
        ("pyproject.toml", "tool = 5\n", None),
        ("pyproject.toml", '[tool.pytest.ini_options]\naddopts = "-q"\n', "python -m pytest"),
        ("pyproject.toml", "a = " + "[" * DEEP + "]" * DEEP + "\n", None),
        ("pyproject.toml", "x = { y = " * 2000 + "1" + " }" * 2000 + "\n", None),
        ("pyproject.toml", "\udcff not utf-8".encode("utf-8", "surrogateescape"), None),
        ("package.json", '{"a":' + "[" * DEEP + "]" * DEEP + "}", None),
        ("package.json", '["scripts", {"test": 1}]', None),
        ("package.json", '{"scripts": ["test"]}', None),
        ("package.json", '{"scripts": {"test": "jest"}}', "npm test"),
        ("Makefile", b"\xff\xfe\ntest:\n\ttrue\n", "make test"),
    ],
)
def test_odd_project_files_name_no_check_command_and_never_raise(
    tmp_path: Path, name: str, content: str | bytes, expected: str | None
) -> None:
    data = content if isinstance(content, bytes) else content.encode("utf-8")
    (tmp_path / name).write_bytes(data)
    assert find_check_command(tmp_path) == expected


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        (["calc.py", "test_calc.py"], "python -m pytest"),
        (["calc.py", "calc_test.py"], "python -m pytest"),
        (["conftest.py"], "python -m pytest"),
        (["test/"], "python -m pytest"),
        (["tox.ini=[tox]\n[pytest]\naddopts = -q\n"], "python -m pytest"),
        (["setup.cfg=[metadata]\nname = x\n[tool:pytest]\n"], "python -m pytest"),
        (["calc.py", "testing.py", "test_data.txt", "test_dir.py/"], None),
        (["setup.cfg=[metadata]\nname = x\n", "tox.ini=[tox]\nenvlist = py3\n"], None),
    ],
)
def test_python_tests_are_found_where_pytest_would_collect_them(
    tmp_path: Path, files: list[str], expected: str | None
) -> None:
    for spec in files:
        name, _, text = spec.partition("=")
        if name.endswith("/"):
            (tmp_path / name).mkdir()
        else:
            (tmp_path / name).write_text(text, encoding="utf-8")
    assert find_check_command(tmp_path) == expected


def test_a_huge_manifest_is_read_only_up_to_the_cap(tmp_path: Path) -> None:
    with open(tmp_path / "package.json", "wb") as handle:
        handle.write(b'{"scripts": {"test": "x"}, "pad": "')
        handle.truncate(64 * 1024 * 1024)  # sparse: costs no disk
    assert find_check_command(tmp_path) is None


FIND = (
    "import sys; from pathlib import Path; from skillshelf.agent.guards import find_check_command; "
    "print(find_check_command(Path(sys.argv[1])))"
)


@pytest.mark.parametrize(
    "name", ["pyproject.toml", "package.json", "Makefile", "tox.ini", "setup.cfg", "test_x.py"]
)
def test_a_fifo_named_like_a_project_file_does_not_block(tmp_path: Path, name: str) -> None:
    os.mkfifo(tmp_path / name)
    proc = subprocess.run(
        [sys.executable, "-c", FIND, str(tmp_path)],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() == "None"


@pytest.mark.parametrize("kind", ["tool5", "deep-json", "fifo"])
def test_run_reaches_the_model_call_whatever_the_project_files(
    tmp_path: Path, isolated_home: object, kind: str
) -> None:
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    if kind == "tool5":
        (project / "pyproject.toml").write_text("tool = 5\n", encoding="utf-8")
    elif kind == "deep-json":
        (project / "package.json").write_text('{"a":' + "[" * DEEP + "]" * DEEP + "}", encoding="utf-8")
    else:
        os.mkfifo(project / "pyproject.toml")
    env = {**os.environ, "OPENAI_API_KEY": "x"}
    env.pop("SKILLSHELF_DEBUG", None)
    args = ["run", "hi", "--model", "openai:m", "--base-url", "http://127.0.0.1:9/v1", "--no-transcript"]
    proc = subprocess.run(
        [sys.executable, "-m", "skillshelf.cli.main", *args],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        encoding="utf-8",
    )
    assert "internal error" not in proc.stderr and "Traceback" not in proc.stderr, proc.stderr[-2000:]
    assert proc.returncode == 1 and "fix:" in proc.stderr, proc.stderr[-2000:]
