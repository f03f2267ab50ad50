"""Tokenisation: Codex's rules and skillshelf's analysis."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from skillshelf.select.tokenize import (
    cap_bytes,
    char_grams,
    codex_terms,
    codex_words,
    is_cjk,
    stem,
    terms,
    words,
)


def test_codex_words_are_unicode_alphanumeric_runs() -> None:
    assert codex_words("Déjà-vu: PDF_2x, 日本語!") == ["déjà", "vu", "pdf", "2x", "日本語"]
    assert codex_terms("Please use the PDF tool for me, a b") == ["pdf", "tool"]
    assert codex_terms("pdf pdf docs", distinct=True, limit=1) == ["pdf"]


def test_identifiers_split_at_case_and_digit_boundaries() -> None:
    assert words("PDFMerger") == ["pdfmerger", "pdf", "merger"]
    assert words("camelCase") == ["camelcase", "camel", "case"]
    assert words("mp4 x264") == ["mp4", "mp", "4", "x264", "x", "264"]


def test_a_cjk_run_gives_its_character_pairs_as_terms() -> None:
    assert words("帮我搜索新闻") == ["帮我搜索新闻", "帮我", "我搜", "搜索", "索新", "新闻"]
    assert set(terms("帮我搜索一下最近的新闻")) & set(terms("搜索新闻和网页")) == {"搜索", "新闻"}
    assert words("강남역에서") == ["강남역에서", "강남", "남역", "역에", "에서"]
    assert words("検索エンジン") == ["検索エンジン", "検索", "索エ", "エン", "ンジ", "ジン"]
    # Latin pieces inside a run keep their own forms; a run of two characters is its own pair
    mixed = ["用unifiedsearch搜索", "用", "unifiedsearch", "unified", "search", "搜索"]
    assert words("用UnifiedSearch搜索") == mixed


def test_cjk_terms_are_told_from_the_others() -> None:
    assert all(is_cjk(t) for t in ("搜索", "新", "帮我搜索新闻", "강남", "エン", "用unifiedsearch搜索"))
    assert not any(is_cjk(t) for t in ("search", "unified", "déjà", "2x", ""))
    assert words("搜索") == ["搜索"] and terms("云") == []


@given(st.text(alphabet=st.characters(min_codepoint=0x4E00, max_codepoint=0x4E80), min_size=2, max_size=30))
def test_every_pair_of_a_cjk_run_is_a_term(run: str) -> None:
    found = set(terms(run))
    assert {run[i : i + 2] for i in range(len(run) - 1)} <= found and run in found


def test_stemmer_meets_common_inflections() -> None:
    assert {stem(w) for w in ("convert", "converting", "converted", "converts")} == {"convert"}
    assert stem("spreadsheets") == stem("spreadsheet")
    assert stem("queries") == stem("query")
    assert stem("running") == stem("run")
    assert stem("naïve") == "naïve" and stem("pdf") == "pdf"
    assert terms("The files were merged") == [stem("merged")]


def test_char_grams_follow_codex_sizes() -> None:
    assert char_grams("abcd") == ["abc", "bcd", "abcd"]
    assert char_grams("ab") == ["ab"]
    assert "日本" in char_grams("日本語")


@given(st.text(max_size=300), st.integers(min_value=0, max_value=400))
def test_cap_bytes_cuts_on_a_character_boundary(text: str, limit: int) -> None:
    cut = cap_bytes(text, limit)
    assert len(cut.encode("utf-8")) <= limit and text.startswith(cut)


@given(st.text(max_size=200))
def test_analysis_is_deterministic_and_total(text: str) -> None:
    assert terms(text) == terms(text)
    assert all(t for t in terms(text))


def test_the_word_cache_stays_bounded_and_never_changes_an_answer() -> None:
    from skillshelf.select.tokenize import WordCache, _terms_of

    cache = WordCache(_terms_of, limit=3)
    runs = ["PDFMerger", "converting", "the", "Spreadsheets", "PDFMerger", "v2Api"]
    assert [cache[r] for r in runs] == [_terms_of(r) for r in runs]
    assert len(cache) <= 3 and cache["PDFMerger"] == ("pdfmerger", "pdf", "merger")
