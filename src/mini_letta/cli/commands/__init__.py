"""The command groups, one module each; `main.py` registers every entry of COMMANDS."""

from __future__ import annotations

import click

from mini_letta.cli.commands.agents import agents
from mini_letta.cli.commands.chat import chat
from mini_letta.cli.commands.compact import compact
from mini_letta.cli.commands.conversations import conversations
from mini_letta.cli.commands.mcp import mcp_cmd
from mini_letta.cli.commands.memory import memory
from mini_letta.cli.commands.reflect import dream, reflect
from mini_letta.cli.commands.reflect_worker import reflect_worker
from mini_letta.cli.commands.reflections import reflections
from mini_letta.cli.commands.sleeptime import sleeptime
from mini_letta.cli.commands.status import status

COMMANDS: tuple[click.Command, ...] = (
    chat,
    agents,
    conversations,
    compact,
    memory,
    mcp_cmd,
    sleeptime,
    status,
    reflect,
    dream,
    reflections,
    reflect_worker,
)
