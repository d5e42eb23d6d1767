"""The one frontmatter parser/renderer: accepted shapes, refused shapes, preserved keys."""

from __future__ import annotations

import pytest

from mini_letta.errors import FrontmatterError
from mini_letta.memory.frontmatter import (
    MemoryFile,
    decode_memory_bytes,
    parse_memory_file,
    render_memory_file,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("---\ndescription: Notes\n---\nbody\n", MemoryFile("Notes", "body\n")),
        (
            "\ufeff---\r\ndescription: Notes\r\n---\r\nline 1\r\nline 2\r\n",
            MemoryFile("Notes", "line 1\nline 2\n"),
        ),
        ("---\rdescription: Notes\r---\rbody\r", MemoryFile("Notes", "body\n")),
        ("---\ndescription: Notes\n---", MemoryFile("Notes", "")),
        (
            "---\ndescription: 用户的偏好\nread_only: true\n---\n正文\n",
            MemoryFile("用户的偏好", "正文\n", True),
        ),
        (
            "---\ndescription: 'quoted: yes'\nlimit: 5000\n---\n",
            MemoryFile("quoted: yes", "", False, {"limit": 5000}),
        ),
        ("---\ndescription: >\n  folded text\n---\nb\n", MemoryFile("folded text", "b\n")),
        ("---\ndescription:   padded   \nread_only: false\n---\n", MemoryFile("padded", "")),
        (
            "---\ndescription: x\n---\n---\nnot frontmatter\n",
            MemoryFile("x", "---\nnot frontmatter\n"),
        ),
    ],
    ids=[
        "plain",
        "bom-crlf",
        "old-mac-cr",
        "no-trailing-newline",
        "cjk-read-only",
        "quoted-and-unknown-key",
        "folded",
        "padded",
        "body-with-fence",
    ],
)
def test_frontmatter_parse_accepts(text, expected):
    assert parse_memory_file(text, "system/x.md") == expected


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("no frontmatter\n", "missing frontmatter"),
        ("", "missing frontmatter"),
        ("---\ndescription: x\n", "never closed"),
        ("---", "never closed"),
        ("---\n---\nbody", "missing 'description'"),
        ("---\ntitle: x\n---\n", "missing 'description'"),
        ("---\ndescription: ''\n---\n", "must not be empty"),
        ("---\ndescription:\n---\n", "missing 'description'"),
        ("---\ndescription: [a, b]\n---\n", "must be text"),
        ("---\ndescription: |\n  two\n  lines\n---\n", "single line"),
        ("---\n- a\n- b\n---\n", "YAML mapping"),
        ("---\njust words\n---\n", "YAML mapping"),
        ("---\ndescription: [unclosed\n---\n", "invalid YAML"),
        ("---\ndescription: x\nread_only: maybe\n---\n", "'read_only' must be true or false"),
    ],
    ids=[
        "no-fence",
        "empty-file",
        "unterminated",
        "only-fence",
        "empty-block",
        "no-description",
        "empty-description",
        "null-description",
        "list-description",
        "multiline-description",
        "list-block",
        "scalar-block",
        "bad-yaml",
        "bad-read-only",
    ],
)
def test_frontmatter_parse_refuses(text, needle):
    with pytest.raises(FrontmatterError) as caught:
        parse_memory_file(text, "system/x.md")
    assert needle in str(caught.value)
    assert str(caught.value).startswith("system/x.md: ")
    assert "\n" not in str(caught.value)


def test_frontmatter_render_keeps_unknown_keys_and_order():
    text = "---\ndescription: d\nlimit: 10\nname: skill-x\ntags: [a, b]\n---\nbody\n"
    parsed = parse_memory_file(text, "x.md")
    assert parsed.extra == {"limit": 10, "name": "skill-x", "tags": ["a", "b"]}
    rendered = render_memory_file(parsed)
    assert rendered.index("limit") < rendered.index("name") < rendered.index("tags")
    assert parse_memory_file(rendered, "x.md") == parsed


def test_frontmatter_render_is_lf_and_plain_for_simple_values():
    rendered = render_memory_file(MemoryFile("What I know", "line\n", True))
    assert rendered == "---\ndescription: What I know\nread_only: true\n---\nline\n"


@pytest.mark.parametrize(
    "description",
    ["yes", "null", "123", "a: b", "x #y", "- item", "'quoted'", "back\\slash", "[list]", "~"],
)
def test_frontmatter_render_quotes_what_yaml_would_misread(description):
    rendered = render_memory_file(MemoryFile(description, ""))
    assert parse_memory_file(rendered, "x.md").description == description


@pytest.mark.parametrize(
    ("data", "needle"),
    [(b"\xff\xfe-\x00", "UTF-16"), (b"---\x00", "NUL"), (b"---\n\xc3(", "not valid UTF-8")],
    ids=["utf16", "nul", "bad-utf8"],
)
def test_frontmatter_decode_refuses_non_utf8(data, needle):
    with pytest.raises(FrontmatterError, match=needle):
        decode_memory_bytes(data, "system/x.md")
