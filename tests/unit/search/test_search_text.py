"""The tokenisation shared by indexing and queries: CJK bigrams, NFKC, snippets."""

from __future__ import annotations

import pytest

from mini_letta.search.text import build_index_text, build_snippet, parse_query


def test_index_text_splits_a_cjk_run_into_bigrams_and_its_last_character():
    assert build_index_text("我更喜欢").split() == ["我更", "更喜", "喜欢", "欢"]


def test_index_text_separates_cjk_from_latin_without_spaces():
    assert build_index_text("pnpm的lockfile").split() == ["pnpm", "的", "lockfile"]


def test_index_text_folds_full_width_letters_and_case():
    assert build_index_text("ＰＮＰＭ，Lockfile").replace(",", " ").split() == ["pnpm", "lockfile"]


@pytest.mark.parametrize(
    ("query", "strict"),
    [
        ("缩进", '"缩进"'),
        ("包管理器", '"包管 管理 理器"'),
        ("进", '"进"*'),
        ("pnpm 的 lockfile", '"pnpm" AND "lockfile"'),
        ("的", '"的"*'),
        ('say "hi"', '"say" AND "hi"'),
    ],
    ids=["cjk-word", "cjk-long-word", "one-character", "mixed-particle-dropped", "alone", "quotes"],
)
def test_parse_query_builds_the_strict_expression(query, strict):
    parsed = parse_query(query)
    assert parsed is not None
    assert parsed.all_terms == strict


def test_parse_query_loosens_a_long_cjk_run_into_its_bigrams():
    parsed = parse_query("用哪个包")
    assert parsed is not None
    assert parsed.any_term == '"用哪" OR "哪个" OR "个包"'
    assert [token for token, _ in parsed.loose] == ["用哪", "哪个", "个包"]


@pytest.mark.parametrize("query", ["", "   ", "，。！？", "---"])
def test_parse_query_of_nothing_searchable_is_none(query):
    assert parse_query(query) is None


def test_snippet_marks_each_word_found():
    snippet = build_snippet("今天我们决定以后一律用 pnpm 的 lockfile", ("pnpm", "lockfile"))
    assert snippet == "今天我们决定以后一律用 **pnpm** 的 **lockfile**"


def test_snippet_centres_on_the_first_match_of_a_long_text():
    text = "前言" * 200 + "关键的缩进规则" + "后记" * 200
    snippet = build_snippet(text, ("缩进",), width=60)
    assert "**缩进**" in snippet
    assert snippet.startswith("…") and snippet.endswith("…")
    assert len(snippet) < 80
