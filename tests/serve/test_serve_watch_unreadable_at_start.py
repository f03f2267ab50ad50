"""A skill root that cannot be read when the folder watch starts (at the first scan, made so
between the scan and the watch, or made unreadable as it appears) is looked at again until it can
be read, then its skills come back: no watch can tell of it. Each case runs in a process bound by
file modes (``watch_unreadable_window.py``), which makes the root readable again only once the
watch has settled with it unreadable."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import testkit

pytestmark = pytest.mark.usefixtures("isolated_home")

RUNNER = Path(__file__).with_name("watch_unreadable_window.py")


def _watched(when: str, base: Path) -> dict[str, list[str]]:
    """The skill names at the scan, once the watch settled with the root unreadable, and after the
    root was made readable again."""
    command = [*testkit.bound_by_file_modes(), sys.executable, str(RUNNER), when, str(base)]
    done = subprocess.run(
        command, capture_output=True, text=True, encoding="utf-8", env=dict(os.environ), timeout=180
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, list[str]] = json.loads(done.stdout)
    return result


def test_a_skill_root_unreadable_at_the_first_scan_has_its_skills_once_it_is_readable(tmp_path: Path) -> None:
    assert _watched("at-scan", tmp_path) == {"at_scan": [], "settled": [], "restored": ["kept"]}


def test_a_skill_root_made_unreadable_before_the_watch_starts_has_its_skills_back_once_it_is_readable(
    tmp_path: Path,
) -> None:
    assert _watched("after-scan", tmp_path) == {"at_scan": ["kept"], "settled": [], "restored": ["kept"]}


def test_a_skill_root_that_appears_unreadable_has_its_skills_once_it_is_readable(tmp_path: Path) -> None:
    assert _watched("as-it-appears", tmp_path) == {"at_scan": [], "settled": [], "restored": ["kept"]}
