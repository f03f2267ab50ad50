"""A table added by `disable` / `enable` / `trust` leaves every comment beside what it describes:
the comment lines written above a table's header keep heading that table, the comment lines
right under a key stay under it, and a comment at the end of the file does not head the new
table. Every edit still changes the parsed value of nothing else."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from skillshelf.config import SkillMode
from skillshelf.config.edit import set_skill_mode, set_trust

ENTRY = '[[skills.config]]\nname = "foo"\nmode = "disabled"\n'


def _disable(tmp_path: Path, text: str) -> str:
    path = tmp_path / "config.toml"
    path.write_bytes(text.encode())
    set_skill_mode(path, "foo", SkillMode.DISABLED)
    return path.read_bytes().decode()


def test_a_comment_above_the_next_table_keeps_heading_it(tmp_path: Path) -> None:
    text = "[skills]\nbuiltin = false\n\n# Memory: keep it OFF on this laptop\n[memory]\nenabled = false\n"
    after = _disable(tmp_path, text)
    assert after == (
        "[skills]\nbuiltin = false\n\n"
        + ENTRY
        + "\n# Memory: keep it OFF on this laptop\n[memory]\nenabled = false\n"
    )


def test_a_comment_under_the_last_entry_stays_with_it_and_the_next_headers_comment_with_that(
    tmp_path: Path,
) -> None:
    text = (
        '[[skills.config]]\nname = "a"\nmode = "manual"\n# a is noisy\n\n'
        "# ---- memory ----\n\n[memory]\nenabled = false\n"
    )
    after = _disable(tmp_path, text)
    assert after == (
        '[[skills.config]]\nname = "a"\nmode = "manual"\n# a is noisy\n\n'
        + ENTRY
        + "\n# ---- memory ----\n\n[memory]\nenabled = false\n"
    )
    assert [e["name"] for e in tomllib.loads(after)["skills"]["config"]] == ["a", "foo"]


def test_comment_lines_glued_between_a_key_and_the_next_header_go_with_the_header(tmp_path: Path) -> None:
    text = "[skills]\nbuiltin = false\n# about memory\n# (two lines)\n[memory]\nenabled = true\n"
    after = _disable(tmp_path, text)
    assert after == (
        "[skills]\nbuiltin = false\n\n"
        + ENTRY
        + "\n# about memory\n# (two lines)\n[memory]\nenabled = true\n"
    )


def test_trust_leaves_the_comment_above_the_next_table_in_place(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(
        '[projects."/a"]\ntrust_level = "trusted"\n\n# Memory\n[memory]\nenabled = false\n', encoding="utf-8"
    )
    set_trust(path, Path("/b"), True)
    assert path.read_text(encoding="utf-8") == (
        '[projects."/a"]\ntrust_level = "trusted"\n\n[projects."/b"]\ntrust_level = "trusted"\n\n'
        "# Memory\n[memory]\nenabled = false\n"
    )


def test_a_comment_at_the_end_of_the_file_does_not_head_the_new_table(tmp_path: Path) -> None:
    after = _disable(tmp_path, "[skills]\nbuiltin = false\n\n# the end\n")
    assert after == "[skills]\nbuiltin = false\n\n# the end\n\n" + ENTRY


def test_a_windows_file_keeps_its_line_endings_when_the_table_moves_above_a_comment(tmp_path: Path) -> None:
    after = _disable(
        tmp_path, "[skills]\r\nbuiltin = false\r\n\r\n# Memory\r\n[memory]\r\nenabled = false\r\n"
    )
    assert after == (
        "[skills]\r\nbuiltin = false\r\n\r\n"
        + ENTRY.replace("\n", "\r\n")
        + "\r\n# Memory\r\n[memory]\r\nenabled = false\r\n"
    )


@pytest.mark.parametrize(
    "text",
    [
        "[skills]\nnote = '''two\n# lines'''\n[memory]\nenabled = false\n",
        '[skills]\nnote = """two\n\n# lines"""\n# real comment\n[memory]\nenabled = false\n',
    ],
)
def test_a_comment_like_line_inside_a_string_is_never_moved(tmp_path: Path, text: str) -> None:
    after = tomllib.loads(_disable(tmp_path, text))
    expected = tomllib.loads(text)
    expected["skills"]["config"] = [{"name": "foo", "mode": "disabled"}]
    assert after == expected


def test_a_comment_after_a_multi_line_string_still_keeps_heading_the_next_table(tmp_path: Path) -> None:
    text = '[skills]\nnote = """two\n\n# lines"""\n# real comment\n[memory]\nenabled = false\n'
    after = _disable(tmp_path, text)
    assert after == (
        '[skills]\nnote = """two\n\n# lines"""\n\n' + ENTRY + "\n# real comment\n[memory]\nenabled = false\n"
    )
