"""Config paths that are there but cannot be read, nesting too deep to merge, and the findings of
project layers that are not in effect: coded findings, never a crash, and fail-closed installs."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from skillshelf.config import Config, LayerKind, load_config
from skillshelf.config.layers import MAX_DEPTH
from skillshelf.diagnostics import Diagnostic, Severity
from skillshelf.env import Env
from skillshelf.install.allowed import SourcePolicy
from testkit import deny_below

POLICY = '[requirements]\nallowed_install_sources = ["/nowhere/**"]\n'


class Tree:
    """A git project, a user config folder and a system config folder under ``tmp_path``."""

    def __init__(self, tmp_path: Path) -> None:
        self.base = tmp_path
        self.home = tmp_path / "home"
        self.user = tmp_path / "user"
        self.system = tmp_path / "system"
        self.repo = tmp_path / "repo"
        for folder in (self.home, self.user, self.system, self.repo / ".git"):
            folder.mkdir(parents=True)

    def folder(self, kind: LayerKind) -> Path:
        if kind is LayerKind.PROJECT:
            return self.repo / ".skillshelf"
        return {LayerKind.SYSTEM: self.system, LayerKind.USER: self.user}[kind]

    def trust(self) -> None:
        with (self.user / "config.toml").open("a", encoding="utf-8") as handle:
            handle.write(f'[projects."{self.repo.resolve()}"]\ntrust_level = "trusted"\n')

    def load(self, *overrides: str) -> Config:
        env = Env.for_test(cwd=self.repo, home=self.home)
        return load_config(env, overrides=overrides, user_dir=self.user, system_dir=self.system)


@pytest.fixture
def tree(tmp_path: Path) -> Tree:
    return Tree(tmp_path)


def _layer(config: Config, kind: LayerKind):  # type: ignore[no-untyped-def]
    return next(layer for layer in config.layers if layer.kind is kind)


def _only(diags: tuple[Diagnostic, ...], code: str) -> Diagnostic:
    found = [d for d in diags if d.code == code]
    assert len(found) == 1, diags
    return found[0]


@pytest.mark.parametrize(
    "kind", [LayerKind.SYSTEM, LayerKind.USER, LayerKind.PROJECT], ids=lambda kind: kind.label
)
def test_a_config_folder_that_cannot_be_entered_is_a_cf101_finding_and_other_layers_still_load(
    tree: Tree, kind: LayerKind, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tree.folder(kind)
    folder.mkdir(exist_ok=True)
    (folder / "config.toml").write_text(POLICY, encoding="utf-8")
    deny_below(monkeypatch, folder)
    config = tree.load("catalog.budget_tokens=123")
    found = _only(config.diagnostics, "CF101")
    assert "Permission denied" in found.message and found.path == folder / "config.toml"
    layer = _layer(config, kind)
    assert layer.exists and not layer.loaded
    assert config.get("catalog.budget_tokens") == 123
    if kind is not LayerKind.PROJECT:
        assert found.severity is Severity.ERROR
        assert SourcePolicy.from_config(config).patterns == ()


def _make_odd(path: Path, odd: str) -> None:
    if odd == "symlink loop":
        path.symlink_to(path)
    elif odd == "dangling symlink":
        path.symlink_to(path.parent / "gone.toml")
    elif odd == "folder":
        path.mkdir()
    else:
        os.mkfifo(path)


ODD = ["symlink loop", "dangling symlink", "folder", "fifo"]


@pytest.mark.parametrize("odd", ODD)
@pytest.mark.parametrize("kind", [LayerKind.SYSTEM, LayerKind.USER], ids=lambda kind: kind.label)
def test_a_system_or_user_config_that_is_not_a_readable_file_fails_installs_closed(
    tree: Tree, kind: LayerKind, odd: str
) -> None:
    _make_odd(tree.folder(kind) / "config.toml", odd)
    config = tree.load()
    found = _only(config.diagnostics, "CF101")
    assert found.severity is Severity.ERROR and found.path == tree.folder(kind) / "config.toml"
    assert {"symlink loop": "loop", "dangling symlink": "to nothing", "folder": "folder", "fifo": "FIFO"}[
        odd
    ] in found.message
    layer = _layer(config, kind)
    assert layer.exists and not layer.loaded
    policy = SourcePolicy.from_config(config)
    assert policy.patterns == () and policy.skipped is not None
    other = _layer(config, LayerKind.USER if kind is LayerKind.SYSTEM else LayerKind.SYSTEM)
    assert not other.exists and not other.diagnostics  # a plainly missing file: no file, no finding


def test_a_trusted_projects_config_that_is_a_symlink_loop_fails_installs_closed(tree: Tree) -> None:
    tree.trust()
    (tree.repo / ".skillshelf").mkdir()
    _make_odd(tree.repo / ".skillshelf" / "config.toml", "symlink loop")
    config = tree.load()
    assert _only(config.diagnostics, "CF101").severity is Severity.ERROR
    assert SourcePolicy.from_config(config).patterns == ()


@pytest.mark.parametrize(
    ("odd", "finding"), [("dangling symlink", False), ("symlink loop", True), ("folder", True)]
)
def test_codexs_config_is_read_as_codex_reads_it_a_link_to_nothing_being_no_file(
    tree: Tree, odd: str, finding: bool
) -> None:
    (tree.home / ".codex").mkdir()
    _make_odd(tree.home / ".codex" / "config.toml", odd)
    config = tree.load()
    assert _layer(config, LayerKind.CODEX).exists is finding
    assert [d.code for d in config.diagnostics if d.code == "CF101"] == (["CF101"] if finding else [])


def _headers(depth: int) -> str:
    return "[" + ".".join(["a"] * depth) + "]\n"


def test_tables_nested_deeper_than_the_limit_skip_the_layer_with_cf100(tree: Tree) -> None:
    (tree.user / "config.toml").write_text(_headers(500) + "[catalog]\nbudget_tokens = 5\n", encoding="utf-8")
    config = tree.load()
    assert "nested too deeply" in _only(config.diagnostics, "CF100").message
    assert not _layer(config, LayerKind.USER).loaded and config.get("catalog") is None
    (tree.user / "config.toml").write_text(
        _headers(MAX_DEPTH) + "[catalog]\nbudget_tokens = 5\n", encoding="utf-8"
    )
    config = tree.load()
    assert not [d for d in config.diagnostics if d.code == "CF100"]
    assert config.get("catalog.budget_tokens") == 5


@pytest.mark.parametrize(
    "override", [".".join(["a"] * 500) + "=1", "a=" + "[" * 3000, "a=" + "[" * 500 + "]" * 500]
)
def test_an_override_nested_too_deeply_is_refused_and_the_others_apply(tree: Tree, override: str) -> None:
    config = tree.load(override, "catalog.budget_tokens=7")
    assert _only(config.diagnostics, "CF108").severity is Severity.ERROR
    assert config.get("catalog.budget_tokens") == 7


@pytest.mark.parametrize(
    "content", [b"[x\n", b"\xff\xfe", b"# " + b"x" * (1024 * 1024 + 10)], ids=["syntax", "utf8", "size"]
)
def test_a_broken_config_of_an_untrusted_project_is_a_warning_not_an_error(
    tree: Tree, content: bytes
) -> None:
    (tree.repo / ".skillshelf").mkdir()
    (tree.repo / ".skillshelf" / "config.toml").write_bytes(content)
    config = tree.load()
    found = [d for d in config.diagnostics if d.code in {"CF100", "CF101"}]
    assert len(found) == 1 and found[0].severity is Severity.WARNING
    assert "not trusted" in found[0].message
    assert not [d for d in config.diagnostics if d.severity is Severity.ERROR]

    tree.trust()  # used now: an error again
    found = [d for d in tree.load().diagnostics if d.code in {"CF100", "CF101"}]
    assert len(found) == 1 and found[0].severity is Severity.ERROR
