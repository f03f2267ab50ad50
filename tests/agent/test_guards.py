"""Harness guards on their own: thresholds, resets, send-back once, check discovery."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from skillshelf.agent.guards import CompletionGuard, DoomLoopGuard, SkillReattacher, find_check_command
from skillshelf.agent.history import (
    AssistantMessage,
    ToolOutput,
    ToolResults,
    UserMessage,
    compact_history,
    compaction_keeps,
    message_text,
)


def test_doom_loop_fires_on_the_edit_after_the_limit_and_every_limit_edits_after() -> None:
    guard = DoomLoopGuard(max_edits_per_file=3)
    fired = [guard.on_edit(Path("a.py")) is not None for _ in range(9)]
    assert fired == [False, False, False, True, False, False, True, False, False]


def test_doom_loop_counts_files_separately() -> None:
    guard = DoomLoopGuard(max_edits_per_file=1)
    assert guard.on_edit(Path("a.py")) is None
    assert guard.on_edit(Path("b.py")) is None
    assert guard.on_edit(Path("a.py")) is not None


def test_a_success_resets_the_failure_count_of_that_command() -> None:
    guard = DoomLoopGuard(max_repeated_failures=2)
    assert guard.on_command("pytest  -x", 1) is None
    assert guard.on_command("pytest -x", 1) is None
    assert guard.on_command("pytest -x", 0) is None
    assert guard.on_command("pytest -x", 1) is None
    assert guard.on_command("pytest -x", 1) is None
    note = guard.on_command("pytest -x", 1)
    assert note is not None and "failed 3 times" in note


def test_a_check_failing_by_the_status_its_echo_prints_again_and_again_gets_a_note() -> None:
    guard = DoomLoopGuard(max_repeated_failures=2)
    failed = "exit code 0\n1 failed\n1"
    assert guard.on_command("pytest; echo $?", 0, output=failed) is None
    assert guard.on_command("pytest; echo $?", 0, output=failed) is None
    note = guard.on_command("pytest; echo $?", 0, output=failed)
    assert note is not None and "`pytest; echo $?` has now failed 3 times" in note
    assert guard.on_command("pytest; echo $?", 0, output="exit code 0\n1 passed\n0") is None  # a pass resets
    assert guard.on_command("pytest; echo $?", 0, output=failed) is None


def test_the_doom_loop_guard_reads_the_echoed_status_of_the_configured_check_and_unreadable_fails() -> None:
    guard = DoomLoopGuard(max_repeated_failures=1, check_command="./run-checks")
    assert guard.on_command('./run-checks; echo "exit: $?"', 0, output="exit code 0\nexit: 4") is None
    assert guard.on_command('./run-checks; echo "exit: $?"', 0, output="exit code 0\nexit: 4") is not None
    assert guard.on_command("pytest; echo $?", 0) is None  # no output: its status cannot be read
    assert guard.on_command("pytest; echo $?", 0) is not None
    assert guard.on_command("ls; echo done", 0, output="done") is None  # not a check: the line's status
    assert guard.on_command("ls; echo done", 0, output="done") is None


def test_a_build_failing_by_the_status_its_echo_prints_again_and_again_gets_a_note() -> None:
    guard = DoomLoopGuard(max_repeated_failures=2, check_command="python -m pytest")
    failed = "exit code 0\nmake: *** [Makefile:3: build] Error 2\n2"
    assert guard.on_command("make build; echo $?", 0, output=failed) is None
    assert guard.on_command("make build; echo $?", 0, output=failed) is None
    note = guard.on_command("make build; echo $?", 0, output=failed)
    assert note is not None and "`make build; echo $?` has now failed 3 times" in note
    assert guard.on_command("make build; echo $?", 0, output="exit code 0\nok\n0") is None  # a pass resets
    assert guard.on_command("make build; echo $?", 0, output=failed) is None


def test_a_status_echoed_after_a_background_job_neither_fails_nor_resets_another_command() -> None:
    guard = DoomLoopGuard(max_repeated_failures=1)
    for _ in range(3):
        assert guard.on_command("python -m http.server & echo $?", 0, output="exit code 0\n0") is None
    failed = "exit code 0\nError 2\n2"
    assert guard.on_command("make build; echo $?", 0, output=failed) is None
    assert guard.on_command("make build & echo $?", 0, output="exit code 0\n0") is None
    assert guard.on_command("make build; echo $?", 0, output=failed) is not None


def test_completion_guard_accepts_answers_when_nothing_was_edited(tmp_path: Path) -> None:
    assert CompletionGuard(tmp_path).review_final() is None


def test_completion_guard_sends_back_only_once(tmp_path: Path) -> None:
    guard = CompletionGuard(tmp_path)
    guard.on_edit()
    assert guard.review_final() is not None
    assert guard.review_final() is None


def test_an_edit_after_the_checks_makes_them_stale_again(tmp_path: Path) -> None:
    guard = CompletionGuard(tmp_path, check_command="make check")
    guard.on_edit()
    guard.on_command("make check", 0)
    guard.on_edit()
    reason = guard.review_final()
    assert reason is not None and "since your last edit" in reason and "`make check`" in reason


def test_a_configured_check_matches_inside_a_longer_command_line(tmp_path: Path) -> None:
    guard = CompletionGuard(tmp_path, check_command="tox -e lint")
    assert guard.is_check("cd src && tox -e lint")
    assert guard.is_check("python -m pytest -q")
    assert not guard.is_check("cat README.md")


def test_completion_guard_can_be_switched_off(tmp_path: Path) -> None:
    guard = CompletionGuard(tmp_path, required=False)
    guard.on_edit()
    assert guard.review_final() is None


def test_check_command_is_found_from_the_project_files(tmp_path: Path) -> None:
    assert find_check_command(tmp_path) is None
    (tmp_path / "tests").mkdir()
    assert find_check_command(tmp_path) == "python -m pytest"
    (tmp_path / "package.json").write_text('{"scripts": {"test": "vitest"}}', encoding="utf-8")
    assert find_check_command(tmp_path) == "npm test"
    (tmp_path / ".ci").mkdir()
    (tmp_path / ".ci" / "run").write_text("#!/bin/sh\n", encoding="utf-8")
    assert find_check_command(tmp_path) == "bash .ci/run"


def test_broken_project_files_do_not_break_check_discovery(tmp_path: Path) -> None:
    (tmp_path / "package.json").write_text("{not json", encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text("[tool\n", encoding="utf-8")
    assert find_check_command(tmp_path) is None


def test_reattacher_keeps_the_latest_fragment_per_skill() -> None:
    reattacher = SkillReattacher()
    assert reattacher.reattach_note() is None
    reattacher.on_loaded("a", "<skill>old</skill>")
    reattacher.on_loaded("a", "<skill>new</skill>")
    note = reattacher.reattach_note()
    assert note is not None and "new" in note and "old" not in note


def test_reattached_skills_come_newest_first_and_those_past_the_cap_are_named() -> None:
    reattacher = SkillReattacher(token_cap=60)
    reattacher.on_loaded("old", "<skill>" + "o" * 300 + "</skill>")
    reattacher.on_loaded("new", "<skill>NEW</skill>")
    note = reattacher.reattach_note()
    assert note is not None and reattacher.loaded == ("new", "old")
    assert (
        "<skill>NEW</skill>" in note
        and "o" * 300 not in note
        and note.endswith("again before you use one):\n- old")
    )
    assert SkillReattacher(token_cap=5).reattach_note() is None


def test_a_skill_whose_text_the_compaction_keeps_is_not_put_back() -> None:
    reattacher = SkillReattacher()
    reattacher.on_loaded("kept", "<skill>KEPT</skill>")
    reattacher.on_loaded("gone", "<skill>GONE</skill>")
    kept = "use $kept\n\n<skill>KEPT</skill>"
    assert reattacher.to_reattach(kept) == ("gone",)
    note = reattacher.reattach_note(kept)
    assert note is not None and "GONE" in note and "KEPT" not in note
    assert reattacher.reattach_note(kept + "<skill>GONE</skill>") is None


_messages = st.lists(
    st.one_of(
        st.builds(UserMessage, text=st.text(max_size=5)),
        st.builds(AssistantMessage, text=st.text(max_size=5)),
        st.builds(ToolResults, outputs=st.just((ToolOutput(call_id="c", name="bash", output="o"),))),
    ),
    min_size=1,
    max_size=30,
)


@given(history=_messages, keep=st.integers(min_value=1, max_value=10))
def test_compaction_keeps_the_task_and_never_starts_the_tail_with_tool_results(
    history: list, keep: int
) -> None:  # type: ignore[type-arg]
    compacted = compact_history(history, keep_last=keep, note="NOTE")
    assert compacted[0] == history[0]
    if len(compacted) != len(history) or compacted != history:
        assert not isinstance(compacted[1], ToolResults)
        assert not isinstance(compacted[2], ToolResults)
        assert len(compacted) <= keep + 3
    text = "\n".join(message_text(m) for m in compacted)
    assert all(message_text(m) in text for m in compaction_keeps(history, keep_last=keep))


def test_an_unrecognised_command_after_the_edit_is_named_not_ignored(tmp_path: Path) -> None:
    guard = CompletionGuard(tmp_path)
    guard.on_edit()
    guard.on_command("./check-everything", 3)
    reason = guard.review_final()
    assert reason is not None and "`./check-everything`" in reason and "exit code 3" in reason
    assert guard.outcome().status == "no_checks"


def test_an_unrecognised_command_after_the_edit_is_named_with_the_status_its_echo_printed(
    tmp_path: Path,
) -> None:
    guard = CompletionGuard(tmp_path, check_command="python -m pytest")
    guard.on_edit()
    guard.on_command("make build; echo $?", 0, output="exit code 0\nError 2\n2")
    reason = guard.review_final()
    assert reason is not None and "`make build; echo $?` (status 2 as its echo printed)" in reason
    guard.on_command("pytest & echo $?", 0, output="exit code 0\n0")
    reason = guard.outcome().reason
    assert reason is not None and "`pytest & echo $?` (its echoed status unknown) does not count" in reason


def test_the_send_back_is_rearmed_by_new_work_up_to_a_limit(tmp_path: Path) -> None:
    guard = CompletionGuard(tmp_path, check_command="make check", max_send_backs=2)
    guard.on_edit()
    assert guard.review_final() is not None
    assert guard.review_final() is None  # talked past without doing anything
    guard.on_edit()
    guard.on_command("make check", 2)
    assert guard.review_final() is not None  # new work, still failing: sent back again
    guard.on_edit()
    assert guard.review_final() is None  # the limit is reached
    outcome = guard.outcome()
    assert (outcome.status, outcome.command, outcome.exit_code) == ("not_run", "make check", None)


def test_the_outcome_follows_the_last_check_after_the_last_edit(tmp_path: Path) -> None:
    guard = CompletionGuard(tmp_path, check_command="make check")
    assert guard.outcome().status == "no_edits"
    guard.on_edit()
    guard.on_command("make check", 1)
    assert (guard.outcome().status, guard.outcome().exit_code) == ("failed", 1)
    guard.on_command("make check", 0)
    assert guard.outcome().status == "passed" and not guard.outcome().unverified
    guard.on_edit()
    assert guard.outcome().status == "not_run" and guard.outcome().unverified


def test_test_files_run_directly_count_as_checks(tmp_path: Path) -> None:
    guard = CompletionGuard(tmp_path)
    for command in ("python3 test_calc.py", "python tests/calc_test.py", "node calc.test.js", "npx jest"):
        assert guard.is_check(command), command
    assert not guard.is_check("python3 calc.py")


def test_a_check_run_in_a_pipeline_or_with_or_true_leaves_the_check_not_run(tmp_path: Path) -> None:
    guard = CompletionGuard(tmp_path, check_command="python3 test_calc.py")
    guard.on_edit()
    guard.on_command("python3 test_calc.py 2>&1 | tail -3", 0)
    outcome = guard.outcome()
    assert (outcome.status, outcome.exit_code) == ("not_run", None) and outcome.unverified
    assert outcome.reason is not None and "a pipeline (`|`)" in outcome.reason
    guard.on_command("python3 test_calc.py || true", 0)
    assert guard.outcome().status == "not_run"
    reason = guard.review_final()
    assert reason is not None and "`python3 test_calc.py || true` (exit code 0) does not count" in reason
    assert "on a line of their own" in reason
    guard.on_command("python3 test_calc.py 2>&1", 1)
    outcome = guard.outcome()
    assert (outcome.status, outcome.exit_code, outcome.reason) == ("failed", 1, None)


@pytest.mark.parametrize(
    "line",
    [
        "python3 test_calc.py 2>&1 | tail -3",
        "python3 test_calc.py || true",
        "python3 test_calc.py; echo done",
    ],
)
def test_a_check_line_that_does_not_count_is_sent_back_naming_the_forms_that_do(
    tmp_path: Path, line: str
) -> None:
    guard = CompletionGuard(tmp_path, check_command="python3 test_calc.py")
    guard.on_edit()
    guard.on_command(line, 0, output="exit code 0\nok\ndone")
    reason = guard.review_final()
    assert reason is not None and f"`{line}` (exit code 0) does not count" in reason
    assert "on a line of their own (`python3 test_calc.py`;" in reason
    assert "`cd DIR && python3 test_calc.py`" in reason
    assert "followed by `; echo $?` alone (`python3 test_calc.py; echo $?`" in reason
    for form in ("python3 test_calc.py", "cd DIR && python3 test_calc.py", "python3 test_calc.py; echo $?"):
        assert guard.is_check(form), form


def test_the_forms_named_are_only_those_that_count_for_the_check(tmp_path: Path) -> None:
    guard = CompletionGuard(tmp_path, check_command="make lint | tee lint.log")
    guard.on_edit()
    guard.on_command("make lint | tee lint.log | tail -3", 0)
    reason = guard.review_final()
    assert reason is not None and "on a line of their own (`make lint | tee lint.log`;" in reason
    assert "echo $?" not in reason and "cd DIR" not in reason


def test_files_a_command_changed_are_an_edit_that_needs_the_checks_again(tmp_path: Path) -> None:
    guard = CompletionGuard(tmp_path, check_command="python3 test_calc.py")
    guard.on_command("sed -i 's/a - b/a + b/' calc.py", 0, changed=("calc.py",))
    outcome = guard.outcome()
    assert outcome.status == "not_run" and outcome.reason is not None
    assert "`sed -i 's/a - b/a + b/' calc.py` changed calc.py" in outcome.reason
    reason = guard.review_final()
    assert reason is not None and "have not run `python3 test_calc.py` since your last edit" in reason
    guard.on_command("python3 test_calc.py > run.log", 0, changed=("run.log",))  # the check's own file
    assert guard.outcome().status == "passed"
    guard.on_command("git apply fix.patch", 0, changed=("a.py", "b.py", "c.py", "d.py"))
    reason = guard.outcome().reason
    assert guard.outcome().status == "not_run" and reason is not None and "c.py and 1 more" in reason


def test_a_command_that_changed_nothing_is_no_edit(tmp_path: Path) -> None:
    guard = CompletionGuard(tmp_path, check_command="make check")
    guard.on_command("sed -n 1p calc.py", 0, changed=())
    assert guard.outcome().status == "no_edits" and guard.review_final() is None


def test_a_check_run_among_other_commands_joined_by_and_verifies_the_edit(tmp_path: Path) -> None:
    for line in ("pytest && echo ok", "cd . && python -m pytest -q && echo ok", "cd .; pytest"):
        guard = CompletionGuard(tmp_path, check_command="python -m pytest")
        guard.on_edit()
        guard.on_command(line, 0)
        assert guard.outcome().status == "passed" and guard.review_final() is None, line
        guard.on_edit()
        guard.on_command(line, 1)
        assert (guard.outcome().status, guard.outcome().exit_code) == ("failed", 1)


def test_a_check_whose_exit_code_a_later_command_decides_is_still_not_a_run(tmp_path: Path) -> None:
    guard = CompletionGuard(tmp_path, check_command="python -m pytest")
    guard.on_edit()
    guard.on_command("pytest; echo done", 0, output="exit code 0\n1 failed\ndone")
    reason = guard.review_final()
    assert reason is not None and "`pytest; echo done` (exit code 0) does not count" in reason
    assert "a `;` list" in reason


def test_files_changed_on_a_check_line_are_an_edit_before_or_after_the_check(tmp_path: Path) -> None:
    guard = CompletionGuard(tmp_path, check_command="python3 test_calc.py")
    guard.on_command("sed -i s/-/+/ calc.py && python3 test_calc.py", 0, changed=("calc.py",))
    assert guard.outcome().status == "passed" and guard.review_final() is None
    guard.on_command("python3 test_calc.py && sed -i s/+/-/ calc.py", 0, changed=("calc.py",))
    outcome = guard.outcome()
    assert outcome.status == "not_run" and outcome.reason is not None and "changed calc.py" in outcome.reason
    guard.on_command("python3 test_calc.py > run.log && echo ok", 0, changed=("run.log",))  # its own log
    assert guard.outcome().status == "passed"


def test_a_check_whose_status_an_echo_prints_is_judged_by_that_status(tmp_path: Path) -> None:
    guard = CompletionGuard(tmp_path, check_command="python -m pytest")
    line = 'pytest -q; echo "exit: $?"'
    guard.on_edit()
    guard.on_command(line, 0, output="exit code 0\n3 passed\nexit: 0")
    assert guard.outcome().status == "passed" and guard.review_final() is None
    guard.on_edit()
    guard.on_command(line, 0, output="exit code 0\n1 failed\nexit: 1")
    outcome = guard.outcome()
    assert (outcome.status, outcome.exit_code, outcome.reason) == ("failed", 1, None)
    reason = guard.review_final()
    assert reason is not None and f"the last run of `{line}` failed (exit code 1)" in reason


def test_an_echoed_status_that_cannot_be_read_is_a_failed_run_with_the_reason(tmp_path: Path) -> None:
    guard = CompletionGuard(tmp_path, check_command="python -m pytest")
    guard.on_edit()
    guard.on_command("pytest; echo $?", 0)  # no output handed over
    outcome = guard.outcome()
    assert (outcome.status, outcome.exit_code) == ("failed", None) and outcome.unverified
    assert outcome.reason is not None and "no output was handed over" in outcome.reason
    reason = guard.review_final()
    assert (
        reason is not None
        and "the last run of `pytest; echo $?` counts as failed: no output was handed" in reason
    )
    guard.on_command("pytest; echo $?", 0, output="exit code 0\n1 passed0")  # the echo's line is not its own
    assert (guard.outcome().status, guard.outcome().exit_code) == ("failed", None)
