"""Deep nesting and invalid text in one file never stop a command: each is a coded finding.

A frontmatter value nested 600 levels deep ended every command of the project in "internal
error" (RecursionError); so did a lone surrogate in ``agents/openai.yaml``, a ``.claude/rules``
front matter 2,000 levels deep, and a task holding a byte that is not UTF-8.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from bad_input_helpers import assert_no_crash, run_cli, run_process, write_skill

import skillshelf
from skillshelf.skills.model import RootOrigin, Scope, SkillRoot

ROOT = SkillRoot(path=Path("/skills"), scope=Scope.REPO, origin=RootOrigin.AGENTS_REPO)


def _deep_values(depth: int) -> dict[str, str]:
    return {
        "flow-sequence": "[" * depth + "]" * depth,
        "flow-mapping": "{a: " * depth + "1" + "}" * depth,
        "block-mapping": "\n" + "".join("  " * (i + 1) + "k:\n" for i in range(depth)).rstrip("\n"),
    }


@pytest.mark.parametrize("depth", [100, 600, 900, 5000])
@pytest.mark.parametrize("shape", ["flow-sequence", "flow-mapping", "block-mapping"])
def test_a_deeply_nested_frontmatter_value_is_a_finding_not_a_crash(depth: int, shape: str) -> None:
    text = f"---\nname: deep\ndescription: d\nx: {_deep_values(depth)[shape]}\n---\nbody\n"
    parsed = skillshelf.parse_skill_text(text, path=Path("/skills/deep/SKILL.md"), root=ROOT)
    assert parsed.diagnostics and all(d.code and d.fix for d in parsed.diagnostics)
    if parsed.skill is not None:
        json.dumps(parsed.skill.to_dict())  # what the cache and --json write


def test_every_command_of_a_project_with_a_deep_skill_still_works(work: Path) -> None:
    skills = work / ".agents" / "skills"
    (skills / "deep").mkdir(parents=True)
    (skills / "deep" / "SKILL.md").write_text(
        f"---\nname: deep\ndescription: d\nx: {'[' * 600}{']' * 600}\n---\nbody\n", encoding="utf-8"
    )
    write_skill(skills / "good", "good")
    for args in (["list", "--json"], ["context", "release notes"], ["catalog"], ["validate", str(skills)]):
        result = run_cli(args, cwd=work)
        assert_no_crash(result)
        assert result.code in (0, 1), (args, result.text[-2000:])
    listed = run_cli(["list", "--json"], cwd=work)
    assert {"deep", "good"} <= {s["name"] for s in json.loads(listed.out)}
    assert "SK126" in listed.codes


@pytest.mark.parametrize(
    "openai_yaml",
    [
        'interface:\n  display_name: "a\ud800"\n',
        "interface:\n  display_name: b\udcff\n",
        "x: " + "[" * 600 + "]" * 600 + "\n",
        "x: " + "[" * 100_000 + "]" * 100_000 + "\n",
    ],
    ids=["surrogate-quoted", "surrogate-plain", "deep-600", "deep-100000"],
)
def test_parse_skill_text_ignores_an_unusable_openai_yaml_with_a_warning(openai_yaml: str) -> None:
    parsed = skillshelf.parse_skill_text(
        "---\nname: s\ndescription: d\n---\nbody\n",
        path=Path("/skills/s/SKILL.md"),
        root=ROOT,
        openai_yaml=openai_yaml,
        openai_yaml_path=Path("/skills/s/agents/openai.yaml"),
    )
    assert parsed.skill is not None
    assert [d.code for d in parsed.diagnostics] == ["SK117"]


def test_instructions_with_a_deep_rule_front_matter_report_it(work: Path) -> None:
    rules = work / ".claude" / "rules"
    rules.mkdir(parents=True)
    (rules / "x.md").write_text(f"---\npaths: {'[' * 2000}{']' * 2000}\n---\nrule text\n", encoding="utf-8")
    (rules / "y.md").write_text("---\npaths:\n  - '*.py'\n---\nonly for python\n", encoding="utf-8")
    result = run_cli(["instructions", "--profile", "claude"], cwd=work)
    assert_no_crash(result)
    assert result.code == 0 and "IN114" in result.codes and "rule text" in result.out
    assert "only for python" not in result.out


@pytest.mark.parametrize("command", [["context"], ["search"], ["context", "--json"]])
def test_a_task_with_a_byte_that_is_not_utf8_is_read_with_a_replacement(
    work: Path, command: list[str]
) -> None:
    write_skill(work / ".agents" / "skills" / "notes", "notes")
    task = os.fsdecode(b"fix \xff the release notes")
    code, out, err = run_process([*command, task], cwd=work, timeout=120)
    assert code == 0, err[-2000:]
    assert b"internal error" not in err


def test_run_with_a_task_that_is_not_utf8_reaches_the_model_call(
    work: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    task = os.fsdecode(b"fix \xff this")
    args = ["run", task, "--model", "openai:m", "--base-url", "http://127.0.0.1:9/v1", "--no-transcript"]
    monkeypatch.setenv("OPENAI_API_KEY", "x")
    code, _out, err = run_process(args, cwd=work, timeout=120)
    assert b"internal error" not in err and code == 1 and b"fix:" in err, err[-2000:]


@pytest.mark.parametrize(
    ("config", "command"),
    [
        ("[skills.bundled]\nenabled = true\n[skills]\nbuiltin = true\n", ["disable", "x"]),
        ("projects = {}\n", ["trust", "."]),
        ("skills = {a = 1}\n", ["disable", "x"]),
    ],
    ids=["out-of-order-tables", "inline-projects", "inline-skills"],
)
def test_edits_of_configs_with_odd_tables_succeed(
    work: Path, isolated_home: object, config: str, command: list[str]
) -> None:
    path = Path(isolated_home.config) / "skillshelf" / "config.toml"  # type: ignore[attr-defined]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(config, encoding="utf-8")
    result = run_cli(command, cwd=work)
    assert_no_crash(result)
    assert result.code == 0, result.text[-2000:]


def test_a_skill_folder_whose_name_is_not_utf8_is_skipped_by_every_command(work: Path) -> None:
    skills = work / ".agents" / "skills"
    write_skill(skills / "release-notes", "release-notes")
    for name in (b"bad\xffname", b"bad2\xfe"):
        write_skill(Path(os.fsdecode(os.fsencode(skills) + b"/" + name)), "named")
    commands = [
        ["catalog"],
        ["catalog", "--format", "xml"],
        ["context", "--raw", "write the release notes"],
        ["list", "--json"],
        ["load", "release-notes"],
        ["search", "release notes"],
        ["validate"],
    ]
    for args in commands:
        result = run_cli(args, cwd=work)
        assert_no_crash(result)
        assert result.code in (0, 1) and "named" not in result.out, (args, result.text[-2000:])
    assert "SK214" in run_cli(["list"], cwd=work).codes
    assert "SK370" in run_cli(["validate"], cwd=work).codes
    prompt = json.dumps(
        {
            "session_id": "s",
            "cwd": str(work),
            "hook_event_name": "UserPromptSubmit",
            "prompt": "release notes",
        }
    )
    code, out, _err = run_process(["hook", "UserPromptSubmit"], cwd=work, stdin=prompt.encode(), timeout=120)
    assert code == 0 and b"release-notes" in out
