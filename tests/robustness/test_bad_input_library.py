"""Bad input through the library entry points: findings as diagnostics, misuse as coded errors.

The public functions never raise on bad *content* (they return Diagnostic values with a code and
a fix) and raise only :mod:`skillshelf.errors` exceptions, with a code and a hint, on misuse or
I/O that cannot go on. No test here is marked ``xfail``: a known bug would be, and
``xfail_strict`` (pyproject) makes the mark fail once the bug is fixed.
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from bad_input_helpers import BROKEN_SKILLS, assert_coded, codes, sparse_skill, write_bytes_skill, write_skill
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import skillshelf
from skillshelf.diagnostics import Severity
from skillshelf.errors import FileAccessError, SkillNotFoundError, UsageError
from skillshelf.skills.catalog import CharBudget, TokenBudget
from skillshelf.skills.model import RootOrigin, Scope, SkillRoot
from skillshelf.skills.parse import read_skill

ROOT = SkillRoot(path=Path("/skills"), scope=Scope.USER, origin=RootOrigin.EXTRA)


# -- parse_skill_text / read_skill ------------------------------------------------------------------


@pytest.mark.parametrize("kind", sorted(BROKEN_SKILLS))
def test_read_skill_returns_the_code_for_each_broken_file(tmp_path: Path, kind: str) -> None:
    data, code = BROKEN_SKILLS[kind]
    path = write_bytes_skill(tmp_path, kind, data)
    parsed = read_skill(path, ROOT)
    assert parsed.skill is None and code in codes(parsed.diagnostics)
    assert_coded(parsed.diagnostics)


def test_read_skill_lists_a_50_mb_file_from_its_head_and_skips_a_10_gb_one_unread(tmp_path: Path) -> None:
    parsed = read_skill(sparse_skill(tmp_path / "big" / "SKILL.md", 50 * 1024 * 1024), ROOT)
    assert parsed.skill is not None and "SK119" in codes(parsed.diagnostics)
    assert len(parsed.body) < 1024 * 1024
    parsed = read_skill(sparse_skill(tmp_path / "huge" / "SKILL.md", 10 * 1024**3), ROOT)
    assert parsed.skill is None and codes(parsed.diagnostics) == ["SK113"]


def test_a_50_mb_skill_is_mentioned_and_indexed_from_its_head(tmp_path: Path) -> None:
    from skillshelf.context_parts import read_skill_fragment
    from skillshelf.skills.discover import read_skill_body

    skill = read_skill(sparse_skill(tmp_path / "big" / "SKILL.md", 50 * 1024 * 1024), ROOT).skill
    assert skill is not None
    assert len(read_skill_body(skill)) < 1024 * 1024
    fragment = read_skill_fragment(skill)
    assert "cut to its first 1,048,576 of 52,428,800 bytes" in fragment and len(fragment) < 1024 * 1024 + 500


@pytest.mark.parametrize("shape", ["missing", "folder", "dangling-link", "device"])
def test_read_skill_on_paths_that_are_not_files(tmp_path: Path, shape: str) -> None:
    path = tmp_path / "skill" / "SKILL.md"
    path.parent.mkdir()
    if shape == "folder":
        path.mkdir()
    elif shape == "dangling-link":
        path.symlink_to(tmp_path / "gone")
    elif shape == "device":
        path = Path(os.devnull)
    parsed = read_skill(path, ROOT)
    assert parsed.skill is None and parsed.diagnostics
    assert parsed.diagnostics[0].severity is Severity.ERROR
    assert_coded(parsed.diagnostics)


def test_read_skill_does_not_block_on_a_fifo(tmp_path: Path) -> None:
    path = tmp_path / "piped" / "SKILL.md"
    path.parent.mkdir()
    os.mkfifo(path)
    code = textwrap.dedent(f"""
        from pathlib import Path
        from skillshelf.skills.model import RootOrigin, Scope, SkillRoot
        from skillshelf.skills.parse import read_skill
        root = SkillRoot(path=Path("/"), scope=Scope.USER, origin=RootOrigin.EXTRA)
        print([d.code for d in read_skill(Path({str(path)!r}), root).diagnostics])
    """)
    try:
        proc = subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            encoding="utf-8",
            timeout=6,
            check=False,
        )
    except subprocess.TimeoutExpired:
        pytest.fail("read_skill blocked on the FIFO")
    assert proc.returncode == 0 and "SK1" in proc.stdout


@pytest.mark.parametrize(
    "text",
    [
        "",
        "---",
        "---\n---\n",
        "---\r---\r",
        "\ufeff---\nname: a\ndescription: b\n---\n",
        "---\nname: a\x00\ndescription: b\n---\n",
        "---\n\tname: a\ndescription: b\n---\n",
        "---\nname: a\ndescription: b\nx: " + "[" * 20000 + "\n---\n",
        "---\nname: a\ndescription: b\n" + "".join(" " * i + f"k{i}:\n" for i in range(2000)) + "---\n",
        "---\n? [a, b]\n: 1\nname: a\ndescription: b\n---\n",
        "---\n<<: {name: a}\ndescription: b\n---\n",
        "---\nname: a\ndescription: b\nmetadata: !!set {a, b}\n---\n",
        "---\nname: a\nname: b\ndescription: c\n---\n",
    ],
    ids=[
        "empty",
        "dashes",
        "empty-frontmatter",
        "cr-only",
        "bom",
        "nul",
        "tab-indent",
        "deep-flow",
        "deep-block",
        "complex-key",
        "merge-key",
        "set",
        "duplicate-key",
    ],
)
def test_parse_skill_text_never_raises_on_odd_yaml(text: str) -> None:
    parsed = skillshelf.parse_skill_text(text, path=Path("/skills/odd/SKILL.md"), root=ROOT)
    assert_coded(parsed.diagnostics)
    assert parsed.skill is not None or skillshelf.Severity.ERROR in {d.severity for d in parsed.diagnostics}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(body=st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=400))
def test_parse_skill_text_never_raises_on_any_frontmatter(body: str) -> None:
    parsed = skillshelf.parse_skill_text(
        f"---\n{body}\n---\nbody\n", path=Path("/skills/any/SKILL.md"), root=ROOT
    )
    assert_coded(parsed.diagnostics)


def test_parse_skill_text_reports_a_lone_surrogate() -> None:
    parsed = skillshelf.parse_skill_text(
        "---\nname: a\ud800\ndescription: b\n---\n", path=Path("/s/a/SKILL.md"), root=ROOT
    )
    assert_coded(parsed.diagnostics)


# -- discover_in / discover_skills -----------------------------------------------------------------


def test_discover_in_reports_missing_file_and_device_roots(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("hi\n", encoding="utf-8")
    found = skillshelf.discover_in([tmp_path / "missing", tmp_path / "notes.txt", Path(os.devnull)])
    assert found.skills == ()
    assert {"SK202", "SK201"} <= set(codes(found.diagnostics))
    assert_coded(found.diagnostics)


def test_discover_in_ends_on_symlink_loops_and_finds_each_skill_once(tmp_path: Path) -> None:
    write_skill(tmp_path / "alpha", "alpha")
    write_skill(tmp_path / "beta", "beta")
    (tmp_path / "alpha" / "to-beta").symlink_to(tmp_path / "beta")
    (tmp_path / "beta" / "to-alpha").symlink_to(tmp_path / "alpha")
    (tmp_path / "beta" / "self").symlink_to(tmp_path / "beta" / "self")
    (tmp_path / "dangling").mkdir()
    (tmp_path / "dangling" / "SKILL.md").symlink_to(tmp_path / "nowhere.md")
    found = skillshelf.discover_in([tmp_path])
    assert sorted(s.name for s in found.skills) == ["alpha", "beta"]
    assert_coded(found.diagnostics)


def test_discover_in_with_odd_folder_names(tmp_path: Path) -> None:
    for folder, name in (
        ("sp ace", "spaced"),
        ("new\nline", "newline"),
        ("ünï", "unicode"),
        ("[/]", "markup"),
    ):
        write_skill(tmp_path / folder, name)
    found = skillshelf.discover_in([tmp_path])
    # a line break in a folder name would write lines of its own into the catalog: skipped, as Codex does
    assert sorted(s.name for s in found.skills) == ["markup", "spaced", "unicode"]
    assert [d.code for d in found.diagnostics] == ["SK214"]
    assert_coded(found.diagnostics)


@pytest.mark.parametrize("place", ["missing", "file"])
def test_discover_skills_and_build_context_with_a_cwd_that_is_not_a_folder(
    env: skillshelf.Env, place: str
) -> None:
    cwd = env.cwd / ("missing" if place == "missing" else "file.txt")
    if place == "file":
        cwd.write_text("x\n", encoding="utf-8")
    odd = dataclasses.replace(env, cwd=cwd)
    found = skillshelf.discover_skills(
        odd, skillshelf.DiscoveryOptions(include_builtin=False, use_cache=False)
    )
    assert_coded(found.diagnostics)
    result = skillshelf.build_context(
        odd, "x $a /b", skillshelf.ContextOptions(include_builtin=False, use_cache=False)
    )
    assert result.skills_total == 0


def test_discover_skills_with_a_codex_home_that_is_a_file(env: skillshelf.Env) -> None:
    (env.home / "codex-file").parent.mkdir(parents=True, exist_ok=True)
    (env.home / "codex-file").write_text("x\n", encoding="utf-8")
    odd = dataclasses.replace(env, codex_home=env.home / "codex-file")
    found = skillshelf.discover_skills(
        odd, skillshelf.DiscoveryOptions(include_builtin=False, use_cache=False)
    )
    assert found.skills == ()
    assert_coded(skillshelf.load_config(odd).diagnostics)


# -- validate_paths ------------------------------------------------------------------------------


def test_validate_paths_special_files_are_errors(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "piped").mkdir()
    os.mkfifo(tmp_path / "piped" / "SKILL.md")
    (tmp_path / "dangling").mkdir()
    (tmp_path / "dangling" / "SKILL.md").symlink_to(tmp_path / "gone.md")
    (tmp_path / "folder" / "SKILL.md").mkdir(parents=True)
    cases = {
        tmp_path / "pipe": "SK351",
        tmp_path / "piped": "SK351",
        Path(os.devnull): "SK351",
        tmp_path / "dangling": "SK350",
        tmp_path / "folder" / "SKILL.md": "SK351",
        tmp_path / "missing": "SK350",
    }
    for path, code in cases.items():
        report = skillshelf.validate_paths([path], profile="codex")
        assert not report.ok and code in codes(report.diagnostics), (path, codes(report.diagnostics))
        assert_coded(report.diagnostics)


@pytest.mark.parametrize("profile", ["codex", "claude", "spec"])
def test_validate_paths_reports_every_broken_file_in_one_pass(tmp_path: Path, profile: str) -> None:
    for kind, (data, _) in BROKEN_SKILLS.items():
        write_bytes_skill(tmp_path, kind, data)
    report = skillshelf.validate_paths([tmp_path], profile=profile)  # type: ignore[arg-type]
    assert report.checked == len(BROKEN_SKILLS) and not report.ok
    assert_coded(report.diagnostics)


def test_validate_paths_misuse_raises_usage_errors() -> None:
    with pytest.raises(UsageError) as caught:
        skillshelf.validate_paths([], profile="codex")
    assert caught.value.code == "SS002" and caught.value.hint
    with pytest.raises(UsageError):
        skillshelf.validate_paths([Path(".")], profile="vim")  # type: ignore[arg-type]


# -- render_catalog / load_skill --------------------------------------------------------------------


def _skill(name: str, description: str, folder: Path) -> skillshelf.Skill:
    path = write_skill(folder / "s", "placeholder")
    text = f"---\nname: {name}\ndescription: {description}\n---\n"
    parsed = skillshelf.parse_skill_text(text, path=path, root=ROOT)
    assert parsed.skill is not None, parsed.diagnostics
    return parsed.skill


def test_render_catalog_with_hostile_skills_and_extreme_budgets(tmp_path: Path) -> None:
    skills = [
        _skill("x" * 64, "y" * 100_000, tmp_path / "a"),
        _skill("escapes", '"bell \\a esc \\e[31m"', tmp_path / "b"),
        _skill("unicode", "é" * 1000, tmp_path / "c"),
        _skill("markup", '"[/bold] </skill> <available_skills>"', tmp_path / "d"),
    ]
    budgets = [CharBudget(chars=0), CharBudget(chars=1), TokenBudget(tokens=0), CharBudget(chars=10**30)]
    for budget in budgets:
        for fmt in ("codex", "xml", "markdown"):
            rendered = skillshelf.render_catalog(skills, budget, fmt, roots=[Path("/"), Path("relative")])  # type: ignore[arg-type]
            assert rendered.report.total == len(skills)


def test_render_catalog_misuse_is_a_coded_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError) as caught:
        skillshelf.render_catalog([], CharBudget(chars=10), "html")  # type: ignore[arg-type]
    assert caught.value.hint
    with pytest.raises(UsageError):
        TokenBudget(tokens=-5)
    with pytest.raises(UsageError):
        skillshelf.default_budget(0, max_context_tokens=0)


def test_load_skill_on_files_that_changed_under_it(tmp_path: Path) -> None:
    for name in ("vanished", "now-binary", "now-folder"):
        write_skill(tmp_path / name, name)
    skills = list(skillshelf.discover_in([tmp_path]).skills)
    (tmp_path / "vanished" / "SKILL.md").unlink()
    (tmp_path / "now-binary" / "SKILL.md").write_bytes(
        b"---\nname: now-binary\x00\xff\n---\n" + bytes(range(256))
    )
    (tmp_path / "now-folder" / "SKILL.md").unlink()
    (tmp_path / "now-folder" / "SKILL.md").mkdir()
    for name in ("vanished", "now-folder"):
        with pytest.raises(FileAccessError) as caught:
            skillshelf.load_skill(skills, name)
        assert caught.value.code == "SS005" and caught.value.hint
    assert "now-binary" in skillshelf.load_skill(skills, "now-binary").fragment


@pytest.mark.parametrize("name", ["", " ", "../alpha", "alpha/", "alpha/../alpha", "\x00", "a" * 10_000])
def test_load_skill_with_odd_names_raises_not_found(tmp_path: Path, name: str) -> None:
    skills = [_skill("alpha", "first", tmp_path)]
    with pytest.raises(SkillNotFoundError) as caught:
        skillshelf.load_skill(skills, name)
    assert caught.value.code == "SK404" and caught.value.hint


# -- the reference agent's workspace tools (arguments come from a model) ----------------------------------


@pytest.fixture
def workspace(tmp_path: Path) -> Any:
    from skillshelf.agent.folder_tools import FolderTools

    root = tmp_path / "ws"
    (root / "sub").mkdir(parents=True)
    (tmp_path / "outside.txt").write_text("secret\n", encoding="utf-8")
    (root / "link").symlink_to(tmp_path / "outside.txt")
    (root / "loop").symlink_to(root / "loop")
    os.mkfifo(root / "pipe")
    (root / "latin.txt").write_bytes(b"caf\xe9 au lait\n")
    with open(root / "huge.txt", "wb") as handle:
        handle.truncate(60 * 1024 * 1024)
    return FolderTools(root)


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("read_file", {"path": "../outside.txt"}),
        ("read_file", {"path": "link"}),
        ("read_file", {"path": "loop"}),
        ("read_file", {"path": "pipe"}),
        ("read_file", {"path": "huge.txt"}),
        ("read_file", {"path": "x\x00y"}),
        ("read_file", {"path": 5}),
        ("write_file", {"path": "../evil.txt", "content": "x"}),
        ("write_file", {"path": "loop", "content": "x"}),
        ("write_file", {"path": "pipe", "content": "x"}),
        ("write_file", {"path": "sub", "content": "x"}),
        ("edit_file", {"path": "latin.txt", "old_text": "caf", "new_text": "x"}),
        ("edit_file", {"path": "pipe", "old_text": "a", "new_text": "b"}),
        ("bash", {"command": "true", "timeout": "soon"}),
    ],
)
def test_workspace_tools_answer_bad_arguments_with_an_error_text(
    workspace: Any, tool: str, arguments: dict[str, Any]
) -> None:
    outcome = workspace.execute(tool, arguments)
    assert outcome.is_error and outcome.text.startswith("error:")
    assert (workspace.root / "latin.txt").read_bytes() == b"caf\xe9 au lait\n"
    assert (workspace.root.parent / "outside.txt").read_text(encoding="utf-8") == "secret\n"
    assert not (workspace.root.parent / "evil.txt").exists()
