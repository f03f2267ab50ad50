"""numpy loaded with its BLAS on one thread, without changing what the commands we run inherit.

numpy's wheels bring OpenBLAS, which starts a thread per core when it loads, and the threads
busy-wait for work, after loading and after every product. The products of a
ranking are small (a query against a thousand skills), so the pool only burns CPU: measured on
two cores with 979 skills, a warm ``skillshelf context`` took 640 ms of CPU and 530 ms of wall
time with the pool, 480 ms and 480 ms without it; a cold build of the MiniLM index (the
largest products skillshelf makes) took 26.7 s with the pool and 29.3 s without, at half the
CPU.

The thread count is read from the environment once, when the library loads, and a process's
environment is inherited by what it starts (the reference agent's shell commands, the hook
server). So :func:`one_blas_thread` sets ``OPENBLAS_NUM_THREADS`` and ``MKL_NUM_THREADS`` to 1
only while ``import numpy`` runs and removes them afterwards. A user who set any of the
variables BLAS libraries read keeps their choice.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import sys
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # importlib.abc would bring importlib.resources: 15 ms of every start
    from importlib.machinery import ModuleSpec
    from types import ModuleType

__all__ = ["THREAD_VARIABLES", "one_blas_thread"]

THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
"""The variables OpenBLAS (the first three, in this order) and MKL read for their thread count."""

_SET = ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def one_blas_thread() -> None:
    """Have this process's first ``import numpy`` load its BLAS on one thread (see the module
    docstring). Does nothing when numpy is already loaded, when the user chose a thread count,
    or when it was already called."""
    if "numpy" in sys.modules or any(name in os.environ for name in THREAD_VARIABLES):
        return
    if not any(isinstance(finder, _NumpyOnOneThread) for finder in sys.meta_path):
        sys.meta_path.insert(0, _NumpyOnOneThread())


class _NumpyOnOneThread:
    """A meta path finder that finds nothing itself: on ``import numpy`` it leaves the path,
    asks the import system for numpy's spec and has its loader run numpy's package code inside
    :func:`_one_thread_environ`."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname != "numpy":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(fullname)  # what the finders after this one find
        if spec is not None:
            _run_on_one_thread(spec)
        return spec


def _run_on_one_thread(spec: ModuleSpec) -> None:
    """Wrap the loader's ``exec_module`` (on this loader object only, and only for this one
    call: the loader keeps its type, so ``importlib.resources`` and the like still work)."""
    loader = spec.loader
    run = getattr(loader, "exec_module", None)
    if loader is None or run is None:
        return

    def exec_module(module: ModuleType) -> None:
        try:
            with _one_thread_environ():
                run(module)
        finally:
            with contextlib.suppress(AttributeError):
                delattr(loader, "exec_module")  # the class's method again

    try:
        setattr(loader, "exec_module", exec_module)  # noqa: B010 (mypy refuses a method assignment)
    except AttributeError:  # a loader with __slots__: numpy loads as it would have
        return


@contextlib.contextmanager
def _one_thread_environ() -> Iterator[None]:
    added = [name for name in _SET if name not in os.environ]
    for name in added:
        os.environ[name] = "1"
    try:
        yield
    finally:
        for name in added:
            os.environ.pop(name, None)
