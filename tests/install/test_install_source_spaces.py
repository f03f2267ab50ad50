"""Reading SOURCE around spaces: a local name that starts or ends with one is taken as given."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillshelf.errors import InstallError
from skillshelf.install.sources import parse_source


def test_a_folder_whose_name_ends_in_a_space_is_taken_as_given(tmp_path: Path) -> None:
    folder = tmp_path / "src" / "tool "
    folder.mkdir(parents=True)
    (tmp_path / "src" / "plain").mkdir()
    source = parse_source(str(folder), cwd=tmp_path)
    assert (source.kind, source.location, source.subdir) == ("folder", str(folder), None)
    assert parse_source("src/tool ", cwd=tmp_path).location == str(folder)
    # a pasted path whose spaces name nothing is still read without them
    assert parse_source(f"  {tmp_path / 'src' / 'plain'}\n", cwd=tmp_path).location == str(
        tmp_path / "src" / "plain"
    )


def test_a_subfolder_whose_name_ends_in_a_space_is_taken_as_given(tmp_path: Path) -> None:
    (tmp_path / "src" / "tool ").mkdir(parents=True)
    (tmp_path / "src" / "plain").mkdir()
    (tmp_path / "out ").mkdir()
    source = parse_source(f"{tmp_path / 'src'}#tool ", cwd=tmp_path)
    assert (source.kind, source.location, source.subdir) == ("folder", str(tmp_path / "src"), "tool ")
    assert parse_source(f"{tmp_path / 'src'}#plain ", cwd=tmp_path).subdir == "plain"
    with pytest.raises(InstallError) as caught:  # spaces kept, and still confined to the source
        parse_source(f"{tmp_path / 'src'}#../out ", cwd=tmp_path)
    assert caught.value.code == "IS102"
