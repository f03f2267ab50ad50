"""Harness guards: mechanical checks that keep an agent out of known failure modes.

Each guard is a small state machine fed with what happens in a task and answering with a
message for the model (or ``None``). They depend on nothing but their inputs, so any agent
loop can use them:

- :class:`DoomLoopGuard`: the same file edited more than N times, or the same command failing
  again and again, gets a note telling the model to step back and change approach;
- :class:`CompletionGuard`: a final answer after an edit is sent back once unless the project's
  checks ran (and passed) after the last edit;
- :class:`SkillReattacher`: after the history is compacted, the skills loaded earlier in the
  task are attached again, so their instructions are not lost.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from skillshelf.agent.project_files import find_check_command

__all__ = ["CompletionGuard", "DoomLoopGuard", "GuardSettings", "SkillReattacher", "find_check_command"]


@dataclass(frozen=True, slots=True, kw_only=True)
class GuardSettings:
    """Thresholds. ``check_command`` overrides the discovered project checks."""

    max_edits_per_file: int = 5
    max_repeated_failures: int = 2
    check_command: str | None = None
    require_checks: bool = True


def _normalise(command: str) -> str:
    return " ".join(command.split())


class DoomLoopGuard:
    """Notices edit loops and repeated failing commands within one task."""

    def __init__(self, *, max_edits_per_file: int = 5, max_repeated_failures: int = 2) -> None:
        self.max_edits_per_file = max_edits_per_file
        self.max_repeated_failures = max_repeated_failures
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

    def on_command(self, command: str, exit_code: int) -> str | None:
        """Count failures of the same command; a success resets its count."""
        key = _normalise(command)
        if exit_code == 0:
            self._failures.pop(key, None)
            return None
        self._failures[key] += 1
        count = self._failures[key]
        if count <= self.max_repeated_failures:
            return None
        return (
            f"Harness note: `{_short(key)}` has now failed {count} times in a row. Running it again unchanged "
            "will not help. Step back: read its error output carefully, find the cause, and change what you "
            "are doing (or the command) before you run it again."
        )


_CHECK_PATTERNS = (
    r"\bpytest\b",
    r"\bpython3? -m (pytest|unittest)\b",
    r"\b(npm|pnpm|yarn|bun)( run)? test\b",
    r"\bcargo test\b",
    r"\bgo test\b",
    r"\bmake (test|check)\b",
    r"\btox\b",
    r"\bnox\b",
    r"(^|\s|/)\.ci/run\b",
    r"\bctest\b",
    r"\bmvn (test|verify)\b",
    r"\bgradle(w)? test\b",
    r"\bdotnet test\b",
    r"\bmix test\b",
    r"\brspec\b",
)


class CompletionGuard:
    """Before a final answer is accepted: were the checks run, and did they pass, after the last edit?"""

    def __init__(self, workspace: Path, *, check_command: str | None = None, required: bool = True) -> None:
        self.check_command = check_command or find_check_command(workspace)
        self.required = required
        self._edited = False
        self._dirty = False
        self._last_exit: int | None = None
        self._sent_back = False

    def is_check(self, command: str) -> bool:
        text = _normalise(command)
        if self.check_command and _normalise(self.check_command) in text:
            return True
        return any(re.search(pattern, text) for pattern in _CHECK_PATTERNS)

    def on_edit(self) -> None:
        self._edited = self._dirty = True

    def on_command(self, command: str, exit_code: int) -> None:
        if self.is_check(command):
            self._dirty = False
            self._last_exit = exit_code

    def review_final(self) -> str | None:
        """A reason to send the answer back (once per task), or ``None`` to accept it."""
        if not self.required or not self._edited or self._sent_back:
            return None
        how = f"`{self.check_command}`" if self.check_command else "the project's tests or checks"
        if self._dirty:
            reason = f"you changed files but have not run {how} since your last edit"
        elif self._last_exit not in (0, None):
            reason = f"the last run of the checks failed (exit code {self._last_exit})"
        else:
            return None
        self._sent_back = True
        return (
            f"Harness check before finishing: {reason}. Run {how} now, fix what fails, "
            "and only then give your final answer, saying what you verified."
        )


class SkillReattacher:
    """Remembers the skills loaded in a task, to put them back after compaction."""

    def __init__(self) -> None:
        self._loaded: dict[str, str] = {}

    @property
    def loaded(self) -> tuple[str, ...]:
        return tuple(self._loaded)

    def on_loaded(self, name: str, fragment: str) -> None:
        self._loaded[name] = fragment

    def reattach_note(self) -> str | None:
        if not self._loaded:
            return None
        body = "\n\n".join(self._loaded.values())
        return f"Skills you loaded earlier in this task, attached again after the history was compacted:\n\n{body}"


def _short(text: str, limit: int = 120) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."
