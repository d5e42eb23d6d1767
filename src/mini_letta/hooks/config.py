"""The `hooks` object of the settings files, in Claude Code's shape, parsed and matched.

    {"hooks": {"PreToolUse": [{"matcher": "Bash|Write",
                               "hooks": [{"type": "command", "command": "…", "timeout": 30}]}]}}

Hooks of every settings file run (user's, then the project's, then the project-local ones), each
remembering its file. A matcher is a tool name, `A|B`, a regular expression (searched in the
name, as Claude Code does) or `*`/empty for all; events without a target ignore it. Events and
hook types this program never fires (Claude Code's `Notification`, `prompt` hooks) are kept so
`hooks list` can say so, and never run. A malformed object is a ConfigError naming the file.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Literal, get_args

from mini_letta.errors import ConfigError
from mini_letta.settings import HookLayer, HookScope
from mini_letta.structs import Struct

HookEvent = Literal[
    "PreToolUse",
    "PostToolUse",
    "UserPromptSubmit",
    "SessionStart",
    "Stop",
    "PreCompact",
    "PreReflect",
    "PostReflect",
]
HOOK_EVENTS: tuple[HookEvent, ...] = get_args(HookEvent)
DEFAULT_TIMEOUT = 60.0
MAX_TIMEOUT = 3600.0
_NAMES_ONLY = re.compile(r"[A-Za-z0-9_|]*")


class HookCommand(Struct, frozen=True):
    """One configured hook: a shell command with its timeout and where it was written."""

    event: str
    matcher: str
    command: str
    timeout: float
    scope: HookScope
    file: Path
    kind: str = "command"  # Claude Code's other types (`prompt`, `http`) are listed, never run

    @property
    def runs(self) -> bool:
        """Whether this program ever runs it: a command hook of an event it fires."""
        return self.kind == "command" and self.event in HOOK_EVENTS

    def matches(self, target: str | None) -> bool:
        """Whether the hook applies to `target` (a tool name, a SessionStart source, …);
        None: the event has no target, so every hook of it applies."""
        if target is None:
            return True
        return matcher_applies(self.matcher, target)


class HookConfig(Struct, frozen=True):
    commands: tuple[HookCommand, ...]

    def for_event(self, event: HookEvent, target: str | None = None) -> list[HookCommand]:
        """The hooks to run for `event` on `target`, in the order they were configured."""
        return [c for c in self.commands if c.event == event and c.runs and c.matches(target)]

    def has(self, event: HookEvent) -> bool:
        return any(c.event == event and c.runs for c in self.commands)


def matcher_applies(matcher: str, target: str) -> bool:
    """`Bash`, `Edit|Write`, `Notebook.*`, `*` and `` as Claude Code reads them."""
    if matcher in ("", "*"):
        return True
    if _NAMES_ONLY.fullmatch(matcher):
        return target in matcher.split("|")
    return re.search(matcher, target) is not None  # checked to compile when parsed


def load_hook_config(layers: Sequence[HookLayer]) -> HookConfig:
    """Every file's hooks, user's first; ConfigError naming the file and the place in it."""
    commands: list[HookCommand] = []
    for layer in layers:
        commands += _parse_layer(layer)
    return HookConfig(tuple(commands))


def _parse_layer(layer: HookLayer) -> list[HookCommand]:
    where = f"{layer.file}: hooks"
    if not isinstance(layer.hooks, Mapping):
        raise ConfigError(f"{where} must be an object of events")
    found: list[HookCommand] = []
    for event, groups in layer.hooks.items():
        if not isinstance(groups, list):
            raise ConfigError(f"{where}.{event} must be a list of matcher groups")
        for index, group in enumerate(groups):
            found += _parse_group(layer, str(event), group, f"{where}.{event}[{index}]")
    return found


def _parse_group(layer: HookLayer, event: str, group: object, where: str) -> list[HookCommand]:
    if not isinstance(group, Mapping):
        raise ConfigError(f"{where} must be an object with `hooks` (and a `matcher`)")
    matcher = group.get("matcher", "")
    if matcher is None:
        matcher = ""
    if not isinstance(matcher, str):
        raise ConfigError(f"{where}.matcher must be a string")
    if not _NAMES_ONLY.fullmatch(matcher) and matcher != "*":
        try:
            re.compile(matcher)
        except re.error as exc:
            raise ConfigError(f"{where}.matcher is not a valid regular expression ({exc})") from exc
    hooks = group.get("hooks")
    if not isinstance(hooks, list):
        raise ConfigError(f"{where}.hooks must be a list of hooks")
    return [
        _parse_hook(layer, event, matcher, hook, f"{where}.hooks[{index}]")
        for index, hook in enumerate(hooks)
    ]


def _parse_hook(
    layer: HookLayer, event: str, matcher: str, hook: object, where: str
) -> HookCommand:
    if not isinstance(hook, Mapping):
        raise ConfigError(f'{where} must be an object such as {{"type": "command", "command": …}}')
    kind = hook.get("type", "command")
    if not isinstance(kind, str):
        raise ConfigError(f"{where}.type must be a string")
    command = hook.get("command", "")
    if kind == "command" and (not isinstance(command, str) or not command.strip()):
        raise ConfigError(f"{where}.command must be a non-empty string")
    timeout = hook.get("timeout", DEFAULT_TIMEOUT)
    if (
        not isinstance(timeout, int | float)
        or isinstance(timeout, bool)
        or not 0 < timeout <= MAX_TIMEOUT
    ):
        raise ConfigError(f"{where}.timeout must be a number of seconds, above 0 and at most 3600")
    return HookCommand(
        event=event,
        matcher=matcher,
        command=command if isinstance(command, str) else "",
        timeout=float(timeout),
        scope=layer.scope,
        file=layer.file,
        kind=kind,
    )
