"""Differential tests: our Codex-format catalog against the real Codex 0.171.0 (codex-oracle).

For seeded random skill trees, at context windows 0, 4,000, 30,000 and 400,000 and with an
explicit ``skills.max_context_tokens``, the roots table and every skill line must be identical
to what Codex renders (the intro prose is ours and is not compared).

* ``test_rendering_matches_codex``: well-formed skills whose values the generator knows, so a
  difference can only come from rendering (budget, levels, order, aliases).
* ``test_discovered_catalog_matches_codex``: messy trees (broken YAML, block scalars, CRLF,
  BOM, long and Unicode names and descriptions, hidden and deep folders, symlinks, duplicates,
  several roots and scopes) through :func:`discover_skills` and :func:`render_catalog`.
* ``test_corpus_catalog_matches_codex``: the real skills of ``../shared/corpora`` linked in.

A fresh ``CODEX_HOME`` gets Codex's own system skills; writing Codex's marker file into an
otherwise empty ``skills/.system`` keeps them out, so both sides see only the tree's skills.
"""

from __future__ import annotations

import json
import random
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from skill_tree_helpers import git_init, split_catalog

from skillshelf.env import Env
from skillshelf.skills.catalog import default_budget, render_catalog
from skillshelf.skills.discover import DiscoveryOptions, discover_skills
from skillshelf.skills.model import RootOrigin, Scope, Skill
from testkit import CORPORA, shared_path

pytestmark = pytest.mark.oracle

MARKER = ".codex-system-skills.marker"
SETTINGS: list[dict[str, int]] = [
    {"model_context_window": 0},
    {"model_context_window": 4_000},
    {"model_context_window": 30_000},
    {"model_context_window": 400_000},
    {"skills.max_context_tokens": 1_500},
]
WORDS = [
    "build",
    "test",
    "deploy",
    "lint",
    "docs",
    "data",
    "graph",
    "cloud",
    "api",
    "review",
    "café",
    "naïve",
    "données",
    "数据",
    "テスト",
    "🚀",
    "ünïcode",
    "x",
    "a-long-hyphenated-word",
    "Use",
    "when:",
]
NAMES = [
    "alpha",
    "beta",
    "gamma",
    "delta",
    "pdf",
    "docx",
    "deploy",
    "review",
    "Name With Spaces",
    "café-tool",
    "数据-skill",
    "UPPER",
    "a" * 64,
    "x-" * 20 + "y",
]

Oracle = Callable[..., dict[str, Any]]


@dataclass
class Tree:
    base: Path
    repo: Path
    cwd: Path
    home: Path
    codex_home: Path
    known: list[Skill] = field(default_factory=list)


@pytest.fixture(scope="session")
def system_marker(codex_oracle: Oracle, tmp_path_factory: pytest.TempPathFactory) -> str:
    """The content of Codex's system-skills marker (one oracle call on an empty tree)."""
    base = tmp_path_factory.mktemp("marker")
    for folder in ("cwd", "home", "codex"):
        (base / folder).mkdir()
    codex_oracle(base / "cwd", home=base / "home", codex_home=base / "codex")
    return (base / "codex" / "skills" / ".system" / MARKER).read_text(encoding="utf-8")


def new_tree(base: Path, marker: str) -> Tree:
    repo = base / "repo"
    cwd = repo / "pkg" / "app"
    home, codex_home = base / "home", base / "codex"
    for folder in (cwd, home):
        folder.mkdir(parents=True)
    git_init(repo)
    system = codex_home / "skills" / ".system"
    system.mkdir(parents=True)
    (system / MARKER).write_text(marker, encoding="utf-8")
    return Tree(base=base, repo=repo, cwd=cwd, home=home, codex_home=codex_home)


def write_skill(folder: Path, frontmatter: str, *, newline: str = "\n", bom: bool = False) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    text = ("\ufeff" if bom else "") + f"---\n{frontmatter}---\n\n# Body\n\nSteps.\n".replace("\n", newline)
    (folder / "SKILL.md").write_bytes(text.encode("utf-8"))


def words(rnd: random.Random, low: int, high: int) -> str:
    target = rnd.randint(low, high)
    out: list[str] = []
    while sum(len(w) + 1 for w in out) < target:
        out.append(rnd.choice(WORDS) if rnd.random() < 0.4 else f"w{rnd.randrange(10**6)}")
    return " ".join(out)[:target].strip() or "d"


def quoted(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)


def known_roots(tree: Tree) -> list[tuple[Path, Scope, RootOrigin]]:
    return [
        (tree.codex_home / "skills", Scope.USER, RootOrigin.CODEX_USER),
        (tree.home / ".agents" / "skills", Scope.USER, RootOrigin.AGENTS_USER),
        (tree.codex_home / "skills" / ".system", Scope.SYSTEM, RootOrigin.CODEX_SYSTEM),
        (tree.repo / ".agents" / "skills", Scope.REPO, RootOrigin.AGENTS_REPO),
        (tree.repo / "pkg" / ".agents" / "skills", Scope.REPO, RootOrigin.AGENTS_REPO),
        (tree.cwd / ".agents" / "skills", Scope.REPO, RootOrigin.AGENTS_REPO),
    ]


def build_known_tree(base: Path, marker: str, seed: int, count: int, longest: int) -> Tree:
    """Well-formed skills spread over six roots of four kinds; ``tree.known`` holds them."""
    rnd = random.Random(seed)
    tree = new_tree(base, marker)
    roots = known_roots(tree)
    for i in range(count):
        root, scope, origin = rnd.choice(roots)
        rel = Path(
            *[f"{rnd.choice(['g', 'team', 'x'])}{rnd.randrange(3)}" for _ in range(rnd.randrange(3))],
            f"s{i:03d}",
        )
        name = rnd.choice(NAMES) if rnd.random() < 0.3 else f"{rnd.choice(NAMES[:8])}-{i}"
        description = words(rnd, 1, longest)
        write_skill(root / rel, f"name: {quoted(name)}\ndescription: {quoted(description)}\n")
        real = root.resolve()
        tree.known.append(
            Skill(
                name=name,
                description=description,
                path=real / rel / "SKILL.md",
                root=real,
                scope=scope,
                origin=origin,
            )
        )
    return tree


def compare(
    tree: Tree, codex_oracle: Oracle, skills: list[Skill], roots: list[Path], setting: dict[str, int]
) -> list[str]:
    """Problems found for one setting (empty when identical)."""
    result = codex_oracle(tree.cwd, home=tree.home, codex_home=tree.codex_home, config=setting)
    want_roots, want = split_catalog(result["skills_instructions"])
    budget = default_budget(
        setting.get("model_context_window"), max_context_tokens=setting.get("skills.max_context_tokens")
    )
    ours = render_catalog(skills, budget, roots=roots)
    if result["skills_instructions"] is None:
        return (
            []
            if not ours.text
            else [f"{setting}: Codex renders no catalog, we render {len(ours.entries)} lines"]
        )
    if (want_roots, want) == (list(ours.root_lines), list(ours.entries)):
        return []
    names_codex = {line.split(": ")[0] for line in want}
    names_ours = {line.split(": ")[0] for line in ours.entries}
    problems = [f"{setting}: Codex {len(want)} lines, ours {len(ours.entries)} (level {ours.report.level})"]
    if want_roots != list(ours.root_lines):
        problems.append(f"  roots table: Codex {want_roots} / ours {list(ours.root_lines)}")
    problems += [f"  only in Codex: {n}" for n in sorted(names_codex - names_ours)[:5]]
    problems += [f"  only in ours: {n}" for n in sorted(names_ours - names_codex)[:5]]
    for mine, theirs in zip(ours.entries, want, strict=False):
        if mine != theirs:
            problems += [f"  first different line:\n    Codex: {theirs[:300]}\n    ours:  {mine[:300]}"]
            break
    return problems


@pytest.mark.parametrize(("seed", "count", "longest"), [(11, 14, 120), (22, 70, 1_400), (33, 230, 600)])
def test_rendering_matches_codex(
    tmp_path: Path, codex_oracle: Oracle, system_marker: str, seed: int, count: int, longest: int
) -> None:
    tree = build_known_tree(tmp_path, system_marker, seed, count, longest)
    roots = [root.resolve() for root, _, _ in known_roots(tree)]
    problems = [p for setting in SETTINGS for p in compare(tree, codex_oracle, tree.known, roots, setting)]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("levels", [10, 11])
def test_roots_table_tipping_point_matches_codex(
    tmp_path: Path, codex_oracle: Oracle, system_marker: str, levels: int
) -> None:
    """One skill in each of 10 nested roots: the aliased form is 1 character cheaper; at 11 it is not."""
    tree = new_tree(tmp_path, system_marker)
    folder = tree.repo
    for level in range(levels):
        root = folder / ".agents" / "skills"
        write_skill(root / "x", f"name: s{level:02d}\ndescription: d\n")
        real = root.resolve()
        tree.known.append(
            Skill(
                name=f"s{level:02d}",
                description="d",
                path=real / "x" / "SKILL.md",
                root=real,
                scope=Scope.REPO,
                origin=RootOrigin.AGENTS_REPO,
            )
        )
        folder = folder / f"l{level}"
    tree.cwd = folder.parent
    roots = [skill.root for skill in tree.known]
    problems = compare(tree, codex_oracle, tree.known, roots, {"model_context_window": 0})
    assert not problems, "\n".join(problems)
    aliased = render_catalog(tree.known, default_budget(0), roots=roots).report.aliased
    assert aliased is (levels == 10)


def messy_skills(tree: Tree, rnd: random.Random) -> None:
    """Every kind of awkward skill at least once, then random extras."""
    repo_root = tree.repo / ".agents" / "skills"
    home_root = tree.home / ".agents" / "skills"
    outside = tree.base / "outside"
    long_desc = words(rnd, 1_100, 1_500)
    cases: list[tuple[Path, str, dict[str, Any]]] = [
        (repo_root / "plain", "name: plain\ndescription: A plain skill for testing\n", {}),
        (repo_root / "colon", "name: colon\ndescription: Use when: the value has a colon: inside\n", {}),
        (
            repo_root / "block",
            "name: block\ndescription: |\n  First line of a block.\n  Second line: here.\n",
            {},
        ),
        (repo_root / "folded", "name: folded\ndescription: >-\n  Folded text\n  continues here\n", {}),
        (repo_root / "crlf", "name: crlf\ndescription: Windows line endings\n", {"newline": "\r\n"}),
        (repo_root / "bom", "name: bom\ndescription: Starts with a byte order mark\n", {"bom": True}),
        (repo_root / "flow", 'name: flow\ndescription: flow metadata\nmetadata: {"a": ["b"], ["c"]}\n', {}),
        (repo_root / "noname", "description: falls back to the folder name\n", {}),
        (repo_root / "nodesc", "name: nodesc\n", {}),
        (repo_root / "toolong", f"name: {'n' * 70}\ndescription: name over the limit\n", {}),
        (repo_root / "longdesc", f"name: longdesc\ndescription: {quoted(long_desc)}\n", {}),
        (repo_root / "unicode", "name: ünï-数据\ndescription: Données 🚀 テスト\n", {}),
        (repo_root / "spaces", "name: spaced\ndescription: '  lots   of\twhite   space  '\n", {}),
        (
            repo_root / "short",
            "name: short\ndescription: long form\nmetadata:\n  short-description: short form\n",
            {},
        ),
        (repo_root / ".hidden" / "h", "name: hidden\ndescription: under a hidden folder\n", {}),
        (repo_root / "d1/d2/d3/d4/d5/deep6", "name: deep6\ndescription: six levels down\n", {}),
        (repo_root / "d1/d2/d3/d4/d5/d6/deep7", "name: deep7\ndescription: seven levels down\n", {}),
        (
            tree.repo / "pkg" / ".agents" / "skills" / "mid",
            "name: plain\ndescription: same name, other path\n",
            {},
        ),
        (tree.cwd / ".agents" / "skills" / "cwd", "name: cwd-skill\ndescription: at the cwd level\n", {}),
        (
            tree.cwd / ".codex" / "skills" / "proj",
            "name: codex-project\ndescription: in the cwd .codex folder\n",
            {},
        ),
        (
            tree.repo / ".codex" / "skills" / "up",
            "name: codex-up\ndescription: in an ancestor .codex folder\n",
            {},
        ),
        (home_root / "home", "name: home-skill\ndescription: in the user agents root\n", {}),
        (tree.codex_home / "skills" / "legacy", "name: legacy\ndescription: in CODEX_HOME skills\n", {}),
        (
            tree.codex_home / "skills" / ".system" / "sys",
            "name: sys-skill\ndescription: a system skill\n",
            {},
        ),
        (outside / "linked", "name: linked\ndescription: reached through a symlink\n", {}),
        (outside / "pool" / "p1", "name: pooled\ndescription: in a symlinked root\n", {}),
    ]
    for folder, frontmatter, options in cases:
        write_skill(folder, frontmatter, **options)
    for i in range(rnd.randint(8, 20)):
        folder = rnd.choice([repo_root, home_root, tree.cwd / ".agents" / "skills"]) / f"extra{i}"
        write_skill(
            folder,
            f"name: {quoted(rnd.choice(NAMES))}\ndescription: {quoted(words(rnd, 5, 900))}\n",
            newline=rnd.choice(["\n", "\r\n"]),
            bom=rnd.random() < 0.2,
        )
    write_skill(repo_root / "quiet", "name: quiet\ndescription: hidden from the model\n")
    (repo_root / "quiet" / "agents").mkdir()
    (repo_root / "quiet" / "agents" / "openai.yaml").write_text(
        "policy:\n  allow_implicit_invocation: false\n", encoding="utf-8"
    )
    write_skill(repo_root / "other", "name: other-product\ndescription: for another product\n")
    (repo_root / "other" / "agents").mkdir()
    (repo_root / "other" / "agents" / "openai.yaml").write_text(
        "policy:\n  products: [chatgpt]\n", encoding="utf-8"
    )
    (repo_root / "lower").mkdir()
    (repo_root / "lower" / "skill.md").write_text(
        "---\nname: lower\ndescription: lowercase file\n---\n", encoding="utf-8"
    )
    (repo_root / "nofront").mkdir()
    (repo_root / "nofront" / "SKILL.md").write_text("# No frontmatter\n", encoding="utf-8")
    home_root.mkdir(parents=True, exist_ok=True)
    (home_root / "linked").symlink_to(outside / "linked")
    (home_root / "dupe-of-plain").symlink_to(repo_root / "plain")
    (home_root / "loop").symlink_to(home_root)
    (tree.cwd / ".agents" / "skills" / "pool").symlink_to(outside / "pool")


def discovered(tree: Tree) -> tuple[list[Skill], list[Path]]:
    env = Env.for_test(cwd=tree.cwd, home=tree.home, codex_home=tree.codex_home)
    options = DiscoveryOptions(
        include_builtin=False, include_claude=False, include_installed=False, use_cache=False
    )
    found = discover_skills(env, options)
    return list(found.skills), [root.path for root in found.roots]


@pytest.mark.parametrize("seed", [101, 202, 303])
def test_discovered_catalog_matches_codex(
    tmp_path: Path, codex_oracle: Oracle, system_marker: str, seed: int
) -> None:
    tree = new_tree(tmp_path, system_marker)
    messy_skills(tree, random.Random(seed))
    skills, roots = discovered(tree)
    problems = [p for setting in SETTINGS for p in compare(tree, codex_oracle, skills, roots, setting)]
    assert not problems, "\n".join(problems)


def namespace_and_metadata_skills(tree: Tree) -> None:
    """Skills Codex 0.171.0 loads that our discovery does not load (yet) the same way."""
    root = tree.repo / ".agents" / "skills"
    # Codex names skills under a plugin manifest `<plugin>:<name>` (two corpus skills do this).
    write_skill(root / "plugged", "name: plugged\ndescription: beside a plugin manifest\n")
    write_skill(root / "bundle" / "skills" / "inner", "name: inner\ndescription: inside a plugin folder\n")
    for folder, plugin in ((root / "plugged", "plugged"), (root / "bundle", "bundle-kit")):
        (folder / ".claude-plugin").mkdir()
        (folder / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": plugin}), encoding="utf-8")
    # Codex keeps a skill whose repaired `metadata` is no mapping (the corpus calculator skill).
    write_skill(root / "flow2", 'name: flow2\ndescription: tight flow\nmetadata: {"a":{"b":["c"],["d"]}}\n')
    write_skill(root / "plain", "name: plain\ndescription: an ordinary neighbour\n")


def test_plugin_namespaces_and_repaired_metadata_match_codex(
    tmp_path: Path, codex_oracle: Oracle, system_marker: str
) -> None:
    tree = new_tree(tmp_path, system_marker)
    namespace_and_metadata_skills(tree)
    skills, roots = discovered(tree)
    problems = compare(tree, codex_oracle, skills, roots, {"model_context_window": 0})
    assert not problems, "\n".join(problems)


NONSPECIFIC_TAGGED = [
    "name: null-text\ndescription: ! ~",
    "name: null-word\ndescription: ! null",
    "name: ! ~\ndescription: a name that is a tilde",
    "name: ! 12\ndescription: a number name",
    "name: int-text\ndescription: ! 0x1F",
    "name: bool-text\ndescription: ! true",
    "name: quoted-text\ndescription: ! '123'",
    "name: verbatim\ndescription: !<!> ~",
    "name: anchored\ndescription: &a ! ~",
    "name: aliased\nx: &a ! ~\ndescription: *a",
    "name: block-text\ndescription: ! |\n  ~\n  more",
    "name: flow-map\ndescription: ! {a: 1}",
    "name: flow-seq\ndescription: ! [a]",
    "name: empty-text\ndescription: !",
    "! name: key-tagged\n! description: keys tagged\nmetadata: !\n  short-description: ! ~",
]


def test_nonspecific_tags_match_codex(tmp_path: Path, codex_oracle: Oracle, system_marker: str) -> None:
    """``!`` makes a scalar text (``! ~`` is ``"~"``) and leaves a collection as it is."""
    tree = new_tree(tmp_path, system_marker)
    for i, frontmatter in enumerate(NONSPECIFIC_TAGGED):
        write_skill(tree.repo / ".agents" / "skills" / f"bang{i:02d}", frontmatter + "\n")
    skills, roots = discovered(tree)
    problems = compare(tree, codex_oracle, skills, roots, {"model_context_window": 0})
    assert not problems, "\n".join(problems)
    assert {"null-text", "~", "12", "key-tagged"} <= {skill.name for skill in skills}


def corpus_tree(tmp_path: Path, marker: str) -> Tree:
    """A repo whose ``.agents/skills`` links every corpus (same walked paths as the corpora)."""
    shared_path("corpora")
    tree = new_tree(tmp_path, marker)
    root = tree.repo / ".agents" / "skills"
    root.mkdir(parents=True)
    for corpus in sorted(p for p in CORPORA.iterdir() if p.is_dir()):
        (root / corpus.name).symlink_to(corpus)
    tree.cwd = tree.repo
    return tree


@pytest.mark.parametrize("setting", [{"model_context_window": 200_000}, {"model_context_window": 2_000_000}])
def test_corpus_catalog_matches_codex(
    tmp_path: Path, codex_oracle: Oracle, system_marker: str, setting: dict[str, int]
) -> None:
    tree = corpus_tree(tmp_path, system_marker)
    skills, roots = discovered(tree)
    problems = compare(tree, codex_oracle, skills, roots, setting)
    shutil.rmtree(tree.repo / ".agents")
    assert not problems, "\n".join(problems)
