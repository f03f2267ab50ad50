"""Messages for a model of an unknown provider and a write below a file: they name the problem."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillshelf.agent.folder_tools import FolderTools
from skillshelf.agent.providers import parse_model_spec
from skillshelf.errors import UsageError


@pytest.mark.parametrize("text", ["google:gemini-2.5-pro", "ollama:llama3"])
def test_a_model_of_an_unknown_provider_is_named_unknown_with_the_known_ones(text: str) -> None:
    with pytest.raises(UsageError) as caught:
        parse_model_spec(text)
    error = caught.value
    assert error.code == "AG001" and "not of the form" not in error.message
    assert "unknown model provider" in error.message and "known: openai, anthropic" in error.message


def test_an_ollama_model_is_shown_the_openai_form_with_the_base_url() -> None:
    with pytest.raises(UsageError) as caught:
        parse_model_spec("ollama:llama3")
    assert "--model openai:llama3 --base-url http://localhost:11434/v1" in caught.value.hint


@pytest.mark.parametrize("text", ["gpt-5", "openai:", ":gpt-5"])
def test_a_model_without_a_provider_or_a_name_is_not_of_the_form(text: str) -> None:
    with pytest.raises(UsageError) as caught:
        parse_model_spec(text)
    assert caught.value.code == "AG001" and "not of the form PROVIDER:NAME" in caught.value.message


@pytest.mark.parametrize("target", ["src/calc.py/test.py", "src/calc.py/deeper/test.py"])
def test_writing_below_a_file_says_that_part_of_the_path_is_a_file(tmp_path: Path, target: str) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "calc.py").write_text("x = 1\n", encoding="utf-8")
    outcome = FolderTools(tmp_path).execute("write_file", {"path": target, "content": "y\n"})
    assert outcome.is_error and "'src/calc.py' is a file, not a folder" in outcome.text
    assert (tmp_path / "src" / "calc.py").read_text(encoding="utf-8") == "x = 1\n"
