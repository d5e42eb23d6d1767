"""Discovery over the five sources: precedence, clashes shown, invalid skills skipped once each."""

from __future__ import annotations

import os

from mini_letta.skills.discover import bundled_files, discover_skills, skill_roots
from support.skills import write_skill


def _roots(tmp_path):
    memory, project, user = tmp_path / "memory", tmp_path / "project", tmp_path / "user"
    return memory, project, user, skill_roots(memory, project, {"HOME": str(user)})


def test_five_sources_in_precedence_order(tmp_path):
    memory, project, user, roots = _roots(tmp_path)
    assert [(r.source, r.label) for r in roots] == [
        ("memory", "memory skills/"),
        ("project", ".agents/skills"),
        ("project", ".claude/skills"),
        ("user", "~/.agents/skills"),
        ("user", "~/.claude/skills"),
    ]
    assert roots[0].path == memory / "skills"
    assert roots[2].path == project / ".claude" / "skills"
    assert roots[4].path == user / ".claude" / "skills"


def test_each_source_is_found_and_labelled(tmp_path):
    _, _, _, roots = _roots(tmp_path)
    for index, root in enumerate(roots):
        write_skill(root.path, f"skill-{index}")
    catalog = discover_skills(roots)
    assert [(s.name, s.source, s.label) for s in catalog.skills] == [
        ("skill-0", "memory", "memory skills/"),
        ("skill-1", "project", ".agents/skills"),
        ("skill-2", "project", ".claude/skills"),
        ("skill-3", "user", "~/.agents/skills"),
        ("skill-4", "user", "~/.claude/skills"),
    ]
    assert catalog.counts() == {"memory": 1, "project": 2, "user": 2}
    assert catalog.invalid == () and catalog.shadowed == ()


def test_a_name_clash_goes_to_the_earlier_source_and_is_shown(tmp_path):
    _, _, _, roots = _roots(tmp_path)
    for root in reversed(roots):  # written in reverse, so order on disk cannot decide
        write_skill(root.path, "deploy", f"Deploy as {root.label} says.")
    catalog = discover_skills(roots)
    assert [(s.name, s.label) for s in catalog.skills] == [("deploy", "memory skills/")]
    assert [(c.skill.label, c.by.label) for c in catalog.shadowed] == [
        (".agents/skills", "memory skills/"),
        (".claude/skills", "memory skills/"),
        ("~/.agents/skills", "memory skills/"),
        ("~/.claude/skills", "memory skills/"),
    ]
    assert "is hidden by the one in memory skills/" in catalog.shadowed[0].render()


def test_project_beats_user_and_agents_beats_claude(tmp_path):
    _, _, _, roots = _roots(tmp_path)
    write_skill(roots[4].path, "lint", "user claude")
    write_skill(roots[3].path, "lint", "user agents")
    write_skill(roots[2].path, "fmt", "project claude")
    write_skill(roots[4].path, "fmt", "user claude")
    catalog = discover_skills(roots)
    assert {s.name: s.description for s in catalog.skills} == {
        "fmt": "project claude",
        "lint": "user agents",
    }


def test_invalid_skills_are_skipped_with_one_warning_each(tmp_path):
    _, _, _, roots = _roots(tmp_path)
    project = roots[1].path
    write_skill(project, "good")
    write_skill(project, "Bad-Name", frontmatter="name: Bad-Name\ndescription: d\n")
    write_skill(project, "wrong-folder", frontmatter="name: other\ndescription: d\n")
    write_skill(project, "no-desc", frontmatter="name: no-desc\n")
    (project / "empty").mkdir()
    (project / "stray.md").write_text("not a folder")
    (project / ".hidden").mkdir()
    catalog = discover_skills(roots)
    assert [s.name for s in catalog.skills] == ["good"]
    warnings = {bad.folder.name: bad.render() for bad in catalog.invalid}
    assert set(warnings) == {"Bad-Name", "wrong-folder", "no-desc", "empty"}
    assert "[name-lowercase]" in warnings["Bad-Name"]
    assert "[name-folder]" in warnings["wrong-folder"]
    assert "[description-required]" in warnings["no-desc"]
    assert "[skill-file]" in warnings["empty"]


def test_unreadable_inputs_are_problems_not_crashes(tmp_path):
    _, _, _, roots = _roots(tmp_path)
    project = roots[1].path
    (project / "binary").mkdir(parents=True)
    (project / "binary" / "SKILL.md").write_bytes(b"---\nname: binary\n\xff\xfe---\n")
    (project / "huge").mkdir()
    (project / "huge" / "SKILL.md").write_text(
        "---\nname: huge\ndescription: d\n---\n" + "x" * 300_000
    )
    (project / "dir-file").mkdir()
    (project / "dir-file" / "SKILL.md").mkdir()
    catalog = discover_skills(roots)
    rules = {bad.folder.name: bad.problems[0].rule for bad in catalog.invalid}
    assert rules == {"binary": "encoding", "huge": "size", "dir-file": "skill-file"}


def test_no_home_in_the_environment_means_no_user_skills(tmp_path):
    roots = skill_roots(None, tmp_path, {})
    assert [r.source for r in roots] == ["project", "project"]


def test_bundled_files_stay_inside_the_skill(tmp_path):
    folder = write_skill(
        tmp_path / "skills", "pdf", files={"references/guide.md": "g", "scripts/run.sh": "echo"}
    )
    (tmp_path / "secret.txt").write_text("outside")
    os.symlink(tmp_path / "secret.txt", folder / "leak.txt")
    (folder / ".git").mkdir()
    (folder / ".git" / "config").write_text("x")
    assert bundled_files(folder) == (["references/guide.md", "scripts/run.sh"], 2)


def test_a_fifo_named_skill_md_is_skipped_without_blocking(tmp_path):
    _, _, _, roots = _roots(tmp_path)
    (roots[1].path / "pipe").mkdir(parents=True)
    os.mkfifo(roots[1].path / "pipe" / "SKILL.md")
    catalog = discover_skills(roots)
    assert [bad.problems[0].rule for bad in catalog.invalid] == ["skill-file"]


def test_a_skill_the_memory_tool_creates_names_itself(tmp_path):
    from mini_letta.memory.edits import apply_memory_edit
    from mini_letta.memory.repo import init_memory_repo

    memory = tmp_path / "memory"
    init_memory_repo(memory)
    args = {"path": "skills/tidy/SKILL.md", "description": "Tidy imports.", "content": "Run it."}
    apply_memory_edit(memory, "create", args)
    catalog = discover_skills(skill_roots(memory, None, {}))
    assert [(s.name, s.source, s.description) for s in catalog.skills] == [
        ("tidy", "memory", "Tidy imports.")
    ]


def test_a_skill_folder_symlinked_to_a_home_opens_nothing_up(tmp_path):
    user = tmp_path / "user"
    user.mkdir()
    (user / "SKILL.md").write_text("---\nname: me\ndescription: My whole home.\n---\n")
    (user / "private.txt").write_text("secret")
    _, project, _, roots = _roots(tmp_path)
    (project / ".agents" / "skills").mkdir(parents=True)
    os.symlink(user, project / ".agents" / "skills" / "me")
    good = write_skill(project / ".claude" / "skills", "ok")
    catalog = discover_skills(roots)
    assert [s.name for s in catalog.skills] == ["me", "ok"]  # listed: the user put it there
    assert catalog.folders(project, user) == (good.resolve(),)  # but not readable through it
