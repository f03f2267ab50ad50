"""The bash tool's environment and output: secrets named like secrets stay out, secrets printed
are redacted before the model reads them."""

from __future__ import annotations

import random
import string
from pathlib import Path

import pytest

from skillshelf.agent.folder_tools import FolderTools
from skillshelf.agent.shell_env import shell_environment

_rng = random.Random(20261207)


def r(n: int) -> str:
    """Random letters and digits (tokens built at run time: no secret-shaped literals)."""
    alphabet = string.ascii_letters + string.digits
    return "".join(_rng.choice(alphabet) for _ in range(n - 2)) + "Q7"


@pytest.mark.parametrize(
    "name", ["OPENAI_API_KEY", "AWS_SECRET_ACCESS_KEY", "GITHUB_TOKEN", "my_token", "Keyring_Path", "secret"]
)
def test_a_variable_named_like_a_secret_is_left_out_whatever_its_case(name: str) -> None:
    assert shell_environment({name: "v", "PATH": "/usr/bin"}) == {"PATH": "/usr/bin"}


def test_other_variables_are_kept_as_they_are() -> None:
    environ = {"PATH": "/usr/bin", "HOME": "/home/u", "LANG": "C.UTF-8", "TOKYO": "x"}
    assert shell_environment(environ) == environ


def test_a_command_sees_only_the_environment_it_is_given(tmp_path: Path) -> None:
    secret = r(40)
    environ = shell_environment({"PATH": "/usr/bin:/bin", "OPENAI_API_KEY": secret, "KEPT": "yes"})
    tools = FolderTools(tmp_path, environ=environ)
    outcome = tools.execute("bash", {"command": "env"})
    assert "KEPT=yes" in outcome.text
    assert "OPENAI_API_KEY" not in outcome.text and secret not in outcome.text


def test_a_secret_a_command_prints_is_redacted_before_the_model_reads_it(tmp_path: Path) -> None:
    secret = "sk-proj-" + r(48)
    (tmp_path / ".env").write_text(f"OPENAI_API_KEY={secret}\nDEBUG=1\n", encoding="utf-8")
    outcome = FolderTools(tmp_path).execute("bash", {"command": "cat .env"})
    assert secret not in outcome.text
    assert outcome.text.startswith("exit code 0") and "DEBUG=1" in outcome.text
