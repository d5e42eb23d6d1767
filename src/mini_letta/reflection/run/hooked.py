"""The user's PreReflect and PostReflect hooks around a reflection this process runs.

One place for every launch: `launch_reflection` and `launch_multi_reflection` wrap themselves
when their `LaunchOptions.hooks` is set (so `reflect`, `reflect --recent`, several
`--conversation`s and each slice of `reflect --all` run them), and the post-turn policy and the
detached worker wrap `launch_automatic` with it; a launch queued behind a running one gets
them when it is drained. A PreReflect block holds the run back (a
skip naming the reason, nothing run); PostReflect gets the outcome's JSON. Each hook is told
the conversations the run reflects on, the first of them as its `session_id`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from mini_letta.conversations.store import ConversationStore
    from mini_letta.hooks.runner import HookRunner
    from mini_letta.reflection.state.outcome import Queued, ReflectionOutcome, RunTrigger
    from mini_letta.workspace import World

_Outcome = TypeVar("_Outcome", "ReflectionOutcome", "ReflectionOutcome | Queued")


def hooked_launch(
    hooks: HookRunner | None,
    trigger: RunTrigger,
    launch: Callable[[], _Outcome],
    conversations: Sequence[str] = (),
) -> _Outcome | ReflectionOutcome:
    """`launch()` with the hooks around it (`conversations`: the run's, when not only the
    hooks' own conversation)."""
    if hooks is None:
        return launch()
    from mini_letta.reflection.state.outcome import ReflectionOutcome

    held = hooks.before_reflect(trigger, conversations)
    if held.blocked:
        message = f"A PreReflect hook held the reflection back: {held.reason}"
        return ReflectionOutcome(message, skip_reason="error", trigger=trigger)
    outcome = launch()
    hooks.after_reflect(trigger, outcome.to_json(), conversations)
    return outcome


def open_reflect_hooks(world: World, store: ConversationStore) -> HookRunner | None:
    """The settings files' reflect hooks for a run whose first conversation is `store`; None
    when no settings file has hooks (then nothing of hooks/ is imported)."""
    from mini_letta.settings import read_settings

    files = read_settings(world.home, world.project_dir)
    if not files.hook_layers():
        return None
    from mini_letta.hooks.runner import open_hook_runner

    return open_hook_runner(files, store, world.project_dir, world.environ)
