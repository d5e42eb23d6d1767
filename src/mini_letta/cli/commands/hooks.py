"""`mini-letta hooks list`: the hooks the settings files configure, and which file says so."""

from __future__ import annotations

import json

import click

from mini_letta.cli.fit import fit_line
from mini_letta.cli.terminal import current_terminal, echo


@click.group()
def hooks() -> None:
    """Hooks: your commands run at the agent's lifecycle points (Claude Code's format)."""


@hooks.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def list_cmd(as_json: bool) -> None:
    """List every hook: event, matcher, command, timeout and the settings file it is in."""
    from mini_letta.cli.world import current_world
    from mini_letta.hooks.config import load_hook_config
    from mini_letta.settings import read_settings

    world = current_world()
    config = load_hook_config(read_settings(world.home, world.project_dir).hook_layers())
    if as_json:
        rows = [
            {
                "event": c.event,
                "matcher": c.matcher,
                "type": c.kind,
                "command": c.command,
                "timeout": c.timeout,
                "scope": c.scope,
                "file": str(c.file),
                "runs": c.runs,
            }
            for c in config.commands
        ]
        echo(json.dumps({"hooks": rows}, ensure_ascii=False, indent=2))
        return
    if not config.commands:
        echo("No hooks. Add them under `hooks` in settings.json (see the README's Hooks section).")
        return
    width = current_terminal().columns()
    for c in config.commands:
        matcher = f" [{c.matcher}]" if c.matcher else ""
        never = "" if c.runs else "  (never run: not an event or hook type mini-letta fires)"
        echo(fit_line(f"{c.event}{matcher}  {c.command or c.kind}  {c.timeout:g}s{never}", width))
        echo(fit_line(f"    from {c.scope} settings: {c.file}", width))
