"""`@path` in a prompt: which words are references, and what a reference attaches."""

from __future__ import annotations

import os

import pytest
from tests.support.tools import make_context

from mini_letta.tools.attachments import (
    MAX_FILE_BYTES,
    AttachmentError,
    attach_files,
    find_references,
)


@pytest.mark.parametrize(
    ("prompt", "found"),
    [
        ("look at @a.txt", ["a.txt"]),
        ("@src/app.py: why?", ["src/app.py"]),
        ("compare (@a.txt, @b.txt).", ["a.txt", "b.txt"]),
        ('see @"my notes.txt" please', ["my notes.txt"]),
        ("twice @a.txt and @a.txt", ["a.txt"]),
        ("mail me@example.com or ops@corp.io", []),
        ("the `@dataclass` decorator", []),
        ("```python\n@app.route('/x')\ndef f(): ...\n```\nand @b.txt", ["b.txt"]),
        ("unclosed ```\n@inside.txt", []),
        ("ask @alice", ["alice"]),
        ("just @ here", []),
    ],
    ids=[
        "plain",
        "line-start",
        "brackets",
        "quoted",
        "once",
        "email",
        "inline-code",
        "fence",
        "open-fence",
        "word",
        "bare-at",
    ],  # fmt: skip
)
def test_references_are_words_starting_with_at_outside_code(prompt, found):
    assert find_references(prompt) == found


def test_the_scan_is_linear_on_hostile_input():
    hostile = "`" + "@x " * 50_000 + "```" * 10_000 + "@" * 100_000
    assert len(find_references(hostile)) < 5  # returns at once, whatever it finds


def test_a_named_file_is_attached_once_and_secrets_are_redacted(tmp_path, clock):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text(
        "print('hi')\nKEY = 'sk-ant-api03-abcDEF123456ghiJKL789012mnoPQR'\n"
    )
    ctx = make_context(tmp_path, clock)
    sent = attach_files("why does @src/app.py fail? (@src/app.py)", ctx)
    assert sent.startswith('why does @src/app.py fail? (@src/app.py)\n\n<file path="src/app.py">\n')
    assert sent.count("<file ") == 1 and "print('hi')" in sent
    assert "sk-ant-api03" not in sent and "<redacted:" in sent
    assert attach_files("no refs, ask @alice", ctx) == "no refs, ask @alice"


@pytest.mark.parametrize(
    ("prompt", "message"),
    [
        ("see @missing.txt", "@missing.txt: no such file"),
        ("see @docs/", "@docs/: not a regular file"),
        ("see @../outside.txt", "outside the working directory"),
        ("see @/etc/hostname", "outside the working directory"),
        ("see @blob.bin", "a binary file"),
        ("see @big.txt", f"over the {MAX_FILE_BYTES // 1000} KB"),
        ("see @link.txt", "outside the working directory"),
        ("see @loop.txt", "@loop.txt: cannot be read ("),  # the reason differs by Python
        ("see @" + "a/" * 3000 + "x.txt", "cannot be read (File name too long)"),
        ("see @nul\x00.txt", "@nul\\x00.txt: 'path' must not contain NUL"),
    ],
    ids=[
        "missing",
        "folder",
        "parent",
        "absolute",
        "binary",
        "too-big",
        "symlink-out",
        "symlink-loop",
        "long-name",
        "nul",
    ],  # fmt: skip
)
def test_a_reference_that_cannot_attach_is_one_line(tmp_path, clock, prompt, message):
    work = tmp_path / "work"
    (work / "docs").mkdir(parents=True)
    (tmp_path / "outside.txt").write_text("secret plans\n")
    (work / "blob.bin").write_bytes(b"\x7fELF\x00\x01")
    (work / "big.txt").write_text("x" * (MAX_FILE_BYTES + 1))
    os.symlink(tmp_path / "outside.txt", work / "link.txt")
    os.symlink("loop.txt", work / "loop.txt")
    with pytest.raises(AttachmentError) as caught:
        attach_files(prompt, make_context(work, clock))
    assert message in str(caught.value) and "\n" not in str(caught.value)
    # short, whatever this test's folder is called (it is named twice in some messages)
    assert len(str(caught.value).replace(str(tmp_path), "<tmp>")) < 300
    assert caught.value.exit_code == 2


def test_all_of_a_prompts_attachments_are_capped_together(tmp_path, clock):
    names = [f"part{n}.txt" for n in range(3)]
    for name in names:
        (tmp_path / name).write_text("y" * (MAX_FILE_BYTES - 10))
    ctx = make_context(tmp_path, clock)
    assert attach_files("@part0.txt @part1.txt", ctx).count("<file ") == 2
    with pytest.raises(AttachmentError, match="@part2.txt: the attached files come to more"):
        attach_files(" ".join(f"@{name}" for name in names), ctx)
