"""Reading SOURCE: folders, archives, git URLs with @ref and #subdir."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from install_helpers import init_repo, write_skill

from skillshelf.errors import InstallError
from skillshelf.install.sources import Source, local_place, parse_source


@pytest.mark.parametrize(
    ("text", "location", "ref", "subdir"),
    [
        ("https://github.com/acme/skills.git", "https://github.com/acme/skills.git", None, None),
        ("https://github.com/acme/skills.git@v1.2.0", "https://github.com/acme/skills.git", "v1.2.0", None),
        (
            "https://github.com/acme/skills.git#skills/pdf",
            "https://github.com/acme/skills.git",
            None,
            "skills/pdf",
        ),
        (
            "https://github.com/acme/skills.git@main#skills/pdf",
            "https://github.com/acme/skills.git",
            "main",
            "skills/pdf",
        ),
        (
            "https://github.com/acme/skills.git#skills/pdf@feature/x",
            "https://github.com/acme/skills.git",
            "feature/x",
            "skills/pdf",
        ),
        ("https://user@example.com/acme/skills.git", "https://example.com/acme/skills.git", None, None),
        ("git@github.com:acme/skills.git", "git@github.com:acme/skills.git", None, None),
        ("git@github.com:acme/skills.git@abc1234#x", "git@github.com:acme/skills.git", "abc1234", "x"),
        ("file:///srv/repos/skills@v2", "file:///srv/repos/skills", "v2", None),
        ("ssh://git@host:2222/r.git@dev", "ssh://git@host:2222/r.git", "dev", None),
        ("gh:acme/skills@v1#skills/pdf", "https://github.com/acme/skills.git", "v1", "skills/pdf"),
        ("github:acme/skills.git", "https://github.com/acme/skills.git", None, None),
        (
            "https://github.com/acme/skills/tree/main/skills/pdf",
            "https://github.com/acme/skills.git",
            "main",
            "skills/pdf",
        ),
        (
            "https://github.com/acme/skills/blob/v1.0/skills/pdf/SKILL.md?plain=1",
            "https://github.com/acme/skills.git",
            "v1.0",
            "skills/pdf",
        ),
        ("https://github.com/acme/skills/tree/dev/", "https://github.com/acme/skills.git", "dev", None),
        (
            "https://github.com/acme/skills/tree/main/my%20skills/pdf/",
            "https://github.com/acme/skills.git",
            "main",
            "my skills/pdf",
        ),
        (
            "https://gitlab.com/acme/tools/skills/-/tree/main/skills/pdf",
            "https://gitlab.com/acme/tools/skills.git",
            "main",
            "skills/pdf",
        ),
        ("https://github.com/acme/skills", "https://github.com/acme/skills", None, None),
        ("git+https://h.example/o/r.git#skills/pdf", "https://h.example/o/r.git", None, "skills/pdf"),
        ("GIT+HTTP://h.example/o/r.git@v1", "http://h.example/o/r.git", "v1", None),
        ("git+ssh://git@h.example/o/r.git", "ssh://git@h.example/o/r.git", None, None),
    ],
)
def test_git_urls_split_into_location_ref_and_subdir(
    tmp_path: Path, text: str, location: str, ref: str | None, subdir: str | None
) -> None:
    source = parse_source(text, cwd=tmp_path)
    assert (source.kind, source.location, source.ref, source.subdir) == ("git", location, ref, subdir)


def test_local_folder_and_archive_are_recognised_relative_to_cwd(tmp_path: Path) -> None:
    write_skill(tmp_path / "mine", "mine")
    (tmp_path / "pack.skill").write_bytes(b"PK")
    assert parse_source("mine", cwd=tmp_path) == Source(
        kind="folder", location=str((tmp_path / "mine").resolve())
    )
    assert parse_source("pack.skill#inner", cwd=tmp_path).kind == "archive"
    assert parse_source("mine/SKILL.md", cwd=tmp_path).location == str((tmp_path / "mine").resolve())


@pytest.mark.parametrize("name", ["pack.tar", "pack.tar.gz", "pack.TGZ", "pack.tar.bz2", "pack.tar.xz"])
def test_local_tar_archives_are_recognised_by_their_whole_suffix(tmp_path: Path, name: str) -> None:
    (tmp_path / name).write_bytes(b"")
    assert parse_source(f"{name}#inner", cwd=tmp_path) == Source(
        kind="archive", location=str((tmp_path / name).resolve()), subdir="inner"
    )


@pytest.mark.parametrize("query", ["", "?X-Amz-Signature=ab12&X-Amz-Expires=300"])
@pytest.mark.parametrize("suffix", [".tar.gz", ".tgz", ".tar.xz", ".tar.bz2", ".tar", ".zip"])
def test_archive_urls_are_archives_not_git(tmp_path: Path, suffix: str, query: str) -> None:
    url = f"https://github.com/acme/skills/archive/refs/tags/v1.0{suffix}"
    source = parse_source(f"{url}{query}#skills/pdf", cwd=tmp_path)
    recorded = query.replace("X-Amz-Signature=ab12&", "")  # the signature is fetched with, not kept
    assert source == Source(kind="archive", location=f"{url}{recorded}", subdir="skills/pdf")
    assert source.fetch_location == f"{url}{query}"


def test_a_file_that_is_no_archive_names_the_kinds_that_are(tmp_path: Path) -> None:
    (tmp_path / "notes.gz").write_bytes(b"")
    with pytest.raises(InstallError) as caught:
        parse_source("notes.gz", cwd=tmp_path)
    assert caught.value.code == "IS101"
    assert ".tar.gz" in caught.value.message and ".zip" in caught.value.message
    assert ".tgz" in caught.value.hint


def test_local_git_repository_with_ref_becomes_a_file_url(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo")
    source = parse_source("repo@v1#skills/a", cwd=tmp_path)
    assert source == Source(kind="git", location=repo.resolve().as_uri(), ref="v1", subdir="skills/a")


def test_ref_on_a_plain_folder_is_refused(tmp_path: Path) -> None:
    write_skill(tmp_path / "plain", "plain")
    with pytest.raises(InstallError) as caught:
        parse_source("plain@v1", cwd=tmp_path)
    assert caught.value.code == "IS101"


@pytest.mark.parametrize("text", ["", "   ", "no-such-thing", "https://x.org/r.git@a#b@c", "gh:just-owner"])
def test_unusable_sources_give_a_coded_error_with_a_hint(tmp_path: Path, text: str) -> None:
    with pytest.raises(InstallError) as caught:
        parse_source(text, cwd=tmp_path)
    assert caught.value.code == "IS101"
    assert caught.value.hint


@pytest.mark.parametrize("fragment", ["../up", "a/../../b", "/abs"])
def test_subdir_that_leaves_the_source_is_refused(tmp_path: Path, fragment: str) -> None:
    with pytest.raises(InstallError) as caught:
        parse_source(f"https://example.com/r.git#{fragment}", cwd=tmp_path)
    assert caught.value.code == "IS102"


_segment = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-_", min_size=1, max_size=8)


@given(
    repo=_segment,
    ref=st.none() | st.lists(_segment, min_size=1, max_size=3).map("/".join),
    subdir=st.none() | st.lists(_segment, min_size=1, max_size=3).map("/".join),
)
def test_canonical_text_reads_back_to_the_same_source(repo: str, ref: str | None, subdir: str | None) -> None:
    source = Source(kind="git", location=f"https://example.com/acme/{repo}.git", ref=ref, subdir=subdir)
    assert parse_source(source.text, cwd=Path("/nonexistent-cwd")) == source


@pytest.mark.parametrize(
    ("location", "expected"),
    [
        ("/home/me/skills/pdf", "/home/me/skills/pdf"),
        ("file:///home/me/repo%20one", "/home/me/repo one"),
        ("FILE:///srv/repo", "/srv/repo"),
        ("https://github.com/o/r.git", None),
        ("ssh://git@host/o/r", None),
        ("git@github.com:o/r.git", None),
    ],
)
def test_local_place_finds_the_disk_path_of_a_recorded_source(location: str, expected: str | None) -> None:
    place = local_place(location)
    assert (None if place is None else place.as_posix()) == expected
