"""`skillshelf serve` hands the watcher discovery's scan limits, SKILLSHELF_SCAN_MAX_* included."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from skillshelf.cli.main import cli
from skillshelf.serve import mcp_server
from skillshelf.skills.walk import ScanLimits
from testkit import IsolatedHome


class _Built(Exception):
    """Stops `serve` once its server is built."""


def test_serve_watches_within_the_limits_the_environment_raised(
    tmp_path: Path, isolated_home: IsolatedHome, monkeypatch: pytest.MonkeyPatch
) -> None:
    given: list[mcp_server.ServeOptions] = []

    def recording(_library: Any, options: mcp_server.ServeOptions) -> Any:
        given.append(options)
        raise _Built

    monkeypatch.setattr(mcp_server, "build_server", recording)
    with contextlib.chdir(tmp_path), pytest.raises(_Built):
        CliRunner().invoke(
            cli,
            ["serve", "--no-builtin", "--no-cache"],
            env={"SKILLSHELF_SCAN_MAX_DIRS": "9000"},
            catch_exceptions=False,
        )
    [options] = given
    assert options.scan_limits == ScanLimits(max_dirs=9000)
