"""Each hook call answered once: a claim per agent, event and input in the state folder.

Codex runs every hook set that names the event (skillshelf set up at both project and user
scope: two), at the same time, each on the same input byte for byte (0.171.0, measured). The
first process to claim the call in the state folder's ``hooks/claims/`` answers it
(:func:`claim_call`); another with the same input within :data:`CLAIM_SECONDS` answers empty
and does nothing else. The input names its session and, where one call differs from the next,
its turn (``turn_id`` / ``prompt_id``), prompt and tool call (``tool_use_id``), so two
different calls never share a claim.

A call naming no turn (a session's start, Codex's end) is sent again byte for byte when the
session is resumed (``claude -p --continue`` / ``--resume ID``: ``"source":"resume"`` each
time; ``codex exec resume --last``; Claude Code 2.1.197 and Codex 0.171.0, measured), so its
claim must tell the second hook set of the same call from the next resume. The rule: each
claimed call naming a turn touches the session's mark (``hooks/sessions/session-<hash>``),
and the claim of a call naming no turn is keyed by the mark's time as well as the input. The
agents run the hook sets of one event together and wait for a session's start hooks before
its first prompt, so both hook sets of one start (or end) see the same mark and share one claim,
however slow one is to start; a resume follows the prompts of the run before (every ``claude
-p`` and ``codex exec`` run has one), sees a newer mark, and is answered however soon it comes.
A resume with no prompt since the last start has the same key: for it the claim holds
:data:`UNTURNED_CLAIM_SECONDS` only.

Claiming never looks at the other claims. Old ones are taken out by :func:`prune_claims`, which
the hook calls after its answer is written (the hook server: after it is sent), with bounded
work: one pass reads at most :data:`PRUNE_BATCH` entries of the folder, and further passes run
only while the folder held more and :data:`PRUNE_SECONDS` are not spent. A folder of any size
never delays an answer, and one grown huge (200,000 stale claims) shrinks by thousands of
files a call.

The marks are kept a week (:data:`MARK_SECONDS`) whatever their number, so they are filed by the
week they were touched in (``hooks/sessions/<week>/``, the week counted from the epoch): a mark
is looked up in this week's folder, then last week's, and a folder older than that holds only
marks that count as none. Pruning takes those folders out a batch at a time (with any mark
filed outside a week's folder, which is never read), so every entry a pass reads but the two
weeks' folders is one to remove: marks of any number and age are all gone in a few calls.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import os
import time
from pathlib import Path

from skillshelf.dirs import private_dir

__all__ = [
    "CLAIMS",
    "CLAIM_SECONDS",
    "MAX_CLAIMS",
    "PRUNE_BATCH",
    "PRUNE_SECONDS",
    "MARK_SECONDS",
    "SESSION_MARK",
    "UNTURNED_CLAIM_SECONDS",
    "claim_call",
    "prune",
    "prune_claims",
    "prune_marks",
]

CLAIMS = "claims"  # one file per hook call answered lately, under the state folder's hooks/
#: How long the claim of an input naming its turn or tool call (``turn_id``, ``prompt_id``,
#: ``tool_use_id``) holds: both hook sets start within the agents' 10 s hook timeout of each
#: other, and such an input is never sent again for another call.
CLAIM_SECONDS = 60.0
#: How long the claim of an input naming no turn holds at most (``SessionStart``, Codex's
#: ``SessionEnd``), unless the session's mark releases it sooner (see the module docstring):
#: the two hook sets Codex runs for one call (both scopes) start at the same moment, well
#: within this.
UNTURNED_CLAIM_SECONDS = 10.0
SESSION_MARK = "session-"  # the name of a session's mark begins so (a claim's is hex digits only)
MARKS = "sessions"  # the sessions' marks by week, beside the claims folder (pruned apart from the claims)
#: How long a session's mark is kept: a mark read older than this counts as none, so the hook
#: set that reads it just before a pruning pass removes it and the one that finds it gone key
#: the call alike. A resume within it after a prompt is answered at once.
MARK_SECONDS = 7 * 86_400.0
MAX_CLAIMS = 512
#: Entries one pruning pass reads at most (more than :data:`MAX_CLAIMS`, so that a pass over a
#: folder past its cap always finds some to remove).
PRUNE_BATCH = 1024
#: Further passes of one call stop once this is spent (the first pass always runs).
PRUNE_SECONDS = 0.2


def claims_folder(state_dir: Path) -> Path:
    return state_dir / "hooks" / CLAIMS


def marks_folder(state_dir: Path) -> Path:
    return state_dir / "hooks" / MARKS


def claim_call(
    agent: str, event: str, raw: bytes, state_dir: Path, *, served: bool, session: str, turned: bool
) -> float | None:
    """``None`` when this process is the first to take the hook call ``raw`` (an input naming
    ``session``; ``turned``: naming its turn or tool call), else the age in seconds of the claim
    that holds it. The claim file is made with ``O_EXCL`` (a hook server's names its pid); one
    that holds no more (:func:`_held`: too old, or left by a hook server that is gone, stopped
    while it had the call, which the hook then answers itself) is replaced. A hook process's
    claim holds even after it ended: the agent may run the second hook set after the first.
    ``None`` too when the claim cannot be written: the call is answered as if alone. A call
    naming its turn, once claimed, touches the session's mark (see the module docstring)."""
    folder = claims_folder(state_dir)
    marks = marks_folder(state_dir)
    since = b"" if turned else str(_mark_time(marks, agent, session)).encode()
    key = b"\0".join([agent.encode(), event.encode(), raw.strip(), since])
    claim = folder / hashlib.sha256(key).hexdigest()[:40]
    try:
        private_dir(folder)
    except OSError:
        return None
    for _ in range(2):
        try:
            handle = os.open(claim, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            age = _held(claim, CLAIM_SECONDS if turned else UNTURNED_CLAIM_SECONDS)
            if age is not None:
                return age
            with contextlib.suppress(OSError):
                claim.unlink()
            continue
        except OSError:
            return None
        with contextlib.suppress(OSError):
            os.write(handle, f"server {os.getpid()}".encode("ascii") if served else b"hook")
        os.close(handle)
        if turned:
            mark = _mark(marks, agent, session, _week(time.time_ns()))
            with contextlib.suppress(OSError):
                private_dir(mark.parent)
                mark.touch(mode=0o600)
        return None
    return None


def _week(stamp_ns: int) -> int:
    """The number of the week (:data:`MARK_SECONDS`, from the epoch) holding ``stamp_ns``."""
    return int(stamp_ns // int(MARK_SECONDS * 1e9))


def _mark(folder: Path, agent: str, session: str, week: int) -> Path:
    """The file whose time says when a call of ``session`` naming its turn was last claimed in
    ``week``."""
    key = b"\0".join([agent.encode(), session.encode("utf-8", "surrogateescape")])
    return folder / str(week) / f"{SESSION_MARK}{hashlib.sha256(key).hexdigest()[:40]}"


def _mark_time(folder: Path, agent: str, session: str) -> int:
    """The time of the session's newest mark in nanoseconds (0: none yet, or older than
    :data:`MARK_SECONDS`): this week's, else last week's (an older one is older than that)."""
    now = time.time_ns()
    for week in (_week(now), _week(now) - 1):
        try:
            stamp = _mark(folder, agent, session, week).stat().st_mtime_ns
        except OSError:
            continue
        return 0 if now - stamp >= MARK_SECONDS * 1e9 else stamp
    return 0


def _held(claim: Path, seconds: float) -> float | None:
    """The age of ``claim`` while it still holds its call (else ``None``): younger than
    ``seconds``, and when a hook server made it, that server alive (a claim not written yet
    holds)."""
    try:
        age = time.time() - claim.stat().st_mtime
        text = claim.read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    if not -seconds < age < seconds:
        return None
    number = text.removeprefix("server ")
    pid = int(number) if number != text and number.isascii() and number.isdigit() else 0
    if pid <= 0 or pid == os.getpid():
        return max(age, 0.0)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except OSError:
        pass  # alive, another user's (a pid taken again)
    return max(age, 0.0)


def prune_claims(state_dir: Path, *, seconds: float = PRUNE_SECONDS, batch: int = PRUNE_BATCH) -> None:
    """Take out up to ``batch`` of the marks that count as none (:func:`prune_marks`), then the
    claims that hold nothing any more (:data:`CLAIM_SECONDS` old) and the oldest past
    :data:`MAX_CLAIMS`: a pass at a time (:func:`prune`), another only while the last one found
    the folder larger than ``batch`` entries and ``seconds`` are not spent. Never raises."""
    started = time.monotonic()
    folder = claims_folder(state_dir)
    prune_marks(marks_folder(state_dir), batch=batch)
    while prune(folder, max_age=CLAIM_SECONDS, max_count=MAX_CLAIMS, batch=batch):
        if time.monotonic() - started >= seconds:
            return


def prune_marks(folder: Path, *, batch: int = PRUNE_BATCH) -> int:
    """Remove up to ``batch`` entries from the marks ``folder``: the marks of the weeks before
    last (their folders once empty) and any file filed outside a week's folder. This week's and
    last week's folders are kept, and are all a pass passes over, so each pass removes ``batch``
    entries while there are that many to remove. The number removed; never raises."""
    current = _week(time.time_ns())
    removed = 0
    try:
        with os.scandir(folder) as found:
            for entry in itertools.islice(found, batch + 2):
                if removed >= batch:
                    break
                name = entry.name
                week = int(name) if name.isascii() and name.isdigit() else None
                try:
                    if not entry.is_dir(follow_symlinks=False):
                        os.unlink(entry.path)
                        removed += 1
                    elif week is not None and week < current - 1:
                        removed += _empty(Path(entry.path), batch - removed)
                except OSError:
                    continue
    except OSError:
        pass
    return removed


def _empty(folder: Path, most: int) -> int:
    """Remove up to ``most`` files of ``folder``, and ``folder`` itself once none are left: the
    number of entries removed (the folder counts as one)."""
    removed = 0
    with os.scandir(folder) as found:
        for entry in itertools.islice(found, most):
            with contextlib.suppress(OSError):
                os.unlink(entry.path)
                removed += 1
    if removed < most:
        with contextlib.suppress(OSError):
            folder.rmdir()
            removed += 1
    return removed


def prune(
    folder: Path, *, keep: Path | None = None, max_age: float, max_count: int, batch: int = PRUNE_BATCH
) -> bool:
    """One pass over at most ``batch`` files of ``folder`` (warm-up markers, claims, session
    marks): remove those that hold nothing any more (``max_age`` seconds old) and the oldest past
    ``max_count`` among them, never ``keep`` (one ranked past ``max_count`` among those read is
    past it in the whole folder too). ``True`` when the folder held more than ``batch`` files and
    this pass removed some: another pass would find others."""
    entries: list[tuple[float, Path]] = []
    seen = 0
    try:
        with os.scandir(folder) as found:
            for entry in itertools.islice(found, batch + 1):
                seen += 1
                if seen > batch:
                    break
                try:
                    entries.append((entry.stat(follow_symlinks=False).st_mtime, Path(entry.path)))
                except OSError:
                    continue
    except OSError:
        return False
    more = seen > batch
    now = time.time()
    removed = 0
    entries.sort(key=lambda found: (found[1] == keep, found[0]), reverse=True)  # newest first
    for rank, (mtime, path) in enumerate(entries):
        if path != keep and (rank >= max_count or now - mtime >= max_age):
            try:
                path.unlink()
            except OSError:
                continue
            removed += 1
    return more and removed > 0
