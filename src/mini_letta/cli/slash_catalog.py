"""The interactive session's slash commands by name, with one line each: /help, completion and
"did you mean" all read this table, so a command added here shows up in all three."""

from __future__ import annotations

import difflib
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class SlashInfo:
    name: str  # with its slash: "/memory"
    description: str  # one line, for /help and the completion menu
    usage: str = ""  # the arguments, for /help: "[TEXT]"


CATALOG: tuple[SlashInfo, ...] = (
    SlashInfo("/help", "this list"),
    SlashInfo("/new", "start a new conversation"),
    SlashInfo("/compact", "summarise the oldest messages of this conversation now"),
    SlashInfo("/recompile", "show memory as it is now in the system prompt (from the next turn)"),
    SlashInfo("/status", "this conversation: context, tokens used, prompt cache, memory shown"),
    SlashInfo("/reflect", "reflect on this conversation now, in the background", "[TEXT]"),
    SlashInfo("/dream", "the same as /reflect", "[TEXT]"),
    SlashInfo(
        "/sleeptime", "show or change when reflection runs (--trigger, --steps, ...)", "[...]"
    ),
    SlashInfo("/exit", "leave (Ctrl-D works too)"),
)


def help_text(catalog: tuple[SlashInfo, ...] = CATALOG) -> str:
    rows = [(f"{info.name} {info.usage}".strip(), info.description) for info in catalog]
    width = max(len(left) for left, _ in rows) + 2
    return "Commands:\n" + "\n".join(f"  {left:<{width}}{right}" for left, right in rows)


def suggest(name: str, catalog: tuple[SlashInfo, ...] = CATALOG) -> str | None:
    """The known command closest to a mistyped one, if one is close enough."""
    close = difflib.get_close_matches(name, [info.name for info in catalog], n=1, cutoff=0.6)
    return close[0] if close else None


def unknown_command_line(name: str, catalog: tuple[SlashInfo, ...] = CATALOG) -> str:
    guess = suggest(name, catalog)
    hint = f" did you mean {guess}?" if guess else ""
    return f"Unknown command {name};{hint} /help lists them."
