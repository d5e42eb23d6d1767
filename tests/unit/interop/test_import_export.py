"""CLAUDE.md / AGENTS.md / Cursor rules into memory, and AGENTS.md out of it."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from mini_letta.errors import MemfsError, NotFoundError, SecretDetectedError
from mini_letta.interop.export_files import (
    BLOCK_BEGIN,
    BLOCK_END,
    merge_into,
    render_agents_md,
    render_block,
)
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


def test_export_puts_system_files_first_then_the_rest_in_one_marked_block(
    memory_repo, shop, tmp_path
):
    import_into_memory(memory_repo.path, [shop], tmp_path / "user")
    _remember_about_the_person(memory_repo.path)
    text = render_agents_md(memory_repo.path, "desk", memory_repo.head_sha(), personal=True)
    assert text.startswith("# AGENTS.md\n\n" + BLOCK_BEGIN)
    assert text.endswith(BLOCK_END + "\n")
    assert "I am a mini-letta agent" not in text  # the persona is mini-letta's own
    human_at = text.index("<!-- system/human.md -->")
    assert human_at < text.index("<!-- projects/shop/claude.md -->")
    assert "Use pnpm." in text and "Tabs, not spaces." in text and "Use type." in text


def test_personal_notes_leave_only_when_asked(memory_repo, tmp_path):
    _remember_about_the_person(memory_repo.path)
    plain = render_agents_md(memory_repo.path, "desk", memory_repo.head_sha())
    assert "system/human.md" not in plain and "lives in Lisbon" not in plain
    asked = render_agents_md(memory_repo.path, "desk", memory_repo.head_sha(), personal=True)
    assert "lives in Lisbon" in asked


def _export(memory: Path, target: Path, *, force: bool = False) -> int:
    """What `memory export -o target` does; returns the file's line count."""
    current = target.read_text("utf-8") if target.exists() else None
    block = render_block(memory, "desk", _head(memory))
    target.write_text(merge_into(current, block, force=force, name=target.name), "utf-8")
    return len(target.read_text("utf-8").splitlines())


def _head(memory: Path) -> str:
    return subprocess.run(
        ["git", "-C", str(memory), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()


def test_an_agents_md_round_trip_never_grows(memory_repo, shop, tmp_path):
    import_into_memory(memory_repo.path, [shop], tmp_path / "user")
    target = tmp_path / "other" / "AGENTS.md"
    target.parent.mkdir()
    sizes = []
    for _ in range(3):  # export, import it back, export again…
        sizes.append(_export(memory_repo.path, target))
        result = import_into_memory(memory_repo.path, [target], tmp_path / "user")
        assert result.sha is None and result.skipped == ("other/AGENTS.md",)
    assert sizes[0] > 30 and sizes == [sizes[0]] * 3
    assert "projects/other/agents.md" not in _tree(memory_repo.path)


def test_export_replaces_only_its_block_and_keeps_the_user_s_lines(memory_repo, shop, tmp_path):
    import_into_memory(memory_repo.path, [shop], tmp_path / "user")
    target = _write(tmp_path / "app" / "AGENTS.md", "# App\n\nRun `make lint` first.\n")
    with pytest.raises(MemfsError, match="no mini-letta block, so it is not overwritten"):
        _export(memory_repo.path, target)
    assert target.read_text("utf-8") == "# App\n\nRun `make lint` first.\n"
    own = f"# App\n\n{BLOCK_BEGIN} -->\n{BLOCK_END}\n\nRun `make lint` first.\n"
    target.write_text(own, "utf-8")  # the user chose where the export goes
    sizes = [_export(memory_repo.path, target)]
    text = target.read_text("utf-8")
    assert text.startswith("# App\n\n" + BLOCK_BEGIN) and "Use pnpm." in text
    assert text.endswith(BLOCK_END + "\n\nRun `make lint` first.\n")
    for _ in range(2):  # the user's lines come into memory once, then nothing moves
        import_into_memory(memory_repo.path, [target], tmp_path / "user")
        sizes.append(_export(memory_repo.path, target))
    assert "make lint" in read_memory_file(memory_repo.path, "projects/app/agents.md")
    assert "Use pnpm." not in read_memory_file(memory_repo.path, "projects/app/agents.md")
    assert sizes[1] == sizes[2] and target.read_text("utf-8").count("make lint") == 2
    target.write_text("# App\n\nRun `make lint` first.\n", "utf-8")
    _export(memory_repo.path, target, force=True)  # forced: replaced whole
    assert target.read_text("utf-8").startswith("# AGENTS.md\n\n" + BLOCK_BEGIN)


@pytest.mark.parametrize(
    "text",
    [f"{BLOCK_BEGIN} -->\nmine\n", f"mine\n{BLOCK_END}\n{BLOCK_BEGIN} -->\n", "{b}{e}{b}{e}"],
)
def test_markers_that_do_not_pair_up_are_refused_both_ways(memory_repo, tmp_path, text):
    text = text.format(b=f"{BLOCK_BEGIN} -->\n", e=f"{BLOCK_END}\n")
    target = _write(tmp_path / "app" / "AGENTS.md", text)
    with pytest.raises(MemfsError, match="markers do not pair up"):
        _export(memory_repo.path, target)
    with pytest.raises(MemfsError, match="AGENTS.md: its mini-letta block markers"):
        import_into_memory(memory_repo.path, [target], tmp_path / "user")
    assert target.read_text("utf-8") == text


def _remember_about_the_person(memory: Path) -> None:
    from mini_letta.tools.memory_tool import apply_and_commit

    args = {"command": "insert", "path": "system/human.md", "content": "- lives in Lisbon"}
    apply_and_commit(memory, "insert", args, "remember")


def _tree(memory: Path) -> list[str]:
    return subprocess.run(
        ["git", "-C", str(memory), "ls-files"], capture_output=True, text=True, check=True
    ).stdout.splitlines()


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
