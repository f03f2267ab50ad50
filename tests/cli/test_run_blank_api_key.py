"""`skillshelf run` with the provider's key variable set but empty (or only spaces): no key, a
usage error (``AG005``, exit 2) as when it is unset, and no model call is made."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from skillshelf.cli.main import cli
from skillshelf.errors import UsageError


@pytest.mark.parametrize(("provider", "variable"), [("openai", "OPENAI"), ("anthropic", "ANTHROPIC")])
@pytest.mark.parametrize("blank", ["", "   ", "\t\n"])
def test_run_with_a_blank_api_key_is_ag005_and_calls_no_model(
    tmp_path: Path,
    isolated_home: Any,
    model_standin: Any,
    monkeypatch: pytest.MonkeyPatch,
    provider: str,
    variable: str,
    blank: str,
) -> None:
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    monkeypatch.chdir(project)
    standin = model_standin([{"text": "Done."}])
    monkeypatch.setenv(f"{variable}_API_KEY", blank)
    monkeypatch.setenv(f"{variable}_BASE_URL", standin.url + ("/v1" if provider == "openai" else ""))
    result = CliRunner().invoke(cli, ["run", "say hi", "--model", f"{provider}:standin", "--no-builtin"])
    assert isinstance(result.exception, UsageError), result.output
    assert result.exception.code == "AG005" and result.exception.exit_code == 2
    assert f"{variable}_API_KEY" in result.exception.message and result.exception.hint
    assert standin.requests() == []


def test_run_with_a_blank_key_and_a_base_url_calls_the_server(
    tmp_path: Path, isolated_home: Any, model_standin: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    monkeypatch.chdir(project)
    standin = model_standin([{"text": "Done."}])
    monkeypatch.setenv("OPENAI_API_KEY", "")
    args = ["run", "say hi", "--model", "openai:standin", "--base-url", standin.url + "/v1", "--no-builtin"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    assert len(standin.requests()) == 1
