"""Differential test: which skills Claude Code (2.1.197) lists with their descriptions when its
listing is over budget, against :func:`skillshelf.skills.claude_view.claude_listing`.

The skills differ in description length (some with ``when_to_use``, some past the 1,536-character
cap, some with wide characters), sit in the user's folder, the cwd's and the project root's, and
some are used lately (``skillUsage`` in ``~/.claude.json``) or set ``name-only`` / ``off`` in
``skillOverrides``; the settings name models of different windows and characters per token.
``.claude/commands`` files of the user and of both project folders (nested, described by
frontmatter or by their first line, one a ``SKILL.md`` folder) share the listing.
Only the entries the test makes (``my-``) are compared. The text of each entry is compared
too, for descriptions Claude Code does not read as Codex does (collections, numbers, nulls).
"""

from __future__ import annotations

import dataclasses
import json
import random
import re
import time
from pathlib import Path
from typing import Any

import pytest
from skill_tree_helpers import git, git_init, write, write_skill

from skillshelf.env import Env
from skillshelf.skills.claude_commands import claude_commands
from skillshelf.skills.claude_listing import entry_text
from skillshelf.skills.claude_view import claude_listing, listed_description
from skillshelf.skills.discover import discover_claude

pytestmark = pytest.mark.oracle

_ENTRY = re.compile(r"^- (?P<name>my-\S+?)(?P<described>: .*)?$")


def _listed(result: dict[str, Any]) -> tuple[list[str], list[str]]:
    """(described, by name alone) of the test's skills in the oracle's listing."""
    described, bare = [], []
    for line in (result["skills_listing"] or "").splitlines():
        if m := _ENTRY.match(line):
            (described if m.group("described") else bare).append(m.group("name"))
    return described, bare


def _library(tmp_path: Path) -> tuple[Path, Path]:
    rng = random.Random(7)
    home, repo = tmp_path / "home", git_init(tmp_path / "repo")
    cwd = repo / "app"
    roots = [home / ".claude/skills", cwd / ".claude/skills", repo / ".claude/skills"]
    words = ["parse", "render", "deploy", "audit", "migrate", "profile", "index", "cache", "retry", "stream"]
    for number in range(160):
        name = f"my-{number:03d}"
        description = " ".join(rng.choice(words) for _ in range(rng.randint(3, 70)))
        extra = f"when_to_use: when the {rng.choice(words)} step fails" if number % 7 == 0 else ""
        if number % 29 == 0:
            description = "long " * 400
        if number % 31 == 0:
            description = "表示 " * 40 + description
        write_skill(roots[rng.randrange(3)] / name, name, description, extra)
    write_skill(roots[0] / "my-hidden", "x", "never listed", "disable-model-invocation: true")
    _commands(rng, [home / ".claude/commands", cwd / ".claude/commands", repo / ".claude/commands"], words)
    settings = {"skillOverrides": {"my-001": "name-only", "my-002": "off"}}
    write(home / ".claude/settings.json", json.dumps(settings))
    now = time.time() * 1000
    usage = {
        "my-150": {"usageCount": 9, "lastUsedAt": now},
        "my-155": {"usageCount": 2, "lastUsedAt": now - 20 * 86_400_000},
    }
    write(home / ".claude.json", json.dumps({"skillUsage": usage}))
    return home, cwd


def _commands(rng: random.Random, folders: list[Path], words: list[str]) -> None:
    for number in range(40):
        folder = folders[rng.randrange(3)] / ("my-group" if number % 5 == 0 else "")
        text = " ".join(rng.choice(words) for _ in range(rng.randint(3, 120)))
        if number % 3 == 0:
            text = f"---\ndescription: {text}\n---\nbody\n"
        elif number % 4 == 0:
            text = f"# {text}\nbody\n"
        write(folder / f"my-c{number:03d}.md", text)
    write(folders[1] / "my-packaged/SKILL.md", "---\ndescription: " + "packaged " * 60 + "\n---\n")
    write(folders[2] / "my-quiet.md", "---\ndescription: quiet\ndisable-model-invocation: true\n---\n")


@pytest.mark.parametrize(
    ("fraction", "model"),
    [
        (None, None),
        (0.013, None),
        (None, "claude-sonnet-4-5"),
        (None, "haiku"),
        (None, "claude-sonnet-4-5[1m]"),
        (None, "sonnet[1m]"),
        (None, "sonnet"),
    ],
)
def test_claude_code_drops_the_descriptions_skillshelf_says_it_drops(
    tmp_path: Path, claude_oracle: Any, fraction: float | None, model: str | None
) -> None:
    home, cwd = _library(tmp_path)
    settings = json.loads((home / ".claude/settings.json").read_text(encoding="utf-8"))
    if fraction is not None:
        settings["skillListingBudgetFraction"] = fraction
    if model is not None:
        settings["model"] = model
    write(home / ".claude/settings.json", json.dumps(settings))

    described, bare = _listed(claude_oracle(cwd, home=home))
    # the oracle's Claude Code talks to a stand-in on loopback, not to Anthropic's API
    env = Env.for_test(cwd=cwd, home=home)
    env = dataclasses.replace(env, environ={**env.environ, "ANTHROPIC_BASE_URL": "http://127.0.0.1:9"})
    ours = claude_listing(env, use_cache=False).plan

    assert "my-002" not in described + bare and "my-001" in bare
    assert ("my-150" in described) == (ours.budget > 6_000)  # below, every name is bare
    assert "my-quiet" not in described + bare and "my-group:my-c005" in described + bare
    assert "my-packaged" in described + bare
    assert list(ours.described) == described
    assert sorted(ours.names_only) == sorted(set(bare) - {"my-001"})
    assert ours.over and ours.names_only


def test_own_skills_give_way_to_the_users_of_the_same_name(tmp_path: Path, claude_oracle: Any) -> None:
    """A skill named like one of Claude Code's own (claude-api, loop) is listed in its place:
    the room the own one took is the others'; one Claude Code does not list leaves it there."""
    home, cwd = _library(tmp_path)
    for name, extra in (("claude-api", ""), ("loop", ""), ("verify", "disable-model-invocation: true")):
        write_skill(home / ".claude/skills" / name, name, f"the user's own {name}", extra)
    described, bare = _listed(claude_oracle(cwd, home=home))
    env = Env.for_test(cwd=cwd, home=home)
    env = dataclasses.replace(env, environ={**env.environ, "ANTHROPIC_BASE_URL": "http://127.0.0.1:9"})
    ours = claude_listing(env, use_cache=False).plan
    assert [n for n in ours.described if n.startswith("my-")] == described
    assert sorted(ours.names_only) == sorted(set(bare) - {"my-001"})


def test_the_widest_listing_skillshelf_measures_is_shown_whole(tmp_path: Path, claude_oracle: Any) -> None:
    """At a budget of exactly the width skillshelf gives the listing every entry keeps its text;
    one column less and one loses it (Claude Code's own entries, line breaks in them, counted)."""
    home, cwd = tmp_path / "home", git_init(tmp_path / "repo")
    for name in ("my-alpha", "my-beta", "my-gamma"):
        write_skill(cwd / ".claude/skills" / name, name, f"the {name} skill does {name} things well")
    env = Env.for_test(cwd=cwd, home=home)
    env = dataclasses.replace(env, environ={**env.environ, "ANTHROPIC_BASE_URL": "http://127.0.0.1:9"})
    width = claude_listing(env, use_cache=False).plan.width
    for budget, whole in ((width, True), (width - 1, False)):
        fixed = {"SLASH_COMMAND_TOOL_CHAR_BUDGET": str(budget)}
        result = claude_oracle(cwd, home=home, environ=fixed)
        bare = [x for x in (result["skills_listing"] or "").split("\n") if x[:2] == "- " and ": " not in x]
        ours = claude_listing(
            dataclasses.replace(env, environ={**env.environ, **fixed}), use_cache=False
        ).plan
        assert (bare == [], ours.over) == (whole, not whole), budget
        assert sorted(ours.described) == sorted(_listed(result)[0])


def test_claude_code_reads_the_skill_overrides_of_the_folder_it_starts_in(
    tmp_path: Path, claude_oracle: Any
) -> None:
    """Started in ``repo/app``, Claude Code takes ``skillOverrides`` from ``app/.claude`` and not
    from the repository root's ``.claude`` (whose skills it still lists)."""
    home, repo = tmp_path / "home", git_init(tmp_path / "repo")
    app = repo / "app"
    for name in ("my-root-off", "my-app-off", "my-kept"):
        write_skill(repo / ".claude/skills" / name, name, f"{name} helps")
    write(repo / ".claude/settings.json", json.dumps({"skillOverrides": {"my-root-off": "off"}}))
    write(app / ".claude/settings.local.json", json.dumps({"skillOverrides": {"my-app-off": "off"}}))

    described, bare = _listed(claude_oracle(app, home=home))
    env = Env.for_test(cwd=app, home=home)
    env = dataclasses.replace(env, environ={**env.environ, "ANTHROPIC_BASE_URL": "http://127.0.0.1:9"})
    ours = claude_listing(env, use_cache=False).plan

    assert sorted(described + bare) == ["my-kept", "my-root-off"]
    assert sorted(n for n in (*ours.described, *ours.names_only) if n.startswith("my-")) == sorted(
        described + bare
    )


@pytest.mark.parametrize(
    ("tree", "cwd", "home", "listed"),
    [
        (("outer", "outer/mid", "outer/mid/app"), "outer/mid/app", "home", 3),
        (("", "h/w", "h/w/app"), "h/w/app", "h", 2),
        (("outer", "outer/repo", "outer/repo/app"), "outer/repo/app", "home", 2),
    ],
    ids=["no-repository", "no-repository-under-home", "empty-git-folder-is-the-root"],
)
def test_claude_code_reads_project_skills_and_commands_from_the_cwd_up_as_skillshelf_says(
    tmp_path: Path, claude_oracle: Any, tree: tuple[str, ...], cwd: str, home: str, listed: int
) -> None:
    """Claude Code walks from the cwd up to the nearest folder holding ``.git`` (an empty folder
    counts), without one up to the filesystem root, and never into the home folder or above it:
    ``listed`` of the ``tree``'s folders, nearest first, have their skill and command listed."""
    base = tmp_path / "case"
    for folder in tree:
        name = "my-" + (folder.replace("/", "-") or "top")
        write_skill(base / folder / ".claude/skills" / name, name, f"{name} helps")
        write(
            base / folder / ".claude/commands" / f"{name}-cmd.md", f"---\ndescription: {name} command\n---\n"
        )
    if "repo" in cwd:
        (base / "outer/repo/.git").mkdir(parents=True)
    (base / home).mkdir(parents=True, exist_ok=True)

    described, bare = _listed(claude_oracle(base / cwd, home=base / home))
    env = Env.for_test(cwd=base / cwd, home=base / home)
    env = dataclasses.replace(env, environ={**env.environ, "ANTHROPIC_BASE_URL": "http://127.0.0.1:9"})
    ours = claude_listing(env, use_cache=False).plan

    names = {"my-" + (folder.replace("/", "-") or "top") for folder in tree[len(tree) - listed :]}
    assert sorted(described + bare) == sorted([*names, *(f"{n}-cmd" for n in names)])
    assert sorted(n for n in (*ours.described, *ours.names_only) if n.startswith("my-")) == sorted(
        described + bare
    )


def test_in_a_worktree_without_commands_claude_code_lists_the_main_checkouts(
    tmp_path: Path, claude_oracle: Any
) -> None:
    """A linked worktree with no ``.claude/commands`` of its own gets the main checkout's (they
    are often not committed); the main checkout's skills it does not get."""
    home, main = tmp_path / "home", git_init(tmp_path / "main")
    write(main / "README.md", "x\n")
    git("add", "README.md", cwd=main)
    git("commit", "-qm", "init", cwd=main)
    git("worktree", "add", "-q", str(tmp_path / "wt"), cwd=main)
    write(main / ".claude/commands/my-main-cmd.md", "---\ndescription: the main checkout's command\n---\n")
    write_skill(main / ".claude/skills/my-main-skill", "my-main-skill", "the main checkout's skill")
    home.mkdir()

    described, bare = _listed(claude_oracle(tmp_path / "wt", home=home))
    env = Env.for_test(cwd=tmp_path / "wt", home=home)
    env = dataclasses.replace(env, environ={**env.environ, "ANTHROPIC_BASE_URL": "http://127.0.0.1:9"})
    ours = claude_listing(env, use_cache=False).plan

    assert described + bare == ["my-main-cmd"]
    assert [n for n in (*ours.described, *ours.names_only) if n.startswith("my-")] == ["my-main-cmd"]


#: Frontmatter lines (or None: no frontmatter) and body of skills whose description Claude Code
#: reads otherwise than Codex: collections, numbers, booleans, nulls, tags, the body's first line.
_DESCRIBED: dict[str, tuple[str | None, str]] = {
    "seq": ("description: [a]", "body line\n"),
    "seq-tagged": ("description: ! [a]", "body line\n"),
    "map": ("description: {a: 1}", "body line\n"),
    "map-tagged": ("description: ! {a: 1}", "body line\n"),
    "block-seq": ("description:\n  - first item\n  - second item", "\n\n# Usage notes\nmore\n"),
    "nested-map": ("description:\n  what: x\n  when:\n    - y", "```bash\nrun\n```\n"),
    "seq-of-maps": ("description:\n  - a: 1\n    b: 2", "#tag line\n"),
    "seq-wtu": ("description:\n  - a\nwhen_to_use: Use when deploying", "Deploy the app.\n"),
    "seq-empty-body": ("description: [a]\nwhen_to_use: when x", "  \n"),
    "seq-long-line": ("description: [a]", "word " * 30 + "\n"),
    "dup-last": ("description: text\ndescription: [a]", "## Title ##\n"),
    "number": ("description: 1.50\nwhen_to_use: when testing", "body line\n"),
    "numbers": ("description: 0x1F", "body line\n"),
    "exponent": ("description: 1e3", "body line\n"),
    "huge": ("description: 12345678901234567890", "body line\n"),
    "bool": ("description: TRUE", "body line\n"),
    "yes": ("description: yes", "body line\n"),
    "null": ("description: ~", "\n#\tTabbed heading\n"),
    "empty": ("description:", "first\r\nsecond\r\n"),
    "date": ("description: 2024-01-01", "body line\n"),
    "tagged-number": ("description: ! 1.50", "body line\n"),
    "null-tag-text": ("description: !!null abc", "body line\n"),
    "meta-text": ("description: ok\nmetadata: text", "body line\n"),
    "no-frontmatter": (None, "\n# Plain heading\n"),
    # YAML Claude Code cannot read even after its repair: the frontmatter is ignored whole
    "broken-dash": ("description: -\nwhen_to_use: when dash", "Body dash line\n"),
    "broken-quote": ('description: "unbalanced\ndisable-model-invocation: true', "Body\n"),
    "broken-indent": ("description: good desc\n  bad: indent", "## Body heading\n"),
    "broken-tabs": ("description:\tfoo bar\n\tx: y", "Body tab\n"),
    "broken-codex-repairs": ("description: fine\nk2: a: b", "Body\n"),
    "broken-crlf": ("description: a: b\r", "Body crlf\r\n"),
    "broken-empty-body": ('description: "x', ""),
    "not-a-mapping": ("- a\n- b", "Body list\n"),
    "scalar-frontmatter": ("42", "Body number\n"),
    # Claude Code's own repair
    "repair-tab": ("\tdescription: tabbed", "Body\n"),
    "repair-alias": ("description: *missing", "Body\n"),
    "repair-flow": ("description: [a, b\nwhen_to_use: x: y", "Body\n"),
    "repair-escapes": ('description: a\\b: c "q"', "Body\n"),
    # when_to_use as JavaScript prints it
    "wtu-list": ("description: d\nwhen_to_use: [a, b]", "Body\n"),
    "wtu-number": ("description: d\nwhen_to_use: 1.50", "Body\n"),
    "wtu-mapping": ("description: d\nwhen_to_use: {a: 1}", "Body\n"),
    "wtu-nested": ("description: d\nwhen_to_use: [[a, b], c, 0x1F, ~, {k: v}]", "Body\n"),
    "wtu-null": ("description: d\nwhen_to_use: ~", "Body\n"),
    "wtu-empty-list": ("description: d\nwhen_to_use: []", "Body\n"),
    "wtu-bool": ("description: d\nwhen_to_use: true", "Body\n"),
    "wtu-spaces": ('description: d\nwhen_to_use: "  x  y  "', "Body\n"),
    "wtu-hyphen": ("description: d\nwhen-to-use: hyphen", "Body\n"),
    # a description's inner whitespace and line breaks
    "ws-double": ('description: "a  b"', "Body\n"),
    "ws-newline": ('description: "l1\\nl2"', "Body\n"),
    "ws-block": ("description: |\n  line one\n  line two", "Body\n"),
    "ws-folded": ("description: >\n  f1\n  f2\n\n  f3", "Body\n"),
    # the frontmatter ends at the first `---` anywhere; the rest of its line starts the body
    "dash-mid": ("description: use --- as a separator", "Body\n"),
    "dash-word": ("description: a---b", "Body\n"),
    "dash-quoted": ('description: "use --- here"', "Body\n"),
    "dash-block": ("description: |\n  one --- two\n  three", "Body\n"),
    "dash-wtu": ("description: d\nwhen_to_use: a --- b", "Body\n"),
    "dash-line-start": ("description: d\n---x: y", "Body\n"),
    "dash-crlf": ("description: a---b\r", "Body\r\n"),
    "dash-unclosed": (None, "---\ndescription: d\n\nbody with a---b dash\n"),
    "dash-empty": (None, "---\n---\n\n  Body after blanks\n"),
    "dash-indented-open": (None, " ---\ndescription: ok\n---\nBody\n"),
}

#: ``.claude/commands`` files whose first line is the text: one rule with a skill's.
_COMMANDS = {
    "my-cmd-cr": "# a\rb\n",
    "my-cmd-nbsp": "\u00a0 # nb heading\n",
    "my-cmd-nel": "\x85x\n",
    "my-cmd-wide": "\U0001f600" * 60 + "\n",
    "my-cmd-tab": "\n#\tTabbed heading\n",
    # the frontmatter read as a skill's: YAML 1.2 values as JavaScript prints them, its own split
    "my-cmd-number": "---\ndescription: 1.50\nwhen_to_use: 0x1F\n---\nBody\n",
    "my-cmd-yes": "---\ndescription: yes\ndisable-model-invocation: yes\n---\nBody\n",
    "my-cmd-null": "---\ndescription: null\n---\nBody null\n",
    "my-cmd-list": "---\ndescription: [a, b]\nwhen_to_use: [c, d]\n---\nBody list\n",
    "my-cmd-hyphen": "---\ndescription: d\nwhen-to-use: hyphen\n---\nBody\n",
    "my-cmd-spaces": '---\ndescription: "  a  b  "\n---\nBody\n',
    "my-cmd-repaired": "---\ndescription: [unclosed\n---\nBody\n",
    "my-cmd-dash": "---\ndescription: a---b\n---\nBody\n",
}


def _texts(result: dict[str, Any]) -> dict[str, str]:
    """Each of the test's entries in the oracle's listing, by name: the text after ``: ``."""
    entries = (result["skills_listing"] or "").split("\n- ")
    return {
        name: text
        for name, _, text in (e.removeprefix("- ").partition(": ") for e in entries)
        if name[:3] == "my-"
    }


def test_claude_code_shows_the_description_skillshelf_reads_as_claude_codes(
    tmp_path: Path, claude_oracle: Any
) -> None:
    """A ``description`` Claude Code's YAML does not read as text (a sequence or mapping, null,
    empty) lists the skill with the body's first line; a number or boolean as JavaScript prints
    it; so is ``when_to_use``. A frontmatter its YAML cannot read even after its own repair, or
    that is not a mapping, is ignored whole. Codex drops or repairs some of these; Claude Code
    lists them all. Commands take their first line by the same rule."""
    home, repo = tmp_path / "home", git_init(tmp_path / "repo")
    for key, (frontmatter, body) in _DESCRIBED.items():
        head = "" if frontmatter is None else f"---\n{frontmatter}\n---\n"
        write(repo / ".claude/skills" / f"my-{key}/SKILL.md", head + body)
    for name, text in _COMMANDS.items():
        write(repo / ".claude/commands" / f"{name}.md", text)
    home.mkdir()

    theirs = _texts(claude_oracle(repo, home=home))
    env = Env.for_test(cwd=repo, home=home)
    found = discover_claude(env, use_cache=False).skills
    ours = {
        s.name: entry_text(listed_description(s), s.claude.when_to_use) for s in found if s.name[:3] == "my-"
    }
    ours |= {c.name: entry_text(c.description, c.when_to_use) for c in claude_commands(env)}

    assert sorted(theirs) == sorted([*(f"my-{key}" for key in _DESCRIBED), *_COMMANDS])
    assert ours == theirs
    assert theirs["my-seq"] == "body line" and theirs["my-number"] == "1.5 - when testing"
    assert theirs["my-broken-dash"] == "Body dash line" and theirs["my-wtu-list"] == "d - a,b"
    assert theirs["my-dash-mid"] == "use" and theirs["my-dash-quoted"] == 'here"'
    assert theirs["my-cmd-number"] == "1.5 - 31" and theirs["my-cmd-hyphen"] == "d"


def test_claude_code_lists_the_plugin_skills_skillshelf_says_are_described(
    tmp_path: Path, claude_oracle: Any
) -> None:
    """A plugin's skill or command is listed only with a description (text JavaScript's ``trim``
    leaves, a number, a boolean) or a ``when_to_use`` that prints as text."""
    home, repo = tmp_path / "home", git_init(tmp_path / "repo")
    kit = home / ".claude/skills/my-kit"
    write(kit / ".claude-plugin/plugin.json", json.dumps({"name": "my-kit"}))
    cases = {
        "nel": 'description: "\\N"',
        "yes": "description: yes",
        "number": "description: 1.50",
        "true": "description: TRUE",
        "date": "description: 2024-01-01",
        "when": "when_to_use: [a]",
        "blank": 'description: "  "',
        "null": "description: ~",
        "empty": 'description: ""',
        "list": "description: [a]",
        "empty-when": "when_to_use: []",
        "broken": 'description: "x',
        "not-a-mapping": "- a",
    }
    for name, frontmatter in cases.items():
        write(kit / f"skills/{name}/SKILL.md", f"---\n{frontmatter}\n---\nBody\n")
    commands = {
        "c-number": "description: 1.50",
        "c-yes": "description: yes",
        "c-dash": "description: a---b",
        "c-when": "when_to_use: w",
        "c-list": "description: [a]",
        "c-null": "description: ~",
        "c-blank": 'description: "  "',
        "c-hyphen": "when-to-use: w",
        "c-empty-when": "when_to_use: []",
    }
    for name, frontmatter in commands.items():
        write(kit / f"commands/{name}.md", f"---\n{frontmatter}\n---\nBody\n")

    listing = claude_oracle(repo, home=home)["skills_listing"] or ""
    theirs = sorted(e.partition(":")[2].partition(":")[0] for e in listing.split("\n- ") if "my-kit:" in e)
    env = Env.for_test(cwd=repo, home=home)
    env = dataclasses.replace(env, environ={**env.environ, "ANTHROPIC_BASE_URL": "http://127.0.0.1:9"})
    ours = sorted(n.removeprefix("my-kit:") for n in claude_listing(env, use_cache=False).plan.described)

    assert theirs == ["c-dash", "c-number", "c-when", "c-yes", "date", "nel", "number", "true", "when", "yes"]
    assert [n for n in ours if n in cases or n in commands] == theirs


#: ``disable-model-invocation`` values: Claude Code hides a skill for ``true`` or ``"true"`` alone.
_HIDING = {
    "yes": "yes",
    "on": "on",
    "one": "1",
    "true": "true",
    "cap": "True",
    "quoted": '"true"',
    "no": "false",
}


def test_claude_code_hides_the_skills_skillshelf_says_it_hides(tmp_path: Path, claude_oracle: Any) -> None:
    home, repo = tmp_path / "home", git_init(tmp_path / "repo")
    for key, value in _HIDING.items():
        write(
            repo / ".claude/skills" / f"my-hide-{key}/SKILL.md",
            f"---\ndescription: Probe {key}\ndisable-model-invocation: {value}\n---\nbody\n",
        )
    home.mkdir()

    theirs = sorted(_texts(claude_oracle(repo, home=home)))
    plan = claude_listing(Env.for_test(cwd=repo, home=home), use_cache=False).plan
    ours = sorted(n for n in [*plan.described, *plan.names_only] if n.startswith("my-"))

    assert ours == theirs == ["my-hide-no", "my-hide-on", "my-hide-one", "my-hide-yes"]
