"""A lock entry an older version wrote with a password or token in its source URL: every path
that reads it shows the URL without it, and install and update record it again without it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from install_helpers import commit_all, init_repo, make_env, write_skill

from skillshelf.env import Env
from skillshelf.install import install_skill, remove_skill, update_skills
from skillshelf.install.provenance import installed_provenance
from skillshelf.install.taken import AlreadyInstalledError
from skillshelf.workspace import Workspace
from testkit import IsolatedHome


def _secret() -> str:
    return "Pw" + "7q" * 6  # built at run time, never a secret-shaped literal


def _old_entry(tmp_path: Path, home: Path, location_of: str) -> tuple[Env, Path, str, str]:
    """``skills/pdf`` of a local repository installed for Codex, its lock entry then rewritten
    as an older version recorded it: ``location_of`` (``{url}`` in it: the repository's
    ``file://`` URL without a host) as its location, source and pack. The env, the lock file,
    the URL as recorded and the secret in it."""
    repo = init_repo(tmp_path / "repo")
    write_skill(repo / "skills" / "pdf", "pdf")
    commit_all(repo, "pdf")
    env = make_env(tmp_path, home)
    url = f"file://{repo}"
    installed = install_skill(f"{url}#skills/pdf", env=env, target="codex")
    lock_file = installed.path.parent / ".skillshelf-lock.json"
    secret = _secret()
    old = location_of.format(url=url.removeprefix("file://"), secret=secret)
    data = json.loads(lock_file.read_text(encoding="utf-8"))
    entry = data["skills"]["pdf"]
    entry.update(location=old, source=f"{old}#skills/pdf", pack=old)
    lock_file.write_text(json.dumps(data), encoding="utf-8")
    return env, lock_file, old, secret


_PASSWORD = "file://alice:{secret}@localhost{url}"  # git reads it offline, as it would https


def test_installing_again_shows_and_keeps_an_old_entrys_password_nowhere(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    env, lock_file, old, secret = _old_entry(tmp_path, isolated_home.home, _PASSWORD)

    with pytest.raises(AlreadyInstalledError) as caught:
        install_skill(f"{old}#skills/pdf", env=env, target="codex")

    assert secret not in caught.value.message + caught.value.hint + json.dumps(caught.value.entry.to_dict())
    assert [d.code for d in caught.value.diagnostics] == ["IS130"]
    assert secret not in lock_file.read_text(encoding="utf-8")


def test_an_update_that_finds_the_skill_up_to_date_records_an_old_entry_without_its_password(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    env, lock_file, _old, secret = _old_entry(tmp_path, isolated_home.home, _PASSWORD)

    (checked,) = update_skills(env=env, check=True)
    assert checked.status == "up-to-date" and secret in lock_file.read_text(encoding="utf-8")
    (result,) = update_skills(env=env)

    assert result.status == "up-to-date" and "IS130" in result.message
    assert secret not in lock_file.read_text(encoding="utf-8")


def test_update_keeps_an_old_entrys_query_token_out_of_gits_error_and_the_lock(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    env, lock_file, _old, secret = _old_entry(
        tmp_path, isolated_home.home, "https://127.0.0.1:9/o/r.git?private_token={secret}"
    )

    for check in (True, False):
        (result,) = update_skills(env=env, check=check)
        assert result.status == "failed" and "127.0.0.1:9/o/r.git" in result.message
        assert secret not in result.message
    assert secret not in lock_file.read_text(encoding="utf-8")


def test_list_and_remove_show_an_old_entrys_token_user_part_nowhere(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    token = "0123456789abcdef" * 2 + "01234567"  # a classic GitHub token's shape, 40 hex digits
    old = "https://" + token + "@github.com/o/r.git"
    env, _lock, _old, _secret = _old_entry(tmp_path, isolated_home.home, old)

    (info,) = installed_provenance(Workspace.open(env).skills.loadable, env).values()
    removed = remove_skill("pdf", env=env)

    assert token not in json.dumps(info.to_dict()) + json.dumps(removed.to_dict())
    assert info.pack == "https://github.com/o/r.git"


def test_a_pack_recorded_with_a_token_is_written_without_it_and_keeps_its_skills(
    tmp_path: Path,
) -> None:
    from skillshelf.install.lock import read_lock, write_without_secrets

    old, safe = f"https://x:{_secret()}@h.example/o/r.git", "https://h.example/o/r.git"
    entry = {"source": f"{old}#pdf", "kind": "git", "location": old, "subdir": "pdf", "pack": old}
    entry |= {"content_hash": "sha256:0", "installed_at": "2026-01-01T00:00:00+00:00"}
    record = {"kind": "git", "location": old, "places": ["pdf"], "checked_at": "2026-01-01T00:00:00+00:00"}
    lock_file = tmp_path / ".skillshelf-lock.json"
    lock_file.write_text(
        json.dumps({"version": 1, "skills": {"pdf": entry}, "packs": {old: record}}), "utf-8"
    )

    assert write_without_secrets(tmp_path) == ("pdf", safe)

    written = json.loads(lock_file.read_text(encoding="utf-8"))
    assert _secret() not in json.dumps(written) and list(written["packs"]) == [safe]
    assert written["skills"]["pdf"]["source"] == f"{safe}#pdf" and read_lock(tmp_path).members(safe)


def _pack_record(location: str, places: list[str], commit: str | None = None) -> dict[str, object]:
    return {
        "kind": "git",
        "location": location,
        "commit": commit,
        "places": places,
        "checked_at": "2026-01-01",
    }


def _lock_with_packs(folder: Path, packs: dict[str, dict[str, object]], pack_key: str) -> Path:
    """A lock file in ``folder`` whose one skill ``pdf`` names the pack ``pack_key``."""
    location = str(packs[pack_key]["location"])
    entry = {"source": f"{location}#pdf", "kind": "git", "location": location, "subdir": "pdf"}
    entry |= {"pack": pack_key, "content_hash": "sha256:0", "installed_at": "2026-01-01T00:00:00+00:00"}
    lock_file = folder / ".skillshelf-lock.json"
    lock_file.write_text(json.dumps({"version": 1, "skills": {"pdf": entry}, "packs": packs}), "utf-8")
    return lock_file


def test_two_pack_records_that_differ_only_in_their_token_are_merged_keeping_every_removed_skill(
    tmp_path: Path,
) -> None:
    from skillshelf.install.lock import read_lock, write_without_secrets

    one, other = f"https://x:{_secret()}1@h.example/o/r.git", f"https://x:{_secret()}2@h.example/o/r.git"
    safe = "https://h.example/o/r.git"
    packs = {
        one: _pack_record(one, ["pdf", "xls"], "a" * 40),
        other: _pack_record(other, ["pdf", "doc"], "b" * 40),
    }
    lock_file = _lock_with_packs(tmp_path, packs, one)

    lock = read_lock(tmp_path)

    assert list(lock.packs) == [safe] and sorted(lock.packs[safe].places) == ["doc", "pdf", "xls"]
    assert lock.packs[safe].commit is None  # the places were not read at one commit
    (merged,) = [d for d in lock.diagnostics if d.code == "IS410"]
    assert safe in merged.message and _secret() not in merged.message + (merged.fix or "")
    assert safe in write_without_secrets(tmp_path)
    written = json.loads(lock_file.read_text(encoding="utf-8"))
    assert list(written["packs"]) == [safe] and sorted(written["packs"][safe]["places"]) == [
        "doc",
        "pdf",
        "xls",
    ]
    assert _secret() not in json.dumps(written)


def test_a_pack_record_with_a_token_beside_the_same_pack_recorded_without_it_is_merged_and_written_without_it(
    tmp_path: Path,
) -> None:
    from skillshelf.install.lock import read_lock, write_without_secrets

    old, safe = f"https://x:{_secret()}@h.example/o/r.git", "https://h.example/o/r.git"
    commit = "c" * 40
    lock_file = _lock_with_packs(
        tmp_path,
        {safe: _pack_record(safe, ["pdf"], commit), old: _pack_record(old, ["pdf", "xls"], commit)},
        safe,
    )

    lock = read_lock(tmp_path)

    assert sorted(lock.packs[safe].places) == ["pdf", "xls"] and lock.packs[safe].commit == commit
    assert [d.code for d in lock.diagnostics] == ["IS410"]
    assert write_without_secrets(tmp_path) == (safe,)
    assert _secret() not in lock_file.read_text(encoding="utf-8")


def test_update_does_not_bring_back_a_skill_removed_in_either_of_two_pack_records_that_differ_in_their_token(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    from skillshelf.install.many import install_all

    repo = init_repo(tmp_path / "repo")
    for name in ("pdf", "xls"):
        write_skill(repo / name, name)
    commit_all(repo, "two")
    env = make_env(tmp_path, isolated_home.home)
    install_all(f"file://{repo}", env=env, target="codex")
    remove_skill("xls", env=env)
    lock_file = isolated_home.home / ".agents" / "skills" / ".skillshelf-lock.json"
    data = json.loads(lock_file.read_text(encoding="utf-8"))
    ((_key, record),) = data["packs"].items()
    one, other = (f"file://alice:{_secret()}{n}@localhost{repo}" for n in (1, 2))
    data["skills"]["pdf"].update(location=one, source=one, pack=one)
    data["packs"] = {one: dict(record, location=one), other: dict(record, location=other, places=["pdf"])}
    lock_file.write_text(json.dumps(data), encoding="utf-8")
    write_skill(repo / "pdf", "pdf", body="second version")
    commit_all(repo, "pdf changed")

    results = update_skills(env=env)

    assert "xls" not in [r.name for r in results] and not (lock_file.parent / "xls").exists()
    assert _secret() not in lock_file.read_text(encoding="utf-8")
