"""The bash tool's environment and output: secrets named like secrets stay out, secrets printed
are redacted before the model reads them."""

from __future__ import annotations

import random
import string
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType

import pytest

from skillshelf.agent.folder_tools import FolderTools
from skillshelf.agent.session import AgentOptions, open_agent
from skillshelf.agent.shell_env import REDACTED, kept_names, shell_environment
from skillshelf.context import ContextOptions
from skillshelf.env import Env

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


@pytest.mark.parametrize(
    "name",
    [
        "PYTHON_KEYRING_BACKEND",
        "TOKENIZERS_PARALLELISM",
        "KEYBOARD_LAYOUT",
        "KEYBOARD",
        "XKB_KEYMAP",
    ],
)
def test_a_well_known_setting_named_like_a_secret_is_kept(name: str) -> None:
    environ = {name: "keyring.backends.null.Keyring", "PATH": "/usr/bin"}
    assert shell_environment(environ) == environ


def test_names_the_user_keeps_are_kept_and_other_secrets_still_left_out() -> None:
    environ = {"MONKEY": "1", "DEPLOY_TOKEN": "t", "PATH": "/usr/bin"}
    keep = kept_names("MONKEY, OTHER")
    assert keep == {"MONKEY", "OTHER"}
    assert shell_environment(environ, keep=keep) == {"MONKEY": "1", "PATH": "/usr/bin"}


def test_writing_back_a_redacted_cat_is_refused_and_read_file_shows_the_file_exactly(tmp_path: Path) -> None:
    secret = "sk_live_" + r(24)
    (tmp_path / ".env").write_text(f"STRIPE_KEY={secret}\nDEBUG=1\n", encoding="utf-8")
    tools = FolderTools(tmp_path)
    shown = tools.execute("bash", {"command": "cat .env"}).text.removeprefix("exit code 0\n")
    written = tools.execute("write_file", {"path": ".env", "content": shown.replace("DEBUG=1", "DEBUG=0")})
    assert written.is_error and "read_file" in written.text and written.edited is None
    edited = tools.execute("edit_file", {"path": ".env", "old_text": "DEBUG=1", "new_text": shown})
    assert edited.is_error and "read_file" in edited.text
    assert (tmp_path / ".env").read_text(encoding="utf-8") == f"STRIPE_KEY={secret}\nDEBUG=1\n"
    assert tools.execute("read_file", {"path": ".env"}).text == f"STRIPE_KEY={secret}\nDEBUG=1\n"


def test_a_file_that_already_holds_the_marker_can_still_be_edited(tmp_path: Path) -> None:
    (tmp_path / "doc.md").write_text(f"token: {REDACTED}\nold\n", encoding="utf-8")
    tools = FolderTools(tmp_path)
    assert not tools.execute("edit_file", {"path": "doc.md", "old_text": "old", "new_text": "new"}).is_error
    assert not tools.execute("write_file", {"path": "doc.md", "content": f"token: {REDACTED}\n"}).is_error


def test_the_agent_keeps_the_variables_its_keep_list_names(tmp_path: Path) -> None:
    base = Env.for_test(cwd=tmp_path, home=tmp_path / "home")
    environ = {**base.environ, "MONKEY": "1", "DEPLOY_TOKEN": "t", "SKILLSHELF_AGENT_KEEP_ENV": "MONKEY"}
    options = AgentOptions(
        model="openai:standin",
        api_key="x",
        base_url="http://127.0.0.1:9/v1",
        context=ContextOptions(include_builtin=False, suggestions=False, memory=False),
        write_transcript=False,
        record_usage=False,
    )
    agent = open_agent(replace(base, environ=MappingProxyType(environ)), options)
    assert agent.folder_tools.environ is not None
    assert (
        agent.folder_tools.environ.get("MONKEY") == "1" and "DEPLOY_TOKEN" not in agent.folder_tools.environ
    )


def test_the_tools_say_bash_output_is_redacted_and_read_file_exact_only_when_bash_is_offered(
    tmp_path: Path,
) -> None:
    described = {spec.name: spec.description for spec in FolderTools(tmp_path).specs()}
    assert REDACTED in described["bash"] and "exactly" in described["read_file"]
    assert all("read_file first" in described[name] for name in ("write_file", "edit_file"))
    no_bash = FolderTools(tmp_path, allowed=("read_file", "write_file"))
    assert all(REDACTED not in spec.description for spec in no_bash.specs())
    assert not no_bash.execute("write_file", {"path": "m.md", "content": f"key: {REDACTED}\n"}).is_error
