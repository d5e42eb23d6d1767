"""CLAUDE.md / AGENTS.md / Cursor rules into memory, and AGENTS.md out of it."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from mini_letta.errors import NotFoundError, SecretDetectedError
from mini_letta.interop.export_files import render_agents_md
from mini_letta.interop.import_files import IMPORT_DEPTH, import_into_memory
from mini_letta.memory.edits import read_memory_file
from mini_letta.memory.frontmatter import parse_memory_file


def _log(memory: Path) -> list[str]:
    out = subprocess.run(
        ["git", "-C", str(memory), "log", "--format=%s"], capture_output=True, text=True, check=True
    )
    return out.stdout.splitlines()


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    root = tmp_path / "shop"
    _write(root / "CLAUDE.md", "# Shop\n\nUse pnpm.\nStyle: @docs/style.md; not `@docs/code.md`.\n")
    _write(root / "docs" / "style.md", "Tabs, not spaces. Back to @../CLAUDE.md and @more.md\n")
    _write(root / "docs" / "more.md", "More rules.\n")
    _write(root / "docs" / "code.md", "never imported\n")
    _write(root / "AGENTS.md", "Run `make check` before you push.\n")
    _write(
        root / ".cursor" / "rules" / "ts.mdc",
        '---\ndescription: TypeScript rules\nglobs: "*.ts"\nalwaysApply: false\n---\nUse type.\n',
    )
    return root


def test_a_project_folder_becomes_project_files_in_one_commit(memory_repo, shop, tmp_path):
    memory = memory_repo.path
    result = import_into_memory(memory, [shop], tmp_path / "user")
    assert result.changed == (
        "projects/shop/agents.md", "projects/shop/claude.md", "projects/shop/cursor-rule-ts.md"
    )  # fmt: skip
    assert _log(memory)[0] == "Import shop/.cursor/rules/ts.mdc, shop/AGENTS.md, shop/CLAUDE.md"
    claude = parse_memory_file(read_memory_file(memory, "projects/shop/claude.md"), "c")
    assert claude.description == "Conventions of the shop project, imported from CLAUDE.md."
    assert "Use pnpm." in claude.body
    assert "## Imported from @docs/style.md\n\nTabs, not spaces." in claude.body
    assert "## Imported from @docs/more.md\n\nMore rules." in claude.body
    assert "never imported" not in claude.body  # inside inline code
    assert claude.body.count("Use pnpm.") == 1  # the cycle back to CLAUDE.md is ignored
    rule = parse_memory_file(read_memory_file(memory, "projects/shop/cursor-rule-ts.md"), "r")
    assert rule.description == "TypeScript rules"
    assert rule.extra == {"globs": "*.ts", "alwaysApply": False}


def test_importing_twice_changes_nothing(memory_repo, shop, tmp_path):
    first = import_into_memory(memory_repo.path, [shop], tmp_path / "user")
    commits = len(_log(memory_repo.path))
    again = import_into_memory(memory_repo.path, [shop / "CLAUDE.md", shop], tmp_path / "user")
    assert again.sha is None and again.changed == () and set(again.unchanged) == set(first.changed)
    assert len(_log(memory_repo.path)) == commits


def test_imports_stay_inside_the_project_and_stop_at_a_depth(memory_repo, tmp_path):
    root = tmp_path / "deep"
    _write(tmp_path / "outside.md", "outside secret plan\n")
    _write(root / "CLAUDE.md", "@../outside.md @/etc/hostname @l1.md\n")
    for level in range(1, IMPORT_DEPTH + 3):
        _write(root / f"l{level}.md", f"level {level} @l{level + 1}.md\n")
    import_into_memory(memory_repo.path, [root / "CLAUDE.md"], tmp_path / "user")
    body = read_memory_file(memory_repo.path, "projects/deep/claude.md")
    assert "outside secret plan" not in body
    assert f"level {IMPORT_DEPTH}" in body and f"level {IMPORT_DEPTH + 1}" not in body


def test_a_user_level_file_is_a_section_of_human_md_replaced_on_reimport(memory_repo, tmp_path):
    user = tmp_path / "user"
    personal = _write(user / ".claude" / "CLAUDE.md", "I prefer short answers.\n")
    import_into_memory(memory_repo.path, [personal], user)
    _write(personal, "I prefer long answers.\n")
    import_into_memory(memory_repo.path, [personal], user)
    human = read_memory_file(memory_repo.path, "system/human.md")
    assert "I prefer long answers." in human and "short answers" not in human
    assert human.count("<!-- imported from ~/.claude/CLAUDE.md -->") == 1


def test_a_secret_refuses_the_whole_import(memory_repo, shop, tmp_path):
    _write(
        shop / "AGENTS.md",
        "deploy with AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY9\n",
    )
    head = memory_repo.head_sha()
    with pytest.raises(SecretDetectedError) as caught:
        import_into_memory(memory_repo.path, [shop], tmp_path / "user")
    assert "wJalrXUtnFEMI" not in str(caught.value)
    assert memory_repo.head_sha() == head
    assert not (memory_repo.path / "projects").exists()


def test_a_path_with_nothing_to_import_is_named(memory_repo, tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(NotFoundError, match="empty holds none of"):
        import_into_memory(memory_repo.path, [tmp_path / "empty"], tmp_path / "user")
    with pytest.raises(NotFoundError, match="does not exist"):
        import_into_memory(memory_repo.path, [tmp_path / "nope.md"], tmp_path / "user")


def test_export_puts_system_files_first_then_the_rest_and_round_trips(memory_repo, shop, tmp_path):
    import_into_memory(memory_repo.path, [shop], tmp_path / "user")
    text = render_agents_md(memory_repo.path, "desk", memory_repo.head_sha())
    assert text.startswith("# AGENTS.md\n")
    assert "I am a mini-letta agent" not in text  # the persona is mini-letta's own
    human_at = text.index("<!-- system/human.md -->")
    assert human_at < text.index("<!-- projects/shop/claude.md -->")
    assert "Use pnpm." in text and "Tabs, not spaces." in text and "Use type." in text
    exported = _write(tmp_path / "other" / "AGENTS.md", text)
    import_into_memory(memory_repo.path, [exported], tmp_path / "user")
    back = read_memory_file(memory_repo.path, "projects/other/agents.md")
    assert "Use pnpm." in back
    assert import_into_memory(memory_repo.path, [exported], tmp_path / "user").sha is None


@pytest.mark.parametrize("name", ["CLAUDE.md", "AGENTS.md", ".cursor/rules/x.mdc"])
def test_a_source_linked_outside_its_project_is_refused(memory_repo, tmp_path, name):
    from mini_letta.errors import MemfsError

    outside = _write(tmp_path / "private" / "plan.md", "outside secret plan\n")
    project = tmp_path / "proj"
    link = project / name
    link.parent.mkdir(parents=True)
    link.symlink_to(outside)
    with pytest.raises(MemfsError, match="outside"):
        import_into_memory(memory_repo.path, [project], tmp_path / "user")
    assert len(_log(memory_repo.path)) == 1
    assert "outside secret plan" not in repr(
        subprocess.run(
            ["git", "-C", str(memory_repo.path), "log", "-p", "--all"], capture_output=True
        ).stdout
    )


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        (b"# big\n" + b"rule\n" * 1_000_000, "past the limit"),
        (b"\0" * 10_000, "NUL"),
        (bytes(range(128, 256)) * 40, "UTF-8"),
    ],
    ids=["5-MB", "nul-bytes", "binary"],
)
def test_a_source_past_the_memory_tool_s_checks_is_refused(memory_repo, tmp_path, data, problem):
    from mini_letta.errors import MemfsError

    project = tmp_path / "proj"
    project.mkdir()
    (project / "CLAUDE.md").write_bytes(data)
    with pytest.raises(MemfsError, match=problem):
        import_into_memory(memory_repo.path, [project], tmp_path / "user")
    assert len(_log(memory_repo.path)) == 1


@pytest.mark.timeout(20)
def test_a_fifo_source_is_refused_without_reading(memory_repo, tmp_path):
    import os

    from mini_letta.errors import MemfsError

    project = tmp_path / "proj"
    project.mkdir()
    os.mkfifo(project / "AGENTS.md")
    with pytest.raises((MemfsError, NotFoundError), match="AGENTS.md"):
        import_into_memory(memory_repo.path, [project / "AGENTS.md"], tmp_path / "user")


def test_an_import_of_a_binary_file_is_refused(memory_repo, tmp_path):
    from mini_letta.errors import MemfsError

    project = tmp_path / "proj"
    _write(project / "CLAUDE.md", "Rules: @blob.md\n")
    (project / "blob.md").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0")
    with pytest.raises(MemfsError, match="blob.md"):
        import_into_memory(memory_repo.path, [project], tmp_path / "user")
