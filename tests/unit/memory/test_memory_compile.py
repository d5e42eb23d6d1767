"""The compiled system prompt: golden output, HEAD not the working tree, caching by sha."""

from __future__ import annotations

import json

import pytest

from mini_letta.errors import GitError
from mini_letta.memory.compile import (
    FileCap,
    PromptCompiler,
    build_memory_section,
    memory_skill_texts,
    render_memory_section,
    seed_prompt_cache,
)
from mini_letta.memory.gitfiles import commit_tree, tree_sha
from support.git_calls import git_calls
from support.memory import commit_all, write_file


def _compile_now(base, path, metadata):
    """A fresh compiler with no disk cache compiles from HEAD now: the reference output."""
    return PromptCompiler(path).compile(base, metadata)


def _md(description: str, body: str = "") -> str:
    return f"---\ndescription: {description}\n---\n{body}"


@pytest.fixture
def rich_repo(memory_repo):
    root = memory_repo.path
    write_file(root, "system/persona.md", _md("Who I am", "I am Ada, a careful helper.\n"))
    write_file(root, "system/human.md", _md("The user", "Sam. Likes tea.\n"))
    write_file(root, "system/project/overview.md", _md("Project X", "We build X.\n"))
    write_file(root, "system/project/deep/notes.md", _md("Deep notes", "deep\n"))
    write_file(root, "system/Alpha.md", _md("Capital first", "alpha\n"))
    write_file(root, "reference/letta/arch.md", _md("Architecture", "long text\n"))
    write_file(root, "notes.md", _md("Loose notes", "n\n"))
    write_file(root, "ARCHIVE.md", _md("Retired context"))
    write_file(
        root, "skills/git-flow/SKILL.md", "---\nname: git-flow\ndescription: Git flow\n---\n"
    )
    write_file(root, "skills/git-flow/scripts/run.md", _md("helper, not listed"))
    write_file(root, "image.png", "not markdown")
    (root / "win.md").write_bytes(b"\xef\xbb\xbf---\r\ndescription: Windows file\r\n---\r\nx\r\n")
    commit_all(root)
    return memory_repo


GOLDEN = """BASE PROMPT

<self path="system/persona.md">
I am Ada, a careful helper.
</self>

<system_memory>
<file path="system/Alpha.md" description="Capital first">
alpha
</file>
<file path="system/human.md" description="The user">
Sam. Likes tea.
</file>
<folder path="system/project/">
<file path="system/project/overview.md" description="Project X">
We build X.
</file>
<folder path="system/project/deep/">
<file path="system/project/deep/notes.md" description="Deep notes">
deep
</file>
</folder>
</folder>
</system_memory>

<external_memory>
├── reference/
│   └── letta/
│       └── arch.md — Architecture
├── ARCHIVE.md — Retired context
├── notes.md — Loose notes
└── win.md — Windows file
</external_memory>

<memory_metadata>
- agent id: agent-1
- conversation id: conv-1
- stored messages: 7
- memory path: /m
</memory_metadata>
"""

META = {"agent id": "agent-1", "conversation id": "conv-1", "stored messages": "7",
        "memory path": "/m"}  # fmt: skip


def test_compile_golden(rich_repo):
    assert _compile_now("BASE PROMPT\n", rich_repo.path, META) == GOLDEN


def test_skills_leave_the_section_and_come_out_as_their_frontmatter(rich_repo):
    compiler = PromptCompiler(rich_repo.path)
    assert "git-flow" not in compiler.memory_section()
    assert compiler.memory_skills() == (
        ("skills/git-flow/SKILL.md", "---\nname: git-flow\ndescription: Git flow\n---\n"),
    )


def test_compile_is_deterministic_and_contains_the_memory_section(rich_repo):
    first = _compile_now("BASE PROMPT", rich_repo.path, META)
    assert _compile_now("BASE PROMPT", rich_repo.path, META) == first
    assert render_memory_section(rich_repo.path) in first


def test_compile_default_memory(memory_repo):
    prompt = _compile_now("B", memory_repo.path, {})
    assert prompt.startswith('B\n\n<self path="system/persona.md">\nI am a mini-letta agent')
    assert '<file path="system/human.md" description="What I know about' in prompt
    assert "<external_memory>" not in prompt and "<memory_metadata>" not in prompt


def test_compile_reads_head_not_the_working_tree(rich_repo):
    root = rich_repo.path
    write_file(root, "system/human.md", _md("The user", "UNCOMMITTED\n"))
    write_file(root, "system/new.md", _md("New", "untracked\n"))
    prompt = _compile_now("B", root, {})
    assert "UNCOMMITTED" not in prompt and "untracked" not in prompt
    assert "Sam. Likes tea." in prompt


def test_compile_shows_broken_files_instead_of_failing(memory_repo):
    root = memory_repo.path
    write_file(root, "system/broken.md", "no frontmatter\nstill text\n")
    write_file(root, "ext/broken.md", "---\ndescription: [unclosed\n---\n")
    commit_all(root)
    prompt = _compile_now("B", root, {})
    assert 'description="(invalid frontmatter: missing frontmatter' in prompt
    assert "no frontmatter\nstill text\n</file>" in prompt
    assert "broken.md — (invalid frontmatter: invalid YAML" in prompt


def test_compile_escapes_attribute_values(memory_repo):
    root = memory_repo.path
    write_file(root, "system/q.md", "---\ndescription: 'say \"hi\" & <wave>'\n---\nx\n")
    commit_all(root)
    assert 'description="say &quot;hi&quot; &amp; &lt;wave>"' in _compile_now("B", root, {})


def test_compile_missing_repo_is_a_clear_error(tmp_path):
    with pytest.raises(GitError, match="memory repository .* is missing"):
        _compile_now("B", tmp_path / "nowhere", {})


def test_compiler_caches_by_head_and_sees_the_next_commit(rich_repo):
    compiler = PromptCompiler(rich_repo.path)
    calls = []

    def metadata():
        calls.append(1)
        return {"stored messages": str(len(calls))}

    first = compiler.compile("B", metadata)
    assert compiler.compile("B", metadata) == first
    assert compiler.compiles == 1 and len(calls) == 1
    write_file(rich_repo.path, "system/human.md", _md("The user", "Sam. Likes coffee now.\n"))
    assert compiler.compile("B", metadata) == first  # not committed: invisible
    commit_all(rich_repo.path)
    second = compiler.compile("B", metadata)
    assert "Likes coffee now." in second and "- stored messages: 2" in second
    assert compiler.compiles == 2
    assert compiler.compile("other base", metadata).startswith("other base")
    assert compiler.compiles == 2  # the memory section is reused for a new base


def test_compiler_disk_cache_skips_parsing_in_a_new_process(rich_repo, tmp_path):
    cache = tmp_path / "prompt-cache.json"
    first = PromptCompiler(rich_repo.path, cache)
    text = first.compile("B", {})
    data = json.loads(cache.read_text(encoding="utf-8"))
    assert data["schemaVersion"] == 2 and data["head"] == rich_repo.head_sha()
    second = PromptCompiler(rich_repo.path, cache)
    assert second.compile("B", {}) == text and second.compiles == 0
    write_file(rich_repo.path, "notes.md", _md("Changed notes"))
    commit_all(rich_repo.path)
    third = PromptCompiler(rich_repo.path, cache)
    assert "Changed notes" in third.compile("B", {}) and third.compiles == 1


def _record(head: str, **changes: object) -> str:
    good = {
        "schemaVersion": 2, "renderVersion": 6, "head": head, "memory": {},
        "entries": [["notes.md", "Loose notes", "", 1]], "skills": [],
    }  # fmt: skip
    return json.dumps({**good, **changes})


def test_compiler_rebuilds_a_bad_disk_cache(rich_repo, tmp_path):
    """A torn, stale or malformed record is never used: the prompt is compiled from git."""
    cache = tmp_path / "prompt-cache.json"
    head = rich_repo.head_sha()
    reference = _compile_now("B", rich_repo.path, {})
    bad = {
        "torn": '{"head": 1',
        "not-an-object": "[]",
        "other-head": _record("0" * 40, memory={"whole": "stale"}),
        "old-schema": _record(head, schemaVersion=1, memory={"whole": "stale"}),
        "old-rendering": _record(head, renderVersion=5, memory={"whole": "stale"}),
        "entry-shape": _record(head, entries=[["notes.md", "x", "", 0]]),
        "entry-types": _record(head, entries=[["notes.md", 1, "", 1]]),
        "skills-shape": _record(head, skills=[["a"]]),
        "rendering-type": _record(head, memory={"whole": 5}),
    }
    for name, content in bad.items():
        cache.write_text(content, encoding="utf-8")
        compiler = PromptCompiler(rich_repo.path, cache)
        assert compiler.compile("B", {}) == reference, name
        assert compiler.compiles == 1
        assert json.loads(cache.read_text(encoding="utf-8"))["head"] == head


def test_a_commit_s_entries_on_disk_render_any_budget_without_git(rich_repo, tmp_path):
    cache = tmp_path / "prompt-cache.json"
    whole = PromptCompiler(rich_repo.path, cache).memory_section()
    cap = FileCap(tokens=1, measure=len)
    with git_calls() as calls:
        capped = PromptCompiler(rich_repo.path, cache, file_cap=lambda: cap)
        section = capped.memory_section()
        skills = capped.memory_skills()
    assert calls == [] and capped.compiles == 1  # rendered from the kept entries
    assert section == build_memory_section(rich_repo.read_blobs(), cap) != whole
    assert skills == memory_skill_texts(rich_repo.read_blobs())
    data = json.loads(cache.read_text(encoding="utf-8"))
    assert set(data["memory"]) == {"whole", "1"}


def test_a_seeded_record_is_written_only_for_exactly_the_commit_s_files(memory_repo, tmp_path):
    root, cache = memory_repo.path, tmp_path / "prompt-cache.json"
    files = ("system/human.md", "system/persona.md")
    assert not seed_prompt_cache(cache, root, files[:1])  # a file of the commit left out
    write_file(root, "system/human.md", _md("The user", "not committed\n"))
    assert not seed_prompt_cache(cache, root, files)  # bytes the commit does not hold
    assert not cache.exists()
    memory_repo.run("checkout", "--", "system/human.md")
    assert seed_prompt_cache(cache, root, files)
    with git_calls() as calls:
        section = PromptCompiler(root, cache).memory_section()
    assert calls == [] and section == PromptCompiler(root).memory_section()
    cache.unlink()
    memory_repo.run("gc", "-q")  # the commit is packed: only git can read it now
    assert not seed_prompt_cache(cache, root, files) and not cache.exists()


def test_git_s_object_names_are_computed_as_git_computes_them(rich_repo):
    blobs = rich_repo.read_blobs()
    head = rich_repo.head_sha()
    tree = rich_repo.run("rev-parse", "HEAD^{tree}").strip()
    assert commit_tree(rich_repo.path, head) == tree_sha(blobs) == tree


def test_credentials_committed_by_hand_reach_neither_the_section_nor_the_cache(
    memory_repo, tmp_path
):
    token = "ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    root, cache = memory_repo.path, tmp_path / "prompt-cache.json"
    write_file(root, "system/ops.md", _md("ops", f"- token {token}\n"))
    write_file(root, "notes/keys.md", _md(f"the key {token}"))  # listed: its description shows
    write_file(root, "notes/plain.md", _md("nothing to hide"))
    commit_all(root)
    section = PromptCompiler(root, cache).memory_section()
    assert token not in section and section.count("<redacted:") == 2
    assert "nothing to hide" in section
    assert token not in cache.read_text(encoding="utf-8")
