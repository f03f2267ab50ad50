"""Which ``@path`` imports Claude Code follows: text or extensionless files, the path taken whole,
not a network path."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillshelf.env import Env
from skillshelf.instructions import load_instructions
from skillshelf.instructions.imports import follows_import, network_path, node_extname, resolve_import


@pytest.mark.parametrize(
    ("path", "extension"),
    [
        ("/r/x.md", ".md"),
        ("/r/x.tar.gz", ".gz"),
        ("/r/notes", ""),
        ("/r/.env", ""),
        ("/r/..", ""),
        ("/r/..x.md", ".md"),
        ("/r/p.md.", "."),
        ("/r/...", "."),
        ("/r/q.md,", ".md,"),
        ("/r/d.x/notes", ""),
        ("/r/x.md/", ".md"),
    ],
)
def test_extension_is_read_as_node_path_extname_reads_it(path: str, extension: str) -> None:
    assert node_extname(path) == extension


@pytest.mark.parametrize(
    "name", ["x.md", "x.Md", "x.YAML", "x.py", "x.R", "x.makefile", ".env", "Makefile", "Makefile,"]
)
def test_text_and_extensionless_files_are_followed(name: str) -> None:
    assert follows_import(Path("/r") / name)


@pytest.mark.parametrize(
    "name", ["x.foo", "x.svg", "x.bak", "x.tmp", "x.d", "x.1", "x.md~", "x.png", "p.md.", "q.md,", "p.md)"]
)
def test_other_extensions_and_trailing_punctuation_are_not_followed(name: str) -> None:
    assert not follows_import(Path("/r") / name)


def test_an_import_ending_in_punctuation_loads_nothing_and_says_why(tmp_path: Path) -> None:
    """``@a.md,`` names ``a.md,``: neither it (its extension is ``.md,``) nor ``a.md`` is read,
    and the note (IN117, not "no readable file") says the path runs to the next space."""
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "CLAUDE.md").write_text("ROOT see @a.md, and @b.svg then @c.txt\n", encoding="utf-8")
    for name in ("a.md", "a.md,", "b.svg", "c.txt"):
        (repo / name).write_text(f"FILE {name}\n", encoding="utf-8")

    result = load_instructions(Env.for_test(cwd=repo, home=tmp_path / "home"), profile="claude")

    assert [layer.path.name for layer in result.included] == ["CLAUDE.md", "c.txt"]
    notes = {d.message.split()[1]: d for d in result.diagnostics if d.code == "IN117"}
    assert set(notes) == {"@a.md,", "@b.svg"}
    assert "'.md,'" in notes["@a.md,"].message and "next space" in (notes["@a.md,"].fix or "")
    assert all(d.path == repo / "CLAUDE.md" for d in notes.values())
    assert not [d for d in result.diagnostics if d.code == "IN111"]


@pytest.mark.parametrize(
    ("raw", "refused"),
    [
        ("//server/share/x.md", True),
        ("//wsl/x.md", True),
        ("//wsl$/Ubuntu/x.md", False),
        ("//WSL.localhost/Ubuntu/x.md", False),
        ("/net/host/x.md", True),
        ("/NET/host", True),
        ("/./net/host/x.md", True),
        ("/tmp/../net/host/x.md", True),
        ("/net/host/../../tmp/x.md", True),
        ("/net", False),
        ("/net/", False),
        ("/srv/net/host/x.md", False),
        ("/network/host/x.md", False),
        ("net/host/x.md", False),
        ("~/net/host/x.md", False),
    ],
)
def test_unc_and_net_paths_are_network_paths(raw: str, refused: bool) -> None:
    assert network_path(raw) is refused


def test_an_import_of_a_network_path_loads_nothing_and_says_why(tmp_path: Path) -> None:
    """Paths that would resolve to real files on this machine (``//tmp/...`` is ``/tmp/...``,
    ``/net/h/../..`` is ``/``) are still refused, as Claude Code refuses them as written."""
    home = tmp_path / "home"
    share = tmp_path / "share"
    share.mkdir()
    for name in ("unc.md", "net.md", "plain.md"):
        (share / name).write_text(f"FILE {name}\n", encoding="utf-8")
    user = home / ".claude" / "CLAUDE.md"
    user.parent.mkdir(parents=True)
    user.write_text(f"USER\n@/{share}/unc.md\n@/net/h/../..{share}/net.md\n@{share}/plain.md\n", "utf-8")
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)

    result = load_instructions(Env.for_test(cwd=repo, home=home), profile="claude")

    assert [layer.path for layer in result.included] == [user, share / "plain.md"]
    notes = [d for d in result.diagnostics if d.code == "IN118"]
    assert [d.message.split()[1] for d in notes] == [f"@/{share}/unc.md", f"@/net/h/../..{share}/net.md"]
    assert all(d.path == user and "network" in d.message and d.fix for d in notes)
    assert not [d for d in result.diagnostics if d.code in ("IN111", "IN117")]


def test_a_resolved_import_starts_with_one_slash_as_node_gives_it(tmp_path: Path) -> None:
    importer = tmp_path / "CLAUDE.md"
    assert str(resolve_import("//wsl$/Ubuntu/x.md", importer=importer, home=tmp_path)) == "/wsl$/Ubuntu/x.md"
    assert resolve_import("/a/./b/../x.md", importer=importer, home=tmp_path) == Path("/a/x.md")
