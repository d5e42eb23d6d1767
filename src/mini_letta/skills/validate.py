"""The memory gate's checks for skills a reflection run created or changed.

A learned skill is instructions the agent will later follow, commands included, so it is held
to more than a memory note: it must pass the standard's validation, stay under the size the
standard recommends for a body, and every command it adds must appear in the messages its
edit cites. A command is a line of a fenced code block, or an inline code span that holds a
space (`pnpm build`, not `package.json`), compared with runs of spaces collapsed and a leading
`$ ` prompt dropped. The cited text is what the person and the agent wrote, the agent's tool
calls included, never a tool's output, so a command a web page or a file suggested cannot be
laundered into a skill. Secrets are the gate's general check.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from mini_letta.llm.tokens import estimate_tokens
from mini_letta.skills.format import parse_skill

MAX_BODY_TOKENS = 5_000  # the standard's recommendation for a SKILL.md body
_SKILL_PATH = re.compile(r"skills/([^/]+)/SKILL\.md")
_FENCE = re.compile(r"^\s*(```|~~~)")
_INLINE = re.compile(r"`([^`\n]+)`")
# A command that does harm whatever the words around it: a download piped into a shell, a
# forced delete, world-writable permissions, raw disk writes, a fork bomb, sudo. The gate holds
# any such text, in prose as in code, to what the user said verbatim.
DANGEROUS_COMMAND = re.compile(
    r"(?:curl|wget)\b[^|\n]{0,300}\|\s*(?:sudo\s+)?(?:ba|z|k|fi)?sh\b|\brm\s+-[a-z]*[rf][a-z]*\s+\S+"
    r"|\bchmod\s+(?:-R\s+)?777\b|\bmkfs\b|\bdd\s+if=|:\(\)\s*\{|\bsudo\s+\S+|>\s*/dev/sd",
    re.IGNORECASE,
)
_LEARNED_BY = "mini-letta-learned-by"
_RUN_ID = "mini-letta-run-id"

SkillChange = tuple[str, str, Sequence[str]]  # (path, status, the lines the run added)


def check_skill_edits(
    changes: Iterable[SkillChange],
    texts: Mapping[str, str],
    citations: Iterable[tuple[str, Sequence[str]]],
    messages: Mapping[str, str],
) -> list[str]:
    """Every reason to hold back the skills among `changes`; `texts` holds their new content,
    `messages` the cited messages' text by id."""
    cited: dict[str, set[str]] = {}
    for path, ids in citations:
        cited.setdefault(path, set()).update(ids)
    reasons: list[str] = []
    for path, status, added in changes:
        match = _SKILL_PATH.fullmatch(path)
        if match is None or status == "deleted":
            continue
        reasons += _skill_reasons(path, match.group(1), texts.get(path, ""), added)
        evidence = "\n".join(messages.get(i, "") for i in sorted(cited.get(path, ())))
        reasons += _command_reasons(path, texts.get(path, ""), added, evidence)
    return reasons


def _skill_reasons(path: str, folder: str, text: str, added: Sequence[str]) -> list[str]:
    skill, problems = parse_skill(text, folder)
    reasons = [f"{path} breaks the skill standard: {p.render()}" for p in problems]
    if skill is not None:
        tokens = estimate_tokens(skill.body)
        if tokens > MAX_BODY_TOKENS:
            reasons.append(f"{path} is ~{tokens} tokens, over the {MAX_BODY_TOKENS} a skill holds")
    return reasons


def _command_reasons(path: str, text: str, added: Sequence[str], evidence: str) -> list[str]:
    new = set(line.strip() for line in added)
    seen = _normal(evidence)
    missing = [
        command
        for command in skill_commands(text)
        if command in new or any(command in line for line in new)
        if _normal(command) not in seen
    ]
    if not missing:
        return []
    more = f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""
    if not evidence.strip():
        return [f"{path} adds commands without citing the messages they were run in: "
                f"{missing[0]!r}{more}"]  # fmt: skip
    return [
        f"{path} adds a command its cited messages never ran or asked for: {missing[0]!r}{more}"
    ]


def skill_commands(text: str) -> list[str]:
    """The commands a skill's text names: fenced code lines, inline code with a space, and a
    dangerous command (`DANGEROUS_COMMAND`) written in prose."""
    found: list[str] = []
    fenced = False
    for line in text.split("\n"):
        if _FENCE.match(line):
            fenced = not fenced
            continue
        if fenced:
            command = line.strip().removeprefix("$ ").strip()
            if command and not command.startswith("#"):
                found.append(command)
            continue
        found += [span.strip() for span in _INLINE.findall(line) if " " in span.strip()]
        danger = DANGEROUS_COMMAND.search(_INLINE.sub("", line))
        if danger:
            found.append(danger.group(0).strip())
    return found


def _normal(text: str) -> str:
    return " ".join(text.split())


def is_skill_path(path: str) -> bool:
    return _SKILL_PATH.fullmatch(path) is not None


def said_by_id(messages: Iterable[Mapping[str, Any]]) -> dict[str, str]:
    """What each payload message (reflection/run/payload.py's shape) said and ran, by id: its text
    and its tool calls' string arguments, never a tool's output (those carry no id)."""
    said: dict[str, str] = {}
    for message in messages:
        if not isinstance(message.get("id"), str):
            continue
        parts = [str(message.get("content") or "")]
        for call in message.get("toolCalls") or ():
            raw = str(call.get("arguments") or "") if isinstance(call, dict) else ""
            try:
                value = json.loads(raw)
            except ValueError:
                value = raw
            values = value.values() if isinstance(value, dict) else [value]
            parts += [item for item in values if isinstance(item, str)]
        said[message["id"]] = "\n".join(parts)
    return said


def learned_metadata(run_id: str) -> dict[str, str]:
    """What a skill written by reflection says about itself in its `metadata`."""
    return {_LEARNED_BY: "reflection", _RUN_ID: run_id}
