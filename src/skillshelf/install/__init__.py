"""skillshelf.install: install, update and remove skills; the lock file; MCP dependencies.

- :func:`install_skill` fetches a folder, git URL (``@ref``, ``#subdir``) or ``.zip``/``.skill``
  archive, validates it, and moves it into a skills root in one rename; :func:`install_all`
  installs every skill of a source that holds several, each on its own;
- :func:`update_skills` / :func:`remove_skill` work from the lock file (:func:`read_lock`);
- :func:`installed_provenance` tells ``list`` where each installed skill came from;
- :mod:`skillshelf.install.deps` checks the MCP servers skills declare.
"""

from skillshelf.install.installer import InstallResult, install_skill, installed_skill_root, skills_root_for
from skillshelf.install.lock import Lock, LockEntry, content_hash, read_lock, write_lock
from skillshelf.install.manage import RemoveResult, UpdateResult, list_installed, remove_skill, update_skills
from skillshelf.install.many import InstallAllResult, NotInstalled, install_all
from skillshelf.install.provenance import InstalledInfo, installed_provenance

__all__ = [
    "InstallAllResult",
    "InstallResult",
    "InstalledInfo",
    "Lock",
    "LockEntry",
    "NotInstalled",
    "RemoveResult",
    "UpdateResult",
    "content_hash",
    "install_all",
    "install_skill",
    "installed_provenance",
    "installed_skill_root",
    "list_installed",
    "read_lock",
    "remove_skill",
    "skills_root_for",
    "update_skills",
    "write_lock",
]
