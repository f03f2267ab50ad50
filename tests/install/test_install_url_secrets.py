"""A token typed into a source URL is used for the fetch and never recorded or shown."""

from __future__ import annotations

import functools
import http.server
import json
import threading
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from install_helpers import make_env, run_cli

from skillshelf.errors import InstallError
from skillshelf.install import install_skill, update_skills
from skillshelf.install.many import install_all
from skillshelf.install.sources import parse_source
from skillshelf.install.taken import AlreadyInstalledError
from skillshelf.install.url_secrets import REDACTED, scrubbed, secret_parts, without_secrets
from testkit import IsolatedHome

TOKEN = "ghp_" + "a1B2c3D4" * 4 + "zzzz"  # a GitHub token's shape: ghp_ and 36 characters


@pytest.mark.parametrize(
    ("typed", "recorded"),
    [
        (f"https://x-access-token:{TOKEN}@github.com/o/r.git", "https://github.com/o/r.git"),
        ("ssh://git:hunter22@host:2222/r.git", "ssh://git@host:2222/r.git"),
        ("https://h/a.zip?token=abc123&v=2", "https://h/a.zip?v=2"),
        (
            "https://b.s3.amazonaws.com/a.zip?X-Amz-Credential=AKIAXX%2F1&X-Amz-Signature=00ff",
            "https://b.s3.amazonaws.com/a.zip",
        ),
        (f"https://h/a.zip?ref={TOKEN}&v=1", "https://h/a.zip?v=1"),
        ("https://user@github.com/o/r.git", "https://github.com/o/r.git"),
        ("ssh://git@host/r.git", "ssh://git@host/r.git"),
        (f"https://{TOKEN}@github.com/o/r.git", "https://github.com/o/r.git"),
        (f"https://{TOKEN}:x-oauth-basic@github.com/o/r.git", "https://github.com/o/r.git"),
        ("https://glpat-" + "Ab12Cd34Ef56Gh78Ij90" + "@gitlab.com/o/r.git", "https://gitlab.com/o/r.git"),
        ("https://github.com/o/r.git?x=1", "https://github.com/o/r.git?x=1"),
        ("git@github.com:o/r.git", "git@github.com:o/r.git"),
    ],
)
def test_the_recorded_url_keeps_everything_but_the_secret(typed: str, recorded: str) -> None:
    assert without_secrets(typed) == recorded


def test_a_parsed_source_shows_and_records_only_the_url_without_its_token(tmp_path: Path) -> None:
    source = parse_source(f"https://x-access-token:{TOKEN}@github.com/o/r.git@v1#skills/pdf", cwd=tmp_path)
    assert source.location == "https://github.com/o/r.git"
    assert source.fetch_location == f"https://x-access-token:{TOKEN}@github.com/o/r.git"
    assert TOKEN not in source.text and TOKEN not in repr(source)
    assert (source.ref, source.subdir) == ("v1", "skills/pdf")


@given(st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-_.~", min_size=4, max_size=40))
def test_no_password_survives_in_the_recorded_url_or_an_error_quoting_it(password: str) -> None:
    typed = f"https://someone:{password}@git.example.com/team/repo.git"
    assert without_secrets(typed) == "https://git.example.com/team/repo.git"
    message = f"git clone failed: fatal: unable to access '{typed}/': could not resolve host"
    assert f":{password}@" not in scrubbed(message, typed)


def test_a_failed_clone_does_not_print_the_token(tmp_path: Path, isolated_home: IsolatedHome) -> None:
    url = f"https://someone:{TOKEN}@127.0.0.1:9/team/repo.git"
    env = make_env(tmp_path, isolated_home.home)
    with pytest.raises(InstallError) as caught:
        install_skill(url, env=env)
    assert caught.value.code in {"IS111", "IS112"} and TOKEN not in str(caught.value)
    proc = run_cli(tmp_path, "install", url, "--all")
    assert proc.returncode == 1 and "IS112" in proc.stderr
    assert TOKEN not in proc.stderr + proc.stdout


def test_a_token_typed_as_the_user_name_is_neither_recorded_nor_shown(tmp_path: Path) -> None:
    typed = f"https://{TOKEN}@github.com/o/r.git"
    source = parse_source(typed, cwd=tmp_path)
    assert source.location == "https://github.com/o/r.git"
    assert source.fetch_location == typed
    assert TOKEN not in source.text and TOKEN not in repr(source)
    assert TOKEN not in scrubbed(f"fatal: unable to access '{typed}'", typed)
    assert scrubbed("cloning git@example.com:r.git", "git@example.com:r.git").count("git@") == 1


@pytest.mark.parametrize(
    ("typed", "left_out"),
    [
        ("https://h/a.zip?token=abc&v=1", ("token",)),
        ("https://u:pw@h/a.zip?sig=1", ("password", "sig")),
        (f"https://{TOKEN}@github.com/o/r.git", ("token in the user part",)),
        ("https://u@h/a.zip?v=1", ("user part",)),
        ("ssh://u@h/r.git", ()),
    ],
)
def test_secret_parts_names_what_the_recorded_url_leaves_out(typed: str, left_out: tuple[str, ...]) -> None:
    assert secret_parts(typed) == left_out


@pytest.fixture
def served_zip(tmp_path: Path) -> Iterator[tuple[str, list[str]]]:
    """A local HTTP server of ``ok.zip`` (the skill ``zipskill``): its URL, the paths asked for."""
    with zipfile.ZipFile(tmp_path / "ok.zip", "w") as archive:
        archive.writestr("zipskill/SKILL.md", "---\nname: zipskill\ndescription: z\n---\n")
    asked: list[str] = []

    class Recording(http.server.SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            asked.append(self.path)

    handler = functools.partial(Recording, directory=str(tmp_path))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", asked
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("whole", [False, True])
def test_a_download_installed_with_a_token_is_not_fetched_by_update_without_it(
    tmp_path: Path, isolated_home: IsolatedHome, served_zip: tuple[str, list[str]], whole: bool
) -> None:
    url, asked = served_zip
    env = make_env(tmp_path, isolated_home.home)
    typed = f"{url}/ok.zip?token=abc123&v=2"
    if whole:
        installed = install_all(typed, env=env, target="skillshelf").installed[0]
    else:
        installed = install_skill(typed, env=env, target="skillshelf")
    lock = (installed.path.parent / ".skillshelf-lock.json").read_text(encoding="utf-8")
    assert "token" not in lock.replace('"credentials": [\n        "token"', "") and "abc123" not in lock
    assert installed.entry.location == f"{url}/ok.zip?v=2" and installed.entry.credentials == ("token",)
    assert asked == ["/ok.zip?token=abc123&v=2"]

    for check in (True, False):
        (result,) = update_skills(env=env, check=check)
        assert result.status == "failed" and result.message.startswith("IS131: ")
        assert "--for skillshelf --name zipskill --scope user --force" in result.message
    assert asked == ["/ok.zip?token=abc123&v=2"]  # no fetch without the token, none with a stand-in


@pytest.mark.parametrize(
    ("target", "scope"), [("skillshelf", "user"), ("all", "user"), ("claude", "user"), ("codex", "project")]
)
def test_the_hint_to_reinstall_a_download_with_a_token_keeps_its_for_and_scope(
    tmp_path: Path, isolated_home: IsolatedHome, served_zip: tuple[str, list[str]], target: str, scope: str
) -> None:
    url, _ = served_zip
    env = make_env(tmp_path, isolated_home.home)
    install_skill(f"{url}/ok.zip?token=abc123", env=env, target=target, scope=scope, name="tok")  # type: ignore[arg-type]

    (result,) = update_skills(env=env, check=True)

    assert f"--for {target} --name tok --scope {scope} --force" in result.message


def _user_names() -> list[str]:
    """User parts of every shape: a classic GitHub token (40 hex digits), an Azure DevOps one
    (52 letters and digits), a random string, a plain name."""
    hexes = "0123456789abcdef" * 3
    return [hexes[:40], ("q7" + "z3k9" * 13)[:52], "Zx-9_" + "m2" * 9, "alice"]


@pytest.mark.parametrize("user", _user_names())
def test_a_user_part_of_any_shape_reaches_neither_the_lock_nor_a_message(
    tmp_path: Path, isolated_home: IsolatedHome, served_zip: tuple[str, list[str]], user: str
) -> None:
    url, asked = served_zip
    typed = url.replace("http://", f"http://{user}@") + "/ok.zip"
    proc = run_cli(tmp_path, "install", typed, "--for", "codex")
    assert proc.returncode == 0, proc.stderr
    assert "IS130" in proc.stdout + proc.stderr and asked == ["/ok.zip"]
    lock = (isolated_home.home / ".agents" / "skills" / ".skillshelf-lock.json").read_text(encoding="utf-8")
    assert user not in lock + proc.stdout + proc.stderr and f"{url}/ok.zip" in lock

    failed = run_cli(tmp_path, "install", typed.replace("ok.zip", "gone.zip"), "--for", "codex")
    assert failed.returncode == 1 and "IS105" in failed.stderr and user not in failed.stdout + failed.stderr


def test_an_ssh_user_name_is_kept_and_only_its_password_dropped() -> None:
    assert without_secrets("git+ssh://deploy@host/r.git") == "git+ssh://deploy@host/r.git"
    assert scrubbed("clone of ssh://git@h/r.git failed", "ssh://git:pw12345@h/r.git").count("git@h") == 1
    message = "could not download http://ab@h/x.zip"
    assert "ab@" not in scrubbed(message, "http://ab@h/x.zip")


def _recorded_with_user_part(lock_file: Path, url: str, typed: str) -> None:
    """The lock as an earlier version wrote it: the source URL with its user part, no credentials."""
    lock = json.loads(lock_file.read_text(encoding="utf-8").replace(url, typed))
    for entry in lock["skills"].values():
        entry.pop("credentials", None)
    lock_file.write_text(json.dumps(lock), encoding="utf-8")


def _installed_as_an_older_version_recorded_it(
    tmp_path: Path, home: Path, url: str, userinfo: str, subdir: str = ""
) -> tuple[Any, str, Path]:
    """``url``/ok.zip installed with ``userinfo@`` in its URL, its lock entry then made as an
    earlier version wrote it (the user part kept): the env, the URL as typed, the lock file."""
    typed = url.replace("http://", f"http://{userinfo}@") + "/ok.zip"
    env = make_env(tmp_path, home)
    installed = install_skill(typed + subdir, env=env, target="codex")
    lock_file = installed.path.parent / ".skillshelf-lock.json"
    _recorded_with_user_part(lock_file, f"{url}/ok.zip", typed)
    return env, typed, lock_file


def test_an_entry_recorded_with_its_user_part_is_already_installed_from_the_same_url(
    tmp_path: Path, isolated_home: IsolatedHome, served_zip: tuple[str, list[str]]
) -> None:
    url, _ = served_zip
    env, typed, _lock = _installed_as_an_older_version_recorded_it(tmp_path, isolated_home.home, url, "alice")

    with pytest.raises(AlreadyInstalledError):
        install_skill(typed, env=env, target="codex")


def test_update_records_an_entry_written_with_its_user_part_without_it(
    tmp_path: Path, isolated_home: IsolatedHome, served_zip: tuple[str, list[str]]
) -> None:
    url, asked = served_zip
    env, _typed, lock_file = _installed_as_an_older_version_recorded_it(
        tmp_path, isolated_home.home, url, "alice"
    )
    with zipfile.ZipFile(tmp_path / "ok.zip", "w") as archive:
        archive.writestr("zipskill/SKILL.md", "---\nname: zipskill\ndescription: z\n---\nsecond\n")

    (result,) = update_skills(env=env)

    assert result.status == "updated" and "IS130" in result.message
    assert "alice" not in lock_file.read_text(encoding="utf-8") and asked[-1] == "/ok.zip"


def test_a_plain_user_name_is_taken_out_of_a_message_only_where_the_url_spells_it() -> None:
    typed = "http://skills@127.0.0.1:9/pack.git"
    message = (
        f"Cloning into '/h/.agents/.skillshelf-tmp/w/repo'... fatal: cannot reach skills@127.0.0.1 ({typed})"
    )
    shown = scrubbed(message, typed)
    assert "/h/.agents/.skillshelf-tmp/w/repo" in shown and "skills@" not in shown
    assert "http://127.0.0.1:9/pack.git" in shown


@pytest.mark.parametrize("user", _user_names()[:3])
def test_a_user_part_that_looks_like_a_token_is_taken_out_of_a_message_wherever_it_is(user: str) -> None:
    shown = scrubbed(f"the server refused {user} for this repository", f"https://{user}@host/r.git")
    assert user not in shown


def test_a_plain_user_name_before_another_host_or_in_a_word_is_left_in_a_message() -> None:
    shown = scrubbed(
        "mail bob@example.org about bob@Host.example and bobcat", "https://bob@Host.example/r.git"
    )
    assert shown == f"mail bob@example.org about {REDACTED}@Host.example and bobcat"


def test_install_all_records_an_entry_written_with_its_user_part_without_it(
    tmp_path: Path, isolated_home: IsolatedHome, served_zip: tuple[str, list[str]]
) -> None:
    url, _ = served_zip
    env, _typed, lock_file = _installed_as_an_older_version_recorded_it(
        tmp_path, isolated_home.home, url, "alice", "#zipskill"
    )

    result = install_all(f"{url}/ok.zip", env=env, target="codex")

    (present,) = result.not_installed
    assert present.status == "present" and [d.code for d in present.diagnostics] == ["IS130"]
    assert "alice" not in lock_file.read_text(encoding="utf-8")


def test_list_shows_an_entry_recorded_with_a_password_without_it(
    tmp_path: Path, isolated_home: IsolatedHome, served_zip: tuple[str, list[str]]
) -> None:
    from skillshelf.install.provenance import installed_provenance
    from skillshelf.workspace import Workspace

    url, _ = served_zip
    env, _typed, lock_file = _installed_as_an_older_version_recorded_it(
        tmp_path, isolated_home.home, url, "alice:hunter2secret"
    )
    assert "hunter2secret" in lock_file.read_text(encoding="utf-8")

    skills = Workspace.open(env).skills.loadable
    shown = [info.source for info in installed_provenance(skills, env).values()]
    assert shown and not any("hunter2secret" in source or "alice" in source for source in shown)
