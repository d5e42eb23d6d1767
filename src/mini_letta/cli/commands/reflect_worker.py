"""`mini-letta _reflect-worker` (hidden): one detached reflection, then the queue behind it.

Started by `cli/background.py` with no terminal, so everything it has to say goes to the
agent's outbox: its own outcome (automatic outcomes only once per failure streak) and the
outcome of every queued launch it runs after its own. It never decides whether to reflect:
the turn's process did that.
"""

from __future__ import annotations

import click

from mini_letta.cli.background import WORKER_COMMAND


@click.command(WORKER_COMMAND, hidden=True)
@click.option("--agent", "agent_id", required=True)
@click.option("--conversation", "conversation_id", required=True)
@click.option(
    "--trigger", type=click.Choice(["manual", "step-count", "compaction-event"]), required=True
)
@click.option("--instruction", default=None)
def reflect_worker(
    agent_id: str, conversation_id: str, trigger: str, instruction: str | None
) -> None:
    from mini_letta.agents.registry import load_agent
    from mini_letta.cli.background import cli_spawner
    from mini_letta.cli.world import current_world
    from mini_letta.conversations.registry import open_conversation
    from mini_letta.hooks.runner import open_hook_runner
    from mini_letta.reflection.api import (
        LaunchOptions,
        ReflectionOutcome,
        drained_after,
        hooked_launch,
        launch,
        launch_automatic,
        post_automatic_outcome,
        post_outcome,
        skip_message,
    )
    from mini_letta.session import AutoSync
    from mini_letta.settings import read_settings

    world = current_world()
    agent = load_agent(world.home, agent_id)
    sync = AutoSync(world, agent, cli_spawner(world))  # a merge below syncs, when that is on
    try:
        store = open_conversation(world.home, agent.id, conversation_id)
        files = read_settings(world.home, world.project_dir)
        hooks = open_hook_runner(files, store, world.project_dir, world.environ)
        with drained_after(world, agent.id):
            if trigger == "manual":
                options = LaunchOptions(trigger="manual", instruction=instruction)
                outcome = hooked_launch(
                    hooks, "manual", lambda: launch(world, agent, store, options)
                )
                post_outcome(world.home, agent.id, outcome, world.clock)
            else:
                launched = hooked_launch(
                    hooks,
                    trigger,  # type: ignore[arg-type]
                    lambda: launch_automatic(world, agent, store, trigger),  # type: ignore[arg-type]
                )
                if isinstance(launched, ReflectionOutcome):
                    post_automatic_outcome(world.home, agent.id, launched, clock=world.clock)
        sync.after_turn()
    except Exception as exc:  # no terminal to report to: the outbox is the only way out
        detail = str(exc) or repr(exc)
        failed = ReflectionOutcome(
            message=skip_message("error", detail),
            skip_reason="error",
            trigger=trigger,  # type: ignore[arg-type]
            conversation_id=conversation_id,
        )
        post_outcome(world.home, agent.id, failed, world.clock)
