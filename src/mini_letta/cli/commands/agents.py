"""`mini-letta agents list|create|show|rename|delete`."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TypeVar

import click

from mini_letta.cli.fit import fit_line, text_columns, wrap_lines
from mini_letta.cli.options import agent_option, check_agent_name, check_base_url, model_option
from mini_letta.cli.terminal import current_terminal, echo

F = TypeVar("F", bound=Callable[..., object])


def _dump(data: object) -> None:
    echo(json.dumps(data, ensure_ascii=False, indent=2))


@click.group()
def agents() -> None:
    """Manage agents."""


@agents.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def list_cmd(as_json: bool) -> None:
    """List agents, oldest first."""
    from mini_letta.agents.registry import scan_agents
    from mini_letta.cli.world import current_world
    from mini_letta.settings import read_settings

    world = current_world()
    found, damaged = scan_agents(world.home)
    if as_json:
        _dump([agent.to_json() for agent in found] + [bad.to_json() for bad in damaged])
        return
    if not found and not damaged:
        echo("No agents yet; `mini-letta chat -p hello` creates one.")
        return
    current = read_settings(world.home, world.project_dir).current_agent_id()
    width = current_terminal().columns()
    for agent in found:
        mark = "*" if agent.id == current else " "
        line = f"{mark} {agent.name:<24} {agent.id}  {agent.model}"
        if width is not None and text_columns(line) > width:  # a narrow window: two rows
            head = fit_line(f"{mark} {agent.name}  {agent.model}", width)
            line = f"{head}\n{fit_line(f'    {agent.id}', width)}"
        echo(line)
    for line in wrap_lines([bad.render() for bad in damaged], width):
        echo(line)


def _settings_options(func: F) -> F:
    """The model settings an agent keeps in agent.json (create and set share them)."""
    func = click.option(
        "--tools", metavar="NAMES", help='Toolset, comma-separated ("default" resets it).'
    )(func)
    func = click.option(
        "--temperature", type=click.FloatRange(min=0, max=2), help="Sampling temperature."
    )(func)
    func = click.option(
        "--max-output-tokens", type=click.IntRange(min=1), help="Most tokens per model answer."
    )(func)
    func = click.option(
        "--context-window", type=click.IntRange(min=1), help="Context window in tokens."
    )(func)
    func = click.option(
        "--base-url",
        callback=check_base_url,
        help='Server URL of an OpenAI-compatible or Anthropic model ("" clears).',
    )(func)
    return model_option("Model handle, kept in agent.json (default: mock).")(func)


def _tools_value(value: str | None) -> tuple[str, ...] | None:
    from mini_letta.cli.chat_args import parse_tool_flag

    return None if value in (None, "default") else parse_tool_flag(value, "--tools")


@agents.command("create")
@click.option(
    "--name", callback=check_agent_name, help="A unique name (default: from this folder)."
)
@_settings_options
@click.option(
    "--memory-remote", metavar="URL", help="Join a memory shared through this git remote."
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def create_cmd(
    name: str | None,
    memory_remote: str | None,
    model: str | None,
    base_url: str | None,
    context_window: int | None,
    max_output_tokens: int | None,
    temperature: float | None,
    tools: str | None,
    as_json: bool,
) -> None:
    """Create an agent and make it this project's current one."""
    from mini_letta.cli.world import current_world
    from mini_letta.settings import remember_current
    from mini_letta.workspace import ModelSettings, new_agent

    world = current_world()
    settings = ModelSettings(_tools_value(tools), max_output_tokens, temperature)
    remote = None
    if memory_remote is not None:
        from mini_letta.memory.remote import check_remote_url

        remote = check_remote_url(memory_remote, world.cwd)
    agent = new_agent(
        world,
        name=name,
        model=model,
        context_window=context_window,
        base_url=base_url or None,
        settings=settings,
        memory_remote=remote,
    )
    remember_current(world.project_dir, agent.id, "")
    if as_json:
        _dump(agent.to_json())
    else:
        echo(f"Created agent {agent.name} ({agent.id}) on {agent.model}.")


@agents.command("set")
@agent_option
@_settings_options
@click.option(
    "--prompt-cache-ttl",
    type=click.Choice(["5m", "1h"]),
    help="How long Anthropic keeps the cached prompt prefix (default 5m; 1h costs more to write).",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def set_cmd(agent: str | None, as_json: bool, **values: object) -> None:
    """Change an agent's model settings in agent.json (default: this project's agent)."""
    from mini_letta.agents.registry import update_agent
    from mini_letta.cli.world import current_world
    from mini_letta.workspace import resolve_agent

    world = current_world()
    record = resolve_agent(world, agent, check_memory=False)
    changes = {key: value for key, value in values.items() if value is not None}
    if not changes:
        raise click.UsageError("nothing to change; give --model, --base-url, --tools, …")
    if "base_url" in changes:
        changes["base_url"] = changes["base_url"] or None
    if "tools" in changes:
        changes["tools"] = _tools_value(str(changes["tools"]))
    flags = ", ".join("--" + key.replace("_", "-") for key in sorted(changes))
    moved = _new_provider(record.model, changes) if record.base_url else None
    if moved is not None:  # the old server's URL would send the new provider's requests there
        changes["base_url"] = None
    updated = update_agent(world.home, record.id, lambda current: current.with_updates(**changes))
    if as_json:
        _dump(updated.to_json())
        return
    echo(f"Updated agent {updated.name} ({updated.id}): {flags}.")
    if moved is not None:
        echo(f"The base URL {record.base_url} was dropped: {moved} uses {moved}'s default URL.")


def _new_provider(current: str, changes: dict[str, object]) -> str | None:
    """The provider `changes` moves the agent to, when it is another one and no --base-url
    comes with it; else None."""
    from mini_letta.errors import MiniLettaError
    from mini_letta.llm.handles import parse_handle

    model = changes.get("model")
    if not isinstance(model, str) or "base_url" in changes:
        return None
    new = parse_handle(model).provider
    try:
        old = parse_handle(current).provider
    except MiniLettaError:  # a model agent.json names but no build knows: nothing to keep
        return new
    return new if new != old else None


@agents.command("show")
@agent_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def show_cmd(agent: str | None, as_json: bool) -> None:
    """Show an agent (default: this project's)."""
    from mini_letta.cli.world import current_world
    from mini_letta.conversations.registry import list_conversations
    from mini_letta.workspace import resolve_agent

    world = current_world()
    record = resolve_agent(world, agent, check_memory=False)
    if as_json:
        _dump(record.to_json())
        return
    count = len(list_conversations(world.home, record.id))
    echo(f"name:           {record.name}")
    echo(f"id:             {record.id}")
    echo(f"model:          {record.model}")
    echo(f"context window: {record.context_window or 'from the model'}")
    if record.base_url:
        echo(f"base URL:       {record.base_url}")
    if record.tools is not None:
        echo(f"tools:          {', '.join(record.tools) or '(none)'}")
    if record.prompt_cache_ttl:
        echo(f"prompt cache:   {record.prompt_cache_ttl}")
    echo(f"created:        {record.created_at}")
    echo(f"conversations:  {count}")
    echo(f"memory:         {world.home.memory_dir(record.id)}")


@agents.command("rename")
@click.argument("ref", metavar="ID|NAME")
@click.argument("new_name", metavar="NEW_NAME", callback=check_agent_name)
def rename_cmd(ref: str, new_name: str) -> None:
    """Rename an agent."""
    from mini_letta.agents.registry import find_agent, rename_agent
    from mini_letta.cli.world import current_world

    world = current_world()
    updated = rename_agent(world.home, find_agent(world.home, ref).id, new_name)
    echo(f"Renamed {updated.id} to {updated.name}.")


@agents.command("delete")
@click.argument("ref", metavar="ID|NAME")
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
def delete_cmd(ref: str, yes: bool) -> None:
    """Delete an agent with its memory and conversations."""
    from mini_letta.agents.registry import delete_agent, find_agent
    from mini_letta.cli.terminal import current_terminal
    from mini_letta.cli.world import current_world
    from mini_letta.errors import MiniLettaError

    world = current_world()
    record = find_agent(world.home, ref)
    question = f"Delete agent {record.name} ({record.id}), its memory and all its conversations?"
    if not yes and not current_terminal().confirm(question):
        raise MiniLettaError("not deleted (answer y, or pass --yes)")
    delete_agent(world.home, record.id)
    echo(f"Deleted agent {record.name} ({record.id}).")
