"""`mini-letta search QUERY`: recall for the user.

search prints, per hit, the conversation, date, role and a snippet with the matched words
highlighted (or, with --memory, path:line and the line); `--output-format json` prints a list
of hit objects. (`import`, which brings other tools' sessions in, is transcript_import.py.)
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import click

from mini_letta.cli.fit import wrap_lines
from mini_letta.cli.options import agent_option
from mini_letta.cli.terminal import current_terminal, echo
from mini_letta.structs import replace

if TYPE_CHECKING:
    from mini_letta.search.query import MemoryHit, MessageHit

_FORMATS = click.Choice(("text", "json"))


@click.command("search")
@click.argument("query")
@agent_option
@click.option("--conversation", metavar="ID", help="Only this conversation.")
@click.option("--since", metavar="DATE", help="Only messages from DATE on (YYYY-MM-DD or ISO).")
@click.option("--until", metavar="DATE", help="Only messages up to DATE (a day: inclusive).")
@click.option("--role", type=click.Choice(("user", "assistant")), help="Only this role.")
@click.option("--memory", "in_memory", is_flag=True, help="Search the memory files instead.")
@click.option("--limit", type=click.IntRange(1, 200), default=10, show_default=True)
@click.option("--output-format", "output_format", type=_FORMATS, default="text")
def search(
    query: str,
    agent: str | None,
    conversation: str | None,
    since: str | None,
    until: str | None,
    role: str | None,
    in_memory: bool,
    limit: int,
    output_format: str,
) -> None:
    """Search every conversation of the agent (or, with --memory, its memory files)."""
    from mini_letta.cli.world import current_world
    from mini_letta.conversations.registry import open_conversation
    from mini_letta.search.embeddings import load_embedder
    from mini_letta.search.query import MessageFilter, parse_time_bound
    from mini_letta.search.recall import Recall
    from mini_letta.workspace import resolve_agent

    if in_memory and (conversation or since or until or role):
        raise click.UsageError("--memory searches memory files: drop the message filters")
    where = MessageFilter(
        role=role,
        since=parse_time_bound(since, end=False, what="--since") if since else None,
        until=parse_time_bound(until, end=True, what="--until") if until else None,
        limit=limit,
    )
    world = current_world()
    record = resolve_agent(world, agent, check_memory=False)
    if conversation:
        store = open_conversation(world.home, record.id, conversation)
        where = replace(where, conversation_id=store.conversation_id)
    recall = Recall(world.home, record.id, load_embedder(world.home, world.environ))
    hits: list[MessageHit] | list[MemoryHit] = (
        recall.search_memory(query, limit) if in_memory else recall.search_messages(query, where)
    )
    if output_format == "json":
        echo(json.dumps([hit.to_json() for hit in hits], ensure_ascii=False, indent=2))
        return
    _print_hits(query, hits)


def _print_hits(query: str, hits: list[MessageHit] | list[MemoryHit]) -> None:
    from mini_letta.search.query import MessageHit
    from mini_letta.search.text import build_snippet, parse_query

    if not hits:
        echo("No matches.")
        return
    parsed = parse_query(query)
    words = parsed.words if parsed else ()
    terminal = current_terminal()
    marks = ("\x1b[1m", "\x1b[0m") if terminal.stdout.isatty() else ("**", "**")
    width = terminal.columns()
    for hit in hits:
        snippet = build_snippet(hit.text, words, marks=marks)
        if isinstance(hit, MessageHit):
            when = hit.created_at[:16].replace("T", " ")
            head = f"{hit.conversation_id}  {when}  {hit.role:<9}  {hit.message_id}"
        else:
            head = f"{hit.path}:{hit.line}"
        echo("\n".join(wrap_lines([head, f"  {snippet}"], width, 4)))
