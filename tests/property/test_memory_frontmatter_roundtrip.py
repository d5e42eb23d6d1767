"""Frontmatter render -> parse round trips, and the fast path always agrees with yaml."""

from __future__ import annotations

import yaml
from hypothesis import given
from hypothesis import strategies as st

from mini_letta.memory.frontmatter import (
    MemoryFile,
    _parse_simple_block,
    parse_memory_file,
    render_memory_file,
)

_TEXT = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
    max_size=40,
)
_DESCRIPTION = _TEXT.map(lambda s: " ".join(s.split())).filter(bool)
_KEY = st.from_regex(r"[a-z][a-z0-9_]{0,10}", fullmatch=True).filter(
    lambda k: k not in ("description", "read_only")
)
_VALUE = st.one_of(
    st.integers(-1000, 1000), st.booleans(), _TEXT, st.lists(st.integers(0, 9), max_size=3)
)
_YAMLISH = st.text(alphabet="ab :#-'\"[]{}!&*?|>%@`,0123.+~<=yesnotrulfNY\t\\\x85", max_size=12)
_BODY = _TEXT.map(lambda s: s.replace("\r", "").replace("\ufeff", ""))


def _printable_yaml(value: object) -> bool:
    try:
        yaml.safe_load(yaml.safe_dump({"k": value}, allow_unicode=True))
    except yaml.YAMLError:
        return False
    return True


@given(
    description=_DESCRIPTION,
    body=_BODY,
    read_only=st.booleans(),
    extra=st.dictionaries(_KEY, _VALUE, max_size=3),
)
def test_frontmatter_render_parse_round_trip(description, body, read_only, extra):
    original = MemoryFile(description, body, read_only, extra)
    assert parse_memory_file(render_memory_file(original), "x.md") == original


@given(description=_DESCRIPTION, body=_BODY, bom=st.booleans(), crlf=st.booleans())
def test_frontmatter_bom_and_crlf_parse_like_lf(description, body, bom, crlf):
    text = render_memory_file(MemoryFile(description, body))
    variant = text.replace("\n", "\r\n") if crlf else text
    if bom:
        variant = "\ufeff" + variant
    assert parse_memory_file(variant, "x.md") == parse_memory_file(text, "x.md")


@given(st.lists(st.tuples(_KEY, st.one_of(_TEXT, _YAMLISH)), min_size=1, max_size=4))
def test_frontmatter_fast_path_agrees_with_yaml(pairs):
    block = "\n".join(f"{key}: {value}" for key, value in pairs)
    fast = _parse_simple_block(block)
    if fast is not None:
        assert fast == yaml.safe_load(block)
