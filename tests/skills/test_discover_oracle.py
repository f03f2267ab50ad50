"""Differential tests: which skills Codex 0.171.0 finds vs what discover_skills finds.

Each test builds many cases into one tree and makes one oracle call; the SET of (name, path)
that Codex lists (``- name: ... (file: ...)`` lines, with ``rN/`` aliases mapped back through
the ``### Skill roots`` table) must equal what :func:`discover_skills` finds for the same Env
(Codex's roots only, no built-in skills, bundled system skills switched off).
"""

from __future__ import annotations

import dataclasses
import os
import random
import re
from pathlib import Path
from typing import Any

import pytest
from skill_tree_helpers import git_init, skill_text, write, write_skill

from skillshelf.env import Env
from skillshelf.skills.discover import DiscoveryOptions, discover_skills

pytestmark = pytest.mark.oracle

ORACLE_CONFIG = {"skills.bundled.enabled": "false", "model_context_window": "400000"}
_ROOT_LINE = re.compile(r"^- `(r\d+)` = `(.+)`$")
_ENTRY = re.compile(r"^- (?P<name>.+?): (?:.*? )?\(file: (?P<path>.+)\)$")


def codex_listing(result: dict[str, Any]) -> set[tuple[str, str]]:
    text = result["skills_instructions"] or ""
    aliases: dict[str, str] = {}
    found: set[tuple[str, str]] = set()
    for line in text.split("\n"):  # not splitlines(): a path may hold U+0085 or U+2028
        if m := _ROOT_LINE.match(line):
            aliases[m.group(1)] = m.group(2)
        elif m := _ENTRY.match(line):
            path = m.group("path")
            head, _, rest = path.partition("/")
            if head in aliases:
                path = f"{aliases[head]}/{rest}"
            found.add((m.group("name"), path))
    return found


def ours(env: Env, *, project_root_markers: tuple[str, ...] | None = None) -> set[tuple[str, str]]:
    found = discover_skills(
        env,
        DiscoveryOptions(
            include_builtin=False,
            include_claude=False,
            include_installed=False,
            use_cache=False,
            project_root_markers=project_root_markers,
        ),
    )
    return {
        (s.name, str(s.path))
        for s in found.skills
        if s.policy.allow_implicit_invocation and s.scope.value != "system"
    }


class Tree:
    def __init__(self, base: Path) -> None:
        self.base = base.resolve()
        self.home = self.base / "home"
        self.codex_home = self.base / "codex-home"
        self.repo = self.base / "repo"
        self.cwd = self.repo / "sub"
        for folder in (self.home, self.codex_home, self.cwd):
            folder.mkdir(parents=True, exist_ok=True)
        git_init(self.repo)

    def env(self) -> Env:
        env = Env.for_test(cwd=self.cwd, home=self.home, codex_home=self.codex_home)
        return dataclasses.replace(env, admin_skills_dir=Path("/etc/codex/skills"))

    def compare(self, codex_oracle: Any) -> set[tuple[str, str]]:
        mine = ours(self.env())
        theirs = codex_listing(
            codex_oracle(self.cwd, home=self.home, codex_home=self.codex_home, config=ORACLE_CONFIG)
        )
        assert theirs, "the oracle listed no skill at all"
        assert (sorted(mine - theirs), sorted(theirs - mine)) == ([], [])
        return theirs


def test_parsing_cases_match_codex(tmp_path: Path, codex_oracle: Any) -> None:
    tree = Tree(tmp_path)
    r = tree.repo / ".agents/skills"
    cases: dict[str, str | bytes] = {
        "plain": skill_text("plain"),
        "bom": b"\xef\xbb\xbf" + skill_text("bom-skill").encode(),
        "crlf": skill_text("crlf-skill").replace("\n", "\r\n"),
        "repaired": skill_text("repaired", "Deploy: ECS and Lambda"),
        "flow-repaired": "---\nname: flow\ndescription: [unclosed\n---\n",
        "unrepairable": "---\nname: broken\ndescription: first\nsecond line\n---\n",
        "block": (
            "---\nname: block\ndescription: |-\n  Build for AWS: ECS\n  more\n"
            "argument-hint: <duration: e.g. 7d>\n---\n"
        ),
        "folded": "---\nname: folded\ndescription: >\n  folded\n  text\n---\n",
        "long-name": skill_text("n" * 65),
        "name-64": skill_text("m" * 64),
        "no-name": skill_text(None, "falls back"),
        "null-name": "---\nname: null\ndescription: d\n---\n",
        "no-description": skill_text("nodesc", None),
        "null-description": "---\nname: nulldesc\ndescription: ~\n---\n",
        "numeric": "---\nname: 1.50\ndescription: 0x1F\n---\n",
        "dup-field": "---\nname: dup\nname: dup2\ndescription: d\n---\n",
        "dup-unknown": "---\nname: dupunk\ndescription: d\nx: 1\nx: 2\n---\n",
        "list-description": "---\nname: listdesc\ndescription: [a, b]\n---\n",
        "metadata-int": "---\nname: metaint\ndescription: d\nmetadata: 5\n---\n",
        "short": (
            "---\nname: short\ndescription: d\nmetadata:\n  short-description: What's included: x\n---\n"
        ),
        "early-close": "---\nname: early\ndescription: |\n  line\n  ---\n  more\n---\n",
        "no-frontmatter": "# Title\n",
        "unclosed": "---\nname: unclosed\ndescription: d\n",
        "empty": "---\n---\n",
        "latin1": b"---\nname: latin\ndescription: caf\xe9\n---\n",
        "nul-frontmatter": b"---\nname: nulfm\ndescription: a\x00b\n---\n",
        "nul-body": b"---\nname: nulbody\ndescription: d\n---\n\x00\x00",
        "unicode": skill_text("\u00fcn\u00efc\u00f8d\u00e9-\u540d", "\u8aac\u660e \U0001f4a1"),
        "spaced": '---\nname: "  spaced   out "\ndescription: "a\\u00a0b\\tc"\n---\n',
        "anchor": "---\nname: &n anchor\ndescription: *n\n---\n",
        "merge": "---\nbase: &b {name: merged}\n<<: *b\ndescription: d\n---\n",
        "leading-blank": "\n---\nname: blank\ndescription: d\n---\n",
        "dmi": "---\nname: dmi\ndescription: d\ndisable-model-invocation: true\n---\n",
        "metadata-null": "---\nname: metanull\ndescription: d\nmetadata: ~\n---\n",
        "metadata-empty": "---\nname: metaempty\ndescription: d\nmetadata: \n---\n",
        "metadata-text": "---\nname: metatext\ndescription: d\nmetadata: plain text\n---\n",
        "metadata-empty-map": "---\nname: metamap\ndescription: d\nmetadata: {}\n---\n",
        "complex-key": '---\nname: complexkey\ndescription: d\nmetadata: {"a":{"b":["c"],["d"]}}\n---\n',
        "complex-key-metadata": '---\nname: flowkey\ndescription: d\nmetadata: {"a": ["b"], ["c"]}\n---\n',
        "complex-key-top": "---\nname: topkey\ndescription: d\n[x]: y\n---\n",
        "short-map": "---\nname: shortmap\ndescription: d\nmetadata:\n  short-description: {a: b}\n---\n",
        "short-list": "---\nname: shortlist\ndescription: d\nmetadata:\n  short-description: [a]\n---\n",
        "name-list": "---\nname: [a]\ndescription: d\n---\n",
        "timestamp": "---\nname: stamp\ndescription: d\ndate: 2024-13-45\n---\n",
    }
    for folder, content in cases.items():
        write(r / folder / "SKILL.md", content)
    for folder, yaml_text in {
        "chatgpt-only": "policy:\n  products: [chatgpt]\n",
        "codex-too": "policy:\n  products: [CHATGPT, codex]\n",
        "bogus-product": "policy:\n  products: [bogus]\n",
        "no-implicit": "policy:\n  allow_implicit_invocation: false\n",
        "broken-yaml": "policy: [\n",
    }.items():
        write_skill(r / folder, folder)
        write(r / folder / "agents/openai.yaml", yaml_text)
    for folder, size in {"big": 2 * 1024 * 1024, "over-codex-cap": 512 * 1024 * 1024 + 1}.items():
        with write(r / folder / "SKILL.md", skill_text(folder)).open("r+b") as handle:
            handle.truncate(size)  # a hole after the frontmatter: no disk, and Codex reads NULs as text
    listed = tree.compare(codex_oracle)
    assert ("repaired", str(r / "repaired/SKILL.md")) in listed
    assert ("big", str(r / "big/SKILL.md")) in listed


def test_project_root_markers_given_to_discovery_match_codex_given_them_with_c(
    tmp_path: Path, codex_oracle: Any
) -> None:
    tree = Tree(tmp_path)
    (tree.cwd / ".hg").mkdir()
    write_skill(tree.repo / ".agents/skills/top", "top")
    write_skill(tree.repo / ".codex/skills/top-codex", "top-codex")
    write_skill(tree.cwd / ".agents/skills/inner", "inner")
    (tree.codex_home / "config.toml").write_text('project_root_markers = [".git"]\n', encoding="utf-8")
    listed: dict[tuple[str, ...], set[tuple[str, str]]] = {}
    for markers in ((".hg",), (".git",), ()):
        config = {**ORACLE_CONFIG, "project_root_markers": "[" + ", ".join(f'"{m}"' for m in markers) + "]"}
        listed[markers] = codex_listing(
            codex_oracle(tree.cwd, home=tree.home, codex_home=tree.codex_home, config=config)
        )
        assert ours(tree.env(), project_root_markers=markers) == listed[markers], markers
    assert listed[(".hg",)] != listed[(".git",)]  # the markers moved Codex's project root


def test_traversal_cases_match_codex(tmp_path: Path, codex_oracle: Any) -> None:
    tree = Tree(tmp_path)
    user = tree.codex_home / "skills"
    agents_user = tree.home / ".agents/skills"
    repo_root = tree.repo / ".agents/skills"
    write_skill(user / "d0/d1/d2/d3/d4/d5", "depth-six")
    write_skill(user / "e0/e1/e2/e3/e4/e5/e6", "depth-seven")
    write_skill(user, "root-level")
    write_skill(user / ".hidden", "hidden-top")
    write_skill(user / "vis/.hid/x", "hidden-nested")
    write_skill(user / ".hidden2/inner", "via-alias")
    os.symlink(user / ".hidden2", user / "alias")
    write_skill(user / "outer", "outer")
    write_skill(user / "outer/inner", "inner")
    write_skill(user / "loop/s", "loop-skill")
    os.symlink(user / "loop", user / "loop/again")
    shared = tree.base / "shared"
    write_skill(shared / "linked", "via-link")
    write_skill(shared / "target", "file-target")
    os.symlink(shared, user / "lnk")
    (user / "flink").mkdir()
    os.symlink(shared / "target/SKILL.md", user / "flink/SKILL.md")
    os.symlink(tree.base / "missing", user / "dangling")
    write(user / "lower/skill.md", skill_text("lowercase"))
    # duplicates across roots: the same folder through two roots, same names at two paths
    write_skill(agents_user / "x", "cross-dup")
    os.symlink(agents_user / "x", user / "x")
    write_skill(repo_root / "same", "same-name", "from repo")
    write_skill(agents_user / "same", "same-name", "from user")
    # several scopes and layers: the cwd's .codex, the repo root's .codex, .agents from root to cwd
    write_skill(tree.cwd / ".codex/skills/mine", "cwd-codex")
    write_skill(tree.repo / ".codex/skills/theirs", "root-codex")
    write_skill(tree.cwd / ".agents/skills/near", "near-agents")
    write_skill(tree.cwd / "deeper/.agents/skills/far", "below-cwd")
    # a root that is itself a symlink
    write_skill(tree.base / "elsewhere/s", "linked-root")
    (tree.repo / "sub/.agents/skills/linkroot").parent.mkdir(parents=True, exist_ok=True)
    os.symlink(tree.base / "elsewhere", tree.cwd / ".agents/skills/linkroot")
    tree.compare(codex_oracle)


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5, 6])
def test_random_trees_match_codex(tmp_path: Path, codex_oracle: Any, seed: int) -> None:
    rng = random.Random(seed)
    tree = Tree(tmp_path)
    roots = [
        tree.codex_home / "skills",
        tree.home / ".agents/skills",
        tree.repo / ".agents/skills",
        tree.cwd / ".agents/skills",
        tree.cwd / ".codex/skills",
    ]
    bodies = [
        lambda n: skill_text(n),
        lambda n: skill_text(n, "Tricky: colon value"),
        lambda n: skill_text(n).replace("\n", "\r\n"),
        lambda n: "\ufeff" + skill_text(n),
        lambda n: skill_text(n, None),
        lambda n: skill_text(None, "nameless"),
        lambda n: f"---\nname: {n}\ndescription: x\nbroken\n---\n",
        lambda n: f"---\nname: {n}\ndescription: |\n  block: text\n  more\n---\n",
    ]
    for i in range(70):
        depth = rng.choice([0, 1, 1, 2, 3, 5, 6, 7, 8])
        parts = [rng.choice(["g", "grp", ".h", "x", "deep"]) + str(rng.randrange(3)) for _ in range(depth)]
        folder = rng.choice(roots).joinpath(*parts, f"s{i}")
        if (folder / "SKILL.md").exists():
            continue
        write(folder / "SKILL.md", rng.choice(bodies)(f"skill-{seed}-{i % 40}"))
    for _ in range(6):
        source, target = rng.choice(roots), rng.choice(roots)
        link = source / f"link{rng.randrange(1000)}"
        if target.exists() and source.exists() and not os.path.lexists(link):
            os.symlink(target, link)
    tree.compare(codex_oracle)


def test_plugin_namespaces_match_codex(tmp_path: Path, codex_oracle: Any) -> None:
    tree = Tree(tmp_path)
    r = tree.repo / ".agents/skills"

    def manifest(folder: Path, kind: str, body: str) -> None:
        write(folder / kind / "plugin.json", body)

    write_skill(r / "plugged", "plugged")
    manifest(r / "plugged", ".claude-plugin", '{"name": "pl"}')
    manifest(r / "bundle", ".codex-plugin", '{"name": "bk"}')
    manifest(r / "bundle", ".claude-plugin", '{"name": "second"}')
    write_skill(r / "bundle/skills/inner", "inner")
    manifest(r / "bundle/skills/nested", ".cursor-plugin", '{"name": "nest"}')
    write_skill(r / "bundle/skills/nested/deep", "deep")
    manifest(r / "bundle/skills/badnest", ".claude-plugin", "not json")
    write_skill(r / "bundle/skills/badnest/x", "badnest")
    manifest(r / "blank", ".claude-plugin", '{"name": ""}')
    write_skill(r / "blank/s", "blankns")
    manifest(r / "numeric", ".claude-plugin", '{"name": 5}')
    write_skill(r / "numeric/s", "numns")
    manifest(r / "long", ".claude-plugin", '{"name": "' + "p" * 64 + '"}')
    write_skill(r / "long/s", "s" * 64)
    # namespace and name of at most 128 characters together load (characters, not UTF-8 bytes
    # or UTF-16 units); longer ones are dropped
    for plugin, length in (("q" * 65, 64), ("\u00e9" * 70, 58), ("\u00e9" * 70, 59), ("\U0001f600" * 65, 63)):
        folder = r / f"long-{ord(plugin[0])}-{len(plugin)}-{length}"
        manifest(folder, ".claude-plugin", '{"name": "' + plugin + '"}')
        write_skill(folder / "s", "s" * length)
    manifest(tree.cwd, ".claude-plugin", '{"name": "above"}')
    write_skill(tree.cwd / ".agents/skills/a", "abovens")
    write_skill(tree.base / "plain/p", "linkedplain")
    os.symlink(tree.base / "plain", r / "bundle/skills/linkedplain")
    manifest(tree.base / "plug2", ".claude-plugin", '{"name": "target"}')
    write_skill(tree.base / "plug2/skills/t", "linkedplug")
    os.symlink(tree.base / "plug2", r / "plug2link")
    listed = tree.compare(codex_oracle)
    assert {name for name, _ in listed} >= {
        "pl:plugged",
        "bk:inner",
        "nest:deep",
        "bk:badnest",
        "blank:blankns",
        "numns",
        "above:abovens",
        "linkedplain",
        "target:linkedplug",
        "\u00e9" * 70 + ":" + "s" * 58,
        "\U0001f600" * 65 + ":" + "s" * 63,  # 129 characters, though 194 UTF-16 units
    }
    assert not [name for name, _ in listed if len(name) > 129]


def test_folder_names_codex_skips_match_codex(tmp_path: Path, codex_oracle: Any) -> None:
    tree = Tree(tmp_path)
    r = tree.repo / ".agents/skills"
    write_skill(r / "plain", "plain")
    for i, char in enumerate(["\n", "\r", "\t", "\x01", "\x1b", "\x7f", "\x85", "\u2028", "\u202e"]):
        write_skill(r / f"leaf{char}{i}", f"leaf-{i}")
        write_skill(r / f"outer{char}{i}" / "inner", f"inner-{i}")
    for name in (b"bad\xffname", b"outer\xfe/inner"):
        write_skill(Path(os.fsdecode(os.fsencode(r) + b"/" + name)), f"bytes-{len(name)}")
    target = Path(os.fsdecode(os.fsencode(tree.base) + b"/target\xff"))
    write_skill(target, "link-to-bad-target")
    os.symlink(target, r / "link-ok")
    write_skill(tree.base / "plain-target", "bad-link-name")
    os.symlink(tree.base / "plain-target", r / "link\nname")
    listed = tree.compare(codex_oracle)
    assert {name for name, _ in listed} >= {"plain", "leaf-3", "inner-8", "link-to-bad-target"}


def test_tagged_frontmatter_and_quoted_policies_match_codex(tmp_path: Path, codex_oracle: Any) -> None:
    tree = Tree(tmp_path)
    r = tree.repo / ".agents/skills"
    values = [
        "description: !custom a tagged description",
        "description: d\nallowed-tools: !tools Bash Read",
        "description: d\nmetadata: !meta\n  short-description: short",
        "description: d\nx: !!python/object:os.system ls",
        "description: !<tag:example.com,2000:x> v",
        "description: d\nx: !!set {a, b}",
        "description: d\nx: !!int abc",
        "description: !!int abc",
        "description: !!bool ~",
        "description: !custom |\n  block text\n  more",
        "description: !custom {a: b}",
        "description: {a: b}",
        "description: !!null abc",
        "description: !!null 'abc'",
        "description: d\nmetadata:\n  short-description: !!null abc",
        "description: !c [a, b]",
        'description: !!python/object/apply:os.system ["echo"]',
        "description: ! ~",
        "description: ! [a]",
    ]
    for i, value in enumerate(values):
        write(r / f"tag{i}/SKILL.md", f"---\nname: tag-{i}\n{value}\n---\nbody\n")
    policies = [
        "'false'",
        '"false"',
        "'True'",
        "!!bool 'false'",
        ">-\n    false",
        "!custom false",
        "false",
        "! false",
        "! ~",
    ]
    for i, value in enumerate(policies):
        write_skill(r / f"policy{i}", f"policy-{i}")
        write(
            r / f"policy{i}/agents/openai.yaml",
            f"policy:\n  products: [chatgpt]\n  allow_implicit_invocation: {value}\n",
        )
    listed = tree.compare(codex_oracle)
    assert {"tag-0", "tag-10", "tag-17", "policy-0"} <= {name for name, _ in listed}


def test_an_entry_limit_reached_in_bundled_files_matches_codex(tmp_path: Path, codex_oracle: Any) -> None:
    tree = Tree(tmp_path)
    roots = {"files-only": tree.home / ".agents/skills", "nested": tree.repo / ".agents/skills"}
    for kind, root in roots.items():
        for name in ("aa", "many", "zz"):
            write_skill(root / name, f"{kind}-{name}")
        references = root / "many/references"
        references.mkdir()
        for i in range(20_100):  # past Codex's 20,000 entries per root
            (references / f"f{i:05d}.md").touch()
    write_skill(roots["nested"] / "many/references/zzz", "nested-after-the-cut")
    listed = {name for name, _ in tree.compare(codex_oracle)}
    assert "nested-after-the-cut" not in listed and "files-only-zz" in listed and "nested-zz" in listed
    found = discover_skills(tree.env(), DiscoveryOptions(include_builtin=False, use_cache=False))
    notes = {(d.code, d.path) for d in found.diagnostics if d.code in ("SK213", "SK215")}
    assert notes == {("SK215", roots["files-only"]), ("SK213", roots["nested"])}
