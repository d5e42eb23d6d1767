"""`mini-letta models`: the aliases `--model` takes and what each resolves to, the providers
with their keys (set or not, never the key itself), and the model a new agent here would get."""

from __future__ import annotations

import json

import click

BARE_NAMES = (
    "A bare name works too: claude-… (anthropic), gpt-…, o1, o3, o4-… (openai), and an Ollama "
    "tag, NAME:TAG or a family Ollama serves (llama3.2, qwen2.5-coder:7b) (ollama)."
)


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def models(as_json: bool) -> None:
    """List model aliases, providers with a key set, and what a new agent would use."""
    from mini_letta.cli.fit import wrap_lines
    from mini_letta.cli.terminal import current_terminal, echo
    from mini_letta.cli.world import current_world
    from mini_letta.llm.availability import alias_table, provider_states
    from mini_letta.settings import new_agent_model, read_settings

    world = current_world()
    aliases = alias_table()
    states = provider_states(world.environ)
    choice = new_agent_model(read_settings(world.home, world.project_dir), world.environ)
    if as_json:
        data = {
            "aliases": dict(aliases),
            "providers": [state.to_json() for state in states],
            "newAgentModel": {"handle": choice.handle, "reason": choice.reason},
        }
        echo(json.dumps(data, ensure_ascii=False, indent=2))
        return
    lines = ["Aliases (--model NAME):"]
    lines += [f"  {alias:<12} {handle}" for alias, handle in aliases]
    lines.append("Providers (--model PROVIDER/MODEL):")
    for state in states:
        if state.key_env is None:
            key = "no key needed"
        else:
            key = f"{state.key_env} {'set' if state.key_set else 'not set'}"
        where = state.base_url + (f" (from {state.url_from})" if state.url_from else "")
        lines.append(f"  {state.name:<12} {key:<26} {where}")
    lines.append(BARE_NAMES)
    why = f" ({choice.reason})" if choice.reason else " (configured)"
    lines.append(f"A new agent here gets {choice.handle}{why}.")
    echo("\n".join(wrap_lines(lines, current_terminal().columns())))
