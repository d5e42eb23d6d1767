"""`mini-letta sleeptime`: show or change when reflection runs."""

from __future__ import annotations

import click

from mini_letta.cli.options import agent_option
from mini_letta.cli.terminal import echo


@click.command()
@click.option("--trigger", metavar="off|step-count|compaction-event", help="When to reflect.")
@click.option("--steps", metavar="N", help="Assistant steps between reflections (step-count).")
@click.option(
    "--merge", metavar="auto|explicit", help="Merge memory edits yourself or review them."
)
@click.option("--merge-instructions", metavar="TEXT", help="What the review should look for.")
@click.option(
    "--memory-sync", metavar="off|after-merge", help="Sync memory to its remote after changes."
)
@click.option(
    "--model", metavar="MODEL", help="The reflection model (default: the agent's; '' resets)."
)
@click.option("--base-url", metavar="URL", help="The reflection model's server.")
@click.option(
    "--review-model",
    metavar="MODEL",
    help="A second model that accepts or rejects each hunk the gate let through ('' resets).",
)
@click.option("--review-base-url", metavar="URL", help="The review model's server.")
@click.option("--global", "to_global", is_flag=True, help="Save as the default for every agent.")
@click.option("--local", "to_local", is_flag=True, help="Save for this agent in this project only.")
@agent_option
def sleeptime(
    trigger: str | None,
    steps: str | None,
    merge: str | None,
    merge_instructions: str | None,
    memory_sync: str | None,
    model: str | None,
    base_url: str | None,
    review_model: str | None,
    review_base_url: str | None,
    to_global: bool,
    to_local: bool,
    agent: str | None,
) -> None:
    """Save reflection settings (to agent.json by default) and print the effective ones."""
    from mini_letta.cli.world import current_world
    from mini_letta.reflection.api import (
        Scope,
        build_settings_patch,
        load_settings,
        render_settings_json,
        save_settings,
    )
    from mini_letta.workspace import find_project_agent, resolve_or_create_agent

    if to_global and to_local:
        raise click.UsageError("use --global or --local, not both")
    patch = build_settings_patch(
        trigger=trigger,
        steps=steps,
        merge=merge,
        merge_instructions=merge_instructions,
        memory_sync=memory_sync,
        model=model,
        base_url=base_url,
        review_model=review_model,
        review_base_url=review_base_url,
    )
    world = current_world()
    record = find_project_agent(world, agent)  # None before the first chat
    if patch:
        scope: Scope = "global" if to_global else "local" if to_local else "agent"
        if record is None and scope != "global":
            # Configuring this project's agent before its first chat makes the agent, as
            # that chat would; showing settings never does.
            record = resolve_or_create_agent(world, agent)
        settings = save_settings(world.home, world.project_dir, record, patch, scope)
    else:
        settings = load_settings(world.home, world.project_dir, record)
    echo(render_settings_json(settings))
