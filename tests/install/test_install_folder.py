"""Installing from folders and archives: validation first, atomic, names, --force."""

from __future__ import annotations

from pathlib import Path

import pytest
from install_helpers import (
    REGULAR,
    SKILL_MD,
    SYMLINK,
    archive_with,
    github_tarball,
    make_env,
    tree,
    write_skill,
)

from skillshelf.errors import InstallError, UsageError
from skillshelf.install import install_skill, read_lock
from skillshelf.install.installer import SkillValidationError
from testkit import IsolatedHome, zip_with


def _root() -> Path:
    """Where a user-scope install goes by default here (no agent found: Codex's folder)."""
    return Path.home() / ".agents" / "skills"


def test_folder_install_copies_everything_and_locks_it(tmp_path: Path, isolated_home: IsolatedHome) -> None:
    src = write_skill(tmp_path / "src" / "changelog", "changelog")
    (src / "references").mkdir()
    (src / "references" / "style.md").write_text("# style\n", encoding="utf-8")
    (src / "STYLE.md").symlink_to("references/style.md")
    result = install_skill(str(src), env=make_env(tmp_path, isolated_home.home))
    assert tree(result.path) == ["SKILL.md", "STYLE.md", "references", "references/style.md"]
    assert (result.path / "STYLE.md").is_symlink()
    assert result.files == 2
    entry = read_lock(_root()).get("changelog")
    assert entry is not None and entry.kind == "folder" and entry.commit is None


@pytest.mark.parametrize("name", ["zipped.skill", "zipped.tgz"])
def test_archive_install_with_top_folder(tmp_path: Path, isolated_home: IsolatedHome, name: str) -> None:
    archive = archive_with(
        tmp_path / name, [("zipped/SKILL.md", SKILL_MD, REGULAR), ("zipped/notes.md", b"n", None)]
    )
    result = install_skill(str(archive), env=make_env(tmp_path, isolated_home.home))
    assert result.path == _root() / "zipped"
    assert tree(result.path) == ["SKILL.md", "notes.md"]


def test_hostile_archive_install_leaves_nothing_behind(tmp_path: Path, isolated_home: IsolatedHome) -> None:
    archive = zip_with(tmp_path / "evil.zip", [("SKILL.md", SKILL_MD, None), ("x", b"/etc/passwd", SYMLINK)])
    with pytest.raises(InstallError) as caught:
        install_skill(str(archive), env=make_env(tmp_path, isolated_home.home))
    assert caught.value.code == "IS204"
    assert tree(_root().parent) in ([], ["skills"])


def test_skill_that_fails_validation_leaves_nothing_behind(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    src = tmp_path / "broken"
    src.mkdir()
    (src / "SKILL.md").write_text("---\nname: broken\n---\nno description at all\n", encoding="utf-8")
    with pytest.raises(SkillValidationError) as caught:
        install_skill(str(src), env=make_env(tmp_path, isolated_home.home))
    assert caught.value.code == "IS320"
    assert caught.value.diagnostics
    assert all(d.path is None or src in d.path.parents or d.path == src for d in caught.value.diagnostics)
    assert tree(_root().parent) in ([], ["skills"])


def test_interrupted_copy_leaves_no_skill_and_no_temp_files(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    src = write_skill(tmp_path / "big", "big")
    for i in range(5):
        (src / f"part{i}.md").write_text(f"part {i}\n", encoding="utf-8")
    copied: list[Path] = []

    def flaky_copy(a: Path, b: Path) -> None:
        if len(copied) == 3:
            raise KeyboardInterrupt  # the user pressed Ctrl-C half-way through
        b.write_bytes(a.read_bytes())
        copied.append(b)

    with pytest.raises(KeyboardInterrupt):
        install_skill(str(src), env=make_env(tmp_path, isolated_home.home), copy_file=flaky_copy)
    assert len(copied) == 3
    assert tree(_root()) == []
    assert not (_root().parent / ".skillshelf-tmp").exists()


def test_interrupted_replace_keeps_the_old_version(tmp_path: Path, isolated_home: IsolatedHome) -> None:
    src = write_skill(tmp_path / "tool", "tool", body="old body")
    env = make_env(tmp_path, isolated_home.home)
    install_skill(str(src), env=env)
    write_skill(src, "tool", body="new body")

    def failing_copy(a: Path, b: Path) -> None:
        raise OSError("disk full")

    with pytest.raises(InstallError, match="disk full") as caught:
        install_skill(str(src), env=env, force=True, copy_file=failing_copy)
    assert caught.value.code == "IS307" and "nothing was changed" in caught.value.message
    assert "old body" in (_root() / "tool" / "SKILL.md").read_text(encoding="utf-8")


def test_name_taken_needs_force_and_force_replaces(tmp_path: Path, isolated_home: IsolatedHome) -> None:
    src = write_skill(tmp_path / "tool", "tool", body="first")
    env = make_env(tmp_path, isolated_home.home)
    install_skill(str(src), env=env)
    write_skill(src, "tool", body="second")
    with pytest.raises(InstallError) as caught:
        install_skill(str(src), env=env)
    assert caught.value.code == "IS305"
    assert "first" in (_root() / "tool" / "SKILL.md").read_text(encoding="utf-8")
    result = install_skill(str(src), env=env, force=True)
    assert result.replaced
    assert "second" in (_root() / "tool" / "SKILL.md").read_text(encoding="utf-8")
    assert sorted(p.name for p in _root().iterdir()) == [".skillshelf-lock.json", "tool"]


def test_name_option_installs_beside_and_rejects_path_like_names(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    src = write_skill(tmp_path / "tool", "tool")
    env = make_env(tmp_path, isolated_home.home)
    install_skill(str(src), env=env)
    other = install_skill(str(src), env=env, name="tool-copy")
    assert other.path == _root() / "tool-copy"
    assert read_lock(_root()).get("tool-copy") is not None
    for bad in ("../escape", "a/b", ".hidden", "", "a" * 129):
        with pytest.raises(UsageError) as caught:
            install_skill(str(src), env=env, name=bad or " ")
        assert "at most 128 " in caught.value.hint


def test_fifo_in_source_folder_is_refused(tmp_path: Path, isolated_home: IsolatedHome) -> None:
    import os

    src = write_skill(tmp_path / "piped", "piped")
    os.mkfifo(src / "pipe")
    with pytest.raises(InstallError) as caught:
        install_skill(str(src), env=make_env(tmp_path, isolated_home.home))
    assert caught.value.code == "IS303"
    assert tree(_root()) == []


@pytest.mark.parametrize(
    ("name", "query"), [("remote.skill", ""), ("v1.0.tar.gz", ""), ("v1.0.tar.gz", "?token=ab12&expires=300")]
)
def test_archive_over_http_is_downloaded_and_installed(
    tmp_path: Path, isolated_home: IsolatedHome, name: str, query: str
) -> None:
    import functools
    import http.server
    import threading

    served = tmp_path / "served"
    served.mkdir()
    if name.endswith(".skill"):
        zip_with(served / name, [("SKILL.md", SKILL_MD, None), ("notes.md", b"n", None)])
    else:  # GitHub's "Source code (tar.gz)": a pax global header and one top folder
        github_tarball(served / name, "skills-1.0", {"SKILL.md": SKILL_MD, "notes.md": b"n"})

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

    handler = functools.partial(Quiet, directory=str(served))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}"
        env = make_env(tmp_path, isolated_home.home)
        result = install_skill(f"{url}/{name}{query}", env=env)  # a signed download's token left out
        recorded = query.replace("token=ab12&", "")
        assert result.entry.kind == "archive" and result.entry.location == f"{url}/{name}{recorded}"
        assert ("IS130" in [d.code for d in result.diagnostics]) == bool(query)
        assert "ab12" not in (result.path.parent / ".skillshelf-lock.json").read_text(encoding="utf-8")
        assert result.path == _root() / "zipped"
        assert (result.path / "SKILL.md").read_bytes() == SKILL_MD
        assert tree(result.path) == ["SKILL.md", "notes.md"]
        with pytest.raises(InstallError) as caught:
            install_skill(f"{url}/missing.zip?token=sekrit-9876", env=env, name="other")
        assert caught.value.code == "IS105" and "missing.zip" in caught.value.message
        assert "sekrit" not in str(caught.value)
    finally:
        server.shutdown()
        server.server_close()


def test_concurrent_installs_into_one_root_lose_no_lock_entry(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    import threading

    env = make_env(tmp_path, isolated_home.home)
    sources = [write_skill(tmp_path / "many" / f"s{i}", f"s{i}") for i in range(6)]
    errors: list[BaseException] = []

    def run(src: Path) -> None:
        try:
            install_skill(str(src), env=env)
        except BaseException as exc:  # collected and re-checked below
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(src,)) for src in sources]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert sorted(read_lock(_root()).entries) == [f"s{i}" for i in range(6)]


def test_symlink_loop_in_source_is_refused(tmp_path: Path, isolated_home: IsolatedHome) -> None:
    src = write_skill(tmp_path / "loopy", "loopy")
    (src / "a").symlink_to("b")
    (src / "b").symlink_to("a")
    with pytest.raises(InstallError) as caught:
        install_skill(str(src), env=make_env(tmp_path, isolated_home.home))
    assert caught.value.code == "IS302"
    assert tree(_root()) == []


def test_a_subdir_that_is_a_loop_of_symlinks_is_refused(tmp_path: Path, isolated_home: IsolatedHome) -> None:
    src = tmp_path / "looped"
    src.mkdir()
    (src / "a").symlink_to("b")
    (src / "b").symlink_to("a")
    with pytest.raises(InstallError) as caught:
        install_skill(f"{src}#a", env=make_env(tmp_path, isolated_home.home))
    assert caught.value.code == "IS102"
    assert tree(_root()) == []


def test_damaged_archive_gives_a_clear_error(tmp_path: Path, isolated_home: IsolatedHome) -> None:
    archive = zip_with(tmp_path / "damaged.zip", [("SKILL.md", SKILL_MD * 20, None)])
    data = bytearray(archive.read_bytes())
    start = data.index(b"---\nname: zipped")
    data[start : start + 8] = b"XXXXXXXX"  # the bytes no longer match the stored CRC
    archive.write_bytes(bytes(data))
    with pytest.raises(InstallError) as caught:
        install_skill(str(archive), env=make_env(tmp_path, isolated_home.home))
    assert caught.value.code == "IS200"
    assert tree(_root()) == []


@pytest.mark.parametrize("subdir", ["skills/pdf", "repo-1.0/skills/pdf"])
def test_a_subfolder_of_a_release_archive_is_found_with_or_without_its_top_folder(
    tmp_path: Path, isolated_home: IsolatedHome, subdir: str
) -> None:
    files = {"README.md": b"# skills\n", "skills/pdf/SKILL.md": SKILL_MD, "skills/pdf/notes.md": b"n"}
    archive = github_tarball(tmp_path / "repo-1.0.tar.gz", "repo-1.0", files)
    result = install_skill(f"{archive}#{subdir}", env=make_env(tmp_path, isolated_home.home))
    assert tree(result.path) == ["SKILL.md", "notes.md"] and result.entry.subdir == subdir
    with pytest.raises(InstallError) as caught:
        install_skill(f"{archive}#skills/none", env=make_env(tmp_path, isolated_home.home), name="other")
    assert caught.value.code == "IS103"
