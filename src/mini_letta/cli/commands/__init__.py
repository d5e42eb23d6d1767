"""The command groups, one module each, by name; `root.py` imports a command's module only when
that command runs (or `--help` lists them all), so `chat` pays for no other command."""

from __future__ import annotations

# command name -> "module:attribute" of its click command
COMMANDS: dict[str, str] = {
    "chat": "mini_letta.cli.commands.chat:chat",
    "agents": "mini_letta.cli.commands.agents:agents",
    "conversations": "mini_letta.cli.commands.conversations:conversations",
    "compact": "mini_letta.cli.commands.compact:compact",
    "config": "mini_letta.cli.commands.config:config",
    "context": "mini_letta.cli.commands.context:context",
    "models": "mini_letta.cli.commands.models:models",
    "memory": "mini_letta.cli.commands.memory:memory",
    "mcp": "mini_letta.cli.commands.mcp:mcp_cmd",
    "acp": "mini_letta.cli.commands.acp:acp",
    "mcp-servers": "mini_letta.cli.commands.mcp_servers:mcp_servers",
    "sleeptime": "mini_letta.cli.commands.sleeptime:sleeptime",
    "status": "mini_letta.cli.commands.status:status",
    "palace": "mini_letta.cli.commands.palace:palace",
    "reflect": "mini_letta.cli.commands.reflect:reflect",
    "dream": "mini_letta.cli.commands.reflect:dream",
    "reflections": "mini_letta.cli.commands.reflections:reflections",
    "eval": "mini_letta.cli.commands.eval:eval_group",
    "search": "mini_letta.cli.commands.recall:search",
    "import": "mini_letta.cli.commands.transcript_import:import_cmd",
    "skills": "mini_letta.cli.commands.skills:skills",
    "hooks": "mini_letta.cli.commands.hooks:hooks",
}
