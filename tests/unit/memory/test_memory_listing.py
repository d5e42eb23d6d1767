"""A large memory stays usable: descriptions are read from frontmatter alone, and the prompt's
listing of files outside system/ stays within its bound (folders with counts beyond it)."""

from __future__ import annotations

from mini_letta.memory.compile import build_memory_section, render_tree_lines
from mini_letta.memory.edits import list_memory_tree
from mini_letta.memory.listing import EXTERNAL_TREE_BYTES, read_description, render_bounded_tree


def _file(description: str, body: str) -> bytes:
    return f"---\ndescription: {description}\n---\n{body}".encode()


def test_a_description_is_read_without_the_body(tmp_path):
    path = tmp_path / "big.md"
    body = "x" * 2_000_000 + "\n\xff broken tail is never read"
    path.write_bytes(_file("A big file", "").rstrip(b"\n") + b"\n" + body.encode("latin-1"))
    assert read_description(path, "big.md") == "A big file"
    broken = tmp_path / "broken.md"
    broken.write_bytes(b"no frontmatter here\n---\nstill none\n")
    assert read_description(broken, "broken.md").startswith("(invalid: ")


def test_the_listing_of_a_small_memory_is_the_whole_tree():
    entries = [("notes/a.md", "A"), ("notes/b.md", "B"), ("todo.md", "Todo")]
    assert render_bounded_tree(entries, render_tree_lines) == "\n".join(render_tree_lines(entries))


def test_five_thousand_files_are_listed_as_folders_with_counts_within_the_bound():
    blobs = {"system/persona.md": _file("Persona", "I help.")}
    for n in range(5_000):
        folder = ["projects", "people", "journal", "recipes"][n % 4]
        blobs[f"{folder}/f{n:04d}.md"] = _file(f"Note {n} about {folder}", "body " * 200)
    blobs["readme.md"] = _file("What is where", "")
    section = build_memory_section(blobs)
    listing = section.split("<external_memory>\n", 1)[1].split("\n</external_memory>", 1)[0]
    assert len(listing.encode()) <= EXTERNAL_TREE_BYTES + 200
    assert "projects/ — 1250 file(s)" in listing and "readme.md — What is where" in listing
    assert "5001 files" in listing and "f0001.md" not in listing


def test_memory_tree_lists_every_file_from_its_frontmatter(tmp_path):
    for n in range(30):
        (tmp_path / "notes").mkdir(exist_ok=True)
        (tmp_path / "notes" / f"n{n}.md").write_bytes(_file(f"Note {n}", "body\n" * 1000))
    listed = list_memory_tree(tmp_path)
    assert len(listed) == 30 and listed[0] == ("notes/n0.md", "Note 0")
