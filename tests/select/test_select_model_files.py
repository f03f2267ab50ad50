"""Model files are read without copies: MiniLM's safetensors mapped, the static word table stored."""

from __future__ import annotations

import json
import struct
import zipfile
from importlib import resources
from pathlib import Path

import numpy as np

from skillshelf.select.minilm import read_safetensors
from skillshelf.select.static import DATA_FILE, static_vectors


def _safetensors(path: Path, tensors: dict[str, np.ndarray]) -> Path:
    codes = {np.dtype("<f4"): "F32", np.dtype("<f2"): "F16"}
    header: dict[str, object] = {"__metadata__": {"format": "pt"}}
    blob = b""
    for name, array in tensors.items():
        header[name] = {
            "dtype": codes[array.dtype],
            "shape": list(array.shape),
            "data_offsets": [len(blob), len(blob) + array.nbytes],
        }
        blob += array.tobytes()
    head = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(head)) + head + blob)
    return path


def test_safetensors_are_mapped_views_with_encoder_matrices_seen_as_in_by_out(tmp_path: Path) -> None:
    weight = np.arange(6, dtype="<f4").reshape(2, 3)  # stored (out, in)
    table = np.array([[0.5, -1.25], [3.0, 65504.0]], dtype="<f2")
    path = _safetensors(tmp_path / "m.safetensors", {"encoder.w": weight, "embedding": table})
    floats = read_safetensors(path)
    assert floats["encoder.w"].shape == (3, 2) and (floats["encoder.w"] == weight.T).all()
    assert floats["embedding"].dtype == np.float32 and (floats["embedding"] == table.astype(np.float32)).all()
    # a float32 tensor is the file's own bytes, not a copy (nothing read until used)
    assert not floats["encoder.w"].flags.writeable and not floats["encoder.w"].base.flags.owndata


def test_the_static_word_table_is_stored_so_a_start_does_not_inflate_it() -> None:
    data = resources.files("skillshelf.select").joinpath("data", DATA_FILE)
    with data.open("rb") as handle, zipfile.ZipFile(handle) as archive:
        kinds = {info.filename: info.compress_type for info in archive.infolist()}
    assert set(kinds) == {"tokens.npy", "vectors.npy", "scales.npy", "source.npy"}
    assert set(kinds.values()) == {zipfile.ZIP_STORED}
    table = static_vectors()
    assert table.dims == 128 and len(table.vocab) == 30522
