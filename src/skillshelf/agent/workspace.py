"""The former name of :mod:`skillshelf.agent.folder_tools`, kept so that code written against
it still imports: ``WorkspaceTools`` is :class:`~skillshelf.agent.folder_tools.FolderTools`,
``WorkspaceOutcome`` is ``FolderOutcome``, ``WorkspaceError`` is ``FolderError`` and
``WORKSPACE_TOOLS`` is ``FOLDER_TOOLS``. Importing it warns (``DeprecationWarning``); new code
imports :mod:`skillshelf.agent.folder_tools`."""

from __future__ import annotations

import warnings

from skillshelf.agent.folder_tools import FOLDER_TOOLS as WORKSPACE_TOOLS
from skillshelf.agent.folder_tools import FolderError as WorkspaceError
from skillshelf.agent.folder_tools import FolderOutcome as WorkspaceOutcome
from skillshelf.agent.folder_tools import FolderTools as WorkspaceTools

__all__ = ["WORKSPACE_TOOLS", "WorkspaceError", "WorkspaceOutcome", "WorkspaceTools"]

warnings.warn(
    "skillshelf.agent.workspace is now skillshelf.agent.folder_tools "
    "(WorkspaceTools is FolderTools, WorkspaceOutcome is FolderOutcome)",
    DeprecationWarning,
    stacklevel=2,
)
