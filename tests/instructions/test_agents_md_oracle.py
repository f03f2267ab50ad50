"""Differential tests: our AGENTS.md block must equal, byte for byte, the one Codex gives the model.

Each case builds a tree in ``tmp_path``, runs ``codex-oracle --raw`` once (Codex's whole prompt
input) and compares the ``# AGENTS.md instructions`` message with :func:`load_instructions`.
The raw prompt is used so that blocks without a project file (global only) are compared too.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from skillshelf.env import Env
from skillshelf.instructions import load_instructions
from testkit import TOOLS, missing

pytestmark = pytest.mark.oracle

TOOL = TOOLS / "codex-oracle"

Build = Callable[[Path], None]


@pytest.fixture(scope="module")
def codex_block(codex_oracle: Any) -> Callable[[Path, Path, Path, dict[str, str]], str]:
    """Run Codex and return its AGENTS.md message ('' when it sends none)."""

    def run(cwd: Path, home: Path, codex_home: Path, config: dict[str, str]) -> str:
        args = [str(TOOL), "--cwd", str(cwd), "--home", str(home), "--codex-home", str(codex_home), "--raw"]
        for key, value in config.items():
            args += ["-c", f"{key}={value}"]
        proc = subprocess.run(
            args, capture_output=True, text=True, encoding="utf-8", timeout=300, check=False
        )
        if proc.returncode == 3:
            missing("codex-oracle could not install Codex with npm")
        assert proc.returncode == 0, proc.stderr
        items = json.loads(proc.stdout)
        texts = [c.get("text", "") for item in items for c in item.get("content", []) if isinstance(c, dict)]
        found = [t for t in texts if t.startswith("# AGENTS.md instructions")]
        assert len(found) <= 1
        return found[0] if found else ""

    return run


def _write(path: Path, data: bytes | str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)


def _tree(base: Path, files: dict[str, bytes | str]) -> None:
    for rel, data in files.items():
        _write(base / rel, data)


# name -> (files under the case folder, cwd relative to it, Codex -c settings, our keyword args)
CASES: dict[str, tuple[dict[str, bytes | str], str, dict[str, str], dict[str, Any]]] = {
    "nested_folders_with_global": (
        {
            "chome/AGENTS.md": "global rules\n",
            "repo/.git/HEAD": "x",
            "repo/AGENTS.md": "root\n",
            "repo/a/AGENTS.md": "folder a\n",
            "repo/a/b/c/AGENTS.md": "below cwd\n",
            "repo/x/AGENTS.md": "sibling\n",
        },
        "repo/a/b",
        {},
        {},
    ),
    "global_only_has_no_folder_in_header": (
        {"chome/AGENTS.md": "\n\n  only global  \n\n", "repo/.git/HEAD": "x"},
        "repo",
        {},
        {},
    ),
    "global_override_wins_unless_blank": (
        {
            "chome/AGENTS.md": "plain\n",
            "chome/AGENTS.override.md": "override\n",
            "repo/.git/HEAD": "x",
            "repo/AGENTS.md": "p\n",
        },
        "repo",
        {},
        {},
    ),
    "blank_global_override_falls_back": (
        {
            "chome/AGENTS.md": "plain\n",
            "chome/AGENTS.override.md": " \n\n",
            "repo/.git/HEAD": "x",
            "repo/AGENTS.md": "p\n",
        },
        "repo",
        {},
        {},
    ),
    "folder_override_beats_agents_md_even_when_blank": (
        {
            "repo/.git/HEAD": "x",
            "repo/AGENTS.md": "hidden\n",
            "repo/AGENTS.override.md": "\n",
            "repo/a/AGENTS.md": "a\n",
            "repo/a/AGENTS.override.md": "a override\n",
        },
        "repo/a",
        {},
        {},
    ),
    "fallback_names_in_order_trimmed": (
        {
            "chome/CLAUDE.md": "global fallback is ignored\n",
            "repo/.git/HEAD": "x",
            "repo/CLAUDE.md": "claude\n",
            "repo/TEAM.md": "team\n",
            "repo/a/TEAM.md": "a team\n",
            "repo/a/AGENTS.md": "a agents\n",
            "repo/docs/x.md": "not a name\n",
            "repo/b/CLAUDE.md": "b claude\n",
        },
        "repo/a",
        {"project_doc_fallback_filenames": '["", "  TEAM.md ", "CLAUDE.md", "docs/x.md"]'},
        {"fallback_filenames": ["", "  TEAM.md ", "CLAUDE.md", "docs/x.md"]},
    ),
    "byte_cap_cuts_across_files": (
        {
            "chome/AGENTS.md": "g" * 50 + "\n",
            "repo/.git/HEAD": "x",
            "repo/AGENTS.md": "0123456789\n",
            "repo/a/AGENTS.md": "abcdef\n",
            "repo/a/b/AGENTS.md": "bbbb\n",
        },
        "repo/a/b",
        {"project_doc_max_bytes": "20"},
        {"max_bytes": 20},
    ),
    "byte_cap_exactly_spent_stops": (
        {"repo/.git/HEAD": "x", "repo/AGENTS.md": "0123456789\n", "repo/a/AGENTS.md": "abcdef\n"},
        "repo/a",
        {"project_doc_max_bytes": "11"},
        {"max_bytes": 11},
    ),
    "blank_cut_costs_nothing": (
        {"repo/.git/HEAD": "x", "repo/AGENTS.md": "\n\nabc\n", "repo/a/AGENTS.md": "A\n"},
        "repo/a",
        {"project_doc_max_bytes": "2"},
        {"max_bytes": 2},
    ),
    "byte_cap_zero_keeps_global_only": (
        {"chome/AGENTS.md": "G\n", "repo/.git/HEAD": "x", "repo/AGENTS.md": "R\n"},
        "repo",
        {"project_doc_max_bytes": "0"},
        {"max_bytes": 0},
    ),
    "file_over_default_cap": (
        {"repo/.git/HEAD": "x", "repo/AGENTS.md": "x" * 40000 + "\n", "repo/a/AGENTS.md": "never\n"},
        "repo/a",
        {},
        {},
    ),
    "empty_and_blank_files_are_skipped": (
        {
            "chome/AGENTS.md": "",
            "repo/.git/HEAD": "x",
            "repo/AGENTS.md": "",
            "repo/a/AGENTS.md": "  \n\t\n",
            "repo/a/b/AGENTS.md": "b\n",
        },
        "repo/a/b",
        {},
        {},
    ),
    "non_utf8_bytes_become_replacement_characters": (
        {
            "chome/AGENTS.md": b"g\xffh\n",
            "repo/.git/HEAD": "x",
            "repo/AGENTS.md": b"a\xff\xfeb\x80\xe2\x82\n",
            "repo/a/AGENTS.md": b"\xf0\x80\x80z\n",
        },
        "repo/a",
        {},
        {},
    ),
    "unicode_space_bom_and_crlf": (
        {
            "chome/AGENTS.md": "\x1c\u00a0global\u3000\r\n",
            "repo/.git/HEAD": "x",
            "repo/AGENTS.md": "\ufeffbom first\r\nsecond\r\n",
            "repo/a/AGENTS.md": "\x1f\x1c",
            "repo/a/b/AGENTS.md": "\u2028\u00a0\n",
        },
        "repo/a/b",
        {},
        {},
    ),
    "cut_inside_a_utf8_sequence": (
        {"repo/.git/HEAD": "x", "repo/AGENTS.md": "h\u00e9llo\n"},
        "repo",
        {"project_doc_max_bytes": "2"},
        {"max_bytes": 2},
    ),
    "cwd_outside_a_repo_reads_only_cwd": (
        {"chome/AGENTS.md": "G\n", "out/AGENTS.md": "parent\n", "out/x/AGENTS.md": "cwd\n"},
        "out/x",
        {},
        {},
    ),
    "git_file_marks_the_root": (
        {"repo/.git": "gitdir: /nowhere\n", "repo/AGENTS.md": "root\n", "repo/a/AGENTS.md": "a\n"},
        "repo/a",
        {},
        {},
    ),
    "no_files_at_all": ({"repo/.git/HEAD": "x"}, "repo", {}, {}),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_agents_md_block_matches_codex(case: str, tmp_path: Path, codex_block: Any) -> None:
    files, cwd_rel, codex_config, kwargs = CASES[case]
    base = tmp_path / "case"
    (base / "home").mkdir(parents=True)
    (base / "chome").mkdir(parents=True)
    _tree(base, files)
    cwd = base / cwd_rel
    env = Env.for_test(cwd=cwd, home=base / "home", codex_home=base / "chome")
    ours = load_instructions(env, profile="codex", **kwargs).text
    theirs = codex_block(cwd, base / "home", base / "chome", codex_config)
    assert ours == theirs


def test_links_folders_and_dangling_files_match_codex(tmp_path: Path, codex_block: Any) -> None:
    base = tmp_path / "links"
    (base / "home").mkdir(parents=True)
    (base / "chome").mkdir(parents=True)
    _tree(base, {"repo/.git/HEAD": "x", "repo/AGENTS.md": "root\n", "target.md": "linked\n"})
    (base / "repo" / "a" / "b").mkdir(parents=True)
    (base / "repo" / "a" / "AGENTS.md").symlink_to(base / "target.md")
    (base / "repo" / "AGENTS.override.md").symlink_to(base / "missing.md")
    (base / "repo" / "a" / "b" / "AGENTS.override.md").mkdir()
    (base / "link").symlink_to(base / "repo" / "a")
    cwd = base / "link" / "b"
    env = Env.for_test(cwd=cwd, home=base / "home", codex_home=base / "chome")
    ours = load_instructions(env, profile="codex")
    assert ours.text == codex_block(cwd, base / "home", base / "chome", {})
    assert str(base / "repo" / "a" / "b") in ours.text.splitlines()[0]


@pytest.mark.parametrize("bom", ["", "\ufeff"], ids=["plain", "byte-order-mark"])
def test_codex_config_toml_settings_are_read_like_codex(tmp_path: Path, codex_block: Any, bom: str) -> None:
    base = tmp_path / "cfg"
    (base / "home").mkdir(parents=True)
    _tree(
        base,
        {
            "chome/config.toml": f"{bom}project_doc_max_bytes = 9\n"
            'project_doc_fallback_filenames = ["NOTES.md"]\nproject_root_markers = [".hg"]\n',
            "repo/.git/HEAD": "x",
            "repo/AGENTS.md": "git root\n",
            "repo/a/.hg/x": "x",
            "repo/a/NOTES.md": "notes here\n",
            "repo/a/b/AGENTS.md": "b\n",
        },
    )
    cwd = base / "repo" / "a" / "b"
    env = Env.for_test(cwd=cwd, home=base / "home", codex_home=base / "chome")
    ours = load_instructions(env, profile="codex")
    assert ours.text == codex_block(cwd, base / "home", base / "chome", {})
    assert [layer.path.name for layer in ours.layers] == ["NOTES.md", "AGENTS.md"]


@pytest.mark.parametrize("trust", ["trusted", None], ids=["trusted", "no-trust-entry"])
def test_a_trusted_projects_codex_config_layers_apply_like_codex(
    tmp_path: Path, codex_block: Any, trust: str | None
) -> None:
    """In a trusted project, each ``.codex/config.toml`` from the root down to the cwd overrides
    the user's ``project_doc_*`` key by key, the nearest last; its ``project_root_markers`` do
    not move the root. Without a trust entry for the project its files are ignored."""
    base = tmp_path / "layers"
    (base / "home").mkdir(parents=True)
    entry = f'[projects."{base / "repo"}"]\ntrust_level = "{trust}"\n' if trust else ""
    _tree(
        base,
        {
            "chome/config.toml": f'project_doc_fallback_filenames = ["USER.md"]\n{entry}',
            "repo/.git/HEAD": "x",
            "repo/.codex/config.toml": 'project_doc_fallback_filenames = ["NOTES.md"]\n'
            'project_root_markers = [".marker"]\n',
            "repo/a/.codex/config.toml": "project_doc_max_bytes = 20\n",
            "repo/a/b/.codex/config.toml": "project_doc_max_bytes = 25\n",
            "repo/AGENTS.md": "root agents\n",
            "repo/a/.marker": "",
            "repo/a/NOTES.md": "a notes, long enough to be cut\n",
            "repo/a/b/USER.md": "user fallback\n",
        },
    )
    cwd = base / "repo" / "a" / "b"
    env = Env.for_test(cwd=cwd, home=base / "home", codex_home=base / "chome")
    ours = load_instructions(env, profile="codex")
    assert ours.text == codex_block(cwd, base / "home", base / "chome", {})
    expected = ["AGENTS.md", "NOTES.md"] if trust == "trusted" else ["AGENTS.md", "USER.md"]
    assert [layer.path.name for layer in ours.included] == expected


TRUST_CASES = {
    "root-untrusted": {"repo": "untrusted"},
    "cwd-untrusted-root-trusted": {"repo": "trusted", "repo/sub": "untrusted"},
    "cwd-trusted-root-untrusted": {"repo": "untrusted", "repo/sub": "trusted"},
    "cwd-trusted-root-without-entry": {"repo/sub": "trusted"},
    "parent-of-root-untrusted": {"": "untrusted"},
}


@pytest.mark.parametrize("entries", TRUST_CASES.values(), ids=TRUST_CASES.keys())
def test_trust_entries_decide_per_folder_like_codex(
    tmp_path: Path, codex_block: Any, entries: dict[str, str]
) -> None:
    """A folder's own ``[projects]`` entry decides its trust, else the root's: a cwd marked
    untrusted gets only the global AGENTS.md, and only trusted folders' ``.codex`` layers apply."""
    base = tmp_path / "trust"
    (base / "home").mkdir(parents=True)
    table = "".join(
        f'[projects."{base / folder if folder else base}"]\ntrust_level = "{level}"\n'
        for folder, level in entries.items()
    )
    _tree(
        base,
        {
            "chome/config.toml": table,
            "chome/AGENTS.md": "global agents\n",
            "repo/.git/HEAD": "x",
            "repo/.codex/config.toml": 'project_doc_fallback_filenames = ["ROOT.md"]\n',
            "repo/sub/.codex/config.toml": 'project_doc_fallback_filenames = ["SUB.md"]\n',
            "repo/ROOT.md": "root notes\n",
            "repo/SUB.md": "sub notes at the root\n",
            "repo/sub/SUB.md": "sub notes\n",
            "repo/sub/ROOT.md": "root notes in sub\n",
        },
    )
    cwd = base / "repo" / "sub"
    env = Env.for_test(cwd=cwd, home=base / "home", codex_home=base / "chome")
    ours = load_instructions(env, profile="codex")
    assert ours.text == codex_block(cwd, base / "home", base / "chome", {})
    untrusted_here = entries.get("repo/sub", entries.get("repo")) == "untrusted"
    assert ("IN107" in {d.code for d in ours.diagnostics}) is untrusted_here
