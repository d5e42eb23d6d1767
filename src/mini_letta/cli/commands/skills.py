"""`mini-letta skills list|show|validate|import|export`: the Agent Skills this agent can use."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import click

from mini_letta.cli.fit import fit_line
from mini_letta.cli.options import agent_option
from mini_letta.cli.terminal import current_terminal, echo

if TYPE_CHECKING:
    from mini_letta.skills.discover import Catalog


def find_catalog(agent: str | None) -> Catalog:
    """The skills of the five sources; without an agent (none made yet), memory has none."""
    from mini_letta.cli.world import current_world
    from mini_letta.errors import NoAgentError
    from mini_letta.skills.discover import discover_skills, skill_roots
    from mini_letta.workspace import resolve_agent

    world = current_world()
    try:
        record = resolve_agent(world, agent, check_memory=False)
        memory_dir: Path | None = world.home.memory_dir(record.id)
    except NoAgentError:
        if agent is not None:
            raise
        memory_dir = None
    return discover_skills(skill_roots(memory_dir, world.cwd, world.environ))


@click.group()
def skills() -> None:
    """Agent Skills (SKILL.md folders) from memory, the project and your home folder."""


@skills.command("list")
@agent_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def list_cmd(agent: str | None, as_json: bool) -> None:
    """List the skills (name, source, description, size), invalid and hidden ones after."""
    catalog = find_catalog(agent)
    if as_json:
        echo(json.dumps(catalog_json(catalog), ensure_ascii=False, indent=2))
        return
    if not catalog.skills:
        echo("No skills. Add one with `mini-letta skills import PATH`.")
    width = current_terminal().columns()
    for skill in catalog.skills:
        line = f"{skill.name}  [{skill.label}]  {skill.size} B  {skill.description}"
        echo(fit_line(line, width))
    for clash in catalog.shadowed:
        echo(fit_line(f"hidden: {clash.render()}", width))
    for bad in catalog.invalid:
        echo(fit_line(f"invalid: {bad.render()}", width))


def catalog_json(catalog: Catalog) -> dict[str, object]:
    return {
        "skills": [
            {
                "name": s.name,
                "source": s.source,
                "location": s.label,
                "description": s.description,
                "size": s.size,
                "path": str(s.folder),
            }
            for s in catalog.skills
        ],
        "hidden": [
            {"name": c.skill.name, "path": str(c.skill.folder), "hiddenBy": str(c.by.folder)}
            for c in catalog.shadowed
        ],
        "invalid": [
            {"path": str(b.folder), "problems": [p.render() for p in b.problems]}
            for b in catalog.invalid
        ],
    }


@skills.command("show")
@click.argument("name")
@agent_option
def show_cmd(name: str, agent: str | None) -> None:
    """Show a skill's instructions, its folder and the files it bundles."""
    from mini_letta.cli.world import current_world
    from mini_letta.skills.load import load_skill_text

    echo(load_skill_text(find_catalog(agent), name, current_world().cwd))


@skills.command("validate")
@click.argument("path", required=False, type=click.Path(path_type=Path))
@agent_option
def validate_cmd(path: Path | None, agent: str | None) -> None:
    """Check skills against the standard: PATH (a skill, or a folder of skills), else every
    skill found. Exits 1 when any is invalid."""
    from mini_letta.errors import MiniLettaError
    from mini_letta.skills.discover import (
        Catalog,
        InvalidSkill,
        SkillRoot,
        discover_skills,
        read_skill,
    )

    if path is None:
        catalog = find_catalog(agent)
    elif (path / "SKILL.md").exists():
        found = read_skill(path, SkillRoot("project", str(path.parent), path.parent))
        catalog = Catalog((), (found,)) if isinstance(found, InvalidSkill) else Catalog((found,))
    elif path.is_dir():
        catalog = discover_skills((SkillRoot("project", str(path), path),))
    else:
        raise MiniLettaError(f"{path} is not a skill folder or a folder of skills")
    for skill in catalog.skills:
        echo(f"ok       {skill.name} ({skill.folder})")
    for bad in catalog.invalid:
        for problem in bad.problems:
            echo(f"invalid  {bad.folder}: {problem.render()}")
    if catalog.invalid:
        raise MiniLettaError(f"{len(catalog.invalid)} invalid skill(s)")
    if not catalog.skills:
        echo("No skills found.")


@skills.command("import")
@click.argument("source", metavar="PATH|GIT-URL")
@click.option(
    "--to",
    "where",
    type=click.Choice(["memory", "project", "user"]),
    default="memory",
    show_default=True,
    help="memory: the agent's memory (committed, synced); project: .agents/skills here; "
    "user: ~/.agents/skills.",
)
@agent_option
def import_cmd(source: str, where: str, agent: str | None) -> None:
    """Import the skill(s) in a folder or a git repository (cloned with hardened git)."""
    from mini_letta.cli.world import current_world
    from mini_letta.errors import InvalidValueError
    from mini_letta.home import SKILL_FOLDERS, user_home_dir
    from mini_letta.skills.transfer import import_into_memory, import_skills
    from mini_letta.workspace import resolve_agent

    world = current_world()
    if where == "memory":
        record = resolve_agent(world, agent)
        done = import_into_memory(world.home.memory_dir(record.id), source, world.environ)
    else:
        base = world.cwd if where == "project" else user_home_dir(world.environ)
        if base is None:
            raise InvalidValueError("--to user needs HOME to be set")
        done = import_skills(source, base.joinpath(*SKILL_FOLDERS[0].split("/")), world.environ)
    for skill, folder in done:
        echo(f"Imported {skill.name} into {where}: {folder}")


@skills.command("export")
@click.argument("name")
@click.option("-o", "--output", "out_dir", required=True, type=click.Path(path_type=Path),
              help="The folder to write NAME/ into.")  # fmt: skip
@agent_option
def export_cmd(name: str, out_dir: Path, agent: str | None) -> None:
    """Copy a skill's folder (as the standard lays it out) to another place."""
    from mini_letta.skills.load import find_skill
    from mini_letta.skills.transfer import export_skill

    folder = export_skill(find_skill(find_catalog(agent), name), out_dir)
    echo(f"Exported {name} to {folder}")
