"""Validation: the spec, codex and claude profiles over fixture trees, and Claude Code itself."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skillshelf.diagnostics import Severity
from skillshelf.errors import UsageError
from skillshelf.skills.validate import ValidationReport, validate_paths
from skillshelf.skills.validate_spec import spec_diagnostics


def write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def skill_text(
    name: str, description: str = "Formats release notes from merged pull requests.", extra: str = ""
) -> str:
    return f"---\nname: {name}\ndescription: {description}\n{extra}---\n# {name}\n\nSteps go here.\n"


def codes(report: ValidationReport, path: Path | None = None) -> set[str]:
    return {d.code for d in report.diagnostics if path is None or d.path == path}


def errors_for(report: ValidationReport, path: Path) -> set[str]:
    return {d.code for d in report.diagnostics if d.path == path and d.severity is Severity.ERROR}


def check_of(report: ValidationReport, path: Path) -> tuple[bool, bool]:
    found = next(c for c in report.skills if c.path == path)
    return found.loaded, found.listed


# -- spec ---------------------------------------------------------------------------------------


def spec_codes(text: str, folder: str = "release-notes") -> set[str]:
    return {d.code for d in spec_diagnostics(text, path=Path("/x") / folder / "SKILL.md")}


def test_a_clean_skill_passes_the_spec() -> None:
    assert (
        spec_codes(
            skill_text(
                "release-notes", extra="license: MIT\ncompatibility: needs git\nmetadata:\n  author: me\n"
            )
        )
        == set()
    )


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("Release-Notes", {"SK328", "SK332"}),
        ("release_notes", {"SK329", "SK332"}),
        ("-release-notes", {"SK330", "SK332"}),
        ("release--notes", {"SK331", "SK332"}),
        ("r" * 65, {"SK327", "SK332"}),
        ("other-name", {"SK332"}),
        ('""', {"SK326"}),
    ],
)
def test_name_rules_report_every_broken_rule(name: str, expected: set[str]) -> None:
    assert spec_codes(skill_text(name)) == expected


def test_name_is_nfkc_normalised_before_comparing_with_the_folder() -> None:
    assert spec_codes(skill_text("ﬁle-tool"), folder="file-tool") == set()


def test_unicode_letters_pass_with_a_warning() -> None:
    found = spec_diagnostics(skill_text("café"), path=Path("/x/café/SKILL.md"))
    assert [(d.code, d.severity) for d in found] == [("SK329", Severity.WARNING)]


def test_all_problems_are_reported_at_once() -> None:
    text = (
        "---\nname: Bad--Name\ndescription: "
        + "d" * 1025
        + "\ncompatibility: "
        + "c" * 501
        + "\ntriggers: x\n---\n"
    )
    assert spec_codes(text) >= {"SK328", "SK331", "SK332", "SK334", "SK335", "SK324"}


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("# no frontmatter\n", "SK320"),
        ("\ufeff---\nname: release-notes\ndescription: d\n---\n", "SK320"),
        ("---\nname: release-notes\ndescription: d\n", "SK321"),
        ("---\n- a\n- b\n---\n", "SK323"),
        ("---\n---\nbody\n", "SK323"),
        ("---\nname: release-notes\ndescription: Use it: always\n---\n", "SK322"),
        ("---\nname: release-notes\n---\n", "SK333"),
        ("---\nname: release-notes\ndescription: d\nname: release-notes\n---\n", "SK325"),
        ("---\nname: release-notes\ndescription: d\nmetadata: plain\n---\n", "SK336"),
        ("---\nname: release-notes\ndescription: d\nallowed-tools: {a: b}\n---\n", "SK337"),
    ],
)
def test_frontmatter_shape_problems_have_their_own_codes(text: str, code: str) -> None:
    assert code in spec_codes(text)


def test_codex_repairable_yaml_is_still_an_error_for_the_spec_but_says_codex_repairs_it() -> None:
    [found] = spec_diagnostics(
        "---\nname: release-notes\ndescription: Use it: always\n---\n", path=Path("/x/release-notes/SKILL.md")
    )
    assert found.severity is Severity.ERROR and "Codex repairs" in found.message and found.line == 3


def test_nested_metadata_and_flow_lists_are_warnings() -> None:
    text = skill_text("release-notes", extra="metadata:\n  deep:\n    a: b\nallowed-tools: [Read, Bash]\n")
    found = {d.code: d.severity for d in spec_diagnostics(text, path=Path("/x/release-notes/SKILL.md"))}
    assert found == {"SK336": Severity.WARNING, "SK337": Severity.WARNING, "SK339": Severity.WARNING}


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(st.text())
def test_spec_rules_never_raise_on_any_text(text: str) -> None:
    for diag in spec_diagnostics(text, path=Path("/x/s/SKILL.md")):
        assert re.fullmatch(r"SK3\d\d", diag.code) and diag.fix


# -- codex --------------------------------------------------------------------------------------


@pytest.fixture
def messy(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    write(root / "good" / "SKILL.md", skill_text("good"))
    write(root / "lower" / "skill.md", skill_text("lower"))
    write(root / "nofm" / "SKILL.md", "# Only a heading\n\nText.\n")
    write(root / "broken" / "SKILL.md", "---\nname: broken\ndescription: [never closed\n  more: x: y\n---\n")
    write(root / ".hidden" / "secret" / "SKILL.md", skill_text("secret"))
    write(root / "a" / "b" / "c" / "d" / "e" / "f" / "g" / "SKILL.md", skill_text("too-deep"))
    write(root / "good" / "inner" / "SKILL.md", skill_text("inner"))
    write(tmp_path / "elsewhere" / "SKILL.md", skill_text("linked"))
    os.symlink(tmp_path / "elsewhere" / "SKILL.md", write(root / "linked" / "x", "").parent / "SKILL.md")
    write(root / "twin1" / "SKILL.md", skill_text("twin"))
    write(root / "twin2" / "SKILL.md", skill_text("twin"))
    write(root / "product" / "SKILL.md", skill_text("product"))
    write(root / "product" / "agents" / "openai.yaml", "policy:\n  products: [chatgpt]\n")
    return root


def test_codex_profile_explains_every_skill_it_would_not_load(messy: Path) -> None:
    report = validate_paths([messy], profile="codex")
    assert report.checked == 11
    expected_errors = {
        messy / "lower" / "skill.md": "SK353",
        messy / "nofm" / "SKILL.md": "SK101",
        messy / "broken" / "SKILL.md": "SK104",
        messy / ".hidden" / "secret" / "SKILL.md": "SK354",
        messy / "a" / "b" / "c" / "d" / "e" / "f" / "g" / "SKILL.md": "SK355",
        messy / "linked" / "SKILL.md": "SK356",
        messy / "product" / "SKILL.md": "SK360",
    }
    for path, code in expected_errors.items():
        assert code in errors_for(report, path), path
        assert check_of(report, path) == (False, False)
    assert check_of(report, messy / "good" / "SKILL.md") == (True, True)
    assert check_of(report, messy / "good" / "inner" / "SKILL.md") == (True, True)
    assert "SK357" in codes(report, messy / "good" / "inner" / "SKILL.md")
    assert {"SK362"} <= codes(report, messy / "twin1" / "SKILL.md")
    assert all(d.fix for d in report.diagnostics)
    assert not report.ok


def test_a_single_skill_file_or_folder_can_be_validated(messy: Path) -> None:
    by_file = validate_paths([messy / "good" / "SKILL.md"])
    by_folder = validate_paths([messy / "nofm"])
    assert (by_file.checked, by_file.ok) == (1, True)
    assert (by_folder.checked, codes(by_folder)) == (1, {"SK101"})


def test_openai_yaml_keys_in_the_frontmatter_are_flagged_as_unread_by_codex(tmp_path: Path) -> None:
    extra = "dependencies:\n  tools:\n    - type: mcp\n      value: github\npolicy:\n  products: [codex]\n"
    path = write(tmp_path / "release-notes" / "SKILL.md", skill_text("release-notes", extra=extra))
    report = validate_paths([path])
    unread = sorted((d.field, d.severity) for d in report.diagnostics if d.code == "SK367")
    assert unread == [("dependencies", Severity.WARNING), ("policy", Severity.WARNING)]
    assert report.ok and check_of(report, path) == (True, True)  # Codex still loads it
    assert all("agents/openai.yaml" in d.fix for d in report.diagnostics if d.code == "SK367")
    spec = validate_paths([path], profile="spec")
    assert {d.fix for d in spec.diagnostics if d.code == "SK324"} == {
        "move `dependencies` to agents/openai.yaml, where Codex reads it",
        "move `policy` to agents/openai.yaml, where Codex reads it",
    }
    clean = write(tmp_path / "plain" / "SKILL.md", skill_text("plain"))
    assert "SK367" not in codes(validate_paths([clean]))


def test_missing_paths_and_non_skill_files_are_errors_not_exceptions(tmp_path: Path) -> None:
    write(tmp_path / "notes.txt", "hello")
    (tmp_path / "empty").mkdir()
    report = validate_paths([tmp_path / "nope", tmp_path / "notes.txt", tmp_path / "empty"])
    assert codes(report) == {"SK350", "SK351", "SK352"}
    assert report.checked == 0


def test_unknown_profile_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError) as caught:
        validate_paths([tmp_path], profile="cursor")  # type: ignore[arg-type]
    assert caught.value.code == "SS002"


def test_a_symlink_loop_does_not_hang_the_walk(tmp_path: Path) -> None:
    write(tmp_path / "skills" / "one" / "SKILL.md", skill_text("one"))
    os.symlink(tmp_path / "skills", tmp_path / "skills" / "one" / "loop")
    report = validate_paths([tmp_path / "skills"])
    assert report.checked == 1 and report.ok


def test_unreadable_folders_are_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from skillshelf.skills import validate_walk

    write(tmp_path / "skills" / "one" / "SKILL.md", skill_text("one"))
    locked = tmp_path / "skills" / "locked"
    write(locked / "SKILL.md", skill_text("locked"))
    real_list = validate_walk._list

    def refuse_locked(path: Path) -> object:
        return None if path == locked else real_list(path)

    monkeypatch.setattr(validate_walk, "_list", refuse_locked)
    report = validate_paths([tmp_path / "skills"])
    assert "SK359" in codes(report, locked)
    assert report.checked == 1


def test_binary_and_huge_files_get_diagnostics(tmp_path: Path) -> None:
    write(tmp_path / "bin" / "SKILL.md", b"\x00\x01\x02binary\xff")
    write(tmp_path / "big" / "SKILL.md", "---\nname: big\ndescription: d\n---\n" + "x" * (1024 * 1024 + 10))
    for profile in ("codex", "spec", "claude"):
        report = validate_paths([tmp_path], profile=profile)  # type: ignore[arg-type]
        assert {"SK114", "SK113" if profile == "claude" else "SK119"} <= codes(report), profile


# -- claude -------------------------------------------------------------------------------------


def test_claude_profile_lists_by_folder_and_tolerates_broken_frontmatter(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    write(root / "plain" / "SKILL.md", "# Plain heading\n\nNo frontmatter at all.\n")
    write(root / "Caps" / "SKILL.md", skill_text("caps"))
    write(root / "group" / "member" / "SKILL.md", skill_text("member"))
    write(root / "quiet" / "SKILL.md", skill_text("quiet", extra="disable-model-invocation: true\n"))
    write(root / "gated" / "SKILL.md", skill_text("gated", extra='paths: "**/*.tf"\n'))
    report = validate_paths([root], profile="claude")
    assert check_of(report, root / "plain" / "SKILL.md") == (True, True)
    assert check_of(report, root / "quiet" / "SKILL.md") == (True, False)
    assert check_of(report, root / "gated" / "SKILL.md") == (True, False)
    assert "SK368" in codes(report, root / "gated" / "SKILL.md")
    assert check_of(report, root / "group" / "member" / "SKILL.md") == (False, False)
    assert "SK358" in errors_for(report, root / "group" / "member" / "SKILL.md")
    assert next(c.name for c in report.skills if c.path == root / "Caps" / "SKILL.md") == "Caps"


CLAUDE_CASES: dict[str, str | bytes] = {
    "good/SKILL.md": skill_text("good"),
    "nodesc/SKILL.md": "---\nname: nodesc\n---\nFirst line of the body.\n",
    "nofront/SKILL.md": "# Heading only\n\nText.\n",
    "badyaml/SKILL.md": '---\nname: badyaml\ndescription: "open quote\n---\nBody line.\n',
    "colon/SKILL.md": "---\nname: colon\ndescription: Use it: for things\n---\n",
    "Upper/SKILL.md": skill_text("upper-case"),
    "lowerfile/skill.md": skill_text("lowerfile"),
    "group/member/SKILL.md": skill_text("member"),
    "parent/SKILL.md": skill_text("parent"),
    "parent/child/SKILL.md": skill_text("child"),
    ".dotted/SKILL.md": skill_text("dotted"),
    "quiet/SKILL.md": skill_text("quiet", extra="disable-model-invocation: true\n"),
    "gated/SKILL.md": skill_text("gated", extra='paths: "**/*.tf"\n'),
    "gatedlist/SKILL.md": skill_text("gatedlist", extra='paths:\n  - "src/**/*.py"\n'),
    "gated/main.tf": 'resource "null_resource" "x" {}\n',
    "wrongname/SKILL.md": skill_text("a-different-name"),
    "emptydesc/SKILL.md": '---\nname: emptydesc\ndescription: ""\n---\n',
    "twice/SKILL.md": "---\nname: twice\ndescription: one\ndescription: two\n---\nBody.\n",
    "listdesc/SKILL.md": "---\nname: listdesc\ndescription:\n  - a\n---\nFirst body line.\n",
}


def _listed_names(listing: str | None, candidates: set[str]) -> set[str]:
    names = set()
    for line in (listing or "").splitlines():
        if line.startswith("- ") and ":" in line:
            name = line[2:].split(":", 1)[0]
            if name in candidates:
                names.add(name)
    return names


@pytest.mark.oracle
def test_claude_profile_predicts_what_claude_code_lists(tmp_path: Path, claude_oracle: object) -> None:
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    root = project / ".claude" / "skills"
    for relative, text in CLAUDE_CASES.items():
        write(root / relative, text)
    write(tmp_path / "target" / "SKILL.md", skill_text("linkedfile"))
    write(root / "linkedfile" / "x", "")
    os.symlink(tmp_path / "target" / "SKILL.md", root / "linkedfile" / "SKILL.md")
    report = validate_paths([root], profile="claude")
    predicted = {c.name for c in report.skills if c.listed and c.name}
    folders = {p.name for p in root.iterdir()} | {"member", "child"}
    result = claude_oracle(project, home=tmp_path / "home")  # type: ignore[operator]
    assert _listed_names(result["skills_listing"], folders) == predicted
    assert {
        "good",
        "nodesc",
        "nofront",
        "badyaml",
        "colon",
        "Upper",
        ".dotted",
        "linkedfile",
        "twice",
    } <= predicted


CODEX_CASES: dict[str, str | bytes] = {
    "kept/SKILL.md": skill_text("kept"),
    "colon/SKILL.md": "---\nname: colon\ndescription: Use it: for things\n---\n",
    "lowerfile/skill.md": skill_text("lowerfile"),
    "nofront/SKILL.md": "# Heading only\n\nText.\n",
    "brokenyaml/SKILL.md": '---\nname: brokenyaml\ndescription: "open quote\n---\n',
    "nodesc/SKILL.md": "---\nname: nodesc\n---\nBody.\n",
    "longname/SKILL.md": skill_text("n" * 65),
    "bom/SKILL.md": "\ufeff" + skill_text("bom"),
    ".dotted/hiddenskill/SKILL.md": skill_text("hiddenskill"),
    "l1/l2/l3/l4/l5/l6/l7/SKILL.md": skill_text("deepskill"),
    "l1/l2/l3/l4/l5/l6/SKILL.md": skill_text("deepbutok"),
    "parent/SKILL.md": skill_text("parent"),
    "parent/child/SKILL.md": skill_text("child"),
    "notcodex/SKILL.md": skill_text("notcodex"),
    "notcodex/agents/openai.yaml": "policy:\n  products: [chatgpt]\n",
    "unlisted/SKILL.md": skill_text("unlisted"),
    "unlisted/agents/openai.yaml": "policy:\n  allow_implicit_invocation: false\n",
}


def _codex_names(instructions: str | None) -> set[str]:
    names = set()
    for line in (instructions or "").splitlines():
        if line.startswith("- ") and "(file: " in line:
            names.add(line[2:].split(":", 1)[0])
    return names


@pytest.mark.oracle
def test_codex_profile_predicts_what_codex_lists(tmp_path: Path, codex_oracle: object) -> None:
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    root = project / ".agents" / "skills"
    for relative, text in CODEX_CASES.items():
        write(root / relative, text)
    write(tmp_path / "target" / "SKILL.md", skill_text("linkedfile"))
    write(root / "linkedfile" / "x", "")
    os.symlink(tmp_path / "target" / "SKILL.md", root / "linkedfile" / "SKILL.md")
    report = validate_paths([root], profile="codex")
    predicted = {c.name for c in report.skills if c.listed and c.name}
    home = tmp_path / "home"
    result = codex_oracle(
        project, home=home, codex_home=home / ".codex", config={"model_context_window": 400000}
    )  # type: ignore[operator]
    ours = {Path(r).parts[0] for r in CODEX_CASES} | {
        "linkedfile",
        "child",
        "deepskill",
        "deepbutok",
        "hiddenskill",
        "n" * 65,
    }
    assert _codex_names(result["skills_instructions"]) & ours == predicted
    assert predicted == {"kept", "colon", "deepbutok", "parent", "child"}


# -- skills roots below the validated path --------------------------------------------------


def test_validating_a_project_judges_its_skill_roots_as_the_agents_read_them(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    own = {
        "agents": write(project / ".agents/skills/agents-skill/SKILL.md", skill_text("agents-skill")),
        "codex": write(project / ".codex/skills/g/codex-skill/SKILL.md", skill_text("codex-skill")),
        "sub": write(project / "pkg/.agents/skills/sub-skill/SKILL.md", skill_text("sub-skill")),
    }
    hidden = write(project / ".agents/skills/.drafts/draft/SKILL.md", skill_text("draft"))
    deep = write(project / ".agents/skills/a/b/c/d/e/f/g/deep/SKILL.md", skill_text("deep"))
    claude = write(project / ".claude/skills/claude-skill/SKILL.md", skill_text("claude-skill"))
    report = validate_paths([project])
    for path in own.values():
        assert check_of(report, path) == (True, True) and not errors_for(report, path)
    assert "SK354" in errors_for(report, hidden) and ".drafts" in str(report.diagnostics)
    assert "SK355" in errors_for(report, deep)
    assert check_of(report, claude) == (False, False)  # Codex does not read .claude/skills
    assert check_of(validate_paths([project], profile="claude"), claude) == (True, True)


def test_validating_home_recognises_the_user_skill_roots(tmp_path: Path) -> None:
    from skillshelf.env import Env

    home = tmp_path / "home"
    env = Env.for_test(cwd=home, home=home, codex_home=tmp_path / "codex-home")
    user = write(env.codex_home / "skills/mine/SKILL.md", skill_text("mine"))
    system = write(env.codex_home / "skills/.system/builtin/SKILL.md", skill_text("builtin"))
    agents = write(home / ".agents/skills/everywhere/SKILL.md", skill_text("everywhere"))
    assert check_of(validate_paths([home], env=env), agents) == (True, True)
    report = validate_paths([env.codex_home], env=env)
    assert check_of(report, user) == (True, True) and check_of(report, system) == (True, True)
    assert "SK354" not in codes(report)
    without_env = validate_paths([env.codex_home])
    assert "SK354" in errors_for(without_env, system)  # not known as a root: a hidden folder


@pytest.mark.oracle
def test_validating_a_repository_predicts_what_codex_lists_there(
    tmp_path: Path, codex_oracle: object
) -> None:
    from skill_tree_helpers import git_init

    project = git_init(tmp_path / "project")
    for relative, text in CODEX_CASES.items():
        write(project / ".agents/skills" / relative, text)
    write(project / ".codex/skills/team/codex-kept/SKILL.md", skill_text("codex-kept"))
    write(project / ".codex/skills/.off/codex-hidden/SKILL.md", skill_text("codex-hidden"))
    write(project / "skills-elsewhere/stray/SKILL.md", skill_text("stray"))
    predicted = {c.name for c in validate_paths([project]).skills if c.listed and c.name}
    home = tmp_path / "home"
    config = {"model_context_window": 400000, "skills.bundled.enabled": "false"}
    result = codex_oracle(project, home=home, codex_home=home / ".codex", config=config)  # type: ignore[operator]
    assert _codex_names(result["skills_instructions"]) == predicted - {"stray"}  # stray: PATH taken as a root
    assert {"kept", "codex-kept"} <= predicted and "codex-hidden" not in predicted
