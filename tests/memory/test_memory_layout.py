"""Memory folder names: a readable stem plus a digest of the project root's bytes."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from skillshelf.memory.layout import GLOBAL_SCOPE, project_scope, scope_dir


def test_a_utf8_root_keeps_the_memory_folder_it_always_had(tmp_path: Path) -> None:
    # digests written by earlier releases: the folders of existing memories must not move
    assert scope_dir(tmp_path, project_scope("/home/me/proj")) == tmp_path / "memories" / "proj-4c3b4937dd"
    assert scope_dir(tmp_path, project_scope("/home/me/café")) == tmp_path / "memories" / "caf-cac2ab92b2"
    assert scope_dir(tmp_path, GLOBAL_SCOPE) == tmp_path / "memories" / "global"


def test_a_root_that_is_not_utf8_has_the_digest_of_its_bytes(tmp_path: Path) -> None:
    root = os.fsdecode(b"/srv/bad\xffdir")
    other = os.fsdecode(b"/srv/bad\xfedir")
    folder = scope_dir(tmp_path, project_scope(root))
    assert folder.name == "bad-dir-" + hashlib.sha256(b"/srv/bad\xffdir").hexdigest()[:10]
    assert scope_dir(tmp_path, project_scope(root)) == folder
    assert scope_dir(tmp_path, project_scope(other)) != folder


def test_a_scope_with_a_surrogate_no_file_name_can_hold_still_has_a_folder(tmp_path: Path) -> None:
    folder = scope_dir(tmp_path, project_scope("/srv/odd\ud800dir"))
    assert folder.parent == tmp_path / "memories" and folder.name.startswith("odd-dir-")
