"""Everything the palace page shows, gathered into one JSON-able dict.

Memory at HEAD (two git processes), each line's origin (`lines.py`, one more), every run's
diff (one `git diff-tree --stdin` for all of them), the run records, each conversation's
watermark and its most recent `message_limit` messages (the page's search reads only those,
and says so), model usage per call, memory size per commit, and the doctor's findings.
Every text from a conversation, a run or memory is passed through the secret scanner's
redaction before it is embedded. Nothing is written.
"""

from __future__ import annotations

import re
from typing import Any

from mini_letta.agents.records import AgentRecord
from mini_letta.clock import Clock, format_timestamp
from mini_letta.conversations.messages import Message
from mini_letta.conversations.registry import scan_conversations
from mini_letta.conversations.store import ConversationStore
from mini_letta.errors import CorruptFileError, FrontmatterError, StorageError
from mini_letta.home import Home
from mini_letta.llm.tokens import estimate_tokens
from mini_letta.memory.frontmatter import decode_memory_bytes, normalize_text, parse_memory_file
from mini_letta.memory.repo import GitRepo
from mini_letta.memory.secrets import redact_secrets
from mini_letta.palace.doctor import Finding
from mini_letta.palace.markdown import render_lines
from mini_letta.palace.origins import Origins
from mini_letta.reflection.gate.check import GateLimits
from mini_letta.reflection.run.execute import rejected_branch
from mini_letta.reflection.state.watermark import ReflectionState
from mini_letta.storage.atomic import load_json
from mini_letta.structs import Struct

MESSAGE_LIMIT = 200  # per conversation: what the page's search covers
MESSAGE_CHARS = 4_000  # one message's text in the page, at most
DIFF_CHARS = 20_000  # one run's diff in the page, at most
_PAIR = re.compile(r"^[0-9a-f]{40}$")
_JOIN = "\n\x1e\x00\x1e\n"  # no credential pattern spans a NUL


def redact_all(texts: list[str]) -> list[str]:
    """`redact_secrets` of each text, in one scan: the scanner's cost is mostly per call."""
    if not texts:
        return []
    parts = redact_secrets(_JOIN.join(texts)).split(_JOIN)
    return parts if len(parts) == len(texts) else [redact_secrets(t) for t in texts]


class PalaceInput(Struct, frozen=True):
    home: Home
    agent: AgentRecord
    limits: GateLimits
    window: int
    clock: Clock
    message_limit: int = MESSAGE_LIMIT


def gather_palace(source: PalaceInput, origins: Origins, findings: list[Finding]) -> dict[str, Any]:
    home, agent = source.home, source.agent
    repo = GitRepo(home.memory_dir(agent.id))
    head = repo.head_sha_or_none()
    conversations, recent = _conversations(home, agent.id, source.message_limit)
    files, used, wanted = _files(repo, origins, source.limits)
    return {
        "agent": {"id": agent.id, "name": agent.name, "model": agent.model},
        "generatedAt": format_timestamp(source.clock.now()),
        "head": head,
        "uncommitted": repo.changed_paths() if head else [],
        "limits": {"systemTokens": source.limits.system_tokens,
                   "fileTokens": source.limits.file_tokens, "window": source.window},
        "messageLimit": source.message_limit,
        "files": files,
        "commits": [_commit(origins, index) for index in used],
        "commitIndex": {str(index): n for n, index in enumerate(used)},
        "runs": _runs(repo, origins),
        "cited": _cited_messages(home, agent.id, origins, wanted, recent),
        "conversations": conversations,
        "usage": _usage(recent, source.window),
        "sizes": _sizes(origins),
        "findings": [f.to_json() for f in findings],
        "damagedRuns": [bad.render() for bad in origins.damaged],
    }  # fmt: skip


def _files(
    repo: GitRepo, origins: Origins, limits: GateLimits
) -> tuple[list[dict[str, Any]], list[int], dict[str, set[str]]]:
    """Each file at HEAD, rendered, with its lines' origins as indexes into the commit table
    (`used`: history commit index -> table index) and the messages cited for each line
    (`wanted`: run -> the message ids to embed)."""
    blobs = repo.read_blobs("HEAD") if repo.has_head() else {}
    used: dict[int, int] = {}
    wanted: dict[str, set[str]] = {}
    files = []
    texts: dict[str, str] = {}
    for path in sorted(blobs, key=lambda p: (p.count("/") == 0, p.casefold())):
        entry: dict[str, Any] = {"path": path, "description": "", "error": None, "budget": None}
        try:
            texts[path] = normalize_text(decode_memory_bytes(blobs[path], path))
        except FrontmatterError as exc:
            entry.update(error=str(exc), tokens=0, html="", lines=[], cites={})
        files.append(entry)
    shown = dict(zip(texts, redact_all(list(texts.values())), strict=True))
    for entry in files:
        path = entry["path"]
        if path not in texts:
            continue
        raw = texts[path]
        if path.endswith(".md"):
            try:
                description = parse_memory_file(raw, path).description
                same = shown[path] == raw
                entry["description"] = description if same else redact_secrets(description)
            except FrontmatterError as exc:
                entry["error"] = str(exc)
        if path.startswith("system/"):
            entry["budget"] = limits.file_tokens
        entry.update(tokens=estimate_tokens(raw), html=render_lines(shown[path]))
        known = origins.history.origins.get(path)
        count = raw.count("\n") + (0 if raw.endswith("\n") or not raw else 1)
        if known is None or len(known) != count:
            known = []  # the replay does not match this file (binary history): no origins
        entry["lines"] = [used.setdefault(i, len(used)) for i in known]
        entry["cites"] = _cites(origins, path, raw.split("\n"), known, wanted)
    return files, list(used), wanted


def _cites(
    origins: Origins, path: str, texts: list[str], known: list[int], wanted: dict[str, set[str]]
) -> dict[str, list[str]]:
    """Line number -> the message ids its run cited for it (what `memory why` prints)."""
    cites: dict[str, list[str]] = {}
    for number, (text, commit) in enumerate(zip(texts, known, strict=False), 1):
        record = origins.run(origins.commit_runs[commit])
        ids = record.cited_lines.get(path, {}).get(text.strip()) if record else None
        if ids:
            cites[str(number)] = ids
            wanted.setdefault(record.run_id if record else "", set()).update(ids)
    return cites


def _commit(origins: Origins, index: int) -> dict[str, Any]:
    commit = origins.history.commits[index]
    return {
        "sha": commit.sha,
        "time": format_timestamp_seconds(commit.seconds),
        "run": origins.commit_runs[index],
        "subject": redact_secrets(commit.subject),
    }


def format_timestamp_seconds(seconds: int) -> str:
    from datetime import UTC, datetime

    return format_timestamp(datetime.fromtimestamp(seconds, UTC))


def _runs(repo: GitRepo, origins: Origins) -> list[dict[str, Any]]:
    diffs = _run_diffs(repo, origins)
    runs: list[dict[str, Any]] = []
    for record in origins.runs:
        diff = diffs.get(record.run_id, "")
        runs.append(
            {
                "id": record.run_id,
                "status": record.status,
                "decision": record.decision,
                "trigger": record.trigger,
                "startedAt": record.started_at,
                "finishedAt": record.finished_at,
                "message": record.message,
                "error": record.error,
                "reasons": list(record.reasons),
                "instruction": record.instruction,
                "model": record.model,
                "commitCount": record.commit_count,
                "slices": [
                    {"conversation": s.conversation_id, "start": s.start_line,
                     "end": s.slice_end_line, "count": s.message_count, "mode": s.mode}
                    for s in record.slices
                ],
                "diff": diff[:DIFF_CHARS],
                "diffCut": len(diff) > DIFF_CHARS,
            }
        )  # fmt: skip
    texts = [str(run[k] or "") for run in runs for k in _RUN_TEXTS]
    texts += [reason for run in runs for reason in run["reasons"]]
    clean = iter(redact_all(texts))
    for run in runs:
        for key in _RUN_TEXTS:
            value = next(clean)
            run[key] = value if run[key] is not None else None
    for run in runs:
        run["reasons"] = [next(clean) for _ in run["reasons"]]
    return runs


_RUN_TEXTS = ("message", "error", "instruction")


def _run_diffs(repo: GitRepo, origins: Origins) -> dict[str, str]:
    """Each run's diff: what its merge brought to main (a merge commit against its first
    parent, a fast-forward against the head before the run), or a rejected run's kept branch
    against its base. One git process for all of them."""
    if not origins.runs or not repo.has_head():
        return {}
    parents = {c.sha: c.parents for c in origins.history.commits}
    kept = _rejected_tips(repo)
    pairs: list[tuple[str, str, str]] = []  # (run, tip, base)
    for record in origins.runs:
        tip = record.merge_commit or kept.get(record.run_id)
        base = record.parent_head_before
        if tip and len(parents.get(tip, ())) > 1:
            base = parents[tip][0]
        if tip and base and _PAIR.match(tip) and _PAIR.match(base):
            pairs.append((record.run_id, tip, base))
    if not pairs:
        return {}
    request = "".join(f"{tip} {base}\n" for _, tip, base in pairs).encode("ascii")
    code_and_output = repo.run_bytes(
        "diff-tree", "--stdin", "--always", "-r", "-p", "--no-renames", "--no-color",
        "--no-ext-diff", stdin=request, check=False,
    )  # fmt: skip
    chunks: list[list[str]] = []
    output = redact_secrets(code_and_output.decode("utf-8", "replace"))
    for line in output.split("\n"):
        if _PAIR.match(line):
            chunks.append([])
        elif chunks:
            chunks[-1].append(line)
    if len(chunks) != len(pairs):
        return {}  # an unreadable commit (gc'd): no diffs rather than the wrong ones
    return {
        run: "\n".join(chunk).strip("\n") for (run, _, _), chunk in zip(pairs, chunks, strict=True)
    }


def _rejected_tips(repo: GitRepo) -> dict[str, str]:
    prefix = rejected_branch("")
    listing = repo.run("for-each-ref", "--format=%(refname:short) %(objectname)",
                       f"refs/heads/{prefix}", check=False)  # fmt: skip
    tips = {}
    for line in listing.splitlines():
        name, _, sha = line.partition(" ")
        if name.startswith(prefix):
            tips[name.removeprefix(prefix)] = sha
    return tips


def _message(conversation: str, line: int, message: Message) -> dict[str, Any]:
    text = message.content
    if message.tool_calls:
        text += "".join(f"\n[tool call] {c.name} {c.arguments}" for c in message.tool_calls)
    return {
        "id": message.id,
        "conversation": conversation,
        "line": line,
        "role": message.role,
        "time": message.created_at,
        "text": text[:MESSAGE_CHARS],  # redacted by the caller, all in one scan
        "cut": len(text) > MESSAGE_CHARS,
    }


def _conversations(
    home: Home, agent_id: str, limit: int
) -> tuple[list[dict[str, Any]], dict[str, tuple[str, int, Message]]]:
    records, _ = scan_conversations(home, agent_id)
    found = []
    recent: dict[str, tuple[str, int, Message]] = {}
    for record in records:
        store = ConversationStore(agent_id, record.id, home)
        length = store.count()
        through = _watermark(store)
        tail = store.tail(limit) if limit else []
        for line, message in tail:
            recent[message.id] = (record.id, line, message)
        shown = [_message(record.id, line, m) for line, m in tail]
        _redact_texts(shown)
        found.append(
            {
                "id": record.id,
                "title": redact_secrets(record.title),
                "updatedAt": record.updated_at,
                "length": length,
                "reflected": through,
                "behind": length - through,
                "messages": shown,
                "shownFrom": tail[0][0] if tail else length,
            }
        )
    return found, recent


def _watermark(store: ConversationStore) -> int:
    """How many of the log's lines reflection has covered (read only: a damaged state file
    counts as nothing covered here; the next run rebuilds it)."""
    try:
        data = load_json(store.files.reflection_state)
        state = ReflectionState.from_json(data) if data else ReflectionState()
    except (CorruptFileError, StorageError, ValueError):
        return 0
    line = state.reflected_through_line
    return 0 if line is None else line + 1


def _cited_messages(
    home: Home,
    agent_id: str,
    origins: Origins,
    wanted: dict[str, set[str]],
    recent: dict[str, tuple[str, int, Message]],
) -> dict[str, Any]:
    """The cited messages' text: from the recent messages when there, else read from the
    citing runs' slices: one pass per conversation over the lines those slices span."""
    messages: dict[str, Any] = {}
    spans: dict[str, tuple[int, int]] = {}
    missing: set[str] = set()
    for record in origins.runs:
        ids = wanted.get(record.run_id, set())
        for message_id in ids:
            if message_id in recent:
                conversation, line, message = recent[message_id]
                messages[message_id] = _message(conversation, line, message)
            else:
                missing.add(message_id)
        if ids - set(messages):
            for piece in record.slices:
                low, high = spans.get(piece.conversation_id, (piece.start_line, 0))
                spans[piece.conversation_id] = (
                    min(low, piece.start_line),
                    max(high, piece.slice_end_line),
                )
    for conversation, (start, end) in spans.items():
        if not missing:
            break
        store = ConversationStore(agent_id, conversation, home)
        if not store.exists():
            continue
        for line, message in store.find_ids(missing, start, end):
            messages[message.id] = _message(conversation, line, message)
            missing.discard(message.id)
    _redact_texts(list(messages.values()))
    return messages


def _redact_texts(entries: list[dict[str, Any]]) -> None:
    for entry, text in zip(entries, redact_all([e["text"] for e in entries]), strict=True):
        entry["text"] = text


def _usage(recent: dict[str, tuple[str, int, Message]], window: int) -> list[dict[str, Any]]:
    """One point per model call among the recent messages: context used and cache share (only
    where the provider reported cache counts for that conversation)."""
    points = []
    cached = {c for c, _, m in recent.values() if m.usage and _reports_cache(m)}
    for conversation, _, message in sorted(recent.values(), key=lambda item: item[2].created_at):
        usage = message.usage
        if usage is None or message.role != "assistant":
            continue
        share = usage.cache_read_tokens / usage.input_tokens if usage.input_tokens else 0.0
        points.append(
            {"time": message.created_at, "conversation": conversation,
             "input": usage.input_tokens, "output": usage.output_tokens, "window": window,
             "cacheShare": round(share, 4) if conversation in cached else None}
        )  # fmt: skip
    return points


def _sizes(origins: Origins) -> list[dict[str, Any]]:
    commits = origins.history.commits
    return [
        {"time": format_timestamp_seconds(commits[p.commit].seconds), "tokens": p.tokens,
         "files": p.files, "run": origins.commit_runs[p.commit]}
        for p in origins.history.sizes
    ]  # fmt: skip


def _reports_cache(message: Message) -> bool:
    usage = message.usage
    return usage is not None and bool(usage.cache_read_tokens or usage.cache_write_tokens)
