"""The interactive session's slash commands: one table that dispatch, /help and completion read.

Each entry has its name, how its arguments are written, a one-line description, the handler
and, where the argument names something that exists (a memory file, an agent, a conversation,
a mode), a completer the input layer can offer. A mistyped name gets the closest one.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable

from mini_letta.cli.commands import slash_memory as mem
from mini_letta.cli.commands import slash_session as ses
from mini_letta.cli.commands import slash_skills as skl
from mini_letta.cli.commands.slash_state import SlashState
from mini_letta.cli.fit import wrap_line
from mini_letta.cli.terminal import echo, echo_wrapped
from mini_letta.structs import Struct

Handler = Callable[[SlashState, str], None]
Completer = Callable[[SlashState, str], list[str]]


class SlashCommand(Struct, frozen=True):
    name: str
    usage: str  # how the arguments are written, "" for none
    description: str
    handler: Handler
    complete: Completer | None = None


def _memory_words(state: SlashState, prefix: str) -> list[str]:
    """Subcommands, then memory file paths after `show`/`edit`."""
    from mini_letta.memory.edits import list_memory_tree

    sub, _, rest = prefix.partition(" ")
    if not _:
        return [w for w in ("show", "log", "diff", "edit", "status") if w.startswith(sub)]
    if sub not in ("show", "edit"):
        return []
    folder = state.session.request.world.home.memory_dir(state.session.agent.id)
    return [f"{sub} {path}" for path, _d in list_memory_tree(folder) if path.startswith(rest)]


def _agent_names(state: SlashState, prefix: str) -> list[str]:
    from mini_letta.agents.registry import list_agents

    names = [agent.name for agent in list_agents(state.session.request.world.home)]
    return [name for name in names if name.startswith(prefix)]


def _conversation_ids(state: SlashState, prefix: str) -> list[str]:
    from mini_letta.conversations.registry import list_conversations

    session = state.session
    found = list_conversations(session.request.world.home, session.agent.id)
    return [conv.id for conv in found if conv.id.startswith(prefix)]


def _models(state: SlashState, prefix: str) -> list[str]:
    """The agent's own model, the aliases, then every provider's prefix."""
    from mini_letta.llm.handles import ALIASES, REMOTE_PROVIDERS

    words = [state.session.agent.model, "mock", "script:", *ALIASES]
    words += [f"{name}/" for name in REMOTE_PROVIDERS]
    return [word for word in dict.fromkeys(words) if word.startswith(prefix)]


def _call_numbers(state: SlashState, prefix: str) -> list[str]:
    """The numbers of the last turn's tool calls, then `all`."""
    from mini_letta.cli.tool_detail import load_last_turn_calls

    found = load_last_turn_calls(state.session.store)
    words = [str(detail.number) for detail in found] + (["all"] if found else [])
    return [word for word in words if word.startswith(prefix)]


def _modes(state: SlashState, prefix: str) -> list[str]:
    from mini_letta.tools.permissions import PERMISSION_MODES

    return [mode for mode in PERMISSION_MODES if mode.startswith(prefix)]


def _help(state: SlashState, args: str) -> None:
    echo("\n".join(help_lines(state.terminal.columns())))


def _exit(state: SlashState, args: str) -> None:
    """Handled by the loop (it ends the session); listed here for /help and completion."""


COMMANDS: tuple[SlashCommand, ...] = (
    SlashCommand("/help", "", "this list", _help),
    SlashCommand("/memory", "[show|log|diff|edit]", "the memory tree, a file, its history", mem.memory_cmd, _memory_words),  # noqa: E501
    SlashCommand("/search", "QUERY [--memory]", "search every conversation (or memory) of this agent", mem.search_cmd),  # noqa: E501
    SlashCommand("/model", "[MODEL]", "show the model, or switch this session to another", ses.model_cmd, _models),  # noqa: E501
    SlashCommand("/agents", "", "list the agents", ses.agents_cmd),
    SlashCommand("/agent", "NAME", "switch to another agent", ses.agent_cmd, _agent_names),
    SlashCommand("/conversations", "", "list this agent's conversations", ses.conversations_cmd),
    SlashCommand("/resume", "[ID]", "continue another conversation (a picker without ID)", ses.resume_cmd, _conversation_ids),  # noqa: E501
    SlashCommand("/new", "", "start a new conversation", ses.new_cmd),
    SlashCommand("/clear", "", "start afresh: a new conversation, memory kept", ses.new_cmd),
    SlashCommand("/compact", "[FOCUS]", "summarise the oldest messages now (keeping FOCUS)", ses.compact_cmd),  # noqa: E501
    SlashCommand("/expand", "[N|all]", "a tool call of the last turn in full (Ctrl-O: the last)", ses.expand_cmd, _call_numbers),  # noqa: E501
    SlashCommand("/context", "", "where the context window goes, as a bar", ses.context_cmd),
    SlashCommand("/recompile", "", "show memory as it is now in the system prompt (next turn)", mem.recompile_cmd),  # noqa: E501
    SlashCommand("/reflect", "[TEXT]", "reflect on this conversation now, in the background", mem.reflect_cmd),  # noqa: E501
    SlashCommand("/dream", "[TEXT]", "the same as /reflect", mem.reflect_cmd),
    SlashCommand("/sleeptime", "[--trigger ...]", "show or change when reflection runs", mem.sleeptime_cmd),  # noqa: E501
    SlashCommand("/reflections", "[show RUN-ID]", "past reflection runs, or one run's diff", mem.reflections_cmd),  # noqa: E501
    SlashCommand("/undo", "[RUN-ID|REV]", "revert the last memory change, or a reflection run", mem.undo_cmd),  # noqa: E501
    SlashCommand("/status", "", "the agent, memory, reflection and this conversation", mem.status_cmd),  # noqa: E501
    SlashCommand("/skills", "", "the skills this agent can use (/NAME runs one)", skl.skills_cmd),  # noqa: E501
    SlashCommand("/palace", "[--open] [-o FILE]", "write the memory palace page (and open it)", mem.palace_cmd),  # noqa: E501
    SlashCommand("/permissions", "[MODE]", "show or change this session's permission mode", ses.permissions_cmd, _modes),  # noqa: E501
    SlashCommand("/exit", "", "leave (Ctrl-D works too)", _exit),
)  # fmt: skip
BY_NAME = {command.name: command for command in COMMANDS}
ALIASES = {"/quit": "/exit", "/q": "/exit", "/?": "/help"}
EXIT = "/exit"


HELP_COLUMN = 32  # where descriptions start in the two-column table
HELP_LEAST = 20  # columns a description needs beside the names, else it goes below them


def help_lines(width: int | None = None) -> list[str]:
    """The table of commands; in a narrow window descriptions wrap in their column, and in a
    very narrow one each goes, wrapped, under its command."""
    lines = ["Commands:"]
    beside = width is None or width - HELP_COLUMN >= HELP_LEAST
    for command in COMMANDS:
        head = f"{command.name} {command.usage}".rstrip()
        if beside:
            lines += wrap_line(f"  {head:<29} {command.description}", width, HELP_COLUMN)
        else:
            lines += [
                *wrap_line(f"  {head}", width),
                *wrap_line(f"      {command.description}", width, 6),
            ]
    return lines


def find_command(name: str) -> SlashCommand | None:
    return BY_NAME.get(ALIASES.get(name, name))


def unknown_message(name: str) -> str:
    close = difflib.get_close_matches(name, list(BY_NAME), n=1, cutoff=0.6)
    if close:
        return f"Unknown command {name}; did you mean {close[0]}?"
    return f"Unknown command {name}; /help lists them."


def run_slash_command(line: str, state: SlashState) -> bool:
    """Run a `/command args` line; False when it asks to leave the session."""
    name, _, rest = line.partition(" ")
    command = find_command(name)
    if command is None:
        echo_wrapped(unknown_message(name), err=True)
        return True
    if command.name == EXIT:
        return False
    command.handler(state, rest.strip())
    return True
