"""The tool protocol, its context, and the runner that turns every failure into a result.

A tool is a `ToolSpec` (what the model sees) plus `run(args, ctx)`. The runner parses the
model's JSON arguments, checks permissions, and converts bad arguments, unknown tools,
refusals and exceptions into `ToolResult(is_error=True)` the model can read and recover from,
and caps every result at `ctx.output_cap`. Only KeyboardInterrupt escapes.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

from mini_letta.clock import Clock
from mini_letta.conversations.messages import ToolCall
from mini_letta.errors import MiniLettaError
from mini_letta.home import Home
from mini_letta.llm.base import ToolSpec
from mini_letta.storage.fields import FieldError
from mini_letta.structs import Struct, field
from mini_letta.tools.output import cap_text
from mini_letta.tools.permissions import Decision, PermissionMode, Refusal, decide
from mini_letta.tools.schema import argument_problem

if TYPE_CHECKING:
    from mini_letta.skills.discover import Catalog

ToolKind = Literal["read", "edit", "execute", "memory"]
Approver = Callable[[ToolCall, str], bool]


class ToolResult(Struct, frozen=True):
    content: str
    is_error: bool = False


class HookDecision(Struct, frozen=True):
    """What the user's PreToolUse hooks said of a call: `deny` refuses it with `reason`, `ask`
    asks the user even where the mode would not, `allow` skips asking (never a refusal of the
    mode or of --disallowed-tools); None leaves it to the permission rules."""

    decision: Decision | None = None
    reason: str = ""


class ToolHooks(Protocol):
    """The user's tool hooks (hooks/runner.py); a turn without hooks has None instead."""

    def before_tool(self, call: ToolCall, args: Mapping[str, Any]) -> HookDecision: ...

    def after_tool(self, call: ToolCall, args: Mapping[str, Any], result: ToolResult) -> str:
        """Feedback for the model on a call that ran ("" for none)."""
        ...


class ToolInputError(MiniLettaError):
    """The model called a tool with arguments it does not accept; shown to the model."""


class EditorFiles(Struct, frozen=True):
    """An editor's own reading and writing of the working directory's files (ACP's `fs/*`):
    Read sees unsaved changes, and Write and Edit show in the editor as they happen. Each is
    None when the editor does not offer it; paths are absolute and already confined."""

    read_text: Callable[[Path], str] | None = None
    write_text: Callable[[Path, str], None] | None = None


class ToolContext(Struct, frozen=True):
    cwd: Path
    clock: Clock
    agent_id: str = ""
    memory_dir: Path | None = None
    home: Home | None = None  # mini-letta's home: recall reads it, the file tools never change it
    permission_mode: PermissionMode = "default"
    allowed_tools: frozenset[str] = frozenset()
    disallowed_tools: frozenset[str] = frozenset()
    approve: Approver | None = None
    output_cap: int = 30_000
    bash_env_allow: frozenset[str] = frozenset()  # credential variables Bash may still see
    environ: Mapping[str, str] = field(default_factory=dict)  # the caller's (World's), for Bash
    skill_dirs: tuple[Path, ...] = ()  # the discovered skills' folders: readable, never written
    skills: Catalog | None = None  # the session's skills, for the Skill tool
    memory_file_cap: Callable[[], int] | None = None  # the memory tool's per-file token cap
    editor_files: EditorFiles | None = None  # an editor's fs methods (`mini-letta acp`)
    hooks: ToolHooks | None = None  # the user's PreToolUse and PostToolUse hooks


class Tool(Protocol):
    spec: ToolSpec
    kind: ToolKind

    def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult: ...


class ToolSource(Protocol):
    """Tools known only once asked for (the MCP servers'): nothing starts before then."""

    def tools(self) -> tuple[Tool, ...]: ...


class Toolset(Struct, frozen=True):
    tools: tuple[Tool, ...] = ()
    more: ToolSource | None = None  # asked at the first request's tool list, after `tools`

    def every(self) -> tuple[Tool, ...]:
        return self.tools if self.more is None else (*self.tools, *self.more.tools())

    @property
    def specs(self) -> tuple[ToolSpec, ...]:
        return tuple(tool.spec for tool in self.every())

    def get(self, name: str) -> Tool | None:
        for tool in self.every():
            if tool.spec.name == name:
                return tool
        return None

    def names(self) -> Sequence[str]:
        return [tool.spec.name for tool in self.every()]


def execute_tool_call(call: ToolCall, toolset: Toolset, ctx: ToolContext) -> ToolResult:
    """Run one call; the result (error or not) never holds a credential the scanner or the
    environment knows, since it is stored in messages.jsonl and shown as it is."""
    from mini_letta.tools.environment import credential_values

    result, ran = _execute(call, toolset, ctx)
    credentials = credential_values(ctx.environ)
    result = _redacted(result, credentials, ctx.output_cap)
    if ran is not None and ctx.hooks is not None:  # the hooks see what the model will see
        feedback = ctx.hooks.after_tool(call, ran, result)
        if feedback:
            joined = ToolResult(f"{result.content}\n\n{feedback}", result.is_error)
            result = _redacted(joined, credentials, ctx.output_cap)
    return result


def _redacted(result: ToolResult, credentials: list[tuple[str, str]], cap: int) -> ToolResult:
    from mini_letta.tools.environment import redact_output

    content = redact_output(result.content, credentials)
    if len(content) > cap:  # the backstop; tools cap their own output first
        content = cap_text(content, cap)
    return result if content == result.content else ToolResult(content, result.is_error)


def _execute(
    call: ToolCall, toolset: Toolset, ctx: ToolContext
) -> tuple[ToolResult, dict[str, Any] | None]:
    """The call's result, and its arguments when the tool ran (None: refused before)."""
    tool = toolset.get(call.name)
    if tool is None:
        available = ", ".join(toolset.names()) or "none"
        return ToolResult(
            f"UnknownTool: no tool named {call.name!r} (available: {available})", True
        ), None
    try:
        args = parse_arguments(call.arguments)
    except ToolInputError as exc:
        return ToolResult(f"ToolInputError: {exc}", True), None
    problem = argument_problem(tool.spec.parameters, args)
    if problem is not None:
        return ToolResult(f"ToolInputError: {problem}", True), None
    refusal = _check_permission(call, tool, args, ctx)
    if refusal is not None:
        return ToolResult(refusal, True), None
    try:
        result = tool.run(args, ctx)
    except KeyboardInterrupt:
        raise
    except FieldError as exc:  # an argument the schema let through, refused by the tool
        return ToolResult(f"ToolInputError: {exc}", True), args
    except MiniLettaError as exc:
        return ToolResult(f"{type(exc).__name__}: {exc}", True), args
    except Exception as exc:  # a tool bug must not end the turn; the model sees it
        return ToolResult(f"{type(exc).__name__}: {exc}", True), args
    return result, args


def _check_permission(
    call: ToolCall, tool: Tool, args: Mapping[str, Any], ctx: ToolContext
) -> str | None:
    """None if the call may run; else the refusal the model sees."""
    name = call.name
    hooked = ctx.hooks.before_tool(call, args) if ctx.hooks is not None else HookDecision()
    if hooked.decision == "deny":
        return f"PermissionDenied: a PreToolUse hook blocked {name}: {hooked.reason}"
    decision = decide(ctx.permission_mode, tool.kind, name, ctx.allowed_tools, ctx.disallowed_tools)
    refusal = Refusal(name, tool.kind, ctx.permission_mode)
    if decision == "deny":
        return refusal.denied(ctx.disallowed_tools)
    if hooked.decision is not None:
        decision = hooked.decision
    if decision == "ask":
        if ctx.approve is None:
            return refusal.unanswered()
        asked = describe_call(name, args)
        if hooked.decision == "ask" and hooked.reason:
            asked = f"{asked} (a hook asks: {hooked.reason})"
        if not ctx.approve(call, asked):
            return refusal.declined()
    return None


def describe_call(name: str, args: Mapping[str, Any]) -> str:
    """One line for an approval prompt: the command, or the path and what happens to it (an
    MCP tool: its server, its own name and the arguments)."""
    if name.startswith("mcp__") and "__" in name[5:]:
        server, _, tool = name[5:].partition("__")
        shown = json.dumps(dict(args), ensure_ascii=False)
        return f"{tool} on MCP server {server}: {shown[:300]}"
    if isinstance(args.get("command"), str):
        return f"{name}: {args['command']}"
    if isinstance(args.get("name"), str) and len(args) == 1:  # Skill: the skill loaded
        return f"{name} {args['name']}"
    path = args.get("path")
    if isinstance(path, str):
        if isinstance(args.get("content"), str):
            return f"{name} {path} ({len(args['content'])} characters)"
        return f"{name} {path}"
    return f"{name} {json.dumps(dict(args), ensure_ascii=False)[:200]}"


def parse_arguments(raw: str) -> dict[str, Any]:
    if not raw.strip():
        return {}
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ToolInputError(f"arguments are not valid JSON ({exc.msg} at char {exc.pos})") from exc
    if not isinstance(value, dict):
        raise ToolInputError(f"arguments must be a JSON object, got {type(value).__name__}")
    return value
