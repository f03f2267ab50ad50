"""A BPE tokenizer file parsed and compiled once, then read from the cache folder until it changes."""

from __future__ import annotations

import json
import marshal
import os
from array import array
from pathlib import Path

import pytest

from skillshelf.select import modelcache
from skillshelf.select.bpe import BpeTables, compile_tables
from skillshelf.select.modelcache import bpe_tables

VOCAB = {"▁": 0, "a": 1, "b": 2, "▁a": 3, "ab": 4}


def _compiled(merges: list[str]) -> BpeTables:
    return compile_tables(VOCAB, merges)


def _tokenizer(path: Path, merges: list[object]) -> Path:
    path.write_text(
        json.dumps({"model": {"type": "BPE", "vocab": VOCAB, "merges": merges}}), encoding="utf-8"
    )
    return path


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    calls: list[Path] = []
    real = modelcache._parsed

    def counting(path: Path) -> BpeTables:
        calls.append(path)
        return real(path)

    monkeypatch.setattr(modelcache, "_parsed", counting)
    return calls


def test_the_second_load_reads_the_cache_not_the_json(tmp_path: Path, parses: list[Path]) -> None:
    source = _tokenizer(tmp_path / "tok.json", ["▁ a", "a b"])
    first = bpe_tables(source, tmp_path / "cache")
    assert bpe_tables(source, tmp_path / "cache") == first == _compiled(["▁ a", "a b"])
    assert parses == [source] and list((tmp_path / "cache" / "select").glob("bpe-*.marshal"))


def test_pairs_of_newer_files_are_read_as_spaced_merges(tmp_path: Path) -> None:
    source = _tokenizer(tmp_path / "tok.json", [["▁", "a"], ["a", "b"]])
    assert bpe_tables(source, tmp_path / "cache") == _compiled(["▁ a", "a b"])


def test_a_changed_tokenizer_file_is_parsed_again(tmp_path: Path, parses: list[Path]) -> None:
    source = _tokenizer(tmp_path / "tok.json", ["▁ a", "a b"])
    bpe_tables(source, tmp_path / "cache")
    _tokenizer(source, ["a b"])
    os.utime(source, ns=(1, 1))
    assert bpe_tables(source, tmp_path / "cache") == _compiled(["a b"]) and len(parses) == 2


def test_a_damaged_cache_is_parsed_again_and_rewritten(tmp_path: Path, parses: list[Path]) -> None:
    source = _tokenizer(tmp_path / "tok.json", ["▁ a"])
    bpe_tables(source, tmp_path / "cache")
    (cached,) = (tmp_path / "cache" / "select").glob("bpe-*.marshal")
    good = marshal.loads(cached.read_bytes())
    unsorted = array("q", [2, 1]).tobytes()
    junks = [
        b"\x00garbage",
        marshal.dumps(({"a": "not an id"}, ["x"])),
        marshal.dumps((good[0], unsorted, unsorted, *good[3:])),  # bisection needs sorted pairs
        marshal.dumps(({"a": -5}, *good[1:])),  # an id no vocabulary holds
        marshal.dumps((good[0], good[1], b"", *good[3:])),
    ]
    for junk in junks:
        cached.write_bytes(junk)
        assert bpe_tables(source, tmp_path / "cache") == _compiled(["▁ a"])
    assert len(parses) == 1 + len(junks)
    assert bpe_tables(source, tmp_path / "cache") == _compiled(["▁ a"]) and len(parses) == 1 + len(junks)


def test_an_unwritable_cache_folder_costs_only_the_parse(tmp_path: Path) -> None:
    source = _tokenizer(tmp_path / "tok.json", ["▁ a"])
    blocker = tmp_path / "blocker"
    blocker.write_text("a file where the cache folder would be", encoding="utf-8")
    assert bpe_tables(source, blocker / "cache") == _compiled(["▁ a"])


def test_a_file_that_is_not_bpe_is_refused(tmp_path: Path) -> None:
    source = tmp_path / "tok.json"
    source.write_text(json.dumps({"model": {"type": "WordPiece", "vocab": VOCAB}}), encoding="utf-8")
    with pytest.raises(ValueError):
        bpe_tables(source, tmp_path / "cache")
    source.write_text(
        json.dumps({"model": {"type": "BPE", "vocab": {"a": "x"}, "merges": []}}), encoding="utf-8"
    )
    with pytest.raises(TypeError):
        bpe_tables(source, tmp_path / "cache")


def test_wordllama_with_its_tokenizer_cached_encodes_bit_for_bit_the_same(tmp_path: Path) -> None:
    from skillshelf.select.wordllama import WordLlama

    texts = ["Make a bar chart of monthly sales", "résumé naïve 说明 tabs\tand\nnewlines", ""]
    plain = WordLlama().encode(texts)
    WordLlama(cache_dir=tmp_path)  # writes the cache
    cached = WordLlama(cache_dir=tmp_path)
    assert list((tmp_path / "select").glob("bpe-*.marshal"))
    assert cached.encode(texts).tobytes() == plain.tobytes()


def test_a_merge_outside_the_vocabulary_is_refused(tmp_path: Path) -> None:
    source = _tokenizer(tmp_path / "tok.json", ["a z"])
    with pytest.raises(ValueError):
        bpe_tables(source, tmp_path / "cache")
