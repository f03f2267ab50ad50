"""The lock file round-trips, is written atomically, and bad files give coded errors."""

from __future__ import annotations

import os
from pathlib import Path
from types import MappingProxyType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillshelf.errors import InstallError
from skillshelf.install.lock import (
    LOCK_FILE_NAME,
    Lock,
    LockEntry,
    content_hash,
    lock_diagnostics,
    read_lock,
    write_lock,
)

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


def test_content_hash_of_a_folder_without_git_stays_what_earlier_locks_recorded(tmp_path: Path) -> None:
    folder = tmp_path / "skill"
    (folder / "sub").mkdir(parents=True)
    (folder / "SKILL.md").write_text("one", encoding="utf-8")
    os.chmod(folder / "SKILL.md", 0o644)
    (folder / "sub" / "run.sh").write_text("echo", encoding="utf-8")
    os.chmod(folder / "sub" / "run.sh", 0o755)
    (folder / "sub" / "link").symlink_to("../SKILL.md")
    recorded = "sha256:6b3681ea5f6875301dc5a2479c8565436d313b274b695b0509585ca8869dabc2"
    assert content_hash(folder) == content_hash(folder, with_git=True) == recorded


def _lock_with(tmp_path: Path, entry_text: str) -> Path:
    (tmp_path / LOCK_FILE_NAME).write_text(
        f'{{"version": 1, "skills": {{"p": {entry_text}}}}}', encoding="utf-8"
    )
    return tmp_path


_FIELDS = '"source": "/s", "kind": "folder", "location": "/s", "installed_at": "t"'


@pytest.mark.parametrize(
    ("value", "said"),
    [("5", "content_hash is a number, not text"), ("null", "content_hash is null, not text")],
)
def test_an_entry_field_of_the_wrong_type_is_named_as_such(tmp_path: Path, value: str, said: str) -> None:
    lock = read_lock(_lock_with(tmp_path, f'{{{_FIELDS}, "content_hash": {value}}}'))
    assert lock.get("p") is None
    (problem,) = lock.diagnostics
    assert problem.code == "IS403" and problem.message.endswith(said)
    missing = read_lock(_lock_with(tmp_path, f"{{{_FIELDS}}}")).diagnostics
    assert missing[0].message.endswith("it lacks content_hash")


def test_a_repeated_key_is_reported_and_the_last_one_is_used(tmp_path: Path) -> None:
    entry = f'{{{_FIELDS}, "content_hash": "sha256:0", "kind": "git"}}'
    text = f'{{"version": 1, "skills": {{"p": {{"kind": "folder"}}, "p": {entry}}}}}'
    (tmp_path / LOCK_FILE_NAME).write_text(text, encoding="utf-8")
    lock = read_lock(tmp_path)
    used = lock.get("p")
    assert used is not None and used.kind == "git"
    (repeated,) = lock.diagnostics
    assert repeated.code == "IS409" and "'kind', 'p';" in repeated.message


def test_many_repeated_keys_are_reported_in_one_finding(tmp_path: Path) -> None:
    pairs = ", ".join(f'"k{n}": 1, "k{n}": 2' for n in range(20_000))
    (tmp_path / LOCK_FILE_NAME).write_text(f'{{"version": 1, "skills": {{}}, "x": {{{pairs}}}}}', "utf-8")
    (repeated,) = read_lock(tmp_path).diagnostics
    assert (
        repeated.code == "IS409"
        and repeated.message.count("'k") == 5
        and "and 19995 more" in repeated.message
    )


def test_an_unreadable_lock_is_reported_naming_its_path_once(tmp_path: Path) -> None:
    (tmp_path / LOCK_FILE_NAME).write_text("{", encoding="utf-8")
    (problem,) = lock_diagnostics([tmp_path, tmp_path])
    assert problem.code == "IS401" and problem.path == tmp_path / LOCK_FILE_NAME
    assert str(tmp_path) not in problem.message and problem.message.startswith("lock file cannot be read")
