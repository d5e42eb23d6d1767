"""A skill as the model and the person see it when it is loaded: body, folder, bundled files."""

from __future__ import annotations

from pathlib import Path

from mini_letta.errors import NotFoundError
from mini_letta.skills.discover import Catalog, SkillRoot, bundled_files, read_skill
from mini_letta.skills.discover import InvalidSkill as _Invalid
from mini_letta.skills.format import Skill


def find_skill(catalog: Catalog, name: str) -> Skill:
    skill = catalog.get(name)
    if skill is None:
        known = ", ".join(s.name for s in catalog.skills[:20]) or "none"
        raise NotFoundError(f"no skill named {name!r} (skills: {known})")
    return skill


def reload_skill(skill: Skill) -> Skill:
    """The skill as its SKILL.md says now; NotFoundError when it has become invalid."""
    found = read_skill(skill.folder, SkillRoot(skill.source, skill.label, skill.folder.parent))
    if isinstance(found, _Invalid):
        raise NotFoundError(f"the skill {skill.name!r} is no longer valid: {found.render()}")
    return found


def load_skill_text(catalog: Catalog, name: str, cwd: Path) -> str:
    skill = reload_skill(find_skill(catalog, name))
    folder = _shown(skill.folder, cwd)
    lines = [
        f'<skill name="{skill.name}" source="{skill.source}" folder="{folder}">',
        skill.file.body.strip("\n"),
        "</skill>",
    ]
    files, total = bundled_files(skill.folder)
    if files:
        lines.append(f"Files in {folder}/ (read them with Read, run scripts with Bash):")
        lines += [f"- {folder}/{rel}" for rel in files]
        if total > len(files):
            lines.append(f"- …and {total - len(files)} more")
    if skill.file.allowed_tools:
        lines.append(
            "allowed-tools: "
            + " ".join(skill.file.allowed_tools)
            + " (the permission mode still decides every call)"
        )
    return "\n".join(lines)


def list_skills_text(catalog: Catalog) -> str:
    if not catalog.skills:
        return "No skills are installed."
    return "\n".join(
        f"- {skill.name} ({skill.source}): {skill.description}" for skill in catalog.skills
    )


def _shown(folder: Path, cwd: Path) -> str:
    try:
        return folder.relative_to(cwd).as_posix()
    except ValueError:
        return str(folder)
