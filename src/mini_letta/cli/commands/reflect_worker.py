"""`mini-letta _reflect-worker` (hidden): one detached reflection, then the queue behind it.

Started by `cli/background.py` with no terminal, so everything it has to say goes to the
agent's outbox: its own outcome (automatic outcomes only once per failure streak) and the
outcome of every queued launch it runs after its own. It never decides whether to reflect:
the turn's process did that.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mini_letta.cli.terminal import Terminal


def run_reflect_worker(words: list[str], terminal: Terminal) -> int:
    """The worker for the command line after `_reflect-worker` (cli/background.py writes it);
    `cli/main.py` runs it without click."""
    from mini_letta.agents.registry import load_agent
    from mini_letta.cli.background import cli_spawner, read_worker_args
    from mini_letta.cli.world import world_of
    from mini_letta.conversations.registry import open_conversation
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

    args = read_worker_args(words)
    agent_id, conversation_id, trigger = args.agent_id, args.conversation_id, args.trigger
    world = world_of(terminal)
    agent = load_agent(world.home, agent_id)
    sync = AutoSync(world, agent, cli_spawner(world))  # a merge below syncs, when that is on
    try:
        store = open_conversation(world.home, agent.id, conversation_id)
        files = read_settings(world.home, world.project_dir)
        hooks = None
        if files.hook_layers():  # the usual case imports nothing of hooks/
            from mini_letta.hooks.runner import open_hook_runner

            hooks = open_hook_runner(files, store, world.project_dir, world.environ)
        with drained_after(world, agent.id):
            if trigger == "manual":
                options = LaunchOptions(trigger="manual", instruction=args.instruction)
                outcome = hooked_launch(
                    hooks, "manual", lambda: launch(world, agent, store, options)
                )
                post_outcome(world.home, agent.id, outcome, world.clock)
            else:
                launched = hooked_launch(
                    hooks,
                    trigger,
                    lambda: launch_automatic(world, agent, store, trigger),
                )
                if isinstance(launched, ReflectionOutcome):
                    post_automatic_outcome(world.home, agent.id, launched, clock=world.clock)
        sync.after_turn()
    except Exception as exc:  # no terminal to report to: the outbox is the only way out
        detail = str(exc) or repr(exc)
        failed = ReflectionOutcome(
            message=skip_message("error", detail),
            skip_reason="error",
            trigger=trigger,
            conversation_id=conversation_id,
        )
        post_outcome(world.home, agent.id, failed, world.clock)
    return 0
