"""`skillshelf load` of a SKILL.md over the 1 MiB the model gets: cut where `context` cuts it,
`truncated` in the JSON, and a note on stderr naming the whole file."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from skillshelf.cli.main import cli
from skillshelf.skills.model import MAX_SKILL_BYTES
from testkit import IsolatedHome

LINE = "Fill in every field of the form, then check each one against the source document.\n"


@pytest.fixture
def huge(tmp_path: Path, isolated_home: IsolatedHome) -> Path:
    """A repository whose skill `huge` is twice the size the model gets; the SKILL.md's path."""
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    path = repo / ".agents" / "skills" / "huge" / "SKILL.md"
    path.parent.mkdir(parents=True)
    body = LINE * (2 * MAX_SKILL_BYTES // len(LINE))
    path.write_text(f"---\nname: huge\ndescription: A very large skill.\n---\n{body}", encoding="utf-8")
    return path


def _run(path: Path, *args: str) -> Result:
    with contextlib.chdir(path.parents[3]):
        result = CliRunner().invoke(cli, [*args, "--no-builtin"], catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    return result


def test_load_gives_a_huge_skill_as_context_does_cut_at_the_cap(huge: Path) -> None:
    loaded = _run(huge, "load", "huge").stdout
    assert len(loaded.encode()) < MAX_SKILL_BYTES + 4096
    assert f"(The text was cut to its first {MAX_SKILL_BYTES:,} of {huge.stat().st_size:,} bytes.)" in loaded
    assert loaded.strip() in _run(huge, "context", "$huge", "--raw").stdout  # the model's fragment


def test_load_says_on_stderr_where_the_text_was_cut_and_where_the_whole_file_is(huge: Path) -> None:
    err = _run(huge, "load", "huge").stderr
    assert (
        f"cut, as for the model, to the first {MAX_SKILL_BYTES:,} of the {huge.stat().st_size:,} bytes" in err
    )
    assert str(huge) in err


def test_load_json_says_a_huge_skill_was_truncated(huge: Path) -> None:
    data = json.loads(_run(huge, "load", "huge", "--json").stdout)
    assert data["truncated"] is True and len(data["contents"].encode()) <= MAX_SKILL_BYTES
    assert data["tokens"] < MAX_SKILL_BYTES // 4 + 1024


def test_load_by_path_cuts_a_huge_skill_too(huge: Path) -> None:
    data = json.loads(_run(huge, "load", str(huge.parent), "--json").stdout)
    assert data["truncated"] is True


def test_load_leaves_a_skill_under_the_cap_whole(huge: Path) -> None:
    huge.write_text("---\nname: huge\ndescription: Not so large.\n---\n" + LINE, encoding="utf-8")
    result = _run(huge, "load", "huge")
    assert LINE in result.stdout and "cut" not in result.stderr and "cut" not in result.stdout
