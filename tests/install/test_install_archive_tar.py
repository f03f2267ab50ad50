"""Tar archives: hard links, pax headers, bombs and damage are refused before anything is written."""

from __future__ import annotations

import gzip
import io
import random
import tarfile
from pathlib import Path

import pytest
from install_helpers import SKILL_MD, github_tarball, tree

from skillshelf.errors import InstallError
from skillshelf.install.archive import ArchiveLimits, extract_archive
from testkit import tar_with


def _add(tf: tarfile.TarFile, name: str, data: bytes = b"", **fields: object) -> None:
    info = tarfile.TarInfo(name)
    for key, value in fields.items():
        setattr(info, key, value)
    if info.isreg():
        info.size = len(data)
    tf.addfile(info, io.BytesIO(data) if info.isreg() else None)


def _refused(archive: Path, tmp_path: Path, limits: ArchiveLimits | None = None) -> InstallError:
    target = tmp_path / "out" / "skill"
    target.parent.mkdir(exist_ok=True)
    with pytest.raises(InstallError) as caught:
        extract_archive(archive, target, limits=limits or ArchiveLimits())
    assert "nothing was written" in caught.value.message and caught.value.hint
    assert tree(tmp_path / "out") == []
    return caught.value


def test_hard_link_is_refused(tmp_path: Path) -> None:
    archive = tmp_path / "hard.tar.gz"
    with tarfile.open(archive, "w:gz") as tf:
        _add(tf, "SKILL.md", SKILL_MD)
        _add(tf, "copy.md", type=tarfile.LNKTYPE, linkname="SKILL.md")
    error = _refused(archive, tmp_path)
    assert error.code == "IS203" and "hard link" in error.message


def test_pax_path_record_cannot_smuggle_a_name_out(tmp_path: Path) -> None:
    archive = tmp_path / "pax.tar"
    with tarfile.open(archive, "w", format=tarfile.PAX_FORMAT) as tf:
        _add(tf, "SKILL.md", SKILL_MD)
        _add(tf, "harmless.txt", b"x", pax_headers={"path": "../evil.txt"})
    assert _refused(archive, tmp_path).code == "IS201"
    assert not (tmp_path / "evil.txt").exists()


def test_github_source_tarball_with_a_pax_global_header_keeps_only_its_top_folder(tmp_path: Path) -> None:
    archive = github_tarball(tmp_path / "v1.0.tar.gz", "skills-1.0", {"SKILL.md": SKILL_MD})
    with tarfile.open(archive) as tf:
        assert tf.pax_headers["comment"]  # the header is there, and tarfile folds it in
    assert extract_archive(archive, tmp_path / "out") == ("skills-1.0/SKILL.md",)
    assert tree(tmp_path / "out") == ["skills-1.0", "skills-1.0/SKILL.md"]


def _cut_after_header_of(data: bytes, name: str) -> bytes:
    with tarfile.open(fileobj=io.BytesIO(data)) as tf:
        member = tf.getmember(name)
    return data[: member.offset_data + tarfile.BLOCKSIZE]


def test_declared_sizes_past_the_limit_are_refused_before_the_rest_is_read(tmp_path: Path) -> None:
    whole = io.BytesIO()
    with tarfile.open(fileobj=whole, mode="w") as tf:
        for name, data in (("SKILL.md", SKILL_MD), ("a.bin", bytes(600_000)), ("b.bin", bytes(600_000))):
            _add(tf, name, data)
    archive = tmp_path / "bomb.tar.gz"
    # everything after b.bin's header is missing: reading on would find the archive damaged
    archive.write_bytes(gzip.compress(_cut_after_header_of(whole.getvalue(), "b.bin")))
    assert _refused(archive, tmp_path, ArchiveLimits(max_total_bytes=1_000_000)).code == "IS205"


def test_pax_header_too_large_to_explain_is_refused_before_it_is_decompressed(tmp_path: Path) -> None:
    header = tarfile.TarInfo("PaxHeader")
    header.type, header.size = tarfile.XHDTYPE, 1 << 30
    archive = tmp_path / "pax-bomb.tar.gz"
    archive.write_bytes(gzip.compress(header.tobuf(tarfile.USTAR_FORMAT) + bytes(64 * 1024)))
    assert _refused(archive, tmp_path).code == "IS205"


def test_truncated_tar_gz_is_damaged_and_leaves_nothing(tmp_path: Path) -> None:
    noise = random.Random(7).randbytes(200_000)  # does not compress: the cut falls inside it
    archive = tar_with(tmp_path / "cut.tar.gz", [("SKILL.md", SKILL_MD, None), ("noise.bin", noise, None)])
    archive.write_bytes(archive.read_bytes()[: archive.stat().st_size // 2])
    error = _refused(archive, tmp_path)
    assert error.code == "IS200" and "cut.tar.gz" in error.message and "tar" in error.message


def test_tar_gz_whose_checksum_does_not_match_is_damaged(tmp_path: Path) -> None:
    archive = tar_with(tmp_path / "crc.tar.gz", [("SKILL.md", SKILL_MD, None)])
    data = bytearray(archive.read_bytes())
    data[-8] ^= 0xFF  # gzip's CRC-32 of the whole tar
    archive.write_bytes(bytes(data))
    assert _refused(archive, tmp_path).code == "IS200"


def test_tar_cut_at_a_member_boundary_is_damaged_not_shorter(tmp_path: Path) -> None:
    archive = tar_with(tmp_path / "cut.tar", [("SKILL.md", SKILL_MD, None), ("more.md", b"m", None)], "")
    with tarfile.open(archive) as tf:
        cut = tf.getmember("more.md").offset
    archive.write_bytes(archive.read_bytes()[:cut])
    assert _refused(archive, tmp_path).code == "IS200"


def test_compression_is_told_from_the_content_not_the_name(tmp_path: Path) -> None:
    archive = tar_with(tmp_path / "plain.tar.gz", [("SKILL.md", SKILL_MD, None)], "")
    assert extract_archive(archive, tmp_path / "out") == ("SKILL.md",)
