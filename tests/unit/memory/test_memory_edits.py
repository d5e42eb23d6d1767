"""Memory edit operations on a working tree: results, refusals, and nothing changed on refusal."""

from __future__ import annotations

import shutil

import pytest

from mini_letta.errors import MemfsError, MiniLettaError, SecretDetectedError
from mini_letta.memory.edits import (
    MemoryEditPlan,
    apply_memory_edit,
    list_memory_tree,
    read_memory_file,
    restore_snapshot,
    write_memory_plan,
)
from mini_letta.memory.frontmatter import parse_memory_file
from mini_letta.memory.repo import init_memory_repo
from mini_letta.memory.secrets import find_secret
from support.memory import commit_all, git_state, tree_bytes, write_file

HUMAN = "system/human.md"


@pytest.fixture(scope="module")
def _root_template(tmp_path_factory):
    path = tmp_path_factory.mktemp("edits") / "memory"
    init_memory_repo(path)
    write_file(path, HUMAN, "---\ndescription: The user\nlimit: 500\n---\nName: Sam\nLikes tea\n")
    write_file(path, "system/rules.md", "---\ndescription: Rules\nread_only: true\n---\nBe kind\n")
    write_file(path, "notes/broken.md", "no frontmatter here\n")
    commit_all(path)
    return path


@pytest.fixture(scope="module")
def _template_state(_root_template):
    """The template's files and git state, which every fresh copy has: a refusal compares its
    copy's state after with this, instead of asking git twice."""
    return tree_bytes(_root_template), git_state(_root_template)


@pytest.fixture
def root(_root_template, tmp_path):
    """A memory repository with a read-only file and a broken one committed: a copy of one
    made once for this module (names and bytes; git's sample hooks never run and are left out)."""
    path = tmp_path / "memory"
    skip = shutil.ignore_patterns("*.sample")
    shutil.copytree(_root_template, path, symlinks=True, ignore=skip, copy_function=shutil.copyfile)
    return path


def _body(root, rel):
    return parse_memory_file((root / rel).read_text(encoding="utf-8"), rel).body


def test_edits_create_renders_frontmatter(root):
    outcome = apply_memory_edit(
        root, "create", {"path": "projects/a.md", "description": "Project A", "content": "x"}
    )
    assert outcome.touched == ("projects/a.md",)
    assert (root / "projects/a.md").read_text() == "---\ndescription: Project A\n---\nx\n"


def test_edits_str_replace_keeps_unknown_keys(root):
    apply_memory_edit(root, "str_replace", {"path": HUMAN, "old_str": "Sam", "new_str": "Ada"})
    assert (root / HUMAN).read_text() == (
        "---\ndescription: The user\nlimit: 500\n---\nName: Ada\nLikes tea\n"
    )


def test_edits_str_replace_with_empty_new_str_deletes_text(root):
    apply_memory_edit(root, "str_replace", {"path": HUMAN, "old_str": "Likes tea\n", "new_str": ""})
    assert _body(root, HUMAN) == "Name: Sam\n"


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (0, "new\nName: Sam\nLikes tea\n"),
        (1, "Name: Sam\nnew\nLikes tea\n"),
        (2, "Name: Sam\nLikes tea\nnew\n"),
        (None, "Name: Sam\nLikes tea\nnew\n"),
    ],
    ids=["top", "middle", "end", "omitted-appends"],
)
def test_edits_insert_at_line(root, line, expected):
    args = {"path": HUMAN, "content": "new\n"}
    if line is not None:
        args["insert_line"] = line
    apply_memory_edit(root, "insert", args)
    assert _body(root, HUMAN) == expected


def test_edits_delete_rename_update_description(root):
    apply_memory_edit(root, "rename", {"path": HUMAN, "new_path": "system/people/sam.md"})
    assert not (root / HUMAN).exists()
    assert _body(root, "system/people/sam.md") == "Name: Sam\nLikes tea\n"
    apply_memory_edit(
        root, "update_description", {"path": "system/people/sam.md", "description": "Sam"}
    )
    assert parse_memory_file((root / "system/people/sam.md").read_text(), "x").description == "Sam"
    outcome = apply_memory_edit(root, "delete", {"path": "system/people/sam.md"})
    assert outcome.touched == ("system/people/sam.md",)
    assert not (root / "system/people").exists()


def test_edits_delete_allows_broken_frontmatter(root):
    apply_memory_edit(root, "delete", {"path": "notes/broken.md"})
    assert not (root / "notes").exists()


def test_edits_body_alias_and_ignored_reason(root):
    apply_memory_edit(
        root,
        "create",
        {"path": "a.md", "description": "A", "body": "b", "reason": "r", "command": "create"},
    )
    assert _body(root, "a.md") == "b\n"


REFUSALS = [
    ("create", {"path": "../escape.md", "description": "x"}, "'..'"),
    ("create", {"path": "/etc/passwd.md", "description": "x"}, "relative"),
    ("create", {"path": "~/x.md", "description": "x"}, "relative"),
    ("create", {"path": ".git/hooks/x.md", "description": "x"}, "hidden"),
    ("create", {"path": "system\\x.md", "description": "x"}, "'/'"),
    ("create", {"path": "system/x", "description": "x"}, "end"),
    ("create", {"path": "skills/tool.md", "description": "x"}, "SKILL.md"),
    ("create", {"path": "", "description": "x"}, "memory path"),
    ("create", {"path": 5, "description": "x"}, "memory path"),
    ("create", {"path": HUMAN, "description": "x"}, "already exists"),
    ("create", {"path": "system/human.md/x.md", "description": "x"}, "is a file"),
    ("create", {"path": "a.md", "description": "   "}, "non-empty"),
    ("create", {"path": "a.md"}, "description is required"),
    ("str_replace", {"path": HUMAN, "old_str": "a", "new_str": "b"}, "3 times"),
    ("str_replace", {"path": HUMAN, "old_str": "zzz", "new_str": "b"}, "not found"),
    ("str_replace", {"path": HUMAN, "old_str": "", "new_str": "b"}, "must not be empty"),
    ("str_replace", {"path": HUMAN, "old_str": "Sam"}, "new_str is required"),
    ("str_replace", {"path": HUMAN, "old_str": "Sam", "new_str": "Sam"}, "no change"),
    ("str_replace", {"path": "missing.md", "old_str": "a", "new_str": "b"}, "does not exist"),
    ("str_replace", {"path": "notes", "old_str": "a", "new_str": "b"}, "ending in .md"),
    ("str_replace", {"path": "system/rules.md", "old_str": "kind", "new_str": "x"}, "read_only"),
    ("str_replace", {"path": "notes/broken.md", "old_str": "no", "new_str": "x"}, "frontmatter"),
    ("str_replace", {"path": HUMAN, "old_string": "Sam", "new_str": "x"}, "unknown argument"),
    ("insert", {"path": HUMAN, "content": "x", "insert_line": 3}, "outside the body"),
    ("insert", {"path": HUMAN, "content": "x", "insert_line": -1}, "outside the body"),
    ("insert", {"path": HUMAN, "content": "x", "insert_line": "2"}, "integer"),
    ("insert", {"path": HUMAN, "content": ""}, "must not be empty"),
    ("insert", {"path": "system/rules.md", "content": "x"}, "read_only"),
    ("delete", {"path": "system/rules.md"}, "read_only"),
    ("delete", {"path": "system"}, "ending in .md"),
    ("delete", {"path": "gone.md"}, "does not exist"),
    ("rename", {"path": HUMAN, "new_path": "system/rules.md"}, "already exists"),
    ("rename", {"path": HUMAN, "new_path": HUMAN}, "same"),
    ("rename", {"path": HUMAN, "new_path": "../out.md"}, "'..'"),
    ("rename", {"path": "system/rules.md", "new_path": "r.md"}, "read_only"),
    ("rename", {"path": HUMAN}, "new_path"),
    ("update_description", {"path": "system/rules.md", "description": "x"}, "read_only"),
    ("update_description", {"path": HUMAN, "description": "The user"}, "no change"),
    ("frobnicate", {"path": HUMAN}, "unknown memory command"),
]


@pytest.mark.parametrize(
    ("command", "args", "needle"),
    REFUSALS,
    ids=[f"{c}-{i}" for i, (c, _, _) in enumerate(REFUSALS)],
)
def test_edits_refusal_changes_nothing(root, _template_state, command, args, needle):
    before_tree, before_git = _template_state
    with pytest.raises(MemfsError) as caught:
        apply_memory_edit(root, command, args)
    assert needle in str(caught.value)
    assert "\n" not in str(caught.value)
    assert tree_bytes(root) == before_tree
    assert git_state(root) == before_git


def test_edits_symlink_out_of_memory_is_refused(root, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (root / "linked").symlink_to(outside)
    (outside / "x.md").write_text("---\ndescription: x\n---\n")
    for command, args in [
        ("create", {"path": "linked/new.md", "description": "x"}),
        ("str_replace", {"path": "linked/x.md", "old_str": "x", "new_str": "y"}),
        ("delete", {"path": "linked/x.md"}),
    ]:
        with pytest.raises(MemfsError, match="symlink"):
            apply_memory_edit(root, command, args)
    assert sorted(p.name for p in outside.iterdir()) == ["x.md"]


def test_edits_symlink_inside_memory_is_refused_too(root):
    (root / "alias.md").symlink_to(root / HUMAN)
    with pytest.raises(MemfsError, match="symlink"):
        apply_memory_edit(root, "str_replace", {"path": "alias.md", "old_str": "S", "new_str": "x"})


@pytest.mark.parametrize(
    ("command", "args"),
    [
        (
            "create",
            {"path": "k.md", "description": "keys", "content": "sk-proj-abc123DEF456ghi789JK"},
        ),
        ("create", {"path": "k.md", "description": "AKIAIOSFODNN7EXAMPLE"}),
        ("str_replace", {"path": HUMAN, "old_str": "tea", "new_str": "ghp_" + "a1B2" * 9}),
        ("insert", {"path": HUMAN, "content": "GITHUB_TOKEN=abc123def456ghi"}),
        ("update_description", {"path": HUMAN, "description": "pw postgres://u:hunter22@db/x"}),
        ("rename", {"path": HUMAN, "new_path": "sk-proj-abc123DEF456ghi789JKL.md"}),
    ],
    ids=["create-body", "create-description", "str-replace", "insert", "description", "path"],
)
def test_edits_secret_is_refused_without_echoing_it(root, command, args):
    before = tree_bytes(root)
    with pytest.raises(SecretDetectedError) as caught:
        apply_memory_edit(root, command, args)
    message = str(caught.value)
    for value in args.values():
        for token in str(value).split():
            if find_secret(token):
                assert token not in message
    assert tree_bytes(root) == before


def test_edits_secret_already_in_file_does_not_block_other_edits(root):
    # A human committed it; the agent's unrelated edit must still work (and not add another).
    write_file(root, "legacy.md", "---\ndescription: x\n---\nkey AKIAIOSFODNN7EXAMPLE\nold\n")
    commit_all(root)
    apply_memory_edit(root, "str_replace", {"path": "legacy.md", "old_str": "old", "new_str": "n"})
    with pytest.raises(SecretDetectedError):
        apply_memory_edit(root, "insert", {"path": "legacy.md", "content": "AKIAABCDEFGHIJKLMNOP"})


def test_edits_write_failure_restores_every_file(root):
    before = tree_bytes(root)
    plan = MemoryEditPlan(
        "rename",
        {"new/a.md": b"---\ndescription: a\n---\n", "system/human.md/b.md": b"x"},
        ("system/rules.md",),
        "bad",
    )
    with pytest.raises(MiniLettaError):
        write_memory_plan(root, plan)
    assert tree_bytes(root) == before


def test_edits_restore_snapshot_undoes_a_written_edit(root):
    before = tree_bytes(root)
    outcome = apply_memory_edit(root, "rename", {"path": HUMAN, "new_path": "deep/er/h.md"})
    restore_snapshot(root, outcome.snapshot)
    assert tree_bytes(root) == before


def test_edits_crlf_and_bom_file_is_editable(root):
    (root / "win.md").write_bytes(b"\xef\xbb\xbf---\r\ndescription: Win\r\n---\r\nline one\r\n")
    apply_memory_edit(root, "str_replace", {"path": "win.md", "old_str": "one", "new_str": "1"})
    assert (root / "win.md").read_bytes() == b"---\ndescription: Win\n---\nline 1\n"


def test_edits_read_and_list(root):
    assert read_memory_file(root, HUMAN).endswith("Likes tea\n")
    with pytest.raises(MemfsError, match="does not exist"):
        read_memory_file(root, "nope.md")
    with pytest.raises(MemfsError):
        read_memory_file(root, "../x.md")
    listing = dict(list_memory_tree(root))
    assert listing[HUMAN] == "The user"
    assert listing["notes/broken.md"].startswith("(invalid: missing frontmatter")
    assert list(listing) == sorted(listing)


PLACEHOLDER = "Nothing yet; I have not got to know this person."


@pytest.fixture
def fresh(memory_repo):
    path = memory_repo.path
    write_file(path, HUMAN, f"---\ndescription: The user\n---\n{PLACEHOLDER}\n")
    commit_all(path)
    return path


@pytest.mark.parametrize(
    ("command", "args"),
    [
        ("insert", {"content": "- likes vim"}),
        ("insert", {"content": "- likes vim", "insert_line": 0}),
        ("str_replace", {"old_str": "Nothing yet", "new_str": "- likes vim\nNothing yet"}),
    ],
    ids=["insert-append", "insert-top", "str-replace-beside"],
)
def test_edits_drop_the_empty_memory_placeholder(fresh, command, args):
    apply_memory_edit(fresh, command, {"path": HUMAN, **args})
    assert _body(fresh, HUMAN) == "- likes vim\n"


def test_edits_keep_the_placeholder_when_nothing_else_is_left(fresh):
    apply_memory_edit(
        fresh, "str_replace", {"path": HUMAN, "old_str": "Nothing yet;", "new_str": "Nothing;"}
    )
    assert _body(fresh, HUMAN) == "Nothing; I have not got to know this person.\n"
