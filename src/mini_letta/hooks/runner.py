"""The user's hooks at each lifecycle point, answered as Claude Code's are.

Every matching hook gets one JSON object on stdin (`session_id` = the conversation id,
`transcript_path`, `cwd`, `hook_event_name`, and the event's own fields). Exit 0 goes on (its
stdout is context for UserPromptSubmit and SessionStart); exit 2 blocks with its stderr as the
reason; any other exit, a timeout or a command that cannot start is a warning and the action
goes ahead, so a broken hook never loses a turn. On exit 0 a JSON answer may carry `decision`
(`block`, or `approve`), `reason`, `continue: false` with `stopReason`, `systemMessage`, and
`hookSpecificOutput` with `additionalContext` or, for PreToolUse, `permissionDecision`
(allow, deny, ask) and `permissionDecisionReason`. What reaches the model is redacted and capped.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mini_letta import log
from mini_letta.conversations.messages import ToolCall
from mini_letta.hooks.config import HookCommand, HookConfig, HookEvent
from mini_letta.hooks.process import HookRun, run_hook_command
from mini_letta.structs import Struct
from mini_letta.tools.base import HookDecision, ToolResult
from mini_letta.tools.environment import credential_values, redact_output, shell_environment
from mini_letta.tools.output import cap_text
from mini_letta.tools.permissions import Decision

if TYPE_CHECKING:
    from mini_letta.conversations.store import ConversationStore
    from mini_letta.settings import Settings

CONTEXT_CAP = 10_000  # characters of hook text that may reach the model, per event
_DECISIONS: dict[str, Decision] = {"allow": "allow", "deny": "deny", "ask": "ask"}
_RANK: dict[Decision, int] = {"allow": 0, "ask": 1, "deny": 2}
_STDOUT_IS_CONTEXT = frozenset({"UserPromptSubmit", "SessionStart"})


STOP_FEEDBACK = '<hook-feedback event="Stop">\n{reason}\n</hook-feedback>'


def added_context(prompt: str, *contexts: str) -> str:
    """The prompt as stored and sent, with the context the hooks added after it (the user's
    words come first, so the conversation's title stays theirs)."""
    shown = [c for c in contexts if c]
    if not shown:
        return prompt
    blocks = "\n".join(f"<hook-context>\n{c}\n</hook-context>" for c in shown)
    return f"{prompt}\n\n{blocks}"


class HookReply(Struct, frozen=True):
    """What the hooks of one event said, together: any block wins, contexts add up."""

    blocked: bool = False
    reason: str = ""
    context: str = ""
    permission: Decision | None = None


class HookSession(Struct, frozen=True):
    """What every hook is told about where it runs."""

    session_id: str
    transcript_path: Path
    cwd: Path  # the project: where hooks run
    permission_mode: str = "default"
    work_dir: Path | None = None  # where the tools' relative paths start (None: `cwd`)


class HookRunner:
    """Runs the configured hooks of a session; implements the tools' ToolHooks seam."""

    def __init__(
        self,
        config: HookConfig,
        session: HookSession,
        environ: Mapping[str, str],
        allow: frozenset[str] = frozenset(),
    ) -> None:
        self.config = config
        self.session = session
        project = str(session.cwd)
        self.env = {
            **shell_environment(environ, allow),
            "MINI_LETTA_PROJECT_DIR": project,
            "CLAUDE_PROJECT_DIR": project,  # scripts written for Claude Code read it
        }
        self._credentials = credential_values(environ)

    def run(
        self, event: HookEvent, fields: Mapping[str, Any], target: str | None = None
    ) -> HookReply:
        """Run the hooks of `event` that match `target`, in order; their combined answer."""
        commands = self.config.for_event(event, target)
        if not commands:
            return HookReply()
        payload = json.dumps(
            {
                "session_id": self.session.session_id,
                "transcript_path": str(self.session.transcript_path),
                "cwd": str(self.session.cwd),
                "permission_mode": self.session.permission_mode,
                "hook_event_name": event,
                **fields,
            },
            ensure_ascii=False,
        ).encode("utf-8")
        replies = [self._answer(hook, self._run_one(hook, payload)) for hook in commands]
        return self._combined(replies)

    # -- the tools' seam ---------------------------------------------------------------

    def before_tool(self, call: ToolCall, args: Mapping[str, Any]) -> HookDecision:
        fields = {"tool_name": call.name, "tool_input": self._input(args), "tool_use_id": call.id}
        reply = self.run("PreToolUse", fields, call.name)
        if reply.blocked:
            return HookDecision("deny", reply.reason)
        return HookDecision(reply.permission, reply.reason)

    def after_tool(self, call: ToolCall, args: Mapping[str, Any], result: ToolResult) -> str:
        response = {"content": result.content, "is_error": result.is_error}
        fields = {
            "tool_name": call.name,
            "tool_input": self._input(args),
            "tool_response": response,
            "tool_use_id": call.id,
        }
        reply = self.run("PostToolUse", fields, call.name)
        notes = [f"PostToolUse hook: {reply.reason}"] if reply.blocked else []
        if reply.context:
            notes.append(f"PostToolUse hook context: {reply.context}")
        return "\n".join(notes)

    # -- the session's events ----------------------------------------------------------

    def prompt_submitted(self, prompt: str) -> HookReply:
        return self.run("UserPromptSubmit", {"prompt": prompt})

    def session_started(self, source: str) -> HookReply:
        """`source`: `startup` (a new conversation) or `resume`; it is the matcher's target."""
        return self.run("SessionStart", {"source": source}, source)

    def stopping(self, active: bool, stop_reason: str) -> HookReply:
        """`active`: the turn already went on once because a Stop hook said so."""
        return self.run("Stop", {"stop_hook_active": active, "stop_reason": stop_reason})

    def before_compact(self, trigger: str, instructions: str | None) -> None:
        """`trigger` `manual` or `auto` (the matcher's target); a block cannot stop it."""
        fields = {"trigger": trigger, "custom_instructions": instructions or ""}
        self.run("PreCompact", fields, trigger)

    def before_reflect(self, trigger: str, conversations: Sequence[str] = ()) -> HookReply:
        """`trigger` is the matcher's target; `conversations` the run's (default: this
        session's own), told as `conversation_ids`."""
        return self.run("PreReflect", self._reflecting(trigger, conversations), trigger)

    def after_reflect(
        self, trigger: str, outcome: Mapping[str, Any], conversations: Sequence[str] = ()
    ) -> None:
        fields = {**self._reflecting(trigger, conversations), "outcome": dict(outcome)}
        self.run("PostReflect", fields, trigger)

    def _reflecting(self, trigger: str, conversations: Sequence[str]) -> dict[str, Any]:
        """The fields of every reflect hook, whichever way its run was launched."""
        ids = list(conversations) or [self.session.session_id]
        return {"trigger": trigger, "conversation_ids": ids}

    def _input(self, args: Mapping[str, Any]) -> dict[str, Any]:
        """The call's arguments, with Claude Code's absolute `file_path` beside our `path`,
        so a hook written for its Read/Write/Edit reads the file it expects."""
        shown = dict(args)
        path = args.get("path")
        if isinstance(path, str) and "file_path" not in shown:
            start = self.session.work_dir or self.session.cwd
            shown["file_path"] = str(start / path)  # an absolute `path` stays itself
        return shown

    # -- one hook ----------------------------------------------------------------------

    def _run_one(self, hook: HookCommand, payload: bytes) -> HookRun:
        return run_hook_command(hook.command, payload, self.session.cwd, self.env, hook.timeout)

    def _answer(self, hook: HookCommand, run: HookRun) -> HookReply:
        if run.code == 2:
            return HookReply(blocked=True, reason=self._shown(run.stderr) or "(no reason given)")
        if run.code != 0:
            what = run.failure or f"exited {run.code}"
            detail = _first_line(run.stderr)
            log.warning(
                "%s hook `%s` (%s) %s%s; going on",
                hook.event,
                _short(hook.command),
                hook.file,
                what,
                f": {detail}" if detail else "",
            )
            return HookReply()
        answer = _json_answer(run.stdout)
        if answer is None:  # plain words are context only where Claude Code makes them so
            plain = hook.event in _STDOUT_IS_CONTEXT
            return HookReply(context=self._shown(run.stdout) if plain else "")
        return self._from_json(hook, answer)

    def _from_json(self, hook: HookCommand, answer: Mapping[str, Any]) -> HookReply:
        message = answer.get("systemMessage")
        if isinstance(message, str) and message.strip():
            log.notice("%s hook: %s", hook.event, _first_line(message))
        specific = answer.get("hookSpecificOutput")
        specific = specific if isinstance(specific, Mapping) else {}
        context = specific.get("additionalContext")
        reason = answer.get("reason") or specific.get("permissionDecisionReason") or ""
        reason = self._shown(reason if isinstance(reason, str) else json.dumps(reason))
        permission = _DECISIONS.get(str(specific.get("permissionDecision", "")))
        decision = answer.get("decision")
        if decision == "approve":  # the older spelling of a PreToolUse allow
            permission = permission or "allow"
        blocked = decision == "block" or answer.get("continue") is False
        if answer.get("continue") is False and not reason:
            stop = answer.get("stopReason")
            reason = self._shown(stop) if isinstance(stop, str) else ""
        if permission == "deny" and hook.event == "PreToolUse":
            blocked = True
        return HookReply(
            blocked=blocked,
            reason=reason or ("(no reason given)" if blocked else ""),
            context=self._shown(context) if isinstance(context, str) else "",
            permission=permission,
        )

    def _combined(self, replies: list[HookReply]) -> HookReply:
        blocked = [r for r in replies if r.blocked]
        permission: Decision | None = None
        for reply in replies:  # deny beats ask beats allow
            if reply.permission is not None and (
                permission is None or _RANK[reply.permission] > _RANK[permission]
            ):
                permission = reply.permission
        reasons = blocked or [r for r in replies if r.permission == permission and r.reason]
        return HookReply(
            blocked=bool(blocked),
            reason="\n".join(dict.fromkeys(r.reason for r in reasons if r.reason)),
            context=cap_text("\n".join(r.context for r in replies if r.context), CONTEXT_CAP),
            permission=permission,
        )

    def _shown(self, text: str) -> str:
        """Hook text as the model or the user may see it: no credential, bounded."""
        return cap_text(redact_output(text.strip(), self._credentials), CONTEXT_CAP)


def open_hook_runner(
    settings: Settings,
    store: ConversationStore,
    project_dir: Path,
    environ: Mapping[str, str],
    permission_mode: str = "default",
    work_dir: Path | None = None,
) -> HookRunner | None:
    """The hooks of the settings files for one conversation; None when there are none to run
    (a bad `hooks` object is a ConfigError naming its file)."""
    from mini_letta.hooks.config import load_hook_config

    config = load_hook_config(settings.hook_layers())
    if not any(command.runs for command in config.commands):
        return None
    where = HookSession(
        store.conversation_id, store.files.messages, project_dir, permission_mode, work_dir
    )
    return HookRunner(config, where, environ, settings.bash_env_allow())


def _json_answer(stdout: str) -> Mapping[str, Any] | None:
    text = stdout.strip()
    if not text.startswith("{"):
        return None
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):  # not JSON, or nested past the parser's depth
        return None
    return value if isinstance(value, dict) else None


def _first_line(text: str) -> str:
    stripped = text.strip()
    return stripped.splitlines()[0][:200] if stripped else ""


def _short(command: str) -> str:
    line = _first_line(command)
    return line if len(line) <= 60 else line[:57] + "..."
