"""The mock's summariser: a deterministic, extractive summary that keeps what the user said.

It reads the transcript a real model would get (`[role] text` entries, continuation lines
indented by two spaces), keeps each user statement verbatim (whitespace collapsed, long ones
cut), notes which tools were used, and folds an `[earlier summary]` in by reading its statements
back, so summaries never nest. The result stays within `max_output_tokens`: the newest
statements are kept and the number of older ones left out is said.
"""

from __future__ import annotations

import re
from collections import Counter

from mini_letta.llm.base import ModelRequest, ModelResponse
from mini_letta.llm.tokens import estimate_tokens
from mini_letta.structs import Struct, field

DEFAULT_SUMMARY_TOKENS = 400
STATEMENT_CAP = 200  # characters of one kept statement
USER_HEADING = "User said:"
TOOLS_HEADING = "Tools used:"

_ENTRY = re.compile(r"^\[(earlier summary|user|assistant|tool(?: [^\]]*)?)\] ?(.*)$")
_CALL = re.compile(r"(?:^|, |-> )([A-Za-z_][\w.-]*)\(")
_TOOL_COUNT = re.compile(r"([\w.-]+) ×(\d+)")
_LEFT_OUT = re.compile(r"^\((\d+) earlier statements? left out\)$")


class _Digest(Struct):
    statements: list[str] = field(default_factory=list)
    tools: Counter[str] = field(default_factory=Counter)
    tool_errors: int = 0
    left_out: int = 0


def respond_summary(request: ModelRequest) -> ModelResponse:
    transcript = request.messages[-1].content if request.messages else ""
    digest = _Digest()
    for tag, text in _entries(transcript):
        if tag == "earlier summary":
            _fold_summary(digest, text)
        elif tag == "user":
            _add_statement(digest, text)
        elif tag == "assistant":
            _, arrow, calls = text.partition("-> ")
            if arrow:
                digest.tools.update(_CALL.findall("-> " + calls))
        elif tag.endswith(" error"):
            digest.tool_errors += 1
    budget = request.max_output_tokens or DEFAULT_SUMMARY_TOKENS
    return ModelResponse(_render(digest, budget), (), None, "end_turn")


def _entries(transcript: str) -> list[tuple[str, str]]:
    entries: list[tuple[str, list[str]]] = []
    open_entry = False
    for line in transcript.split("\n"):
        match = _ENTRY.match(line)
        if match:
            entries.append((match.group(1), [match.group(2)]))
            open_entry = True
        elif open_entry and line.startswith("  "):
            entries[-1][1].append(line[2:])
        else:
            open_entry = False
    return [(tag, "\n".join(lines)) for tag, lines in entries]


def _add_statement(digest: _Digest, text: str) -> None:
    statement = " ".join(text.split())
    if len(statement) > STATEMENT_CAP:
        statement = statement[: STATEMENT_CAP - 1] + "…"
    if statement:
        digest.statements.append(statement)


def _fold_summary(digest: _Digest, text: str) -> None:
    section = ""
    for raw in text.split("\n"):
        line = raw.strip()
        if line == USER_HEADING:
            section = "user"
        elif line.startswith(TOOLS_HEADING):
            section = ""
            for name, count in _TOOL_COUNT.findall(line):
                digest.tools[name] += int(count)
            errors = re.search(r"(\d+) errors?\)", line)
            digest.tool_errors += int(errors.group(1)) if errors else 0
        elif (left_out := _LEFT_OUT.match(line)) is not None:
            digest.left_out += int(left_out.group(1))
        elif section == "user" and line.startswith("- "):
            digest.statements.append(line[2:])


def _render(digest: _Digest, budget: int) -> str:
    tail: list[str] = []
    if digest.tools:
        counts = ", ".join(f"{name} ×{n}" for name, n in sorted(digest.tools.items()))
        n = digest.tool_errors
        errors = f" ({n} error{'s' if n != 1 else ''})" if n else ""
        tail.append(f"{TOOLS_HEADING} {counts}{errors}")
    kept: list[str] = []
    used = estimate_tokens("\n".join([USER_HEADING, *tail])) + 12  # room for the left-out note
    for statement in reversed(digest.statements):
        cost = estimate_tokens(statement) + 1
        if used + cost > budget:
            break
        kept.append(f"- {statement}")
        used += cost
    kept.reverse()
    left_out = digest.left_out + len(digest.statements) - len(kept)
    lines = [USER_HEADING]
    if left_out:
        lines.append(f"({left_out} earlier statement{'s' if left_out != 1 else ''} left out)")
    if not kept and not left_out:
        lines.append("(nothing said yet)")
    return "\n".join([*lines, *kept, *tail])
