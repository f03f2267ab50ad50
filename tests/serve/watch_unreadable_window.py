"""A folder watch (the one `skillshelf serve` and `skillshelf ui` run) over one skill root that
cannot be read around the time the watch starts; run as ``python watch_unreadable_window.py WHEN
BASE`` (under ``testkit.bound_by_file_modes()`` when run by root) by the tests of that window.

``WHEN`` says when the root ``BASE/project/.agents/skills`` (one skill, ``kept``) is made unreadable:
``at-scan`` before the library's first scan, ``after-scan`` after it and before the watch starts,
``as-it-appears`` when it is made (missing at the scan, then moved into place unreadable). Once the
watch has settled with the root unreadable (a pass looked at its folders and found the root
unreadable, and that pass's catch-up found nothing to reload for: no event can tell of the root
from then on) the root is made readable again. Prints one JSON object: the skill names at the
scan, when it settled, and after the root was made readable (waiting up to 30 s for ``kept``)."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from contextlib import suppress
from pathlib import Path

import anyio
import anyio.from_thread
import anyio.to_thread
from serve_helpers import write_skill

from skillshelf.serve import watch, watch_checks
from skillshelf.serve.library import SkillLibrary
from skillshelf.skills.discover import discover_in

WAIT_S = 30.0


def _run(when: str, base: Path) -> dict[str, object]:
    project = base / "project"
    root = project / ".agents" / "skills"
    staged = base / "staged" / ".agents"
    project.mkdir(parents=True)
    write_skill(staged / "skills" if when == "as-it-appears" else root, "kept", "d", "b")
    if when == "at-scan":
        root.chmod(0)
    library = SkillLibrary.from_discover(lambda: discover_in([root]))
    if when == "after-scan":
        root.chmod(0)
    settled, unread_seen, watching = anyio.Event(), [False], anyio.Event()
    real_unlistable, real_changed_since = watch_checks.unlistable, watch_checks.changed_since

    def unlistable(folders: Iterable[Path]) -> frozenset[Path]:
        found = real_unlistable(folders)
        unread_seen[0] = root in found  # this pass found the root unreadable
        return found

    def changed_since(folders: Iterable[Path], roots: Iterable[Path], since_ns: int) -> bool:
        changed = real_changed_since(folders, roots, since_ns)
        anyio.from_thread.run_sync(watching.set)
        if unread_seen[0] and not changed:  # the pass's catch-up: nothing to reload for
            anyio.from_thread.run_sync(settled.set)
        return changed

    vars(watch).update(unlistable=unlistable, changed_since=changed_since)  # the names watch.py calls

    def names() -> list[str]:
        return sorted(skill.name for skill in library.skills)

    out: dict[str, object] = {"at_scan": names()}

    async def reload() -> None:
        await anyio.to_thread.run_sync(library.reload)

    async def main() -> None:
        async with anyio.create_task_group() as group:
            group.start_soon(lambda: watch.watch_folders(library, reload, 50, since_ns=library.scanned_ns))
            if when == "as-it-appears":
                with anyio.fail_after(WAIT_S):
                    await watching.wait()  # the watch of the project for the root is in place
                (staged / "skills").chmod(0)
                staged.rename(project / ".agents")
            with anyio.fail_after(WAIT_S):
                await settled.wait()
            out["settled"] = names()
            root.chmod(0o755)  # no watch sees this
            with anyio.move_on_after(WAIT_S):
                while names() != ["kept"]:
                    await anyio.sleep(0.05)
            out["restored"] = names()
            group.cancel_scope.cancel()

    try:
        anyio.run(main)
    finally:
        with suppress(FileNotFoundError):
            root.chmod(0o755)
    return out


if __name__ == "__main__":
    print(json.dumps(_run(sys.argv[1], Path(sys.argv[2]))))
