"""Plugin namespaces (`<plugin>:<name>`), as Codex 0.171.0 applies them."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from skill_tree_helpers import write, write_skill

from skillshelf.diagnostics import Diagnostic, Severity
from skillshelf.skills.discover import discover_in
from skillshelf.skills.namespace import NamespaceResolver, qualified_name
from skillshelf.skills.validate import validate_paths


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


@pytest.mark.parametrize(
    ("namespace", "name", "loads"),
    [
        ("p" * 100, "s" * 28, True),  # 129 characters with the colon
        ("p" * 100, "s" * 29, False),
        ("p" * 64, "s" * 64, True),
        ("p" * 65, "s" * 64, False),
        ("\u00e9" * 70, "s" * 58, True),  # characters, not UTF-8 bytes
        ("\U0001f600" * 64, "s" * 64, True),  # nor UTF-16 units
        ("\U0001f600" * 65, "s" * 64, False),
    ],
)
def test_codex_drops_a_qualified_name_over_128_characters_without_its_colon(
    namespace: str, name: str, loads: bool
) -> None:
    out: list[Diagnostic] = []
    got = qualified_name(namespace, name, path="x/SKILL.md", out=out)
    assert (got == f"{namespace}:{name}", [d.code for d in out]) == (loads, [] if loads else ["SK130"])
    assert all(d.severity is Severity.ERROR and "shorten" in d.fix for d in out)


def test_a_plugin_skill_with_a_too_long_qualified_name_is_dropped_and_validate_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for length in (28, 29):
        write(tmp_path / f"pl{length}/.claude-plugin/plugin.json", '{"name": "' + "p" * 100 + '"}')
        write_skill(tmp_path / f"pl{length}/s", "s" * length)
    found = discover_in([tmp_path])
    assert [len(s.name) for s in found.skills] == [129]
    (dropped,) = [d for d in found.diagnostics if d.code == "SK130"]
    assert dropped.path == tmp_path / "pl29/s/SKILL.md" and "by 1 character" in dropped.fix
    monkeypatch.chdir(tmp_path)  # the finding names the file as the PATH given does
    report = validate_paths([Path(".")], profile="codex")
    checks = [(str(c.path), c.loaded) for c in report.skills]
    assert checks == [("pl28/s/SKILL.md", True), ("pl29/s/SKILL.md", False)]
    assert [(d.code, d.path) for d in report.diagnostics] == [("SK130", Path("pl29/s/SKILL.md"))]
