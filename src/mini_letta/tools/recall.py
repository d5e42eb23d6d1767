"""`conversation_search` and `memory_search`: the agent's recall of what was said and written.

Both search the agent's index (search/recall.py), which catches up with new messages and memory
commits first. Each hit names its message id and time (or memory path and line) so the model
can cite it. The home folder and the environment (for an embeddings key) come through the
`ToolContext`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mini_letta.llm.base import ToolSpec
from mini_letta.storage.fields import optional_int, require_str
from mini_letta.tools.base import ToolContext, ToolInputError, ToolKind, ToolResult

if TYPE_CHECKING:
    from mini_letta.search.recall import Recall

SNIPPET = 300
_STR = {"type": "string"}

CONVERSATION_SEARCH = ToolSpec(
    "conversation_search",
    "Search every past conversation (user and assistant messages). Hits give conversation, "
    "message id and time: cite them.",
    {
        "type": "object",
        "properties": {
            "query": _STR,
            "since": {"type": "string", "description": "YYYY-MM-DD or ISO time"},
            "until": {"type": "string", "description": "inclusive"},
            "role": {"type": "string", "enum": ["user", "assistant"]},
            "conversation": {"type": "string", "description": "a conversation id"},
            "limit": {"type": "integer", "description": "default 10"},
        },
        "required": ["query"],
    },
)

MEMORY_SEARCH = ToolSpec(
    "memory_search",
    "Search your memory files; hits give path, line and text.",
    {
        "type": "object",
        "properties": {"query": _STR, "limit": {"type": "integer", "description": "default 10"}},
        "required": ["query"],
    },
)


def _recall(ctx: ToolContext) -> Recall:
    """The agent's Recall; the search modules (and sqlite3) load on the first search, so a
    turn that never searches does not pay for them."""
    from mini_letta.search.embeddings import load_embedder
    from mini_letta.search.recall import Recall

    home = ctx.home
    if home is None or not ctx.agent_id:
        raise ToolInputError("search is not available in this run (no agent home)")
    return Recall(home, ctx.agent_id, load_embedder(home, ctx.environ))


def _limit(args: dict[str, Any]) -> int:
    limit = optional_int(args, "limit") if "limit" in args else 10
    if limit is None or not 1 <= limit <= 50:
        raise ToolInputError("'limit' must be between 1 and 50")
    return limit


def _bound(args: dict[str, Any], key: str, *, end: bool) -> str | None:
    value = args.get(key)
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise ToolInputError(f"{key!r} must be a date string")
    from mini_letta.search.query import parse_time_bound

    return parse_time_bound(value, end=end, what=key)


class ConversationSearchTool:
    spec = CONVERSATION_SEARCH
    kind: ToolKind = "read"

    def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        from mini_letta.search.query import MessageFilter
        from mini_letta.search.text import build_snippet

        query = require_str(args, "query", non_empty=True)
        role = args.get("role")
        if role not in (None, "user", "assistant"):
            raise ToolInputError("'role' must be user or assistant")
        conversation = args.get("conversation")
        where = MessageFilter(
            conversation_id=conversation
            if isinstance(conversation, str) and conversation
            else None,
            role=role,
            since=_bound(args, "since", end=False),
            until=_bound(args, "until", end=True),
            limit=_limit(args),
        )
        hits = _recall(ctx).search_messages(query, where)
        if not hits:
            return ToolResult(f"No messages match {query!r}.")
        words = _words(query)
        lines = [f"{len(hits)} message(s) for {query!r}, best first:"]
        for hit in hits:
            snippet = build_snippet(hit.text, words, width=SNIPPET)
            lines.append(
                f"- [{hit.conversation_id} {hit.message_id} {hit.created_at} {hit.role}] {snippet}"
            )
        return ToolResult("\n".join(lines))


class MemorySearchTool:
    spec = MEMORY_SEARCH
    kind: ToolKind = "read"

    def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        query = require_str(args, "query", non_empty=True)
        hits = _recall(ctx).search_memory(query, _limit(args))
        if not hits:
            return ToolResult(f"No memory lines match {query!r}.")
        lines = [f"{len(hits)} memory line(s) for {query!r}, best first:"]
        lines += [f"- {hit.path}:{hit.line}: {memory_line(hit.text)}" for hit in hits]
        return ToolResult("\n".join(lines))


def memory_line(text: str) -> str:
    """A memory line as a search shows it: redacted before it is cut, so no part of a
    credential (say, planted by hand) is shown."""
    from mini_letta.memory.secrets import redact_secrets

    return redact_secrets(text.strip())[:SNIPPET]


def _words(query: str) -> tuple[str, ...]:
    from mini_letta.search.text import parse_query

    parsed = parse_query(query)
    return parsed.words if parsed is not None else ()
