"""The folder tools: large files read by their real ends, arguments checked before a tool runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillshelf.agent.folder_tools import MAX_OUTPUT_CHARS, MAX_READ_BYTES, FolderTools
from skillshelf.agent.tool_arguments import raw_call_arguments


def test_reading_a_file_over_the_read_cap_shows_its_real_end_and_size(tmp_path: Path) -> None:
    lines = [f"line {i:07d}\n" for i in range(300_000)]
    (tmp_path / "big.txt").write_text("".join(lines), encoding="utf-8")
    size = (tmp_path / "big.txt").stat().st_size
    assert size > MAX_READ_BYTES
    outcome = FolderTools(tmp_path).execute("read_file", {"path": "big.txt"})
    assert not outcome.is_error
    assert outcome.text.startswith("line 0000000\n") and outcome.text.endswith("line 0299999\n")
    half = MAX_OUTPUT_CHARS // 2
    assert f"[{size - 2 * half} bytes cut: the file is {size} bytes;" in outcome.text
    assert len(outcome.text) < MAX_OUTPUT_CHARS + 500


def test_arguments_that_are_not_json_are_reported_as_such(tmp_path: Path) -> None:
    raw = '{"path": "a.txt"'
    (tmp_path / "a.txt").write_text("hi\n", encoding="utf-8")
    outcome = FolderTools(tmp_path).execute("read_file", raw_call_arguments(raw))
    assert outcome.is_error
    assert outcome.text.startswith("error: the arguments were not valid JSON: ")
    assert json.dumps(raw)[1:-1] in outcome.text or raw in outcome.text


@pytest.mark.parametrize(
    ("raw", "kind"),
    [
        ('"a.txt"', "a string"),
        ('["a.txt"]', "an array"),
        ("null", "null"),
        ("7", "a number"),
        ("true", "a boolean"),
    ],
)
def test_json_arguments_that_are_no_object_are_reported_with_their_type(
    tmp_path: Path, raw: str, kind: str
) -> None:
    (tmp_path / "a.txt").write_text("hi\n", encoding="utf-8")
    outcome = FolderTools(tmp_path).execute("read_file", raw_call_arguments(raw))
    assert outcome.is_error and "not valid JSON" not in outcome.text
    assert outcome.text.startswith(f"error: arguments must be a JSON object, got {kind}: {raw};")


def test_long_arguments_that_are_not_json_are_quoted_only_in_part(tmp_path: Path) -> None:
    raw = '{"content": "' + "y" * 100_000
    outcome = FolderTools(tmp_path).execute("write_file", raw_call_arguments(raw))
    assert "not valid JSON" in outcome.text and "(100013 characters)" in outcome.text
    assert len(outcome.text) < 1000


def test_an_argument_the_schema_does_not_take_is_refused_before_the_command_runs(tmp_path: Path) -> None:
    outcome = FolderTools(tmp_path).execute("bash", {"command": "touch ran", "extra": 1})
    assert outcome.is_error and "'extra' is not one this tool takes" in outcome.text
    assert "bash takes command" in outcome.text
    assert not (tmp_path / "ran").exists()


def test_an_argument_of_the_wrong_type_names_the_rule(tmp_path: Path) -> None:
    outcome = FolderTools(tmp_path).execute("bash", {"command": "true", "timeout": "5"})
    assert outcome.is_error and "argument 'timeout' must be an integer" in outcome.text
