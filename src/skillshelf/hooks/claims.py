"""Each hook call answered once: a claim per agent, event and input in the state folder.

Codex runs every hook set that names the event (skillshelf set up at both project and user
scope: two), at the same time, each on the same input byte for byte (0.171.0, measured). The
first process to claim the call in the state folder's ``hooks/claims/`` answers it
(:func:`first_call`); another with the same input within :data:`CLAIM_SECONDS` answers empty
and does nothing else. The input names its session and, where one call differs from the next,
its turn (``turn_id`` / ``prompt_id``), prompt and tool call (``tool_use_id``), so two
different calls never share a claim; one naming no turn (a session's start or end, which a
resume sends again byte for byte) is claimed only for :data:`UNTURNED_CLAIM_SECONDS`.

Claiming never looks at the other claims. Old ones are taken out by :func:`prune_claims`, which
the hook calls after its answer is written (the hook server: after it is sent), with bounded
work: one pass reads at most :data:`PRUNE_BATCH` entries of the folder, and further passes run
only while the folder held more and :data:`PRUNE_SECONDS` are not spent. A folder of any size
never delays an answer, and one grown huge (200,000 stale claims) shrinks by thousands of
files a call.
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
    "UNTURNED_CLAIM_SECONDS",
    "first_call",
    "prune",
    "prune_claims",
]

CLAIMS = "claims"  # one file per hook call answered lately, under the state folder's hooks/
#: How long the claim of an input naming its turn or tool call (``turn_id``, ``prompt_id``,
#: ``tool_use_id``) holds: both hook sets start within the agents' 10 s hook timeout of each
#: other, and such an input is never sent again for another call.
CLAIM_SECONDS = 60.0
#: How long the claim of an input naming no turn holds (``SessionStart``, ``SessionEnd``):
#: ``claude -p --resume ID`` and ``codex exec resume --last`` send the same input byte for byte
#: on each resume, so a claim held longer would leave a session resumed again soon after
#: without its context; the two hook sets Codex runs for one call (both scopes) start at the
#: same moment, well within this.
UNTURNED_CLAIM_SECONDS = 10.0
MAX_CLAIMS = 512
#: Entries one pruning pass reads at most (more than :data:`MAX_CLAIMS`, so that a pass over a
#: folder past its cap always finds some to remove).
PRUNE_BATCH = 1024
#: Further passes of one call stop once this is spent (the first pass always runs).
PRUNE_SECONDS = 0.2


def claims_folder(state_dir: Path) -> Path:
    return state_dir / "hooks" / CLAIMS


def first_call(agent: str, event: str, raw: bytes, state_dir: Path, *, served: bool, seconds: float) -> bool:
    """Whether this process is the first to take the hook call ``raw`` (an input naming a
    session): its claim file made with ``O_EXCL`` (a hook server's names its pid); one older than
    ``seconds``, or left by a hook server that is gone (stopped while it had the call,
    which the hook then answers itself), is replaced. A hook process's claim holds even after
    it ended: the agent may run the second hook set after the first. ``True`` too when the
    claim cannot be written: the call is answered as if alone."""
    key = b"\0".join([agent.encode(), event.encode(), raw.strip()])
    folder = claims_folder(state_dir)
    claim = folder / hashlib.sha256(key).hexdigest()[:40]
    try:
        private_dir(folder)
    except OSError:
        return True
    for _ in range(2):
        try:
            handle = os.open(claim, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            if _held(claim, seconds):
                return False
            with contextlib.suppress(OSError):
                claim.unlink()
            continue
        except OSError:
            return True
        with contextlib.suppress(OSError):
            os.write(handle, f"server {os.getpid()}".encode("ascii") if served else b"hook")
        os.close(handle)
        return True
    return True


def _held(claim: Path, seconds: float) -> bool:
    """Whether ``claim`` still holds its call: younger than ``seconds``, and when a hook server
    made it, that server alive (a claim not written yet holds)."""
    try:
        age = time.time() - claim.stat().st_mtime
        text = claim.read_text(encoding="ascii", errors="replace")
    except OSError:
        return False
    if not -seconds < age < seconds:
        return False
    number = text.removeprefix("server ")
    pid = int(number) if number != text and number.isascii() and number.isdigit() else 0
    if pid <= 0 or pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # alive, another user's (a pid taken again)
    return True


def prune_claims(state_dir: Path, *, seconds: float = PRUNE_SECONDS, batch: int = PRUNE_BATCH) -> None:
    """Take out the claims that hold nothing any more (:data:`CLAIM_SECONDS` old) and the oldest
    past :data:`MAX_CLAIMS`: a pass at a time (:func:`prune`), another only while the last
    one found the folder larger than ``batch`` entries and ``seconds`` are not spent. Never
    raises."""
    started = time.monotonic()
    folder = claims_folder(state_dir)
    while prune(folder, max_age=CLAIM_SECONDS, max_count=MAX_CLAIMS, batch=batch):
        if time.monotonic() - started >= seconds:
            return


def prune(
    folder: Path, *, keep: Path | None = None, max_age: float, max_count: int, batch: int = PRUNE_BATCH
) -> bool:
    """One pass over at most ``batch`` files of ``folder`` (warm-up markers, claims): remove
    those that hold nothing any more (``max_age`` seconds old) and the oldest past ``max_count``
    among them, never ``keep`` (one ranked past ``max_count`` among those read is past it in the
    whole folder too). ``True`` when the folder held more than ``batch`` files and this pass
    removed some: another pass would find others."""
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
    entries.sort(key=lambda found: (found[1] == keep, found[0]), reverse=True)  # newest first
    removed = 0
    for rank, (mtime, path) in enumerate(entries):
        if path != keep and (rank >= max_count or now - mtime >= max_age):
            try:
                path.unlink()
            except OSError:
                continue
            removed += 1
    return more and removed > 0
