"""Skills in the interactive session: `/skills` lists them, `/NAME [ARGS]` runs one.

`/NAME` is a skill only when no built-in command has that name (built-ins always win). The
turn it starts carries the skill's instructions in the user message, as the Skill tool would
have returned them, with ARGS after the command; one line on stderr says the skill was used.
"""

from __future__ import annotations

from mini_letta.cli.commands.slash_state import SlashState, run_click
from mini_letta.cli.terminal import echo_wrapped


def skills_cmd(state: SlashState, args: str) -> None:
    from mini_letta.cli.commands.skills import list_cmd

    run_click(list_cmd, ["--agent", state.session.agent.id], "/skills")


def skill_prompt(line: str, state: SlashState) -> str | None:
    """The user message `/NAME ARGS` stands for, or None when NAME is no skill (or one that is
    not user-invocable). The caller asks only when no built-in command has the name."""
    from mini_letta.skills.discover import discover_skills, skill_roots
    from mini_letta.skills.load import load_skill_text

    name, _, rest = line.partition(" ")
    if len(name) < 2:
        return None
    world = state.session.request.world
    memory_dir = world.home.memory_dir(state.session.agent.id)
    catalog = discover_skills(skill_roots(memory_dir, world.cwd, world.environ))
    skill = catalog.get(name[1:])
    if skill is None or not skill.file.user_invocable:
        return None
    text = load_skill_text(catalog, skill.name, world.cwd)
    echo_wrapped(f"  ⚙ skill {skill.name} ({skill.label})", err=True)
    request = rest.strip() or "(no arguments)"
    return f"Use the skill {skill.name} for this request: {request}\n\n{text}"
