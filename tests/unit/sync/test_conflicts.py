"""The keep-both rule for edits two machines made to the same lines."""

from __future__ import annotations

from mini_letta.memory.frontmatter import parse_memory_file
from mini_letta.sync.conflicts import (
    REVIEW_HEADING,
    brought_for_review,
    resolve_conflict,
    split_conflicts,
)

REMOTE = "abcdef0123456789abcdef0123456789abcdef01"


def _conflict(ours: str, base: str, theirs: str) -> str:
    return f"<<<<<<< a\n{ours}||||||| b\n{base}=======\n{theirs}>>>>>>> c\n"


def test_both_sides_only_adding_at_one_place_keeps_both_additions_in_order():
    text = "---\ndescription: d\n---\n- vim\n" + _conflict("- pnpm\n", "", "- tabs\n")
    resolution = resolve_conflict("system/human.md", text, remote=REMOTE, when="now")
    assert resolution.text == "---\ndescription: d\n---\n- vim\n- pnpm\n- tabs\n"
    assert resolution.side_path is None


def test_a_changed_line_keeps_this_machines_text_and_the_other_in_a_review_block():
    text = "---\ndescription: d\n---\n" + _conflict("- spaces\n", "- tabs\n", "- tabs, 4 wide\n")
    resolution = resolve_conflict("system/human.md", text, remote=REMOTE, when="2026-12-03")
    parsed = parse_memory_file(resolution.text, "system/human.md")
    before, _, review = parsed.body.partition(REVIEW_HEADING)
    assert before.strip() == "- spaces"
    assert "- tabs, 4 wide" in review and "abcdef0" in review and "2026-12-03" in review
    assert "<<<<<<<" not in resolution.text and "=======" not in resolution.text


def test_a_conflict_inside_the_frontmatter_keeps_it_valid():
    text = (
        "---\n"
        + _conflict("description: mine\n", "description: old\n", "description: theirs\n")
        + "---\nbody\n"
    )
    resolution = resolve_conflict("notes.md", text, remote=REMOTE, when="now")
    parsed = parse_memory_file(resolution.text, "notes.md")
    assert parsed.description == "mine"
    assert "description: theirs" in parsed.body


def test_additions_inside_the_frontmatter_go_to_review_not_union():
    # add/add of one file on both machines, as git marks it: the fences are common
    text = "---\n" + _conflict("description: a\n", "", "description: b\n") + "---\n"
    text += _conflict("A\n", "", "B\n")
    resolution = resolve_conflict("new.md", text, remote=REMOTE, when="now")
    parsed = parse_memory_file(resolution.text, "new.md")
    assert parsed.description == "a"
    assert parsed.body.startswith("A\nB\n")  # body additions still combine
    assert "description: b" in parsed.body.partition(REVIEW_HEADING)[2]


def test_a_file_that_cannot_hold_a_block_keeps_the_other_version_beside_it():
    text = _conflict("mine\n", "old\n", "theirs\n")
    resolution = resolve_conflict("notes.txt", text, remote=REMOTE, when="now")
    assert resolution.text == "mine\n"
    assert resolution.side_path == "notes.remote-abcdef0.md"
    assert resolution.side_text is not None and "theirs" in resolution.side_text
    parse_memory_file(resolution.side_text, resolution.side_path)


def test_unbalanced_markers_are_text():
    text = "<<<<<<< a\nnot a conflict\n"
    assert split_conflicts(text) == (["<<<<<<< a\n", "not a conflict\n"], [])


BLOCK = f"\n{REVIEW_HEADING}\n\nThe version of commit abcdef0:\n- tabs\n"


def test_a_move_brings_for_review_the_files_whose_block_came_and_the_kept_copies():
    texts = {
        "system/human.md": ("- spaces\n", "- spaces\n" + BLOCK),  # a block came
        "notes/old.md": ("- a\n" + BLOCK, "- a, changed\n" + BLOCK),  # kept an old block
        "notes/done.md": ("- a\n" + BLOCK, "- a\n"),  # the block was resolved
        "notes/quoted.md": ("- a\n", f"- a; see {REVIEW_HEADING}\n"),  # not a heading line
        "notes.remote-abcdef0.md": (None, "---\ndescription: d\n---\n- tabs\n"),  # a copy
        "gone.remote-1234567.md": ("---\ndescription: d\n---\n", None),  # a copy, deleted
    }
    assert brought_for_review(texts) == ("system/human.md", "notes.remote-abcdef0.md")
