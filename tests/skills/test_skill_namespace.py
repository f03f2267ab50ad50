"""Plugin namespaces (`<plugin>:<name>`), as Codex 0.171.0 applies them."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from skill_tree_helpers import write, write_skill

from skillshelf.skills.discover import discover_in
from skillshelf.skills.namespace import NamespaceResolver


def names(*roots: Path) -> list[str]:
    return sorted(s.name for s in discover_in(list(roots)).skills)


def test_the_nearest_valid_manifest_names_the_skill(tmp_path: Path) -> None:
    write(tmp_path / "kit/.codex-plugin/plugin.json", '{"name": "kit"}')
    write(tmp_path / "kit/.claude-plugin/plugin.json", '{"name": "ignored"}')
    write_skill(tmp_path / "kit/skills/a", "a")
    write(tmp_path / "kit/skills/sub/.cursor-plugin/plugin.json", '{"name": "sub"}')
    write_skill(tmp_path / "kit/skills/sub/b", "b")
    write(tmp_path / "kit/skills/broken/.claude-plugin/plugin.json", "{not json")
    write_skill(tmp_path / "kit/skills/broken/c", "c")
    write_skill(tmp_path / "plain/d", "d")
    assert names(tmp_path) == ["d", "kit:a", "kit:c", "sub:b"]


def test_empty_or_missing_names_use_the_folder_and_non_text_names_are_ignored(tmp_path: Path) -> None:
    write(tmp_path / "blank/.claude-plugin/plugin.json", '{"name": ""}')
    write_skill(tmp_path / "blank/s", "one")
    write(tmp_path / "nokey/.claude-plugin/plugin.json", '{"version": "1"}')
    write_skill(tmp_path / "nokey/s", "two")
    write(tmp_path / "number/.claude-plugin/plugin.json", '{"name": 5}')
    write_skill(tmp_path / "number/s", "three")
    assert names(tmp_path) == ["blank:one", "nokey:two", "three"]


def test_a_manifest_above_the_root_applies(tmp_path: Path) -> None:
    write(tmp_path / "plugin/.claude-plugin/plugin.json", '{"name": "outer"}')
    write_skill(tmp_path / "plugin/skills/search", "search")
    assert names(tmp_path / "plugin/skills") == ["outer:search"]


def test_links_follow_the_real_location(tmp_path: Path) -> None:
    write(tmp_path / "root/kit/.claude-plugin/plugin.json", '{"name": "kit"}')
    write_skill(tmp_path / "outside/p", "plain-linked")
    os.symlink(tmp_path / "outside", tmp_path / "root/kit/linked")
    write(tmp_path / "other/.claude-plugin/plugin.json", '{"name": "other"}')
    write_skill(tmp_path / "other/s", "plug-linked")
    os.symlink(tmp_path / "other", tmp_path / "root/otherlink")
    assert names(tmp_path / "root") == ["other:plug-linked", "plain-linked"]


def test_the_resolver_reads_each_folder_once(tmp_path: Path) -> None:
    write(tmp_path / "kit/.claude-plugin/plugin.json", '{"name": "kit"}')
    resolver = NamespaceResolver()
    assert resolver.namespace(str(tmp_path / "kit/a")) == "kit"
    (tmp_path / "kit/.claude-plugin/plugin.json").unlink()
    assert resolver.namespace(str(tmp_path / "kit/b")) == "kit"


def test_skills_linked_into_a_root_cost_no_manifest_probes_below_the_link(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import skillshelf.skills.namespace as namespace_module

    for i in range(5):
        write_skill(tmp_path / f"corpus/group{i}/s{i}", f"s{i}")
    (tmp_path / "root").mkdir()
    os.symlink(tmp_path / "corpus", tmp_path / "root/corpus")
    probed: list[str] = []
    real_read = namespace_module._read_manifest

    def counting(folder: str) -> object:
        probed.append(folder)
        return real_read(folder)

    monkeypatch.setattr(namespace_module, "_read_manifest", counting)
    assert names(tmp_path / "root") == [f"s{i}" for i in range(5)]
    corpus = str(tmp_path.resolve() / "corpus")
    assert probed and not [p for p in probed if p.startswith(corpus)]  # only the folders above it
