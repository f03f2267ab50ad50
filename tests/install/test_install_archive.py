"""Archive extraction (zip and tar) refuses every way out of the target folder and writes nothing then."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from install_helpers import REGULAR, SKILL_MD, SYMLINK, archive_with, github_tarball, make_env, tree

from skillshelf.errors import InstallError
from skillshelf.install import install_skill
from skillshelf.install.archive import ArchiveLimits, check_archive, extract_archive
from skillshelf.install.many import install_all
from skillshelf.install.taken import AlreadyInstalledError
from testkit import IsolatedHome

FORMATS = ["zip", "tar.gz"]
ALL_SUFFIXES = ["zip", "skill", "tar", "tar.gz", "tgz", "tar.bz2", "tar.xz"]

HOSTILE = [
    ("dotdot", [("SKILL.md", SKILL_MD, None), ("../evil.txt", b"x", None)], "IS201"),
    ("nested-dotdot", [("a/b/../../../evil.txt", b"x", None)], "IS201"),
    ("absolute", [("/tmp/evil.txt", b"x", None)], "IS202"),
    ("backslash-dotdot", [("..\\evil.txt", b"x", None)], "IS201"),
    ("drive-letter", [("C:/evil.txt", b"x", None)], "IS202"),
    ("symlink-absolute", [("SKILL.md", SKILL_MD, None), ("link", b"/etc/passwd", SYMLINK)], "IS204"),
    ("symlink-up", [("SKILL.md", SKILL_MD, None), ("sub/link", b"../../outside", SYMLINK)], "IS204"),
    (
        "write-through-symlink",
        [("d", b"sub", SYMLINK), ("sub/x", b"1", REGULAR), ("d/y", b"2", REGULAR)],
        "IS204",
    ),
    (
        "chained-symlinks",
        [("p/q/r", b"../../s", SYMLINK), ("t", b"p/q/r/../..", SYMLINK), ("s", b"", REGULAR)],
        "IS204",
    ),
    ("char-device", [("SKILL.md", SKILL_MD, None), ("tty", b"", stat.S_IFCHR | 0o600)], "IS203"),
    ("fifo", [("SKILL.md", SKILL_MD, None), ("pipe", b"", stat.S_IFIFO | 0o600)], "IS203"),
    ("duplicate", [("SKILL.md", SKILL_MD, None), ("SKILL.md", b"again", None)], "IS206"),
    ("name-over-255-bytes", [("SKILL.md", SKILL_MD, None), ("d/" + "a" * 253 + ".md", b"x", None)], "IS207"),
]


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize(("label", "entries", "code"), HOSTILE, ids=[h[0] for h in HOSTILE])
def test_hostile_archive_is_refused_and_nothing_is_written(
    tmp_path: Path, fmt: str, label: str, entries: list[tuple[str, bytes, int | None]], code: str
) -> None:
    archive = archive_with(tmp_path / f"{label}.{fmt}", entries)
    target = tmp_path / "out" / "skill"
    target.parent.mkdir()
    with pytest.raises(InstallError) as caught:
        extract_archive(archive, target)
    assert caught.value.code == code
    assert "nothing was written" in caught.value.message
    assert ("paths stay inside" in caught.value.hint) == (code not in {"IS205", "IS206", "IS207"})
    assert tree(tmp_path / "out") == []
    assert not (tmp_path / "evil.txt").exists()


@pytest.mark.parametrize("fmt", FORMATS)
def test_symlink_that_stays_inside_is_extracted_as_a_symlink(tmp_path: Path, fmt: str) -> None:
    archive = archive_with(
        tmp_path / f"ok.{fmt}",
        [
            ("skill/SKILL.md", SKILL_MD, REGULAR),
            ("skill/docs/guide.md", b"# guide", None),
            ("skill/GUIDE.md", b"docs/guide.md", SYMLINK),
        ],
    )
    target = tmp_path / "out"
    written = extract_archive(archive, target)
    assert written == ("skill/SKILL.md", "skill/docs/guide.md")
    assert (target / "skill" / "GUIDE.md").is_symlink()
    assert (target / "skill" / "GUIDE.md").read_text(encoding="utf-8") == "# guide"


@pytest.mark.parametrize("suffix", ALL_SUFFIXES)
def test_every_archive_kind_extracts_the_same_tree_with_executable_bits(tmp_path: Path, suffix: str) -> None:
    archive = archive_with(
        tmp_path / f"x.{suffix}",
        [
            ("x/", b"", None),
            ("x/SKILL.md", SKILL_MD, None),
            ("x/run.sh", b"#!/bin/sh\n", stat.S_IFREG | 0o755),
            ("x/docs/a.md", b"a", REGULAR),
        ],
    )
    assert extract_archive(archive, tmp_path / "out") == ("x/SKILL.md", "x/run.sh", "x/docs/a.md")
    assert tree(tmp_path / "out") == ["x", "x/SKILL.md", "x/docs", "x/docs/a.md", "x/run.sh"]
    assert (tmp_path / "out" / "x" / "SKILL.md").read_bytes() == SKILL_MD
    assert (tmp_path / "out" / "x" / "run.sh").stat().st_mode & 0o100
    assert not (tmp_path / "out" / "x" / "SKILL.md").stat().st_mode & 0o100


@pytest.mark.parametrize("fmt", FORMATS)
def test_bomb_is_refused_by_the_size_limit_before_writing(tmp_path: Path, fmt: str) -> None:
    archive = archive_with(
        tmp_path / f"bomb.{fmt}", [("SKILL.md", SKILL_MD, None), ("big.bin", b"\0" * 50_000, None)]
    )
    with pytest.raises(InstallError) as caught:
        extract_archive(archive, tmp_path / "out", limits=ArchiveLimits(max_total_bytes=10_000))
    assert caught.value.code == "IS205" and "within the limits" in caught.value.hint
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("fmt", FORMATS)
def test_too_many_entries_is_refused(tmp_path: Path, fmt: str) -> None:
    archive = archive_with(tmp_path / f"many.{fmt}", [(f"f{i}.txt", b"", None) for i in range(20)])
    with pytest.raises(InstallError) as caught:
        check_archive(archive, limits=ArchiveLimits(max_entries=10))
    assert caught.value.code == "IS205" and "within the limits" in caught.value.hint


@pytest.mark.parametrize("name", ["fake.skill", "fake.tar", "fake.tar.gz", "fake.tar.xz"])
def test_file_that_is_not_an_archive_gives_a_clear_error(tmp_path: Path, name: str) -> None:
    fake = tmp_path / name
    fake.write_text("not an archive at all " * 40, encoding="utf-8")
    with pytest.raises(InstallError) as caught:
        extract_archive(fake, tmp_path / "out")
    assert caught.value.code == "IS200"
    assert name in caught.value.message and "nothing was written" in caught.value.message
    assert ("zip" if name.endswith("skill") else "tar") in caught.value.message
    assert caught.value.hint
    assert not (tmp_path / "out").exists()


_part = st.sampled_from(["a", "b", "..", ".", "", "SKILL.md", "x y", "ü"])


@pytest.mark.parametrize("fmt", FORMATS)
@settings(max_examples=80, deadline=None)
@given(
    names=st.lists(
        st.lists(_part, min_size=1, max_size=4).map("/".join).filter(bool), min_size=1, max_size=4
    ),
    lead=st.booleans(),
)
def test_whatever_the_names_nothing_lands_outside_the_target(
    tmp_path_factory: pytest.TempPathFactory, fmt: str, names: list[str], lead: bool
) -> None:
    base = tmp_path_factory.mktemp("prop")
    entries = [(("/" if lead and i == 0 else "") + name, b"data", None) for i, name in enumerate(names)]
    archive = archive_with(base / f"a.{fmt}", entries)
    target = base / "box" / "out"
    target.parent.mkdir()
    try:
        extract_archive(archive, target)
    except InstallError as exc:
        assert exc.code.startswith("IS2")
        assert tree(base / "box") == []
    else:
        assert not any(".." in name.split("/") for name in names)
        for path in (base / "box").rglob("*"):
            assert target in path.parents or path == target
    assert sorted(p.name for p in base.iterdir()) == [f"a.{fmt}", "box"]


def test_an_archive_skill_installed_without_its_top_folder_is_already_installed_from_the_whole(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    """``rel.tgz#skills/alpha`` (the top folder left out) and ``rel.tgz --all`` name one place."""
    skill = b"---\nname: alpha\ndescription: The alpha skill of a release archive.\n---\n# alpha\n"
    archive = github_tarball(tmp_path / "rel.tgz", "rel-1.0", {"skills/alpha/SKILL.md": skill})
    env = make_env(tmp_path, isolated_home.home)
    install_skill(f"{archive}#skills/alpha", env=env, target="codex")

    result = install_all(str(archive), env=env, target="codex")

    assert result.installed == () and [(n.name, n.status) for n in result.not_installed] == [
        ("alpha", "present")
    ]
    again = install_all(str(archive), env=env, target="codex")
    assert again.failed == ()
    with pytest.raises(AlreadyInstalledError):
        install_skill(f"{archive}#rel-1.0/skills/alpha", env=env, target="codex")


def test_a_one_skill_archive_installed_whole_is_already_installed_by_its_top_folder(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    """``one.zip`` (``one/SKILL.md`` inside) and ``one.zip#one`` or ``one.zip --all`` name one place."""
    skill = b"---\nname: one\ndescription: The one skill of a one-skill archive.\n---\n# one\n"
    archive = archive_with(tmp_path / "one.tgz", [("one/SKILL.md", skill, None)])
    env = make_env(tmp_path, isolated_home.home)
    install_skill(str(archive), env=env, target="codex")

    with pytest.raises(AlreadyInstalledError):
        install_skill(f"{archive}#one", env=env, target="codex")
    assert install_all(str(archive), env=env, target="codex").failed == ()


def test_another_folder_of_the_same_archive_is_not_the_same_place(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    """``a.tgz#other/skills/pdf`` is not ``a.tgz#skills/pdf``: the archive has two top folders."""
    first = b"---\nname: pdf\ndescription: The first pdf skill of the archive.\n---\n# one\n"
    second = b"---\nname: pdf\ndescription: The second pdf skill of the archive.\n---\n# two\n"
    entries = [("skills/pdf/SKILL.md", first, None), ("other/skills/pdf/SKILL.md", second, None)]
    archive = archive_with(tmp_path / "a.tgz", entries)
    env = make_env(tmp_path, isolated_home.home)
    install_skill(f"{archive}#skills/pdf", env=env, target="codex")

    with pytest.raises(InstallError) as caught:
        install_skill(f"{archive}#other/skills/pdf", env=env, target="codex")
    assert not isinstance(caught.value, AlreadyInstalledError) and caught.value.code == "IS305"


def test_a_folder_one_level_down_in_a_release_archive_is_not_its_top_folder_spelling(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    """Under the one top folder ``rel-1.0``, ``#x/skills/pdf`` is not ``#skills/pdf``."""
    skill = b"---\nname: pdf\ndescription: A pdf skill of a release archive.\n---\n# pdf\n"
    files = {"skills/pdf/SKILL.md": skill, "x/skills/pdf/SKILL.md": skill.replace(b"# pdf", b"# x")}
    archive = github_tarball(tmp_path / "rel.tgz", "rel-1.0", files)
    env = make_env(tmp_path, isolated_home.home)
    install_skill(f"{archive}#skills/pdf", env=env, target="codex")

    with pytest.raises(InstallError) as caught:
        install_skill(f"{archive}#x/skills/pdf", env=env, target="codex")
    assert not isinstance(caught.value, AlreadyInstalledError) and caught.value.code == "IS305"
