"""`reflect --all` and `import --reflect` on a terminal: the plan, the progress, Ctrl-C.

On a terminal (stderr) the progress is a rich bar: slices done and left, messages, tokens,
elapsed time and the time left. Without one it is a plain line per slice on stderr; with
`--output-format stream-json` a JSON event per slice on stdout. The first Ctrl-C asks the run
to stop after the slice in progress (finished slices stay; `reflect --all` resumes at the
watermark); a second one interrupts the slice itself.
"""

from __future__ import annotations

import json
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from mini_letta.cli.terminal import current_terminal, echo

if TYPE_CHECKING:
    from mini_letta.agents.records import AgentRecord
    from mini_letta.conversations.store import ConversationStore
    from mini_letta.reflection.api import (
        BacklogPlan,
        BacklogProgress,
        BacklogResult,
        LaunchOptions,
    )
    from mini_letta.workspace import World


def render_plan(plan: BacklogPlan) -> str:
    """The dry run's line: slices, tokens and, for a priced model, the estimated cost."""
    cost = plan.cost
    price = (
        f"about ${cost:.2f} at {plan.model}'s list price "
        f"({plan.input_tokens:,} input, {plan.output_tokens:,} output tokens)"
        if cost is not None
        else f"no price is known for {plan.model}"
    )
    return (
        f"conversation {plan.conversation_id}: {plan.messages:,} message(s) to reflect on in "
        f"{plan.slices:,} slice(s) of up to {plan.chunk_tokens:,} tokens, about "
        f"{plan.tokens:,} tokens of transcript; {price}. Nothing was sent."
    )


def reflect_all(
    world: World,
    agent: AgentRecord,
    store: ConversationStore,
    options: LaunchOptions,
    output_format: str,
) -> BacklogResult:
    """Reflect the conversation's whole backlog with progress; Ctrl-C stops between slices."""
    from mini_letta.reflection.api import plan_backlog, reflect_backlog

    plan = plan_backlog(world, agent, store)
    if output_format == "stream-json":
        echo(json.dumps(plan.to_json(), ensure_ascii=False))
    with _progress(plan, output_format) as show, _stop_on_ctrl_c() as stop:
        result = reflect_backlog(
            world, agent, store, plan=plan, on_slice=show, should_stop=stop, options=options
        )
    if result.stopped:
        echo(
            f"Stopped after {result.slices} slice(s); {result.messages_left:,} message(s) wait. "
            "`mini-letta reflect --all` goes on from there.",
            err=True,
        )
    return result


def reflect_all_command(
    world: World,
    agent: AgentRecord,
    store: ConversationStore,
    options: LaunchOptions,
    output_format: str = "text",
) -> None:
    """`reflect --all` and `import --reflect`: the whole backlog, then the outcome line; exit
    130 when Ctrl-C stopped it (a later `reflect --all` goes on), 1 when a slice failed."""
    import click

    from mini_letta.cli.reflection_view import render_outcome_line
    from mini_letta.reflection.api import drained_after

    with drained_after(world, agent.id):  # what was queued meanwhile runs after its line
        result = reflect_all(world, agent, store, options, output_format)
        echo(render_outcome_line(result.outcome), err=True)
    if result.stopped or not result.outcome.ok:
        raise click.exceptions.Exit(130 if result.stopped else 1)


@contextmanager
def _progress(plan: BacklogPlan, output_format: str) -> Iterator[Callable[[BacklogProgress], None]]:
    if output_format == "stream-json":
        yield lambda event: echo(json.dumps(event.to_json(), ensure_ascii=False))
        return
    terminal = current_terminal()
    if not _isatty(terminal.stderr):
        yield lambda event: echo(_line(event), err=True)
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    console = Console(file=terminal.stderr)
    columns = (
        TextColumn("☾ reflecting"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("slices · {task.fields[messages]} · {task.fields[tokens]}"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=console, transient=False) as bar:
        task = bar.add_task("reflect", total=max(1, plan.slices), messages="", tokens="0 tokens")

        def show(event: BacklogProgress) -> None:
            total = event.messages_done + event.messages_left
            bar.update(
                task,
                completed=event.slices_done,
                total=event.slices_done + event.slices_left,
                messages=f"{event.messages_done:,}/{total:,} msgs",
                tokens=f"{event.tokens_done:,} tokens",
            )

        yield show


def _line(event: BacklogProgress) -> str:
    eta = event.eta
    left = f", about {eta:.0f} s left" if eta is not None and event.slices_left else ""
    return (
        f"☾ slice {event.slices_done} ({event.outcome.status or event.outcome.skip_reason}): "
        f"{event.messages_done:,} message(s) done, {event.messages_left:,} left in about "
        f"{event.slices_left} slice(s); {event.tokens_done:,} tokens, {event.elapsed:.1f} s{left}"
    )


@contextmanager
def _stop_on_ctrl_c() -> Iterator[Callable[[], bool]]:
    """The first SIGINT sets a flag the run reads between slices; the second interrupts.
    Off the main thread (an in-process caller) signals cannot be caught: nothing changes."""
    asked = threading.Event()
    if threading.current_thread() is not threading.main_thread():
        yield asked.is_set
        return

    def on_sigint(signum: int, frame: Any) -> None:
        if asked.is_set():
            raise KeyboardInterrupt
        asked.set()
        echo("\nStopping after this slice (Ctrl-C again interrupts it).", err=True)

    previous = signal.signal(signal.SIGINT, on_sigint)
    try:
        yield asked.is_set
    finally:
        signal.signal(signal.SIGINT, previous)


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False
