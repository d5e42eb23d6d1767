"""The slash commands an editor lists (`available_commands_update`) and how each one runs.

Each command is the CLI command of the same job for the session's agent and conversation
(`/memory` is `mini-letta memory tree --agent ID`), run in-process by the front end's
`CommandRunner` with its output captured, so the editor, the terminal session and the CLI
show the same thing and fail the same way. Its text comes back as an agent message.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from typing import TYPE_CHECKING

from mini_letta.structs import Struct

if TYPE_CHECKING:
    from acp.schema import AvailableCommand

    from mini_letta.workspace import World

CommandRunner = Callable[[list[str], "World"], str]  # argv of a CLI command -> its output


class Target(Struct, frozen=True):
    """What a command acts on."""

    agent_id: str
    conversation_id: str


ArgvBuilder = Callable[[Target, list[str]], list[str] | str]  # a string: a usage message


class AcpCommand(Struct, frozen=True):
    name: str  # without the slash, as ACP lists commands
    description: str
    hint: str | None  # how its input is written; None when it takes none
    argv: ArgvBuilder


def _memory(target: Target, args: list[str]) -> list[str] | str:
    return ["memory", *(args or ["tree"]), "--agent", target.agent_id]


def _search(target: Target, args: list[str]) -> list[str] | str:
    if not args:
        return "/search needs a query, e.g. /search pnpm or /search indentation --memory"
    return ["search", *args, "--agent", target.agent_id]


def _context(target: Target, args: list[str]) -> list[str] | str:
    return ["context", "--agent", target.agent_id, "--conversation", target.conversation_id]


def _status(target: Target, args: list[str]) -> list[str] | str:
    return ["status", "--agent", target.agent_id]


def _reflect(target: Target, args: list[str]) -> list[str] | str:
    instruction = ["-i", " ".join(args)] if args else []
    conversation = ["--conversation", target.conversation_id]
    return ["reflect", "--agent", target.agent_id, *conversation, *instruction]


def _reflections(target: Target, args: list[str]) -> list[str] | str:
    return ["reflections", *(args or ["list"]), "--agent", target.agent_id]


def _conversations(target: Target, args: list[str]) -> list[str] | str:
    return ["conversations", "list", "--agent", target.agent_id]


def _compact(target: Target, args: list[str]) -> list[str] | str:
    focus = ["--focus", " ".join(args)] if args else []
    return ["compact", "--agent", target.agent_id, "--conversation", target.conversation_id, *focus]


COMMANDS: tuple[AcpCommand, ...] = (
    AcpCommand("memory", "the memory tree, a file, its history", "show PATH | log | diff | status", _memory),  # noqa: E501
    AcpCommand("search", "search every conversation (or memory) of this agent", "QUERY [--memory]", _search),  # noqa: E501
    AcpCommand("context", "where the context window goes", None, _context),
    AcpCommand("reflect", "reflect on this conversation now", "an instruction (optional)", _reflect),  # noqa: E501
    AcpCommand("reflections", "past reflection runs, or one run's diff", "show RUN-ID", _reflections),  # noqa: E501
    AcpCommand("status", "the agent, memory and reflection", None, _status),
    AcpCommand("conversations", "this agent's conversations", None, _conversations),
    AcpCommand("compact", "summarise the oldest messages now", "what to keep (optional)", _compact),  # noqa: E501
    AcpCommand("help", "these commands", None, lambda target, args: ""),
)  # fmt: skip
BY_NAME = {command.name: command for command in COMMANDS}


def is_command(text: str) -> bool:
    """A prompt that is one of our commands (`/memory show system/human.md`)."""
    name = text.strip().partition(" ")[0]
    return name.startswith("/") and name[1:] in BY_NAME


def help_text() -> str:
    rows = [f"/{c.name} {c.hint or ''}".rstrip() + f" — {c.description}" for c in COMMANDS]
    return "Commands:\n" + "\n".join(f"- {row}" for row in rows)


def run_command(text: str, target: Target, world: World, runner: CommandRunner) -> str:
    """The command's output (or its usage message) as the text of an agent message."""
    name, _, rest = text.strip().partition(" ")
    command = BY_NAME[name[1:]]
    if command.name == "help":
        return help_text()
    try:
        args = shlex.split(rest)
    except ValueError as exc:
        return f"mini-letta: {exc}"
    argv = command.argv(target, args)
    if isinstance(argv, str):
        return f"mini-letta: {argv}"
    return runner(argv, world).strip() or f"(/{command.name}: nothing to show)"


def available_commands() -> list[AvailableCommand]:
    from acp.schema import AvailableCommand, AvailableCommandInput, UnstructuredCommandInput

    return [
        AvailableCommand(
            name=command.name,
            description=command.description,
            input=None
            if command.hint is None
            else AvailableCommandInput(root=UnstructuredCommandInput(hint=command.hint)),
        )
        for command in COMMANDS
    ]
