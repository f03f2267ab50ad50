"""The models' document vectors cached on disk: shared by projects, bounded, merged, never fatal."""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from skillshelf.select import vectorcache
from skillshelf.select.index import SkillIndex
from skillshelf.select.semantic import SemanticIndex
from skillshelf.select.vectorcache import cache_file, lookup, save

DIM = 384  # MiniLM's

PROJECT_A = [
    ("cook", "recipes", "Find dinner ideas and step-by-step cooking instructions."),
    ("stocks", "markets", "Quotes, charts and company earnings for equities."),
    ("trips", "travel", "Book flights and hotels for your vacation."),
]
PROJECT_B = [
    ("pdf", "documents", "Merge, split and fill PDF forms."),
    ("flaky", "testing", "Find and fix flaky tests in pytest suites."),
    ("release", "git", "Bump the version, write the changelog and tag a release."),
    ("resize", "images", "Resize, crop and convert images in bulk."),
]


class _FakeModel:
    """Stands in for MiniLM: a fixed unit vector per text, and a count of the texts encoded."""

    def __init__(self) -> None:
        self.texts = 0

    def encode(self, texts: Sequence[str]) -> Any:
        self.texts += len(texts)
        rows = [np.random.default_rng(_seed(t)).standard_normal(DIM) for t in texts]
        out = np.asarray(rows, np.float32).reshape(len(texts), DIM)
        return out / np.linalg.norm(out, axis=1, keepdims=True)

    encode_many = encode


def _seed(text: str) -> int:
    return int.from_bytes(hashlib.sha1(text.encode()).digest()[:8], "little")


def _build(tools: list[tuple[str, str, str]], cache: Path) -> tuple[_FakeModel, Any]:
    model = _FakeModel()
    sem = SemanticIndex.build(SkillIndex.from_tools(tools), cache_dir=cache, encoder=model, words=False)  # type: ignore[arg-type]
    return model, sem.vectors


def _digest(i: int) -> str:
    return hashlib.sha1(str(i).encode()).hexdigest()


def _row(i: int) -> Any:
    return np.full(DIM, i, np.float32)


def test_going_back_to_a_project_encodes_none_of_its_skills_again(tmp_path: Path) -> None:
    first_a, vectors_a = _build(PROJECT_A, tmp_path)
    first_b, vectors_b = _build(PROJECT_B, tmp_path)
    again_a, vectors_a2 = _build(PROJECT_A, tmp_path)
    again_b, vectors_b2 = _build(PROJECT_B, tmp_path)
    assert (first_a.texts, first_b.texts) == (3, 4)
    assert again_a.texts == 0 and again_b.texts == 0
    assert vectors_a2.dtype == np.float32 and vectors_a2.tobytes() == vectors_a.tobytes()
    assert vectors_b2.tobytes() == vectors_b.tobytes()
    assert [p.name for p in (tmp_path / "select").iterdir()] == ["minilm-vectors.bin"]


def test_past_the_capacity_the_least_recently_used_vectors_go(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(vectorcache, "CAPACITY_BYTES", 4 * DIM * 4)  # four vectors
    for i in range(4):
        save(tmp_path, "minilm", DIM, {_digest(i): _row(i)}, used=[_digest(i)], now=100.0 + i)
    save(tmp_path, "minilm", DIM, {}, used=[_digest(0)], now=200.0)  # 0 used again: 1 is the oldest
    save(tmp_path, "minilm", DIM, {_digest(4): _row(4)}, used=[_digest(4)], now=201.0)
    found = lookup(tmp_path, "minilm", DIM, [_digest(i) for i in range(5)])
    assert sorted(found.vectors) == sorted(_digest(i) for i in (0, 2, 3, 4))
    assert (found.vectors[_digest(3)] == 3).all() and found.oldest == 102.0


def test_a_build_keeps_its_own_vectors_even_past_the_capacity(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(vectorcache, "CAPACITY_BYTES", 2 * DIM * 4)
    _build(PROJECT_A, tmp_path)
    _build(PROJECT_B, tmp_path)  # four vectors for room for two: all of this build's stay
    assert _build(PROJECT_B, tmp_path)[0].texts == 0
    assert _build(PROJECT_A, tmp_path)[0].texts == 3


def test_saves_at_once_keep_every_vector(tmp_path: Path) -> None:
    start = threading.Barrier(4)

    def saver(worker: int) -> None:
        start.wait()
        for i in range(worker * 10, worker * 10 + 10):
            save(tmp_path, "minilm", DIM, {_digest(i): _row(i)}, used=[_digest(i)])

    threads = [threading.Thread(target=saver, args=(w,)) for w in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(lookup(tmp_path, "minilm", DIM, [_digest(i) for i in range(40)]).vectors) == 40


def test_a_save_keeps_what_another_process_saved_since_its_lookup(tmp_path: Path) -> None:
    model_a, model_b = _FakeModel(), _FakeModel()
    # both processes look up an empty cache, then save one after the other
    assert not lookup(tmp_path, "minilm", DIM, [_digest(1), _digest(2)]).vectors
    save(tmp_path, "minilm", DIM, {_digest(1): model_a.encode(["a"])[0]}, used=[_digest(1)])
    save(tmp_path, "minilm", DIM, {_digest(2): model_b.encode(["b"])[0]}, used=[_digest(2)])
    assert len(lookup(tmp_path, "minilm", DIM, [_digest(1), _digest(2)]).vectors) == 2


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: data[: len(data) // 2],  # truncated
        lambda data: b"",
        lambda data: b"SKSHIDX\x01" + b"\xff" * 40,
        lambda data: b"SKSHIDX\x01" + (10**5).to_bytes(8, "little") + b"[" * 10**5,  # nested past any limit
        lambda data: bytes(reversed(data)),
    ],
)
def test_a_damaged_cache_file_costs_only_the_encoding_and_is_replaced(tmp_path: Path, damage: Any) -> None:
    _, vectors = _build(PROJECT_A, tmp_path)
    path = cache_file(tmp_path, "minilm")
    path.write_bytes(damage(path.read_bytes()))
    model, again = _build(PROJECT_A, tmp_path)
    assert model.texts == 3 and again.tobytes() == vectors.tobytes()
    assert _build(PROJECT_A, tmp_path)[0].texts == 0


def test_a_fifo_in_place_of_the_cache_file_is_not_waited_on(tmp_path: Path) -> None:
    _, vectors = _build(PROJECT_A, tmp_path)
    path = cache_file(tmp_path, "minilm")
    path.unlink()
    os.mkfifo(path)
    model, again = _build(PROJECT_A, tmp_path)  # without the check: blocks on the FIFO for ever
    assert model.texts == 3 and again.tobytes() == vectors.tobytes()


def test_a_cache_of_another_dimension_is_not_used(tmp_path: Path) -> None:
    save(tmp_path, "minilm", 8, {_digest(1): np.ones(8, np.float32)}, used=[_digest(1)])
    assert not lookup(tmp_path, "minilm", DIM, [_digest(1)]).vectors


def test_an_unwritable_cache_folder_costs_only_the_encoding(tmp_path: Path) -> None:
    (tmp_path / "select").write_text("not a folder", encoding="utf-8")
    first, vectors = _build(PROJECT_A, tmp_path)
    again, vectors2 = _build(PROJECT_A, tmp_path)
    assert first.texts == again.texts == 3 and vectors.tobytes() == vectors2.tobytes()


def test_a_failing_write_leaves_the_cache_as_it_was(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _build(PROJECT_A, tmp_path)

    def refuse(*args: object, **kwargs: object) -> None:
        raise PermissionError(13, "read-only")

    monkeypatch.setattr(vectorcache, "write_file", refuse)
    assert _build(PROJECT_B, tmp_path)[0].texts == 4
    monkeypatch.undo()
    assert _build(PROJECT_A, tmp_path)[0].texts == 0 and _build(PROJECT_B, tmp_path)[0].texts == 4


def test_the_cache_file_of_earlier_versions_is_read_then_replaced(tmp_path: Path) -> None:
    _, vectors = _build(PROJECT_A, tmp_path)
    found = lookup(tmp_path, "minilm", DIM, sorted(_keys(tmp_path)))
    keys = sorted(found.vectors)
    cache_file(tmp_path, "minilm").unlink()
    legacy = tmp_path / "select" / "minilm-vectors.npz"
    with legacy.open("wb") as handle:
        np.savez(handle, keys=np.asarray(keys), vectors=np.stack([found.vectors[k] for k in keys]))
    model, again = _build(PROJECT_A, tmp_path)
    assert model.texts == 0 and again.tobytes() == vectors.tobytes()
    assert not legacy.exists() and cache_file(tmp_path, "minilm").exists()


def test_a_build_that_encodes_nothing_writes_only_to_refresh_old_stamps(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _build(PROJECT_A, tmp_path)
    path = cache_file(tmp_path, "minilm")
    before = path.stat().st_ino
    _build(PROJECT_A, tmp_path)
    assert path.stat().st_ino == before
    monkeypatch.setattr(vectorcache, "REFRESH_SECONDS", -1.0)
    _build(PROJECT_A, tmp_path)
    assert path.stat().st_ino != before


def _keys(cache: Path) -> list[str]:
    from skillshelf.select.indexfile import read_file

    found = read_file(cache_file(cache, "minilm"), vectorcache.FORMAT)
    assert found is not None
    return [k.decode() for k in found[0]["keys"].tolist()]


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_values_inside_the_cache_file_are_encoded_again_and_replaced(
    tmp_path: Path, bad: float
) -> None:
    _, vectors = _build(PROJECT_A, tmp_path)
    path = cache_file(tmp_path, "minilm")
    data = path.read_bytes()
    row = vectors[1].tobytes()
    assert data.count(row) == 1
    damaged = np.asarray(vectors[1]).copy()
    damaged[5:9] = bad
    path.write_bytes(data.replace(row, damaged.tobytes()))  # the size unchanged
    model, again = _build(PROJECT_A, tmp_path)
    assert model.texts == 1 and again.tobytes() == vectors.tobytes()
    assert _build(PROJECT_A, tmp_path)[0].texts == 0  # the next save replaced the damaged vector
