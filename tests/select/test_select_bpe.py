"""The BPE encoder gives the ids of the ``tokenizers`` package for WordLlama's vocabulary."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillshelf.select import bpe, wordllama
from skillshelf.select.bpe import SPACE, BytePairEncoder
from testkit import SHARED, missing


@pytest.fixture(scope="module")
def pair() -> tuple[BytePairEncoder, Any]:
    folder = wordllama.package_dir()
    if folder is None:
        missing("the wordllama package, a dependency of skillshelf, is not installed")
    assert folder is not None
    from tokenizers import Tokenizer  # installed with wordllama: the reference implementation

    reference = Tokenizer.from_file(str(folder / wordllama.TOKENIZER))
    reference.no_padding()
    reference.no_truncation()
    model = json.loads((folder / wordllama.TOKENIZER).read_text(encoding="utf-8"))["model"]
    return BytePairEncoder.from_model(model["vocab"], model["merges"]), reference


def _same(pair: tuple[BytePairEncoder, Any], text: str) -> None:
    ours, reference = pair
    assert ours.ids(text) == reference.encode(text, add_special_tokens=False).ids, repr(text)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "merge two PDF files",
        "  leading and   repeated spaces ",
        "tabs\tand\nnew\n\nlines",
        "camelCaseIdentifiers and snake_case_names, kebab-case too",
        "Ünïcödé, emoji 🚀, 中文字符 and a lone \u00ad soft hyphen",
        "if (x) { return y; } // code\n    indented",
        "x" * 600,
    ],
)
def test_ids_equal_the_tokenizers_package(pair: tuple[BytePairEncoder, Any], text: str) -> None:
    _same(pair, text)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=120))
def test_ids_equal_the_tokenizers_package_for_any_text(pair: tuple[BytePairEncoder, Any], text: str) -> None:
    if "<s>" in text or "</s>" in text or "<unk>" in text:
        return  # special tokens: the reference matches them before tokenising, we never emit them
    _same(pair, text)


def test_ids_equal_the_tokenizers_package_on_real_skills(pair: tuple[BytePairEncoder, Any]) -> None:
    corpora = SHARED / "corpora"
    if not corpora.is_dir():
        missing("../shared/corpora")
    files = sorted(corpora.rglob("SKILL.md"))[:200]
    assert files
    for path in files:
        _same(pair, path.read_text(encoding="utf-8", errors="replace")[:4000])


def test_a_character_outside_the_vocabulary_becomes_its_bytes() -> None:
    vocab = {"<0xC3>": 0, "<0xA9>": 1, SPACE: 2, "a": 3, f"{SPACE}a": 4}
    enc = BytePairEncoder.from_model(vocab, [f"{SPACE} a"])
    assert enc.ids("a é") == [4, 2, 0, 1]


@pytest.mark.parametrize("dict_after", [0, 10**9])
def test_pairs_by_bisection_and_by_dictionary_give_the_same_ids(
    pair: tuple[BytePairEncoder, Any], dict_after: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = wordllama.package_dir()
    assert folder is not None
    model = json.loads((folder / wordllama.TOKENIZER).read_text(encoding="utf-8"))["model"]
    monkeypatch.setattr(bpe, "DICT_AFTER", dict_after)
    fresh = BytePairEncoder.from_model(model["vocab"], model["merges"])
    texts = ["Merge two PDF files and rotate page 3", "résumé naïve 说明 tabs\tand\nnewlines 🚀", "x" * 300]
    for text in texts:
        assert fresh.ids(text) == pair[1].encode(text, add_special_tokens=False).ids
    assert (fresh._pair_dict is not None) is (dict_after == 0)
