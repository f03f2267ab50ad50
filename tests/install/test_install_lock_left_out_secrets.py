"""Lock entries and pack records left out (``IS402``, ``IS403``) are kept through every rewrite of
the file, but never with a password or token of a URL in them: the rewrite drops it (the rest of
the entry stays as it was) and no message names it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from install_helpers import make_env, run_cli, write_skill

from skillshelf.install import install_skill, remove_skill, update_skills
from skillshelf.install.lock import (
    LOCK_FILE_NAME,
    lock_diagnostics,
    read_lock,
    write_lock,
    write_without_secrets,
)
from skillshelf.install.lock_secrets import raw_without_secrets
from testkit import IsolatedHome

_AT = "2026-01-01T00:00:00+00:00"


def _secret() -> str:
    return "Pw" + "7q" * 6  # built at run time, never a secret-shaped literal


def _good(location: str = "https://h.example/o/r.git") -> dict[str, str]:
    return {
        "source": f"{location}#pdf",
        "kind": "git",
        "location": location,
        "content_hash": "sha256:0",
        "installed_at": _AT,
    }


def _left_out() -> dict[str, object]:
    """Entries a lock leaves out, each with the secret in a URL: a missing field, a URL key, a
    text, a list, and an object nested in it."""
    old = f"https://x:{_secret()}@h.example/o/r.git"
    return {
        "bad": {"source": f"{old}#pdf", "kind": "git", "location": old, "pack": old, "installed_at": _AT},
        f"https://tok:{_secret()}@h.example/x": _good(),
        "text": f"https://u:{_secret()}@h.example/r.git",
        "listed": [1, None, True, f"see ssh://git:{_secret()}@h.example/r.git?private_token={_secret()}"],
        "nested": {"content_hash": 5, "extra": {f"https://k:{_secret()}@h/": [f"http://a:{_secret()}@h/"]}},
    }


def _write(root: Path, skills: dict[str, object], packs: dict[str, object] | None = None) -> Path:
    path = root / LOCK_FILE_NAME
    data = {"version": 1, "skills": skills, **({"packs": packs} if packs else {})}
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_a_rewrite_keeps_left_out_entries_without_the_secrets_of_their_urls(tmp_path: Path) -> None:
    path = _write(tmp_path, {"pdf": _good(), **_left_out()})

    lock = read_lock(tmp_path)
    write_lock(tmp_path, lock.without("pdf"))

    text = path.read_text(encoding="utf-8")
    assert _secret() not in text
    skills = json.loads(text)["skills"]
    assert skills == {
        "bad": {
            "source": "https://h.example/o/r.git#pdf",
            "kind": "git",
            "location": "https://h.example/o/r.git",
            "pack": "https://h.example/o/r.git",
            "installed_at": _AT,
            "credentials": ["password"],
        },
        "https://h.example/x": _good(),
        "text": "https://h.example/r.git",
        "listed": [1, None, True, "see ssh://git@h.example/r.git"],
        "nested": {"content_hash": 5, "extra": {"https://h/": ["http://h/"]}},
    }


def test_write_without_secrets_rewrites_a_lock_whose_only_secret_is_in_a_left_out_entry(
    tmp_path: Path,
) -> None:
    path = _write(tmp_path, {"pdf": _good(), **_left_out()})

    assert write_without_secrets(tmp_path) == ()

    assert _secret() not in path.read_text(encoding="utf-8")
    assert read_lock(tmp_path).ignored_secrets == ()


def test_no_diagnostic_names_a_secret_of_a_left_out_entry_or_pack(tmp_path: Path) -> None:
    repeated = f'{{"version": 1, "skills": {{"pdf": {json.dumps(_good())}}}, "packs": {{}}, '
    repeated += f'"x": {{"https://a:{_secret()}@h/": 1, "https://a:{_secret()}@h/": 2}}}}'
    _write(tmp_path, _left_out(), {f"https://u:{_secret()}@h.example/p": {"kind": "git"}})
    found = lock_diagnostics([tmp_path])
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / LOCK_FILE_NAME).write_text(repeated, encoding="utf-8")
    found += lock_diagnostics([tmp_path / "other"])

    shown = json.dumps([[d.message, d.fix, d.field] for d in found])
    assert _secret() not in shown
    assert sorted(d.code for d in found) == ["IS402", "IS403", "IS403", "IS403", "IS403", "IS403", "IS409"]
    assert "'https://h.example/x'" in shown and "'https://h.example/p'" in shown


def test_left_out_keys_that_differ_only_in_a_secret_are_all_kept(tmp_path: Path) -> None:
    keys = [f"https://a:{_secret()}@h/x", f"https://b:{_secret()}1@h/x", "https://h/x (2)"]
    packs = {
        "https://h.example/p": {"kind": "git", "location": "https://h.example/p", "places": ["pdf"]},
        f"https://u:{_secret()}@h.example/p": {"kind": "git"},
    }
    packs["https://h.example/p"]["checked_at"] = _AT
    path = _write(
        tmp_path, {"pdf": _good() | {"pack": "https://h.example/p"}, **dict.fromkeys(keys, 1)}, packs
    )

    write_lock(tmp_path, read_lock(tmp_path))

    written = json.loads(path.read_text(encoding="utf-8"))
    assert _secret() not in json.dumps(written)
    assert sorted(written["skills"]) == ["https://h/x", "https://h/x (2)", "https://h/x (3)", "pdf"]
    assert written["packs"]["https://h.example/p"]["places"] == ["pdf"]
    assert written["packs"]["https://h.example/p (2)"] == {"kind": "git"}


def test_a_deeply_nested_left_out_entry_is_kept_whole() -> None:
    deep: Any = f"https://u:{_secret()}@h/"
    for _ in range(5000):
        deep = [deep]

    safe = raw_without_secrets({"k": deep})

    assert isinstance(safe, dict)
    inner = safe["k"]
    for _ in range(5000):
        inner = inner[0]
    assert inner == "https://h/"


def test_an_entrys_source_that_holds_a_secret_its_location_does_not_is_read_without_it(
    tmp_path: Path,
) -> None:
    path = _write(tmp_path, {"pdf": _good() | {"source": f"https://u:{_secret()}@h.example/o/r.git#pdf"}})

    assert read_lock(tmp_path).entries["pdf"].source == "https://h.example/o/r.git#pdf"
    assert write_without_secrets(tmp_path) == ("pdf",)
    assert _secret() not in path.read_text(encoding="utf-8")


def test_install_update_and_remove_leave_no_secret_of_a_left_out_entry_in_the_lock(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    env = make_env(tmp_path, isolated_home.home, cwd=project)
    root = project / ".agents" / "skills"
    install_skill(str(write_skill(project / "vendor" / "good", "good")), env=env, scope="project")
    lock_file = root / LOCK_FILE_NAME
    data = json.loads(lock_file.read_text(encoding="utf-8"))
    for step in ("install", "update", "remove", "cli"):
        data["skills"].update(_left_out())
        lock_file.write_text(json.dumps(data), encoding="utf-8")
        if step == "install":
            install_skill(str(write_skill(project / "vendor" / "more", "more")), env=env, scope="project")
        elif step == "update":
            update_skills(env=env, scope="project")
        elif step == "remove":
            remove_skill("more", env=env, scope="project")
        else:
            proc = run_cli(project, "list", "--json")
            assert proc.returncode == 0 and "IS402" in proc.stderr
            assert _secret() not in proc.stdout + proc.stderr
            continue
        written = json.loads(lock_file.read_text(encoding="utf-8"))
        assert _secret() not in json.dumps(written), step
        assert {"bad", "text", "listed", "nested", "https://h.example/x"} <= set(written["skills"]), step
        data = written
