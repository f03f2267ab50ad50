"""The wheel: it builds, and carries the data files the package reads at run time."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

from testkit import REPO


def test_the_wheel_builds_and_carries_the_package_data(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(REPO), "--no-deps", "-q", "-w", str(tmp_path)],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    (wheel,) = tmp_path.glob("skillshelf-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    builtin = REPO / "src" / "skillshelf" / "skills" / "builtin" / "data"
    expected = {
        f"skillshelf/skills/builtin/data/{p.relative_to(builtin).as_posix()}"
        for p in builtin.rglob("*")
        if p.is_file()
    }
    expected |= {"skillshelf/select/data/static_vectors.npz", "skillshelf/select/data/NOTICE"}
    expected |= {f"skillshelf/serve/ui/static/{name}" for name in ("index.html", "app.js", "app.css")}
    assert expected <= names
