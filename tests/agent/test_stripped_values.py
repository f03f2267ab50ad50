"""The values left out of bash's environment stay out of every tool output and the transcript,
whatever shape they have (a gateway key redaction cannot recognise)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillshelf.agent.folder_tools import FolderTools
from skillshelf.agent.shell_env import REDACTED, shell_environment
from skillshelf.agent.stripped_values import ScrubbedTranscript, StrippedValues, worth_scrubbing
from skillshelf.memory.transcripts.skillshelf import TranscriptWriter

GATEWAY_KEY = "my-internal-gateway-key-0001"  # no known format, low entropy, a "my-" stand-in shape
ENVIRON = {"OPENAI_API_KEY": GATEWAY_KEY, "DEPLOY_SECRET": "pw42", "PATH": "/usr/bin:/bin", "HOME": "/h"}


def _tools(root: Path) -> FolderTools:
    shell = shell_environment(ENVIRON)
    return FolderTools(root, environ=shell, stripped=StrippedValues.left_out(ENVIRON, shell))


def test_the_values_left_out_are_those_of_the_variables_the_commands_do_not_get() -> None:
    shell = shell_environment(ENVIRON)
    assert StrippedValues.left_out(ENVIRON, shell).pieces == (GATEWAY_KEY, "pw42")


def test_a_left_out_value_a_command_prints_never_reaches_the_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    command = f"printf 'OPENAI_API_KEY={GATEWAY_KEY}\\nkey is {GATEWAY_KEY}; pin pw42.\\n'"
    outcome = _tools(tmp_path).execute("bash", {"command": command})
    assert GATEWAY_KEY not in outcome.text and "pw42" not in outcome.text
    assert outcome.text.count(REDACTED) == 3


def test_a_left_out_value_in_a_file_is_scrubbed_from_read_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".env").write_text(f"OPENAI_API_KEY={GATEWAY_KEY}\n", encoding="utf-8")
    outcome = _tools(tmp_path).execute("read_file", {"path": ".env"})
    assert outcome.text == f"OPENAI_API_KEY={REDACTED}\n"


def test_a_short_value_is_scrubbed_only_where_it_stands_as_a_word() -> None:
    values = StrippedValues.of(["pw42"])
    assert (
        values.scrub("pw42 and pw425 and xpw42 and (pw42)")
        == f"{REDACTED} and pw425 and xpw42 and ({REDACTED})"
    )


@pytest.mark.parametrize("value", ["", "abc", "4096", "12345", "true", "Disabled", "no"])
def test_short_numbers_setting_words_and_tiny_values_are_not_scrubbed(value: str) -> None:
    assert not worth_scrubbing(value)
    assert StrippedValues.of([value]).scrub(f"limit {value} here") == f"limit {value} here"


def test_each_line_of_a_multi_line_value_is_scrubbed() -> None:
    values = StrippedValues.of(["line-one-secret\n  line-two-secret  \n"])
    assert values.scrub("a line-two-secret b\nline-one-secret") == f"a {REDACTED} b\n{REDACTED}"


def test_the_transcript_holds_no_left_out_value(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    writer = TranscriptWriter(path, session_id="s", cwd=tmp_path)
    with ScrubbedTranscript(writer, StrippedValues.of([GATEWAY_KEY])) as transcript:
        transcript.message("user", f"use the key {GATEWAY_KEY}")
        transcript.tool_call("c1", "bash", {"command": f"curl -H 'X-Key: {GATEWAY_KEY}' x", "n": 1})
        transcript.tool_result("c1", f"echoed {GATEWAY_KEY}")
    text = path.read_text(encoding="utf-8")
    assert GATEWAY_KEY not in text
    records = [json.loads(line) for line in text.splitlines()]
    assert records[2]["arguments"]["n"] == 1 and REDACTED in records[2]["arguments"]["command"]
