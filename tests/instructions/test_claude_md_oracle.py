"""Differential tests: the CLAUDE.md files (order, paths, text, scope) must match what Claude Code
gives the model, as shown by ``claude-oracle``. Our intro sentence and labels are our own
words, so the comparison is file by file: ``(path, scope, text)``.
"""

from __future__ import annotations

import dataclasses
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from skillshelf.env import Env
from skillshelf.instructions import InstructionScope, load_instructions

pytestmark = pytest.mark.oracle

_SECTION = re.compile(r"^Contents of (/[^\n]*?) \(([^\n]*)\):\n\n", re.M)


def _sections(block: str | None) -> list[tuple[str, str, str]]:
    """``[(path, scope, text)]`` from a CLAUDE.md block (theirs or ours)."""
    if not block:
        return []
    matches = list(_SECTION.finditer(block))
    out = []
    for index, match in enumerate(matches):
        end = matches[index + 1].start() if index + 1 < len(matches) else len(block)
        text = block[match.end() : end]
        text = text[:-2] if text.endswith("\n\n") and index + 1 < len(matches) else text
        label = match.group(2)
        scope = (
            "user"
            if ("global" in label or "every project" in label)
            else ("local" if ("not checked in" in label or "not in the repository" in label) else "project")
        )
        out.append((match.group(1), scope, text.rstrip("\n")))
    return out


def _ours(cwd: Path, home: Path) -> list[tuple[str, str, str]]:
    result = load_instructions(Env.for_test(cwd=cwd, home=home), profile="claude")
    for layer in result.included:
        assert layer.scope in set(InstructionScope)
    return _sections(result.text)


def _write(base: Path, files: dict[str, bytes | str]) -> None:
    for rel, data in files.items():
        path = base / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)


#: Files imported one per line: Claude Code follows those with no extension or a text one.
_EXTENSION_NAMES = (
    *("x.py", "x.txt", "x.json", "x.toml", "x.Md", "x.YAML", ".env", "notes", "..x.md", "x.makefile"),
    *("x.foo", "x.qqq", "x.svg", "x.bak", "x.tmp", "x.d", "x.1", "x.md~", "x.png", "p.md.", "q.md,"),
)

#: Front matter ``paths`` values of rules, some that load the rule at start and some that do not.
_RULE_PATHS = (
    *("null", "[]", "0", "1", "false", "{}", '""', '" "', '", "', "true", "[[]]", "[null, '**']"),
    *('"**"', '"**/**"', '"/**"', '"{**,}"', '"{,**}/**"', '"  **  "', '[""]', "[1, 2]", "True"),
    *('"*"', '["*"]', '"**/*"', '"src/**"', '"**/"', '"./**"', '"**/**/**"', '"{}"', "yes", '"0"'),
    *("!!str 1", '"{**,src}"', '["**", "src/**"]', "|\n  src/**,\n  **", "[**]"),
)

CASES: dict[str, tuple[dict[str, bytes | str], str]] = {
    "user_project_folders_local_and_dot_claude": (
        {
            "home/.claude/CLAUDE.md": "USER\n",
            "CLAUDE.md": "ABOVE THE REPO\n",
            "repo/.git/HEAD": "x",
            "repo/CLAUDE.md": "ROOT\n",
            "repo/CLAUDE.local.md": "ROOT LOCAL\n",
            "repo/.claude/CLAUDE.md": "ROOT DOT\n",
            "repo/a/CLAUDE.md": "A\n",
            "repo/a/.claude/CLAUDE.md": "A DOT\n",
            "repo/a/b/CLAUDE.md": "B\n",
            "repo/a/b/c/CLAUDE.md": "BELOW CWD\n",
            "repo/a/b/CLAUDE.local.md": "   \n\n",
            "repo/a/.claude/rules/one.md": "A RULE\n",
            "repo/.claude/rules/z.md": "Z RULE\n",
            "repo/.claude/rules/sub/s.md": "SUB RULE\n",
            "repo/.claude/rules/b.md": "B RULE\n",
            "repo/.claude/rules/notes.txt": "NOT A RULE\n",
            "home/.claude/rules/u.md": "USER RULE\n",
        },
        "repo/a/b",
    ),
    "imports_depth_cycles_and_code": (
        {
            "repo/.git/HEAD": "x",
            "repo/CLAUDE.md": "ROOT see @docs/one.md and @./docs/two.md and `@docs/code.md` and @missing.md\n"
            "```\n@docs/fenced.md\n```\nemail a@b.com (@docs/p.md) \\@docs/esc.md\n"
            "<!-- @docs/cm.md -->\nlast @docs/a.md\n",
            "repo/docs/one.md": "ONE imports @../docs/deep1.md\n",
            "repo/docs/two.md": "TWO\n",
            "repo/docs/code.md": "CODE\n",
            "repo/docs/fenced.md": "FENCED\n",
            "repo/docs/p.md": "P\n",
            "repo/docs/esc.md": "ESC\n",
            "repo/docs/cm.md": "CM\n",
            "repo/docs/a.md": "A @b.md\n",
            "repo/docs/b.md": "B @a.md @../CLAUDE.md\n",
            **{f"repo/docs/deep{i}.md": f"DEEP{i} @deep{i + 1}.md\n" for i in range(1, 8)},
        },
        "repo",
    ),
    "imports_outside_cwd_only_from_user_files": (
        {
            "ext/e.md": "EXT\n",
            "ext/e2.md": "EXT2 @~/h.md\n",
            "home/h.md": "HOME FILE\n",
            "home/.claude/CLAUDE.md": "USER @../ext/e.md @{EXT2}\n",
            "repo/.git/HEAD": "x",
            "repo/CLAUDE.md": "ROOT @docs/in.md\n",
            "repo/docs/in.md": "IN\n",
            "repo/a/CLAUDE.md": "A @../docs/in.md @../../ext/outside.md @CLAUDE.local.md\n",
            "ext/outside.md": "OUTSIDE\n",
            "repo/a/CLAUDE.local.md": "LOCAL @mine.md\n",
            "repo/a/mine.md": "MINE\n",
        },
        "repo/a",
    ),
    "front_matter_emphasis_fragments_and_binary_imports": (
        {
            "repo/.git/HEAD": "x",
            "repo/CLAUDE.md": "---\ntitle: x\n---\n"
            "ROOT @docs/c.md, @docs/frag.md#sec @docs/img.png @docs/Makefile "
            "@docs/sp\\ ace.md\n    @docs/indented.md\n- item @docs/list.md\n"
            "[link](@docs/link.md) and **@docs/bold.md**\n",
            "repo/docs/c.md": "C\n",
            "repo/docs/frag.md": "FRAG\n",
            "repo/docs/img.png": "PNG\n",
            "repo/docs/Makefile": "MK\n",
            "repo/docs/sp ace.md": "SPACE\n",
            "repo/docs/indented.md": "IND\n",
            "repo/docs/list.md": "LIST\n",
            "repo/docs/link.md": "LINK\n",
            "repo/docs/bold.md": "BOLD\n",
            "repo/.claude/CLAUDE.md": b"bad \xff byte\n",
            "repo/.claude/rules/cond.md": '---\npaths: "*.py"\n---\nCOND\n',
            "repo/.claude/rules/fm.md": "---\ndescription: d\n---\nFM RULE\n",
        },
        "repo",
    ),
    "imports_only_of_text_or_extensionless_files_with_punctuation_kept": (
        {
            "repo/.git/HEAD": "x",
            "repo/CLAUDE.md": "ROOT\n"
            + "".join(f"- @{name}\n" for name in _EXTENSION_NAMES)
            + "see @Makefile, and @p5.md) or (@p7.md) @p6.md: @p8. @p9.md\n",
            **{f"repo/{name}": f"FILE[{name}]\n" for name in _EXTENSION_NAMES},
            **{f"repo/{name}": f"FILE[{name}]\n" for name in ("Makefile", "Makefile,", "p5.md", "p6.md")},
            **{f"repo/{name}": f"FILE[{name}]\n" for name in ("p5.md)", "p6.md:", "p7.md", "p8", "p8.")},
            "repo/p9.md": "P9 @../repo/q.md. @./r.MD\n",
            "repo/q.md": "Q\n",
            "repo/r.MD": "R\n",
        },
        "repo",
    ),
    "html_comments_and_crlf": (
        {
            "repo/.git/HEAD": "x",
            "repo/x.md": "X\n",
            "repo/y.md": "Y\n",
            "repo/z.md": "Z\n",
            "repo/CLAUDE.md": "keep <!-- inline @x.md --> this\n\n<!--\nmulti\n@y.md\n-->\nafter\n"
            "<!-- a --> trailing @z.md\n  <!-- indented -->\nend\r\nwin line\r\n",
        },
        "repo",
    ),
    "javascript_trim_rules": (
        {
            "repo/.git/HEAD": "x",
            "repo/CLAUDE.md": "\ufeff\u00a0text\u3000\x1c\n",
            "repo/.claude/CLAUDE.md": "\x85inner\u2028",
        },
        "repo",
    ),
    "claude_md_excludes_of_the_user_and_the_cwd_settings": (
        {
            "home/.claude/CLAUDE.md": "USER\n@~/notes/kept.md\n@~/notes/skipped.md\n",
            "home/notes/kept.md": "KEPT IMPORT\n",
            "home/notes/skipped.md": "SKIPPED IMPORT\n",
            "home/.claude/settings.json": (
                '{"claudeMdExcludes": ["**/notes/skipped.md", "{BASE}/repo/CLAUDE.md"]}'
            ),
            "repo/.git/HEAD": "x",
            "repo/CLAUDE.md": "ROOT\n",
            "repo/.claude/settings.json": '{"claudeMdExcludes": ["**/app/.claude/CLAUDE.md"]}',
            "repo/.claude/rules/kept.md": "ROOT RULE\n",
            "repo/.claude/rules/skip-me.md": "SKIPPED RULE\n",
            "repo/app/CLAUDE.md": "APP\n",
            "repo/app/.claude/CLAUDE.md": "APP DOT\n",
            "repo/app/.claude/settings.local.json": '{"claudeMdExcludes": ["**/rules/skip-*.md", 7]}',
            "repo/app/CLAUDE.local.md": "APP LOCAL\n",
        },
        "repo/app",
    ),
    "external_imports_approved_for_the_repository": (
        {
            "home/.claude.json": (
                '{"projects": {"{BASE}/repo": {"hasClaudeMdExternalIncludesApproved": true}}}'
            ),
            "repo/.git/HEAD": "x",
            "repo/CLAUDE.md": "ROOT\n@../out/shared.md\n",
            "repo/app/CLAUDE.local.md": "LOCAL\n@../../out/local.md\n",
            "out/shared.md": "SHARED OUTSIDE\n",
            "out/local.md": "LOCAL OUTSIDE\n",
        },
        "repo/app",
    ),
    "network_import_paths_are_skipped": (
        {
            "home/.claude/CLAUDE.md": "USER\n@/{BASE}/ext/unc.md\n@/net/host/../..{BASE}/ext/net.md\n"
            "@/tmp/../NET/h/../..{BASE}/ext/net2.md\n@{BASE}/ext/plain.md\n",
            "ext/unc.md": "UNC\n",
            "ext/net.md": "NET\n",
            "ext/net2.md": "NET2\n",
            "ext/plain.md": "PLAIN\n",
            "repo/.git/HEAD": "x",
            "repo/CLAUDE.md": "ROOT\n",
        },
        "repo",
    ),
    "rules_whose_paths_match_everything_or_nothing_load_at_start": (
        {
            "repo/.git/HEAD": "x",
            "repo/CLAUDE.md": "ROOT\n",
            **{
                f"repo/.claude/rules/r{i:02}.md": f"---\npaths: {value}\n---\nRULE {i} {value}\n"
                for i, value in enumerate(_RULE_PATHS)
            },
            "repo/.claude/rules/twice.md": '---\npaths: "**"\npaths: src/**\n---\nTWICE\n',
            "repo/.claude/rules/block.md": "---\npaths:\n  - '**'\n  - ''\n---\nBLOCK LIST\n",
            "repo/.claude/rules/crlf.md": "---\r\npaths: src/**\r\n---\r\nCRLF\r\n",
            "repo/.claude/rules/deep.md": f"---\npaths: {'[' * 2000}{']' * 2000}\n---\nDEEP LISTS\n",
        },
        "repo",
    ),
    "imports_of_list_items_whole_text_first_then_piece_by_piece": (
        {
            "repo/.git/HEAD": "x",
            "repo/CLAUDE.md": "# list\n\n- see **@a1.md** and @a2.md\n\npara\n\n1. _@b1.md_ @b2.md\n\n"
            "para\n\n- top\n  - [@c1.md](u) @c2.md\n\n**see @d1.md** and @d2.md\n\n"
            "- **@e1.md** first\n  second @e2.md\n\npara\n\n- a <!-- @f1.md --> b\n\n"
            "> - *see @g1.md* @g2.md\n\npara\n\n- `a @h1.md b` and `@h2.md`\n\n"
            "**@i1.md**. (**see @i2.md**) **see @j1.md**x _see @j2.md_x *k @k1.md*, [see @k2.md](u)\n",
            **{f"repo/{n}{i}.md": f"{n.upper()}{i}\n" for n in "abcdefghijk" for i in (1, 2)},
        },
        "repo",
    ),
    "carriage_returns_kept_unless_the_file_has_a_comment": (
        {
            "repo/.git/HEAD": "x",
            "repo/CLAUDE.md": "one\r\n@imp.md\r\ntwo\rlone\r\n- **@sub/x.md** @sub/y.md\r\n",
            "repo/imp.md": "IMP\r\nline\r\n",
            "repo/sub/x.md": "X\r\n<!-- c -->\r\nafter\rlone\r\n",
            "repo/sub/y.md": "Y\r\n",
            "repo/.claude/rules/r.md": "---\r\ndescription: d\r\n---\r\nRULE\r\nr2\r\n",
        },
        "repo",
    ),
    "cwd_under_home_does_not_repeat_user_file": (
        {
            "home/.claude/CLAUDE.md": "USER\n",
            "home/CLAUDE.md": "HOME PROJECT\n",
            "home/.claude/rules/r.md": "USER RULE\n",
            "home/proj/.git/HEAD": "x",
            "home/proj/CLAUDE.md": "---\ntitle: only front matter\n---\n\n",
        },
        "home/proj",
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_claude_md_files_match_claude_code(case: str, tmp_path: Path, claude_oracle: Any) -> None:
    files, cwd_rel = CASES[case]
    base = tmp_path / "case"
    files = {
        k: (
            v.replace("{EXT2}", str(base / "ext" / "e2.md")).replace("{BASE}", str(base))
            if isinstance(v, str)
            else v
        )
        for k, v in files.items()
    }
    _write(base, files)
    (base / "home").mkdir(exist_ok=True)
    cwd = base / cwd_rel
    theirs = _sections(claude_oracle(cwd, home=base / "home")["claude_md"])
    assert theirs, "the oracle showed no CLAUDE.md block"
    assert _ours(cwd, base / "home") == theirs


def _layout(base: Path) -> tuple[Path, Path]:
    _write(
        base,
        {
            "home/.claude/CLAUDE.md": "HOME USER\n",
            "config/CLAUDE.md": "CONFIG DIR USER\n",
            "config/rules/r.md": "CONFIG DIR RULE\n",
            "repo/.git/HEAD": "x",
            "repo/CLAUDE.md": "ROOT\n",
            "repo/app/CLAUDE.md": "APP\n",
        },
    )
    (base / "linked").symlink_to(base / "repo", target_is_directory=True)
    return base / "home", base / "repo" / "app"


@pytest.mark.parametrize(
    ("environ", "settings"),
    [
        ({"CLAUDE_CONFIG_DIR": "{BASE}/config"}, None),
        ({"CLAUDE_CODE_DISABLE_CLAUDE_MDS": "1"}, None),
        ({"CLAUDE_CODE_DISABLE_CLAUDE_MDS": "0"}, None),
        ({}, '{"claudeMdExcludes": ["{BASE}/linked/app/CLAUDE.md"]}'),
    ],
    ids=["config-dir", "disabled", "not-disabled-by-0", "excluded-through-a-link"],
)
def test_claude_md_environment_and_linked_excludes_match_claude_code(
    tmp_path: Path, claude_oracle: Any, environ: dict[str, str], settings: str | None
) -> None:
    """``$CLAUDE_CONFIG_DIR`` moves the user's CLAUDE.md and rules; ``CLAUDE_CODE_DISABLE_CLAUDE_MDS``
    turns every file off; an absolute ``claudeMdExcludes`` path through a symbolic link to a
    folder also leaves out the file at the folder the link points to."""
    base = tmp_path / "case"
    home, cwd = _layout(base)
    environ = {k: v.replace("{BASE}", str(base)) for k, v in environ.items()}
    if settings is not None:
        _write(base, {"home/.claude/settings.json": settings.replace("{BASE}", str(base))})
    theirs = _sections(claude_oracle(cwd, home=home, environ=environ)["claude_md"])
    env = Env.for_test(cwd=cwd, home=home)
    env = dataclasses.replace(env, environ={**env.environ, **environ})
    ours = _sections(load_instructions(env, profile="claude").text)
    assert ours == theirs
    assert bool(theirs) == (environ.get("CLAUDE_CODE_DISABLE_CLAUDE_MDS") != "1")


def _git(*args: str, cwd: Path) -> None:
    identity = ["-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main"]
    subprocess.run(["git", *identity, *args], cwd=cwd, check=True, capture_output=True, timeout=60)


def test_claude_md_in_a_worktree_nested_in_its_main_checkout_matches_claude_code(
    tmp_path: Path, claude_oracle: Any
) -> None:
    """A worktree in ``.claude/worktrees`` (where Claude Code makes its own): the main checkout's
    shared files above it are the worktree's own, so only the worktree's are read;
    ``CLAUDE.local.md`` is read in both."""
    main, home = tmp_path / "main", tmp_path / "home"
    _write(
        main, {"CLAUDE.md": "SHARED\n", ".claude/rules/r.md": "SHARED RULE\n", "CLAUDE.local.md": "MINE\n"}
    )
    _git("init", "-q", str(main), cwd=tmp_path)
    _git("add", "CLAUDE.md", ".claude/rules", cwd=main)
    _git("commit", "-qm", "init", cwd=main)
    _git("worktree", "add", "-q", ".claude/worktrees/x", cwd=main)
    home.mkdir()
    cwd = main / ".claude" / "worktrees" / "x"

    theirs = _sections(claude_oracle(cwd, home=home)["claude_md"])
    assert [text for _, _, text in theirs] == ["MINE", "SHARED", "SHARED RULE"]
    assert _ours(cwd, home) == theirs
    left_out = [
        layer
        for layer in load_instructions(Env.for_test(cwd=cwd, home=home), profile="claude").layers
        if not layer.included
    ]
    assert {layer.path for layer in left_out} == {main / "CLAUDE.md", main / ".claude" / "rules" / "r.md"}
