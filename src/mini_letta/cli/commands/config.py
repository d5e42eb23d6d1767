"""`mini-letta config`: every setting in effect here, its value and where it came from.

The settings files are read once (settings.py `Settings`); reflection's keys are layered as
a turn layers them (defaults, settings.json, agent.json, this project's settings.local.json)."""

from __future__ import annotations

import json

import click

from mini_letta.cli.fit import fit_line
from mini_letta.cli.options import agent_option
from mini_letta.cli.terminal import current_terminal, echo


@click.command("config")
@agent_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def config(agent: str | None, as_json: bool) -> None:
    """Show each setting in effect, its value and the file (or default) it came from."""
    from mini_letta.cli.world import current_world
    from mini_letta.reflection.api import (
        layer_settings,
        layer_sources,
        load_reflection_mode,
        load_settings_layers,
    )
    from mini_letta.settings import Setting, read_settings
    from mini_letta.workspace import find_project_agent

    world = current_world()
    files = read_settings(world.home, world.project_dir)
    record = find_project_agent(world, agent, files)  # None before the first chat: defaults
    rows = files.origins(world.environ)
    mode_source = str(files.global_file) if "reflectionMode" in files.global_data else "default"
    rows.append(Setting("reflectionMode", load_reflection_mode(world.home, files), mode_source))
    layers = load_settings_layers(world.home, world.project_dir, record, files)
    values: dict[str, object] = dict(layer_settings(layers).to_json())
    for key, source in layer_sources(layers).items():
        rows.append(Setting(f"reflection.{key}", values[key], source))
    if as_json:
        data = [{"key": row.key, "value": row.value, "source": row.source} for row in rows]
        echo(json.dumps(data, ensure_ascii=False, indent=2))
        return
    width = current_terminal().columns()
    for row in rows:
        value = json.dumps(row.value, ensure_ascii=False)
        echo(fit_line(f"{row.key:<30} {value:<24} {row.source}", width))
