"""Harness guards: mechanical checks that keep an agent out of known failure modes.

Each guard is a small state machine fed with what happens in a task and answering with a
message for the model (or ``None``). They depend on nothing but their inputs, so any agent
loop can use them:

- :class:`DoomLoopGuard`: the same file edited more than N times, or the same command failing
  again and again, gets a note telling the model to step back and change approach (a command
  fails by the status its line reports, :func:`~skillshelf.agent.shell_effects.reported_status`:
  ``pytest; echo $?``, ``make build; echo $?`` or ``make build || echo $?`` by the status its
  echo printed, not the echo's own; a status that cannot be read fails a run of the checks
  and is not counted for another line, such as one echoed after a background job);
- :class:`CompletionGuard`: a final answer after an edit is sent back unless the project's
  checks ran (and passed) after the last edit (again after new work, a few times at most), and
  the task's :class:`CheckOutcome` says whether the work was verified; a command line counts as
  a run of the checks only when its exit status stands for theirs (:func:`~skillshelf.agent.
  shell_effects.check_run`: ``cd x && pytest && echo ok`` does, ``pytest | tail``, ``pytest ||
  true`` or ``pytest; echo done`` do not), or when it ends with ``; echo $?`` (or ``|| echo
  $?``) and the status is read from the last line of its output (``pytest; echo "exit: $?"``; a
  status that cannot be read is a failed run, with the reason; after ``||`` an output that does
  not end in the echo's text is a pass, the echo not run); a line is read with its
  here-documents' bodies as data (``cat > calc.py <<'EOF' ... EOF`` then the checks: an edit the
  checks verify); an answer sent back because a line that ran the checks did not count names the
  forms that do;
- :class:`SkillReattacher`: after the history is compacted, the skills loaded or mentioned
  earlier in the task are attached again (within a token cap; the rest named), so their
  instructions are not lost; those whose text a kept message holds (the first one) are not.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from skillshelf.agent.project_files import find_check_command
from skillshelf.agent.repeat_guard import MAX_IDENTICAL_CALLS
from skillshelf.agent.shell_effects import CheckRun, check_run, reported_status
from skillshelf.tokens import whole_or_listed

__all__ = [
    "CheckOutcome",
    "CompletionGuard",
    "DoomLoopGuard",
    "GuardSettings",
    "SkillReattacher",
    "find_check_command",
]

REATTACH_INTRO = "Skills you loaded earlier in this task, attached again after the history was compacted:"
REATTACH_LIST_INTRO = "Also loaded earlier (call load_skill again before you use one):"


@dataclass(frozen=True, slots=True, kw_only=True)
class GuardSettings:
    """Thresholds. ``check_command`` overrides the discovered project checks;
    ``max_identical_calls``: see :mod:`~skillshelf.agent.repeat_guard` (0: no limit)."""

    max_edits_per_file: int = 5
    max_repeated_failures: int = 2
    check_command: str | None = None
    require_checks: bool = True
    max_send_backs: int = 3
    max_identical_calls: int = MAX_IDENTICAL_CALLS


def _normalise(command: str) -> str:
    return " ".join(command.split())


class DoomLoopGuard:
    """Notices edit loops and repeated failing commands within one task. ``check_command``: the
    project's check, as the completion guard knows it, so that a line that runs it fails or
    passes by the status it reports for it (as any other line does)."""

    def __init__(
        self, *, max_edits_per_file: int = 5, max_repeated_failures: int = 2, check_command: str | None = None
    ) -> None:
        self.max_edits_per_file = max_edits_per_file
        self.max_repeated_failures = max_repeated_failures
        self.check_command = check_command
        self._edits: Counter[Path] = Counter()
        self._failures: Counter[str] = Counter()

    def on_edit(self, path: Path) -> str | None:
        """Count an edit; past the limit (and every limit edits after), return a note."""
        self._edits[path] += 1
        count = self._edits[path]
        over = count - self.max_edits_per_file
        if over <= 0 or (over - 1) % self.max_edits_per_file:
            return None
        return (
            f"Harness note: you have edited {path.name} {count} times in this task. Stop editing it for now. "
            "Step back: re-read the error messages and the code around them, state what you believe is wrong "
            "and why the last edits did not fix it, then change your approach."
        )

    def on_command(self, command: str, exit_code: int, output: str | None = None) -> str | None:
        """Count failures of the same command; a success resets its count. A line fails by the
        status it reports (:func:`~skillshelf.agent.shell_effects.reported_status`: on ``pytest;
        echo $?`` or ``make build; echo $?`` the one read from ``output``, what it printed; a
        status that cannot be read is a failure for a run of the checks and says nothing for any
        other line: ``server & echo $?`` neither counts nor resets)."""
        key = _normalise(command)
        run = check_run(command, self.check_command, exit_code=exit_code, output=output)
        status = reported_status(run, exit_code)
        if status is None and not run.counts:
            return None
        if status == 0:
            self._failures.pop(key, None)
            return None
        self._failures[key] += 1
        count = self._failures[key]
        if count <= self.max_repeated_failures:
            return None
        return (
            f"Harness note: `{_short(key)}` has now failed {count} times in a row. Running it again "
            "unchanged will not help. Step back: read its error output carefully, find the cause, and "
            "change what you are doing (or the command) before you run it again."
        )


CheckStatus = Literal["passed", "failed", "not_run", "no_edits", "no_checks"]


@dataclass(frozen=True, slots=True, kw_only=True)
class CheckOutcome:
    """Whether a task's work was verified: the state of its checks after the last edit.

    ``passed`` / ``failed``: the last check run after the last edit, with its exit code (and
    ``command`` as it ran: ``python3 test_calc.py`` where the project's check is ``python -m
    pytest``); ``not_run``: files changed after the last check run (or none ran); ``no_edits``: nothing
    to verify; ``no_checks``: files changed but no check is known for this project and no
    command that looks like one ran. ``unverified`` (failed or not run) is what a caller
    reports as a failure when the checks were ``required``. ``reason`` says why the checks
    count as not run (``pytest | tail -3`` ran them in a pipeline; a command changed files), or
    as failed without an exit code (``pytest; echo $?`` whose printed status could not be read).
    """

    status: CheckStatus
    command: str | None = None
    exit_code: int | None = None
    required: bool = True
    reason: str | None = None

    @property
    def unverified(self) -> bool:
        return self.status in ("failed", "not_run")

    def to_dict(self) -> dict[str, object]:
        return {
            "status": self.status,
            "command": self.command,
            "exit_code": self.exit_code,
            "required": self.required,
            "reason": self.reason,
        }


class CompletionGuard:
    """Before a final answer is accepted: were the checks run, and did they pass, after the last edit?

    A final answer that does not hold up is sent back with the reason; after a send-back it is
    sent back again only once new work (an edit, a command) was done, at most
    ``max_send_backs`` times per task, so a model cannot loop on it, nor talk past it by
    answering twice: :meth:`outcome` records the state for the caller either way.
    """

    def __init__(
        self,
        workspace: Path,
        *,
        check_command: str | None = None,
        required: bool = True,
        max_send_backs: int = 3,
    ) -> None:
        self.check_command = check_command or find_check_command(workspace)
        self.required = required
        self.max_send_backs = max_send_backs
        self._edited = False
        self._dirty = False
        # the last check run: command, exit code (None: its echoed status could not be read), why
        self._last_check: tuple[str, int | None, str | None] | None = None
        self._last_command: tuple[str, str] | None = None  # the last command after the last edit, its status
        self._miss: str | None = None  # why a line after the last edit that ran the checks does not count
        self._edit_cause: str | None = None  # what made the last edit, when it was not a file tool
        self._edit_known = True  # False: the last "edit" is a command that may have changed files
        self._send_backs = 0
        self._armed = True

    def is_check(self, command: str) -> bool:
        """Whether ``command`` is a run of the checks whose exit status stands for theirs (see
        :func:`~skillshelf.agent.shell_effects.check_run`)."""
        return check_run(command, self.check_command).counts

    def on_edit(self, cause: str | None = None, *, known: bool = True) -> None:
        """Files changed; ``cause`` says how, when not through a file tool (a shell command);
        ``known=False``: they may have changed (what a command did could not be told)."""
        self._edited = self._dirty = self._armed = True
        self._last_command = self._miss = None
        self._edit_cause = cause
        self._edit_known = known

    def on_command(
        self, command: str, exit_code: int, changed: Sequence[str] | None = (), output: str | None = None
    ) -> None:
        """A command ran; ``changed``: the project files it changed, an edit unless the line is a
        run of the checks (whose own files, a log or a cache, are not edits); ``None``: what it
        changed cannot be told, so it counts as an edit that may have happened. On a line that runs
        the checks among other commands, files changed are an edit the checks verified when only
        commands before them could change files, and an edit after them when a later one could.
        ``output``: what it printed (its end kept when clipped), where a line ending in ``; echo
        $?`` has the checks' status; without it such a line is a failed run of the checks."""
        line = _short(_normalise(command))
        run = check_run(command, self.check_command, exit_code=exit_code, output=output)
        self._armed = True
        known = changed is not None
        edit = _changed_by(line, changed) if changed else None if known else _may_have_changed(line)
        if edit and (not run.counts or run.edits_before):
            self.on_edit(edit, known=known)
        if not edit or run.counts:
            self._last_command = (line, _shown_status(run, exit_code))
        if run.counts:
            self._dirty = False
            self._last_check = (line, reported_status(run, exit_code), run.why)
            self._miss = None
            if edit and run.edits_after:
                self.on_edit(edit, known=known)
        elif run.mentions and self._dirty:
            self._miss = (
                f"`{line}` ({_shown_status(run, exit_code)}) does not count as a run of the checks, "
                f"as the line has {run.why}"
            )

    def _known_check(self) -> str | None:
        if self.check_command:
            return self.check_command
        return self._last_check[0] if self._last_check else None

    def outcome(self) -> CheckOutcome:
        """The state of the checks now (see :class:`CheckOutcome`)."""
        command = self._known_check()
        if not self._edited:
            return CheckOutcome(status="no_edits", command=command, required=self.required)
        if not self._dirty and self._last_check is not None:
            ran, exit_code, why = self._last_check  # what ran, which may not be the project's command
            status: CheckStatus = "passed" if exit_code == 0 else "failed"
            return CheckOutcome(
                status=status, command=ran, exit_code=exit_code, required=self.required, reason=why
            )
        edit = "the last edit" if self._edit_known else "the last command that may have changed files"
        edit = f"{edit} ({self._edit_cause})" if self._edit_cause else edit
        return CheckOutcome(
            status="not_run" if command else "no_checks",
            command=command,
            required=self.required,
            reason=self._miss or f"no check ran after {edit}",
        )

    def review_final(self) -> str | None:
        """A reason to send the answer back, or ``None`` to accept it."""
        if not self.required or not self._armed or self._send_backs >= self.max_send_backs:
            return None
        reason = self._reason()
        if reason is None:
            return None
        self._send_backs += 1
        self._armed = False
        how = f"`{self._known_check()}`" if self._known_check() else "the project's tests or checks"
        return (
            f"Harness check before finishing: {reason}. Run {how} now, fix what fails, "
            "and only then give your final answer, saying what you verified."
        )

    def _reason(self) -> str | None:
        outcome = self.outcome()
        if outcome.status == "failed" and outcome.exit_code is None:
            return f"the last run of `{outcome.command}` counts as failed: {outcome.reason}"
        if outcome.status == "failed":
            return f"the last run of `{outcome.command}` failed (exit code {outcome.exit_code})"
        if outcome.status not in ("not_run", "no_checks"):
            return None
        changed = "you changed files" if self._edit_known else "files may have changed"
        changed = f"{changed} ({self._edit_cause})" if self._edit_cause else changed
        last = "your last edit" if self._edit_known else "that"
        if self._miss:
            advice = _counted_forms(self.check_command)
            return f"{changed}, and no check ran after {last}: {self._miss}; {advice}"
        ran = self._last_command
        if ran is not None:  # something ran after the edit, just nothing recognised as the checks
            command, status = ran
            return (
                f"{changed}, and no check ran after {last}: the last command, "
                f"`{command}` ({status}), does not look like the project's checks"
            )
        checks = f"`{outcome.command}`" if outcome.command else "the project's tests or checks"
        if not self._edit_known:
            return f"{changed}, and {checks} did not run after that"
        return f"{changed} but have not run {checks} since your last edit"


class SkillReattacher:
    """Remembers the skills a task loaded (``load_skill``) or whose text a message brought (a
    mention), to put them back after compaction: the most recent first, whole while the note
    stays within ``token_cap`` tokens, the others by name with a line asking to load them again,
    so none is dropped without a word."""

    def __init__(self, token_cap: int = 20_000) -> None:
        self.token_cap = token_cap
        self._loaded: dict[str, str] = {}  # name -> its latest fragment, oldest load first

    @property
    def loaded(self) -> tuple[str, ...]:
        """The skills' names, the most recently loaded first."""
        return tuple(reversed(self._loaded))

    def on_loaded(self, name: str, fragment: str) -> None:
        self._loaded.pop(name, None)
        self._loaded[name] = fragment

    def to_reattach(self, kept: str = "") -> tuple[str, ...]:
        """The skills to put back, the most recent first: those whose latest fragment is not in
        ``kept``, the text of the messages the compaction keeps (a skill the first message
        brought is still there)."""
        return tuple(name for name in self.loaded if self._loaded[name] not in kept)

    def reattach_note(self, kept: str = "") -> str | None:
        """The note that puts back :meth:`to_reattach` ``(kept)``; ``None`` for none."""
        items = [(self._loaded[name], f"- {name}") for name in self.to_reattach(kept)]
        note = whole_or_listed(items, self.token_cap, intro=REATTACH_INTRO, list_intro=REATTACH_LIST_INTRO)
        return note or None


def _counted_forms(check_command: str | None) -> str:
    """Advice naming the ways to run the checks that count, each shown with the project's check
    (``CHECK`` when none is known), and left out when :func:`check_run` would not count it for
    that check (a configured check that is itself a pipeline)."""
    check = check_command or "CHECK"
    forms = (
        (
            check,
            f"on a line of their own (`{check}`; output redirections such as `2>&1` or `> log` are fine)",
        ),
        (f"cd DIR && {check}", f"after commands joined by `&&` (`cd DIR && {check}`)"),
        (
            f"{check}; echo $?",
            f"followed by `; echo $?` alone (`{check}; echo $?`: the status it prints is read from the "
            "last line of the output)",
        ),
    )
    kept = [text for line, text in forms if check_run(line, check).counts]
    return "run the checks " + (", ".join(kept[:-1]) + f", or {kept[-1]}" if len(kept) > 1 else kept[0])


def _shown_status(run: CheckRun, line_status: int) -> str:
    """``exit code 2``, or on a line that ends in a status echo ``status 2 as its echo printed``
    (``its echoed status unknown`` when it could not be read); ``run`` is given ``line_status``."""
    if run.echo is None:
        return f"exit code {line_status}"
    status = reported_status(run, line_status)
    if status is None:
        return "its echoed status unknown"
    if status == 0 and run.echo.on_failure:
        return "status 0, its `||` echo not run"
    return f"status {status} as its echo printed"


def _changed_by(line: str, paths: Sequence[str], shown: int = 3) -> str:
    """``"`sed -i ... calc.py` changed calc.py"``: what a command edited, for the reasons given."""
    names = ", ".join(paths[:shown]) + (f" and {len(paths) - shown} more" if len(paths) > shown else "")
    return f"`{_short(line, 80)}` changed {names}"


def _may_have_changed(line: str) -> str:
    """What a command whose changes cannot be told did, for the reasons given: no fact."""
    return (
        f"`{_short(line, 80)}` ran where what it changes cannot be told (too many files to watch, "
        "and no answer from `git status`)"
    )


def _short(text: str, limit: int = 120) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."
