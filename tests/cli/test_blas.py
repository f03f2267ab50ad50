"""numpy's BLAS loads on one thread under the command, and the environment is left as it was."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from skillshelf.cli.blas import THREAD_VARIABLES
from testkit import REPO

PROBE = """
import importlib.resources, os, sys
from skillshelf.cli.blas import one_blas_thread
one_blas_thread()
one_blas_thread()
import numpy
loader = numpy.__spec__.loader
print(numpy.SEEN)
print(os.environ.get("OPENBLAS_NUM_THREADS", "-"), os.environ.get("MKL_NUM_THREADS", "-"))
print(type(loader).__name__, "exec_module" in vars(loader), len(sys.meta_path))
print(importlib.resources.files("numpy").joinpath("__init__.py").is_file())
"""


def _probe(tmp_path: Path, **environ: str) -> list[str]:
    """Run :data:`PROBE` against a stand-in ``numpy`` that records the variables it loads under."""
    package = tmp_path / "numpy"
    package.mkdir(exist_ok=True)
    (package / "__init__.py").write_text(
        "import os\n"
        "SEEN = ' '.join(os.environ.get(n, '-') for n in ('OPENBLAS_NUM_THREADS', 'MKL_NUM_THREADS'))\n",
        encoding="utf-8",
    )
    clean = {k: v for k, v in os.environ.items() if k not in THREAD_VARIABLES}
    path = os.pathsep.join([str(tmp_path), str(REPO / "src")])
    done = subprocess.run(
        [sys.executable, "-c", PROBE],
        capture_output=True,
        text=True,
        encoding="utf-8",
        env={**clean, "PYTHONPATH": path, **environ},
        check=True,
        timeout=60,
    )
    return done.stdout.splitlines()


def test_numpy_loads_with_one_blas_thread_and_the_variables_are_gone_afterwards(tmp_path: Path) -> None:
    seen, after, loader, resources = _probe(tmp_path)
    assert seen == "1 1"
    assert after == "- -"
    name, patched, finders = loader.split()
    assert name == "SourceFileLoader" and patched == "False"
    assert int(finders) == len(_meta_path_of_a_fresh_interpreter())
    assert resources == "True"


def test_a_thread_count_the_user_chose_is_left_alone(tmp_path: Path) -> None:
    assert _probe(tmp_path, OMP_NUM_THREADS="3")[:2] == ["- -", "- -"]
    assert _probe(tmp_path, OPENBLAS_NUM_THREADS="4")[:2] == ["4 -", "4 -"]


def _meta_path_of_a_fresh_interpreter() -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", "import sys; print(*(type(f).__name__ for f in sys.meta_path))"],
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=True,
        timeout=60,
    )
    return done.stdout.split()
