"""The security and robustness cases of ``../shared/security-cases`` run against this checkout:
each script as shipped (with ``SK`` naming this venv's ``skillshelf``), its output read for the
defect it once showed. None may end in a traceback."""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from skillshelf.install.files import remove_tree
from testkit import REPO, missing, shared_path

SK = Path(sys.executable).with_name("skillshelf")


def _run(name: str, tmp_path: Path, timeout: float = 120) -> str:
    for tool in ("git", "ssh-keygen", "bash"):
        if shutil.which(tool) is None:
            missing(f"{tool} is not installed (the security cases call it)")
    script = shared_path("security-cases") / name
    env = {
        **os.environ,
        "PATH": f"{SK.parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "SK": str(SK),
        "CASES_TMP": str(tmp_path / "cases"),
        "TMPDIR": str(tmp_path),
        "PROJECT": str(REPO),
    }
    for variable in ("SKILLSHELF_DEBUG", "PYTHONWARNDEFAULTENCODING"):  # the scripts are not ours
        env.pop(variable, None)
    command = [sys.executable if name.endswith(".py") else "bash", str(script)]
    done = subprocess.run(
        command,
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        encoding="utf-8",
        errors="replace",
        timeout=timeout,
        check=False,
    )
    output = done.stdout + done.stderr
    assert "Traceback" not in output and "internal error" not in output, output[-3000:]
    return output


def _lines(output: str) -> list[str]:
    return [line.strip() for line in output.splitlines() if line.strip()]


def _case_home(tmp_path: Path, case: str) -> Path:
    return tmp_path / "cases" / case


def check_lock_traversal(output: str, tmp_path: Path) -> None:
    assert "IS402" in output and "IS404" in output
    kept = _case_home(tmp_path, "w01") / "victim" / "notes" / "a.txt"
    assert kept.read_text(encoding="utf-8") == "precious\n"


def check_config_edits_keep_keys(output: str, tmp_path: Path) -> None:
    assert "{'skills': {'builtin': False}, 'memory': {'enabled': False}}" in output
    config = _case_home(tmp_path, "w02") / ".config" / "skillshelf" / "config.toml"
    values = tomllib.loads(config.read_text(encoding="utf-8"))
    assert values["skills"] == {"builtin": False}
    assert values["projects"]["/srv/a"] == {"trust_level": "trusted"}
    assert values["projects"][str(_case_home(tmp_path, "w02") / "p")] == {"trust_level": "trusted"}


def check_redaction(output: str, tmp_path: Path) -> None:
    assert "pem-private-key: 1" in output
    for secret in (
        "correct horse battery staple",
        "hunter2curl",
        "S3cretMysqlPass",
        "hunter2secret",
        "def0123456789tok",
        "w0rd",
    ):
        assert secret not in output
    key = (_case_home(tmp_path, "w04") / "k").read_text(encoding="utf-8").strip().splitlines()[1:-1]
    assert not [line for line in key if line in output]


def check_deep_yaml(output: str, tmp_path: Path) -> None:
    assert "SK126" in output and "1 skill file(s) checked" in output


def check_deep_tree_install(output: str, tmp_path: Path) -> None:
    assert (_case_home(tmp_path, "w06") / ".agents" / "skills" / "ok" / "SKILL.md").is_file()
    assert not (_case_home(tmp_path, "w06") / ".local" / "share" / "skillshelf" / ".skillshelf-tmp").exists()


def check_poison_transcripts(output: str, tmp_path: Path) -> None:
    assert output.count("ME104") >= 2


def check_agent_project_files(output: str, tmp_path: Path) -> None:
    assert output.count("rc=1") == 3 and "rc=124" not in output  # a model call error, never a hang
    assert output.count("check --base-url") == 3


def check_agent_tool_args(output: str, tmp_path: Path) -> None:
    answers = [line for line in _lines(output) if line.startswith(("error", "hi", "a"))]
    assert len(answers) == 2 and all(line.startswith("error:") for line in answers), answers


def check_untrusted_marking(output: str, tmp_path: Path) -> None:
    assert "[('evil', False), " in output
    assert "not trusted" in output and "IS505" in output
    assert not (_case_home(tmp_path, "w10") / ".config" / "skillshelf" / "config.toml").exists()


def check_misc(output: str, tmp_path: Path) -> None:
    # `disable x` writes its entry, then warns (CF122, two lines) that no skill named x is seen here
    disabled = "x: disabled in" in output or "warning CF122: no skill named 'x'" in output
    assert "IN114" in output and disabled and "is trusted; recorded in" in output


def check_toctou(output: str, tmp_path: Path) -> None:
    assert "leaks_of_outside_content=0" in output


def check_pem_stats(output: str, tmp_path: Path) -> None:
    assert output.count("0/20 key texts with surviving base64 lines") == 3


def check_config_edit_cases(output: str, tmp_path: Path) -> None:
    befores = [line.removeprefix("before: ") for line in output.splitlines() if line.startswith("before: ")]
    afters = [line.removeprefix("after : ") for line in output.splitlines() if line.startswith("after : ")]
    assert len(befores) == len(afters) == 11
    for before, after in zip(befores, afters, strict=True):
        assert not after.startswith("INVALID"), after
        assert _kept(ast.literal_eval(before), ast.literal_eval(after)), (before, after)


def _kept(before: Any, after: Any) -> bool:
    """Every key of ``before`` still holds its value in ``after`` (tables may gain keys)."""
    if isinstance(before, dict) and isinstance(after, dict):
        return all(key in after and _kept(value, after[key]) for key, value in before.items())
    if isinstance(before, list) and isinstance(after, list):
        return len(after) >= len(before) and all(_kept(b, a) for b, a in zip(before, after, strict=False))
    return bool(before == after)


def check_memory_secrets(output: str, tmp_path: Path) -> None:
    home = _case_home(tmp_path, "w15")
    assert (home / ".local" / "share" / "skillshelf" / "memory" / "state.sqlite").is_file()
    leaks = [line for line in _lines(output) if line.startswith("./")]
    assert leaks == []  # the script prints each file that still holds a secret


CASES: dict[str, Callable[[str, Path], None]] = {
    "01_lock_traversal_remove.sh": check_lock_traversal,
    "02_config_edit_moves_keys.sh": check_config_edits_keep_keys,
    "04_redact_misses.sh": check_redaction,
    "05_deep_yaml_skill.sh": check_deep_yaml,
    "06_deep_tree_install_bricks.sh": check_deep_tree_install,
    "07_memory_run_poison_transcripts.sh": check_poison_transcripts,
    "08_agent_project_files.sh": check_agent_project_files,
    "09_agent_tool_args.py": check_agent_tool_args,
    "10_untrusted_marking.sh": check_untrusted_marking,
    "11_misc_crashes.sh": check_misc,
    "12_toctou_read_race.py": check_toctou,
    "13_openssh_pem_leak_stats.py": check_pem_stats,
    "14_config_edit_cases.py": check_config_edit_cases,
    "15_memory_secret_persist.sh": check_memory_secrets,
}
"""Every case but ``03_agent_surrogate_truncates.py``, which is not valid Python as shipped (a
shell expansion inside a Python string); its defect is covered by
``tests/agent/test_agent_folder_tools_hostile_args.py``."""


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_security_case_no_longer_shows_its_defect(name: str, tmp_path: Path) -> None:
    try:
        output = _run(name, tmp_path)
        CASES[name](output, tmp_path)
    finally:  # case 06 leaves a tree 1,100 folders deep, which pytest's own clean-up cannot remove
        remove_tree(tmp_path / "cases")


def test_every_shipped_case_is_checked() -> None:
    shipped = {p.name for p in shared_path("security-cases").glob("[0-9]*")}
    assert shipped - set(CASES) == {"03_agent_surrogate_truncates.py"}
