"""The first message of each side agent: the reflection task and the merge-review task.

The reflection task carries the payload as `<transcript>` with one JSON message per line, after
the memory section; the system prompts live in `prompts/`. Everything the agent needs is in
the text, so a real model and the mock read the same thing.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

_PROMPTS = Path(__file__).resolve().parents[2] / "prompts"
TRANSCRIPT_TAG = "transcript"


def reflection_system_prompt() -> str:
    return (_PROMPTS / "reflection.md").read_text(encoding="utf-8").strip()


def merge_review_prompt() -> str:
    return (_PROMPTS / "merge.md").read_text(encoding="utf-8").strip()


def build_reflection_task(
    payloads: Sequence[Mapping[str, Any]],
    memory: str,
    instruction: str | None,
    over_budget: Sequence[tuple[str, int, int]] = (),
) -> str:
    """The reflection agent's first message: notes, the memory section, the files to
    consolidate (path, tokens, cap: at or over their budget), then each transcript."""
    parts = [
        "Review this transcript and update memory."
        if len(payloads) == 1
        else f"Review these {len(payloads)} conversation transcripts and update memory."
    ]
    if any(p.get("mode") == "replay" for p in payloads):
        parts.append(
            'Transcripts with mode="replay" were reflected on before; they are here to avoid '
            "duplicates and to show patterns across conversations."
        )
    if instruction and instruction.strip():
        parts.append(f"Additional instruction from the user: {instruction.strip()}")
    parts.append(f"<memory>\n{memory.strip()}\n</memory>")
    if over_budget:
        parts.append(_consolidation_note(over_budget))
    parts.extend(_transcript(payload) for payload in payloads)
    return "\n\n".join(parts)


def _consolidation_note(over_budget: Sequence[tuple[str, int, int]]) -> str:
    files = "\n".join(
        f'<consolidate path="{path}" tokens="{tokens}" cap="{cap}"/>'
        for path, tokens, cap in over_budget
    )
    return (
        "These files are at or over their size budget. Consolidate each one first, in place: "
        "merge lines that say the same thing, replace lines a newer one supersedes, and move "
        "detail into a linked file outside system/. A change that grows one is refused; one "
        f"that shrinks it is accepted.\n{files}"
    )


def _transcript(payload: Mapping[str, Any]) -> str:
    messages = payload["messages"]
    conversation = payload.get("conversationId", "")
    mode = payload.get("mode", "unreflected")
    notes = [f"{len(messages)} message(s)."]
    if payload.get("watermarkLost"):
        notes.append(
            "The record of what was already reflected on was lost, so this replays the "
            "conversation from its start; skip what memory already holds."
        )
    elif mode == "unreflected" and payload.get("startLine", 0) > 0:
        notes.append("Earlier messages of this conversation were reflected on before.")
    if payload.get("truncated"):
        notes.append("More messages follow; they wait for the next reflection.")
    lines = "\n".join(json.dumps(m, ensure_ascii=False, separators=(",", ":")) for m in messages)
    return (
        f'<{TRANSCRIPT_TAG} conversation="{conversation}" mode="{mode}">\n'
        f"<!-- {' '.join(notes)} -->\n{lines}\n</{TRANSCRIPT_TAG}>"
    )


def build_merge_task(run_id: str, commits: int, diff: str, merge_instructions: str) -> str:
    parts = [
        f"Reflection run {run_id} made {commits} commit(s). Their diff against your memory is "
        "below."
    ]
    if merge_instructions.strip():
        parts.append(
            "The user's merge instructions (follow them):\n<merge_instructions>\n"
            f"{merge_instructions.strip()}\n</merge_instructions>"
        )
    parts.append(f"<diff>\n{diff.rstrip()}\n</diff>")
    return "\n\n".join(parts)
