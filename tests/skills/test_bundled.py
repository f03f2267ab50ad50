"""Confined reads of skill files: hostile paths are refused with a code, good ones are read."""

from __future__ import annotations

import base64
import os
import stat
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skillshelf.errors import PathEscapeError, SkillshelfError
from skillshelf.skills.bundled import TEXT_JUDGED_BYTES, check_relative_path, listable, read_confined_file


@pytest.fixture
def skill_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "skills" / "demo"
    (folder / "references").mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\nname: demo\ndescription: d\n---\nBody\n", encoding="utf-8")
    (folder / "references" / "guide.md").write_text("# Guide\nstep one\n", encoding="utf-8")
    (folder / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00binary")
    (tmp_path / "secret.txt").write_text("top secret", encoding="utf-8")
    return folder


def test_text_file_inside_the_folder_is_read_as_text(skill_folder: Path) -> None:
    file = read_confined_file(skill_folder, "references/guide.md", skill="demo")
    assert file.text == "# Guide\nstep one\n"
    assert file.mime_type == "text/markdown"
    assert not file.truncated and file.to_dict()["encoding"] == "utf-8"


def test_binary_file_is_returned_as_base64(skill_folder: Path) -> None:
    file = read_confined_file(skill_folder, "logo.png", skill="demo")
    assert file.is_binary and file.mime_type == "image/png"
    assert base64.b64decode(file.base64 or "") == (skill_folder / "logo.png").read_bytes()


def test_text_over_the_cap_is_cut_and_flagged(skill_folder: Path) -> None:
    (skill_folder / "big.txt").write_text("é" * 1000, encoding="utf-8")
    file = read_confined_file(skill_folder, "big.txt", skill="demo", max_bytes=101)
    assert file.truncated and file.size == 2000
    assert file.text == "é" * 50  # cut on a character boundary


def test_binary_over_the_cap_is_refused_with_a_code(skill_folder: Path) -> None:
    (skill_folder / "blob.bin").write_bytes(b"\x00" * 500)
    with pytest.raises(SkillshelfError) as info:
        read_confined_file(skill_folder, "blob.bin", skill="demo", max_bytes=100)
    assert info.value.code == "SV413"


def test_symlink_inside_the_folder_is_followed(skill_folder: Path) -> None:
    (skill_folder / "alias.md").symlink_to(skill_folder / "references" / "guide.md")
    assert read_confined_file(skill_folder, "alias.md", skill="demo").text.startswith("# Guide")  # type: ignore[union-attr]


HOSTILE = [
    "../secret.txt",
    "references/../../secret.txt",
    "/etc/passwd",
    "~/secret.txt",
    "..\\secret.txt",
    "C:\\Windows\\win.ini",
    "c:/windows/win.ini",
    "references/\x00guide.md",
]


@pytest.mark.parametrize("path", HOSTILE)
def test_escaping_paths_are_refused(skill_folder: Path, path: str) -> None:
    with pytest.raises(PathEscapeError) as info:
        read_confined_file(skill_folder, path, skill="demo")
    assert info.value.code == "SS403"


def test_symlink_out_of_the_folder_is_refused(skill_folder: Path, tmp_path: Path) -> None:
    (skill_folder / "leak.txt").symlink_to(tmp_path / "secret.txt")
    (skill_folder / "refs-out").symlink_to(tmp_path, target_is_directory=True)
    for path in ("leak.txt", "refs-out/secret.txt"):
        with pytest.raises(PathEscapeError, match="leads out"):
            read_confined_file(skill_folder, path, skill="demo")


def test_fifo_is_refused_without_blocking(skill_folder: Path) -> None:
    os.mkfifo(skill_folder / "pipe")
    with pytest.raises(PathEscapeError, match="FIFO"):
        read_confined_file(skill_folder, "pipe", skill="demo")


@pytest.mark.skipif(os.geteuid() != 0, reason="creating a device node needs root")
def test_device_file_inside_the_folder_is_refused(skill_folder: Path) -> None:
    os.mknod(skill_folder / "null", stat.S_IFCHR | 0o600, os.makedev(1, 3))
    with pytest.raises(PathEscapeError, match="device file"):
        read_confined_file(skill_folder, "null", skill="demo")


def test_symlink_to_a_device_is_refused(skill_folder: Path) -> None:
    (skill_folder / "dev").symlink_to("/dev/zero")
    with pytest.raises(PathEscapeError):
        read_confined_file(skill_folder, "dev", skill="demo")


def test_missing_file_and_folder_give_clear_codes(skill_folder: Path) -> None:
    with pytest.raises(SkillshelfError) as missing:
        read_confined_file(skill_folder, "nope.md", skill="demo")
    assert missing.value.code == "SV404" and "load_skill" in missing.value.hint
    with pytest.raises(SkillshelfError) as folder:
        read_confined_file(skill_folder, "references", skill="demo")
    assert folder.value.code == "SV400"
    for empty in ("", "  ", "."):
        with pytest.raises(SkillshelfError) as bad:
            check_relative_path(empty)
        assert bad.value.code == "SV400"


def test_symlink_loop_gives_an_error_not_a_traceback(skill_folder: Path) -> None:
    (skill_folder / "a").symlink_to(skill_folder / "b")
    (skill_folder / "b").symlink_to(skill_folder / "a")
    with pytest.raises(SkillshelfError):
        read_confined_file(skill_folder, "a", skill="demo")


@settings(max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    path=st.lists(
        st.sampled_from(
            ["a", ".", "/", "\\", "~", ":", "\x00", "..", "secret.txt", "references", "guide.md", "SKILL.md"]
        ),
        max_size=8,
    ).map("".join)
)
def test_any_path_either_stays_inside_or_is_refused(skill_folder: Path, path: str) -> None:
    try:
        file = read_confined_file(skill_folder, path, skill="demo")
    except SkillshelfError:
        return
    real = (skill_folder / file.path).resolve()
    assert real.is_relative_to(skill_folder.resolve())
    assert file.text != "top secret"


@pytest.mark.parametrize("path", ["references/\ud800.md", "\udcff", "guide\udfff"])
def test_a_path_that_cannot_be_encoded_is_refused_with_a_code_before_any_open(
    skill_folder: Path, path: str
) -> None:
    with pytest.raises(SkillshelfError) as info:
        check_relative_path(path)
    assert info.value.code == "SV400"
    str(info.value).encode("utf-8")  # the message quotes the character escaped
    with pytest.raises(SkillshelfError) as read:
        read_confined_file(skill_folder, path, skill="demo")
    assert read.value.code == "SV400"


@pytest.mark.parametrize("path", [".env", ".git/config", "references/.secret.md", "CVS/Root", "_darcs/prefs"])
def test_hidden_files_and_version_control_folders_are_refused(skill_folder: Path, path: str) -> None:
    target = skill_folder / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("API_KEY=live", encoding="utf-8")
    with pytest.raises(PathEscapeError) as info:
        read_confined_file(skill_folder, path, skill="demo")
    assert info.value.code == "SS403" and "hidden" in info.value.message and info.value.hint
    assert not listable(skill_folder, path)


def test_a_symlink_to_a_hidden_file_inside_the_folder_is_refused_and_not_listed(skill_folder: Path) -> None:
    (skill_folder / ".git").mkdir()
    (skill_folder / ".git" / "config").write_text("url = https://user:token@host/x\n", encoding="utf-8")
    (skill_folder / "notes.md").symlink_to(".git/config")
    with pytest.raises(PathEscapeError, match="hidden"):
        read_confined_file(skill_folder, "notes.md", skill="demo")
    assert not listable(skill_folder, "notes.md")


@pytest.mark.parametrize(
    "name", ["notes.md\n- SKILL.md", "a\\b.md", "evil\u202egnp.md", "tab\there.md", "tag\U000e0041.md"]
)
def test_names_that_do_not_print_as_one_plain_line_or_cannot_be_read_are_not_listed(
    skill_folder: Path, name: str
) -> None:
    (skill_folder / name).write_text("x", encoding="utf-8")
    assert not listable(skill_folder, name)
    assert listable(skill_folder, "references/guide.md") and listable(skill_folder, "café.md") is False
    (skill_folder / "café.md").write_text("x", encoding="utf-8")
    assert listable(skill_folder, "café.md")


@pytest.mark.parametrize(
    "name",
    ["\u0646\u0645\u0648\u0646\u0647\u200c\u0647\u0627.md", "\U0001f469\u200d\U0001f4bb.md", "co\u00adop.md"],
)
def test_names_joined_by_zero_width_joiners_are_listed_and_read(skill_folder: Path, name: str) -> None:
    (skill_folder / name).write_text("x", encoding="utf-8")
    assert listable(skill_folder, name)
    assert read_confined_file(skill_folder, name, skill="demo").text == "x"


def test_a_path_longer_than_file_names_can_be_is_not_found_not_a_permission_problem(
    skill_folder: Path,
) -> None:
    with pytest.raises(SkillshelfError) as info:
        read_confined_file(skill_folder, "a" * 5000, skill="demo")
    assert info.value.code == "SV404" and "permissions" not in info.value.hint


def test_a_hard_linked_file_is_neither_listed_nor_read(skill_folder: Path) -> None:
    os.link(skill_folder / "references" / "guide.md", skill_folder / "references" / "copy.md")
    for name in ("references/guide.md", "references/copy.md"):
        assert not listable(skill_folder, name)
        with pytest.raises(PathEscapeError, match="hard-linked"):
            read_confined_file(skill_folder, name, skill="demo")
    os.unlink(skill_folder / "references" / "copy.md")
    assert listable(skill_folder, "references/guide.md")


def test_a_relative_symlink_that_climbs_out_and_back_into_the_folder_is_read(skill_folder: Path) -> None:
    (skill_folder / "selfref.md").symlink_to("../demo/references/guide.md")
    (skill_folder / "references" / "deep.md").symlink_to("../../demo/references/guide.md")
    for path in ("selfref.md", "references/deep.md"):
        assert listable(skill_folder, path)
        assert read_confined_file(skill_folder, path, skill="demo").text == "# Guide\nstep one\n"


@pytest.mark.parametrize(
    "target", ["../secret.txt", "../demo-other/x.md", "../demo/../secret.txt", "../../skills/demo/../x", ".."]
)
def test_a_relative_symlink_that_climbs_out_and_stays_out_is_refused(
    skill_folder: Path, tmp_path: Path, target: str
) -> None:
    (tmp_path / "skills" / "demo-other").mkdir()
    (tmp_path / "skills" / "demo-other" / "x.md").write_text("other", encoding="utf-8")
    (skill_folder / "out.md").symlink_to(target)
    with pytest.raises(PathEscapeError, match="leads out"):
        read_confined_file(skill_folder, "out.md", skill="demo")


def test_a_file_is_text_only_when_its_first_mebibyte_is_utf8_without_nul(skill_folder: Path) -> None:
    (skill_folder / "latin1.txt").write_bytes("café crème brûlée".encode("latin-1"))
    (skill_folder / "late-ff.txt").write_bytes(b"a" * 300_000 + b"\xff" + b"b" * 1000)
    (skill_folder / "late-nul.txt").write_bytes(b"a" * 20_000 + b"\x00")
    (skill_folder / "far-ff.txt").write_bytes(b"a" * TEXT_JUDGED_BYTES + b"\xff" * 10)
    assert read_confined_file(skill_folder, "latin1.txt", skill="demo").is_binary
    assert read_confined_file(skill_folder, "late-nul.txt", skill="demo").is_binary
    with pytest.raises(SkillshelfError, match="byte 300,000 is not part of a UTF-8 character") as info:
        read_confined_file(skill_folder, "late-ff.txt", skill="demo")
    assert info.value.code == "SV413"
    # judged on the whole first mebibyte whatever the cap: a small cap does not make it text
    with pytest.raises(SkillshelfError, match="binary"):
        read_confined_file(skill_folder, "late-ff.txt", skill="demo", max_bytes=1000)
    far = read_confined_file(skill_folder, "far-ff.txt", skill="demo", max_bytes=1000)
    assert far.text == "a" * 1000 and far.truncated  # past what a tool reads: not judged


def test_a_character_cut_by_the_judged_bound_leaves_a_file_text(skill_folder: Path) -> None:
    (skill_folder / "cut.txt").write_bytes(b"a" * (TEXT_JUDGED_BYTES - 1) + "é".encode())
    file = read_confined_file(skill_folder, "cut.txt", skill="demo", max_bytes=10)
    assert file.text == "a" * 10 and "\ufffd" not in (file.text or "")


def test_text_never_comes_back_with_replacement_characters(skill_folder: Path) -> None:
    (skill_folder / "short-ff.txt").write_bytes(b"ok\xffok")
    file = read_confined_file(skill_folder, "short-ff.txt", skill="demo")
    assert file.is_binary and base64.b64decode(file.base64 or "") == b"ok\xffok"
