"""`.ci/run` with every program it calls replaced by a stub: what CI sees when a step fails.

The script is copied into ``tmp_path`` beside stub ``.venv/bin`` programs that log how they were
called; ``PATH`` holds only the stubs and the system folders, so no real install happens.
"""

from __future__ import annotations

import shutil
import stat
import subprocess
from pathlib import Path

from testkit import REPO

STUB = """#!/bin/sh
echo "$(basename "$0") $* CI=$CI" >> "{log}"
case "$*" in *pytest*) exit {pytest_status} ;; esac
exit 0
"""


def _stub(path: Path, log: Path, pytest_status: int = 0) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(STUB.format(log=log, pytest_status=pytest_status), encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


def _run_ci(
    tmp_path: Path, *, pytest_status: int = 0, postgres: bool = True, apt_status: int = 0
) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    project, stubs, log = tmp_path / "project", tmp_path / "stubs", tmp_path / "calls.log"
    (project / ".ci").mkdir(parents=True)
    shutil.copy(REPO / ".ci" / "run", project / ".ci" / "run")
    for name in ("python", "ruff", "mypy", "skillshelf"):
        _stub(project / ".venv" / "bin" / name, log, pytest_status)
    _stub(stubs / "python3", log)
    if postgres:
        _stub(stubs / "initdb", log)
    (stubs / "apt-get").write_text(f"#!/bin/sh\nexit {apt_status}\n", encoding="utf-8")
    (stubs / "apt-get").chmod(0o755)
    env = {
        "PATH": f"{stubs}:/usr/bin:/bin",
        "HOME": str(tmp_path),
        "PG_LIB_DIR": str(tmp_path / "no-postgresql"),
    }
    proc = subprocess.run(
        ["bash", str(project / ".ci" / "run")],
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env,
        timeout=60,
        check=False,
    )
    calls = log.read_text(encoding="utf-8").splitlines() if log.exists() else []
    return proc, calls


def test_ci_runs_lint_types_layers_and_the_tests_with_ci_set(tmp_path: Path) -> None:
    proc, calls = _run_ci(tmp_path)
    assert proc.returncode == 0, proc.stderr
    tests = [c for c in calls if "pytest" in c]
    assert tests == ["python -m pytest -q -n 2 CI=true"]
    assert any(c.startswith("ruff format --check") for c in calls)


def test_a_failed_postgresql_install_fails_ci_before_the_tests(tmp_path: Path) -> None:
    proc, calls = _run_ci(tmp_path, postgres=False, apt_status=100)
    assert proc.returncode == 1
    assert "could not install PostgreSQL" in proc.stderr
    assert not any("pytest" in c for c in calls)


def test_no_collected_test_is_a_failure_not_exit_5(tmp_path: Path) -> None:
    proc, _ = _run_ci(tmp_path, pytest_status=5)
    assert proc.returncode == 1
    assert "collected no tests" in proc.stderr


def test_test_failures_keep_their_exit_code(tmp_path: Path) -> None:
    proc, _ = _run_ci(tmp_path, pytest_status=1)
    assert proc.returncode == 1
