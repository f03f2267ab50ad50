"""The lock file round-trips, is written atomically, and bad files give coded errors."""

from __future__ import annotations

import os
from pathlib import Path
from types import MappingProxyType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillshelf.errors import InstallError
from skillshelf.install.lock import LOCK_FILE_NAME, Lock, LockEntry, content_hash, read_lock, write_lock

_text = st.text(min_size=1, max_size=40).filter(lambda s: "\x00" not in s)
_name = st.from_regex(r"[a-z0-9][a-z0-9._-]{0,19}", fullmatch=True)
_entry = st.builds(
    LockEntry,
    name=_name,
    skill_name=_text,
    source=_text,
    kind=st.sampled_from(["folder", "git", "archive"]),
    location=_text,
    subdir=st.none() | _text,
    ref=st.none() | _text,
    commit=st.none() | st.text(alphabet="0123456789abcdef", min_size=40, max_size=40),
    content_hash=st.text(alphabet="0123456789abcdef", min_size=64, max_size=64).map(lambda h: f"sha256:{h}"),
    installed_at=st.just("2026-11-29T18:00:00+00:00"),
)


@settings(max_examples=60, deadline=None)
@given(entries=st.lists(_entry, max_size=5, unique_by=lambda e: e.name))
def test_lock_round_trips_through_the_file(
    tmp_path_factory: pytest.TempPathFactory, entries: list[LockEntry]
) -> None:
    root = tmp_path_factory.mktemp("root")
    lock = Lock(entries=MappingProxyType({e.name: e for e in entries}))
    write_lock(root, lock)
    again = read_lock(root)
    assert dict(again.entries) == dict(lock.entries)
    assert [e.name for e in again] == sorted(e.name for e in entries)
    assert not [p for p in root.iterdir() if p.name.endswith(".tmp")]


def test_missing_lock_is_empty_and_empty_lock_removes_the_file(tmp_path: Path) -> None:
    assert read_lock(tmp_path).entries == {}
    entry = LockEntry(
        name="a",
        skill_name="a",
        source="/x",
        kind="folder",
        location="/x",
        content_hash="sha256:0",
        installed_at="t",
    )
    write_lock(tmp_path, Lock().with_entry(entry))
    assert (tmp_path / LOCK_FILE_NAME).is_file()
    write_lock(tmp_path, read_lock(tmp_path).without("a"))
    assert not (tmp_path / LOCK_FILE_NAME).exists()


@pytest.mark.parametrize(
    "text",
    [
        '{"version": 1, "skills": {',
        "[]",
        '{"version": 99, "skills": {}}',
        '{"version": 1, "skills": ' * 5000,
    ],
)
def test_broken_lock_file_gives_a_coded_error_and_is_left_alone(tmp_path: Path, text: str) -> None:
    (tmp_path / LOCK_FILE_NAME).write_text(text, encoding="utf-8")
    with pytest.raises(InstallError) as caught:
        read_lock(tmp_path)
    assert caught.value.code == "IS401"
    assert caught.value.hint
    assert (tmp_path / LOCK_FILE_NAME).read_text(encoding="utf-8") == text


def test_content_hash_sees_edits_new_files_modes_and_links_but_not_dot_git(tmp_path: Path) -> None:
    folder = tmp_path / "skill"
    folder.mkdir()
    (folder / "SKILL.md").write_text("one", encoding="utf-8")
    seen = {content_hash(folder)}
    (folder / ".git").mkdir()
    (folder / ".git" / "HEAD").write_text("ref", encoding="utf-8")
    assert content_hash(folder) in seen
    (folder / "SKILL.md").write_text("two", encoding="utf-8")
    seen.add(content_hash(folder))
    (folder / "run.sh").write_text("echo", encoding="utf-8")
    seen.add(content_hash(folder))
    os.chmod(folder / "run.sh", 0o755)
    seen.add(content_hash(folder))
    (folder / "link").symlink_to("SKILL.md")
    seen.add(content_hash(folder))
    assert len(seen) == 5
